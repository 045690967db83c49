//! Strategy `seed`: the regex families and tie rule of the query
//! granularity design (Option 1, "Heuristik-basierte Detection"), kept as
//! the baseline.
//!
//! Each family is a case-insensitive regex searched in the raw query; a
//! query scores one point per family that matches at least once. Fine-
//! grained wins ties (the cheaper path). The confidence is the design's
//! Option 3 formula `max / total` (0 when nothing matched), which gives 1.0
//! for a single weak hit and 0.5 for any tie: the flaw the default
//! strategy fixes. The patterns need no look-around, so they compile
//! unchanged; the whole family list runs as one `RegexSet`.

use regex::{RegexSet, RegexSetBuilder};
use tact_types::{Classification, Granularity, GranularityDecision, GranularityEvidence, Reason};

use crate::Error;

/// The design's fine-grained indicators, in its order.
pub const FINE_GRAINED_PATTERNS: &[&str] = &[
    r"\b(what|which) (is|are) the\b",
    r"\b(p-value|score|metric|number|count|percentage)\b",
    r"\bTable \d+\b",
    r"\bFigure \d+\b",
    r"\bEquation \d+\b",
    r"\b(formula|equation|definition) (for|of)\b",
    r"\b(exact|specific|precise) (value|number)\b",
    r"\b[A-Z]{2,}-[A-Z]\d+\b",
    r"\b\d+(\.\d+)?%\b",
    r"\b\d{4}\b",
    r"\bin (Table|Figure|Section|Chapter|Appendix)\b",
    r"\b(row|column|entry) \d+\b",
];

/// The design's holistic indicators, in its order.
pub const HOLISTIC_PATTERNS: &[&str] = &[
    r"\b(summarize|overview|explain|describe)\b",
    r"\b(main|key|primary) (idea|argument|point|finding)\b",
    r"\b(how does|how do|how can)\b",
    r"\b(why|reason|rationale|motivation)\b",
    r"\b(advantage|benefit|drawback|limitation)\b",
    r"\b(compare|contrast|difference)\b",
    r"\b(implication|consequence|impact)\b",
    r"\b(methodology|approach|strategy)\b",
    r"\b(overall|general|broad)\b",
];

/// The compiled families: fine-grained first, then holistic.
#[derive(Debug, Clone)]
pub(crate) struct Seed {
    set: RegexSet,
}

impl Seed {
    pub(crate) fn new() -> Result<Self, Error> {
        // `\b` taken in its ASCII sense keeps the set on the DFA engines;
        // a Unicode one falls back to the slowest engine on any non-ASCII
        // text.
        let patterns = FINE_GRAINED_PATTERNS
            .iter()
            .chain(HOLISTIC_PATTERNS)
            .map(|p| tact_core::cues::ascii_word_boundaries(p));
        let set = RegexSetBuilder::new(patterns)
            .case_insensitive(true)
            .build()
            .map_err(|e| {
                Error::Core(tact_core::Error::Pattern {
                    pattern: "<granularity seed families>".into(),
                    message: e.to_string(),
                })
            })?;
        Ok(Self { set })
    }

    /// Classifies as the design does: one point per matching family,
    /// fine-grained on ties, confidence `max / total`.
    pub(crate) fn classify(&self, query: &str) -> GranularityDecision {
        let matches = self.set.matches(query);
        let fine_n = FINE_GRAINED_PATTERNS.len();
        let mut reasons = Vec::new();
        let (mut fine, mut holistic) = (0u32, 0u32);
        for i in matches.iter() {
            if i < fine_n {
                fine += 1;
            } else {
                holistic += 1;
            }
        }
        let label = if fine >= holistic {
            Granularity::FineGrained
        } else {
            Granularity::Holistic
        };
        for i in matches.iter() {
            let (side, pattern) = if i < fine_n {
                (Granularity::FineGrained, FINE_GRAINED_PATTERNS.get(i))
            } else {
                (Granularity::Holistic, HOLISTIC_PATTERNS.get(i - fine_n))
            };
            if side == label {
                reasons.push(Reason::new(
                    "seed_pattern",
                    format!("{side} pattern `{}`", pattern.copied().unwrap_or("?")),
                    1.0,
                ));
            }
        }
        let total = fine + holistic;
        let confidence = if total == 0 {
            0.0
        } else {
            fine.max(holistic) as f32 / total as f32
        };
        if reasons.is_empty() {
            reasons.push(Reason::new(
                "seed_tie",
                format!(
                    "{fine} fine-grained vs {holistic} holistic patterns: ties go to fine-grained"
                ),
                0.0,
            ));
        }
        GranularityDecision::new(
            Classification::new(label, confidence).with_reasons(reasons),
            // The design has no notion of ambiguity beyond its 0.8 ML
            // fallback threshold; that threshold is what is reported.
            confidence < 0.8,
            GranularityEvidence {
                fine_grained: fine as f32,
                holistic: holistic as f32,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The design's own examples, as its families really score them.
    #[test]
    fn design_examples() {
        let s = Seed::new().unwrap();
        let d = s.classify("What is the p-value for BGE-M3?");
        assert_eq!(d.label(), Granularity::FineGrained);
        assert_eq!(d.evidence.fine_grained, 3.0);
        let d = s.classify("Summarize the main argument");
        assert_eq!(d.label(), Granularity::Holistic);
        // One weak hit gives full confidence: the flaw of max / total.
        assert_eq!(d.confidence(), 1.0);
        let d = s.classify("Why did the authors choose this approach?");
        assert_eq!(d.label(), Granularity::Holistic);
        // "what is the main idea" ties 1-1 and goes fine-grained.
        let d = s.classify("What is the main idea of the paper?");
        assert_eq!(d.label(), Granularity::FineGrained);
        assert_eq!(d.confidence(), 0.5);
        // Nothing matched: fine-grained with confidence 0.
        let d = s.classify("rent amount");
        assert_eq!(d.label(), Granularity::FineGrained);
        assert_eq!(d.confidence(), 0.0);
    }
}
