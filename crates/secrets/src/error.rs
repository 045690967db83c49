//! The error type of `tact-secrets`.

/// Everything that can go wrong when building or running a
/// [`CredentialScanner`](crate::CredentialScanner).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A credential shape failed to compile (a user-supplied pattern that
    /// the `regex` crate rejects, such as one with look-around).
    #[error("invalid credential pattern `{pattern}`: {message}")]
    Pattern {
        /// The pattern as given (`<set>` for the combined set).
        pattern: String,
        /// Why it was rejected.
        message: String,
    },
    /// The built-in shapes could not be compiled, so nothing can be
    /// scanned or redacted (a bug; reported once through `tracing`).
    #[error("credential patterns unavailable")]
    Unavailable,
}
