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
    /// Accuracy of the heuristic, the hybrid and the learned model.
    pub accuracy: (f64, f64, f64),
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

#[derive(Clone)]
/// One training item: the heuristic trace, the gold label index, whether
/// it serves the threshold choice, its weight and its group.
struct Item {
    trace: Traced<usize>,
    gold: usize,
    train: bool,
    held: bool,
    weight: f64,
    group: &'static str,
    /// Its corpus: the `source` field up to its first `@` or `#`
    /// (`(none)` without one).
    source: String,
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
        // (trace, gold label, line)
        let mut out_task: Vec<(Traced<usize>, usize, usize)> = Vec::new();
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
                        out.push((index(t), r.label.index(), l.line));
                    }
                }
            }
            Task::Granularity => {
                let c = GranularityClassifier::builder()
                    .strategy(GranularityStrategy::Heuristic)
                    .build()?;
                for l in read_jsonl::<GranularityExample>(path)? {
                    if let Some(t) = c.trace(&l.record.text) {
                        out.push((index(t), l.record.label.index(), l.line));
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
                        out.push((index(t), l.record.label.index(), l.line));
                    }
                }
            }
            _ => bail!("no learned tier for task {}", task.name()),
        }
        let corpus = corpora(path)?;
        all.extend(out_task.into_iter().map(|(trace, gold, line)| {
            Item {
                trace,
                gold,
                train: *train,
                held: *thresholds,
                weight: *weight,
                group,
                source: corpus
                    .get(&line)
                    .cloned()
                    .unwrap_or_else(|| "(none)".to_owned()),
            }
        }));
    }
    Ok(all)
}

/// The corpus of each line of a dataset file (its `source` up to the
/// first `@` or `#`), by line number.
fn corpora(path: &Path) -> Result<std::collections::HashMap<usize, String>> {
    Ok(
        read_jsonl::<serde_json::Map<String, serde_json::Value>>(path)?
            .into_iter()
            .map(|l| (l.line, metrics::group_key("source", l.record.get("source"))))
            .collect(),
    )
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
/// (byte n-grams lowered their scores and cost a microsecond). Issue 40
/// chose the rest on the mean over the held-out groups (docs/models.md):
/// routing reads byte 3-5-grams at a quarter of a word's weight in 2^16
/// buckets (in 2^14 they lost their gain on the calibration splits), and
/// `effort-in-message` word unigrams and byte 2-4-grams. Ten epochs; 2^16
/// buckets (fewer cost effort and granularity 0.02-0.03 macro-F1).
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
                hash_bits: 16,
                word_ngrams: 1,
                char_ngrams: [3, 5],
                char_weight: 0.25,
            },
            l2: 1e-5,
            // The mean of eight example orders (docs/models.md): on the
            // calibration splits 0.626 against one order's 0.624 (routing
            // accuracy on `real-calibration` 0.756 against 0.747), left
            // one corpus out item-weighted accuracy 0.759 against 0.747.
            shuffles: 8,
            ..base
        },
        // Most real questions are low: classes balanced halfway (the
        // learned model's macro-F1 on `real-calibration`, which it never
        // learns from: 0.696 balanced fully, 0.716 at 0.75, 0.737 at 0.5,
        // 0.712 at 0.25, 0.710 with the data's own frequencies).
        Task::EffortInMessage => Trainer {
            features: FeatureConfig {
                hash_bits: 16,
                word_ngrams: 1,
                char_ngrams: [2, 4],
                char_weight: 0.25,
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
/// when the thresholds serve several groups. None: on the calibration
/// splits, a tolerance of 0.01 to 0.02 bought real text at less than
/// three times its cost on the annotator-written split (granularity:
/// annotator-written 0.922 -> 0.914 for `real-calibration` 0.897 ->
/// 0.906; routing 0.894 -> 0.890 for accuracy 0.756 -> 0.750 ... see
/// docs/models.md), the exchange rate issue 40 sets.
const ANCHOR_TOLERANCE: f64 = 0.0;

/// The weight of each real train item against 1 for an annotator-written
/// one, per task, chosen on the calibration splits (docs/models.md): the
/// best mean over the groups among the weights that keep the
/// annotator-written calibration figure at its best. `effort-in-message`
/// learns from the real questions at full weight (their model), the
/// others at a fraction, so that the annotator-written text, more of
/// which is clean, keeps its say.
pub fn real_weight_for(task: Task) -> Option<f64> {
    match task {
        Task::Effort => None,
        Task::Granularity => Some(0.3),
        Task::Route => Some(0.1),
        _ => Some(1.0),
    }
}

/// How far below the heuristic any other group's hybrid may fall.
const BELOW_HEURISTIC: f64 = 0.01;

/// One point of the thresholds' grid: the thresholds, the mean macro-F1
/// over the groups, the first group's macro-F1, how many items the
/// model decides, and whether every other group's hybrid stays within
/// [`BELOW_HEURISTIC`] of its heuristic.
type GridPoint = (HybridThresholds, f64, f64, usize, bool);

/// The smallest word coverages (see `Prediction::coverage`) the grid
/// tries: none and 0.50 to 0.95, for every task. The real train items'
/// predictions come from models blind to their corpus, so the gate is
/// chosen on text the model has not seen the like of.
fn coverage_grid() -> Vec<f32> {
    std::iter::once(0.0)
        .chain((10..=19u8).map(|v| 0.05 * f32::from(v)))
        .collect()
}

/// The point with the best mean over the groups, among those within
/// `tolerance` of the best first-group figure and (where any point is)
/// those whose hybrid stays within [`BELOW_HEURISTIC`] of the heuristic
/// on every other group; on ties, the one whose model decides least, then
/// the first. Returns its mean, its count of model decisions and its
/// thresholds.
fn choose(grid: &[GridPoint], tolerance: f64) -> Option<(f64, usize, HybridThresholds)> {
    let any_safe = grid.iter().any(|p| p.4);
    let best_anchor = grid
        .iter()
        .filter(|p| p.4 || !any_safe)
        .map(|p| p.2)
        .fold(0.0f64, f64::max);
    let mut best: Option<(f64, usize, HybridThresholds)> = None;
    for &(t, score, anchor, n_def, safe) in grid {
        if anchor + tolerance < best_anchor || (any_safe && !safe) {
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
    fit(task, &data, trainer)
}

/// Trains the model of `task` on the items of `data` marked `train`, and
/// chooses its hybrid thresholds on those marked `held`.
fn fit(task: Task, data: &[Item], trainer: &Trainer) -> Result<Trained> {
    if data.is_empty() {
        bail!("no training data for {}", task.name());
    }
    // Positions of the items the model learns from, and of each item among
    // them.
    let trained: Vec<usize> = (0..data.len()).filter(|&i| data[i].train).collect();
    if trained.is_empty() {
        bail!("no training data for {}", task.name());
    }
    // The real items' out-of-fold splits go by corpus: each is predicted by
    // a model that saw nothing of its corpus, as a user's text will be.
    let mut corpora: Vec<&str> = Vec::new();
    let examples: Vec<Example> = trained
        .iter()
        .map(|&i| &data[i])
        .map(|it| {
            let fold =
                (it.group == "real").then(|| match corpora.iter().position(|c| *c == it.source) {
                    Some(k) => k,
                    None => {
                        corpora.push(&it.source);
                        corpora.len() - 1
                    }
                });
            let e = Example::new(
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
            .in_group(group_index(it.group));
            match fold {
                Some(k) => e.in_fold(k as u32),
                None => e,
            }
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
    // The real train split's items (predicted by models blind to their
    // corpus) are a group of their own: the real calibration split is
    // predicted by the model trained on everything.
    let mut groups: Vec<(&'static str, Vec<usize>)> = Vec::new();
    for (pos, &i) in held.iter().enumerate() {
        let name = match data[i].group {
            "real" if data[i].train => "real-train",
            g => g,
        };
        match groups.iter_mut().find(|(g, _)| *g == name) {
            Some((_, v)) => v.push(pos),
            None => groups.push((name, vec![pos])),
        }
    }
    // The first group anchors the choice: never the left-out corpora.
    groups.sort_by_key(|(g, _)| *g == "real-train");
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
    let heuristic_by_group: Vec<f64> = groups
        .iter()
        .skip(1)
        .map(|(_, m)| group_f1(m, &heuristic))
        .collect();
    let mut grid = Vec::new();
    for c in 0..=14u8 {
        for g in 0..=12u8 {
            for m in std::iter::once(0.0).chain((10..=19u8).map(|m| 0.05 * f32::from(m))) {
                for v in coverage_grid() {
                    let t = HybridThresholds::new(0.25 + 0.05 * f32::from(c), 0.25 * f32::from(g))
                        .with_min_model_confidence(m)
                        .with_min_model_coverage(v);
                    let (pred, n_def) = hybrid(&t);
                    let anchor = groups.first().map_or(0.0, |(_, m)| group_f1(m, &pred));
                    let safe = groups
                        .iter()
                        .skip(1)
                        .zip(&heuristic_by_group)
                        .all(|((_, m), h)| group_f1(m, &pred) + BELOW_HEURISTIC >= *h);
                    grid.push((t, f1(&pred), anchor, n_def, safe));
                }
            }
        }
    }
    // The point with the best mean macro-F1 over the groups, among those
    // within ANCHOR_TOLERANCE of the best figure on the first group (the
    // fixtures' own data: other text must not be bought with it); on
    // ties, the one whose model decides least.
    let (hybrid_f1, n_def, thresholds) =
        choose(&grid, ANCHOR_TOLERANCE).unwrap_or((0.0, 0, FALLBACK_THRESHOLDS));
    model.set_hybrid(Some(thresholds));
    let (chosen, _) = hybrid(&thresholds);
    let group_figures = if groups.len() > 1 {
        groups
            .iter()
            .map(|(name, m)| GroupFigures {
                name: (*name).to_owned(),
                items: m.len(),
                accuracy: (
                    m.iter().filter(|&&p| heuristic[p] == gold[p]).count() as f64
                        / m.len().max(1) as f64,
                    m.iter().filter(|&&p| chosen[p] == gold[p]).count() as f64
                        / m.len().max(1) as f64,
                    m.iter().filter(|&&p| learned[p] == gold[p]).count() as f64
                        / m.len().max(1) as f64,
                ),
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

/// Macro-F1 over the labels `gold` holds (real routing data has no
/// PLATFORM message: one wrongly predicted costs that message, not a
/// quarter of the figure), and accuracy.
fn present_f1(names: &[&str], gold: &[usize], pred: &[usize]) -> (f64, f64) {
    let (accuracy, _, per, _) = metrics::score(names, gold, pred);
    let f1s: Vec<f64> = per
        .0
        .iter()
        .filter(|(_, m)| m.support > 0)
        .map(|(_, m)| m.f1)
        .collect();
    (f1s.iter().sum::<f64>() / f1s.len().max(1) as f64, accuracy)
}

/// What the model trained without one real corpus does on it.
pub struct LeftOut {
    /// The corpus (`source` up to its first `@` or `#`).
    pub source: String,
    pub items: usize,
    /// Macro-F1 over the labels its gold holds, and accuracy: the
    /// heuristic alone, then the hybrid (the model trained without the
    /// corpus, with the thresholds chosen without it).
    pub heuristic: (f64, f64),
    pub hybrid: (f64, f64),
    /// The share of its items the model decided.
    pub deferred: f64,
}

/// Leave-one-source-out: for each corpus of the `probe` files (the real
/// train and calibration splits), trains `task` on `sources` without any
/// item of that corpus (the thresholds chosen without it too) and
/// measures the hybrid on the corpus's items of the probe files, as the
/// training simulates the hybrid (the heuristic's trace, the model's
/// prediction, the thresholds). A corpus no split comes from is how users'
/// text meets the model.
pub fn leave_one_source_out(
    task: Task,
    sources: &[Source],
    probe: &[PathBuf],
    trainer: &Trainer,
) -> Result<Vec<LeftOut>> {
    let data = traces(task, sources)?;
    let probe_sources: Vec<Source> = probe
        .iter()
        .map(|p| Source {
            path: p.clone(),
            train: false,
            thresholds: false,
            weight: 1.0,
            group: "real",
        })
        .collect();
    let probe = traces(task, &probe_sources)?;
    let mut keys: Vec<&str> = Vec::new();
    for it in &probe {
        if !keys.contains(&it.source.as_str()) {
            keys.push(&it.source);
        }
    }
    let labels = task.labels();
    let names: Vec<&str> = labels.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    for key in keys {
        let rest: Vec<Item> = data.iter().filter(|it| it.source != key).cloned().collect();
        let t = fit(task, &rest, trainer)?;
        let th = t.model.hybrid().unwrap_or(FALLBACK_THRESHOLDS);
        let items: Vec<&Item> = probe.iter().filter(|it| it.source == key).collect();
        let gold: Vec<usize> = items.iter().map(|it| it.gold).collect();
        let heuristic: Vec<usize> = items.iter().map(|it| it.trace.heuristic.label).collect();
        let mut n_def = 0;
        let hybrid: Vec<usize> = items
            .iter()
            .map(|it| {
                let tr = &it.trace;
                if defers(tr.heuristic.confidence, tr.gap, tr.fixed, &th) {
                    let p = t
                        .model
                        .predict(&tr.input.text, tr.input.extras.iter().copied());
                    if th.trusts(&p) {
                        n_def += 1;
                        return p.label();
                    }
                }
                tr.heuristic.label
            })
            .collect();
        out.push(LeftOut {
            source: key.to_owned(),
            items: items.len(),
            heuristic: present_f1(&names, &gold, &heuristic),
            hybrid: present_f1(&names, &gold, &hybrid),
            deferred: n_def as f64 / items.len().max(1) as f64,
        });
    }
    Ok(out)
}

/// The real train and calibration files of `task` (the corpora a
/// leave-one-source-out run leaves out in turn).
pub fn real_probe_files(root: &Path, task: Task) -> Vec<PathBuf> {
    let dir = match task {
        Task::EffortInMessage => "effort",
        t => t.name(),
    };
    ["real-train", "real-train-ccbysa", "real-calibration"]
        .iter()
        .map(|n| root.join("fixtures").join(dir).join(format!("{n}.jsonl")))
        .filter(|p| p.exists())
        .collect()
}

/// The leave-one-source-out table of a task: one line per corpus, then
/// the mean and the worst over the corpora of at least `min_items` items,
/// and the figures over every item.
pub fn left_out_table(task: Task, rows: &[LeftOut], min_items: usize) -> String {
    let mut s = format!(
        "{}: leave one source out ({} corpora)\n  {:<48} {:>5}  {:>9} {:>9}  {:>9} {:>9}  {:>8}\n",
        task.name(),
        rows.len(),
        "corpus",
        "items",
        "heur F1",
        "heur acc",
        "hyb F1",
        "hyb acc",
        "deferred"
    );
    for r in rows {
        s.push_str(&format!(
            "  {:<48} {:>5}  {:>9.3} {:>9.3}  {:>9.3} {:>9.3}  {:>7.0}%\n",
            r.source,
            r.items,
            r.heuristic.0,
            r.heuristic.1,
            r.hybrid.0,
            r.hybrid.1,
            r.deferred * 100.0
        ));
    }
    let big: Vec<&LeftOut> = rows.iter().filter(|r| r.items >= min_items).collect();
    let n = big.len().max(1) as f64;
    let mean = |f: &dyn Fn(&LeftOut) -> f64| big.iter().map(|r| f(r)).sum::<f64>() / n;
    let worst = |f: &dyn Fn(&LeftOut) -> f64| {
        big.iter()
            .map(|r| (f(r), r.source.as_str()))
            .fold((f64::INFINITY, ""), |a, b| if b.0 < a.0 { b } else { a })
    };
    let (wf, wf_src) = worst(&|r| r.hybrid.0);
    let (wa, wa_src) = worst(&|r| r.hybrid.1);
    let total: usize = rows.iter().map(|r| r.items).sum();
    let pooled = |f: &dyn Fn(&LeftOut) -> f64| {
        rows.iter().map(|r| f(r) * r.items as f64).sum::<f64>() / total.max(1) as f64
    };
    s.push_str(&format!(
        "  over the {} corpora of {min_items}+ items: mean hybrid macro-F1 {:.3} (heuristic {:.3}), accuracy {:.3} (heuristic {:.3}); worst macro-F1 {:.3} ({wf_src}), worst accuracy {:.3} ({wa_src}); item-weighted accuracy over all {total} items: hybrid {:.3}, heuristic {:.3}\n",
        big.len(),
        mean(&|r| r.hybrid.0),
        mean(&|r| r.heuristic.0),
        mean(&|r| r.hybrid.1),
        mean(&|r| r.heuristic.1),
        wf,
        wa,
        pooled(&|r| r.hybrid.1),
        pooled(&|r| r.heuristic.1),
    ));
    s
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
    // The real train splits serve the thresholds too: their items are
    // predicted by models trained without their corpus.
    if let Some(w) = real {
        names.extend([
            ("real-train", true, true, w, "real"),
            // Real text under CC-BY-SA is kept in a file that says so.
            ("real-train-ccbysa", true, true, w, "real"),
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
        ("real-train", true, true, real, "real"),
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
            "\n{:<12} {:<10} {:>4} held-out items: heuristic {:.3} learned {:.3} hybrid {:.3} (accuracy {:.3} -> {:.3}, learned {:.3})",
            "", g.name, g.items, g.heuristic_f1, g.learned_f1, g.hybrid_f1, g.accuracy.0, g.accuracy.1, g.accuracy.2
        ));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(c: f32, score: f64, anchor: f64, n: usize) -> GridPoint {
        (HybridThresholds::new(c, 0.0), score, anchor, n, true)
    }

    #[test]
    fn the_first_group_at_its_best_bounds_the_choice() {
        // The best mean (0.9) costs the first group: not taken.
        let grid = [
            point(0.3, 0.90, 0.80, 10),
            point(0.4, 0.70, 0.85, 10),
            point(0.5, 0.75, 0.85, 12),
        ];
        let (score, n, t) = choose(&grid, 0.0).unwrap();
        assert_eq!((score, n, t.min_confidence), (0.75, 12, 0.5));
    }

    #[test]
    fn the_coverage_gate_is_tried_from_none_to_095() {
        let g = coverage_grid();
        assert_eq!((g.len(), g[0], g[1], g[10]), (11, 0.0, 0.5, 0.95));
    }

    #[test]
    fn a_point_below_the_heuristic_on_another_group_is_not_taken() {
        let mut grid = vec![point(0.3, 0.95, 0.9, 10), point(0.4, 0.80, 0.9, 10)];
        grid[0].4 = false;
        assert_eq!(choose(&grid, 0.0).unwrap().2.min_confidence, 0.4);
        // The best first-group figure is taken among the safe points.
        grid[1].2 = 0.85;
        assert_eq!(choose(&grid, 0.0).unwrap().2.min_confidence, 0.4);
        // With no safe point, the rule falls back to the first group.
        grid[1].4 = false;
        assert_eq!(choose(&grid, 0.0).unwrap().2.min_confidence, 0.3);
    }

    #[test]
    fn ties_go_to_the_point_whose_model_decides_least() {
        let grid = [
            point(0.3, 0.8, 0.9, 20),
            point(0.4, 0.8, 0.9, 5),
            point(0.5, 0.8, 0.9, 5),
        ];
        assert_eq!(choose(&grid, 0.0).unwrap().2.min_confidence, 0.4);
        assert!(choose(&[], 0.0).is_none());
    }
}
