//! Query granularity: whether a retrieval query asks for a locatable piece
//! of information or for understanding across passages, the decision with
//! its evidence and ambiguity, and the scoring methods of a recursive
//! retrieval level.

use serde::{Deserialize, Serialize};

use crate::{Classification, Error, Label};

/// What a retrieval query asks for (see the labelling guide, task
/// `granularity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Granularity {
    /// A specific, locatable piece of information a short span answers: a
    /// value, number, name, date, definition, formula, table entry, step.
    #[serde(rename = "fine-grained")]
    FineGrained,
    /// Understanding across a document or several passages: a summary,
    /// explanation of how or why, comparison, implications, assessment.
    #[serde(rename = "holistic")]
    Holistic,
}

impl Label for Granularity {
    const ALL: &'static [Self] = &[Self::FineGrained, Self::Holistic];

    fn as_str(self) -> &'static str {
        match self {
            Self::FineGrained => "fine-grained",
            Self::Holistic => "holistic",
        }
    }
}

impl std::fmt::Display for Granularity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Granularity {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        <Self as Label>::parse(s).ok_or_else(|| Error::for_label::<Self>("granularity", s))
    }
}

/// The weighted evidence found for each granularity (sums of cue weights,
/// never negative).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct GranularityEvidence {
    /// Evidence that the query asks for one locatable piece of information.
    #[serde(serialize_with = "crate::figures::f32_figure")]
    pub fine_grained: f32,
    /// Evidence that the query asks for understanding across passages.
    #[serde(serialize_with = "crate::figures::f32_figure")]
    pub holistic: f32,
}

/// A granularity decision: the label, a calibrated confidence, the cues
/// behind it, the evidence on each side, and whether the decision is
/// ambiguous (too little evidence, or too small a gap between the two
/// sides). Ambiguous decisions default to the cheaper fine-grained path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GranularityDecision {
    /// Label, confidence and reasons.
    #[serde(flatten)]
    pub classification: Classification<Granularity>,
    /// Whether the evidence is below the floor or the top-two gap is
    /// below its minimum.
    pub ambiguous: bool,
    /// The evidence on each side.
    pub evidence: GranularityEvidence,
}

impl GranularityDecision {
    /// A decision from its classification, ambiguity and evidence.
    pub fn new(
        classification: Classification<Granularity>,
        ambiguous: bool,
        evidence: GranularityEvidence,
    ) -> Self {
        Self {
            classification,
            ambiguous,
            evidence,
        }
    }

    /// The decided label.
    pub fn label(&self) -> Granularity {
        self.classification.label
    }

    /// The confidence in the label, in [0, 1].
    pub fn confidence(&self) -> f32 {
        self.classification.confidence
    }
}

/// How the segments of one recursion level are scored against a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ScoringMethod {
    /// Fast document-level dense + sparse retrieval scores.
    #[serde(rename = "dense+sparse")]
    DenseSparse,
    /// Token-level late-interaction (multi-vector) scores: precise for
    /// fine-grained queries.
    #[serde(rename = "multi-vector")]
    MultiVector,
    /// An LLM judges relevance: for holistic and reasoning queries.
    #[serde(rename = "llm")]
    Llm,
    /// Chosen per query: multi-vector for fine-grained, LLM for holistic,
    /// multi-vector (the cheaper path) when ambiguous.
    #[serde(rename = "adaptive")]
    Adaptive,
}

impl ScoringMethod {
    /// Every method, in the order of the design document.
    pub const ALL: &'static [ScoringMethod] = &[
        ScoringMethod::DenseSparse,
        ScoringMethod::MultiVector,
        ScoringMethod::Llm,
        ScoringMethod::Adaptive,
    ];

    /// The method's name as written in configuration.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::DenseSparse => "dense+sparse",
            Self::MultiVector => "multi-vector",
            Self::Llm => "llm",
            Self::Adaptive => "adaptive",
        }
    }
}

impl std::fmt::Display for ScoringMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ScoringMethod {
    type Err = Error;

    /// Parses a method name; surrounding white space and case are ignored.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        Self::ALL
            .iter()
            .copied()
            .find(|m| m.as_str().eq_ignore_ascii_case(t))
            .ok_or_else(|| Error {
                task: "scoring method",
                found: s.to_owned(),
                expected: Self::ALL
                    .iter()
                    .map(|m| m.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_methods_round_trip() {
        for &l in Granularity::ALL {
            assert_eq!(l.as_str().parse::<Granularity>().ok(), Some(l));
            assert_eq!(
                serde_json::to_string(&l).unwrap(),
                format!("\"{}\"", l.as_str())
            );
        }
        assert!("fine_grained".parse::<Granularity>().is_err());
        for &m in ScoringMethod::ALL {
            assert_eq!(m.as_str().parse::<ScoringMethod>().ok(), Some(m));
            assert_eq!(
                serde_json::to_string(&m).unwrap(),
                format!("\"{}\"", m.as_str())
            );
        }
        assert_eq!(
            " LLM ".parse::<ScoringMethod>().ok(),
            Some(ScoringMethod::Llm)
        );
        let err = "bm25".parse::<ScoringMethod>().unwrap_err();
        assert!(err.to_string().contains("dense+sparse"), "{err}");
    }

    #[test]
    fn decision_json_is_flat() {
        let d = GranularityDecision {
            classification: Classification::new(Granularity::Holistic, 0.8),
            ambiguous: false,
            evidence: GranularityEvidence {
                fine_grained: 0.0,
                holistic: 2.0,
            },
        };
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(v["label"], "holistic");
        assert_eq!(v["ambiguous"], false);
        assert_eq!(v["evidence"]["holistic"], 2.0);
        let back: GranularityDecision = serde_json::from_value(v).unwrap();
        assert_eq!(back, d);
    }
}
