//! `strategy_enum!`: the `Strategy` enum each text classifier exposes
//! (heuristic default + seed baseline), with its names and parsing, written
//! once so that adding a strategy is one change.

/// Defines `pub enum Strategy { Heuristic, Seed }` for a task, with `ALL`,
/// `name()` and `FromStr` (accepting `default` for the heuristic).
macro_rules! strategy_enum {
    (
        task: $task:literal,
        what: $what:literal,
        heuristic: $heuristic_doc:literal,
        seed: $seed_doc:literal $(,)?
    ) => {
        #[doc = $what]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
        #[non_exhaustive]
        pub enum Strategy {
            #[doc = $heuristic_doc]
            #[default]
            Heuristic,
            #[doc = $seed_doc]
            Seed,
        }

        impl Strategy {
            /// Every strategy, default first.
            pub const ALL: &'static [Strategy] = &[Strategy::Heuristic, Strategy::Seed];

            /// The strategy's name as used by the CLI and `cargo xtask eval`.
            pub fn name(self) -> &'static str {
                match self {
                    Strategy::Heuristic => "heuristic",
                    Strategy::Seed => "seed",
                }
            }
        }

        impl std::str::FromStr for Strategy {
            type Err = $crate::Error;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    "heuristic" | "default" => Ok(Strategy::Heuristic),
                    "seed" => Ok(Strategy::Seed),
                    _ => Err($crate::Error::UnknownStrategy {
                        task: $task,
                        found: s.to_owned(),
                        expected: "heuristic, seed",
                    }),
                }
            }
        }
    };
}

pub(crate) use strategy_enum;
