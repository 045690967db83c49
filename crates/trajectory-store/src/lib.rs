//! Persistence for tact: trajectories with their turns, questions (and
//! effort), preference violations, tool calls, guidance fires and scores,
//! behind one small API of atomic writes and report queries over two
//! backends: an embedded SQLite file (the default) and a team's shared
//! PostgreSQL database (the `postgres` feature), chosen by a [`Location`]
//! (`Location::parse("tact.db")`, `Location::parse("postgresql://...")`,
//! then [`Store::connect`]).
//!
//! ```
//! use tact_trajectory_store::{QuestionRecord, SessionRecord, Store, TurnRecord};
//! use tact_types::EffortLevel;
//!
//! let mut store = Store::open_in_memory()?;
//! let session = SessionRecord {
//!     spec_id: "SPEC-42".into(),
//!     agent: "claude".into(),
//!     run_id: "run-1".into(),
//!     turns: vec![TurnRecord {
//!         number: 1,
//!         prompt: "Add a cache".into(),
//!         response: "Redis or in-process?".into(),
//!         questions: vec![QuestionRecord {
//!             text: "Redis or in-process?".into(),
//!             effort: EffortLevel::Low,
//!             confidence: 0.9,
//!             reasons: vec![],
//!         }],
//!         ..TurnRecord::default()
//!     }],
//!     ..SessionRecord::default()
//! };
//! store.ingest(&session)?;
//! let loaded = store.load_latest("SPEC-42", "claude")?.expect("stored");
//! assert_eq!(loaded.session.turns[0].questions[0].effort, EffortLevel::Low);
//! assert_eq!(store.effort_distribution(None)?.low, 1);
//! # Ok::<(), tact_trajectory_store::Error>(())
//! ```
//!
//! # Guarantees (both backends)
//!
//! - One transaction per ingested session: a failure leaves nothing of it.
//!   A session may be written in pieces ([`Store::session`], a
//!   [`SessionWriter`]) inside that transaction, so a writer holds one
//!   batch of rows, not the session.
//! - Idempotent ingest: a session is stored under its key (`spec_id`,
//!   `agent`, `run_id`); one sent again replaces the stored one.
//! - Versioned migrations run once under a lock; a newer schema is refused.
//! - A PostgreSQL connection (TLS by rustls, as `sslmode` says) is bounded
//!   by `connect_timeout`; its password never appears in an error or a log.
//! - WAL journal, `synchronous = NORMAL`, a busy timeout: a writer killed
//!   mid-batch leaves every committed session intact, and several
//!   processes may write the same file at once.
//! - Versioned migrations (SQLite's `PRAGMA user_version`, PostgreSQL's
//!   `tact_schema` table); an older database is migrated on open without
//!   losing rows.
//! - Credentials never reach the file: tool params and free text go
//!   through tact's sensitive-content detector before any write.
//!
//! # Features
//!
//! - `bundled`: compile SQLite from source (rusqlite's `bundled`). The
//!   `tact` CLI, the tests and xtask turn it on; a host that links its own
//!   SQLite (through `libsqlite3-sys` 0.37) leaves it off.
//! - `postgres`: the PostgreSQL backend (tokio-postgres on a current-thread
//!   runtime, rustls). Without it a PostgreSQL location is an error.
#![deny(missing_docs)]

mod error;
mod location;
mod model;
#[cfg(feature = "postgres")]
mod postgres;
mod prepare;
mod schema;
mod session;
mod sqlite;
mod store;

pub use error::Error;

/// `Result` with this crate's [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
pub use location::{Location, PgLocation};
pub use model::{
    EffortDistribution, GuidanceFireRecord, LeaderboardRow, QuestionRecord, RowCounts, ScorePoint,
    ScoreRecord, SessionKey, SessionRecord, Severity, StoredTrajectory, ToolCallRecord, TurnRecord,
    ViolationRecord,
};
#[cfg(feature = "postgres")]
pub use postgres::DEFAULT_CONNECT_TIMEOUT;
pub use schema::SCHEMA_VERSION;
pub use session::SessionWriter;
pub use sqlite::BUSY_TIMEOUT;
pub use store::Store;
