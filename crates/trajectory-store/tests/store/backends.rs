//! The store's guarantees on both backends: each test runs on a fresh
//! SQLite file and on a fresh schema of the PostgreSQL server named by
//! `TACT_TEST_PG_URL` (`.ci/run` starts one). Without that variable the
//! PostgreSQL half is skipped with one note, except under `CI=true`, where
//! it fails: CI never skips the server.

use std::io::{BufRead, BufReader, Write as _};
use std::net::TcpListener;
use std::sync::Once;
use std::time::{Duration, Instant};

use tact_trajectory_store::{
    Error, Location, SCHEMA_VERSION, SessionRecord, Store, ToolCallRecord,
};

use super::{TURNS, session, spawn_writer_at, temp_db};

/// The PostgreSQL server of the tests, if any.
fn server_url() -> Option<String> {
    static NOTE: Once = Once::new();
    match std::env::var("TACT_TEST_PG_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI=true but TACT_TEST_PG_URL is unset: .ci/run must start PostgreSQL"
            );
            NOTE.call_once(|| {
                // Straight to stderr: the harness's capture would hide it.
                let _ = writeln!(
                    std::io::stderr(),
                    "note: PostgreSQL store tests skipped: TACT_TEST_PG_URL is unset \
                     (source .ci/postgres.sh && tact_pg_start to run them)"
                );
            });
            None
        }
    }
}

/// Runs SQL on the test server as the test role.
fn admin(url: &str, sql: &str) -> Result<(), tokio_postgres::Error> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
        let task = tokio::spawn(conn);
        let done = client.batch_execute(sql).await;
        drop(client);
        let _ = task.await;
        done
    })
}

/// A schema of its own on the test server, dropped at the end.
struct PgSchema {
    url: String,
    name: String,
}

impl PgSchema {
    fn new(url: &str, test: &str) -> Self {
        let name = format!("t_{}_{}", std::process::id(), test.replace('-', "_"));
        admin(
            url,
            &format!("DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name};"),
        )
        .unwrap();
        PgSchema {
            url: url.to_owned(),
            name,
        }
    }

    /// The URL of the store in this schema (`options=-csearch_path=...`).
    fn location_text(&self) -> String {
        with_param(&self.url, &format!("options=-csearch_path%3D{}", self.name))
    }

    fn location(&self) -> Location {
        Location::parse(&self.location_text()).unwrap()
    }

    fn sql(&self, sql: &str) {
        admin(
            &self.url,
            &format!("SET search_path = {}; {sql}", self.name),
        )
        .unwrap();
    }
}

impl Drop for PgSchema {
    fn drop(&mut self) {
        let _ = admin(
            &self.url,
            &format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name),
        );
    }
}

fn with_param(url: &str, param: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{param}")
}

/// A fresh store of each backend: (name, location, the PostgreSQL schema
/// to keep alive).
fn backends(test: &str) -> Vec<(&'static str, Location, Option<PgSchema>)> {
    let mut out = vec![(
        "sqlite",
        Location::Sqlite(temp_db(&format!("both-{test}"))),
        None,
    )];
    if let Some(url) = server_url() {
        let schema = PgSchema::new(&url, test);
        out.push(("postgres", schema.location(), Some(schema)));
    }
    out
}

#[test]
fn a_session_sent_again_is_stored_once() {
    for (name, loc, _keep) in backends("idempotent") {
        let mut store = Store::connect(&loc).unwrap();
        let s = session("i", 0, 3);
        store.ingest(&s).unwrap();
        store.ingest(&s).unwrap();
        let mut changed = s.clone();
        changed.turns.truncate(1);
        store.ingest(&changed).unwrap();
        assert_eq!(store.trajectory_count().unwrap(), 1, "{name}");
        let got = store
            .load(&s.spec_id, &s.agent, &s.run_id)
            .unwrap()
            .unwrap();
        assert_eq!(got.session.turns.len(), 1, "{name}: the last one wins");
        assert_eq!(store.effort_distribution(None).unwrap().low, 1, "{name}");
        assert_eq!(store.integrity_check().unwrap(), Ok(()), "{name}");
        // The earlier copy is gone whole: only the last one's rows remain
        // (PostgreSQL removes them by the key's delete, with no foreign
        // key to cascade).
        let counts = store.counts_by_session().unwrap();
        assert_eq!(counts.len(), 1, "{name}");
        let c = &counts[0].1;
        assert_eq!(
            (c.turns, c.questions, c.violations, c.scores),
            (1, 1, 1, 1),
            "{name}: {c:?}"
        );
        assert_eq!(c.tool_calls as usize, s.tool_calls.len(), "{name}");
        assert_eq!(c.guidance_fires as usize, s.guidance.len(), "{name}");
    }
}

#[test]
fn a_failing_session_leaves_nothing_on_either_backend() {
    for (name, loc, _keep) in backends("atomic") {
        let mut store = Store::connect(&loc).unwrap();
        store.ingest(&session("a", 0, 2)).unwrap();
        let mut bad = session("a", 1, 3);
        bad.turns[2].number = 1; // duplicate turn number: UNIQUE violation
        let err = store.ingest(&bad).unwrap_err();
        assert!(matches!(err, Error::Ingest { .. }), "{name}: {err:?}");
        assert!(
            store
                .load(&bad.spec_id, &bad.agent, &bad.run_id)
                .unwrap()
                .is_none(),
            "{name}"
        );
        assert_eq!(store.trajectory_count().unwrap(), 1, "{name}");
        // Nothing of it in any table: one session's rows only.
        let counts = store.counts_by_session().unwrap();
        assert_eq!(counts.len(), 1, "{name}");
        assert_eq!(counts[0].1.turns, 2, "{name}");
        // The store goes on after the failure.
        store.ingest(&session("a", 2, 2)).unwrap();
        assert_eq!(store.trajectory_count().unwrap(), 2, "{name}");
    }
}

#[test]
fn an_old_schema_migrates_without_losing_rows_on_either_backend() {
    for (name, loc, _keep) in backends("migrate") {
        {
            let mut v1 = Store::connect_at_version(&loc, 1).unwrap();
            assert_eq!(v1.schema_version().unwrap(), 1, "{name}");
            for i in 0..4 {
                let mut s = session("m", i, 3);
                s.tool_calls.clear();
                s.guidance.clear();
                if let Some(sc) = &mut s.score {
                    sc.final_score = None;
                }
                v1.ingest(&s).unwrap();
            }
        }
        let mut store = Store::connect(&loc).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION, "{name}");
        assert_eq!(store.trajectory_count().unwrap(), 4, "{name}");
        assert_eq!(store.effort_distribution(None).unwrap().low, 12, "{name}");
        store.ingest(&session("m", 9, 1)).unwrap();
        assert_eq!(
            store.guidance_fires_by_classifier().unwrap(),
            [("doom_loop".to_owned(), 1)],
            "{name}"
        );
        let got = store
            .load("SPEC-2", "m-agent-2", "m-run-2")
            .unwrap()
            .unwrap();
        assert_eq!(got.session.turns.len(), 3, "{name}");
    }
}

#[test]
fn hosts_opening_an_old_store_at_once_migrate_it_once() {
    for (name, loc, _keep) in backends("migrate-race") {
        drop(Store::connect_at_version(&loc, 1).unwrap());
        let opened: Vec<Result<i64, String>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..6)
                .map(|_| {
                    let loc = loc.clone();
                    scope.spawn(move || {
                        Store::connect(&loc)
                            .and_then(|s| s.schema_version())
                            .map_err(|e| e.to_string())
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for v in opened {
            assert_eq!(v, Ok(SCHEMA_VERSION), "{name}");
        }
    }
}

#[test]
fn a_newer_schema_is_refused_on_either_backend() {
    for (name, loc, keep) in backends("too-new") {
        drop(Store::connect(&loc).unwrap());
        match (&loc, &keep) {
            (Location::Sqlite(path), _) => {
                let conn = rusqlite::Connection::open(path).unwrap();
                conn.pragma_update(None, "user_version", 99).unwrap();
            }
            (_, Some(schema)) => schema.sql("UPDATE tact_schema SET version = 99"),
            _ => unreachable!(),
        }
        for e in [
            Store::connect(&loc).unwrap_err(),
            Store::connect_read_only(&loc).unwrap_err(),
        ] {
            assert!(
                matches!(e, Error::TooNew { found: 99, .. }),
                "{name}: {e:?}"
            );
            assert!(
                e.to_string().contains("newer than this tact supports"),
                "{e}"
            );
        }
    }
}

#[test]
fn no_credential_reaches_either_backend() {
    let token = "ghp_0123456789abcdefghijABCDEFGHIJklmnopQR";
    for (name, loc, _keep) in backends("redact") {
        let mut store = Store::connect(&loc).unwrap();
        let mut s = session("c", 0, 1);
        s.turns[0].prompt = format!("use {token} please");
        s.tool_calls[0].params = serde_json::json!({"token": token});
        s.guidance[0].reason = format!("saw {token}");
        store.ingest(&s).unwrap();
        let got = store
            .load(&s.spec_id, &s.agent, &s.run_id)
            .unwrap()
            .unwrap();
        let text = serde_json::to_string(&got).unwrap();
        assert!(!text.contains(token), "{name}: {text}");
        assert!(
            text.contains("REDACTED") || text.contains("redacted"),
            "{name}: {text}"
        );
    }
}

/// Everything `tact report` reads, as JSON.
fn report_json(store: &Store) -> serde_json::Value {
    let board = store.leaderboard(None).unwrap();
    let mut agents: Vec<&str> = board.iter().map(|r| r.agent.as_str()).collect();
    agents.dedup();
    let over_time: Vec<_> = agents
        .iter()
        .map(|a| (a.to_string(), store.scores_over_time(a).unwrap()))
        .collect();
    serde_json::json!({
        "leaderboard": board,
        "leaderboard_plan": store.leaderboard(Some("plan")).unwrap(),
        "over_time": over_time,
        "violations": store.most_violated_preferences(10).unwrap(),
        "effort": store.effort_distribution(None).unwrap(),
        "effort_spec": store.effort_distribution(Some("SPEC-1")).unwrap(),
        "guidance": store.guidance_fires_by_classifier().unwrap(),
        "count": store.trajectory_count().unwrap(),
    })
}

/// Sessions that exercise every report: names that sort differently
/// under a locale (`Zeta`, `alpha`, `Ärger`), scores with many digits,
/// runs without final scores, a NUL in a name.
fn report_sessions() -> Vec<SessionRecord> {
    (0..24)
        .map(|i| {
            let mut s = session("r", i, 2 + (i as u32 % 3));
            s.agent = ["Zeta", "alpha", "Ärger", "beta-2"][i % 4].into();
            s.turns[0].violations[0].preference =
                ["zz_last", "Concise", "émoji", "json"][i % 4].into();
            s.guidance[0].classifier = ["doom_loop", "Error_streak", "ärger"][i % 3].into();
            if let Some(sc) = &mut s.score {
                sc.total = 1.0 / (i as f64 + 3.0);
                sc.r_proact = 0.1 / (i as f64 + 7.0);
                sc.r_pers = -0.3 / (i as f64 + 11.0);
                sc.final_score = (i % 5 != 0).then(|| 2.0 / (i as f64 + 13.0));
            }
            if i == 7 {
                s.agent = "nul\0agent".into();
            }
            s
        })
        .collect()
}

#[test]
fn reports_are_identical_on_both_backends() {
    let stores: Vec<_> = backends("report")
        .into_iter()
        .map(|(name, loc, keep)| {
            let mut store = Store::connect(&loc).unwrap();
            for s in report_sessions() {
                store.ingest(&s).unwrap();
            }
            // A retry of one session changes nothing.
            store.ingest(&report_sessions()[3]).unwrap();
            (name, store, keep)
        })
        .collect();
    let reports: Vec<_> = stores.iter().map(|(_, s, _)| report_json(s)).collect();
    let (sqlite, rest) = reports.split_first().unwrap();
    for (other, (name, _, _)) in rest.iter().zip(&stores[1..]) {
        assert_eq!(
            serde_json::to_string_pretty(sqlite).unwrap(),
            serde_json::to_string_pretty(other).unwrap(),
            "{name}"
        );
        // And every session loads back the same.
        for s in report_sessions() {
            let a = stores[0].1.load(&s.spec_id, &s.agent, &s.run_id).unwrap();
            let b = stores[1].1.load(&s.spec_id, &s.agent, &s.run_id).unwrap();
            let (a, b) = (a.unwrap().session, b.unwrap().session);
            assert_eq!(a, b, "{name}");
        }
    }
    assert_eq!(sqlite["count"], 24);
}

#[test]
fn a_writer_killed_mid_ingest_leaves_whole_sessions_on_either_backend() {
    for (name, loc, keep) in backends("kill9") {
        let text = match (&loc, &keep) {
            (Location::Sqlite(p), _) => p.display().to_string(),
            (_, Some(schema)) => schema.location_text(),
            _ => unreachable!(),
        };
        drop(Store::connect(&loc).unwrap());
        let mut child = spawn_writer_at(&text, "k", 1_000_000);
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut committed = 0;
        while committed < 15 {
            let line = lines.next().expect("writer output").unwrap();
            committed += usize::from(line.contains("committed "));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let store = Store::connect(&loc).unwrap();
        assert_eq!(store.integrity_check().unwrap(), Ok(()), "{name}");
        let counts = store.counts_by_session().unwrap();
        assert!(counts.len() >= committed, "{name}");
        for (key, c) in counts {
            assert_eq!(c.turns, u64::from(TURNS), "{name}: {key:?}");
            assert_eq!(c.questions, u64::from(TURNS), "{name}: {key:?}");
            assert_eq!(
                (c.tool_calls, c.guidance_fires, c.scores),
                (1, 1, 1),
                "{name}"
            );
        }
    }
}

/// The connection failures, each one clear error, fast, without the
/// password.
mod connection_errors {
    use super::*;

    fn parts(url: &str) -> tokio_postgres::Config {
        url.parse().unwrap()
    }

    fn host_port(url: &str) -> (String, u16) {
        let c = parts(url);
        let host = match &c.get_hosts()[0] {
            tokio_postgres::config::Host::Tcp(h) => h.clone(),
            tokio_postgres::config::Host::Unix(p) => p.display().to_string(),
        };
        (host, c.get_ports().first().copied().unwrap_or(5432))
    }

    fn check(e: &Error, secret: &str, started: Instant) {
        let text = format!("{e} {e:?}");
        assert!(!text.contains(secret), "{text}");
        assert!(started.elapsed() < Duration::from_secs(8), "{text}");
    }

    #[test]
    fn an_unreachable_server_is_one_clear_error() {
        // A port nothing listens on.
        let port = {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let started = Instant::now();
        let loc = Location::parse(&format!(
            "postgresql://u:hunter2-secret@127.0.0.1:{port}/tact?connect_timeout=3"
        ))
        .unwrap();
        let e = Store::connect(&loc).unwrap_err();
        assert!(matches!(e, Error::Unreachable { .. }), "{e:?}");
        check(&e, "hunter2-secret", started);
    }

    #[test]
    fn a_server_that_never_answers_times_out() {
        // Accepts connections (the kernel's backlog) but never speaks.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let started = Instant::now();
        let loc = Location::parse(&format!(
            "host=127.0.0.1 port={port} user=u password=hunter2-secret dbname=tact connect_timeout=1"
        ))
        .unwrap();
        let e = Store::connect(&loc).unwrap_err();
        assert!(
            matches!(e, Error::ConnectTimeout { seconds: 1, .. }),
            "{e:?}"
        );
        check(&e, "hunter2-secret", started);
        drop(listener);
    }

    #[test]
    fn a_wrong_password_a_missing_database_and_a_read_only_role_are_clear_errors() {
        let Some(url) = server_url() else {
            return;
        };
        let (host, port) = host_port(&url);
        let user = parts(&url).get_user().unwrap_or("tact").to_owned();
        let db = parts(&url).get_dbname().unwrap_or("tact").to_owned();

        let started = Instant::now();
        let wrong = format!("postgresql://{user}:wrong-pw-xyz@{host}:{port}/{db}?sslmode=disable");
        let e = Store::connect(&Location::parse(&wrong).unwrap()).unwrap_err();
        assert!(matches!(e, Error::Authentication { .. }), "{e:?}");
        check(&e, "wrong-pw-xyz", started);

        let password = parts(&url)
            .get_password()
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .unwrap_or_default();
        let missing = format!(
            "postgresql://{user}:{password}@{host}:{port}/no_such_db_here?connect_timeout=5"
        );
        let e = Store::connect(&Location::parse(&missing).unwrap()).unwrap_err();
        assert!(matches!(e, Error::NoSuchDatabase { .. }), "{e:?}");
        if !password.is_empty() {
            check(&e, &password, started);
        }

        // A role that may read but not write.
        let schema = PgSchema::new(&url, "readonly");
        {
            let mut store = Store::connect(&schema.location()).unwrap();
            store.ingest(&session("ro", 0, 1)).unwrap();
        }
        let role = format!("tact_ro_{}", std::process::id());
        let made = admin(
            &url,
            &format!(
                "DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN PASSWORD 'ro-pw-123';
                 GRANT USAGE ON SCHEMA {s} TO {role};
                 GRANT SELECT ON ALL TABLES IN SCHEMA {s} TO {role};",
                s = schema.name
            ),
        );
        if made.is_err() {
            let _ = writeln!(
                std::io::stderr(),
                "note: read-only role test skipped: the test role cannot create roles"
            );
            return;
        }
        let ro = format!(
            "postgresql://{role}:ro-pw-123@{host}:{port}/{db}?sslmode=disable&options=-csearch_path%3D{}",
            schema.name
        );
        let loc = Location::parse(&ro).unwrap();
        let e = Store::connect(&loc).unwrap_err();
        assert!(matches!(e, Error::PermissionDenied { .. }), "{e:?}");
        check(&e, "ro-pw-123", started);
        // It may still read (tact report).
        let reader = Store::connect_read_only(&loc).unwrap();
        assert_eq!(reader.trajectory_count().unwrap(), 1);
        drop(reader);
        let _ = admin(
            &url,
            &format!("DROP OWNED BY {role}; DROP ROLE IF EXISTS {role};"),
        );
    }

    #[test]
    fn sslmode_is_honoured() {
        let Some(url) = server_url() else {
            return;
        };
        let Ok(ca) = std::env::var("TACT_TEST_PG_CA") else {
            let _ = writeln!(
                std::io::stderr(),
                "note: sslmode test skipped: TACT_TEST_PG_CA is unset (the server has no TLS)"
            );
            return;
        };
        let c = parts(&url);
        let (_, port) = host_port(&url);
        let user = c.get_user().unwrap_or("tact");
        let db = c.get_dbname().unwrap_or("tact");
        let password = c
            .get_password()
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .unwrap_or_default();
        let schema = PgSchema::new(&url, "tls");
        let at = |host: &str, query: &str| {
            Location::parse(&format!(
                "postgresql://{user}:{password}@{host}:{port}/{db}?{query}&options=-csearch_path%3D{}",
                schema.name
            ))
            .unwrap()
        };
        let ca = ca.replace('/', "%2F");
        // Encryption without a certificate check, as libpq.
        Store::connect(&at("127.0.0.1", "sslmode=require")).unwrap();
        // The chain and the name.
        Store::connect(&at(
            "localhost",
            &format!("sslmode=verify-full&sslrootcert={ca}"),
        ))
        .unwrap();
        // The chain only: the name may differ.
        Store::connect(&at(
            "127.0.0.1",
            &format!("sslmode=verify-ca&sslrootcert={ca}"),
        ))
        .unwrap();
        for (host, query) in [
            ("127.0.0.1", format!("sslmode=verify-full&sslrootcert={ca}")),
            ("localhost", "sslmode=verify-full".to_owned()),
        ] {
            let e = Store::connect(&at(host, &query)).unwrap_err();
            assert!(matches!(e, Error::Tls { .. }), "{host} {query}: {e:?}");
            if !password.is_empty() {
                assert!(!e.to_string().contains(&password));
            }
        }
    }

    #[test]
    fn a_database_without_a_store_is_a_clear_error_for_readers() {
        let Some(url) = server_url() else {
            return;
        };
        let schema = PgSchema::new(&url, "empty");
        let e = Store::connect_read_only(&schema.location()).unwrap_err();
        assert!(matches!(e, Error::NoStore { .. }), "{e:?}");
    }
}

/// A session written in pieces (many batches) is stored as the same
/// session ingested whole; a writer dropped midway (after batches were
/// written) leaves nothing; a replaced session leaves only its own rows.
#[test]
fn a_session_written_in_pieces_is_stored_whole_on_either_backend() {
    for (name, loc, _keep) in backends("pieces") {
        let mut store = Store::connect(&loc).unwrap();
        // 700 turns and 700 calls: several batches of 512 rows.
        let mut whole = session("p", 0, 700);
        whole.tool_calls = (0..700)
            .map(|i| ToolCallRecord {
                position: i,
                step: None,
                name: "shell".into(),
                params: serde_json::json!({"command": format!("ls {i}"), "api_key": "ghp_0123456789abcdefghijABCDEFGHIJklmnopQR"}),
                ok: i % 5 != 0,
                output_chars: u64::from(i),
            })
            .collect();
        store.ingest(&whole).unwrap();
        let expected = store
            .load(&whole.spec_id, &whole.agent, &whole.run_id)
            .unwrap()
            .unwrap()
            .session;
        // The same session under another run id, in pieces.
        let write = |store: &mut Store, run_id: &str| {
            let mut w = store.session();
            for (t, c) in whole.turns.iter().zip(&whole.tool_calls) {
                w.turn(t).unwrap();
                w.tool_call(c).unwrap();
            }
            for g in &whole.guidance {
                w.guidance(g).unwrap();
            }
            let summary = SessionRecord {
                run_id: run_id.into(),
                turns: Vec::new(),
                tool_calls: Vec::new(),
                guidance: Vec::new(),
                ..whole.clone()
            };
            w.finish(&summary).unwrap()
        };
        write(&mut store, "pieces");
        let got = store
            .load(&whole.spec_id, &whole.agent, "pieces")
            .unwrap()
            .unwrap()
            .session;
        assert_eq!(
            SessionRecord {
                run_id: whole.run_id.clone(),
                ..got
            },
            expected,
            "{name}"
        );
        assert!(
            !serde_json::to_string(&expected)
                .unwrap()
                .contains("ghp_0123456789abcdefghijABCDEFGHIJklmnopQR"),
            "{name}: redacted"
        );
        // Written again in pieces: replaced, its rows once.
        write(&mut store, "pieces");
        let counts = store.counts_by_session().unwrap();
        assert_eq!(counts.len(), 2, "{name}");
        for (key, c) in &counts {
            assert_eq!(
                (c.turns, c.tool_calls, c.scores),
                (700, 700, 1),
                "{name}: {key:?}"
            );
        }
        // Dropped after batches were written: nothing of it stays.
        {
            let mut w = store.session();
            for t in &whole.turns {
                w.turn(t).unwrap();
            }
        }
        assert_eq!(store.trajectory_count().unwrap(), 2, "{name}");
        assert_eq!(store.counts_by_session().unwrap(), counts, "{name}");
        assert_eq!(store.integrity_check().unwrap(), Ok(()), "{name}");
        // A failing finish (a turn number twice, in the last batch) leaves
        // nothing either, and the store goes on.
        let mut w = store.session();
        for t in &whole.turns {
            w.turn(t).unwrap();
        }
        let mut bad = whole.clone();
        bad.run_id = "bad".into();
        bad.turns.truncate(1);
        bad.tool_calls.clear();
        assert!(
            matches!(w.finish(&bad), Err(Error::Ingest { .. })),
            "{name}"
        );
        assert!(
            matches!(w.finish(&bad), Err(Error::Ingest { .. })),
            "{name}: finished once"
        );
        drop(w);
        assert_eq!(store.counts_by_session().unwrap(), counts, "{name}");
        store.ingest(&session("p", 3, 2)).unwrap();
        assert_eq!(store.trajectory_count().unwrap(), 3, "{name}");
        assert_eq!(store.integrity_check().unwrap(), Ok(()), "{name}");
    }
}
