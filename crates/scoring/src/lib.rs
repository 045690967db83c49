//! PPP interaction scoring: how an agent treated its user in a session.
//!
//! A [`Session`] holds one agent's turns (user prompt, agent response), the
//! user's [`UserPreferences`], whether the first prompt was vague, and the
//! task outcome (R_Prod, supplied by the host). A [`Scorer`] finds the
//! questions the agent asked and their effort, checks the preferences
//! (deterministic rules on each message, rules on the whole session, and a
//! [`Judge`] for the rest, "not judged" without one), and applies a reward
//! [`Profile`]: `spec` (SPEC-PPP-003), `paper` (the PPP paper's text) or
//! `paper-code` (the paper's released reward code, checked case by case
//! against it). Every score comes with the rules that produced it; the
//! [`profile`] module compares the three rule by rule, with the source of
//! each rule.
//!
//! ```
//! use tact_scoring::{Preference, Profile, Scorer, Session, TaskOutcome, TextChecker, Turn, UserPreferences};
//!
//! // One message, one preference: the labelling guide's rules.
//! let checker = TextChecker::new()?;
//! let v = checker.check(Preference::Commas, "Should I retry now, or later?")?.unwrap();
//! assert_eq!(v.span.unwrap().text, ",");
//! assert!(checker.check(Preference::OneQuestion, "Which port, e.g. 8080?")?.is_none());
//!
//! // A whole session under the `spec` profile.
//! let mut session = Session::new("agent_a", TaskOutcome::Tests { passed: 9, total: 10 });
//! session.preferences = UserPreferences::none().with(Preference::Commas);
//! session.turns.push(Turn::new("Add retries to the uploader.", "Should I use 3 retries or 5?"));
//! let scorer = Scorer::builder().profile(Profile::Spec).build()?;
//! let score = scorer.score(&session);
//! assert_eq!(score.questions.len(), 1);
//! assert!(score.violations.is_empty());
//! // R = R_Prod 0.9 + R_Proact 0.05 (one low question) + R_Pers 0.05 (no violation).
//! assert!((score.total - 1.0).abs() < 1e-9);
//! # Ok::<(), tact_scoring::Error>(())
//! ```
//!
//! User preferences also load from a host's TOML configuration:
//!
//! ```
//! use tact_scoring::{Preference, UserPreferences};
//!
//! let prefs = UserPreferences::from_toml(
//!     "[user_preferences]\nlanguage = \"it\"\nformat = [\"no_commas\"]\n",
//!     Some("tact.toml"),
//! )?;
//! assert_eq!(prefs.all(), [Preference::LangIta, Preference::Commas]);
//! # Ok::<(), tact_scoring::Error>(())
//! ```
//!
//! # Features
//!
//! No optional features. Language identification uses `whatlang`.
#![deny(missing_docs)]

pub mod checks;
pub mod dataset;
mod error;
pub mod judge;
pub mod per_turn;
pub mod preference;
pub mod profile;
pub mod running;
pub mod scorer;
pub mod session;
pub mod user_prefs;
pub mod violation;

pub use checks::TextChecker;
pub use error::Error;

/// `Result` with this crate's [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
pub use judge::{Judge, JudgeRequest, NotJudged, Verdict};
pub use per_turn::{PerTurn, TurnScore};
pub use preference::{Category, CheckKind, Preference, Severity};
pub use profile::{Adjustment, Component, CostLevel, Profile};
pub use running::RunningScore;
pub use scorer::{Scope, Scorer, ScorerBuilder, SessionQuestion, SessionScore};
pub use session::{
    AskedQuestion, LocatedSession, PppEnv, Session, SessionFormat, TaskOutcome, Turn,
    is_session_line, parse_session_at, parse_session_bytes, parse_sessions, read_sessions,
};
pub use user_prefs::{Language, UserPreferences};
pub use violation::{Span, Violation};
