//! Query granularity classification (`fine-grained` / `holistic`) and the
//! per-level scoring-method selection of a recursive retrieval pipeline.
//!
//! Two strategies:
//! - [`Strategy::Heuristic`] (the default): weighted cues in English,
//!   German and Spanish on two sides, a calibrated confidence with an
//!   evidence floor and a top-two gap, and an `ambiguous` flag (see the
//!   `heuristic` module docs for what it fixes in the design).
//! - [`Strategy::Seed`]: the query-granularity design's regex families, tie
//!   rule and `max / total` confidence, unchanged, as the baseline.
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

use std::sync::OnceLock;

use tact_types::{Granularity, GranularityDecision};

pub use heuristic::{EVIDENCE_FLOOR, MIN_GAP};
pub use scoring::{MAX_LEVELS, ScoringChoice, ScoringConfig};

use crate::Error;

crate::strategy::strategy_enum! {
    task: "granularity",
    what: "Which decision procedure a [`GranularityClassifier`] uses.",
    heuristic: "Weighted multilingual cues with calibrated confidence (default).",
    seed: "The design's regex families, kept as the baseline.",
}

/// Builder of a [`GranularityClassifier`].
#[derive(Debug, Clone, Default)]
pub struct GranularityClassifierBuilder {
    strategy: Strategy,
}

impl GranularityClassifierBuilder {
    /// Chooses the strategy (default: [`Strategy::Heuristic`]).
    #[must_use]
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// Compiles the strategy's patterns. Do this once and share the
    /// classifier: classification takes `&self`.
    pub fn build(self) -> Result<GranularityClassifier, Error> {
        let inner = match self.strategy {
            Strategy::Heuristic => Inner::Heuristic(Box::new(heuristic::Heuristic::new()?)),
            Strategy::Seed => Inner::Seed(seed::Seed::new()?),
        };
        Ok(GranularityClassifier {
            strategy: self.strategy,
            inner,
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
                Error::Core(tact_core::CoreError::Pattern {
                    pattern: "<granularity cues>".into(),
                    message: e.clone(),
                })
            })
    }

    /// The strategy in use.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Classifies one query: label, confidence, reasons, evidence on each
    /// side and whether the decision is ambiguous.
    pub fn classify(&self, query: &str) -> GranularityDecision {
        match &self.inner {
            Inner::Heuristic(h) => h.classify(query),
            Inner::Seed(s) => s.classify(query),
        }
    }

    /// The label alone.
    pub fn label(&self, query: &str) -> Granularity {
        self.classify(query).label()
    }
}
