//! Shared data model of tact: labels, questions, classification results,
//! query granularity and routing decisions.
//!
//! Every other tact crate depends inward on this one. It holds plain serde
//! types and no I/O, so a host can build, store and send them freely.
//!
//! ```
//! use tact_types::{Classification, EffortLevel, Reason};
//!
//! let result = Classification::new(EffortLevel::Low, 0.9)
//!     .with_reason(Reason::new("explicit_options", "offers `A or B`", 2.0));
//! assert_eq!(result.label, EffortLevel::Low);
//! let json = serde_json::to_string(&result).unwrap();
//! assert!(json.contains("\"label\":\"low\""));
//! ```
#![deny(missing_docs)]

mod classification;
pub mod dataset;
mod effort;
mod error;
pub mod excerpt;
pub mod figures;
mod granularity;
mod route;
pub mod trajectory;

pub use classification::{Classification, Reason, Tier};
pub use effort::{EffortLevel, QuestionEffort};
pub use error::Error;

/// `Result` with this crate's [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
pub use granularity::{Granularity, GranularityDecision, GranularityEvidence, ScoringMethod};
pub use route::{IntentEntry, ModelSlot, QueryType, RouteDecision, RouteRule};
pub use trajectory::{Event, Mode, PendingCall, ToolCall, Trajectory};

/// A closed set of labels a classifier chooses from.
///
/// Implemented by every label enum so generic code (evaluation, CLI output)
/// can list, print and parse labels without knowing the task.
pub trait Label: Copy + Eq + Ord + std::fmt::Debug + Send + Sync + 'static {
    /// Every label of the task, in a fixed order (used for tables and matrices).
    const ALL: &'static [Self];
    /// The label as written in datasets and JSON.
    fn as_str(self) -> &'static str;
    /// Parses a label as written in datasets; `None` when outside the set.
    fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|l| l.as_str() == s)
    }
    /// Position of the label in [`Label::ALL`].
    fn index(self) -> usize {
        Self::ALL.iter().position(|l| *l == self).unwrap_or(0)
    }
}
