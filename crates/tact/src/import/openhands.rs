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

use serde_json::Value;

use super::read::{Item, scan_items};
use super::{ImportError, Sink, str_at, text_of};

/// Whether a document's start looks like an OpenHands event list.
pub(crate) fn looks_like(t: &str) -> bool {
    let head: String = t.chars().take(4096).collect();
    (head.contains("\"action\"") || head.contains("\"observation\"")) && head.contains("\"source\"")
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
    let top = scan_items(reader, limit, &mut |item| {
        let (key, line) = match &item {
            Item::Value { key, line, .. } | Item::TooLarge { key, line, .. } => (*key, *line),
        };
        if !matches!(key, None | Some("events")) {
            return Ok(());
        }
        events_seen = true;
        match item {
            Item::Value { raw, line, .. } => {
                let e: Value = serde_json::from_slice(&raw).map_err(|e| {
                    (
                        line + e.line().saturating_sub(1),
                        format!("not valid JSON: {e}"),
                    )
                })?;
                drop(raw);
                event(&e, sink);
            }
            Item::TooLarge { bytes, .. } => sink.too_large(line, bytes, limit),
        }
        Ok(())
    })
    .map_err(|(line, m)| ImportError::new(&source, line, m))?;
    if top == b'{' && !events_seen {
        return Err(ImportError::new(
            &source,
            1,
            "expected a JSON array of events",
        ));
    }
    Ok(())
}

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
        let args = e.get("args").cloned().unwrap_or(Value::Null);
        let from_user = str_at(e, "source") == Some("user");
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
                let id = e.get("id").map(|i| match i {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                });
                let group = model_response.and_then(|r| str_at(r, "id"));
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
                let extras = e.get("extras");
                let exit = extras
                    .and_then(|x| x.get("metadata"))
                    .and_then(|m| m.get("exit_code"))
                    .or_else(|| extras.and_then(|x| x.get("exit_code")))
                    .and_then(Value::as_i64);
                let ok = e.get("success").and_then(Value::as_bool).unwrap_or(true)
                    && exit.is_none_or(|c| c == 0)
                    && obs != "user_rejected";
                match cause {
                    Some(id) => sink.asm.result(&id, &content, ok),
                    None => sink.meta.skipped += 1,
                }
            }
        }
    } else {
        sink.meta.skipped += 1;
    }
}
