//! The integration-test binary of xtask: `cargo xtask eval` output pinned
//! by insta snapshots (timings left out), the JSON contract, gates, errors
//! that name file and line, `cargo xtask train` (reproducible, and the
//! committed models equal a fresh training), `cargo xtask curve`, `cargo xtask compare` and
//! `cargo xtask deps`.
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
    assert_eq!(v["strategy"], "hybrid");
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
fn a_line_that_is_not_utf8_is_named_by_file_and_line() {
    let dir = std::env::temp_dir().join(format!("tact-xtask-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("latin1.jsonl");
    let mut bytes = std::fs::read(data("effort_small.jsonl")).unwrap();
    bytes.extend_from_slice(b"{\"text\": \"caf\xe9?\", \"label\": \"low\"}\n");
    let line = bytes.iter().filter(|&&b| b == b'\n').count();
    std::fs::write(&bad, bytes).unwrap();
    let o = xtask(&[
        "eval",
        "--task",
        "effort",
        "--dataset",
        bad.to_str().unwrap(),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("latin1.jsonl:{line}: invalid UTF-8")),
        "{err}"
    );
}

#[test]
fn a_missing_dataset_says_its_os_error_once() {
    let o = xtask(&[
        "eval",
        "--task",
        "effort",
        "--dataset",
        "/nonexistent/d.jsonl",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cannot read /nonexistent/d.jsonl"), "{err}");
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");
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
/// preference at 0.95 or more (the target; the fresh dev9 split
/// measured once, see docs/benchmarks.md).
fn preferences_fixtures_pass_the_ci_gate() {
    let o = xtask(&["eval", "--task", "preferences", "--json", "--no-timing"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let per = v["per_preference"].as_object().unwrap();
    assert_eq!(per.len(), 10);
    for (name, m) in per {
        assert!(m["accuracy"].as_f64().unwrap() >= 0.95, "{name}: {m}");
        assert!(m["support"].as_u64().unwrap() >= 18, "{name}: {m}");
    }
}

#[test]
fn granularity_json_follows_the_contract() {
    let o = xtask(&[
        "eval",
        "--task",
        "granularity",
        "--dataset",
        &data("granularity_small.jsonl"),
        "--json",
        "--no-timing",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    assert_eq!(out.trim().lines().count(), 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["task"], "granularity");
    assert_eq!(v["strategy"], "hybrid");
    assert_eq!(
        v["confusion"]["labels"],
        serde_json::json!(["fine-grained", "holistic"])
    );
    insta::assert_snapshot!(out);
}

#[test]
fn granularity_text_report_shows_the_seed_beside_the_default() {
    let o = xtask(&[
        "eval",
        "--task",
        "granularity",
        "--dataset",
        &data("granularity_small.jsonl"),
        "--no-timing",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    insta::assert_snapshot!(stdout(&o));
}

#[test]
fn route_eval_feeds_each_lines_history() {
    let o = xtask(&[
        "eval",
        "--task",
        "route",
        "--dataset",
        &data("route_small.jsonl"),
        "--strategy",
        "heuristic",
        "--json",
        "--no-timing",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["task"], "route");
    assert_eq!(v["n"], 7);
    assert_eq!(v["accuracy"], 1.0, "{out}");
    // Two lines are right only with their history: without it they fail.
    let stripped: String = std::fs::read_to_string(data("route_small.jsonl"))
        .unwrap()
        .lines()
        .map(|l| match l.find(",\"history\"") {
            Some(i) => format!("{}}}\n", &l[..i]),
            None => format!("{l}\n"),
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("xtask-eval-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("route_no_history.jsonl");
    std::fs::write(&path, stripped).unwrap();
    let o = xtask(&[
        "eval",
        "--task",
        "route",
        "--dataset",
        path.to_str().unwrap(),
        "--strategy",
        "heuristic",
        "--json",
        "--no-timing",
    ]);
    let w: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(w["n"], 7);
    assert!(w["accuracy"].as_f64().unwrap() <= 5.0 / 7.0 + 1e-9, "{w}");
    assert_eq!(
        v["confusion"]["labels"],
        serde_json::json!(["RETRIEVAL", "CODE_GENERATION", "CONVERSATIONAL", "PLATFORM"])
    );
    insta::assert_snapshot!(out);
}

#[test]
fn route_text_report_and_gate() {
    let args = [
        "eval",
        "--task",
        "route",
        "--dataset",
        &data("route_small.jsonl"),
        "--no-timing",
    ];
    let o = xtask(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    insta::assert_snapshot!(stdout(&o));
    let fail = xtask(&[&args[..], &["--strategy", "seed", "--min-macro-f1", "0.9"]].concat());
    assert_eq!(fail.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&fail.stderr).contains("gate route seed"));
}

#[test]
fn route_errors_list_the_history() {
    let o = xtask(&[
        "eval",
        "--task",
        "route",
        "--dataset",
        &data("route_small.jsonl"),
        "--strategy",
        "seed",
        "--errors",
        "10",
        "--no-timing",
    ]);
    let out = stdout(&o);
    assert!(
        out.contains("route_small.jsonl:6: gold PLATFORM predicted RETRIEVAL: And last month?  (history: [PLATFORM] How many API calls did I make this month?)"),
        "{out}"
    );
    // The list names the task and strategy it comes from, before the tables.
    let head = out.lines().next().unwrap_or("");
    assert!(
        head.starts_with("route / seed: ") && head.contains("misclassified of"),
        "{out}"
    );
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xtask-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn train_check_takes_no_output_or_data_of_its_own() {
    // `cargo xtask train --check` (CI's step that the committed models are
    // a fresh, reproducible training) trains every model: too slow for the
    // test suite, so CI runs it on its release build. Here: that it refuses
    // to be pointed elsewhere, which would make the check meaningless.
    for extra in [["--out", "x"], ["--dataset", "x.jsonl"]] {
        let mut args = vec!["train", "--check"];
        args.extend(extra);
        let o = xtask(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("cannot be used with"),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// `cargo xtask train --task effort ARGS --out OUT`.
fn train_effort(args: &[&str], out: &std::path::Path) -> Output {
    let mut all = vec!["train", "--task", "effort"];
    all.extend_from_slice(args);
    all.extend(["--out", out.to_str().unwrap()]);
    xtask(&all)
}

#[test]
fn training_with_the_real_split_and_several_shuffles() {
    let trained = |args: &[&str]| {
        let out = temp_dir(&format!("train-opts-{}", args.join("")));
        let o = train_effort(args, &out);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(out.join("effort.json")).unwrap();
        tact_core::learn::LinearModel::from_json(&text).unwrap()
    };
    let plain = trained(&[]);
    assert_eq!(plain.training().shuffles, 1);
    // `--real-weight` adds the real train split (effort's committed model
    // leaves it out); `--shuffles` averages orders, and the file says how
    // many.
    let real = trained(&["--real-weight", "0.2"]);
    assert!(real.training().examples > plain.training().examples);
    let without = trained(&["--no-real", "--real-weight", "0.2"]);
    assert_eq!(without.training().examples, plain.training().examples);
    let averaged = trained(&["--shuffles", "3"]);
    assert_eq!(averaged.training().shuffles, 3);
    assert_eq!(averaged.training().examples, plain.training().examples);
    assert_ne!(averaged.to_json(), plain.to_json());
    let o = train_effort(&["--shuffles", "0"], &temp_dir("train-opts-zero"));
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("shuffle"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn training_on_a_user_dataset_and_its_errors() {
    let out = temp_dir("train-user");
    let small = data("effort_small.jsonl");
    let o = train_effort(&["--no-fixtures", "--dataset", &small], &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let model = std::fs::read_to_string(out.join("effort.json")).unwrap();
    let m = tact_core::learn::LinearModel::from_json(&model).unwrap();
    assert_eq!(m.training().examples, 7);
    // Weighted twice over: another model; one weight per file is checked.
    let weighted = temp_dir("train-weighted");
    let o = train_effort(
        &[
            "--no-fixtures",
            "--dataset",
            &small,
            "--dataset-weight",
            "3",
        ],
        &weighted,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_ne!(
        std::fs::read_to_string(weighted.join("effort.json")).unwrap(),
        model
    );
    let o = train_effort(
        &[
            "--dataset",
            &small,
            "--dataset-weight",
            "1",
            "--dataset-weight",
            "2",
        ],
        &weighted,
    );
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--dataset-weight"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // A bad line names file and line; nothing is written.
    let bad = out.join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"id\":\"a\",\"text\":\"Which port?\",\"label\":\"low\"}\n{oops\n",
    )
    .unwrap();
    let empty = temp_dir("train-bad");
    let o = train_effort(&["--dataset", bad.to_str().unwrap()], &empty);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("bad.jsonl:2"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!empty.join("effort.json").exists());
    let o = xtask(&["train", "--task", "astrology"]);
    assert!(!o.status.success());
}

#[test]
fn compare_prints_the_differences_of_two_runs() {
    let dir = temp_dir("compare");
    let a = dir.join("a.json");
    let b = dir.join("b.json");
    for (path, strategy) in [(&a, "heuristic"), (&b, "hybrid")] {
        let o = xtask(&[
            "eval",
            "--task",
            "effort",
            "--dataset",
            &data("effort_small.jsonl"),
            "--strategy",
            strategy,
            "--no-timing",
            "--save",
            path.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    // The same strategy name in both files is compared line by line; here
    // they differ, so each is reported as present in one file only.
    let o = xtask(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = stdout(&o);
    assert!(
        text.contains("effort / hybrid") && text.contains("only in B"),
        "{text}"
    );
    assert!(
        text.contains("effort / heuristic") && text.contains("only in A"),
        "{text}"
    );
    // Same file twice: every metric is unchanged.
    let o = xtask(&["compare", a.to_str().unwrap(), a.to_str().unwrap()]);
    let text = stdout(&o).replace(a.to_str().unwrap(), "A.json");
    insta::assert_snapshot!(text);
    // Malformed input is an error naming the file.
    std::fs::write(dir.join("bad.json"), "{nope").unwrap();
    let o = xtask(&[
        "compare",
        a.to_str().unwrap(),
        dir.join("bad.json").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad.json"));
}

#[test]
fn the_workspace_follows_its_dependency_rules() {
    let o = xtask(&["deps"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        stdout(&o).contains("dependency rules hold"),
        "{}",
        stdout(&o)
    );
}

/// The words of a text for the near-duplicate check: lower-case runs of
/// letters and digits.
fn word_set(text: &str) -> std::collections::BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// No text of a dev split (`dev`, `real-dev`) repeats or nearly repeats
/// (word Jaccard >= 0.8) a text of the same task's train or calibration
/// splits (`train`, `calibration`, `real-train`, `real-calibration`):
/// the dev figures measure texts the tiers never saw.
#[test]
fn no_dev_text_repeats_a_train_or_calibration_text() {
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let texts = |path: &PathBuf| -> Vec<(usize, String)> {
        let Ok(body) = std::fs::read_to_string(path) else {
            return Vec::new();
        };
        body.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with("//"))
            .filter_map(|(i, l)| {
                let v: serde_json::Value = serde_json::from_str(l).ok()?;
                Some((i + 1, v.get("text")?.as_str()?.to_owned()))
            })
            .collect()
    };
    let mut checked = 0;
    let mut found = Vec::new();
    for task in ["effort", "granularity", "route", "preferences", "questions"] {
        let dir = fixtures.join(task);
        let seen: Vec<(String, usize, std::collections::BTreeSet<String>)> = [
            "train",
            "calibration",
            "real-train",
            "real-train-ccbysa",
            "real-calibration",
        ]
        .iter()
        .flat_map(|split| {
            let path = dir.join(format!("{split}.jsonl"));
            texts(&path)
                .into_iter()
                .map(move |(line, t)| (format!("{task}/{split}.jsonl"), line, word_set(&t)))
        })
        .collect();
        for split in ["dev", "real-dev"] {
            for (line, text) in texts(&dir.join(format!("{split}.jsonl"))) {
                checked += 1;
                let words = word_set(&text);
                for (file, other_line, other) in &seen {
                    let (small, large) = if words.len() <= other.len() {
                        (words.len(), other.len())
                    } else {
                        (other.len(), words.len())
                    };
                    // Jaccard <= small / large: skip pairs that cannot reach 0.8.
                    if large == 0 || (small as f64) < 0.8 * large as f64 {
                        continue;
                    }
                    let common = words.intersection(other).count();
                    let union = words.len() + other.len() - common;
                    if union > 0 && common as f64 >= 0.8 * union as f64 {
                        found.push(format!(
                            "{task}/{split}.jsonl:{line} ~ {file}:{other_line}: {text}"
                        ));
                    }
                }
            }
        }
    }
    assert!(checked > 500, "only {checked} dev texts found");
    assert!(
        found.is_empty(),
        "{} near-duplicates:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The `questions` task: precision, recall and F1 over all questions, per
/// group, what each message missed and found wrongly, the JSON contract
/// and the F1 gate.
#[test]
fn questions_report_json_errors_and_gate() {
    let path = data("questions_small.jsonl");
    let o = xtask(&[
        "eval",
        "--task",
        "questions",
        "--dataset",
        &path,
        "--no-timing",
        "--group",
        "source",
        "--errors",
        "5",
    ]);
    assert!(o.status.success());
    let text = stdout(&o).replace(&path, "questions_small.jsonl");
    insta::assert_snapshot!(text);
    let o = xtask(&[
        "eval",
        "--task",
        "questions",
        "--dataset",
        &path,
        "--json",
        "--no-timing",
    ]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(
        (
            v["gold"].as_u64(),
            v["found"].as_u64(),
            v["matched"].as_u64()
        ),
        (Some(5), Some(4), Some(4))
    );
    assert!((v["f1"].as_f64().unwrap() - 8.0 / 9.0).abs() < 1e-9, "{v}");
    let fail = xtask(&[
        "eval",
        "--task",
        "questions",
        "--dataset",
        &path,
        "--min-f1",
        "0.95",
    ]);
    assert_eq!(fail.status.code(), Some(1));
    let pass = xtask(&[
        "eval",
        "--task",
        "questions",
        "--dataset",
        &path,
        "--min-f1",
        "0.85",
    ]);
    assert!(pass.status.success());
}

#[test]
fn a_learning_curve_draws_nested_shares_and_is_reproducible() {
    let args = [
        "curve",
        "--task",
        "route",
        "--fractions",
        "0,0.5,1",
        "--seeds",
        "1",
    ];
    let o = xtask(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    let rows: Vec<Vec<&str>> = out
        .lines()
        .filter(|l| l.trim_start().starts_with(['0', '1']))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 3, "{out}");
    // Share 0 learns from no real message; share 1 from every one.
    let real_train = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/route/real-train.jsonl"),
    )
    .unwrap()
    .lines()
    .filter(|l| l.trim_start().starts_with('{'))
    .count();
    let items: Vec<usize> = rows.iter().map(|r| r[1].parse().unwrap()).collect();
    assert_eq!((items[0], items[2]), (0, real_train), "{out}");
    assert!(items[0] < items[1] && items[1] < items[2], "{out}");
    assert!(out.contains("per doubling"), "{out}");
    // The same seeds draw the same shares: the same table.
    assert_eq!(stdout(&xtask(&args)), out);
}

#[test]
fn a_learning_curve_refuses_to_measure_on_what_it_learns_from() {
    let route = data("route_small.jsonl");
    let o = xtask(&[
        "curve",
        "--task",
        "route",
        "--no-fixtures",
        "--dataset",
        &route,
        "--on",
        &route,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("is learned from"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = xtask(&["curve", "--task", "route", "--fractions", "0,2"]);
    assert_eq!(o.status.code(), Some(2));
    let o = xtask(&["curve", "--task", "questions"]);
    assert_eq!(o.status.code(), Some(2));
}
