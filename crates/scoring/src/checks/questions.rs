//! The `one_question` rule: what a message asks (its questions, less the
//! quoted, rhetorical and self-answered ones, plus asks without a `?`) and
//! the second questions joined inside one.

use tact_core::text::is_question;
use tact_core::{extract_questions, split_sentences};

use super::TextChecker;
use crate::preference::Preference;
use crate::violation::{Span, Violation};

/// Whether `lower` (after leading white space) starts with one of
/// `prefixes`.
fn opens_with_any(lower: &str, prefixes: &[&str]) -> bool {
    let t = lower.trim_start();
    prefixes.iter().any(|p| t.starts_with(p))
}

impl TextChecker {
    pub(super) fn one_question(&self, message: &str) -> Option<Violation> {
        let masked = self.mask(message, true);
        // "Your manager asks, 'Can we cut the budget?'": a quoted question
        // is reported, not asked.
        let unquoted = blank_single_quoted_questions(message);
        let questions = extract_questions(&unquoted);
        let sentences = split_sentences(message);
        // What the message asks: its questions, less the rhetorical and the
        // self-answered ones, and the asks the shared extractor misses.
        let mut asks: Vec<(usize, usize)> = Vec::new();
        for q in &questions {
            let own = q.text(&unquoted).trim_start().to_lowercase();
            // Sentences are in order: a binary search keeps a huge message
            // linear.
            let from = sentences.partition_point(|s| s.start < q.end);
            let next = sentences[from..]
                .iter()
                .find(|s| !s.text(message).trim().is_empty())
                .map(|s| s.text(message));
            if !is_rhetorical(&own) && !answered_by(&own, next) {
                asks.push((q.start, q.end));
            }
        }
        for s in &sentences {
            // The first question ending after the sentence starts is the
            // only one that can overlap it (questions are in order).
            let at = questions.partition_point(|q| q.end <= s.start);
            let asked = questions.get(at).is_some_and(|q| q.start < s.end);
            if s.is_code || asked {
                continue;
            }
            let lower = s.text(message).to_lowercase();
            // "Also let me know ...", "Please also tell me ...": a request
            // behind a connective.
            let rest = ["also ", "and ", "plus ", "please also "]
                .iter()
                .find_map(|p| lower.trim_start().strip_prefix(p))
                .map(|r| r.trim_start_matches([',', ' ']));
            let head = rest.unwrap_or(&lower);
            // "What's the target audience." asks without its `?`; "Send me
            // the export." and "I also need to know ..." ask too.
            if rest.is_some_and(is_question)
                || asks_without_mark(head)
                || asks_to_send(head)
                || states_a_need(head)
            {
                asks.push((s.start, s.end));
            }
        }
        let mut starts: Vec<usize> = Vec::new();
        for &(start, end) in &asks {
            starts.push(start);
            let inside = masked.get(start..end).unwrap_or_default();
            // "Let me know the closing date and the price.": a request
            // without `?` that asks for two things asks twice.
            if !inside.trim_end().ends_with('?') {
                let lower = inside.to_lowercase();
                if let Some(at) = [" and the ", " and your "]
                    .iter()
                    .filter_map(|p| lower.find(p))
                    .min()
                {
                    starts.push(start + at + 1);
                }
            }
            starts.extend(self.extra_question.find_iter(inside).map(|m| {
                let lead = m.len()
                    - m.as_str()
                        .trim_start_matches(|c: char| c.is_whitespace() || c == '?')
                        .len();
                start + m.start() + lead
            }));
        }
        starts.sort_unstable();
        starts.dedup();
        if starts.len() < 2 {
            return None;
        }
        let second = starts[1];
        let end = asks
            .iter()
            .find(|(s, e)| *s <= second && second < *e)
            .map_or(message.len(), |(_, e)| *e);
        Some(Violation::rule(
            Preference::OneQuestion,
            format!("{} questions", starts.len()),
            Some(Span::of(message, second, end)),
        ))
    }
}

/// Whether a sentence (lower case) is an imperative asking the user to hand
/// something over ("send me the export.", "please paste the log.").
fn asks_to_send(lower: &str) -> bool {
    let t = lower.trim_start();
    let t = t.strip_prefix("please ").unwrap_or(t);
    opens_with_any(
        t,
        &[
            "send me ",
            "send over ",
            "tell me ",
            "share ",
            "paste ",
            "upload ",
            "forward ",
            "attach ",
            "provide ",
            "give me ",
            "email me ",
            "drop me ",
        ],
    )
}

/// Whether the question `own` (lower case) is answered by the agent in the
/// `next` sentence: "...? Because ...", or a why-question followed by a
/// statement ("Why did the import fail? The file uses semicolons.").
fn answered_by(own: &str, next: Option<&str>) -> bool {
    let Some(next) = next else {
        return false;
    };
    let answer = next.trim_start().to_lowercase();
    let because = [
        "because ",
        "porque ",
        "perche ",
        "perché ",
        "weil ",
        "parce que ",
    ]
    .iter()
    .any(|w| answer.starts_with(w));
    let why = own.starts_with("why ")
        || own.starts_with("what's causing ")
        || own.starts_with("what is causing ")
        || own.starts_with("how come ");
    because || (why && !is_question(next) && !asks_to_send(&answer))
}

/// Whether a sentence (lower case) states that the agent needs something
/// from the user ("i also need to know which gpu ...").
fn states_a_need(lower: &str) -> bool {
    opens_with_any(
        lower,
        &[
            "i need to know ",
            "i also need to know ",
            "i'd like to know ",
            "i'd also like to know ",
            "i would like to know ",
            "i also need your ",
            "i need your ",
        ],
    )
}

/// Whether a question (lower case) is rhetorical: "Who doesn't love a long weekend,
/// right?", "Who wouldn't want faster builds?".
fn is_rhetorical(lower: &str) -> bool {
    opens_with_any(
        lower,
        &[
            "who doesn't ",
            "who does not ",
            "who wouldn't ",
            "who would not ",
            "who isn't ",
            "who hasn't ",
            "who didn't ",
            "who knew ",
            "who would have thought ",
            "who'd have thought ",
            "guess what",
            "ever wondered ",
            "have you ever wondered ",
            "ever notice ",
        ],
    )
}

/// Whether a sentence (lower case) without a `?` is still a direct
/// question: an interrogative word followed by an auxiliary ("what's the
/// target audience.", "and which version are you on"), not a clause such
/// as "what we need is ..." or "what's more, ...".
fn asks_without_mark(lower: &str) -> bool {
    let t = lower.trim();
    if t.ends_with('?') || t.starts_with("what's more") || t.starts_with("what is more") {
        return false;
    }
    let mut words = t.split(|c: char| c.is_whitespace() || c == '\'' || c == '’');
    let first = words.next().unwrap_or("");
    let second = words.next().unwrap_or("");
    let wh = matches!(
        first,
        "what" | "which" | "who" | "where" | "when" | "why" | "how"
    );
    // "which version are you on": wh + noun + auxiliary + subject.
    let aux = |w: &str| {
        matches!(
            w,
            "s" | "is"
                | "are"
                | "was"
                | "were"
                | "do"
                | "does"
                | "did"
                | "can"
                | "could"
                | "should"
                | "shall"
                | "will"
                | "would"
                | "re"
        )
    };
    if !wh {
        return false;
    }
    if aux(second) {
        return true;
    }
    // "which version are you on", "what word count are you aiming for".
    let next: Vec<&str> = words.take(3).collect();
    next.windows(2).any(|w| {
        aux(w[0])
            && matches!(
                w[1],
                "you" | "we" | "i" | "they" | "it" | "the" | "this" | "that"
            )
    })
}

/// `text` with each single-quoted question (`'Can we cut it?'`, opened
/// after a space or `(:,` and closed after its `?`) replaced by spaces of
/// the same byte length, so offsets hold.
fn blank_single_quoted_questions(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut prev: Option<char> = None;
    while let Some((i, c)) = rest.char_indices().next() {
        let opens = c == '\''
            && prev.is_none_or(|p| p.is_whitespace() || matches!(p, '(' | ':' | ','))
            && rest[i + 1..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric);
        if opens {
            let line_end = rest.find('\n').unwrap_or(rest.len());
            let close = rest[1..line_end]
                .match_indices("?'")
                .map(|(j, _)| j + 1)
                .find(|&j| {
                    rest[j + 2..]
                        .chars()
                        .next()
                        .is_none_or(|n| n.is_whitespace() || ",.;:)!".contains(n))
                });
            if let Some(j) = close {
                let span = &rest[..j + 2];
                out.extend(
                    span.chars()
                        .flat_map(|ch| std::iter::repeat_n(' ', ch.len_utf8())),
                );
                rest = &rest[j + 2..];
                prev = Some('\'');
                continue;
            }
        }
        out.push(c);
        prev = Some(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::tests::violated;

    #[test]
    fn quoted_and_self_answered_questions_are_not_asked() {
        assert!(!violated(
            Preference::OneQuestion,
            "The client wrote, 'Can we ship by Friday?' Should I promise Friday or Monday?"
        ));
        assert!(!violated(
            Preference::OneQuestion,
            "Why does the build take so long? Because every job reinstalls the toolchain. Should I cache it?"
        ));
        assert!(!violated(
            Preference::OneQuestion,
            "Who wouldn't want shorter standups? Anyway, should I move ours to 9:45?"
        ));
        assert!(!violated(
            Preference::OneQuestion,
            "Why is the dashboard slow? It's the unindexed join on `events`. Should I add the index?"
        ));
        for m in [
            "Why did the sync stop? Your token expired on Monday. Should I request a new one?",
            "Ever wondered why nobody opens the wiki? I think search is broken. Should I fix it?",
        ] {
            assert!(!violated(Preference::OneQuestion, m), "{m}");
        }
    }

    #[test]
    fn questions_without_marks_and_full_alternatives_count() {
        for m in [
            "Which region are you deploying to. And what budget do you have",
            "Should I pause the campaign? Or would you rather lower the bid?",
            "Can you check the meter reading and tell me which tariff you are on?",
            "Paste the failing test output. Which Node version do you run?",
            "Let me know the venue and the headcount for the offsite.",
            "Tell me the invoice date and whether VAT applies.",
            "Can you send the crash log? I also need to know which phone model you use.",
            "Which bay gets the trailer? Please also tell me when the driver arrives.",
        ] {
            assert!(violated(Preference::OneQuestion, m), "{m}");
        }
        for m in [
            "What we need is one more reviewer. Can you add Dana?",
            "Should I pause the campaign? Or lower the bid?",
        ] {
            assert!(!violated(Preference::OneQuestion, m), "{m}");
        }
    }

    #[test]
    fn quoted_prompts_and_code_are_not_questions() {
        for m in [
            "The CLI prints \"Continue? [y/N]\" and waits. Should I pass --yes?",
            "The installer asks \"Overwrite existing config?\" on every run. Answer it?",
            "Should the setup script answer the \u{201c}Proceed?\u{201d} prompt with yes?",
            "The release tool asks \"Tag this commit?\" Do you want a tag?",
            "The helper is `valid?` and the other `empty?`. Should I rename both?",
        ] {
            assert!(!violated(Preference::OneQuestion, m), "{m}");
        }
        assert!(violated(
            Preference::OneQuestion,
            "It says \"Discard?\" today. Should it say \"Save?\" instead, and should the default change?"
        ));
    }

    #[test]
    fn elliptical_second_questions_count() {
        for m in [
            "Which columns should I include, and in what format?",
            "Should I pause the ingestion job, and for how long?",
            "Should I add a changelog entry, and if so under which version?",
        ] {
            assert!(violated(Preference::OneQuestion, m), "{m}");
            assert!(!violated(Preference::ConciseQuestion, m), "{m}");
        }
        for m in [
            "In what format should I export the selected columns?",
            "Do you want the report grouped by region and by product line?",
        ] {
            assert!(!violated(Preference::OneQuestion, m), "{m}");
        }
    }
}
