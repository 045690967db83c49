//! Query granularity classification (`fine-grained` / `holistic`) and the
//! per-level scoring-method selection of a recursive retrieval pipeline.
//!
//! Four strategies:
//! - [`Strategy::Hybrid`] (the default, as it beats the heuristic on the
//!   dev split): the heuristic when its confidence and evidence gap clear
//!   the thresholds, the learned model otherwise (the design's "heuristic
//!   + ML fallback").
//! - [`Strategy::Heuristic`]: weighted cues in English, German and
//!   Spanish on two sides, a calibrated confidence with an evidence floor
//!   and a top-two gap, and an `ambiguous` flag (see the `heuristic`
//!   module docs for what it fixes in the design).
//! - [`Strategy::Seed`]: the query-granularity design's regex families, tie
//!   rule and `max / total` confidence, unchanged, as the baseline.
//! - [`Strategy::Learned`]: the learned linear model (see
//!   [`crate::learned`]) over the query's n-grams and the heuristic's cues.
//!
//! ```
//! use tact_classifiers::granularity::{GranularityClassifier, ScoringConfig};
//! use tact_types::{Granularity, ScoringMethod};
//!
//! let c = GranularityClassifier::builder().build()?;
//! let d = c.classify("What is the main argument of the position paper?");
//! assert_eq!(d.label(), Granularity::Holistic);
//! assert_eq!(c.classify("How many attention heads does the encoder have?").label(), Granularity::FineGrained);
//!
//! // Levels 0-1 dense+sparse, 2+ adaptive (the design's default).
//! let config = ScoringConfig::default();
//! let choice = c.select_scoring(&config, 2, "Why does the larger model do worse in Table 6?");
//! assert_eq!(choice.method, ScoringMethod::Llm);
//! assert_eq!(c.select_scoring(&config, 0, "anything").method, ScoringMethod::DenseSparse);
//! # Ok::<(), tact_classifiers::Error>(())
//! ```

mod heuristic;
mod scoring;
pub mod seed;

use std::sync::{Arc, OnceLock};

use tact_core::normalize;
use tact_types::{Granularity, GranularityDecision, Tier};

pub use heuristic::{EVIDENCE_FLOOR, MIN_GAP};
pub use scoring::{MAX_LEVELS, ScoringChoice, ScoringConfig};

use crate::Error;
use crate::learned::{self, HybridThresholds, LinearModel, ModelInput, Task, Traced};

/// The heuristic decision and the model input of `query`.
fn traced(h: &heuristic::Heuristic, query: &str) -> (GranularityDecision, ModelInput) {
    let mut extras = Vec::with_capacity(16);
    let d = h.classify_traced(query, Some(&mut extras));
    let input = ModelInput {
        text: normalize(query),
        extras,
    };
    (d, input)
}

/// The gap between the two sides' evidence.
fn gap(d: &GranularityDecision) -> f32 {
    (d.evidence.fine_grained - d.evidence.holistic).abs()
}

/// The model's classification in place of the heuristic's, keeping the
/// evidence; a model decision is not ambiguous when its margin is clear.
fn with_model(
    mut d: GranularityDecision,
    c: tact_types::Classification<Granularity>,
) -> GranularityDecision {
    d.ambiguous = c.confidence < 0.6;
    d.classification = c;
    d
}

crate::strategy::strategy_enum! {
    task: "granularity",
    what: "Which decision procedure a [`GranularityClassifier`] uses.",
    heuristic: "Weighted multilingual cues with calibrated confidence.",
    seed: "The design's regex families, kept as the baseline.",
    default: Hybrid,
    all: [Hybrid, Heuristic, Seed, Learned],
}

/// Builder of a [`GranularityClassifier`].
#[derive(Debug, Clone, Default)]
pub struct GranularityClassifierBuilder {
    strategy: Strategy,
    model: Option<Arc<LinearModel>>,
    thresholds: Option<HybridThresholds>,
}

impl GranularityClassifierBuilder {
    /// Chooses the strategy (default: [`Strategy::Hybrid`]).
    #[must_use]
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// Uses `model` instead of the embedded default for the `learned` and
    /// `hybrid` strategies (checked at [`build`](Self::build): it must be
    /// a `granularity` model with labels `fine-grained`, `holistic`).
    #[must_use]
    pub fn model(mut self, model: LinearModel) -> Self {
        self.model = Some(Arc::new(model));
        self
    }

    /// Sets the hybrid thresholds: the heuristic decides when its
    /// confidence and the gap between its two sides' evidence reach them.
    /// By default, the thresholds stored with the model.
    #[must_use]
    pub fn hybrid_thresholds(mut self, thresholds: HybridThresholds) -> Self {
        self.thresholds = Some(thresholds);
        self
    }

    /// Compiles the strategy's patterns (and loads the model for the
    /// `learned` and `hybrid` strategies). Do this once and share the
    /// classifier: classification takes `&self`.
    pub fn build(self) -> Result<GranularityClassifier, Error> {
        let inner = match self.strategy {
            Strategy::Seed => Inner::Seed(seed::Seed::new()?),
            _ => Inner::Heuristic(Box::new(heuristic::Heuristic::new()?)),
        };
        let (model, thresholds) = learned::settle(
            Task::Granularity,
            matches!(self.strategy, Strategy::Learned | Strategy::Hybrid),
            self.model,
            self.thresholds,
        )?;
        Ok(GranularityClassifier {
            strategy: self.strategy,
            inner,
            model,
            thresholds,
        })
    }
}

#[derive(Debug, Clone)]
enum Inner {
    Heuristic(Box<heuristic::Heuristic>),
    Seed(seed::Seed),
}

/// Classifies what a retrieval query asks for: one locatable piece of
/// information (`fine-grained`) or understanding across passages
/// (`holistic`).
#[derive(Debug, Clone)]
pub struct GranularityClassifier {
    strategy: Strategy,
    inner: Inner,
    model: Option<Arc<LinearModel>>,
    thresholds: HybridThresholds,
}

impl GranularityClassifier {
    /// Starts a builder.
    pub fn builder() -> GranularityClassifierBuilder {
        GranularityClassifierBuilder::default()
    }

    /// A shared default classifier, compiled on first use.
    pub fn shared() -> Result<&'static GranularityClassifier, Error> {
        static SHARED: OnceLock<Result<GranularityClassifier, String>> = OnceLock::new();
        SHARED
            .get_or_init(|| Self::builder().build().map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| {
                Error::Core(tact_core::Error::Pattern {
                    pattern: "<granularity cues>".into(),
                    message: e.clone(),
                })
            })
    }

    /// The strategy in use.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// The hybrid thresholds in use.
    pub fn hybrid_thresholds(&self) -> HybridThresholds {
        self.thresholds
    }

    /// Classifies one query: label, confidence, reasons, evidence on each
    /// side and whether the decision is ambiguous.
    pub fn classify(&self, query: &str) -> GranularityDecision {
        let h = match &self.inner {
            Inner::Heuristic(h) => h,
            Inner::Seed(s) => return s.classify(query),
        };
        match (self.strategy, &self.model) {
            (Strategy::Learned, Some(model)) => {
                let (d, input) = traced(h, query);
                with_model(d, learned::model_decision(model, &input, None))
            }
            (Strategy::Hybrid, Some(model)) => {
                let mut extras = Vec::with_capacity(16);
                let mut d = h.classify_traced(query, Some(&mut extras));
                let gap = gap(&d);
                if !learned::defers(d.confidence(), gap, false, &self.thresholds) {
                    d.classification.tier = Some(Tier::Heuristic);
                    return d;
                }
                let input = ModelInput {
                    text: normalize(query),
                    extras,
                };
                let c = learned::model_decision(
                    model,
                    &input,
                    Some((&mut d.classification, &self.thresholds, gap)),
                );
                with_model(d, c)
            }
            _ => h.classify(query),
        }
    }

    /// The heuristic's decision with its evidence gap and the learned
    /// model's input (what `cargo xtask train` learns from). `None` for
    /// the `seed` strategy, which has no cues.
    pub fn trace(&self, query: &str) -> Option<Traced<Granularity>> {
        let Inner::Heuristic(h) = &self.inner else {
            return None;
        };
        let (d, input) = traced(h, query);
        Some(Traced {
            gap: gap(&d),
            heuristic: d.classification,
            fixed: false,
            input,
        })
    }

    /// The label alone.
    pub fn label(&self, query: &str) -> Granularity {
        self.classify(query).label()
    }
}
