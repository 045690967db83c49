//! Question extraction: [`is_question`] (a final `?`, an opening `¿` or a
//! direct request) and [`extract_questions`] (the questions of a message,
//! with the option lists that follow them).

use super::sentences::{is_closer, starts_list_item};
use super::{Segment, normalize, split_sentences};

/// Starts of direct requests that count as questions without a `?`
/// (already normalized: lower case, no accents).
const REQUEST_STARTS: &[&str] = &[
    "please confirm",
    "please let me know",
    "please tell me",
    "please advise",
    "please choose",
    "please select",
    "please pick",
    "please specify",
    "please clarify",
    "please provide",
    "please share",
    "please send",
    "please paste",
    "please check",
    "please decide",
    "please review",
    "let me know",
    "tell me which",
    "tell me what",
    "tell me whether",
    "tell me if",
    "confirm whether",
    "confirm that",
    "i need you to",
    "i'd need you to",
    "i would need you to",
    "could you please",
    "can you please",
    "por favor confirma",
    "por favor, confirma",
    "por favor indica",
    "por favor, indica",
    "por favor dime",
    "por favor, dime",
    "confirmame",
    "avisame",
    "dime si",
    "dime que",
    "dime cual",
    "indicame",
    "hazme saber",
    "bitte bestatige",
    "bitte bestatigen",
    "bitte gib",
    "bitte sag",
    "bitte teile",
    "bitte schick",
    "bitte prufe",
    "lass mich wissen",
    "sag mir",
    "gib mir bescheid",
    "teile mir mit",
];

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
        // `The installer asks "Overwrite?"`: the mark belongs to the
        // quotation; the sentence around it must ask by itself.
        return match quotation_before(core, &t[core.len()..]) {
            Some(outside) => opens_interrogative(outside) || is_request(outside),
            None => true,
        };
    }
    is_request(t) || asks_without_mark(core)
}

/// Openers of a question written without its `?` ("what's the expected
/// session timeout in production — I couldn't find it in the config."):
/// an interrogative word and a copula (lower case).
const UNMARKED_OPENERS: &[&str] = &[
    "what's the ",
    "what is the ",
    "what are the ",
    "which is the ",
    "which one is ",
    "where's the ",
    "where is the ",
    "where are the ",
    "when's the ",
    "when is the ",
    "who's the ",
    "who is the ",
];

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

/// Words that open a direct question (lower case).
const INTERROGATIVE_OPENERS: &[&str] = &[
    "what", "which", "who", "whom", "whose", "where", "when", "why", "how", "should", "shall",
    "do", "does", "did", "is", "are", "was", "were", "am", "can", "could", "would", "will", "may",
    "might", "must", "have", "has",
];

/// Whether `text` opens with an interrogative word ("Should I answer ...").
fn opens_interrogative(text: &str) -> bool {
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

/// Extracts the questions of a whole agent message.
///
/// Questions are the prose sentences that [`is_question`] accepts. When a
/// question is followed directly by a list (the options it offers), the list
/// is kept with the question so that a classifier sees the options. Code
/// blocks are never questions.
pub fn extract_questions(message: &str) -> Vec<Segment> {
    // The questions are compacted into the sentences' own vector: the
    // write index never passes the read index.
    let mut sentences = split_sentences(message);
    let mut written = 0usize;
    let mut i = 0;
    while i < sentences.len() {
        let s = sentences[i];
        i += 1;
        if s.is_code || !is_question(s.text(message)) {
            continue;
        }
        let mut q = s;
        let own_text = s.text(message);
        let opens_list = !starts_list_item(own_text);
        if opens_list {
            while i < sentences.len()
                && !sentences[i].is_code
                && starts_list_item(sentences[i].text(message))
                && !is_question(sentences[i].text(message))
            {
                q.end = sentences[i].end;
                i += 1;
            }
        }
        // "Ship it? Or wait for QA?": an alternative continues the question.
        let continues = written > 0 && {
            let head = q.text(message).trim_start().as_bytes();
            let starts = |w: &[u8]| head.len() > w.len() && head[..w.len()].eq_ignore_ascii_case(w);
            starts(b"or ") || starts(b"o ") || starts(b"oder ")
        };
        match written.checked_sub(1).and_then(|p| sentences.get_mut(p)) {
            Some(prev)
                if continues
                    && message
                        .get(prev.end..q.start)
                        .is_some_and(|gap| gap.trim().is_empty()) =>
            {
                prev.end = q.end;
            }
            _ => {
                if let Some(slot) = sentences.get_mut(written) {
                    *slot = q;
                }
                written += 1;
            }
        }
    }
    sentences.truncate(written);
    sentences
}

#[cfg(test)]
mod tests {
    use super::*;

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
