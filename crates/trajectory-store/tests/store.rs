//! The integration-test binary of tact-trajectory-store: the promises of
//! the store, tested across real processes: a writer killed with SIGKILL
//! mid-batch, two writers at once, migration from schema version 1, corrupt
//! and read-only files, and no credential reaching the database file.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use proptest::prelude::*;
use tact_trajectory_store::{
    Error, GuidanceFireRecord, Location, QuestionRecord, SCHEMA_VERSION, ScoreRecord,
    SessionRecord, Severity, Store, ToolCallRecord, TurnRecord, ViolationRecord,
};

#[path = "store/backends.rs"]
mod backends;
use tact_types::EffortLevel;

/// Set in a child process re-executed from this test binary: it then acts
/// as a writer (`path|prefix|count`) instead of running tests.
const CHILD_ENV: &str = "TACT_STORE_TEST_WRITER";
const TURNS: u32 = 40;

fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tact-store-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("tact.db")
}

fn session(prefix: &str, i: usize, turns: u32) -> SessionRecord {
    SessionRecord {
        spec_id: format!("SPEC-{}", i % 7),
        stage: Some(["plan", "implement", "validate"][i % 3].into()),
        agent: format!("{prefix}-agent-{}", i % 3),
        run_id: format!("{prefix}-run-{i}"),
        created_at: Some(1_700_000_000 + i64::try_from(i).unwrap()),
        turns: (1..=turns)
            .map(|n| TurnRecord {
                number: n,
                timestamp: Some(1_700_000_000 + i64::from(n)),
                prompt: format!("prompt {n}"),
                response: format!("response {n}: Postgres or MySQL?"),
                token_count: Some(100 + n),
                latency_ms: Some(20),
                questions: vec![QuestionRecord {
                    text: "Postgres or MySQL?".into(),
                    effort: EffortLevel::Low,
                    confidence: 0.9,
                    reasons: vec![],
                }],
                violations: vec![ViolationRecord {
                    preference: "concise_question".into(),
                    expected: "one short sentence".into(),
                    actual: "two sentences".into(),
                    severity: Severity::Low,
                    span: Some((0, 10)),
                }],
            })
            .collect(),
        tool_calls: vec![ToolCallRecord {
            position: 1,
            step: None,
            name: "read_file".into(),
            params: serde_json::json!({"path": "src/lib.rs"}),
            ok: true,
            output_chars: 120,
        }],
        guidance: vec![GuidanceFireRecord {
            position: 1,
            classifier: "doom_loop".into(),
            confidence: 0.9,
            reason: "read_file x4".into(),
        }],
        score: Some(ScoreRecord {
            r_prod: 0.8,
            r_proact: 0.05,
            r_pers: -0.05,
            total: 0.8,
            profile: "spec".into(),
            technical_weight: 0.7,
            interaction_weight: 0.3,
            final_score: Some(0.56),
        }),
    }
}

/// Not a test of its own: the entry point of the writer processes the
/// tests below spawn. Without `TACT_STORE_TEST_WRITER` it does nothing.
#[test]
fn writer_process_entry_point() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let parts: Vec<&str> = spec.split('|').collect();
    let (path, prefix, count) = (parts[0], parts[1], parts[2].parse::<usize>().unwrap());
    let mut store = Store::connect(&Location::parse(path).unwrap()).unwrap();
    let stdout = std::io::stdout();
    for i in 0..count {
        store.ingest(&session(prefix, i, TURNS)).unwrap();
        let mut out = stdout.lock();
        writeln!(out, "committed {prefix}-run-{i}").unwrap();
        out.flush().unwrap();
    }
}

fn spawn_writer(path: &Path, prefix: &str, count: usize) -> Child {
    spawn_writer_at(&path.display().to_string(), prefix, count)
}

/// A writer process storing `count` sessions into the store at `location`
/// (a path or a URL), printing `committed RUN` after each commit.
fn spawn_writer_at(location: &str, prefix: &str, count: usize) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "writer_process_entry_point",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, format!("{location}|{prefix}|{count}"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn assert_complete(store: &Store) {
    assert_eq!(store.integrity_check().unwrap(), Ok(()));
}

#[test]
fn a_writer_killed_mid_batch_leaves_committed_sessions_intact() {
    let path = temp_db("kill9");
    // Create the schema first so the child only writes sessions.
    drop(Store::open(&path).unwrap());
    let mut child = spawn_writer(&path, "k", 1_000_000);
    let mut committed = Vec::new();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    while committed.len() < 25 {
        let line = lines.next().expect("writer output").unwrap();
        // The test harness prints its own lines too.
        if let Some(at) = line.find("committed ") {
            committed.push(line[at + "committed ".len()..].trim().to_owned());
        }
    }
    child.kill().unwrap(); // SIGKILL on Unix: no destructor, no checkpoint
    child.wait().unwrap();

    let store = Store::open(&path).unwrap();
    assert_complete(&store);
    for (i, run) in committed.iter().enumerate() {
        let s = session("k", i, TURNS);
        let got = store
            .load(&s.spec_id, &s.agent, run)
            .unwrap()
            .expect("committed run");
        assert_eq!(got.session.turns.len(), TURNS as usize, "{run}");
        assert_eq!(got.session.turns[5].questions.len(), 1);
    }
    // Nothing half written: every stored trajectory is whole.
    let n = store.trajectory_count().unwrap();
    assert!(n >= committed.len() as u64);
    for i in 0..usize::try_from(n).unwrap() {
        let s = session("k", i, TURNS);
        let got = store
            .load(&s.spec_id, &s.agent, &s.run_id)
            .unwrap()
            .expect("contiguous runs");
        assert_eq!(got.session.turns.len(), TURNS as usize);
    }
}

#[test]
fn two_processes_write_at_once() {
    let path = temp_db("concurrent");
    drop(Store::open(&path).unwrap());
    let a = spawn_writer(&path, "a", 40);
    let b = spawn_writer(&path, "b", 40);
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        assert_eq!(
            String::from_utf8_lossy(&out.stdout)
                .matches("committed")
                .count(),
            40
        );
    }
    let store = Store::open(&path).unwrap();
    assert_complete(&store);
    assert_eq!(store.trajectory_count().unwrap(), 80);
}

#[test]
fn a_version_1_database_migrates_without_losing_rows() {
    let path = temp_db("migrate");
    {
        let mut v1 = Store::open_at_version(&path, 1).unwrap();
        assert_eq!(v1.schema_version().unwrap(), 1);
        for i in 0..5 {
            // Version 1 has no tool-call or guidance tables.
            let mut s = session("m", i, 3);
            s.tool_calls.clear();
            s.guidance.clear();
            v1.ingest(&s).unwrap();
        }
    }
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(store.trajectory_count().unwrap(), 5);
    let s = session("m", 2, 3);
    let got = store
        .load(&s.spec_id, &s.agent, &s.run_id)
        .unwrap()
        .unwrap();
    assert_eq!(got.session.turns.len(), 3);
    assert_eq!(store.effort_distribution(None).unwrap().low, 15);
    // The new tables work after the migration.
    store.ingest(&session("m", 9, 1)).unwrap();
    assert_eq!(
        store.guidance_fires_by_classifier().unwrap(),
        [("doom_loop".to_owned(), 1)]
    );
    assert_complete(&store);
}

#[test]
fn a_corrupt_file_is_a_clear_error() {
    let path = temp_db("corrupt");
    std::fs::write(&path, "this is not a database, just text\n".repeat(200)).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, Error::Corrupt { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("not a tact database or the file is corrupt"),
        "{err}"
    );
}

#[test]
fn a_read_only_database_is_a_clear_error() {
    let path = temp_db("readonly");
    Store::open(&path)
        .unwrap()
        .ingest(&session("r", 0, 1))
        .unwrap();
    let mut ro = Store::open_read_only(&path).unwrap();
    assert_eq!(ro.trajectory_count().unwrap(), 1);
    let err = ro.ingest(&session("r", 1, 1)).unwrap_err();
    let Error::Ingest { source, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(matches!(**source, Error::ReadOnly { .. }), "{source:?}");
    assert!(err.to_string().contains("read-only"), "{err}");
}

#[test]
fn a_newer_schema_is_refused() {
    let path = temp_db("too-new");
    drop(Store::open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    assert!(matches!(
        Store::open(&path).unwrap_err(),
        Error::TooNew { found: 99, .. }
    ));
}

#[test]
fn a_failing_session_leaves_nothing_and_the_others_are_stored() {
    let mut store = Store::open_in_memory().unwrap();
    let good = session("f", 0, 2);
    let mut bad = session("f", 1, 2);
    bad.turns[1].number = 1; // duplicate turn number: UNIQUE violation
    let results = store.ingest_all(&[good.clone(), bad.clone(), session("f", 2, 2)]);
    assert!(results[0].is_ok() && results[2].is_ok());
    assert!(matches!(results[1], Err(Error::Ingest { .. })));
    assert!(
        store
            .load(&bad.spec_id, &bad.agent, &bad.run_id)
            .unwrap()
            .is_none()
    );
    assert_eq!(store.trajectory_count().unwrap(), 2);
    assert!(store.ingest(&bad).is_err());
    assert_eq!(store.trajectory_count().unwrap(), 2);
}

#[test]
fn queries_answer_the_report_questions() {
    let mut store = Store::open_in_memory().unwrap();
    for i in 0..6 {
        let mut s = session("q", i, 2);
        // Two specs, each with the same three agent names.
        s.spec_id = if i < 3 { "SPEC-A" } else { "SPEC-B" }.into();
        if let Some(sc) = &mut s.score {
            sc.total = i as f64 / 10.0;
            sc.final_score = Some(i as f64 / 10.0);
        }
        store.ingest(&s).unwrap();
    }
    let board = store.leaderboard(None).unwrap();
    // One row per (spec, agent): agents of one name in two specs stay apart;
    // within a spec, the best mean final consensus score first.
    let rows: Vec<(&str, &str, Option<f64>)> = board
        .iter()
        .map(|r| (r.spec_id.as_str(), r.agent.as_str(), r.mean_final))
        .collect();
    assert_eq!(
        rows,
        [
            ("SPEC-A", "q-agent-2", Some(0.2)),
            ("SPEC-A", "q-agent-1", Some(0.1)),
            ("SPEC-A", "q-agent-0", Some(0.0)),
            ("SPEC-B", "q-agent-2", Some(0.5)),
            ("SPEC-B", "q-agent-1", Some(0.4)),
            ("SPEC-B", "q-agent-0", Some(0.3)),
        ]
    );
    assert_eq!(store.leaderboard(Some("plan")).unwrap().len(), 2);
    let points = store.scores_over_time("q-agent-0").unwrap();
    assert_eq!(points.len(), 2);
    assert!(points[0].created_at < points[1].created_at);
    assert_eq!(
        store.most_violated_preferences(5).unwrap(),
        [("concise_question".to_owned(), 12)]
    );
    assert_eq!(store.effort_distribution(Some("SPEC-A")).unwrap().low, 6);
    // Re-ingesting a run replaces it.
    let mut again = session("q", 0, 5);
    again.spec_id = "SPEC-A".into();
    store.ingest(&again).unwrap();
    assert_eq!(store.trajectory_count().unwrap(), 6);
    let s = again;
    assert_eq!(
        store
            .load_latest(&s.spec_id, &s.agent)
            .unwrap()
            .unwrap()
            .session
            .turns
            .len(),
        5
    );
}

#[test]
fn no_credential_reaches_the_database_file() {
    let path = temp_db("secrets");
    let secrets = [
        "AKIAZXCVBNMASDFGHJKL",
        "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
        "hunter2-very-secret",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ];
    let mut s = session("s", 0, 2);
    s.tool_calls.push(ToolCallRecord {
        position: 2,
        step: None,
        name: "http_request".into(),
        params: serde_json::json!({
            "headers": {"Authorization": format!("Bearer {}", secrets[1])},
            "env": {"AWS_ACCESS_KEY_ID": secrets[0], "db_password": secrets[2]},
            "jwt": secrets[3],
        }),
        ok: true,
        output_chars: 0,
    });
    s.turns[0].response = format!("I will call it with Bearer {} now", secrets[1]);
    s.turns[1].prompt = format!("use key {} please", secrets[0]);
    {
        let mut store = Store::open(&path).unwrap();
        store.ingest(&s).unwrap();
        let back = store
            .load(&s.spec_id, &s.agent, &s.run_id)
            .unwrap()
            .unwrap();
        assert_eq!(
            back.session.tool_calls[1].params["env"]["db_password"],
            "[REDACTED]"
        );
    }
    let mut bytes = Vec::new();
    for suffix in ["", "-wal", "-shm"] {
        if let Ok(b) = std::fs::read(format!("{}{suffix}", path.display())) {
            bytes.extend(b);
        }
    }
    let haystack = String::from_utf8_lossy(&bytes);
    for secret in secrets {
        assert!(!haystack.contains(secret), "{secret} reached the database");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_strings_and_params_store_and_load(
        spec in any::<String>(), agent in any::<String>(), text in any::<String>(),
        key in any::<String>(), value in any::<String>(), conf in any::<f32>(), total in any::<f64>(),
    ) {
        let mut store = Store::open_in_memory().unwrap();
        let mut s = session("p", 0, 1);
        s.spec_id = spec.clone();
        s.agent = agent.clone();
        s.turns[0].prompt = text.clone();
        s.turns[0].questions[0].confidence = conf;
        s.tool_calls[0].params = serde_json::json!({ key: value });
        if let Some(sc) = &mut s.score { sc.total = total; }
        store.ingest(&s).unwrap();
        let back = store.load(&spec, &agent, &s.run_id).unwrap().unwrap();
        prop_assert_eq!(back.session.turns.len(), 1);
        let score = back.session.score.unwrap();
        prop_assert!(score.total.is_finite());
    }
}

#[test]
fn steps_above_u32_are_kept_exact() {
    let mut store = Store::open_in_memory().unwrap();
    let mut s = session("steps", 0, 1);
    let step = |n: u64| ToolCallRecord {
        position: 1,
        step: Some(n),
        name: "read_file".into(),
        params: serde_json::json!({}),
        ok: true,
        output_chars: 0,
    };
    // Two steps that a clamp to u32::MAX would merge.
    s.tool_calls = vec![step(4_294_967_296), step(4_294_967_297)];
    store.ingest(&s).unwrap();
    let back = store
        .load(&s.spec_id, &s.agent, &s.run_id)
        .unwrap()
        .unwrap();
    let steps: Vec<Option<u64>> = back.session.tool_calls.iter().map(|c| c.step).collect();
    assert_eq!(steps, [Some(4_294_967_296), Some(4_294_967_297)]);
}

/// Makes a folder read-only for the test's life: `chmod 555`, and when
/// that does not stop this process (root), `chattr +i`. `None` when
/// neither works here.
#[cfg(unix)]
struct ReadOnlyDir(PathBuf, bool);

#[cfg(unix)]
impl ReadOnlyDir {
    fn new(dir: &Path) -> Option<Self> {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        let probe = dir.join("probe");
        if std::fs::write(&probe, "x").is_err() {
            return Some(ReadOnlyDir(dir.to_owned(), false));
        }
        std::fs::remove_file(&probe).unwrap();
        let immutable = Command::new("chattr")
            .arg("+i")
            .arg(dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        let guard = ReadOnlyDir(dir.to_owned(), immutable);
        (immutable && std::fs::write(&probe, "x").is_err()).then_some(guard)
    }
}

#[cfg(unix)]
impl Drop for ReadOnlyDir {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        if self.1 {
            let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
        }
        let _ = std::fs::set_permissions(&self.0, std::fs::Permissions::from_mode(0o755));
    }
}

#[cfg(unix)]
#[test]
fn a_wal_database_in_a_read_only_folder_is_read() {
    let path = temp_db("ro-folder");
    Store::open(&path)
        .unwrap()
        .ingest(&session("ro", 0, 1))
        .unwrap();
    let Some(_guard) = ReadOnlyDir::new(path.parent().unwrap()) else {
        println!("skipped: no way to make a read-only folder here");
        return;
    };
    let ro = Store::open_read_only(&path).unwrap();
    assert_eq!(ro.trajectory_count().unwrap(), 1);
    // Nothing was written next to the database.
    let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["tact.db"]);
}

#[cfg(unix)]
#[test]
fn what_is_not_a_file_is_named_and_never_opened() {
    let path = temp_db("fifo");
    let fifo = path.with_file_name("live.db");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for open in [Store::open_read_only, Store::open] {
        let err = open(&fifo).unwrap_err();
        assert!(
            matches!(err, Error::NotAFile { kind: "FIFO", .. }),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            format!("{}: not a regular file (FIFO)", fifo.display())
        );
    }
    let dir = path.parent().unwrap();
    let err = Store::open_read_only(dir).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{}: not a regular file (folder)", dir.display())
    );
}
