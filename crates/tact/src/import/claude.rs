//! Claude Code's transcripts (`~/.claude/projects/<project>/<session>.jsonl`):
//! `user` and `assistant` records whose `message.content` holds `text`,
//! `tool_use` and `tool_result` blocks (`is_error` for a failed call),
//! `system` records (a `compact_boundary` is a condensation), `summary`
//! records (the title). Sub-agent records (`isSidechain`) and meta
//! messages are not the user's exchange with the agent: they are skipped.
//! An `AskUserQuestion` call is a question to the user: its questions end
//! the turn as the agent's response, and the answer opens the next (as
//! Codex's `request_user_input` does in [`super::codex`]).
//!
//! A resumed session replays its earlier chain under a second root
//! (`parentUuid: null`): a record whose `uuid` was read already, an
//! assistant block already read under its `message.id`, a tool call whose
//! id was seen and a result of a call already answered are skipped (and
//! counted in [`LogMeta::skipped`]), so nothing is imported twice.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use serde_json::Value;

use super::{LogMeta, Sink, str_at, text_of};

/// The tool by which Claude Code asks the user questions.
const ASK: &str = "AskUserQuestion";

/// Whether a first record looks like Claude Code's.
pub(crate) fn looks_like(v: &Value) -> bool {
    let ty = str_at(v, "type").unwrap_or("");
    let known = matches!(
        ty,
        "user"
            | "assistant"
            | "summary"
            | "system"
            | "file-history-snapshot"
            | "queue-operation"
            | "progress"
    );
    known
        && (v.get("sessionId").is_some()
            || v.get("parentUuid").is_some()
            || v.get("leafUuid").is_some()
            || v.get("messageId").is_some())
}

/// The reader's state across lines.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// Open `AskUserQuestion` calls.
    asks: HashSet<String>,
    /// Digests of what was read, to skip a resumed session's replay:
    /// record ids, assistant blocks (by message id and content), tool call
    /// ids and the ids of answered calls; the first [`MAX_SEEN`] only.
    seen: HashSet<u64>,
}

/// How many digests [`State::seen`] keeps (at most about 2.4 MB): a
/// replay repeats a file's earliest records, the session it resumes, so
/// the first ones are kept and memory stays flat however long the log
/// grows. A log of more (some 30,000 records) is deduplicated over its
/// first part only.
const MAX_SEEN: usize = 1 << 17;

/// A stable digest of a record's key: its kind and the key's parts.
fn digest(kind: u8, parts: &[&str]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    kind.hash(&mut h);
    parts.hash(&mut h);
    h.finish()
}

/// Kinds of keys in [`State::seen`].
const RECORD: u8 = 0;
const BLOCK: u8 = 1;
const CALL: u8 = 2;
const RESULT: u8 = 3;

impl State {
    /// Whether `key` is read for the first time (kept, while fewer than
    /// [`MAX_SEEN`] are).
    fn first_time(&mut self, key: u64) -> bool {
        self.first_time_within(key, MAX_SEEN)
    }

    fn first_time_within(&mut self, key: u64, cap: usize) -> bool {
        // One hash a record: inserted while there is room, else looked up.
        if self.seen.len() < cap {
            self.seen.insert(key)
        } else {
            !self.seen.contains(&key)
        }
    }

    pub(crate) fn record(&mut self, v: &Value, sink: &mut Sink) {
        let ty = str_at(v, "type").unwrap_or("");
        if !matches!(ty, "user" | "assistant" | "system" | "summary") {
            sink.meta.skipped += 1;
            return;
        }
        sink.records += 1;
        // A resumed session's file replays its first session's records:
        // the session is the last one named (the file's own).
        if let Some(id) = str_at(v, "sessionId").filter(|i| !i.is_empty()) {
            if sink.meta.session_id.as_deref() != Some(id) {
                sink.meta.session_id = Some(id.to_owned());
            }
        }
        LogMeta::set_once(&mut sink.meta.cwd, str_at(v, "cwd"));
        if sink.meta.agent.is_none() {
            if let Some(version) = str_at(v, "version") {
                sink.meta.agent = Some(format!("claude-code {version}"));
            }
        }
        sink.meta.time(str_at(v, "timestamp"));
        if let Some(uuid) = str_at(v, "uuid") {
            if !self.first_time(digest(RECORD, &[uuid])) {
                sink.meta.skipped += 1;
                return;
            }
        }
        if v.get("isSidechain").and_then(Value::as_bool) == Some(true) {
            sink.meta.skipped += 1;
            return;
        }
        match ty {
            "summary" => sink.title(str_at(v, "summary")),
            "system" => {
                if str_at(v, "subtype") == Some("compact_boundary") {
                    sink.asm.condensation();
                } else {
                    sink.meta.skipped += 1;
                }
            }
            "user" => self.user(v, sink),
            _ => self.assistant(v, sink),
        }
    }

    fn user(&mut self, v: &Value, sink: &mut Sink) {
        let meta = v.get("isMeta").and_then(Value::as_bool) == Some(true)
            || v.get("isCompactSummary").and_then(Value::as_bool) == Some(true);
        let Some(content) = v.get("message").and_then(|m| m.get("content")) else {
            return;
        };
        match content {
            Value::Array(blocks) => {
                let mut text = Vec::new();
                for b in blocks {
                    match str_at(b, "type") {
                        Some("tool_result") => {
                            let id = str_at(b, "tool_use_id").unwrap_or("");
                            if !id.is_empty() && !self.first_time(digest(RESULT, &[id])) {
                                // A replayed result of a call answered before.
                                sink.meta.skipped += 1;
                                continue;
                            }
                            let output = text_of(b.get("content").unwrap_or(&Value::Null));
                            let failed = b.get("is_error").and_then(Value::as_bool) == Some(true);
                            sink.asm.result(id, &output, !failed);
                            // The answer to a question is the user's next prompt.
                            if self.asks.remove(id) && !failed {
                                sink.asm.user(&output);
                            }
                        }
                        Some("text") if !meta => text.push(str_at(b, "text").unwrap_or("")),
                        _ => {}
                    }
                }
                if !text.is_empty() {
                    sink.asm.user(&text.join("\n\n"));
                }
            }
            Value::String(s) if !meta => sink.asm.user(s),
            _ => {}
        }
    }

    fn assistant(&mut self, v: &Value, sink: &mut Sink) {
        let Some(message) = v.get("message") else {
            return;
        };
        if let Some(model) = str_at(message, "model").filter(|m| !m.starts_with('<')) {
            sink.meta.model = Some(model.to_owned());
        }
        let group = str_at(message, "id");
        let Some(Value::Array(blocks)) = message.get("content") else {
            if let Some(Value::String(s)) = message.get("content") {
                sink.asm.assistant(s);
            }
            return;
        };
        for b in blocks {
            // A block replayed under the same message id (a resumed
            // session writes the earlier pieces again, with new uuids).
            if let Some(group) = group {
                let content = serde_json::to_string(b).unwrap_or_default();
                if !self.first_time(digest(BLOCK, &[group, &content])) {
                    sink.meta.skipped += 1;
                    continue;
                }
            }
            match str_at(b, "type") {
                Some("text") => sink.asm.assistant(str_at(b, "text").unwrap_or("")),
                Some("tool_use") => {
                    let id = str_at(b, "id");
                    if id.is_some_and(|id| !self.first_time(digest(CALL, &[id]))) {
                        sink.meta.skipped += 1;
                        continue;
                    }
                    let name = str_at(b, "name").unwrap_or("");
                    let input = b.get("input").cloned().unwrap_or(Value::Null);
                    sink.asm.call(id, name, input.clone(), group);
                    if name == ASK {
                        if let Some(id) = id {
                            self.asks.insert(id.to_owned());
                        }
                        sink.asm.assistant(&questions(&input));
                    }
                }
                _ => {}
            }
        }
    }
}

/// The questions of an `AskUserQuestion` call (or Codex's
/// `request_user_input`, whose arguments have the same `questions`), one a
/// line.
pub(crate) fn questions(input: &Value) -> String {
    let mut out = Vec::new();
    if let Some(Value::Array(qs)) = input.get("questions") {
        for q in qs {
            if let Some(text) = str_at(q, "question") {
                out.push(text.to_owned());
            }
        }
    }
    if let Some(q) = str_at(input, "question") {
        out.push(q.to_owned());
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use crate::import::{Format, import_text};

    /// A replay whose pieces carry new uuids: the assistant's blocks (same
    /// message id and content), its tool call and the call's result are
    /// each read once.
    #[test]
    fn replayed_pieces_with_new_uuids_are_read_once() {
        let chain = |u: &str| {
            format!(
                r#"{{"type":"user","uuid":"{u}1","parentUuid":null,"sessionId":"s","message":{{"role":"user","content":"Fix the build."}}}}
{{"type":"assistant","uuid":"{u}2","sessionId":"s","message":{{"id":"m1","content":[{{"type":"text","text":"Should I use make or cargo?"}}]}}}}
{{"type":"assistant","uuid":"{u}3","sessionId":"s","message":{{"id":"m1","content":[{{"type":"tool_use","id":"t1","name":"Bash","input":{{"command":"ls"}}}}]}}}}
{{"type":"user","uuid":"{u}4","sessionId":"s","message":{{"content":[{{"type":"tool_result","tool_use_id":"t1","content":"Makefile"}}]}}}}
"#
            )
        };
        let once = import_text(Format::ClaudeCode, &chain("a"), "c.jsonl").unwrap();
        // The same uuids again, then the pieces again under new uuids.
        let text = format!("{}{}{}", chain("a"), chain("a"), chain("b"));
        let log = import_text(Format::ClaudeCode, &text, "c.jsonl").unwrap();
        let calls = log
            .events()
            .into_iter()
            .filter(|e| matches!(e, tact_types::trajectory::Event::Tool(_)))
            .count();
        assert_eq!(calls, 1);
        let said: Vec<_> = log.turns.iter().map(|t| t.response.clone()).collect();
        assert!(
            said.iter().all(|r| r.matches("make or cargo").count() <= 1),
            "{said:?}"
        );
        assert_eq!(log.turns[0], once.turns[0]);
    }

    /// The digests kept stop at the cap, so memory stays flat however long
    /// a log grows: the first ones still tell a replay, later ones are read.
    #[test]
    fn the_digests_kept_stop_at_the_cap() {
        let mut state = super::State::default();
        assert!((0..100).all(|k| state.first_time_within(k, 64)));
        assert_eq!(state.seen.len(), 64);
        assert!(!state.first_time_within(3, 64));
        assert!(state.first_time_within(90, 64));
        assert_eq!(state.seen.len(), 64);
    }
}
