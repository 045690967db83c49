//! The integration tests of the facade's main job: the demo sessions
//! ranked into a temporary database, with the report's text equal to the
//! `tact run` snapshot; bad sessions, files and folders returned with file
//! and line while the others are stored; nothing printed (checked in a
//! child process of this test binary); fatal errors before anything is
//! written.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "job/follow.rs"]
mod follow;
#[path = "job/import.rs"]
mod import;
#[path = "job/memory.rs"]
mod memory;
#[path = "job/per_turn.rs"]
mod per_turn;

use std::path::{Path, PathBuf};
use std::process::Command;

use tact::consensus::Decision;
use tact::job::{Job, Progress, SessionErrorKind};
use tact::store::Store;

/// Held by the tests that time or measure memory, so they do not run
/// beside each other.
static HEAVY: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Takes [`HEAVY`] (a test that failed while holding it does not block
/// the others).
fn heavy() -> std::sync::MutexGuard<'static, ()> {
    HEAVY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// A fresh, empty scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tact-facade-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The malformed-sessions fixture: two good sessions, a `.jsonl` file with
/// a good and a malformed line, a `.json` file with an unknown field, a
/// session with no spec, and a file that is not a session file.
fn mixed_sessions(_dir: &Path) -> PathBuf {
    repo("fixtures/malformed-sessions")
}

#[test]
fn the_demo_sessions_rank_as_tact_run_prints_them() {
    let dir = scratch("demo");
    let db = dir.join("runs/tact.db");
    let mut job = Job::builder().db(&db).build().unwrap();
    assert!(job.store().is_none(), "the database opens on the first run");
    let mut seen: Vec<(usize, usize, usize)> = Vec::new();
    let report = job
        .run_path(repo("fixtures/sessions"), |p: Progress<'_>| {
            assert!(p.file.is_some() && p.files == 12);
            seen.push((p.done, p.total, p.file_number));
        })
        .unwrap();
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(
        (report.read, report.stored(), report.files),
        (14, 14, Some(12))
    );
    assert!(report.is_clean());
    assert!(
        seen.windows(2)
            .all(|w| w[0].0 <= w[1].0 && w[0].2 <= w[1].2)
    );
    assert_eq!(seen.last().map(|s| (s.0, s.1, s.2)), Some((14, 14, 12)));

    // The ranking of each (spec, stage), with what each agent did.
    let specs: Vec<&str> = report.groups.iter().map(|g| g.spec.as_str()).collect();
    assert_eq!(
        specs,
        [
            "SPEC-DEMO-CACHE",
            "SPEC-DEMO-EXPORT",
            "SPEC-DEMO-MIGRATE",
            "SPEC-DEMO-RETRY",
            "SPEC-PPP-003-example"
        ]
    );
    let cache = &report.groups[0];
    let Ok(Decision::Weighted { consensus, .. }) = &cache.ranking else {
        panic!("{:?}", cache.ranking);
    };
    assert_eq!(consensus.best_agent, "birch");
    let cedar = cache.member("cedar").unwrap();
    assert_eq!(cedar.questions.high, 1);
    assert!(cedar.guidance.iter().any(|g| g == "doom_loop"));
    assert_eq!(cedar.file.as_deref().map(Path::exists), Some(true));

    // The report's text is `tact run`'s stdout, pinned by the CLI's snapshot.
    let snapshot = std::fs::read_to_string(repo(
        "crates/cli/tests/cli/snapshots/cli__run__run_ranks_the_demo_sessions_per_spec_and_stage.snap",
    ))
    .unwrap();
    let pinned = snapshot.splitn(3, "---\n").nth(2).unwrap();
    let text = report.to_string().replace(db.to_str().unwrap(), "<DB>");
    assert_eq!(text.trim_end(), pinned.trim_end());

    // Every session went to the database; a second run replaces them.
    let again = job.run_path(repo("fixtures/sessions"), |_| {}).unwrap();
    assert_eq!(
        again.run_ids().collect::<Vec<_>>(),
        report.run_ids().collect::<Vec<_>>()
    );
    assert_eq!(again.stored(), report.stored());
    let store = job.into_store().unwrap();
    assert_eq!(store.path(), db);
    assert_eq!(store.trajectory_count().unwrap(), 14);
}

#[test]
fn bad_sessions_are_returned_with_file_and_line_and_the_others_stored() {
    let dir = scratch("mixed");
    let input = mixed_sessions(&dir);
    let mut job = Job::builder()
        .store(Store::open_in_memory().unwrap())
        .build()
        .unwrap();
    let report = job.run_path(&input, |_| {}).unwrap();
    assert_eq!(
        (report.read, report.stored(), report.files),
        (6, 3, Some(5))
    );
    assert!(!report.is_clean());
    let at = |rel: &str| input.join(rel);
    let errors: Vec<(PathBuf, Option<usize>, &SessionErrorKind)> = report
        .errors
        .iter()
        .map(|e| (e.file.clone().unwrap(), e.line, &e.kind))
        .collect();
    assert_eq!(errors.len(), 3, "{:?}", report.errors);
    assert_eq!(
        (&errors[0].0, errors[0].1),
        (&at("nested/broken.json"), Some(1))
    );
    assert!(matches!(errors[0].2, SessionErrorKind::Invalid(_)));
    assert_eq!(
        (&errors[1].0, errors[1].1),
        (&at("nested/more.jsonl"), Some(3))
    );
    assert!(matches!(errors[1].2, SessionErrorKind::Invalid(_)));
    assert_eq!(
        (&errors[2].0, errors[2].1),
        (&at("nested/nospec.jsonl"), Some(1))
    );
    assert!(matches!(errors[2].2, SessionErrorKind::NoSpec));
    // Each message is the one `tact run` prints, naming file and line.
    let more = at("nested/more.jsonl").display().to_string();
    assert_eq!(
        report.errors[1].to_string(),
        format!("invalid session {more}:3:38: key must be a string")
    );
    assert!(report.errors[2].to_string().starts_with(&format!(
        "{}:1: the session has no `spec_id`",
        at("nested/nospec.jsonl").display()
    )));
    let store = job.store().unwrap();
    assert_eq!(store.trajectory_count().unwrap(), 3);
    assert!(store.load_latest("SPEC-X", "zed").unwrap().is_some());
}

/// The body of `nothing_is_printed`, run in a child process of this test
/// binary, where it writes markers around the job on stdout and stderr.
#[test]
#[ignore = "run by nothing_is_printed in a child process"]
fn child_runs_the_job_between_markers() {
    let Ok(input) = std::env::var("TACT_FACADE_CHILD_INPUT") else {
        return;
    };
    let db = PathBuf::from(std::env::var("TACT_FACADE_CHILD_DB").unwrap());
    println!("\n<<<job");
    eprintln!("\n<<<job");
    let mut job = Job::builder().db(&db).stage("implement").build().unwrap();
    let report = job.run_path(&input, |_| {}).unwrap();
    let values = job.run_sessions(Vec::new(), |_| {}).unwrap();
    let missing = job.run_path(Path::new(&input).join("missing"), |_| {});
    println!("job>>>");
    eprintln!("job>>>");
    assert_eq!(report.errors.len(), 3);
    assert_eq!(values.read, 0);
    assert!(missing.is_err());
}

/// The text between the markers of each job run in `stream`.
fn between_markers(stream: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(stream);
    text.split("<<<job\n")
        .skip(1)
        .map(|rest| rest.split("job>>>").next().unwrap_or(rest).to_owned())
        .collect()
}

#[test]
fn nothing_is_printed() {
    let dir = scratch("silent");
    let input = mixed_sessions(&dir);
    let o = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_runs_the_job_between_markers",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TACT_FACADE_CHILD_INPUT", &input)
        .env("TACT_FACADE_CHILD_DB", dir.join("tact.db"))
        .env("RUST_LOG", "trace")
        .env("TACT_LOG", "trace")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    for stream in [&o.stdout, &o.stderr] {
        assert_eq!(
            between_markers(stream),
            [""],
            "{}",
            String::from_utf8_lossy(stream)
        );
    }
}

#[test]
fn fatal_problems_come_before_anything_is_written() {
    let dir = scratch("fatal");
    let db = dir.join("never/tact.db");
    let mut job = Job::builder().db(&db).build().unwrap();
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let e = job.run_path(&empty, |_| {}).unwrap_err();
    assert!(matches!(e, tact::Error::NoSessionFiles { .. }), "{e}");
    let e = job.run_path(dir.join("missing"), |_| {}).unwrap_err();
    assert!(matches!(e, tact::Error::Read { .. }), "{e}");
    assert!(!db.exists() && !dir.join("never").exists());
}

#[test]
fn a_line_that_is_not_utf8_is_skipped_alone() {
    let dir = scratch("utf8");
    let line = |agent: &str| {
        format!(
            r#"{{"spec_id": "SPEC-U", "agent": "{agent}", "outcome": {{"kind": "build", "success": true}}}}"#
        )
    };
    // Line 2 spells the agent `béa` in Latin-1: `é` is the byte 0xe9.
    let mut bytes = format!("{}\n{}\n{}\n", line("ana"), line("b?a"), line("cy")).into_bytes();
    let bad = bytes.iter().position(|&b| b == b'?').unwrap();
    bytes[bad] = 0xe9;
    let file = dir.join("latin1.jsonl");
    std::fs::write(&file, bytes).unwrap();
    let mut job = Job::builder()
        .store(Store::open_in_memory().unwrap())
        .build()
        .unwrap();
    let report = job.run_path(&file, |_| {}).unwrap();
    assert_eq!((report.read, report.stored()), (3, 2));
    assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
    assert_eq!(report.errors[0].line, Some(2));
    assert_eq!(
        report.errors[0].to_string(),
        format!("invalid session {}:2: invalid UTF-8", file.display())
    );
}

#[cfg(unix)]
#[test]
fn fifos_are_skipped_and_said() {
    let dir = scratch("fifo");
    let input = dir.join("sessions");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::copy(
        repo("fixtures/sessions/spec_example/agent_a.json"),
        input.join("agent_a.json"),
    )
    .unwrap();
    let fifo = input.join("live.jsonl");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let mut job = Job::builder()
        .store(Store::open_in_memory().unwrap())
        .build()
        .unwrap();
    // Inside a walked folder: said, and never opened (it would block).
    let report = job.run_path(&input, |_| {}).unwrap();
    assert_eq!((report.stored(), report.files), (1, Some(1)));
    assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
    assert!(matches!(
        report.errors[0].kind,
        SessionErrorKind::NotRegular("FIFO")
    ));
    assert_eq!(
        report.errors[0].to_string(),
        format!("{}: not a regular file (FIFO)", fifo.display())
    );
    // Given as the path: the same, not "Not a directory".
    let report = job.run_path(&fifo, |_| {}).unwrap();
    assert_eq!(report.stored(), 0);
    assert_eq!(
        report.errors[0].to_string(),
        format!("{}: not a regular file (FIFO)", fifo.display())
    );
}

/// A log with no exchange (an Aider chat started and left, a Claude Code
/// transcript of a title only) is said in one note naming the file, and
/// neither stored nor ranked; the log beside it is.
#[test]
fn empty_logs_are_reported_not_stored_or_ranked() {
    let dir = scratch("empty-logs");
    std::fs::write(
        dir.join("a.aider.chat.history.md"),
        "# aider chat started at 2026-01-01 10:00:00\n\n> Aider v0.86.2\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("b.jsonl"),
        "{\"type\":\"summary\",\"summary\":\"t\",\"leafUuid\":\"u\",\"sessionId\":\"s\"}\n",
    )
    .unwrap();
    std::fs::copy(
        repo("fixtures/logs/claude-code/rejected-tool-calls.jsonl"),
        dir.join("c.jsonl"),
    )
    .unwrap();
    let mut job = Job::builder()
        .store(Store::open_in_memory().unwrap())
        .build()
        .unwrap();
    let report = job.run_path(&dir, |_| {}).unwrap();
    assert_eq!(report.stored(), 1, "{:?} {:?}", report.errors, report.notes);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let skipped: Vec<&String> = report
        .notes
        .iter()
        .filter(|n| n.ends_with("no exchanges: skipped"))
        .collect();
    assert_eq!(skipped.len(), 2, "{:?}", report.notes);
    assert!(skipped[0].starts_with(&dir.join("a.aider.chat.history.md").display().to_string()));
    assert!(skipped[1].starts_with(&dir.join("b.jsonl").display().to_string()));
    let members: usize = report.groups.iter().map(|g| g.members.len()).sum();
    assert_eq!(members, 1);
    let board = job.into_store().unwrap().leaderboard(None).unwrap();
    assert_eq!(board.len(), 1, "{board:?}");
}

#[test]
fn the_store_keeps_each_runs_final_consensus_score() {
    let mut job = Job::builder()
        .store(Store::open_in_memory().unwrap())
        .build()
        .unwrap();
    let report = job.run_path(repo("fixtures/sessions"), |_| {}).unwrap();
    let store = job.into_store().unwrap();
    let board = store.leaderboard(None).unwrap();
    let mut compared = 0;
    for group in &report.groups {
        let Ok(Decision::Weighted { consensus, .. }) = &group.ranking else {
            continue;
        };
        for s in &consensus.scores {
            let row = board
                .iter()
                .find(|r| r.spec_id == group.spec && r.agent == s.agent)
                .unwrap();
            // One run per (spec, agent) in the demo: the mean is the run's.
            assert!(
                (row.mean_final.unwrap() - s.final_score).abs() < 1e-9,
                "{row:?}"
            );
            compared += 1;
        }
    }
    assert!(compared >= 10, "{compared}");
}

/// The limits cut what is beyond them and say so: a response far beyond
/// the message limit is analysed up to it, questions beyond the
/// per-message limit are not kept, a line beyond the session limit is
/// skipped with an error; the other sessions of the file are stored.
#[test]
fn the_limits_cut_and_report_what_is_beyond_them() {
    use tact::job::{Limits, TruncationKind};
    let dir = scratch("limits");
    let session = |agent: &str, response: &str| {
        serde_json::json!({
            "agent": agent,
            "spec_id": "S",
            "turns": [{"prompt": "Add a cache.", "response": response}],
            "outcome": {"kind": "tests", "passed": 1, "total": 1}
        })
        .to_string()
    };
    // 5 MB of prose with a question every sentence: 139,810 questions.
    let huge = "Should it be Redis or in-process? ".repeat(5 << 20 >> 5);
    let many = "Is it Redis? ".repeat(50);
    let file = dir.join("s.jsonl");
    let too_long = session("agent_c", &"x".repeat(300_000));
    std::fs::write(
        &file,
        format!(
            "{}\n{}\n{}\n",
            session("agent_a", &huge),
            session("agent_b", &many),
            too_long
        ),
    )
    .unwrap();
    let mut job = Job::builder()
        .store(Store::open_in_memory().unwrap())
        .limits(
            Limits::default()
                .max_session_bytes(6 << 20)
                .max_message_bytes(64 << 10)
                .max_questions_per_message(20),
        )
        .build()
        .unwrap();
    let report = job.run_path(&file, |_| {}).unwrap();
    assert_eq!(
        (report.read, report.stored()),
        (3, 3),
        "{:?}",
        report.errors
    );
    let cuts: Vec<(String, TruncationKind)> = report
        .truncations
        .iter()
        .map(|t| (t.agent.clone(), t.kind))
        .collect();
    assert_eq!(cuts.len(), 4, "{cuts:?}");
    assert!(cuts.contains(&(
        "agent_a".into(),
        TruncationKind::Message {
            bytes: huge.len(),
            kept: 64 << 10
        }
    )));
    assert!(cuts.iter().any(|(a, k)| a == "agent_a"
        && matches!(k, TruncationKind::Questions { found, kept: 20 } if *found > 1_000)));
    assert!(cuts.contains(&(
        "agent_b".into(),
        TruncationKind::Questions {
            found: 50,
            kept: 20
        }
    )));
    assert!(cuts.iter().any(
        |(a, k)| a == "agent_c" && matches!(k, TruncationKind::Message { bytes: 300_000, .. })
    ));
    let notes: Vec<String> = report.truncations.iter().map(ToString::to_string).collect();
    assert!(
        notes[0].starts_with(&format!("{}:1: turn 0 of agent agent_a", file.display())),
        "{notes:?}"
    );
    let group = &report.groups[0];
    assert_eq!(
        group.member("agent_a").unwrap().questions.low
            + group.member("agent_a").unwrap().questions.medium
            + group.member("agent_a").unwrap().questions.high,
        20
    );
    assert!(report.to_string().contains("cut by the limits"), "{report}");

    // A session line beyond the session limit: skipped, named, the next
    // line still read.
    let mut job = Job::builder()
        .store(Store::open_in_memory().unwrap())
        .limits(Limits::default().max_session_bytes(100_000))
        .build()
        .unwrap();
    let report = job.run_path(&file, |_| {}).unwrap();
    assert_eq!(
        (report.read, report.stored()),
        (3, 1),
        "{:?}",
        report.errors
    );
    assert!(matches!(
        report.errors[0].kind,
        SessionErrorKind::TooLarge { bytes, limit: 100_000 } if bytes as usize == session("agent_a", &huge).len()
    ));
    assert_eq!(report.errors[0].line, Some(1));
    assert_eq!(report.errors[1].line, Some(3));
    let _ = std::fs::remove_dir_all(&dir);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Whatever the response and the limits: the session is stored, what
    /// is stored and analysed stays within the limits, and every cut is
    /// reported (none when nothing was beyond them).
    #[test]
    fn the_limits_hold_on_any_response(
        parts in proptest::collection::vec(
            proptest::prop_oneof!["Is it Redis\\? ", "Ship it. ", "é€ ", "\\PC{0,12}"],
            0..200,
        ),
        max_message in 8usize..600,
        max_questions in 0usize..6,
    ) {
        use tact::job::{Limits, TruncationKind};
        use tact::scoring::{Session, TaskOutcome, Turn};
        let response: String = parts.concat();
        let mut s = Session::new("agent_p", TaskOutcome::Build { success: true });
        s.spec_id = Some("SPEC-P".into());
        s.turns.push(Turn::new("Add a cache.", response.clone()));
        let mut job = Job::builder()
            .store(Store::open_in_memory().unwrap())
            .limits(
                Limits::default()
                    .max_message_bytes(max_message)
                    .max_questions_per_message(max_questions),
            )
            .build()
            .unwrap();
        let report = job.run_sessions(vec![s], |_| {}).unwrap();
        proptest::prop_assert_eq!(report.stored(), 1);
        let message_cut = report
            .truncations
            .iter()
            .find_map(|t| match t.kind {
                TruncationKind::Message { bytes, kept } => Some((bytes, kept)),
                _ => None,
            });
        if response.len() > max_message {
            let (bytes, kept) = message_cut.unwrap();
            proptest::prop_assert_eq!(bytes, response.len());
            proptest::prop_assert!(kept <= max_message && kept + 4 > max_message);
            proptest::prop_assert!(response.is_char_boundary(kept));
        } else {
            proptest::prop_assert!(message_cut.is_none());
        }
        let member = report.groups[0].member("agent_p").unwrap();
        let q = member.questions;
        let kept = (q.low + q.medium + q.high) as usize;
        proptest::prop_assert!(kept <= max_questions);
        let question_cut = report.truncations.iter().find_map(|t| match t.kind {
            TruncationKind::Questions { found, kept } => Some((found, kept)),
            _ => None,
        });
        if let Some((found, cut_to)) = question_cut {
            proptest::prop_assert!(found > max_questions && cut_to == max_questions);
        }
        let store = job.into_store().unwrap();
        let stored = store.load_latest("SPEC-P", "agent_p").unwrap().unwrap();
        proptest::prop_assert!(stored.session.turns[0].response.len() <= max_message);
    }
}

/// A folder of agent logs with comment lines before their first record,
/// a Cline task folder and files that are no log: each log is imported,
/// the task folder's companions passed over, and each other file is ONE
/// error naming the formats tried (not a warning per line).
#[test]
fn files_that_are_no_known_log_get_one_error_naming_the_formats_tried() {
    let dir = scratch("unknown");
    std::fs::write(
        dir.join("claude.jsonl"),
        "\n// exported\n{\"type\":\"user\",\"sessionId\":\"s1\",\"message\":{\"role\":\"user\",\"content\":\"Add a cache.\"}}\n{\"type\":\"assistant\",\"sessionId\":\"s1\",\"message\":{\"id\":\"m1\",\"model\":\"claude-x\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Redis or in-process?\"}]}}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("package.json"),
        "{\"name\":\"x\",\"version\":\"1.0.0\"}\n",
    )
    .unwrap();
    std::fs::write(dir.join("table.jsonl"), "a,b\n1,2\n3,4\n5,6\n").unwrap();
    let task = dir.join("task");
    std::fs::create_dir_all(&task).unwrap();
    std::fs::write(
        task.join("api_conversation_history.json"),
        r#"[{"role":"user","content":[{"type":"text","text":"<task>\nAdd a cache.\n</task>"}]},{"role":"assistant","content":[{"type":"text","text":"<ask_followup_question>\n<question>Redis or in-process?</question>\n</ask_followup_question>"}]}]"#,
    )
    .unwrap();
    std::fs::write(task.join("ui_messages.json"), "[]").unwrap();
    std::fs::write(task.join("task_metadata.json"), "{\"files_in_context\":[]}").unwrap();
    let mut job = Job::builder()
        .store(Store::open_in_memory().unwrap())
        .build()
        .unwrap();
    let report = job.run_path(&dir, |_| {}).unwrap();
    let mut errors: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
    errors.sort();
    assert_eq!(errors.len(), 2, "{errors:?}");
    for (e, file) in errors.iter().zip(["package.json", "table.jsonl"]) {
        assert!(
            e.ends_with(&format!(
                "{}:1: not a known agent log; tried: claude-code, codex, openhands, swe-agent, \
                 aider, openhands-v1, mini-swe-agent, cline, gemini-cli, specstory",
                dir.join(file).display()
            )),
            "{e}"
        );
    }
    assert_eq!((report.read, report.stored()), (4, 2), "{errors:?}");
}

/// An OpenHands V1 conversation folder as the SDK writes it (`base_state.json`
/// and one event a file under `events/`), here the real sample split back
/// into its files: one session, the same as the joined log, and
/// `base_state.json` passed over.
#[test]
fn an_openhands_v1_conversation_folder_is_one_session() {
    use tact::import::{Format, import_text};
    let dir = scratch("openhands-v1");
    let events = dir.join("conv/events");
    std::fs::create_dir_all(&events).unwrap();
    std::fs::write(dir.join("conv/base_state.json"), "{\"id\":\"c1\"}").unwrap();
    let joined =
        std::fs::read_to_string(repo("fixtures/logs/openhands-v1/confirmation_mode.jsonl"))
            .unwrap();
    for (i, line) in joined.lines().enumerate() {
        std::fs::write(events.join(format!("event-{i:05}-e{i}.json")), line).unwrap();
    }
    let mut job = Job::builder()
        .store(Store::open_in_memory().unwrap())
        .build()
        .unwrap();
    let report = job.run_path(&dir, |_| {}).unwrap();
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!((report.read, report.stored()), (1, 1));
    let whole = import_text(Format::OpenHandsV1, &joined, "c").unwrap();
    let first = events.join("event-00000-e0.json");
    let bytes = tact::import::conversation_events(&first, 1 << 20).unwrap();
    let folder = import_text(
        Format::OpenHandsV1,
        std::str::from_utf8(&bytes).unwrap(),
        "c",
    )
    .unwrap();
    assert_eq!(folder.turns, whole.turns);
    assert_eq!(whole.turns.len(), 3);
}
