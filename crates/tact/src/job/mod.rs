//! The main job as a library: read agent sessions (from a path or as
//! values), score each one (questions extracted and classified,
//! preferences checked, rewards), replay the guidance classifiers over its
//! tool events, store it all in the trajectory database (one transaction
//! per session) and rank the agents of each (spec, stage) by weighted
//! consensus. `tact run` is this job and a progress bar.
//!
//! Nothing is printed: a bad session is a [`SessionError`] in the
//! [`Report`], naming its file and line, and the others go on; the
//! report's `Display` is the text `tact run` prints.
//!
//! ```
//! use tact::job::{Job, Progress};
//! use tact::scoring::{Session, TaskOutcome, Turn};
//! use tact::store::Store;
//!
//! let mut a = Session::new("agent_a", TaskOutcome::Tests { passed: 10, total: 10 });
//! a.spec_id = Some("SPEC-1".into());
//! a.turns.push(Turn::new("Add a cache.", "Should it be Redis or in-process?"));
//! let mut b = Session::new("agent_b", TaskOutcome::Tests { passed: 9, total: 10 });
//! b.spec_id = Some("SPEC-1".into());
//!
//! let mut job = Job::builder().store(Store::open_in_memory()?).build()?;
//! let mut seen = 0;
//! let report = job.run_sessions(vec![a, b], |p: Progress<'_>| seen = p.done)?;
//! assert_eq!((report.stored(), seen), (2, 2));
//! assert!(report.errors.is_empty());
//! let group = &report.groups[0];
//! if let Ok(tact::consensus::Decision::Weighted { consensus, .. }) = &group.ranking {
//!     assert_eq!(consensus.best_agent, "agent_a");
//! }
//! assert_eq!(group.member("agent_a").map(|m| m.questions.low), Some(1));
//! # Ok::<(), tact::Error>(())
//! ```

mod builder;
mod config;
mod files;
mod limits;
mod record;
mod report;

use std::collections::BTreeMap;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tact_consensus::{Ballot, Consensus};
use tact_core::input::{Line, next_line};
use tact_scoring::{
    LocatedSession, Scorer, Session, SessionFormat, UserPreferences, parse_session_at,
    parse_sessions,
};
use tact_trajectory_store::{Location, Store};

pub use builder::JobBuilder;
pub use config::{Config, StoreConfig};
pub use limits::Limits;
pub use report::{
    EffortCounts, Group, Member, Progress, Report, Rewards, SessionError, SessionErrorKind,
    Truncation, TruncationKind,
};

use crate::import::{Format, ImportDefaults, ImportedLog, TurnHook, import_reader_with};
use crate::import::{first_record_has_key, not_a_known_log as not_a_log};
use crate::{Error, Result};
use files::{head, session_files};

/// Where a job stores: a database (a SQLite file or a PostgreSQL URL)
/// opened on the first run, or a store already open.
#[derive(Debug)]
enum Storage {
    At(Location),
    Open(Store),
    /// Lent to a session being written ([`record::Streaming`]), given back
    /// once it is stored or dropped.
    Lent,
}

/// The main job, built once and run over sessions as many times as needed
/// (each run stores into the same database).
#[derive(Debug)]
pub struct Job {
    format: Option<Format>,
    import: ImportDefaults,
    consensus: Consensus,
    scorer: Arc<Scorer>,
    default_prefs: Option<UserPreferences>,
    stage: Option<String>,
    storage: Storage,
    limits: Limits,
}

/// What the job keeps of a session that went into the store, for the
/// ranking of its group: its member of the report (agent, rewards and
/// counts) and its verdict, never the session itself.
struct Stored {
    member: Member,
    verdict: Option<String>,
}

/// A run's tally, turned into a [`Report`] at the end.
struct Tally {
    read: usize,
    done: usize,
    total: usize,
    stored: usize,
    /// The file of the latest member read from one, shared by the members
    /// of that file.
    file: Option<Arc<Path>>,
    other_stages: usize,
    errors: Vec<SessionError>,
    truncations: Vec<Truncation>,
    notes: Vec<String>,
    groups: BTreeMap<(String, Option<String>), Vec<Stored>>,
}

impl Tally {
    fn new(errors: Vec<SessionError>) -> Self {
        Tally {
            read: 0,
            done: 0,
            total: 0,
            stored: 0,
            file: None,
            other_stages: 0,
            errors,
            truncations: Vec::new(),
            notes: Vec::new(),
            groups: BTreeMap::new(),
        }
    }
}

/// Where a session came from: a file and line, or a position among values.
#[derive(Clone, Copy)]
enum Origin<'a> {
    File(&'a Path, usize),
    Value(usize),
}

impl Origin<'_> {
    fn error(self, kind: SessionErrorKind) -> SessionError {
        match self {
            Origin::File(file, line) => SessionError::in_file(file, Some(line), kind),
            Origin::Value(index) => SessionError::at_index(index, kind),
        }
    }

    fn truncation(self, agent: &str, turn: usize, kind: TruncationKind) -> Truncation {
        let (file, line, index) = match self {
            Origin::File(f, l) => (Some(f.to_owned()), Some(l), None),
            Origin::Value(i) => (None, None, Some(i)),
        };
        Truncation {
            file,
            line,
            index,
            agent: agent.to_owned(),
            turn,
            kind,
        }
    }
}

impl Job {
    /// Starts a builder (a database, or an open store, is required).
    pub fn builder() -> JobBuilder {
        JobBuilder::default()
    }

    /// The consensus the job ranks with (its validated settings).
    pub fn consensus(&self) -> &Consensus {
        &self.consensus
    }

    /// The scorer the job scores with.
    pub fn scorer(&self) -> &Scorer {
        &self.scorer
    }

    /// The store, once open (a database path is opened on the first run).
    pub fn store(&self) -> Option<&Store> {
        match &self.storage {
            Storage::Open(s) => Some(s),
            Storage::At(_) | Storage::Lent => None,
        }
    }

    /// The store, once open, for the host to query or keep.
    pub fn into_store(self) -> Option<Store> {
        match self.storage {
            Storage::Open(s) => Some(s),
            Storage::At(_) | Storage::Lent => None,
        }
    }

    /// The open store, lent to a session's writer until
    /// [`give_back`](Self::give_back).
    fn lend_store(&mut self) -> Result<Store> {
        self.open_store()?;
        match std::mem::replace(&mut self.storage, Storage::Lent) {
            Storage::Open(s) => Ok(s),
            other => {
                self.storage = other;
                Err(Error::NoStore)
            }
        }
    }

    fn give_back(&mut self, streaming: record::Streaming) {
        if let Some(store) = streaming.into_store() {
            self.storage = Storage::Open(store);
        }
    }

    /// Opens the database on first use (creating a SQLite file's folder)
    /// and checks it before anything is written: a damaged SQLite file
    /// (`PRAGMA quick_check`) is refused with
    /// [`store::Error::Damaged`](tact_trajectory_store::Error::Damaged).
    fn open_store(&mut self) -> Result<&mut Store> {
        if let Storage::At(location) = &self.storage {
            if let Location::Sqlite(path) = location
                && let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
            {
                std::fs::create_dir_all(dir).map_err(|source| Error::CreateDir {
                    path: dir.to_owned(),
                    source,
                })?;
            }
            let store = Store::connect(location)?;
            if let Err(problems) = store.quick_check()? {
                return Err(tact_trajectory_store::Error::Damaged {
                    path: PathBuf::from(store.location()),
                    problems,
                }
                .into());
            }
            self.storage = Storage::Open(store);
        }
        match &mut self.storage {
            Storage::Open(s) => Ok(s),
            Storage::At(_) | Storage::Lent => Err(Error::NoStore),
        }
    }

    /// Runs the job over a session file (`.json`: one session; `.jsonl`:
    /// one per line) or a folder, walked recursively for `.json` and
    /// `.jsonl` files (other files, and entries starting with `.`, are
    /// skipped; symbolic links to folders are not followed). A FIFO,
    /// socket or device, given or found, is a [`SessionError`]
    /// ([`SessionErrorKind::NotRegular`]) and never opened; a line that
    /// is not UTF-8 is an error of its session alone.
    ///
    /// Fails (before anything is stored) when `path` cannot be read or
    /// holds no session file, or when the database cannot be opened; a
    /// bad session, file or folder is a [`SessionError`] of the report.
    pub fn run_path(
        &mut self,
        path: impl AsRef<Path>,
        mut progress: impl FnMut(Progress<'_>),
    ) -> Result<Report> {
        let path = path.as_ref();
        let mut errors = Vec::new();
        let files = session_files(path, &mut errors)?;
        if files.is_empty() && errors.is_empty() {
            return Err(Error::NoSessionFiles {
                path: path.to_owned(),
            });
        }
        self.open_store()?;
        let mut tally = Tally::new(errors);
        for (k, file) in files.iter().enumerate() {
            let at = |tally: &Tally| Progress {
                done: tally.done,
                total: tally.total,
                file: Some(file),
                file_number: k + 1,
                files: files.len(),
            };
            progress(at(&tally));
            if let Some(log) = self.log_format(file) {
                let progress = &mut |t: &Tally| progress(at(t));
                if crate::import::holds_sessions(log, &head(file)) {
                    self.import_sessions(&mut tally, file, log, progress)?;
                } else {
                    self.import_file(&mut tally, file, log, None, progress)?;
                }
                continue;
            }
            if let Some(e) = not_a_known_log(file) {
                tally.read += 1;
                tally.total += 1;
                tally.errors.push(e);
                tally.done += 1;
                progress(at(&tally));
                continue;
            }
            let format = SessionFormat::of(file).unwrap_or(SessionFormat::Json);
            match format {
                SessionFormat::JsonLines => {
                    self.stream_lines(&mut tally, file, &mut |t: &Tally| progress(at(t)))?;
                }
                _ => self.read_whole(&mut tally, file, &mut |t: &Tally| progress(at(t)))?,
            }
        }
        Ok(self.finish(tally, Some(files.len())))
    }

    /// Reads a `.jsonl` file line by line (one line in memory at a time, at
    /// most [`Limits::max_session_bytes`] of it), processing each session
    /// as it is read.
    fn stream_lines(
        &mut self,
        tally: &mut Tally,
        file: &Path,
        progress: &mut dyn FnMut(&Tally),
    ) -> Result<()> {
        let Some(reader) = files::open_reader(tally, file) else {
            return Ok(());
        };
        let source = file.display().to_string();
        let limit = self.limits.max_session_bytes;
        let mut reader = reader;
        let mut buf: Vec<u8> = Vec::new();
        let mut number = 0usize;
        loop {
            number += 1;
            buf.clear();
            let read = match next_line(&mut reader, &mut buf, limit) {
                Ok(r) => r,
                Err(e) => {
                    tally.errors.push(SessionError::in_file(
                        file,
                        Some(number),
                        SessionErrorKind::Read(e),
                    ));
                    return Ok(());
                }
            };
            let line = match read {
                Line::End => return Ok(()),
                Line::TooLong(bytes) => {
                    tally.read += 1;
                    tally.total += 1;
                    tally.errors.push(SessionError::in_file(
                        file,
                        Some(number),
                        SessionErrorKind::TooLarge { bytes, limit },
                    ));
                    tally.done += 1;
                    progress(tally);
                    continue;
                }
                Line::Read => match std::str::from_utf8(&buf) {
                    Ok(l) => l,
                    Err(_) => {
                        tally.read += 1;
                        tally.total += 1;
                        tally.errors.push(SessionError::in_file(
                            file,
                            Some(number),
                            SessionErrorKind::Invalid(tact_scoring::Error::Session {
                                source_name: Some(format!("{source}:{number}")),
                                message: "invalid UTF-8".to_owned(),
                            }),
                        ));
                        tally.done += 1;
                        progress(tally);
                        continue;
                    }
                },
            };
            let line = if number == 1 {
                line.strip_prefix('\u{feff}').unwrap_or(line)
            } else {
                line
            };
            let t = line.trim();
            if t.is_empty() || t.starts_with("//") {
                continue;
            }
            tally.read += 1;
            tally.total += 1;
            progress(tally);
            let parsed = parse_session_at(line, &source, number);
            // The line's text is not needed past parsing.
            buf = Vec::new();
            match parsed {
                Ok(LocatedSession { line, session }) => {
                    self.process(tally, Origin::File(file, line), session, None)?;
                }
                Err(e) => tally.errors.push(SessionError::in_file(
                    file,
                    Some(number),
                    SessionErrorKind::Invalid(e),
                )),
            }
            tally.done += 1;
            progress(tally);
        }
    }

    /// Reads a `.json` file (one session, at most
    /// [`Limits::max_session_bytes`]) and processes it.
    fn read_whole(
        &mut self,
        tally: &mut Tally,
        file: &Path,
        progress: &mut dyn FnMut(&Tally),
    ) -> Result<()> {
        let limit = self.limits.max_session_bytes;
        let text = match std::fs::metadata(file) {
            Ok(m) if m.len() > limit as u64 => {
                tally.read += 1;
                tally.total += 1;
                tally.errors.push(SessionError::in_file(
                    file,
                    Some(1),
                    SessionErrorKind::TooLarge {
                        bytes: m.len(),
                        limit,
                    },
                ));
                tally.done += 1;
                progress(tally);
                return Ok(());
            }
            Ok(_) => std::fs::read_to_string(file),
            Err(e) => Err(e),
        };
        let text = match text {
            Ok(t) => t,
            Err(e) => {
                tally
                    .errors
                    .push(SessionError::in_file(file, None, SessionErrorKind::Read(e)));
                return Ok(());
            }
        };
        let results = parse_sessions(&text, &file.display().to_string(), SessionFormat::Json);
        drop(text);
        tally.total += results.len();
        progress(tally);
        for result in results {
            tally.read += 1;
            match result {
                Ok(LocatedSession { line, session }) => {
                    self.process(tally, Origin::File(file, line), session, None)?;
                }
                Err(e) => tally.errors.push(SessionError::in_file(
                    file,
                    Some(1),
                    SessionErrorKind::Invalid(e),
                )),
            }
            tally.done += 1;
            progress(tally);
        }
        Ok(())
    }

    /// The agent log format of `file`: the forced one when the file's
    /// extension fits it, else the one its content shows (`None` for
    /// tact's own sessions).
    fn log_format(&self, file: &Path) -> Option<Format> {
        let ext = file
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        if let Some(f) = self.format {
            if f.takes_extension(&ext) {
                return Some(f);
            }
        }
        if ext == "traj" {
            return Some(Format::SweAgent);
        }
        Format::detect(file, &head(file))
    }

    /// Imports an agent's log (at most [`Limits::max_session_bytes`]) as
    /// one session and processes it; a log that cannot be read is a
    /// [`SessionError`] naming its file and line. With `line`, the session
    /// of that line of a file that holds many (`files.rs`).
    fn import_file(
        &mut self,
        tally: &mut Tally,
        file: &Path,
        format: Format,
        line: Option<&crate::import::SessionLine>,
        progress: &mut dyn FnMut(&Tally),
    ) -> Result<()> {
        tally.read += 1;
        tally.total += 1;
        progress(tally);
        let invalid = |line: usize, message: String| {
            SessionError::in_file(
                file,
                Some(line),
                SessionErrorKind::Invalid(tact_scoring::Error::Session {
                    source_name: Some(format!("{}:{line}", file.display())),
                    message,
                }),
            )
        };
        let limit = self.limits.max_session_bytes;
        let opened = match std::fs::metadata(file) {
            // A line of a file of many sessions: read from the line.
            _ if line.is_some() => Ok(Box::new(std::io::empty()) as Box<dyn std::io::Read>),
            Ok(m) if m.len() > limit as u64 => {
                tally.errors.push(SessionError::in_file(
                    file,
                    Some(1),
                    SessionErrorKind::TooLarge {
                        bytes: m.len(),
                        limit,
                    },
                ));
                tally.done += 1;
                progress(tally);
                return Ok(());
            }
            Ok(_) => open_log(file, format, limit),
            Err(e) => Err(e),
        };
        let mut reader = match opened {
            Ok(f) => BufReader::with_capacity(1 << 16, f),
            Err(e) => {
                tally
                    .errors
                    .push(SessionError::in_file(file, None, SessionErrorKind::Read(e)));
                tally.done += 1;
                progress(tally);
                return Ok(());
            }
        };
        let source = file.display().to_string();
        // Streamed: one record in memory at a time, at most this large.
        let max_record = limit.min(crate::import::MAX_RECORD_BYTES);
        // The sidecar read first: the session's stage and preferences are
        // known as its turns are scored.
        let sidecar = ImportDefaults::sidecar_of(file);
        let header = self.log_header(file, format, sidecar.as_ref().ok().and_then(Option::as_ref));
        // The log's title, when it came after a question it is the context of.
        let mut title = None;
        let (imported, streaming) = loop {
            // Each turn replayed as it ends, its calls and fires written, its
            // events then dropped; then scored and written, its text dropped.
            let mut streaming = record::Streaming::new(
                self.lend_store()?,
                crate::import::LOG_MODE,
                self.limits.max_message_bytes,
            );
            streaming.scoring = header.as_ref().map(|h| {
                let mut h = h.clone();
                h.context.clone_from(&title);
                self.turn_scoring(&h)
            });
            let streaming = std::rc::Rc::new(std::cell::RefCell::new(Some(streaming)));
            let hook = {
                let streaming = std::rc::Rc::clone(&streaming);
                TurnHook(Box::new(move |t, part, title| {
                    if let Some(s) = streaming.borrow_mut().as_mut() {
                        s.log_turn(t, part, title);
                    }
                }))
            };
            let imported = match line {
                Some(l) => l.import_with(format, &source, max_record, Some(hook)),
                None => {
                    // A SWE-agent trajectory's task read first: its steps'
                    // turn is then replayed as they are read, not held
                    // until `history`.
                    let task = crate::import::task_ahead(format, file, max_record);
                    import_reader_with(format, reader, &source, max_record, Some(hook), task)
                }
            };
            let Some(streaming) = streaming.borrow_mut().take() else {
                return Err(Error::NoStore);
            };
            // A title read after a question was classified without it: the
            // log read again, its title known from the start (a whole
            // session's questions are all classified against it).
            let stale = streaming.scoring.as_ref().is_some_and(|s| s.stale_context);
            if let (Ok(log), true, None) = (&imported, stale, &title) {
                title.clone_from(&log.meta.title);
                self.give_back(streaming);
                let reopened = match line {
                    Some(_) => Ok(Box::new(std::io::empty()) as Box<dyn std::io::Read>),
                    None => open_log(file, format, limit),
                };
                reader = match reopened {
                    Ok(f) => BufReader::with_capacity(1 << 16, f),
                    Err(e) => {
                        tally.errors.push(SessionError::in_file(
                            file,
                            None,
                            SessionErrorKind::Read(e),
                        ));
                        tally.done += 1;
                        progress(tally);
                        return Ok(());
                    }
                };
                continue;
            }
            break (imported, streaming);
        };
        let (at, shown) = match line {
            Some(l) => (l.line, format!("{}:{}", file.display(), l.line)),
            None => (1, file.display().to_string()),
        };
        let imported = imported.and_then(|log| Ok((log, sidecar?)));
        // Records skipped (over the limit), each with its line.
        let imported = imported.map(|(mut log, sidecar)| {
            for p in std::mem::take(&mut log.problems) {
                tally.errors.push(invalid(p.line, p.message));
            }
            (log, sidecar)
        });
        match imported {
            // A log with no exchange (a chat started and left, a session
            // of snapshots only) is said and neither stored nor ranked.
            Ok((log, _)) if log.exchanges == 0 => {
                self.give_back(streaming);
                tally.notes.push(format!("{shown}: no exchanges: skipped"));
            }
            Ok((log, sidecar)) => {
                let defaults = match &sidecar {
                    Some(s) => self.import.clone().overridden_by(s),
                    None => self.import.clone(),
                };
                if !log.gives_outcome(&defaults) {
                    tally.notes.push(format!(
                        "{shown}: the {format} log gives no outcome: scored with R_Prod 0 (give one with --outcome, [import] outcome or {}.tact.toml)",
                        file.file_name().unwrap_or_default().to_string_lossy()
                    ));
                }
                let session = log.into_session(file, &defaults);
                match session.validate() {
                    Ok(()) => {
                        self.process(tally, Origin::File(file, at), session, Some(streaming))?
                    }
                    Err(e) => {
                        self.give_back(streaming);
                        tally.errors.push(invalid(at, e.to_string()));
                    }
                }
            }
            Err(e) => {
                self.give_back(streaming);
                tally.errors.push(invalid(e.line, e.message));
            }
        }
        tally.done += 1;
        progress(tally);
        Ok(())
    }

    /// Runs the job over sessions the host holds (each validated first, as
    /// a session file's would be). Errors name a session by its 0-based
    /// position (`sessions[INDEX]`).
    pub fn run_sessions(
        &mut self,
        sessions: impl IntoIterator<Item = Session>,
        mut progress: impl FnMut(Progress<'_>),
    ) -> Result<Report> {
        let sessions = sessions.into_iter();
        self.open_store()?;
        let mut tally = Tally::new(Vec::new());
        tally.total = sessions.size_hint().0;
        let at = |tally: &Tally| Progress {
            done: tally.done,
            total: tally.total,
            file: None,
            file_number: 0,
            files: 0,
        };
        progress(at(&tally));
        for (index, session) in sessions.enumerate() {
            tally.read += 1;
            tally.total = tally.total.max(tally.read);
            match session.validate() {
                Ok(()) => self.process(&mut tally, Origin::Value(index), session, None)?,
                Err(e) => tally
                    .errors
                    .push(SessionError::at_index(index, SessionErrorKind::Invalid(e))),
            }
            tally.done += 1;
            progress(at(&tally));
        }
        Ok(self.finish(tally, None))
    }

    /// The header of the session a log of `format` at `file` is read as,
    /// as far as it is known before the log is read (`defaults` over the
    /// job's): what its turns are scored with. `None` when the session
    /// will not be stored (of another stage than the job's, or of a stage
    /// without weights).
    fn log_header(
        &self,
        file: &Path,
        format: Format,
        sidecar: Option<&ImportDefaults>,
    ) -> Option<Session> {
        let defaults = match sidecar {
            Some(s) => self.import.clone().overridden_by(s),
            None => self.import.clone(),
        };
        let log = ImportedLog {
            meta: crate::import::LogMeta {
                format: Some(format),
                ..crate::import::LogMeta::default()
            },
            ..ImportedLog::default()
        };
        let mut session = log.session(file, &defaults);
        if let Some(want) = &self.stage {
            match &session.stage {
                Some(s) if s != want => return None,
                Some(_) => {}
                None => session.stage = Some(want.clone()),
            }
        }
        self.consensus
            .settings()
            .weights_for(session.stage.as_deref())
            .ok()?;
        if session.preferences.is_empty() {
            if let Some(p) = &self.default_prefs {
                session.preferences = p.clone();
            }
        }
        Some(session)
    }

    /// The scoring of `session`'s turns (its header read) as they end.
    fn turn_scoring(&self, session: &Session) -> record::TurnScoring {
        record::TurnScoring::new(
            Arc::clone(&self.scorer),
            session,
            self.limits.max_questions_per_message,
        )
    }

    /// Scores, replays and stores one session into its group, or records
    /// why not; a session of another stage than the filter is left out.
    /// Fails only when no store is open (a bug of the caller).
    /// `streaming`: the session's turns replayed (responses cut first) as
    /// its log was read, their calls and fires written, their events
    /// dropped; else the session is replayed here.
    fn process(
        &mut self,
        tally: &mut Tally,
        origin: Origin<'_>,
        session: Session,
        streaming: Option<record::Streaming>,
    ) -> Result<()> {
        let (mut streaming, replayed) = match streaming {
            Some(s) => (s, true),
            None => (
                record::Streaming::new(
                    self.lend_store()?,
                    session.mode,
                    self.limits.max_message_bytes,
                ),
                false,
            ),
        };
        self.process_into(tally, origin, session, &mut streaming, replayed);
        self.give_back(streaming);
        Ok(())
    }

    /// [`process`](Self::process) with the session's writer.
    fn process_into(
        &mut self,
        tally: &mut Tally,
        origin: Origin<'_>,
        mut session: Session,
        streaming: &mut record::Streaming,
        replayed: bool,
    ) {
        if session
            .spec_id
            .as_deref()
            .is_none_or(|s| s.trim().is_empty())
        {
            tally.errors.push(origin.error(SessionErrorKind::NoSpec));
            return;
        }
        if let Some(want) = &self.stage {
            match &session.stage {
                Some(s) if s != want => {
                    tally.other_stages += 1;
                    return;
                }
                Some(_) => {}
                None => session.stage = Some(want.clone()),
            }
        }
        let weights = match self
            .consensus
            .settings()
            .weights_for(session.stage.as_deref())
        {
            Ok(w) => w,
            Err(e) => {
                tally.errors.push(origin.error(SessionErrorKind::Stage(e)));
                return;
            }
        };
        if session.preferences.is_empty() {
            if let Some(p) = &self.default_prefs {
                session.preferences = p.clone();
            }
        }
        // A response beyond the limit is analysed up to it, redacted
        // whole first: a credential the cut would halve is not kept in part.
        let max_message = self.limits.max_message_bytes;
        let cut = if replayed {
            std::mem::take(&mut streaming.cut)
        } else {
            session
                .turns
                .iter_mut()
                .enumerate()
                .filter_map(|(turn, t)| Some((turn, record::cut_response(t, max_message)?)))
                .collect()
        };
        for (turn, (bytes, kept)) in cut {
            tally.truncations.push(origin.truncation(
                &session.agent,
                turn,
                TruncationKind::Message { bytes, kept },
            ));
        }
        // The run id (a digest of the whole session when it has none)
        // first; then each turn is replayed, scored and written (a log's
        // as it was read), its text dropped.
        session.run_id = Some(record::run_id(&session));
        if replayed {
            // Scored as it was read, from a header without the log: the
            // outcome the log records (a task's result) is known now.
            if let Some(scoring) = streaming.scoring.as_mut() {
                scoring.set_outcome(session.outcome);
            }
        } else {
            streaming.scoring = Some(self.turn_scoring(&session));
            for t in &mut session.turns {
                streaming.turn(t);
                t.events = Vec::new();
            }
        }
        // At most so many questions of one response were kept.
        let max_questions = self.limits.max_questions_per_message;
        if let Some(scoring) = &streaming.scoring {
            for &(turn, found) in &scoring.cut_questions {
                tally.truncations.push(origin.truncation(
                    &session.agent,
                    turn,
                    TruncationKind::Questions {
                        found,
                        kept: max_questions,
                    },
                ));
            }
        }
        let guidance: Vec<String> = streaming.classifiers().to_vec();
        let consensus = &self.consensus;
        let (score, scoring) = match record::write(streaming, &session, weights, |score| {
            consensus.final_score(score, weights)
        }) {
            Ok(written) => written,
            Err(e) => {
                tally
                    .errors
                    .push(origin.error(SessionErrorKind::NotStored(e)));
                return;
            }
        };
        tracing::debug!(
            spec = session.spec_id.as_deref().unwrap_or_default(),
            agent = %session.agent,
            "session stored"
        );
        tally.stored += 1;
        let (file, line) = match origin {
            Origin::File(f, l) => {
                let shared = match &tally.file {
                    Some(a) if **a == *f => Arc::clone(a),
                    _ => Arc::from(f),
                };
                tally.file = Some(Arc::clone(&shared));
                (Some(shared), Some(l))
            }
            Origin::Value(_) => (None, None),
        };
        let member = Member {
            agent: session.agent.as_str().into(),
            run_id: session.run_id.clone().unwrap_or_default().into_boxed_str(),
            file,
            line,
            questions: EffortCounts {
                low: scoring.kept[0],
                medium: scoring.kept[1],
                high: scoring.kept[2],
            },
            violations: scoring.violated.into_boxed_slice(),
            rewards: Rewards::of(&score),
            guidance: guidance.into_boxed_slice(),
        };
        let key = (session.spec_id.unwrap_or_default(), session.stage);
        let group = tally.groups.entry(key).or_default();
        // Grown by a quarter, not doubled: a group's spare slots would
        // otherwise be a third of what the job keeps per session.
        if group.len() == group.capacity() {
            group.reserve_exact((group.len() / 4).max(1));
        }
        group.push(Stored {
            member,
            verdict: session.verdict,
        });
    }

    /// Ranks each group and builds the report.
    fn finish(&self, tally: Tally, files: Option<usize>) -> Report {
        let groups = tally
            .groups
            .into_iter()
            .map(|((spec, stage), stored)| {
                // The ballots live while their group is ranked.
                let ballots: Vec<Ballot> = stored
                    .iter()
                    .map(|s| Ballot {
                        agent: s.member.agent.to_string(),
                        spec_id: Some(spec.clone()),
                        stage: stage.clone(),
                        verdict: s.verdict.clone(),
                        technical: s.member.rewards.r_prod,
                        interaction: s.member.rewards.interaction,
                        score: None,
                    })
                    .collect();
                let ranking = self.consensus.decide_scored(ballots, stage.as_deref());
                // Not collected in place: that would keep the group's
                // allocation of `Stored`s, spare slots and all.
                let mut members = Vec::with_capacity(stored.len());
                members.extend(stored.into_iter().map(|s| s.member));
                Group {
                    spec,
                    stage,
                    members,
                    ranking,
                }
            })
            .collect();
        Report {
            db: self.store().map_or_else(PathBuf::new, |s| {
                if s.is_postgres() {
                    PathBuf::from(s.location())
                } else {
                    s.path().to_owned()
                }
            }),
            stage: self.stage.clone(),
            files,
            read: tally.read,
            stored: tally.stored,
            other_stages: tally.other_stages,
            errors: tally.errors,
            truncations: tally.truncations,
            notes: tally.notes,
            groups,
        }
    }
}

/// Opens the log of `format` at `file` (at most `limit` bytes of an
/// OpenHands V1 conversation's event files, which are read as one log).
fn open_log(file: &Path, format: Format, limit: usize) -> std::io::Result<Box<dyn std::io::Read>> {
    // An OpenHands V1 conversation: its folder's event files, one log.
    if format == Format::OpenHandsV1 && crate::import::is_event_file(file) {
        return crate::import::conversation_events(file, limit)
            .map(|b| Box::new(std::io::Cursor::new(b)) as Box<dyn std::io::Read>);
    }
    std::fs::File::open(file).map(|f| Box::new(f) as Box<dyn std::io::Read>)
}

/// The keys of tact's own sessions: a file no log format claims is read
/// as tact's own when its first record has one of them.
const NATIVE_KEYS: [&str; 6] = ["agent", "outcome", "spec_id", "turns", "run_id", "stage"];

/// The one error for a file that is neither a known agent log nor tact's
/// own format (its first record has none of [`NATIVE_KEYS`]); `None` for
/// a file to read as tact's own (an empty one included).
fn not_a_known_log(file: &Path) -> Option<SessionError> {
    let head = head(file);
    let rest = head
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('#'));
    if rest.is_none() || first_record_has_key(&head, &NATIVE_KEYS) {
        return None;
    }
    let e = not_a_log(&file.display().to_string());
    Some(SessionError::in_file(
        file,
        Some(1),
        SessionErrorKind::Invalid(tact_scoring::Error::Session {
            source_name: Some(format!("{}:1", file.display())),
            message: e.message,
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tact_scoring::Profile;

    #[test]
    fn credential_cut_by_limit_is_redacted() {
        // A token straddling the cut: 20 of its 40 characters before it.
        let token = format!("ghp_{}", "Ab1".repeat(12));
        let mut text = format!("{}{token} rest", "x".repeat(100 - 20));
        record::redact_whole(&mut text);
        assert!(!text.contains("ghp_"), "{text}");
        let mut kept = 100;
        while !text.is_char_boundary(kept) {
            kept -= 1;
        }
        text.truncate(kept);
        assert!(!text.contains("Ab1Ab1"), "{text}");
    }

    #[test]
    fn a_job_needs_a_store_and_a_known_stage() {
        assert!(matches!(Job::builder().build(), Err(Error::NoStore)));
        let e = Job::builder()
            .store(Store::open_in_memory().unwrap())
            .stage("deploy")
            .build()
            .unwrap_err();
        assert!(e.to_string().contains("unknown stage `deploy`"), "{e}");
    }

    #[test]
    fn the_profile_replaces_the_configured_one() {
        let job = Job::builder()
            .store(Store::open_in_memory().unwrap())
            .profile(Profile::named("paper", 1.0, 1.0).unwrap())
            .build()
            .unwrap();
        assert_eq!(job.scorer().profile().name(), "paper");
        assert_eq!(job.consensus().settings().profile.name(), "paper");
    }

    #[test]
    fn sessions_as_values_are_validated_grouped_and_filtered_by_stage() {
        use tact_scoring::TaskOutcome;
        let session = |agent: &str, spec: Option<&str>, stage: Option<&str>| {
            let mut s = Session::new(agent, TaskOutcome::Build { success: true });
            s.spec_id = spec.map(str::to_owned);
            s.stage = stage.map(str::to_owned);
            s
        };
        let mut bad = session("", Some("S"), None);
        bad.agent = String::new();
        let mut job = Job::builder()
            .store(Store::open_in_memory().unwrap())
            .stage("plan")
            .build()
            .unwrap();
        let report = job
            .run_sessions(
                vec![
                    session("a", Some("S"), Some("plan")),
                    session("b", Some("S"), None),
                    session("c", Some("S"), Some("audit")),
                    session("d", None, None),
                    bad,
                ],
                |_| {},
            )
            .unwrap();
        assert_eq!(
            (report.read, report.stored(), report.other_stages),
            (5, 2, 1)
        );
        assert_eq!(report.files, None);
        let errors: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors[0].starts_with("sessions[3]: the session has no `spec_id`"),
            "{errors:?}"
        );
        assert!(matches!(
            report.errors[1].kind,
            SessionErrorKind::Invalid(_)
        ));
        assert_eq!(report.errors[1].index, Some(4));
        assert_eq!(report.groups.len(), 1);
        assert_eq!(report.groups[0].stage.as_deref(), Some("plan"));
        assert!(report.groups[0].ranking.is_ok());
        assert!(!report.is_clean());
        assert_eq!(job.store().unwrap().trajectory_count().unwrap(), 2);
    }
}
