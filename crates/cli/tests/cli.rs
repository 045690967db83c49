//! The integration-test binary of tact-cli: every command's visible output
//! pinned by insta snapshots, batch mode, and errors naming file and line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn tact(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tact"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tact");
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

fn out(o: &Output) -> String {
    assert!(
        o.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn temp_file(name: &str, body: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tact-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

#[test]
fn effort_text() {
    insta::assert_snapshot!(out(&tact(
        &[
            "effort",
            "Deploy to staging first, or straight to production?"
        ],
        None
    )));
}

#[test]
fn effort_json_with_context() {
    let o = tact(
        &[
            "effort",
            "Which region should the bucket live in?",
            "--context",
            "Spec: every bucket lives in the eu-west-1 region.",
            "--json",
        ],
        None,
    );
    insta::assert_snapshot!(out(&o));
}

#[test]
fn effort_seed_strategy() {
    insta::assert_snapshot!(out(&tact(
        &[
            "effort",
            "How should we handle errors?",
            "--strategy",
            "seed"
        ],
        None
    )));
}

#[test]
fn effort_batch_mixes_plain_and_jsonl_lines() {
    let f = temp_file(
        "batch.jsonl",
        "Rename the flag to --dry-run?\n\n{\"id\":\"q2\",\"text\":\"Can you pull last week's error rate from Grafana?\"}\n{\"text\":\"What port?\",\"context\":\"Use port 7070.\"}\n",
    );
    insta::assert_snapshot!(out(&tact(
        &["effort", "--file", f.to_str().unwrap(), "--json"],
        None
    )));
}

#[test]
fn effort_batch_bad_line_names_file_and_line() {
    let f = temp_file("bad.jsonl", "Fine question?\n{\"text\": oops}\n");
    let o = tact(&["effort", "--file", f.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.jsonl:2: invalid JSON line"), "{err}");
}

#[test]
fn questions_from_a_message() {
    let msg = "I went through `api/routes.py` (e.g. the v2 handlers).\n\nShould I keep the old endpoints?\nAlso, could you check with the mobile team which app versions still call them?\n\nLet me know if the naming in the draft works for you.";
    insta::assert_snapshot!(out(&tact(&["questions"], Some(msg))));
}

#[test]
fn questions_json() {
    insta::assert_snapshot!(out(&tact(
        &["questions", "--json"],
        Some("Done. Ship it? Or wait for QA?")
    )));
}

#[test]
fn questions_none() {
    insta::assert_snapshot!(out(&tact(
        &["questions"],
        Some("All tests pass. The PR is up.")
    )));
}

#[test]
fn missing_question_is_a_usage_error() {
    let o = tact(&["effort"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("give a QUESTION or --file FILE"));
}

#[test]
fn guide_prints_what_fires() {
    let traj = r#"{"events":[
            {"type":"user","text":"fix the build"},
            {"type":"tool","name":"run_tests","params":{"cmd":"cargo test"},"ok":false,"output":"error[E0308]: mismatched types at src/lib.rs:10"},
            {"type":"tool","name":"run_tests","params":{"cmd":"cargo test"},"ok":false,"output":"error[E0308]: mismatched types at src/lib.rs:12"},
            {"type":"tool","name":"run_tests","params":{"cmd":"cargo test"},"ok":false,"output":"error[E0308]: mismatched types at src/lib.rs:14"}
        ]}"#;
    insta::assert_snapshot!(out(&tact(&["guide", "-"], Some(traj))));
}
