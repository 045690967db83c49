//! Guidance for hosts of LLM agents: feed a [`Guide`] an agent's events as
//! they happen and get back short nudges (break a doom loop, diagnose an
//! error streak, keep credentials out of tool calls...), each with the
//! classifier that fired and its reason.
//!
//! ```
//! use tact_guidance::Guide;
//! use tact_types::{Event, Mode, PendingCall, ToolCall};
//!
//! // One Guide per agent session.
//! let mut guide = Guide::new(Mode::Headless);
//! let failing = ToolCall::new("run_tests").params(serde_json::json!({"command": "cargo test"})).ok(false).output("FAILED test_login");
//! let mut nudges = Vec::new();
//! for _ in 0..4 {
//!     nudges.extend(guide.observe(&Event::tool(failing.clone())));
//! }
//! let names: Vec<&str> = nudges.iter().map(|n| n.classifier.as_str()).collect();
//! assert_eq!(names, ["error_streak", "doom_loop"]);
//!
//! // Calls the agent proposes are checked before they run; the nudge names
//! // where the credential is, never its value.
//! let nudges = guide.propose(vec![PendingCall::new("http_get", serde_json::json!({"url": "https://x", "api_key": "sk-live-0123456789"}))]);
//! assert_eq!(nudges[0].provider, "credential_warning");
//! assert!(!format!("{nudges:?}").contains("sk-live-0123456789"));
//! ```
//!
//! What is where:
//!
//! - [`trajectory`]: [`TrajectoryAnalysis`], the incremental summary of a
//!   run that every classifier reads (one amortized O(1)
//!   [`TrajectoryAnalysis::update`] per event, bounded memory), with its
//!   fingerprints and error normalization.
//! - The framework: [`ClassificationResult`], the [`GuidanceClassifier`]
//!   trait and its [`GuidanceContext`] and [`ClassifierConfig`], the
//!   composites ([`AllOf`], [`AnyOf`], [`Not`], [`Threshold`]), the
//!   fail-open runners ([`run_classifiers`], [`classify_all`],
//!   [`classify_guarded`]), the [`CooldownTracker`],
//!   [`benchmark_classifier`], and the [`LlmClassifier`] slot (a
//!   host-supplied model call under a strict timeout, see [`LlmGuidance`]).
//! - The classifiers: the twelve of the labelling guide's `guidance` table
//!   ([`CLASSIFIER_NAMES`], [`classifier`], [`default_classifiers`],
//!   [`verdicts`]), `sensitive_content` resting on `tact-secrets`.
//! - The providers: [`GuidanceProvider`]s turn a firing classifier into a
//!   nudge; the [`Guide`] runs them with cooldowns, per-turn limits and one
//!   nudge per streak ([`default_providers`]).
//!
//! Guidance fails open: a classifier or provider that errs or panics is
//! skipped (and reported through `tracing`), never propagated to the host.
//!
//! # Features
//!
//! This crate has no optional features; everything is always compiled.
#![deny(missing_docs)]

mod classifiers;
mod error;
mod framework;
mod providers;
pub mod trajectory;

pub use classifiers::{
    CLASSIFIER_NAMES, ContextWindowLoopClassifier, DoomLoopClassifier, EmptyResponseClassifier,
    ErrorStreakClassifier, HighToolCountClassifier, LargeOutputClassifier, MonologueClassifier,
    ProgressStallClassifier, SensitiveContentClassifier, SequentialWhenParallelClassifier,
    SingleToolRepeatedClassifier, StuckClassifier, classifier, default_classifiers, verdicts,
};
pub use error::Error;
pub use framework::{
    AllOf, AnyOf, ClassificationResult, ClassifierBenchmark, ClassifierConfig, ClassifyError,
    CooldownTracker, DEFAULT_LLM_TIMEOUT, DEFAULT_MIN_CONFIDENCE, Evaluation, Fired,
    GuidanceClassifier, GuidanceContext, LlmClassifier, LlmGuidance, MAX_LLM_IN_FLIGHT, Not,
    Threshold, Verdict, benchmark_classifier, classify_all, classify_guarded, llm_summary,
    run_classifiers,
};
pub use providers::{
    DiagnosticSignalProvider, DoomLoopBreaker, GuidanceProvider, GuidanceProviderConfig, Guide,
    MessageNudge, Nudge, ParallelToolReminder, default_providers,
};
pub use trajectory::{
    ActionKind, AnalysisConfig, CallView, DetectedPattern, PatternKind, TrajectoryAnalysis,
};

/// `Result` with this crate's [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
