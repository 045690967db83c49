//! Heuristic guidance classifiers: high tool count, one tool repeated, and
//! independent reads issued one per step instead of in parallel.

use serde_json::json;

use crate::framework::{ClassificationResult, ClassifyError, GuidanceClassifier, GuidanceContext};

/// Fires after many calls in the window: a maybe (0.6) from
/// `threshold * warning_ratio` (40) calls, a yes (1.0) from `threshold`
/// (50).
#[derive(Debug, Clone, PartialEq)]
pub struct HighToolCountClassifier {
    /// Calls for a yes.
    pub threshold: usize,
    /// Fraction of `threshold` for a maybe.
    pub warning_ratio: f64,
}

impl Default for HighToolCountClassifier {
    fn default() -> Self {
        Self {
            threshold: 50,
            warning_ratio: 0.8,
        }
    }
}

impl HighToolCountClassifier {
    /// Calls for a maybe: `threshold * warning_ratio`, rounded up (a
    /// product within 1e-9 of an integer counts as that integer).
    pub fn warning_threshold(&self) -> usize {
        let w = self.threshold as f64 * self.warning_ratio;
        if !w.is_finite() || w <= 0.0 {
            return 0;
        }
        (w - 1e-9).ceil() as usize
    }
}

impl GuidanceClassifier for HighToolCountClassifier {
    fn name(&self) -> &str {
        "high_tool_count"
    }

    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        let count = ctx.tool_call_count();
        if count >= self.threshold.max(1) {
            return Ok(ClassificationResult::yes(
                1.0,
                format!("{count} tool calls exceeds threshold"),
            )
            .with_metadata("calls", count));
        }
        let warn = self.warning_threshold();
        if warn > 0 && count >= warn {
            return Ok(ClassificationResult::maybe(
                0.6,
                format!("{count} tool calls approaching limit"),
            )
            .with_metadata("calls", count));
        }
        Ok(ClassificationResult::no())
    }
}

/// Fires when there are at least `threshold` (4) calls and the last
/// `window` (5) of them (or all, if fewer) use one tool.
#[derive(Debug, Clone, PartialEq)]
pub struct SingleToolRepeatedClassifier {
    /// How many recent calls are looked at.
    pub window: usize,
    /// Calls needed at least.
    pub threshold: usize,
}

impl Default for SingleToolRepeatedClassifier {
    fn default() -> Self {
        Self {
            window: 5,
            threshold: 4,
        }
    }
}

impl GuidanceClassifier for SingleToolRepeatedClassifier {
    fn name(&self) -> &str {
        "single_tool_repeated"
    }

    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        let mut recent = ctx.analysis.recent_calls(self.window.max(1));
        let n = recent.len();
        if n < self.threshold.max(1) {
            return Ok(ClassificationResult::no());
        }
        let Some(first) = recent.next() else {
            return Ok(ClassificationResult::no());
        };
        if !recent.all(|c| c.name == first.name) {
            return Ok(ClassificationResult::no());
        }
        Ok(
            ClassificationResult::yes(0.7, format!("{} called {n}x consecutively", first.name))
                .with_metadata("tool", &*first.name),
        )
    }
}

/// Fires when each of the last `threshold` (3) steps holds a single call of
/// an independent read-only tool (`read_file`, `search`, `grep` by
/// default): those could have been issued together.
#[derive(Debug, Clone, PartialEq)]
pub struct SequentialWhenParallelClassifier {
    /// Tools that are safe to run in parallel.
    pub independent_tools: Vec<String>,
    /// Single-call steps needed.
    pub threshold: usize,
}

impl Default for SequentialWhenParallelClassifier {
    fn default() -> Self {
        Self {
            independent_tools: vec!["read_file".into(), "search".into(), "grep".into()],
            threshold: 3,
        }
    }
}

impl SequentialWhenParallelClassifier {
    /// The default classifier with another set of independent tools.
    pub fn with_tools<I: IntoIterator<Item = S>, S: Into<String>>(tools: I) -> Self {
        Self {
            independent_tools: tools.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }
}

impl GuidanceClassifier for SequentialWhenParallelClassifier {
    fn name(&self) -> &str {
        "sequential_when_parallel"
    }

    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        let want = self.threshold.max(1);
        let steps = ctx.analysis.recent_steps(want);
        if steps.len() < want {
            return Ok(ClassificationResult::no());
        }
        let mut tools = Vec::with_capacity(want);
        for s in steps {
            if s.calls != 1 || !self.independent_tools.iter().any(|t| **t == *s.tool) {
                return Ok(ClassificationResult::no());
            }
            tools.push(&*s.tool);
        }
        Ok(
            ClassificationResult::yes(0.6, format!("{want} independent tools called sequentially"))
                .with_metadata("tools", json!(tools)),
        )
    }
}
