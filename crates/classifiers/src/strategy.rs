//! `strategy_enum!`: the `Strategy` enum each text classifier exposes
//! (the hybrid default, the heuristic, the seed baseline, the learned model), with its names
//! and parsing, written once so that adding a strategy is one change.

/// Defines `pub enum Strategy { Heuristic, Seed, Learned, Hybrid }` for a
/// task, with its default, `ALL` (default first),
/// `name()` and `FromStr` (accepting `default` for the default).
macro_rules! strategy_enum {
    (
        task: $task:literal,
        what: $what:literal,
        heuristic: $heuristic_doc:literal,
        seed: $seed_doc:literal,
        default: $default:ident,
        all: [$($all:ident),+ $(,)?] $(,)?
    ) => {
        #[doc = $what]
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum Strategy {
            #[doc = $heuristic_doc]
            Heuristic,
            #[doc = $seed_doc]
            Seed,
            /// The learned linear model alone (the embedded default model
            /// or one given to the builder).
            Learned,
            /// The heuristic when its confidence and top-two gap clear the
            /// hybrid thresholds, the learned model otherwise; the result's
            /// `tier` names which decided.
            Hybrid,
        }

        impl Default for Strategy {
            /// The default strategy of the task: the hybrid where it beats
            /// the heuristic on the dev split, the heuristic otherwise.
            fn default() -> Self {
                Strategy::$default
            }
        }

        impl Strategy {
            /// Every strategy, default first.
            pub const ALL: &'static [Strategy] = &[$(Strategy::$all),+];

            /// The tiers the strategy runs.
            pub(crate) fn kind(self) -> $crate::tiered::Kind {
                match self {
                    Strategy::Heuristic => $crate::tiered::Kind::Heuristic,
                    Strategy::Seed => $crate::tiered::Kind::Seed,
                    Strategy::Learned => $crate::tiered::Kind::Learned,
                    Strategy::Hybrid => $crate::tiered::Kind::Hybrid,
                }
            }

            /// The strategy's name as used by the CLI and `cargo xtask eval`.
            pub fn name(self) -> &'static str {
                match self {
                    Strategy::Heuristic => "heuristic",
                    Strategy::Seed => "seed",
                    Strategy::Learned => "learned",
                    Strategy::Hybrid => "hybrid",
                }
            }
        }

        impl std::str::FromStr for Strategy {
            type Err = $crate::Error;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    "default" => Ok(Strategy::$default),
                    "heuristic" => Ok(Strategy::Heuristic),
                    "seed" => Ok(Strategy::Seed),
                    "learned" => Ok(Strategy::Learned),
                    "hybrid" => Ok(Strategy::Hybrid),
                    _ => Err($crate::Error::UnknownStrategy {
                        task: $task,
                        found: s.to_owned(),
                        expected: "heuristic, seed, learned, hybrid",
                    }),
                }
            }
        }
    };
}

pub(crate) use strategy_enum;
