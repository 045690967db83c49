//! The twelve classifiers of the labelling guide's `guidance` task with
//! their defaults (`patterns.rs`: doom loops, error streaks, stalls,
//! monologues, empty responses, context-window loops, `stuck`;
//! `heuristics.rs`: tool counts and repetition; `content.rs`: large outputs
//! and credentials in pending calls), the catalogue by name, and the
//! verdicts of a set of classifiers over a whole trajectory.
//!
//! ```
//! use tact_guidance::{default_classifiers, verdicts};
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

pub use content::{LargeOutputClassifier, SensitiveContentClassifier};
pub use heuristics::{
    HighToolCountClassifier, SequentialWhenParallelClassifier, SingleToolRepeatedClassifier,
};
pub use patterns::{
    ContextWindowLoopClassifier, DoomLoopClassifier, EmptyResponseClassifier,
    ErrorStreakClassifier, MonologueClassifier, ProgressStallClassifier, StuckClassifier,
};
use tact_types::trajectory::Trajectory;

use crate::framework::{
    ClassificationResult, DEFAULT_MIN_CONFIDENCE, GuidanceClassifier, GuidanceContext, classify_all,
};
use crate::trajectory::TrajectoryAnalysis;

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
