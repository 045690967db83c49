//! Aider's chat history (`.aider.chat.history.md`): Markdown where
//! `# aider chat started at TIME` opens a chat, `#### ` lines are the
//! user's message (consecutive ones one message; `/ask`, `/code` and
//! `/architect` carry a prompt, other `/commands` are not prompts), `> `
//! lines are aider's own output (its version, the model, the commands it
//! ran, the edits it applied or rejected, commits), and every other line
//! is the agent's reply. Aider's actions become tool calls: `Running CMD`
//! a `shell` call, `Applied edit to FILE` an `edit`, `Commit HASH MSG` a
//! `git_commit`; an edit aider rejects (`The LLM did not conform to the
//! edit format`, `SEARCH/REPLACE block failed to match`) is a failed
//! `edit`. Aider records no exit status or output for the commands it
//! runs, so a `shell` call is never known to fail. `<thinking-content-…>`
//! blocks are the model's reasoning, not its reply: they are dropped.
//!
//! A `>` line inside a reply (a Markdown quote) reads as aider's output.

use super::{LogMeta, Sink};

/// Whether a file's start looks like an Aider chat history.
pub(crate) fn looks_like(head: &str) -> bool {
    head.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .is_some_and(|l| l.starts_with("# aider chat started at"))
}

/// The reader's state across lines.
#[derive(Debug, Default)]
pub(crate) struct State {
    user: Vec<String>,
    reply: Vec<String>,
    in_thinking: bool,
    calls: u64,
}

impl State {
    fn flush_user(&mut self, sink: &mut Sink) {
        if self.user.is_empty() {
            return;
        }
        let text = self.user.join("\n");
        self.user.clear();
        let t = text.trim();
        let prompt = if let Some(rest) = t.strip_prefix('/') {
            let (cmd, arg) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            match cmd {
                "ask" | "code" | "architect" => arg,
                _ => "",
            }
        } else {
            t
        };
        sink.asm.user(prompt);
    }

    fn flush_reply(&mut self, sink: &mut Sink) {
        if self.reply.is_empty() {
            return;
        }
        let text = self.reply.join("\n");
        self.reply.clear();
        sink.asm.assistant(&text);
    }

    fn tool(
        &mut self,
        sink: &mut Sink,
        name: &str,
        params: serde_json::Value,
        output: &str,
        ok: bool,
    ) {
        self.calls += 1;
        let id = format!("aider-{}", self.calls);
        sink.asm.call(Some(&id), name, params, None);
        sink.asm.result(&id, output, ok);
    }

    pub(crate) fn line(&mut self, raw: &str, sink: &mut Sink) {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some(time) = line.strip_prefix("# aider chat started at ") {
            self.flush_user(sink);
            self.flush_reply(sink);
            sink.records += 1;
            sink.meta.time(Some(time.trim()));
            return;
        }
        if let Some(text) = line.strip_prefix("####") {
            self.flush_reply(sink);
            sink.records += 1;
            self.user
                .push(text.strip_prefix(' ').unwrap_or(text).trim_end().to_owned());
            return;
        }
        self.flush_user(sink);
        if let Some(out) = line.strip_prefix('>') {
            self.flush_reply(sink);
            let out = out.trim();
            self.output(out, sink);
            return;
        }
        // The agent's reply, without its reasoning blocks.
        let t = line.trim();
        if t.starts_with("<thinking-content-") {
            self.in_thinking = true;
            return;
        }
        if t.starts_with("</thinking-content-") {
            self.in_thinking = false;
            return;
        }
        if !self.in_thinking {
            self.reply.push(line.to_owned());
        }
    }

    fn output(&mut self, out: &str, sink: &mut Sink) {
        sink.records += 1;
        if let Some(v) = out.strip_prefix("Aider v") {
            if sink.meta.agent.is_none() {
                sink.meta.agent = Some(format!("aider v{}", v.trim()));
            }
        } else if let Some(m) = out
            .strip_prefix("Main model: ")
            .or_else(|| out.strip_prefix("Model: "))
        {
            let model = m.split(" with ").next().unwrap_or(m).trim();
            if !model.is_empty() {
                sink.meta.model = Some(model.to_owned());
            }
        } else if let Some(cmd) = out.strip_prefix("Running ") {
            self.tool(
                sink,
                "shell",
                serde_json::json!({ "command": cmd }),
                "",
                true,
            );
        } else if let Some(file) = out.strip_prefix("Applied edit to ") {
            self.tool(sink, "edit", serde_json::json!({ "path": file }), "", true);
        } else if let Some(rest) = out.strip_prefix("Commit ") {
            let (hash, message) = rest.split_once(' ').unwrap_or((rest, ""));
            self.tool(
                sink,
                "git_commit",
                serde_json::json!({ "hash": hash, "message": message }),
                "",
                true,
            );
        } else if out.starts_with("The LLM did not conform to the edit format")
            || (out.contains("SEARCH/REPLACE block") && out.contains("failed to match"))
        {
            self.tool(sink, "edit", serde_json::json!({}), out, false);
        } else if let Some(cwd) = out.strip_prefix("Git working dir: ") {
            LogMeta::set_once(&mut sink.meta.cwd, Some(cwd.trim()));
        } else {
            sink.meta.skipped += 1;
        }
    }

    pub(crate) fn end(&mut self, sink: &mut Sink) {
        self.flush_user(sink);
        self.flush_reply(sink);
    }
}
