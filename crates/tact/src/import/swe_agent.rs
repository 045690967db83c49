//! SWE-agent's trajectories (`<instance_id>.traj`): one JSON object with
//! `trajectory` (steps of `thought`, `action`, `observation`), `history`
//! (the messages; the task is the last user message before the agent's
//! first), `info` (`exit_status`, `submission`, `model_stats`) and, in
//! newer runs, `replay_config` (the model's name). Each step is the
//! agent's thought, then a tool call named by the action's first word
//! with the whole action as `command`, answered by the observation.
//!
//! SWE-agent records no success flag: a step failed when its observation
//! reads as its tools report a failure: a Python traceback, a non-zero exit
//! code, its editor's rejection of an edit that introduces a syntax error,
//! `command not found`, or a timeout. The file name is the instance id.

use std::sync::LazyLock;

use regex::RegexSet;
use serde_json::Value;

use super::{ImportError, Sink, str_at, text_of};

/// How SWE-agent's tools report a failure, compiled once.
static FAILURE: LazyLock<Option<RegexSet>> = LazyLock::new(|| {
    RegexSet::new([
        r"Traceback \(most recent call last\)",
        r"(?i)exit(?:ed with)? (?:status|code):? ?(?:-\d+|[1-9]\d*)(?-u:\b)",
        r"Your proposed edit has introduced new syntax error",
        r"(?m)(?:^|: )command not found(?-u:\b)",
        r"(?i)(?-u:\b)timed out(?-u:\b)|took too long to execute|EXECUTION TIMED OUT",
    ])
    .ok()
});

/// Whether an observation reports a failure.
pub(crate) fn failed(observation: &str) -> bool {
    FAILURE.as_ref().is_some_and(|s| s.is_match(observation))
}

/// Reads a whole trajectory.
pub(crate) fn document(text: &str, sink: &mut Sink) -> Result<(), ImportError> {
    let source = sink.source.clone();
    let v: Value = serde_json::from_str(text)
        .map_err(|e| ImportError::new(&source, e.line(), format!("not valid JSON: {e}")))?;
    let Some(steps) = v.get("trajectory").and_then(Value::as_array) else {
        return Err(ImportError::new(
            &source,
            1,
            "expected a SWE-agent trajectory: an object with `trajectory`",
        ));
    };
    sink.meta.task = sink.stem.clone();
    sink.meta.agent = Some("swe-agent".to_owned());
    if let Some(info) = v.get("info") {
        if let Some(s) = str_at(info, "exit_status") {
            sink.meta.exit_status = Some(s.to_owned());
        }
    }
    let replay = match v.get("replay_config") {
        Some(Value::String(s)) => serde_json::from_str::<Value>(s).ok(),
        Some(other) => Some(other.clone()),
        None => None,
    };
    if let Some(name) = replay
        .as_ref()
        .and_then(|r| r.get("agent"))
        .and_then(|a| a.get("model"))
        .and_then(|m| str_at(m, "name"))
    {
        sink.meta.model = Some(name.to_owned());
    }
    // The task: the last user message before the agent's first.
    if let Some(history) = v.get("history").and_then(Value::as_array) {
        let mut task = None;
        for m in history {
            match str_at(m, "role") {
                Some("assistant") => break,
                Some("user") => task = Some(text_of(m.get("content").unwrap_or(&Value::Null))),
                _ => {}
            }
        }
        if let Some(t) = task {
            sink.asm.user(&t);
        }
    }
    for (i, step) in steps.iter().enumerate() {
        sink.records += 1;
        if let Some(t) = str_at(step, "thought") {
            sink.asm.assistant(t);
        }
        let action = str_at(step, "action").unwrap_or("").trim_end();
        if action.is_empty() {
            continue;
        }
        let name = action.split_whitespace().next().unwrap_or("");
        let observation = text_of(step.get("observation").unwrap_or(&Value::Null));
        let id = format!("step-{i}");
        sink.asm.call(
            Some(&id),
            name,
            serde_json::json!({ "command": action }),
            None,
        );
        sink.asm.result(&id, &observation, !failed(&observation));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::failed;

    #[test]
    fn failures_as_swe_agent_tools_report_them() {
        for bad in [
            "Traceback (most recent call last):\n  File \"x.py\"",
            "Your proposed edit has introduced new syntax error(s).",
            "bash: pytest: command not found",
            "EXECUTION TIMED OUT",
            "The command exited with exit code 2",
        ] {
            assert!(failed(bad), "{bad}");
        }
        for good in [
            "[File: a.py (3 lines total)]",
            "Found 1 matches",
            "exit code 0",
            "",
        ] {
            assert!(!failed(good), "{good}");
        }
    }
}
