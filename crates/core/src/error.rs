//! The error type of `tact-core`.

use std::path::PathBuf;

/// Everything that can go wrong in `tact-core`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A cue pattern failed to compile.
    #[error("invalid cue pattern `{pattern}`: {message}")]
    Pattern {
        /// The pattern as given.
        pattern: String,
        /// Why it was rejected.
        message: String,
    },
    /// A dataset line is not valid for its task.
    #[error("{file}:{line}: {message}")]
    Dataset {
        /// The file (or source name) the line came from.
        file: String,
        /// The 1-based line number.
        line: usize,
        /// What is wrong with the line.
        message: String,
    },
    /// A model file (or a training request) is not valid.
    #[error("invalid model: {message}")]
    Model {
        /// What is wrong.
        message: String,
    },
    /// A file could not be read; the I/O error is its `source`, not part
    /// of its message, so a chain printed with its causes says it once.
    #[error("cannot read {}", path.display())]
    Io {
        /// The path that failed.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// A path that is not a regular file (a folder, a FIFO, a device, a
    /// socket), refused by its type before it is opened.
    #[error("{}: not a regular file (a {kind})", path.display())]
    NotRegular {
        /// The path refused.
        path: PathBuf,
        /// What it is: `folder`, `FIFO`, `character device`...
        kind: &'static str,
    },
    /// An input larger than the limit of a whole read.
    #[error("{source_name}: more than {limit} bytes (the limit)")]
    TooLarge {
        /// The file or stream (`stdin`).
        source_name: String,
        /// The limit, in bytes.
        limit: u64,
    },
}
