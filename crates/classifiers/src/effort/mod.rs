//! Question effort classification: strategies, the classifier and its
//! builder, and whole-message question extraction.
//!
//! Four strategies:
//! - [`Strategy::Hybrid`] (the default, as it beats the heuristic on the
//!   dev split): the heuristic when confident, the learned model otherwise.
//! - [`Strategy::Heuristic`]: weighted cues in English,
//!   Spanish and German following the labelling guide (options and concrete
//!   confirmations are low, preference elicitation is medium, investigation,
//!   measurement, gathering data and blocking strategy decisions are high;
//!   multi-part questions take their highest part; a `context` that answers
//!   the question makes it low).
//! - [`Strategy::Seed`]: ADR-001-002's keyword + length tree, unchanged, as
//!   the baseline.
//! - [`Strategy::Learned`]: the learned linear model (see
//!   [`crate::learned`]) over the question's n-grams and the heuristic's
//!   cues.
//!
//! The hybrid keeps the heuristic's decision when its confidence and
//! top-two gap clear the thresholds ([`HybridThresholds`], stored with the
//! model or set on the builder) and asks the learned model otherwise; the
//! result's `tier` says which decided.

mod heuristic;
pub mod seed;

use std::sync::{Arc, OnceLock};

use tact_core::{extract_questions, normalize};
use tact_types::{Classification, EffortLevel, QuestionEffort, Tier};

use crate::Error;
use crate::learned::{self, HybridThresholds, LinearModel, ModelInput, Task, Traced};

crate::strategy::strategy_enum! {
    task: "effort",
    what: "Which decision procedure an [`EffortClassifier`] uses.",
    heuristic: "The labelling-guide heuristic.",
    seed: "ADR-001-002's keyword + length tree, kept as the baseline.",
    default: Hybrid,
    all: [Hybrid, Heuristic, Seed, Learned],
}

/// Builder of an [`EffortClassifier`].
#[derive(Debug, Clone, Default)]
pub struct EffortClassifierBuilder {
    strategy: Strategy,
    model: Option<Arc<LinearModel>>,
    thresholds: Option<HybridThresholds>,
}

impl EffortClassifierBuilder {
    /// Chooses the strategy (default: [`Strategy::Hybrid`]).
    #[must_use]
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// Uses `model` instead of the embedded default for the `learned` and
    /// `hybrid` strategies (checked at [`build`](Self::build): it must be
    /// an `effort` model with labels `low`, `medium`, `high`).
    #[must_use]
    pub fn model(mut self, model: LinearModel) -> Self {
        self.model = Some(Arc::new(model));
        self
    }

    /// Sets the hybrid thresholds: the heuristic decides when its
    /// confidence and the gap between its top two scores reach them. By
    /// default, the thresholds stored with the model.
    #[must_use]
    pub fn hybrid_thresholds(mut self, thresholds: HybridThresholds) -> Self {
        self.thresholds = Some(thresholds);
        self
    }

    /// Compiles the classifier's cue sets (and loads the model for the
    /// `learned` and `hybrid` strategies). Do this once and share the
    /// classifier: classification takes `&self`.
    pub fn build(self) -> Result<EffortClassifier, Error> {
        let heuristic = match self.strategy {
            Strategy::Seed => None,
            _ => Some(heuristic::Heuristic::new()?),
        };
        let (model, thresholds) = learned::settle(
            Task::Effort,
            matches!(self.strategy, Strategy::Learned | Strategy::Hybrid),
            self.model,
            self.thresholds,
        )?;
        Ok(EffortClassifier {
            strategy: self.strategy,
            heuristic,
            model,
            thresholds,
        })
    }
}

/// Classifies the effort a clarifying question costs the user.
#[derive(Debug, Clone)]
pub struct EffortClassifier {
    strategy: Strategy,
    heuristic: Option<heuristic::Heuristic>,
    model: Option<Arc<LinearModel>>,
    thresholds: HybridThresholds,
}

impl EffortClassifier {
    /// Starts a builder.
    pub fn builder() -> EffortClassifierBuilder {
        EffortClassifierBuilder::default()
    }

    /// A shared default classifier, compiled on first use.
    pub fn shared() -> Result<&'static EffortClassifier, Error> {
        static SHARED: OnceLock<Result<EffortClassifier, String>> = OnceLock::new();
        SHARED
            .get_or_init(|| Self::builder().build().map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| {
                Error::Core(tact_core::Error::Pattern {
                    pattern: "<effort cues>".into(),
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

    /// Classifies one question. `context` is what the user already has at
    /// hand (the task description or spec the agent was given); when it
    /// answers the question, the question is low effort.
    pub fn classify(&self, question: &str, context: Option<&str>) -> Classification<EffortLevel> {
        let Some(h) = &self.heuristic else {
            return seed::classify(question);
        };
        match (self.strategy, &self.model) {
            (Strategy::Learned, Some(model)) => {
                let t = self.traced_with(h, question, context);
                learned::model_decision(model, &t.input, None)
            }
            (Strategy::Hybrid, Some(model)) => {
                let mut extras = heuristic::Extras::new();
                let (mut c, gap, normalized) =
                    h.classify_traced(question, context, Some(&mut extras));
                if !learned::defers(c.confidence, gap, false, &self.thresholds) {
                    return c.with_tier(Tier::Heuristic);
                }
                let input = ModelInput {
                    text: normalized.unwrap_or_else(|| normalize(question)),
                    extras: extras.into_vec(),
                };
                learned::model_decision(model, &input, Some((&mut c, &self.thresholds, gap)))
            }
            _ => h.classify(question, context),
        }
    }

    /// The heuristic's decision with its top-two gap and the learned
    /// model's input (what `cargo xtask train` learns from). `None` for
    /// the `seed` strategy, which has no cues.
    pub fn trace(&self, question: &str, context: Option<&str>) -> Option<Traced<EffortLevel>> {
        self.heuristic
            .as_ref()
            .map(|h| self.traced_with(h, question, context))
    }

    fn traced_with(
        &self,
        h: &heuristic::Heuristic,
        question: &str,
        context: Option<&str>,
    ) -> Traced<EffortLevel> {
        let mut extras = heuristic::Extras::new();
        let (heuristic, gap, normalized) = h.classify_traced(question, context, Some(&mut extras));
        Traced {
            heuristic,
            gap,
            fixed: false,
            input: ModelInput {
                text: normalized.unwrap_or_else(|| normalize(question)),
                extras: extras.into_vec(),
            },
        }
    }

    /// Finds every question in a whole agent message and classifies each.
    pub fn questions(&self, message: &str) -> Vec<QuestionEffort> {
        let _span = tracing::debug_span!("effort.questions", bytes = message.len()).entered();
        extract_questions(message)
            .into_iter()
            .map(|seg| {
                let text = seg.text(message);
                QuestionEffort {
                    text: text.to_owned(),
                    start: seg.start,
                    end: seg.end,
                    effort: self.classify(text, None),
                }
            })
            .collect()
    }
}
