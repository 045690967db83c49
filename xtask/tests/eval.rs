//! The integration-test binary of xtask: `cargo xtask eval` output pinned
//! by insta snapshots (timings left out), the JSON contract, gates, and
//! errors that name file and line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::{Command, Output};

fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
        .display()
        .to_string()
}

fn xtask(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .output()
        .expect("run xtask")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn text_report_shows_strategies_side_by_side() {
    let o = xtask(&[
        "eval",
        "--task",
        "effort",
        "--dataset",
        &data("effort_small.jsonl"),
        "--no-timing",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    insta::assert_snapshot!(stdout(&o));
}

#[test]
fn json_is_one_object_with_the_contract_fields() {
    let o = xtask(&[
        "eval",
        "--task",
        "effort",
        "--dataset",
        &data("effort_small.jsonl"),
        "--json",
        "--no-timing",
    ]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert_eq!(out.trim().lines().count(), 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    for key in [
        "task",
        "dataset",
        "strategy",
        "n",
        "accuracy",
        "macro_f1",
        "per_class",
        "confusion",
        "latency_ns",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["strategy"], "heuristic");
    insta::assert_snapshot!(out);
}

#[test]
fn json_latency_is_measured_when_timing_is_on() {
    let o = xtask(&[
        "eval",
        "--task",
        "effort",
        "--dataset",
        &data("effort_small.jsonl"),
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert!(v["latency_ns"]["p50"].as_u64().unwrap() > 0);
    assert!(v["latency_ns"]["p99"].as_u64() >= v["latency_ns"]["p50"].as_u64());
}

#[test]
fn the_gate_fails_below_the_threshold_and_passes_above() {
    let args = [
        "eval",
        "--task",
        "effort",
        "--dataset",
        &data("effort_small.jsonl"),
        "--no-timing",
    ];
    let pass = xtask(&[&args[..], &["--min-macro-f1", "0.1"]].concat());
    assert!(pass.status.success());
    let fail = xtask(&[&args[..], &["--strategy", "seed", "--min-macro-f1", "0.99"]].concat());
    assert_eq!(fail.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&fail.stderr).contains("FAILED"));
}

#[test]
fn a_bad_line_is_an_error_naming_file_and_line() {
    let bad = data("effort_bad_label.jsonl");
    let o = xtask(&["eval", "--task", "effort", "--dataset", &bad]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("effort_bad_label.jsonl:2:"), "{err}");
    assert!(err.contains("unknown variant `urgent`"), "{err}");
    assert!(o.stdout.is_empty());
}

#[test]
fn unknown_tasks_and_strategies_are_clear_errors() {
    let o = xtask(&["eval", "--task", "astrology"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown task `astrology`"));
    let o = xtask(&["eval", "--task", "effort", "--strategy", "oracle"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown strategy `oracle`"));
}

#[test]
fn guidance_fixtures_are_all_right() {
    let o = xtask(&["eval", "--task", "guidance", "--json", "--no-timing"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["accuracy"], 1.0);
    assert_eq!(v["macro_f1"], 1.0);
}
