//! Strategy `seed`: only what ADR-0008 itself decides without a model,
//! kept as the baseline.
//!
//! The ADR leaves the classification of a message to a small LLM. What it
//! specifies deterministically is the platform-prefix fast path (RC-01,
//! applied by the router for every strategy) and the keywords of its
//! `<platform_priority_rule>` (RC-02: usage percentages, account metrics or
//! consumption figures, quota, limit or billing data), matched here as
//! lower-case substrings the way the ADR's prompt words them. Everything
//! else gets `RETRIEVAL`, the type every query had before the ADR (one
//! model, always with retrieval).

use tact_types::{Classification, QueryType, Reason};

/// The platform-priority keywords of the ADR, as substrings.
pub const PLATFORM_KEYWORDS: &[&str] = &[
    "%",
    "usage",
    "percentage",
    "account",
    "metric",
    "consumption",
    "quota",
    "limit",
    "billing",
];

/// Classifies a message that carries no registered prefix.
pub fn classify(message: &str) -> Classification<QueryType> {
    let lower = message.to_lowercase();
    match PLATFORM_KEYWORDS.iter().find(|k| lower.contains(**k)) {
        Some(k) => Classification::new(QueryType::Platform, 0.8).with_reason(Reason::new(
            "seed_platform_keyword",
            format!("platform priority keyword `{k}`"),
            1.0,
        )),
        None => Classification::new(QueryType::Retrieval, 0.25).with_reason(Reason::new(
            "seed_default",
            "no platform keyword: the LLM classifier's job; RETRIEVAL by default",
            0.0,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_or_retrieval() {
        assert_eq!(
            classify("You have a project usage percentage of 20%").label,
            QueryType::Platform
        );
        assert_eq!(
            classify("Write an endpoint with a rate limit").label,
            QueryType::Platform
        );
        assert_eq!(classify("thanks!").label, QueryType::Retrieval);
    }
}
