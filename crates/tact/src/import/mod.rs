//! Agents' own session logs read directly: Claude Code transcripts, Codex
//! CLI rollouts, OpenHands event streams, SWE-agent trajectories and Aider
//! chat histories, each mapped onto tact's session model (turns of user
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
mod codex;
mod follow;
mod openhands;
mod swe_agent;

use std::path::Path;

use serde::Deserialize;
use tact_scoring::{Session, TaskOutcome, Turn, UserPreferences};
use tact_types::trajectory::{Event, Mode};

pub use follow::Follower;

/// The guidance mode of a session read from an agent's log: interactive,
/// since the log records where the user spoke, so a classifier's window
/// (calls since progress, error streaks, cycles, call counts) restarts at
/// each `user` event. `tact run`, `tact guide` and `tact watch` all replay
/// a log in this mode.
pub const LOG_MODE: Mode = Mode::Interactive;

use assemble::Assembler;

/// A log format tact reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Format {
    /// Claude Code's per-project JSONL transcripts.
    ClaudeCode,
    /// Codex CLI's rollout JSONL files.
    Codex,
    /// OpenHands' event stream (a JSON array of events).
    OpenHands,
    /// SWE-agent's `.traj` files.
    SweAgent,
    /// Aider's `.aider.chat.history.md`.
    Aider,
}

impl Format {
    /// Every format, in the order of [`Format::name`]'s documentation.
    pub const ALL: [Format; 5] = [
        Format::ClaudeCode,
        Format::Codex,
        Format::OpenHands,
        Format::SweAgent,
        Format::Aider,
    ];

    /// The format's name as `--format` takes it: `claude-code`, `codex`,
    /// `openhands`, `swe-agent`, `aider`.
    pub fn name(self) -> &'static str {
        match self {
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::OpenHands => "openhands",
            Format::SweAgent => "swe-agent",
            Format::Aider => "aider",
        }
    }

    /// Whether the format is read line by line (JSON Lines, Markdown) or
    /// as one JSON document.
    pub fn is_line_based(self) -> bool {
        matches!(self, Format::ClaudeCode | Format::Codex | Format::Aider)
    }

    /// Whether a file of this extension may hold this format when the
    /// format is forced (`--format`).
    pub fn takes_extension(self, ext: &str) -> bool {
        match self {
            Format::ClaudeCode | Format::Codex => ext == "jsonl" || ext == "json",
            Format::OpenHands => ext == "json",
            Format::SweAgent => ext == "traj" || ext == "json",
            Format::Aider => ext == "md",
        }
    }

    /// The format of a log by its content (the first record or lines; a
    /// `.traj` file is SWE-agent's), or `None` for anything else (tact's
    /// own sessions included). `head` is the file's start (a few KB are
    /// enough).
    pub fn detect(path: &Path, head: &str) -> Option<Format> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        let head = head.strip_prefix('\u{feff}').unwrap_or(head);
        match ext.as_str() {
            "traj" => Some(Format::SweAgent),
            "md" => aider::looks_like(head).then_some(Format::Aider),
            "jsonl" | "json" => {
                let t = head.trim_start();
                if t.starts_with('[') {
                    return openhands::looks_like(t).then_some(Format::OpenHands);
                }
                let first = t.lines().next().unwrap_or("");
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(first) {
                    if codex::looks_like(&v) {
                        return Some(Format::Codex);
                    }
                    if claude::looks_like(&v) {
                        return Some(Format::ClaudeCode);
                    }
                }
                // A SWE-agent trajectory saved as .json: an object with a
                // `trajectory` list and a `history` or `info` key (keys,
                // not escaped text inside a string).
                if t.starts_with('{')
                    && has_key(head, "trajectory")
                    && (has_key(head, "history") || has_key(head, "info"))
                {
                    return Some(Format::SweAgent);
                }
                None
            }
            _ => None,
        }
    }
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
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ImportedLog {
    /// Ids, agent, model, times.
    pub meta: LogMeta,
    /// The exchanges, in order.
    pub turns: Vec<Turn>,
}

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
        s.run_id = defaults
            .run
            .clone()
            .or_else(|| file.file_name().map(|n| n.to_string_lossy().into_owned()));
        if let Some(p) = &defaults.preferences {
            s.preferences = p.clone();
        }
        s.context = self.meta.title.clone();
        s.turns = self.turns.clone();
        s
    }

    /// Whether `defaults` give an outcome (else R_Prod is 0).
    pub fn has_outcome(defaults: &ImportDefaults) -> bool {
        defaults.outcome.is_some()
    }

    /// The events a host saw, in order: each turn's prompt, events and
    /// response, as the main job replays them.
    pub fn events(&self) -> Vec<Event> {
        let mut out = Vec::new();
        for t in &self.turns {
            if !t.prompt.is_empty() {
                out.push(Event::user(t.prompt.clone()));
            }
            out.extend(t.events.iter().cloned());
            if !t.response.is_empty() {
                out.push(Event::assistant(t.response.clone()));
            }
        }
        out
    }
}

/// Reads a whole log of `format`; `source` names it in errors (with the
/// line). Records a format does not map are skipped and counted
/// ([`LogMeta::skipped`]); a log with none it maps is an error.
pub fn import_text(format: Format, text: &str, source: &str) -> Result<ImportedLog, ImportError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut sink = Sink::new(format, source);
    match format {
        Format::OpenHands => openhands::document(text, &mut sink)?,
        Format::SweAgent => swe_agent::document(text, &mut sink)?,
        _ => {
            let mut parser = LineParser::new(format);
            for (i, line) in text.lines().enumerate() {
                parser
                    .line(line, &mut sink)
                    .map_err(|m| ImportError::new(source, i + 1, m))?;
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
    let (turns, _) = sink.asm.finish();
    Ok(ImportedLog { meta, turns })
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
}

impl Sink {
    pub(crate) fn new(format: Format, source: &str) -> Self {
        Sink {
            asm: Assembler::default(),
            meta: LogMeta {
                format: Some(format),
                ..LogMeta::default()
            },
            records: 0,
            source: source.to_owned(),
            stem: Path::new(source)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned()),
        }
    }
}

/// The state of a line-based format's reader.
#[derive(Debug)]
pub(crate) enum LineParser {
    Claude(claude::State),
    Codex(codex::State),
    Aider(aider::State),
}

impl LineParser {
    pub(crate) fn new(format: Format) -> Self {
        match format {
            Format::Codex => LineParser::Codex(codex::State::default()),
            Format::Aider => LineParser::Aider(aider::State::default()),
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
            _ => {
                let t = line.trim();
                if t.is_empty() {
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
                    LineParser::Aider(_) => {}
                }
                Ok(())
            }
        }
    }

    /// The end of the log.
    pub(crate) fn end(&mut self, sink: &mut Sink) {
        if let LineParser::Aider(s) = self {
            s.end(sink);
        }
    }
}

/// A JSON value's string at `key`, if it is one.
pub(crate) fn str_at<'a>(v: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(serde_json::Value::as_str)
}

/// Text of a content value: a string, or the `text` of each block of a
/// list (joined by blank lines).
pub(crate) fn text_of(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
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
    }
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
            e.contains("claude-code, codex, openhands, swe-agent, aider"),
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
