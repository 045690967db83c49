//! Records of the labelling guide's `preferences` task: one agent message,
//! one preference, and whether the message violates it.

use serde::{Deserialize, Serialize};

use crate::preference::Preference;

/// One line of a `preferences` dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PreferenceExample {
    /// Optional identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The preference (one of the ten text-level names).
    pub preference: Preference,
    /// The agent message.
    pub text: String,
    /// The gold answer: whether the message violates the preference.
    pub violated: bool,
    /// Optional annotator note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}
