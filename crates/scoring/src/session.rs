//! The session model: one agent's run at one stage of one spec, with the
//! user's preferences, the turns (user prompt, agent response), the
//! questions asked and the task outcome.
//!
//! The JSON format (`fixtures/sessions/README.md` documents it with an
//! example):
//!
//! ```json
//! {
//!   "spec_id": "SPEC-DEMO-001", "stage": "implement", "agent": "agent_b",
//!   "preferences": {"format": ["commas"]},
//!   "vague_prompt": false,
//!   "context": "Task: add retries to the upload client.",
//!   "turns": [{"prompt": "Add retries.", "response": "Done: 3 retries with backoff."}],
//!   "outcome": {"kind": "tests", "passed": 9, "total": 10},
//!   "verdict": "approve"
//! }
//! ```
//!
//! A turn may carry `questions` (each `{"text", "effort"}`) when the host
//! already knows them; otherwise they are extracted from the response and
//! their effort classified.

use std::path::Path;

use serde::{Deserialize, Serialize};
use tact_types::EffortLevel;

use crate::ScoringError;
use crate::user_prefs::UserPreferences;

/// How the task went: R_Prod in [0, 1], supplied by the host.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TaskOutcome {
    /// A score already in [0, 1] (F1, spec compliance...).
    Score {
        /// The score.
        value: f64,
    },
    /// A test run: R_Prod is the pass rate.
    Tests {
        /// Tests that passed.
        passed: u64,
        /// Tests run (at least 1).
        total: u64,
    },
    /// A build: 1 when it succeeded, else 0.
    Build {
        /// Whether the build succeeded.
        success: bool,
    },
    /// An exact-match check: 1 when it matched, else 0.
    ExactMatch {
        /// Whether the output matched.
        matched: bool,
    },
}

impl TaskOutcome {
    /// R_Prod in [0, 1]. Never panics: a score outside [0, 1] is clamped,
    /// NaN counts 0, and a test run with no test counts 0 (sessions loaded
    /// from JSON reject these, see [`Session::validate`]).
    pub fn r_prod(&self) -> f64 {
        let v = match *self {
            TaskOutcome::Score { value } => value,
            TaskOutcome::Tests { passed, total } => {
                if total == 0 {
                    0.0
                } else {
                    passed.min(total) as f64 / total as f64
                }
            }
            TaskOutcome::Build { success } => f64::from(u8::from(success)),
            TaskOutcome::ExactMatch { matched } => f64::from(u8::from(matched)),
        };
        if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }
    }

    /// Whether the task succeeded outright (R_Prod = 1), as the paper's
    /// `final_score < 1` test of failure reads it.
    pub fn succeeded(&self) -> bool {
        self.r_prod() >= 1.0
    }
}

/// A question the host already identified, with its effort.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AskedQuestion {
    /// The question's text.
    pub text: String,
    /// Its effort for the user.
    pub effort: EffortLevel,
}

/// One exchange: the user's prompt and the agent's response.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// What the user said (the task, or an answer to earlier questions).
    #[serde(default)]
    pub prompt: String,
    /// What the agent answered.
    #[serde(default)]
    pub response: String,
    /// The questions of the response, when the host supplies them; when
    /// absent they are extracted from `response` and classified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub questions: Option<Vec<AskedQuestion>>,
}

impl Turn {
    /// A turn whose questions will be extracted from the response.
    pub fn new(prompt: impl Into<String>, response: impl Into<String>) -> Self {
        Turn {
            prompt: prompt.into(),
            response: response.into(),
            questions: None,
        }
    }

    /// The same turn with the questions given by the host.
    #[must_use]
    pub fn with_questions(mut self, questions: Vec<AskedQuestion>) -> Self {
        self.questions = Some(questions);
        self
    }
}

/// One agent's session at one stage of one spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Session {
    /// The spec the work belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_id: Option<String>,
    /// The pipeline stage (`plan`, `tasks`, `implement`, `validate`,
    /// `audit`, `unlock`, or a host's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<String>,
    /// The agent's name.
    pub agent: String,
    /// What the user asked of the agent.
    #[serde(default)]
    pub preferences: UserPreferences,
    /// Whether the user's first prompt was vague (the `paper` profile's
    /// bonuses need it).
    #[serde(default)]
    pub vague_prompt: bool,
    /// What the user already has at hand (the task description or spec):
    /// a question it answers is low effort.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// The exchanges, in order.
    #[serde(default)]
    pub turns: Vec<Turn>,
    /// How the task went (R_Prod).
    pub outcome: TaskOutcome,
    /// The agent's conclusion, compared across agents by the legacy
    /// (binary) consensus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
}

impl Session {
    /// A session with no turn, no preference and the given outcome.
    pub fn new(agent: impl Into<String>, outcome: TaskOutcome) -> Self {
        Session {
            spec_id: None,
            stage: None,
            agent: agent.into(),
            preferences: UserPreferences::default(),
            vague_prompt: false,
            context: None,
            turns: Vec::new(),
            outcome,
            verdict: None,
        }
    }

    /// Parses and validates a session from JSON; `source` names the file
    /// in errors.
    pub fn from_json(text: &str, source: Option<&str>) -> Result<Self, ScoringError> {
        let err = |message: String| ScoringError::Session {
            source_name: source.map(str::to_owned),
            message,
        };
        let session: Session = serde_json::from_str(text).map_err(|e| err(e.to_string()))?;
        session.validate().map_err(|e| match e {
            ScoringError::Session { message, .. } => err(message),
            other => err(other.to_string()),
        })?;
        Ok(session)
    }

    /// Reads and validates a session file.
    pub fn read(path: &Path) -> Result<Self, ScoringError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScoringError::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::from_json(&text, Some(&path.display().to_string()))
    }

    /// Checks what serde cannot: a non-empty agent name, an outcome score
    /// that is a number in [0, 1], a test run with at least one test and
    /// no more passed than run, and preferences under their keys.
    pub fn validate(&self) -> Result<(), ScoringError> {
        let err = |message: String| ScoringError::Session {
            source_name: None,
            message,
        };
        if self.agent.trim().is_empty() {
            return Err(err("`agent` must not be empty".into()));
        }
        match self.outcome {
            TaskOutcome::Score { value } if !(0.0..=1.0).contains(&value) => {
                return Err(err(format!(
                    "outcome score must be a number in [0, 1], got {value}"
                )));
            }
            TaskOutcome::Tests { total: 0, .. } => {
                return Err(err("outcome `total` must be at least 1".into()));
            }
            TaskOutcome::Tests { passed, total } if passed > total => {
                return Err(err(format!(
                    "outcome has {passed} tests passed out of {total} run"
                )));
            }
            _ => {}
        }
        self.preferences.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_map_onto_r_prod() {
        assert_eq!(
            TaskOutcome::Tests {
                passed: 9,
                total: 10
            }
            .r_prod(),
            0.9
        );
        assert_eq!(
            TaskOutcome::Tests {
                passed: 3,
                total: 0
            }
            .r_prod(),
            0.0
        );
        assert_eq!(TaskOutcome::Build { success: true }.r_prod(), 1.0);
        assert_eq!(TaskOutcome::ExactMatch { matched: false }.r_prod(), 0.0);
        assert_eq!(TaskOutcome::Score { value: f64::NAN }.r_prod(), 0.0);
        assert_eq!(TaskOutcome::Score { value: 7.0 }.r_prod(), 1.0);
        assert!(TaskOutcome::Build { success: true }.succeeded());
        assert!(!TaskOutcome::Score { value: 0.99 }.succeeded());
    }

    #[test]
    fn json_sessions_parse_and_bad_ones_say_why() {
        let ok = r#"{"agent":"a","turns":[{"prompt":"p","response":"r",
            "questions":[{"text":"Q?","effort":"high"}]}],
            "outcome":{"kind":"tests","passed":1,"total":2}}"#;
        let s = Session::from_json(ok, Some("a.json")).unwrap();
        assert_eq!(s.outcome.r_prod(), 0.5);
        assert_eq!(
            s.turns[0].questions.as_ref().unwrap()[0].effort,
            EffortLevel::High
        );
        let cases = [
            (r#"{"agent":"a"}"#, "missing field `outcome`"),
            (
                r#"{"agent":"a","outcome":{"kind":"score","value":1.5}}"#,
                "in [0, 1], got 1.5",
            ),
            (
                r#"{"agent":"a","outcome":{"kind":"tests","passed":3,"total":2}}"#,
                "3 tests passed out of 2",
            ),
            (
                r#"{"agent":"a","outcome":{"kind":"vibes"}}"#,
                "unknown variant `vibes`",
            ),
            (
                r#"{"agent":" ","outcome":{"kind":"build","success":true}}"#,
                "`agent` must not be empty",
            ),
            (
                r#"{"agent":"a","outcome":{"kind":"build","success":true},"preferences":{"format":["no_ask"]}}"#,
                "list it under `interaction`",
            ),
            (
                r#"{"agent":"a","outcome":{"kind":"build","success":true},"turn":[]}"#,
                "unknown field `turn`",
            ),
        ];
        for (text, needle) in cases {
            let msg = Session::from_json(text, Some("s.json"))
                .unwrap_err()
                .to_string();
            assert!(msg.starts_with("invalid session s.json: "), "{msg}");
            assert!(msg.contains(needle), "{msg}");
        }
    }
}
