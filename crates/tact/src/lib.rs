//! tact in one dependency: fast, explainable classifiers and scores for
//! hosts of LLM agents, and the main job (read agent sessions, score them,
//! replay guidance, store, rank) as a library.
//!
//! ```
//! use tact::effort::EffortClassifier;
//! use tact::granularity::GranularityClassifier;
//! use tact::guidance::Guide;
//! use tact::job::Job;
//! use tact::route::Router;
//! use tact::store::Store;
//! use tact::types::{EffortLevel, Event, Granularity, Mode, QueryType, ToolCall};
//!
//! // A clarifying question's effort, with the cues behind it.
//! let classifier = EffortClassifier::builder().build()?;
//! let r = classifier.classify("Should I keep the old flag or remove it?", None);
//! assert_eq!(r.label, EffortLevel::Low);
//!
//! // A retrieval query's granularity (and so its scoring method).
//! let g = GranularityClassifier::builder().build()?;
//! assert_eq!(g.classify("What is the main argument of the paper?").label(), Granularity::Holistic);
//!
//! // A user message's route, under the routing contract.
//! let router = Router::builder().build()?;
//! let d = router.route("How many API calls did I make this month?", &[]);
//! assert_eq!(d.label(), QueryType::Platform);
//! assert!(!d.needs_retrieval());
//!
//! // Guidance over an agent's trajectory, event by event.
//! let mut guide = Guide::new(Mode::Headless);
//! let mut fired = Vec::new();
//! for _ in 0..4 {
//!     let call = ToolCall::new("run_tests").output("FAILED test_login").ok(false);
//!     fired.extend(guide.observe(&Event::tool(call)).into_iter().map(|n| n.classifier));
//! }
//! assert!(!fired.is_empty());
//!
//! // The main job: sessions in, rankings and per-session errors out.
//! let sessions = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/sessions");
//! let mut job = Job::builder().store(Store::open_in_memory()?).build()?;
//! let report = job.run_path(&sessions, |_progress| {})?;
//! assert!(report.errors.is_empty());
//! for group in &report.groups {
//!     if let Ok(tact::consensus::Decision::Weighted { consensus, .. }) = &group.ranking {
//!         println!("{} {:?}: {}", group.spec, group.stage, consensus.best_agent);
//!     }
//! }
//! # Ok::<(), tact::Error>(())
//! ```
//!
//! Each module re-exports one of tact's crates (or one part of it), so a
//! host names everything through `tact::` and adds this one dependency:
//!
//! - [`types`]: the data model (labels, decisions, trajectory events).
//! - [`text`]: the text engine (normalization, sentences, questions).
//! - [`effort`], [`granularity`], [`route`]: the text classifiers;
//!   [`learned`]: their learned tier and models; [`escalation`]: the
//!   seam of their model-backed tier (`llm`, with the `llm` feature).
//! - [`guidance`]: the guidance classifiers over agent trajectories.
//! - [`secrets`]: the credential scanner every stored or shown text
//!   passes through.
//! - [`scoring`]: PPP interaction scoring of a session.
//! - [`consensus`]: ranking several agents' sessions.
//! - [`store`]: the trajectory store (SQLite; PostgreSQL with the
//!   `postgres` feature).
//! - [`job`]: the main job; [`render`]: its text, as the `tact` command prints it.
//! - [`import`]: agents' own logs (Claude Code, Codex, OpenHands, SWE-agent,
//!   Aider) read as sessions, whole or live.
//!
//! Every error converts into [`Error`], so `?` works across all of them.
//! Nothing in this crate prints: problems are returned, progress goes to a
//! callback, and `tracing` events go to the host's subscriber, if any.
//!
//! # Features
//!
//! - `store` (default): the trajectory store ([`store`]) and the main job
//!   that writes to it ([`job`], [`Job`], [`render`]). A host that wants
//!   only the classifiers, guidance, scoring and the importers sets
//!   `default-features = false` and compiles no SQLite:
//!   `tact = { version = "0.1", default-features = false }`.
//! - `bundled` (default, with `store`): compile SQLite from source (the
//!   store's `bundled`). A host that links its own SQLite (through
//!   `libsqlite3-sys` 0.37) sets `default-features = false, features =
//!   ["store"]`.
//! - `postgres` (off by default): the store's PostgreSQL backend.
//! - `llm` (off by default): the model-backed tier, `tact::llm` (`tact-llm`:
//!   a local LLM behind strict timeouts, failing open, with tokio and
//!   reqwest), and the `[llm]` table of the job's configuration.
#![deny(missing_docs)]

mod error;
pub mod import;
#[cfg(feature = "store")]
pub mod job;
#[cfg(feature = "store")]
pub mod render;

pub use error::Error;
#[cfg(feature = "store")]
pub use job::{Job, Report};
pub use tact_classifiers::{TextClassifier, TextDecision};

/// `Result` with this crate's [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[doc(inline)]
pub use tact_types as types;

/// The text engine: normalization, words, sentences and questions
/// (`tact-core`'s `text`).
pub mod text {
    #[doc(inline)]
    pub use tact_core::text::*;
}

pub mod effort {
    //! Question effort (low / medium / high for the user), with reasons:
    //! the classifier, its strategies (the hybrid by default: the cues
    //! when they are sure, the learned model otherwise; `heuristic`,
    //! `seed`, `learned`) and whole-message question extraction. The cues
    //! read English, Spanish, German and Italian. Everything here is
    //! `tact-classifiers`' `effort` module, re-exported.
    //!
    //! ```
    //! use tact::effort::{EffortClassifier, Strategy};
    //! use tact::types::EffortLevel;
    //!
    //! let classifier = EffortClassifier::builder().build()?;
    //! let r = classifier.classify("Should I use PostgreSQL or MySQL?", None);
    //! assert_eq!(r.label, EffortLevel::Low);
    //! let r = classifier.classify("Can you profile the service in staging and send me the flame graph?", None);
    //! assert_eq!(r.label, EffortLevel::High);
    //!
    //! // Every question a message asks its user, each with its effort.
    //! let found = classifier.questions("I read the config. Which port should I use, 8080 or 9090?");
    //! assert_eq!(found.len(), 1);
    //!
    //! let seed = EffortClassifier::builder().strategy(Strategy::Seed).build()?;
    //! assert_eq!(seed.classify("How should we handle errors?", None).label, EffortLevel::Low);
    //! # Ok::<(), tact::Error>(())
    //! ```
    #[doc(inline)]
    pub use tact_classifiers::effort::*;
}

pub mod granularity {
    //! Query granularity (fine-grained / holistic) and the scoring method
    //! of each recursion level of a retrieval pipeline. Strategies: the
    //! hybrid (the default), `heuristic`, `seed` and `learned`.
    //! Everything here is `tact-classifiers`' `granularity` module,
    //! re-exported.
    //!
    //! ```
    //! use tact::granularity::{GranularityClassifier, ScoringConfig};
    //! use tact::types::{Granularity, ScoringMethod};
    //!
    //! let c = GranularityClassifier::builder().build()?;
    //! assert_eq!(c.classify("What is the main argument of the position paper?").label(), Granularity::Holistic);
    //! assert_eq!(c.classify("How many attention heads does the encoder have?").label(), Granularity::FineGrained);
    //!
    //! // Levels 0-1 dense+sparse, 2+ adaptive (the design's default).
    //! let config = ScoringConfig::default();
    //! let choice = c.select_scoring(&config, 2, "Why does the larger model do worse in Table 6?");
    //! assert_eq!(choice.method, ScoringMethod::Llm);
    //! # Ok::<(), tact::Error>(())
    //! ```
    #[doc(inline)]
    pub use tact_classifiers::granularity::*;
}

pub mod route {
    //! Query routing: which pipeline (`RETRIEVAL`, `CODE_GENERATION`,
    //! `CONVERSATIONAL`, `PLATFORM`) and which model slot serve a user
    //! message, under the routing contract of ADR-0008, the routing design
    //! record of the assistant tact grew from. Its rules: a registered
    //! platform prefix routes to `PLATFORM` without a model (RC-01); the
    //! user's account usage, quota, plan or billing routes to `PLATFORM`
    //! (RC-02); history only resolves a reference such as "this" (RC-03);
    //! `CONVERSATIONAL` and `PLATFORM` need no retrieval (RC-04); the model
    //! slots come from `OLLAMA_MODEL_NAME` and
    //! `OLLAMA_MODEL_NAME_CONVERSATIONAL` (RC-05); at most the last six
    //! history entries are read (RC-06). Strategies: the hybrid (the
    //! default), `heuristic`, `seed` and `learned`. Everything here is
    //! `tact-classifiers`' `route` module, re-exported.
    //!
    //! ```
    //! use tact::route::{HistoryStore, Router};
    //! use tact::types::{QueryType, RouteRule};
    //!
    //! let router = Router::builder().build()?;
    //! let store = HistoryStore::new();
    //!
    //! let d = router.route("Does addResult accept a nested JSON object?", &store.recent("s1"));
    //! assert_eq!(d.label(), QueryType::Retrieval);
    //! store.record("s1", d.label(), "Does addResult accept a nested JSON object?");
    //!
    //! let d = router.route("I'm at 92% of my monthly quota, what now?", &store.recent("s1"));
    //! assert_eq!((d.label(), d.rule), (QueryType::Platform, RouteRule::PlatformSignal));
    //! assert!(!d.needs_retrieval());
    //! # Ok::<(), tact::Error>(())
    //! ```
    #[doc(inline)]
    pub use tact_classifiers::route::*;
}

pub mod learned {
    //! The learned tier the text classifiers share: the embedded default
    //! models ([`LinearModel`]), a host's own models, and the hybrid's
    //! thresholds. Everything here is `tact-classifiers`' `learned`
    //! module, re-exported.
    //!
    //! ```
    //! use tact::effort::{EffortClassifier, Strategy};
    //! use tact::learned::{HybridThresholds, Task};
    //!
    //! let model = Task::Effort.default_model()?;
    //! assert_eq!(model.labels(), ["low", "medium", "high"]);
    //! let c = EffortClassifier::builder()
    //!     .strategy(Strategy::Hybrid)
    //!     .hybrid_thresholds(HybridThresholds::new(0.8, 0.5))
    //!     .build()?;
    //! let r = c.classify("Why did the nightly export stop?", None);
    //! assert!(r.tier.is_some());
    //! # Ok::<(), tact::Error>(())
    //! ```
    #[doc(inline)]
    pub use tact_classifiers::learned::*;
}

pub mod escalation {
    //! The model-backed tier's seam: [`LabelModel`], what a text
    //! classifier asks a language model when the cheaper tiers are unsure,
    //! and [`Escalation`], the model with the confidence below which a
    //! classifier asks it. `tact::llm` (the `llm` feature) implements
    //! [`LabelModel`] over Ollama and OpenAI-compatible servers; a host may
    //! bring its own. Everything here is `tact-classifiers`' `escalation`
    //! module, re-exported.
    //!
    //! ```
    //! use std::sync::Arc;
    //! use tact::effort::EffortClassifier;
    //! use tact::escalation::{Escalation, LabelAnswer, LabelModel, LabelRequest};
    //! use tact::types::{EffortLevel, Tier};
    //!
    //! /// A stand-in model that always answers `high`.
    //! struct High;
    //! impl LabelModel for High {
    //!     fn ask(&self, request: &LabelRequest<'_>) -> Option<LabelAnswer> {
    //!         let i = request.labels.iter().position(|l| *l == "high")?;
    //!         Some(LabelAnswer::new(i, "stand-in"))
    //!     }
    //! }
    //!
    //! // A threshold of 1.0 asks the model about every decision.
    //! let c = EffortClassifier::builder().escalation(Escalation::new(Arc::new(High), 1.0)).build()?;
    //! let r = c.classify("Tabs or spaces?", None);
    //! assert_eq!((r.label, r.tier), (EffortLevel::High, Some(Tier::Model)));
    //! # Ok::<(), tact::Error>(())
    //! ```
    #[doc(inline)]
    pub use tact_classifiers::escalation::*;
}

#[cfg(feature = "llm")]
#[doc(inline)]
pub use tact_llm as llm;

#[doc(inline)]
pub use tact_guidance as guidance;

#[doc(inline)]
pub use tact_secrets as secrets;

#[doc(inline)]
pub use tact_scoring as scoring;

#[doc(inline)]
pub use tact_consensus as consensus;

#[cfg(feature = "store")]
#[doc(inline)]
pub use tact_trajectory_store as store;

/// The README's Rust examples, compiled and run as doctests of the facade
/// (they use `tact::` paths only).
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
