//! The error type of `tact-trajectory-store`.

use std::path::PathBuf;

/// Everything that can go wrong with the store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file is not a SQLite database, or it is damaged.
    #[error("{}: not a tact database or the file is corrupt: {source}", path.display())]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// The database (or its folder) cannot be written.
    #[error("{}: the database is read-only: {source}", path.display())]
    ReadOnly {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// The path is not a regular file (a folder, a FIFO, a device): it is
    /// not opened, so a FIFO cannot block.
    #[error("{}: not a regular file ({kind})", path.display())]
    NotAFile {
        /// The path given as the database.
        path: PathBuf,
        /// What it is: `folder`, `FIFO`, `socket`, ...
        kind: &'static str,
    },
    /// Any other SQLite failure opening or reading the database file.
    #[error("{}: {source}", path.display())]
    Database {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// The database was written by a newer tact.
    #[error("{}: schema version {found} is newer than this tact supports ({supported})", path.display())]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// The version in the file.
        found: i64,
        /// The newest version this build knows.
        supported: i64,
    },
    /// A session could not be stored; nothing of it was written.
    #[error("session {spec_id}/{agent}/{run_id} not stored: {source}")]
    Ingest {
        /// The session's spec id.
        spec_id: String,
        /// The session's agent.
        agent: String,
        /// The session's run id.
        run_id: String,
        /// The underlying failure.
        source: Box<Error>,
    },
    /// Credentials could not be redacted, so nothing was written.
    #[error("cannot redact credentials: {0}")]
    Redaction(String),
    /// Any other SQLite failure.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// A stored JSON column could not be read or written.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

impl Error {
    /// Classifies an error from opening or first touching `path`.
    pub(crate) fn on_open(path: &std::path::Path, e: rusqlite::Error) -> Self {
        use rusqlite::ffi::ErrorCode;
        match e.sqlite_error_code() {
            Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => Error::Corrupt {
                path: path.to_owned(),
                source: e,
            },
            Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => {
                Error::ReadOnly {
                    path: path.to_owned(),
                    source: e,
                }
            }
            _ => Error::Database {
                path: path.to_owned(),
                source: e,
            },
        }
    }
}
