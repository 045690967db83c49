//! Records of the labelled datasets defined by the labelling guide, one
//! type per task; unknown fields are ignored, missing required ones are
//! errors.

use serde::{Deserialize, Serialize};

use crate::EffortLevel;

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
    /// Optional annotator note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One question to classify, as read by batch tools: the `effort` record
/// without its label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EffortQuery {
    /// Optional identifier, echoed in results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The question.
    pub text: String,
    /// What the user already has at hand, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
}
