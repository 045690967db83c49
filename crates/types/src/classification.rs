//! Classification results: a label, a confidence in [0, 1] and the reasons
//! (the cues that fired) behind it.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// One cue that contributed to a decision, with its weight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reason {
    /// Stable identifier of the cue, e.g. `explicit_options`.
    pub cue: Cow<'static, str>,
    /// Human-readable explanation, usually naming the matched text.
    pub detail: Cow<'static, str>,
    /// Signed contribution of the cue to the decided label's score.
    #[serde(serialize_with = "crate::figures::f32_figure")]
    pub weight: f32,
}

impl Reason {
    /// Creates a reason.
    pub fn new(
        cue: impl Into<Cow<'static, str>>,
        detail: impl Into<Cow<'static, str>>,
        weight: f32,
    ) -> Self {
        Self {
            cue: cue.into(),
            detail: detail.into(),
            weight,
        }
    }
}

/// Which tier of a hybrid classifier took a decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Tier {
    /// The rule-based heuristic (alone, or confident enough in a hybrid).
    Heuristic,
    /// The learned linear model.
    Learned,
    /// The design documents' baseline procedure (the `seed` strategy).
    Seed,
    /// A model-backed tier after the learned one: a language model asked
    /// about what the cheaper tiers left unsure (written `llm`).
    #[serde(rename = "llm", alias = "model")]
    Model,
}

impl Tier {
    /// The tier's name as written in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Heuristic => "heuristic",
            Tier::Learned => "learned",
            Tier::Seed => "seed",
            Tier::Model => "llm",
        }
    }
}

/// The result of classifying one input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Classification<L> {
    /// The decided label.
    pub label: L,
    /// Confidence in the label, always within [0, 1].
    #[serde(serialize_with = "crate::figures::f32_figure")]
    pub confidence: f32,
    /// The cues that fired, strongest first.
    #[serde(default)]
    pub reasons: Vec<Reason>,
    /// Which tier decided: set by every text classifier of tact (absent
    /// only in a classification built by hand).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
    /// The language model that answered, when the tier is
    /// [`Tier::Model`] and the model is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier_model: Option<String>,
}

impl<L> Classification<L> {
    /// Creates a result; the confidence is clamped into [0, 1] (NaN becomes 0).
    pub fn new(label: L, confidence: f32) -> Self {
        Self {
            label,
            confidence: clamp_unit(confidence),
            reasons: Vec::new(),
            tier: None,
            tier_model: None,
        }
    }

    /// Records which tier decided (builder style).
    #[must_use]
    pub fn with_tier(mut self, tier: Tier) -> Self {
        self.tier = Some(tier);
        self
    }

    /// Replaces the reasons (builder style).
    #[must_use]
    pub fn with_reasons(mut self, reasons: Vec<Reason>) -> Self {
        self.reasons = reasons;
        self
    }

    /// Adds a reason (builder style).
    #[must_use]
    pub fn with_reason(mut self, reason: Reason) -> Self {
        self.reasons.push(reason);
        self
    }
}

/// Clamps a value into [0, 1], mapping NaN to 0.
pub(crate) fn clamp_unit(x: f32) -> f32 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_is_clamped_and_nan_safe() {
        assert_eq!(Classification::new((), 1.5).confidence, 1.0);
        assert_eq!(Classification::new((), -0.1).confidence, 0.0);
        assert_eq!(Classification::new((), f32::NAN).confidence, 0.0);
        assert_eq!(Classification::new((), 0.25).confidence, 0.25);
    }
}
