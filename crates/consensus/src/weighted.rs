//! Interaction-weighted consensus: final = w_t * technical + w_i *
//! interaction (normalized or not), best first, ties broken
//! deterministically.

use serde::{Deserialize, Serialize};

use crate::Error;
use crate::config::{Normalization, Weights};

/// One agent to rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// The agent's name (unique among candidates).
    pub agent: String,
    /// The technical score: R_Prod, the task outcome, in [0, 1].
    pub technical: f64,
    /// The interaction score of the profile (R_Proact + R_Pers for `spec`).
    pub interaction: f64,
}

/// One agent's scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AgentScore {
    /// The agent.
    pub agent: String,
    /// 1 for the winner.
    pub rank: usize,
    /// The technical score in [0, 1].
    #[serde(serialize_with = "tact_types::figures::f64_figure")]
    pub technical_score: f64,
    /// The interaction score as given.
    #[serde(serialize_with = "tact_types::figures::f64_figure")]
    pub interaction_score: f64,
    /// The interaction score mapped onto [0, 1], when normalizing.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "tact_types::figures::opt_f64_figure"
    )]
    pub normalized_interaction: Option<f64>,
    /// w_t * technical + w_i * interaction (normalized if normalizing).
    #[serde(serialize_with = "tact_types::figures::f64_figure")]
    pub final_score: f64,
}

/// How sure the choice is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Confidence {
    /// The winner's final score.
    #[serde(serialize_with = "tact_types::figures::f64_figure")]
    pub score: f64,
    /// The winner's lead over the runner-up (`None` with one candidate).
    #[serde(serialize_with = "tact_types::figures::opt_f64_figure")]
    pub margin: Option<f64>,
}

/// The result of a weighted consensus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct WeightedConsensus {
    /// The agent chosen.
    pub best_agent: String,
    /// Its score and its margin over the runner-up.
    pub confidence: Confidence,
    /// Every agent, best first.
    pub scores: Vec<AgentScore>,
    /// The technical weight used.
    pub technical_weight: f64,
    /// The interaction weight used.
    pub interaction_weight: f64,
    /// The normalization used.
    pub normalization: Normalization,
}

/// Scores are compared on a grid of 1e-9 so that float noise never decides
/// a ranking (and the order stays total).
fn grid(x: f64) -> i64 {
    // Validated inputs keep |x| small; `as` saturates anyway.
    (x * 1e9).round() as i64
}

/// Ranks candidates: final = w_t * technical + w_i * interaction, where the
/// interaction is first normalized when asked.
///
/// Ties (equal final scores to 1e-9) go to the higher technical score,
/// then the higher interaction score, then the agent name in byte order.
/// Errors, never panics: no candidate, an empty or duplicate agent name, a
/// technical score that is not a finite number in [0, 1], a non-finite
/// interaction score, or an invalid normalization.
pub fn weighted_consensus(
    candidates: &[Candidate],
    weights: Weights,
    normalization: Normalization,
) -> Result<WeightedConsensus, Error> {
    if candidates.is_empty() {
        return Err(Error::Empty);
    }
    normalization.validate()?;
    let mut seen = std::collections::BTreeSet::new();
    for c in candidates {
        if c.agent.trim().is_empty() {
            return Err(Error::EmptyAgent);
        }
        if !seen.insert(c.agent.as_str()) {
            return Err(Error::DuplicateAgent(c.agent.clone()));
        }
        if !c.technical.is_finite() || !(0.0..=1.0).contains(&c.technical) {
            return Err(Error::InvalidScore {
                agent: c.agent.clone(),
                field: "technical",
                value: c.technical,
                expected: "a finite number in [0, 1]",
            });
        }
        // Bounded far beyond any real reward, so weighted sums stay exact
        // enough and finite.
        if !c.interaction.is_finite() || c.interaction.abs() > 1e6 {
            return Err(Error::InvalidScore {
                agent: c.agent.clone(),
                field: "interaction",
                value: c.interaction,
                expected: "a finite number within +-1e6",
            });
        }
    }
    let mut scores: Vec<AgentScore> = candidates
        .iter()
        .map(|c| {
            let normalized = match normalization {
                Normalization::None => None,
                Normalization::Linear { .. } => Some(normalization.apply(c.interaction)),
            };
            let used = normalized.unwrap_or(c.interaction);
            AgentScore {
                agent: c.agent.clone(),
                rank: 0,
                technical_score: c.technical,
                interaction_score: c.interaction,
                normalized_interaction: normalized,
                // The same formula as `Consensus::final_score`.
                final_score: weights.technical() * c.technical + weights.interaction() * used,
            }
        })
        .collect();
    scores.sort_by(|a, b| {
        grid(b.final_score)
            .cmp(&grid(a.final_score))
            .then(grid(b.technical_score).cmp(&grid(a.technical_score)))
            .then(grid(b.interaction_score).cmp(&grid(a.interaction_score)))
            .then(a.agent.cmp(&b.agent))
    });
    for (i, s) in scores.iter_mut().enumerate() {
        s.rank = i + 1;
    }
    let best = &scores[0];
    let confidence = Confidence {
        score: best.final_score,
        margin: scores.get(1).map(|r| best.final_score - r.final_score),
    };
    Ok(WeightedConsensus {
        best_agent: best.agent.clone(),
        confidence,
        technical_weight: weights.technical(),
        interaction_weight: weights.interaction(),
        normalization,
        scores,
    })
}
