//! Interaction-weighted consensus: rank several agents' sessions by
//! technical quality and by how they treated the user.
//!
//! Each agent gets final = w_t * technical + w_i * interaction, where
//! - technical is R_Prod, the task outcome in [0, 1] the host supplies
//!   (test pass rate, build success, exact match): the one definition of the
//!   technical score in this crate;
//! - interaction is the reward profile's interaction score (R_Proact +
//!   R_Pers under `spec`), optionally mapped linearly onto [0, 1] first so
//!   both scales are comparable;
//! - the weights are 0.7 / 0.3 by default, per stage (plan 0.6/0.4, tasks
//!   0.7/0.3, implement 0.7/0.3, validate 0.75/0.25, audit 0.8/0.2, unlock
//!   0.8/0.2), and overridable in a `[ppp]` TOML section.
//!
//! With `[ppp] enabled = false` the legacy binary consensus (ok / degraded
//! / conflict over the agents' verdicts) runs instead.
//!
//! SPEC-PPP-003's own example: agent A (technical 1.0, three high-effort
//! questions) loses to agent B (technical 0.9, no question), 0.25 against
//! 0.645 under the `spec` profile.
//!
//! ```
//! use tact_consensus::{Candidate, Normalization, Weights, weighted_consensus};
//!
//! let candidates = [
//!     Candidate { agent: "agent_a".into(), technical: 1.0, interaction: -1.5 },
//!     Candidate { agent: "agent_b".into(), technical: 0.9, interaction: 0.05 },
//! ];
//! let result = weighted_consensus(&candidates, Weights::DEFAULT, Normalization::None)?;
//! assert_eq!(result.best_agent, "agent_b");
//! assert!((result.scores[0].final_score - 0.645).abs() < 1e-9);
//! assert!((result.scores[1].final_score - 0.25).abs() < 1e-9);
//! assert!((result.confidence.margin.unwrap() - 0.395).abs() < 1e-9);
//!
//! // Bad input is an error, never a panic.
//! assert!(weighted_consensus(&[], Weights::DEFAULT, Normalization::None).is_err());
//! assert!(Weights::new(f64::NAN, 0.3, "ppp").is_err());
//! # Ok::<(), tact_consensus::Error>(())
//! ```
//!
//! Whole sessions go through [`Consensus`], which scores each one with
//! `tact-scoring` first.
//!
//! # Features
//!
//! No optional features.
#![deny(missing_docs)]

pub mod config;
mod error;
pub mod legacy;
pub mod weighted;

use serde::{Deserialize, Serialize};
use tact_scoring::{Scorer, Session, SessionScore};

pub use config::{Normalization, PppConfig, STAGES, Settings, StageWeights, Weights};
pub use error::Error;

/// `Result` with this crate's [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
pub use legacy::{LegacyConsensus, LegacyStatus, Vote, legacy_consensus};
pub use weighted::{AgentScore, Candidate, Confidence, WeightedConsensus, weighted_consensus};

/// What a consensus over sessions decided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Decision {
    /// `[ppp] enabled = true`: agents ranked by weighted score.
    Weighted {
        /// The stage whose weights applied (`None`: the default weights).
        stage: Option<String>,
        /// The reward profile used.
        profile: String,
        /// The ranking.
        consensus: WeightedConsensus,
        /// Each session's score, in input order.
        sessions: Vec<SessionScore>,
    },
    /// `[ppp] enabled = false`: the legacy binary consensus.
    Legacy {
        /// The stage of the sessions, if any.
        stage: Option<String>,
        /// The verdicts' agreement.
        consensus: LegacyConsensus,
    },
}

/// Runs consensus over sessions with validated settings.
#[derive(Debug)]
pub struct Consensus {
    settings: Settings,
    scorer: Scorer,
}

impl Consensus {
    /// Validates the configuration and builds a scorer for its profile.
    pub fn new(config: &PppConfig) -> Result<Consensus, Error> {
        let settings = config.validate()?;
        let scorer = Scorer::builder().profile(settings.profile).build()?;
        Ok(Consensus { settings, scorer })
    }

    /// Uses a scorer of the host's making (with a judge, say); its profile
    /// replaces the configured one, and the normalization ceiling follows it.
    pub fn with_scorer(config: &PppConfig, scorer: Scorer) -> Result<Consensus, Error> {
        let mut settings = config.validate()?;
        settings.profile = scorer.profile();
        if let Normalization::Linear { floor, .. } = settings.normalization {
            settings.normalization = Normalization::Linear {
                floor,
                ceiling: settings.profile.max_interaction(),
            };
            settings.normalization.validate()?;
        }
        Ok(Consensus { settings, scorer })
    }

    /// The validated settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The final consensus score a weighted ranking gives a session scored
    /// as `score` under `weights`: technical weight x R_Prod + interaction
    /// weight x the (normalized) interaction score. It depends on the
    /// session alone, so a host can store it with the session. `None` when
    /// the weighted consensus is off (the legacy consensus has no score).
    pub fn final_score(&self, score: &SessionScore, weights: Weights) -> Option<f64> {
        self.settings.enabled.then(|| {
            weights.technical() * score.r_prod
                + weights.interaction() * self.settings.normalization.apply(score.interaction)
        })
    }

    /// Decides among sessions of one spec and stage. With `stage`, only
    /// sessions of that stage (or with no stage) take part and its weights
    /// apply; without it, the sessions must share one stage (or have none).
    pub fn decide(&self, sessions: &[Session], stage: Option<&str>) -> Result<Decision, Error> {
        let ballots = sessions
            .iter()
            .filter(|s| stage.is_none_or(|st| s.stage.as_deref().is_none_or(|x| x == st)))
            .map(|s| {
                let score = self.scorer.score(s);
                Ballot {
                    agent: s.agent.clone(),
                    spec_id: s.spec_id.clone(),
                    stage: s.stage.clone(),
                    verdict: s.verdict.clone(),
                    technical: score.r_prod,
                    interaction: score.interaction,
                    score: Some(score),
                }
            })
            .collect();
        self.decide_scored(ballots, stage)
    }

    /// [`Consensus::decide`] over sessions already scored (with a scorer of
    /// this consensus's profile): what a host keeps of each session
    /// instead of the session itself, so that ranking many sessions needs
    /// no more than their scores in memory.
    pub fn decide_scored(
        &self,
        ballots: Vec<Ballot>,
        stage: Option<&str>,
    ) -> Result<Decision, Error> {
        let chosen: Vec<Ballot> = ballots
            .into_iter()
            .filter(|s| stage.is_none_or(|st| s.stage.as_deref().is_none_or(|x| x == st)))
            .collect();
        if chosen.is_empty() {
            return Err(Error::Empty);
        }
        let distinct = |f: &dyn Fn(&Ballot) -> Option<&str>| {
            let mut v: Vec<&str> = chosen.iter().filter_map(f).collect();
            v.sort_unstable();
            v.dedup();
            v.into_iter().map(str::to_owned).collect::<Vec<_>>()
        };
        let specs = distinct(&|s| s.spec_id.as_deref());
        if specs.len() > 1 {
            return Err(Error::Mixed {
                what: "specs",
                values: specs.join(", "),
            });
        }
        let stages = distinct(&|s| s.stage.as_deref());
        if stages.len() > 1 {
            return Err(Error::Mixed {
                what: "stages",
                values: stages.join(", "),
            });
        }
        let stage = stage
            .map(str::to_owned)
            .or_else(|| stages.into_iter().next());
        if !self.settings.enabled {
            let votes: Vec<Vote> = chosen
                .into_iter()
                .map(|s| Vote {
                    agent: s.agent,
                    verdict: s.verdict,
                })
                .collect();
            return Ok(Decision::Legacy {
                stage,
                consensus: legacy_consensus(&votes)?,
            });
        }
        let weights = self.settings.weights_for(stage.as_deref())?;
        let candidates: Vec<Candidate> = chosen
            .iter()
            .map(|s| Candidate {
                agent: s.agent.clone(),
                technical: s.technical,
                interaction: s.interaction,
            })
            .collect();
        // Collected in place, the scores would keep the ballots' whole
        // allocation (all of it when no score is given): shrunk.
        let mut scored: Vec<SessionScore> = chosen.into_iter().filter_map(|s| s.score).collect();
        scored.shrink_to_fit();
        let consensus = weighted_consensus(&candidates, weights, self.settings.normalization)?;
        Ok(Decision::Weighted {
            stage,
            profile: self.settings.profile.name().to_owned(),
            consensus,
            sessions: scored,
        })
    }
}

/// What [`Consensus::decide_scored`] needs of one session: its agent,
/// spec, stage and verdict, and its rewards.
#[derive(Debug, Clone)]
pub struct Ballot {
    /// The agent.
    pub agent: String,
    /// The spec.
    pub spec_id: Option<String>,
    /// The stage.
    pub stage: Option<String>,
    /// The legacy verdict.
    pub verdict: Option<String>,
    /// R_Prod, the technical score (by a scorer of the consensus's profile).
    pub technical: f64,
    /// The interaction reward (by a scorer of the consensus's profile).
    pub interaction: f64,
    /// The whole score, when the caller keeps it: a weighted decision's
    /// `sessions` are the scores given, in input order.
    pub score: Option<SessionScore>,
}
