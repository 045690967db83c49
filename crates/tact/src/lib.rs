//! tact in one dependency: fast, explainable classifiers and scores for
//! hosts of LLM agents, and the main job (read agent sessions, score them,
//! replay guidance, store, rank) as a library.
//!
//! ```
//! use tact::effort::EffortClassifier;
//! use tact::guidance::Guide;
//! use tact::job::Job;
//! use tact::store::Store;
//! use tact::types::{EffortLevel, Event, Mode, ToolCall};
//!
//! // A clarifying question's effort, with the cues behind it.
//! let classifier = EffortClassifier::builder().build()?;
//! let r = classifier.classify("Should I keep the old flag or remove it?", None);
//! assert_eq!(r.label, EffortLevel::Low);
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
//! - `bundled` (default): compile SQLite from source (the store's
//!   `bundled`). A host that links its own SQLite (through
//!   `libsqlite3-sys` 0.37) sets `default-features = false`.
//! - `llm` (off by default): the model-backed tier, [`llm`] (`tact-llm`:
//!   a local LLM behind strict timeouts, failing open, with tokio and
//!   reqwest), and the `[llm]` table of the job's configuration.
#![deny(missing_docs)]

mod error;
pub mod import;
pub mod job;
pub mod render;

pub use error::Error;
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

#[doc(inline)]
pub use tact_classifiers::effort;

#[doc(inline)]
pub use tact_classifiers::granularity;

#[doc(inline)]
pub use tact_classifiers::route;

#[doc(inline)]
pub use tact_classifiers::learned;

#[doc(inline)]
pub use tact_classifiers::escalation;

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

#[doc(inline)]
pub use tact_trajectory_store as store;

/// The README's Rust examples, compiled and run as doctests of the facade
/// (they use `tact::` paths only).
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
