//! The error type of `tact-guidance`.

/// Everything that can go wrong when building guidance.
///
/// Running guidance never fails: a classifier's own failure is a
/// [`ClassifyError`](crate::ClassifyError), contained by the fail-open
/// runner.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The credential scanner of `sensitive_content` could not be built
    /// (an extra shape that the `regex` crate rejects).
    #[error(transparent)]
    Secrets(#[from] tact_secrets::Error),
}
