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
//! new prompt. `<thinking>` is reasoning, skipped. A plan
//! (`plan_mode_respond`) waits for the user: their switch to Act mode is
//! their answer, a new turn. Cline runs a message's first call and cuts
//! the stream (`[Response interrupted by a tool use result …]`): what
//! follows that call is dropped. Cline's notices in a user message (to-do
//! reminders, calls not run, resumptions) are nobody's words. Roo Code, a
//! fork, writes the same files with its own tools (`new_task`,
//! `update_todo_list`, `use_mcp_tool`, named by the MCP tool it calls) and
//! `<follow_up><suggest>` answers. The task folder's name is the session.
//!
//! `ui_messages.json` is a JSON array of `{ts, type: say|ask, say|ask,
//! text}`: `say: task` and `say: user_feedback` are prompts, `say: text`,
//! `say: completion_result` and `ask: plan_mode_respond` the agent's
//! words, `ask: followup` its question (`{"question", "options"}`, Roo's
//! `suggest`), `ask`/`say: tool` a tool (`{"tool", "path", ...}`), `ask:
//! command` a command answered by the `command_output` messages that
//! follow, Roo's `ask: use_mcp_server` an MCP call answered by its
//! `mcp_server_response`, `say: error` a failure of the last call; newer
//! versions write the task as the first `say: text`; API requests,
//! reasoning and checkpoints are skipped.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value, json};

use super::{ImportError, LogMeta, Sink, str_at};

/// What Cline tells the model when the user, shown a plan
/// (`plan_mode_respond`), switches to Act mode: the user's answer to it.
const ACT_MODE: &str = "The user has switched to ACT MODE";

/// The user's switch to Act mode in a user message's text, as the prompt
/// it is (Cline's sentence for it, without its brackets).
fn act_mode(text: &str) -> Option<&str> {
    let line = text.lines().find(|l| l.contains(ACT_MODE))?;
    Some(line.trim().trim_start_matches('[').trim_end_matches(']'))
}

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

/// A tool result block's header: `[name for 'x'] Result:` / `[name] Result:`,
/// and Roo Code's `[new_task in 💻 Code mode: 'x'] Result:` / `[new_task
/// completed] Result:` (the header's argument may hold a `]`: the first
/// `] Result:` ends it, and the message may span lines).
static RESULT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?s)^\[([a-z_]+)(?: .*?)?\] Result:").ok());

/// Cline's and Roo Code's tools: a block of one of these left unclosed is
/// a call cut off (Cline runs the first call of a message and cuts the
/// rest), not the agent's words.
const TOOLS: [&str; 22] = [
    "read_file",
    "write_to_file",
    "replace_in_file",
    "apply_diff",
    "insert_content",
    "search_and_replace",
    "execute_command",
    "list_files",
    "search_files",
    "list_code_definition_names",
    "codebase_search",
    "browser_action",
    "use_mcp_tool",
    "access_mcp_resource",
    "ask_followup_question",
    "attempt_completion",
    "plan_mode_respond",
    "new_task",
    "switch_mode",
    "update_todo_list",
    "web_fetch",
    "load_mcp_documentation",
];

/// Whether a text block of a user message is Cline's own notice, not the
/// user's words nor a tool's output: a reminder of its to-do list, a tool
/// not run because another ran first, a protocol error, a resumption
/// (without the new instructions it may carry).
fn is_notice(t: &str) -> bool {
    t.starts_with("# Todo List")
        || t.starts_with("# TODO LIST")
        || (t.starts_with("Tool [") && t.contains("was not executed"))
        || t.starts_with("[ERROR]")
        || (t.starts_with("[TASK RESUMPTION]") && !t.contains("<user_message>"))
}

/// The agent's text without Cline's `[Response interrupted …]` notices.
fn without_interruptions(s: &str) -> String {
    s.lines()
        .filter(|l| !l.trim_start().starts_with("[Response interrupted"))
        .collect::<Vec<_>>()
        .join("\n")
}

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
    LogMeta::set_once(&mut sink.meta.session_id, task_id(&source).as_deref());
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
    if let Reading::Ui(state) = &mut reading {
        state.close_command(sink);
    }
    Ok(())
}

/// The task's id: the name of the task folder a task file is in (Cline
/// names it by the task's start time, Roo Code by a UUID), so both files
/// of a task are one session and two tasks are two.
fn task_id(source: &str) -> Option<String> {
    let path = std::path::Path::new(source);
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    if name != "api_conversation_history.json" && name != "ui_messages.json" {
        return None;
    }
    Some(path.parent()?.file_name()?.to_string_lossy().into_owned())
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
/// words: Cline's `<options>` (a JSON list), or Roo Code's `<follow_up>`
/// of `<suggest>` answers (a `mode` attribute aside).
fn question_text(question: &str, options: Option<&str>, follow_up: Option<&str>) -> String {
    let mut list: Vec<String> = Vec::new();
    if let Some(opts) = options.filter(|o| !o.trim().is_empty()) {
        list = serde_json::from_str::<Vec<String>>(opts)
            .unwrap_or_else(|_| vec![opts.trim().to_owned()]);
    } else if let Some(f) = follow_up {
        let mut rest = f;
        while let Some(at) = rest.find("<suggest") {
            let after = &rest[at..];
            let (Some(gt), Some(end)) = (after.find('>'), after.find("</suggest>")) else {
                break;
            };
            if gt < end {
                list.push(after[gt + 1..end].trim().to_owned());
            }
            rest = &after[end + "</suggest>".len()..];
        }
    }
    with_options(question, list.iter().map(String::as_str))
}

/// A question followed by its options, one a list item.
fn with_options<'a>(question: &str, options: impl Iterator<Item = &'a str>) -> String {
    let mut out = question.trim().to_owned();
    for o in options.filter(|o| !o.trim().is_empty()) {
        out.push_str("\n- ");
        out.push_str(o.trim());
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
                    str_at(&params, "follow_up"),
                );
                sink.asm.call(Some(&id), name, params, Some(&group));
                self.open.push((name.to_owned(), id));
                // The question is the agent's last words of the turn.
                sink.asm.assistant(&q);
            }
            _ => {
                // An MCP call is named by the server's tool it calls, as
                // `ui_messages.json` names it; its result still answers
                // `use_mcp_tool`.
                let called = match name {
                    "use_mcp_tool" => str_at(&params, "tool_name").unwrap_or(name).to_owned(),
                    _ => name.to_owned(),
                };
                sink.asm.call(Some(&id), &called, params, Some(&group));
                self.open.push((name.to_owned(), id));
            }
        }
    }

    fn assistant_text(&mut self, text: &str, sink: &mut Sink) {
        // Cline ran the message's first call and cut the stream there:
        // what follows it (a second call, the start of the next words,
        // which the agent writes again whole in its next message) is no
        // words of this one.
        let interrupted = text.contains("[Response interrupted by a tool use result");
        let text = without_interruptions(&without(text, "thinking"));
        let Some(re) = TAG.as_ref() else {
            sink.asm.assistant(&text);
            return;
        };
        // Tags with no closing tag after the point they were looked for
        // from: none later either, so each is searched for once (linear).
        let mut unclosed: HashSet<String> = HashSet::new();
        let mut rest = text.as_str();
        let mut called = false;
        loop {
            // A known tool left unclosed, or any block after a call, is a
            // call cut off: the message ends before it.
            let mut cut: Option<usize> = None;
            let found = re.captures_iter(rest).find_map(|c| {
                let name = c.get(1)?.as_str();
                if NOT_TOOLS.contains(&name) || unclosed.contains(name) {
                    return None;
                }
                let close = format!("</{name}>");
                let start = c.get(0)?.start();
                let body_start = c.get(0)?.end();
                let Some(end) = rest[body_start..].find(&close) else {
                    if called || TOOLS.contains(&name) {
                        cut = Some(start);
                        return Some(None);
                    }
                    unclosed.insert(name.to_owned());
                    return None;
                };
                let end = end + body_start;
                Some(Some((
                    name.to_owned(),
                    start,
                    body_start,
                    end,
                    end + close.len(),
                )))
            });
            let Some(Some((name, start, body_start, end, after))) = found else {
                sink.asm.assistant(&rest[..cut.unwrap_or(rest.len())]);
                return;
            };
            called = true;
            sink.asm.assistant(&rest[..start]);
            let params = Value::Object(params_of(&rest[body_start..end]));
            self.tool(None, &name, params, sink);
            if interrupted {
                return;
            }
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
                    if is_notice(t) {
                        sink.meta.skipped += 1;
                    } else if let Some(c) = RESULT.as_ref().and_then(|re| re.captures(t)) {
                        self.finish_result(pending.take(), sink);
                        let name = c.get(1).map_or("", |m| m.as_str()).to_owned();
                        let header_end = c.get(0).map_or(0, |m| m.end());
                        pending = Some((name, t[header_end..].trim().to_owned()));
                    } else if t.starts_with("<environment_details>") {
                    } else if let Some((_, out)) =
                        pending.as_mut().filter(|_| !t.contains("<user_message>"))
                    {
                        if !out.is_empty() {
                            out.push_str("\n\n");
                        }
                        out.push_str(t.trim());
                    } else {
                        self.finish_result(pending.take(), sink);
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
        } else if let Some(p) = act_mode(output).filter(|_| name == "plan_mode_respond") {
            sink.asm.user(p);
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
        // Feedback, or new instructions when a task resumes (after
        // Cline's `[TASK RESUMPTION]` notice).
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

/// A call of `ui_messages.json` whose output comes in the messages after it.
#[derive(Debug)]
struct Pending {
    id: String,
    /// The `say`/`ask` of the messages that carry its output.
    output_kind: &'static str,
    output: String,
}

#[derive(Debug, Default)]
struct Ui {
    calls: usize,
    /// The open call whose output follows (a command, an MCP tool), with
    /// the message that carries its output, and the last call.
    command: Option<Pending>,
    last: Option<String>,
    /// Whether an API request was seen: before the first, a `say: text`
    /// is the user's task (newer Cline and Roo Code write it so).
    requested: bool,
    /// Whether the task was seen.
    tasked: bool,
    /// Whether the agent's plan waits for the user (`ask:
    /// plan_mode_respond`), who may answer by switching to Act mode.
    planned: bool,
    /// Whether the last message was the agent's completion (a command
    /// asked right after it is the one `attempt_completion` offers the
    /// user to see the result with, not a call the agent made).
    completed: bool,
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
        if let Some(p) = self.command.take() {
            sink.asm.result(&p.id, &p.output, true);
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
        // Roo Code says when an MCP request starts, between the call and
        // its response.
        let between = matches!(kind.1, "mcp_server_request_started" | "checkpoint_saved");
        if !between
            && self
                .command
                .as_ref()
                .is_some_and(|p| p.output_kind != kind.1)
        {
            self.close_command(sink);
        }
        let json = || serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
        // Cline's progress notes and checkpoints between the completion
        // and its command leave it the completion's.
        let after_completion = self.completed;
        if !matches!(kind.1, "task_progress" | "checkpoint_saved") {
            self.completed = false;
        }
        match kind {
            ("say", "task" | "user_feedback") => {
                self.tasked = true;
                self.planned = false;
                sink.asm.user(text);
            }
            ("say", "text") if !self.requested && !self.tasked => {
                self.tasked = true;
                sink.asm.user(text);
            }
            ("say", "text") => sink.asm.assistant(text),
            ("say", "completion_result") => {
                sink.asm.assistant(text);
                sink.meta.exit_status = Some("completed".to_owned());
                self.completed = true;
            }
            // Roo Code asks again after its completion (empty text).
            ("ask", "completion_result") => {
                self.completed = after_completion;
                if !text.trim().is_empty() {
                    sink.asm.assistant(text);
                }
            }
            ("ask", "command") if after_completion => sink.meta.skipped += 1,
            ("ask", "plan_mode_respond") => {
                let v = json();
                sink.asm.assistant(str_at(&v, "response").unwrap_or(text));
                self.planned = true;
            }
            ("ask", "followup") => {
                let v = json();
                let q = match str_at(&v, "question") {
                    // Cline's `options` (strings), Roo Code's `suggest`
                    // (`{answer}` objects).
                    Some(q) => {
                        let opts = v
                            .get("options")
                            .or_else(|| v.get("suggest"))
                            .and_then(Value::as_array)
                            .map(Vec::as_slice)
                            .unwrap_or_default();
                        with_options(
                            q,
                            opts.iter()
                                .filter_map(|o| o.as_str().or_else(|| str_at(o, "answer"))),
                        )
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
                // A file tool's `content` is what it read or wrote; Roo
                // Code's `newTask` content is the sub-task's instructions.
                let sub_task = name == "newTask";
                let output = match sub_task {
                    true => String::new(),
                    false => str_at(&v, "content").unwrap_or("").to_owned(),
                };
                let mut params = v;
                if let Value::Object(o) = &mut params {
                    o.remove("tool");
                    if !sub_task {
                        o.remove("content");
                    }
                }
                let id = self.call(&name, params, sink);
                sink.asm.result(&id, &output, true);
            }
            ("ask" | "say", "command") => {
                self.close_command(sink);
                let id = self.call("execute_command", json!({ "command": text }), sink);
                self.command = Some(Pending {
                    id,
                    output_kind: "command_output",
                    output: String::new(),
                });
            }
            // Newer Cline asks with each chunk of output (`ask:
            // command_output`); older versions say it once.
            ("ask" | "say", "command_output") => {
                if let Some(p) = &mut self.command {
                    p.output.push_str(text);
                }
            }
            // Roo Code's MCP tool call, answered by the response after it.
            ("ask", "use_mcp_server") => {
                let v = json();
                let name = str_at(&v, "toolName")
                    .or_else(|| str_at(&v, "uri"))
                    .unwrap_or("use_mcp_server")
                    .to_owned();
                self.close_command(sink);
                let id = self.call(&name, v, sink);
                self.command = Some(Pending {
                    id,
                    output_kind: "mcp_server_response",
                    output: String::new(),
                });
            }
            ("say", "mcp_server_response") => {
                if let Some(p) = &mut self.command {
                    p.output.push_str(text);
                }
                self.close_command(sink);
            }
            ("say", "error") | ("say", "diff_error") => {
                if let Some(id) = self.last.take() {
                    sink.asm.mark_failed(&id);
                }
                sink.meta.skipped += 1;
            }
            ("say", "api_req_started") => {
                self.requested = true;
                let v = json();
                // The request after a plan says whether the user switched
                // to Act mode: their answer, a new turn (as the
                // conversation file reads it).
                if std::mem::take(&mut self.planned) {
                    if let Some(p) = str_at(&v, "request").and_then(act_mode) {
                        sink.asm.user(p);
                    }
                }
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

    /// A plan waits for the user: switching to Act mode answers it and
    /// opens a turn, in either file.
    #[test]
    fn switching_to_act_mode_answers_the_plan() {
        let api = r#"[
 {"role":"user","content":[{"type":"text","text":"<task>\nScaffold the app.\n</task>"}]},
 {"role":"assistant","content":[{"type":"text","text":"<plan_mode_respond>\n<response>Here is the plan. Would you like me to proceed?</response>\n</plan_mode_respond>"}]},
 {"role":"user","content":[{"type":"text","text":"[plan_mode_respond] Result:"},{"type":"text","text":"[The user has switched to ACT MODE, so you may now proceed with the task.]"},{"type":"text","text":"<environment_details>\n# Files\n</environment_details>"}]},
 {"role":"assistant","content":[{"type":"text","text":"<attempt_completion>\n<result>Scaffolded.</result>\n</attempt_completion>"}]}
]"#;
        let ui = r#"[
 {"ts":1,"type":"say","say":"text","text":"Scaffold the app."},
 {"ts":2,"type":"say","say":"api_req_started","text":"{\"request\":\"<task>\\nScaffold the app.\\n</task>\"}"},
 {"ts":3,"type":"ask","ask":"plan_mode_respond","text":"{\"response\":\"Here is the plan. Would you like me to proceed?\"}"},
 {"ts":4,"type":"say","say":"api_req_started","text":"{\"request\":\"[plan_mode_respond] Result:\\n\\n[The user has switched to ACT MODE, so you may now proceed with the task.]\"}"},
 {"ts":5,"type":"say","say":"completion_result","text":"Scaffolded."}
]"#;
        for (text, name) in [
            (api, "api_conversation_history.json"),
            (ui, "ui_messages.json"),
        ] {
            let l = import_text(Format::Cline, text, name).unwrap();
            let turns: Vec<_> = l
                .turns
                .iter()
                .map(|t| (t.prompt.as_str(), t.response.as_str()))
                .collect();
            assert_eq!(
                turns,
                [
                    (
                        "Scaffold the app.",
                        "Here is the plan. Would you like me to proceed?"
                    ),
                    (
                        "The user has switched to ACT MODE, so you may now proceed with the task.",
                        "Scaffolded."
                    )
                ],
                "{name}"
            );
        }
    }

    /// A turn's calls: name and output.
    fn calls(t: &tact_scoring::Turn) -> Vec<(&str, &str)> {
        t.events
            .iter()
            .filter_map(|e| match e {
                Event::Tool(c) => Some((c.name.as_str(), c.output.as_str().unwrap_or(""))),
                _ => None,
            })
            .collect()
    }

    /// What the real samples hold: Roo Code's suggested answers, a
    /// sub-task's multi-line result header, new instructions when a task
    /// resumes, Cline's notices, and the second call Cline cut off after
    /// interrupting the response.
    #[test]
    fn roo_code_and_cline_notices_in_the_conversation() {
        let api = r##"[
 {"role":"user","content":[{"type":"text","text":"<task>\nFix the index.\n</task>"},{"type":"text","text":"# Todo List (Optional - Plan Mode)\nWhile in PLAN MODE..."}]},
 {"role":"assistant","content":[{"type":"text","text":"Reading first.\n<read_file>\n<path>a.ts</path>\n</read_file>\n\n<list_files>\n<path>src</path>\n</list_files\n\n[Response interrupted by a tool use result. Only one tool may be used at a time and should be placed at the end of the message.]"}]},
 {"role":"user","content":[{"type":"text","text":"[read_file for 'a.ts'] Result:"},{"type":"text","text":"const a = 1;"},{"type":"text","text":"Tool [list_files] was not executed because a tool has already been used in this message."}]},
 {"role":"assistant","content":[{"type":"text","text":"<new_task>\n<mode>code</mode>\n<message>Fix it.\nCarefully.</message>\n</new_task>"}]},
 {"role":"user","content":[{"type":"text","text":"[new_task in 💻 Code mode: 'Fix it.\nCarefully [really].'] Result:"},{"type":"text","text":"Successfully created new task in 💻 Code mode with message: Fix it."},{"type":"text","text":"[TASK RESUMPTION] This task was interrupted 5 minutes ago."},{"type":"text","text":"\n\nNew instructions for task continuation:\n<user_message>\nCheck the UI first.\n</user_message>"}]},
 {"role":"assistant","content":[{"type":"text","text":"<ask_followup_question>\n<question>How many tasks do you see?</question>\n<follow_up>\n<suggest>About 20</suggest>\n<suggest mode=\"code\">More than 2000</suggest>\n</follow_up>\n</ask_followup_question>"}]}
]"##;
        let l = import_text(Format::Cline, api, "api_conversation_history.json").unwrap();
        assert_eq!(l.turns.len(), 2, "{:?}", l.turns);
        let t = &l.turns[0];
        assert_eq!(t.prompt, "Fix the index.");
        assert_eq!(
            calls(t),
            [
                ("read_file", "const a = 1;"),
                (
                    "new_task",
                    "Successfully created new task in 💻 Code mode with message: Fix it."
                )
            ]
        );
        let said: Vec<_> = t
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Assistant { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(said, ["Reading first."]);
        let t = &l.turns[1];
        assert_eq!(t.prompt, "Check the UI first.");
        assert_eq!(
            t.response,
            "How many tasks do you see?\n- About 20\n- More than 2000"
        );
    }

    /// Newer Cline and Roo Code's `ui_messages.json`: the task as the first
    /// `say: text`, output in `ask: command_output` chunks, an MCP call
    /// answered by its response (Roo says when the request starts, in
    /// between), Roo's `suggest` answers, and the command Cline offers
    /// after its completion (no call).
    #[test]
    fn newer_ui_messages() {
        let ui = r#"[
 {"ts":1,"type":"say","say":"text","text":"Fix the index."},
 {"ts":2,"type":"say","say":"api_req_started","text":"{}"},
 {"ts":3,"type":"say","say":"text","text":"Running the tests."},
 {"ts":4,"type":"ask","ask":"command","text":"npm test"},
 {"ts":5,"type":"ask","ask":"command_output","text":"1 passing\n"},
 {"ts":6,"type":"ask","ask":"command_output","text":"2 passing\n"},
 {"ts":7,"type":"ask","ask":"use_mcp_server","text":"{\"type\":\"use_mcp_tool\",\"serverName\":\"state\",\"toolName\":\"scan_tasks\",\"arguments\":\"{}\"}"},
 {"ts":8,"type":"say","say":"mcp_server_request_started"},
 {"ts":9,"type":"say","say":"mcp_server_response","text":"3076 tasks"},
 {"ts":10,"type":"ask","ask":"followup","text":"{\"question\":\"How many do you see?\",\"suggest\":[{\"answer\":\"About 20\"},{\"answer\":\"All\"}]}"},
 {"ts":11,"type":"say","say":"user_feedback","text":"About 20"},
 {"ts":12,"type":"say","say":"completion_result","text":"Done."},
 {"ts":13,"type":"say","say":"task_progress","text":"- [x] fix"},
 {"ts":14,"type":"ask","ask":"command","text":"npm run verify"}
]"#;
        let u = import_text(Format::Cline, ui, "tasks/1758250955612/ui_messages.json").unwrap();
        assert_eq!(u.meta.session_id.as_deref(), Some("1758250955612"));
        assert_eq!(u.turns.len(), 2, "{:?}", u.turns);
        let t = &u.turns[0];
        assert_eq!(t.prompt, "Fix the index.");
        assert_eq!(t.response, "How many do you see?\n- About 20\n- All");
        assert_eq!(
            calls(t),
            [
                ("execute_command", "1 passing\n2 passing\n"),
                ("scan_tasks", "3076 tasks"),
                ("ask_followup_question", "")
            ]
        );
        let t = &u.turns[1];
        assert_eq!(
            (t.prompt.as_str(), t.response.as_str()),
            ("About 20", "Done.")
        );
        assert!(
            !t.events.iter().any(|e| matches!(e, Event::Tool(_))),
            "{t:?}"
        );
        assert_eq!(u.meta.exit_status.as_deref(), Some("completed"));
    }
}
