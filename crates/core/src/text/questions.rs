//! Question extraction: [`is_question`] (a final `?`, an opening `¿` or a
//! direct request) and [`extract_questions`] (the questions of a message,
//! with the option lists that follow them).

use super::sentences::{is_closer, starts_list_item};
use super::{Segment, normalize, split_sentences};

mod offers;
mod openers;
use offers::{
    after_label, asks_through_options, is_answer_format, is_conditional_invitation,
    is_generic_offer, is_option_line, label_with_examples, waits_for_answer,
};
use openers::{
    ANSWER_OPENERS, ASKING_LEAD_INS, ASKS_INSIDE, CLOSINGS, PLEASE_NOT_ASKING, PURSUIT_OPENERS,
    REPORTED_OPENERS, REQUEST_STARTS, UNMARKED_OPENERS,
};

/// Whether a sentence reads as a question: it ends in `?`/`？` (before
/// closing quotes or brackets), opens with `¿`, or is a direct request such
/// as "please confirm ...", "let me know which ...", "avísame ...", "bitte
/// bestätige ...". A `?` that closes a double quotation ending the
/// sentence (`The installer asks "Overwrite?"`) belongs to the quotation:
/// the sentence is a question only if the text before the quotation opens
/// with an interrogative word ("Should I answer ...") or is a request.
pub fn is_question(sentence: &str) -> bool {
    let t = sentence.trim();
    let core = t.trim_end_matches(|c: char| is_closer(c) || c == '.' || c == '!' || c == ':');
    if t.starts_with('¿') {
        return true;
    }
    if core.ends_with('?') || core.ends_with('？') {
        // `The installer asks "Overwrite?"`, `Click **Forgot password?**`:
        // the mark belongs to the quotation or the emphasised label; the
        // sentence around it must ask by itself.
        return match quotation_before(core, &t[core.len()..])
            .or_else(|| emphasis_before(core, &t[core.len()..]))
        {
            Some(outside) => opens_interrogative(outside) || is_request(outside),
            None => true,
        };
    }
    is_request(t) || asks_without_mark(core)
}

/// Whether a sentence without `?` still asks: it opens with an
/// interrogative word and a copula ("what's the ...", "where is the ...")
/// and its first clause (up to a dash, colon, semicolon or comma) has no
/// second verb of being, which would make the opening a subject ("What's
/// the point is ...", "What is the plan was ...").
fn asks_without_mark(core: &str) -> bool {
    let t = core.trim_start_matches(|c: char| !c.is_alphanumeric());
    let head_end = t.char_indices().nth(24).map_or(t.len(), |(i, _)| i);
    let head = t[..head_end].replace('\u{2019}', "'");
    let Some(opener) = UNMARKED_OPENERS
        .iter()
        .find(|o| strip_prefix_ignore_ascii_case(&head, o).is_some())
    else {
        return false;
    };
    let rest = t.get(opener.len()..).unwrap_or("");
    let clause_end = rest
        .find(['\u{2014}', '\u{2013}', ':', ';', ',', '('])
        .or_else(|| rest.find(" - "))
        .unwrap_or(rest.len());
    let clause = &rest[..clause_end];
    !clause
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .any(|w| {
            ["is", "are", "was", "were"]
                .iter()
                .any(|v| v.eq_ignore_ascii_case(w))
        })
}

/// When `tail` (what follows a final `?`) starts with a closing double
/// quotation mark whose opening mark is in `core`: the text before that
/// opening mark.
fn quotation_before<'a>(core: &'a str, tail: &str) -> Option<&'a str> {
    let opener = match tail.chars().next()? {
        '"' => '"',
        '\u{201d}' => '\u{201c}',
        '\u{bb}' => '\u{ab}',
        _ => return None,
    };
    core.rfind(opener).map(|at| &core[..at])
}

/// When `tail` (what follows a final `?`) closes a `**` or `__` emphasis
/// that opens after some words of the sentence (`Set **Use folder as
/// title?**`): the words before it, past a list marker. `None` when the
/// emphasis opens the sentence (`**Shall I go on?**`).
fn emphasis_before<'a>(core: &'a str, tail: &str) -> Option<&'a str> {
    let mark = ["**", "__"].into_iter().find(|m| tail.starts_with(m))?;
    let before = &core[..core.rfind(mark)?];
    let t = before.trim_start();
    let t = if starts_list_item(t) {
        t.split_once(char::is_whitespace).map_or("", |(_, r)| r)
    } else {
        t
    };
    t.contains(char::is_alphanumeric).then_some(t)
}

/// Words that open a direct question (lower case).
const INTERROGATIVE_OPENERS: &[&str] = &[
    "what", "which", "who", "whom", "whose", "where", "when", "why", "how", "should", "shall",
    "do", "does", "did", "is", "are", "was", "were", "am", "can", "could", "would", "will", "may",
    "might", "must", "have", "has",
];

/// Whether `text` opens with an English interrogative word or auxiliary
/// ("Should I answer ...", "what's next"), in any case, after leading
/// punctuation.
///
/// ```
/// use tact_core::text::opens_interrogative;
///
/// assert!(opens_interrogative("**Should** I keep the flag"));
/// assert!(opens_interrogative("what's the port"));
/// assert!(!opens_interrogative("I kept the flag."));
/// ```
pub fn opens_interrogative(text: &str) -> bool {
    let first = text
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("");
    INTERROGATIVE_OPENERS
        .iter()
        .any(|w| w.eq_ignore_ascii_case(first))
}

/// Whether a sentence is a direct request ("please confirm ...", "let me
/// know ...", "avísame ...") that counts as a question without a `?`.
fn is_request(t: &str) -> bool {
    let head_end = t.char_indices().nth(40).map_or(t.len(), |(i, _)| i);
    let raw = t[..head_end].trim_start_matches(['-', '*', '+', '•', ' ', '>']);
    let starts = |head: &str| {
        let head = head.trim_start_matches(|c: char| !c.is_alphanumeric());
        let head = ["ok, ", "also, ", "and "]
            .iter()
            .find_map(|lead| strip_prefix_ignore_ascii_case(head, lead))
            .unwrap_or(head);
        // Only the starts sharing the first letter can match (they are
        // all lower-case ASCII).
        let Some(first) = head.bytes().next().map(|b| b.to_ascii_lowercase()) else {
            return false;
        };
        REQUEST_STARTS.iter().any(|p| {
            p.as_bytes().first() == Some(&first)
                && strip_prefix_ignore_ascii_case(head, p).is_some()
        })
    };
    if raw.is_ascii() {
        // No allocation on the common path.
        starts(raw)
    } else {
        starts(&normalize(raw))
    }
}

/// `s` without `prefix`, compared ignoring ASCII case.
fn strip_prefix_ignore_ascii_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// Why a sentence was taken as a question to the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kept {
    /// It ends in `?` (or opens with `¿`) and nothing marks it as the
    /// agent's own.
    Marked,
    /// A direct request without `?` ("Please confirm the region.", "Let
    /// me know which port to use.").
    Request,
    /// An interrogative opening without its `?` ("what's the expected
    /// timeout in production — I couldn't find it.").
    Unmarked,
}

impl Kept {
    /// A short reason, as `tact questions --explain` prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Marked => "ends in a question mark",
            Self::Request => "a request to the user",
            Self::Unmarked => "a question without its mark",
        }
    }
}

/// Why a sentence holding a `?` (or reading as a question) was not taken
/// as a question to the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dropped {
    /// The agent answers it itself ("Is the cache enabled? Yes, it is.").
    SelfAnswered,
    /// The agent pursues it itself ("What's going on here? Let me check
    /// the logs.").
    SelfPursued,
    /// A conventional closing that needs no answer ("Let me know if you
    /// need anything else!").
    Closing,
    /// A heading ("## Why does it fail?").
    Heading,
    /// Quoted material: a `>` block quote, or a `?` inside a quotation.
    Quotation,
    /// A question reported from someone else ("You asked whether ...").
    Reported,
    /// The `?` is inside inline code.
    InlineCode,
    /// The `?` is inside a link or URL.
    Link,
    /// The `?` does not end the sentence and the sentence does not ask.
    NotAQuestion,
    /// A lead-in ("Would you like me to:") whose list items are the
    /// questions: the items are kept instead.
    LeadIn,
    /// A parenthesis after a question on its line ("Which rig? (Should I
    /// use 'spotter'?)"): an aside to that question, not one of its own.
    Aside,
    /// An example of what a list item asks for ("1. **What you want me to
    /// do** - Build something? Fix a bug?").
    Example,
}

impl Dropped {
    /// A short reason, as `tact questions --explain` prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SelfAnswered => "the agent answers it itself",
            Self::SelfPursued => "the agent pursues it itself",
            Self::Closing => "a conventional closing",
            Self::Heading => "a heading",
            Self::Quotation => "quoted material",
            Self::Reported => "a question reported from someone else",
            Self::InlineCode => "inside inline code",
            Self::Link => "inside a link",
            Self::NotAQuestion => "the question mark does not end a question",
            Self::LeadIn => "a lead-in to the questions listed after it",
            Self::Aside => "an aside to the question before it",
            Self::Example => "an example of what the list item asks for",
        }
    }
}

/// A question the agent asked its user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Question {
    /// The question's sentence.
    pub sentence: Segment,
    /// The sentence with the option list that follows it, if any ("Which
    /// approach?\n1. Rewrite\n2. Patch"), or an alternative that
    /// continues it ("Ship it? Or wait for QA?"): what a classifier reads.
    pub with_options: Segment,
    /// Why it was kept.
    pub kept: Kept,
    /// It offers an alternative to the question before it ("Ship it? Or
    /// wait for QA?"): [`extract_questions`] reads the two as one.
    pub alternative: bool,
}

/// A sentence with a `?`, or that reads as a question, that is not a
/// question to the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DroppedSentence {
    /// The sentence.
    pub sentence: Segment,
    /// Why it was dropped.
    pub why: Dropped,
}

/// What [`find_questions`] found in a message: the questions to the user
/// and the question-like sentences it left out, each with its reason.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Questions {
    /// The questions to the user, in order.
    pub kept: Vec<Question>,
    /// The sentences left out, in order.
    pub dropped: Vec<DroppedSentence>,
}

/// Whether `head` (lower case) opens with one of `openers` at a word
/// boundary.
fn opens_with(head: &str, openers: &[&str]) -> bool {
    // Only the openers sharing the first byte can match: one byte compared
    // for most, not a whole prefix.
    let Some(&first) = head.as_bytes().first() else {
        return false;
    };
    openers.iter().any(|o| {
        o.as_bytes().first() == Some(&first)
            && head.strip_prefix(o).is_some_and(|rest| {
                o.ends_with(|c: char| !c.is_alphanumeric())
                    || !rest.starts_with(|c: char| c.is_alphanumeric() || c == '\'')
            })
    })
}

/// The first 48 characters of a sentence, lower-cased, without list
/// markers, emphasis or leading punctuation, apostrophes made straight.
fn head_of(sentence: &str) -> String {
    let t = sentence.trim_start();
    let t = if starts_list_item(t) {
        t.trim_start_matches(|c: char| c.is_ascii_alphanumeric())
            .trim_start_matches(['-', '*', '+', '•', '.', ')'])
    } else {
        t
    };
    let t = t.trim_start_matches(|c: char| !c.is_alphanumeric() && c != '¿');
    // ASCII first 48 bytes are the first 48 characters: one copy, lowered
    // in place.
    if let Some(ascii) = t.get(..t.len().min(48)).filter(|h| h.is_ascii()) {
        let mut head = String::with_capacity(52);
        head.push_str(ascii);
        head.make_ascii_lowercase();
        return head;
    }
    let mut head = String::with_capacity(52);
    for c in t.chars().take(48) {
        match c {
            '\u{2019}' => head.push('\''),
            // ASCII first: `char::to_lowercase` costs several times more.
            c if c.is_ascii() => head.push(c.to_ascii_lowercase()),
            c => head.extend(c.to_lowercase()),
        }
    }
    head
}

/// Whether a sentence (lower case) offers the answers rather than giving
/// one ("Yes or no.", "Sí o no.").
fn offers_yes_or_no(head: &str) -> bool {
    [
        "yes or no",
        "yes/no",
        "no or yes",
        "si o no",
        "sí o no",
        "ja oder nein",
    ]
    .iter()
    .any(|p| head.starts_with(p))
}

/// Whether the sentence addresses the user in the second person.
fn addresses_user(lower: &str) -> bool {
    lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .any(|w| {
            matches!(
                w,
                "you"
                    | "your"
                    | "you'd"
                    | "you're"
                    | "you've"
                    | "you'll"
                    | "u"
                    | "tu"
                    | "usted"
                    | "quieres"
                    | "prefieres"
                    | "voce"
                    | "você"
                    | "quer"
                    | "prefere"
                    | "du"
                    | "sie"
                    | "chcesz"
                    | "vuoi"
                    | "preferisci"
                    | "puoi"
                    | "potresti"
                    | "tuo"
                    | "tua"
                    | "lei"
            )
        })
}

/// The words without which a sentence asks nothing by [`asks_user`]'s
/// request rules, compiled once (ASCII case ignored; `None` only if the
/// automaton could not be built, and then every sentence is read whole).
static REQUEST_WORDS: std::sync::LazyLock<Option<aho_corasick::AhoCorasick>> =
    std::sync::LazyLock::new(|| {
        // A contiguous NFA: a DFA of these words (a few of them Cyrillic,
        // all case-insensitive) took 3.7 M instructions to build, at the
        // first sentence without a question mark; the NFA builds in a
        // tenth of that and reads a sentence nearly as fast.
        aho_corasick::AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
            .ascii_case_insensitive(true)
            .build(ASKS_INSIDE.iter().copied().chain(["please", "tell me"]))
            .ok()
    });

/// Whether a sentence without `?` asks the user to answer or act: a
/// lead-in that asks and ends in a colon before its options ("Would you
/// like me to:"), a request opening with "please" ("Please run the command
/// again."), or a sentence that asks for a reply inside it ("Try it and
/// let me know what happens.", "Me avise e eu implemento!"). Conventional
/// closings are left to [`find_questions`]' closing rule.
fn asks_user(sentence: &str) -> bool {
    let t = sentence.trim_end();
    // Only the first 400 bytes are searched: a request sits in a sentence
    // of ordinary length, and a long one stays linear.
    let end = t.char_indices().nth(400).map_or(t.len(), |(i, _)| i);
    // Most sentences have none of the words a request needs: they cost one
    // automaton pass and no allocation.
    if !t.trim_end_matches(['*', '_']).ends_with(':')
        && !REQUEST_WORDS
            .as_ref()
            .is_none_or(|words| words.is_match(&t[..end]))
    {
        return false;
    }
    let head = head_of(sentence);
    if t.trim_end_matches(['*', '_']).ends_with(':') && opens_with(&head, ASKING_LEAD_INS) {
        return true;
    }
    if head.starts_with("please ") && !PLEASE_NOT_ASKING.iter().any(|p| head.starts_with(p)) {
        return true;
    }
    // "If so, please specify which ones.", "To finish the audit, please
    // add the schema files:": a request after a leading clause.
    let lower = t[..end].to_lowercase().replace('\u{2019}', "'");
    if let Some((_, rest)) = lower.split_once(", please ") {
        let rest = format!("please {rest}");
        if !PLEASE_NOT_ASKING.iter().any(|p| rest.starts_with(p)) {
            return true;
        }
    }
    // "Looking at the page, can you confirm that you see:": a lead-in
    // asking after a leading clause.
    if t.trim_end_matches(['*', '_']).ends_with(':')
        && [", can you ", ", could you ", ", would you ", ", do you "]
            .iter()
            .any(|p| lower.contains(p))
    {
        return true;
    }
    // "tell me" asks in lower case or opening the sentence, not as a
    // product's name ("the Tell Me search").
    ASKS_INSIDE.iter().any(|p| lower.contains(p))
        || head.starts_with("tell me")
        || t[..end].match_indices("tell me").any(|(at, _)| {
            let before = t[..at].trim_end();
            before.is_empty()
                || before.ends_with([',', ';', ':'])
                || ["and", "please", "then", "just"]
                    .iter()
                    .any(|w| before.ends_with(w))
        })
}

/// Whether the sentence, past a list marker, is wholly inline code or a
/// quotation (`` `Could you send it?` ``, `"Can you help?"`): an example,
/// not a question.
fn is_wrapped_code_or_quote(sentence: &str) -> bool {
    let t = sentence.trim();
    let t = if starts_list_item(t) {
        t.split_once(char::is_whitespace)
            .map_or("", |(_, rest)| rest.trim_start())
    } else {
        t
    };
    [('`', '`'), ('"', '"'), ('\u{201c}', '\u{201d}')]
        .iter()
        .any(|&(open, close)| {
            t.len() > 2
                && t.starts_with(open)
                && t.ends_with(close)
                && t[open.len_utf8()..t.len() - close.len_utf8()]
                    .find(close)
                    .is_none()
        })
}

/// `s` without every leading repetition of `prefix` (what
/// `trim_start_matches(prefix)` does, without building a searcher).
fn strip_all<'a>(mut s: &'a str, prefix: &str) -> &'a str {
    while let Some(rest) = s.strip_prefix(prefix) {
        if prefix.is_empty() {
            break;
        }
        s = rest;
    }
    s
}

/// Why a sentence with a `?` that [`is_question`] rejects is no question:
/// the mark is in inline code, a link, a quotation, or mid-sentence.
fn why_not_a_question(sentence: &str) -> Dropped {
    // The last mark decides; one pass up to it (linear in the sentence).
    let Some(at) = sentence.rfind(['?', '\u{ff1f}']) else {
        return Dropped::NotAQuestion;
    };
    let head = &sentence[..at];
    let in_code = head.bytes().filter(|&b| b == b'`').count() % 2 == 1;
    let word = head.rsplit(char::is_whitespace).next().unwrap_or("");
    if in_code {
        Dropped::InlineCode
    } else if word.contains("://") || word.starts_with("www.") || word.contains("](") {
        Dropped::Link
    } else if head.contains(['"', '\u{201c}', '\u{ab}']) {
        Dropped::Quotation
    } else {
        Dropped::NotAQuestion
    }
}

/// Finds the questions an agent's message asks its user, and says of
/// every other question-like sentence why it is not one.
///
/// A sentence is a candidate when [`is_question`] accepts it or when it
/// asks the user without a mark: a request ("Please run it again.", "If
/// so, please specify which ones."), a reply asked for inside it ("Try it
/// and let me know what happens."), or a lead-in before its options
/// ("Would you like me to:"). It is not a question to the user when it is
/// a heading that does not address the user, quoted (`>`, or wholly in
/// backticks or quotes), a conventional closing or an open-ended offer
/// ("Let me know if you need anything else!", "Would you like help with
/// anything else?"), a reported question ("You asked whether ..."), a
/// lead-in whose listed items are the questions, or the agent's own: the
/// next sentence of its paragraph answers it ("Yes, it is.") or the agent
/// goes on to pursue it ("Let me check the logs.", also after a paragraph
/// break when the question does not address the user). As the labelling
/// guide reads offers at a message's end, a generic offer of more help
/// ("Would you like me to make any other changes?") and a conditional
/// invitation without `?` ("Let me know if you'd like the icon larger.")
/// ask nothing unless the message says the agent waits for the answer; an
/// unfinished lead-in ("Would you like me to:") asks through each option
/// listed after it. A question ends at its own sentence: a parenthesis
/// after it is not part of it, but a short answer format is ("Continue?
/// (y/n)"); an emphasised label before it is not ("**Quick question**:
/// Is it internal?"). Sentences in fenced or unfenced code (code lines,
/// diffs, file trees, tables, `<source>` blocks) are never questions; a
/// `?` inside inline code, a link, a quotation or an emphasised label
/// mid-sentence (`Click **Forgot password?**`) makes none. Linear in the
/// message's length.
///
/// ```
/// use tact_core::text::{Dropped, find_questions};
///
/// let m = "Is the cache enabled? Yes, it is.\n\nShould I raise the pool size?";
/// let q = find_questions(m);
/// assert_eq!(q.kept[0].sentence.text(m), "Should I raise the pool size?");
/// assert_eq!(q.dropped[0].why, Dropped::SelfAnswered);
/// ```
pub fn find_questions(message: &str) -> Questions {
    let sentences = split_sentences(message);
    let mut out = Questions::default();
    // Whether the message says it waits for the answer: read once, when a
    // conditional invitation asks.
    let mut waits: Option<bool> = None;
    // Where the current line starts, found by scanning each gap between
    // sentences once.
    let (mut scanned, mut line_start) = (0, 0);
    let mut i = 0;
    while i < sentences.len() {
        let s = sentences[i];
        i += 1;
        if s.is_code {
            continue;
        }
        let text = s.text(message);
        if let Some(nl) = message
            .get(scanned..s.start)
            .and_then(|gap| gap.rfind('\n'))
        {
            line_start = scanned + nl + 1;
        }
        scanned = scanned.max(s.start);
        // "Which one? (Please specify)", "Which rig? (This is a single-app
        // project: should I use 'spotter'?)": a parenthesis after a question
        // on its line is an aside to that question, not a question of its
        // own, even with a mark of its own.
        if text.starts_with('(')
            && out.kept.last().is_some_and(|q| {
                message
                    .get(q.sentence.end..s.start)
                    .is_some_and(|gap| gap.trim().is_empty() && !gap.contains('\n'))
            })
        {
            if text.contains(['?', '\u{ff1f}']) {
                out.dropped.push(DroppedSentence {
                    sentence: s,
                    why: Dropped::Aside,
                });
            }
            continue;
        }
        if !is_question(text) && !asks_user(text) {
            if text.contains(['?', '\u{ff1f}']) {
                out.dropped.push(DroppedSentence {
                    sentence: s,
                    why: why_not_a_question(text),
                });
            }
            continue;
        }
        let head = head_of(text);
        let trimmed = text.trim_start();
        let next = sentences.get(i).filter(|n| !n.is_code);
        // The next sentence in the same paragraph (no blank line between).
        let next_in_paragraph = next.filter(|n| {
            message
                .get(s.end..n.start)
                .is_some_and(|gap| gap.matches('\n').count() < 2)
        });
        let why = if super::sentences::starts_heading(trimmed)
            && !addresses_user(&head)
            && !asks_user(text)
        {
            Some(Dropped::Heading)
        } else if is_wrapped_code_or_quote(trimmed) || trimmed.starts_with('>') {
            Some(Dropped::Quotation)
        } else if opens_with(&head, REPORTED_OPENERS) {
            Some(Dropped::Reported)
        } else if label_with_examples(line_at(message, line_start)) {
            Some(Dropped::Example)
        } else if head.starts_with("what if ") && !addresses_user(&head) {
            // "What if `items()` returns `None`?", "What if we make the
            // two paths identical?": the agent weighing a case itself.
            Some(Dropped::SelfPursued)
        } else if (is_conditional_invitation(text, &head)
            && !*waits.get_or_insert_with(|| waits_for_answer(message)))
            || opens_with(
                strip_all(
                    strip_all(strip_all(strip_all(&head, "and "), "also, "), "please "),
                    "just ",
                ),
                CLOSINGS,
            )
            || is_generic_offer(&head, text)
        {
            Some(Dropped::Closing)
        } else if let Some(n) = next_in_paragraph.or(next.filter(|_| !addresses_user(&head))) {
            let next_head = head_of(n.text(message));
            let next_text = n.text(message);
            let same_paragraph = next_in_paragraph.is_some();
            if is_question(next_text) {
                None
            } else if !same_paragraph {
                // Across a paragraph break only the agent's next step
                // ("Shall we run the linters?\n\nRunning them now.") makes
                // the question its own.
                (opens_with(&next_head, PURSUIT_OPENERS) && !next_head.starts_with("let me know"))
                    .then_some(Dropped::SelfPursued)
            } else if opens_with(&next_head, ANSWER_OPENERS)
                && !addresses_user(&head)
                && !offers_yes_or_no(&next_head)
            {
                Some(Dropped::SelfAnswered)
            } else if opens_with(&next_head, PURSUIT_OPENERS)
                && !next_head.starts_with("let me know")
                && !addresses_user(&next_head)
            {
                Some(Dropped::SelfPursued)
            } else {
                None
            }
        } else {
            None
        };
        if let Some(why) = why {
            out.dropped.push(DroppedSentence { sentence: s, why });
            continue;
        }
        let kept = if text
            .trim_end_matches(|c: char| is_closer(c) || matches!(c, '.' | '!' | ':'))
            .ends_with(['?', '\u{ff1f}'])
            || trimmed.starts_with('¿')
        {
            Kept::Marked
        } else if is_request(trimmed) || asks_user(trimmed) {
            Kept::Request
        } else {
            Kept::Unmarked
        };
        // A lead-in ending in a colon whose list items ask ("Would you
        // like me to:\n1. Refine it?\n2. Start over?"): the items are the
        // questions.
        let lead_in = text.trim_end().trim_end_matches(['*', '_']).ends_with(':');
        if lead_in
            && sentences.get(i).is_some_and(|n| {
                !n.is_code
                    && is_option_line(n.text(message))
                    && is_question(n.text(message))
                    && !label_with_examples(line_at(message, n.start))
            })
        {
            out.dropped.push(DroppedSentence {
                sentence: s,
                why: Dropped::LeadIn,
            });
            continue;
        }
        // An unfinished lead-in ("Would you like me to:", "Do you have:")
        // asks through its options: each listed item is a question.
        if lead_in && asks_through_options(text, &head) {
            let mut items = Vec::new();
            while let Some(n) = sentences.get(i).filter(|n| {
                !n.is_code && is_option_line(n.text(message)) && !is_question(n.text(message))
            }) {
                items.push(*n);
                i += 1;
            }
            if !items.is_empty() {
                out.dropped.push(DroppedSentence {
                    sentence: s,
                    why: Dropped::LeadIn,
                });
                out.kept.extend(items.into_iter().map(|n| Question {
                    sentence: n,
                    with_options: n,
                    kept: Kept::Request,
                    alternative: false,
                }));
                continue;
            }
        }
        // A question ends at its own sentence ("Proceed? (This is the next
        // logical step.)" gives "Proceed?"), but a short answer format on
        // its line belongs to it ("Continue? (y/n)"); what a classifier
        // reads stays the question and its options.
        let parenthesis = sentences.get(i).filter(|p| {
            !p.is_code
                && is_answer_format(p.text(message))
                && message
                    .get(s.end..p.start)
                    .is_some_and(|gap| !gap.contains('\n'))
        });
        let mut with_options = s;
        if !starts_list_item(text) {
            while i < sentences.len()
                && !sentences[i].is_code
                && starts_list_item(sentences[i].text(message))
                && !is_question(sentences[i].text(message))
            {
                with_options.end = sentences[i].end;
                i += 1;
            }
        }
        // "Ship it? Or wait for QA?": an alternative continues the question.
        let alternative = out.kept.last().is_some_and(|prev| {
            let h = text.trim_start().as_bytes();
            let starts = |w: &[u8]| h.len() > w.len() && h[..w.len()].eq_ignore_ascii_case(w);
            (starts(b"or ") || starts(b"o ") || starts(b"oder "))
                && message
                    .get(prev.with_options.end..s.start)
                    .is_some_and(|gap| gap.trim().is_empty())
        });
        // A heading's marks are not part of its question.
        let mut sentence = s;
        if let Some(p) = parenthesis {
            sentence.end = p.end;
        }
        if trimmed.starts_with('#') {
            let body = text.trim_start_matches(|c: char| {
                c == '#' || c.is_whitespace() || !(c.is_alphanumeric() || "*_`¿\"'(".contains(c))
            });
            let body = body.strip_prefix("EMOJI]").map_or(body, str::trim_start);
            sentence.start = s.end - body.len();
        }
        // "**Quick question**: Is it internal?", "1. **Option A** - Start
        // with Phase 1?": an emphasised label before the question is not
        // part of it.
        if kept == Kept::Marked {
            if let Some(question) = after_label(sentence.text(message)) {
                sentence.start = sentence.end - question.len();
            }
        }
        out.kept.push(Question {
            sentence,
            with_options,
            kept,
            alternative,
        });
    }
    out
}

/// The text from `at` on, at most its first 400 bytes (cut at a
/// character boundary): enough to read a line's start, in constant time.
fn line_at(message: &str, at: usize) -> &str {
    let mut end = message.len().min(at.saturating_add(400));
    while end > at && !message.is_char_boundary(end) {
        end -= 1;
    }
    message.get(at..end).unwrap_or("")
}

/// Extracts the questions of a whole agent message, each with the option
/// list that follows it (see [`find_questions`], which also says why each
/// was kept and what was left out).
///
/// Questions are the sentences addressed to the user. When a question is
/// followed directly by a list (the options it offers), the list is kept
/// with the question so that a classifier sees the options. Code blocks
/// are never questions.
pub fn extract_questions(message: &str) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::new();
    for q in find_questions(message).kept {
        match out.last_mut() {
            Some(prev) if q.alternative => prev.end = q.with_options.end,
            _ => out.push(q.with_options),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offers_at_the_end_follow_the_labelling_guide() {
        // A concrete next step counts; a generic offer does not.
        assert_eq!(
            kept("Done. Would you like me to add tests for the parser?"),
            ["Would you like me to add tests for the parser?"]
        );
        for m in [
            "Done. Would you like me to make any other changes?",
            "Done. Is there anything else you'd like me to explain?",
            "Done. Let me know if you'd like the icon larger.",
            "Done. If you want to use the local path, let me know and I can try it.",
        ] {
            assert!(kept(m).is_empty(), "{m}");
        }
        // A request to report a result asks; so does a conditional
        // invitation the agent says it waits for.
        assert_eq!(
            kept("Fixed. Let me know if the error persists."),
            ["Let me know if the error persists."]
        );
        assert_eq!(
            kept(
                "Let me know if you'd like the cache on. I'll wait for your answer before continuing."
            ),
            ["Let me know if you'd like the cache on."]
        );
    }

    #[test]
    fn musings_and_closings_ask_nothing() {
        for m in [
            "Edge case. What if `items()` returns `None`? Then it breaks.",
            "What if we make the fused path identical to the plain one?",
            "All done! What's next on the agenda?",
            "Task complete! Just let me know what you need!",
        ] {
            assert!(kept(m).is_empty(), "{m}");
        }
        assert_eq!(
            kept("What if you run it with --debug?"),
            ["What if you run it with --debug?"]
        );
    }

    #[test]
    fn a_question_ends_at_its_own_sentence() {
        assert_eq!(
            kept("Proceed? (This is the next logical step.)"),
            ["Proceed?"]
        );
        assert_eq!(kept("Continue? (y/n)"), ["Continue? (y/n)"]);
        assert_eq!(kept("Overwrite it? [Y/n]"), ["Overwrite it? [Y/n]"]);
        assert!(is_answer_format("(yes / no)"));
        assert!(!is_answer_format("(e.g. add detail)"));
    }

    #[test]
    fn unfenced_code_diffs_and_source_blocks_ask_nothing() {
        for m in [
            "I changed it:\nconst p = path.startsWith(\"/\") ?\n  a : b;",
            "<source lang=\"ts\">\nwhy = x ? y : z;\n</source>",
            "diff --git a/x b/x\n@@ -1 +1 @@\n-a?\n+b?",
        ] {
            assert!(kept(m).is_empty(), "{m}");
        }
    }

    #[test]
    fn a_quoted_question_mark_is_not_the_sentences() {
        assert!(!is_question(
            "The installer asks \"Overwrite existing config?\""
        ));
        assert!(!is_question("It prints \u{ab}Continuer ?\u{bb}"));
        assert!(is_question("Should I answer yes to \"Overwrite?\""));
        assert!(is_question("Did you see the \"Continue?\" prompt?"));
        assert!(is_question("Should I answer \"yes\" or \"no\"?"));
        assert!(is_question("Continue?\""));
        let m = "The installer asks \"Overwrite?\" on every run. Should I answer it?";
        assert_eq!(extract_questions(m).len(), 1);
    }

    #[test]
    fn questions_include_requests_and_trailing_option_lists() {
        let m = "I looked at the repo. Which approach do you prefer?\n1. Rewrite\n2. Patch\n\nLet me know if the port is 8080.";
        let qs: Vec<&str> = extract_questions(m).iter().map(|q| q.text(m)).collect();
        assert_eq!(
            qs,
            [
                "Which approach do you prefer?\n1. Rewrite\n2. Patch",
                "Let me know if the port is 8080."
            ]
        );
        let alt = "Done. Ship it? Or wait for QA?";
        let qs: Vec<&str> = extract_questions(alt).iter().map(|q| q.text(alt)).collect();
        assert_eq!(qs, ["Ship it? Or wait for QA?"]);
        let es = "Revisé el código. ¿Quieres que lo borre? Avísame cuando puedas.";
        assert_eq!(extract_questions(es).len(), 2);
        let de = "Bitte bestätige den Pfad. Danke.";
        assert_eq!(extract_questions(de).len(), 1);
        assert!(extract_questions("No questions here. None at all.").is_empty());
        assert!(extract_questions("```\nwhat?\n```").is_empty());
    }

    fn kept(m: &str) -> Vec<&str> {
        find_questions(m)
            .kept
            .iter()
            .map(|q| q.sentence.text(m))
            .collect()
    }

    fn dropped(m: &str) -> Vec<(&str, Dropped)> {
        find_questions(m)
            .dropped
            .iter()
            .map(|d| (d.sentence.text(m), d.why))
            .collect()
    }

    #[test]
    fn the_agents_own_questions_are_not_the_users() {
        let m = "I checked the config. Let me see: is the cache enabled? Yes, it is.";
        assert!(kept(m).is_empty());
        assert_eq!(dropped(m)[0].1, Dropped::SelfAnswered);
        let m = "What's going on here? Let me check the logs.";
        assert!(kept(m).is_empty());
        assert_eq!(dropped(m)[0].1, Dropped::SelfPursued);
        // A question to the user followed by "let me know" or by what the
        // agent will do with the answer stays.
        assert_eq!(
            kept("Which port should I use? Let me know."),
            ["Which port should I use?", "Let me know."]
        );
        assert_eq!(
            kept("Do you want the migration too? I'll add it if you do."),
            ["Do you want the migration too?"]
        );
        // Offering the answers is no answer.
        assert_eq!(kept("Keep the cache? Yes or no."), ["Keep the cache?"]);
    }

    #[test]
    fn short_questions_after_a_list_items_label_are_its_examples() {
        // They illustrate what the item asks for, and the lead-in is the
        // request.
        let m = "Please provide me with:\n1. **What you want me to do** - Build something? Fix a bug? Create files?\n2. **Any details** - paths, URLs.";
        assert_eq!(kept(m), ["Please provide me with:"]);
        assert_eq!(dropped(m).len(), 3);
        assert!(dropped(m).iter().all(|d| d.1 == Dropped::Example));
        // One question after a label is the question.
        let m = "Would you like me to:\n1. **Option A** - Start with Phase 1?\n2. **Option B** - Skip to Phase 2?";
        assert_eq!(kept(m), ["Start with Phase 1?", "Skip to Phase 2?"]);
        // Longer questions after a label, or short ones in prose, ask.
        let m = "- **Scope** - Should the importer read the legacy format? Or only the new one?";
        assert_eq!(kept(m).len(), 2);
        assert_eq!(kept("Build something? Fix a bug?").len(), 2);
    }

    #[test]
    fn italian_self_questions_closings_and_requests() {
        let m = "Cosa manca ancora? Vediamo: il modulo di pagamento non ha test.";
        assert!(kept(m).is_empty());
        assert_eq!(dropped(m)[0].1, Dropped::SelfPursued);
        let m = "Il test è rosso? Sì, per un timeout.";
        assert_eq!(dropped(m)[0].1, Dropped::SelfAnswered);
        let m = "Ho finito.\n\nFammi sapere se hai bisogno di altro!";
        assert!(kept(m).is_empty());
        assert_eq!(dropped(m)[0].1, Dropped::Closing);
        assert_eq!(
            kept("Vuoi che aggiunga i test? Fammi sapere quale porta usare."),
            [
                "Vuoi che aggiunga i test?",
                "Fammi sapere quale porta usare."
            ]
        );
    }

    #[test]
    fn closings_headings_quotes_and_reports_are_dropped() {
        let m = "Done.\n\n## Why did it fail?\nThe pool was too small.\n\n> Should we retry?\n\nYou asked whether the tests pass? They do.\n\nLet me know if you need anything else!";
        assert!(kept(m).is_empty(), "{:?}", kept(m));
        let whys: Vec<Dropped> = dropped(m).iter().map(|d| d.1).collect();
        assert_eq!(
            whys,
            [
                Dropped::Heading,
                Dropped::Quotation,
                Dropped::Reported,
                Dropped::Closing
            ]
        );
        assert_eq!(
            kept("Is there anything else you'd like me to change?"),
            Vec::<&str>::new()
        );
        assert_eq!(
            kept("Let me know if the port is 8080."),
            ["Let me know if the port is 8080."]
        );
    }

    #[test]
    fn a_mark_in_code_links_or_quotes_asks_nothing_and_says_why() {
        let m = "Run `ls foo?` first. See https://x.io/a?b=1 for it. It prints \"Continue? [y/N]\" twice.";
        assert!(kept(m).is_empty());
        let whys: Vec<Dropped> = dropped(m).iter().map(|d| d.1).collect();
        assert_eq!(
            whys,
            [Dropped::InlineCode, Dropped::Link, Dropped::Quotation]
        );
    }

    #[test]
    fn list_questions_are_kept_one_by_one_with_reasons() {
        let m = "Before I start:\n1. Which database?\n2. Which port?\n\nPlease confirm the region.";
        let q = find_questions(m);
        let texts: Vec<&str> = q.kept.iter().map(|k| k.sentence.text(m)).collect();
        assert_eq!(
            texts,
            [
                "1. Which database?",
                "2. Which port?",
                "Please confirm the region."
            ]
        );
        assert_eq!(q.kept[0].kept, Kept::Marked);
        assert_eq!(q.kept[2].kept, Kept::Request);
    }

    #[test]
    fn asides_reasoning_and_requests_in_russian() {
        let m = "Which rig do these beads belong to? (This is a single-app project: should I use 'spotter'?)";
        let q = find_questions(m);
        assert_eq!(q.kept.len(), 1);
        assert_eq!(q.dropped[0].why, Dropped::Aside);
        // The model's reasoning is not addressed to the user.
        let m = "<thinking-content-7bbeb8e1>\n(What is the project about?)\n</thinking-content-7bbeb8e1>\nОпишите, какие изменения нужно добавить.";
        let q = find_questions(m);
        let texts: Vec<&str> = q.kept.iter().map(|k| k.sentence.text(m)).collect();
        assert_eq!(texts, ["Опишите, какие изменения нужно добавить."]);
        for m in [
            "Пожалуйста, добавьте в чат файлы с логикой хоткеев.",
            "Чтобы найти баг, добавьте в чат следующие файлы:",
        ] {
            assert_eq!(find_questions(m).kept.len(), 1, "{m}");
        }
        assert!(
            find_questions("Я добавил тесты, всё работает.")
                .kept
                .is_empty()
        );
        // A conditional request counts where the agent cannot go on.
        let m = "I cannot provide the edit for a missing section. If it exists, please let me know how you'd like to proceed.";
        assert_eq!(find_questions(m).kept.len(), 1);
        let m = "I added the section. If it exists elsewhere, please let me know how you'd like to proceed.";
        assert!(find_questions(m).kept.is_empty());
    }

    #[test]
    fn requests_in_french_and_a_greeting_that_asks_for_the_task() {
        for m in [
            "Avant de conclure, j\u{2019}ai besoin de votre confirmation :",
            "Veuillez confirmer la région.",
            "Dites-moi quelle option vous préférez.",
        ] {
            assert_eq!(find_questions(m).kept.len(), 1, "{m}");
        }
        for m in [
            "J'ai corrigé le test, tout passe.",
            "N'hésitez pas si vous avez des questions !",
            "Dites-moi si vous avez besoin d'autre chose.",
        ] {
            assert!(find_questions(m).kept.is_empty(), "{m}");
        }
        // No task given yet: the agent asks for one.
        let m = "How can I help you today?\n\nJust let me know what you're working on!";
        assert_eq!(find_questions(m).kept.len(), 2);
        let m = "Task complete! Just let me know what you need!";
        assert!(find_questions(m).kept.is_empty());
    }

    #[test]
    fn a_question_without_its_mark_still_asks() {
        for q in [
            "what's the expected session timeout in production — I couldn't find it in the config.",
            "What is the target branch, main or release?",
            "Where\u{2019}s the staging config - I only see prod.",
            "which one is the source of truth: the wiki or the README.",
        ] {
            assert!(is_question(q), "{q}");
        }
        for s in [
            "What's the point of retrying is unclear to me.",
            "What is the plan was agreed yesterday.",
            "What we found is a race in the pool.",
            "What's more, the pool is fine.",
            "The timeout is 30 s.",
            "How long it takes depends on the disk.",
        ] {
            assert!(!is_question(s), "{s}");
        }
        let m = "I read the config. what's the expected session timeout in production \u{2014} I couldn't find it.";
        assert_eq!(extract_questions(m).len(), 1);
    }

    #[test]
    fn offsets_are_char_boundaries_for_odd_input() {
        for t in [
            "",
            "?",
            "...",
            "é?é.",
            "`",
            "```",
            "a\n\n\n?",
            "1.\n2.",
            "¿",
            "🙂? 🙂.",
            "\"",
            "\u{201c}?",
            "\u{ab}a? \u{bb}\u{201d}\"?\"\n\"",
            "«»“”\"?",
        ] {
            for s in split_sentences(t) {
                assert!(t.is_char_boundary(s.start) && t.is_char_boundary(s.end));
                let _ = s.text(t);
            }
            let _ = extract_questions(t);
        }
    }
}
