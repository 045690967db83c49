//! Agents' own session logs read directly: Claude Code transcripts, Codex
//! CLI rollouts, OpenHands event streams (V0 and the V1 SDK's events),
//! SWE-agent and mini-swe-agent trajectories, Aider chat histories, Cline
//! task files, Gemini CLI saved chats and SpecStory Markdown histories,
//! each mapped onto tact's session model (turns of user
//! prompt, tool events and agent response), so the main job scores,
//! stores and ranks them and guidance replays them with no converter.
//!
//! ```
//! use tact::import::{Format, ImportDefaults, import_text};
//!
//! let log = r#"{"type":"user","sessionId":"s1","message":{"role":"user","content":"Add a cache."}}
//! {"type":"assistant","sessionId":"s1","message":{"id":"m1","model":"claude-x","role":"assistant","content":[{"type":"text","text":"Should it be Redis or in-process?"}]}}"#;
//! assert_eq!(Format::detect("t.jsonl".as_ref(), log), Some(Format::ClaudeCode));
//! let imported = import_text(Format::ClaudeCode, log, "t.jsonl")?;
//! assert_eq!(imported.meta.model.as_deref(), Some("claude-x"));
//! let session = imported.session("t.jsonl".as_ref(), &ImportDefaults::default());
//! assert_eq!(session.turns[0].response, "Should it be Redis or in-process?");
//! assert_eq!(session.agent, "claude-x");
//! # Ok::<(), tact::import::ImportError>(())
//! ```
//!
//! What a format does not record stays empty: no outcome, stage or
//! preferences are guessed. [`ImportDefaults`] (a sidecar file, the
//! `[import]` table of a configuration, or `tact run`'s flags) supplies
//! them; without an outcome a session is scored with R_Prod 0 and the
//! job's report says so. `docs/import.md` documents each format's mapping.

mod aider;
mod assemble;
mod claude;
mod cline;
mod codex;
mod follow;
mod gemini_cli;
mod many;
mod mini_swe_agent;
mod openhands;
mod openhands_v1;
mod read;
mod specstory;
mod swe_agent;

use std::path::Path;

use serde::Deserialize;
use tact_scoring::{Session, TaskOutcome, Turn, UserPreferences};
use tact_types::trajectory::{Event, Mode};

pub use assemble::MAX_OUTPUT_BYTES;
pub use follow::Follower;
pub use many::{SessionLine, SessionLines, holds_sessions};

use tact_core::input::{Line, next_line};
/// The guidance mode of a session read from an agent's log: interactive,
/// since the log records where the user spoke, so a classifier's window
/// (calls since progress, error streaks, cycles, call counts) restarts at
/// each `user` event. `tact run`, `tact guide` and `tact watch` all replay
/// a log in this mode.
pub const LOG_MODE: Mode = Mode::Interactive;

use assemble::Assembler;
pub(crate) use assemble::{TurnHook, TurnPart};

/// A log format tact reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Format {
    /// Claude Code's per-project JSONL transcripts.
    ClaudeCode,
    /// Codex CLI's rollout JSONL files.
    Codex,
    /// OpenHands' event stream (a JSON array of events), or its resolver
    /// and evaluation output (`output.jsonl`: one task a line, each a
    /// session).
    OpenHands,
    /// SWE-agent's `.traj` files.
    SweAgent,
    /// Aider's `.aider.chat.history.md`.
    Aider,
    /// OpenHands V1 (the software-agent SDK): its events, one a line.
    OpenHandsV1,
    /// mini-swe-agent's `.traj.json` trajectories.
    MiniSweAgent,
    /// Cline's task files (`api_conversation_history.json`, `ui_messages.json`).
    Cline,
    /// Gemini CLI's saved chats (checkpoints and recorded sessions).
    GeminiCli,
    /// SpecStory's Markdown histories (`.specstory/history/*.md`).
    SpecStory,
}

impl Format {
    /// Every format, in the order of [`Format::name`]'s documentation.
    pub const ALL: [Format; 10] = [
        Format::ClaudeCode,
        Format::Codex,
        Format::OpenHands,
        Format::SweAgent,
        Format::Aider,
        Format::OpenHandsV1,
        Format::MiniSweAgent,
        Format::Cline,
        Format::GeminiCli,
        Format::SpecStory,
    ];

    /// The format's name as `--format` takes it: `claude-code`, `codex`,
    /// `openhands`, `swe-agent`, `aider`, `openhands-v1`, `mini-swe-agent`,
    /// `cline`, `gemini-cli`, `specstory`.
    pub fn name(self) -> &'static str {
        match self {
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::OpenHands => "openhands",
            Format::SweAgent => "swe-agent",
            Format::Aider => "aider",
            Format::OpenHandsV1 => "openhands-v1",
            Format::MiniSweAgent => "mini-swe-agent",
            Format::Cline => "cline",
            Format::GeminiCli => "gemini-cli",
            Format::SpecStory => "specstory",
        }
    }

    /// Whether the format is read line by line (JSON Lines, Markdown) or
    /// as one JSON document.
    pub fn is_line_based(self) -> bool {
        matches!(
            self,
            Format::ClaudeCode
                | Format::Codex
                | Format::Aider
                | Format::OpenHandsV1
                | Format::SpecStory
        )
    }

    /// Whether a file of this extension may hold this format when the
    /// format is forced (`--format`).
    pub fn takes_extension(self, ext: &str) -> bool {
        match self {
            Format::ClaudeCode | Format::Codex => ext == "jsonl" || ext == "json",
            Format::OpenHands => ext == "json" || ext == "jsonl",
            Format::SweAgent => ext == "traj" || ext == "json",
            Format::Aider | Format::SpecStory => ext == "md",
            Format::OpenHandsV1 | Format::GeminiCli => ext == "jsonl" || ext == "json",
            Format::MiniSweAgent | Format::Cline => ext == "json",
        }
    }

    /// The format of a log by its content (the first record or lines; a
    /// `.traj` file is SWE-agent's), or `None` for anything else (tact's
    /// own sessions included). `head` is the file's start (a few KB are
    /// enough). Blank lines and comment lines (`//`, `#`) before a JSON
    /// log's first record are skipped.
    pub fn detect(path: &Path, head: &str) -> Option<Format> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        let head = head.strip_prefix('\u{feff}').unwrap_or(head);
        match ext.as_str() {
            "traj" => Some(Format::SweAgent),
            "md" => {
                if aider::looks_like(head) {
                    Some(Format::Aider)
                } else {
                    specstory::looks_like(head).then_some(Format::SpecStory)
                }
            }
            "jsonl" | "json" => {
                let t = skip_comments(head);
                if t.starts_with('[') {
                    return if openhands::looks_like(t) {
                        Some(Format::OpenHands)
                    } else if openhands_v1::array_looks_like(t) {
                        Some(Format::OpenHandsV1)
                    } else if cline::looks_like(path, t) {
                        Some(Format::Cline)
                    } else if gemini_cli::array_looks_like(t) {
                        Some(Format::GeminiCli)
                    } else {
                        None
                    };
                }
                let first = t.lines().next().unwrap_or("");
                // OpenHands' output.jsonl: its first line may be longer
                // than the head, so its keys are looked at, not parsed.
                if openhands::task_looks_like(first) {
                    return Some(Format::OpenHands);
                }
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(first) {
                    if codex::looks_like(&v) {
                        return Some(Format::Codex);
                    }
                    if claude::looks_like(&v) {
                        return Some(Format::ClaudeCode);
                    }
                    if openhands_v1::looks_like(&v) {
                        return Some(Format::OpenHandsV1);
                    }
                    if gemini_cli::looks_like_record(&v) {
                        return Some(Format::GeminiCli);
                    }
                }
                // A SWE-agent trajectory saved as .json: an object with a
                // `trajectory` list and a `history` or `info` key (keys,
                // not escaped text inside a string).
                if t.starts_with('{')
                    && has_key(t, "trajectory")
                    && (has_key(t, "history") || has_key(t, "info"))
                {
                    return Some(Format::SweAgent);
                }
                if mini_swe_agent::looks_like(t) {
                    return Some(Format::MiniSweAgent);
                }
                // A pretty-printed Gemini CLI session.
                if t.starts_with('{') && has_key(t, "sessionId") && has_key(t, "projectHash") {
                    return Some(Format::GeminiCli);
                }
                None
            }
            _ => None,
        }
    }
}

/// `head` from its first record on: blank lines and comment lines (`//`,
/// `#`) before it skipped.
pub(crate) fn skip_comments(head: &str) -> &str {
    let mut rest = head;
    loop {
        let t = rest.trim_start();
        if t.starts_with("//") || t.starts_with('#') {
            match t.find('\n') {
                Some(at) => rest = &t[at + 1..],
                None => return "",
            }
        } else {
            return t;
        }
    }
}

/// The one error for a file that is no known agent log (nor tact's own
/// format): it names the formats tried.
pub fn not_a_known_log(source: &str) -> ImportError {
    let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
    ImportError::new(
        source,
        1,
        format!("not a known agent log; tried: {}", names.join(", ")),
    )
}

/// Whether `head`'s first record (blank and comment lines skipped) is a
/// JSON document that has one of `keys` as a key: what a caller checks
/// before reading a file no log format claims as its own format.
pub fn first_record_has_key(head: &str, keys: &[&str]) -> bool {
    let t = skip_comments(head.strip_prefix('\u{feff}').unwrap_or(head));
    if !(t.starts_with('{') || t.starts_with('[')) {
        return false;
    }
    // A JSON Lines record is its first line; a document may span lines.
    let first = t.lines().next().unwrap_or("");
    let scope = if serde_json::from_str::<serde_json::Value>(first).is_ok() {
        first
    } else {
        t
    };
    keys.iter().any(|k| has_key(scope, k))
}

/// Whether `"key":` appears in `text` as a key (its quote not escaped).
fn has_key(text: &str, key: &str) -> bool {
    let needle = format!("\"{key}\"");
    let bytes = text.as_bytes();
    text.match_indices(&needle).any(|(at, _)| {
        let escaped = at > 0 && bytes[at - 1] == b'\\';
        let rest = text[at + needle.len()..].trim_start();
        !escaped && rest.starts_with(':')
    })
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
                format!("unknown log format `{s}` (one of: {})", names.join(", "))
            })
    }
}

/// A log that could not be read: the file (or source name), the 1-based
/// line (0 when the problem is the whole document) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{source_name}:{line}: {message}")]
pub struct ImportError {
    /// The file or source name.
    pub source_name: String,
    /// The 1-based line of the problem.
    pub line: usize,
    /// What is wrong (an excerpt of the input at most).
    pub message: String,
}

impl ImportError {
    pub(crate) fn new(source: &str, line: usize, message: impl Into<String>) -> Self {
        let message = message.into();
        ImportError {
            source_name: source.to_owned(),
            line: line.max(1),
            message: tact_types::excerpt::excerpt(&message).into_owned(),
        }
    }
}

/// What a log says about its session besides the exchanges: ids, the
/// agent and model, times. A field the format does not carry is `None`.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct LogMeta {
    /// The format read.
    #[serde(serialize_with = "ser_format")]
    pub format: Option<Format>,
    /// The session's id as the agent wrote it.
    pub session_id: Option<String>,
    /// The model that answered (the last one named).
    pub model: Option<String>,
    /// The agent program and version (`codex-tui 0.125.0`, `aider v0.86.2`).
    pub agent: Option<String>,
    /// The working folder.
    pub cwd: Option<String>,
    /// The task or instance id (SWE-agent: the trajectory's file name).
    pub task: Option<String>,
    /// A title or summary the agent recorded.
    pub title: Option<String>,
    /// The first and last timestamps, as written.
    pub started: Option<String>,
    /// See `started`.
    pub ended: Option<String>,
    /// How the run ended, as recorded (SWE-agent's `exit_status`, OpenHands'
    /// final agent state).
    pub exit_status: Option<String>,
    /// Records read but not mapped (progress, token counts, sub-agent
    /// sidechains, unknown types).
    pub skipped: usize,
    /// How the task went, where the log records it (an OpenHands task's
    /// `success`); a user's outcome comes first.
    #[serde(skip)]
    pub outcome: Option<TaskOutcome>,
}

fn ser_format<S: serde::Serializer>(f: &Option<Format>, s: S) -> Result<S::Ok, S::Error> {
    match f {
        Some(f) => s.serialize_str(f.name()),
        None => s.serialize_none(),
    }
}

impl LogMeta {
    pub(crate) fn time(&mut self, t: Option<&str>) {
        if let Some(t) = t.filter(|t| !t.is_empty()) {
            if self.started.is_none() {
                self.started = Some(t.to_owned());
            }
            self.ended = Some(t.to_owned());
        }
    }

    pub(crate) fn set_once(slot: &mut Option<String>, v: Option<&str>) {
        if slot.is_none() {
            if let Some(v) = v.filter(|v| !v.is_empty()) {
                *slot = Some(v.to_owned());
            }
        }
    }
}

/// A log read: what it says about the session and its turns.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct ImportedLog {
    /// Ids, agent, model, times.
    pub meta: LogMeta,
    /// The exchanges, in order (none when each was handed to a turn hook
    /// as it ended: [`import_reader_replayed`]).
    pub turns: Vec<Turn>,
    /// How many exchanges the log holds (`turns.len()` when they are kept).
    pub exchanges: usize,
    /// Records skipped, each naming its line: larger than the limit
    /// ([`MAX_RECORD_BYTES`], or the one given to [`import_reader`]).
    pub problems: Vec<ImportError>,
    /// In a file that holds many sessions ([`SessionLines`]), the line
    /// this one was read from (its run id is the file name and this line).
    pub line: Option<usize>,
}

/// The largest record an import reads, in bytes: a line of a line-based
/// log, an element of a one-document log (an OpenHands event, a SWE-agent
/// step, a message of mini-swe-agent, Cline or Gemini CLI). A larger record is skipped and reported
/// ([`ImportedLog::problems`], naming its line); the rest of the log is
/// read. An import holds one record at a time (twice, parsed), the
/// turns, and of each tool output its head ([`MAX_OUTPUT_BYTES`]).
pub const MAX_RECORD_BYTES: usize = 64 << 20;

/// What a user gives for the fields a log does not carry: from a sidecar
/// file (`LOG.tact.toml`), the `[import]` table of a configuration, or
/// `tact run`'s flags. Every field is optional.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ImportDefaults {
    /// The spec (else the task id, the session id, or the file's stem:
    /// logs of different tasks are never compared).
    pub spec: Option<String>,
    /// The stage (else none).
    pub stage: Option<String>,
    /// The agent's name (else the model, else the format's name).
    pub agent: Option<String>,
    /// The run id (else the file name).
    pub run: Option<String>,
    /// How the task went (else R_Prod 0, reported).
    pub outcome: Option<TaskOutcome>,
    /// The user's preferences.
    pub preferences: Option<UserPreferences>,
}

impl ImportDefaults {
    /// `self`, with each field `other` sets replacing it.
    #[must_use]
    pub fn overridden_by(mut self, other: &ImportDefaults) -> Self {
        macro_rules! take {
            ($($f:ident),*) => {$( if other.$f.is_some() { self.$f = other.$f.clone(); } )*};
        }
        take!(spec, stage, agent, run, outcome, preferences);
        self
    }

    /// Parses a sidecar document; `source` names it in errors.
    pub fn from_toml(text: &str, source: &str) -> Result<Self, ImportError> {
        toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1)
                .unwrap_or(1);
            ImportError::new(source, line, e.message().to_owned())
        })
    }

    /// The sidecar of `log` (`LOG.tact.toml` beside it), if there is one.
    pub fn sidecar_of(log: &Path) -> Result<Option<Self>, ImportError> {
        let mut name = log.file_name().unwrap_or_default().to_os_string();
        name.push(".tact.toml");
        let path = log.with_file_name(name);
        match std::fs::read_to_string(&path) {
            Ok(text) => Self::from_toml(&text, &path.display().to_string()).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(ImportError::new(
                &path.display().to_string(),
                1,
                e.to_string(),
            )),
        }
    }
}

impl ImportedLog {
    /// The session tact scores: `defaults` first, then what the log
    /// carries (the task id, session id or file stem as the spec,
    /// the model or format as the agent, the file name as the run id).
    /// Without an outcome anywhere, R_Prod is 0 ([`ImportedLog::has_outcome`]).
    pub fn session(&self, file: &Path, defaults: &ImportDefaults) -> Session {
        let format = self.meta.format.map_or("log", Format::name);
        let agent = defaults
            .agent
            .clone()
            .or_else(|| self.meta.model.clone())
            .unwrap_or_else(|| format.to_owned());
        let outcome = defaults
            .outcome
            .or(self.meta.outcome)
            .unwrap_or(TaskOutcome::Score { value: 0.0 });
        let mut s = Session::new(agent, outcome);
        // Sessions of different tasks are never compared: without a task id
        // each log is its own spec (its session id, else its file name).
        s.spec_id = defaults
            .spec
            .clone()
            .or_else(|| self.meta.task.clone())
            .or_else(|| self.meta.session_id.clone())
            .or_else(|| file.file_stem().map(|n| n.to_string_lossy().into_owned()))
            .or_else(|| Some(format.to_owned()));
        s.stage = defaults.stage.clone();
        s.mode = LOG_MODE;
        s.run_id = defaults.run.clone().or_else(|| {
            let name = file.file_name()?.to_string_lossy().into_owned();
            Some(match self.line {
                Some(line) => format!("{name}:{line}"),
                None => name,
            })
        });
        if let Some(p) = &defaults.preferences {
            s.preferences = p.clone();
        }
        s.context = self.meta.title.clone();
        s.turns = self.turns.clone();
        s
    }

    /// As [`ImportedLog::session`], the turns moved, not copied.
    pub fn into_session(mut self, file: &Path, defaults: &ImportDefaults) -> Session {
        let turns = std::mem::take(&mut self.turns);
        let mut s = self.session(file, defaults);
        s.turns = turns;
        s
    }

    /// Whether `defaults` give an outcome (else R_Prod is 0).
    pub fn has_outcome(defaults: &ImportDefaults) -> bool {
        defaults.outcome.is_some()
    }

    /// Whether `defaults` or the log give an outcome (else R_Prod is 0).
    pub fn gives_outcome(&self, defaults: &ImportDefaults) -> bool {
        defaults.outcome.is_some() || self.meta.outcome.is_some()
    }

    /// The events a host saw, in order: each turn's prompt, events and
    /// response, as the main job replays them.
    pub fn events(&self) -> Vec<Event> {
        self.clone().into_events()
    }

    /// As [`ImportedLog::events`], the turns moved, not copied.
    pub fn into_events(self) -> Vec<Event> {
        let mut out = Vec::new();
        for mut t in self.turns {
            turn_events(&mut t, &mut |e| out.push(e));
        }
        out
    }
}

/// Reads a whole log of `format`; `source` names it in errors (with the
/// line). Records a format does not map are skipped and counted
/// ([`LogMeta::skipped`]); a log with none it maps is an error.
pub fn import_text(format: Format, text: &str, source: &str) -> Result<ImportedLog, ImportError> {
    import_reader(format, text.as_bytes(), source, MAX_RECORD_BYTES)
}

/// Reads a log of `format` from `reader` as a stream, one record in
/// memory at a time (a line, or an element of a one-document log, at most
/// `max_record_bytes`: a larger one is skipped and reported in
/// [`ImportedLog::problems`]); `source` names it in errors (with the
/// line). A line that is not UTF-8 is an error naming it.
///
/// ```
/// use tact::import::{Format, MAX_RECORD_BYTES, import_reader};
///
/// let log = "{\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"go\"}]}}\n";
/// let file = std::io::BufReader::new(log.as_bytes());
/// let imported = import_reader(Format::Codex, file, "r.jsonl", MAX_RECORD_BYTES)?;
/// assert_eq!(imported.turns[0].prompt, "go");
/// # Ok::<(), tact::import::ImportError>(())
/// ```
pub fn import_reader(
    format: Format,
    reader: impl std::io::BufRead,
    source: &str,
    max_record_bytes: usize,
) -> Result<ImportedLog, ImportError> {
    import_reader_with(format, reader, source, max_record_bytes, None, None)
}

/// A turn's events as a host saw them, taken out of it: the prompt (a
/// `user` event, when not empty), the turn's events, then the response
/// (an `assistant` event, when not empty).
fn turn_events(t: &mut Turn, each: &mut dyn FnMut(Event)) {
    let prompt = std::mem::take(&mut t.prompt);
    if !prompt.is_empty() {
        each(Event::user(prompt));
    }
    for e in std::mem::take(&mut t.events) {
        each(e);
    }
    let response = std::mem::take(&mut t.response);
    if !response.is_empty() {
        each(Event::assistant(response));
    }
}

/// As [`import_reader`], each turn's events handed to `on_event` as the
/// turn ends, in the order [`ImportedLog::into_events`] gives them, and
/// not kept: the log returned has its meta, problems and the count of its
/// turns ([`ImportedLog::exchanges`]), no turn. What `tact guide FILE` replays a log
/// with, one turn in memory at a time.
pub fn import_reader_replayed(
    format: Format,
    reader: impl std::io::BufRead,
    source: &str,
    max_record_bytes: usize,
    on_event: impl FnMut(Event) + 'static,
) -> Result<ImportedLog, ImportError> {
    import_replayed(format, reader, source, max_record_bytes, None, on_event)
}

/// As [`import_reader_replayed`] on the file at `path` (a regular file,
/// opened by the caller as `reader`): a SWE-agent trajectory's task is
/// read ahead of its steps (a first pass that parses only its `history`),
/// so its one turn is replayed as its steps are read rather than held to
/// its end.
pub fn import_file_replayed(
    format: Format,
    path: &Path,
    reader: impl std::io::BufRead,
    source: &str,
    max_record_bytes: usize,
    on_event: impl FnMut(Event) + 'static,
) -> Result<ImportedLog, ImportError> {
    let task = task_ahead(format, path, max_record_bytes);
    import_replayed(format, reader, source, max_record_bytes, task, on_event)
}

/// The task of the log at `path`, read ahead of it where the format gives
/// it after the turn it opens (SWE-agent's `history`, after its steps);
/// `None` for the other formats, or a file that cannot be read (its
/// import then says why).
pub(crate) fn task_ahead(format: Format, path: &Path, max_record_bytes: usize) -> Option<String> {
    if format != Format::SweAgent || !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    swe_agent::task(
        &mut std::io::BufReader::with_capacity(1 << 16, file),
        max_record_bytes,
    )
}

fn import_replayed(
    format: Format,
    reader: impl std::io::BufRead,
    source: &str,
    max_record_bytes: usize,
    task: Option<String>,
    mut on_event: impl FnMut(Event) + 'static,
) -> Result<ImportedLog, ImportError> {
    // The prompt once per turn, before its first part.
    let mut prompted = false;
    let hook = TurnHook(Box::new(move |t, part, _| {
        if !prompted && !t.prompt.is_empty() {
            on_event(Event::user(t.prompt.clone()));
        }
        prompted = true;
        for e in std::mem::take(&mut t.events) {
            on_event(e);
        }
        if part == TurnPart::End {
            prompted = false;
            let response = std::mem::take(&mut t.response);
            if !response.is_empty() {
                on_event(Event::assistant(response));
            }
        }
    }));
    import_reader_with(format, reader, source, max_record_bytes, Some(hook), task)
}

/// As [`import_reader`], `on_turn` called on each turn as it ends, in
/// place of keeping it (the log returned counts its turns, holds none).
pub(crate) fn import_reader_with(
    format: Format,
    mut reader: impl std::io::BufRead,
    source: &str,
    max_record_bytes: usize,
    on_turn: Option<TurnHook>,
    task_ahead: Option<String>,
) -> Result<ImportedLog, ImportError> {
    // A byte-order mark is not the log's.
    if reader
        .fill_buf()
        .is_ok_and(|b| b.starts_with("\u{feff}".as_bytes()))
    {
        reader.consume(3);
    }
    let mut sink = Sink::new(format, source);
    sink.asm.on_turn = on_turn;
    sink.task_ahead = task_ahead;
    // Logs of one task, one turn: its calls handed over as they complete.
    sink.asm.stream_calls = matches!(
        format,
        Format::SweAgent | Format::MiniSweAgent | Format::Cline
    );
    match format {
        Format::OpenHands => openhands::read(&mut reader, &mut sink, max_record_bytes)?,
        Format::SweAgent => swe_agent::read(&mut reader, &mut sink, max_record_bytes)?,
        Format::MiniSweAgent => mini_swe_agent::read(&mut reader, &mut sink, max_record_bytes)?,
        Format::Cline => cline::read(&mut reader, &mut sink, max_record_bytes)?,
        Format::GeminiCli => gemini_cli::read(&mut reader, &mut sink, max_record_bytes)?,
        Format::OpenHandsV1 if read::starts_array(&mut reader) => {
            openhands_v1::read_array(&mut reader, &mut sink, max_record_bytes)?;
        }
        _ => {
            let mut parser = LineParser::new(format);
            let mut buf = Vec::new();
            let mut number = 0usize;
            loop {
                number += 1;
                buf.clear();
                let read = next_line(&mut reader, &mut buf, max_record_bytes)
                    .map_err(|e| ImportError::new(source, number, format!("cannot read: {e}")))?;
                match read {
                    Line::End => break,
                    Line::TooLong(bytes) => sink.too_large(number, bytes, max_record_bytes),
                    Line::Read => {
                        let line = std::str::from_utf8(&buf)
                            .map_err(|_| ImportError::new(source, number, "invalid UTF-8"))?;
                        parser
                            .line(line, &mut sink)
                            .map_err(|m| ImportError::new(source, number, m))?;
                    }
                }
            }
            parser.end(&mut sink);
        }
    }
    if sink.records == 0 {
        return Err(ImportError::new(
            source,
            1,
            format!("no {} record found", format.name()),
        ));
    }
    let meta = sink.meta;
    let (turns, _, exchanges) = sink.asm.finish();
    Ok(ImportedLog {
        meta,
        turns,
        exchanges,
        problems: sink.problems,
        line: None,
    })
}

/// What a parser writes to: the assembler, the meta data, a count of the
/// records it mapped.
#[derive(Debug)]
pub(crate) struct Sink {
    pub(crate) asm: Assembler,
    pub(crate) meta: LogMeta,
    pub(crate) records: usize,
    /// The file's stem (SWE-agent's instance id).
    pub(crate) stem: Option<String>,
    /// The source name, for errors.
    pub(crate) source: String,
    /// Records skipped (over the limit), each naming its line.
    pub(crate) problems: Vec<ImportError>,
    /// The task, read ahead of the log (SWE-agent's `history`).
    pub(crate) task_ahead: Option<String>,
}

impl Sink {
    /// The log's title, if none was read before; a turn hook sees it from
    /// then on.
    pub(crate) fn title(&mut self, title: Option<&str>) {
        LogMeta::set_once(&mut self.meta.title, title);
        if self.asm.title.is_none() {
            self.asm.title.clone_from(&self.meta.title);
        }
    }

    pub(crate) fn new(format: Format, source: &str) -> Self {
        Sink {
            task_ahead: None,
            asm: Assembler::default(),
            meta: LogMeta {
                format: Some(format),
                ..LogMeta::default()
            },
            records: 0,
            problems: Vec::new(),
            source: source.to_owned(),
            stem: Path::new(source)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned()),
        }
    }
}

impl Sink {
    /// A record over the limit, skipped: said with its line.
    pub(crate) fn too_large(&mut self, line: usize, bytes: u64, limit: usize) {
        self.meta.skipped += 1;
        self.problems.push(ImportError::new(
            &self.source,
            line,
            format!("a record of {bytes} bytes is over the limit of {limit} bytes; skipped"),
        ));
    }
}

/// The state of a line-based format's reader.
#[derive(Debug)]
pub(crate) enum LineParser {
    Claude(claude::State),
    Codex(codex::State),
    Aider(aider::State),
    OpenHandsV1,
    SpecStory(specstory::State),
}

impl LineParser {
    pub(crate) fn new(format: Format) -> Self {
        match format {
            Format::Codex => LineParser::Codex(codex::State::default()),
            Format::Aider => LineParser::Aider(aider::State::default()),
            Format::OpenHandsV1 => LineParser::OpenHandsV1,
            Format::SpecStory => LineParser::SpecStory(specstory::State::default()),
            _ => LineParser::Claude(claude::State::default()),
        }
    }

    /// One line (without its end of line); an error is the line's message.
    pub(crate) fn line(&mut self, line: &str, sink: &mut Sink) -> Result<(), String> {
        match self {
            LineParser::Aider(s) => {
                s.line(line, sink);
                Ok(())
            }
            LineParser::SpecStory(s) => {
                s.line(line, sink);
                Ok(())
            }
            _ => {
                let t = line.trim();
                // Blank lines and comment lines, as detection skips them.
                if t.is_empty() || t.starts_with("//") || t.starts_with('#') {
                    return Ok(());
                }
                let v: serde_json::Value =
                    serde_json::from_str(t).map_err(|e| format!("not a JSON record: {e}"))?;
                if !v.is_object() {
                    return Err("not a JSON object".to_owned());
                }
                match self {
                    LineParser::Claude(s) => s.record(&v, sink),
                    LineParser::Codex(s) => s.record(&v, sink),
                    LineParser::OpenHandsV1 => openhands_v1::event(&v, sink),
                    LineParser::Aider(_) | LineParser::SpecStory(_) => {}
                }
                Ok(())
            }
        }
    }

    /// The agent's message the log holds so far without saying yet whether
    /// it is intermediate or the turn's response: the assembler's draft, or,
    /// for a Markdown log, the message its reader would end with now (read
    /// on copies, the part being read only: nothing is ended).
    pub(crate) fn draft(&self, format: Format, sink: &Sink) -> Option<String> {
        let mut scratch = Sink::new(format, "");
        scratch.asm = sink.asm.scratch();
        match self {
            LineParser::Aider(s) => s.clone().end(&mut scratch),
            LineParser::SpecStory(s) => s.clone().end(&mut scratch),
            _ => {}
        }
        scratch.asm.draft().map(str::to_owned)
    }

    /// The end of the log.
    pub(crate) fn end(&mut self, sink: &mut Sink) {
        match self {
            LineParser::Aider(s) => s.end(sink),
            LineParser::SpecStory(s) => s.end(sink),
            _ => {}
        }
    }
}

/// Whether `path` is one event file of an OpenHands V1 conversation
/// folder (`events/event-NNNNN-<id>.json`): a folder walk reads the first
/// of a folder as the whole conversation ([`conversation_events`]).
pub fn is_event_file(path: &Path) -> bool {
    openhands_v1::is_event_file(path)
}

/// The event files of the OpenHands V1 conversation folder of `path`,
/// in order, joined one a line (the conversation as one log; a line of an
/// error is the number of the event); more than `limit` bytes is an error.
pub fn conversation_events(path: &Path, limit: usize) -> std::io::Result<Vec<u8>> {
    openhands_v1::conversation_events(path, limit)
}

/// A JSON value's string at `key`, if it is one.
pub(crate) fn str_at<'a>(v: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(serde_json::Value::as_str)
}

/// Text of a content value: a string (borrowed), or the `text` of each
/// block of a list (joined by blank lines).
pub(crate) fn text_of(v: &serde_json::Value) -> std::borrow::Cow<'_, str> {
    std::borrow::Cow::Owned(match v {
        serde_json::Value::String(s) => return std::borrow::Cow::Borrowed(s),
        serde_json::Value::Array(items) => {
            let parts: Vec<&str> = items
                .iter()
                .filter_map(|i| match i {
                    serde_json::Value::String(s) => Some(s.as_str()),
                    other => str_at(other, "text"),
                })
                .collect();
            parts.join("\n\n")
        }
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    })
}

/// The names of a turn's tool calls, in order (for the importers' tests).
#[cfg(test)]
pub(crate) fn tool_names(turn: &Turn) -> Vec<&str> {
    turn.events
        .iter()
        .filter_map(|e| match e {
            Event::Tool(c) => Some(c.name.as_str()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_listed() {
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>(), Ok(f));
        }
        let e = "cursor".parse::<Format>().unwrap_err();
        assert!(
            e.contains("claude-code, codex, openhands, swe-agent, aider, openhands-v1, mini-swe-agent, cline, gemini-cli, specstory"),
            "{e}"
        );
    }

    #[test]
    fn native_sessions_are_not_detected_as_logs() {
        let native = r#"{"agent":"a","spec_id":"S","outcome":{"kind":"build","success":true}}"#;
        assert_eq!(Format::detect("s.json".as_ref(), native), None);
        assert_eq!(Format::detect("s.jsonl".as_ref(), native), None);
        assert_eq!(Format::detect("README.md".as_ref(), "# Sessions\n"), None);
    }

    #[test]
    fn detection_skips_blank_and_comment_lines_before_the_first_record() {
        let claude = r#"{"type":"user","sessionId":"s1","message":{"role":"user","content":"hi"}}"#;
        for head in [
            format!("\n\n{claude}\n"),
            format!("// exported by a tool\n\n{claude}\n"),
            format!("# a comment\r\n   \r\n{claude}\n"),
            format!("{}// bom, then a comment\n{claude}\n", '\u{feff}'),
        ] {
            assert_eq!(
                Format::detect("t.jsonl".as_ref(), &head),
                Some(Format::ClaudeCode),
                "{head:?}"
            );
            // The file then imports: the comment lines are skipped there too.
            let log = import_text(Format::ClaudeCode, &head, "t.jsonl").unwrap();
            assert_eq!(log.turns[0].prompt, "hi");
        }
        let v1 = r#"{"id":"1","kind":"MessageEvent","source":"user","llm_message":{"role":"user","content":[{"type":"text","text":"go"}]}}"#;
        assert_eq!(
            Format::detect("e.jsonl".as_ref(), &format!("# events\n{v1}")),
            Some(Format::OpenHandsV1)
        );
        assert_eq!(
            Format::detect(
                "h.md".as_ref(),
                "\n<!-- Generated by SpecStory -->\n\n_**User**_\n"
            ),
            Some(Format::SpecStory)
        );
    }

    #[test]
    fn a_file_no_format_claims_gets_one_error_naming_the_formats_tried() {
        let e = not_a_known_log("package.json");
        assert_eq!(
            e.to_string(),
            "package.json:1: not a known agent log; tried: claude-code, codex, openhands, \
             swe-agent, aider, openhands-v1, mini-swe-agent, cline, gemini-cli, specstory"
        );
        let keys = ["agent", "outcome"];
        assert!(!first_record_has_key(
            r#"{"name":"x","version":"1"}"#,
            &keys
        ));
        assert!(!first_record_has_key("a,b\n1,2\n", &keys));
        assert!(first_record_has_key(
            "// c\n\n{\"agent\":\"a\",\"outcome\":{}}\n",
            &keys
        ));
        // A pretty-printed document: its keys, not those in its strings.
        assert!(first_record_has_key("{\n  \"agent\": \"a\"\n}", &keys));
        assert!(!first_record_has_key(
            "{\n  \"x\": \"\\\"agent\\\": 1\"\n}",
            &keys
        ));
    }

    #[test]
    fn defaults_override_field_by_field_and_sidecars_parse() {
        let a = ImportDefaults {
            spec: Some("A".into()),
            stage: Some("plan".into()),
            ..ImportDefaults::default()
        };
        let b = ImportDefaults::from_toml(
            "spec = \"B\"\noutcome = { kind = \"tests\", passed = 9, total = 10 }\n",
            "s.toml",
        )
        .unwrap();
        let c = a.overridden_by(&b);
        assert_eq!(c.spec.as_deref(), Some("B"));
        assert_eq!(c.stage.as_deref(), Some("plan"));
        assert_eq!(
            c.outcome,
            Some(TaskOutcome::Tests {
                passed: 9,
                total: 10
            })
        );
        let e = ImportDefaults::from_toml("\n\nspek = 1\n", "s.toml").unwrap_err();
        assert_eq!((e.source_name.as_str(), e.line), ("s.toml", 3), "{e}");
    }
}
