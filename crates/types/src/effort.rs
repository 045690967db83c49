//! Question effort: the three PPP effort levels and a question paired with
//! its classified effort.

use serde::{Deserialize, Serialize};

use crate::{Classification, Error, Label};

/// How much effort answering a clarifying question costs the user
/// (see the labelling guide, task `effort`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EffortLevel {
    /// Answered at once: pick an offered option, confirm something concrete,
    /// or a fact already at hand.
    Low,
    /// The user must form and state a preference or decision, or recall
    /// something, without investigating.
    Medium,
    /// The user must investigate, measure, look things up, or take a blocking
    /// architecture or strategy decision.
    High,
}

impl Label for EffortLevel {
    const ALL: &'static [Self] = &[Self::Low, Self::Medium, Self::High];

    fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
        }
    }
}

impl std::fmt::Display for EffortLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for EffortLevel {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        <Self as Label>::parse(s).ok_or_else(|| Error::for_label::<Self>("effort", s))
    }
}

/// A question found in an agent message, with its position and effort.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct QuestionEffort {
    /// The question text as written in the message.
    pub text: String,
    /// Byte offset of the question's start in the message.
    pub start: usize,
    /// Byte offset one past the question's end in the message.
    pub end: usize,
    /// The classified effort with confidence and reasons.
    pub effort: Classification<EffortLevel>,
}

impl QuestionEffort {
    /// The question at `start..end` of its message, with its effort.
    pub fn new(
        text: impl Into<String>,
        start: usize,
        end: usize,
        effort: Classification<EffortLevel>,
    ) -> Self {
        Self {
            text: text.into(),
            start,
            end,
            effort,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip_through_text_and_json() {
        for &l in EffortLevel::ALL {
            assert_eq!(l.as_str().parse::<EffortLevel>().ok(), Some(l));
            let json = serde_json::to_string(&l).unwrap();
            assert_eq!(json, format!("\"{}\"", l.as_str()));
        }
        assert!("LOW".parse::<EffortLevel>().is_err());
        assert!(EffortLevel::Low < EffortLevel::High);
    }
}
