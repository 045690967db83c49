//! The records the store writes and reads: a session (one agent's run on
//! one spec) with its turns, questions, preference violations, tool calls,
//! guidance fires and score.

use serde::{Deserialize, Serialize};
use tact_types::{EffortLevel, Reason};

/// How serious a preference violation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Severity {
    /// A small deviation.
    Low,
    /// A clear violation.
    Medium,
    /// A violation that defeats the preference.
    High,
}

impl Severity {
    /// The name stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
        }
    }

    pub(crate) fn parse(s: &str) -> Option<Self> {
        match s {
            "low" => Some(Severity::Low),
            "medium" => Some(Severity::Medium),
            "high" => Some(Severity::High),
            _ => None,
        }
    }
}

/// One agent's run on one spec, as ingested.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SessionRecord {
    /// The spec (task) identifier.
    pub spec_id: String,
    /// The pipeline stage (`plan`, `implement`...), if any.
    #[serde(default)]
    pub stage: Option<String>,
    /// The agent's name.
    pub agent: String,
    /// The run identifier (unique per spec and agent).
    pub run_id: String,
    /// When the run happened, Unix seconds (defaults to ingestion time).
    #[serde(default)]
    pub created_at: Option<i64>,
    /// The turns, in order.
    #[serde(default)]
    pub turns: Vec<TurnRecord>,
    /// Tool calls, in order; params are redacted before they are written.
    #[serde(default)]
    pub tool_calls: Vec<ToolCallRecord>,
    /// Guidance that fired during the run.
    #[serde(default)]
    pub guidance: Vec<GuidanceFireRecord>,
    /// The run's score, if computed.
    #[serde(default)]
    pub score: Option<ScoreRecord>,
}

/// One turn: the user's prompt and the agent's response.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TurnRecord {
    /// The turn number (unique within the trajectory).
    pub number: u32,
    /// When the turn happened, Unix seconds.
    #[serde(default)]
    pub timestamp: Option<i64>,
    /// The user's prompt.
    #[serde(default)]
    pub prompt: String,
    /// The agent's response.
    #[serde(default)]
    pub response: String,
    /// Tokens used, if known.
    #[serde(default)]
    pub token_count: Option<u32>,
    /// Latency in milliseconds, if known.
    #[serde(default)]
    pub latency_ms: Option<u32>,
    /// The questions the agent asked in this turn.
    #[serde(default)]
    pub questions: Vec<QuestionRecord>,
    /// Preference violations found in this turn.
    #[serde(default)]
    pub violations: Vec<ViolationRecord>,
}

/// A clarifying question with its classified effort.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionRecord {
    /// The question text.
    pub text: String,
    /// Its effort.
    pub effort: EffortLevel,
    /// The classifier's confidence.
    pub confidence: f32,
    /// The cues behind the decision.
    #[serde(default)]
    pub reasons: Vec<Reason>,
}

/// A violated user preference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViolationRecord {
    /// The preference name (`concise_question`, `json`...).
    pub preference: String,
    /// What the preference expects.
    pub expected: String,
    /// What the message did.
    pub actual: String,
    /// How serious it is.
    pub severity: Severity,
    /// The offending byte span in the response, if known.
    #[serde(default)]
    pub span: Option<(u32, u32)>,
}

/// One tool call of the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRecord {
    /// Position of the event in the trajectory.
    pub position: u32,
    /// The parallel step number, if given: kept exact up to `i64::MAX`
    /// (SQLite's integer); a larger step is not stored.
    #[serde(default)]
    pub step: Option<u64>,
    /// The tool's name.
    pub name: String,
    /// The call's params (credentials are redacted before writing).
    #[serde(default)]
    pub params: serde_json::Value,
    /// Whether the call succeeded.
    pub ok: bool,
    /// Length of the output in characters (the output itself is not kept).
    #[serde(default)]
    pub output_chars: u64,
}

/// A guidance classifier that fired.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GuidanceFireRecord {
    /// Position of the event after which it fired.
    pub position: u32,
    /// The classifier's name.
    pub classifier: String,
    /// Its confidence.
    pub confidence: f32,
    /// Its reason.
    #[serde(default)]
    pub reason: String,
}

/// The rewards of a run and how they were weighted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreRecord {
    /// Productivity reward (task success) in [0, 1].
    pub r_prod: f64,
    /// Proactivity reward.
    pub r_proact: f64,
    /// Personalization reward.
    pub r_pers: f64,
    /// The final score under the profile.
    pub total: f64,
    /// The reward profile (`spec`, `paper` or `paper-code`).
    pub profile: String,
    /// Weight of the technical score in the consensus.
    pub technical_weight: f64,
    /// Weight of the interaction score in the consensus.
    pub interaction_weight: f64,
    /// The final consensus score (technical weight x R_Prod + interaction
    /// weight x the normalized interaction), when a weighted consensus
    /// ranked the run.
    #[serde(default)]
    pub final_score: Option<f64>,
}

/// A stored trajectory as loaded back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredTrajectory {
    /// The row id.
    pub id: i64,
    /// The session as stored (params redacted).
    pub session: SessionRecord,
    /// Last update, Unix seconds.
    pub updated_at: i64,
}

/// Questions per effort level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct EffortDistribution {
    /// Low-effort questions.
    pub low: u64,
    /// Medium-effort questions.
    pub medium: u64,
    /// High-effort questions.
    pub high: u64,
}

/// One row of a leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LeaderboardRow {
    /// The spec the runs belong to.
    pub spec_id: String,
    /// The agent.
    pub agent: String,
    /// Number of scored runs.
    pub runs: u64,
    /// Mean final consensus score (`None` when no run has one).
    pub mean_final: Option<f64>,
    /// Mean total reward R under the run's profile.
    pub mean_total: f64,
    /// Mean productivity reward (the technical score).
    pub mean_r_prod: f64,
    /// Mean proactivity reward.
    pub mean_r_proact: f64,
    /// Mean personalization reward.
    pub mean_r_pers: f64,
}

/// One point of an agent's scores over time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScorePoint {
    /// The run's spec.
    pub spec_id: String,
    /// The run id.
    pub run_id: String,
    /// When, Unix seconds.
    pub created_at: i64,
    /// The final score.
    pub total: f64,
    /// Proactivity + personalization (the interaction part).
    pub interaction: f64,
}

/// The key a session is stored under (`spec_id`, `agent`, `run_id`, unique:
/// a session ingested again replaces the one of its key), with its row id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionKey {
    /// The row id (its order is the order of ingestion).
    pub id: i64,
    /// The spec.
    pub spec_id: String,
    /// The agent.
    pub agent: String,
    /// The run.
    pub run_id: String,
}

/// Rows per table (of a store, or owned by one session).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RowCounts {
    /// Trajectories (sessions).
    pub trajectories: u64,
    /// Turns.
    pub turns: u64,
    /// Questions.
    pub questions: u64,
    /// Preference violations.
    pub violations: u64,
    /// Tool calls.
    pub tool_calls: u64,
    /// Guidance fires.
    pub guidance_fires: u64,
    /// Scores.
    pub scores: u64,
}

impl std::ops::AddAssign for RowCounts {
    fn add_assign(&mut self, o: Self) {
        self.trajectories += o.trajectories;
        self.turns += o.turns;
        self.questions += o.questions;
        self.violations += o.violations;
        self.tool_calls += o.tool_calls;
        self.guidance_fires += o.guidance_fires;
        self.scores += o.scores;
    }
}

impl std::fmt::Display for RowCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} sessions, {} turns, {} questions, {} violations, {} tool calls, {} guidance fires, {} scores",
            self.trajectories,
            self.turns,
            self.questions,
            self.violations,
            self.tool_calls,
            self.guidance_fires,
            self.scores
        )
    }
}
