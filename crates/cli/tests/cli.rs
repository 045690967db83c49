//! The integration-test binary of tact-cli: every command's visible output
//! pinned by insta snapshots, batch mode, and errors naming file and line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "cli/watch.rs"]
mod watch;

#[path = "cli/config_docs.rs"]
mod config_docs;

#[path = "cli/run.rs"]
mod run;

#[path = "cli/harden.rs"]
mod harden;

use std::io::Write;
use std::process::{Command, Output, Stdio};

#[path = "cli/logs.rs"]
mod logs;
#[path = "cli/model_server.rs"]
mod model_server;
#[path = "cli/watch_logs.rs"]
mod watch_logs;

use model_server::{Chat, ModelServer};

/// Runs tact with `stdin` written from a thread, so that neither pipe
/// fills while the other waits, however large the input.
fn tact(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tact"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tact");
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.unwrap_or_default().to_owned();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
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

/// `--explain`: why each question was kept, and every `?` sentence left
/// out with its reason (text and JSON).
#[test]
fn questions_explained() {
    let msg = "I checked the config. Is the cache enabled? Yes, it is.\n\nWhat's going on here? Let me check the logs.\n\n## Why does it time out?\nThe pool is too small. Run `ls x?` to see.\n\nShould I raise the pool size to 20? Please confirm the region too.\n\nLet me know if you need anything else!";
    insta::assert_snapshot!(out(&tact(&["questions", "--explain"], Some(msg))));
    insta::assert_snapshot!(out(&tact(&["questions", "--explain", "--json"], Some(msg))));
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

fn stored_session(
    agent: &str,
    run: usize,
    interaction: f64,
) -> tact_trajectory_store::SessionRecord {
    use tact_trajectory_store::*;
    SessionRecord {
        spec_id: "SPEC-1".into(),
        stage: Some("implement".into()),
        agent: agent.into(),
        run_id: format!("run-{run}"),
        created_at: Some(1_700_000_000 + i64::try_from(run).unwrap()),
        turns: vec![TurnRecord {
            number: 1,
            prompt: "Add a cache".into(),
            response: "Redis or in-process? Can you measure the hit rate in prod?".into(),
            questions: vec![
                QuestionRecord {
                    text: "Redis or in-process?".into(),
                    effort: tact_types::EffortLevel::Low,
                    confidence: 0.9,
                    reasons: vec![],
                },
                QuestionRecord {
                    text: "Can you measure the hit rate in prod?".into(),
                    effort: tact_types::EffortLevel::High,
                    confidence: 0.8,
                    reasons: vec![],
                },
            ],
            violations: vec![ViolationRecord {
                preference: "one_question".into(),
                expected: "exactly one question".into(),
                actual: "2 questions".into(),
                severity: Severity::Medium,
                span: None,
            }],
            ..TurnRecord::default()
        }],
        guidance: vec![GuidanceFireRecord {
            position: 3,
            classifier: "error_streak".into(),
            confidence: 0.5,
            reason: "3 consecutive errors".into(),
        }],
        score: Some(ScoreRecord {
            r_prod: 0.9,
            r_proact: interaction,
            r_pers: 0.05,
            total: 0.9 + interaction,
            profile: "spec".into(),
            technical_weight: 0.7,
            interaction_weight: 0.3,
            final_score: Some(0.7 * 0.9 + 0.3 * (interaction + 0.05)),
        }),
        ..SessionRecord::default()
    }
}

#[test]
fn report_tables_and_html_charts() {
    let dir = std::env::temp_dir().join(format!("tact-cli-report-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("tact.db");
    {
        let mut store = tact_trajectory_store::Store::open(&db).unwrap();
        for (i, (agent, x)) in [
            ("alpha", -0.5),
            ("beta", 0.05),
            ("alpha", -0.1),
            ("beta", 0.05),
        ]
        .iter()
        .enumerate()
        {
            store.ingest(&stored_session(agent, i, *x)).unwrap();
        }
    }
    let out_dir = dir.join("html");
    let o = tact(
        &[
            "report",
            "--db",
            db.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ],
        None,
    );
    let text = out(&o).replace(out_dir.to_str().unwrap(), "<OUT>");
    insta::assert_snapshot!(text);
    let html = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
    assert_eq!(html.matches("<svg").count(), 4);
    assert!(html.contains("Most violated preferences") && html.contains("one_question"));
}

#[test]
fn report_without_a_database_is_a_clear_error() {
    let o = tact(&["report", "--db", "/nonexistent/tact.db"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no such database"));
}

fn session_fixture(rel: &str) -> String {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/sessions")
        .join(rel)
        .display()
        .to_string()
}

#[test]
fn prefs_check_text() {
    insta::assert_snapshot!(out(&tact(
        &[
            "prefs",
            "check",
            "--pref",
            "commas",
            "--pref",
            "one_question",
            "--pref",
            "do_selection",
            "--pref",
            "joke",
            "Should I retry now, or wait? Which port?"
        ],
        None
    )));
}

#[test]
fn prefs_check_json_from_stdin() {
    insta::assert_snapshot!(out(&tact(
        &[
            "prefs", "check", "--pref", "json", "--pref", "length", "--json"
        ],
        Some("{\"question\": \"Retry?\"} thanks")
    )));
}

#[test]
fn prefs_check_refuses_session_level_and_unknown_names() {
    let o = tact(&["prefs", "check", "--pref", "no_ask", "Retry?"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("use `tact score SESSION.json`"));
    let o = tact(&["prefs", "check", "--pref", "tone", "Retry?"], None);
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown preference `tone`"));
}

#[test]
fn score_spec_profile() {
    insta::assert_snapshot!(out(&tact(
        &["score", &session_fixture("spec_example/agent_a.json")],
        None
    )));
}

#[test]
fn score_paper_profile_json() {
    insta::assert_snapshot!(out(&tact(
        &[
            "score",
            &session_fixture("plan_italian/agent_a.json"),
            "--profile",
            "paper",
            "--json"
        ],
        None
    )));
}

#[test]
fn score_paper_code_profile_text() {
    // The released code's rules, the levels mapped from effort and said so.
    insta::assert_snapshot!(out(&tact(
        &[
            "score",
            &session_fixture("plan_italian/agent_a.json"),
            "--profile",
            "paper-code",
        ],
        None
    )));
}

#[test]
fn score_bad_session_names_the_file() {
    let f = temp_file(
        "bad_session.json",
        "{\"agent\": \"a\", \"outcome\": {\"kind\": \"score\", \"value\": 2}}",
    );
    let o = tact(&["score", f.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad_session.json: outcome score must be a number in [0, 1], got 2"),
        "{err}"
    );
}

#[test]
fn consensus_the_specs_example() {
    insta::assert_snapshot!(out(&tact(
        &[
            "consensus",
            &session_fixture("spec_example/agent_a.json"),
            &session_fixture("spec_example/agent_b.json")
        ],
        None
    )));
}

#[test]
fn consensus_normalized_with_a_config() {
    insta::assert_snapshot!(out(&tact(
        &[
            "consensus",
            &session_fixture("plan_italian/agent_a.json"),
            &session_fixture("plan_italian/agent_b.json"),
            &session_fixture("plan_italian/agent_c.json"),
            "--config",
            &session_fixture("ppp.toml"),
        ],
        None
    )));
}

#[test]
fn consensus_legacy_json() {
    insta::assert_snapshot!(out(&tact(
        &[
            "consensus",
            &session_fixture("review_conflict/agent_a.json"),
            &session_fixture("review_conflict/agent_b.json"),
            &session_fixture("review_conflict/agent_c.json"),
            "--config",
            &session_fixture("legacy.toml"),
            "--json",
        ],
        None
    )));
}

#[test]
fn consensus_errors_are_clear() {
    let o = tact(
        &[
            "consensus",
            &session_fixture("spec_example/agent_a.json"),
            "--stage",
            "deploy",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no candidates"));
    let o = tact(
        &[
            "consensus",
            &session_fixture("spec_example/agent_a.json"),
            &session_fixture("review_conflict/agent_a.json"),
        ],
        None,
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("sessions mix specs"));
    let f = temp_file("nan.toml", "[ppp]\ntechnical_weight = nan\n");
    let o = tact(
        &[
            "consensus",
            &session_fixture("spec_example/agent_a.json"),
            "--config",
            f.to_str().unwrap(),
        ],
        None,
    );
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("invalid weight `ppp.technical_weight` = NaN")
    );
}

/// Runs `tact` with the model-slot and scoring variables cleared, then set
/// to `env`: output never depends on the caller's environment.
fn tact_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tact"));
    cmd.args(args)
        .env_remove("OLLAMA_MODEL_NAME")
        .env_remove("OLLAMA_MODEL_NAME_CONVERSATIONAL")
        .env_remove("TACT_LOG");
    for level in 0..32 {
        cmd.env_remove(format!("RECURSIVE_LLM_LEVEL_{level}_SCORING_METHOD"));
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run tact")
}

#[test]
fn granularity_text() {
    insta::assert_snapshot!(out(&tact_env(
        &["granularity", "Why is the p-value in Table 3 so low?"],
        &[]
    )));
}

#[test]
fn granularity_json_with_a_scoring_level_from_the_environment() {
    let o = tact_env(
        &[
            "granularity",
            "What learning rate did they use?",
            "--level",
            "3",
            "--json",
        ],
        &[("RECURSIVE_LLM_LEVEL_3_SCORING_METHOD", "llm")],
    );
    let text = out(&o);
    let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(v["label"], "fine-grained");
    assert_eq!(v["scoring"]["method"], "llm");
    insta::assert_snapshot!(text);
}

#[test]
fn granularity_seed_and_batch() {
    let f = temp_file(
        "granularity.jsonl",
        "What is the main idea of the chapter?\n\n{\"id\":\"q2\",\"text\":\"Summarize the discussion section\"}\n",
    );
    insta::assert_snapshot!(out(&tact_env(
        &[
            "granularity",
            "--file",
            f.to_str().unwrap(),
            "--strategy",
            "seed",
            "--json"
        ],
        &[]
    )));
}

#[test]
fn granularity_bad_environment_is_an_error_naming_the_variable() {
    let o = tact_env(
        &["granularity", "x", "--level", "2"],
        &[("RECURSIVE_LLM_LEVEL_2_SCORING_METHOD", "bm25")],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("RECURSIVE_LLM_LEVEL_2_SCORING_METHOD"),
        "{err}"
    );
}

#[test]
fn route_text_with_model_slots() {
    insta::assert_snapshot!(out(&tact_env(
        &["route", "How many API calls have I made this month?"],
        &[
            ("OLLAMA_MODEL_NAME", "qwen3:1.7b"),
            ("OLLAMA_MODEL_NAME_CONVERSATIONAL", "qwen3:0.6b")
        ]
    )));
}

#[test]
fn route_json_with_a_history_file() {
    let h = temp_file(
        "history.json",
        r#"[{"type":"PLATFORM","snippet":"How many API calls did I make this month?"}]"#,
    );
    let o = tact_env(
        &[
            "route",
            "And last month?",
            "--history",
            h.to_str().unwrap(),
            "--json",
        ],
        &[("OLLAMA_MODEL_NAME", "qwen3:1.7b")],
    );
    let text = out(&o);
    let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(v["label"], "PLATFORM");
    assert_eq!(v["rule"], "history_reference");
    assert_eq!(v["model"], "qwen3:1.7b");
    insta::assert_snapshot!(text);
}

#[test]
fn route_history_as_jsonl_and_its_errors() {
    let h = temp_file(
        "history.jsonl",
        "// oldest first\n{\"type\":\"CODE_GENERATION\",\"snippet\":\"Write an endpoint that lists products\"}\n",
    );
    let o = tact_env(
        &[
            "route",
            "And for the DELETE method?",
            "--history",
            h.to_str().unwrap(),
        ],
        &[],
    );
    assert!(out(&o).starts_with("CODE_GENERATION"));
    let bad = temp_file(
        "bad_history.jsonl",
        "{\"type\":\"RETRIEVAL\",\"snippet\":\"a\"}\n{\"type\":\"DOCS\",\"snippet\":\"b\"}\n",
    );
    let o = tact_env(&["route", "hi", "--history", bad.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad_history.jsonl:2:"), "{err}");
}

#[test]
fn route_batch_mixes_plain_and_jsonl_lines() {
    let f = temp_file(
        "route.jsonl",
        "thanks a lot!\n{\"id\":\"m2\",\"text\":\"Write a function that reverses a list.\"}\n{\"text\":\"y el mes anterior?\",\"history\":[{\"type\":\"PLATFORM\",\"snippet\":\"¿Cuánto consumí en marzo?\"}]}\n{\"text\":\"You are a direct and concise assistant. Usage: 91%.\"}\n",
    );
    insta::assert_snapshot!(out(&tact_env(
        &["route", "--file", f.to_str().unwrap(), "--json"],
        &[]
    )));
}

#[test]
fn route_batch_bad_line_names_file_and_line() {
    let f = temp_file("route_bad.jsonl", "hello\n{\"text\": 1}\n");
    let o = tact_env(&["route", "--file", f.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("route_bad.jsonl:2: invalid JSON line"),
        "{err}"
    );
}

#[test]
fn route_prompt_and_custom_prefixes() {
    let h = temp_file(
        "prompt_history.json",
        r#"[{"type":"RETRIEVAL","snippet":"What is addVar in AVAP?"}]"#,
    );
    insta::assert_snapshot!(out(&tact_env(
        &[
            "route",
            "¿Y eso cuánto cuesta?",
            "--history",
            h.to_str().unwrap(),
            "--prompt"
        ],
        &[]
    )));
    let o = tact_env(
        &[
            "route",
            "[insight] plan: Pro",
            "--prefix",
            "[insight]",
            "--json",
        ],
        &[],
    );
    let v: serde_json::Value = serde_json::from_str(out(&o).trim()).unwrap();
    assert_eq!(v["rule"], "platform_prefix");
}

#[test]
fn route_seed_strategy() {
    insta::assert_snapshot!(out(&tact_env(
        &["route", "thanks a lot!", "--strategy", "seed"],
        &[]
    )));
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tact"))
        .args(["questions", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tact");
    // The reader goes away before tact writes a byte (`| head -0`).
    drop(child.stdout.take());
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"Done. Ship it? Or wait for QA?")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn os_errors_are_said_once() {
    let o = tact(&["score", "/nonexistent/s.json"], None);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");
    assert!(err.contains("cannot read /nonexistent/s.json"), "{err}");
}

fn temp_bytes(name: &str, body: &[u8]) -> std::path::PathBuf {
    let p = temp_file(name, "");
    std::fs::write(&p, body).unwrap();
    p
}

#[test]
fn bytes_that_are_not_utf8_are_named_by_file_and_line() {
    // Latin-1 `é` (0xe9) on line 3 of each file.
    let session = temp_bytes(
        "latin1_session.json",
        b"{\n  \"agent\": \"a\",\n  \"context\": \"caf\xe9\",\n  \"outcome\": {\"kind\": \"build\", \"success\": true}\n}\n",
    );
    let trajectory = temp_bytes(
        "latin1_guide.jsonl",
        b"{\"events\": []}\n{\"events\": []}\n{\"events\": [{\"type\": \"user\", \"text\": \"caf\xe9\"}]}\n",
    );
    let history = temp_bytes(
        "latin1_history.jsonl",
        b"// oldest first\n{\"type\":\"RETRIEVAL\",\"snippet\":\"a\"}\n{\"type\":\"RETRIEVAL\",\"snippet\":\"caf\xe9\"}\n",
    );
    for (args, file) in [
        (vec!["score", session.to_str().unwrap()], &session),
        (vec!["guide", trajectory.to_str().unwrap()], &trajectory),
        (
            vec!["route", "hi", "--history", history.to_str().unwrap()],
            &history,
        ),
    ] {
        let o = tact_env(&args, &[]);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(&format!("{}:3: invalid UTF-8", file.display())),
            "{args:?}: {err}"
        );
    }
}

const FAILING_TESTS: &str = r#"{"type":"user","text":"fix the build"}
{"type":"tool","name":"run_tests","params":{"cmd":"cargo test"},"ok":false,"output":"error[E0308]: mismatched types at src/lib.rs:10"}
{"type":"tool","name":"run_tests","params":{"cmd":"cargo test"},"ok":false,"output":"error[E0308]: mismatched types at src/lib.rs:12"}
{"type":"tool","name":"run_tests","params":{"cmd":"cargo test"},"ok":false,"output":"error[E0308]: mismatched types at src/lib.rs:14"}
"#;

#[test]
fn guide_follow_reports_a_bad_line_and_goes_on() {
    let mut lines: Vec<&str> = FAILING_TESTS.lines().collect();
    lines.insert(1, "npm WARN deprecated left-pad");
    let input = lines.join("\n");
    let o = tact(&["guide", "--follow"], Some(&input));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("warning: stdin:2: not valid JSON"), "{err}");
    // The events after the bad line are still followed.
    assert!(out(&o).contains("error_streak"), "{err}");
}

#[test]
fn guide_file_takes_the_bare_event_lines_follow_takes() {
    let file = temp_file("bare_events.jsonl", FAILING_TESTS);
    let text = out(&tact(&["guide", file.to_str().unwrap()], None));
    assert!(text.contains("error_streak"), "{text}");
    let events: Vec<&str> = FAILING_TESTS.lines().collect();
    let whole = format!("{{\"events\": [{}]}}", events.join(","));
    let same = out(&tact(&["guide", "-"], Some(&whole)));
    assert_eq!(text.replacen(&file.display().to_string(), "stdin", 1), same);
}

#[test]
fn an_empty_question_is_an_error() {
    for q in ["", "   "] {
        let o = tact(&["effort", q], None);
        assert_eq!(o.status.code(), Some(2), "{q:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("the question is empty"), "{err}");
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn json_outputs_carry_no_float_noise() {
    let runs: [&[&str]; 5] = [
        &[
            "effort",
            "Which port should the API listen on, 8080 or 9090?",
            "--json",
        ],
        &["granularity", "What dropout rate was used?", "--json"],
        &[
            "route",
            "How many API calls did I make this month?",
            "--json",
        ],
        &[
            "score",
            &session_fixture("spec_example/agent_b.json"),
            "--json",
        ],
        &[
            "consensus",
            &session_fixture("spec_example/agent_a.json"),
            &session_fixture("spec_example/agent_b.json"),
            "--json",
        ],
    ];
    for args in runs {
        let o = tact(args, None);
        assert!(o.status.success(), "{args:?}");
        let text = out(&o);
        // A figure with ten or more decimals is float noise
        // (`0.050000000000000044`, `1.4000000953674316`).
        let noisy = text
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter(|t| t.split_once('.').is_some_and(|(_, d)| d.len() >= 10))
            .collect::<Vec<_>>();
        assert!(noisy.is_empty(), "{args:?}: {noisy:?}\n{text}");
    }
}

/// One fake credential of every gitleaks family the scanner covers (see
/// `tact_secrets::FAMILY_EXAMPLES`) and of the formats agents meet (AWS
/// secret keys, `DB_PASS=`, Basic auth, `curl -u`, URLs with `$`/`:` in
/// the password, Docker `auths`, service-account key ids): the texts as
/// planted, and the secret parts (8+ characters) that must never be shown.
fn planted_credentials() -> (Vec<String>, Vec<String>) {
    let mut texts = Vec::new();
    let mut secrets = Vec::new();
    for (f, seed) in tact_secrets::FAMILY_EXAMPLES.iter().zip(1u64..) {
        let (text, runs) = tact_secrets::expand_example(f.example, seed);
        texts.push(text);
        secrets.extend(runs.into_iter().filter(|r| r.len() >= 8));
    }
    let (k, _) = tact_secrets::expand_example("{U16}", 900);
    let (sk, _) = tact_secrets::expand_example("{m40}", 901);
    let (pw, _) = tact_secrets::expand_example("{m14}", 902);
    let (b64, _) = tact_secrets::expand_example("{m32}", 903);
    let (hex, _) = tact_secrets::expand_example("{h40}", 904);
    let id = format!("AK{}{k}", "IA");
    texts.extend([
        format!("aws configure set aws_access_key_id {id}"),
        format!("aws configure set aws_secret_access_key {sk}"),
        format!("DB_PASS={pw} ./migrate"),
        format!("curl -H 'Authorization: Basic {b64}' https://x.invalid"),
        format!("curl -u deploy:{pw}x https://x.invalid"),
        format!("psql postgres://app:p$ss:{pw}y@db:5432/x"),
        format!("{{\"auths\": {{\"r.example\": {{\"auth\": \"{b64}z\"}}}}}}"),
        format!("{{\"private_key_id\": \"{hex}\"}}"),
    ]);
    secrets.extend([id, sk, pw, b64, hex]);
    (texts, secrets)
}

fn assert_clean(what: &str, shown: &[u8], secrets: &[String]) {
    let shown = String::from_utf8_lossy(shown);
    for s in secrets {
        assert!(!shown.contains(s.as_str()), "{what} shows {s}:\n{shown}");
    }
}

/// Runs tact, expects success, and checks stdout and stderr are clean.
fn run_clean(what: &str, args: &[&str], secrets: &[String]) -> Output {
    let o = tact(args, None);
    assert!(
        o.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_clean(what, &o.stdout, secrets);
    assert_clean(&format!("{what} (stderr)"), &o.stderr, secrets);
    o
}

/// A failing tool call that carries `text` in its params and its output.
fn leaky_call(text: &str) -> serde_json::Value {
    serde_json::json!({
        "type": "tool", "name": "shell",
        "params": {"command": text, "env": {"NOTE": text}},
        "ok": false,
        "output": format!("error: rejected {text}")
    })
}

/// Sessions, trajectories and event streams carrying every planted
/// credential, through every command that reads them: `run` (and the
/// database files), `report`, `score`, `guide`, `guide --follow` (text and
/// JSON), `questions`, `effort --file` and `prefs check`. No planted
/// secret appears in stdout or stderr.
#[test]
fn no_command_shows_a_planted_credential() {
    let (texts, secrets) = planted_credentials();
    assert!(texts.len() >= 130 && secrets.len() >= 130);
    let dir = std::env::temp_dir().join(format!("tact-cli-secrets-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let sessions = dir.join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();

    // One session a credential: in the prompt, in repeated failing calls
    // (doom loop, error streak, stuck), and in the response's question.
    for (i, text) in texts.iter().enumerate() {
        let call = leaky_call(text);
        let session = serde_json::json!({
            "spec_id": "SPEC-LEAK", "stage": "implement", "agent": format!("agent{i:03}"),
            "context": format!("Deploy with {text}"),
            "turns": [{
                "prompt": format!("Use this: {text}"),
                "events": [call.clone(), call.clone(), call.clone(), call.clone(), call],
                "response": format!("I tried {text} four times. Should I rotate {text}?")
            }],
            "outcome": {"kind": "tests", "passed": 0, "total": 1},
        });
        std::fs::write(sessions.join(format!("s{i:03}.json")), session.to_string()).unwrap();
    }
    let db = dir.join("tact.db");
    let (input, db_arg) = (sessions.to_str().unwrap(), db.to_str().unwrap());
    run_clean("run", &["run", input, "--db", db_arg], &secrets);
    let mut bytes = Vec::new();
    for suffix in ["", "-wal", "-shm", "-journal"] {
        if let Ok(b) = std::fs::read(format!("{}{suffix}", db.display())) {
            bytes.extend(b);
        }
    }
    assert!(!bytes.is_empty());
    assert_clean("the database files", &bytes, &secrets);

    let html = dir.join("html");
    let report = ["report", "--db", db_arg, "--out", html.to_str().unwrap()];
    run_clean("report", &report, &secrets);
    assert_clean(
        "report.html",
        &std::fs::read(html.join("report.html")).unwrap(),
        &secrets,
    );

    let s0 = sessions.join("s000.json");
    for (i, _) in texts.iter().enumerate().step_by(7) {
        let s = sessions.join(format!("s{i:03}.json"));
        let o = tact(&["score", s.to_str().unwrap()], None);
        assert_clean("score", &o.stdout, &secrets);
        assert_clean("score (stderr)", &o.stderr, &secrets);
    }
    let o = tact(&["score", s0.to_str().unwrap(), "--json"], None);
    assert_clean("score --json", &o.stdout, &secrets);

    // guide FILE: one trajectory a credential, JSON Lines.
    let trajectories: String = texts
        .iter()
        .map(|t| {
            let c = leaky_call(t);
            let mut line = serde_json::json!({
                "events": [{"type": "user", "text": format!("go: {t}")}, c.clone(), c.clone(), c.clone(), c.clone(), c],
                "pending": [{"name": "shell", "params": {"command": t}}],
            })
            .to_string();
            line.push('\n');
            line
        })
        .collect();
    let traj_file = temp_file("leaky-trajectories.jsonl", &trajectories);
    for json in [false, true] {
        let mut args = vec!["guide", traj_file.to_str().unwrap()];
        if json {
            args.push("--json");
        }
        let o = tact(&args, None);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let shown = String::from_utf8_lossy(&o.stdout);
        assert!(shown.contains("doom_loop"), "{shown}");
        assert!(shown.contains("[REDACTED]"), "{shown}");
        assert_clean("guide", &o.stdout, &secrets);
        assert_clean("guide (stderr)", &o.stderr, &secrets);
    }

    // guide --follow: every credential's calls as one event stream.
    let mut stream = String::new();
    for t in &texts {
        stream
            .push_str(&serde_json::json!({"type": "user", "text": format!("go: {t}")}).to_string());
        stream.push('\n');
        for _ in 0..4 {
            stream.push_str(&leaky_call(t).to_string());
            stream.push('\n');
        }
        stream.push_str(
            &serde_json::json!({"pending": [{"name": "shell", "params": {"command": t}}]})
                .to_string(),
        );
        stream.push('\n');
    }
    for json in [false, true] {
        let mut args = vec!["guide", "--follow"];
        if json {
            args.push("--json");
        }
        let o = tact(&args, Some(&stream));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(!o.stdout.is_empty());
        assert_clean("guide --follow", &o.stdout, &secrets);
        assert_clean("guide --follow (stderr)", &o.stderr, &secrets);
    }

    // The text commands, on messages and question files carrying them.
    let message: String = texts
        .iter()
        .map(|t| format!("I found {t} in the config. Should I use {t} for the deploy?\n\n"))
        .collect();
    for json in [false, true] {
        let args: &[&str] = if json {
            &["questions", "--json"]
        } else {
            &["questions"]
        };
        let o = tact(args, Some(&message));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_clean("questions", &o.stdout, &secrets);
        assert_clean("questions (stderr)", &o.stderr, &secrets);
    }
    let questions: String = texts
        .iter()
        .filter(|t| !t.contains('\n'))
        .map(|t| format!("Can you check whether {t} still works?\n"))
        .collect();
    let qfile = temp_file("leaky-questions.txt", &questions);
    for json in [false, true] {
        let mut args = vec!["effort", "--file", qfile.to_str().unwrap()];
        if json {
            args.push("--json");
        }
        let o = tact(&args, None);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_clean("effort --file", &o.stdout, &secrets);
        assert_clean("effort --file (stderr)", &o.stderr, &secrets);
    }
    for pref in ["one_question", "length", "commas"] {
        let o = tact(
            &["prefs", "check", "--pref", pref, "--json"],
            Some(&message),
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_clean("prefs check", &o.stdout, &secrets);
        assert_clean("prefs check (stderr)", &o.stderr, &secrets);
    }
}

#[test]
fn effort_with_llm_names_the_tier_and_the_model_in_json() {
    let server = ModelServer::start(
        2,
        Chat::Answer(r#"{"label": "high", "reason": "must investigate"}"#),
    );
    let url = server.url.clone();
    // An input the hybrid is unsure of (below the effort threshold).
    let o = tact(
        &[
            "effort",
            "--json",
            "--llm",
            "--llm-url",
            &url,
            "--llm-model",
            "qwen2.5:3b",
            "zz?",
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(out(&o).trim()).unwrap();
    assert_eq!(v["label"], "high");
    assert_eq!(v["tier"], "llm");
    assert_eq!(v["tier_model"], "qwen2.5:3b");
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn model_tier_never_gives_up() {
    // Issue 41: a server that answers its probe but never a chat call.
    // A batch of 200 questions, each one put to the model, ends within
    // 5 s with every answer from the cheaper tiers.
    let questions: String = (0..200).map(|i| format!("zz{i}?\n")).collect();
    let dir = std::env::temp_dir().join(format!("tact-cli-stall-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("questions.txt");
    std::fs::write(&file, &questions).unwrap();
    let file = file.to_str().unwrap();
    let started = std::time::Instant::now();
    let plain = tact(&["effort", "--json", "--file", file], None);
    let plain_elapsed = started.elapsed();
    let server = ModelServer::start(250, Chat::Stall);
    let started = std::time::Instant::now();
    let o = tact(
        &[
            "effort",
            "--json",
            "--file",
            file,
            "--llm",
            "--llm-url",
            &server.url,
            "--llm-model",
            "m",
        ],
        None,
    );
    // Under 5 s (about 1.7 s on the 2-core machine); what the stalled
    // server adds is measured against the same batch without the tier, so
    // a loaded machine does not fail the test for the classifiers' time.
    let elapsed = started.elapsed();
    let added = elapsed.saturating_sub(plain_elapsed);
    assert!(
        added < std::time::Duration::from_secs(5),
        "{elapsed:?} ({plain_elapsed:?} without the tier)"
    );
    assert_eq!(out(&o), out(&plain));
    assert!(server.posts() <= 4, "{} calls", server.posts());
    // Every question put to the model failed open, each counted once.
    let err = String::from_utf8_lossy(&o.stderr);
    let counts: Vec<usize> = err
        .split("failed ")
        .nth(1)
        .and_then(|rest| rest.split(" calls").next())
        .map(|n| n.split(" of ").filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_default();
    assert!(
        counts.len() == 2 && counts[0] == counts[1] && counts[0] >= 100,
        "{err}"
    );
}

#[test]
fn effort_reads_an_openai_compatible_server_from_the_tact_llm_variables() {
    // Issue 39: every command reads the same settings; TACT_LLM_* name an
    // OpenAI-compatible server (here beside an OLLAMA_HOST they go over).
    let server = ModelServer::start(
        2,
        Chat::Answer(r#"{"label": "high", "reason": "must investigate"}"#),
    );
    let o = Command::new(env!("CARGO_BIN_EXE_tact"))
        .args(["effort", "--json", "--llm", "zz?"])
        .env("OLLAMA_HOST", "127.0.0.1:9")
        .env("TACT_LLM_BACKEND", "llama-cpp")
        .env("TACT_LLM_URL", format!("{}/v1", server.url))
        .env("TACT_LLM_MODEL", "gemma-3-270m")
        .env("TACT_LLM_TIMEOUT_MS", "3000")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(out(&o).trim()).unwrap();
    assert_eq!(
        (v["tier"].as_str(), v["label"].as_str()),
        (Some("llm"), Some("high"))
    );
    assert_eq!(v["tier_model"], "gemma-3-270m");
    assert_eq!(server.posts(), 1);
    // A flag goes over the variables: a backend that does not read is an error.
    let o = tact(&["effort", "--llm", "--llm-backend", "gpt", "zz?"], None);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("ollama or openai"));
}
