//! Where the trajectory store lives (`--db`, then `TACT_DB`, then the
//! configuration's `[store] url`, then `tact.db`), and `tact store copy
//! FROM TO`: a history moved between backends (a host's SQLite file into
//! the team's PostgreSQL database, and back), idempotent (sessions are
//! stored by their key), with a progress bar, verified by row counts.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tact::store::{Location, RowCounts, Store};

/// The default database file.
pub const DEFAULT_DB: &str = "tact.db";

/// The store's location: `--db`, else `TACT_DB`, else `[store] url`, else
/// `tact.db`.
pub fn location(
    flag: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
    config_url: Option<&str>,
) -> Result<Location> {
    let text = flag
        .map(str::to_owned)
        .or_else(|| env("TACT_DB").filter(|v| !v.is_empty()))
        .or_else(|| config_url.map(str::to_owned))
        .unwrap_or_else(|| DEFAULT_DB.to_owned());
    Ok(Location::parse(&text)?)
}

/// Opens a store for reading: a SQLite file must exist (`tact report`
/// never creates one).
pub fn open_for_reading(location: &Location) -> Result<Store> {
    if let Location::Sqlite(path) = location
        && !path.exists()
    {
        bail!(
            "{}: no such database (run `tact run PATH --db {}` first)",
            path.display(),
            path.display()
        );
    }
    Ok(Store::connect_read_only(location)?)
}

/// Opens a store for writing, creating a SQLite file's folder.
pub fn open_for_writing(location: &Location) -> Result<Store> {
    if let Location::Sqlite(path) = location
        && let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
    {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    Ok(Store::connect(location)?)
}

/// Arguments of `tact store`.
#[derive(clap::Args, Debug)]
pub struct StoreArgs {
    #[command(subcommand)]
    command: StoreCommand,
}

#[derive(clap::Subcommand, Debug)]
enum StoreCommand {
    /// Copy every session of one store into another (a SQLite file into
    /// a PostgreSQL database, or back): idempotent, a session already in
    /// TO is replaced by FROM's; the row counts are verified at the end.
    Copy(CopyArgs),
}

/// Arguments of `tact store copy`.
#[derive(clap::Args, Debug)]
struct CopyArgs {
    /// The store to read: a path, sqlite://PATH or a PostgreSQL URL.
    from: String,
    /// The store to write (created if a SQLite file; a PostgreSQL
    /// database must exist).
    to: String,
}

/// Sessions read per page of the source.
const PAGE: usize = 500;

/// Runs `tact store`.
pub fn run(args: &StoreArgs, out: &mut impl Write) -> Result<()> {
    match &args.command {
        StoreCommand::Copy(copy) => run_copy(copy, out),
    }
}

fn run_copy(args: &CopyArgs, out: &mut impl Write) -> Result<()> {
    let from = Location::parse(&args.from)?;
    let to = Location::parse(&args.to)?;
    let src = open_for_reading(&from)?;
    let mut dst = open_for_writing(&to)?;
    let total = src.trajectory_count()?;
    let pb = if std::io::stderr().is_terminal() {
        ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} sessions {per_sec} {eta}")
    {
        pb.set_style(style);
    }
    let mut last = 0;
    let mut copied = 0u64;
    loop {
        let keys = src.keys_after(last, PAGE)?;
        let Some(tail) = keys.last() else {
            break;
        };
        last = tail.id;
        for key in &keys {
            let Some(stored) = src.load(&key.spec_id, &key.agent, &key.run_id)? else {
                continue; // deleted while we read
            };
            dst.ingest(&stored.session).with_context(|| {
                format!(
                    "cannot copy session {}/{}/{} into {to}",
                    key.spec_id, key.agent, key.run_id
                )
            })?;
            copied += 1;
            pb.inc(1);
        }
    }
    pb.finish_and_clear();
    // Verify: every session of FROM is in TO with the same rows per table.
    let expected = src.counts_by_session()?;
    let found: HashMap<(String, String, String), RowCounts> = dst
        .counts_by_session()?
        .into_iter()
        .map(|(k, c)| ((k.spec_id, k.agent, k.run_id), c))
        .collect();
    let mut sum = RowCounts::default();
    for (key, counts) in &expected {
        let at = (key.spec_id.clone(), key.agent.clone(), key.run_id.clone());
        match found.get(&at) {
            Some(c) if c == counts => sum += *counts,
            Some(c) => bail!(
                "verification failed: session {}/{}/{} has {c} in {to} but {counts} in {from}",
                key.spec_id,
                key.agent,
                key.run_id
            ),
            None => bail!(
                "verification failed: session {}/{}/{} is missing from {to}",
                key.spec_id,
                key.agent,
                key.run_id
            ),
        }
    }
    writeln!(
        out,
        "copied {copied} sessions from {from} to {to}\nverified: {sum} (the same in both)"
    )?;
    Ok(())
}
