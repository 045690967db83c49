//! Text rendering of eval runs: a summary table per task (strategies side
//! by side), then each run's per-class table and confusion matrix.

use std::fmt::Write;

use crate::metrics::Run;

/// Appends the per-group table of `--group FIELD` (nothing without groups).
pub fn render_groups(out: &mut String, groups: &[crate::metrics::GroupRun]) {
    let rows: Vec<(&str, usize, Vec<f64>)> = groups
        .iter()
        .map(|g| (g.group.as_str(), g.n, vec![g.accuracy, g.macro_f1]))
        .collect();
    group_table(out, &["accuracy", "macro-F1"], &rows);
}

/// Appends a per-group table: the group, its n and one column per
/// figure (nothing without rows).
pub fn group_table(out: &mut String, figures: &[&str], rows: &[(&str, usize, Vec<f64>)]) {
    if rows.is_empty() {
        return;
    }
    let width = rows
        .iter()
        .map(|r| r.0.len())
        .max()
        .unwrap_or(5)
        .clamp(5, 60);
    let _ = write!(out, "    {:<width$} {:>5}", "group", "n");
    for f in figures {
        let _ = write!(out, " {f:>9}");
    }
    out.push('\n');
    for (group, n, values) in rows {
        let _ = write!(out, "    {group:<width$} {n:>5}");
        for v in values {
            let _ = write!(out, " {v:>9.3}");
        }
        out.push('\n');
    }
}

/// Renders runs as text. `latency` false replaces timings with `-` (for
/// snapshots, where timings vary).
pub fn render(runs: &[Run], latency: bool) -> String {
    let mut out = String::new();
    let mut tasks: Vec<(&str, &str)> = Vec::new();
    for r in runs {
        if !tasks.contains(&(r.task.as_str(), r.dataset.as_str())) {
            tasks.push((r.task.as_str(), r.dataset.as_str()));
        }
    }
    for (task, dataset) in tasks {
        let group: Vec<&Run> = runs
            .iter()
            .filter(|r| r.task == task && r.dataset == dataset)
            .collect();
        let _ = writeln!(out, "task {task} on {dataset}");
        let _ = writeln!(
            out,
            "  {:<12} {:>5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
            "strategy", "n", "accuracy", "macro-F1", "p50 ns", "p95 ns", "p99 ns", "deferred"
        );
        for r in &group {
            let (p50, p95, p99) = if latency {
                (
                    r.latency_ns.p50.to_string(),
                    r.latency_ns.p95.to_string(),
                    r.latency_ns.p99.to_string(),
                )
            } else {
                ("-".into(), "-".into(), "-".into())
            };
            let deferred = r
                .deferred
                .map_or_else(|| "-".to_owned(), |d| format!("{:.1}%", d * 100.0));
            let _ = writeln!(
                out,
                "  {:<12} {:>5} {:>9.3} {:>9.3} {:>9} {:>9} {:>9} {:>9}",
                r.strategy, r.n, r.accuracy, r.macro_f1, p50, p95, p99, deferred
            );
        }
        for r in &group {
            let Some(m) = &r.model_tier else { continue };
            let ms = |ns: u64| {
                if latency {
                    format!("{:.1}", ns as f64 / 1e6)
                } else {
                    "-".to_owned()
                }
            };
            let _ = writeln!(
                out,
                "  {} model tier: escalated {:.1}% ({} items), answered {}, failures {}, model latency p50 {} ms, p90 {} ms, p99 {} ms",
                r.strategy,
                m.escalation_rate * 100.0,
                m.escalated,
                m.answered,
                m.failures,
                ms(m.latency_ns.p50),
                ms(m.latency_ns.p90),
                ms(m.latency_ns.p99)
            );
            if !m.detail.is_empty() {
                let _ = writeln!(out, "    {}", m.detail);
            }
        }
        for r in &group {
            let _ = writeln!(out, "\n  {} / {}", task, r.strategy);
            if let Some(e) = &r.route {
                let _ = writeln!(
                    out,
                    "    wrongly sent to PLATFORM: {} of {} non-PLATFORM ({:.1}%); kept from retrieval: {} of {} that need it",
                    e.wrongly_platform,
                    e.non_platform,
                    e.wrongly_platform_rate * 100.0,
                    e.kept_from_retrieval,
                    e.needs_retrieval
                );
            }
            render_groups(&mut out, &r.groups);
            let _ = writeln!(
                out,
                "    {:<16} {:>9} {:>9} {:>9} {:>8}",
                "class", "precision", "recall", "F1", "support"
            );
            for (label, m) in &r.per_class.0 {
                let _ = writeln!(
                    out,
                    "    {:<16} {:>9.3} {:>9.3} {:>9.3} {:>8}",
                    label, m.precision, m.recall, m.f1, m.support
                );
            }
            let width = r
                .confusion
                .labels
                .iter()
                .map(|l| l.len())
                .max()
                .unwrap_or(4)
                .max(6);
            let _ = write!(out, "    {:<w$}", "gold \\ pred", w = width.max(11) + 1);
            for l in &r.confusion.labels {
                let _ = write!(out, " {l:>width$}");
            }
            out.push('\n');
            for (l, row) in r.confusion.labels.iter().zip(&r.confusion.matrix) {
                let _ = write!(out, "    {:<w$}", l, w = width.max(11) + 1);
                for c in row {
                    let _ = write!(out, " {c:>width$}");
                }
                out.push('\n');
            }
        }
        out.push('\n');
    }
    out
}
