//! The model-backed tier's seam: [`LabelModel`], what a text classifier
//! asks a language model (a task, its labels, a prompt) when the cheaper
//! tiers are unsure, and [`Escalation`], the model with the confidence
//! below which a classifier asks it. `tact-llm` implements [`LabelModel`]
//! over Ollama and OpenAI-compatible servers; a host may bring its own.
//!
//! ```
//! use std::sync::Arc;
//! use tact_classifiers::effort::EffortClassifier;
//! use tact_classifiers::escalation::{Escalation, LabelAnswer, LabelModel, LabelRequest};
//! use tact_types::{EffortLevel, Tier};
//!
//! /// A stand-in model that always answers `high`.
//! struct High;
//! impl LabelModel for High {
//!     fn ask(&self, request: &LabelRequest<'_>) -> Option<LabelAnswer> {
//!         let i = request.labels.iter().position(|l| *l == "high")?;
//!         Some(LabelAnswer::new(i, "stand-in"))
//!     }
//! }
//!
//! // A threshold of 1.0 asks the model about every decision.
//! let c = EffortClassifier::builder().escalation(Escalation::new(Arc::new(High), 1.0)).build()?;
//! let r = c.classify("Tabs or spaces?", None);
//! assert_eq!((r.label, r.tier, r.tier_model.as_deref()), (EffortLevel::High, Some(Tier::Model), Some("stand-in")));
//! # Ok::<(), tact_classifiers::Error>(())
//! ```

use std::fmt;
use std::sync::Arc;

/// What a classifier asks the model about one input.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct LabelRequest<'a> {
    /// The task's name (`effort`, `granularity`, `route`).
    pub task: &'a str,
    /// The labels the answer must be one of, in the task's order.
    pub labels: &'a [&'static str],
    /// The whole prompt: the task's definitions and the input.
    pub prompt: &'a str,
    /// The model to use, when the classifier names one (routing's main
    /// slot, RC-05); otherwise the model's own default.
    pub model: Option<&'a str>,
}

impl<'a> LabelRequest<'a> {
    /// A request for `task` with `labels` and `prompt`, no model named.
    pub fn new(task: &'a str, labels: &'a [&'static str], prompt: &'a str) -> Self {
        Self {
            task,
            labels,
            prompt,
            model: None,
        }
    }
}

/// A model's answer: one of the request's labels.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LabelAnswer {
    /// The label's index in [`LabelRequest::labels`].
    pub label: usize,
    /// The model's short reason, if it gave one.
    pub reason: Option<String>,
    /// The model that answered.
    pub model: String,
}

impl LabelAnswer {
    /// An answer naming label `label` (an index into the request's labels)
    /// from `model`, without a reason.
    pub fn new(label: usize, model: impl Into<String>) -> Self {
        Self {
            label,
            reason: None,
            model: model.into(),
        }
    }

    /// Adds the model's reason (builder style).
    #[must_use]
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }
}

/// A language model that picks one label for a prompt. Implementations
/// fail open: any failure (refused, timed out, off-schema, over budget) is
/// `None`, and the classifier keeps the cheaper tiers' decision. They
/// must bound their own time (the classifier waits for the answer).
pub trait LabelModel: Send + Sync {
    /// Asks the model; `None` when it failed or gave no usable label.
    fn ask(&self, request: &LabelRequest<'_>) -> Option<LabelAnswer>;
}

/// Default product sentence of the routing prompt: the product of
/// ADR-0008's assistant.
pub const DEFAULT_PRODUCT: &str = "the AVAP language and platform";

/// The model-backed tier of a text classifier: the model, and the
/// confidence below which the cheaper tiers' decision is put to it.
#[derive(Clone)]
pub struct Escalation {
    pub(crate) model: Arc<dyn LabelModel>,
    pub(crate) threshold: f32,
    pub(crate) model_name: Option<Arc<str>>,
    pub(crate) product: Arc<str>,
}

impl fmt::Debug for Escalation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Escalation")
            .field("threshold", &self.threshold)
            .field("model_name", &self.model_name)
            .field("product", &self.product)
            .finish_non_exhaustive()
    }
}

impl Escalation {
    /// Asks `model` about every decision whose confidence is below
    /// `threshold` (0 never asks, above 1 always asks; NaN counts 0).
    /// Decisions fixed by a contract rule (routing's RC-01 and RC-02) are
    /// never asked about.
    pub fn new(model: Arc<dyn LabelModel>, threshold: f32) -> Self {
        Self {
            model,
            threshold: if threshold.is_nan() { 0.0 } else { threshold },
            model_name: None,
            product: Arc::from(DEFAULT_PRODUCT),
        }
    }

    /// Names the model to ask (otherwise the [`LabelModel`]'s default; a
    /// router names its main slot's model, RC-05).
    #[must_use]
    pub fn model_name(mut self, name: impl Into<String>) -> Self {
        self.model_name = Some(Arc::from(name.into()));
        self
    }

    /// The product the routing prompt names ("You classify ONE new user
    /// message of an assistant for PRODUCT"); default [`DEFAULT_PRODUCT`].
    #[must_use]
    pub fn product(mut self, product: impl Into<String>) -> Self {
        self.product = Arc::from(product.into());
        self
    }

    /// The confidence below which the model is asked.
    pub fn threshold(&self) -> f32 {
        self.threshold
    }

    /// Whether a decision of this confidence is put to the model.
    #[inline]
    pub(crate) fn asks(&self, confidence: f32, fixed: bool) -> bool {
        !fixed && confidence < self.threshold
    }
}

/// The confidence a model's answer carries: a language model's label has
/// no calibrated probability, so it is given this fixed figure.
pub const MODEL_CONFIDENCE: f32 = 0.7;
