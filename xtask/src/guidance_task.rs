//! `cargo xtask eval --task guidance`: runs every default guidance
//! classifier on every trajectory of a `guidance` dataset (a JSONL file, or
//! a directory of them such as `fixtures/guidance/`) and compares the
//! verdict of each classifier named in the case's `expect`. Reports
//! accuracy over all (case, classifier) verdicts, per-classifier
//! precision/recall/F1, macro-F1 (the mean F1 over classifiers) and the
//! latency of analysing a case and running all classifiers.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde::ser::SerializeMap;
use tact_core::dataset::read_jsonl;
use tact_guidance::{CLASSIFIER_NAMES, default_classifiers, verdicts};
use tact_types::trajectory::{GuidanceExample, Trajectory};

use crate::metrics::{Latency, latency};

/// Metrics of one classifier over the cases that name it in `expect`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClassifierMetrics {
    /// Of the cases where it fired, the share expected to fire (1 when it
    /// never fired and never should have).
    pub precision: f64,
    /// Of the cases expected to fire, the share where it fired (1 when
    /// none was expected and it never fired).
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub f1: f64,
    /// Verdicts checked (cases naming this classifier).
    pub support: usize,
    /// Share of those verdicts that were right.
    pub accuracy: f64,
    /// Verdicts expected `true`.
    pub positives: usize,
}

/// Per-classifier metrics keyed by name, serialized in table order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PerClassifier(pub Vec<(String, ClassifierMetrics)>);

impl Serialize for PerClassifier {
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
    /// The dataset file.
    pub file: String,
    /// The 1-based line.
    pub line: usize,
    /// The case id, if any.
    pub id: Option<String>,
    /// The classifier.
    pub classifier: String,
    /// The expected verdict.
    pub expected: bool,
    /// The verdict given.
    pub got: bool,
    /// The classifier's reason, if it fired.
    pub reason: Option<String>,
}

/// The outcome of a guidance evaluation (the `--json` object).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GuidanceReport {
    /// Always `guidance`.
    pub task: String,
    /// The dataset as shown (set it to a workspace-relative path).
    pub dataset: String,
    /// Always `default` (the guide's defaults).
    pub strategy: String,
    /// Cases (trajectories).
    pub n: usize,
    /// (case, classifier) verdicts checked.
    pub verdicts: usize,
    /// Share of verdicts that were right.
    pub accuracy: f64,
    /// Mean F1 over the classifiers with at least one verdict.
    pub macro_f1: f64,
    /// Metrics per classifier, in the guide's table order.
    pub per_classifier: PerClassifier,
    /// Time to analyse one case and run every classifier.
    pub latency_ns: Latency,
    /// The wrong verdicts, in dataset order.
    pub mismatches: Vec<Mismatch>,
}

/// The default dataset: `fixtures/guidance/` under the workspace `root`.
pub fn default_path(root: &Path) -> PathBuf {
    root.join("fixtures").join("guidance")
}

/// The JSONL files of `path`: the file itself, or every `*.jsonl` of a
/// directory in name order.
pub fn dataset_files(path: &Path) -> Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    for entry in
        std::fs::read_dir(path).with_context(|| format!("cannot read {}", path.display()))?
    {
        let p = entry?.path();
        if p.extension().is_some_and(|e| e == "jsonl") {
            files.push(p);
        }
    }
    files.sort();
    if files.is_empty() {
        bail!("no .jsonl files in {}", path.display());
    }
    Ok(files)
}

#[derive(Default, Clone, Copy)]
struct Counts {
    tp: usize,
    fp: usize,
    fn_: usize,
    tn: usize,
}

/// Evaluates every case of `path` (a file or a directory of JSONL files).
/// The first bad line (invalid JSON, a missing field, an unknown event
/// type or classifier name) is an error naming its file and line.
pub fn eval(path: &Path) -> Result<GuidanceReport> {
    let classifiers = default_classifiers();
    let mut cases: Vec<(String, usize, GuidanceExample)> = Vec::new();
    for file in dataset_files(path)? {
        let shown = file.display().to_string();
        for line in read_jsonl::<GuidanceExample>(&file)? {
            if let Some(bad) = line
                .record
                .expect
                .keys()
                .find(|k| !CLASSIFIER_NAMES.contains(&k.as_str()))
            {
                bail!(
                    "{shown}:{}: unknown classifier `{bad}` in expect (expected one of: {})",
                    line.line,
                    CLASSIFIER_NAMES.join(", ")
                );
            }
            cases.push((shown.clone(), line.line, line.record));
        }
    }
    let trajectories: Vec<Trajectory> = cases.iter().map(|(_, _, c)| c.trajectory()).collect();

    // Warm up, then time each case on its own.
    for t in &trajectories {
        black_box(verdicts(&classifiers, black_box(t)));
    }
    let mut lat = Vec::with_capacity(trajectories.len());
    let mut counts = vec![Counts::default(); CLASSIFIER_NAMES.len()];
    let mut mismatches = Vec::new();
    for ((file, line, case), t) in cases.iter().zip(&trajectories) {
        let start = Instant::now();
        let got = black_box(verdicts(&classifiers, black_box(t)));
        lat.push(u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX));
        for (name, fired, result) in got {
            let Some(&expected) = case.expect.get(name) else {
                continue;
            };
            let Some(i) = CLASSIFIER_NAMES.iter().position(|n| *n == name) else {
                continue;
            };
            let c = &mut counts[i];
            match (expected, fired) {
                (true, true) => c.tp += 1,
                (false, true) => c.fp += 1,
                (true, false) => c.fn_ += 1,
                (false, false) => c.tn += 1,
            }
            if expected != fired {
                mismatches.push(Mismatch {
                    file: file.clone(),
                    line: *line,
                    id: case.id.clone(),
                    classifier: name.to_owned(),
                    expected,
                    got: fired,
                    reason: result.and_then(|r| r.reason),
                });
            }
        }
    }

    let mut per = Vec::new();
    let (mut total, mut right, mut f1_sum, mut f1_n) = (0usize, 0usize, 0.0, 0usize);
    for (name, c) in CLASSIFIER_NAMES.iter().zip(&counts) {
        let support = c.tp + c.fp + c.fn_ + c.tn;
        if support == 0 {
            continue;
        }
        let ratio = |num: usize, den: usize| {
            if den == 0 {
                1.0
            } else {
                num as f64 / den as f64
            }
        };
        let precision = ratio(c.tp, c.tp + c.fp);
        let recall = ratio(c.tp, c.tp + c.fn_);
        let f1 = if precision + recall == 0.0 {
            0.0
        } else {
            2.0 * precision * recall / (precision + recall)
        };
        total += support;
        right += c.tp + c.tn;
        f1_sum += f1;
        f1_n += 1;
        per.push((
            (*name).to_owned(),
            ClassifierMetrics {
                precision,
                recall,
                f1,
                support,
                accuracy: ratio(c.tp + c.tn, support),
                positives: c.tp + c.fn_,
            },
        ));
    }
    Ok(GuidanceReport {
        task: "guidance".into(),
        dataset: path.display().to_string(),
        strategy: "default".into(),
        n: cases.len(),
        verdicts: total,
        accuracy: if total == 0 {
            0.0
        } else {
            right as f64 / total as f64
        },
        macro_f1: if f1_n == 0 { 0.0 } else { f1_sum / f1_n as f64 },
        per_classifier: PerClassifier(per),
        latency_ns: latency(&mut lat),
        mismatches,
    })
}

/// Renders a report as text; `latency` false prints `-` for timings (for
/// snapshots), `errors` lists up to that many wrong verdicts.
pub fn render(report: &GuidanceReport, latency: bool, errors: Option<usize>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "task guidance on {}", report.dataset);
    let _ = writeln!(
        out,
        "  {:<12} {:>5} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "strategy", "n", "verdicts", "accuracy", "macro-F1", "p50 ns", "p95 ns", "p99 ns"
    );
    let l = report.latency_ns;
    let (p50, p95, p99) = if latency {
        (l.p50.to_string(), l.p95.to_string(), l.p99.to_string())
    } else {
        ("-".into(), "-".into(), "-".into())
    };
    let _ = writeln!(
        out,
        "  {:<12} {:>5} {:>8} {:>9.3} {:>9.3} {:>9} {:>9} {:>9}",
        report.strategy, report.n, report.verdicts, report.accuracy, report.macro_f1, p50, p95, p99
    );
    let _ = writeln!(out, "\n  guidance / {}", report.strategy);
    let _ = writeln!(
        out,
        "    {:<26} {:>9} {:>9} {:>9} {:>9} {:>8} {:>9}",
        "classifier", "precision", "recall", "F1", "accuracy", "support", "positives"
    );
    for (name, m) in &report.per_classifier.0 {
        let _ = writeln!(
            out,
            "    {:<26} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>8} {:>9}",
            name, m.precision, m.recall, m.f1, m.accuracy, m.support, m.positives
        );
    }
    if let Some(max) = errors {
        for m in report.mismatches.iter().take(max) {
            let _ = writeln!(
                out,
                "  {}:{}: {} {}: expected {}, got {}{}",
                m.file,
                m.line,
                m.id.as_deref().unwrap_or("-"),
                m.classifier,
                m.expected,
                m.got,
                m.reason
                    .as_deref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default()
            );
        }
    }
    out.push('\n');
    out
}

/// The `--min-macro-f1` gate: whether the report passes, and the line to
/// print on stderr.
pub fn gate(report: &GuidanceReport, min_macro_f1: f64) -> (bool, String) {
    let pass = report.macro_f1 >= min_macro_f1;
    let line = format!(
        "gate guidance {}: macro-F1 {:.3} {} {min_macro_f1:.3}",
        report.strategy,
        report.macro_f1,
        if pass { ">=" } else { "< (FAILED)" }
    );
    (pass, line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn tmp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tact-guidance-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn fixtures_score_perfectly() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap()
            .to_path_buf();
        let r = eval(&default_path(&root)).unwrap();
        assert!(r.mismatches.is_empty(), "{:?}", r.mismatches);
        assert_eq!((r.accuracy, r.macro_f1), (1.0, 1.0));
        assert!(r.n >= 248 && r.verdicts >= 700);
        let names: Vec<&str> = r.per_classifier.0.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, CLASSIFIER_NAMES);
        let json = serde_json::to_value(&r).unwrap();
        for key in ["precision", "recall", "f1", "support", "accuracy"] {
            assert!(
                json["per_classifier"]["doom_loop"].get(key).is_some(),
                "{key}"
            );
        }
        assert!(render(&r, false, Some(5)).contains("sensitive_content"));
    }

    #[test]
    fn metrics_count_every_named_verdict() {
        let d = tmp("metrics");
        let p = write(
            &d,
            "a.jsonl",
            "// comment\n\
             {\"events\":[{\"type\":\"assistant\",\"text\":\"\"},{\"type\":\"assistant\",\"text\":\"\"},{\"type\":\"assistant\",\"text\":\"\"}],\"expect\":{\"monologue\":true,\"empty_response\":false}}\n\
             {\"events\":[],\"expect\":{\"monologue\":false}}\n",
        );
        let r = eval(&p).unwrap();
        assert_eq!((r.n, r.verdicts), (2, 3));
        assert!((r.accuracy - 2.0 / 3.0).abs() < 1e-9);
        let per: std::collections::HashMap<_, _> = r.per_classifier.0.iter().cloned().collect();
        assert_eq!(per["monologue"].f1, 1.0);
        assert_eq!(
            (
                per["empty_response"].precision,
                per["empty_response"].recall,
                per["empty_response"].f1
            ),
            (0.0, 1.0, 0.0)
        );
        assert!((r.macro_f1 - 0.5).abs() < 1e-9);
        assert_eq!(r.mismatches.len(), 1);
        assert_eq!(
            (r.mismatches[0].line, r.mismatches[0].classifier.as_str()),
            (2, "empty_response")
        );
        assert!(!gate(&r, 0.9).0);
    }

    #[test]
    fn bad_lines_name_file_and_line() {
        let d = tmp("bad");
        let cases = [
            (
                "{\"events\":[],\"expect\":{\"loops\":true}}",
                "unknown classifier `loops`",
            ),
            (
                "{\"events\":[{\"type\":\"thought\"}],\"expect\":{}}",
                "unknown variant `thought`",
            ),
            ("{\"expect\":{}}", "missing field `events`"),
            (
                "{\"events\":[{\"type\":\"tool\"}],\"expect\":{}}",
                "missing field `name`",
            ),
            ("{oops", "not valid JSON"),
        ];
        for (i, (text, needle)) in cases.iter().enumerate() {
            let p = write(&d, &format!("bad{i}.jsonl"), &format!("\n{text}\n"));
            let msg = format!("{:#}", eval(&p).unwrap_err());
            assert!(msg.contains(&format!("bad{i}.jsonl:2: ")), "{msg}");
            assert!(msg.contains(needle), "{msg}");
        }
    }
}
