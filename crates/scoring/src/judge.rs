//! Judged preferences: a [`Judge`] (an LLM, a human, a classifier the host
//! trusts) decides what no rule can (`joke`, `amateur`, `professional`,
//! `first_try`, `lang_multi`, and `detail_question` beyond its word and
//! sentence rule). Without a judge these are reported "not judged", never
//! guessed.

use serde::{Deserialize, Serialize};

use crate::preference::Preference;
use crate::session::Session;
use crate::violation::Span;

/// What a judge is asked: does this agent message respect this preference?
#[derive(Debug, Clone, Copy)]
pub struct JudgeRequest<'a> {
    /// The preference to judge.
    pub preference: Preference,
    /// The agent message.
    pub message: &'a str,
    /// Its 0-based turn in the session.
    pub turn: usize,
    /// The user's prompt of that turn.
    pub prompt: &'a str,
    /// The session, for context: its header (preferences, outcome,
    /// context); its turns are all there when it is scored whole, none
    /// when it is scored turn by turn ([`crate::PerTurn`]).
    pub session: &'a Session,
}

/// A judge's answer about one message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// The message respects the preference.
    Respected,
    /// The message violates it.
    Violated {
        /// What the agent did instead.
        actual: String,
        /// The offending text, if the judge located it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        span: Option<Span>,
    },
    /// The judge cannot tell (reported as not judged).
    Abstain {
        /// Why.
        reason: String,
    },
}

/// Decides judged preferences. Implementations must not panic; a failure
/// is an `Err` and the preference is reported as not judged.
pub trait Judge: Send + Sync {
    /// The judge's name, recorded in the violations it finds.
    fn name(&self) -> &str;

    /// Judges one message; a judge that fails (timeout, unparseable
    /// answer...) returns [`Error::Judge`](crate::Error::Judge).
    fn judge(&self, request: &JudgeRequest<'_>) -> crate::Result<Verdict>;
}

/// A judged preference left undecided, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotJudged {
    /// The preference.
    pub preference: Preference,
    /// Why: no judge configured, the judge abstained or failed.
    pub reason: String,
}
