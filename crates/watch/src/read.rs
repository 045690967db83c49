//! Reading a session as it is written: tact's native formats (one event,
//! a proposal of pending calls or a whole session per JSON line, or one
//! session file) turned into the [`Step`]s the view ingests.
//!
//! A [`Reader`] maps one line to records; [`Native`] is tact's own, and
//! [`parse_line`] is the one path `tact guide --follow` reads its lines
//! with too, so a line costs the same in both. An importer of another
//! agent-log format plugs in as another [`Reader`].

use serde_json::Value;
use tact::scoring::{AskedQuestion, Session};
use tact::types::{Event, PendingCall, Trajectory};

use crate::Error;
use crate::label::Labels;

/// One record of a session stream.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Record {
    /// One agent event (`{"type": ...}`).
    Event(Event),
    /// The calls the agent proposes next (`{"pending": [...]}`).
    Pending(Vec<PendingCall>),
    /// A whole session (`{"agent": ..., "outcome": ..., "turns": [...]}`):
    /// a new session starts (with its preferences and context), its turns
    /// replayed as a host saw them.
    Session(Box<Session>),
}

/// Parses one line of tact's event stream: `Ok(None)` for a blank line or
/// a `//` comment, else the record it holds, or why it holds none (not
/// UTF-8, not JSON, a bad event, proposal or session, or another value).
/// `tact guide --follow` reads its lines with it.
pub fn parse_line(bytes: &[u8]) -> Result<Option<Record>, Error> {
    let line = std::str::from_utf8(bytes).map_err(|_| Error::InvalidUtf8)?;
    let trimmed = line.trim();
    if trimmed.is_empty() || trimmed.starts_with("//") {
        return Ok(None);
    }
    let value: Value = serde_json::from_str(trimmed).map_err(Error::NotJson)?;
    record(value).map(Some)
}

/// The record a JSON value holds.
fn record(value: Value) -> Result<Record, Error> {
    if value.get("type").is_some() {
        return serde_json::from_value(value)
            .map(Record::Event)
            .map_err(Error::Event);
    }
    if let Some(p) = value.get("pending") {
        return <Vec<PendingCall> as serde::Deserialize>::deserialize(p)
            .map(Record::Pending)
            .map_err(Error::Pending);
    }
    if value.get("agent").is_some() || value.get("turns").is_some() {
        return session(value).map(|s| Record::Session(Box::new(s)));
    }
    Err(Error::NotARecord)
}

fn session(value: Value) -> Result<Session, Error> {
    let bad = |m: String| Error::Session(tact::types::excerpt::excerpt(&m).into_owned());
    let session: Session = serde_json::from_value(value).map_err(|e| bad(e.to_string()))?;
    session.validate().map_err(|e| bad(e.to_string()))?;
    Ok(session)
}

/// Parses a whole document that is not JSON Lines: a session (a `.json`
/// session file), a trajectory object (`events`, optional `pending`), or
/// a JSON array of events. `None` when it is no JSON value at all (then
/// it is read as lines).
pub fn parse_document(text: &str) -> Option<Result<Vec<Record>, Error>> {
    let value: Value = serde_json::from_str(text).ok()?;
    Some(match value {
        Value::Array(_) => serde_json::from_value::<Vec<Event>>(value)
            .map(|events| events.into_iter().map(Record::Event).collect())
            .map_err(Error::Event),
        Value::Object(ref o) if o.contains_key("events") && !o.contains_key("agent") => {
            serde_json::from_value::<Trajectory>(value)
                .map(|t| {
                    let mut records: Vec<Record> =
                        t.events.into_iter().map(Record::Event).collect();
                    if !t.pending.is_empty() {
                        records.push(Record::Pending(t.pending));
                    }
                    records
                })
                .map_err(Error::Event)
        }
        other => record(other).map(|r| vec![r]),
    })
}

/// A format of session logs, read one line at a time. A reader may keep
/// state across lines (a tool call in one record and its result in the
/// next) and push any number of records per line.
pub trait Reader: Send {
    /// The format's name, shown in the status line.
    fn name(&self) -> &str;

    /// Reads one line (without its end of line) into `out`; a line that
    /// holds nothing (blank, a comment, a record of no interest) pushes
    /// nothing. An error skips the line only.
    fn read_line(&mut self, line: &[u8], out: &mut Vec<Record>) -> Result<(), Error>;
}

/// tact's own stream: [`parse_line`] on each line.
#[derive(Debug, Clone, Copy, Default)]
pub struct Native;

impl Reader for Native {
    fn name(&self) -> &str {
        "tact"
    }

    fn read_line(&mut self, line: &[u8], out: &mut Vec<Record>) -> Result<(), Error> {
        out.extend(parse_line(line)?);
        Ok(())
    }
}

/// One thing the view ingests, in order. A session record becomes many:
/// as `tact run` replays it, each turn's prompt, its events (each tool
/// call proposed before it is observed) and its response.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Step {
    /// A new session starts: its header (agent, spec, stage, mode,
    /// preferences, context, outcome), without turns.
    Begin(Box<Session>),
    /// A turn of a session opens with the user's prompt (maybe empty).
    Turn {
        /// The prompt.
        prompt: String,
    },
    /// An event of a session turn, between its prompt and its response.
    TurnEvent(Event),
    /// The turn's response closes it (with the questions the host
    /// supplied, if any).
    Respond {
        /// The response.
        response: String,
        /// The host's questions, else those of the response are classified.
        questions: Option<Vec<AskedQuestion>>,
    },
    /// An event of a bare stream: a `user` message opens a turn, an
    /// `assistant` message is that turn's response so far.
    Event(Event),
    /// Calls the agent proposes next.
    Propose(Vec<PendingCall>),
    /// The session's context became known (a followed log's title, which
    /// a whole read puts in the header): the questions read from here are
    /// classified in it.
    Context(String),
    /// The agent's latest message while a followed log is idle, not yet
    /// known to be the turn's response or an intermediate message: shown
    /// provisionally (with its questions), neither observed by guidance
    /// nor scored, and taken away by the next step (which says what it
    /// was) or replaced by the next draft.
    Draft {
        /// The message so far.
        response: String,
    },
    /// A step with what the classifiers said of it, labelled where it was
    /// read ([`Labeler`](crate::label::Labeler)): the view ingests the
    /// step without classifying it again.
    Labeled {
        /// The step.
        step: Box<Step>,
        /// Its route or its questions.
        labels: Labels,
    },
}

/// Appends the steps of `record` to `out`.
pub fn steps(record: Record, out: &mut Vec<Step>) {
    match record {
        Record::Event(e) => out.push(Step::Event(e)),
        Record::Pending(p) => out.push(Step::Propose(p)),
        Record::Session(mut session) => {
            let turns = std::mem::take(&mut session.turns);
            out.push(Step::Begin(session));
            for turn in turns {
                out.push(Step::Turn {
                    prompt: turn.prompt,
                });
                for event in turn.events {
                    if let Event::Tool(call) = &event {
                        out.push(Step::Propose(vec![PendingCall::new(
                            call.name.clone(),
                            call.params.clone(),
                        )]));
                    }
                    out.push(Step::TurnEvent(event));
                }
                out.push(Step::Respond {
                    response: turn.response,
                    questions: turn.questions,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_hold_events_proposals_and_sessions() {
        assert_eq!(parse_line(b"").unwrap(), None);
        assert_eq!(parse_line(b"  // note\n").unwrap(), None);
        assert_eq!(
            parse_line(b"{\"type\":\"user\",\"text\":\"hi\"}\n").unwrap(),
            Some(Record::Event(Event::user("hi")))
        );
        assert!(matches!(
            parse_line(br#"{"pending":[{"name":"db","params":{}}]}"#).unwrap(),
            Some(Record::Pending(p)) if p.len() == 1
        ));
        let s = br#"{"agent":"a","outcome":{"kind":"build","success":true},"turns":[{"prompt":"go","response":"Done?"}]}"#;
        let Some(Record::Session(session)) = parse_line(s).unwrap() else {
            panic!("a session")
        };
        let mut out = Vec::new();
        steps(Record::Session(session), &mut out);
        assert_eq!(out.len(), 3);
        assert!(matches!(&out[2], Step::Respond { response, .. } if response == "Done?"));
    }

    #[test]
    fn bad_lines_say_why() {
        let e = |b: &[u8]| parse_line(b).unwrap_err().to_string();
        assert_eq!(e(b"\xff"), "invalid UTF-8");
        assert!(e(b"npm WARN").starts_with("not valid JSON"));
        assert!(e(b"[1]").starts_with("expected an event"));
        assert!(e(br#"{"type":"bogus"}"#).contains("bogus"));
        assert!(e(br#"{"pending":3}"#).starts_with("bad `pending`"));
        assert!(e(br#"{"agent":""}"#).starts_with("bad session"));
    }

    #[test]
    fn documents_are_sessions_trajectories_or_event_arrays() {
        let arr = parse_document(r#"[{"type":"user","text":"a"}]"#).unwrap();
        assert_eq!(arr.unwrap().len(), 1);
        let t = parse_document(r#"{"events":[{"type":"condensation"}],"pending":[{"name":"x"}]}"#)
            .unwrap()
            .unwrap();
        assert_eq!(t.len(), 2);
        assert!(parse_document("{\"type\":\"user\"}\n{\"type\":\"user\"}").is_none());
        assert!(parse_document("42").unwrap().is_err());
    }
}
