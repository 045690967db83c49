//! The default routing strategy: weighted cues in English and Spanish,
//! one aho-corasick pass over the normalized message, a few structural
//! features (code characters, identifiers, figures), the platform-signal
//! rule (RC-02) and history used only to resolve references (RC-03).
//!
//! Scores per type:
//! - `PLATFORM`: account, plan, quota, usage, invoice and billing cues; a
//!   first-person anchor ("my plan", "mi cuota", "I've used") or a usage
//!   figure ("72% of the quota", "8,400 of my 10,000 calls") is the RC-02
//!   signal, which wins whatever the rest says. The same nouns inside a
//!   code request or next to a table of the user's own app ("from our
//!   invoices table", "caps every API key") are look-alikes and count
//!   little.
//! - `CODE_GENERATION`: a code verb (write, fix, convert, escribe, corrige,
//!   pásame a AVAP ...) with an artifact (endpoint, function, script ...)
//!   or a code snippet in the message.
//! - `RETRIEVAL`: documentation words, language questions ("is there a
//!   built-in", "¿cómo se ...", "what does X return"), identifiers of the
//!   product's API, a question mark.
//! - `CONVERSATIONAL`: greetings, thanks and acknowledgements (in short
//!   messages), requests to reformulate the previous answer, small talk.
//!
//! History: when the message carries a reference ("that", "the same",
//! "eso", "lo anterior", "and last month?") and no topic switch, the last
//! non-conversational entry of the window is the referent and its type
//! gains a bonus that decides only when the content is weak or close.
//! The share of earlier types is never looked at.
//!
//! The cue tables are in `cues`; this module analyzes the message and
//! scores the types.

mod cues;

use regex::Regex;
use tact_core::{Cue, CueSet};
use tact_types::{Classification, IntentEntry, Label, QueryType, Reason, RouteRule};

use crate::Error;
use crate::calibration::Calibration;

use cues::{build_cues, tag};

/// Bonus the referent's type gets when the message refers back and its
/// own content is ambiguous (RC-03).
const REFERENCE_BONUS: f32 = 3.0;
/// Weight of a code snippet in the message.
const SNIPPET_WEIGHT: f32 = 2.5;
/// Weight of an inline call (`addVar(total, x`) for code.
const CALL_WEIGHT: f32 = 1.0;
/// Weight of an API identifier (camelCase or snake_case) for retrieval.
const IDENT_WEIGHT: f32 = 1.0;
/// Weight of a question (a question mark or opening) for retrieval.
const QUESTION_WEIGHT: f32 = 1.0;
/// Factor of social cues in a message that also asks for something.
const LONG_SOCIAL_FACTOR: f32 = 0.35;
/// Words above which a message's greetings and thanks count little.
const LONG_MESSAGE_WORDS: usize = 12;
/// Factor of platform evidence that is a look-alike.
const LOOKALIKE_FACTOR: f32 = 0.2;

/// Calibration over the four types.
const CALIBRATION: Calibration = Calibration {
    floor: 2.0,
    min_gap: 1.0,
    slope: 0.8,
    neutral: 0.25,
};

/// `text` with every `@mention` (`@README.md`, `@src/app/`) cut to its
/// `@`, in one pass.
fn collapse_mentions(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_mention = false;
    for c in text.chars() {
        if in_mention {
            if !c.is_whitespace() {
                continue;
            }
            in_mention = false;
        }
        out.push(c);
        if c == '@' {
            in_mention = true;
        }
    }
    out
}

/// What the heuristic decided, before the router adds slots and models.
#[derive(Debug, Clone)]
pub(crate) struct Analysis {
    /// Label, confidence and reasons (no tier: the heuristic alone).
    pub classification: Classification<QueryType>,
    pub rule: RouteRule,
    /// The top score minus the runner-up's.
    pub gap: f32,
    pub ambiguous: bool,
    pub resolved: Option<IntentEntry>,
    /// Whether any account, billing, quota or usage evidence was found: a
    /// later tier may route to `PLATFORM` only then.
    pub platform_evidence: bool,
}

/// The compiled default strategy.
#[derive(Debug, Clone)]
pub(crate) struct Heuristic {
    cues: CueSet,
    starts: CueSet,
    figure: Regex,
}

/// Per-type scores, in [`QueryType::ALL`] order.
type Scores = [f32; 4];

fn idx(t: QueryType) -> usize {
    t.index()
}

impl Heuristic {
    pub(crate) fn new() -> Result<Self, Error> {
        let figure = Regex::new(
            r"[0-9][0-9.,]* ?(?:gb|mb|k)? ?(?:of|de|/) ?(?:my |mis |the |los |las )?[0-9]",
        )
        .map_err(|e| {
            Error::Core(tact_core::Error::Pattern {
                pattern: "usage figure".into(),
                message: e.to_string(),
            })
        })?;
        let (cues, starts) = build_cues()?;
        Ok(Self {
            cues,
            starts,
            figure,
        })
    }

    /// Classifies a message (`raw`, and `text` its normalized form) with
    /// the history window.
    pub(crate) fn analyze(&self, raw: &str, text: &str, history: &[IntentEntry]) -> Analysis {
        self.analyze_traced(raw, text, history, None)
    }

    /// Classifies; with `trace`, also pushes the names of the cues and
    /// message-shape markers that fired and the type of the history entry
    /// a reference resolved to (the learned model's extra features).
    pub(crate) fn analyze_traced(
        &self,
        raw: &str,
        text: &str,
        history: &[IntentEntry],
        trace: Option<&mut Vec<&'static str>>,
    ) -> Analysis {
        // A greeting or list marker before the message, or thanks after
        // it, are no part of what it asks ("Hi! Should the staging URL
        // ...?", "push it, thanks!"); a greeting or thanks alone stays.
        let text = crate::opening::body(text);
        // A file mention is the project's, not a word of the request:
        // "@docs/" is no question about documentation.
        let collapsed;
        let text = if text.contains('@') {
            collapsed = collapse_mentions(text);
            collapsed.as_str()
        } else {
            text
        };
        let opening = crate::opening::opening(text);
        let head = opening.as_str();
        let head_hits = self.starts.hits(head);
        let hits = self.cues.hits(text);
        let found: Vec<(&Cue, &str)> = head_hits
            .iter()
            .map(|h| (h.cue, h.matched(head)))
            .chain(hits.iter().map(|h| (h.cue, h.matched(text))))
            .collect();
        let mut sums = [0.0f32; 32];
        let mut counts = [0u8; 32];
        for (cue, _) in &found {
            let t = usize::from(cue.tag) & 31;
            sums[t] += cue.weight;
            counts[t] = counts[t].saturating_add(1);
        }
        let has = |t: u16| counts[usize::from(t) & 31] > 0;
        let sum = |t: u16| sums[usize::from(t) & 31];

        let shape = Shape::of(crate::opening::unframed(raw));
        // Normalized text separates words by single spaces; in Chinese or
        // Japanese, two characters count as a word.
        let words = if text.is_empty() {
            0
        } else {
            1 + text.bytes().filter(|&b| b == b' ').count() + shape.wide / 2
        };
        let percent = raw.contains('%');
        // The figure regex runs only when a usage word makes it matter.
        let usage_figure =
            has(tag::USAGE) && (percent || (shape.digits && self.figure.is_match(text)));

        // CODE_GENERATION evidence.
        let howto = has(tag::HOWTO);
        let verb = (has(tag::CODE_VERB) || has(tag::REF_CODE)) && !howto;
        let snippet = shape.code_chars >= 3 || shape.multiline;
        // RC-03: a reference ("that", "eso", "lo anterior") points at the
        // last non-conversational turn of the window.
        let referent = if (has(tag::REF) || has(tag::REF_CODE)) && !has(tag::SWITCH) {
            history
                .iter()
                .rev()
                .find(|e| e.kind != QueryType::Conversational)
                .or(history.last())
        } else {
            None
        };
        // A code verb applied to earlier code ("add sorting to that").
        let code_edit = verb && referent.is_some_and(|r| r.kind == QueryType::CodeGeneration);
        let code_request =
            code_edit || (verb && (has(tag::ARTIFACT) || has(tag::SPEC) || snippet || shape.ident));
        let mut s: Scores = [0.0; 4];
        let code = &mut s[idx(QueryType::CodeGeneration)];
        let verbs = (sum(tag::CODE_VERB) + sum(tag::REF_CODE)).min(3.0);
        *code += if howto { verbs * 0.3 } else { verbs } + sum(tag::SPEC).min(2.0);
        let artifact_factor = match (verb, shape.question) {
            (true, _) => 1.0,
            (false, false) => 0.4,
            (false, true) => 0.0,
        };
        *code += sum(tag::ARTIFACT).min(2.0) * artifact_factor;
        if snippet {
            *code += SNIPPET_WEIGHT;
        } else if shape.call {
            *code += CALL_WEIGHT;
        }
        if shape.snake {
            *code += 0.5;
        }
        if verb && shape.ident {
            // "write the ormAccessSelect for it": the API named is the code to write.
            *code += IDENT_WEIGHT;
        }

        // PLATFORM evidence and the RC-02 signal.
        // A third-party service also counts as a look-alike, so that its
        // usage figures never raise the RC-02 signal.
        let third_party = has(tag::THIRD_PARTY);
        let lookalike = code_request || has(tag::LOOKALIKE) || third_party || shape.ident;
        let mine = has(tag::MINE);
        let signal = mine || (!lookalike && usage_figure);
        let mut plat = sum(tag::MINE) + sum(tag::ACCOUNT).min(4.0) + sum(tag::PLAT).min(3.0);
        if usage_figure {
            plat += 2.0;
        }
        if lookalike && !mine {
            plat *= LOOKALIKE_FACTOR;
        }
        // Billing or limits of a third-party service are no evidence of
        // the user's account here, unless the user says it is theirs.
        if third_party && !mine {
            plat = 0.0;
        }
        s[idx(QueryType::Platform)] = plat;
        let platform_evidence = plat > 0.0;

        // RETRIEVAL evidence.
        // "Can you remove the field?" asks for work, not for an answer.
        let request = has(tag::REQUEST) && verb;
        let question = (shape.question || has(tag::QUESTION) || howto) && !request;
        let retr = &mut s[idx(QueryType::Retrieval)];
        *retr += sum(tag::DOC).min(4.0) + sum(tag::LANG).min(3.0);
        if !verb {
            *retr += sum(tag::READ).min(2.0);
        }
        if shape.ident {
            *retr += IDENT_WEIGHT;
        }
        if question {
            *retr += QUESTION_WEIGHT;
        }

        // CONVERSATIONAL evidence.
        // Thanks or "ok" before a real request do not make it small talk.
        // So do a snippet or a long message ("Hi! import {...}", "Hi! You
        // are auditing the repository ..."): a greeting is no request.
        let other_intent = code_request
            || mine
            || question
            || (verb && words > 3)
            || snippet
            || words > LONG_MESSAGE_WORDS;
        let social = sum(tag::SOCIAL).min(4.0)
            * if other_intent {
                LONG_SOCIAL_FACTOR
            } else {
                1.0
            };
        let conv = &mut s[idx(QueryType::Conversational)];
        let reform = sum(tag::REFORM).min(6.0) * if code_request { 0.5 } else { 1.0 };
        *conv += social + reform + sum(tag::META).min(4.0);
        if !question && words <= 3 {
            *conv += 0.5;
        }

        let content = s;
        let content_evidence: f32 = content.iter().sum();
        let (content_top, content_second) = top_two(&content);
        let (_, content_ambiguous) =
            CALIBRATION.confidence(content_top, content_second, content_evidence);

        // RC-03: a reference resolves to the last non-conversational turn.
        // The referent decides only what the content leaves open.
        let referent = referent.filter(|_| content_ambiguous);
        if let Some(r) = referent {
            s[idx(r.kind)] += REFERENCE_BONUS;
        }

        tracing::trace!(
            target: "tact::route",
            retrieval = content[0],
            code = content[1],
            conversational = content[2],
            platform = content[3],
            signal,
            lookalike,
            content_ambiguous,
            referent = ?referent.map(|r| r.kind),
            "route scores"
        );
        if let Some(t) = trace {
            t.extend(found.iter().map(|(cue, _)| cue.name));
            let marks = [
                (snippet, "snippet"),
                (shape.call, "call"),
                (shape.ident, "ident"),
                (shape.snake, "snake"),
                (question, "question"),
                (percent, "percent"),
                (usage_figure, "usage_figure"),
                (lookalike, "lookalike"),
                (code_request, "code_request"),
                (words <= 3, "short"),
            ];
            t.extend(marks.iter().filter(|(on, _)| *on).map(|(_, name)| *name));
            if let Some(r) = referent {
                t.push(match r.kind {
                    QueryType::Retrieval => "ref_retrieval",
                    QueryType::CodeGeneration => "ref_code_generation",
                    QueryType::Conversational => "ref_conversational",
                    QueryType::Platform => "ref_platform",
                });
            }
        }
        // Read only when no cue decides: see `unread_script`.
        let mut unread = false;
        let (label, rule) = if signal {
            (QueryType::Platform, RouteRule::PlatformSignal)
        } else {
            let best = argmax(&s);
            if content_evidence < 0.5 && referent.is_none() {
                unread = !question && unread_script(text);
                let fallback = if question {
                    QueryType::Retrieval
                } else if unread {
                    QueryType::CodeGeneration
                } else {
                    QueryType::Conversational
                };
                (fallback, RouteRule::Fallback)
            } else if referent.is_some_and(|r| r.kind == best) {
                (best, RouteRule::HistoryReference)
            } else {
                (best, RouteRule::Content)
            }
        };

        let top = s[idx(label)];
        let second = s
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != idx(label))
            .map(|(_, v)| *v)
            .fold(0.0f32, f32::max);
        let total: f32 = s.iter().sum();
        let gap = (top - second).max(0.0);
        let (mut confidence, ambiguous) = CALIBRATION.confidence(top, second, total);
        let ambiguous = ambiguous && rule != RouteRule::PlatformSignal;
        if rule == RouteRule::PlatformSignal {
            confidence = confidence.max(0.9);
        }

        let mut reasons = reasons(&found, label);
        if usage_figure && label == QueryType::Platform {
            reasons.insert(
                0,
                Reason::new(
                    "usage_figure",
                    "a usage percentage or figure of the account",
                    2.0,
                ),
            );
        }
        if snippet && label == QueryType::CodeGeneration {
            reasons.push(Reason::new(
                "code_snippet",
                "carries a code snippet",
                SNIPPET_WEIGHT,
            ));
        }
        if shape.ident && label == QueryType::Retrieval {
            reasons.push(Reason::new(
                "api_identifier",
                "names an API identifier",
                IDENT_WEIGHT,
            ));
        }
        if lookalike && !mine && label != QueryType::Platform && plat > 0.0 {
            reasons.push(Reason::new(
                "platform_lookalike",
                "account words describe the user's own app or a code requirement, not their account",
                0.0,
            ));
        }
        let resolved = referent.cloned();
        if let Some(r) = &resolved {
            let weight = if r.kind == label {
                REFERENCE_BONUS
            } else {
                0.0
            };
            reasons.push(Reason::new(
                "history_reference",
                format!("refers back to [{}] \"{}\"", r.kind, r.snippet),
                weight,
            ));
        }
        if rule == RouteRule::Fallback {
            reasons.push(Reason::new(
                "fallback",
                if question {
                    "no cue: a question goes to RETRIEVAL"
                } else if unread {
                    "no cue in a script the cues do not read: a request, which keeps retrieval"
                } else {
                    "no cue: a remark goes to CONVERSATIONAL"
                },
                0.0,
            ));
        }
        if reasons.is_empty() {
            reasons.push(Reason::new("scores", "the highest score decided", 0.0));
        }
        Analysis {
            classification: Classification::new(label, confidence).with_reasons(reasons),
            rule,
            gap,
            ambiguous,
            resolved,
            platform_evidence,
        }
    }
}

/// The highest and second-highest scores.
fn top_two(s: &Scores) -> (f32, f32) {
    let mut top = 0.0f32;
    let mut second = 0.0f32;
    for &v in s {
        if v > top {
            second = top;
            top = v;
        } else if v > second {
            second = v;
        }
    }
    (top, second)
}

/// The first type with the highest score, in [`QueryType::ALL`] order.
fn argmax(s: &Scores) -> QueryType {
    let mut best = QueryType::Retrieval;
    let mut best_score = f32::NEG_INFINITY;
    for &t in QueryType::ALL {
        let v = s[idx(t)];
        if v > best_score {
            best = t;
            best_score = v;
        }
    }
    best
}

/// Which type a cue tag speaks for.
fn type_of(tag: u16) -> Option<QueryType> {
    Some(match tag {
        tag::MINE | tag::ACCOUNT | tag::PLAT | tag::USAGE => QueryType::Platform,
        tag::CODE_VERB | tag::ARTIFACT | tag::SPEC | tag::REF_CODE => QueryType::CodeGeneration,
        tag::DOC | tag::LANG | tag::HOWTO | tag::QUESTION | tag::READ => QueryType::Retrieval,
        tag::SOCIAL | tag::REFORM | tag::META => QueryType::Conversational,
        _ => return None,
    })
}

/// Most cue reasons reported (the strongest).
const MAX_REASONS: usize = 5;

/// The cues that speak for the decided type, strongest first (at most
/// [`MAX_REASONS`]).
fn reasons(found: &[(&Cue, &str)], label: QueryType) -> Vec<Reason> {
    let mut picked: Vec<&(&Cue, &str)> = found
        .iter()
        .filter(|(cue, _)| type_of(cue.tag) == Some(label) && cue.weight > 0.0)
        .collect();
    picked.sort_by(|a, b| b.0.weight.total_cmp(&a.0.weight));
    picked.truncate(MAX_REASONS);
    picked
        .into_iter()
        .map(|(cue, matched)| {
            let m = matched.strip_prefix("^ ").unwrap_or(matched);
            Reason::new(
                cue.name,
                crate::detail::cue_match(cue.explanation, m),
                cue.weight,
            )
        })
        .collect()
}

/// Whether `b` leads the UTF-8 encoding of a character of the scripts
/// written without spaces between words (Chinese, Japanese: U+3000 to
/// U+9FFF).
fn is_wide_lead(b: u8) -> bool {
    (0xE3..=0xE9).contains(&b)
}

/// Whether `text` is written mostly in a script the cues do not read
/// (wide characters, see [`is_wide_lead`], against ASCII letters): with
/// no cue, nothing says it is a remark, and most such messages to a
/// coding assistant ask for work.
fn unread_script(text: &str) -> bool {
    let (wide, letters) = text.bytes().fold((0usize, 0usize), |(w, l), b| {
        (
            w + usize::from(is_wide_lead(b)),
            l + usize::from(b.is_ascii_alphabetic()),
        )
    });
    wide >= 2 && wide * 2 > letters
}

/// Structural features of the raw message.
#[derive(Debug, Default, Clone, Copy)]
struct Shape {
    /// Characters typical of code: `(){}[]=;<>|`.
    code_chars: usize,
    /// A line break followed by more text.
    multiline: bool,
    /// A camelCase identifier (`addVar`, `RequestGet`).
    ident: bool,
    /// A snake_case identifier (`api_calls`, `_status`).
    snake: bool,
    /// An identifier directly followed by `(`: an inline call.
    call: bool,
    /// A question mark (`?`, the full-width `？`) or an opening `¿`.
    question: bool,
    /// Any ASCII digit.
    digits: bool,
    /// Wide characters (see [`is_wide_lead`]), counted by their UTF-8
    /// lead byte.
    wide: usize,
}

/// Byte classes for [`Shape::of`].
mod class {
    pub const CODE: u8 = 1;
    pub const PAREN: u8 = 2;
    pub const QMARK: u8 = 4;
    pub const DIGIT: u8 = 8;
    pub const UPPER: u8 = 16;
    pub const LOWER: u8 = 32;
    pub const NEWLINE: u8 = 64;
    pub const SPACE: u8 = 128;
}

/// The class bits of every byte.
const CLASSES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = match b {
            b'(' => class::CODE | class::PAREN,
            b')' | b'{' | b'}' | b'[' | b']' | b'=' | b';' | b'<' | b'>' | b'|' => class::CODE,
            b'?' => class::QMARK,
            b'0'..=b'9' => class::DIGIT,
            b'A'..=b'Z' => class::UPPER,
            b'a'..=b'z' => class::LOWER,
            b'\n' => class::NEWLINE | class::SPACE,
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => class::SPACE,
            _ => 0,
        };
        i += 1;
    }
    t
};

impl Shape {
    fn of(raw: &str) -> Self {
        let mut s = Shape::default();
        let bytes = raw.as_bytes();
        let mut seen = 0u8;
        let mut prev = 0u8;
        let mut newline = false;
        for (i, &b) in bytes.iter().enumerate() {
            let c = CLASSES[usize::from(b)];
            seen |= c;
            s.code_chars += usize::from(c & class::CODE != 0);
            s.wide += usize::from(is_wide_lead(b));
            if c & class::UPPER != 0 && prev & class::LOWER != 0 {
                s.ident = true;
            }
            if c & class::PAREN != 0
                && prev & (class::LOWER | class::UPPER | class::DIGIT) != 0
                && (s.ident || s.snake)
            {
                s.call = true;
            }
            if b == b'_'
                && bytes.get(i + 1).is_some_and(u8::is_ascii_alphabetic)
                && (prev & (class::LOWER | class::UPPER | class::SPACE) != 0 || i == 0)
            {
                s.snake = true;
            }
            if newline && c & class::SPACE == 0 {
                s.multiline = true;
            }
            newline |= c & class::NEWLINE != 0;
            prev = c;
        }
        s.question =
            seen & class::QMARK != 0 || raw.contains('¿') || (s.wide > 0 && raw.contains('？'));
        s.digits = seen & class::DIGIT != 0;
        s
    }
}
