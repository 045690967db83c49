//! Query routing (ADR-0008): the four query types with their retrieval and
//! model-slot assignments, intent-history entries, and the routing
//! decision a router returns.

use serde::{Deserialize, Serialize};

use crate::{Classification, Error, Label};

/// Which pipeline serves an assistant query (see the labelling guide, task
/// `route`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum QueryType {
    /// A question about the product's language, library or documentation
    /// that needs documentation context.
    Retrieval,
    /// A request to write, complete, fix or convert code.
    CodeGeneration,
    /// Continues or reformulates an earlier answer, greetings, small talk.
    Conversational,
    /// About the user's own account: usage, quota, limits, plan, billing;
    /// and every message with a platform-injected prefix.
    Platform,
}

impl QueryType {
    /// Whether the pipeline runs a retrieval (RAG) step for this type
    /// (RC-04): true for `RETRIEVAL` and `CODE_GENERATION`, false for
    /// `CONVERSATIONAL` and `PLATFORM`.
    pub fn needs_retrieval(self) -> bool {
        matches!(self, Self::Retrieval | Self::CodeGeneration)
    }

    /// The model slot serving this type (RC-05): the main slot for
    /// `RETRIEVAL` and `CODE_GENERATION`, the conversational slot for
    /// `CONVERSATIONAL` and `PLATFORM`.
    pub fn model_slot(self) -> ModelSlot {
        match self {
            Self::Retrieval | Self::CodeGeneration => ModelSlot::Main,
            Self::Conversational | Self::Platform => ModelSlot::Conversational,
        }
    }
}

impl Label for QueryType {
    const ALL: &'static [Self] = &[
        Self::Retrieval,
        Self::CodeGeneration,
        Self::Conversational,
        Self::Platform,
    ];

    fn as_str(self) -> &'static str {
        match self {
            Self::Retrieval => "RETRIEVAL",
            Self::CodeGeneration => "CODE_GENERATION",
            Self::Conversational => "CONVERSATIONAL",
            Self::Platform => "PLATFORM",
        }
    }
}

impl std::fmt::Display for QueryType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for QueryType {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        <Self as Label>::parse(s).ok_or_else(|| Error::for_label::<Self>("route", s))
    }
}

/// The two model slots of ADR-0008 (RC-05).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelSlot {
    /// `OLLAMA_MODEL_NAME`: retrieval and code generation.
    Main,
    /// `OLLAMA_MODEL_NAME_CONVERSATIONAL` (falling back to the main slot's
    /// model when unset): conversational and platform queries.
    Conversational,
}

impl ModelSlot {
    /// The environment variable that names the slot's model.
    pub fn env_var(self) -> &'static str {
        match self {
            Self::Main => "OLLAMA_MODEL_NAME",
            Self::Conversational => "OLLAMA_MODEL_NAME_CONVERSATIONAL",
        }
    }

    /// The slot's name as written in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Main => "main",
            Self::Conversational => "conversational",
        }
    }
}

impl std::fmt::Display for ModelSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One earlier classified turn of a session: its type and a topic snippet
/// (the first 60 characters of the message). Written `{"type": ...,
/// "snippet": ...}` in datasets and history files.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct IntentEntry {
    /// The turn's classified type.
    #[serde(rename = "type")]
    pub kind: QueryType,
    /// The start of the turn's message.
    pub snippet: String,
}

/// Which rule of the routing contract decided a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RouteRule {
    /// RC-01: a registered platform prefix; no model is called.
    PlatformPrefix,
    /// RC-02: account usage, quota, limit, plan or billing data in the
    /// message, whatever the history.
    PlatformSignal,
    /// The message's own content.
    Content,
    /// RC-03: the message refers back ("this", "eso") and the referenced
    /// history entry resolved what the content left open.
    HistoryReference,
    /// A fallback model answered for a case the heuristics left ambiguous.
    Model,
    /// The learned linear model decided a case the heuristics left
    /// uncertain (the `learned` and `hybrid` strategies; never for RC-01
    /// or RC-02).
    Learned,
    /// No evidence at all: the default type.
    Fallback,
}

impl RouteRule {
    /// The contract rule's identifier (`RC-01` ...), if the rule is one.
    pub fn contract_id(self) -> Option<&'static str> {
        match self {
            Self::PlatformPrefix => Some("RC-01"),
            Self::PlatformSignal => Some("RC-02"),
            Self::HistoryReference => Some("RC-03"),
            Self::Content | Self::Model | Self::Learned | Self::Fallback => None,
        }
    }

    /// The rule's name as written in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PlatformPrefix => "platform_prefix",
            Self::PlatformSignal => "platform_signal",
            Self::Content => "content",
            Self::HistoryReference => "history_reference",
            Self::Model => "model",
            Self::Learned => "learned",
            Self::Fallback => "fallback",
        }
    }
}

impl std::fmt::Display for RouteRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.contract_id() {
            Some(id) => write!(f, "{} ({id})", self.as_str()),
            None => f.write_str(self.as_str()),
        }
    }
}

/// A routing decision: the type with confidence and reasons, the rule that
/// decided it, the model slot (and the model, when configured), whether
/// retrieval runs, and whether the heuristics found the case ambiguous.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RouteDecision {
    /// Label, confidence and reasons.
    #[serde(flatten)]
    pub classification: Classification<QueryType>,
    /// The rule that decided.
    pub rule: RouteRule,
    /// The slot serving the type (RC-05).
    pub model_slot: ModelSlot,
    /// The slot's configured model, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Whether a retrieval step runs (RC-04).
    pub needs_retrieval: bool,
    /// Whether the heuristics' evidence was too weak or too close to call.
    pub ambiguous: bool,
    /// The history entry a reference in the message resolved to (RC-03).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved: Option<IntentEntry>,
}

impl RouteDecision {
    /// A decision for `classification` by `rule`: the slot and whether
    /// retrieval runs follow from the label (RC-04, RC-05); no model name,
    /// not ambiguous, no resolved history entry until set.
    pub fn new(classification: Classification<QueryType>, rule: RouteRule) -> Self {
        let label = classification.label;
        Self {
            classification,
            rule,
            model_slot: label.model_slot(),
            model: None,
            needs_retrieval: label.needs_retrieval(),
            ambiguous: false,
            resolved: None,
        }
    }

    /// The decided type.
    pub fn label(&self) -> QueryType {
        self.classification.label
    }

    /// The confidence in the type, in [0, 1].
    pub fn confidence(&self) -> f32 {
        self.classification.confidence
    }

    /// Whether a retrieval step runs (RC-04): false for `CONVERSATIONAL`
    /// and `PLATFORM`.
    pub fn needs_retrieval(&self) -> bool {
        self.classification.label.needs_retrieval()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip_and_assignments_follow_the_contract() {
        for &t in QueryType::ALL {
            assert_eq!(t.as_str().parse::<QueryType>().ok(), Some(t));
            assert_eq!(
                serde_json::to_string(&t).unwrap(),
                format!("\"{}\"", t.as_str())
            );
        }
        assert!("retrieval".parse::<QueryType>().is_err());
        assert!(QueryType::Retrieval.needs_retrieval());
        assert!(QueryType::CodeGeneration.needs_retrieval());
        assert!(!QueryType::Conversational.needs_retrieval());
        assert!(!QueryType::Platform.needs_retrieval());
        assert_eq!(QueryType::Platform.model_slot(), ModelSlot::Conversational);
        assert_eq!(QueryType::CodeGeneration.model_slot(), ModelSlot::Main);
    }

    #[test]
    fn entries_use_the_type_key() {
        let e: IntentEntry =
            serde_json::from_str(r#"{"type":"PLATFORM","snippet":"How much quota"}"#).unwrap();
        assert_eq!(e.kind, QueryType::Platform);
        assert_eq!(
            serde_json::to_string(&e).unwrap(),
            r#"{"type":"PLATFORM","snippet":"How much quota"}"#
        );
    }
}
