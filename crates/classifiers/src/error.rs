//! The error type of `tact-classifiers`.

/// Everything that can go wrong when building or running a classifier.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A compiled pattern set failed to build (a bug in a cue table, or a
    /// user-supplied pattern that the `regex` crate rejects).
    #[error(transparent)]
    Core(#[from] tact_core::Error),
    /// A strategy name that this classifier does not know.
    #[error("unknown strategy `{found}` for {task} (expected one of: {expected})")]
    UnknownStrategy {
        /// The task (e.g. `effort`).
        task: &'static str,
        /// The name that was given.
        found: String,
        /// The known strategy names, comma separated.
        expected: &'static str,
    },
    /// A configuration value (an environment variable) that is not valid.
    #[error("invalid {key}=`{value}` (expected one of: {expected})")]
    InvalidConfig {
        /// The setting, e.g. `RECURSIVE_LLM_LEVEL_2_SCORING_METHOD`.
        key: String,
        /// The value that was given.
        value: String,
        /// The accepted values, comma separated.
        expected: &'static str,
    },
}
