//! Pattern-based guidance classifiers (doom loop, error streak, progress
//! stall), the conversation ones (monologue, empty responses, context-window
//! loop), and `stuck`, which fires when any stuck detector does.

use serde_json::json;

use crate::framework::{
    ClassificationResult, ClassifyError, DEFAULT_MIN_CONFIDENCE, GuidanceClassifier,
    GuidanceContext, classify_guarded,
};
use crate::trajectory::PatternKind;

/// `min(1, value / (2 * threshold))`: 0.5 exactly at the threshold.
pub(crate) fn ramp(value: usize, threshold: usize) -> f32 {
    let t = threshold.max(1) as f32;
    (value as f32 / (2.0 * t)).min(1.0)
}

/// Fires when the call sequence ends in a cycle repeated back to back with
/// the same results: one call `single_call_repetitions` (4) times, or a
/// cycle of `min_cycle_length` (2) to `max_cycle_length` (16) calls
/// `min_repetitions` (3) times.
#[derive(Debug, Clone, PartialEq)]
pub struct DoomLoopClassifier {
    /// Repetitions a cycle of 2 or more calls needs.
    pub min_repetitions: u32,
    /// Shortest multi-call cycle considered (at least 2).
    pub min_cycle_length: usize,
    /// Longest cycle considered (bounded by the analysis' `max_cycle_len`).
    pub max_cycle_length: usize,
    /// Repetitions one call repeated alone needs (0 disables).
    pub single_call_repetitions: u32,
}

impl Default for DoomLoopClassifier {
    fn default() -> Self {
        Self {
            min_repetitions: 3,
            min_cycle_length: 2,
            max_cycle_length: 16,
            single_call_repetitions: 4,
        }
    }
}

impl DoomLoopClassifier {
    /// The default classifier with another `min_repetitions`.
    pub fn with_min_repetitions(min_repetitions: u32) -> Self {
        Self {
            min_repetitions,
            ..Self::default()
        }
    }
}

impl GuidanceClassifier for DoomLoopClassifier {
    fn name(&self) -> &str {
        "doom_loop"
    }

    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        let a = ctx.analysis;
        let single = (self.single_call_repetitions > 0)
            .then(|| a.cycle(1, 1, self.single_call_repetitions))
            .flatten()
            .map(|c| (c, self.single_call_repetitions));
        let found = single.or_else(|| {
            a.cycle(
                self.min_cycle_length.max(2),
                self.max_cycle_length,
                self.min_repetitions,
            )
            .map(|c| (c, self.min_repetitions))
        });
        let Some((cycle, threshold)) = found else {
            return Ok(ClassificationResult::no());
        };
        let calls: Vec<&str> = a.cycle_calls(cycle).map(|c| &*c.summary).collect();
        let mut r = ClassificationResult::yes(
            ramp(cycle.repetitions as usize, threshold as usize),
            format!(
                "Cycle [{}] repeated {}x with the same results",
                calls.join(", "),
                cycle.repetitions
            ),
        )
        .with_metadata("cycle", json!(calls))
        .with_metadata("cycle_length", cycle.len)
        .with_metadata("repetitions", cycle.repetitions);
        if let Some(p) = a.pattern_first_seen(PatternKind::DoomLoop) {
            r = r.with_metadata("first_seen", p);
        }
        Ok(r)
    }
}

/// Fires when the last `threshold` (3) or more calls all failed.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorStreakClassifier {
    /// Consecutive failures needed.
    pub threshold: usize,
}

impl Default for ErrorStreakClassifier {
    fn default() -> Self {
        Self { threshold: 3 }
    }
}

impl GuidanceClassifier for ErrorStreakClassifier {
    fn name(&self) -> &str {
        "error_streak"
    }

    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        let streak = ctx.analysis.counts().consecutive_errors;
        if streak < self.threshold.max(1) {
            return Ok(ClassificationResult::no());
        }
        let errors: Vec<String> = ctx
            .analysis
            .recent_errors(streak.min(self.threshold.max(1)))
            .map(|e| format!("{}: {}", e.tool, e.message))
            .collect();
        Ok(ClassificationResult::yes(
            ramp(streak, self.threshold),
            format!("{streak} consecutive errors"),
        )
        .with_metadata("errors", json!(errors))
        .with_metadata("streak", streak))
    }
}

/// Fires when `stall_threshold` (5) or more calls ran since the last
/// progress (a `progress` event, or a successful call that commits, edits
/// content, or reads a file, searches, runs a command or fetches a URL new
/// to the window, read on the call's normalized view: see
/// [`TrajectoryAnalysis::calls_since_progress`](crate::TrajectoryAnalysis::calls_since_progress)).
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressStallClassifier {
    /// Calls without progress needed.
    pub stall_threshold: usize,
}

impl Default for ProgressStallClassifier {
    fn default() -> Self {
        Self { stall_threshold: 5 }
    }
}

impl GuidanceClassifier for ProgressStallClassifier {
    fn name(&self) -> &str {
        "progress_stall"
    }

    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        let n = ctx.analysis.calls_since_progress();
        if n < self.stall_threshold.max(1) {
            return Ok(ClassificationResult::no());
        }
        Ok(
            ClassificationResult::yes(0.8, format!("No progress in {n} actions"))
                .with_metadata("calls_since_progress", n),
        )
    }
}

/// Fires when the trajectory ends in `threshold` (3) or more agent
/// messages with no call or user message between them.
#[derive(Debug, Clone, PartialEq)]
pub struct MonologueClassifier {
    /// Agent messages in a row needed.
    pub threshold: usize,
}

impl Default for MonologueClassifier {
    fn default() -> Self {
        Self { threshold: 3 }
    }
}

impl GuidanceClassifier for MonologueClassifier {
    fn name(&self) -> &str {
        "monologue"
    }

    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        let n = ctx.analysis.monologue_run();
        if n < self.threshold.max(1) {
            return Ok(ClassificationResult::no());
        }
        Ok(
            ClassificationResult::yes(0.8, format!("{n} agent messages in a row without acting"))
                .with_metadata("messages", n),
        )
    }
}

/// Fires when the trajectory ends in `threshold` (3) or more empty or
/// white-space agent messages.
#[derive(Debug, Clone, PartialEq)]
pub struct EmptyResponseClassifier {
    /// Empty agent messages in a row needed.
    pub threshold: usize,
}

impl Default for EmptyResponseClassifier {
    fn default() -> Self {
        Self { threshold: 3 }
    }
}

impl GuidanceClassifier for EmptyResponseClassifier {
    fn name(&self) -> &str {
        "empty_response"
    }

    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        let n = ctx.analysis.empty_run();
        if n < self.threshold.max(1) {
            return Ok(ClassificationResult::no());
        }
        Ok(
            ClassificationResult::yes(0.9, format!("{n} empty agent messages in a row"))
                .with_metadata("messages", n),
        )
    }
}

/// Fires when there are `min_condensations` (10) or more condensations in
/// the window and two of them are back to back.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextWindowLoopClassifier {
    /// Condensations needed.
    pub min_condensations: usize,
}

impl Default for ContextWindowLoopClassifier {
    fn default() -> Self {
        Self {
            min_condensations: 10,
        }
    }
}

impl GuidanceClassifier for ContextWindowLoopClassifier {
    fn name(&self) -> &str {
        "context_window_loop"
    }

    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        let c = ctx.analysis.counts();
        if c.condensations < self.min_condensations.max(1) || c.back_to_back_condensations == 0 {
            return Ok(ClassificationResult::no());
        }
        Ok(ClassificationResult::yes(
            0.9,
            format!(
                "{} context condensations, {} back to back",
                c.condensations, c.back_to_back_condensations
            ),
        )
        .with_metadata("condensations", c.condensations)
        .with_metadata("back_to_back", c.back_to_back_condensations))
    }
}

/// Fires when any stuck detector fires: doom loop, error streak,
/// monologue, empty responses or context-window loop (each with its
/// defaults unless given). The result is the first firing detector's,
/// prefixed and tagged with its name.
pub struct StuckClassifier {
    detectors: Vec<Box<dyn GuidanceClassifier>>,
    min_confidence: f32,
}

impl Default for StuckClassifier {
    fn default() -> Self {
        Self::new(vec![
            Box::new(DoomLoopClassifier::default()),
            Box::new(ErrorStreakClassifier::default()),
            Box::new(MonologueClassifier::default()),
            Box::new(EmptyResponseClassifier::default()),
            Box::new(ContextWindowLoopClassifier::default()),
        ])
    }
}

impl StuckClassifier {
    /// `stuck` over other detectors, in priority order.
    pub fn new(detectors: Vec<Box<dyn GuidanceClassifier>>) -> Self {
        Self {
            detectors,
            min_confidence: DEFAULT_MIN_CONFIDENCE,
        }
    }
}

impl GuidanceClassifier for StuckClassifier {
    fn name(&self) -> &str {
        "stuck"
    }

    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        for d in &self.detectors {
            let Some(r) = classify_guarded(d, ctx) else {
                continue;
            };
            if r.fires(self.min_confidence) {
                let detector = d.name().to_owned();
                let reason = match &r.reason {
                    Some(reason) => format!("stuck ({detector}): {reason}"),
                    None => format!("stuck ({detector})"),
                };
                let mut out = ClassificationResult::yes(r.confidence, reason)
                    .with_metadata("detector", detector);
                out.metadata.extend(r.metadata);
                return Ok(out);
            }
        }
        Ok(ClassificationResult::no())
    }
}
