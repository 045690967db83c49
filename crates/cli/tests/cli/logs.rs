//! Agents' own logs through the command line: `tact run fixtures/logs`
//! (every sample stored and ranked, its output pinned), `tact guide FILE`
//! on each sample (pinned), and `tact guide --follow` on a real SWE-agent
//! trajectory whose agent repeated a failing edit: `error_streak` fires at
//! the third failure, and nothing fires on a clean trajectory; a followed
//! file is read as it grows, its half-written last line waited for.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use super::{out, tact};

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// Every sample log (relative to the repository), sorted.
fn samples() -> Vec<String> {
    let mut out = Vec::new();
    for dir in [
        "aider",
        "claude-code",
        "codex",
        "mini-swe-agent",
        "openhands",
        "openhands-v1",
        "specstory",
        "swe-agent",
        "cline",
        "gemini-cli",
    ] {
        // A Cline sample is a task folder: both of its files.
        let mut files: Vec<String> = std::fs::read_dir(repo("fixtures/logs").join(dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "SOURCES.md")
            .flat_map(
                |n| match repo("fixtures/logs").join(dir).join(&n).is_dir() {
                    true => vec![
                        format!("fixtures/logs/{dir}/{n}/api_conversation_history.json"),
                        format!("fixtures/logs/{dir}/{n}/ui_messages.json"),
                    ],
                    false => vec![format!("fixtures/logs/{dir}/{n}")],
                },
            )
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

/// The sessions a sample file holds: 1, or its lines when it holds many.
fn sessions_in(file: &str) -> usize {
    let path = repo(file);
    let head = std::fs::read_to_string(&path).unwrap();
    match tact::import::Format::detect(&path, &head) {
        Some(f) if tact::import::holds_sessions(f, &head) => {
            tact::import::SessionLines::new(head.as_bytes(), file, 1 << 26).count()
        }
        _ => 1,
    }
}

#[test]
fn run_stores_and_ranks_every_sample_log() {
    let dir = std::env::temp_dir().join(format!("tact-cli-logs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let db = dir.join("logs.db");
    let o = tact(
        &[
            "run",
            repo("fixtures/logs").to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
        ],
        None,
    );
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "stderr: {stderr}");
    let stdout = out(&o).replace(db.to_str().unwrap(), "<DB>");
    // A Cline task folder is one session: its `ui_messages.json` is passed
    // over beside `api_conversation_history.json`.
    let files: Vec<String> = samples()
        .into_iter()
        .filter(|f| !f.ends_with("/ui_messages.json"))
        .collect();
    let n = files.len();
    // A file of many sessions (OpenHands' output.jsonl) stores each, with
    // the outcome each task records.
    let many: Vec<usize> = files
        .iter()
        .map(|f| sessions_in(f))
        .filter(|k| *k > 1)
        .collect();
    assert_eq!(many, [2]);
    let sessions = n - many.len() + many.iter().sum::<usize>();
    assert!(
        stdout.contains(&format!(
            "{sessions} sessions read from {n} files: {sessions} stored"
        )),
        "{stdout}"
    );
    // No other sample carries an outcome: each is said once, on stderr.
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with("note: ")).count(),
        n - many.len(),
        "{stderr}"
    );
    assert!(stderr.lines().all(|l| l.starts_with("note: ")), "{stderr}");
    assert!(!stdout.contains("no ranking"), "{stdout}");
    insta::assert_snapshot!(stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_takes_the_outcome_spec_and_agent_from_flags_and_sidecars() {
    let dir = std::env::temp_dir().join(format!("tact-cli-sidecar-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("run.traj");
    std::fs::copy(
        repo("fixtures/logs/swe-agent/swe-agent__test-repo-i1.traj"),
        &log,
    )
    .unwrap();
    std::fs::write(
        dir.join("run.traj.tact.toml"),
        "agent = \"gpt4-swe\"\noutcome = { kind = \"tests\", passed = 3, total = 4 }\n",
    )
    .unwrap();
    let db = dir.join("t.db");
    let o = tact(
        &[
            "run",
            dir.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
            "--spec",
            "SPEC-LOGS",
        ],
        None,
    );
    let stdout = out(&o);
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
    assert!(stdout.starts_with("SPEC-LOGS, stage (none)"), "{stdout}");
    assert!(
        stdout.contains("gpt4-swe") && stdout.contains("0.750"),
        "{stdout}"
    );
    // A forced format that does not fit: the file's line is named.
    let wrong = dir.join("wrong");
    std::fs::create_dir_all(&wrong).unwrap();
    std::fs::copy(&log, wrong.join("run.json")).unwrap();
    let o = tact(
        &[
            "run",
            wrong.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
            "--format",
            "openhands",
        ],
        None,
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("run.json:1") && stderr.contains("expected a JSON array of events"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn guide_on_every_sample_log() {
    let mut all = String::new();
    for rel in samples() {
        let o = tact(&["guide", repo(&rel).to_str().unwrap()], None);
        all.push_str(&out(&o).replace(repo("").to_str().unwrap(), ""));
    }
    insta::assert_snapshot!(all);
}

/// A file that is no known log nor tact's own trajectory: one error naming
/// the formats tried (not one warning per line), whole or followed; a log
/// with comment lines before its first record is still detected.
#[test]
fn guide_names_the_formats_tried_on_a_file_that_is_no_known_log() {
    let dir = std::env::temp_dir().join(format!("tact-cli-unknown-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let table = dir.join("table.jsonl");
    std::fs::write(&table, "a,b\n1,2\n3,4\n").unwrap();
    for args in [
        vec!["guide", table.to_str().unwrap()],
        vec!["guide", "--follow", table.to_str().unwrap()],
    ] {
        let o = tact(&args, None);
        assert!(!o.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(
            stderr.trim(),
            format!(
                "error: {}:1: not a known agent log; tried: claude-code, codex, openhands, \
                 swe-agent, aider, openhands-v1, mini-swe-agent, cline, gemini-cli, specstory",
                table.display()
            ),
            "{args:?}"
        );
    }
    let log = dir.join("commented.jsonl");
    let sample =
        std::fs::read_to_string(repo("fixtures/logs/openhands-v1/confirmation_mode.jsonl"))
            .unwrap();
    std::fs::write(&log, format!("// exported\n\n# conversation\n{sample}")).unwrap();
    let o = tact(&["guide", log.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out(&o).contains("(openhands-v1)"), "{}", out(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn follow_fires_error_streak_where_swe_agent_repeated_a_failing_edit() {
    let traj = std::fs::read_to_string(repo("fixtures/logs/swe-agent/pydicom__pydicom-1458.traj"))
        .unwrap();
    let text = out(&tact(
        &["guide", "--follow", "--format", "swe-agent", "--json", "-"],
        Some(&traj),
    ));
    let nudges: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(nudges.len(), 1, "{text}");
    assert_eq!(nudges[0]["classifier"], "error_streak");
    // Event 16: the third edit in a row the editor rejected (steps 5-7:
    // the task, then a thought and a call per step).
    assert_eq!(nudges[0]["event"], 16);
    let clean =
        std::fs::read_to_string(repo("fixtures/logs/swe-agent/swe-agent__test-repo-i1.traj"))
            .unwrap();
    assert_eq!(
        out(&tact(
            &["guide", "--follow", "--format", "swe-agent", "-"],
            Some(&clean)
        )),
        ""
    );
}

#[test]
fn follow_reads_a_growing_log_and_waits_for_its_half_written_line() {
    let dir = std::env::temp_dir().join(format!("tact-cli-tail-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("live.jsonl");
    std::fs::write(&log, "").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tact"))
        .args([
            "guide",
            "--follow",
            "--format",
            "claude-code",
            log.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let call = |i: u32| {
        format!(
            r#"{{"type":"assistant","sessionId":"s","message":{{"id":"m{i}","content":[{{"type":"tool_use","id":"t{i}","name":"Bash","input":{{"command":"npm ci"}}}}]}}}}"#
        )
    };
    let result = |i: u32| {
        format!(
            r#"{{"type":"user","sessionId":"s","message":{{"content":[{{"type":"tool_result","tool_use_id":"t{i}","content":"npm ERR! code EINTEGRITY","is_error":true}}]}}}}"#
        )
    };
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    for i in 0..2 {
        writeln!(f, "{}\n{}", call(i), result(i)).unwrap();
    }
    // The third failure's result, half written: nothing fires yet.
    let last = result(2);
    write!(f, "{}\n{}", call(2), &last[..40]).unwrap();
    f.flush().unwrap();
    assert!(rx.recv_timeout(Duration::from_millis(1500)).is_err());
    writeln!(f, "{}", &last[40..]).unwrap();
    f.flush().unwrap();
    let line = rx.recv_timeout(Duration::from_secs(20)).expect("a nudge");
    child.kill().unwrap();
    let _ = child.wait();
    assert!(
        line.starts_with("[event ") && line.contains("· error_streak]"),
        "{line}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn credentials_in_an_imported_log_never_reach_the_database() {
    let dir = std::env::temp_dir().join(format!("tact-cli-logsecret-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("s.jsonl");
    std::fs::write(
        &log,
        concat!(
            r#"{"type":"user","sessionId":"s","message":{"role":"user","content":"deploy with ghp_abcdefghijklmnopqrstuvwxyz0123456789"}}"#,
            "\n",
            r#"{"type":"assistant","sessionId":"s","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE deploy"}}]}}"#,
            "\n",
        ),
    )
    .unwrap();
    let db = dir.join("t.db");
    let o = tact(
        &["run", log.to_str().unwrap(), "--db", db.to_str().unwrap()],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for entry in std::fs::read_dir(&dir).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "jsonl") {
            continue;
        }
        let bytes = std::fs::read(&p).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains("AKIAIOSFODNN7EXAMPLE"), "{}", p.display());
        assert!(!text.contains("ghp_abcdefghij"), "{}", p.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
