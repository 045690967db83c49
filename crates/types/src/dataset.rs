//! Records of the labelled datasets defined by the labelling guide, one
//! type per task; unknown fields are ignored, missing required ones are
//! errors.

use serde::{Deserialize, Serialize};

use crate::{EffortLevel, Granularity, IntentEntry, QueryType};

/// One line of an `effort` dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EffortExample {
    /// Optional identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The question the agent asked.
    pub text: String,
    /// The gold label.
    pub label: EffortLevel,
    /// What the user already has at hand, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// The agent's whole message the question was asked in, if given: the
    /// options it lists are in front of the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Optional annotator note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One question to classify, as read by batch tools: the `effort` record
/// without its label.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EffortQuery {
    /// Optional identifier, echoed in results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The question.
    pub text: String,
    /// What the user already has at hand, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// The agent's whole message the question was asked in, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// One line of a `granularity` dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GranularityExample {
    /// Optional identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The retrieval query.
    pub text: String,
    /// The gold label.
    pub label: Granularity,
    /// Optional annotator note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One query to classify by granularity, as read by batch tools: the
/// `granularity` record without its label.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GranularityQuery {
    /// Optional identifier, echoed in results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The query.
    pub text: String,
}

/// One line of a `route` dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RouteExample {
    /// Optional identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The new user message.
    pub text: String,
    /// The gold label.
    pub label: QueryType,
    /// Earlier classified turns, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<IntentEntry>,
    /// Optional annotator note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One message to route, as read by batch tools: the `route` record
/// without its label.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RouteQuery {
    /// Optional identifier, echoed in results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The new user message.
    pub text: String,
    /// Earlier classified turns, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<IntentEntry>,
}
