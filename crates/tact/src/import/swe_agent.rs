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
//!
//! The trajectory is read one step or message at a time, never parsed
//! whole; when its steps come before `history` (as SWE-agent writes
//! them), the task found there becomes the turn's prompt afterwards.

use std::sync::LazyLock;

use regex::RegexSet;
use serde_json::Value;

use super::read::{Item, scan_items};
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

/// What a trajectory's reader keeps between its items.
#[derive(Debug, Default)]
struct Reading {
    /// Steps read.
    steps: usize,
    /// The task: the last user message of `history` before the agent's first.
    task: Option<String>,
    /// The agent's first message in `history` was read: the task is known.
    task_known: bool,
    /// The task was given to the assembler.
    task_given: bool,
    trajectory_seen: bool,
}

impl Reading {
    /// Gives the task to the assembler: the turn's prompt, first even when
    /// the steps came before `history` in the file.
    fn give_task(&mut self, sink: &mut Sink) {
        if self.task_given {
            return;
        }
        self.task_given = true;
        if let Some(t) = self.task.take() {
            if self.steps == 0 {
                sink.asm.user(&t);
            } else {
                sink.asm.prompt_first(&t);
            }
        }
    }
}

/// Reads a trajectory from `reader`, one step or message in memory at a
/// time (never the whole document); one over `limit` bytes is skipped and
/// reported.
pub(crate) fn read(
    reader: &mut impl std::io::BufRead,
    sink: &mut Sink,
    limit: usize,
) -> Result<(), ImportError> {
    let source = sink.source.clone();
    sink.meta.task = sink.stem.clone();
    sink.meta.agent = Some("swe-agent".to_owned());
    let mut r = Reading::default();
    // The task read ahead ([`task`]): the steps' turn opens with it, as
    // when `history` comes first.
    if let Some(task) = sink.task_ahead.take() {
        r.task = Some(task);
        r.task_known = true;
    }
    let top = scan_items(reader, limit, &mut |item| {
        let (key, line) = match &item {
            Item::Value { key, line, .. } | Item::TooLarge { key, line, .. } => (*key, *line),
        };
        let Some(key @ ("trajectory" | "history" | "info" | "replay_config")) = key else {
            return Ok(());
        };
        if key == "history" && r.task_known {
            // The rest of the history repeats the steps: not read.
            return Ok(());
        }
        let raw = match item {
            Item::Value { raw, .. } => raw,
            Item::TooLarge { bytes, .. } => {
                if key == "trajectory" {
                    r.trajectory_seen = true;
                    r.steps += 1;
                }
                sink.too_large(line, bytes, limit);
                return Ok(());
            }
        };
        let v: Value = serde_json::from_slice(&raw).map_err(|e| {
            (
                line + e.line().saturating_sub(1),
                format!("not valid JSON: {e}"),
            )
        })?;
        drop(raw);
        match key {
            "trajectory" => {
                r.trajectory_seen = true;
                if r.task_known {
                    r.give_task(sink);
                }
                step(&v, r.steps, sink);
                r.steps += 1;
            }
            "history" if !r.task_known => match str_at(&v, "role") {
                Some("assistant") => {
                    r.task_known = true;
                    r.give_task(sink);
                }
                Some("user") => {
                    r.task = Some(text_of(v.get("content").unwrap_or(&Value::Null)).into_owned());
                }
                _ => {}
            },
            "info" => {
                if let Some(s) = str_at(&v, "exit_status") {
                    sink.meta.exit_status = Some(s.to_owned());
                }
            }
            "replay_config" => {
                let replay = match v {
                    Value::String(s) => serde_json::from_str::<Value>(&s).ok(),
                    other => Some(other),
                };
                if let Some(name) = replay
                    .as_ref()
                    .and_then(|r| r.get("agent"))
                    .and_then(|a| a.get("model"))
                    .and_then(|m| str_at(m, "name"))
                {
                    sink.meta.model = Some(name.to_owned());
                }
            }
            _ => {}
        }
        Ok(())
    })
    .map_err(|(line, m)| ImportError::new(&source, line, m))?;
    if top != b'{' || !r.trajectory_seen {
        return Err(ImportError::new(
            &source,
            1,
            "expected a SWE-agent trajectory: an object with `trajectory`",
        ));
    }
    r.give_task(sink);
    Ok(())
}

/// The task of a trajectory read from `reader` ahead of its steps (the
/// last user message of `history` before the agent's first, or its last
/// user message), so a reader given it opens the steps' turn with it and
/// need not hold the turn until `history` (which SWE-agent writes after
/// the steps); `None` when there is none or the file is not read.
pub(crate) fn task(reader: &mut impl std::io::BufRead, limit: usize) -> Option<String> {
    let (mut task, mut known) = (None, false);
    let _ = scan_items(reader, limit, &mut |item| {
        let Item::Value {
            key: Some("history"),
            raw,
            ..
        } = item
        else {
            return Ok(());
        };
        if known {
            return Ok(());
        }
        let Ok(v) = serde_json::from_slice::<Value>(&raw) else {
            return Ok(());
        };
        match str_at(&v, "role") {
            Some("assistant") => known = true,
            Some("user") => {
                task = Some(text_of(v.get("content").unwrap_or(&Value::Null)).into_owned());
            }
            _ => {}
        }
        Ok(())
    });
    task
}

/// One step: the agent's thought, then its action as a call answered by
/// the observation.
fn step(step: &Value, i: usize, sink: &mut Sink) {
    sink.records += 1;
    if let Some(t) = str_at(step, "thought") {
        sink.asm.assistant(t);
    }
    let action = str_at(step, "action").unwrap_or("").trim_end();
    if action.is_empty() {
        return;
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

#[cfg(test)]
mod tests {
    use super::failed;
    use crate::import::{Format, import_text};

    /// Steps before `history` (as SWE-agent writes them) or after: the
    /// same turn, the task its prompt; the history after the agent's first
    /// message is not read.
    #[test]
    fn the_task_is_the_prompt_wherever_history_comes() {
        let steps =
            r#""trajectory": [{"thought": "Look.", "action": "ls -a", "observation": "a.py"}]"#;
        let history = r#""history": [{"role": "system", "content": "You are..."}, {"role": "user", "content": "Fix a.py"}, {"role": "assistant", "content": "Look."}, {"role": "user", "content": "a.py"}]"#;
        let a = import_text(
            Format::SweAgent,
            &format!("{{{steps}, {history}, \"info\": {{}}}}"),
            "t.traj",
        )
        .unwrap();
        let b = import_text(
            Format::SweAgent,
            &format!("{{{history}, {steps}}}"),
            "t.traj",
        )
        .unwrap();
        assert_eq!(a.turns, b.turns);
        assert_eq!(a.turns.len(), 1);
        assert_eq!(a.turns[0].prompt, "Fix a.py");
        assert_eq!(a.events().len(), 3);
        // Read ahead: the task before the agent's first message, whatever
        // follows it; the trajectory read with it gives the same turns.
        let text = format!("{{{steps}, {history}, \"info\": {{}}}}");
        let task = super::task(&mut text.as_bytes(), 1 << 20);
        assert_eq!(task.as_deref(), Some("Fix a.py"));
        let c = crate::import::import_reader_with(
            Format::SweAgent,
            text.as_bytes(),
            "t.traj",
            1 << 20,
            None,
            task,
        )
        .unwrap();
        assert_eq!(c.turns, a.turns);
        assert_eq!(super::task(&mut &b"[1, 2]"[..], 1 << 20), None);
    }

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
