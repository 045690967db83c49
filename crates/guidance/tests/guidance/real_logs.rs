//! Guidance on the shapes real agents' logs have: progress read on each
//! call's normalized view (Claude Code's `file_path`, Codex's `cmd` and
//! patches, Aider's applied edits and commits, the text editors'
//! `command`), so `progress_stall` stays quiet over edit, commit, edit,
//! commit and still fires over re-reads and searches that find nothing;
//! the windows restart where the session says the user spoke.

use serde_json::{Value, json};
use tact_guidance::{Guide, TrajectoryAnalysis};
use tact_types::trajectory::{Event, Mode, ToolCall};

fn call(name: &str, params: Value, output: &str) -> Event {
    Event::tool(ToolCall::new(name).params(params).output(output))
}

/// The classifiers that nudged over `events`, in order.
fn nudged(mode: Mode, events: &[Event]) -> Vec<String> {
    let mut guide = Guide::new(mode);
    events
        .iter()
        .flat_map(|e| guide.observe(e))
        .map(|n| n.classifier)
        .collect()
}

fn stalls(events: &[Event]) -> usize {
    let mut a = TrajectoryAnalysis::new(Mode::Headless);
    a.extend(events);
    a.calls_since_progress()
}

fn claude_edit(file: &str, old: &str, new: &str) -> Event {
    call(
        "Edit",
        json!({"file_path": file, "old_string": old, "new_string": new, "replace_all": false}),
        "The file has been updated.",
    )
}

fn bash(command: &str, output: &str) -> Event {
    call(
        "Bash",
        json!({"command": command, "description": "run it"}),
        output,
    )
}

#[test]
fn claude_code_edit_commit_edit_commit_is_progress() {
    let mut events = vec![
        Event::user("Fix the flaky retry test and commit each fix."),
        call(
            "Read",
            json!({"file_path": "/home/u/app/src/retry.rs"}),
            "1→pub fn retry",
        ),
    ];
    for i in 0..6 {
        events.push(claude_edit(
            "/home/u/app/src/retry.rs",
            &format!("attempts < {i}"),
            &format!("attempts < {}", i + 1),
        ));
        events.push(bash(
            &format!("git add -A && git commit -m 'retry: step {i}'"),
            "[main abc123] retry",
        ));
    }
    assert_eq!(stalls(&events), 0);
    assert!(
        !nudged(Mode::Interactive, &events).contains(&"progress_stall".to_owned()),
        "{:?}",
        nudged(Mode::Interactive, &events)
    );
}

#[test]
fn codex_commands_patches_and_commits_are_progress() {
    let exec = |cmd: &str| {
        call(
            "exec_command",
            json!({"cmd": cmd, "workdir": "/w", "yield_time_ms": 1000}),
            "ok",
        )
    };
    let patch = |n: usize| {
        call(
            "apply_patch",
            json!({"input": format!("*** Begin Patch\n*** Update File: src/plugin.ts\n@@\n-const n = {n};\n+const n = {};\n*** End Patch", n + 1)}),
            "Success. Updated the following files:\nM src/plugin.ts",
        )
    };
    let events = vec![
        Event::user("Add the compaction default."),
        exec("sed -n '1,220p' src/plugin.ts"),
        exec("rg -n compact src"),
        patch(1),
        exec("npm test -- plugin"),
        patch(2),
        exec("git commit -am 'compaction default'"),
        patch(3),
        exec("git commit -am 'compaction: tests'"),
    ];
    assert_eq!(stalls(&events), 0);
}

#[test]
fn aider_applied_edits_and_commits_are_progress() {
    let mut events = vec![Event::user("Make the header sticky.")];
    for i in 0..5 {
        events.push(call("edit", json!({"path": "src/Header.tsx"}), ""));
        events.push(call(
            "git_commit",
            json!({"hash": format!("a1b2c{i}"), "message": "feat: sticky header"}),
            "",
        ));
    }
    assert_eq!(stalls(&events), 0);
}

#[test]
fn re_reads_reruns_and_empty_searches_still_stall() {
    let read = call("Read", json!({"file_path": "/w/src/a.rs"}), "1→fn a() {}");
    let events = vec![
        Event::user("Why does the build fail?"),
        read.clone(),
        call(
            "Grep",
            json!({"pattern": "fn b", "path": "/w/src"}),
            "No files found",
        ),
        read.clone(),
        call(
            "Grep",
            json!({"pattern": "b\\(", "path": "/w/src"}),
            "No matches found",
        ),
        call("Glob", json!({"pattern": "**/b.rs"}), ""),
        read,
    ];
    assert_eq!(stalls(&events), 5);
    assert_eq!(nudged(Mode::Interactive, &events), ["progress_stall"]);
}

#[test]
fn an_edit_that_changes_nothing_is_no_progress() {
    let mut events = vec![Event::user("Tidy it.")];
    for _ in 0..5 {
        events.push(claude_edit("/w/a.rs", "let x = 1;", "let x = 1;"));
    }
    assert_eq!(stalls(&events), 5);
    // A text editor's `str_replace` of the same shape too.
    let same = call(
        "str_replace_editor",
        json!({"command": "str_replace", "path": "/w/a.py", "old_str": "x", "new_str": "x"}),
        "",
    );
    assert_eq!(stalls(&[same.clone(), same.clone(), same]), 3);
}

#[test]
fn windows_restart_where_the_user_spoke() {
    // 30 calls, the user speaks, 15 more: no window holds 40 calls.
    let mut events = vec![Event::user("Migrate the tests.")];
    for i in 0..30 {
        events.push(bash(&format!("npm test -- part{i}"), "ok"));
    }
    events.push(Event::user("Now the docs."));
    for i in 0..15 {
        events.push(bash(&format!("npm run docs -- page{i}"), "ok"));
    }
    assert!(nudged(Mode::Interactive, &events).is_empty());
    assert_eq!(nudged(Mode::Headless, &events), ["high_tool_count"]);
    // An error streak does not run across the user's message either.
    let fail = |c: &str| {
        Event::tool(
            ToolCall::new("Bash")
                .params(json!({"command": c}))
                .ok(false),
        )
    };
    let events = [
        Event::user("Run it."),
        fail("make a"),
        fail("make b"),
        Event::user("Try the other target."),
        fail("make c"),
    ];
    assert!(nudged(Mode::Interactive, &events).is_empty());
    assert_eq!(nudged(Mode::Headless, &events), ["error_streak"]);
}

/// `sensitive_content` on a pending call's params as agents write them.
fn sensitive(name: &str, params: Value) -> bool {
    let mut guide = Guide::new(Mode::Interactive);
    guide
        .propose(vec![tact_types::trajectory::PendingCall::new(name, params)])
        .iter()
        .any(|n| n.classifier == "sensitive_content")
}

#[test]
fn sensitive_content_fires_on_values_never_on_names_or_words() {
    // Mentions: a word after "basic", variables, references, placeholders.
    for (name, params) in [
        (
            "Bash",
            json!({"command": "git commit -m \"add basic TypeScript types\"", "description": "Commit"}),
        ),
        (
            "Bash",
            json!({"command": "echo $GITHUB_TOKEN | gh auth login --with-token"}),
        ),
        (
            "Bash",
            json!({"command": "curl -H \"Authorization: Bearer $GITHUB_TOKEN\" https://api.github.com/user"}),
        ),
        (
            "Write",
            json!({"file_path": ".github/workflows/ci.yml", "content": "env:\n  GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n  password: ${{ secrets.DOCKER_PASSWORD }}\n"}),
        ),
        (
            "Edit",
            json!({"file_path": "src/db.ts", "old_string": "const password = '';", "new_string": "const password = process.env.DB_PASSWORD;"}),
        ),
        (
            "Edit",
            json!({"file_path": "app.py", "old_string": "x", "new_string": "GITHUB_TOKEN=os.environ.get('GITHUB_TOKEN')\napi_key = settings.API_KEY\npassword = getpass()"}),
        ),
        (
            "mcp_call",
            json!({"api_key": "${OPENAI_API_KEY}", "password": "<your-password>"}),
        ),
    ] {
        assert!(!sensitive(name, params.clone()), "{name} {params}");
    }
    // Values fire.
    for (name, params) in [
        (
            "Bash",
            json!({"command": "export GITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a && gh pr list"}),
        ),
        (
            "Bash",
            json!({"command": "curl -H 'Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l' https://x.invalid"}),
        ),
        (
            "Edit",
            json!({"file_path": "config.py", "old_string": "x", "new_string": "DB_PASSWORD = \"hunter2-Prod!\""}),
        ),
        ("mcp_call", json!({"password": "hunter2"})),
    ] {
        assert!(sensitive(name, params.clone()), "{name} {params}");
    }
}

proptest::proptest! {
    /// The normalized view takes any tool name and params: never a panic,
    /// and the analysis on such calls keeps its count consistent.
    #[test]
    fn any_call_has_a_view(
        name in "(Edit|Write|Read|Bash|exec_command|write_stdin|apply_patch|git_commit|edit|[a-zA-Z_]{0,12})",
        key in "(file_path|path|command|cmd|pattern|url|old_string|new_string|input|arguments|chars|edits|[a-z_]{1,8})",
        text in "\\PC{0,40}",
        list in proptest::collection::vec("\\PC{0,8}", 0..4),
        ok in proptest::bool::ANY,
    ) {
        let params = json!({ key.clone(): text.clone(), "command": list.clone(), "edits": [{"old_string": text.clone()}] });
        let _ = tact_guidance::CallView::of(&name, &params);
        let _ = tact_guidance::trajectory::is_commit(&text);
        let _ = tact_guidance::trajectory::finds_nothing(&json!(text));
        let mut a = TrajectoryAnalysis::new(Mode::Interactive);
        for _ in 0..3 {
            a.update(&Event::tool(ToolCall::new(name.clone()).params(params.clone()).ok(ok)));
        }
        proptest::prop_assert!(a.calls_since_progress() <= 3);
    }
}
