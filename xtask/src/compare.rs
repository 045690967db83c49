//! `cargo xtask compare A.json B.json`: the metric differences between two
//! saved eval runs (accuracy, macro-F1, per-class F1, p50 latency, the
//! hybrid's deferral rate), matched by task, dataset and strategy.

use std::fmt::Write;
use std::path::Path;

use anyhow::{Context, Result};

use crate::metrics::Run;

/// Reads runs from a file: a JSON array of runs (`eval --save`), one run
/// object (`eval --json`), or one run per line.
pub fn load(path: &Path) -> Result<Vec<Run>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        return serde_json::from_str(trimmed)
            .with_context(|| format!("{}: not a list of eval runs", path.display()));
    }
    let mut runs = Vec::new();
    let single: Result<Run, _> = serde_json::from_str(trimmed);
    if let Ok(run) = single {
        return Ok(vec![run]);
    }
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let run: Run = serde_json::from_str(line)
            .with_context(|| format!("{}:{}: not an eval run", path.display(), i + 1))?;
        runs.push(run);
    }
    Ok(runs)
}

/// Compares the runs of two files and renders the differences.
pub fn run(a: &Path, b: &Path) -> Result<String> {
    Ok(render(&load(a)?, &load(b)?, a, b))
}

fn signed(x: f64) -> String {
    if x.abs() < 5e-4 {
        "=".to_owned()
    } else {
        format!("{x:+.3}")
    }
}

/// Renders the comparison of runs `a` (baseline) and `b`.
pub fn render(a: &[Run], b: &[Run], a_name: &Path, b_name: &Path) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "A = {}\nB = {}", a_name.display(), b_name.display());
    let key = |r: &Run| (r.task.clone(), r.dataset.clone(), r.strategy.clone());
    for rb in b {
        let Some(ra) = a.iter().find(|ra| key(ra) == key(rb)) else {
            let _ = writeln!(
                out,
                "\n{} / {} on {}: only in B (macro-F1 {:.3})",
                rb.task, rb.strategy, rb.dataset, rb.macro_f1
            );
            continue;
        };
        let _ = writeln!(
            out,
            "\n{} / {} on {} (n {} -> {})",
            rb.task, rb.strategy, rb.dataset, ra.n, rb.n
        );
        let _ = writeln!(
            out,
            "  {:<16} {:>9} {:>9} {:>9}",
            "metric", "A", "B", "B - A"
        );
        let mut line = |name: &str, x: f64, y: f64| {
            let _ = writeln!(out, "  {name:<16} {x:>9.3} {y:>9.3} {:>9}", signed(y - x));
        };
        line("accuracy", ra.accuracy, rb.accuracy);
        line("macro-F1", ra.macro_f1, rb.macro_f1);
        for (label, mb) in &rb.per_class.0 {
            let fa = ra
                .per_class
                .0
                .iter()
                .find(|(l, _)| l == label)
                .map_or(0.0, |(_, m)| m.f1);
            line(&format!("F1 {label}"), fa, mb.f1);
        }
        if let (Some(x), Some(y)) = (ra.deferred, rb.deferred) {
            line("deferred", x, y);
        }
        let (pa, pb) = (ra.latency_ns.p50, rb.latency_ns.p50);
        if pa > 0 && pb > 0 {
            let _ = writeln!(
                out,
                "  {:<16} {:>9} {:>9} {:>8.0}%",
                "p50 ns",
                pa,
                pb,
                (pb as f64 / pa as f64 - 1.0) * 100.0
            );
        }
    }
    for ra in a.iter().filter(|ra| !b.iter().any(|rb| key(rb) == key(ra))) {
        let _ = writeln!(
            out,
            "\n{} / {} on {}: only in A (macro-F1 {:.3})",
            ra.task, ra.strategy, ra.dataset, ra.macro_f1
        );
    }
    out
}
