//! `cargo xtask curve`: a learning curve. Trains a task's model on growing
//! shares of its real train data (or of a user's `--dataset`), drawn by
//! source, and measures each model on a split it never learns from, so a
//! user sees what more labelled data of that kind would buy.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use tact_classifiers::effort::{EffortClassifier, Strategy as EffortStrategy};
use tact_classifiers::granularity::{GranularityClassifier, Strategy as GranularityStrategy};
use tact_classifiers::learned::{LinearModel, Task};
use tact_classifiers::route::{Router, Strategy as RouteStrategy};
use tact_classifiers::{TextClassifier, TextDecision};
use tact_core::dataset::{read_jsonl, read_text};
use tact_types::Label;

use crate::{metrics, train};

/// What a curve is drawn over.
pub struct Plan {
    pub task: Task,
    /// The training files; those with `grow` set are the ones drawn from.
    pub sources: Vec<(train::Source, bool)>,
    /// The file each model is measured on (never learned from).
    pub on: PathBuf,
    /// The shares of the grown files to keep, in 0..=1.
    pub fractions: Vec<f64>,
    /// Draws per share (each from its own seed, nested across shares).
    pub seeds: u32,
    /// Draw whole sources (`source` up to its first `@` or `#`), or items.
    pub by_source: bool,
}

/// One point of the curve: a share, one draw.
struct Point {
    fraction: f64,
    items: usize,
    sources: usize,
    learned: (f64, f64),
    hybrid: (f64, f64),
}

/// The key a line is drawn by: its source group, or its line number.
fn draw_key(
    by_source: bool,
    line: usize,
    record: &serde_json::Map<String, serde_json::Value>,
) -> String {
    if by_source {
        if let Some(v) = record.get("source").filter(|v| !v.is_null()) {
            return metrics::group_key("source", Some(v));
        }
    }
    format!("line {line}")
}

/// Whether `key` is in the share `fraction` of draw `seed`: a hash of the
/// key and seed against the share, so the draws of one seed nest (what a
/// share keeps, every larger share keeps too).
fn drawn(key: &str, seed: u32, fraction: f64) -> bool {
    if fraction >= 1.0 {
        return true;
    }
    // FNV-1a over the seed and the key, then a SplitMix64 finaliser.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.to_le_bytes().iter().chain(key.as_bytes()) {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    ((h >> 11) as f64 / (1u64 << 53) as f64) < fraction
}

/// Writes the drawn lines of `path` to `out`; returns how many items and
/// how many distinct keys were kept.
fn write_draw(
    path: &Path,
    out: &Path,
    by_source: bool,
    seed: u32,
    fraction: f64,
) -> Result<(usize, Vec<String>)> {
    // Parsed first, so a bad line is reported against the user's file.
    let records = read_jsonl::<serde_json::Map<String, serde_json::Value>>(path)?;
    let text = read_text(path)?;
    let lines: Vec<&str> = text.lines().collect();
    let mut kept = String::new();
    let mut keys = Vec::new();
    let mut n = 0;
    for r in &records {
        let key = draw_key(by_source, r.line, &r.record);
        if drawn(&key, seed, fraction) {
            let line = lines.get(r.line - 1).copied().unwrap_or_default();
            kept.push_str(line);
            kept.push('\n');
            n += 1;
            keys.push(key);
        }
    }
    std::fs::write(out, kept).with_context(|| format!("writing {}", out.display()))?;
    Ok((n, keys))
}

/// Accuracy and macro-F1 of `pred` against `gold`.
fn figures(labels: &[&str], gold: &[usize], pred: &[usize]) -> (f64, f64) {
    let (accuracy, macro_f1, _, _) = metrics::score(labels, gold, pred);
    (accuracy, macro_f1)
}

/// The learned tier's and the hybrid's labels on `path`, with the gold
/// ones, read as `cargo xtask eval` reads the file.
fn decide_all<C: TextClassifier>(learned: &C, hybrid: &C, path: &Path) -> Result<[Vec<usize>; 3]> {
    let mut out = [Vec::new(), Vec::new(), Vec::new()];
    for r in read_jsonl::<C::Example>(path)? {
        let (input, label) = C::split(r.record);
        out[0].push(label.index());
        out[1].push(learned.decide(&input).label().index());
        out[2].push(hybrid.decide(&input).label().index());
    }
    Ok(out)
}

/// `model`'s decisions (gold, learned, hybrid) on `path`.
fn measure(task: Task, model: &LinearModel, path: &Path) -> Result<[Vec<usize>; 3]> {
    macro_rules! both {
        ($classifier:ty, $strategy:ident) => {{
            let build = |s: $strategy| {
                <$classifier>::builder()
                    .strategy(s)
                    .model(model.clone())
                    .build()
            };
            decide_all(
                &build($strategy::Learned)?,
                &build($strategy::Hybrid)?,
                path,
            )
        }};
    }
    match task {
        Task::Effort | Task::EffortInMessage => both!(EffortClassifier, EffortStrategy),
        Task::Granularity => both!(GranularityClassifier, GranularityStrategy),
        Task::Route => both!(Router, RouteStrategy),
        _ => bail!("no learned tier for task {}", task.name()),
    }
}

/// Draws, trains and measures every point of `plan`; returns the report.
pub fn run(plan: &Plan) -> Result<String> {
    if !plan.sources.iter().any(|(_, grow)| *grow) {
        bail!("nothing to draw from: the task has no real train split here; give --dataset");
    }
    for (s, _) in &plan.sources {
        if s.train && s.path == plan.on {
            bail!(
                "{} is learned from; measure on another file",
                plan.on.display()
            );
        }
    }
    let dir = std::env::temp_dir().join(format!("tact-curve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let result = draw_and_train(plan, &dir);
    // Best effort: the drawn files are copies of the user's own data.
    let _ = std::fs::remove_dir_all(&dir);
    let points = result?;
    Ok(report(plan, &points))
}

fn draw_and_train(plan: &Plan, dir: &Path) -> Result<Vec<Point>> {
    let labels = plan.task.labels();
    let names: Vec<&str> = labels.iter().map(String::as_str).collect();
    let trainer = train::trainer_for(plan.task);
    let mut points = Vec::new();
    for seed in 0..plan.seeds {
        for &fraction in &plan.fractions {
            let mut sources = Vec::new();
            let mut items = 0;
            let mut keys = Vec::new();
            for (i, (s, grow)) in plan.sources.iter().enumerate() {
                let mut s = train::Source {
                    path: s.path.clone(),
                    train: s.train,
                    thresholds: s.thresholds,
                    weight: s.weight,
                    group: s.group,
                };
                if *grow {
                    let out = dir.join(format!("{i}.jsonl"));
                    let (n, k) = write_draw(&s.path, &out, plan.by_source, seed, fraction)?;
                    items += n;
                    keys.extend(k);
                    s.path = out;
                }
                sources.push(s);
            }
            keys.sort_unstable();
            keys.dedup();
            let trained = train::train(plan.task, &sources, &trainer)?;
            let [gold, learned, hybrid] = measure(plan.task, &trained.model, &plan.on)?;
            points.push(Point {
                fraction,
                items,
                sources: keys.len(),
                learned: figures(&names, &gold, &learned),
                hybrid: figures(&names, &gold, &hybrid),
            });
        }
    }
    Ok(points)
}

/// Mean and (population) standard deviation.
fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len().max(1) as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// The least-squares slope of `y` over log2 of `x` (the gain per doubling
/// of the data), over the points with `x > 0`.
fn per_doubling(points: &[(f64, f64)]) -> Option<f64> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, _)| *x > 0.0)
        .map(|(x, y)| (x.log2(), *y))
        .collect();
    if pts.len() < 2 {
        return None;
    }
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

fn report(plan: &Plan, points: &[Point]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} learning curve: measured on {} ({} draw{} per share, by {})",
        plan.task.name(),
        crate::shown(&plan.on),
        plan.seeds,
        if plan.seeds == 1 { "" } else { "s" },
        if plan.by_source { "source" } else { "item" },
    );
    let _ = writeln!(
        out,
        "{:>6} {:>6} {:>8}  {:>15} {:>15}  {:>15} {:>15}",
        "share", "items", "sources", "learned acc", "learned F1", "hybrid acc", "hybrid F1"
    );
    let mut by_items: [Vec<(f64, f64)>; 4] = Default::default();
    for &fraction in &plan.fractions {
        let at: Vec<&Point> = points.iter().filter(|p| p.fraction == fraction).collect();
        let items = mean_sd(&at.iter().map(|p| p.items as f64).collect::<Vec<_>>()).0;
        let sources = mean_sd(&at.iter().map(|p| p.sources as f64).collect::<Vec<_>>()).0;
        let cols: [(f64, f64); 4] = [
            mean_sd(&at.iter().map(|p| p.learned.0).collect::<Vec<_>>()),
            mean_sd(&at.iter().map(|p| p.learned.1).collect::<Vec<_>>()),
            mean_sd(&at.iter().map(|p| p.hybrid.0).collect::<Vec<_>>()),
            mean_sd(&at.iter().map(|p| p.hybrid.1).collect::<Vec<_>>()),
        ];
        for (c, v) in by_items.iter_mut().zip(&cols) {
            c.push((items, v.0));
        }
        let sources = if plan.by_source {
            format!("{sources:.1}")
        } else {
            "-".to_owned()
        };
        let _ = writeln!(
            out,
            "{fraction:>6.3} {items:>6.0} {sources:>8}  {:>15} {:>15}  {:>15} {:>15}",
            format!("{:.3} ± {:.3}", cols[0].0, cols[0].1),
            format!("{:.3} ± {:.3}", cols[1].0, cols[1].1),
            format!("{:.3} ± {:.3}", cols[2].0, cols[2].1),
            format!("{:.3} ± {:.3}", cols[3].0, cols[3].1),
        );
    }
    let slopes: Vec<String> = by_items
        .iter()
        .map(|c| per_doubling(c).map_or_else(|| "-".to_owned(), |s| format!("{s:+.3}")))
        .collect();
    let _ = writeln!(
        out,
        "per doubling of the drawn items (least squares over the shares above 0): learned acc {} F1 {}, hybrid acc {} F1 {}",
        slopes[0], slopes[1], slopes[2], slopes[3]
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_nest_and_cover_the_ends() {
        let keys: Vec<String> = (0..400).map(|i| format!("repo{i}")).collect();
        for seed in 0..3 {
            let at = |f: f64| keys.iter().filter(|k| drawn(k, seed, f)).count();
            assert_eq!((at(0.0), at(1.0)), (0, 400));
            let half = at(0.5);
            assert!((150..250).contains(&half), "{half}");
            for k in &keys {
                if drawn(k, seed, 0.25) {
                    assert!(drawn(k, seed, 0.5));
                }
            }
        }
        // Another seed draws another set.
        let a: Vec<bool> = keys.iter().map(|k| drawn(k, 0, 0.5)).collect();
        let b: Vec<bool> = keys.iter().map(|k| drawn(k, 1, 0.5)).collect();
        assert_ne!(a, b);
    }

    #[test]
    fn the_slope_is_per_doubling_and_needs_two_points() {
        let s = per_doubling(&[(0.0, 0.1), (100.0, 0.5), (200.0, 0.6), (400.0, 0.7)]).unwrap();
        assert!((s - 0.1).abs() < 1e-9, "{s}");
        assert!(per_doubling(&[(0.0, 0.1), (100.0, 0.5)]).is_none());
    }

    #[test]
    fn a_line_is_drawn_by_its_source_group() {
        let rec: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(r#"{"source":"owner/repo@abc:file.md#L3"}"#).unwrap();
        assert_eq!(draw_key(true, 7, &rec), "owner/repo");
        assert_eq!(draw_key(false, 7, &rec), "line 7");
        assert_eq!(draw_key(true, 7, &serde_json::Map::new()), "line 7");
    }
}
