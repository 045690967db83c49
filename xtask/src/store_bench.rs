//! `cargo xtask store-bench`: the trajectory store on both backends, one
//! machine, one run: sessions ingested per second by 1, 4 and 8 writer
//! processes (this binary re-executed as a writer), and `tact run` over
//! 2,500, 5,000 and 10,000 sessions (time and peak memory, by
//! `/usr/bin/time`). `--fault`: the PostgreSQL server stopped with
//! `pg_ctl stop -m immediate` in the middle of an 8-writer ingest and
//! started again; every session must be whole or absent, and a rerun of
//! the same ingest completes the rest with no duplicate.
//!
//! PostgreSQL comes from `--pg` or `TACT_TEST_PG_URL`; the fault test also
//! needs `TACT_TEST_PG_DATA` and `TACT_TEST_PG_BIN` (`.ci/postgres.sh`
//! exports all three).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use tact_trajectory_store::{
    GuidanceFireRecord, Location, QuestionRecord, ScoreRecord, SessionRecord, Severity, Store,
    ToolCallRecord, TurnRecord, ViolationRecord,
};
use tact_types::EffortLevel;

/// Turns per benchmark session.
const TURNS: u32 = 20;

/// Arguments of `cargo xtask store-bench`.
#[derive(clap::Args)]
pub struct StoreBenchArgs {
    /// The PostgreSQL server (default: TACT_TEST_PG_URL).
    #[arg(long)]
    pg: Option<String>,
    /// Sessions per ingest measurement (split among the writers).
    #[arg(long, default_value_t = 800)]
    sessions: usize,
    /// The `tact` binary for the `tact run` part (default:
    /// target/release/tact, else target/debug/tact).
    #[arg(long)]
    tact: Option<PathBuf>,
    /// Skip the `tact run` part.
    #[arg(long)]
    no_run: bool,
    /// The fault test instead of the benchmark.
    #[arg(long)]
    fault: bool,
    /// Internal: act as one writer process (`LOCATION|PREFIX|COUNT`).
    #[arg(long, hide = true)]
    writer: Option<String>,
}

/// Runs `cargo xtask store-bench`.
pub fn run(args: &StoreBenchArgs, root: &Path) -> Result<bool> {
    if let Some(spec) = &args.writer {
        return writer(spec).map(|()| true);
    }
    let url = args
        .pg
        .clone()
        .or_else(|| std::env::var("TACT_TEST_PG_URL").ok())
        .context("no PostgreSQL server: give --pg URL or TACT_TEST_PG_URL (source .ci/postgres.sh && tact_pg_start)")?;
    if args.fault {
        return fault(&url);
    }
    println!("| backend | writers | sessions | seconds | sessions/s |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    let tmp = std::env::temp_dir().join(format!("tact-store-bench-{}", std::process::id()));
    std::fs::create_dir_all(&tmp)?;
    for backend in ["sqlite", "postgres"] {
        for writers in [1, 4, 8] {
            let (location, _schema) = fresh(backend, &url, &tmp, &format!("w{writers}"))?;
            drop(Store::connect(&Location::parse(&location)?)?);
            let per = args.sessions / writers;
            let started = Instant::now();
            let children: Vec<Child> = (0..writers)
                .map(|w| spawn(&location, &format!("w{w}"), per, false))
                .collect::<Result<_>>()?;
            for child in children {
                let out = child.wait_with_output()?;
                if !out.status.success() {
                    bail!("a writer failed: {}", String::from_utf8_lossy(&out.stderr));
                }
            }
            let secs = started.elapsed().as_secs_f64();
            let n = per * writers;
            println!(
                "| {backend} | {writers} | {n} | {secs:.2} | {:.0} |",
                n as f64 / secs
            );
        }
    }
    if !args.no_run {
        let tact = args.tact.clone().unwrap_or_else(|| {
            let release = root.join("target/release/tact");
            if release.exists() {
                release
            } else {
                root.join("target/debug/tact")
            }
        });
        println!("\n`tact run` ({}):\n", tact.display());
        println!("| backend | sessions | seconds | sessions/s | peak RSS (MB) |");
        println!("| --- | ---: | ---: | ---: | ---: |");
        for n in [2_500, 5_000, 10_000] {
            let file = tmp.join(format!("sessions-{n}.jsonl"));
            write_sessions(root, &file, n)?;
            for backend in ["sqlite", "postgres"] {
                let (location, _schema) = fresh(backend, &url, &tmp, &format!("run{n}"))?;
                let (secs, rss_kb) = time_tact(&tact, &file, &location)?;
                println!(
                    "| {backend} | {n} | {secs:.2} | {:.0} | {:.1} |",
                    n as f64 / secs,
                    rss_kb as f64 / 1024.0
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(true)
}

/// A fresh store of `backend`: a new SQLite file, or a new schema on the
/// server (dropped when the guard goes).
fn fresh(backend: &str, url: &str, tmp: &Path, name: &str) -> Result<(String, Option<Schema>)> {
    if backend == "sqlite" {
        let path = tmp.join(format!("{name}.db"));
        for ext in ["", "-wal", "-shm"] {
            let mut p = path.clone().into_os_string();
            p.push(ext);
            let _ = std::fs::remove_file(p);
        }
        return Ok((path.display().to_string(), None));
    }
    let schema = Schema::new(url, &format!("bench_{}_{name}", std::process::id()))?;
    Ok((schema.location(), Some(schema)))
}

/// A schema of its own on the server.
struct Schema {
    url: String,
    name: String,
}

impl Schema {
    fn new(url: &str, name: &str) -> Result<Self> {
        sql(
            url,
            &format!("DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name};"),
        )?;
        Ok(Schema {
            url: url.to_owned(),
            name: name.to_owned(),
        })
    }

    fn location(&self) -> String {
        let sep = if self.url.contains('?') { '&' } else { '?' };
        format!("{}{sep}options=-csearch_path%3D{}", self.url, self.name)
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        let _ = sql(
            &self.url,
            &format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name),
        );
    }
}

fn sql(url: &str, sql: &str) -> Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
        let task = tokio::spawn(conn);
        let done = client.batch_execute(sql).await;
        drop(client);
        let _ = task.await;
        done
    })?;
    Ok(())
}

/// One benchmark session: `TURNS` turns with a question and a violation
/// each, tool calls, guidance, a score.
fn session(prefix: &str, i: usize) -> SessionRecord {
    SessionRecord {
        spec_id: format!("SPEC-{}", i % 50),
        stage: Some(["plan", "implement", "validate"][i % 3].into()),
        agent: format!("agent-{}", i % 4),
        run_id: format!("{prefix}-run-{i}"),
        created_at: Some(1_700_000_000 + i64::try_from(i).unwrap_or(0)),
        turns: (1..=TURNS)
            .map(|n| TurnRecord {
                number: n,
                timestamp: Some(1_700_000_000 + i64::from(n)),
                prompt: format!("Turn {n}: add a cache to the user service, please."),
                response: format!(
                    "Turn {n}: I read the service. Should the cache be Redis or in-process? \
                     I would start with an in-process LRU of 10,000 entries."
                ),
                token_count: Some(400 + n),
                latency_ms: Some(900),
                questions: vec![QuestionRecord {
                    text: "Should the cache be Redis or in-process?".into(),
                    effort: EffortLevel::Low,
                    confidence: 0.91,
                    reasons: vec![],
                }],
                violations: vec![ViolationRecord {
                    preference: "concise_question".into(),
                    expected: "one short sentence".into(),
                    actual: "two sentences".into(),
                    severity: Severity::Low,
                    span: Some((0, 40)),
                }],
            })
            .collect(),
        tool_calls: (0..10)
            .map(|k| ToolCallRecord {
                position: k,
                step: Some(u64::from(k)),
                name: "read_file".into(),
                params: serde_json::json!({"path": format!("src/service/{k}.rs")}),
                ok: true,
                output_chars: 2_000,
            })
            .collect(),
        guidance: vec![GuidanceFireRecord {
            position: 4,
            classifier: "doom_loop".into(),
            confidence: 0.8,
            reason: "read_file x4 on the same path".into(),
        }],
        score: Some(ScoreRecord {
            r_prod: 0.9,
            r_proact: 0.05,
            r_pers: -0.05,
            total: 0.9,
            profile: "spec".into(),
            technical_weight: 0.7,
            interaction_weight: 0.3,
            final_score: Some(0.63),
        }),
    }
}

fn spawn(location: &str, prefix: &str, count: usize, piped: bool) -> Result<Child> {
    let mut cmd = Command::new(std::env::current_exe()?);
    cmd.args(["store-bench", "--writer"])
        .arg(format!("{location}|{prefix}|{count}"))
        .stderr(Stdio::piped());
    cmd.stdout(if piped { Stdio::piped() } else { Stdio::null() });
    Ok(cmd.spawn()?)
}

/// The writer process: `count` sessions, one transaction each, a line
/// `committed RUN` after each commit.
fn writer(spec: &str) -> Result<()> {
    let mut parts = spec.split('|');
    let (Some(location), Some(prefix), Some(count)) = (parts.next(), parts.next(), parts.next())
    else {
        bail!("--writer LOCATION|PREFIX|COUNT");
    };
    let count: usize = count.parse()?;
    let mut store = Store::connect(&Location::parse(location)?)?;
    let stdout = std::io::stdout();
    for i in 0..count {
        let s = session(prefix, i);
        store.ingest(&s)?;
        let mut out = stdout.lock();
        writeln!(out, "committed {}", s.run_id)?;
        out.flush()?;
    }
    Ok(())
}

/// `count` sessions of the demo fixture as one `.jsonl` file, each with
/// its own run id, the fixture's agents once per spec.
fn write_sessions(root: &Path, file: &Path, count: usize) -> Result<()> {
    let demo = std::fs::read_to_string(root.join("fixtures/sessions/demo/migrate.jsonl"))?;
    let lines: Vec<serde_json::Value> = demo
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(file)?);
    for i in 0..count {
        let mut s = lines[i % lines.len()].clone();
        s["run_id"] = format!("bench-{i}").into();
        s["spec_id"] = format!("SPEC-BENCH-{}", i / lines.len()).into();
        serde_json::to_writer(&mut out, &s)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

/// Runs `tact run FILE --db LOCATION` under `/usr/bin/time`: (seconds,
/// peak RSS in KB).
fn time_tact(tact: &Path, file: &Path, location: &str) -> Result<(f64, u64)> {
    let out = Command::new("/usr/bin/time")
        .args(["-f", "tact-bench %e %M"])
        .arg(tact)
        .arg("run")
        .arg(file)
        .arg("--db")
        .arg(location)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .context("/usr/bin/time (apt-get install time)")?;
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find_map(|l| l.strip_prefix("tact-bench "))
        .with_context(|| format!("tact run failed: {err}"))?;
    let mut it = line.split_whitespace();
    let secs: f64 = it.next().unwrap_or("0").parse()?;
    let kb: u64 = it.next().unwrap_or("0").parse()?;
    if !out.status.success() {
        bail!("tact run failed: {err}");
    }
    Ok((secs, kb))
}

/// Runs `pg_ctl` on the test server (as `postgres` when we are root).
fn pg_ctl(args: &[&str]) -> Result<()> {
    let bin = std::env::var("TACT_TEST_PG_BIN").context("TACT_TEST_PG_BIN")?;
    let data = std::env::var("TACT_TEST_PG_DATA").context("TACT_TEST_PG_DATA")?;
    let pg_ctl = format!("{bin}/pg_ctl");
    let root = Command::new("id").arg("-u").output()?.stdout == b"0\n";
    let mut cmd = if root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--", &pg_ctl]);
        c
    } else {
        Command::new(&pg_ctl)
    };
    let log = Path::new(&data)
        .parent()
        .map_or_else(|| PathBuf::from("server.log"), |d| d.join("server.log"));
    let status = cmd
        .arg("-D")
        .arg(&data)
        .arg("-l")
        .arg(log)
        .args(args)
        .stdout(Stdio::null())
        .status()?;
    if !status.success() {
        bail!("pg_ctl {args:?} failed");
    }
    Ok(())
}

/// The fault test (see the module docs).
fn fault(url: &str) -> Result<bool> {
    const WRITERS: usize = 8;
    const PER: usize = 150;
    let schema = Schema::new(url, &format!("fault_{}", std::process::id()))?;
    let location = schema.location();
    drop(Store::connect(&Location::parse(&location)?)?);
    let started = Instant::now();
    let mut children: Vec<Child> = (0..WRITERS)
        .map(|w| spawn(&location, &format!("f{w}"), PER, true))
        .collect::<Result<_>>()?;
    // Wait until the writers have committed some sessions, then stop the
    // server mid-ingest.
    let mut first = BufReader::new(children[0].stdout.take().context("stdout")?).lines();
    for _ in 0..20 {
        first.next().context("writer 0 ended early")??;
    }
    pg_ctl(&["stop", "-m", "immediate"])?;
    let stopped_at = started.elapsed();
    drop(first);
    let mut failed = 0;
    for child in children {
        let out = child.wait_with_output()?;
        failed += usize::from(!out.status.success());
    }
    pg_ctl(&["start", "-w", "-t", "60"])?;
    let store = connect_retry(&location)?;
    let after_crash = store.counts_by_session()?;
    let whole = |c: &tact_trajectory_store::RowCounts| {
        (
            c.turns,
            c.questions,
            c.violations,
            c.tool_calls,
            c.guidance_fires,
            c.scores,
        ) == (
            u64::from(TURNS),
            u64::from(TURNS),
            u64::from(TURNS),
            10,
            1,
            1,
        )
    };
    let partial = after_crash.iter().filter(|(_, c)| !whole(c)).count();
    println!(
        "server stopped (-m immediate) {:.2} s into an ingest of {WRITERS} writers x {PER} sessions; \
         {failed} of {WRITERS} writers failed; after restart: {} sessions stored, {partial} partial",
        stopped_at.as_secs_f64(),
        after_crash.len()
    );
    drop(store);
    // The same ingest again: the rest is stored, nothing twice.
    let children: Vec<Child> = (0..WRITERS)
        .map(|w| spawn(&location, &format!("f{w}"), PER, false))
        .collect::<Result<_>>()?;
    for child in children {
        let out = child.wait_with_output()?;
        if !out.status.success() {
            bail!(
                "a rerun writer failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let store = Store::connect(&Location::parse(&location)?)?;
    let after = store.counts_by_session()?;
    let partial_after = after.iter().filter(|(_, c)| !whole(c)).count();
    let mut keys: Vec<_> = after
        .iter()
        .map(|(k, _)| (k.spec_id.clone(), k.agent.clone(), k.run_id.clone()))
        .collect();
    keys.sort();
    keys.dedup();
    println!(
        "rerun: {} sessions stored (expected {}), {} distinct keys, {partial_after} partial; integrity {:?}",
        after.len(),
        WRITERS * PER,
        keys.len(),
        store.integrity_check()?
    );
    Ok(partial == 0
        && partial_after == 0
        && after.len() == WRITERS * PER
        && keys.len() == after.len()
        && store.integrity_check()?.is_ok())
}

fn connect_retry(location: &str) -> Result<Store> {
    let loc = Location::parse(location)?;
    let mut last = None;
    for _ in 0..30 {
        match Store::connect(&loc) {
            Ok(s) => return Ok(s),
            Err(e) => last = Some(e),
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    Err(last.map_or_else(|| anyhow::anyhow!("cannot reconnect"), Into::into))
}
