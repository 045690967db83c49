//! mini-swe-agent's trajectories (`<instance_id>.traj.json`): one JSON
//! object with `messages` (an OpenAI-style chat), `info` (`exit_status`,
//! `submission`, `model_stats`, `mini_version`, `config`),
//! `trajectory_format` (`mini-swe-agent-1`, `-1.1`, ...) and, from its
//! SWE-bench runs, `instance_id`.
//!
//! The system prompt is skipped; the first user message is the task. In
//! the text format (`mini-swe-agent-1`) each assistant message is its
//! thought and one fenced `bash` (or `mswea_bash_command`) block: a
//! `bash` call with `{"command": ...}`, answered by the next user message
//! (the harness's `<returncode>` and `<output>`); in the tool-call format
//! (`-1.1` with a tool-calling model) the assistant's `tool_calls` are the
//! calls and `tool` messages their results, by `tool_call_id`. A call
//! failed when its return code is not 0 (`extra.returncode`, else
//! `<returncode>N</returncode>`). Later user messages without an open
//! call (format errors, time-outs) and the final `exit` message are the
//! harness's, skipped and counted. mini-swe-agent has no channel to a
//! user, so its sessions have no response.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::{ImportError, LogMeta, Sink, str_at, text_of};

/// Whether a JSON document's start (an object) looks like a mini-swe-agent
/// trajectory: its `trajectory_format`, or `info` with `mini_version`.
pub(crate) fn looks_like(head: &str) -> bool {
    let t = head.trim_start();
    t.starts_with('{')
        && (head.contains("\"trajectory_format\": \"mini-swe-agent")
            || head.contains("\"trajectory_format\":\"mini-swe-agent")
            || (super::has_key(head, "mini_version") && super::has_key(head, "messages")))
}

/// The action block of a text-format reply.
static ACTION: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?s)```(?:bash|mswea_bash_command|sh)[ \t]*\r?\n(.*?)\r?\n?```").ok()
});

/// The return code the harness reports.
static RETURNCODE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"<returncode>\s*(-?\d+)\s*</returncode>").ok());

/// Whether an observation reports a non-zero return code.
fn failed(output: &str, extra: Option<&Value>) -> bool {
    if let Some(code) = extra
        .and_then(|x| x.get("returncode"))
        .and_then(Value::as_i64)
    {
        return code != 0;
    }
    RETURNCODE
        .as_ref()
        .and_then(|re| re.captures(output))
        .and_then(|c| c.get(1))
        .and_then(|m| m.as_str().parse::<i64>().ok())
        .is_some_and(|c| c != 0)
}

/// What a trajectory's reader keeps between its messages.
#[derive(Debug, Default)]
struct Reading {
    /// Messages read.
    index: usize,
    task_seen: bool,
    /// The text-format call the next user message answers.
    open: Option<String>,
    /// `info`'s configured model was read: it is the model.
    configured: bool,
    messages_seen: bool,
}

/// Reads a trajectory from `reader`, one message in memory at a time
/// (never the whole document); one over `limit` bytes is skipped and
/// reported.
pub(crate) fn read(
    reader: &mut impl std::io::BufRead,
    sink: &mut Sink,
    limit: usize,
) -> Result<(), ImportError> {
    let source = sink.source.clone();
    sink.meta.task = sink
        .stem
        .as_deref()
        .map(|s| s.strip_suffix(".traj").unwrap_or(s).to_owned());
    sink.meta.agent = Some("mini-swe-agent".to_owned());
    let mut r = Reading::default();
    let top = super::read::scan_values(reader, sink, limit, &mut |key, v, sink| match key {
        Some("messages") => {
            r.messages_seen = true;
            r.message(&v, sink);
        }
        Some("info") => r.info(&v, sink),
        Some("instance_id") => {
            if let Some(id) = v.as_str() {
                sink.meta.task = Some(id.to_owned());
            }
        }
        _ => {}
    })?;
    if top != b'{' || !r.messages_seen {
        return Err(ImportError::new(
            &source,
            1,
            "expected a mini-swe-agent trajectory: an object with `messages`",
        ));
    }
    Ok(())
}

impl Reading {
    /// `info`: the version, exit status and configured model (which wins
    /// over the model of the replies, wherever `info` stands).
    fn info(&mut self, info: &Value, sink: &mut Sink) {
        if let Some(version) = str_at(info, "mini_version") {
            sink.meta.agent = Some(format!("mini-swe-agent {version}"));
        }
        LogMeta::set_once(&mut sink.meta.exit_status, str_at(info, "exit_status"));
        let configured = info
            .get("config")
            .and_then(|c| c.get("model"))
            .and_then(|m| str_at(m, "model_name"));
        if let Some(m) = configured {
            self.configured = true;
            sink.meta.model = Some(m.to_owned());
        }
    }

    /// One message of `messages`.
    fn message(&mut self, m: &Value, sink: &mut Sink) {
        let i = self.index;
        self.index += 1;
        let content = text_of(m.get("content").unwrap_or(&Value::Null));
        let extra = m.get("extra");
        if let Some(t) = extra
            .and_then(|x| x.get("timestamp"))
            .and_then(Value::as_f64)
        {
            sink.meta.time(Some(&format!("{t}")));
        }
        match str_at(m, "role") {
            Some("user") if !self.task_seen => {
                sink.records += 1;
                self.task_seen = true;
                sink.asm.user(&content);
            }
            Some("assistant") => {
                sink.records += 1;
                if !self.configured {
                    if let Some(model) = extra
                        .and_then(|x| x.get("response"))
                        .and_then(|r| str_at(r, "model"))
                    {
                        sink.meta.model = Some(model.to_owned());
                    }
                }
                self.open = assistant(m, &content, i, sink);
            }
            Some("tool") => {
                sink.records += 1;
                let id = str_at(m, "tool_call_id").unwrap_or("");
                sink.asm.result(id, &content, !failed(&content, extra));
            }
            Some("user") => match self.open.take() {
                Some(id) => {
                    sink.records += 1;
                    sink.asm.result(&id, &content, !failed(&content, extra));
                }
                None => sink.meta.skipped += 1,
            },
            _ => sink.meta.skipped += 1,
        }
    }
}

/// An assistant message: its text, then its calls. Returns the id of a
/// text-format call, which the next user message answers.
fn assistant(m: &Value, content: &str, index: usize, sink: &mut Sink) -> Option<String> {
    if let Some(Value::Array(calls)) = m.get("tool_calls") {
        sink.asm.assistant(content);
        let group = format!("m{index}");
        for c in calls {
            let f = c.get("function").unwrap_or(&Value::Null);
            let args = str_at(f, "arguments").unwrap_or("");
            let params = serde_json::from_str::<Value>(args)
                .unwrap_or_else(|_| serde_json::json!({ "arguments": args }));
            sink.asm.call(
                str_at(c, "id"),
                str_at(f, "name").unwrap_or(""),
                params,
                Some(&group),
            );
        }
        return None;
    }
    let found = ACTION
        .as_ref()
        .and_then(|re| re.captures(content))
        .and_then(|c| Some((c.get(0)?.range(), c.get(1)?.as_str().to_owned())));
    let Some((range, command)) = found else {
        sink.asm.assistant(content);
        return None;
    };
    let thought = format!("{}{}", &content[..range.start], &content[range.end..]);
    let thought = thought.trim();
    sink.asm
        .assistant(thought.strip_prefix("THOUGHT:").unwrap_or(thought));
    let id = format!("step-{index}");
    sink.asm.call(
        Some(&id),
        "bash",
        serde_json::json!({ "command": command }),
        None,
    );
    Some(id)
}

#[cfg(test)]
mod tests {
    use crate::import::{Format, import_text};
    use tact_types::trajectory::Event;

    #[test]
    fn text_format_actions_are_bash_calls_answered_by_the_next_message() {
        let t = r#"{"info":{"exit_status":"Submitted","mini_version":"1.15.0"},"messages":[
 {"role":"system","content":"You are a helpful assistant."},
 {"role":"user","content":"Fix the bug."},
 {"role":"assistant","content":"THOUGHT: Look first.\n\n```bash\nls\n```"},
 {"role":"user","content":"<returncode>2</returncode>\n<output>\nls: no such file\n</output>"},
 {"role":"assistant","content":"No action here."},
 {"role":"user","content":"Please always provide EXACTLY ONE action."}
],"trajectory_format":"mini-swe-agent-1","instance_id":"x__y-1"}"#;
        let l = import_text(Format::MiniSweAgent, t, "x__y-1.traj.json").unwrap();
        assert_eq!(l.meta.task.as_deref(), Some("x__y-1"));
        assert_eq!(l.meta.exit_status.as_deref(), Some("Submitted"));
        assert_eq!(l.meta.skipped, 2);
        let turn = &l.turns[0];
        assert_eq!(turn.prompt, "Fix the bug.");
        let Event::Tool(c) = &turn.events[1] else {
            panic!("{:?}", turn.events)
        };
        assert_eq!((c.name.as_str(), c.ok), ("bash", false));
        assert_eq!(c.params["command"], "ls");
    }
}
