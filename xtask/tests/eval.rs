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

#[test]
fn preferences_json_adds_per_preference() {
    let o = xtask(&[
        "eval",
        "--task",
        "preferences",
        "--dataset",
        &data("preferences_small.jsonl"),
        "--json",
        "--no-timing",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    assert_eq!(out.trim().lines().count(), 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        (v["task"].as_str(), v["strategy"].as_str()),
        (Some("preferences"), Some("rules"))
    );
    assert_eq!(v["n"], 8);
    assert_eq!(v["accuracy"], 7.0 / 8.0);
    assert_eq!(v["per_preference"]["lang_ita"]["accuracy"], 0.5);
    assert_eq!(v["per_preference"]["commas"]["support"], 2);
    assert_eq!(
        v["confusion"]["labels"],
        serde_json::json!(["violated", "ok"])
    );
    insta::assert_snapshot!(out);
}

#[test]
fn preferences_text_report_and_accuracy_gate() {
    let args = [
        "eval",
        "--task",
        "preferences",
        "--dataset",
        &data("preferences_small.jsonl"),
        "--no-timing",
        "--errors",
        "5",
    ];
    let o = xtask(&[&args[..], &["--min-accuracy", "0.5"]].concat());
    assert!(o.status.success());
    insta::assert_snapshot!(stdout(&o));
    let fail = xtask(&[&args[..], &["--min-accuracy", "0.95"]].concat());
    assert_eq!(fail.status.code(), Some(1));
    let err = String::from_utf8_lossy(&fail.stderr);
    assert!(
        err.contains("lang_ita accuracy 0.500 < (FAILED) 0.950"),
        "{err}"
    );
    assert!(err.contains("commas accuracy 1.000 >= 0.950"), "{err}");
}

#[test]
fn preferences_bad_lines_name_file_and_line() {
    let o = xtask(&[
        "eval",
        "--task",
        "preferences",
        "--dataset",
        &data("preferences_bad.jsonl"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("preferences_bad.jsonl:2: `no_ask` is not a text-level preference"),
        "{err}"
    );
    let o = xtask(&["eval", "--task", "preferences", "--strategy", "oracle"]);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("unknown strategy `oracle` for preferences")
    );
}

#[test]
/// The regression gate of `.ci/run` on the held-out dev split: every
/// preference at 0.90 or more (the target is 0.95; two preferences
/// measure 0.90 on the fresh split, see docs/architecture.md).
fn preferences_fixtures_pass_the_ci_gate() {
    let o = xtask(&["eval", "--task", "preferences", "--json", "--no-timing"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let per = v["per_preference"].as_object().unwrap();
    assert_eq!(per.len(), 10);
    for (name, m) in per {
        assert!(m["accuracy"].as_f64().unwrap() >= 0.90, "{name}: {m}");
        assert!(m["support"].as_u64().unwrap() >= 18, "{name}: {m}");
    }
}
