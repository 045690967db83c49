//! The error type of `tact-consensus`.

/// Everything that can go wrong when configuring or running a consensus.
/// No input makes the crate panic: every bad input is one of these.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No candidate (or no session) to choose from.
    #[error("no candidates: consensus needs at least one agent")]
    Empty,
    /// A weight that is NaN, infinite, or outside [0, 1].
    #[error("invalid weight `{name}` = {value}: it must be a finite number in [0, 1]")]
    InvalidWeight {
        /// Where the weight comes from, e.g. `stages.plan.technical_weight`.
        name: String,
        /// The value given.
        value: f64,
    },
    /// A technical and an interaction weight that do not add up to 1.
    #[error(
        "weights of {name} sum to {sum} (technical {technical} + interaction {interaction}); they must sum to 1"
    )]
    WeightsSum {
        /// Which pair: `ppp` or `stages.NAME`.
        name: String,
        /// The technical weight.
        technical: f64,
        /// The interaction weight.
        interaction: f64,
        /// Their sum.
        sum: f64,
    },
    /// A stage with no weights, built in or configured.
    #[error("unknown stage `{stage}` (known stages: {known})")]
    UnknownStage {
        /// The stage given.
        stage: String,
        /// The known stages, comma separated.
        known: String,
    },
    /// A candidate score that is NaN, infinite or out of its range.
    #[error("invalid {field} score {value} for agent `{agent}`: {expected}")]
    InvalidScore {
        /// The agent.
        agent: String,
        /// `technical` or `interaction`.
        field: &'static str,
        /// The value given.
        value: f64,
        /// What was expected.
        expected: &'static str,
    },
    /// Two candidates with the same agent name.
    #[error("agent `{0}` appears twice")]
    DuplicateAgent(String),
    /// An empty agent name.
    #[error("an agent name is empty")]
    EmptyAgent,
    /// Sessions of different specs or stages given together.
    #[error(
        "sessions mix {what}: {values} (consensus compares agents on one spec and stage; filter with a stage)"
    )]
    Mixed {
        /// `specs` or `stages`.
        what: &'static str,
        /// The values found, comma separated.
        values: String,
    },
    /// An invalid normalization setting.
    #[error("invalid normalization: {0}")]
    Normalization(String),
    /// The `[ppp]` TOML section does not parse or has the wrong shape.
    #[error("invalid [ppp] configuration{}: {message}", source_name.as_deref().map(|s| format!(" in {s}")).unwrap_or_default())]
    Config {
        /// The file, when known.
        source_name: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// Scoring a session failed (building the scorer, a bad profile).
    #[error(transparent)]
    Scoring(#[from] tact_scoring::Error),
}
