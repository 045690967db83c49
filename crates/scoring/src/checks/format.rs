//! Format rules, judged by counting or parsing: `concise_question` and
//! `detail_question` (sentences and words), `length` (sentences),
//! `commas` and `json`.

use tact_core::{extract_questions, reader_word_count, split_sentences};

use super::{TextChecker, starts_list};
use crate::preference::Preference;
use crate::violation::{Span, Violation};

impl TextChecker {
    pub(super) fn concise_question(&self, message: &str) -> Option<Violation> {
        let segments = counted_sentences(message);
        let words = reader_word_count(message);
        if segments.len() > 1 {
            let second = segments[1];
            return Some(Violation::rule(
                Preference::ConciseQuestion,
                format!("{} sentences, {words} words", segments.len()),
                Some(Span::of(message, second.start, second.end)),
            ));
        }
        (words > 20).then(|| {
            Violation::rule(
                Preference::ConciseQuestion,
                format!("one sentence of {words} words"),
                Some(Span::whole(message)),
            )
        })
    }

    pub(super) fn detail_question(&self, message: &str) -> Option<Violation> {
        let words = reader_word_count(message);
        if words < 25 {
            return Some(Violation::rule(
                Preference::DetailQuestion,
                format!("{words} words"),
                Some(Span::whole(message)),
            ));
        }
        let questions = extract_questions(message);
        let besides = split_sentences(message).into_iter().any(|s| {
            !questions
                .iter()
                .any(|q| q.start <= s.start && s.end <= q.end)
        });
        (!besides).then(|| {
            Violation::rule(
                Preference::DetailQuestion,
                format!("{words} words, but no sentence besides the question"),
                Some(Span::whole(message)),
            )
        })
    }
}

/// The comma characters: ASCII, full-width, small, ideographic, Arabic.
const COMMAS: &[char] = &[',', '，', '﹐', '﹑', '、', '،'];

pub(super) fn commas(message: &str) -> Option<Violation> {
    let count = message.chars().filter(|c| COMMAS.contains(c)).count();
    let (i, c) = message.char_indices().find(|(_, c)| COMMAS.contains(c))?;
    Some(Violation::rule(
        Preference::Commas,
        format!("{count} comma(s)"),
        Some(Span::of(message, i, i + c.len_utf8())),
    ))
}

pub(super) fn json(message: &str) -> Option<Violation> {
    let err = serde_json::from_str::<serde::de::IgnoredAny>(message).err()?;
    // Byte offset of the error's line and column (both 1-based).
    let line_start = message
        .split_inclusive('\n')
        .take(err.line().saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    let at = line_start + err.column().saturating_sub(1);
    Some(Violation::rule(
        Preference::Json,
        format!("not one JSON value: {err}"),
        Some(Span::of(message, at, message.len())),
    ))
}

pub(super) fn length(message: &str) -> Option<Violation> {
    let sentences: Vec<_> = counted_sentences(message)
        .into_iter()
        .filter(|s| !s.is_code)
        .collect();
    if sentences.len() == 3 {
        return None;
    }
    let span = sentences.get(3).map_or_else(
        || Span::whole(message),
        |s| Span::of(message, s.start, message.trim_end().len()),
    );
    Some(Violation::rule(
        Preference::Length,
        format!("{} sentence(s)", sentences.len()),
        Some(span),
    ))
}

/// The sentences a reader counts: [`split_sentences`] without segments
/// that hold no letter or digit (a trailing emoji), and without a list
/// item's or heading's first line when it has no final punctuation
/// ("- Acme: $1200 per month", "## Summary").
fn counted_sentences(message: &str) -> Vec<tact_core::text::Segment> {
    let mut out = Vec::new();
    for mut seg in split_sentences(message) {
        let text = seg.text(message);
        if seg.is_code {
            out.push(seg);
            continue;
        }
        let line_end = text.find('\n').unwrap_or(text.len());
        let first = text[..line_end].trim();
        if (first.starts_with('#') || starts_list(first))
            && !first.ends_with(['.', '?', '!', '…', '。', '？', '！'])
        {
            seg.start += (line_end + 1).min(text.len());
        }
        if seg.text(message).chars().any(char::is_alphanumeric) {
            out.push(seg);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::tests::violated;

    #[test]
    fn words_are_counted_as_a_reader_counts_them() {
        // 13 white-space tokens; UAX #29 counts more than 20 words here.
        let m = "Did the deploy at 14:32:05 on 2024-05-17 pull v2.3.1 from \
                 https://registry.example.com/v2/team/api/manifests/latest as expected?";
        assert!(tact_core::word_count(m) > 20);
        assert!(!violated(Preference::ConciseQuestion, m));
        let short = "The 03:00:00 backup failed at 03:12:47 with exit code 137 on \
                     db-01.prod.internal. Should I rerun it now or wait for tonight?";
        assert!(violated(Preference::DetailQuestion, short));
        let twenty_one = format!("{} ok?", "word ".repeat(20));
        assert!(violated(Preference::ConciseQuestion, &twenty_one));
        assert!(!violated(
            Preference::ConciseQuestion,
            &format!("{} — ok?", "word ".repeat(19))
        ));
    }

    #[test]
    fn lists_headings_and_emoji_are_not_sentences() {
        assert!(!violated(
            Preference::Length,
            "I checked both vendors.\n- Alpha: 3 days\n- Beta: 5 days\nBeta is cheaper. Which one should I book?"
        ));
        assert!(!violated(
            Preference::ConciseQuestion,
            "Should I water the tomatoes at 7 p.m. tonight? 🌱"
        ));
        assert!(!violated(
            Preference::Length,
            "Boarding starts at gate C. The flight is on time. Shall I check you in?"
        ));
    }

    #[test]
    fn a_number_with_a_unit_ends_a_sentence() {
        let three = "The cold start takes 3.5 s. That is above our 2 s budget. Cache it?";
        assert!(!violated(Preference::Length, three));
        assert!(violated(
            Preference::ConciseQuestion,
            "The p95 latency is 3.5 s. Is that acceptable?"
        ));
    }
}
