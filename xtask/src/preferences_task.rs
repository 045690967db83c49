//! `cargo xtask eval --task preferences`: runs the text-level preference
//! checkers of `tact-scoring` on a `preferences` dataset (one message, one
//! preference, `violated` true or false) and reports the usual contract
//! plus `per_preference`.
//!
//! How the contract maps onto a violated/ok task: each line is one item;
//! its gold label is `violated` or `ok` and so is the prediction. `n` is
//! the number of lines, `accuracy` the share of lines judged right,
//! `per_class` the precision/recall/F1/support of the two labels
//! (`violated` first), `macro_f1` their mean, `confusion` the 2x2 matrix
//! (gold rows, predicted columns), and `per_preference` maps each
//! preference to the accuracy and support of its own lines. `--min-accuracy`
//! gates every preference's accuracy as well as the overall one.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use serde::Serialize;
use serde::ser::SerializeMap;
use tact_core::dataset::read_jsonl;
use tact_scoring::dataset::PreferenceExample;
use tact_scoring::{CheckKind, Preference, TextChecker};

use crate::metrics::{Latency, Run, latency, score};

/// Accuracy and support of one preference.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PreferenceMetrics {
    /// Share of its lines judged right.
    pub accuracy: f64,
    /// Its lines.
    pub support: usize,
}

/// Per-preference metrics keyed by name, in the guide's table order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PerPreference(pub Vec<(String, PreferenceMetrics)>);

impl Serialize for PerPreference {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// One wrong verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mismatch {
    /// The 1-based line.
    pub line: usize,
    /// The preference.
    pub preference: String,
    /// The gold answer.
    pub violated: bool,
    /// The message.
    pub text: String,
    /// What the checker found, when it found a violation.
    pub actual: Option<String>,
}

/// The `--json` object: the common run fields plus `per_preference`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PreferencesReport {
    /// Task, dataset, strategy (`rules`), n, accuracy, macro-F1, per class,
    /// confusion, latency.
    #[serde(flatten)]
    pub run: Run,
    /// Accuracy and support per preference.
    pub per_preference: PerPreference,
    /// The wrong verdicts (not in the JSON).
    #[serde(skip)]
    pub mismatches: Vec<Mismatch>,
}

/// The labels, in table order.
pub const LABELS: [&str; 2] = ["violated", "ok"];

/// Evaluates `path`. A line with an unknown preference or one that is not
/// checked on a single message is an error naming file and line.
pub fn eval(path: &Path, shown: String) -> Result<PreferencesReport> {
    let items = read_jsonl::<PreferenceExample>(path)?;
    for l in &items {
        if l.record.preference.check_kind() != CheckKind::Text {
            anyhow::bail!(
                "{}:{}: `{}` is not a text-level preference (expected one of: {})",
                path.display(),
                l.line,
                l.record.preference,
                Preference::TEXT
                    .iter()
                    .map(|p| p.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    let checker = TextChecker::new()?;
    let run_one = |e: &PreferenceExample| checker.check(e.preference, &e.text).ok().flatten();
    for l in &items {
        black_box(run_one(black_box(&l.record)));
    }
    let mut lat = Vec::with_capacity(items.len());
    let mut pred = Vec::with_capacity(items.len());
    let mut mismatches = Vec::new();
    for l in &items {
        let t = Instant::now();
        let found = black_box(run_one(black_box(&l.record)));
        lat.push(u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX));
        let violated = found.is_some();
        if violated != l.record.violated {
            mismatches.push(Mismatch {
                line: l.line,
                preference: l.record.preference.to_string(),
                violated: l.record.violated,
                text: l.record.text.clone(),
                actual: found.map(|v| v.actual),
            });
        }
        pred.push(usize::from(!violated));
    }
    let gold: Vec<usize> = items
        .iter()
        .map(|l| usize::from(!l.record.violated))
        .collect();
    let (accuracy, macro_f1, per_class, confusion) = score(&LABELS, &gold, &pred);
    let mut per = Vec::new();
    for &p in Preference::TEXT {
        let idx: Vec<usize> = (0..items.len())
            .filter(|&i| items[i].record.preference == p)
            .collect();
        if idx.is_empty() {
            continue;
        }
        let right = idx.iter().filter(|&&i| gold[i] == pred[i]).count();
        per.push((
            p.as_str().to_owned(),
            PreferenceMetrics {
                accuracy: right as f64 / idx.len() as f64,
                support: idx.len(),
            },
        ));
    }
    Ok(PreferencesReport {
        run: Run {
            task: "preferences".into(),
            dataset: shown,
            strategy: "rules".into(),
            n: items.len(),
            accuracy,
            macro_f1,
            per_class,
            confusion,
            latency_ns: latency(&mut lat),
            deferred: None,
            route: None,
            groups: Vec::new(),
            model_tier: None,
        },
        per_preference: PerPreference(per),
        mismatches,
    })
}

/// Renders the report: the common tables, then the per-preference table
/// and, with `errors`, up to that many wrong verdicts.
pub fn render(report: &PreferencesReport, timing: bool, errors: Option<usize>) -> String {
    let mut out = crate::report::render(std::slice::from_ref(&report.run), timing);
    out.pop();
    let _ = writeln!(out, "\n  preferences / rules, per preference");
    let _ = writeln!(
        out,
        "    {:<18} {:>9} {:>8}",
        "preference", "accuracy", "support"
    );
    for (name, m) in &report.per_preference.0 {
        let _ = writeln!(out, "    {:<18} {:>9.3} {:>8}", name, m.accuracy, m.support);
    }
    if let Some(max) = errors {
        for m in report.mismatches.iter().take(max) {
            let _ = writeln!(
                out,
                "  {}:{}: {} gold {} predicted {}: {}{}",
                report.run.dataset,
                m.line,
                m.preference,
                if m.violated { "violated" } else { "ok" },
                if m.violated { "ok" } else { "violated" },
                m.text.replace('\n', " "),
                m.actual
                    .as_deref()
                    .map(|a| format!(" ({a})"))
                    .unwrap_or_default()
            );
        }
    }
    out.push('\n');
    out
}

/// The gates: macro-F1 and/or the accuracy of every preference (and the
/// overall one). Returns whether it passes and the lines for stderr.
pub fn gate(
    report: &PreferencesReport,
    min_macro_f1: Option<f64>,
    min_accuracy: Option<f64>,
) -> (bool, Vec<String>) {
    let mut ok = true;
    let mut lines = Vec::new();
    let mut check = |what: String, value: f64, min: f64| {
        let pass = value >= min;
        ok &= pass;
        lines.push(format!(
            "gate preferences rules: {what} {value:.3} {} {min:.3}",
            if pass { ">=" } else { "< (FAILED)" }
        ));
    };
    if let Some(min) = min_macro_f1 {
        check("macro-F1".into(), report.run.macro_f1, min);
    }
    if let Some(min) = min_accuracy {
        check("accuracy".into(), report.run.accuracy, min);
        for (name, m) in &report.per_preference.0 {
            check(format!("{name} accuracy"), m.accuracy, min);
        }
    }
    (ok, lines)
}

/// Zeroes the timings (for `--no-timing`).
pub fn without_timing(report: &mut PreferencesReport) {
    report.run.latency_ns = Latency {
        p50: 0,
        p95: 0,
        p99: 0,
    };
}
