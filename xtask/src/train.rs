//! `cargo xtask train`: fits the learned tier's linear models on the train
//! splits of the fixtures (plus any `--dataset`), chooses each model's
//! hybrid thresholds on out-of-fold predictions, and writes the model
//! files (`crates/classifiers/models/<task>.json` by default).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use tact_classifiers::effort::{EffortClassifier, Strategy as EffortStrategy};
use tact_classifiers::granularity::{GranularityClassifier, Strategy as GranularityStrategy};
use tact_classifiers::learned::{FALLBACK_THRESHOLDS, HybridThresholds, Task, Traced, defers};
use tact_classifiers::route::{Router, Strategy as RouteStrategy};
use tact_core::dataset::read_jsonl;
use tact_core::learn::{Example, FeatureConfig, Fit, LinearModel, Trainer};
use tact_types::Label;
use tact_types::dataset::{EffortExample, GranularityExample, RouteExample};

use crate::metrics;

/// The tasks with a learned tier, in report order.
pub const TASKS: [Task; 3] = [Task::Effort, Task::Granularity, Task::Route];

/// What one training produced, for the summary line.
pub struct Trained {
    pub task: Task,
    pub model: LinearModel,
    pub examples: usize,
    /// Items the thresholds were chosen on.
    pub held_out: usize,
    /// Macro-F1 on those items: heuristic, learned (out-of-fold), hybrid
    /// (with the chosen thresholds), and the hybrid's deferral rate.
    pub heuristic_f1: f64,
    pub learned_f1: f64,
    pub hybrid_f1: f64,
    pub deferred: f64,
}

/// A training file, and whether the hybrid thresholds are chosen on it
/// (data the heuristic's cues were never tuned on).
pub struct Source {
    pub path: PathBuf,
    pub thresholds: bool,
}

/// The training data of a task: the heuristic trace of each item, its
/// gold label index and whether it serves the threshold choice.
fn traces(task: Task, sources: &[Source]) -> Result<Vec<(Traced<usize>, usize, bool)>> {
    let mut all = Vec::new();
    for Source { path, thresholds } in sources {
        let mut out_task: Vec<(Traced<usize>, usize)> = Vec::new();
        let out = &mut out_task;
        match task {
            Task::Effort => {
                let c = EffortClassifier::builder()
                    .strategy(EffortStrategy::Heuristic)
                    .build()?;
                for l in read_jsonl::<EffortExample>(path)? {
                    if let Some(t) = c.trace(&l.record.text, l.record.context.as_deref()) {
                        out.push((index(t), l.record.label.index()));
                    }
                }
            }
            Task::Granularity => {
                let c = GranularityClassifier::builder()
                    .strategy(GranularityStrategy::Heuristic)
                    .build()?;
                for l in read_jsonl::<GranularityExample>(path)? {
                    if let Some(t) = c.trace(&l.record.text) {
                        out.push((index(t), l.record.label.index()));
                    }
                }
            }
            Task::Route => {
                let r = Router::builder()
                    .strategy(RouteStrategy::Heuristic)
                    .build()?;
                // A platform prefix (RC-01) never reaches a model: no trace.
                for l in read_jsonl::<RouteExample>(path)? {
                    if let Some(t) = r.trace(&l.record.text, &l.record.history) {
                        out.push((index(t), l.record.label.index()));
                    }
                }
            }
            _ => bail!("no learned tier for task {}", task.name()),
        }
        all.extend(out_task.into_iter().map(|(t, y)| (t, y, *thresholds)));
    }
    Ok(all)
}

/// A trace with its heuristic label as an index.
fn index<L: Label>(t: Traced<L>) -> Traced<usize> {
    let c = t.heuristic;
    Traced {
        heuristic: {
            let mut h = tact_types::Classification::new(c.label.index(), c.confidence)
                .with_reasons(c.reasons);
            h.tier = c.tier;
            h
        },
        gap: t.gap,
        fixed: t.fixed,
        input: t.input,
    }
}

/// The hyper-parameters of each task's default model, chosen by the
/// out-of-fold macro-F1 of the learned model on the calibration split (never
/// on dev), among word unigrams or bigrams, byte n-grams off, 2-4 or 3-5
/// at a tenth to a third of a word's weight, and L2 of 1e-5 or 1e-4:
/// effort and granularity read word unigrams and bigrams and the cues
/// (byte n-grams lowered their scores and cost a microsecond); routing
/// adds byte 3-5-grams at a tenth of a word's weight. Ten epochs; 2^16
/// buckets (2^14 for routing, whose many byte n-grams then stay in a
/// core's L2 cache; fewer buckets cost effort and granularity 0.02-0.03
/// macro-F1).
pub fn trainer_for(task: Task) -> Trainer {
    let base = Trainer {
        epochs: 10,
        l2: 1e-4,
        ..Trainer::default()
    };
    let words = FeatureConfig {
        hash_bits: 14,
        word_ngrams: 2,
        char_ngrams: [0, 0],
        char_weight: 0.0,
    };
    match task {
        Task::Granularity => Trainer {
            features: FeatureConfig {
                hash_bits: 16,
                ..words
            },
            ..base
        },
        Task::Route => Trainer {
            features: FeatureConfig {
                word_ngrams: 1,
                char_ngrams: [3, 5],
                char_weight: 0.1,
                ..words
            },
            l2: 1e-5,
            ..base
        },
        _ => Trainer {
            features: FeatureConfig {
                hash_bits: 16,
                ..words
            },
            ..base
        },
    }
}

/// Trains the model of `task` on `sources` with `trainer`.
pub fn train(task: Task, sources: &[Source], trainer: &Trainer) -> Result<Trained> {
    let data = traces(task, sources)?;
    if data.is_empty() {
        bail!("no training data for {}", task.name());
    }
    let examples: Vec<Example> = data
        .iter()
        .map(|(t, y, _)| {
            Example::new(
                &t.input.text,
                t.input.extras.iter().map(|e| (*e).to_owned()).collect(),
                *y,
            )
        })
        .collect();
    let Fit {
        mut model,
        out_of_fold,
    } = trainer
        .train(task.name(), task.labels(), &examples)
        .with_context(|| format!("training {}", task.name()))?;
    let labels = task.labels();
    let names: Vec<&str> = labels.iter().map(String::as_str).collect();
    // The thresholds are chosen where the heuristic's confidence is honest:
    // on items its cues were never tuned on, with the model's out-of-fold
    // predictions.
    let held: Vec<usize> = (0..data.len()).filter(|&i| data[i].2).collect();
    let held = if held.is_empty() {
        (0..data.len()).collect()
    } else {
        held
    };
    let gold: Vec<usize> = held.iter().map(|&i| data[i].1).collect();
    let heuristic: Vec<usize> = held.iter().map(|&i| data[i].0.heuristic.label).collect();
    let learned: Vec<usize> = held.iter().map(|&i| out_of_fold[i].label()).collect();
    let f1 = |pred: &[usize]| metrics::score(&names, &gold, pred).1;
    // The grid point with the best hybrid macro-F1; on ties, the one
    // deferring least.
    let mut best: Option<(f64, usize, HybridThresholds)> = None;
    for c in 0..=14u8 {
        for g in 0..=12u8 {
            let t = HybridThresholds {
                min_confidence: 0.25 + 0.05 * f32::from(c),
                min_gap: 0.25 * f32::from(g),
            };
            let mut n_def = 0;
            let pred: Vec<usize> = held
                .iter()
                .zip(&learned)
                .map(|(&i, m)| {
                    let tr = &data[i].0;
                    if defers(tr.heuristic.confidence, tr.gap, tr.fixed, &t) {
                        n_def += 1;
                        *m
                    } else {
                        tr.heuristic.label
                    }
                })
                .collect();
            let score = f1(&pred);
            let better = match &best {
                None => true,
                Some((s, d, _)) => {
                    score > *s + 1e-12 || ((score - *s).abs() <= 1e-12 && n_def < *d)
                }
            };
            if better {
                best = Some((score, n_def, t));
            }
        }
    }
    let (hybrid_f1, n_def, thresholds) = best.unwrap_or((0.0, 0, FALLBACK_THRESHOLDS));
    model.set_hybrid(Some(thresholds));
    Ok(Trained {
        task,
        examples: data.len(),
        held_out: held.len(),
        heuristic_f1: f1(&heuristic),
        learned_f1: f1(&learned),
        hybrid_f1,
        deferred: n_def as f64 / held.len().max(1) as f64,
        model,
    })
}

/// The fixture files of `task` a training reads: the train split (the
/// heuristic was tuned on it) and the calibration split (it was not; the
/// hybrid thresholds are chosen there).
pub fn fixture_sources(root: &Path, task: Task, real: bool) -> Vec<Source> {
    let dir = root.join("fixtures").join(task.name());
    let mut out = vec![Source {
        path: dir.join("train.jsonl"),
        thresholds: false,
    }];
    // The annotator-written calibration split, then (with `--real`) the
    // real train and calibration splits where a task has them (the
    // heuristic was tuned on neither calibration split).
    let mut names = vec![("calibration", true)];
    if real {
        names.extend([
            ("real-train", false),
            // Real text under CC-BY-SA is kept in a file that says so.
            ("real-train-ccbysa", false),
            ("real-calibration", true),
        ]);
    }
    for (name, thresholds) in names {
        let path = dir.join(format!("{name}.jsonl"));
        if path.exists() {
            out.push(Source { path, thresholds });
        }
    }
    out
}

/// The default output folder of the models.
pub fn default_out(root: &Path) -> PathBuf {
    root.join("crates/classifiers/models")
}

/// Writes `model` to `<out>/<task>.json` through a temporary file, so that
/// a failed write leaves the previous file whole.
pub fn write(out: &Path, trained: &Trained) -> Result<PathBuf> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let path = out.join(format!("{}.json", trained.task.name()));
    let tmp = out.join(format!(".{}.json.tmp", trained.task.name()));
    std::fs::write(&tmp, trained.model.to_json())
        .with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}

/// One summary line of a training.
pub fn summary(t: &Trained) -> String {
    let h = t.model.hybrid().unwrap_or(FALLBACK_THRESHOLDS);
    format!(
        "{:<12} {:>5} examples {:>6} weight rows  T={:.2}  macro-F1 on {} held-out items: heuristic {:.3} learned {:.3} hybrid {:.3} (defers {:.0}% at confidence < {:.2} or gap < {:.2})",
        t.task.name(),
        t.examples,
        t.model.nonzero_rows(),
        t.model.temperature(),
        t.held_out,
        t.heuristic_f1,
        t.learned_f1,
        t.hybrid_f1,
        t.deferred * 100.0,
        h.min_confidence,
        h.min_gap,
    )
}
