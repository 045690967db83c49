//! Weighted cue sets: literal phrases (one aho-corasick automaton) and
//! regular expressions (one `RegexSet`), compiled once and matched against
//! normalized text in a single pass each.
//!
//! A literal matches on word boundaries; a trailing `*` makes it a prefix
//! (`investigat*` matches "investigate" and "investigation"). Regexes use the
//! `regex` crate's syntax, which has no look-around.

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex::{Regex, RegexSet};

use crate::CoreError;

/// One weighted cue: a named piece of evidence with a human explanation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cue {
    /// Stable identifier, reported in reasons (e.g. `explicit_options`).
    pub name: &'static str,
    /// A classifier-defined category (which label or feature it supports).
    pub tag: u16,
    /// Weight of the cue; its sign and meaning belong to the classifier.
    pub weight: f32,
    /// Short explanation shown to users.
    pub explanation: &'static str,
}

impl Cue {
    /// A cue with tag 0.
    pub const fn new(name: &'static str, weight: f32, explanation: &'static str) -> Self {
        Self {
            name,
            tag: 0,
            weight,
            explanation,
        }
    }

    /// The same cue with another tag.
    #[must_use]
    pub const fn tagged(mut self, tag: u16) -> Self {
        self.tag = tag;
        self
    }
}

/// A cue found in a text, with the byte span of the match.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CueHit<'a> {
    /// The cue that matched.
    pub cue: &'a Cue,
    /// Byte offset of the match in the searched text.
    pub start: usize,
    /// Byte offset one past the match.
    pub end: usize,
}

impl CueHit<'_> {
    /// The matched text within `haystack` (the text that was searched).
    pub fn matched<'h>(&self, haystack: &'h str) -> &'h str {
        haystack.get(self.start..self.end).unwrap_or("")
    }
}

/// Builder of a [`CueSet`].
#[derive(Debug, Default, Clone)]
pub struct CueSetBuilder {
    literals: Vec<(String, bool, Cue)>,
    regexes: Vec<(String, Cue)>,
}

impl CueSetBuilder {
    /// Adds a literal phrase, matched on word boundaries against normalized
    /// text; a trailing `*` matches any word continuation.
    #[must_use]
    pub fn literal(mut self, phrase: &str, cue: Cue) -> Self {
        let (phrase, prefix) = match phrase.strip_suffix('*') {
            Some(p) => (p, true),
            None => (phrase, false),
        };
        self.literals.push((
            crate::normalize(phrase),
            prefix,
            cue,
        ));
        self
    }

    /// Adds every phrase of `phrases` as a literal of the same cue.
    #[must_use]
    pub fn literals(mut self, phrases: &[&str], cue: Cue) -> Self {
        for p in phrases {
            self = self.literal(p, cue);
        }
        self
    }

    /// Adds a regular expression, matched against normalized text.
    ///
    /// `\b` and `\w` are taken in their ASCII sense (normalized text has
    /// its accents folded), which keeps the whole set on the regex crate's
    /// DFA engines: a Unicode `\b` would force the slow NFA path.
    #[must_use]
    pub fn regex(mut self, pattern: &str, cue: Cue) -> Self {
        let pattern = pattern.replace(r"\b", r"(?-u:\b)").replace(r"\w", r"[0-9A-Za-z_]");
        self.regexes.push((pattern, cue));
        self
    }

    /// Compiles the set. Fails on an invalid regex (look-around included)
    /// or an empty literal.
    pub fn build(self) -> Result<CueSet, CoreError> {
        if let Some((p, ..)) = self.literals.iter().find(|(p, ..)| p.is_empty()) {
            return Err(CoreError::Pattern {
                pattern: p.clone(),
                message: "empty literal".into(),
            });
        }
        let ac = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(self.literals.iter().map(|(p, ..)| p.as_str()))
            .map_err(|e| CoreError::Pattern {
                pattern: "<literals>".into(),
                message: e.to_string(),
            })?;
        let patterns: Vec<&str> = self.regexes.iter().map(|(p, _)| p.as_str()).collect();
        let set = RegexSet::new(&patterns).map_err(|e| CoreError::Pattern {
            pattern: patterns.join(" | "),
            message: e.to_string(),
        })?;
        let mut regexes = Vec::with_capacity(patterns.len());
        for p in &patterns {
            regexes.push(Regex::new(p).map_err(|e| CoreError::Pattern {
                pattern: (*p).to_owned(),
                message: e.to_string(),
            })?);
        }
        let (literal_prefix, literal_cues) = self
            .literals
            .into_iter()
            .map(|(_, prefix, cue)| (prefix, cue))
            .unzip();
        Ok(CueSet {
            ac,
            literal_prefix,
            literal_cues,
            set,
            regexes,
            regex_cues: self.regexes.into_iter().map(|(_, c)| c).collect(),
        })
    }
}

/// A compiled set of weighted cues. Build it once and share it: matching
/// takes `&self` and allocates only the returned hits.
#[derive(Debug, Clone)]
pub struct CueSet {
    ac: AhoCorasick,
    literal_prefix: Vec<bool>,
    literal_cues: Vec<Cue>,
    set: RegexSet,
    regexes: Vec<Regex>,
    regex_cues: Vec<Cue>,
}

fn is_word_byte_before(text: &str, at: usize) -> bool {
    text[..at].chars().next_back().is_some_and(char::is_alphanumeric)
}

fn is_word_byte_after(text: &str, at: usize) -> bool {
    text[at..].chars().next().is_some_and(char::is_alphanumeric)
}

impl CueSet {
    /// Starts a builder.
    pub fn builder() -> CueSetBuilder {
        CueSetBuilder::default()
    }

    /// Number of cues (literals and regexes).
    pub fn len(&self) -> usize {
        self.literal_cues.len() + self.regex_cues.len()
    }

    /// Whether the set has no cue.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// All cue matches in `normalized` (text passed through
    /// [`crate::normalize`]), literals first in text order, then regexes.
    /// A cue that matches several times is reported at its first match.
    pub fn hits<'a>(&'a self, normalized: &str) -> Vec<CueHit<'a>> {
        let mut out: Vec<CueHit<'a>> = Vec::new();
        for m in self.ac.find_overlapping_iter(normalized) {
            let idx = m.pattern().as_usize();
            let (Some(cue), Some(&prefix)) =
                (self.literal_cues.get(idx), self.literal_prefix.get(idx))
            else {
                continue;
            };
            let (s, e) = (m.start(), m.end());
            let pat_starts_word = normalized[s..].chars().next().is_some_and(char::is_alphanumeric);
            let pat_ends_word = normalized[..e].chars().next_back().is_some_and(char::is_alphanumeric);
            if pat_starts_word && is_word_byte_before(normalized, s) {
                continue;
            }
            if !prefix && pat_ends_word && is_word_byte_after(normalized, e) {
                continue;
            }
            if out.iter().any(|h| h.cue.name == cue.name) {
                continue;
            }
            out.push(CueHit {
                cue,
                start: s,
                end: e,
            });
        }
        if !self.regex_cues.is_empty() {
            for idx in self.set.matches(normalized).iter() {
                let (Some(cue), Some(re)) = (self.regex_cues.get(idx), self.regexes.get(idx)) else {
                    continue;
                };
                let (start, end) = re.find(normalized).map_or((0, 0), |m| (m.start(), m.end()));
                out.push(CueHit { cue, start, end });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set() -> CueSet {
        CueSet::builder()
            .literal("investigat*", Cue::new("investigate", 2.0, "investigation"))
            .literal("or", Cue::new("or", 1.0, "alternatives"))
            .literal("look into", Cue::new("look_into", 1.5, "look into"))
            .regex(r"\btable \d+\b", Cue::new("table_ref", 1.0, "table"))
            .build()
            .unwrap()
    }

    #[test]
    fn literals_respect_word_boundaries_and_prefixes() {
        let s = set();
        let names = |t: &str| -> Vec<&str> { s.hits(&crate::normalize(t)).iter().map(|h| h.cue.name).collect() };
        assert_eq!(names("Should we investigate?"), ["investigate"]);
        assert_eq!(names("An investigation or two"), ["investigate", "or"]);
        assert!(names("Order the orders").is_empty());
        assert_eq!(names("Please LOOK INTO Table 3"), ["look_into", "table_ref"]);
    }

    #[test]
    fn matched_text_is_reported() {
        let s = set();
        let t = crate::normalize("we must investigating now");
        let hits = s.hits(&t);
        assert_eq!(hits[0].matched(&t), "investigat");
    }

    #[test]
    fn look_around_is_rejected_with_a_clear_error() {
        let err = CueSet::builder().regex(r"foo(?=bar)", Cue::new("x", 1.0, "x")).build().unwrap_err();
        assert!(err.to_string().contains("foo(?=bar)"));
        assert!(CueSet::builder().literal("", Cue::new("x", 1.0, "x")).build().is_err());
    }
}
