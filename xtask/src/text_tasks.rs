//! The `granularity` and `route` tasks of `cargo xtask eval`: load the
//! labelling guide's records, run a strategy over each (the route task
//! feeds each line's `history`), and time every item.

use std::path::Path;

use anyhow::Result;
use tact_classifiers::granularity::{GranularityClassifier, Strategy as GranularityStrategy};
use tact_classifiers::route::{Router, Strategy as RouteStrategy};
use tact_core::dataset::read_jsonl;
use tact_types::dataset::{GranularityExample, RouteExample};
use tact_types::{Granularity, Label, QueryType};

use crate::tasks::{Outcome, Task, count_deferred, timed};

/// Query granularity (`fine-grained` / `holistic`).
pub struct GranularityTask;

impl Task for GranularityTask {
    fn name(&self) -> &'static str {
        "granularity"
    }

    fn labels(&self) -> Vec<&'static str> {
        Granularity::ALL.iter().map(|l| l.as_str()).collect()
    }

    fn strategies(&self) -> Vec<&'static str> {
        GranularityStrategy::ALL.iter().map(|s| s.name()).collect()
    }

    fn evaluate(&self, path: &Path, strategy: &str) -> Result<Outcome> {
        let items = read_jsonl::<GranularityExample>(path)?;
        let classifier = GranularityClassifier::builder()
            .strategy(strategy.parse()?)
            .build()?;
        let (pred, latencies_ns) = timed(&items, |l| {
            classifier.classify(&l.record.text).label().index()
        });
        let deferred = count_deferred(strategy, &items, |l| {
            classifier.classify(&l.record.text).classification.tier
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

/// Query routing (`RETRIEVAL` / `CODE_GENERATION` / `CONVERSATIONAL` /
/// `PLATFORM`), with each line's history.
pub struct RouteTask;

impl Task for RouteTask {
    fn name(&self) -> &'static str {
        "route"
    }

    fn labels(&self) -> Vec<&'static str> {
        QueryType::ALL.iter().map(|l| l.as_str()).collect()
    }

    fn strategies(&self) -> Vec<&'static str> {
        RouteStrategy::ALL.iter().map(|s| s.name()).collect()
    }

    fn evaluate(&self, path: &Path, strategy: &str) -> Result<Outcome> {
        let items = read_jsonl::<RouteExample>(path)?;
        let router = Router::builder().strategy(strategy.parse()?).build()?;
        let (pred, latencies_ns) = timed(&items, |l| {
            router
                .route(&l.record.text, &l.record.history)
                .label()
                .index()
        });
        let deferred = count_deferred(strategy, &items, |l| {
            router
                .route(&l.record.text, &l.record.history)
                .classification
                .tier
        });
        Ok(Outcome {
            gold: items.iter().map(|l| l.record.label.index()).collect(),
            pred,
            latencies_ns,
            deferred,
            items: items
                .iter()
                .map(|l| {
                    let mut shown = l.record.text.clone();
                    if !l.record.history.is_empty() {
                        let h: Vec<String> = l
                            .record
                            .history
                            .iter()
                            .map(|e| format!("[{}] {}", e.kind, e.snippet))
                            .collect();
                        shown.push_str(&format!("  (history: {})", h.join(" | ")));
                    }
                    (l.line, shown)
                })
                .collect(),
        })
    }
}
