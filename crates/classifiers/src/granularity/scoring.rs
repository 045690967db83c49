//! Scoring-method selection per recursion level: a method per level
//! (`dense+sparse`, `multi-vector`, `llm`, `adaptive`), configured in code
//! or through `RECURSIVE_LLM_LEVEL_<N>_SCORING_METHOD`, and the adaptive
//! choice from the query's granularity.

use tact_types::{Granularity, GranularityDecision, Label, ScoringMethod};

use super::GranularityClassifier;
use crate::Error;

/// Levels read from the environment: `RECURSIVE_LLM_LEVEL_0_...` up to
/// `RECURSIVE_LLM_LEVEL_31_...`.
pub const MAX_LEVELS: usize = 32;

/// The scoring method of each recursion level. A level past the last
/// configured one uses the last one (as the design's
/// `levels[min(level, len - 1)]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoringConfig {
    levels: Vec<ScoringMethod>,
}

impl Default for ScoringConfig {
    /// The design's configuration: levels 0 and 1 `dense+sparse`, level 2
    /// and deeper `adaptive`.
    fn default() -> Self {
        Self {
            levels: vec![
                ScoringMethod::DenseSparse,
                ScoringMethod::DenseSparse,
                ScoringMethod::Adaptive,
            ],
        }
    }
}

impl ScoringConfig {
    /// A configuration with the given methods for levels 0, 1, ...; an
    /// empty list means `adaptive` at every level.
    pub fn new(levels: impl IntoIterator<Item = ScoringMethod>) -> Self {
        let levels: Vec<ScoringMethod> = levels.into_iter().take(MAX_LEVELS).collect();
        if levels.is_empty() {
            return Self {
                levels: vec![ScoringMethod::Adaptive],
            };
        }
        Self { levels }
    }

    /// Sets one level's method (builder style). Levels between the last
    /// configured one and `level` take the last configured method; levels
    /// at or past [`MAX_LEVELS`] are ignored.
    #[must_use]
    pub fn with_level(mut self, level: usize, method: ScoringMethod) -> Self {
        self.set(level, method);
        self
    }

    fn set(&mut self, level: usize, method: ScoringMethod) {
        if level >= MAX_LEVELS {
            return;
        }
        let last = self
            .levels
            .last()
            .copied()
            .unwrap_or(ScoringMethod::Adaptive);
        if self.levels.len() <= level {
            self.levels.resize(level + 1, last);
        }
        if let Some(slot) = self.levels.get_mut(level) {
            *slot = method;
        }
    }

    /// The default configuration overridden by the process environment
    /// (see [`ScoringConfig::from_lookup`]).
    pub fn from_env() -> Result<Self, Error> {
        Self::from_lookup(|key| std::env::var(key).ok())
    }

    /// The default configuration overridden by
    /// `RECURSIVE_LLM_LEVEL_<N>_SCORING_METHOD` for N in 0..32, read
    /// through `lookup` (inject a map in tests instead of touching the
    /// process environment). Unset or blank variables keep the default; a
    /// value that is not a method name is an error naming the variable.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, Error> {
        let mut config = Self::default();
        for level in 0..MAX_LEVELS {
            let key = Self::env_var(level);
            let Some(value) = lookup(&key) else { continue };
            if value.trim().is_empty() {
                continue;
            }
            let method: ScoringMethod = value.parse().map_err(|_| Error::InvalidConfig {
                key: key.clone(),
                value: value.clone(),
                expected: "dense+sparse, multi-vector, llm, adaptive",
            })?;
            config.set(level, method);
        }
        Ok(config)
    }

    /// The environment variable of a level.
    pub fn env_var(level: usize) -> String {
        format!("RECURSIVE_LLM_LEVEL_{level}_SCORING_METHOD")
    }

    /// The configured method of `level` (the last level's for deeper ones).
    pub fn method_for(&self, level: usize) -> ScoringMethod {
        let i = level.min(self.levels.len().saturating_sub(1));
        self.levels
            .get(i)
            .copied()
            .unwrap_or(ScoringMethod::Adaptive)
    }

    /// The configured methods, level 0 first.
    pub fn levels(&self) -> &[ScoringMethod] {
        &self.levels
    }
}

/// The scoring method chosen for one query at one level.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoringChoice {
    /// The recursion level.
    pub level: usize,
    /// What the level is configured with.
    pub configured: ScoringMethod,
    /// The method to run: never `adaptive`.
    pub method: ScoringMethod,
    /// The granularity decision, when the level is adaptive.
    pub granularity: Option<GranularityDecision>,
    /// Why this method.
    pub reason: &'static str,
}

impl GranularityClassifier {
    /// Chooses the scoring method for `query` at `level`: the configured
    /// method, or for `adaptive` levels multi-vector when the query is
    /// fine-grained or the decision ambiguous (the cheaper path), LLM
    /// scoring when it is clearly holistic.
    pub fn select_scoring(
        &self,
        config: &ScoringConfig,
        level: usize,
        query: &str,
    ) -> ScoringChoice {
        let configured = config.method_for(level);
        if configured != ScoringMethod::Adaptive {
            return ScoringChoice {
                level,
                configured,
                method: configured,
                granularity: None,
                reason: "configured for the level",
            };
        }
        let decision = self.classify(query);
        let (method, reason) = match (decision.label(), decision.ambiguous) {
            (Granularity::Holistic, false) => {
                (ScoringMethod::Llm, "holistic/reasoning query detected")
            }
            (Granularity::Holistic, true) => (
                ScoringMethod::MultiVector,
                "ambiguous decision: the cheaper fine-grained path",
            ),
            (Granularity::FineGrained, _) => {
                (ScoringMethod::MultiVector, "fine-grained query detected")
            }
        };
        tracing::debug!(
            level,
            method = method.as_str(),
            label = decision.label().as_str(),
            confidence = decision.confidence(),
            ambiguous = decision.ambiguous,
            reason,
            "query_adaptive_scoring"
        );
        ScoringChoice {
            level,
            configured,
            method,
            granularity: Some(decision),
            reason,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_past_the_end_use_the_last() {
        let c = ScoringConfig::default();
        assert_eq!(c.method_for(0), ScoringMethod::DenseSparse);
        assert_eq!(c.method_for(1), ScoringMethod::DenseSparse);
        assert_eq!(c.method_for(2), ScoringMethod::Adaptive);
        assert_eq!(c.method_for(99), ScoringMethod::Adaptive);
        let c = ScoringConfig::new([]).with_level(3, ScoringMethod::Llm);
        assert_eq!(
            c.levels(),
            [
                ScoringMethod::Adaptive,
                ScoringMethod::Adaptive,
                ScoringMethod::Adaptive,
                ScoringMethod::Llm
            ]
        );
        let c = c.with_level(MAX_LEVELS, ScoringMethod::DenseSparse);
        assert_eq!(c.levels().len(), 4);
    }
}
