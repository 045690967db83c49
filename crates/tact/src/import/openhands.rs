//! OpenHands' event stream: a JSON array of events (as its trajectory
//! export and replay files hold them). An action (`action`) of the user's
//! `message` is a prompt; the agent's `message`, `finish` and `think` are
//! its words; any other agent action (`run`, `run_ipython`, `edit`, `read`,
//! `browse`, ...) is a tool call with `args` (its `thought` first, as the
//! agent's message), answered by the observation whose `cause` is the
//! action's `id`. An observation failed when `success` is false, its exit
//! code is not 0, or it is an `error` observation (`ErrorObservation`,
//! which fails the last open call when it names none). `condensation`
//! actions and observations are condensations; state changes, recalls and
//! system prompts are skipped. Actions of one model response
//! (`tool_call_metadata.model_response.id`) share a step. The list is
//! read one event at a time, never parsed whole.
//!
//! The older flat form (OpenHands' resolver and evaluation harness write
//! it in each task's `history`) puts an action's arguments beside `action`
//! and has no `id`, `source`, `timestamp` nor `cause`: an action's
//! arguments are then its other keys, a `message` is the user's unless it
//! waits for a response (the agent asking) or says its `role`, and an
//! observation answers the last open call. A task record of an
//! `output.jsonl` (one task a line: `instruction`, `history`, `success`,
//! ...) is one log of this reader: its `history` the events, its
//! `instance_id` (else its issue, `owner/repo#number`) the task (a
//! history of `[action, observation]` pairs, as OpenHands 0.8 and 0.9
//! wrote it, is read pair by pair), its
//! issue's title the title, its `success` (else `test_result`'s
//! `resolved`) the outcome, its `instruction` the prompt when the history
//! opens with none. The agentskills editor's refusals of an edit
//! (`[Your proposed edit has introduced new syntax error(s)`, `[No exact
//! match found in`) fail the call.

use serde_json::Value;

use super::read::{Item, scan_items};
use super::{ImportError, Sink, str_at, text_of};

/// Whether a document's start looks like an OpenHands event list.
pub(crate) fn looks_like(t: &str) -> bool {
    let head: String = t.chars().take(4096).collect();
    (head.contains("\"action\"") || head.contains("\"observation\"")) && head.contains("\"source\"")
}

/// Whether `first` (a log's first line, maybe cut) is a task record of
/// OpenHands' resolver or evaluation output: an object with an
/// `instruction` and a `history`, an `instance_id` or an `issue`, or an
/// `instance_id` and a `test_result` (the evaluation writes its patch in
/// `test_result` before the instruction, and the head may end in it).
pub(crate) fn task_looks_like(first: &str) -> bool {
    let has = |k: &str| super::has_key(first, k);
    first.starts_with('{')
        && ((has("instruction") && (has("history") || has("instance_id") || has("issue")))
            || (has("instance_id") && has("test_result")))
}

/// The functions of OpenHands' agentskills library (what its CodeAct
/// agent runs in `run_ipython`) whose first argument names a file, and
/// those whose first argument is a search.
const FILE_SKILLS: [&str; 5] = [
    "open_file",
    "create_file",
    "edit_file_by_replace",
    "insert_content_at_line",
    "edit_file",
];
const SEARCH_SKILLS: [&str; 3] = ["search_dir", "search_file", "find_file"];

/// A `run_ipython` code that is one call of an agentskills function
/// (`open_file('/w/a.py')`, `edit_file_by_replace(\n'/w/a.py', ...)`): the
/// function, the param its first argument gives the call's view (`path`
/// for a file, `query` for a search) and that argument when it is a plain
/// string literal.
fn skill_call(code: &str) -> Option<(&'static str, &'static str, Option<String>)> {
    let code = code.trim();
    let open = code.find('(')?;
    let ident = &code[..open];
    let (skill, key) = FILE_SKILLS
        .iter()
        .map(|s| (*s, "path"))
        .chain(SEARCH_SKILLS.iter().map(|s| (*s, "query")))
        .find(|(s, _)| *s == ident)?;
    if !code.ends_with(')') {
        return Some((skill, key, None));
    }
    let rest = code[open + 1..].trim_start();
    let Some(quote) = rest.chars().next().filter(|q| matches!(q, '\'' | '"')) else {
        return Some((skill, key, None));
    };
    let body = &rest[1..];
    // A triple-quoted string is content, no file name.
    if body.starts_with(quote) {
        return Some((skill, key, None));
    }
    let arg = body
        .find(quote)
        .map(|end| &body[..end])
        .filter(|a| !a.contains(['\n', '\\']));
    Some((skill, key, arg.map(str::to_owned)))
}

/// The editor's refusals of an edit in a `run_ipython` observation.
const REFUSED_EDITS: [&str; 2] = [
    "[Your proposed edit has introduced new syntax error(s)",
    "[No exact match found in",
];

/// The members of a task record read besides its history.
const TASK_KEYS: [&str; 6] = [
    "instruction",
    "instance_id",
    "issue",
    "success",
    "test_result",
    "metadata",
];

/// What a task record says beside its history.
#[derive(Debug, Default)]
struct Task {
    /// The `instruction`, until the history opens (its prompt if the
    /// history has no user message first).
    instruction: Option<String>,
    /// The history's first event was read.
    opened: bool,
    /// A task's member came first (`instruction`, `instance_id`, `issue`):
    /// its `history` is a task's (another document's, SWE-agent's, is not).
    is_task: bool,
}

const SKIPPED_ACTIONS: [&str; 5] = ["system", "change_agent_state", "recall", "null", "mcp_init"];

/// Reads an event list (a top-level array, or an object's `events`) from
/// `reader`, one event in memory at a time; an event over `limit` bytes
/// is skipped and reported.
pub(crate) fn read(
    reader: &mut impl std::io::BufRead,
    sink: &mut Sink,
    limit: usize,
) -> Result<(), ImportError> {
    let source = sink.source.clone();
    let mut events_seen = false;
    let mut task = Task::default();
    let top = scan_items(reader, limit, &mut |item| {
        let (key, line) = match &item {
            Item::Value { key, line, .. } | Item::TooLarge { key, line, .. } => (*key, *line),
        };
        let parse = |raw: &[u8]| {
            serde_json::from_slice::<Value>(raw).map_err(|e| {
                (
                    line + e.line().saturating_sub(1),
                    format!("not valid JSON: {e}"),
                )
            })
        };
        let events = match key {
            None | Some("events") => true,
            Some("history") => task.is_task,
            Some(_) => false,
        };
        match (events, key, item) {
            (true, _, Item::Value { raw, .. }) => {
                events_seen = true;
                let e = parse(&raw)?;
                drop(raw);
                task_event(&e, &mut task, sink);
            }
            (true, _, Item::TooLarge { bytes, .. }) => {
                events_seen = true;
                sink.too_large(line, bytes, limit);
            }
            // Only the members a task's session takes are parsed (not its
            // patch, nor another document's members).
            (false, Some(key), Item::Value { raw, .. }) if TASK_KEYS.contains(&key) => {
                task_member(key, &parse(&raw)?, &mut task, sink);
            }
            (false, _, _) => {}
        }
        Ok(())
    })
    .map_err(|(line, m)| ImportError::new(&source, line, m))?;
    if top == b'{' && !events_seen {
        return Err(ImportError::new(
            &source,
            1,
            "expected a JSON array of events (or a task's `history`)",
        ));
    }
    Ok(())
}

/// A member of a task record other than its history.
fn task_member(key: &str, v: &Value, task: &mut Task, sink: &mut Sink) {
    let meta = &mut sink.meta;
    task.is_task |= matches!(key, "instruction" | "instance_id" | "issue");
    match key {
        "instruction" if !task.opened => task.instruction = v.as_str().map(str::to_owned),
        "instance_id" => meta.task = v.as_str().map(str::to_owned).or(meta.task.take()),
        "issue" if meta.task.is_none() => {
            let (owner, repo) = (str_at(v, "owner"), str_at(v, "repo"));
            if let (Some(owner), Some(repo)) = (owner, repo) {
                let number = v.get("number").map(|n| match n {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                });
                meta.task = Some(match number {
                    Some(n) => format!("{owner}/{repo}#{n}"),
                    None => format!("{owner}/{repo}"),
                });
            }
            super::LogMeta::set_once(&mut meta.title, str_at(v, "title"));
        }
        "success" => {
            if let Some(success) = v.as_bool() {
                meta.outcome = Some(tact_scoring::TaskOutcome::Build { success });
            }
        }
        "test_result" if meta.outcome.is_none() => {
            let resolved = v
                .get("report")
                .and_then(|r| r.get("resolved"))
                .or_else(|| v.get("resolved"))
                .and_then(Value::as_bool);
            if let Some(success) = resolved {
                meta.outcome = Some(tact_scoring::TaskOutcome::Build { success });
            }
        }
        "metadata" => {
            let model = v.get("llm_config").and_then(|c| str_at(c, "model"));
            super::LogMeta::set_once(&mut meta.model, model);
        }
        _ => {}
    }
}

/// One event of a history: the task's instruction first, as the prompt,
/// when the history does not open with the user's message.
/// An item of a history may also be an `[action, observation]` pair (the
/// evaluation output of OpenHands 0.8 and 0.9): its events in order.
fn task_event(e: &Value, task: &mut Task, sink: &mut Sink) {
    if let Value::Array(pair) = e {
        for e in pair {
            task_event(e, task, sink);
        }
        return;
    }
    if !task.opened {
        task.opened = true;
        if let Some(instruction) = task.instruction.take() {
            if !is_user_message(e) {
                sink.asm.user(&instruction);
            }
        }
    }
    event(e, sink);
}

/// Whether an event is the user's `message` (its `source`, else its
/// `role`, else in the flat form any message that does not wait for a
/// response: the agent's own wait for the user).
fn is_user_message(e: &Value) -> bool {
    if str_at(e, "action") != Some("message") {
        return false;
    }
    if let Some(source) = str_at(e, "source") {
        return source == "user";
    }
    let args = e.get("args").unwrap_or(e);
    if let Some(role) = str_at(args, "role").or_else(|| str_at(e, "role")) {
        return role == "user";
    }
    args.get("wait_for_response").and_then(Value::as_bool) != Some(true)
}

/// Keys of an event that are no argument of its action (in the flat
/// form, where the arguments sit beside them): the envelope, and the
/// confirmation and display state the flat form writes there.
const ENVELOPE: [&str; 12] = [
    "is_confirmed",
    "security_risk",
    "keep_prompt",
    "action",
    "thought",
    "id",
    "source",
    "timestamp",
    "message",
    "cause",
    "tool_call_metadata",
    "llm_metrics",
];

/// One event.
pub(crate) fn event(e: &Value, sink: &mut Sink) {
    if !e.is_object() {
        sink.meta.skipped += 1;
        return;
    }
    sink.meta.time(str_at(e, "timestamp"));
    let model_response = e
        .get("tool_call_metadata")
        .and_then(|m| m.get("model_response"));
    if let Some(model) = model_response.and_then(|r| str_at(r, "model")) {
        sink.meta.model = Some(model.to_owned());
    }
    if let Some(action) = str_at(e, "action") {
        sink.records += 1;
        // The flat form: the arguments beside `action`.
        let args = match e.get("args") {
            Some(a) => a.clone(),
            None => match e {
                Value::Object(m) => Value::Object(
                    m.iter()
                        .filter(|(k, _)| !ENVELOPE.contains(&k.as_str()))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                ),
                _ => Value::Null,
            },
        };
        let args = match (e.get("args"), str_at(e, "thought")) {
            // The flat form's thought is the event's.
            (None, Some(t)) => {
                let mut a = args;
                if let Value::Object(m) = &mut a {
                    m.insert("thought".to_owned(), Value::String(t.to_owned()));
                }
                a
            }
            _ => args,
        };
        let from_user = is_user_message(e);
        match action {
            "message" => {
                let text = str_at(&args, "content")
                    .or_else(|| str_at(e, "message"))
                    .unwrap_or("");
                if from_user {
                    sink.asm.user(text);
                } else {
                    sink.asm.assistant(text);
                }
            }
            "finish" => {
                let text = str_at(&args, "final_thought")
                    .filter(|t| !t.is_empty())
                    .or_else(|| str_at(&args, "thought").filter(|t| !t.is_empty()))
                    .or_else(|| str_at(e, "message"))
                    .unwrap_or("");
                sink.asm.assistant(text);
                sink.meta.exit_status = Some("finished".to_owned());
            }
            "think" => sink.asm.assistant(str_at(&args, "thought").unwrap_or("")),
            "condensation" | "condensation_request" => sink.asm.condensation(),
            a if SKIPPED_ACTIONS.contains(&a) => sink.meta.skipped += 1,
            name => {
                if let Some(thought) = str_at(&args, "thought") {
                    sink.asm.assistant(thought);
                }
                let mut params = args.clone();
                if let Value::Object(m) = &mut params {
                    m.remove("thought");
                }
                // The flat form has no id: its observation answers the
                // last open call, so the call gets one of its own.
                let id = Some(e.get("id").map_or_else(
                    || format!("#{}", sink.records),
                    |i| match i {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    },
                ));
                let group = model_response.and_then(|r| str_at(r, "id"));
                // One call of the agentskills library: named by it.
                let skill = (name == "run_ipython")
                    .then(|| str_at(&params, "code").and_then(skill_call))
                    .flatten();
                let name = match skill {
                    Some((skill, key, arg)) => {
                        if let (Value::Object(m), Some(arg)) = (&mut params, arg) {
                            m.insert(key.to_owned(), Value::String(arg));
                        }
                        skill
                    }
                    None => name,
                };
                sink.asm.call(id.as_deref(), name, params, group);
            }
        }
    } else if let Some(obs) = str_at(e, "observation") {
        sink.records += 1;
        let content = text_of(e.get("content").unwrap_or(&Value::Null));
        let cause = e.get("cause").map(|c| match c {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
        match obs {
            "agent_state_changed" => {
                if let Some(state) = e.get("extras").and_then(|x| str_at(x, "agent_state")) {
                    if matches!(state, "error" | "stopped" | "finished" | "rejected") {
                        sink.meta.exit_status = Some(state.to_owned());
                    }
                }
                sink.meta.skipped += 1;
            }
            "condensation" | "agent_condensation" => sink.asm.condensation(),
            "null" | "recall" | "user_rejected"
                if cause.as_deref().is_none_or(|c| !sink.asm.is_open(c)) =>
            {
                sink.meta.skipped += 1;
            }
            "error" => {
                let target = cause
                    .filter(|c| sink.asm.is_open(c))
                    .or_else(|| sink.asm.last_open());
                match target {
                    Some(id) => sink.asm.result(&id, &content, false),
                    None => sink.meta.skipped += 1,
                }
            }
            _ => {
                // The flat form keeps the extras beside `observation`.
                let extras = e.get("extras").or(Some(e));
                let exit = extras
                    .and_then(|x| x.get("metadata"))
                    .and_then(|m| m.get("exit_code"))
                    .or_else(|| extras.and_then(|x| x.get("exit_code")))
                    .and_then(Value::as_i64);
                let refused =
                    obs == "run_ipython" && REFUSED_EDITS.iter().any(|r| content.starts_with(r));
                let ok = e.get("success").and_then(Value::as_bool).unwrap_or(true)
                    && exit.is_none_or(|c| c == 0)
                    && obs != "user_rejected"
                    && !refused;
                // Without a cause (the flat form), the last open call.
                let target = match cause {
                    Some(id) => Some(id),
                    None if e.get("id").is_none() => sink.asm.last_open(),
                    None => None,
                };
                match target {
                    Some(id) => sink.asm.result(&id, &content, ok),
                    None => sink.meta.skipped += 1,
                }
            }
        }
    } else {
        sink.meta.skipped += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_call_of_an_agentskill_names_the_call_and_its_file() {
        assert_eq!(
            skill_call("open_file('/w/a.py')"),
            Some(("open_file", "path", Some("/w/a.py".to_owned())))
        );
        assert_eq!(
            skill_call(
                "edit_file_by_replace(\n'/w/App.tsx',\nto_replace=\"\"\"x\"\"\",\nnew_content=\"y\")"
            ),
            Some((
                "edit_file_by_replace",
                "path",
                Some("/w/App.tsx".to_owned())
            ))
        );
        assert_eq!(
            skill_call("search_dir(\"dark\", \"/w\")"),
            Some(("search_dir", "query", Some("dark".to_owned())))
        );
        assert_eq!(
            skill_call("create_file(name)"),
            Some(("create_file", "path", None))
        );
        assert_eq!(skill_call("x = 1\nopen_file('a')"), None);
        assert_eq!(skill_call("print('hi')"), None);
    }

    #[test]
    fn a_task_is_told_by_its_first_keys_even_cut() {
        assert!(task_looks_like(
            r#"{"instance_id":"a__b-1","test_result":{"git_patch":"diff --git a/x b/x"#
        ));
        assert!(task_looks_like(
            r#"{"issue":{"owner":"o"},"instruction":"Fix.","#
        ));
        assert!(!task_looks_like(
            r#"{"instance_id":"a__b-1","model_patch":"","model_name_or_path":"m"}"#
        ));
        assert!(!task_looks_like(r#"[{"instruction":"x","history":[]}]"#));
    }
}
