//! tact's text classifiers, each with reasons: question effort (low /
//! medium / high), query granularity (fine-grained / holistic) with the
//! scoring method per recursion level, and query routing under the ADR-0008
//! routing contract. Guidance over agent trajectories is `tact-guidance`.
//!
//! ```
//! use tact_classifiers::effort::{EffortClassifier, Strategy};
//! use tact_types::EffortLevel;
//!
//! let classifier = EffortClassifier::builder().build()?;
//! let r = classifier.classify("Should I use PostgreSQL or MySQL?", None);
//! assert_eq!(r.label, EffortLevel::Low);
//!
//! let r = classifier.classify("Can you profile the service in staging and send me the flame graph?", None);
//! assert_eq!(r.label, EffortLevel::High);
//! assert!(!r.reasons.is_empty());
//!
//! // The ADR-001-002 baseline stays available for comparison.
//! let seed = EffortClassifier::builder().strategy(Strategy::Seed).build()?;
//! assert_eq!(seed.classify("How should we handle errors?", None).label, EffortLevel::Low);
//!
//! // Hosts that only see whole messages get every question with its effort.
//! let found = classifier.questions("I read the config. Which port should I use, 8080 or 9090?");
//! assert_eq!(found.len(), 1);
//!
//! // Query granularity and routing.
//! use tact_classifiers::{granularity::GranularityClassifier, route::Router};
//! use tact_types::{Granularity, QueryType};
//! let g = GranularityClassifier::builder().build()?;
//! assert_eq!(g.classify("Summarize the main argument").label(), Granularity::Holistic);
//! let router = Router::builder().build()?;
//! assert_eq!(router.route("When does my subscription renew?", &[]).label(), QueryType::Platform);
//! # Ok::<(), tact_classifiers::Error>(())
//! ```
//!
//! # Features
//!
//! No optional features; every strategy is always compiled.
#![deny(missing_docs)]

mod calibration;
mod detail;
pub mod effort;
mod error;
pub mod escalation;
pub mod granularity;
pub mod learned;
mod once;
mod opening;
pub mod route;
mod strategy;
pub mod text;
mod tiered;

pub use error::Error;
pub use text::{TextClassifier, TextDecision};

/// `Result` with this crate's [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
