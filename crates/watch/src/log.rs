//! Agents' own logs (Claude Code, Codex, OpenHands, SWE-agent, Aider and
//! whatever else `tact::import` reads) turned into the [`Step`]s the view
//! ingests, through the one import path `tact run` and `tact guide` use:
//! a whole file through [`import_text`] and the session `tact run` scores
//! ([`log_steps`]), a growing one through the [`Follower`] that `tact guide
//! --follow` uses, its events grouped into turns ([`TurnSteps`]) so the view
//! counts turns, questions and the score as `tact run` does. A log that
//! holds many sessions, one a line (OpenHands' `output.jsonl`), shows one
//! of them: the one asked for, else the last ([`pick_session`]).

use std::path::Path;

use tact::import::{
    Follower, Format, ImportDefaults, ImportError, ImportedLog, LOG_MODE, SessionLines, import_text,
};
use tact::scoring::{Session, TaskOutcome};
use tact::types::{Event, PendingCall};

use crate::read::{Record, Step, steps};

/// The format of the log at `path` by its start (`head`, a few KB), as
/// `tact run` and `tact guide` detect it; `None` for tact's own formats.
pub fn detect(path: &Path, head: &str) -> Option<Format> {
    Format::detect(path, head)
}

/// The defaults a log's sidecar (`LOG.tact.toml`) gives, as `tact run`
/// reads them (none when there is no sidecar or it does not parse; the
/// problem is logged).
pub fn sidecar(path: &Path) -> ImportDefaults {
    match ImportDefaults::sidecar_of(path) {
        Ok(d) => d.unwrap_or_default(),
        Err(e) => {
            tracing::warn!(error = %e, "sidecar not read");
            ImportDefaults::default()
        }
    }
}

/// The header of a followed log's session, before its records say more:
/// the agent (the sidecar's, else the format's name), the preferences of
/// the sidecar, the file's name as spec, and [`LOG_MODE`].
pub fn header(format: Format, path: &Path, defaults: &ImportDefaults) -> Session {
    let agent = defaults
        .agent
        .clone()
        .unwrap_or_else(|| format.name().to_owned());
    let outcome = defaults
        .outcome
        .unwrap_or(TaskOutcome::Score { value: 0.0 });
    let mut s = Session::new(agent, outcome);
    s.mode = LOG_MODE;
    s.spec_id = defaults
        .spec
        .clone()
        .or_else(|| path.file_stem().map(|n| n.to_string_lossy().into_owned()));
    s.stage = defaults.stage.clone();
    if let Some(p) = &defaults.preferences {
        s.preferences = p.clone();
    }
    s
}

/// The steps of a whole log: the session `tact run` scores and replays
/// (its header, then each turn's prompt, events and response), or the
/// error that stops `tact run` on it.
pub fn log_steps(
    format: Format,
    text: &str,
    path: &Path,
    defaults: &ImportDefaults,
) -> Result<Vec<Step>, ImportError> {
    let log = import_text(format, text, &path.display().to_string())?;
    Ok(session_steps(&log, path, defaults))
}

/// The steps of an imported session (of a log, or of one line of a log
/// that holds many): the session `tact run` scores and replays.
pub fn session_steps(log: &ImportedLog, path: &Path, defaults: &ImportDefaults) -> Vec<Step> {
    let session = log.session(path, defaults);
    let mut out = Vec::new();
    steps(Record::Session(Box::new(session)), &mut out);
    out
}

/// The session a view shows of a log that holds many, one a line
/// ([`tact::import::holds_sessions`]): how many it holds, and the
/// warnings of the lines that could not be read.
#[derive(Debug)]
#[non_exhaustive]
pub struct Picked {
    /// The session shown.
    pub log: ImportedLog,
    /// Sessions read.
    pub sessions: usize,
    /// Lines that could not be read (`FILE:LINE: why`).
    pub warnings: Vec<String>,
}

/// Reads a log that holds many sessions from `reader`, one line in memory
/// at a time (each line imported as `tact run` imports it), and keeps the
/// last session whose id is `wanted`, or the last of all: the one growing
/// live, as the line of each task is written when it ends. An error when
/// no session is read, or none has that id (it names the ids read, up to
/// ten).
pub fn pick_session(
    format: Format,
    reader: impl std::io::BufRead,
    source: &str,
    wanted: Option<&str>,
) -> Result<Picked, ImportError> {
    let max = tact::import::MAX_RECORD_BYTES;
    let (mut picked, mut sessions, mut warnings, mut ids) = (None, 0, Vec::new(), Vec::new());
    for line in SessionLines::new(reader, source, max) {
        match line.and_then(|l| l.import(format, source, max)) {
            Ok(log) => {
                sessions += 1;
                let id = log.meta.session_id.clone().unwrap_or_default();
                if wanted.is_none_or(|w| w == id) {
                    picked = Some(log);
                } else if ids.len() < 10 {
                    ids.push(id);
                }
            }
            Err(e) => warnings.push(e.to_string()),
        }
    }
    match picked {
        Some(log) => Ok(Picked {
            log,
            sessions,
            warnings,
        }),
        None => {
            let message = match wanted {
                Some(w) => format!("no session `{w}` (sessions: {})", ids.join(", ")),
                None => format!("no {} session read", format.name()),
            };
            Err(ImportError {
                source_name: source.to_owned(),
                line: 1,
                message,
            })
        }
    }
}

/// A live log's events, as a [`Follower`] returns them, grouped into the
/// turns of the session model: a `user` event opens a turn, the agent's
/// last message before the next `user` event (or the end) is the turn's
/// response, every other event (intermediate messages, tool calls, each
/// proposed before it is observed, condensations) belongs to the turn.
/// An agent message is held until the next event says which it is.
#[derive(Debug, Default)]
pub struct TurnSteps {
    /// The agent message not yet known to be the response.
    held: Option<String>,
    /// Whether a turn is open.
    open: bool,
}

impl TurnSteps {
    /// A grouping with no turn open.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends the steps of `events` (in the order the follower gave them).
    pub fn push(&mut self, events: Vec<Event>, out: &mut Vec<Step>) {
        for event in events {
            self.event(event, out);
        }
    }

    fn open_turn(&mut self, out: &mut Vec<Step>) {
        if !self.open {
            self.open = true;
            out.push(Step::Turn {
                prompt: String::new(),
            });
        }
    }

    fn close_turn(&mut self, out: &mut Vec<Step>) {
        if self.open {
            out.push(Step::Respond {
                response: self.held.take().unwrap_or_default(),
                questions: None,
            });
        }
        self.open = false;
    }

    fn event(&mut self, event: Event, out: &mut Vec<Step>) {
        match event {
            Event::User { text } => {
                self.close_turn(out);
                self.open = true;
                out.push(Step::Turn { prompt: text });
            }
            Event::Assistant { text } => {
                self.open_turn(out);
                if let Some(earlier) = self.held.replace(text) {
                    out.push(Step::TurnEvent(Event::assistant(earlier)));
                }
            }
            other => {
                self.open_turn(out);
                if let Some(text) = self.held.take() {
                    out.push(Step::TurnEvent(Event::assistant(text)));
                }
                if let Event::Tool(call) = &other {
                    out.push(Step::Propose(vec![PendingCall::new(
                        call.name.clone(),
                        call.params.clone(),
                    )]));
                }
                out.push(Step::TurnEvent(other));
            }
        }
    }

    /// The end of the log: the open turn closes with the message held.
    pub fn finish(&mut self, out: &mut Vec<Step>) {
        self.close_turn(out);
    }

    /// The agent message held, not yet known to be the response.
    pub fn held(&self) -> Option<&str> {
        self.held.as_deref()
    }
}

/// Follows a log of one format: bytes in, steps and warnings out.
///
/// The log's title, once read, comes out as a [`Step::Context`] before the
/// steps it arrived with, so the questions are classified in the context
/// a whole read gives them. While the log is idle ([`LogFollower::idle`]),
/// the agent's latest message, which the importer holds until the next
/// call or user message says what it is, comes out as a [`Step::Draft`]:
/// the agent's question is seen while the agent waits for the user.
#[derive(Debug)]
pub struct LogFollower {
    follower: Follower,
    turns: TurnSteps,
    /// The title was sent as the session's context.
    titled: bool,
    /// The draft last sent, while no step came after it (the view still
    /// shows it).
    drafted: Option<String>,
    /// Bytes arrived since the last [`LogFollower::idle`] (else the draft
    /// cannot have changed, and is not read again).
    fresh: bool,
}

impl LogFollower {
    /// A follower of a log of `format`; `source` names it in warnings.
    pub fn new(format: Format, source: &str) -> Self {
        Self {
            follower: Follower::new(format, source),
            turns: TurnSteps::new(),
            titled: false,
            drafted: None,
            fresh: false,
        }
    }

    /// The format followed.
    pub fn format(&self) -> Format {
        self.follower.format()
    }

    /// The bytes that arrived: the steps they complete go to `out`, the
    /// problems of the lines they end come back (each naming its line).
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<Step>) -> Vec<String> {
        let (events, errors) = self.follower.push(bytes);
        self.steps(events, out);
        errors.iter().map(ToString::to_string).collect()
    }

    /// A one-document log rewritten whole: the steps of its new events.
    pub fn replace_document(&mut self, bytes: &[u8], out: &mut Vec<Step>) {
        let events = self.follower.replace_document(bytes);
        self.steps(events, out);
    }

    /// The end of the log: the last line, the held message, the open turn.
    pub fn finish(&mut self, out: &mut Vec<Step>) -> Vec<String> {
        let (events, errors) = self.follower.finish();
        self.steps(events, out);
        self.turns.finish(out);
        errors.iter().map(ToString::to_string).collect()
    }

    /// The log is idle (no new bytes at a poll): the agent's latest
    /// message, not yet known to be the response, as a [`Step::Draft`]
    /// when it is not the one shown already.
    pub fn idle(&mut self, out: &mut Vec<Step>) {
        if !std::mem::take(&mut self.fresh) {
            return;
        }
        let draft = self
            .follower
            .draft()
            .or_else(|| self.turns.held().map(str::to_owned));
        if let Some(text) = draft {
            if self.drafted.as_deref() != Some(text.as_str()) {
                out.push(Step::Draft {
                    response: text.clone(),
                });
                self.drafted = Some(text);
            }
        }
    }

    /// The steps of `events`, after the context if the log just said it.
    fn steps(&mut self, events: Vec<Event>, out: &mut Vec<Step>) {
        self.fresh = true;
        let before = out.len();
        if !self.titled {
            if let Some(title) = self.follower.title() {
                self.titled = true;
                out.push(Step::Context(title.to_owned()));
            }
        }
        self.turns.push(events, out);
        if out.len() > before {
            // The view took the draft away.
            self.drafted = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tact::types::ToolCall;

    fn kinds(steps: &[Step]) -> Vec<&'static str> {
        steps
            .iter()
            .map(|s| match s {
                Step::Turn { .. } => "turn",
                Step::TurnEvent(Event::Assistant { .. }) => "said",
                Step::TurnEvent(Event::Tool(_)) => "tool",
                Step::TurnEvent(_) => "event",
                Step::Propose(_) => "propose",
                Step::Respond { .. } => "respond",
                _ => "other",
            })
            .collect()
    }

    #[test]
    fn messages_before_a_call_are_intermediate_and_the_last_one_responds() {
        let mut t = TurnSteps::new();
        let mut out = Vec::new();
        t.push(
            vec![
                Event::assistant("Hello first."),
                Event::user("fix it"),
                Event::assistant("Looking."),
                Event::tool(ToolCall::new("Read")),
                Event::assistant("Which file?"),
                Event::user("a.rs"),
            ],
            &mut out,
        );
        t.finish(&mut out);
        assert_eq!(
            kinds(&out),
            [
                "turn", "respond", "turn", "said", "propose", "tool", "respond", "turn", "respond"
            ]
        );
        let responses: Vec<&str> = out
            .iter()
            .filter_map(|s| match s {
                Step::Respond { response, .. } => Some(response.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(responses, ["Hello first.", "Which file?", ""]);
    }

    /// A whole read classifies the questions in the log's title (the
    /// session's context); followed live, the title comes out before the
    /// first turn, so the questions are classified in it all the same.
    #[test]
    fn a_followed_log_says_its_title_before_its_turns() {
        let log = "# Fixing the cache\n\n_**User**_\n\nAdd a cache.\n\n---\n\n_**Assistant**_\n\nRedis or in-process?\n\n---\n";
        let path = Path::new("h.md");
        let whole = log_steps(Format::SpecStory, log, path, &ImportDefaults::default()).unwrap();
        assert!(
            matches!(&whole[0], Step::Begin(s) if s.context.as_deref() == Some("Fixing the cache"))
        );
        let mut f = LogFollower::new(Format::SpecStory, "h.md");
        let mut live = Vec::new();
        for chunk in log.as_bytes().chunks(7) {
            assert!(f.push(chunk, &mut live).is_empty());
        }
        assert!(f.finish(&mut live).is_empty());
        assert_eq!(live[0], Step::Context("Fixing the cache".into()));
        assert_eq!(&whole[1..], &live[1..]);
    }

    #[test]
    fn a_followed_claude_log_gives_the_turns_of_the_imported_session() {
        let log = concat!(
            r#"{"type":"user","sessionId":"s","message":{"role":"user","content":"Add a cache."}}"#,
            "\n",
            r#"{"type":"assistant","sessionId":"s","message":{"id":"m1","content":[{"type":"text","text":"Redis or in-process?"}]}}"#,
            "\n",
            r#"{"type":"user","sessionId":"s","message":{"role":"user","content":"In-process."}}"#,
            "\n",
        );
        let path = Path::new("t.jsonl");
        let whole = log_steps(Format::ClaudeCode, log, path, &ImportDefaults::default()).unwrap();
        let mut f = LogFollower::new(Format::ClaudeCode, "t.jsonl");
        let mut live = Vec::new();
        assert!(f.push(log.as_bytes(), &mut live).is_empty());
        assert!(f.finish(&mut live).is_empty());
        // The whole log starts with its header; the rest is the same.
        assert!(matches!(&whole[0], Step::Begin(s) if s.mode == LOG_MODE));
        assert_eq!(&whole[1..], &live[..]);
    }
}
