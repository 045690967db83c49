//! Confidence from evidence: a logistic curve on the gap between the top
//! two candidates, shrunk towards a neutral value while the total evidence
//! is below a floor, and an ambiguity flag. Replaces `max / total`, which
//! gives full confidence to a single weak hit.

/// How a classifier turns evidence into confidence.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Calibration {
    /// Total evidence below which a decision is ambiguous and its
    /// confidence shrinks towards `neutral`.
    pub floor: f32,
    /// Smallest top-two gap for an unambiguous decision.
    pub min_gap: f32,
    /// Slope of the logistic curve from the gap to the confidence.
    pub slope: f32,
    /// The confidence of a decision taken on no evidence (1 / number of
    /// labels).
    pub neutral: f32,
}

impl Calibration {
    /// Confidence in the top candidate and whether the decision is
    /// ambiguous, from the top score, the runner-up's and the total.
    pub(crate) fn confidence(&self, top: f32, second: f32, total: f32) -> (f32, bool) {
        let gap = (top - second).max(0.0);
        let total = total.max(0.0);
        // Logistic on the gap, rescaled from [0.5, 1) to [neutral, 1).
        let p = 1.0 / (1.0 + (-self.slope * gap).exp());
        let p = self.neutral + (p - 0.5) * 2.0 * (1.0 - self.neutral);
        let strength = if self.floor > 0.0 {
            (total / self.floor).min(1.0)
        } else {
            1.0
        };
        let confidence = self.neutral + (p - self.neutral) * strength;
        let ambiguous = total < self.floor || gap < self.min_gap;
        let confidence = if confidence.is_nan() {
            self.neutral
        } else {
            confidence.clamp(0.0, 1.0)
        };
        (confidence, ambiguous)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: Calibration = Calibration {
        floor: 1.5,
        min_gap: 1.0,
        slope: 0.9,
        neutral: 0.5,
    };

    #[test]
    fn needs_evidence_and_a_gap() {
        assert_eq!(C.confidence(0.0, 0.0, 0.0), (0.5, true));
        // One weak hit is not certainty (max / total would say 1.0).
        let (c, amb) = C.confidence(1.0, 0.0, 1.0);
        assert!(c < 0.75 && amb, "{c}");
        let (c, amb) = C.confidence(5.0, 0.0, 5.0);
        assert!(c > 0.95 && !amb, "{c}");
        // A strong but close call is ambiguous.
        let (c, amb) = C.confidence(3.5, 3.0, 6.5);
        assert!(c < 0.65 && amb, "{c}");
        let four = Calibration { neutral: 0.25, ..C };
        assert_eq!(four.confidence(0.0, 0.0, 0.0), (0.25, true));
        let (c, _) = four.confidence(f32::NAN, 0.0, 1.0);
        assert!((0.0..=1.0).contains(&c));
    }
}
