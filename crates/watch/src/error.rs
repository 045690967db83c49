//! The error type of `tact-watch`: a bad line of the followed stream (the
//! messages `tact guide --follow` prints, shared with it), and the
//! problems that stop the view (an unreadable source, the terminal).

use std::path::PathBuf;

/// Everything that can go wrong in `tact-watch`. A bad line is not fatal:
/// the view reports it with its line number and goes on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The line is not UTF-8.
    #[error("invalid UTF-8")]
    InvalidUtf8,
    /// The line is not JSON.
    #[error("not valid JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    /// The line has a `type` but is not an event.
    #[error("{0}")]
    Event(#[source] serde_json::Error),
    /// The line's `pending` is not a list of calls.
    #[error("bad `pending`: {0}")]
    Pending(#[source] serde_json::Error),
    /// The line (or file) is a session that does not parse or validate.
    #[error("bad session: {0}")]
    Session(String),
    /// A JSON value that is none of the records.
    #[error("expected an event (with `type`) or `{{\"pending\": [...]}}`, or a session")]
    NotARecord,
    /// The source could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file (`-` for stdin).
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// No session log where `--latest` looked (what it says names where).
    #[error("{0}")]
    NotFound(String),
    /// The terminal could not be set up, drawn on or restored.
    #[error("terminal: {0}")]
    Terminal(#[source] std::io::Error),
    /// The classifiers or the scorer could not be built.
    #[error(transparent)]
    Tact(#[from] tact::Error),
}
