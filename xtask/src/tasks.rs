//! The evaluable text tasks (effort, granularity, route), one adapter over
//! every [`TextClassifier`]: each loads its dataset format (per the
//! labelling guide), runs a strategy over every item, and returns gold
//! labels, predictions and per-item latencies.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use tact_classifiers::effort::EffortClassifier;
use tact_classifiers::granularity::GranularityClassifier;
use tact_classifiers::route::Router;
use tact_classifiers::{TextClassifier, TextDecision};
use tact_core::dataset::read_jsonl;
use tact_types::Label;

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
    /// For the `llm` and `cascade` strategies: what the model tier did.
    pub model_tier: Option<ModelTier>,
}

/// What the model tier did over one run (`llm`, `cascade`).
pub struct ModelTier {
    /// Items put to the model (cache hits included).
    pub escalated: u64,
    /// Usable answers.
    pub answered: u64,
    /// Failed calls (each kept the cheaper decision).
    pub failures: u64,
    /// The time of each call sent to the server.
    pub latencies_ns: Vec<u64>,
    /// Failures by kind and the structured form used, in words.
    pub detail: String,
}

/// The strategies that add the model tier to the hybrid: `llm` asks the
/// model about every item (but RC-01 and RC-02), `cascade` about those
/// below the task's threshold. Both use the settings given to
/// [`set_llm_config`] (else the environment's).
pub const MODEL_STRATEGIES: [&str; 2] = ["llm", "cascade"];

/// The model tier's settings for this run (set once by `eval`).
static LLM_CONFIG: std::sync::OnceLock<tact_llm::LlmConfig> = std::sync::OnceLock::new();

/// Sets the model tier's settings of the `llm` and `cascade` strategies.
pub fn set_llm_config(config: tact_llm::LlmConfig) {
    let _ = LLM_CONFIG.set(config);
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

/// Every text task, in report order.
pub fn all() -> Vec<Box<dyn Task>> {
    vec![
        Box::new(TextTask::<EffortClassifier>::new()),
        Box::new(TextTask::<GranularityClassifier>::new()),
        Box::new(TextTask::<Router>::new()),
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

/// A text task measured through its classifier's [`TextClassifier`]
/// side: datasets split into inputs and gold labels, a strategy built by
/// name, each decision's label and tier.
pub struct TextTask<C>(std::marker::PhantomData<fn() -> C>);

impl<C> TextTask<C> {
    /// The task of classifier `C`.
    pub fn new() -> Self {
        Self(std::marker::PhantomData)
    }
}

impl<C> Default for TextTask<C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<C: TextClassifier> Task for TextTask<C> {
    fn name(&self) -> &'static str {
        C::TASK
    }

    fn labels(&self) -> Vec<&'static str> {
        C::Label::ALL.iter().map(|l| l.as_str()).collect()
    }

    fn strategies(&self) -> Vec<&'static str> {
        C::strategies()
    }

    fn evaluate(&self, path: &Path, strategy: &str) -> Result<Outcome> {
        let records = read_jsonl::<C::Example>(path)?;
        if MODEL_STRATEGIES.contains(&strategy) {
            return evaluate_with_model::<C>(records, strategy);
        }
        let classifier = C::with_strategy(strategy)?;
        let mut lines = Vec::with_capacity(records.len());
        let mut inputs = Vec::with_capacity(records.len());
        let mut gold = Vec::with_capacity(records.len());
        for r in records {
            let (input, label) = C::split(r.record);
            lines.push(r.line);
            inputs.push(input);
            gold.push(label.index());
        }
        let (pred, latencies_ns) = timed(&inputs, |i| classifier.decide(i).label().index());
        let deferred = count_deferred(strategy, &inputs, |i| Some(classifier.decide(i).tier()));
        Ok(Outcome {
            gold,
            pred,
            latencies_ns,
            deferred,
            model_tier: None,
            items: lines
                .into_iter()
                .zip(&inputs)
                .map(|(line, i)| (line, C::describe(i)))
                .collect(),
        })
    }
}

/// Runs the hybrid with the model tier over `records`, in one timed pass
/// (a warm-up pass would fill the model's cache).
fn evaluate_with_model<C: TextClassifier>(
    records: Vec<tact_core::dataset::Line<C::Example>>,
    strategy: &str,
) -> Result<Outcome> {
    use tact_classifiers::learned::Task as Learned;
    let config = LLM_CONFIG
        .get()
        .cloned()
        .unwrap_or_else(|| tact_llm::LlmConfig::default().with_process_env());
    let task = match C::TASK {
        "effort" => Learned::Effort,
        "granularity" => Learned::Granularity,
        _ => Learned::Route,
    };
    let llm = tact_llm::Llm::new(config)?;
    let mut escalation = llm.escalation(task);
    if strategy == "llm" {
        escalation = tact_classifiers::escalation::Escalation::new(
            std::sync::Arc::new(llm.clone()),
            f32::INFINITY,
        )
        .product(llm.config().product.clone());
    }
    let classifier = C::with_escalation("hybrid", escalation)?;
    let mut lines = Vec::with_capacity(records.len());
    let mut inputs = Vec::with_capacity(records.len());
    let mut gold = Vec::with_capacity(records.len());
    for r in records {
        let (input, label) = C::split(r.record);
        lines.push(r.line);
        inputs.push(input);
        gold.push(label.index());
    }
    let mut pred = Vec::with_capacity(inputs.len());
    let mut latencies_ns = Vec::with_capacity(inputs.len());
    for input in &inputs {
        let t = Instant::now();
        pred.push(
            black_box(classifier.decide(black_box(input)))
                .label()
                .index(),
        );
        latencies_ns.push(u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX));
    }
    let stats = llm.stats();
    Ok(Outcome {
        gold,
        pred,
        latencies_ns,
        deferred: None,
        model_tier: Some(ModelTier {
            escalated: stats.requests,
            answered: stats.answered,
            failures: stats.failures,
            detail: format!(
                "failures by kind: {}; form: {} ({} refused)",
                if stats.failures_by_kind.is_empty() {
                    "none".to_owned()
                } else {
                    stats
                        .failures_by_kind
                        .iter()
                        .map(|(k, n)| format!("{} {n}", k.as_str()))
                        .collect::<Vec<_>>()
                        .join(", ")
                },
                stats.dialect.map_or("none", |d| d.as_str()),
                stats.refusals
            ),
            latencies_ns: stats.latencies_ns,
        }),
        items: lines
            .into_iter()
            .zip(&inputs)
            .map(|(line, i)| (line, C::describe(i)))
            .collect(),
    })
}
