//! Gemini CLI's saved chats, in the shapes its versions write:
//!
//! - a checkpoint (`/chat save TAG` → `checkpoint-TAG.json`, or the
//!   `history` of a restorable tool-call checkpoint): a JSON array of
//!   `{role: user|model, parts}`, each part a `text` (a `thought: true`
//!   part is reasoning, skipped), a `functionCall {id?, name, args}` or a
//!   `functionResponse {id?, name, response}`;
//! - a recorded session (`chats/session-*.json`): an object with
//!   `sessionId`, `projectHash`, `startTime`, `messages` of `type`
//!   `user`, `gemini` (its `content`, `model`, and `toolCalls` of `name`,
//!   `args`, `result`, `status`), `info`, `error` or `warning`;
//! - the same session as JSON Lines (newer versions): a first line with
//!   `sessionId` and `projectHash`, then one message a line (a message
//!   written again later, once its calls finished, replaces the first),
//!   `$set` updates and `$rewindTo` marks (the messages from the one it
//!   names on are dropped, as the CLI does when the user rewinds).
//!
//! A user message is a prompt, except the context the CLI sends first
//! (`This is the Gemini CLI. We are setting up the context ...`) and the
//! model's `Got it. Thanks for the context!`, skipped; a model message's
//! text is the agent's words and its function calls tool calls, answered
//! by the function response of the same id (else the same name). A
//! recorded call failed when its `status` is `error` or `cancelled`, and
//! its output is the `result` the model got (else the `resultDisplay`
//! shown to the user); a function response failed when it carries an
//! `error`.

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use super::{ImportError, LogMeta, Sink, str_at, text_of};

/// The context the CLI sends before the user's first message.
const CONTEXT: &str = "This is the Gemini CLI. We are setting up the context";
/// The model's acknowledgement of it.
const CONTEXT_ACK: &str = "Got it. Thanks for the context!";

/// Whether a first record (or a document's start) is a Gemini CLI chat.
pub(crate) fn looks_like_record(v: &Value) -> bool {
    v.get("sessionId").is_some() && v.get("projectHash").is_some()
}

/// Whether a JSON array's start is a checkpoint: `role` `user`/`model`
/// entries with `parts`.
pub(crate) fn array_looks_like(t: &str) -> bool {
    let head: String = t.chars().take(4096).collect();
    super::has_key(&head, "parts")
        && (head.contains("\"role\": \"model\"")
            || head.contains("\"role\":\"model\"")
            || head.contains("\"role\": \"user\"")
            || head.contains("\"role\":\"user\""))
}

/// Reads a chat (any of the three shapes) from `reader`, one content or
/// message in memory at a time (a record over `limit` bytes is skipped
/// and reported). JSON Lines hold each message until the end (a later
/// line may rewrite or drop it), kept as the session keeps it: its texts
/// and calls, each output's head ([`super::MAX_OUTPUT_BYTES`]).
pub(crate) fn read(
    reader: &mut impl std::io::BufRead,
    sink: &mut Sink,
    limit: usize,
) -> Result<(), ImportError> {
    use std::io::Read;
    let source = sink.source.clone();
    sink.meta.agent = Some("gemini-cli".to_owned());
    if super::read::starts_array(reader) {
        let mut c = Checkpoint::default();
        super::read::scan_values(reader, sink, limit, &mut |key, v, sink| {
            if key.is_none() {
                c.content(&v, sink);
            }
        })?;
        return Ok(());
    }
    // An object: a session, pretty-printed or on one line, or JSON Lines
    // (a first line that is an object alone, not a session's).
    let cannot = |e: std::io::Error| ImportError::new(&source, 1, format!("cannot read: {e}"));
    let mut head = Vec::new();
    let mut lines = 0usize;
    let first = loop {
        let (line, ended) = super::read::first_line(reader, limit.min(1 << 20)).map_err(cannot)?;
        let blank = line.iter().all(u8::is_ascii_whitespace);
        head.extend_from_slice(&line);
        lines += 1;
        if !ended || line.is_empty() {
            break None;
        }
        if !blank {
            break serde_json::from_slice::<Value>(&line).ok().filter(|v| {
                v.is_object() && v.get("messages").is_none() && v.get("history").is_none()
            });
        }
    };
    match first {
        Some(v) => json_lines(v, lines, reader, sink, limit),
        None => document(&mut std::io::Cursor::new(head).chain(reader), sink, limit),
    }
}

/// A session or checkpoint object, one member (and one element of its
/// `messages` or `history`) at a time.
fn document(
    reader: &mut impl std::io::BufRead,
    sink: &mut Sink,
    limit: usize,
) -> Result<(), ImportError> {
    let source = sink.source.clone();
    let mut c = Checkpoint::default();
    let (mut history, mut messages, mut project) = (false, false, false);
    let (mut id, mut summary, mut start) = (None, None, None);
    let top = super::read::scan_values(reader, sink, limit, &mut |key, v, sink| match key {
        Some("history") => {
            history = true;
            c.content(&v, sink);
        }
        Some("messages") => {
            messages = true;
            Message::of(&v).give(sink);
        }
        Some("sessionId") => id = v.as_str().map(str::to_owned),
        Some("projectHash") => project = true,
        Some("summary") => summary = v.as_str().map(str::to_owned),
        Some("startTime") => start = v.as_str().map(str::to_owned),
        _ => {}
    })?;
    if top != b'{' || !(history || messages || (id.is_some() && project)) {
        return Err(ImportError::new(
            &source,
            1,
            "expected a Gemini CLI chat: a list of contents or a session",
        ));
    }
    if !history {
        session_meta(id.as_deref(), summary.as_deref(), start.as_deref(), sink);
    }
    Ok(())
}

/// A session as JSON Lines after its `first` record (`lines` lines read):
/// one message a line (a message written again replaces the first),
/// `$set` updates and `$rewindTo` marks (the messages from the one it
/// names on are dropped).
fn json_lines(
    first: Value,
    lines: usize,
    reader: &mut impl std::io::BufRead,
    sink: &mut Sink,
    limit: usize,
) -> Result<(), ImportError> {
    use tact_core::input::{Line, next_line};
    let source = sink.source.clone();
    let mut order: Vec<String> = Vec::new();
    let mut by_id: HashMap<String, Message> = HashMap::new();
    let mut position: HashMap<String, usize> = HashMap::new();
    let mut record = |v: Value, sink: &mut Sink| {
        if let Some(to) = str_at(&v, "$rewindTo") {
            // Each message is dropped at most once: linear.
            if let Some(at) = position.get(to).copied() {
                for id in order.drain(at..) {
                    by_id.remove(&id);
                    position.remove(&id);
                }
            }
            sink.meta.skipped += 1;
        } else if v.get("$set").is_some() {
            sink.meta.skipped += 1;
        } else if let Some(id) = str_at(&v, "id").filter(|_| v.get("type").is_some()) {
            let id = id.to_owned();
            if by_id.insert(id.clone(), Message::of(&v)).is_none() {
                position.insert(id.clone(), order.len());
                order.push(id);
            }
        } else if looks_like_record(&v) {
            session_meta(
                str_at(&v, "sessionId"),
                str_at(&v, "summary"),
                str_at(&v, "startTime"),
                sink,
            );
        } else {
            sink.meta.skipped += 1;
        }
    };
    record(first, sink);
    let mut buf = Vec::new();
    let mut number = lines;
    loop {
        number += 1;
        buf.clear();
        let read = next_line(reader, &mut buf, limit)
            .map_err(|e| ImportError::new(&source, number, format!("cannot read: {e}")))?;
        match read {
            Line::End => break,
            Line::TooLong(bytes) => sink.too_large(number, bytes, limit),
            Line::Read => {
                let t = std::str::from_utf8(&buf)
                    .map_err(|_| ImportError::new(&source, number, "invalid UTF-8"))?
                    .trim();
                if t.is_empty() {
                    continue;
                }
                let v: Value = serde_json::from_str(t).map_err(|e| {
                    ImportError::new(&source, number, format!("not a JSON record: {e}"))
                })?;
                record(v, sink);
            }
        }
    }
    for id in &order {
        if let Some(m) = by_id.remove(id) {
            m.give(sink);
        }
    }
    Ok(())
}

/// A session's id, summary and start time (the start before any
/// message's time, wherever it stands in the file).
fn session_meta(id: Option<&str>, summary: Option<&str>, start: Option<&str>, sink: &mut Sink) {
    sink.records += 1;
    LogMeta::set_once(&mut sink.meta.session_id, id);
    sink.title(summary);
    if let Some(t) = start.filter(|t| !t.is_empty()) {
        sink.meta.started = Some(t.to_owned());
        if sink.meta.ended.is_none() {
            sink.meta.ended = Some(t.to_owned());
        }
    }
}

/// Who wrote a recorded message.
#[derive(Debug, PartialEq, Eq)]
enum Kind {
    User,
    Gemini,
    Other,
}

/// A recorded session's message as the session keeps it.
#[derive(Debug)]
struct Message {
    timestamp: Option<String>,
    kind: Kind,
    text: String,
    model: Option<String>,
    group: String,
    calls: Vec<Call>,
}

/// A recorded call with its result: the output's head and length.
#[derive(Debug)]
struct Call {
    id: String,
    name: String,
    args: Value,
    output: (String, Option<usize>),
    ok: bool,
}

impl Message {
    fn of(m: &Value) -> Message {
        let kind = match str_at(m, "type") {
            Some("user") => Kind::User,
            Some("gemini") => Kind::Gemini,
            _ => Kind::Other,
        };
        let group = str_at(m, "id").unwrap_or("").to_owned();
        let mut calls = Vec::new();
        if let (Kind::Gemini, Some(Value::Array(list))) = (&kind, m.get("toolCalls")) {
            for (k, c) in list.iter().enumerate() {
                let id = str_at(c, "id")
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("{group}-{k}"));
                // What the model got back (a file read, the list a glob
                // found); the line shown to the user (empty for a read,
                // "Found 3 matching file(s)" for a glob) when the result
                // says nothing.
                let output = c.get("result").map(result_text).unwrap_or_default();
                let output = match c.get("resultDisplay") {
                    Some(Value::String(s)) if output.trim().is_empty() => s.clone(),
                    _ => output,
                };
                let ok = !matches!(str_at(c, "status"), Some("error" | "cancelled"));
                calls.push(Call {
                    id,
                    name: str_at(c, "name").unwrap_or("").to_owned(),
                    args: c.get("args").cloned().unwrap_or(Value::Null),
                    output: super::assemble::kept_output(&output, ok),
                    ok,
                });
            }
        }
        Message {
            timestamp: str_at(m, "timestamp").map(str::to_owned),
            text: content_text(m.get("content").unwrap_or(&Value::Null)),
            model: str_at(m, "model").map(str::to_owned),
            kind,
            group,
            calls,
        }
    }

    /// The message given to the session.
    fn give(self, sink: &mut Sink) {
        sink.meta.time(self.timestamp.as_deref());
        match self.kind {
            Kind::User => {
                sink.records += 1;
                if !self.text.trim_start().starts_with(CONTEXT) {
                    sink.asm.user(&self.text);
                }
            }
            Kind::Gemini => {
                sink.records += 1;
                if self.model.is_some() {
                    sink.meta.model = self.model;
                }
                sink.asm.assistant(&self.text);
                for c in self.calls {
                    sink.asm
                        .call(Some(&c.id), &c.name, c.args, Some(&self.group));
                    sink.asm.result_kept(&c.id, c.output, c.ok);
                }
            }
            Kind::Other => sink.meta.skipped += 1,
        }
    }
}

/// The text of a result (a part list of `functionResponse`s, or text).
fn result_text(v: &Value) -> String {
    match v {
        Value::Array(parts) => parts
            .iter()
            .map(|p| match p.get("functionResponse") {
                Some(fr) => response_text(fr.get("response").unwrap_or(&Value::Null)),
                None => text_of(p).into_owned(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(_) => match v.get("functionResponse") {
            Some(fr) => response_text(fr.get("response").unwrap_or(&Value::Null)),
            None => str_at(v, "text").unwrap_or("").to_owned(),
        },
        other => text_of(other).into_owned(),
    }
}

/// A function response's text: its `output`, else its `error`, else the
/// whole response.
fn response_text(r: &Value) -> String {
    match r {
        Value::Object(o) => o
            .get("output")
            .or_else(|| o.get("error"))
            .or_else(|| o.get("content"))
            .map(|v| text_of(v).into_owned())
            .unwrap_or_else(|| r.to_string()),
        other => text_of(other).into_owned(),
    }
}

/// The text parts of a part list that are not thoughts.
fn parts_text(parts: &[Value]) -> String {
    parts
        .iter()
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|p| match p {
            Value::String(s) => Some(s.as_str()),
            other => str_at(other, "text"),
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Text of a content value: a string, a part, or a part list (text parts
/// that are not thoughts).
fn content_text(v: &Value) -> String {
    match v {
        Value::Array(parts) => parts_text(parts),
        Value::Object(_) => str_at(v, "text").unwrap_or("").to_owned(),
        other => text_of(other).into_owned(),
    }
}

/// A checkpoint's reader: its calls waiting for a response, by name.
#[derive(Debug, Default)]
struct Checkpoint {
    open_by_name: HashMap<String, VecDeque<String>>,
    calls: usize,
    index: usize,
}

impl Checkpoint {
    /// One content of the checkpoint.
    fn content(&mut self, c: &Value, sink: &mut Sink) {
        let i = self.index;
        self.index += 1;
        let Some(parts) = c.get("parts").and_then(Value::as_array) else {
            sink.meta.skipped += 1;
            return;
        };
        sink.records += 1;
        let group = format!("c{i}");
        match str_at(c, "role") {
            Some("model") => {
                let text = parts_text(parts);
                if text.trim() != CONTEXT_ACK {
                    sink.asm.assistant(&text);
                }
                for p in parts {
                    let Some(fc) = p.get("functionCall") else {
                        continue;
                    };
                    self.calls += 1;
                    let name = str_at(fc, "name").unwrap_or("");
                    let id = str_at(fc, "id")
                        .map(str::to_owned)
                        .unwrap_or_else(|| format!("call-{}", self.calls));
                    self.open_by_name
                        .entry(name.to_owned())
                        .or_default()
                        .push_back(id.clone());
                    let args = fc.get("args").cloned().unwrap_or(Value::Null);
                    sink.asm.call(Some(&id), name, args, Some(&group));
                }
            }
            _ => {
                let mut text = Vec::new();
                for p in parts {
                    if let Some(fr) = p.get("functionResponse") {
                        let name = str_at(fr, "name").unwrap_or("");
                        let by_name = self
                            .open_by_name
                            .get_mut(name)
                            .and_then(VecDeque::pop_front);
                        let id = str_at(fr, "id").map(str::to_owned).or(by_name);
                        let r = fr.get("response").unwrap_or(&Value::Null);
                        let ok = r.get("error").is_none();
                        if let Some(id) = id {
                            sink.asm.result(&id, &response_text(r), ok);
                        }
                    } else if let Some(t) = str_at(p, "text") {
                        text.push(t);
                    }
                }
                let text = text.join("\n\n");
                if !text.trim_start().starts_with(CONTEXT) {
                    sink.asm.user(&text);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::import::{Format, import_text};
    use tact_types::trajectory::Event;

    #[test]
    fn a_checkpoint_and_a_session_give_the_same_turn() {
        let checkpoint = r#"[
 {"role":"user","parts":[{"text":"This is the Gemini CLI. We are setting up the context for our chat."}]},
 {"role":"model","parts":[{"text":"Got it. Thanks for the context!"}]},
 {"role":"user","parts":[{"text":"List the files."}]},
 {"role":"model","parts":[{"text":"Listing."},{"functionCall":{"name":"list_directory","args":{"path":"."}}}]},
 {"role":"user","parts":[{"functionResponse":{"name":"list_directory","response":{"output":"a.rs"}}}]},
 {"role":"model","parts":[{"text":"There is a.rs. Open it?"}]}
]"#;
        let c = import_text(Format::GeminiCli, checkpoint, "checkpoint-x.json").unwrap();
        let session = r#"{"sessionId":"s1","projectHash":"h","startTime":"2025-01-01T00:00:00Z","messages":[
 {"id":"1","timestamp":"2025-01-01T00:00:01Z","type":"user","content":"List the files."},
 {"id":"2","timestamp":"2025-01-01T00:00:02Z","type":"gemini","content":"Listing.","model":"gemini-2.5-pro","toolCalls":[{"id":"t1","name":"list_directory","args":{"path":"."},"result":[{"functionResponse":{"id":"t1","name":"list_directory","response":{"output":"a.rs"}}}],"status":"success"}]},
 {"id":"3","timestamp":"2025-01-01T00:00:03Z","type":"gemini","content":"There is a.rs. Open it?"}
]}"#;
        let s = import_text(Format::GeminiCli, session, "session-1.json").unwrap();
        for l in [&c, &s] {
            assert_eq!(l.turns.len(), 1, "{l:?}");
            let t = &l.turns[0];
            assert_eq!(t.prompt, "List the files.");
            assert_eq!(t.response, "There is a.rs. Open it?");
            let Event::Tool(call) = &t.events[1] else {
                panic!("{:?}", t.events)
            };
            assert_eq!(call.name, "list_directory");
            assert_eq!(call.output.as_str(), Some("a.rs"));
        }
        assert_eq!(s.meta.model.as_deref(), Some("gemini-2.5-pro"));
        // The session as JSON Lines, its last message written twice.
        let lines = r#"{"sessionId":"s1","projectHash":"h","startTime":"2025-01-01T00:00:00Z"}
{"id":"1","timestamp":"2025-01-01T00:00:01Z","type":"user","content":"List the files."}
{"id":"2","timestamp":"2025-01-01T00:00:02Z","type":"gemini","content":"Listing.","model":"gemini-2.5-pro","toolCalls":[{"id":"t1","name":"list_directory","args":{"path":"."},"result":[{"functionResponse":{"id":"t1","name":"list_directory","response":{"output":"a.rs"}}}],"status":"success"}]}
{"$set":{"lastUpdated":"2025-01-01T00:00:03Z"}}
{"id":"3","timestamp":"2025-01-01T00:00:03Z","type":"gemini","content":""}
{"id":"3","timestamp":"2025-01-01T00:00:03Z","type":"gemini","content":"There is a.rs. Open it?"}"#;
        let j = import_text(Format::GeminiCli, lines, "session-1.jsonl").unwrap();
        assert_eq!(j.turns, s.turns);
    }

    #[test]
    fn each_shape_is_streamed_whatever_its_layout() {
        let messages = r#"[{"id":"1","timestamp":"2025-01-01T00:00:01Z","type":"user","content":"Go."},{"id":"2","timestamp":"2025-01-01T00:00:02Z","type":"gemini","content":"Done. More?"}]"#;
        // The start time after the messages is still the session's start.
        let one_line = format!(
            r#"{{"sessionId":"s1","projectHash":"h","messages":{messages},"startTime":"2025-01-01T00:00:00Z"}}"#
        );
        let pretty = format!(
            "\n{{\n  \"sessionId\": \"s1\",\n  \"projectHash\": \"h\",\n  \"startTime\": \"2025-01-01T00:00:00Z\",\n  \"messages\": {messages}\n}}\n"
        );
        let lines = "\n{\"sessionId\":\"s1\",\"projectHash\":\"h\",\"startTime\":\"2025-01-01T00:00:00Z\"}\n\n{\"id\":\"1\",\"timestamp\":\"2025-01-01T00:00:01Z\",\"type\":\"user\",\"content\":\"Go.\"}\n{\"id\":\"2\",\"timestamp\":\"2025-01-01T00:00:02Z\",\"type\":\"gemini\",\"content\":\"Done. More?\"}\n";
        for (name, text) in [
            ("one line", one_line.as_str()),
            ("pretty", &pretty),
            ("lines", lines),
        ] {
            let l = import_text(Format::GeminiCli, text, "session-1.json").unwrap();
            assert_eq!(l.meta.session_id.as_deref(), Some("s1"), "{name}");
            assert_eq!(
                l.meta.started.as_deref(),
                Some("2025-01-01T00:00:00Z"),
                "{name}"
            );
            assert_eq!(
                l.meta.ended.as_deref(),
                Some("2025-01-01T00:00:02Z"),
                "{name}"
            );
            assert_eq!(l.turns.len(), 1, "{name}");
            assert_eq!(
                (l.turns[0].prompt.as_str(), l.turns[0].response.as_str()),
                ("Go.", "Done. More?"),
                "{name}"
            );
        }
        // An object that is no chat, and a broken one, are errors.
        assert!(import_text(Format::GeminiCli, "{\"a\": 1}", "x.json").is_err());
        assert!(import_text(Format::GeminiCli, "{\n\"messages\": [\n", "x.json").is_err());
    }

    /// The newer recorded shape (`kind: main`, a user `content` of parts,
    /// a model turn of calls only): a call's output is what the model got
    /// back, not the line shown to the user (empty for a read); a
    /// rejected command fails with its error; `info` and `error` messages
    /// are the CLI's, no turn.
    #[test]
    fn a_call_keeps_the_result_the_model_got() {
        let session = r##"{"sessionId":"s2","projectHash":"h","startTime":"2026-03-27T00:00:00Z","kind":"main","messages":[
 {"id":"1","timestamp":"2026-03-27T00:00:01Z","type":"user","content":[{"text":"Update the README."}]},
 {"id":"2","timestamp":"2026-03-27T00:00:02Z","type":"gemini","content":"","toolCalls":[
   {"id":"r1","name":"read_file","args":{"file_path":"README.md"},"result":[{"functionResponse":{"id":"r1","name":"read_file","response":{"output":"# Title"}}}],"status":"success","resultDisplay":""},
   {"id":"g1","name":"glob","args":{"pattern":"*.md"},"result":[{"functionResponse":{"id":"g1","name":"glob","response":{"output":"README.md\nCONTRIBUTING.md"}}}],"status":"success","resultDisplay":"Found 2 matching file(s)"},
   {"id":"s1","name":"run_shell_command","args":{"command":"whoami"},"result":[{"functionResponse":{"id":"s1","name":"run_shell_command","response":{"error":"Command rejected because it could not be parsed safely"}}}],"status":"error","resultDisplay":"Command rejected because it could not be parsed safely"}]},
 {"id":"3","timestamp":"2026-03-27T00:00:03Z","type":"info","content":"Request cancelled."},
 {"id":"4","timestamp":"2026-03-27T00:00:04Z","type":"error","content":"[API Error: fetch failed]"},
 {"id":"5","timestamp":"2026-03-27T00:00:05Z","type":"gemini","content":"Done."}
]}"##;
        let l = import_text(Format::GeminiCli, session, "session-2.json").unwrap();
        assert_eq!(l.turns.len(), 1, "{l:?}");
        let t = &l.turns[0];
        assert_eq!(
            (t.prompt.as_str(), t.response.as_str()),
            ("Update the README.", "Done.")
        );
        let calls: Vec<_> = t
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Tool(c) => Some((c.output.as_str().unwrap_or(""), c.ok)),
                _ => None,
            })
            .collect();
        assert_eq!(
            calls,
            [
                ("# Title", true),
                ("README.md\nCONTRIBUTING.md", true),
                (
                    "Command rejected because it could not be parsed safely",
                    false
                )
            ]
        );
    }
}
