//! The session model: one agent's run at one stage of one spec, with the
//! user's preferences, the turns (user prompt, agent response), the
//! questions asked and the task outcome.
//!
//! The JSON format (`fixtures/sessions/README.md` documents it with an
//! example):
//!
//! ```json
//! {
//!   "spec_id": "SPEC-DEMO-001", "stage": "implement", "agent": "agent_b",
//!   "preferences": {"format": ["commas"]},
//!   "vague_prompt": false,
//!   "context": "Task: add retries to the upload client.",
//!   "turns": [{"prompt": "Add retries.", "response": "Done: 3 retries with backoff."}],
//!   "outcome": {"kind": "tests", "passed": 9, "total": 10},
//!   "verdict": "approve"
//! }
//! ```
//!
//! A turn may carry `questions` (each `{"text", "effort"}`) when the host
//! already knows them; otherwise they are extracted from the response and
//! their effort classified. A turn may also carry `events`: what the agent
//! did between the prompt and the response, as the labelling guide's
//! trajectory events (`tool`, `assistant`, `progress`, `condensation`,
//! `nudge`, `user`), read strictly: an unknown field or event type is an
//! error, as everywhere in a session.
//!
//! A file holds one session (`.json`) or one session per line (`.jsonl`,
//! blank lines and lines starting with `//` skipped); [`read_sessions`]
//! reads either and names file, line and column in every error.

use std::path::Path;

use serde::{Deserialize, Serialize};
use tact_types::EffortLevel;
use tact_types::trajectory::{Event, JsonValue, Mode, ProgressKind, ToolCall};

use crate::Error;
use crate::user_prefs::UserPreferences;

/// How the task went: R_Prod in [0, 1], supplied by the host.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TaskOutcome {
    /// A score already in [0, 1] (F1, spec compliance...).
    Score {
        /// The score.
        value: f64,
    },
    /// A test run: R_Prod is the pass rate.
    Tests {
        /// Tests that passed.
        passed: u64,
        /// Tests run (at least 1).
        total: u64,
    },
    /// A build: 1 when it succeeded, else 0.
    Build {
        /// Whether the build succeeded.
        success: bool,
    },
    /// An exact-match check: 1 when it matched, else 0.
    ExactMatch {
        /// Whether the output matched.
        matched: bool,
    },
}

impl TaskOutcome {
    /// R_Prod in [0, 1]. Never panics: a score outside [0, 1] is clamped,
    /// NaN counts 0, and a test run with no test counts 0 (sessions loaded
    /// from JSON reject these, see [`Session::validate`]).
    pub fn r_prod(&self) -> f64 {
        let v = match *self {
            TaskOutcome::Score { value } => value,
            TaskOutcome::Tests { passed, total } => {
                if total == 0 {
                    0.0
                } else {
                    passed.min(total) as f64 / total as f64
                }
            }
            TaskOutcome::Build { success } => f64::from(u8::from(success)),
            TaskOutcome::ExactMatch { matched } => f64::from(u8::from(matched)),
        };
        if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }
    }

    /// Whether the task succeeded outright (R_Prod = 1), as the paper's
    /// `final_score < 1` test of failure reads it.
    pub fn succeeded(&self) -> bool {
        self.r_prod() >= 1.0
    }
}

/// A question the host already identified, with its effort and, from a
/// PPP-style user simulator, its cost level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct AskedQuestion {
    /// The question's text.
    pub text: String,
    /// Its effort for the user.
    pub effort: EffortLevel,
    /// The cost level the user simulator gave the answer (the `paper-code`
    /// profile): 1-5 in the SWE environment (1 the task text only, 2 a
    /// hint, 3 "I don't know", 4 the file to edit, 5 the function to edit),
    /// 1-3 in the search environment (1 the task text, 2 "I don't know", 3
    /// the ground-truth document). Absent: mapped from `effort` (see
    /// [`PppEnv::level_of`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<u8>,
}

impl AskedQuestion {
    /// A question with its effort and no cost level.
    pub fn new(text: impl Into<String>, effort: EffortLevel) -> Self {
        AskedQuestion {
            text: text.into(),
            effort,
            cost: None,
        }
    }

    /// The same question with the cost level a user simulator gave it.
    #[must_use]
    pub fn with_cost(mut self, level: u8) -> Self {
        self.cost = Some(level);
        self
    }
}

/// The PPP environment a session ran in, which sets the cost levels of its
/// questions and their price under the `paper-code` profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PppEnv {
    /// The software-engineering environment (the default): levels 1-5.
    #[default]
    Swe,
    /// The search (deep research) environment: levels 1-3.
    Search,
}

impl PppEnv {
    /// The environment's name: `swe` or `search`.
    pub fn as_str(self) -> &'static str {
        match self {
            PppEnv::Swe => "swe",
            PppEnv::Search => "search",
        }
    }

    /// The highest cost level of the environment: 5 (SWE) or 3 (search).
    pub fn max_level(self) -> u8 {
        match self {
            PppEnv::Swe => 5,
            PppEnv::Search => 3,
        }
    }

    /// The cost level of a question that carries none, from its effort:
    /// SWE low 1, medium 3 ("I don't know"), high 4 (the file to edit);
    /// search low 1, medium 2 ("I don't know"), high 3 (the ground-truth
    /// document).
    pub fn level_of(self, effort: EffortLevel) -> u8 {
        match (self, effort) {
            (_, EffortLevel::Low) => 1,
            (PppEnv::Swe, EffortLevel::Medium) => 3,
            (PppEnv::Swe, EffortLevel::High) => 4,
            (PppEnv::Search, EffortLevel::Medium) => 2,
            (PppEnv::Search, EffortLevel::High) => 3,
        }
    }
}

impl std::fmt::Display for PppEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One exchange: the user's prompt, what the agent did (tool events) and
/// its response.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// What the user said (the task, or an answer to earlier questions).
    #[serde(default)]
    pub prompt: String,
    /// What the agent answered.
    #[serde(default)]
    pub response: String,
    /// The questions of the response, when the host supplies them; when
    /// absent they are extracted from `response` and classified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub questions: Option<Vec<AskedQuestion>>,
    /// What happened between the prompt and the response, oldest first:
    /// the labelling guide's trajectory events (tool calls with their
    /// results, progress signals, condensations, intermediate messages).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "strict_events"
    )]
    pub events: Vec<Event>,
}

impl Turn {
    /// A turn whose questions will be extracted from the response.
    pub fn new(prompt: impl Into<String>, response: impl Into<String>) -> Self {
        Turn {
            prompt: prompt.into(),
            response: response.into(),
            questions: None,
            events: Vec::new(),
        }
    }

    /// The same turn with the questions given by the host.
    #[must_use]
    pub fn with_questions(mut self, questions: Vec<AskedQuestion>) -> Self {
        self.questions = Some(questions);
        self
    }

    /// The same turn with the agent's events between prompt and response.
    #[must_use]
    pub fn with_events(mut self, events: Vec<Event>) -> Self {
        self.events = events;
        self
    }
}

/// The strict mirror of [`Event`]: the same JSON, but an unknown field is
/// an error (the labelling guide's datasets ignore them; a session does not).
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum StrictEvent {
    User {
        #[serde(default)]
        text: String,
    },
    Nudge {
        #[serde(default)]
        text: String,
    },
    Assistant {
        #[serde(default)]
        text: String,
    },
    Tool {
        name: String,
        #[serde(default)]
        params: Option<JsonValue>,
        #[serde(default = "yes")]
        ok: bool,
        #[serde(default = "empty_output")]
        output: JsonValue,
        #[serde(default)]
        step: Option<u64>,
    },
    Condensation {},
    Progress {
        #[serde(default)]
        kind: Option<String>,
    },
}

fn yes() -> bool {
    true
}

fn empty_output() -> JsonValue {
    JsonValue::String(String::new())
}

impl From<StrictEvent> for Event {
    fn from(e: StrictEvent) -> Event {
        match e {
            StrictEvent::User { text } => Event::user(text),
            StrictEvent::Nudge { text } => Event::nudge(text),
            StrictEvent::Assistant { text } => Event::assistant(text),
            StrictEvent::Tool {
                name,
                params,
                ok,
                output,
                step,
            } => {
                let mut call = ToolCall::new(name).ok(ok).output(output);
                // `null` params read as `{}`, as in the labelling guide.
                if let Some(p) = params.filter(|p| !p.is_null()) {
                    call = call.params(p);
                }
                if let Some(s) = step {
                    call = call.step(s);
                }
                Event::tool(call)
            }
            StrictEvent::Condensation {} => Event::condensation(),
            StrictEvent::Progress { kind } => {
                Event::progress(kind.map(ProgressKind::from).unwrap_or_default())
            }
        }
    }
}

fn strict_events<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Event>, D::Error> {
    Ok(Vec::<StrictEvent>::deserialize(d)?
        .into_iter()
        .map(Event::from)
        .collect())
}

/// One agent's session at one stage of one spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Session {
    /// The spec the work belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_id: Option<String>,
    /// The pipeline stage (`plan`, `tasks`, `implement`, `validate`,
    /// `audit`, `unlock`, or a host's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<String>,
    /// The agent's name.
    pub agent: String,
    /// The run's identifier, unique per (spec, agent); `tact run` derives
    /// one from the session's content when absent, so storing the same
    /// session twice replaces it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// How the guidance classifiers window the replayed events: `headless`
    /// (the default: the whole session) or `interactive` (what follows the
    /// last user prompt).
    #[serde(default, skip_serializing_if = "is_headless")]
    pub mode: Mode,
    /// What the user asked of the agent.
    #[serde(default)]
    pub preferences: UserPreferences,
    /// Whether the user's first prompt was vague (the `paper-code`
    /// profile's bonuses and costs depend on it).
    #[serde(default)]
    pub vague_prompt: bool,
    /// The PPP environment, for the `paper-code` profile's cost levels
    /// (`swe`, the default, or `search`).
    #[serde(default, skip_serializing_if = "is_swe")]
    pub ppp_env: PppEnv,
    /// What the user already has at hand (the task description or spec):
    /// a question it answers is low effort.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// The exchanges, in order.
    #[serde(default)]
    pub turns: Vec<Turn>,
    /// How the task went (R_Prod).
    pub outcome: TaskOutcome,
    /// The agent's conclusion, compared across agents by the legacy
    /// (binary) consensus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
}

fn is_headless(mode: &Mode) -> bool {
    *mode == Mode::Headless
}

fn is_swe(env: &PppEnv) -> bool {
    *env == PppEnv::Swe
}

impl Session {
    /// A session with no turn, no preference and the given outcome.
    pub fn new(agent: impl Into<String>, outcome: TaskOutcome) -> Self {
        Session {
            spec_id: None,
            stage: None,
            agent: agent.into(),
            run_id: None,
            mode: Mode::Headless,
            preferences: UserPreferences::default(),
            vague_prompt: false,
            ppp_env: PppEnv::Swe,
            context: None,
            turns: Vec::new(),
            outcome,
            verdict: None,
        }
    }

    /// Parses and validates a session from JSON; `source` names the file
    /// in errors.
    pub fn from_json(text: &str, source: Option<&str>) -> Result<Self, Error> {
        let err = |message: String| Error::Session {
            source_name: source.map(str::to_owned),
            message,
        };
        let session: Session = serde_json::from_str(text)
            .map_err(|e| err(tact_types::excerpt::excerpt(&e.to_string()).into_owned()))?;
        session.validate().map_err(|e| match e {
            Error::Session { message, .. } => err(message),
            other => err(other.to_string()),
        })?;
        Ok(session)
    }

    /// Reads and validates a session file; bytes that are not UTF-8 are
    /// an error naming the file and their line.
    pub fn read(path: &Path) -> Result<Self, Error> {
        let bytes = read_regular(path)?;
        let source = path.display().to_string();
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| invalid_utf8(&source, &bytes[..e.valid_up_to()], 1))?;
        Self::from_json(text, Some(&source))
    }

    /// Checks what serde cannot: a non-empty agent name, an outcome score
    /// that is a number in [0, 1], a test run with at least one test and
    /// no more passed than run, cost levels within the environment's range,
    /// and preferences under their keys.
    pub fn validate(&self) -> Result<(), Error> {
        let err = |message: String| Error::Session {
            source_name: None,
            message,
        };
        if self.agent.trim().is_empty() {
            return Err(err("`agent` must not be empty".into()));
        }
        match self.outcome {
            TaskOutcome::Score { value } if !(0.0..=1.0).contains(&value) => {
                return Err(err(format!(
                    "outcome score must be a number in [0, 1], got {value}"
                )));
            }
            TaskOutcome::Tests { total: 0, .. } => {
                return Err(err("outcome `total` must be at least 1".into()));
            }
            TaskOutcome::Tests { passed, total } if passed > total => {
                return Err(err(format!(
                    "outcome has {passed} tests passed out of {total} run"
                )));
            }
            _ => {}
        }
        let max = self.ppp_env.max_level();
        for (t, turn) in self.turns.iter().enumerate() {
            for (e, event) in turn.events.iter().enumerate() {
                // The store keeps steps exact in SQLite's signed integer.
                if let Event::Tool(ToolCall {
                    step: Some(step), ..
                }) = event
                {
                    if i64::try_from(*step).is_err() {
                        return Err(err(format!(
                            "turn {t}, event {e}: step {step} is above {}",
                            i64::MAX
                        )));
                    }
                }
            }
            for (i, q) in turn.questions.iter().flatten().enumerate() {
                if let Some(level) = q.cost.filter(|l| !(1..=max).contains(l)) {
                    return Err(err(format!(
                        "turn {t}, question {i}: cost level {level} is outside 1-{max} of the {} environment",
                        self.ppp_env
                    )));
                }
            }
        }
        self.preferences.validate()
    }
}

/// How a file holds sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionFormat {
    /// One session per file (`.json`).
    Json,
    /// One session per line (`.jsonl`); blank lines and lines starting
    /// with `//` are skipped.
    JsonLines,
}

impl SessionFormat {
    /// The format of `path` by its extension (`json` or `jsonl`, any
    /// case); `None` for any other file.
    pub fn of(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "json" => Some(Self::Json),
            "jsonl" => Some(Self::JsonLines),
            _ => None,
        }
    }
}

/// A session read from a file, with the line it starts on.
#[derive(Debug, Clone, PartialEq)]
pub struct LocatedSession {
    /// The 1-based line the session starts on (1 for a `.json` file).
    pub line: usize,
    /// The session.
    pub session: Session,
}

/// Parses and validates one session whose text starts on `first_line` of
/// `source`; errors name `source:LINE:COLUMN` (syntax and shape) or
/// `source:LINE` (validation, the session's first line).
fn parse_located(text: &str, source: &str, first_line: usize) -> Result<LocatedSession, Error> {
    let session: Session = serde_json::from_str(text).map_err(|e| {
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        // serde quotes a bad string value whole: an excerpt of it.
        let message =
            tact_types::excerpt::excerpt(full.strip_suffix(&suffix).unwrap_or(&full)).into_owned();
        let at = if e.line() == 0 {
            format!("{source}:{first_line}")
        } else {
            format!("{source}:{}:{}", first_line + e.line() - 1, e.column())
        };
        Error::Session {
            source_name: Some(at),
            message,
        }
    })?;
    session.validate().map_err(|e| Error::Session {
        source_name: Some(format!("{source}:{first_line}")),
        message: match e {
            Error::Session { message, .. } => message,
            other => other.to_string(),
        },
    })?;
    Ok(LocatedSession {
        line: first_line,
        session,
    })
}

/// Parses and validates one session whose text starts on line
/// `first_line` of `source` (one line of a `.jsonl` file read as a
/// stream, say); errors name `source:LINE:COLUMN` as [`parse_sessions`]'s.
pub fn parse_session_at(
    text: &str,
    source: &str,
    first_line: usize,
) -> Result<LocatedSession, Error> {
    parse_located(text, source, first_line)
}

/// Parses the sessions of one file's text (`source` names it in errors).
/// Each session is parsed and validated on its own: a bad one is an error
/// in its slot, naming `source:LINE:COLUMN` (or `source:LINE` when the
/// JSON is well formed but breaks a rule of the format), and the others
/// are still read. Never panics.
pub fn parse_sessions(
    text: &str,
    source: &str,
    format: SessionFormat,
) -> Vec<Result<LocatedSession, Error>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match format {
        SessionFormat::Json => vec![parse_located(text, source, 1)],
        SessionFormat::JsonLines => text
            .lines()
            .enumerate()
            .filter(|(_, l)| {
                let t = l.trim();
                !t.is_empty() && !t.starts_with("//")
            })
            .map(|(i, l)| parse_located(l, source, i + 1))
            .collect(),
    }
}

/// The error of bytes that are not UTF-8 in a session file: `valid` is
/// the text before them, which starts on `first_line`.
fn invalid_utf8(source: &str, valid: &[u8], first_line: usize) -> Error {
    let line = first_line + valid.iter().filter(|&&b| b == b'\n').count();
    Error::Session {
        source_name: Some(format!("{source}:{line}")),
        message: "invalid UTF-8".into(),
    }
}

/// Whether a line of a `.jsonl` file holds a session (it is neither blank
/// nor a `//` comment); bytes that are not UTF-8 count as content.
pub fn is_session_line(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(line);
    let t = text.trim();
    !t.is_empty() && !t.starts_with("//")
}

/// [`parse_sessions`] over a file's bytes: in a `.jsonl` file a line that
/// is not UTF-8 is an error in its slot (`invalid session FILE:LINE:
/// invalid UTF-8`) and the other lines are still read; a `.json` file that
/// is not UTF-8 is one such error. Never panics.
pub fn parse_session_bytes(
    bytes: &[u8],
    source: &str,
    format: SessionFormat,
) -> Vec<Result<LocatedSession, Error>> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    match format {
        SessionFormat::Json => match std::str::from_utf8(bytes) {
            Ok(text) => vec![parse_located(text, source, 1)],
            Err(e) => vec![Err(invalid_utf8(source, &bytes[..e.valid_up_to()], 1))],
        },
        SessionFormat::JsonLines => bytes
            .split(|&b| b == b'\n')
            .enumerate()
            .filter(|(_, l)| is_session_line(l))
            .map(|(i, raw)| {
                let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
                match std::str::from_utf8(raw) {
                    Ok(l) => parse_located(l, source, i + 1),
                    Err(_) => Err(invalid_utf8(source, &[], i + 1)),
                }
            })
            .collect(),
    }
}

/// Reads the sessions of a file: `.jsonl` holds one per line, any other
/// file one session (see [`parse_session_bytes`]). Fails only when the
/// file cannot be read; bad sessions, and lines that are not UTF-8, are
/// errors in their slot.
pub fn read_sessions(path: &Path) -> Result<Vec<Result<LocatedSession, Error>>, Error> {
    let bytes = read_regular(path)?;
    let format = SessionFormat::of(path).unwrap_or(SessionFormat::Json);
    Ok(parse_session_bytes(
        &bytes,
        &path.display().to_string(),
        format,
    ))
}

/// The bytes of the regular file at `path`, at most
/// `tact_core::input::MAX_TEXT_BYTES`: a FIFO, socket, device or folder is
/// an error naming it, never opened (reading a FIFO would block).
fn read_regular(path: &Path) -> Result<Vec<u8>, Error> {
    let io = |source| Error::Io {
        path: path.to_owned(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a folder"
        } else {
            "not a regular file"
        };
        return Err(Error::Session {
            source_name: Some(path.display().to_string()),
            message: format!("{what}: a session file is a regular file"),
        });
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let limit = tact_core::input::MAX_TEXT_BYTES;
    tact_core::input::read_bounded(file, &path.display().to_string(), limit).map_err(|e| {
        Error::Session {
            source_name: None,
            message: e.to_string(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_named_and_never_opened() {
        let dir = std::env::temp_dir().join(format!("tact-scoring-fifo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("live.json");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let e = Session::read(&fifo).unwrap_err().to_string();
        assert!(
            e.contains("not a regular file") && e.contains("live.json"),
            "{e}"
        );
        let e = read_sessions(&dir).unwrap_err().to_string();
        assert!(e.contains("a folder"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn outcomes_map_onto_r_prod() {
        assert_eq!(
            TaskOutcome::Tests {
                passed: 9,
                total: 10
            }
            .r_prod(),
            0.9
        );
        assert_eq!(
            TaskOutcome::Tests {
                passed: 3,
                total: 0
            }
            .r_prod(),
            0.0
        );
        assert_eq!(TaskOutcome::Build { success: true }.r_prod(), 1.0);
        assert_eq!(TaskOutcome::ExactMatch { matched: false }.r_prod(), 0.0);
        assert_eq!(TaskOutcome::Score { value: f64::NAN }.r_prod(), 0.0);
        assert_eq!(TaskOutcome::Score { value: 7.0 }.r_prod(), 1.0);
        assert!(TaskOutcome::Build { success: true }.succeeded());
        assert!(!TaskOutcome::Score { value: 0.99 }.succeeded());
    }

    #[test]
    fn json_sessions_parse_and_bad_ones_say_why() {
        let ok = r#"{"agent":"a","turns":[{"prompt":"p","response":"r",
            "questions":[{"text":"Q?","effort":"high"}]}],
            "outcome":{"kind":"tests","passed":1,"total":2}}"#;
        let s = Session::from_json(ok, Some("a.json")).unwrap();
        assert_eq!(s.outcome.r_prod(), 0.5);
        assert_eq!(
            s.turns[0].questions.as_ref().unwrap()[0].effort,
            EffortLevel::High
        );
        let cases = [
            (r#"{"agent":"a"}"#, "missing field `outcome`"),
            (
                r#"{"agent":"a","outcome":{"kind":"score","value":1.5}}"#,
                "in [0, 1], got 1.5",
            ),
            (
                r#"{"agent":"a","outcome":{"kind":"tests","passed":3,"total":2}}"#,
                "3 tests passed out of 2",
            ),
            (
                r#"{"agent":"a","outcome":{"kind":"vibes"}}"#,
                "unknown variant `vibes`",
            ),
            (
                r#"{"agent":" ","outcome":{"kind":"build","success":true}}"#,
                "`agent` must not be empty",
            ),
            (
                r#"{"agent":"a","outcome":{"kind":"build","success":true},"preferences":{"format":["no_ask"]}}"#,
                "list it under `interaction`",
            ),
            (
                r#"{"agent":"a","outcome":{"kind":"build","success":true},"turn":[]}"#,
                "unknown field `turn`",
            ),
        ];
        for (text, needle) in cases {
            let msg = Session::from_json(text, Some("s.json"))
                .unwrap_err()
                .to_string();
            assert!(msg.starts_with("invalid session s.json: "), "{msg}");
            assert!(msg.contains(needle), "{msg}");
        }
    }

    #[test]
    fn turn_events_are_read_strictly() {
        let ok = r#"{"agent":"a","outcome":{"kind":"build","success":true},"mode":"interactive",
            "turns":[{"prompt":"p","response":"r","events":[
              {"type":"tool","name":"grep","params":{"pattern":"x"},"ok":false,"output":"none","step":2},
              {"type":"tool","name":"ls","params":null,"output":null},
              {"type":"progress","kind":"test_passed"},{"type":"condensation"},
              {"type":"assistant","text":"hm"}]}]}"#;
        let s = Session::from_json(ok, None).unwrap();
        assert_eq!(s.mode, Mode::Interactive);
        let ev = &s.turns[0].events;
        assert_eq!(ev.len(), 5);
        let Event::Tool(call) = &ev[0] else {
            panic!("{ev:?}")
        };
        assert_eq!(
            (call.name.as_str(), call.ok, call.step),
            ("grep", false, Some(2))
        );
        let Event::Tool(ls) = &ev[1] else {
            panic!("{ev:?}")
        };
        assert_eq!(ls.params, serde_json::json!({}));
        assert_eq!(ls.output, JsonValue::Null);
        assert!(ls.ok);
        assert_eq!(call.output, serde_json::json!("none"));
        assert_eq!(ev[2], Event::progress(ProgressKind::TestPassed));
        assert_eq!(ev[3], Event::condensation());
        let back = serde_json::to_string(&s).unwrap();
        assert_eq!(Session::from_json(&back, None).unwrap(), s);
        for (event, needle) in [
            (
                r#"{"type":"tool","name":"x","param":{}}"#,
                "unknown field `param`",
            ),
            (r#"{"type":"condensation","n":1}"#, "unknown field `n`"),
            (
                r#"{"type":"thought","text":"x"}"#,
                "unknown variant `thought`",
            ),
            (r#"{"type":"tool"}"#, "missing field `name`"),
        ] {
            let text = format!(
                r#"{{"agent":"a","outcome":{{"kind":"build","success":true}},"turns":[{{"events":[{event}]}}]}}"#
            );
            let msg = Session::from_json(&text, Some("s.json"))
                .unwrap_err()
                .to_string();
            assert!(msg.contains(needle), "{msg}");
        }
    }

    #[test]
    fn files_of_sessions_name_file_line_and_column() {
        let good = r#"{"agent":"a","outcome":{"kind":"build","success":true}}"#;
        let text = format!(
            "// sessions\n{good}\n\n{{\"agent\": \"b\", oops}}\n{}\n{good}\n",
            r#"{"agent":"c","outcome":{"kind":"tests","passed":3,"total":2}}"#
        );
        let out = parse_sessions(&text, "x.jsonl", SessionFormat::JsonLines);
        assert_eq!(out.len(), 4);
        assert_eq!(out[0].as_ref().unwrap().line, 2);
        let e = out[1].as_ref().unwrap_err().to_string();
        assert!(
            e.starts_with("invalid session x.jsonl:4:16: key must be a string"),
            "{e}"
        );
        let e = out[2].as_ref().unwrap_err().to_string();
        assert!(
            e.starts_with("invalid session x.jsonl:5: outcome has 3 tests"),
            "{e}"
        );
        assert_eq!(out[3].as_ref().unwrap().line, 6);
        let multi = "{\n  \"agent\": \"a\",\n  \"outcome\": {\"kind\": \"build\"}\n}\n";
        let e = parse_sessions(multi, "m.json", SessionFormat::Json)[0]
            .as_ref()
            .unwrap_err()
            .to_string();
        // serde reads a tagged value (`outcome`) whole first, so a problem
        // inside it is reported where the enclosing object ends.
        assert!(e.starts_with("invalid session m.json:4:1: "), "{e}");
        assert!(e.contains("missing field `success`"), "{e}");
        assert_eq!(
            SessionFormat::of(Path::new("a/B.JSONL")),
            Some(SessionFormat::JsonLines)
        );
        assert_eq!(SessionFormat::of(Path::new("a/tact.toml")), None);
    }
}
