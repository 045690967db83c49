//! Question effort classification: strategies, the classifier and its
//! builder, and whole-message question extraction.
//!
//! Two strategies:
//! - [`Strategy::Heuristic`] (the default): weighted cues in English,
//!   Spanish and German following the labelling guide (options and concrete
//!   confirmations are low, preference elicitation is medium, investigation,
//!   measurement, gathering data and blocking strategy decisions are high;
//!   multi-part questions take their highest part; a `context` that answers
//!   the question makes it low).
//! - [`Strategy::Seed`]: ADR-001-002's keyword + length tree, unchanged, as
//!   the baseline.

mod heuristic;
pub mod seed;

use std::sync::OnceLock;

use tact_core::extract_questions;
use tact_types::{Classification, EffortLevel, QuestionEffort};

use crate::Error;

crate::strategy::strategy_enum! {
    task: "effort",
    what: "Which decision procedure an [`EffortClassifier`] uses.",
    heuristic: "The labelling-guide heuristic (default).",
    seed: "ADR-001-002's keyword + length tree, kept as the baseline.",
}

/// Builder of an [`EffortClassifier`].
#[derive(Debug, Clone, Default)]
pub struct EffortClassifierBuilder {
    strategy: Strategy,
}

impl EffortClassifierBuilder {
    /// Chooses the strategy (default: [`Strategy::Heuristic`]).
    #[must_use]
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// Compiles the classifier's cue sets. Do this once and share the
    /// classifier: classification takes `&self`.
    pub fn build(self) -> Result<EffortClassifier, Error> {
        let heuristic = match self.strategy {
            Strategy::Heuristic => Some(heuristic::Heuristic::new()?),
            Strategy::Seed => None,
        };
        Ok(EffortClassifier {
            strategy: self.strategy,
            heuristic,
        })
    }
}

/// Classifies the effort a clarifying question costs the user.
#[derive(Debug, Clone)]
pub struct EffortClassifier {
    strategy: Strategy,
    heuristic: Option<heuristic::Heuristic>,
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
                Error::Core(tact_core::CoreError::Pattern {
                    pattern: "<effort cues>".into(),
                    message: e.clone(),
                })
            })
    }

    /// The strategy in use.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Classifies one question. `context` is what the user already has at
    /// hand (the task description or spec the agent was given); when it
    /// answers the question, the question is low effort.
    pub fn classify(&self, question: &str, context: Option<&str>) -> Classification<EffortLevel> {
        match &self.heuristic {
            Some(h) => h.classify(question, context),
            None => seed::classify(question),
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
