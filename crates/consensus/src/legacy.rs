//! The legacy binary consensus, kept for `[ppp] enabled = false`: agents
//! either agree on a verdict (`ok`), agree but some gave none (`degraded`),
//! or disagree (`conflict`). Interaction quality plays no part.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::Error;

/// The legacy status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LegacyStatus {
    /// Every agent gave a verdict and all verdicts agree.
    Ok,
    /// The verdicts given agree, but some agents gave none (or none did).
    Degraded,
    /// Two or more different verdicts.
    Conflict,
}

impl LegacyStatus {
    /// The status as written: `ok`, `degraded`, `conflict`.
    pub fn as_str(self) -> &'static str {
        match self {
            LegacyStatus::Ok => "ok",
            LegacyStatus::Degraded => "degraded",
            LegacyStatus::Conflict => "conflict",
        }
    }
}

/// One agent's verdict (`None`: it produced none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vote {
    /// The agent.
    pub agent: String,
    /// Its verdict, compared case-insensitively after trimming.
    pub verdict: Option<String>,
}

/// The result of a legacy consensus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LegacyConsensus {
    /// `ok`, `degraded` or `conflict`.
    pub status: LegacyStatus,
    /// The agreed verdict (`ok`/`degraded`), or the most common one in a
    /// conflict (ties: the first in byte order); `None` when no agent gave one.
    pub verdict: Option<String>,
    /// Agents by verdict (normalized: trimmed, lower case), in byte order.
    pub groups: BTreeMap<String, Vec<String>>,
    /// Agents that gave no verdict.
    pub missing: Vec<String>,
}

/// Runs the legacy consensus. Errors on no vote or an empty or duplicate
/// agent name.
pub fn legacy_consensus(votes: &[Vote]) -> Result<LegacyConsensus, Error> {
    if votes.is_empty() {
        return Err(Error::Empty);
    }
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut missing = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for v in votes {
        if v.agent.trim().is_empty() {
            return Err(Error::EmptyAgent);
        }
        if !seen.insert(v.agent.as_str()) {
            return Err(Error::DuplicateAgent(v.agent.clone()));
        }
        match v
            .verdict
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            Some(verdict) => groups
                .entry(verdict.to_lowercase())
                .or_default()
                .push(v.agent.clone()),
            None => missing.push(v.agent.clone()),
        }
    }
    for agents in groups.values_mut() {
        agents.sort();
    }
    missing.sort();
    let status = match (groups.len(), missing.is_empty()) {
        (n, _) if n >= 2 => LegacyStatus::Conflict,
        (1, true) => LegacyStatus::Ok,
        _ => LegacyStatus::Degraded,
    };
    // Most agents first; ties to the first verdict in byte order.
    let verdict = groups
        .iter()
        .max_by(|a, b| a.1.len().cmp(&b.1.len()).then(b.0.cmp(a.0)))
        .map(|(k, _)| k.clone());
    Ok(LegacyConsensus {
        status,
        verdict,
        groups,
        missing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vote(agent: &str, verdict: Option<&str>) -> Vote {
        Vote {
            agent: agent.into(),
            verdict: verdict.map(Into::into),
        }
    }

    #[test]
    fn ok_degraded_conflict() {
        let r =
            legacy_consensus(&[vote("a", Some("Approve")), vote("b", Some(" approve "))]).unwrap();
        assert_eq!(
            (r.status, r.verdict.as_deref()),
            (LegacyStatus::Ok, Some("approve"))
        );
        let r = legacy_consensus(&[vote("a", Some("approve")), vote("b", None)]).unwrap();
        assert_eq!(
            (r.status, r.missing.as_slice()),
            (LegacyStatus::Degraded, &["b".to_owned()][..])
        );
        let r = legacy_consensus(&[vote("a", None)]).unwrap();
        assert_eq!((r.status, r.verdict), (LegacyStatus::Degraded, None));
        let r = legacy_consensus(&[
            vote("c", Some("reject")),
            vote("a", Some("approve")),
            vote("b", Some("reject")),
        ])
        .unwrap();
        assert_eq!(
            (r.status, r.verdict.as_deref()),
            (LegacyStatus::Conflict, Some("reject"))
        );
        let r = legacy_consensus(&[vote("a", Some("x")), vote("b", Some("w"))]).unwrap();
        assert_eq!(r.verdict.as_deref(), Some("w"), "ties go to byte order");
        assert!(matches!(legacy_consensus(&[]), Err(Error::Empty)));
        assert!(matches!(
            legacy_consensus(&[vote("a", None), vote("a", None)]),
            Err(Error::DuplicateAgent(_))
        ));
    }
}
