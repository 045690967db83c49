//! `--db` as a URL: a PostgreSQL location never becomes folders and its
//! password is never printed; `tact report` reads PostgreSQL as it reads
//! SQLite (the same text); `tact store copy` moves a history both ways,
//! idempotent. The server is `TACT_TEST_PG_URL` (`.ci/run` starts one);
//! without it the server tests say so once and pass, except under
//! `CI=true`, where they fail.

use std::io::Write as _;
use std::net::TcpListener;

use super::{repo, scratch, tact, text};

fn server_url() -> Option<String> {
    match std::env::var("TACT_TEST_PG_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI=true but TACT_TEST_PG_URL is unset: .ci/run must start PostgreSQL"
            );
            static NOTE: std::sync::Once = std::sync::Once::new();
            // Straight to stderr: the harness's capture would hide it.
            NOTE.call_once(|| {
                let _ = writeln!(
                    std::io::stderr(),
                    "note: PostgreSQL CLI tests skipped: TACT_TEST_PG_URL is unset"
                );
            });
            None
        }
    }
}

fn sql(url: &str, sql: &str) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .unwrap();
        let task = tokio::spawn(conn);
        client.batch_execute(sql).await.unwrap();
        drop(client);
        let _ = task.await;
    });
}

/// A fresh schema's URL (the schema is dropped first if a run left it).
fn schema_url(url: &str, name: &str) -> String {
    let name = format!("cli_{}_{name}", std::process::id());
    sql(
        url,
        &format!("DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name};"),
    );
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}options=-csearch_path%3D{name}")
}

#[test]
fn a_postgres_url_never_becomes_folders_nor_prints_its_password() {
    let dir = scratch("pg-url");
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    for db in [
        format!("postgres://ci:pw-s3cret-9@127.0.0.1:{port}/tact?connect_timeout=3"),
        format!("host=127.0.0.1 port={port} user=ci password=pw-s3cret-9 dbname=tact"),
        "mysql://ci:pw-s3cret-9@127.0.0.1/tact".to_owned(),
    ] {
        for args in [
            vec![
                "run",
                repo("fixtures/sessions").to_str().unwrap(),
                "--db",
                &db,
            ],
            vec!["report", "--db", &db],
        ] {
            let o = std::process::Command::new(env!("CARGO_BIN_EXE_tact"))
                .args(&args)
                .current_dir(&dir)
                .env_remove("TACT_LOG")
                .env_remove("TACT_DB")
                .output()
                .unwrap();
            let (out, err) = (text(&o.stdout), text(&o.stderr));
            assert_eq!(o.status.code(), Some(2), "{args:?}: {out}{err}");
            assert!(!out.contains("s3cret") && !err.contains("s3cret"), "{err}");
            assert_eq!(err.lines().count(), 1, "one clear error: {err}");
            assert!(
                err.contains("cannot reach the PostgreSQL server")
                    || err.contains("unsupported database URL scheme"),
                "{err}"
            );
        }
    }
    // Nothing was created in the working folder.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}

#[test]
fn reports_read_postgres_as_sqlite_and_store_copy_moves_history_both_ways() {
    let Some(url) = server_url() else {
        return;
    };
    let dir = scratch("pg-report");
    let sqlite = dir.join("tact.db");
    let sqlite = sqlite.to_str().unwrap();
    let pg = schema_url(&url, "report");
    let sessions = repo("fixtures/sessions");
    for db in [sqlite, pg.as_str()] {
        let o = tact(&["run", sessions.to_str().unwrap(), "--db", db]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let password = url.split(':').nth(2).and_then(|s| s.split('@').next());
        if let Some(p) = password {
            assert!(!text(&o.stdout).contains(p) && !text(&o.stderr).contains(p));
        }
    }
    let report = |db: &str| {
        let o = tact(&["report", "--db", db]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    let from_sqlite = report(sqlite);
    assert_eq!(from_sqlite, report(&pg));
    // TACT_DB names the store too.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_tact"))
        .arg("report")
        .env("TACT_DB", &pg)
        .output()
        .unwrap();
    assert_eq!(text(&o.stdout), from_sqlite);

    // SQLite into an empty PostgreSQL schema, twice (idempotent), and back.
    let team = schema_url(&url, "copy");
    for _ in 0..2 {
        let o = tact(&["store", "copy", sqlite, &team]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert!(text(&o.stdout).contains("verified:"), "{}", text(&o.stdout));
    }
    assert_eq!(report(&team), from_sqlite);
    let back = dir.join("back/tact.db");
    let o = tact(&["store", "copy", &team, back.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(report(back.to_str().unwrap()), from_sqlite);
}

#[test]
fn a_damaged_database_is_refused_before_writing() {
    let dir = scratch("damaged");
    let db = dir.join("tact.db");
    let db_text = db.to_str().unwrap();
    let sessions = repo("fixtures/sessions");
    let o = tact(&["run", sessions.to_str().unwrap(), "--db", db_text]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // Garbage over the table pages (the header, page 1, stays readable).
    let mut bytes = std::fs::read(&db).unwrap();
    assert!(bytes.len() > 3 * 4096, "{}", bytes.len());
    for b in &mut bytes[2 * 4096..3 * 4096] {
        *b = 0xA5;
    }
    std::fs::write(&db, &bytes).unwrap();
    let o = tact(&["run", sessions.to_str().unwrap(), "--db", db_text]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("the database is damaged"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // Nothing was written: the file is as we left it.
    assert_eq!(std::fs::read(&db).unwrap(), bytes);
}
