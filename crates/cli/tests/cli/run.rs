//! The integration tests of `tact run`, the main job: the ranking of the
//! demo sessions pinned by an insta snapshot, no fixture credential in the
//! database file (nor its WAL and shared-memory files), bad sessions named
//! by file and line and skipped while the others are stored, `--stage`,
//! and `tact report` reading what `tact run` wrote.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tact_trajectory_store::Store;

#[path = "run/store.rs"]
mod store;

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// A fresh, empty scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tact-run-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn tact(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tact"))
        .args(args)
        .env_remove("TACT_LOG")
        .output()
        .expect("spawn tact")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn run_ranks_the_demo_sessions_per_spec_and_stage() {
    let dir = scratch("snapshot");
    let db = dir.join("tact.db");
    let o = tact(&[
        "run",
        repo("fixtures/sessions").to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "stderr: {}", text(&o.stderr));
    // Non-session files (README.md, *.toml) are skipped silently.
    assert_eq!(text(&o.stderr), "");
    let stdout = text(&o.stdout).replace(db.to_str().unwrap(), "<DB>");
    insta::assert_snapshot!(stdout);

    // What was stored: every session, with its questions, tool calls,
    // guidance and score.
    let store = Store::open_read_only(&db).unwrap();
    assert_eq!(store.trajectory_count().unwrap(), 14);
    let effort = store.effort_distribution(None).unwrap();
    assert!(
        effort.low > 0 && effort.medium > 0 && effort.high > 0,
        "{effort:?}"
    );
    let cedar = store
        .load_latest("SPEC-DEMO-CACHE", "cedar")
        .unwrap()
        .unwrap()
        .session;
    assert_eq!(cedar.tool_calls.len(), 7);
    let fired: Vec<&str> = cedar
        .guidance
        .iter()
        .map(|g| g.classifier.as_str())
        .collect();
    assert!(fired.contains(&"doom_loop"), "{fired:?}");
    assert_eq!(cedar.score.as_ref().unwrap().technical_weight, 0.7);

    // Running again replaces the same runs instead of adding new ones.
    let again = tact(&[
        "run",
        repo("fixtures/sessions").to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(again.status.success());
    assert_eq!(text(&again.stdout), text(&o.stdout));
    assert_eq!(
        Store::open_read_only(&db)
            .unwrap()
            .trajectory_count()
            .unwrap(),
        14
    );
}

/// The credentials planted in the demo fixtures: in tool params (a cloud
/// access key id, a bearer token in a repeated command), in a prompt (a
/// URL with a password) and in a tool output (a JWT).
const FIXTURE_SECRETS: &[&str] = &[
    "AKIA4DEMOFIXTURE7Q2Z",
    "9f8e7d6c5b4a3f2e1d0cFIXTURE",
    "Sup3rS3cretRedis",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXBsb3ktYm90In0",
    "c2lnbmF0dXJlRklYVFVSRQ",
];

#[test]
fn no_fixture_credential_reaches_the_database_files() {
    // The secrets really are in the input, so this test means something.
    let input: String = files_under(&repo("fixtures/sessions"))
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    for secret in FIXTURE_SECRETS {
        assert!(input.contains(secret), "{secret} is not in the fixtures");
    }
    let dir = scratch("secrets");
    let db = dir.join("tact.db");
    let o = tact(&[
        "run",
        repo("fixtures/sessions").to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "stderr: {}", text(&o.stderr));
    let mut scanned = 0;
    let mut bytes = Vec::new();
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let p = PathBuf::from(format!("{}{suffix}", db.display()));
        if let Ok(b) = std::fs::read(&p) {
            scanned += 1;
            bytes.extend(b);
        }
    }
    assert!(scanned >= 1);
    let haystack = String::from_utf8_lossy(&bytes);
    for secret in FIXTURE_SECRETS {
        assert!(
            !haystack.contains(secret),
            "{secret} reached the database files"
        );
    }
    // The calls and the prompt that carried them were stored, redacted.
    assert!(haystack.contains("[REDACTED]"));
    assert!(haystack.contains("aws elasticache describe-cache-clusters"));
    assert!(haystack.contains("redis.staging.internal:6379"));
    // Nor does any secret reach the output.
    for secret in FIXTURE_SECRETS {
        assert!(!text(&o.stdout).contains(secret));
    }
}

#[test]
fn a_malformed_session_is_named_by_file_and_line_and_skipped() {
    let dir = scratch("malformed");
    let input = repo("fixtures/malformed-sessions");
    let db = dir.join("out/tact.db");
    let o = tact(&["run", input.to_str().unwrap(), "--db", db.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "stdout: {}", text(&o.stdout));
    let err = text(&o.stderr);
    let more = input.join("nested/more.jsonl").display().to_string();
    let broken = input.join("nested/broken.json").display().to_string();
    let nospec = input.join("nested/nospec.jsonl").display().to_string();
    assert!(
        err.contains(&format!(
            "invalid session {more}:3:38: key must be a string"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!("invalid session {broken}:3:"))
            && err.contains("unknown field `turnz`"),
        "{err}"
    );
    assert!(
        err.contains(&format!("{nospec}:1: the session has no `spec_id`")),
        "{err}"
    );
    assert_eq!(err.lines().count(), 3, "{err}");
    let out = text(&o.stdout);
    assert!(
        out.contains("6 sessions read from 5 files: 3 stored in"),
        "{out}"
    );
    assert!(out.contains("3 skipped"), "{out}");
    assert!(out.contains("SPEC-X, stage (none)"), "{out}");
    let store = Store::open_read_only(&db).unwrap();
    assert_eq!(store.trajectory_count().unwrap(), 3);
    assert!(store.load_latest("SPEC-X", "zed").unwrap().is_some());
    assert!(
        store
            .load_latest("SPEC-PPP-003-example", "agent_b")
            .unwrap()
            .is_some()
    );
}

#[test]
fn stage_filter_config_and_report() {
    let dir = scratch("stage");
    let db = dir.join("tact.db");
    let o = tact(&[
        "run",
        repo("fixtures/sessions").to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--stage",
        "plan",
        "--config",
        repo("docs/tact.toml").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "stderr: {}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("SPEC-DEMO-MIGRATE, stage plan"), "{out}");
    assert!(out.contains("SPEC-DEMO-EXPORT, stage plan"), "{out}");
    assert!(!out.contains("SPEC-DEMO-CACHE"), "{out}");
    assert!(out.contains("6 stored in"), "{out}");
    assert!(
        out.contains("8 of other stages than plan left out"),
        "{out}"
    );
    assert!(out.contains("onto [0, 1]"), "{out}");

    let report = tact(&["report", "--db", db.to_str().unwrap()]);
    assert!(report.status.success(), "{}", text(&report.stderr));
    let r = text(&report.stdout);
    assert!(
        r.contains("sequential_when_parallel") && r.contains("commas"),
        "{r}"
    );

    // Fatal problems: an unknown stage, a bad configuration, no input.
    let o = tact(&[
        "run",
        repo("fixtures/sessions").to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--stage",
        "deploy",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("unknown stage `deploy`"));
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[ppp]\nenabled = true\n[user_prefs]\n").unwrap();
    let o = tact(&[
        "run",
        repo("fixtures/sessions").to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--config",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(
        e.contains("bad.toml") && e.contains("unknown field `user_prefs`"),
        "{e}"
    );
    let empty = scratch("empty");
    let o = tact(&["run", empty.to_str().unwrap(), "--db", db.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no session files"));
}

/// A huge bad input makes a short error: a 10 MB TOML string in `--config`
/// (the parser quotes its line) and a session whose 10 MB string value has
/// the wrong type (serde quotes the value) print a few hundred bytes.
#[test]
fn a_huge_bad_input_makes_a_short_error() {
    let dir = scratch("huge-error");
    let big = "x".repeat(10 << 20);
    let config = dir.join("big.toml");
    std::fs::write(&config, format!("[ppp]\nprofile = \"{big}\n")).unwrap();
    let sessions = dir.join("s.jsonl");
    std::fs::write(
        &sessions,
        format!(
            "{{\"agent\":\"a\",\"spec_id\":\"S\",\"turns\":[],\"outcome\":{{\"kind\":\"tests\",\"passed\":\"{big}\",\"total\":1}}}}\n"
        ),
    )
    .unwrap();
    let db = dir.join("t.db");
    let o = tact(&[
        "run",
        sessions.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(o.stderr.len() < 2_000, "{} bytes on stderr", o.stderr.len());
    assert!(
        text(&o.stderr).contains("more characters)"),
        "{}",
        text(&o.stderr)
    );
    let o = tact(&[
        "run",
        sessions.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(o.stderr.len() < 2_000, "{} bytes on stderr", o.stderr.len());
    assert!(
        text(&o.stderr).contains("more characters)"),
        "{}",
        text(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The lines of a `tact run` output that do not name the database.
fn without_db(out: &str) -> String {
    out.lines()
        .filter(|l| !l.contains("tact.db") && !l.contains("tact-run-"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn run_with_llm_and_nothing_listening_ranks_the_same_and_warns_once() {
    let dir = scratch("llm-down");
    let sessions = repo("fixtures/sessions");
    let plain = tact(&[
        "run",
        sessions.to_str().unwrap(),
        "--db",
        dir.join("a/tact.db").to_str().unwrap(),
    ]);
    // A port that was just free: nothing listens on it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let o = Command::new(env!("CARGO_BIN_EXE_tact"))
        .args([
            "run",
            sessions.to_str().unwrap(),
            "--db",
            dir.join("b/tact.db").to_str().unwrap(),
        ])
        .args(["--llm", "--llm-url", &url, "--llm-model", "qwen2.5:3b"])
        .env("TACT_LOG", "warn")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(plain.status.code(), Some(0));
    assert_eq!(
        without_db(&text(&o.stdout)),
        without_db(&text(&plain.stdout))
    );
    assert!(text(&o.stdout).contains("best"), "{}", text(&o.stdout));
    let err = text(&o.stderr);
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.to_lowercase().contains("warn"))
        .collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].contains("model tier is off") && warnings[0].contains(&url),
        "{err}"
    );
}

#[test]
fn run_with_tact_log_warn_sends_every_call_and_counts_each_failure_once() {
    // Issue 39: with TACT_LOG=warn the main thread held the stderr lock
    // for the whole run and the model worker stalled on its first
    // warning (1 call of 7 reached the server, "failed 8 of 1 calls").
    // Every answer here is unreadable, a failure that does not stop the
    // tier: every call must reach the server, each counted once.
    let dir = scratch("llm-warn");
    let server = super::model_server::ModelServer::start(
        200,
        super::model_server::Chat::Answer("I would rather not say."),
    );
    // One session whose agent asks eight questions the cheaper tiers
    // are unsure of: eight model calls.
    let turns: Vec<serde_json::Value> = (0..8)
        .map(
            |i| serde_json::json!({"prompt": "go on", "response": format!("What about part {i}?")}),
        )
        .collect();
    let session = serde_json::json!({
        "spec_id": "SPEC-LOG", "stage": "plan", "agent": "a", "turns": turns,
        "outcome": {"kind": "score", "value": 0.5}
    });
    let sessions = dir.join("sessions.jsonl");
    std::fs::write(&sessions, format!("{session}\n")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_tact"))
        .args(["run", sessions.to_str().unwrap()])
        .args(["--db", dir.join("tact.db").to_str().unwrap()])
        .args([
            "--llm",
            "--llm-url",
            &server.url,
            "--llm-model",
            "qwen2.5:3b",
        ])
        .env("TACT_LOG", "warn")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    let n = server.posts();
    assert!(n >= 4, "{n} calls: {err}");
    assert!(
        err.contains(&format!("failed {n} of {n} calls (malformed {n})")),
        "{n} calls reached the server: {err}"
    );
    let traced = err
        .lines()
        .filter(|l| l.contains("model call failed"))
        .count();
    assert_eq!(traced, 1, "{err}");
}
