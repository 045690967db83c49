//! Guidance classifiers' common ground: [`ClassificationResult`], the
//! [`GuidanceClassifier`] trait and its [`ClassifierConfig`], the
//! [`GuidanceContext`] they read, the composites [`AllOf`], [`AnyOf`],
//! [`Not`] and [`Threshold`], the fail-open [`run_classifiers`], the
//! [`CooldownTracker`], [`benchmark_classifier`], and the [`LlmClassifier`]
//! slot for model-backed classifiers with a strict timeout.
//!
//! The concrete classifiers are in `classifiers/`; what they read is the
//! [`TrajectoryAnalysis`](crate::TrajectoryAnalysis).
//!
//! ```
//! use tact_guidance::{ClassificationResult, ClassifyError, GuidanceClassifier, GuidanceContext, run_classifiers};
//! use tact_guidance::TrajectoryAnalysis;
//! use tact_types::{Event, Mode};
//!
//! struct Chatty;
//! impl GuidanceClassifier for Chatty {
//!     fn name(&self) -> &str { "chatty" }
//!     fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
//!         let n = ctx.analysis.monologue_run();
//!         Ok(if n >= 2 { ClassificationResult::yes(0.9, format!("{n} messages")) } else { ClassificationResult::no() })
//!     }
//! }
//!
//! let mut analysis = TrajectoryAnalysis::new(Mode::Headless);
//! analysis.extend(&[Event::assistant("a"), Event::assistant("b")]);
//! let ctx = GuidanceContext::new(&analysis, &[]);
//! let fired = run_classifiers(&[Chatty], &ctx, 0.5).unwrap();
//! assert_eq!(fired.result.reason.as_deref(), Some("2 messages"));
//! ```

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value};
use tact_types::trajectory::PendingCall;

use crate::trajectory::TrajectoryAnalysis;

/// The error a classifier may return; [`run_classifiers`] logs it and
/// skips the classifier (fail-open).
pub type ClassifyError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Default minimum confidence for a result to count as firing.
pub const DEFAULT_MIN_CONFIDENCE: f32 = 0.5;

/// What a classifier decided.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassificationResult {
    /// Whether guidance applies (true for yes and maybe).
    pub relevant: bool,
    /// Certainty in [0, 1].
    #[serde(serialize_with = "tact_types::figures::f32_figure")]
    pub confidence: f32,
    /// True for a tentative ("maybe") result.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub maybe: bool,
    /// Explanation of the decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Extra context for guidance providers.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

/// The three kinds of result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Relevant.
    Yes,
    /// Relevant but tentative.
    Maybe,
    /// Not relevant.
    No,
}

impl Verdict {
    /// `yes`, `maybe` or `no`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Yes => "yes",
            Self::Maybe => "maybe",
            Self::No => "no",
        }
    }
}

impl ClassificationResult {
    /// A relevant result; the confidence is clamped into [0, 1] (NaN is 0).
    pub fn yes(confidence: f32, reason: impl Into<String>) -> Self {
        Self {
            relevant: true,
            confidence: clamp_unit(confidence),
            maybe: false,
            reason: Some(reason.into()),
            metadata: Map::new(),
        }
    }

    /// A tentative but relevant result.
    pub fn maybe(confidence: f32, reason: impl Into<String>) -> Self {
        Self {
            maybe: true,
            ..Self::yes(confidence, reason)
        }
    }

    /// Not relevant, confidence 0 (allocates nothing).
    pub fn no() -> Self {
        Self {
            relevant: false,
            confidence: 0.0,
            maybe: false,
            reason: None,
            metadata: Map::new(),
        }
    }

    /// Adds a metadata entry (builder style).
    #[must_use]
    pub fn with_metadata(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.metadata.insert(key.into(), value.into());
        self
    }

    /// Whether the result is relevant with at least `min_confidence`.
    pub fn fires(&self, min_confidence: f32) -> bool {
        self.relevant && self.confidence >= min_confidence
    }

    /// Yes, maybe or no.
    pub fn verdict(&self) -> Verdict {
        match (self.relevant, self.maybe) {
            (false, _) => Verdict::No,
            (true, true) => Verdict::Maybe,
            (true, false) => Verdict::Yes,
        }
    }
}

fn clamp_unit(x: f32) -> f32 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

/// What a classifier reads: the trajectory analysis and the pending calls.
#[derive(Debug, Clone, Copy)]
pub struct GuidanceContext<'a> {
    /// The analysis of the trajectory so far.
    pub analysis: &'a TrajectoryAnalysis,
    /// Tool calls proposed but not run yet.
    pub pending: &'a [PendingCall],
}

impl<'a> GuidanceContext<'a> {
    /// A context over `analysis` and `pending`.
    pub fn new(analysis: &'a TrajectoryAnalysis, pending: &'a [PendingCall]) -> Self {
        Self { analysis, pending }
    }

    /// The turn clock (agent turns over the whole trajectory).
    pub fn turn(&self) -> usize {
        self.analysis.lifetime_turns()
    }

    /// Tool calls in the window.
    pub fn tool_call_count(&self) -> usize {
        self.analysis.counts().calls
    }
}

/// A classifier that decides whether guidance applies now.
///
/// Implementations should be fast (microseconds) and depend only on the
/// context. Errors and panics are contained by [`run_classifiers`] and
/// [`classify_guarded`].
pub trait GuidanceClassifier: Send + Sync {
    /// A unique, stable identifier.
    fn name(&self) -> &str;
    /// Decides on the context.
    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError>;
}

impl<T: GuidanceClassifier + ?Sized> GuidanceClassifier for Box<T> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        (**self).classify(ctx)
    }
}

impl<T: GuidanceClassifier + ?Sized> GuidanceClassifier for Arc<T> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        (**self).classify(ctx)
    }
}

impl<T: GuidanceClassifier + ?Sized> GuidanceClassifier for &T {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        (**self).classify(ctx)
    }
}

/// How a classifier's firing is gated.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ClassifierConfig {
    /// Minimum confidence for a relevant result to fire (default 0.5).
    pub min_confidence: f32,
    /// Turns to skip after firing (default 0).
    pub cooldown_turns: usize,
    /// Most fires per session (default unlimited).
    pub max_fires_per_session: Option<u32>,
}

impl Default for ClassifierConfig {
    fn default() -> Self {
        Self {
            min_confidence: DEFAULT_MIN_CONFIDENCE,
            cooldown_turns: 0,
            max_fires_per_session: None,
        }
    }
}

impl ClassifierConfig {
    /// Sets the minimum confidence (builder style).
    #[must_use]
    pub fn min_confidence(mut self, min_confidence: f32) -> Self {
        self.min_confidence = min_confidence;
        self
    }

    /// Sets the cooldown in turns (builder style).
    #[must_use]
    pub fn cooldown_turns(mut self, turns: usize) -> Self {
        self.cooldown_turns = turns;
        self
    }

    /// Sets the most fires per session (builder style).
    #[must_use]
    pub fn max_fires_per_session(mut self, max: u32) -> Self {
        self.max_fires_per_session = Some(max);
        self
    }
}

/// Runs one classifier, containing its failure: an error or a panic is
/// reported through `tracing` and yields `None` (fail-open).
pub fn classify_guarded<C: GuidanceClassifier + ?Sized>(
    classifier: &C,
    ctx: &GuidanceContext<'_>,
) -> Option<ClassificationResult> {
    match catch_unwind(AssertUnwindSafe(|| classifier.classify(ctx))) {
        Ok(Ok(result)) => Some(result),
        Ok(Err(error)) => {
            tracing::warn!(classifier = %safe_name(classifier), %error, "guidance classifier failed; skipped");
            None
        }
        Err(panic) => {
            tracing::warn!(
                classifier = %safe_name(classifier),
                panic = panic_message(panic.as_ref()),
                "guidance classifier panicked; skipped"
            );
            None
        }
    }
}

fn safe_name<C: GuidanceClassifier + ?Sized>(c: &C) -> String {
    catch_unwind(AssertUnwindSafe(|| c.name().to_owned()))
        .unwrap_or_else(|_| "<unnamed>".to_owned())
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> &str {
    p.downcast_ref::<&str>()
        .copied()
        .or_else(|| p.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("<non-string panic>")
}

/// The classifier that fired in [`run_classifiers`] and its result.
#[derive(Debug)]
pub struct Fired<'c, C: ?Sized> {
    /// Index of the classifier in the slice.
    pub index: usize,
    /// The classifier.
    pub classifier: &'c C,
    /// Its result.
    pub result: ClassificationResult,
}

/// Runs classifiers in declaration order and returns the first whose
/// result is relevant with at least `min_confidence`. Fail-open: a
/// classifier that errors or panics is skipped and reported through
/// `tracing`, never propagated.
pub fn run_classifiers<'c, C: GuidanceClassifier>(
    classifiers: &'c [C],
    ctx: &GuidanceContext<'_>,
    min_confidence: f32,
) -> Option<Fired<'c, C>> {
    classifiers
        .iter()
        .enumerate()
        .find_map(|(index, classifier)| {
            let result = classify_guarded(classifier, ctx)?;
            result.fires(min_confidence).then_some(Fired {
                index,
                classifier,
                result,
            })
        })
}

/// One classifier's outcome in [`classify_all`].
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation<'c> {
    /// The classifier's name.
    pub name: &'c str,
    /// Its result, or `None` when it failed (error or panic, fail-open).
    pub result: Option<ClassificationResult>,
}

impl Evaluation<'_> {
    /// Whether the result is relevant with at least `min_confidence` (a
    /// failed classifier never fires).
    pub fn fires(&self, min_confidence: f32) -> bool {
        self.result
            .as_ref()
            .is_some_and(|r| r.fires(min_confidence))
    }
}

/// Runs every classifier (each guarded as in [`classify_guarded`]) and
/// returns their outcomes in declaration order, for reports that show all
/// verdicts rather than the first match.
pub fn classify_all<'c, C: GuidanceClassifier>(
    classifiers: &'c [C],
    ctx: &GuidanceContext<'_>,
) -> Vec<Evaluation<'c>> {
    classifiers
        .iter()
        .map(|c| Evaluation {
            name: c.name(),
            result: classify_guarded(c, ctx),
        })
        .collect()
}

/// Fires only if every sub-classifier is relevant; the confidence is their
/// mean and the reasons are joined. An error in any sub-classifier is
/// returned (nothing can be concluded).
pub struct AllOf {
    classifiers: Vec<Box<dyn GuidanceClassifier>>,
    name: String,
}

impl AllOf {
    /// Combines `classifiers`; an empty list never fires.
    pub fn new(classifiers: Vec<Box<dyn GuidanceClassifier>>) -> Self {
        let name = format!("all_of({})", join_names(&classifiers));
        Self { classifiers, name }
    }
}

impl GuidanceClassifier for AllOf {
    fn name(&self) -> &str {
        &self.name
    }

    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        if self.classifiers.is_empty() {
            return Ok(ClassificationResult::no());
        }
        let mut results = Vec::with_capacity(self.classifiers.len());
        for c in &self.classifiers {
            let r = c.classify(ctx)?;
            if !r.relevant {
                return Ok(ClassificationResult::no());
            }
            results.push(r);
        }
        let mean = results.iter().map(|r| r.confidence).sum::<f32>() / results.len() as f32;
        let reason = results
            .iter()
            .filter_map(|r| r.reason.as_deref())
            .collect::<Vec<_>>()
            .join("; ");
        let mut out = ClassificationResult::yes(mean, reason);
        out.maybe = results.iter().any(|r| r.maybe);
        for r in results {
            out.metadata.extend(r.metadata);
        }
        Ok(out)
    }
}

/// Fires with the first relevant sub-classifier's result. A failing
/// sub-classifier is skipped (fail-open) and reported through `tracing`.
pub struct AnyOf {
    classifiers: Vec<Box<dyn GuidanceClassifier>>,
    name: String,
}

impl AnyOf {
    /// Combines `classifiers`.
    pub fn new(classifiers: Vec<Box<dyn GuidanceClassifier>>) -> Self {
        let name = format!("any_of({})", join_names(&classifiers));
        Self { classifiers, name }
    }

    /// Same classifiers under another name (e.g. `stuck`).
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }
}

impl GuidanceClassifier for AnyOf {
    fn name(&self) -> &str {
        &self.name
    }

    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        for c in &self.classifiers {
            if let Some(r) = classify_guarded(c, ctx) {
                if r.relevant {
                    return Ok(r);
                }
            }
        }
        Ok(ClassificationResult::no())
    }
}

/// Inverts a classifier: relevant (with confidence 1 - its confidence)
/// when it is not.
pub struct Not {
    classifier: Box<dyn GuidanceClassifier>,
    name: String,
}

impl Not {
    /// Inverts `classifier`.
    pub fn new(classifier: Box<dyn GuidanceClassifier>) -> Self {
        let name = format!("not({})", classifier.name());
        Self { classifier, name }
    }
}

impl GuidanceClassifier for Not {
    fn name(&self) -> &str {
        &self.name
    }

    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        let r = self.classifier.classify(ctx)?;
        if r.relevant {
            return Ok(ClassificationResult::no());
        }
        let reason = match r.reason {
            Some(reason) => format!("inverse of: {reason}"),
            None => format!("{} did not fire", self.classifier.name()),
        };
        Ok(ClassificationResult::yes(1.0 - r.confidence, reason))
    }
}

/// Passes a classifier's result through only when it is relevant with at
/// least `min_confidence`.
pub struct Threshold {
    classifier: Box<dyn GuidanceClassifier>,
    min_confidence: f32,
    name: String,
}

impl Threshold {
    /// Requires `min_confidence` from `classifier`.
    pub fn new(classifier: Box<dyn GuidanceClassifier>, min_confidence: f32) -> Self {
        let name = format!("threshold({}, {min_confidence})", classifier.name());
        Self {
            classifier,
            min_confidence,
            name,
        }
    }
}

impl GuidanceClassifier for Threshold {
    fn name(&self) -> &str {
        &self.name
    }

    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        let r = self.classifier.classify(ctx)?;
        Ok(if r.fires(self.min_confidence) {
            r
        } else {
            ClassificationResult::no()
        })
    }
}

fn join_names(cs: &[Box<dyn GuidanceClassifier>]) -> String {
    cs.iter().map(|c| c.name()).collect::<Vec<_>>().join(", ")
}

/// Tracks when classifiers fired to enforce `cooldown_turns` and
/// `max_fires_per_session`.
#[derive(Debug, Clone, Default)]
pub struct CooldownTracker {
    fires: HashMap<String, (usize, u32)>,
}

impl CooldownTracker {
    /// An empty tracker.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether `name` may fire at `turn` under `config`.
    pub fn can_fire(&self, name: &str, turn: usize, config: &ClassifierConfig) -> bool {
        let Some(&(last, count)) = self.fires.get(name) else {
            return config.max_fires_per_session != Some(0);
        };
        if turn.saturating_sub(last) < config.cooldown_turns {
            return false;
        }
        config.max_fires_per_session.is_none_or(|max| count < max)
    }

    /// Records that `name` fired at `turn`.
    pub fn record_fire(&mut self, name: &str, turn: usize) {
        if let Some(e) = self.fires.get_mut(name) {
            *e = (turn, e.1.saturating_add(1));
        } else {
            self.fires.insert(name.to_owned(), (turn, 1));
        }
    }

    /// How often `name` fired.
    pub fn fire_count(&self, name: &str) -> u32 {
        self.fires.get(name).map_or(0, |e| e.1)
    }

    /// The turn `name` last fired at.
    pub fn last_fire(&self, name: &str) -> Option<usize> {
        self.fires.get(name).map(|e| e.0)
    }
}

/// Timing of one classifier over a set of contexts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassifierBenchmark {
    /// The classifier's name.
    pub classifier_name: String,
    /// Contexts measured.
    pub samples: usize,
    /// Mean time per classification, in nanoseconds.
    pub mean_ns: f64,
    /// 99th percentile (nearest rank), in nanoseconds.
    pub p99_ns: u64,
    /// Slowest classification, in nanoseconds.
    pub max_ns: u64,
}

/// Measures `classifier` on every context (failures contained as in
/// [`classify_guarded`]). All figures are 0 when `contexts` is empty.
pub fn benchmark_classifier<C: GuidanceClassifier + ?Sized>(
    classifier: &C,
    contexts: &[GuidanceContext<'_>],
) -> ClassifierBenchmark {
    let mut timings: Vec<u64> = contexts
        .iter()
        .map(|ctx| {
            let start = Instant::now();
            let r = classify_guarded(classifier, ctx);
            let ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
            std::hint::black_box(r);
            ns
        })
        .collect();
    timings.sort_unstable();
    let n = timings.len();
    let mean_ns = if n == 0 {
        0.0
    } else {
        timings.iter().map(|&t| t as f64).sum::<f64>() / n as f64
    };
    let p99_ns = if n == 0 {
        0
    } else {
        let rank = (0.99 * n as f64).ceil() as usize;
        timings[rank.clamp(1, n) - 1]
    };
    ClassifierBenchmark {
        classifier_name: classifier.name().to_owned(),
        samples: n,
        mean_ns,
        p99_ns,
        max_ns: timings.last().copied().unwrap_or(0),
    }
}

/// Default strict timeout of a model-backed classifier.
pub const DEFAULT_LLM_TIMEOUT: Duration = Duration::from_millis(500);

/// A model-backed classifier, for decisions heuristics cannot make.
///
/// Wrap it in [`LlmGuidance`] to use it as a [`GuidanceClassifier`]: the
/// call runs on a helper thread under a strict [`LlmClassifier::timeout`],
/// and any error, panic or timeout yields "no" (fail-open). The
/// implementation should also bound its own request time, since a call
/// that outlives the timeout keeps its thread until it returns.
pub trait LlmClassifier: Send + Sync + 'static {
    /// The model's name (the classifier is named `llm(MODEL)`).
    fn model(&self) -> &str;

    /// How long to wait for [`LlmClassifier::complete`] (default 500 ms).
    fn timeout(&self) -> Duration {
        DEFAULT_LLM_TIMEOUT
    }

    /// The minimal text the model sees (default: [`llm_summary`]).
    fn prompt(&self, ctx: &GuidanceContext<'_>) -> String {
        llm_summary(ctx)
    }

    /// Asks the model; may block.
    fn complete(&self, prompt: &str) -> Result<ClassificationResult, ClassifyError>;
}

/// The default summary handed to a model: recent actions, the error
/// streak and the turn.
pub fn llm_summary(ctx: &GuidanceContext<'_>) -> String {
    let recent: Vec<&str> = ctx.analysis.recent_calls(5).map(|c| &*c.name).collect();
    format!(
        "Recent actions: {recent:?}\nErrors: {}\nTurn: {}\n",
        ctx.analysis.counts().consecutive_errors,
        ctx.turn()
    )
}

/// Most model calls allowed in flight at once per [`LlmGuidance`]; beyond
/// it, classification fails open at once instead of piling up threads.
pub const MAX_LLM_IN_FLIGHT: usize = 4;

/// Runs an [`LlmClassifier`] as a [`GuidanceClassifier`] with its strict
/// timeout, failing open.
pub struct LlmGuidance<L: LlmClassifier> {
    inner: Arc<L>,
    name: String,
    in_flight: Arc<AtomicUsize>,
}

impl<L: LlmClassifier> LlmGuidance<L> {
    /// Wraps `classifier`.
    pub fn new(classifier: L) -> Self {
        let name = format!("llm({})", classifier.model());
        Self {
            inner: Arc::new(classifier),
            name,
            in_flight: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Model calls currently running (including ones that timed out).
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Relaxed)
    }
}

struct InFlight(Arc<AtomicUsize>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl<L: LlmClassifier> GuidanceClassifier for LlmGuidance<L> {
    fn name(&self) -> &str {
        &self.name
    }

    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        if self.in_flight.fetch_add(1, Ordering::Relaxed) >= MAX_LLM_IN_FLIGHT {
            self.in_flight.fetch_sub(1, Ordering::Relaxed);
            tracing::warn!(classifier = %self.name, "too many model calls in flight; skipped");
            return Ok(ClassificationResult::no());
        }
        let guard = InFlight(Arc::clone(&self.in_flight));
        let prompt = self.inner.prompt(ctx);
        let timeout = self.inner.timeout();
        let (tx, rx) = mpsc::sync_channel(1);
        let inner = Arc::clone(&self.inner);
        let spawned = std::thread::Builder::new()
            .name("tact-llm-classifier".into())
            .spawn(move || {
                let _guard = guard;
                let _ = tx.send(inner.complete(&prompt));
            });
        if let Err(error) = spawned {
            tracing::warn!(classifier = %self.name, %error, "cannot start model call; skipped");
            return Ok(ClassificationResult::no());
        }
        match rx.recv_timeout(timeout) {
            Ok(Ok(mut r)) => {
                r.confidence = clamp_unit(r.confidence);
                Ok(r)
            }
            Ok(Err(error)) => {
                tracing::warn!(classifier = %self.name, %error, "model call failed; skipped");
                Ok(ClassificationResult::no())
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                tracing::warn!(classifier = %self.name, timeout_ms = timeout.as_millis() as u64, "model call timed out; skipped");
                Ok(ClassificationResult::no())
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                tracing::warn!(classifier = %self.name, "model call panicked; skipped");
                Ok(ClassificationResult::no())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tact_types::{Event, Mode};

    struct Fixed(&'static str, ClassificationResult);
    impl GuidanceClassifier for Fixed {
        fn name(&self) -> &str {
            self.0
        }
        fn classify(&self, _: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
            Ok(self.1.clone())
        }
    }

    struct Failing;
    impl GuidanceClassifier for Failing {
        fn name(&self) -> &str {
            "failing"
        }
        fn classify(&self, _: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
            Err("boom".into())
        }
    }

    struct Panicking;
    impl GuidanceClassifier for Panicking {
        fn name(&self) -> &str {
            "panicking"
        }
        fn classify(&self, _: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
            panic!("classifier bug")
        }
    }

    fn yes(c: f32) -> ClassificationResult {
        ClassificationResult::yes(c, "r")
    }

    fn boxed(c: impl GuidanceClassifier + 'static) -> Box<dyn GuidanceClassifier> {
        Box::new(c)
    }

    #[test]
    fn constructors_and_verdicts() {
        assert_eq!(ClassificationResult::no().verdict(), Verdict::No);
        let m = ClassificationResult::maybe(0.6, "m");
        assert!(m.relevant && m.fires(0.5));
        assert_eq!(m.verdict(), Verdict::Maybe);
        assert_eq!(ClassificationResult::yes(f32::NAN, "x").confidence, 0.0);
        assert_eq!(ClassificationResult::yes(3.0, "x").confidence, 1.0);
        let json = serde_json::to_string(&yes(0.5).with_metadata("k", 1)).unwrap();
        assert_eq!(
            json,
            r#"{"relevant":true,"confidence":0.5,"reason":"r","metadata":{"k":1}}"#
        );
    }

    #[test]
    fn run_classifiers_is_ordered_thresholded_and_fail_open() {
        let a = TrajectoryAnalysis::new(Mode::Headless);
        let ctx = GuidanceContext::new(&a, &[]);
        let cs = vec![
            boxed(Failing),
            boxed(Panicking),
            boxed(Fixed("low", yes(0.4))),
            boxed(Fixed("first", yes(0.5))),
            boxed(Fixed("second", yes(0.9))),
        ];
        let fired = run_classifiers(&cs, &ctx, 0.5).unwrap();
        assert_eq!((fired.index, fired.classifier.name()), (3, "first"));
        assert!(run_classifiers(&cs[..3], &ctx, 0.5).is_none());
        assert!(run_classifiers::<Box<dyn GuidanceClassifier>>(&[], &ctx, 0.5).is_none());
    }

    #[test]
    fn composites() {
        let a = TrajectoryAnalysis::new(Mode::Headless);
        let ctx = GuidanceContext::new(&a, &[]);
        let all = AllOf::new(vec![
            boxed(Fixed("a", yes(0.4))),
            boxed(Fixed("b", yes(0.8))),
        ]);
        assert_eq!(all.name(), "all_of(a, b)");
        let r = all.classify(&ctx).unwrap();
        assert!(r.relevant && (r.confidence - 0.6).abs() < 1e-6);
        assert_eq!(r.reason.as_deref(), Some("r; r"));
        let all = AllOf::new(vec![
            boxed(Fixed("a", yes(0.4))),
            boxed(Fixed("n", ClassificationResult::no())),
        ]);
        assert!(!all.classify(&ctx).unwrap().relevant);
        assert!(!AllOf::new(vec![]).classify(&ctx).unwrap().relevant);
        assert!(AllOf::new(vec![boxed(Failing)]).classify(&ctx).is_err());

        let any = AnyOf::new(vec![
            boxed(Panicking),
            boxed(Fixed("n", ClassificationResult::no())),
            boxed(Fixed("y", yes(0.7))),
        ]);
        assert_eq!(any.name(), "any_of(panicking, n, y)");
        assert_eq!(any.classify(&ctx).unwrap().confidence, 0.7);
        assert_eq!(AnyOf::new(vec![]).named("stuck").name(), "stuck");

        let not = Not::new(boxed(Fixed("n", ClassificationResult::no())));
        assert_eq!(not.classify(&ctx).unwrap().confidence, 1.0);
        assert!(
            !Not::new(boxed(Fixed("y", yes(0.7))))
                .classify(&ctx)
                .unwrap()
                .relevant
        );

        let t = Threshold::new(boxed(Fixed("y", yes(0.7))), 0.8);
        assert_eq!(t.name(), "threshold(y, 0.8)");
        assert!(!t.classify(&ctx).unwrap().relevant);
        assert!(
            Threshold::new(boxed(Fixed("y", yes(0.8))), 0.8)
                .classify(&ctx)
                .unwrap()
                .relevant
        );
    }

    #[test]
    fn cooldowns_and_session_limits() {
        let mut t = CooldownTracker::new();
        let cfg = ClassifierConfig::default()
            .cooldown_turns(3)
            .max_fires_per_session(2);
        assert!(t.can_fire("x", 0, &cfg));
        t.record_fire("x", 0);
        assert!(!t.can_fire("x", 2, &cfg));
        assert!(t.can_fire("x", 3, &cfg));
        t.record_fire("x", 3);
        assert!(!t.can_fire("x", 100, &cfg));
        assert_eq!((t.fire_count("x"), t.last_fire("x")), (2, Some(3)));
        assert!(t.can_fire("y", 0, &ClassifierConfig::default()));
        assert!(!t.can_fire(
            "y",
            0,
            &ClassifierConfig::default().max_fires_per_session(0)
        ));
        // A clock that goes backwards never underflows.
        assert!(!t.can_fire("x", 0, &ClassifierConfig::default().cooldown_turns(1)));
    }

    #[test]
    fn benchmark_reports_mean_p99_max() {
        let mut a = TrajectoryAnalysis::new(Mode::Headless);
        a.update(&Event::assistant("x"));
        let ctxs = vec![GuidanceContext::new(&a, &[]); 50];
        let b = benchmark_classifier(&Fixed("f", yes(1.0)), &ctxs);
        assert_eq!((b.classifier_name.as_str(), b.samples), ("f", 50));
        assert!(b.max_ns >= b.p99_ns && b.mean_ns <= b.max_ns as f64);
        let empty = benchmark_classifier(&Panicking, &[]);
        assert_eq!((empty.samples, empty.p99_ns, empty.max_ns), (0, 0, 0));
    }

    struct Model {
        delay: Duration,
        fail: bool,
    }
    impl LlmClassifier for Model {
        fn model(&self) -> &str {
            "tiny"
        }
        fn timeout(&self) -> Duration {
            Duration::from_millis(100)
        }
        fn complete(&self, prompt: &str) -> Result<ClassificationResult, ClassifyError> {
            std::thread::sleep(self.delay);
            if self.fail {
                return Err("backend down".into());
            }
            assert!(prompt.contains("Recent actions"));
            Ok(ClassificationResult::yes(2.0, "model says so"))
        }
    }

    #[test]
    fn llm_classifier_times_out_and_fails_open() {
        let a = TrajectoryAnalysis::new(Mode::Headless);
        let ctx = GuidanceContext::new(&a, &[]);
        let fast = LlmGuidance::new(Model {
            delay: Duration::ZERO,
            fail: false,
        });
        assert_eq!(fast.name(), "llm(tiny)");
        let r = fast.classify(&ctx).unwrap();
        assert!(r.relevant && r.confidence == 1.0);

        let slow = LlmGuidance::new(Model {
            delay: Duration::from_millis(400),
            fail: false,
        });
        let start = Instant::now();
        let r = slow.classify(&ctx).unwrap();
        assert!(!r.relevant);
        assert!(
            start.elapsed() < Duration::from_millis(350),
            "{:?}",
            start.elapsed()
        );
        assert_eq!(slow.in_flight(), 1);

        let failing = LlmGuidance::new(Model {
            delay: Duration::ZERO,
            fail: true,
        });
        assert!(!failing.classify(&ctx).unwrap().relevant);
        assert_eq!(DEFAULT_LLM_TIMEOUT, Duration::from_millis(500));
    }

    struct Blocked;
    impl LlmClassifier for Blocked {
        fn model(&self) -> &str {
            "blocked"
        }
        fn timeout(&self) -> Duration {
            Duration::from_millis(5)
        }
        fn complete(&self, _: &str) -> Result<ClassificationResult, ClassifyError> {
            std::thread::sleep(Duration::from_millis(300));
            Ok(ClassificationResult::yes(1.0, "late"))
        }
    }

    #[test]
    fn llm_in_flight_calls_are_bounded() {
        let a = TrajectoryAnalysis::new(Mode::Headless);
        let ctx = GuidanceContext::new(&a, &[]);
        let g = LlmGuidance::new(Blocked);
        for _ in 0..10 {
            assert!(!g.classify(&ctx).unwrap().relevant);
        }
        assert_eq!(g.in_flight(), MAX_LLM_IN_FLIGHT);
    }
}
