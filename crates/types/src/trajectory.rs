//! Agent trajectories as the labelling guide's `guidance` task defines them:
//! serde event types (user, nudge, assistant, tool call, condensation,
//! progress), pending calls, the window [`Mode`], and the `guidance`
//! dataset record.
//!
//! ```
//! use tact_types::trajectory::{Event, Trajectory};
//!
//! let t: Trajectory = serde_json::from_str(
//!     r#"{"events": [{"type": "user", "text": "Fix it"},
//!                    {"type": "tool", "name": "read_file", "params": {"path": "a.rs"}}]}"#,
//! )?;
//! let Event::Tool(call) = &t.events[1] else { unreachable!() };
//! assert!(call.ok);
//! assert_eq!(call.output, serde_json::json!(""));
//! # Ok::<(), serde_json::Error>(())
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

/// Any JSON value, as carried by tool params and outputs.
pub use serde_json::Value as JsonValue;

/// One event of an agent's run, oldest first in a trajectory.
///
/// Serialized with a `type` tag in snake case, e.g.
/// `{"type":"tool","name":"grep","params":{"pattern":"x"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// A real user message; in interactive mode it starts a new window.
    User {
        /// The message text.
        #[serde(default)]
        text: String,
    },
    /// Guidance the host injected; not a user message.
    Nudge {
        /// The injected text.
        #[serde(default)]
        text: String,
    },
    /// An agent message without a tool call.
    Assistant {
        /// The message text (possibly empty or white space).
        #[serde(default)]
        text: String,
    },
    /// One tool call with its result.
    Tool(ToolCall),
    /// The host trimmed the context to fit the window.
    Condensation,
    /// An explicit progress signal.
    Progress {
        /// What progressed (an empty [`ProgressKind::Other`] when absent).
        #[serde(default)]
        kind: ProgressKind,
    },
}

impl Event {
    /// A user message.
    pub fn user(text: impl Into<String>) -> Self {
        Self::User { text: text.into() }
    }

    /// A host-injected nudge.
    pub fn nudge(text: impl Into<String>) -> Self {
        Self::Nudge { text: text.into() }
    }

    /// An agent message without a tool call.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::Assistant { text: text.into() }
    }

    /// A successful tool call with `{}` params and an empty output (adjust
    /// it with the [`ToolCall`] builder methods first if needed).
    pub fn tool(call: ToolCall) -> Self {
        Self::Tool(call)
    }

    /// A context condensation.
    pub fn condensation() -> Self {
        Self::Condensation
    }

    /// A progress signal.
    pub fn progress(kind: ProgressKind) -> Self {
        Self::Progress { kind }
    }

    /// The `type` tag of the event as written in JSON.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::User { .. } => "user",
            Self::Nudge { .. } => "nudge",
            Self::Assistant { .. } => "assistant",
            Self::Tool(_) => "tool",
            Self::Condensation => "condensation",
            Self::Progress { .. } => "progress",
        }
    }
}

/// One tool call and its result.
///
/// `params` defaults to `{}` (a JSON `null` also reads as `{}`), `ok` to
/// `true`, `output` to `""`. Calls that share a `step` number were issued
/// together (in parallel); without `step`, every call is its own step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolCall {
    /// The tool's name.
    pub name: String,
    /// The call's parameters (usually an object).
    #[serde(default = "empty_object", deserialize_with = "null_as_object")]
    pub params: JsonValue,
    /// `false` for a failed call.
    #[serde(default = "yes")]
    pub ok: bool,
    /// The result, any JSON value (usually a string).
    #[serde(default = "empty_string")]
    pub output: JsonValue,
    /// The step number shared by calls issued together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u64>,
    /// The whole output's length in characters when `output` holds only
    /// its head (an agent's log importer keeps the head of a long output
    /// and its length, not the whole); `None` when `output` is whole.
    /// Never serialized.
    #[serde(skip)]
    pub output_chars: Option<usize>,
}

impl ToolCall {
    /// A successful call of `name` with `{}` params and an empty output.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            params: empty_object(),
            ok: true,
            output: empty_string(),
            step: None,
            output_chars: None,
        }
    }

    /// Sets the params (builder style).
    #[must_use]
    pub fn params(mut self, params: JsonValue) -> Self {
        self.params = params;
        self
    }

    /// Sets whether the call succeeded (builder style).
    #[must_use]
    pub fn ok(mut self, ok: bool) -> Self {
        self.ok = ok;
        self
    }

    /// Sets the output (builder style).
    #[must_use]
    pub fn output(mut self, output: impl Into<JsonValue>) -> Self {
        self.output = output.into();
        self
    }

    /// Sets the step number (builder style).
    #[must_use]
    pub fn step(mut self, step: u64) -> Self {
        self.step = Some(step);
        self
    }
}

/// What an explicit progress signal reports. Kinds outside the guide's list
/// are kept as [`ProgressKind::Other`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
#[non_exhaustive]
pub enum ProgressKind {
    /// `test_passed`
    TestPassed,
    /// `build_succeeded`
    BuildSucceeded,
    /// `file_created`
    FileCreated,
    /// `plan_step_completed`
    PlanStepCompleted,
    /// `user_acknowledged`
    UserAcknowledged,
    /// Any other kind, as written.
    Other(String),
}

impl Default for ProgressKind {
    /// An unnamed kind (`Other("")`), used when `kind` is absent.
    fn default() -> Self {
        Self::Other(String::new())
    }
}

impl ProgressKind {
    /// The kind as written in JSON.
    pub fn as_str(&self) -> &str {
        match self {
            Self::TestPassed => "test_passed",
            Self::BuildSucceeded => "build_succeeded",
            Self::FileCreated => "file_created",
            Self::PlanStepCompleted => "plan_step_completed",
            Self::UserAcknowledged => "user_acknowledged",
            Self::Other(s) => s,
        }
    }
}

impl From<String> for ProgressKind {
    fn from(s: String) -> Self {
        match s.as_str() {
            "test_passed" => Self::TestPassed,
            "build_succeeded" => Self::BuildSucceeded,
            "file_created" => Self::FileCreated,
            "plan_step_completed" => Self::PlanStepCompleted,
            "user_acknowledged" => Self::UserAcknowledged,
            _ => Self::Other(s),
        }
    }
}

impl From<ProgressKind> for String {
    fn from(k: ProgressKind) -> Self {
        match k {
            ProgressKind::Other(s) => s,
            known => known.as_str().to_owned(),
        }
    }
}

impl std::fmt::Display for ProgressKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tool call the agent proposed but that has not run yet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingCall {
    /// The tool's name.
    pub name: String,
    /// The proposed parameters.
    #[serde(default = "empty_object", deserialize_with = "null_as_object")]
    pub params: JsonValue,
}

impl PendingCall {
    /// A pending call of `name` with `params`.
    pub fn new(name: impl Into<String>, params: JsonValue) -> Self {
        Self {
            name: name.into(),
            params,
        }
    }
}

/// Which part of a trajectory the classifiers look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The whole trajectory (the default).
    #[default]
    Headless,
    /// Only what follows the last `user` event; nudges do not restart it.
    Interactive,
}

impl Mode {
    /// The mode as written in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Headless => "headless",
            Self::Interactive => "interactive",
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Mode {
    type Err = crate::Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "headless" => Ok(Self::Headless),
            "interactive" => Ok(Self::Interactive),
            _ => Err(crate::Error {
                task: "guidance",
                found: s.to_owned(),
                expected: "headless, interactive".to_owned(),
            }),
        }
    }
}

/// A trajectory to classify: events (oldest first), the window mode and
/// the pending calls.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Trajectory {
    /// Optional identifier, echoed in results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The events, oldest first.
    pub events: Vec<Event>,
    /// Headless (default) or interactive.
    #[serde(default)]
    pub mode: Mode,
    /// Tool calls proposed but not run yet.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<PendingCall>,
}

/// One line of a `guidance` dataset: a trajectory and the expected verdict
/// of some classifiers after its last event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GuidanceExample {
    /// Optional identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Optional annotator note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The events, oldest first.
    pub events: Vec<Event>,
    /// Classifier name to expected verdict; names left out are not checked.
    pub expect: BTreeMap<String, bool>,
    /// Headless (default) or interactive.
    #[serde(default)]
    pub mode: Mode,
    /// Tool calls proposed but not run yet.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<PendingCall>,
}

impl GuidanceExample {
    /// The trajectory part of the record (cloned).
    pub fn trajectory(&self) -> Trajectory {
        Trajectory {
            id: self.id.clone(),
            events: self.events.clone(),
            mode: self.mode,
            pending: self.pending.clone(),
        }
    }
}

fn empty_object() -> JsonValue {
    JsonValue::Object(serde_json::Map::new())
}

fn empty_string() -> JsonValue {
    JsonValue::String(String::new())
}

fn yes() -> bool {
    true
}

fn null_as_object<'de, D: Deserializer<'de>>(d: D) -> Result<JsonValue, D::Error> {
    let v = JsonValue::deserialize(d)?;
    Ok(if v.is_null() { empty_object() } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_defaults_match_the_guide() {
        let e: Event = serde_json::from_str(r#"{"type":"tool","name":"ls"}"#).unwrap();
        assert_eq!(e, Event::Tool(ToolCall::new("ls")));
        let e: Event = serde_json::from_str(
            r#"{"type":"tool","name":"ls","params":null,"ok":false,"output":{"a":1},"step":3}"#,
        )
        .unwrap();
        let Event::Tool(c) = e else { panic!() };
        assert_eq!(c.params, json!({}));
        assert!(!c.ok);
        assert_eq!(c.output, json!({"a": 1}));
        assert_eq!(c.step, Some(3));
    }

    #[test]
    fn every_event_type_round_trips() {
        let events = vec![
            Event::user("hi"),
            Event::nudge("n"),
            Event::assistant(""),
            Event::tool(
                ToolCall::new("grep")
                    .params(json!({"pattern": "x"}))
                    .ok(false)
                    .output("e")
                    .step(1),
            ),
            Event::condensation(),
            Event::progress(ProgressKind::TestPassed),
            Event::progress(ProgressKind::Other("deployed".into())),
        ];
        for e in events {
            let s = serde_json::to_string(&e).unwrap();
            assert!(
                s.contains(&format!("\"type\":\"{}\"", e.type_name())),
                "{s}"
            );
            let back: Event = serde_json::from_str(&s).unwrap();
            assert_eq!(back, e);
        }
        assert_eq!(
            serde_json::to_string(&Event::condensation()).unwrap(),
            r#"{"type":"condensation"}"#
        );
    }

    #[test]
    fn unknown_type_and_missing_name_are_errors_other_fields_default() {
        assert!(serde_json::from_str::<Event>(r#"{"type":"thought"}"#).is_err());
        assert!(serde_json::from_str::<Event>(r#"{"type":"tool"}"#).is_err());
        assert_eq!(
            serde_json::from_str::<Event>(r#"{"type":"progress"}"#).unwrap(),
            Event::progress(ProgressKind::default())
        );
        assert_eq!(
            serde_json::from_str::<Event>(r#"{"type":"assistant"}"#).unwrap(),
            Event::assistant("")
        );
    }

    #[test]
    fn dataset_record_defaults() {
        let r: GuidanceExample = serde_json::from_str(
            r#"{"events":[{"type":"user","text":"x"}],"expect":{"doom_loop":false},"extra":1}"#,
        )
        .unwrap();
        assert_eq!(r.mode, Mode::Headless);
        assert!(r.pending.is_empty());
        assert_eq!(r.expect.get("doom_loop"), Some(&false));
        assert_eq!(r.trajectory().events.len(), 1);
        let r: GuidanceExample = serde_json::from_str(
            r#"{"events":[],"expect":{},"mode":"interactive","pending":[{"name":"db"}]}"#,
        )
        .unwrap();
        assert_eq!(r.mode, Mode::Interactive);
        assert_eq!(r.pending[0].params, json!({}));
        assert!(
            serde_json::from_str::<GuidanceExample>(r#"{"events":[],"expect":{},"mode":"batch"}"#)
                .is_err()
        );
        assert_eq!("interactive".parse::<Mode>().unwrap(), Mode::Interactive);
        assert!("x".parse::<Mode>().is_err());
    }
}
