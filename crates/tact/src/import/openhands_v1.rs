//! OpenHands V1 (the software-agent SDK, `openhands-sdk`): one event a
//! record, each with a `kind`. A conversation's `events/event-NNNNN-*.json`
//! files hold one event each (one line); the SDK's JSONL event log, or the
//! files of a folder joined in order, hold one a line; a JSON array of
//! events is read too.
//!
//! A `MessageEvent` is the user's prompt (`source: user`) or the agent's
//! words (`llm_message.content`); an `ActionEvent` is the agent's
//! `thought` (as its message), then a tool call named by `tool_name` whose
//! parameters are the `action` object (without its `kind`), answered by
//! the `ObservationEvent` of the same `tool_call_id` (failed when
//! `observation.is_error` is true or its `exit_code` is not 0), by a
//! `UserRejectObservation` or an `AgentErrorEvent` (both failures). A
//! `FinishAction`'s `message` and a `ThinkAction`'s `thought` are the
//! agent's words, not calls. Actions of one `llm_response_id` share a
//! step. `Condensation` and `CondensationSummaryEvent` are condensations;
//! the system prompt, state updates (the model's name and the execution
//! status are kept), pauses and condensation requests are skipped.

use serde_json::Value;

use super::{ImportError, LogMeta, Sink, str_at, text_of};

/// The event kinds of the SDK (a first record of one of them, with a
/// `source`, is a V1 event log).
const KINDS: [&str; 12] = [
    "MessageEvent",
    "ActionEvent",
    "ObservationEvent",
    "SystemPromptEvent",
    "ConversationStateUpdateEvent",
    "UserRejectObservation",
    "AgentErrorEvent",
    "PauseEvent",
    "Condensation",
    "CondensationRequest",
    "CondensationSummaryEvent",
    "TokenEvent",
];

/// Whether a first record is an OpenHands V1 event.
pub(crate) fn looks_like(v: &Value) -> bool {
    str_at(v, "kind").is_some_and(|k| KINDS.contains(&k)) && v.get("source").is_some()
}

/// Whether a document's start looks like a JSON array of V1 events.
pub(crate) fn array_looks_like(t: &str) -> bool {
    let head: String = t.chars().take(4096).collect();
    head.contains("\"kind\"")
        && head.contains("\"source\"")
        && KINDS.iter().any(|k| head.contains(&format!("\"{k}\"")))
}

/// Whether `path` is one event file of a V1 conversation folder
/// (`events/event-NNNNN-<id>.json`).
pub(crate) fn is_event_file(path: &std::path::Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let Some(rest) = name.strip_prefix("event-") else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && rest[digits..].starts_with('-') && name.ends_with(".json")
}

/// The event files of the folder of `path`, sorted (their numbers order
/// them), joined one a line: the conversation as one log. More than
/// `limit` bytes is an error, as a file that large would be.
pub(crate) fn conversation_events(
    path: &std::path::Path,
    limit: usize,
) -> std::io::Result<Vec<u8>> {
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| is_event_file(p) && p.is_file())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let bytes = std::fs::read(&f)?;
        if out.len() + bytes.len() + 1 > limit {
            return Err(std::io::Error::other(format!(
                "the conversation's events are larger than {limit} bytes"
            )));
        }
        out.extend_from_slice(bytes.strip_suffix(b"\n").unwrap_or(&bytes));
        out.push(b'\n');
    }
    Ok(out)
}

/// Reads a JSON array of events from `reader`, one event in memory at a
/// time; one over `limit` bytes is skipped and reported.
pub(crate) fn read_array(
    reader: &mut impl std::io::BufRead,
    sink: &mut Sink,
    limit: usize,
) -> Result<(), ImportError> {
    let source = sink.source.clone();
    let top = super::read::scan_values(reader, sink, limit, &mut |key, e, sink| {
        if key.is_none() {
            event(&e, sink);
        }
    })?;
    if top != b'[' {
        return Err(ImportError::new(
            &source,
            1,
            "expected OpenHands V1 events: a JSON array or one event a line",
        ));
    }
    Ok(())
}

/// The text of a V1 content list (`[{"type": "text", "text": ...}]`).
fn content_text(v: Option<&Value>) -> String {
    v.map(|v| text_of(v).into_owned()).unwrap_or_default()
}

/// One event.
pub(crate) fn event(e: &Value, sink: &mut Sink) {
    let Some(kind) = str_at(e, "kind") else {
        sink.meta.skipped += 1;
        return;
    };
    sink.records += 1;
    LogMeta::set_once(&mut sink.meta.agent, Some("openhands"));
    sink.meta.time(str_at(e, "timestamp"));
    match kind {
        "MessageEvent" => {
            let m = e.get("llm_message");
            let text = content_text(m.and_then(|m| m.get("content")));
            let role = m.and_then(|m| str_at(m, "role"));
            if str_at(e, "source") == Some("user") || role == Some("user") {
                sink.asm.user(&text);
            } else {
                sink.asm.assistant(&text);
            }
        }
        "ActionEvent" => action(e, sink),
        "ObservationEvent" => {
            let id = str_at(e, "tool_call_id").unwrap_or("");
            let obs = e.get("observation").unwrap_or(&Value::Null);
            let output = content_text(obs.get("content"));
            let exit = obs.get("exit_code").and_then(Value::as_i64);
            let ok = obs.get("is_error").and_then(Value::as_bool) != Some(true)
                && exit.is_none_or(|c| c == 0);
            sink.asm.result(id, &output, ok);
        }
        "UserRejectObservation" => {
            let id = str_at(e, "tool_call_id").unwrap_or("");
            let reason = str_at(e, "rejection_reason").unwrap_or("rejected by the user");
            sink.asm.result(id, reason, false);
        }
        "AgentErrorEvent" => {
            let id = str_at(e, "tool_call_id").unwrap_or("");
            let error = str_at(e, "error").unwrap_or("");
            if sink.asm.is_open(id) {
                sink.asm.result(id, error, false);
            } else {
                sink.meta.skipped += 1;
            }
        }
        "Condensation" | "CondensationSummaryEvent" => sink.asm.condensation(),
        "ConversationStateUpdateEvent" => {
            state_update(e, sink);
            sink.meta.skipped += 1;
        }
        _ => sink.meta.skipped += 1,
    }
}

fn action(e: &Value, sink: &mut Sink) {
    // A reasoning model's `<think>` block is reasoning, not words.
    let thought = content_text(e.get("thought"));
    let thought = match (thought.find("<think>"), thought.find("</think>")) {
        (Some(a), Some(b)) if a < b => format!("{}{}", &thought[..a], &thought[b + 8..]),
        _ => thought,
    };
    sink.asm.assistant(&thought);
    let action = e.get("action").unwrap_or(&Value::Null);
    match str_at(action, "kind") {
        Some("FinishAction") => {
            sink.asm.assistant(str_at(action, "message").unwrap_or(""));
            sink.meta.exit_status = Some("finished".to_owned());
        }
        Some("ThinkAction") => sink.asm.assistant(str_at(action, "thought").unwrap_or("")),
        _ => {
            let name = str_at(e, "tool_name")
                .or_else(|| str_at(action, "kind"))
                .unwrap_or("");
            let mut params = action.clone();
            if let Value::Object(m) = &mut params {
                m.remove("kind");
            }
            sink.asm.call(
                str_at(e, "tool_call_id"),
                name,
                params,
                str_at(e, "llm_response_id"),
            );
        }
    }
}

/// A state update: the model's name (from the usage statistics) and the
/// execution status when it ends.
fn state_update(e: &Value, sink: &mut Sink) {
    let value = e.get("value").unwrap_or(&Value::Null);
    match str_at(e, "key") {
        Some("stats") => {
            let model = value
                .get("usage_to_metrics")
                .and_then(Value::as_object)
                .and_then(|m| {
                    m.get("agent")
                        .or_else(|| m.get("default"))
                        .or_else(|| m.values().next())
                })
                .and_then(|m| str_at(m, "model_name"));
            if let Some(model) = model.filter(|m| !m.is_empty()) {
                sink.meta.model = Some(model.to_owned());
            }
        }
        Some("execution_status") => {
            if let Some(s) = value.as_str() {
                if matches!(s, "finished" | "error" | "stuck" | "paused") {
                    sink.meta.exit_status = Some(s.to_owned());
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::import::{Format, import_text};
    use tact_types::trajectory::Event;

    #[test]
    fn actions_observations_and_messages_become_a_turn() {
        let log = r#"{"id":"1","source":"user","kind":"MessageEvent","llm_message":{"role":"user","content":[{"type":"text","text":"Run the tests."}]}}
{"id":"2","source":"agent","kind":"ActionEvent","thought":[{"type":"text","text":"Running them."}],"action":{"command":"pytest","kind":"TerminalAction"},"tool_name":"terminal","tool_call_id":"t1","llm_response_id":"r1"}
{"id":"3","source":"environment","kind":"ObservationEvent","tool_call_id":"t1","action_id":"2","observation":{"content":[{"type":"text","text":"1 failed"}],"is_error":false,"exit_code":1,"kind":"TerminalObservation"}}
{"id":"4","source":"agent","kind":"MessageEvent","llm_message":{"role":"assistant","content":[{"type":"text","text":"One test fails. Shall I fix it?"}]}}"#;
        let l = import_text(Format::OpenHandsV1, log, "e.jsonl").unwrap();
        assert_eq!(l.turns.len(), 1);
        let t = &l.turns[0];
        assert_eq!(t.prompt, "Run the tests.");
        assert_eq!(t.response, "One test fails. Shall I fix it?");
        let Event::Tool(c) = &t.events[1] else {
            panic!("{:?}", t.events)
        };
        assert_eq!(c.name, "terminal");
        assert_eq!(c.params["command"], "pytest");
        assert!(!c.ok);
        // The same events as a JSON array.
        let array = format!("[{}]", log.replace('\n', ","));
        let a = import_text(Format::OpenHandsV1, &array, "e.json").unwrap();
        assert_eq!(a.turns, l.turns);
    }
}
