//! The SQLite backend: opening (WAL, busy timeout, foreign keys,
//! migrations), ingesting sessions atomically with credentials redacted,
//! and the queries behind reports and leaderboards.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use tact_secrets::CredentialScanner;
use tact_types::{EffortLevel, Label};

use crate::model::{
    EffortDistribution, GuidanceFireRecord, QuestionRecord, ScorePoint, ScoreRecord, SessionRecord,
    Severity, StoredTrajectory, ToolCallRecord, TurnRecord, ViolationRecord,
};
use crate::prepare::{self, Finish, Header, Pieces, ScoreRow};
use crate::schema::{SCHEMA_VERSION, migrate_to, version};
use crate::store::{BoardRow, COUNTS_BY_SESSION};
use crate::{Error, RowCounts, SessionKey};

/// How long a writer waits for another process's lock before failing.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Sessions written per transaction by [`Store::ingest_all`].
const BATCH: usize = 256;

/// A SQLite trajectory database. Several processes may write the same
/// file at once (WAL mode and a busy timeout).
#[derive(Debug)]
pub(crate) struct Sqlite {
    conn: Connection,
    path: PathBuf,
    scanner: CredentialScanner,
}

impl Sqlite {
    /// Opens (creating if needed) the database at `path` and migrates it to
    /// the current schema.
    pub(crate) fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref().to_owned();
        check_regular(&path)?;
        let conn = Connection::open(&path).map_err(|e| Error::on_open(&path, e))?;
        Self::setup(conn, path, true)
    }

    /// Opens an in-memory database (tests, one-off runs).
    pub(crate) fn open_in_memory() -> Result<Self, Error> {
        let conn = Connection::open_in_memory()?;
        Self::setup(conn, PathBuf::from(":memory:"), true)
    }

    /// Opens an existing database for reading only; writes fail with
    /// [`Error::ReadOnly`]. Nothing is written, not even in the folder: a
    /// WAL database in a read-only folder (where SQLite cannot create its
    /// `-wal` and `-shm` files) is opened as immutable when it has no
    /// write-ahead log to lose. A path that is not a regular file is
    /// [`Error::NotAFile`], never opened.
    pub(crate) fn open_read_only(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref().to_owned();
        check_regular(&path)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI;
        let first = Connection::open_with_flags(&path, flags)
            .map_err(|e| Error::on_open(&path, e))
            .and_then(|conn| Self::setup(conn, path.clone(), false));
        let mut wal = path.clone().into_os_string();
        wal.push("-wal");
        let no_log = std::fs::metadata(&wal).map_or(true, |m| m.len() == 0);
        match first {
            Err(Error::ReadOnly { .. } | Error::Database { .. }) if no_log => {
                let conn = Connection::open_with_flags(immutable_uri(&path), flags)
                    .map_err(|e| Error::on_open(&path, e))?;
                Self::setup(conn, path, false)
            }
            other => other,
        }
    }

    /// Opens a database and brings it only up to schema version `target`
    /// (for migration tests and tools; `target` is capped at the current
    /// version).
    pub(crate) fn open_at_version(path: impl AsRef<Path>, target: i64) -> Result<Self, Error> {
        let path = path.as_ref().to_owned();
        check_regular(&path)?;
        let conn = Connection::open(&path).map_err(|e| Error::on_open(&path, e))?;
        let mut store = Self::configure(conn, path.clone())?;
        // In WAL mode, as a store every writable open leaves: hosts that
        // open it next at once never race to switch its journal mode.
        store.wal().map_err(|e| Error::on_open(&path, e))?;
        migrate_to(&mut store.conn, target.min(SCHEMA_VERSION))
            .map_err(|e| Error::on_open(&path, e))?;
        Ok(store)
    }

    /// WAL (readers never block the writer, and a killed writer leaves
    /// every committed transaction intact) with `synchronous = NORMAL`.
    fn wal(&self) -> rusqlite::Result<()> {
        let _mode: String = self
            .conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        self.conn.pragma_update(None, "synchronous", "NORMAL")
    }

    fn configure(conn: Connection, path: PathBuf) -> Result<Self, Error> {
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| Error::on_open(&path, e))?;
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(|e| Error::on_open(&path, e))?;
        Ok(Self {
            conn,
            path,
            scanner: CredentialScanner::default(),
        })
    }

    fn setup(conn: Connection, path: PathBuf, writable: bool) -> Result<Self, Error> {
        let mut store = Self::configure(conn, path.clone())?;
        // Touch the file: a corrupt or foreign file fails here.
        let found = version(&store.conn).map_err(|e| Error::on_open(&path, e))?;
        if found > SCHEMA_VERSION {
            return Err(Error::TooNew {
                path,
                found,
                supported: SCHEMA_VERSION,
            });
        }
        if writable {
            store.wal().map_err(|e| Error::on_open(&path, e))?;
            migrate_to(&mut store.conn, SCHEMA_VERSION).map_err(|e| Error::on_open(&path, e))?;
        }
        Ok(store)
    }

    /// The database's schema version.
    pub(crate) fn schema_version(&self) -> Result<i64, Error> {
        Ok(version(&self.conn)?)
    }

    /// The file the store lives in (`:memory:` for in-memory stores).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// `PRAGMA integrity_check`: `Ok(())` when SQLite finds nothing wrong,
    /// else the problems it lists.
    pub(crate) fn integrity_check(&self) -> Result<Result<(), Vec<String>>, Error> {
        let mut stmt = self.conn.prepare("PRAGMA integrity_check")?;
        let rows: Vec<String> = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(if rows == ["ok"] { Ok(()) } else { Err(rows) })
    }

    fn map_write(&self, e: Error) -> Error {
        match e {
            Error::Sqlite(inner)
                if inner.sqlite_error_code() == Some(rusqlite::ffi::ErrorCode::ReadOnly) =>
            {
                Error::ReadOnly {
                    path: self.path.clone(),
                    source: inner,
                }
            }
            other => other,
        }
    }

    pub(crate) fn scanner(&self) -> &CredentialScanner {
        &self.scanner
    }

    /// Begins a session's transaction (`BEGIN IMMEDIATE`: the write lock
    /// from now to its commit) with its row, keyed with `key` (the stored
    /// session of that key removed) or a placeholder; its id.
    pub(crate) fn session_begin(&mut self, key: Option<&Header>) -> Result<i64, Error> {
        let begun = (|| {
            self.conn.execute_batch("BEGIN IMMEDIATE")?;
            match key {
                Some(header) => insert_keyed(&self.conn, header),
                None => insert_placeholder(&self.conn),
            }
        })();
        begun.map_err(|e| {
            self.session_rollback();
            self.map_write(e)
        })
    }

    /// Writes a batch of the open session's rows.
    pub(crate) fn session_write(&mut self, id: i64, pieces: &Pieces) -> Result<(), Error> {
        write_pieces(&self.conn, id, pieces).map_err(|e| self.map_write(e))
    }

    /// Writes the last batch, keys the session unless it began `keyed`
    /// (the old session of its key removed), writes its score and commits.
    pub(crate) fn session_finish(&mut self, finish: &Finish<'_>) -> Result<(), Error> {
        let Finish {
            id,
            pieces,
            header,
            score,
            keyed,
        } = *finish;
        let done = (|| {
            let final_column = has_final_column(&self.conn)?;
            write_pieces(&self.conn, id, pieces)?;
            if !keyed {
                key_rows(&self.conn, id, header)?;
            }
            insert_score(&self.conn, id, header, score, final_column)?;
            self.conn.execute_batch("COMMIT")?;
            Ok(())
        })();
        done.map_err(|e| self.map_write(e))
    }

    /// Rolls back the open transaction, if any.
    pub(crate) fn session_rollback(&mut self) {
        if !self.conn.is_autocommit() {
            if let Err(e) = self.conn.execute_batch("ROLLBACK") {
                tracing::debug!(error = %e, "rollback failed");
            }
        }
    }

    fn ingest_error(&self, session: &SessionRecord, e: Error) -> Error {
        Error::Ingest {
            spec_id: session.spec_id.clone(),
            agent: session.agent.clone(),
            run_id: session.run_id.clone(),
            source: Box::new(self.map_write(e)),
        }
    }

    /// Stores many sessions, batching them into few transactions with one
    /// savepoint per session: a session that fails is rolled back alone and
    /// reported in its slot; the others are stored.
    pub(crate) fn ingest_all(&mut self, sessions: &[SessionRecord]) -> Vec<Result<i64, Error>> {
        let mut out = Vec::with_capacity(sessions.len());
        let scanner = self.scanner.clone();
        for chunk in sessions.chunks(BATCH) {
            let mut chunk_results: Vec<Result<i64, Error>> = Vec::with_capacity(chunk.len());
            let committed = (|| -> Result<(), Error> {
                let final_column = has_final_column(&self.conn)?;
                let mut tx = self
                    .conn
                    .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
                for session in chunk {
                    let sp = tx.savepoint()?;
                    match write_session(&sp, &scanner, session, final_column) {
                        Ok(id) => {
                            sp.commit()?;
                            chunk_results.push(Ok(id));
                        }
                        Err(e) => {
                            drop(sp); // rolls back this session only
                            chunk_results.push(Err(e));
                        }
                    }
                }
                tx.commit()?;
                Ok(())
            })();
            match committed {
                Ok(()) => out.extend(
                    chunk_results
                        .into_iter()
                        .zip(chunk)
                        .map(|(r, s)| r.map_err(|e| self.ingest_error(s, e))),
                ),
                Err(e) => {
                    let msg = e.to_string();
                    for s in chunk {
                        out.push(Err(self.ingest_error(
                            s,
                            Error::Redaction(format!("batch failed: {msg}")),
                        )));
                    }
                }
            }
        }
        out
    }

    /// Loads the trajectory of (spec, agent, run).
    pub(crate) fn load(
        &self,
        spec_id: &str,
        agent: &str,
        run_id: &str,
    ) -> Result<Option<StoredTrajectory>, Error> {
        let row = self
            .conn
            .prepare_cached(
                "SELECT id, spec_id, stage, agent, run_id, created_at, updated_at FROM trajectories
                 WHERE spec_id = ?1 AND agent = ?2 AND run_id = ?3",
            )?
            .query_row(params![spec_id, agent, run_id], header)
            .optional()?;
        row.map(|h| self.fill(h)).transpose()
    }

    /// Loads the most recent trajectory of (spec, agent).
    pub(crate) fn load_latest(
        &self,
        spec_id: &str,
        agent: &str,
    ) -> Result<Option<StoredTrajectory>, Error> {
        let row = self
            .conn
            .prepare_cached(
                "SELECT id, spec_id, stage, agent, run_id, created_at, updated_at FROM trajectories
                 WHERE spec_id = ?1 AND agent = ?2 ORDER BY created_at DESC, id DESC LIMIT 1",
            )?
            .query_row(params![spec_id, agent], header)
            .optional()?;
        row.map(|h| self.fill(h)).transpose()
    }

    fn fill(
        &self,
        (id, mut session, updated_at): (i64, SessionRecord, i64),
    ) -> Result<StoredTrajectory, Error> {
        let mut turns_stmt = self.conn.prepare_cached(
            "SELECT id, number, timestamp, prompt, response, token_count, latency_ms FROM turns
             WHERE trajectory_id = ?1 ORDER BY number",
        )?;
        let turns: Vec<(i64, TurnRecord)> = turns_stmt
            .query_map([id], |r| {
                Ok((
                    r.get(0)?,
                    TurnRecord {
                        number: r.get(1)?,
                        timestamp: r.get(2)?,
                        prompt: r.get(3)?,
                        response: r.get(4)?,
                        token_count: r.get(5)?,
                        latency_ms: r.get(6)?,
                        questions: Vec::new(),
                        violations: Vec::new(),
                    },
                ))
            })?
            .collect::<Result<_, _>>()?;
        let mut q_stmt = self.conn.prepare_cached(
            "SELECT text, effort, confidence, reasons FROM questions WHERE turn_id = ?1 ORDER BY id",
        )?;
        let mut v_stmt = self.conn.prepare_cached(
            "SELECT preference, expected, actual, severity, span_start, span_end FROM violations
             WHERE turn_id = ?1 ORDER BY id",
        )?;
        for (turn_id, mut turn) in turns {
            let raw: Vec<(String, String, f32, String)> = q_stmt
                .query_map([turn_id], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })?
                .collect::<Result<_, _>>()?;
            for (text, effort, confidence, reasons) in raw {
                turn.questions.push(QuestionRecord {
                    text,
                    effort: EffortLevel::parse(&effort).unwrap_or(EffortLevel::Medium),
                    confidence,
                    reasons: serde_json::from_str(&reasons)?,
                });
            }
            turn.violations = v_stmt
                .query_map([turn_id], |r| {
                    let severity: String = r.get(3)?;
                    let (s, e): (Option<u32>, Option<u32>) = (r.get(4)?, r.get(5)?);
                    Ok(ViolationRecord {
                        preference: r.get(0)?,
                        expected: r.get(1)?,
                        actual: r.get(2)?,
                        severity: Severity::parse(&severity).unwrap_or(Severity::Medium),
                        span: s.zip(e),
                    })
                })?
                .collect::<Result<_, _>>()?;
            session.turns.push(turn);
        }
        let raw_calls: Vec<(u32, Option<u64>, String, String, bool, u64)> = self
            .conn
            .prepare_cached(
                "SELECT position, step, name, params, ok, output_chars FROM tool_calls
                 WHERE trajectory_id = ?1 ORDER BY position, id",
            )?
            .query_map([id], |r| {
                Ok((
                    r.get(0)?,
                    r.get::<_, Option<i64>>(1)?
                        .map(|v| u64::try_from(v).unwrap_or(0)),
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    count(r, 5)?,
                ))
            })?
            .collect::<Result<_, _>>()?;
        for (position, step, name, params, ok, output_chars) in raw_calls {
            session.tool_calls.push(ToolCallRecord {
                position,
                step,
                name,
                params: serde_json::from_str(&params)?,
                ok,
                output_chars,
            });
        }
        session.guidance = self
            .conn
            .prepare_cached(
                "SELECT position, classifier, confidence, reason FROM guidance_fires
                 WHERE trajectory_id = ?1 ORDER BY position, id",
            )?
            .query_map([id], |r| {
                Ok(GuidanceFireRecord {
                    position: r.get(0)?,
                    classifier: r.get(1)?,
                    confidence: r.get(2)?,
                    reason: r.get(3)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        session.score = self
            .conn
            .prepare_cached(
                "SELECT r_prod, r_proact, r_pers, total, profile, technical_weight, interaction_weight,
                 final_score FROM scores WHERE trajectory_id = ?1 ORDER BY id DESC LIMIT 1",
            )?
            .query_row([id], |r| {
                Ok(ScoreRecord {
                    r_prod: r.get(0)?,
                    r_proact: r.get(1)?,
                    r_pers: r.get(2)?,
                    total: r.get(3)?,
                    profile: r.get(4)?,
                    technical_weight: r.get(5)?,
                    interaction_weight: r.get(6)?,
                    final_score: r.get(7)?,
                })
            })
            .optional()?;
        Ok(StoredTrajectory {
            id,
            session,
            updated_at,
        })
    }

    /// Number of stored trajectories.
    pub(crate) fn trajectory_count(&self) -> Result<u64, Error> {
        Ok(self
            .conn
            .query_row("SELECT COUNT(*) FROM trajectories", [], |r| count(r, 0))?)
    }

    /// Questions per effort level, over one spec or all.
    pub(crate) fn effort_distribution(
        &self,
        spec_id: Option<&str>,
    ) -> Result<EffortDistribution, Error> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT q.effort, COUNT(*) FROM questions q
             JOIN turns t ON t.id = q.turn_id JOIN trajectories tr ON tr.id = t.trajectory_id
             WHERE ?1 IS NULL OR tr.spec_id = ?1 GROUP BY q.effort",
        )?;
        let mut d = EffortDistribution::default();
        let rows: Vec<(String, u64)> = stmt
            .query_map([spec_id], |r| Ok((r.get(0)?, count(r, 1)?)))?
            .collect::<Result<_, _>>()?;
        for (effort, n) in rows {
            match EffortLevel::parse(&effort) {
                Some(EffortLevel::Low) => d.low = n,
                Some(EffortLevel::Medium) => d.medium = n,
                Some(EffortLevel::High) => d.high = n,
                None => {}
            }
        }
        Ok(d)
    }

    /// The most violated preferences, most first (ties by name).
    pub(crate) fn most_violated_preferences(
        &self,
        limit: usize,
    ) -> Result<Vec<(String, u64)>, Error> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        Ok(self
            .conn
            .prepare_cached(
                "SELECT preference, COUNT(*) AS n FROM violations GROUP BY preference
                 ORDER BY n DESC, preference LIMIT ?1",
            )?
            .query_map([limit], |r| Ok((r.get(0)?, count(r, 1)?)))?
            .collect::<Result<_, _>>()?)
    }

    /// Guidance fires per classifier, most first.
    pub(crate) fn guidance_fires_by_classifier(&self) -> Result<Vec<(String, u64)>, Error> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT classifier, COUNT(*) AS n FROM guidance_fires GROUP BY classifier
                 ORDER BY n DESC, classifier",
            )?
            .query_map([], |r| Ok((r.get(0)?, count(r, 1)?)))?
            .collect::<Result<_, _>>()?)
    }

    /// An agent's scores over time, oldest first.
    pub(crate) fn scores_over_time(&self, agent: &str) -> Result<Vec<ScorePoint>, Error> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT tr.spec_id, tr.run_id, tr.created_at, s.total, s.r_proact + s.r_pers
                 FROM scores s JOIN trajectories tr ON tr.id = s.trajectory_id
                 WHERE tr.agent = ?1 ORDER BY tr.created_at, tr.id",
            )?
            .query_map([agent], |r| {
                Ok(ScorePoint {
                    spec_id: r.get(0)?,
                    run_id: r.get(1)?,
                    created_at: r.get(2)?,
                    total: r.get(3)?,
                    interaction: r.get(4)?,
                })
            })?
            .collect::<Result<_, _>>()?)
    }

    /// The scored runs the leaderboard averages, over one stage or all,
    /// in (spec, agent, id) order.
    pub(crate) fn board_rows(&self, stage: Option<&str>) -> Result<Vec<BoardRow>, Error> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT tr.spec_id, tr.agent, s.final_score, s.total, s.r_prod, s.r_proact, s.r_pers
                 FROM scores s JOIN trajectories tr ON tr.id = s.trajectory_id
                 WHERE ?1 IS NULL OR tr.stage = ?1
                 ORDER BY tr.spec_id, tr.agent, s.id",
            )?
            .query_map([stage], |r| {
                Ok(BoardRow {
                    spec_id: r.get(0)?,
                    agent: r.get(1)?,
                    final_score: r.get(2)?,
                    total: r.get(3)?,
                    r_prod: r.get(4)?,
                    r_proact: r.get(5)?,
                    r_pers: r.get(6)?,
                })
            })?
            .collect::<Result<_, _>>()?)
    }

    /// Up to `limit` stored sessions' keys with an id above `after`, by id.
    pub(crate) fn keys_after(&self, after: i64, limit: usize) -> Result<Vec<SessionKey>, Error> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        Ok(self
            .conn
            .prepare_cached(
                "SELECT id, spec_id, agent, run_id FROM trajectories WHERE id > ?1 ORDER BY id LIMIT ?2",
            )?
            .query_map([after, limit], |r| {
                Ok(SessionKey {
                    id: r.get(0)?,
                    spec_id: r.get(1)?,
                    agent: r.get(2)?,
                    run_id: r.get(3)?,
                })
            })?
            .collect::<Result<_, _>>()?)
    }

    /// The rows each stored session owns, per table.
    pub(crate) fn counts_by_session(&self) -> Result<Vec<(SessionKey, RowCounts)>, Error> {
        Ok(self
            .conn
            .prepare(COUNTS_BY_SESSION)?
            .query_map([], |r| {
                Ok((
                    SessionKey {
                        id: r.get(0)?,
                        spec_id: r.get(1)?,
                        agent: r.get(2)?,
                        run_id: r.get(3)?,
                    },
                    RowCounts {
                        trajectories: 1,
                        turns: count(r, 4)?,
                        questions: count(r, 5)?,
                        violations: count(r, 6)?,
                        tool_calls: count(r, 7)?,
                        guidance_fires: count(r, 8)?,
                        scores: count(r, 9)?,
                    },
                ))
            })?
            .collect::<Result<_, _>>()?)
    }

    /// `PRAGMA quick_check`: `Ok(())` when SQLite finds nothing wrong, else
    /// the first problems it lists.
    pub(crate) fn quick_check(&self) -> Result<Result<(), Vec<String>>, Error> {
        let rows: Result<Vec<String>, rusqlite::Error> = self
            .conn
            .prepare("PRAGMA quick_check(20)")
            .and_then(|mut stmt| stmt.query_map([], |r| r.get(0))?.collect());
        match rows {
            Ok(rows) if rows == ["ok"] => Ok(Ok(())),
            // One problem a line, without SQLite's `*** in database main ***` header.
            Ok(rows) => Ok(Err(rows
                .iter()
                .flat_map(|r| r.lines())
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with("***"))
                .map(str::to_owned)
                .collect())),
            Err(e)
                if matches!(
                    e.sqlite_error_code(),
                    Some(
                        rusqlite::ffi::ErrorCode::DatabaseCorrupt
                            | rusqlite::ffi::ErrorCode::NotADatabase
                    )
                ) =>
            {
                Ok(Err(vec![e.to_string()]))
            }
            Err(e) => Err(Error::on_open(&self.path, e)),
        }
    }
}

/// A non-negative integer column as `u64`.
/// Refuses a path that exists and is not a regular file (a folder, a
/// FIFO that would block the open, a device).
fn check_regular(path: &Path) -> Result<(), Error> {
    let Ok(meta) = std::fs::metadata(path) else {
        // Missing (created by `open`) or unreadable (SQLite says why).
        return Ok(());
    };
    if meta.is_file() {
        return Ok(());
    }
    let t = meta.file_type();
    let kind = if t.is_dir() {
        "folder"
    } else {
        special_kind(&t)
    };
    Err(Error::NotAFile {
        path: path.to_owned(),
        kind,
    })
}

#[cfg(unix)]
fn special_kind(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        "FIFO"
    } else if t.is_socket() {
        "socket"
    } else if t.is_char_device() {
        "character device"
    } else if t.is_block_device() {
        "block device"
    } else {
        "special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> &'static str {
    "special file"
}

/// The SQLite URI that opens `path` as immutable (no lock, no `-wal` or
/// `-shm` file), its bytes percent-encoded where a URI needs it.
fn immutable_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"/._-~".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str("?immutable=1");
    uri
}

fn count(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<u64> {
    r.get::<_, i64>(i).map(|v| u64::try_from(v).unwrap_or(0))
}

fn header(r: &rusqlite::Row<'_>) -> rusqlite::Result<(i64, SessionRecord, i64)> {
    Ok((
        r.get(0)?,
        SessionRecord {
            spec_id: r.get(1)?,
            stage: r.get(2)?,
            agent: r.get(3)?,
            run_id: r.get(4)?,
            created_at: r.get(5)?,
            ..SessionRecord::default()
        },
        r.get(6)?,
    ))
}

/// Whether the scores table has its `final_score` column (schema version
/// 3; a store opened at an older version, for a migration test, lacks it).
fn has_final_column(conn: &Connection) -> Result<bool, Error> {
    Ok(version(conn)? >= 3)
}

/// The placeholder key's run id: a session's rows hang on it until it is
/// finished (SQLite writers take turns: one placeholder at a time).
const PLACEHOLDER: &str = "\u{1A}pending";

/// Inserts an open session's placeholder trajectory row; its id.
fn insert_placeholder(conn: &Connection) -> Result<i64, Error> {
    conn.prepare_cached(
        "INSERT INTO trajectories (spec_id, stage, agent, run_id, created_at, updated_at)
         VALUES (?1, NULL, ?1, ?2, 0, 0)",
    )?
    .execute(params!["\u{1A}", PLACEHOLDER])?;
    Ok(conn.last_insert_rowid())
}

/// Writes one session inside an open transaction (or savepoint);
/// `final_column` says whether the scores table has `final_score`.
fn write_session(
    tx: &Connection,
    scanner: &CredentialScanner,
    s: &SessionRecord,
    final_column: bool,
) -> Result<i64, Error> {
    let mut pieces = Pieces::default();
    prepare::pieces_into(scanner, s, &mut pieces)?;
    let header = prepare::header(s);
    let score = s.score.as_ref().map(prepare::score);
    let id = insert_keyed(tx, &header)?;
    write_pieces(tx, id, &pieces)?;
    insert_score(tx, id, &header, score.as_ref(), final_column)?;
    Ok(id)
}

/// Writes a batch of session `id`'s rows: turns with their questions and
/// violations, tool calls, guidance fires.
fn write_pieces(tx: &Connection, id: i64, p: &Pieces) -> Result<(), Error> {
    if !p.turns.is_empty() {
        let mut turn_stmt = tx.prepare_cached(
            "INSERT INTO turns (trajectory_id, number, timestamp, prompt, response, token_count, latency_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        let mut q_stmt = tx.prepare_cached(
            "INSERT INTO questions (turn_id, text, effort, confidence, reasons) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        let mut v_stmt = tx.prepare_cached(
            "INSERT INTO violations (turn_id, preference, expected, actual, severity, span_start, span_end)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for t in &p.turns {
            turn_stmt.execute(params![
                id,
                t.number,
                t.timestamp,
                t.prompt,
                t.response,
                t.token_count,
                t.latency_ms
            ])?;
            let turn_id = tx.last_insert_rowid();
            for q in &t.questions {
                q_stmt.execute(params![turn_id, q.text, q.effort, q.confidence, q.reasons])?;
            }
            for v in &t.violations {
                v_stmt.execute(params![
                    turn_id,
                    v.preference,
                    v.expected,
                    v.actual,
                    v.severity,
                    v.span_start,
                    v.span_end
                ])?;
            }
        }
    }
    // Statements for tables a version-1 database lacks are prepared only
    // when there is something to write.
    if !p.tool_calls.is_empty() {
        let mut c_stmt = tx.prepare_cached(
            "INSERT INTO tool_calls (trajectory_id, position, step, name, params, ok, output_chars)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for c in &p.tool_calls {
            c_stmt.execute(params![
                id,
                c.position,
                c.step,
                c.name,
                c.params,
                c.ok,
                c.output_chars
            ])?;
        }
    }
    if !p.guidance.is_empty() {
        let mut g_stmt = tx.prepare_cached(
            "INSERT INTO guidance_fires (trajectory_id, position, classifier, confidence, reason)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for g in &p.guidance {
            g_stmt.execute(params![
                id,
                g.position,
                g.classifier,
                g.confidence,
                g.reason
            ])?;
        }
    }
    Ok(())
}

/// Removes the stored session of `s`'s key (its rows with it), but row
/// `id`.
fn delete_old(tx: &Connection, s: &Header, id: i64) -> Result<(), Error> {
    tx.prepare_cached(
        "DELETE FROM trajectories WHERE spec_id = ?1 AND agent = ?2 AND run_id = ?3 AND id <> ?4",
    )?
    .execute(params![s.spec_id, s.agent, s.run_id, id])?;
    Ok(())
}

/// Inserts a session's row with its key, the stored session of that key
/// removed first; its id.
fn insert_keyed(tx: &Connection, s: &Header) -> Result<i64, Error> {
    delete_old(tx, s, 0)?;
    tx.prepare_cached(
        "INSERT INTO trajectories (spec_id, stage, agent, run_id, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(header_values(s))?;
    Ok(tx.last_insert_rowid())
}

/// A session's row's values: key, stage, times (`?1` to `?6`).
fn header_values(s: &Header) -> [&dyn rusqlite::ToSql; 6] {
    [
        &s.spec_id,
        &s.stage,
        &s.agent,
        &s.run_id,
        &s.created_at,
        &s.updated_at,
    ]
}

/// Keys session `id`, written on a placeholder (the stored session of
/// its key removed, its rows with it).
fn key_rows(tx: &Connection, id: i64, s: &Header) -> Result<(), Error> {
    delete_old(tx, s, id)?;
    let mut values = header_values(s).to_vec();
    values.push(&id);
    tx.prepare_cached(
        "UPDATE trajectories SET spec_id = ?1, stage = ?2, agent = ?3, run_id = ?4,
         created_at = ?5, updated_at = ?6 WHERE id = ?7",
    )?
    .execute(values.as_slice())?;
    Ok(())
}

/// Writes session `id`'s score, if any.
fn insert_score(
    tx: &Connection,
    id: i64,
    s: &Header,
    score: Option<&ScoreRow>,
    final_column: bool,
) -> Result<(), Error> {
    if let Some(sc) = score {
        let sql = if final_column {
            "INSERT INTO scores (trajectory_id, r_prod, r_proact, r_pers, total, profile,
             technical_weight, interaction_weight, created_at, final_score)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
        } else {
            "INSERT INTO scores (trajectory_id, r_prod, r_proact, r_pers, total, profile,
             technical_weight, interaction_weight, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
        };
        let values = params![
            id,
            sc.r_prod,
            sc.r_proact,
            sc.r_pers,
            sc.total,
            sc.profile,
            sc.technical_weight,
            sc.interaction_weight,
            s.created_at,
            sc.final_score
        ];
        let bound = if final_column { 10 } else { 9 };
        tx.prepare_cached(sql)?.execute(&values[..bound])?;
    }
    Ok(())
}
