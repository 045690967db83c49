//! The error type of `tact-types`: parsing a label from text.

/// A label string that is not one of the task's labels.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {task} label `{found}` (expected one of: {expected})")]
#[non_exhaustive]
pub struct Error {
    /// The task whose label set was used.
    pub task: &'static str,
    /// The text that failed to parse.
    pub found: String,
    /// The accepted labels, comma separated.
    pub expected: String,
}

impl Error {
    /// Builds the error for `found` against the label set `L`.
    pub fn for_label<L: crate::Label>(task: &'static str, found: &str) -> Self {
        Self {
            task,
            found: found.to_owned(),
            expected: L::ALL
                .iter()
                .map(|l| l.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}
