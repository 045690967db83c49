//! Cline's task folders (`tasks/<id>/` of its VS Code storage, and forks
//! that keep them: Roo Code, Kilo Code): `api_conversation_history.json`,
//! the conversation as the model saw it, and `ui_messages.json`, what the
//! user saw. Either file is read as a log; a folder walk reads the first
//! and passes over the second beside it.
//!
//! `api_conversation_history.json` is a JSON array of Anthropic-style
//! messages (`role`, `content`: a string or `text`, `tool_use`,
//! `tool_result` blocks). The first user message's `<task>` is the prompt
//! (`<environment_details>` and other context Cline appends are not the
//! user's words). Cline's tools are XML blocks in the assistant's text
//! (`<read_file><path>…</path></read_file>`): each is a call named by its
//! tag with its child tags as parameters, answered by the next user
//! message's `[tool for '…'] Result:` block (failed when it reports an
//! error or the user denied it); native `tool_use` blocks are calls too,
//! answered by `tool_result` (`is_error`). `ask_followup_question` is a
//! question to the user: its question (and options) is the agent's words,
//! which end the turn as its response, and the user's `<answer>` opens the
//! next; `attempt_completion`'s `result` and `plan_mode_respond`'s
//! `response` are the agent's words too, and the user's `<feedback>` is a
//! new prompt. `<thinking>` is reasoning, skipped.
//!
//! `ui_messages.json` is a JSON array of `{ts, type: say|ask, say|ask,
//! text}`: `say: task` and `say: user_feedback` are prompts, `say: text`,
//! `say: completion_result` and `ask: plan_mode_respond` the agent's
//! words, `ask: followup` its question (`{"question", "options"}`),
//! `ask`/`say: tool` a tool (`{"tool", "path", ...}`), `ask: command` a
//! command answered by the `say: command_output` that follows, `say:
//! error` a failure of the last call; API requests, reasoning and
//! checkpoints are skipped.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value, json};

use super::{ImportError, Sink, str_at};

/// Cline's tags that are not tools.
const NOT_TOOLS: [&str; 12] = [
    "thinking",
    "task",
    "environment_details",
    "feedback",
    "answer",
    "user_message",
    "error",
    "result",
    "question",
    "options",
    "explanation",
    "file_content",
];

/// Whether a JSON array's start is a Cline task file (by its file name,
/// or by what only Cline writes).
pub(crate) fn looks_like(path: &std::path::Path, t: &str) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if name == "api_conversation_history.json" || name == "ui_messages.json" {
        return true;
    }
    let head: String = t.chars().take(4096).collect();
    let ui = (head.contains("\"say\"") || head.contains("\"ask\""))
        && head.contains("\"ts\"")
        && head.contains("\"type\"");
    let api = head.contains("\"role\"") && head.contains("<task>");
    ui || api
}

/// An XML tool block at the start of a line: `<name>` … `</name>`.
static TAG: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?m)^[ \t]*<([a-z][a-z0-9_]*)>").ok());

/// A tool result block's header: `[name for 'x'] Result:` / `[name] Result:`.
static RESULT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^\[([a-z_]+)(?: for [^\]]*)?\] Result:").ok());

/// The reader of a task file, once its first message says which it is.
#[derive(Debug)]
enum Reading {
    Unknown,
    Api(Api),
    Ui(Ui),
}

/// Reads a task file from `reader`, one message in memory at a time
/// (never the whole document); one over `limit` bytes is skipped and
/// reported. The first message says which file it is: a `say` or `ask`
/// is `ui_messages.json`, anything else `api_conversation_history.json`.
pub(crate) fn read(
    reader: &mut impl std::io::BufRead,
    sink: &mut Sink,
    limit: usize,
) -> Result<(), ImportError> {
    let source = sink.source.clone();
    sink.meta.agent = Some("cline".to_owned());
    let mut reading = Reading::Unknown;
    let top = super::read::scan_values(reader, sink, limit, &mut |key, m, sink| {
        if key.is_some() {
            return;
        }
        if matches!(reading, Reading::Unknown) {
            reading = if m.get("say").is_some() || m.get("ask").is_some() {
                Reading::Ui(Ui::default())
            } else {
                Reading::Api(Api::default())
            };
        }
        match &mut reading {
            Reading::Api(state) => state.message(&m, sink),
            Reading::Ui(state) => state.message(&m, sink),
            Reading::Unknown => {}
        }
    })?;
    if top != b'[' {
        return Err(ImportError::new(
            &source,
            1,
            "expected a Cline task file: a JSON array of messages",
        ));
    }
    Ok(())
}

/// The text of `<tag>…</tag>` inside `s`.
fn inner<'a>(s: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = s.find(&open)? + open.len();
    let end = s[start..].find(&close)? + start;
    Some(s[start..end].trim())
}

/// Removes every `<tag>…</tag>` block (an unclosed one to the end): `s`
/// itself when it has none.
fn without<'a>(s: &'a str, tag: &str) -> std::borrow::Cow<'a, str> {
    let open = format!("<{tag}>");
    if !s.contains(&open) {
        return std::borrow::Cow::Borrowed(s);
    }
    let close = format!("</{tag}>");
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find(&open) {
        out.push_str(&rest[..at]);
        match rest[at..].find(&close) {
            Some(end) => rest = &rest[at + end + close.len()..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// The child tags of a tool block as parameters (a tag with no closing
/// tag after it is searched for once: linear).
fn params_of(body: &str) -> Map<String, Value> {
    let mut params = Map::new();
    let mut unclosed: HashSet<&str> = HashSet::new();
    let mut rest = body;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let Some(gt) = after.find('>') else { break };
        let name = &after[..gt];
        if name.is_empty()
            || !name.chars().all(|c| c.is_ascii_lowercase() || c == '_')
            || unclosed.contains(name)
        {
            rest = after;
            continue;
        }
        let close = format!("</{name}>");
        let value_start = &after[gt + 1..];
        match value_start.find(&close) {
            Some(end) => {
                let value = value_start[..end].trim_matches('\n');
                params.insert(name.to_owned(), Value::String(value.to_owned()));
                rest = &value_start[end + close.len()..];
            }
            None => {
                unclosed.insert(name);
                rest = value_start;
            }
        }
    }
    params
}

/// The question and options of an `ask_followup_question`, as the agent's
/// words.
fn question_text(question: &str, options: Option<&str>) -> String {
    let mut out = question.trim().to_owned();
    if let Some(opts) = options.filter(|o| !o.trim().is_empty()) {
        let list: Vec<String> = serde_json::from_str::<Vec<String>>(opts)
            .unwrap_or_else(|_| vec![opts.trim().to_owned()]);
        for o in list {
            out.push_str("\n- ");
            out.push_str(&o);
        }
    }
    out
}

/// Whether a tool result reports a failure.
fn result_failed(text: &str) -> bool {
    text.contains("The user denied this operation")
        || text.contains("The tool execution failed")
        || text.contains("<error>")
        || text.starts_with("Error")
        || text.contains("\nError executing")
}

#[derive(Debug, Default)]
struct Api {
    /// The open XML calls, oldest first (Cline runs one a message).
    open: Vec<(String, String)>,
    calls: usize,
    messages: usize,
}

impl Api {
    fn message(&mut self, m: &Value, sink: &mut Sink) {
        self.messages += 1;
        if let Some(ts) = m.get("ts").and_then(Value::as_i64) {
            sink.meta.time(Some(&ts.to_string()));
        }
        let one;
        let blocks: &[Value] = match m.get("content") {
            Some(Value::String(s)) => {
                one = [json!({"type": "text", "text": s})];
                &one
            }
            Some(Value::Array(a)) => a,
            _ => {
                sink.meta.skipped += 1;
                return;
            }
        };
        sink.records += 1;
        if let Some(model) = m
            .get("modelInfo")
            .and_then(|i| str_at(i, "modelId"))
            .filter(|s| !s.is_empty())
        {
            sink.meta.model = Some(model.to_owned());
        }
        match str_at(m, "role") {
            Some("assistant") => {
                for b in blocks {
                    match str_at(b, "type") {
                        Some("text") => self.assistant_text(str_at(b, "text").unwrap_or(""), sink),
                        Some("tool_use") => {
                            let id = str_at(b, "id");
                            let name = str_at(b, "name").unwrap_or("");
                            let input = b.get("input").cloned().unwrap_or(Value::Null);
                            self.tool(id.map(str::to_owned), name, input, sink);
                        }
                        _ => {}
                    }
                }
            }
            _ => self.user(blocks, sink),
        }
    }

    fn tool(&mut self, id: Option<String>, name: &str, params: Value, sink: &mut Sink) {
        self.calls += 1;
        let id = id.unwrap_or_else(|| format!("xml-{}", self.calls));
        let group = format!("m{}", self.messages);
        match name {
            "attempt_completion" => {
                sink.asm.assistant(str_at(&params, "result").unwrap_or(""));
                sink.meta.exit_status = Some("completed".to_owned());
            }
            "plan_mode_respond" => sink
                .asm
                .assistant(str_at(&params, "response").unwrap_or("")),
            "ask_followup_question" => {
                let q = question_text(
                    str_at(&params, "question").unwrap_or(""),
                    str_at(&params, "options"),
                );
                sink.asm.call(Some(&id), name, params, Some(&group));
                self.open.push((name.to_owned(), id));
                // The question is the agent's last words of the turn.
                sink.asm.assistant(&q);
            }
            _ => {
                sink.asm.call(Some(&id), name, params, Some(&group));
                self.open.push((name.to_owned(), id));
            }
        }
    }

    fn assistant_text(&mut self, text: &str, sink: &mut Sink) {
        let text = without(text, "thinking");
        let Some(re) = TAG.as_ref() else {
            sink.asm.assistant(&text);
            return;
        };
        // Tags with no closing tag after the point they were looked for
        // from: none later either, so each is searched for once (linear).
        let mut unclosed: HashSet<String> = HashSet::new();
        let mut rest = &*text;
        loop {
            let found = re.captures_iter(rest).find_map(|c| {
                let name = c.get(1)?.as_str();
                if NOT_TOOLS.contains(&name) || unclosed.contains(name) {
                    return None;
                }
                let close = format!("</{name}>");
                let start = c.get(0)?.start();
                let body_start = c.get(0)?.end();
                let Some(end) = rest[body_start..].find(&close) else {
                    unclosed.insert(name.to_owned());
                    return None;
                };
                let end = end + body_start;
                Some((name.to_owned(), start, body_start, end, end + close.len()))
            });
            let Some((name, start, body_start, end, after)) = found else {
                sink.asm.assistant(rest);
                return;
            };
            sink.asm.assistant(&rest[..start]);
            let params = Value::Object(params_of(&rest[body_start..end]));
            self.tool(None, &name, params, sink);
            rest = &rest[after..];
        }
    }

    fn user(&mut self, blocks: &[Value], sink: &mut Sink) {
        // A `[tool] Result:` block and the text blocks after it are the
        // tool's output.
        let mut pending: Option<(String, String)> = None;
        for b in blocks {
            match str_at(b, "type") {
                Some("tool_result") => {
                    self.finish_result(pending.take(), sink);
                    let id = str_at(b, "tool_use_id").unwrap_or("");
                    let output = super::text_of(b.get("content").unwrap_or(&Value::Null));
                    let failed = b.get("is_error").and_then(Value::as_bool) == Some(true);
                    self.answer(id, &output, !failed, sink);
                }
                Some("text") => {
                    let t = str_at(b, "text").unwrap_or("").trim_start();
                    if let Some(c) = RESULT.as_ref().and_then(|re| re.captures(t)) {
                        self.finish_result(pending.take(), sink);
                        let name = c.get(1).map_or("", |m| m.as_str()).to_owned();
                        let header_end = c.get(0).map_or(0, |m| m.end());
                        pending = Some((name, t[header_end..].trim().to_owned()));
                    } else if t.starts_with("<environment_details>") {
                    } else if let Some((_, out)) = &mut pending {
                        if !out.is_empty() {
                            out.push_str("\n\n");
                        }
                        out.push_str(t.trim());
                    } else {
                        self.user_text(t, sink);
                    }
                }
                _ => {}
            }
        }
        self.finish_result(pending, sink);
    }

    /// A `[tool] Result:` with its output: the open call of that tool
    /// answered; an answer to a question, or feedback, is a new prompt.
    fn finish_result(&mut self, pending: Option<(String, String)>, sink: &mut Sink) {
        let Some((name, output)) = pending else {
            return;
        };
        let output = without(&output, "environment_details");
        let output = output.trim();
        if let Some(at) = self.open.iter().position(|(n, _)| *n == name) {
            let (_, id) = self.open.remove(at);
            sink.asm.result(&id, output, !result_failed(output));
        }
        if let Some(a) = inner(output, "answer") {
            sink.asm.user(a);
        } else if let Some(f) = inner(output, "feedback") {
            sink.asm.user(f);
        }
    }

    /// The result of the native call `id` (the user's answer to a
    /// question opens the next turn).
    fn answer(&mut self, id: &str, output: &str, ok: bool, sink: &mut Sink) {
        let name = self
            .open
            .iter()
            .position(|(_, i)| i == id)
            .map(|at| self.open.remove(at).0);
        sink.asm.result(id, output, ok);
        if name.as_deref() == Some("ask_followup_question") {
            if let Some(a) = inner(output, "answer") {
                sink.asm.user(a);
            }
        }
    }

    fn user_text(&mut self, t: &str, sink: &mut Sink) {
        if let Some(task) = inner(t, "task") {
            sink.asm.user(task);
            return;
        }
        if let Some(f) = inner(t, "feedback").or_else(|| inner(t, "user_message")) {
            sink.asm.user(f);
            return;
        }
        // Cline's own notices (resumption, errors) are not the user's words.
        if t.starts_with('[') {
            sink.meta.skipped += 1;
            return;
        }
        sink.asm.user(&without(t, "environment_details"));
    }
}

#[derive(Debug, Default)]
struct Ui {
    calls: usize,
    /// The open command (its output follows), and the last call.
    command: Option<String>,
    last: Option<String>,
}

impl Ui {
    fn call(&mut self, name: &str, params: Value, sink: &mut Sink) -> String {
        self.calls += 1;
        let id = format!("ui-{}", self.calls);
        sink.asm.call(Some(&id), name, params, None);
        self.last = Some(id.clone());
        id
    }

    fn close_command(&mut self, sink: &mut Sink) {
        if let Some(id) = self.command.take() {
            sink.asm.result(&id, "", true);
        }
    }

    fn message(&mut self, m: &Value, sink: &mut Sink) {
        if let Some(ts) = m.get("ts").and_then(Value::as_i64) {
            sink.meta.time(Some(&ts.to_string()));
        }
        let text = str_at(m, "text").unwrap_or("");
        if m.get("partial").and_then(Value::as_bool) == Some(true) {
            sink.meta.skipped += 1;
            return;
        }
        let kind = match str_at(m, "type") {
            Some("say") => ("say", str_at(m, "say").unwrap_or("")),
            Some("ask") => ("ask", str_at(m, "ask").unwrap_or("")),
            _ => {
                sink.meta.skipped += 1;
                return;
            }
        };
        sink.records += 1;
        if kind != ("say", "command_output") {
            self.close_command(sink);
        }
        let json = || serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
        match kind {
            ("say", "task" | "user_feedback") => sink.asm.user(text),
            ("say", "text" | "completion_result") => sink.asm.assistant(text),
            ("ask", "plan_mode_respond") => {
                let v = json();
                sink.asm.assistant(str_at(&v, "response").unwrap_or(text));
            }
            ("ask", "followup") => {
                let v = json();
                let q = match str_at(&v, "question") {
                    Some(q) => {
                        let opts = v.get("options").and_then(Value::as_array).map(|o| {
                            o.iter()
                                .filter_map(Value::as_str)
                                .collect::<Vec<_>>()
                                .join("\n- ")
                        });
                        match opts.filter(|o| !o.is_empty()) {
                            Some(o) => format!("{q}\n- {o}"),
                            None => q.to_owned(),
                        }
                    }
                    None => text.to_owned(),
                };
                let id = self.call("ask_followup_question", v, sink);
                sink.asm.result(&id, "", true);
                sink.asm.assistant(&q);
            }
            ("ask" | "say", "tool") => {
                let v = json();
                let name = str_at(&v, "tool").unwrap_or("tool").to_owned();
                let output = str_at(&v, "content").unwrap_or("").to_owned();
                let mut params = v;
                if let Value::Object(o) = &mut params {
                    o.remove("tool");
                    o.remove("content");
                }
                let id = self.call(&name, params, sink);
                sink.asm.result(&id, &output, true);
            }
            ("ask", "command") | ("say", "command") => {
                let id = self.call("execute_command", json!({ "command": text }), sink);
                self.command = Some(id);
            }
            ("say", "command_output") => {
                if let Some(id) = self.command.take() {
                    sink.asm.result(&id, text, true);
                }
            }
            ("say", "error") | ("say", "diff_error") => {
                if let Some(id) = self.last.take() {
                    sink.asm.mark_failed(&id);
                }
                sink.meta.skipped += 1;
            }
            ("say", "api_req_started") => {
                let v = json();
                if let Some(model) = v
                    .get("modelInfo")
                    .and_then(|i| str_at(i, "modelId"))
                    .or_else(|| str_at(&v, "model"))
                {
                    sink.meta.model = Some(model.to_owned());
                }
                sink.meta.skipped += 1;
            }
            _ => sink.meta.skipped += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::import::{Format, import_text};
    use tact_types::trajectory::Event;

    #[test]
    fn xml_tools_results_and_followup_questions() {
        let api = r#"[
 {"role":"user","content":[{"type":"text","text":"<task>\nAdd a cache.\n</task>"},{"type":"text","text":"<environment_details>\n# Files\n</environment_details>"}]},
 {"role":"assistant","content":[{"type":"text","text":"<thinking>Look first.</thinking>\nReading the service.\n<read_file>\n<path>src/service.ts</path>\n</read_file>"}]},
 {"role":"user","content":[{"type":"text","text":"[read_file for 'src/service.ts'] Result:"},{"type":"text","text":"export class Service {}"}]},
 {"role":"assistant","content":[{"type":"text","text":"<ask_followup_question>\n<question>Should the cache live in Redis or in memory?</question>\n<options>[\"Redis\", \"Memory\"]</options>\n</ask_followup_question>"}]},
 {"role":"user","content":[{"type":"text","text":"[ask_followup_question for 'Should the cache live in Redis or in memory?'] Result:"},{"type":"text","text":"<answer>\nMemory\n</answer>"}]},
 {"role":"assistant","content":[{"type":"text","text":"<execute_command>\n<command>npm test</command>\n</execute_command>"}]},
 {"role":"user","content":[{"type":"text","text":"[execute_command for 'npm test'] Result:"},{"type":"text","text":"The user denied this operation."}]}
]"#;
        let l = import_text(Format::Cline, api, "api_conversation_history.json").unwrap();
        assert_eq!(l.turns.len(), 2, "{:?}", l.turns);
        let t = &l.turns[0];
        assert_eq!(t.prompt, "Add a cache.");
        assert!(
            t.response
                .starts_with("Should the cache live in Redis or in memory?"),
            "{}",
            t.response
        );
        let Event::Tool(read) = &t.events[1] else {
            panic!("{:?}", t.events)
        };
        assert_eq!(read.name, "read_file");
        assert_eq!(read.params["path"], "src/service.ts");
        assert_eq!(read.output.as_str(), Some("export class Service {}"));
        assert_eq!(l.turns[1].prompt, "Memory");
        let Event::Tool(cmd) = &l.turns[1].events[0] else {
            panic!("{:?}", l.turns[1].events)
        };
        assert!(!cmd.ok);

        let ui = r#"[
 {"ts":1,"type":"say","say":"task","text":"Add a cache."},
 {"ts":2,"type":"say","say":"api_req_started","text":"{\"request\":\"...\"}"},
 {"ts":3,"type":"say","say":"text","text":"Reading the service."},
 {"ts":4,"type":"ask","ask":"tool","text":"{\"tool\":\"readFile\",\"path\":\"src/service.ts\",\"content\":\"export class Service {}\"}"},
 {"ts":5,"type":"ask","ask":"followup","text":"{\"question\":\"Should the cache live in Redis or in memory?\",\"options\":[\"Redis\",\"Memory\"]}"},
 {"ts":6,"type":"say","say":"user_feedback","text":"Memory"},
 {"ts":7,"type":"ask","ask":"command","text":"npm test"},
 {"ts":8,"type":"say","say":"command_output","text":"1 passing"}
]"#;
        let u = import_text(Format::Cline, ui, "ui_messages.json").unwrap();
        assert_eq!(u.turns.len(), 2);
        assert!(
            u.turns[0]
                .response
                .starts_with("Should the cache live in Redis or in memory?")
        );
        assert_eq!(u.turns[1].prompt, "Memory");
    }
}
