//! What a run of the main job returns: the [`Report`] (per-session errors,
//! stored run ids, one [`Group`] per spec and stage with its ranking), and
//! what its progress callback receives ([`Progress`]).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tact_consensus::Decision;
use tact_scoring::{Preference, SessionScore};
use tact_types::EffortLevel;

/// Where a run of the job stands, handed to its progress callback: after a
/// file is opened, after each session is read (`total` grows: files are
/// read as a stream) and after each session is processed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Progress<'a> {
    /// Sessions processed so far (stored, skipped or left out).
    pub done: usize,
    /// Sessions read so far: it grows as each file is read.
    pub total: usize,
    /// The file being read; `None` for sessions handed in as values.
    pub file: Option<&'a Path>,
    /// The 1-based number of that file (0 for sessions handed in as values).
    pub file_number: usize,
    /// How many session files the run reads (0 for sessions handed in as values).
    pub files: usize,
}

/// Why one session (or one file or folder) was skipped.
#[derive(Debug)]
#[non_exhaustive]
pub enum SessionErrorKind {
    /// The file or folder could not be read.
    Read(std::io::Error),
    /// The path is not a regular file nor a folder (a FIFO, a socket, a
    /// device): it is not opened, so a FIFO cannot block the job. The
    /// text names what it is (`FIFO`, `socket`, ...).
    NotRegular(&'static str),
    /// The session does not parse or breaks a rule of the format; the
    /// message names file, line and column.
    Invalid(tact_scoring::Error),
    /// The session has no `spec_id`: the job groups sessions by spec.
    NoSpec,
    /// The session's stage has no weights.
    Stage(tact_consensus::Error),
    /// The store refused the session; nothing of it was written.
    NotStored(tact_trajectory_store::Error),
    /// The session is larger than [`Limits::max_session_bytes`](super::Limits):
    /// it was not read (a `.jsonl` line is skipped up to its end).
    TooLarge {
        /// The session's size in bytes (at least this much for a line).
        bytes: u64,
        /// The limit.
        limit: usize,
    },
}

/// A session (or a file or folder) the job skipped, with where it came
/// from. Its `Display` is the message `tact run` prints after `warning: `.
#[derive(Debug)]
#[non_exhaustive]
pub struct SessionError {
    /// The file (or folder) at fault; `None` for sessions handed in as values.
    pub file: Option<PathBuf>,
    /// The 1-based line the session starts on in `file` (1 for a `.json`
    /// file), when it is one session's error.
    pub line: Option<usize>,
    /// The 0-based position of the session among those handed in as values.
    pub index: Option<usize>,
    /// What went wrong.
    pub kind: SessionErrorKind,
}

impl SessionError {
    /// An error at a session of a file.
    pub(crate) fn in_file(file: &Path, line: Option<usize>, kind: SessionErrorKind) -> Self {
        SessionError {
            file: Some(file.to_owned()),
            line,
            index: None,
            kind,
        }
    }

    /// An error at a session handed in as a value.
    pub(crate) fn at_index(index: usize, kind: SessionErrorKind) -> Self {
        SessionError {
            file: None,
            line: None,
            index: Some(index),
            kind,
        }
    }

    /// Where the session is: `FILE:LINE`, `FILE`, or `sessions[INDEX]`.
    fn at(&self) -> String {
        at(self.file.as_deref(), self.line, self.index)
    }
}

/// Where a session is: `FILE:LINE`, `FILE`, or `sessions[INDEX]`.
fn at(file: Option<&Path>, line: Option<usize>, index: Option<usize>) -> String {
    match (file, line, index) {
        (Some(f), Some(l), _) => format!("{}:{l}", f.display()),
        (Some(f), None, _) => f.display().to_string(),
        (None, _, Some(i)) => format!("sessions[{i}]"),
        (None, _, None) => "a session".to_owned(),
    }
}

/// What the job's [`Limits`](super::Limits) cut of a session it stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TruncationKind {
    /// A response longer than the limit was analysed up to `kept` bytes.
    Message {
        /// The response's length in bytes.
        bytes: usize,
        /// The bytes analysed (the limit, down to a character boundary).
        kept: usize,
    },
    /// A response held more questions than the limit: the first `kept`
    /// were kept (stored and reported; the rewards count all `found`).
    Questions {
        /// The questions found in the (analysed part of the) response.
        found: usize,
        /// The questions kept.
        kept: usize,
    },
}

/// A cut the job's limits made in one turn of a stored session. Its
/// `Display` is the message `tact run` prints after `note: `.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Truncation {
    /// The file the session came from (`None` for sessions handed in as values).
    pub file: Option<PathBuf>,
    /// The 1-based line the session starts on in `file`.
    pub line: Option<usize>,
    /// The 0-based position of the session among those handed in as values.
    pub index: Option<usize>,
    /// The session's agent.
    pub agent: String,
    /// The 0-based turn that was cut.
    pub turn: usize,
    /// What was cut.
    pub kind: TruncationKind,
}

impl fmt::Display for Truncation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = at(self.file.as_deref(), self.line, self.index);
        let agent = tact_types::excerpt::excerpt(&self.agent);
        match self.kind {
            TruncationKind::Message { bytes, kept } => write!(
                f,
                "{at}: turn {} of agent {agent}: the response of {bytes} bytes was analysed up to its first {kept} bytes (limit)",
                self.turn
            ),
            TruncationKind::Questions { found, kept } => write!(
                f,
                "{at}: turn {} of agent {agent}: {found} questions, the first {kept} kept (limit)",
                self.turn
            ),
        }
    }
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            SessionErrorKind::Read(e) => match &self.file {
                Some(p) => write!(f, "cannot read {}: {e}", p.display()),
                None => write!(f, "cannot read {}: {e}", self.at()),
            },
            // The scoring crate's message already names file, line and column.
            SessionErrorKind::Invalid(e) if self.file.is_some() => write!(f, "{e}"),
            SessionErrorKind::Invalid(e) => write!(f, "{}: {e}", self.at()),
            SessionErrorKind::NotRegular(what) => {
                write!(f, "{}: not a regular file ({what})", self.at())
            }
            SessionErrorKind::NoSpec => write!(
                f,
                "{}: the session has no `spec_id` (tact run groups sessions by spec)",
                self.at()
            ),
            SessionErrorKind::Stage(e) => write!(f, "{}: {e}", self.at()),
            SessionErrorKind::NotStored(e) => write!(f, "{}: not stored: {e}", self.at()),
            SessionErrorKind::TooLarge { bytes, limit } => write!(
                f,
                "{}: the session is larger than the limit of {limit} bytes ({bytes} bytes or more); not read",
                self.at()
            ),
        }
    }
}

impl std::error::Error for SessionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            SessionErrorKind::Read(e) => Some(e),
            SessionErrorKind::Invalid(e) => Some(e),
            SessionErrorKind::Stage(e) => Some(e),
            SessionErrorKind::NotStored(e) => Some(e),
            SessionErrorKind::NoSpec
            | SessionErrorKind::NotRegular(_)
            | SessionErrorKind::TooLarge { .. } => None,
        }
    }
}

/// Questions per effort level.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct EffortCounts {
    /// Low-effort questions.
    pub low: u32,
    /// Medium-effort questions.
    pub medium: u32,
    /// High-effort questions.
    pub high: u32,
}

impl EffortCounts {
    /// The counts of a session's questions.
    pub fn of(score: &SessionScore) -> Self {
        let n = |l| {
            let count = score.questions.iter().filter(|q| q.effort == l).count();
            u32::try_from(count).unwrap_or(u32::MAX)
        };
        EffortCounts {
            low: n(EffortLevel::Low),
            medium: n(EffortLevel::Medium),
            high: n(EffortLevel::High),
        }
    }
}

impl fmt::Display for EffortCounts {
    /// `low/medium/high`, as `tact run` prints them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.low, self.medium, self.high)
    }
}

/// A session's rewards under the job's profile (what
/// `tact_scoring::SessionScore` holds besides the evidence behind them).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Rewards {
    /// R_Prod: the task outcome in [0, 1] (the technical score).
    pub r_prod: f64,
    /// R_Proact: the questions' reward.
    pub r_proact: f64,
    /// R_Pers: the preferences' reward.
    pub r_pers: f64,
    /// The interaction reward (R_Proact + R_Pers).
    pub interaction: f64,
    /// The total reward.
    pub total: f64,
}

impl Rewards {
    /// The rewards of a score.
    pub fn of(score: &SessionScore) -> Self {
        Rewards {
            r_prod: score.r_prod,
            r_proact: score.r_proact,
            r_pers: score.r_pers,
            interaction: score.interaction,
            total: score.total,
        }
    }
}

/// One stored session of a group: its score and what the ranking shows
/// beside it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Member {
    /// The agent.
    pub agent: Box<str>,
    /// The run id it was stored under (its own, or a digest of its content).
    pub run_id: Box<str>,
    /// The file it came from (`None` for sessions handed in as values),
    /// shared by the members of one file.
    pub file: Option<Arc<Path>>,
    /// The 1-based line it starts on in `file`.
    pub line: Option<usize>,
    /// Its rewards. The questions, violations and adjustments behind them
    /// are in the store, under `run_id` (their counts are in `questions`
    /// and `violations`): the job keeps no more of a session, so that its
    /// memory stays flat in the number of sessions.
    pub rewards: Rewards,
    /// Its questions per effort level.
    pub questions: EffortCounts,
    /// Its violated preferences with their counts, in order of first violation.
    pub violations: Box<[(Preference, usize)]>,
    /// The guidance classifiers that fired on its replay, in order of first fire.
    pub guidance: Box<[String]>,
}

/// The stored sessions of one spec and stage, and their ranking.
#[derive(Debug)]
#[non_exhaustive]
pub struct Group {
    /// The spec.
    pub spec: String,
    /// The stage (`None`: sessions with no stage, ranked with the default weights).
    pub stage: Option<String>,
    /// The sessions, in the order they were read.
    pub members: Vec<Member>,
    /// The weighted (or legacy) consensus, or why the group could not be
    /// ranked. A weighted decision's `sessions` is empty: each member's
    /// `rewards` are its session's (the whole scores are in the store).
    pub ranking: Result<Decision, tact_consensus::Error>,
}

impl Group {
    /// The first member of this agent.
    pub fn member(&self, agent: &str) -> Option<&Member> {
        self.members.iter().find(|m| &*m.agent == agent)
    }
}

/// What a run of the job did. Its `Display` is what `tact run` prints on
/// stdout: each group's ranking, then a summary line.
#[derive(Debug)]
#[non_exhaustive]
pub struct Report {
    /// The database the sessions went to (`:memory:` for an in-memory store).
    pub db: PathBuf,
    /// The stage filter of the job.
    pub stage: Option<String>,
    /// Session files found; `None` for sessions handed in as values.
    pub files: Option<usize>,
    /// Sessions read, good or bad.
    pub read: usize,
    /// Sessions stored (their run ids are the members' `run_id`, see
    /// [`Report::run_ids`]).
    pub stored: usize,
    /// Sessions of other stages than the filter, left out.
    pub other_stages: usize,
    /// Sessions, files and folders skipped, in the order met; never printed.
    pub errors: Vec<SessionError>,
    /// What the job's limits cut of the sessions it stored, in the order
    /// met (the sessions are stored; `tact run` prints each as a note).
    pub truncations: Vec<Truncation>,
    /// What the job assumed of imported agent logs, in the order met (an
    /// outcome no one gave, scored as R_Prod 0); `tact run` prints each
    /// as a note.
    pub notes: Vec<String>,
    /// One group per (spec, stage), sorted by spec then stage.
    pub groups: Vec<Group>,
}

impl Report {
    /// Sessions stored.
    pub fn stored(&self) -> usize {
        self.stored
    }

    /// The run ids stored, group by group (each group's in the order its
    /// sessions were read).
    pub fn run_ids(&self) -> impl Iterator<Item = &str> {
        self.groups
            .iter()
            .flat_map(|g| g.members.iter().map(|m| &*m.run_id))
    }

    /// Sessions (or files, or folders) skipped.
    pub fn skipped(&self) -> usize {
        self.errors.len()
    }

    /// Groups that could not be ranked.
    pub fn unranked(&self) -> usize {
        self.groups.iter().filter(|g| g.ranking.is_err()).count()
    }

    /// Whether nothing was skipped and every group was ranked (`tact run`
    /// exits with 1 otherwise).
    pub fn is_clean(&self) -> bool {
        self.skipped() == 0 && self.unranked() == 0
    }
}
