//! `cargo xtask startup`: what one call of the `tact` binary costs a host
//! that runs it per question (a shell hook, an editor plugin, an agent
//! written in another language): the wall time of each one-question
//! command, from process start to exit, and its peak memory.
//!
//! Each command runs `--runs` times after two warm-up runs, and with
//! `--base` the two binaries alternate run by run, so a load that comes and
//! goes on the machine falls on both alike. Wall time is the median and
//! the 90th percentile over the runs; peak memory is the resident set's
//! high-water mark of one run, read by GNU time (`/usr/bin/time -f %M`)
//! when it is installed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// One command measured: a name, its arguments and what it reads on stdin.
struct Probe {
    name: &'static str,
    args: Vec<String>,
    stdin: Option<&'static str>,
}

/// The commands measured, against the repository at `root`.
fn probes(root: &Path) -> Vec<Probe> {
    let fixture = |rel: &str| root.join(rel).display().to_string();
    let own = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    vec![
        Probe {
            name: "effort",
            args: own(&["effort", "Should I use Postgres or MySQL?"]),
            stdin: None,
        },
        Probe {
            name: "route",
            args: own(&["route", "How many API calls did I make this month?"]),
            stdin: None,
        },
        Probe {
            name: "granularity",
            args: own(&["granularity", "What is the main argument of the paper?"]),
            stdin: None,
        },
        Probe {
            name: "questions",
            args: own(&["questions"]),
            stdin: Some(
                "I looked at the failing export. Should I parallelize the dumps, or switch to Parquet? \
                 Also, which bucket should the files go to?",
            ),
        },
        Probe {
            name: "guide (3-record Claude Code log)",
            args: vec![
                "guide".to_owned(),
                fixture("fixtures/logs/claude-code/rejected-tool-calls.jsonl"),
            ],
            stdin: None,
        },
        Probe {
            name: "watch --snapshot (the same log)",
            args: vec![
                "watch".to_owned(),
                "--snapshot".to_owned(),
                "--size".to_owned(),
                "120x40".to_owned(),
                fixture("fixtures/logs/claude-code/rejected-tool-calls.jsonl"),
            ],
            stdin: None,
        },
    ]
}

/// Starts `command` (the probe's binary, or GNU time around it) with the
/// probe's arguments and writes its stdin.
fn start(mut command: Command, probe: &Probe, stderr: Stdio) -> Result<std::process::Child> {
    let mut child = command
        .args(&probe.args)
        .env_remove("TACT_LOG")
        .stdin(if probe.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .with_context(|| format!("cannot run {}", probe.name))?;
    if let (Some(text), Some(mut pipe)) = (probe.stdin, child.stdin.take()) {
        pipe.write_all(text.as_bytes())?;
    }
    Ok(child)
}

/// Runs `bin` with the probe's arguments once; the wall time.
fn once(bin: &Path, probe: &Probe) -> Result<Duration> {
    let start_at = Instant::now();
    let mut child = start(Command::new(bin), probe, Stdio::null())?;
    let status = child.wait()?;
    let took = start_at.elapsed();
    // `guide` exits 1 when guidance fires; only a crash or a usage error
    // (2) is a failed probe.
    if status.code().is_none_or(|c| c > 1) {
        bail!("{} {} failed: {status}", bin.display(), probe.name);
    }
    Ok(took)
}

/// Peak resident memory of one run, in KiB, if GNU time is installed.
fn peak_kib(bin: &Path, probe: &Probe) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        return None;
    }
    let mut command = Command::new(time);
    command.args(["-f", "%M", "--"]).arg(bin);
    let out = start(command, probe, Stdio::piped())
        .ok()?
        .wait_with_output()
        .ok()?;
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()?
        .trim()
        .parse()
        .ok()
}

/// The `q` quantile (0..=1) of sorted durations, in milliseconds.
fn quantile_ms(sorted: &[Duration], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted
        .get(i.min(sorted.len() - 1))
        .map_or(f64::NAN, |d| d.as_secs_f64() * 1e3)
}

/// What was measured of one binary on one probe.
struct Measured {
    median_ms: f64,
    p90_ms: f64,
    peak_kib: Option<u64>,
}

fn cell(m: &Measured) -> String {
    let mem = m.peak_kib.map_or_else(
        || "-".to_owned(),
        |k| format!("{:.1} MB", k as f64 / 1024.0),
    );
    format!("{:.2} ms ({:.2}) | {mem}", m.median_ms, m.p90_ms)
}

/// Measures every probe with `bin` (and `base`, alternating) and returns
/// the Markdown table.
pub fn run(root: &Path, bin: &Path, base: Option<&PathBuf>, runs: usize) -> Result<String> {
    if runs == 0 {
        bail!("--runs must be at least 1");
    }
    let mut bins: Vec<&Path> = base.map(PathBuf::as_path).into_iter().collect();
    bins.push(bin);
    let mut out = String::new();
    out.push_str("| command |");
    for (i, _) in bins.iter().enumerate() {
        let who = if i + 1 == bins.len() {
            "this build"
        } else {
            "base"
        };
        out.push_str(&format!(" {who}: median (p90) | {who}: peak memory |"));
    }
    out.push('\n');
    out.push_str("| --- |");
    for _ in &bins {
        out.push_str(" --- | --- |");
    }
    out.push('\n');
    for probe in probes(root) {
        for b in &bins {
            for _ in 0..2 {
                once(b, &probe)?;
            }
        }
        let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(runs); bins.len()];
        for _ in 0..runs {
            for (b, t) in bins.iter().zip(times.iter_mut()) {
                t.push(once(b, &probe)?);
            }
        }
        out.push_str(&format!("| `{}` |", probe.name));
        for (b, mut t) in bins.iter().zip(times) {
            t.sort();
            let m = Measured {
                median_ms: quantile_ms(&t, 0.5),
                p90_ms: quantile_ms(&t, 0.9),
                peak_kib: peak_kib(b, &probe),
            };
            out.push_str(&format!(" {} |", cell(&m)));
        }
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_of_sorted_durations() {
        let d: Vec<Duration> = (1..=10).map(Duration::from_millis).collect();
        assert_eq!(quantile_ms(&d, 0.5), 6.0);
        assert_eq!(quantile_ms(&d, 0.9), 9.0);
        assert!(quantile_ms(&[], 0.5).is_nan());
    }
}
