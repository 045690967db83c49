//! A preference violation: which preference, what was expected, what the
//! message did, how severe it is, and where.

use serde::{Deserialize, Serialize};

use crate::preference::{Category, Preference, Severity};

/// A byte span of an agent message, with its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    /// Byte offset of the first character (on a character boundary).
    pub start: usize,
    /// Byte offset one past the last character (on a character boundary).
    pub end: usize,
    /// The spanned text.
    pub text: String,
}

impl Span {
    /// The span `start..end` of `source`; offsets are moved back to
    /// character boundaries and clamped, so this never panics.
    pub fn of(source: &str, start: usize, end: usize) -> Span {
        let fix = |mut i: usize| {
            i = i.min(source.len());
            while !source.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        let start = fix(start);
        let end = fix(end).max(start);
        Span {
            start,
            end,
            text: source.get(start..end).unwrap_or_default().to_owned(),
        }
    }

    /// The whole of `source`, trimmed of surrounding white space.
    pub fn whole(source: &str) -> Span {
        let start = source.len() - source.trim_start().len();
        let end = source.trim_end().len().max(start);
        Span::of(source, start, end)
    }
}

/// One violation of a user preference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Violation {
    /// The preference violated.
    pub preference: Preference,
    /// Its category (sets the `spec` profile's penalty).
    pub category: Category,
    /// How strongly it breaks the user's wish.
    pub severity: Severity,
    /// What the preference required.
    pub expected: String,
    /// What the agent did instead.
    pub actual: String,
    /// The offending text, when one span shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    /// The 0-based turn of the session, when checked on a session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<usize>,
    /// `rule` for deterministic checks, or the judge's name.
    pub checked_by: String,
}

impl Violation {
    /// A violation found by a rule, with the preference's category,
    /// severity and requirement filled in.
    pub fn rule(preference: Preference, actual: impl Into<String>, span: Option<Span>) -> Self {
        Violation {
            preference,
            category: preference.category(),
            severity: preference.severity(),
            expected: preference.requirement().to_owned(),
            actual: actual.into(),
            span,
            turn: None,
            checked_by: "rule".to_owned(),
        }
    }

    /// The same violation, located in a session turn.
    #[must_use]
    pub fn in_turn(mut self, turn: usize) -> Self {
        self.turn = Some(turn);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_never_split_characters() {
        let s = "é, ok";
        let sp = Span::of(s, 1, 3);
        assert_eq!((sp.start, sp.end, sp.text.as_str()), (0, 3, "é,"));
        let sp = Span::of(s, 99, 1);
        assert_eq!((sp.start, sp.end), (s.len(), s.len()));
        assert_eq!(Span::whole("  a b \n").text, "a b");
        assert_eq!(Span::whole("   ").text, "");
    }
}
