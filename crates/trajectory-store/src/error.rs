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
    #[error("{}: schema version {found} is newer than this tact supports ({supported}); upgrade tact", path.display())]
    TooNew {
        /// The database file (or the server's URL, without password).
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
    /// A `--db` / `TACT_DB` / `[store] url` string that names no usable
    /// location (an unknown URL scheme, a malformed PostgreSQL string, or
    /// PostgreSQL in a build without it). Never quotes a password.
    #[error("invalid database location: {reason}")]
    Location {
        /// What is wrong.
        reason: String,
    },
    /// The PostgreSQL server could not be reached (refused, no route, no
    /// such host).
    #[error("{location}: cannot reach the PostgreSQL server: {detail}")]
    Unreachable {
        /// The server's URL, without password.
        location: String,
        /// What the connection said.
        detail: String,
    },
    /// The server did not finish the connection (TCP, TLS and
    /// authentication) within the connect timeout.
    #[error(
        "{location}: no answer from the PostgreSQL server within {seconds} s (connect_timeout)"
    )]
    ConnectTimeout {
        /// The server's URL, without password.
        location: String,
        /// The timeout, in seconds.
        seconds: u64,
    },
    /// The TLS connection failed: the server's certificate did not pass
    /// the check `sslmode` asks for (`verify-ca`, `verify-full`), or the
    /// server does not offer TLS under `sslmode=require`.
    #[error("{location}: TLS failed (sslmode): {detail}")]
    Tls {
        /// The server's URL, without password.
        location: String,
        /// What the TLS layer said.
        detail: String,
    },
    /// The server refused the role or its password.
    #[error("{location}: authentication failed: {detail}")]
    Authentication {
        /// The server's URL, without password.
        location: String,
        /// What the server said.
        detail: String,
    },
    /// The database named in the location does not exist on the server.
    #[error(
        "{location}: no such database on the server (create it: CREATE DATABASE ...): {detail}"
    )]
    NoSuchDatabase {
        /// The server's URL, without password.
        location: String,
        /// What the server said.
        detail: String,
    },
    /// The role may not write (a read-only role or session): nothing was
    /// written.
    #[error("{location}: the role cannot write here: {detail}")]
    PermissionDenied {
        /// The server's URL, without password.
        location: String,
        /// What the server said.
        detail: String,
    },
    /// The PostgreSQL database holds no tact store yet (opened for reading).
    #[error("{location}: no tact store in this database yet (run `tact run PATH --db ...` first)")]
    NoStore {
        /// The server's URL, without password.
        location: String,
    },
    /// Any other PostgreSQL failure (the connection dropped, a
    /// constraint, ...); the message never holds the password.
    #[error("{location}: {detail}")]
    Postgres {
        /// The server's URL, without password.
        location: String,
        /// What the server or the connection said.
        detail: String,
    },
    /// The damaged-database check failed (`PRAGMA quick_check`): the store
    /// is refused before anything is written.
    #[error("{}: the database is damaged ({}); restore it from a backup or move it aside", path.display(), problems.join("; "))]
    Damaged {
        /// The database file.
        path: PathBuf,
        /// The first problems SQLite lists.
        problems: Vec<String>,
    },
    /// Credentials could not be redacted, so nothing was written.
    #[error("cannot redact credentials: {0}")]
    Redaction(String),
    /// A session written in pieces was used wrongly (finished twice) or
    /// an earlier piece of it failed; nothing of it is written.
    #[error("session not written: {0}")]
    Session(String),
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
