//! A host embedding tact's main job through the facade alone: it reads the
//! demo sessions in `fixtures/sessions`, scores, replays guidance and
//! stores them in a temporary database, and prints each (spec, stage)'s
//! ranking from the report's data (the database is removed at the end).
//!
//! ```sh
//! cargo run --example embed_run
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use tact::consensus::Decision;
use tact::job::{Job, Progress};

/// A database path in the temporary folder that no other run uses.
fn temporary_db() -> PathBuf {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    std::env::temp_dir().join(format!("tact-embed-run-{}-{nanos}.db", std::process::id()))
}

/// Removes the database and SQLite's companion files.
fn remove_db(db: &Path) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
}

fn run(sessions: &Path, db: &Path) -> tact::Result<bool> {
    let mut job = Job::builder().db(db).build()?;
    // A host would drive its own progress display from the callback.
    let mut files_read = 0;
    let report = job.run_path(sessions, |p: Progress<'_>| files_read = p.file_number)?;
    for e in &report.errors {
        eprintln!("skipped: {e}");
    }
    for group in &report.groups {
        let stage = group.stage.as_deref().unwrap_or("(none)");
        match &group.ranking {
            Ok(Decision::Weighted { consensus, .. }) => {
                println!("{} / {stage}: best {}", group.spec, consensus.best_agent);
                for s in &consensus.scores {
                    let Some(m) = group.member(&s.agent) else {
                        continue;
                    };
                    let violated: Vec<&str> =
                        m.violations.iter().map(|(p, _)| p.as_str()).collect();
                    println!(
                        "  {}. {:<8} final {:.3}  questions {}  violations [{}]  guidance [{}]",
                        s.rank,
                        s.agent,
                        s.final_score,
                        m.questions,
                        violated.join(", "),
                        m.guidance.join(", ")
                    );
                }
            }
            Ok(Decision::Legacy { consensus, .. }) => {
                println!(
                    "{} / {stage}: legacy consensus, {}",
                    group.spec,
                    consensus.status.as_str()
                );
            }
            Ok(other) => println!(
                "{} / {stage}:\n{}",
                group.spec,
                tact::render::decision(other)
            ),
            Err(e) => println!("{} / {stage}: no ranking: {e}", group.spec),
        }
    }
    println!(
        "{} sessions from {files_read} files stored in {} ({} run ids), {} skipped",
        report.stored(),
        report.db.display(),
        report.stored(),
        report.skipped()
    );
    Ok(report.is_clean())
}

fn main() -> std::process::ExitCode {
    let sessions = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/sessions");
    let db = temporary_db();
    let outcome = run(&sessions, &db);
    remove_db(&db);
    match outcome {
        Ok(true) => std::process::ExitCode::SUCCESS,
        Ok(false) => std::process::ExitCode::from(1),
        Err(e) => {
            let mut message = e.to_string();
            let mut cause = std::error::Error::source(&e);
            while let Some(c) = cause {
                message.push_str(&format!(": {c}"));
                cause = c.source();
            }
            eprintln!("error: {message}");
            std::process::ExitCode::from(2)
        }
    }
}
