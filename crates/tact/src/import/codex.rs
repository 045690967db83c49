//! Codex CLI's rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`):
//! one `{timestamp, type, payload}` record a line. `session_meta` gives the
//! id, working folder and CLI; `turn_context` the model; `response_item`s
//! are the exchange (`message` by role, `function_call`,
//! `custom_tool_call`, `local_shell_call`, `web_search_call` and their
//! outputs by `call_id`); `event_msg`s duplicate messages (skipped) but
//! carry exit codes (`exec_command_end`, `patch_apply_end`) and context
//! compactions, as does a `compacted` record. Calls in a row (no message
//! or output between them) came in one response: they share a step.
//!
//! A call failed when its output says so: a non-zero exit code
//! (`Process exited with code N`, `"exit_code": N`), `<tool> failed: ...`,
//! `execution error: ...` (the sandbox could not start the command),
//! or a later `exec_command_end` / `patch_apply_end` that reports it.
//!
//! A `request_user_input` call asks the user: its questions end the turn
//! as the agent's response, and its output (the answer) opens the next.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::{LogMeta, Sink, str_at, text_of};

/// Whether a first record looks like a Codex rollout's.
/// The tool by which Codex asks the user questions.
const ASK: &str = "request_user_input";

pub(crate) fn looks_like(v: &Value) -> bool {
    matches!(
        str_at(v, "type"),
        Some("session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted")
    ) && v.get("payload").is_some()
}

/// User messages Codex writes itself (instructions, environment): not the
/// user's words.
const BOILERPLATE: [&str; 7] = [
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
    "<INSTRUCTIONS>",
    "<turn_aborted>",
    "<user_shell_command>",
];

/// A failing output: a non-zero exit code, `<tool> failed: ` or
/// `execution error: `.
static FAILED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?m)(?:^Process exited with code (?:-\d+|[1-9]\d*)(?-u:\b)|"exit_code"\s*:\s*(?:-\d+|[1-9]\d*)|^[a-z_]+ failed: |^execution error: |^Exit code: (?:-\d+|[1-9]\d*)(?-u:\b))"#,
    )
    .ok()
});

/// Whether a call's output reports a failure.
pub(crate) fn failed(output: &str) -> bool {
    FAILED.as_ref().is_some_and(|re| re.is_match(output))
}

/// The reader's state across lines.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// The group of the calls in a row.
    batch: u64,
    /// Whether the previous item was a call (the next joins its step).
    in_batch: bool,
    /// Open `request_user_input` calls (their output is the user's answer).
    asks: std::collections::HashSet<String>,
    /// The user's last message: a rollout writes it twice (a
    /// `response_item` and an `event_msg`), or only as one of them.
    last_user: String,
}

impl State {
    fn next_group(&mut self) -> String {
        if !self.in_batch {
            self.batch += 1;
        }
        self.in_batch = true;
        format!("codex-{}", self.batch)
    }

    pub(crate) fn record(&mut self, v: &Value, sink: &mut Sink) {
        let ty = str_at(v, "type").unwrap_or("");
        let Some(p) = v.get("payload") else {
            sink.meta.skipped += 1;
            return;
        };
        sink.meta.time(str_at(v, "timestamp"));
        match ty {
            "session_meta" => {
                sink.records += 1;
                let meta = p.get("meta").unwrap_or(p);
                LogMeta::set_once(&mut sink.meta.session_id, str_at(meta, "id"));
                LogMeta::set_once(&mut sink.meta.cwd, str_at(meta, "cwd"));
                if sink.meta.agent.is_none() {
                    let who = str_at(meta, "originator").unwrap_or("codex");
                    sink.meta.agent = Some(match str_at(meta, "cli_version") {
                        Some(v) => format!("{who} {v}"),
                        None => who.to_owned(),
                    });
                }
                if let Some(model) = str_at(meta, "model") {
                    sink.meta.model = Some(model.to_owned());
                }
            }
            "turn_context" => {
                sink.records += 1;
                if let Some(model) = str_at(p, "model") {
                    sink.meta.model = Some(model.to_owned());
                }
            }
            "compacted" => {
                sink.records += 1;
                self.in_batch = false;
                sink.asm.condensation();
            }
            "response_item" => {
                sink.records += 1;
                self.item(p, sink);
            }
            "event_msg" => {
                sink.records += 1;
                self.event(p, sink);
            }
            _ => sink.meta.skipped += 1,
        }
    }

    fn item(&mut self, p: &Value, sink: &mut Sink) {
        let call_id = str_at(p, "call_id");
        match str_at(p, "type").unwrap_or("") {
            "message" => {
                self.in_batch = false;
                if str_at(p, "role") == Some("assistant") {
                    // The next user message may repeat an earlier one.
                    self.last_user.clear();
                }
                let text = text_of(p.get("content").unwrap_or(&Value::Null));
                match str_at(p, "role") {
                    Some("user") => {
                        let t = text.trim_start();
                        if !BOILERPLATE.iter().any(|b| t.starts_with(b)) {
                            self.user(&text, sink);
                        }
                    }
                    Some("assistant") => sink.asm.assistant(&text),
                    _ => sink.meta.skipped += 1,
                }
            }
            "function_call" => {
                let args = str_at(p, "arguments").unwrap_or("");
                let params = serde_json::from_str::<Value>(args)
                    .unwrap_or_else(|_| serde_json::json!({ "arguments": args }));
                let group = self.next_group();
                let name = str_at(p, "name").unwrap_or("");
                // `request_user_input` asks the user: its questions end the
                // turn as the agent's response, its output (the answer)
                // opens the next, as Claude Code's `AskUserQuestion`.
                let asked = (name == ASK).then(|| super::claude::questions(&params));
                sink.asm.call(call_id, name, params, Some(&group));
                if let Some(asked) = asked.filter(|q| !q.is_empty()) {
                    if let Some(id) = call_id {
                        self.asks.insert(id.to_owned());
                    }
                    self.in_batch = false;
                    sink.asm.assistant(&asked);
                }
            }
            "custom_tool_call" => {
                let params =
                    serde_json::json!({ "input": p.get("input").cloned().unwrap_or(Value::Null) });
                let group = self.next_group();
                sink.asm.call(
                    call_id,
                    str_at(p, "name").unwrap_or(""),
                    params,
                    Some(&group),
                );
            }
            "local_shell_call" => {
                let params = p.get("action").cloned().unwrap_or(Value::Null);
                let group = self.next_group();
                sink.asm.call(call_id, "local_shell", params, Some(&group));
            }
            "web_search_call" => {
                let params = p.get("action").cloned().unwrap_or(Value::Null);
                let group = self.next_group();
                sink.asm.call(None, "web_search", params, Some(&group));
            }
            "function_call_output" | "custom_tool_call_output" => {
                self.in_batch = false;
                let output = match p.get("output") {
                    Some(Value::Object(o)) => o
                        .get("content")
                        .map(text_of)
                        .unwrap_or_else(|| Value::Object(o.clone()).to_string().into()),
                    Some(other) => text_of(other),
                    None => "".into(),
                };
                let ok = !failed(&output)
                    && p.get("output")
                        .and_then(|o| o.get("success"))
                        .and_then(Value::as_bool)
                        != Some(false);
                sink.asm.result(call_id.unwrap_or(""), &output, ok);
                if call_id.is_some_and(|id| self.asks.remove(id)) && ok {
                    self.user(&output, sink);
                }
            }
            _ => sink.meta.skipped += 1,
        }
    }

    fn user(&mut self, text: &str, sink: &mut Sink) {
        let t = text.trim();
        if t == self.last_user {
            return;
        }
        self.last_user = t.to_owned();
        sink.asm.user(t);
    }

    fn event(&mut self, p: &Value, sink: &mut Sink) {
        let id = str_at(p, "call_id").unwrap_or("");
        match str_at(p, "type").unwrap_or("") {
            "user_message" => {
                self.in_batch = false;
                self.user(str_at(p, "message").unwrap_or(""), sink);
            }
            "agent_message" | "token_count" | "agent_reasoning" => {}
            "exec_command_end" => {
                let code = p.get("exit_code").and_then(Value::as_i64).unwrap_or(0);
                if code != 0 {
                    sink.asm.mark_failed(id);
                }
            }
            "patch_apply_end" => {
                if p.get("success").and_then(Value::as_bool) == Some(false) {
                    sink.asm.mark_failed(id);
                }
            }
            "context_compacted" => {
                self.in_batch = false;
                sink.asm.condensation();
            }
            _ => sink.meta.skipped += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::import::{Format, import_text};

    /// `request_user_input` asks the user: its questions end the turn, its
    /// output (the answer) opens the next.
    #[test]
    fn request_user_input_asks_and_its_output_answers() {
        let log = [
            r#"{"type":"session_meta","payload":{"id":"s1","cwd":"/w","cli_version":"0.125.0"}}"#,
            r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"run it as a service"}]}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call","name":"request_user_input","call_id":"q1","arguments":"{\"questions\":[{\"header\":\"Mode\",\"id\":\"mode\",\"question\":\"Which mode do you want first?\",\"options\":[{\"label\":\"launchd\"}]}]}"}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"q1","output":"launchd"}}"#,
            r#"{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}}"#,
        ]
        .join("\n");
        let l = import_text(Format::Codex, &log, "r.jsonl").unwrap();
        assert_eq!(l.turns.len(), 2, "{:?}", l.turns);
        assert_eq!(l.turns[0].response, "Which mode do you want first?");
        assert_eq!(l.turns[1].prompt, "launchd");
        assert_eq!(l.turns[1].response, "Done.");
    }

    /// A command the sandbox could not start failed, though no exit code
    /// says so.
    #[test]
    fn outputs_that_report_a_failure() {
        for out in [
            "execution error: Io(Custom { kind: Other, error: \"windows sandbox: runner error\" })",
            "Exit code: 1\nWall time: 1.1 seconds",
            "apply_patch failed: no such file",
        ] {
            assert!(super::failed(out), "{out}");
        }
        assert!(!super::failed(
            "Exit code: 0\nOutput: the execution error: none"
        ));
    }
}
