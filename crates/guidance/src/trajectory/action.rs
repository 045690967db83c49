//! The normalized view of a tool call, whatever the agent names its tool
//! and params: the file it reads or writes (`file_path`, `path`, `file`,
//! `filename`, `notebook_path`, a patch's files...), whether an edit
//! changes content, a commit, a search, a command, a fetch. Defined once,
//! here: the analysis judges progress on it, and a host or an importer
//! reads a call the same way ([`CallView::of`]).
//!
//! ```
//! use tact_guidance::{ActionKind, CallView};
//! use serde_json::json;
//!
//! let params = json!({"file_path": "src/a.rs", "old_string": "a", "new_string": "b"});
//! let edit = CallView::of("Edit", &params);
//! assert_eq!((edit.kind, edit.file.as_deref(), edit.changes), (ActionKind::Edit, Some("src/a.rs"), Some(true)));
//! let params = json!({"cmd": "git add -A && git commit -m wip"});
//! assert_eq!(CallView::of("exec_command", &params).kind, ActionKind::Commit);
//! let params = json!({"command": "view", "path": "a.py"});
//! let read = CallView::of("str_replace_editor", &params);
//! assert_eq!((read.kind, read.command), (ActionKind::Read, None));
//! ```

use std::borrow::Cow;

use serde_json::Value;

/// What a tool call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ActionKind {
    /// Reads a file (or views a folder).
    Read,
    /// Writes, edits, creates or patches a file.
    Edit,
    /// Commits (a `git commit` command, a commit tool).
    Commit,
    /// Searches files or the web (a pattern, a query).
    Search,
    /// Runs a command.
    Command,
    /// Fetches a URL.
    Fetch,
    /// Waits on a command already running: polls its output (Codex's
    /// `write_stdin` with no input, Claude Code's `BashOutput`).
    Wait,
    /// Anything else (a plan update, a question, a sub-agent).
    Other,
}

/// A tool call as guidance reads it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CallView<'a> {
    /// What it does.
    pub kind: ActionKind,
    /// The file it reads or writes (a patch's first file).
    pub file: Option<Cow<'a, str>>,
    /// The command it runs (an argument list joined by spaces).
    pub command: Option<Cow<'a, str>>,
    /// The search it runs: its pattern or query.
    pub query: Option<&'a str>,
    /// The URL it fetches.
    pub url: Option<&'a str>,
    /// For an edit: whether it changes content (`Some(false)` when the new
    /// text equals the old one), `None` when the params do not say.
    pub changes: Option<bool>,
    /// For an edit: the params that carry its content (new text, patch,
    /// edits), `None` when the call does not carry it.
    pub content: Option<&'a Value>,
}

/// Params naming the file a tool reads or writes, most specific first.
pub const FILE_KEYS: [&str; 11] = [
    "file_path",
    "notebook_path",
    "target_file",
    "filepath",
    "filename",
    "file",
    "absolute_path",
    "relative_path",
    "path",
    "target",
    "uri",
];

/// Params naming the part of a file a read covers (another part of a file
/// is new ground).
pub const RANGE_KEYS: [&str; 6] = [
    "offset",
    "limit",
    "view_range",
    "start_line",
    "end_line",
    "line",
];

/// Params holding a command line.
const COMMAND_KEYS: [&str; 3] = ["command", "cmd", "script"];
/// Params holding a search.
const QUERY_KEYS: [&str; 6] = ["pattern", "query", "regex", "search_term", "q", "glob"];
/// Params holding a new file's content or an edit's new text.
const CONTENT_KEYS: [&str; 10] = [
    "content",
    "contents",
    "file_text",
    "new_string",
    "new_str",
    "new_content",
    "new_source",
    "patch",
    "diff",
    "input",
];
/// OpenHands' and SWE-agent's editor commands (`command` is then no shell).
const EDITOR_READS: [&str; 1] = ["view"];
const EDITOR_EDITS: [&str; 5] = ["create", "str_replace", "insert", "undo_edit", "write"];

impl<'a> CallView<'a> {
    /// The view of a call of the tool `name` with `params`.
    pub fn of(name: &str, params: &'a Value) -> Self {
        let lower = name.to_ascii_lowercase();
        let mut view = CallView {
            kind: ActionKind::Other,
            file: None,
            command: None,
            query: None,
            url: None,
            changes: None,
            content: None,
        };
        let Some(map) = params.as_object() else {
            return view;
        };
        let text = |k: &str| map.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
        view.file = FILE_KEYS.iter().find_map(|k| text(k)).map(Cow::Borrowed);
        view.url = text("url");
        view.query = QUERY_KEYS.iter().find_map(|k| text(k));
        let command = COMMAND_KEYS
            .iter()
            .find_map(|k| map.get(*k))
            .and_then(command_line)
            // Arguments the log kept as raw text (cut, or not JSON): the
            // text identifies the call.
            .or_else(|| text("arguments").map(Cow::Borrowed));
        if is_wait(&lower, map) {
            view.kind = ActionKind::Wait;
            return view;
        }
        // An editor's `command` (`view`, `str_replace`...) is its operation.
        let editor = command
            .as_deref()
            .filter(|c| view.file.is_some() && !c.contains(' '))
            .map(str::to_owned);
        view.content = CONTENT_KEYS
            .iter()
            .find_map(|k| map.get(*k))
            .or_else(|| map.get("edits"));
        view.changes = changes(map);
        view.kind = match editor.as_deref() {
            Some(op) if EDITOR_READS.contains(&op) => ActionKind::Read,
            Some(op) if EDITOR_EDITS.contains(&op) => ActionKind::Edit,
            _ => {
                view.command = command;
                kind_of(&lower, &view)
            }
        };
        // A patch handed over as text (Codex's `apply_patch`) names its files.
        if view.kind == ActionKind::Edit && view.file.is_none() {
            let patch = view.content.and_then(Value::as_str).or(view
                .command
                .as_deref()
                .filter(|c| c.contains("*** Begin Patch")));
            view.file = patch.and_then(patch_file).map(|f| Cow::Owned(f.to_owned()));
        }
        if view.kind == ActionKind::Edit && view.content.is_none() && view.command.is_some() {
            // SWE-agent's `edit 12:14\n<text>`: the command carries the text.
            view.content = COMMAND_KEYS.iter().find_map(|k| map.get(*k));
        }
        view
    }
}

/// Whether the call only waits on a running command: a poll with no input
/// (`write_stdin` with empty `chars`), or a tool that reads a background
/// shell's output.
fn is_wait(name: &str, map: &serde_json::Map<String, Value>) -> bool {
    let no_input = map
        .get("chars")
        .or_else(|| map.get("input"))
        .is_none_or(|v| v.as_str().is_some_and(str::is_empty));
    (name == "write_stdin" && no_input)
        || matches!(
            name,
            "bashoutput" | "taskoutput" | "bash_output" | "await_shell"
        )
}

/// A command value: a string, or an argument list (`["bash", "-lc", "ls"]`)
/// joined by spaces.
fn command_line(v: &Value) -> Option<Cow<'_, str>> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(Cow::Borrowed(s.as_str())),
        Value::Array(items) => {
            let parts: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            (!parts.is_empty()).then(|| Cow::Owned(parts.join(" ")))
        }
        _ => None,
    }
}

/// Whether an edit's params change content: an old and a new text that
/// differ (Claude Code's `Edit`, the text editors' `str_replace`), any of a
/// `MultiEdit`'s `edits` that does; `None` when they do not say.
fn changes(map: &serde_json::Map<String, Value>) -> Option<bool> {
    let pair = |old: &str, new: &str| {
        let o = map.get(old).and_then(Value::as_str)?;
        let n = map.get(new).and_then(Value::as_str)?;
        Some(o != n)
    };
    if let Some(c) = pair("old_string", "new_string")
        .or_else(|| pair("old_str", "new_str"))
        .or_else(|| pair("old", "new"))
    {
        return Some(c);
    }
    let edits = map.get("edits")?.as_array()?;
    Some(edits.iter().any(|e| {
        let o = e.get("old_string").and_then(Value::as_str);
        let n = e.get("new_string").and_then(Value::as_str);
        o != n
    }))
}

/// The kind by the tool's name (lower case), then by its params.
fn kind_of(name: &str, view: &CallView<'_>) -> ActionKind {
    let has = |words: &[&str]| words.iter().any(|w| name.contains(w));
    if has(&["commit"]) {
        return ActionKind::Commit;
    }
    if let Some(c) = view.command.as_deref() {
        if is_commit(c) {
            return ActionKind::Commit;
        }
        if c.contains("*** Begin Patch") || starts_with_word(c, &["edit", "create", "apply_patch"])
        {
            return ActionKind::Edit;
        }
    }
    // An edit names what it edits or carries what it writes (a to-do list
    // tool does neither).
    let edits = has(&["edit", "write", "replace", "patch", "create", "insert"]);
    if (edits && (view.file.is_some() || view.content.is_some()))
        || (view.content.is_some() && view.file.is_some())
    {
        return ActionKind::Edit;
    }
    if has(&["grep", "glob", "search", "find"]) || (view.query.is_some() && view.command.is_none())
    {
        return ActionKind::Search;
    }
    if has(&["fetch", "browse", "http"]) || (view.url.is_some() && view.command.is_none()) {
        return ActionKind::Fetch;
    }
    if view.command.is_some() {
        return ActionKind::Command;
    }
    if has(&["read", "view", "open", "cat", "list", "ls"]) || view.file.is_some() {
        return ActionKind::Read;
    }
    ActionKind::Other
}

fn starts_with_word(command: &str, words: &[&str]) -> bool {
    command
        .split_whitespace()
        .next()
        .is_some_and(|w| words.contains(&w))
}

/// Whether a command line runs `git commit` (`git -C dir commit`, after
/// `&&` or `;`, in `bash -lc '...'` too).
pub fn is_commit(command: &str) -> bool {
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '\'' | '"'))
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().enumerate().any(|(i, w)| {
        if !(*w == "git" || w.ends_with("/git")) {
            return false;
        }
        // The subcommand: the first word after git's own options (`-C DIR`
        // and `-c KEY=VALUE` take an argument).
        let mut rest = words.iter().skip(i + 1);
        while let Some(next) = rest.next() {
            match *next {
                "-C" | "-c" => {
                    rest.next();
                }
                o if o.starts_with('-') => {}
                sub => return sub == "commit",
            }
        }
        false
    })
}

/// Whether a search's output says it found nothing: empty (or null, or an
/// empty list), or a tool's short "no matches" line (`No files found`,
/// `No matches found`, `0 matches`...).
pub fn finds_nothing(output: &Value) -> bool {
    let text = match output {
        Value::Null => return true,
        Value::String(s) => s.trim(),
        Value::Array(a) => return a.is_empty(),
        _ => return false,
    };
    if text.is_empty() {
        return true;
    }
    if text.len() > 80 {
        return false;
    }
    let lower = text.to_ascii_lowercase();
    [
        "no files found",
        "no matches",
        "no match found",
        "no results",
        "0 matches",
        "found 0 ",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
}

/// The first file a patch names (`*** Update File: a.rs`, `+++ b/a.rs`).
fn patch_file(patch: &str) -> Option<&str> {
    patch.lines().find_map(|l| {
        [
            "*** Update File: ",
            "*** Add File: ",
            "*** Delete File: ",
            "+++ b/",
            "+++ ",
        ]
        .iter()
        .find_map(|p| l.strip_prefix(p))
        .map(str::trim)
        .filter(|f| !f.is_empty() && *f != "/dev/null")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kind(name: &str, params: Value) -> ActionKind {
        CallView::of(name, &params).kind
    }

    #[test]
    fn every_agent_s_file_parameter_is_the_file() {
        for (name, params) in [
            ("Read", json!({"file_path": "a.rs"})),
            (
                "NotebookEdit",
                json!({"notebook_path": "a.rs", "new_source": "x"}),
            ),
            ("read_file", json!({"path": "a.rs"})),
            ("view", json!({"filename": "a.rs"})),
            ("open", json!({"file": "a.rs"})),
            (
                "str_replace_editor",
                json!({"command": "view", "path": "a.rs"}),
            ),
        ] {
            let p = params.clone();
            let v = CallView::of(name, &p);
            assert_eq!(v.file.as_deref(), Some("a.rs"), "{name} {params}");
        }
    }

    #[test]
    fn kinds_across_agents() {
        assert_eq!(kind("Read", json!({"file_path": "a"})), ActionKind::Read);
        assert_eq!(
            kind("Write", json!({"file_path": "a", "content": "x"})),
            ActionKind::Edit
        );
        assert_eq!(kind("edit", json!({"path": "A.md"})), ActionKind::Edit);
        assert_eq!(
            kind(
                "str_replace_editor",
                json!({"command": "create", "path": "a", "file_text": "x"})
            ),
            ActionKind::Edit
        );
        assert_eq!(
            kind("Grep", json!({"pattern": "fn main"})),
            ActionKind::Search
        );
        assert_eq!(kind("WebSearch", json!({"query": "x"})), ActionKind::Search);
        assert_eq!(
            kind("WebFetch", json!({"url": "https://x"})),
            ActionKind::Fetch
        );
        assert_eq!(
            kind("Bash", json!({"command": "cargo test"})),
            ActionKind::Command
        );
        assert_eq!(
            kind(
                "shell",
                json!({"command": ["bash", "-lc", "git commit -am x"]})
            ),
            ActionKind::Commit
        );
        assert_eq!(
            kind("git_commit", json!({"hash": "abc", "message": "m"})),
            ActionKind::Commit
        );
        assert_eq!(
            kind(
                "edit",
                json!({"command": "edit 287:295\n    x = 1\nend_of_edit"})
            ),
            ActionKind::Edit
        );
        assert_eq!(kind("TodoWrite", json!({"todos": []})), ActionKind::Other);
        assert_eq!(kind("update_plan", json!({"plan": []})), ActionKind::Other);
        assert_eq!(
            kind(
                "write_stdin",
                json!({"chars": "", "session_id": 7, "yield_time_ms": 1000})
            ),
            ActionKind::Wait
        );
        assert_eq!(
            kind("write_stdin", json!({"chars": "y\n", "session_id": 7})),
            ActionKind::Other
        );
        assert_eq!(
            kind("BashOutput", json!({"bash_id": "b1"})),
            ActionKind::Wait
        );
        let cut = json!({"arguments": "{\"cmd\":\"rg -n compact src"});
        let v = CallView::of("exec_command", &cut);
        assert_eq!(
            (v.kind, v.command.as_deref()),
            (ActionKind::Command, Some("{\"cmd\":\"rg -n compact src"))
        );
        let patch = json!({"input": "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch"});
        let v = CallView::of("apply_patch", &patch);
        assert_eq!(
            (v.kind, v.file.as_deref()),
            (ActionKind::Edit, Some("src/a.ts"))
        );
    }

    #[test]
    fn commits_are_found_in_command_lines() {
        assert!(is_commit("git add -A && git commit -m 'x'"));
        assert!(is_commit("cd a; /usr/bin/git -C b commit --amend"));
        assert!(!is_commit("git log --grep commit"));
        assert!(!is_commit("echo commit"));
    }

    #[test]
    fn an_edit_that_changes_nothing_says_so() {
        let same = json!({"file_path": "a", "old_string": "x", "new_string": "x"});
        assert_eq!(CallView::of("Edit", &same).changes, Some(false));
        let multi = json!({"file_path": "a", "edits": [{"old_string": "x", "new_string": "y"}]});
        assert_eq!(CallView::of("MultiEdit", &multi).changes, Some(true));
        assert_eq!(CallView::of("edit", &json!({"path": "a"})).changes, None);
    }
}
