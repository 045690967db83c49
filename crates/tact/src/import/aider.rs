//! Aider's chat history (`.aider.chat.history.md`): Markdown where
//! `# aider chat started at TIME` opens a chat, `#### ` lines are the
//! user's message (consecutive ones one message; `/ask`, `/code` and
//! `/architect` carry a prompt, other `/commands` are not prompts), `> `
//! lines are aider's own output (its version, the model, the commands it
//! ran, the edits it applied or rejected, commits), and every other line
//! is the agent's reply. Aider's actions become tool calls: `Running CMD`
//! a `shell` call, `Applied edit to FILE` an `edit`, `Commit HASH MSG` a
//! `git_commit`; an edit aider rejects is a failed `edit` whose output is
//! aider's report (see `Rejected`). Aider records no exit status or
//! output for the commands it runs, so a `shell` call is never known to
//! fail. `<thinking-content-…>` blocks are the model's reasoning, not its
//! reply: they are dropped.
//!
//! A `> ` line inside a reply (a Markdown quote) reads as aider's output;
//! a line opening with `>>` (a `>>>>>>> REPLACE` marker) is the reply's.
//!
//! Aider's actions act on the reply before them: that reply stays the
//! turn's response (its questions asked) unless the agent speaks again.
//! In architect mode aider hands the architect's reply to its editor model
//! as `#### ` lines repeating it: that hand-off is the agent's, not a
//! prompt. Code the agent writes outside a fence (`<source>` blocks,
//! SEARCH/REPLACE blocks, unified diffs, lines that are clearly code) is
//! fenced in the reply, so no `?` of code reads as a question.

use std::sync::LazyLock;

use regex::{Regex, RegexSet};

use super::{LogMeta, Sink};

/// The first line of aider's report of edits that did not apply.
static FAILED_HEADER: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^# [0-9]+ SEARCH/REPLACE blocks? failed to match!").ok());

/// A failed block's file, in aider's report.
static FAILED_PATH: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"^## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in (.+)$",
    )
    .ok()
});

/// Whether `pattern` (compiled once) matches `text`.
fn is_match(pattern: &LazyLock<Option<Regex>>, text: &str) -> bool {
    pattern.as_ref().is_some_and(|r| r.is_match(text))
}

/// Aider's own output: a line opening with `>` then white space or
/// nothing (`> Applied edit to …`, `>  `), its text trimmed. A line
/// opening with `>>` (a `>>>>>>> REPLACE` marker) is not.
fn quoted(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('>')?;
    (rest.is_empty() || rest.starts_with(char::is_whitespace)).then(|| rest.trim())
}

/// Text with each run of white space one space, trimmed.
fn collapse(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(1 << 10));
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The longest reply kept to recognize an architect's hand-off (its
/// repetition as `#### ` lines): longer replies are not compared.
const MAX_HAND_OFF_BYTES: usize = 1 << 20;

/// Lines that are clearly code (a declaration, an import, a definition,
/// a statement ending in `;` or `{`, closing brackets, a comment), as the
/// agent writes them outside a fence.
static CODE_LINE: LazyLock<Option<RegexSet>> = LazyLock::new(|| {
    RegexSet::new([
        r"^\s*(?:export\s+)?(?:const|let|var)\s+[\w$\[\]{},\s]+(?::[^=]+)?=",
        r"^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\b\s*\*?\s*[\w$]*\s*\(",
        r#"^\s*import\s+(?:[\w${},*\s]+\s+from\s+)?['"]"#,
        r"^\s*from\s+[\w.]+\s+import\s+[\w*(]",
        r"^\s*(?:async\s+)?def\s+\w+\s*\(.*\)\s*(?:->\s*[^:]+)?:\s*$",
        r"^\s*class\s+\w+(?:\(.*\))?(?:\s+extends\s+[\w.]+)?\s*[:{]\s*$",
        r"^\s*(?:pub(?:\([\w:]+\))?\s+)?(?:fn|struct|enum|trait|impl|mod)\s+\w.*[{;(]\s*$",
        r"^\s*(?:if|for|while|switch|catch)\s*\(.*\)\s*\{?\s*$",
        r"^\s*(?:return|throw|await)\b.*;\s*$",
        r"^\s*[}\])]+[;,)]*\s*$",
        r"^\s*\}\s*(?:else|catch|finally)\b",
        r"^\s*(?://|/\*|\*/)",
        r"^\s*[^\s#>*-].*[(=].*[;{]\s*$",
    ])
    .ok()
});

/// Whether a line outside a fence is code, not prose (a Markdown list item
/// or heading never is).
fn is_code_line(line: &str) -> bool {
    let t = line.trim_start();
    let list_or_heading = t.starts_with("- ")
        || t.starts_with("* ")
        || t.starts_with('#')
        || t.split_once(". ")
            .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    !list_or_heading && CODE_LINE.as_ref().is_some_and(|r| r.is_match(line))
}

/// A line that continues a run of code: indented, with code punctuation.
fn continues_code(line: &str) -> bool {
    line.starts_with(char::is_whitespace)
        && !line.trim().is_empty()
        && line.contains(['(', ')', '{', '}', ';', '=', '[', ']', ':', '?'])
}

/// Whether a line is a unified diff's (a hunk's lines after its header).
fn is_diff_line(line: &str) -> bool {
    line.starts_with([' ', '+', '-', '\\']) || line.starts_with("@@")
}

/// What closes a region of code being fenced.
enum Region {
    /// A line starting with this marker (included).
    Until(&'static str),
    /// The first line that is not a unified diff's.
    Diff,
    /// The first line that is not code.
    Code,
}

/// The agent's reply with the code it wrote outside fences fenced:
/// `<source>` blocks, SEARCH/REPLACE blocks, unified diffs and runs of
/// lines that are clearly code, so no `?` of code is read as a question.
/// One pass over the lines, one line of lookahead.
fn fence_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let push = |out: &mut String, line: &str| {
        out.push_str(line);
        out.push('\n');
    };
    let mut lines = text.lines().peekable();
    let mut fence: Option<&str> = None;
    let mut region: Option<Region> = None;
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if let Some(r) = &region {
            let inside = match r {
                Region::Until(end) => {
                    push(&mut out, line);
                    if t.starts_with(end) {
                        push(&mut out, "```");
                        region = None;
                    }
                    continue;
                }
                Region::Diff => is_diff_line(line) || line.starts_with("+++ "),
                Region::Code => {
                    !t.starts_with("```") && (is_code_line(line) || continues_code(line))
                }
            };
            if inside {
                push(&mut out, line);
                continue;
            }
            push(&mut out, "```");
            region = None;
        }
        if let Some(f) = fence {
            if t.starts_with(f) {
                fence = None;
            }
            push(&mut out, line);
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = t.get(..3);
            push(&mut out, line);
            continue;
        }
        let start = if t.starts_with("<source") {
            Some(Region::Until("</source>"))
        } else if t.starts_with("<<<<<<< SEARCH") {
            Some(Region::Until(">>>>>>> REPLACE"))
        } else if (t.starts_with("--- ") && lines.peek().is_some_and(|n| n.starts_with("+++ ")))
            || (line.starts_with("@@ ") && line[3..].contains("@@"))
        {
            Some(Region::Diff)
        } else if is_code_line(line) {
            Some(Region::Code)
        } else {
            None
        };
        if start.is_some() {
            push(&mut out, "```");
        }
        push(&mut out, line);
        region = start;
    }
    if region.is_some() {
        push(&mut out, "```");
    }
    out.pop();
    out
}

/// What a line does to a report being read.
enum Step {
    /// The line belongs to the report.
    Kept,
    /// The report ended with this line.
    EndedWith,
    /// The report ended before this line, which is read as usual.
    EndedBefore,
}

/// An edit aider rejected, read until its report ends. Aider writes its
/// report's first line as its own output (`> The LLM did not conform to
/// the edit format.`, a link, `> # 1 SEARCH/REPLACE block failed to
/// match!`) and the rest unquoted: per failed block a
/// `## SearchReplaceNoExactMatch: … lines in FILE` line, the block, maybe
/// `Did you mean to match some of these actual lines from FILE?` and a
/// fenced excerpt; then `The SEARCH section must exactly match …`, and,
/// when other blocks applied, `# The other N … were applied successfully.`
/// up to `Just reply with fixed versions of the block above that failed
/// to match.` A malformed reply's report (the reply up to the fault) ends
/// with its `^^^ ` line. The report also ends at aider's next output line,
/// a user message or a new chat (outside the blocks and fences it
/// quotes), or the end of the log.
#[derive(Debug, Default, Clone)]
struct Rejected {
    lines: Vec<String>,
    paths: Vec<String>,
    /// The report's first line was read; unquoted lines follow.
    seen_first: bool,
    in_block: bool,
    in_fence: bool,
    /// After `The SEARCH section must exactly match`: the report ends
    /// unless `# The other …` follows.
    tail: bool,
}

impl Rejected {
    fn take(&mut self, line: &str) -> Step {
        if line.starts_with("# aider chat started at ") {
            return Step::EndedBefore;
        }
        if let Some(out) = quoted(line).filter(|_| !self.in_block && !self.in_fence) {
            if self.seen_first {
                return Step::EndedBefore;
            }
            if !out.is_empty() && !out.starts_with("https://aider.chat/docs/") {
                self.seen_first = true;
                self.lines.push(out.to_owned());
            }
            return Step::Kept;
        }
        if !self.seen_first {
            return Step::EndedBefore;
        }
        let t = line.trim_end();
        if t.starts_with("^^^ ") {
            self.lines.push(t.to_owned());
            return Step::EndedWith;
        }
        if self.in_block {
            self.in_block = !t.starts_with(">>>>>>> REPLACE");
        } else if self.in_fence {
            self.in_fence = !t.trim_start().starts_with("```");
        } else if (self.tail && !t.is_empty() && !t.starts_with("# The other "))
            || t.starts_with("####")
        {
            // The agent's reply after a report with no block applied, or
            // a user message.
            return Step::EndedBefore;
        } else if t.starts_with("Just reply with fixed versions of the") {
            self.lines.push(t.to_owned());
            return Step::EndedWith;
        } else if t.starts_with("The SEARCH section must exactly match") {
            self.tail = true;
        } else if t.starts_with("# The other ") {
            self.tail = false;
        } else if t.starts_with("<<<<<<< SEARCH") {
            self.in_block = true;
        } else if t.starts_with("```") {
            self.in_fence = true;
        } else if let Some(path) = FAILED_PATH
            .as_ref()
            .and_then(|r| r.captures(t))
            .and_then(|c| c.get(1))
        {
            let path = path.as_str().trim();
            if !self.paths.iter().any(|p| p == path) {
                self.paths.push(path.to_owned());
            }
        }
        self.lines.push(t.to_owned());
        Step::Kept
    }

    /// The failed call's parameters: the file, or files, it names.
    fn params(&self) -> serde_json::Value {
        match self.paths.as_slice() {
            [] => serde_json::json!({}),
            [one] => serde_json::json!({ "path": one }),
            many => serde_json::json!({ "paths": many }),
        }
    }
}

/// Whether a file's start looks like an Aider chat history.
pub(crate) fn looks_like(head: &str) -> bool {
    head.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .is_some_and(|l| l.starts_with("# aider chat started at"))
}

/// The reader's state across lines.
#[derive(Debug, Default, Clone)]
pub(crate) struct State {
    user: Vec<String>,
    /// The agent's reply so far, its lines each ended by `\n`.
    reply: String,
    in_thinking: bool,
    /// The agent's last reply, white space collapsed, until the user's
    /// next prompt: an architect's hand-off to its editor repeats it.
    last_reply: Option<String>,
    /// An edit aider rejected, its report still being read.
    rejected: Option<Rejected>,
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
        if self.is_hand_off(prompt) {
            // The architect's instructions to its editor model: the
            // agent's own words (its reply, read already), no prompt.
            return;
        }
        self.last_reply = None;
        sink.asm.user(prompt);
    }

    /// Whether a `#### ` message repeats the agent's last reply: aider's
    /// architect mode hands its reply to the editor model as a user
    /// message of the history.
    fn is_hand_off(&self, prompt: &str) -> bool {
        let Some(reply) = self.last_reply.as_deref() else {
            return false;
        };
        let prompt = collapse(prompt);
        !prompt.is_empty()
            && (prompt == reply
                || (prompt.len() >= 20 && reply.contains(&prompt))
                || (reply.len() >= 20 && prompt.contains(reply)))
    }

    fn flush_reply(&mut self, sink: &mut Sink) {
        if self.reply.is_empty() {
            return;
        }
        let raw = std::mem::take(&mut self.reply);
        if raw.len() <= MAX_HAND_OFF_BYTES {
            let said = collapse(&raw);
            if !said.is_empty() {
                self.last_reply = Some(said);
            }
        } else {
            self.last_reply = None;
        }
        let text = fence_code(&raw);
        drop(raw);
        sink.asm.assistant_owned(text);
    }

    fn tool(
        &mut self,
        sink: &mut Sink,
        name: &str,
        params: serde_json::Value,
        output: &str,
        ok: bool,
    ) {
        // Aider acts on the reply: the reply stays the turn's response.
        sink.asm.action(name, params, output, ok);
    }

    /// Ends the report of a rejected edit: a failed `edit` call.
    fn close_rejected(&mut self, sink: &mut Sink) {
        if let Some(r) = self.rejected.take() {
            let output = r.lines.join("\n");
            self.tool(sink, "edit", r.params(), output.trim(), false);
        }
    }

    pub(crate) fn line(&mut self, raw: &str, sink: &mut Sink) {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some(r) = &mut self.rejected {
            match r.take(line) {
                Step::Kept => return,
                Step::EndedWith => {
                    sink.records += 1;
                    self.close_rejected(sink);
                    return;
                }
                Step::EndedBefore => self.close_rejected(sink),
            }
        }
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
        if let Some(out) = quoted(line) {
            self.flush_reply(sink);
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
            self.reply.push_str(line);
            self.reply.push('\n');
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
        } else if out.starts_with("The LLM did not conform to the edit format") {
            self.rejected = Some(Rejected {
                lines: vec![out.to_owned()],
                ..Rejected::default()
            });
        } else if is_match(&FAILED_HEADER, out) {
            // A report with no lead line of its own.
            self.rejected = Some(Rejected {
                lines: vec![out.to_owned()],
                seen_first: true,
                ..Rejected::default()
            });
        } else if let Some(cwd) = out.strip_prefix("Git working dir: ") {
            LogMeta::set_once(&mut sink.meta.cwd, Some(cwd.trim()));
        } else {
            sink.meta.skipped += 1;
        }
    }

    pub(crate) fn end(&mut self, sink: &mut Sink) {
        self.close_rejected(sink);
        self.flush_user(sink);
        self.flush_reply(sink);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Format, import_text};
    use tact_types::trajectory::{Event, ToolCall};

    /// The tool calls and agent messages of a history, in order.
    fn read(text: &str) -> (Vec<ToolCall>, Vec<String>) {
        let log = import_text(Format::Aider, text, "h.md").unwrap();
        let mut calls = Vec::new();
        let mut said = Vec::new();
        for t in &log.turns {
            for e in &t.events {
                match e {
                    Event::Tool(c) => calls.push(c.clone()),
                    Event::Assistant { text } => said.push(text.clone()),
                    _ => {}
                }
            }
            if !t.response.is_empty() {
                said.push(t.response.clone());
            }
        }
        (calls, said)
    }

    const HEAD: &str = "# aider chat started at 2025-06-02 14:29:21\n\n#### reorder the lists\n\nHere are the blocks:\n\n```markdown\nA.md\n<<<<<<< SEARCH\n- a\n=======\n- b\n>>>>>>> REPLACE\n```\n\n";

    #[test]
    fn a_block_that_failed_to_match_is_a_failed_edit_with_aider_s_report() {
        let text = format!(
            "{HEAD}> Tokens: 1k sent.  \n> The LLM did not conform to the edit format.  \n\
             > https://aider.chat/docs/troubleshooting/edit-errors.html  \n\
             > # 1 SEARCH/REPLACE block failed to match!\n\n\
             ## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in A.md\n\
             <<<<<<< SEARCH\n> a quote\n#### not a prompt\n=======\n> b quote\n>>>>>>> REPLACE\n\n\
             Did you mean to match some of these actual lines from A.md?\n\n```\n> a  quote\n```\n\n\
             The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc\n\n\
             # The other 1 SEARCH/REPLACE block were applied successfully.\nDon't re-send them.\n\
             Just reply with fixed versions of the block above that failed to match.  \n\
             > Commit 1619e93 docs: Reorder lists\n\nThe block failed. Shall I retry?\n"
        );
        let (calls, said) = read(&text);
        let names: Vec<(&str, bool)> = calls.iter().map(|c| (c.name.as_str(), c.ok)).collect();
        assert_eq!(names, [("edit", false), ("git_commit", true)]);
        let edit = &calls[0];
        assert_eq!(edit.params, serde_json::json!({ "path": "A.md" }));
        let out = edit.output.as_str().unwrap();
        assert!(out.starts_with("The LLM did not conform to the edit format.\n# 1 SEARCH/REPLACE block failed to match!"), "{out}");
        assert!(
            out.contains("#### not a prompt\n=======\n> b quote\n>>>>>>> REPLACE"),
            "{out}"
        );
        assert!(
            out.contains("Did you mean to match some of these actual lines from A.md?"),
            "{out}"
        );
        assert!(out.ends_with("that failed to match."), "{out}");
        // The reply keeps its `>>>>>>> REPLACE` line; the report is no reply.
        assert!(said[0].contains("- b\n>>>>>>> REPLACE\n```"), "{said:?}");
        assert_eq!(said[1], "The block failed. Shall I retry?");
        assert!(!said.iter().any(|s| s.contains("Did you mean")), "{said:?}");
    }

    #[test]
    fn a_report_with_no_block_applied_ends_where_the_agent_s_reply_begins() {
        let text = format!(
            "{HEAD}> The LLM did not conform to the edit format.  \n> # 2 SEARCH/REPLACE blocks failed to match!\n\n\
             ## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in A.md\n\
             <<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n\n\
             ## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in b\\B.md\n\
             <<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n\n\
             The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc  \n\n\
             That section does not exist. Did you add the current file?\n"
        );
        let (calls, said) = read(&text);
        assert_eq!(calls.len(), 1);
        assert!(!calls[0].ok);
        assert_eq!(
            calls[0].params,
            serde_json::json!({ "paths": ["A.md", "b\\B.md"] })
        );
        assert!(
            calls[0]
                .output
                .as_str()
                .unwrap()
                .ends_with("docstrings, etc")
        );
        assert_eq!(
            said.last().map(String::as_str),
            Some("That section does not exist. Did you add the current file?")
        );
    }

    #[test]
    fn a_malformed_reply_s_report_ends_at_its_caret_line_and_a_cut_report_at_the_log_s_end() {
        let text = format!(
            "{HEAD}> The LLM did not conform to the edit format.  \n> Here are the blocks:\n\n```markdown\nA.md\n<<<<<<< SEARCH\nx\n\
             ^^^ Expected `=======`\nLet me fix the block.\n"
        );
        let (calls, said) = read(&text);
        assert_eq!(calls.len(), 1);
        let out = calls[0].output.as_str().unwrap();
        assert!(
            out.starts_with("The LLM did not conform to the edit format.\nHere are the blocks:"),
            "{out}"
        );
        assert!(out.ends_with("^^^ Expected `=======`"), "{out}");
        assert_eq!(calls[0].params, serde_json::json!({}));
        assert_eq!(
            said.last().map(String::as_str),
            Some("Let me fix the block.")
        );

        let cut =
            format!("{HEAD}> # 1 SEARCH/REPLACE block failed to match!\n\n<<<<<<< SEARCH\nx\n");
        let (calls, _) = read(&cut);
        assert_eq!(calls.len(), 1);
        assert!(!calls[0].ok);
        assert!(
            calls[0]
                .output
                .as_str()
                .unwrap()
                .ends_with("<<<<<<< SEARCH\nx")
        );
    }

    #[test]
    fn a_lead_line_with_no_report_after_it_is_a_failed_edit_of_its_own() {
        let text =
            format!("{HEAD}> The LLM did not conform to the edit format.  \n\nI will try again.\n");
        let (calls, said) = read(&text);
        assert_eq!(calls.len(), 1);
        assert!(!calls[0].ok);
        assert_eq!(
            calls[0].output.as_str(),
            Some("The LLM did not conform to the edit format.")
        );
        assert_eq!(said.last().map(String::as_str), Some("I will try again."));
    }

    /// A reply asking to confirm, then aider applying its edit: the
    /// reply is still the turn's response (its question kept).
    #[test]
    fn a_reply_followed_by_an_edit_keeps_its_question() {
        let text = "# aider chat started at 2025-06-02 14:29:21\n\n#### add a cache\n\n\
            I will add an LRU cache to `fetch`.\n\n\
            Please confirm if you would like to proceed with this change.\n\n\
            ```python\nsrc/f.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n\n\
            > Applied edit to src/f.py  \n> Commit 1a2b3c4 feat: cache  \n\n#### yes\n\nDone.\n";
        let log = import_text(Format::Aider, text, "h.md").unwrap();
        assert_eq!(log.turns.len(), 2);
        let t = &log.turns[0];
        assert!(
            t.response
                .contains("Please confirm if you would like to proceed"),
            "{t:?}"
        );
        assert_eq!(crate::import::tool_names(t), ["edit", "git_commit"]);
        let questions = tact_core::text::extract_questions(&t.response);
        assert_eq!(questions.len(), 1, "{questions:?}");
    }

    /// A reply, an edit, then the agent's next words: the first reply is
    /// an intermediate message and the last one the response.
    #[test]
    fn the_agent_speaking_after_an_edit_makes_the_reply_intermediate() {
        let text = "# aider chat started at 2025-06-02 14:29:21\n\n#### fix it\n\nFirst reply.\n\n\
            > Applied edit to a.py  \n\nSecond reply?\n";
        let (calls, said) = read(text);
        assert_eq!(calls.len(), 1);
        assert_eq!(said, ["First reply.", "Second reply?"]);
    }

    /// Architect mode: the architect's reply, aider's hand-off of it to the
    /// editor model as `#### ` lines, the editor's blocks: one turn, the
    /// user's prompt the only prompt.
    #[test]
    fn an_architect_hand_off_is_the_agent_s_not_a_prompt() {
        let text = "# aider chat started at 2025-06-02 14:29:21\n\n> Model: o3 with architect edit format  \n\n\
            #### /architect make the port configurable\n\n\
            Read the port from `PORT` in `server.py`:\n\n1. Import `os`.\n2. Use `int(os.environ.get(\"PORT\", 8080))`.\n\n\
            > Tokens: 2.1k sent, 120 received.  \n\n\
            #### Read the port from `PORT` in `server.py`:  \n####   \n#### 1. Import `os`.  \n#### 2. Use `int(os.environ.get(\"PORT\", 8080))`.  \n\n\
            server.py\n```python\n<<<<<<< SEARCH\nport = 8080\n=======\nport = int(os.environ.get(\"PORT\", 8080))\n>>>>>>> REPLACE\n```\n\n\
            > Applied edit to server.py  \n";
        let log = import_text(Format::Aider, text, "h.md").unwrap();
        assert_eq!(log.turns.len(), 1, "{:?}", log.turns);
        assert_eq!(log.turns[0].prompt, "make the port configurable");
        assert!(log.turns[0].response.contains("server.py\n```python"));
    }

    /// Code outside fences is code: a `<source>` block, a diff and a line
    /// of JavaScript ending in `?` give no question; the prose does.
    #[test]
    fn source_blocks_diffs_and_unfenced_code_are_no_questions() {
        let text = "# aider chat started at 2025-06-02 14:29:21\n\n#### normalize paths\n\n\
            Here is the helper:\n\n<source>\nfunction norm(path) {\n  return ok(path) ?\n    path : \"/\";\n}\n</source>\n\n\
            --- a/api.js\n+++ b/api.js\n@@ -1,2 +1,2 @@\n-const a = b ?\n+const a = c ?\n \n\
            And inline:\n\n    const p = path.startsWith(\"/\") ?\n      path : `/${path}`;\n\n\
            Should I also update the tests?\n";
        let log = import_text(Format::Aider, text, "h.md").unwrap();
        let r = &log.turns[0].response;
        let questions: Vec<&str> = tact_core::text::extract_questions(r)
            .iter()
            .map(|q| q.text(r))
            .collect();
        assert_eq!(
            questions,
            ["Should I also update the tests?"],
            "{}",
            log.turns[0].response
        );
    }
}
