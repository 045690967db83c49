//! Guidance classifiers over agent trajectories: the twelve classifiers of
//! the labelling guide's `guidance` task with their defaults, credential
//! detection for pending calls, and guidance providers that turn a firing
//! classifier into a short nudge (see [`Guide`]).
//!
//! The traits, composites, fail-open runner and cooldowns are in
//! [`tact_core::guidance`]; the incremental analysis is
//! [`tact_core::trajectory::TrajectoryAnalysis`].
//!
//! ```
//! use tact_classifiers::guidance::{default_classifiers, verdicts};
//! use tact_types::{Event, Mode, ToolCall, Trajectory};
//!
//! let read = Event::tool(ToolCall::new("read_file").params(serde_json::json!({"path": "src/lib.rs"})).output("mod a;"));
//! let trajectory = Trajectory { events: vec![Event::user("why?"), read.clone(), read.clone(), read.clone(), read], ..Default::default() };
//! let classifiers = default_classifiers();
//! let fired: Vec<&str> = verdicts(&classifiers, &trajectory)
//!     .into_iter()
//!     .filter(|(_, fired, _)| *fired)
//!     .map(|(name, _, _)| name)
//!     .collect();
//! assert_eq!(fired, ["doom_loop", "single_tool_repeated", "sequential_when_parallel", "stuck"]);
//! ```

mod content;
mod heuristics;
mod patterns;
mod providers;
pub mod sensitive;

pub use content::{LargeOutputClassifier, SensitiveContentClassifier};
pub use heuristics::{
    HighToolCountClassifier, SequentialWhenParallelClassifier, SingleToolRepeatedClassifier,
};
pub use patterns::{
    ContextWindowLoopClassifier, DoomLoopClassifier, EmptyResponseClassifier,
    ErrorStreakClassifier, MonologueClassifier, ProgressStallClassifier, StuckClassifier,
};
pub use providers::{
    DiagnosticSignalProvider, DoomLoopBreaker, GuidanceProvider, GuidanceProviderConfig, Guide,
    MessageNudge, Nudge, ParallelToolReminder, default_providers,
};
use tact_core::guidance::{
    ClassificationResult, DEFAULT_MIN_CONFIDENCE, GuidanceClassifier, GuidanceContext, classify_all,
};
use tact_core::trajectory::TrajectoryAnalysis;
use tact_types::trajectory::Trajectory;

/// The classifier names of the labelling guide, in table order.
pub const CLASSIFIER_NAMES: [&str; 12] = [
    "doom_loop",
    "error_streak",
    "progress_stall",
    "high_tool_count",
    "single_tool_repeated",
    "sequential_when_parallel",
    "large_output",
    "sensitive_content",
    "monologue",
    "empty_response",
    "context_window_loop",
    "stuck",
];

/// The classifier named `name` with its defaults, if it is one of
/// [`CLASSIFIER_NAMES`].
pub fn classifier(name: &str) -> Option<Box<dyn GuidanceClassifier>> {
    Some(match name {
        "doom_loop" => Box::new(DoomLoopClassifier::default()),
        "error_streak" => Box::new(ErrorStreakClassifier::default()),
        "progress_stall" => Box::new(ProgressStallClassifier::default()),
        "high_tool_count" => Box::new(HighToolCountClassifier::default()),
        "single_tool_repeated" => Box::new(SingleToolRepeatedClassifier::default()),
        "sequential_when_parallel" => Box::new(SequentialWhenParallelClassifier::default()),
        "large_output" => Box::new(LargeOutputClassifier::default()),
        "sensitive_content" => Box::new(SensitiveContentClassifier::default()),
        "monologue" => Box::new(MonologueClassifier::default()),
        "empty_response" => Box::new(EmptyResponseClassifier::default()),
        "context_window_loop" => Box::new(ContextWindowLoopClassifier::default()),
        "stuck" => Box::new(StuckClassifier::default()),
        _ => return None,
    })
}

/// Every classifier of the guide with its defaults, in table order.
pub fn default_classifiers() -> Vec<Box<dyn GuidanceClassifier>> {
    CLASSIFIER_NAMES
        .iter()
        .filter_map(|n| classifier(n))
        .collect()
}

/// Analyses `trajectory` and returns, for each classifier in order, its
/// name, its verdict (relevant with confidence at least 0.5) and its result
/// (`None` when it failed and was skipped).
pub fn verdicts<'c>(
    classifiers: &'c [Box<dyn GuidanceClassifier>],
    trajectory: &Trajectory,
) -> Vec<(&'c str, bool, Option<ClassificationResult>)> {
    let analysis = TrajectoryAnalysis::from_trajectory(trajectory);
    let ctx = GuidanceContext::new(&analysis, &trajectory.pending);
    classify_all(classifiers, &ctx)
        .into_iter()
        .map(|e| (e.name, e.fires(DEFAULT_MIN_CONFIDENCE), e.result))
        .collect()
}
