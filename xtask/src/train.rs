//! `cargo xtask train`: fits the learned tier's linear models on the train
//! splits of the fixtures (plus any `--dataset`), chooses each model's
//! hybrid thresholds on out-of-fold predictions, and writes the model
//! files (`crates/classifiers/models/<task>.json` by default).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use tact_classifiers::effort::{EffortClassifier, InMessage, Strategy as EffortStrategy};
use tact_classifiers::granularity::{GranularityClassifier, Strategy as GranularityStrategy};
use tact_classifiers::learned::{FALLBACK_THRESHOLDS, HybridThresholds, Task, Traced, defers};
use tact_classifiers::route::{Router, Strategy as RouteStrategy};
use tact_core::dataset::read_jsonl;
use tact_core::learn::{Example, FeatureConfig, Fit, LinearModel, Prediction, Trainer};
use tact_types::Label;
use tact_types::dataset::{EffortExample, GranularityExample, RouteExample};

use crate::metrics;

/// The tasks with a learned tier, in report order (effort's second model
/// serves its questions read in their message).
pub const TASKS: [Task; 4] = [
    Task::Effort,
    Task::EffortInMessage,
    Task::Granularity,
    Task::Route,
];

/// What one training produced, for the summary line.
pub struct Trained {
    pub task: Task,
    pub model: LinearModel,
    pub examples: usize,
    /// Items the thresholds were chosen on.
    pub held_out: usize,
    /// The mean over the groups of the macro-F1 on those items: heuristic,
    /// learned (out-of-fold), hybrid (with the chosen thresholds), and the
    /// hybrid's deferral rate.
    pub heuristic_f1: f64,
    pub learned_f1: f64,
    pub hybrid_f1: f64,
    pub deferred: f64,
    /// The same figures for each group of held-out items, when there are
    /// several.
    pub groups: Vec<GroupFigures>,
}

/// The held-out figures of one group of training files.
pub struct GroupFigures {
    pub name: String,
    pub items: usize,
    pub heuristic_f1: f64,
    pub learned_f1: f64,
    pub hybrid_f1: f64,
}

/// A training file, and whether the hybrid thresholds are chosen on it
/// (data the heuristic's cues were never tuned on).
pub struct Source {
    pub path: PathBuf,
    /// Whether the model learns from it (a split kept for the thresholds
    /// alone is not).
    pub train: bool,
    pub thresholds: bool,
    /// How much each of its items counts in the loss (1 for the same as
    /// the others).
    pub weight: f64,
    /// The kind of text it holds (`annotator`, `real`, `dataset`): classes
    /// are balanced within each group, and the thresholds maximise the
    /// mean of the groups' held-out macro-F1, so that a hybrid good on
    /// one kind of text is not bought with another.
    pub group: &'static str,
}

/// One training item: the heuristic trace, the gold label index, whether
/// it serves the threshold choice, its weight and its group.
struct Item {
    trace: Traced<usize>,
    gold: usize,
    train: bool,
    held: bool,
    weight: f64,
    group: &'static str,
}

/// The training data of a task.
fn traces(task: Task, sources: &[Source]) -> Result<Vec<Item>> {
    let mut all = Vec::new();
    for Source {
        path,
        train,
        thresholds,
        weight,
        group,
    } in sources
    {
        let mut out_task: Vec<(Traced<usize>, usize)> = Vec::new();
        let out = &mut out_task;
        match task {
            Task::Effort | Task::EffortInMessage => {
                let c = EffortClassifier::builder()
                    .strategy(EffortStrategy::Heuristic)
                    .build()?;
                for l in read_jsonl::<EffortExample>(path)? {
                    let r = &l.record;
                    // The question where it stands in its message, as
                    // `cargo xtask eval` classifies it.
                    let t = match r.message.as_deref() {
                        Some(m) => c.trace_in(
                            &r.text,
                            &InMessage::new(m),
                            m.find(r.text.as_str()).unwrap_or(m.len()),
                            r.context.as_deref(),
                        ),
                        None => c.trace(&r.text, r.context.as_deref()),
                    };
                    if let Some(t) = t {
                        out.push((index(t), r.label.index()));
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
        all.extend(out_task.into_iter().map(|(trace, gold)| Item {
            trace,
            gold,
            train: *train,
            held: *thresholds,
            weight: *weight,
            group,
        }));
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
        // Most real questions are low: classes balanced halfway (the
        // learned model's macro-F1 on `real-calibration`, which it never
        // learns from: 0.696 balanced fully, 0.716 at 0.75, 0.737 at 0.5,
        // 0.712 at 0.25, 0.710 with the data's own frequencies).
        Task::EffortInMessage => Trainer {
            features: FeatureConfig {
                hash_bits: 16,
                ..words
            },
            class_balance: 0.5,
            // The mean of eight example orders: on `real-calibration` one
            // order read 0.747 (hybrid macro-F1) and eight 0.731, before
            // the Italian questions; a model that depends on the luck of
            // one order is a poor basis for the thresholds.
            shuffles: 8,
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

/// How far below its best the first group's held-out macro-F1 may fall
/// when the thresholds serve several groups (none: at 0.005, granularity
/// gained 0.05 on real calibration text but its annotator-written dev
/// split fell below its 0.92 gate).
const ANCHOR_TOLERANCE: f64 = 0.0;

/// One point of the thresholds' grid: the thresholds, the mean macro-F1
/// over the groups, the first group's macro-F1, and how many items the
/// model decides.
type GridPoint = (HybridThresholds, f64, f64, usize);

/// The smallest word coverages (see `Prediction::coverage`) the grid tries
/// for `task`'s model: none and 0.50 to 0.95. Granularity tries none
/// alone: the gate its calibration splits chose (0.60) failed CI's dev
/// gate (the annotator-written dev split read 0.918, under its 0.92), so
/// on its dev text the model's confident answers on words new to it were
/// more often right than the cues.
/// With a user's data (`user`), every task tries the whole range: the
/// choice is then made on their calibration items.
fn coverage_grid(task: Task, user: bool) -> Vec<f32> {
    match task {
        Task::Granularity if !user => vec![0.0],
        _ => std::iter::once(0.0)
            .chain((10..=19u8).map(|v| 0.05 * f32::from(v)))
            .collect(),
    }
}

/// The point with the best mean over the groups, among those within
/// [`ANCHOR_TOLERANCE`] of the best first-group figure; on ties, the one
/// whose model decides least, then the first. Returns its mean, its count
/// of model decisions and its thresholds.
fn choose(grid: &[GridPoint]) -> Option<(f64, usize, HybridThresholds)> {
    let best_anchor = grid.iter().map(|p| p.2).fold(0.0f64, f64::max);
    let mut best: Option<(f64, usize, HybridThresholds)> = None;
    for &(t, score, anchor, n_def) in grid {
        if anchor + ANCHOR_TOLERANCE < best_anchor {
            continue;
        }
        let better = match &best {
            None => true,
            Some((s, d, _)) => score > *s + 1e-12 || ((score - *s).abs() <= 1e-12 && n_def < *d),
        };
        if better {
            best = Some((score, n_def, t));
        }
    }
    best
}

/// The trainer's group number of a source group.
fn group_index(group: &str) -> u32 {
    match group {
        "annotator" => 0,
        "real" => 1,
        "italian" => 3,
        _ => 2,
    }
}

/// Trains the model of `task` on `sources` with `trainer`.
pub fn train(task: Task, sources: &[Source], trainer: &Trainer) -> Result<Trained> {
    let data = traces(task, sources)?;
    if data.is_empty() {
        bail!("no training data for {}", task.name());
    }
    // Positions of the items the model learns from, and of each item among
    // them.
    let trained: Vec<usize> = (0..data.len()).filter(|&i| data[i].train).collect();
    if trained.is_empty() {
        bail!("no training data for {}", task.name());
    }
    let examples: Vec<Example> = trained
        .iter()
        .map(|&i| &data[i])
        .map(|it| {
            Example::new(
                &it.trace.input.text,
                it.trace
                    .input
                    .extras
                    .iter()
                    .map(|e| (*e).to_owned())
                    .collect(),
                it.gold,
            )
            .with_weight(it.weight)
            .in_group(group_index(it.group))
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
    let held: Vec<usize> = (0..data.len()).filter(|&i| data[i].held).collect();
    let held = if held.is_empty() {
        (0..data.len()).collect()
    } else {
        held
    };
    // The groups of held-out items, in order of first appearance, and the
    // positions (in `held`) of each group's items.
    let mut groups: Vec<(&'static str, Vec<usize>)> = Vec::new();
    for (pos, &i) in held.iter().enumerate() {
        match groups.iter_mut().find(|(g, _)| *g == data[i].group) {
            Some((_, v)) => v.push(pos),
            None => groups.push((data[i].group, vec![pos])),
        }
    }
    let gold: Vec<usize> = held.iter().map(|&i| data[i].gold).collect();
    let heuristic: Vec<usize> = held
        .iter()
        .map(|&i| data[i].trace.heuristic.label)
        .collect();
    // The model's prediction for each held-out item: out of fold for an
    // item it learned from, else the model's own.
    let mut oof = vec![None; data.len()];
    for (&i, p) in trained.iter().zip(&out_of_fold) {
        oof[i] = Some(p);
    }
    let model_says: Vec<Prediction> = held
        .iter()
        .map(|&i| match oof[i] {
            Some(p) => *p,
            None => {
                let input = &data[i].trace.input;
                model.predict(&input.text, input.extras.iter().copied())
            }
        })
        .collect();
    let learned: Vec<usize> = model_says.iter().map(Prediction::label).collect();
    // A group's macro-F1 over the labels its gold holds: real routing data
    // has no PLATFORM message, and one wrongly predicted must cost that
    // message, not a quarter of the figure.
    let group_f1 = |members: &[usize], pred: &[usize]| {
        let g: Vec<usize> = members.iter().map(|&p| gold[p]).collect();
        let p: Vec<usize> = members.iter().map(|&p| pred[p]).collect();
        let per = metrics::score(&names, &g, &p).2;
        let f1s: Vec<f64> = per
            .0
            .iter()
            .filter(|(_, m)| m.support > 0)
            .map(|(_, m)| m.f1)
            .collect();
        f1s.iter().sum::<f64>() / f1s.len().max(1) as f64
    };
    let f1 = |pred: &[usize]| {
        groups.iter().map(|(_, m)| group_f1(m, pred)).sum::<f64>() / groups.len().max(1) as f64
    };
    // The hybrid's labels under `t`, and how many items the model decided.
    let hybrid = |t: &HybridThresholds| -> (Vec<usize>, usize) {
        let mut n_def = 0;
        let pred = held
            .iter()
            .zip(&model_says)
            .map(|(&i, p)| {
                let tr = &data[i].trace;
                if defers(tr.heuristic.confidence, tr.gap, tr.fixed, t) && t.trusts(p) {
                    n_def += 1;
                    p.label()
                } else {
                    tr.heuristic.label
                }
            })
            .collect();
        (pred, n_def)
    };
    let user = sources.iter().any(|s| s.group == "dataset");
    let mut grid = Vec::new();
    for c in 0..=14u8 {
        for g in 0..=12u8 {
            for m in std::iter::once(0.0).chain((10..=19u8).map(|m| 0.05 * f32::from(m))) {
                for v in coverage_grid(task, user) {
                    let t = HybridThresholds::new(0.25 + 0.05 * f32::from(c), 0.25 * f32::from(g))
                        .with_min_model_confidence(m)
                        .with_min_model_coverage(v);
                    let (pred, n_def) = hybrid(&t);
                    let anchor = groups.first().map_or(0.0, |(_, m)| group_f1(m, &pred));
                    grid.push((t, f1(&pred), anchor, n_def));
                }
            }
        }
    }
    // The point with the best mean macro-F1 over the groups, among those
    // within ANCHOR_TOLERANCE of the best figure on the first group (the
    // fixtures' own data: other text must not be bought with it); on
    // ties, the one whose model decides least.
    let (hybrid_f1, n_def, thresholds) = choose(&grid).unwrap_or((0.0, 0, FALLBACK_THRESHOLDS));
    model.set_hybrid(Some(thresholds));
    let (chosen, _) = hybrid(&thresholds);
    let group_figures = if groups.len() > 1 {
        groups
            .iter()
            .map(|(name, m)| GroupFigures {
                name: (*name).to_owned(),
                items: m.len(),
                heuristic_f1: group_f1(m, &heuristic),
                learned_f1: group_f1(m, &learned),
                hybrid_f1: group_f1(m, &chosen),
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok(Trained {
        task,
        examples: trained.len(),
        held_out: held.len(),
        heuristic_f1: f1(&heuristic),
        learned_f1: f1(&learned),
        hybrid_f1,
        deferred: n_def as f64 / held.len().max(1) as f64,
        groups: group_figures,
        model,
    })
}

/// The fixture files of `task` a training reads: the train split (the
/// heuristic was tuned on it), the calibration split (it was not; the
/// hybrid thresholds are chosen there), for effort the Italian train and
/// calibration splits (`train-it`, `calibration-it`, the same roles),
/// the real calibration split (for
/// the thresholds alone) and, with `real` (their weight), the real train
/// splits. Effort's in-message model reads its own set
/// ([`in_message_sources`]; `real` weighs its real train split, 1 when
/// `None`).
pub fn fixture_sources(root: &Path, task: Task, real: Option<f64>) -> Vec<Source> {
    if task == Task::EffortInMessage {
        return in_message_sources(&root.join("fixtures/effort"), real.unwrap_or(1.0));
    }
    let dir = root.join("fixtures").join(task.name());
    let mut out = vec![Source {
        path: dir.join("train.jsonl"),
        train: true,
        thresholds: false,
        weight: 1.0,
        group: "annotator",
    }];
    // The annotator-written calibration split, then (with `--real`) the
    // real train and calibration splits where a task has them (the
    // heuristic was tuned on neither calibration split).
    // (name, learned from, thresholds chosen on it, weight, group)
    // Effort's Italian questions (annotator-written too) come in files of
    // their own, so that the in-message model, whose thresholds real
    // English text decides, can leave them out.
    let mut names = vec![
        ("calibration", true, true, 1.0, "annotator"),
        ("train-it", true, false, 1.0, "annotator"),
        ("calibration-it", true, true, 1.0, "annotator"),
    ];
    if let Some(w) = real {
        names.extend([
            ("real-train", true, false, w, "real"),
            // Real text under CC-BY-SA is kept in a file that says so.
            ("real-train-ccbysa", true, false, w, "real"),
        ]);
    }
    // The real calibration split serves the thresholds alone: the model
    // never learns from it, so its figures there stay honest.
    names.push(("real-calibration", false, true, 1.0, "real"));
    for (name, train, thresholds, weight, group) in names {
        let path = dir.join(format!("{name}.jsonl"));
        if path.exists() {
            out.push(Source {
                path,
                train,
                thresholds,
                weight,
                group,
            });
        }
    }
    out
}

/// The training files of effort's model for questions read in their
/// message: both annotator-written splits and the real train split
/// (weighted `real`) to learn from, the real calibration split alone for
/// the thresholds. The annotator-written questions come without a message
/// and are read by the other model, so its figures are not this model's
/// concern; learning from them too gained on `real-calibration` (the
/// learned model's macro-F1 0.696 against 0.665 from the real split
/// alone).
fn in_message_sources(dir: &Path, real: f64) -> Vec<Source> {
    [
        ("train", true, false, 1.0, "annotator"),
        ("calibration", true, false, 1.0, "annotator"),
        ("real-train", true, false, real, "real"),
        ("real-calibration", false, true, 1.0, "real"),
        ("train-it", true, false, 1.0, "italian"),
        ("calibration-it", true, true, 1.0, "italian"),
    ]
    .into_iter()
    .map(|(name, train, thresholds, weight, group)| Source {
        path: dir.join(format!("{name}.jsonl")),
        train,
        thresholds,
        weight,
        group,
    })
    .filter(|s| s.path.exists())
    .collect()
}

/// The default output folder of the models.
pub fn default_out(root: &Path) -> PathBuf {
    root.join("crates/classifiers/models")
}

/// Writes `model` to `<out>/<task>.json` (the model file a user reads and
/// loads) and `<out>/<task>.bin` (the same model in binary form, which the
/// library embeds and reads at start without parsing text), each through
/// a temporary file, so that a failed write leaves the previous file whole.
pub fn write(out: &Path, trained: &Trained) -> Result<PathBuf> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let name = trained.task.name();
    let put = |ext: &str, bytes: &[u8]| -> Result<PathBuf> {
        let path = out.join(format!("{name}.{ext}"));
        let tmp = out.join(format!(".{name}.{ext}.tmp"));
        std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))?;
        Ok(path)
    };
    let path = put("json", trained.model.to_json().as_bytes())?;
    // The binary form of the model as the JSON reads back (its weights
    // rounded as the file writes them), so both load the same model.
    let reread = tact_classifiers::learned::LinearModel::from_json(&trained.model.to_json())?;
    put("bin", &reread.to_bytes())?;
    Ok(path)
}

/// One summary line of a training.
pub fn summary(t: &Trained) -> String {
    let h = t.model.hybrid().unwrap_or(FALLBACK_THRESHOLDS);
    let mut line = format!(
        "{:<12} {:>5} examples {:>6} weight rows  T={:.2}  macro-F1 on {} held-out items (mean over groups): heuristic {:.3} learned {:.3} hybrid {:.3} (defers {:.0}% at confidence < {:.2} or gap < {:.2}, to a model at least {:.2} sure that knows at least {:.2} of the words)",
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
        h.min_model_confidence,
        h.min_model_coverage,
    );
    for g in &t.groups {
        line.push_str(&format!(
            "\n{:<12} {:<10} {:>4} held-out items: heuristic {:.3} learned {:.3} hybrid {:.3}",
            "", g.name, g.items, g.heuristic_f1, g.learned_f1, g.hybrid_f1
        ));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(c: f32, score: f64, anchor: f64, n: usize) -> GridPoint {
        (HybridThresholds::new(c, 0.0), score, anchor, n)
    }

    #[test]
    fn the_first_group_at_its_best_bounds_the_choice() {
        // The best mean (0.9) costs the first group: not taken.
        let grid = [
            point(0.3, 0.90, 0.80, 10),
            point(0.4, 0.70, 0.85, 10),
            point(0.5, 0.75, 0.85, 12),
        ];
        let (score, n, t) = choose(&grid).unwrap();
        assert_eq!((score, n, t.min_confidence), (0.75, 12, 0.5));
    }

    #[test]
    fn the_coverage_gate_is_tried_where_no_dev_gate_refused_it() {
        assert_eq!(coverage_grid(Task::Granularity, false), vec![0.0]);
        for (task, user) in [
            (Task::Effort, false),
            (Task::EffortInMessage, false),
            (Task::Route, false),
            (Task::Granularity, true),
            (Task::Route, true),
        ] {
            let g = coverage_grid(task, user);
            assert_eq!((g.len(), g[0], g[1], g[10]), (11, 0.0, 0.5, 0.95));
        }
    }

    #[test]
    fn ties_go_to_the_point_whose_model_decides_least() {
        let grid = [
            point(0.3, 0.8, 0.9, 20),
            point(0.4, 0.8, 0.9, 5),
            point(0.5, 0.8, 0.9, 5),
        ];
        assert_eq!(choose(&grid).unwrap().2.min_confidence, 0.4);
        assert!(choose(&[]).is_none());
    }
}
