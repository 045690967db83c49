//! The evaluable tasks: each loads its dataset format (per the labelling
//! guide), runs a strategy over every item, and returns gold labels,
//! predictions and per-item latencies.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use tact_classifiers::effort::{EffortClassifier, Strategy as EffortStrategy};
use tact_core::dataset::read_jsonl;
use tact_types::Label;
use tact_types::dataset::EffortExample;

/// What a run of one strategy over one dataset produced.
pub struct Outcome {
    pub gold: Vec<usize>,
    pub pred: Vec<usize>,
    pub latencies_ns: Vec<u64>,
    /// Each item's line number and text, for listing the errors.
    pub items: Vec<(usize, String)>,
    /// For the `hybrid` strategy: how many items the heuristic deferred
    /// to the learned model.
    pub deferred: Option<usize>,
}

/// Counts the items whose decision came from the learned tier, for the
/// `hybrid` strategy (an untimed pass; `None` for other strategies).
pub fn count_deferred<I>(
    strategy: &str,
    items: &[I],
    tier: impl Fn(&I) -> Option<tact_types::Tier>,
) -> Option<usize> {
    (strategy == "hybrid").then(|| {
        items
            .iter()
            .filter(|i| tier(i) == Some(tact_types::Tier::Learned))
            .count()
    })
}

/// A task `cargo xtask eval` can measure.
pub trait Task {
    /// The task's name as in the labelling guide.
    fn name(&self) -> &'static str;
    /// The label set, in table order.
    fn labels(&self) -> Vec<&'static str>;
    /// The strategy names, the default first.
    fn strategies(&self) -> Vec<&'static str>;
    /// Loads `path` (failing on the first bad line, naming file and line)
    /// and runs `strategy` over it.
    fn evaluate(&self, path: &Path, strategy: &str) -> Result<Outcome>;
}

/// Every task, in report order.
pub fn all() -> Vec<Box<dyn Task>> {
    vec![
        Box::new(Effort),
        Box::new(crate::text_tasks::GranularityTask),
        Box::new(crate::text_tasks::RouteTask),
    ]
}

/// Runs `predict` over every item once to warm up, then again timing each
/// call on its own.
pub fn timed<I>(items: &[I], predict: impl Fn(&I) -> usize) -> (Vec<usize>, Vec<u64>) {
    for item in items {
        black_box(predict(black_box(item)));
    }
    let mut preds = Vec::with_capacity(items.len());
    let mut lat = Vec::with_capacity(items.len());
    for item in items {
        let t = Instant::now();
        let p = black_box(predict(black_box(item)));
        lat.push(u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX));
        preds.push(p);
    }
    (preds, lat)
}

/// Question effort (`low` / `medium` / `high`).
pub struct Effort;

impl Task for Effort {
    fn name(&self) -> &'static str {
        "effort"
    }

    fn labels(&self) -> Vec<&'static str> {
        tact_types::EffortLevel::ALL
            .iter()
            .map(|l| l.as_str())
            .collect()
    }

    fn strategies(&self) -> Vec<&'static str> {
        EffortStrategy::ALL.iter().map(|s| s.name()).collect()
    }

    fn evaluate(&self, path: &Path, strategy: &str) -> Result<Outcome> {
        let items = read_jsonl::<EffortExample>(path)?;
        let classifier = EffortClassifier::builder()
            .strategy(strategy.parse()?)
            .build()?;
        let (pred, latencies_ns) = timed(&items, |l| {
            classifier
                .classify(&l.record.text, l.record.context.as_deref())
                .label
                .index()
        });
        let deferred = count_deferred(strategy, &items, |l| {
            classifier
                .classify(&l.record.text, l.record.context.as_deref())
                .tier
        });
        Ok(Outcome {
            gold: items.iter().map(|l| l.record.label.index()).collect(),
            pred,
            latencies_ns,
            deferred,
            items: items
                .iter()
                .map(|l| (l.line, l.record.text.clone()))
                .collect(),
        })
    }
}
