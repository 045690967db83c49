//! The `Store`: one API over two backends, chosen by [`Location`]: the
//! embedded SQLite file (`sqlite.rs`) and a shared PostgreSQL database
//! (`postgres.rs`, the `postgres` feature). Both write the same rows
//! (`prepare.rs`) and answer the report queries with the same values: the
//! leaderboard's means are computed here, in one order, for both.

use std::collections::BTreeMap;
use std::path::Path;

use tact_secrets::CredentialScanner;

use crate::Error;
use crate::location::Location;
use crate::model::{
    EffortDistribution, LeaderboardRow, RowCounts, ScorePoint, SessionKey, SessionRecord,
    StoredTrajectory,
};
#[cfg(feature = "postgres")]
use crate::postgres::Postgres;
use crate::prepare::{Finish, Header, Pieces, clean};
use crate::session::SessionWriter;
use crate::sqlite::Sqlite;

/// The rows each session owns, per table (same SQL on both backends).
pub(crate) const COUNTS_BY_SESSION: &str = "SELECT tr.id, tr.spec_id, tr.agent, tr.run_id,
    (SELECT COUNT(*) FROM turns t WHERE t.trajectory_id = tr.id),
    (SELECT COUNT(*) FROM questions q JOIN turns t ON t.id = q.turn_id WHERE t.trajectory_id = tr.id),
    (SELECT COUNT(*) FROM violations v JOIN turns t ON t.id = v.turn_id WHERE t.trajectory_id = tr.id),
    (SELECT COUNT(*) FROM tool_calls c WHERE c.trajectory_id = tr.id),
    (SELECT COUNT(*) FROM guidance_fires g WHERE g.trajectory_id = tr.id),
    (SELECT COUNT(*) FROM scores s WHERE s.trajectory_id = tr.id)
    FROM trajectories tr ORDER BY tr.id";

/// One scored run as the leaderboard reads it.
pub(crate) struct BoardRow {
    pub(crate) spec_id: String,
    pub(crate) agent: String,
    pub(crate) final_score: Option<f64>,
    pub(crate) total: f64,
    pub(crate) r_prod: f64,
    pub(crate) r_proact: f64,
    pub(crate) r_pers: f64,
}

#[derive(Debug)]
enum Backend {
    Sqlite(Sqlite),
    #[cfg(feature = "postgres")]
    Postgres(Box<Postgres>),
}

/// A trajectory database: a SQLite file or a PostgreSQL database, one API.
/// One `Store` per thread; several processes (or hosts, on PostgreSQL)
/// may write the same database at once.
#[derive(Debug)]
pub struct Store {
    backend: Backend,
}

macro_rules! each {
    ($self:expr, $b:ident => $e:expr) => {
        match &$self.backend {
            Backend::Sqlite($b) => $e,
            #[cfg(feature = "postgres")]
            Backend::Postgres($b) => $e,
        }
    };
}

macro_rules! each_mut {
    ($self:expr, $b:ident => $e:expr) => {
        match &mut $self.backend {
            Backend::Sqlite($b) => $e,
            #[cfg(feature = "postgres")]
            Backend::Postgres($b) => $e,
        }
    };
}

impl Store {
    fn sqlite(s: Sqlite) -> Self {
        Store {
            backend: Backend::Sqlite(s),
        }
    }

    /// Opens (creating if needed) the SQLite database at `path` and
    /// migrates it to the current schema.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        Sqlite::open(path).map(Self::sqlite)
    }

    /// Opens an in-memory SQLite database (tests, one-off runs).
    pub fn open_in_memory() -> Result<Self, Error> {
        Sqlite::open_in_memory().map(Self::sqlite)
    }

    /// Opens an existing SQLite database for reading only; writes fail
    /// with [`Error::ReadOnly`]. Nothing is written, not even in the
    /// folder: a WAL database in a read-only folder (where SQLite cannot
    /// create its `-wal` and `-shm` files) is opened as immutable when it
    /// has no write-ahead log to lose. A path that is not a regular file
    /// is [`Error::NotAFile`], never opened.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Self, Error> {
        Sqlite::open_read_only(path).map(Self::sqlite)
    }

    /// Opens a SQLite database and brings it only up to schema version
    /// `target` (for migration tests and tools; `target` is capped at the
    /// current version).
    pub fn open_at_version(path: impl AsRef<Path>, target: i64) -> Result<Self, Error> {
        Sqlite::open_at_version(path, target).map(Self::sqlite)
    }

    /// Opens the store at `location` for writing, migrated to the current
    /// schema: a SQLite file (created if needed, not its folder) or a
    /// PostgreSQL database (connected within its `connect_timeout`,
    /// 10 s by default; migrated under an advisory lock).
    pub fn connect(location: &Location) -> Result<Self, Error> {
        match location {
            Location::Sqlite(path) => Self::open(path),
            Location::Postgres(pg) => pg_connect(pg, Open::Write),
        }
    }

    /// Opens the store at `location` for reading only (a PostgreSQL
    /// session in read-only mode; a SQLite file as
    /// [`open_read_only`](Self::open_read_only)). Nothing is migrated.
    pub fn connect_read_only(location: &Location) -> Result<Self, Error> {
        match location {
            Location::Sqlite(path) => Self::open_read_only(path),
            Location::Postgres(pg) => pg_connect(pg, Open::Read),
        }
    }

    /// Opens the store at `location` brought only up to schema version
    /// `target` (migration tests and tools).
    pub fn connect_at_version(location: &Location, target: i64) -> Result<Self, Error> {
        match location {
            Location::Sqlite(path) => Self::open_at_version(path, target),
            Location::Postgres(pg) => pg_connect(pg, Open::UpTo(target)),
        }
    }

    /// The database's schema version.
    pub fn schema_version(&self) -> Result<i64, Error> {
        each!(self, b => b.schema_version())
    }

    /// The SQLite file the store lives in (`:memory:` for in-memory
    /// stores), or the empty path for a PostgreSQL store (see
    /// [`location`](Self::location)).
    pub fn path(&self) -> &Path {
        match &self.backend {
            Backend::Sqlite(b) => b.path(),
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => Path::new(""),
        }
    }

    /// Where the store lives, for messages: the file's path, or the
    /// server's URL without password.
    pub fn location(&self) -> String {
        match &self.backend {
            Backend::Sqlite(b) => b.path().display().to_string(),
            #[cfg(feature = "postgres")]
            Backend::Postgres(b) => b.location().to_owned(),
        }
    }

    /// Whether the store is a PostgreSQL database.
    pub fn is_postgres(&self) -> bool {
        !matches!(self.backend, Backend::Sqlite(_))
    }

    /// A full check: SQLite's `PRAGMA integrity_check`; on PostgreSQL
    /// every table read whole and no row without its parent. `Ok(())`
    /// when nothing is wrong, else the problems found.
    pub fn integrity_check(&self) -> Result<Result<(), Vec<String>>, Error> {
        each!(self, b => b.integrity_check())
    }

    /// The quick check to run before writing: SQLite's `PRAGMA
    /// quick_check` (a damaged page, a malformed file); PostgreSQL checks
    /// its own pages, so it answers `Ok(())` once connected.
    pub fn quick_check(&self) -> Result<Result<(), Vec<String>>, Error> {
        match &self.backend {
            Backend::Sqlite(b) => b.quick_check(),
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => Ok(Ok(())),
        }
    }

    /// Stores one session in one transaction and returns its trajectory
    /// id. The key is (`spec_id`, `agent`, `run_id`): a session with the
    /// key of a stored one replaces it, so sending a session again (a
    /// retry, the same log imported on two hosts) stores it once.
    /// Credentials in tool params and free text are redacted first; if
    /// anything fails, nothing of the session is written. (A
    /// [`SessionWriter`] finished with the whole session: see
    /// [`session`](Self::session) to write one in pieces.)
    pub fn ingest(&mut self, session: &SessionRecord) -> Result<i64, Error> {
        let _span =
            tracing::debug_span!("store.ingest", spec = %session.spec_id, agent = %session.agent)
                .entered();
        self.session().finish(session)
    }

    /// A writer for one session in pieces (turns, tool calls, guidance
    /// fires as they come, then the key and score), inside one
    /// transaction, with the guarantees of [`ingest`](Self::ingest): the
    /// writer holds one batch of rows at most, not the session.
    pub fn session(&mut self) -> SessionWriter<&mut Store> {
        SessionWriter::new(self)
    }

    pub(crate) fn scanner(&self) -> &CredentialScanner {
        each!(self, b => b.scanner())
    }

    /// Begins a session's transaction: its row's id (keyed with `key`,
    /// the old session of that key removed, else a placeholder).
    pub(crate) fn session_begin(&mut self, key: Option<&Header>) -> Result<i64, Error> {
        each_mut!(self, b => b.session_begin(key))
    }

    /// Writes a batch of the session's rows.
    pub(crate) fn session_write(&mut self, id: i64, pieces: &Pieces) -> Result<(), Error> {
        each_mut!(self, b => b.session_write(id, pieces))
    }

    /// Writes the last rows, keys the session unless it began `keyed`
    /// (its old rows removed), writes its score and commits.
    pub(crate) fn session_finish(&mut self, finish: &Finish<'_>) -> Result<(), Error> {
        each_mut!(self, b => b.session_finish(finish))
    }

    /// Rolls the session's transaction back.
    pub(crate) fn session_rollback(&mut self) {
        each_mut!(self, b => b.session_rollback());
    }

    /// Stores many sessions, each whole or not at all: a session that
    /// fails is reported in its slot; the others are stored. (SQLite
    /// batches them into few transactions, one savepoint per session.)
    pub fn ingest_all(&mut self, sessions: &[SessionRecord]) -> Vec<Result<i64, Error>> {
        match &mut self.backend {
            Backend::Sqlite(b) => b.ingest_all(sessions),
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => sessions.iter().map(|s| self.ingest(s)).collect(),
        }
    }

    /// Loads the trajectory of (spec, agent, run).
    pub fn load(
        &self,
        spec_id: &str,
        agent: &str,
        run_id: &str,
    ) -> Result<Option<StoredTrajectory>, Error> {
        // Keys are stored as written, NUL replaced (`prepare::clean`).
        let (spec_id, agent, run_id) = (clean(spec_id), clean(agent), clean(run_id));
        each!(self, b => b.load(&spec_id, &agent, &run_id))
    }

    /// Loads the most recent trajectory of (spec, agent).
    pub fn load_latest(
        &self,
        spec_id: &str,
        agent: &str,
    ) -> Result<Option<StoredTrajectory>, Error> {
        let (spec_id, agent) = (clean(spec_id), clean(agent));
        each!(self, b => b.load_latest(&spec_id, &agent))
    }

    /// Number of stored trajectories.
    pub fn trajectory_count(&self) -> Result<u64, Error> {
        each!(self, b => b.trajectory_count())
    }

    /// Questions per effort level, over one spec or all.
    pub fn effort_distribution(&self, spec_id: Option<&str>) -> Result<EffortDistribution, Error> {
        let spec_id = spec_id.map(clean);
        each!(self, b => b.effort_distribution(spec_id.as_deref()))
    }

    /// The most violated preferences, most first (ties by name, byte order).
    pub fn most_violated_preferences(&self, limit: usize) -> Result<Vec<(String, u64)>, Error> {
        each!(self, b => b.most_violated_preferences(limit))
    }

    /// Guidance fires per classifier, most first (ties by name, byte order).
    pub fn guidance_fires_by_classifier(&self) -> Result<Vec<(String, u64)>, Error> {
        each!(self, b => b.guidance_fires_by_classifier())
    }

    /// An agent's scores over time, oldest first.
    pub fn scores_over_time(&self, agent: &str) -> Result<Vec<ScorePoint>, Error> {
        let agent = clean(agent);
        each!(self, b => b.scores_over_time(&agent))
    }

    /// Agents of each spec, over one stage or all: per (spec, agent), the
    /// mean final consensus score and the mean rewards, best first within
    /// a spec (specs by name in byte order, ties by agent name). Agents of
    /// the same name in different specs are different rows. The means are
    /// summed here in ingestion order, so both backends give the same bits.
    pub fn leaderboard(&self, stage: Option<&str>) -> Result<Vec<LeaderboardRow>, Error> {
        let stage = stage.map(clean);
        let rows = each!(self, b => b.board_rows(stage.as_deref()))?;
        Ok(leaderboard_of(rows))
    }

    /// Up to `limit` stored sessions' keys with a row id above `after`, in
    /// row-id order (to walk a store page by page: pass the last id seen).
    pub fn keys_after(&self, after: i64, limit: usize) -> Result<Vec<SessionKey>, Error> {
        each!(self, b => b.keys_after(after, limit))
    }

    /// Every stored session's key with the rows it owns per table, in
    /// row-id order (what `tact store copy` verifies).
    pub fn counts_by_session(&self) -> Result<Vec<(SessionKey, RowCounts)>, Error> {
        each!(self, b => b.counts_by_session())
    }
}

#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
enum Open {
    Write,
    Read,
    UpTo(i64),
}

#[cfg(feature = "postgres")]
fn pg_connect(pg: &crate::location::PgLocation, open: Open) -> Result<Store, Error> {
    let store = match open {
        Open::Write => Postgres::connect(pg, true, None),
        Open::Read => Postgres::connect(pg, false, None),
        Open::UpTo(v) => Postgres::connect(pg, true, Some(v)),
    }?;
    Ok(Store {
        backend: Backend::Postgres(Box::new(store)),
    })
}

#[cfg(not(feature = "postgres"))]
fn pg_connect(pg: &crate::location::PgLocation, _open: Open) -> Result<Store, Error> {
    Err(Error::Location {
        reason: format!(
            "{}: this build has no PostgreSQL backend (the `postgres` feature)",
            pg.display
        ),
    })
}

/// Means per (spec, agent), summed in the rows' order, sorted as the
/// leaderboard promises.
fn leaderboard_of(rows: Vec<BoardRow>) -> Vec<LeaderboardRow> {
    #[derive(Default)]
    struct Acc {
        runs: u64,
        finals: u64,
        final_sum: f64,
        total: f64,
        r_prod: f64,
        r_proact: f64,
        r_pers: f64,
    }
    let mut groups: BTreeMap<(String, String), Acc> = BTreeMap::new();
    for r in rows {
        let acc = groups.entry((r.spec_id, r.agent)).or_default();
        acc.runs += 1;
        if let Some(f) = r.final_score {
            acc.finals += 1;
            acc.final_sum += f;
        }
        acc.total += r.total;
        acc.r_prod += r.r_prod;
        acc.r_proact += r.r_proact;
        acc.r_pers += r.r_pers;
    }
    let mut out: Vec<LeaderboardRow> = groups
        .into_iter()
        .map(|((spec_id, agent), a)| {
            let n = a.runs as f64;
            LeaderboardRow {
                spec_id,
                agent,
                runs: a.runs,
                mean_final: (a.finals > 0).then(|| a.final_sum / a.finals as f64),
                mean_total: a.total / n,
                mean_r_prod: a.r_prod / n,
                mean_r_proact: a.r_proact / n,
                mean_r_pers: a.r_pers / n,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        a.spec_id
            .cmp(&b.spec_id)
            .then(a.mean_final.is_none().cmp(&b.mean_final.is_none()))
            .then(
                b.mean_final
                    .unwrap_or(0.0)
                    .total_cmp(&a.mean_final.unwrap_or(0.0)),
            )
            .then(b.mean_total.total_cmp(&a.mean_total))
            .then(a.agent.cmp(&b.agent))
    });
    out
}
