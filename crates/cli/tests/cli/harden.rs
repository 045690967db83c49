//! The fault suite of issue 41 (items 3 to 5), on the real binary: every
//! path a command takes is refused by its type when it is a FIFO or a
//! device (none may hang or read without end), a line over the limit is
//! skipped with a warning naming it, a credential is redacted whole
//! before any cut, glued to a word, or quoted by an error, and a control
//! character from input is escaped in every output.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tact-harden-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs tact in `dir` with `stdin` fed from a thread; a run past `limit`
/// is killed and fails the test (it would have hung).
fn tact_in(dir: &Path, args: &[&str], stdin: Vec<u8>, limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tact"))
        .args(args)
        .current_dir(dir)
        .env_remove("TACT_LOG")
        .env_remove("TACT_DB")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tact");
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&stdin);
    });
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tact {args:?} still running after {limit:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A FIFO at `path` (no writer ever opens it).
fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(ok.success(), "mkfifo {}", path.display());
}

/// A GitHub token of the right shape (fake).
fn token() -> String {
    format!("ghp_{}", "aB3".repeat(12))
}

/// No byte of `out` is a control character but line feed and tab.
fn assert_no_control(what: &str, out: &str) {
    let bad: Vec<char> = out
        .chars()
        .filter(|&c| c.is_control() && c != '\n' && c != '\t')
        .collect();
    assert!(bad.is_empty(), "{what}: raw {bad:?} in {out:?}");
}

/// Every command that takes a path, given `path`: each must end at once,
/// non-zero, saying what the path is.
fn every_path_command(path: &str) -> Vec<Vec<String>> {
    let cmds: &[&[&str]] = &[
        &["run", "{}"],
        &["run", ".", "--config", "{}"],
        &["guide", "{}"],
        &["guide", "--follow", "{}"],
        &["effort", "--file", "{}"],
        &["granularity", "--file", "{}"],
        &["route", "--file", "{}"],
        &["route", "deploy it", "--history", "{}"],
        &["score", "{}"],
        &["consensus", "{}"],
        &["consensus", "--config", "{}", "{}"],
        &["report", "--db", "{}"],
        &["effort", "why?", "--llm", "--config", "{}"],
        &["store", "copy", "{}", "other.db"],
    ];
    cmds.iter()
        .map(|c| c.iter().map(|a| a.replace("{}", path)).collect())
        .collect()
}

fn assert_refused(dir: &Path, path: &str, kind: &str) {
    for args in every_path_command(path) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = tact_in(dir, &args, Vec::new(), Duration::from_secs(20));
        let err = text(&o.stderr);
        assert!(!o.status.success(), "tact {args:?} succeeded: {err}");
        assert!(
            err.contains(kind) || err.contains("not a regular file"),
            "tact {args:?}: {err}"
        );
    }
}

#[cfg(unix)]
#[test]
fn fifo_in_folder_is_refused() {
    let dir = scratch("fifo-folder");
    let sessions = dir.join("d");
    std::fs::create_dir_all(&sessions).unwrap();
    for name in ["x.md", "y.jsonl", "z.traj", "w.json"] {
        mkfifo(&sessions.join(name));
    }
    let o = tact_in(
        &dir,
        &["run", "d", "--db", "t.db"],
        Vec::new(),
        Duration::from_secs(20),
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    for name in ["x.md", "y.jsonl", "z.traj", "w.json"] {
        assert!(
            err.contains(&format!("d/{name}: not a regular file (FIFO) (skipped)")),
            "{name}: {err}"
        );
    }
}

#[cfg(unix)]
#[test]
fn fifo_is_refused_by_every_command() {
    let dir = scratch("fifo-every");
    mkfifo(&dir.join("f.md"));
    assert_refused(&dir, "f.md", "FIFO");
}

#[cfg(unix)]
#[test]
fn dev_zero_is_refused() {
    let dir = scratch("dev-zero");
    assert_refused(&dir, "/dev/zero", "character device");
    // /dev/stdin as a pipe is a FIFO; `-` is how stdin is read.
    let o = tact_in(
        &dir,
        &["effort", "--file", "/dev/stdin"],
        b"why?\n".to_vec(),
        Duration::from_secs(20),
    );
    assert!(text(&o.stderr).contains("give - to read stdin"), "{o:?}");
    let o = tact_in(
        &dir,
        &["effort", "--file", "-"],
        b"Which region should the bucket live in?\n".to_vec(),
        Duration::from_secs(20),
    );
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        text(&o.stdout)
            .lines()
            .filter(|l| !l.starts_with(' '))
            .count(),
        1
    );
}

/// A line of 65 MiB with no newline, between two good lines.
fn huge_input(first: &str, last: &str) -> Vec<u8> {
    let mut input = format!("{first}\n").into_bytes();
    input.resize(input.len() + (65 << 20), b'a');
    input.extend_from_slice(format!("\n{last}\n").as_bytes());
    input
}

#[test]
fn huge_line_is_skipped() {
    let dir = scratch("huge-line");
    let limit = Duration::from_secs(120);
    let input = huge_input("Which region?", "Which port?");
    for cmd in ["effort", "granularity", "route"] {
        let o = tact_in(&dir, &[cmd, "--file", "-", "--json"], input.clone(), limit);
        let err = text(&o.stderr);
        assert!(o.status.success(), "{cmd}: {err}");
        assert!(
            err.contains(
                "warning: stdin:2: a line of 68157440 bytes, over the limit of 67108864 (skipped)"
            ),
            "{cmd}: {err}"
        );
        let lines: Vec<u64> = text(&o.stdout)
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["line"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        assert_eq!(lines, [1, 3], "{cmd}");
    }
    // guide --follow: the events around the huge line are read.
    let event = r#"{"type":"tool","name":"ls","ok":false,"output":"boom"}"#;
    let mut input = huge_input(event, event);
    input.extend_from_slice(format!("{event}\n").as_bytes());
    let o = tact_in(&dir, &["guide", "--follow", "-"], input, limit);
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("warning: stdin:2: a line of 68157440 bytes"),
        "{err}"
    );
    assert!(text(&o.stdout).contains("error_streak"), "{o:?}");
    // An agent's log on stdin: the line is cut at the limit, not held.
    let record = r#"{"type":"user","message":{"role":"user","content":"go"}}"#;
    let input = huge_input(record, record);
    let args = ["guide", "--follow", "--format", "claude-code", "-"];
    let o = tact_in(&dir, &args, input, limit);
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("warning: stdin:2: a line of 68157440 bytes"),
        "{err}"
    );
}

#[test]
fn credential_cut_by_limit_is_redacted() {
    let dir = scratch("cut");
    // The token straddles the 1 MiB cut: 20 of its 40 characters before.
    let response = format!("{}{} and more", "x".repeat((1 << 20) - 20), token());
    let session = serde_json::json!({
        "spec_id": "S", "stage": "implement", "agent": "big",
        "turns": [{"prompt": "go", "response": response}],
        "outcome": {"kind": "score", "value": 1.0},
    });
    std::fs::write(dir.join("big.json"), session.to_string()).unwrap();
    let o = tact_in(
        &dir,
        &["run", "big.json", "--db", "t.db"],
        Vec::new(),
        Duration::from_secs(60),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("was analysed up to"), "{o:?}");
    let piece = &token()[4..16];
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("t.db") {
            let bytes = std::fs::read(entry.path()).unwrap();
            assert!(
                !bytes.windows(piece.len()).any(|w| w == piece.as_bytes()),
                "{name} holds a piece of the token"
            );
        }
    }
}

#[test]
fn glued_token_is_redacted() {
    let dir = scratch("glued");
    let message = format!(
        "Should I use xghp_{} or tok_{} for the deploy?",
        &token()[4..],
        token()
    );
    let o = tact_in(
        &dir,
        &["questions"],
        message.into_bytes(),
        Duration::from_secs(30),
    );
    let shown = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(!shown.contains("aB3aB3"), "{shown}");
    assert!(shown.contains("tok_[REDACTED]"), "{shown}");
}

#[test]
fn error_quoting_token_is_redacted() {
    let dir = scratch("error-token");
    let t = token();
    let base = serde_json::json!({
        "spec_id": "S", "stage": "implement", "agent": "a",
        "turns": [{"prompt": "go", "response": "done"}],
        "outcome": {"kind": t},
    });
    std::fs::write(dir.join("kind.json"), base.to_string()).unwrap();
    let mut stage = base.clone();
    stage["outcome"] = serde_json::json!({"kind": "score", "value": 1.0});
    stage["stage"] = serde_json::json!(t);
    std::fs::create_dir_all(dir.join("st")).unwrap();
    std::fs::write(dir.join("st/stage.json"), stage.to_string()).unwrap();
    let event = format!("{{\"type\":\"{t}\"}}\n");
    let runs: [(&[&str], Vec<u8>); 5] = [
        (&["score", "kind.json"], Vec::new()),
        (&["run", "kind.json", "--db", "t.db"], Vec::new()),
        (&["run", "st", "--db", "t.db"], Vec::new()),
        (&["guide", "--follow", "-"], event.clone().into_bytes()),
        (&["guide", "-"], event.repeat(2).into_bytes()),
    ];
    for (args, stdin) in runs {
        let o = tact_in(&dir, args, stdin, Duration::from_secs(30));
        let all = format!("{}{}", text(&o.stdout), text(&o.stderr));
        assert!(!all.contains("aB3aB3"), "{args:?}: {all}");
        assert!(all.contains("[REDACTED]"), "{args:?}: {all}");
    }
}

#[test]
fn escape_in_agent_name_is_escaped() {
    let dir = scratch("escape");
    let hostile = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{1b}[31m\u{9b}1m\r";
    let session = serde_json::json!({
        "spec_id": format!("spec{hostile}"), "stage": "implement",
        "agent": format!("agent{hostile}"),
        "turns": [{"prompt": "go", "response": "done"}],
        "outcome": {"kind": "score", "value": 1.0},
    });
    std::fs::write(dir.join("s.json"), session.to_string()).unwrap();
    let limit = Duration::from_secs(30);
    let run = tact_in(&dir, &["run", "s.json", "--db", "t.db"], Vec::new(), limit);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let report = tact_in(&dir, &["report", "--db", "t.db"], Vec::new(), limit);
    assert!(report.status.success(), "{}", text(&report.stderr));
    for (what, o) in [("run", &run), ("report", &report)] {
        let shown = text(&o.stdout);
        assert_no_control(what, &shown);
        assert_no_control(what, &text(&o.stderr));
        assert!(
            shown.contains("agent\\u001b]0;pwned\\u0007\\u001b[2J"),
            "{what}: {shown}"
        );
    }
    // A tool's output quoted by the error_streak nudge, text and JSON.
    let event = serde_json::json!({
        "type": "tool", "name": format!("ls{hostile}"), "ok": false,
        "output": format!("boom{hostile}"),
    });
    let events = format!("{event}\n").repeat(3);
    let o = tact_in(
        &dir,
        &["guide", "--follow", "-"],
        events.clone().into_bytes(),
        limit,
    );
    let shown = text(&o.stdout);
    assert!(shown.contains("error_streak"), "{shown}");
    assert_no_control("guide --follow", &shown);
    let o = tact_in(
        &dir,
        &["guide", "--follow", "--json", "-"],
        events.into_bytes(),
        limit,
    );
    let shown = text(&o.stdout);
    assert_no_control("guide --follow --json", &shown);
    let nudge: serde_json::Value = serde_json::from_str(shown.lines().next().unwrap()).unwrap();
    let guidance = nudge["guidance"].as_str().unwrap();
    assert!(guidance.contains(&format!("ls{hostile}")), "{guidance:?}");
    // A bad line's warning quotes it: escaped too.
    let o = tact_in(
        &dir,
        &["guide", "--follow", "-"],
        format!("{}\n", serde_json::json!({"type": format!("x{hostile}")})).into_bytes(),
        limit,
    );
    assert_no_control("guide --follow warning", &text(&o.stderr));
    assert!(text(&o.stderr).contains("\\u001b"), "{o:?}");
}
