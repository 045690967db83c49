//! The `do_selection` rule: whether a message offers explicit options (a
//! list, table or code block after a choice question, `X or Y`, `(a) (b)`,
//! `A/B/C`, `X vs Y`).

use regex::Regex;
use tact_core::split_sentences;
use tact_core::text::is_question;

use super::paths::slash_token_is_path;
use super::{TextChecker, contains_any_word};
use crate::preference::Preference;
use crate::violation::{Span, Violation};

/// Words after `or` that make it an approximation or a qualifier, not a
/// choice between options ("or so", "or later", "or not").
const OR_NOT_A_CHOICE: &[&str] = &[
    "so",
    "not",
    "later",
    "newer",
    "higher",
    "above",
    "greater",
    "earlier",
    "older",
    "lower",
    "below",
    "less",
    "more",
    "fewer",
    "else",
    "something",
    "anything",
    "anyone",
    "anybody",
    "anywhere",
    "whatever",
    "whichever",
    "similar",
    "otherwise",
    "other",
    "another",
    "equivalent",
    "rather",
    "twice",
    "thereabouts",
    "nothing",
];

/// Two-item slash words that name one thing, not two options.
const SLASH_COMPOUNDS: &[&str] = &[
    "ci/cd", "i/o", "tcp/ip", "and/or", "w/o", "n/a", "a/b", "km/h", "b/w", "udp/ip", "s/mime",
    "pl/sql", "os/2", "ui/ux", "ux/ui", "24/7",
];

impl TextChecker {
    pub(super) fn do_selection(&self, message: &str) -> Option<Violation> {
        if self.offers_options(message) {
            return None;
        }
        Some(Violation::rule(
            Preference::DoSelection,
            "no options to pick from (no list, no `X or Y`, no A/B/C)",
            Some(Span::whole(message)),
        ))
    }

    /// Whether the message offers explicit options (see the module table).
    pub fn offers_options(&self, message: &str) -> bool {
        let masked = self.mask(message, false);
        if self.offered_list(message)
            || self.enumerator.find_iter(&masked).count() >= 2
            || self.option_label.find_iter(&masked).count() >= 2
            || self.versus.find_iter(&masked).any(|m| {
                // "(0.871 vs 0.874)" compares figures; it offers nothing.
                !numbers_around(&masked[..m.start()], &masked[m.end()..])
            })
            || self.romance_or.is_match(&masked)
        {
            return true;
        }
        let sentences = split_sentences(&masked);
        // The sentence holding byte `at` (sentences are in order).
        let segment_at = |at: usize| {
            sentences
                .get(sentences.partition_point(|seg| seg.end <= at))
                .filter(|seg| seg.start <= at)
                .copied()
        };
        // A selection question anywhere ("Which do you prefer?") makes the
        // alternatives of a statement before it options.
        let selection_asked = sentences.iter().any(|seg| {
            let t = seg.text(&masked);
            is_question(t) && asks_to_select(t)
        });
        for m in self.alternative.find_iter(&masked) {
            let (before, after) = (&masked[..m.start()], &masked[m.end()..]);
            if !is_choice(before, after) {
                continue;
            }
            let segment = segment_at(m.start());
            let sentence = segment.map_or("", |seg| seg.text(&masked));
            // "a clause, such as an exclusivity or non-compete clause":
            // examples, not options.
            let sentence_start = segment.map_or(0, |seg| seg.start);
            let in_sentence = &before[sentence_start.min(before.len())..];
            let clause_start = [", ", "; ", ": ", "("]
                .iter()
                .filter_map(|p| in_sentence.rfind(p).map(|i| i + p.len()))
                .max()
                .unwrap_or(0);
            let clause = &in_sentence[clause_start..];
            // "items, like lithium batteries or aerosols, that ...".
            if clause.trim_start().to_lowercase().starts_with("like ") {
                continue;
            }
            // "Rent is due on the 1st or the next business day, so which
            // account ...?": the question starts after the alternative, in
            // a sentence that opened as a statement.
            let sentence_end = segment.map_or(masked.len(), |seg| seg.end);
            let rest = &masked[m.end()..sentence_end.max(m.end())];
            if !opens_question(in_sentence)
                && [", so ", "; ", ", ", " — ", " - "].iter().any(|b| {
                    rest.match_indices(b).any(|(i, _)| {
                        let tail = &rest[i + b.len()..];
                        opens_question(tail) && !asks_to_select(tail)
                    })
                })
            {
                continue;
            }
            if contains_any_word(
                clause,
                &[
                    "such as",
                    "e.g",
                    "for example",
                    "for instance",
                    "including",
                    "something like",
                    "anything like",
                    "things like",
                ],
            ) {
                continue;
            }
            let asks = is_question(sentence) || has_choice_request(sentence);
            if numbers_around(before, after) {
                // "10 or 11 minutes" estimates; "2 or 3 seconds?" asks.
                if asks && !approximated(before) {
                    return true;
                }
                continue;
            }
            // "either the finance export or the CRM export lands ...": an
            // alternative in a statement offers nothing to pick, unless a
            // selection question follows.
            if asks || selection_asked {
                return true;
            }
        }
        // "Enable versioning / add a lifecycle rule / leave it: which?"
        if sentences.iter().any(|seg| {
            let t = seg.text(&masked);
            t.contains(" / ") && (is_question(t) || has_choice_request(t))
        }) {
            return true;
        }
        // Slash lists are read on the prose only: a path or URL inside
        // inline code is no list of options.
        let masked = self.mask(message, true);
        self.slash_list.find_iter(&masked).any(|m| {
            let token = m.as_str();
            let items: Vec<&str> = token.split('/').collect();
            if slash_token_is_path(&masked, m.start(), m.end()) {
                return false;
            }
            // The list ends the question ("... 2/4/8 spaces?", "...: CSV/JSON?")
            // or follows a colon.
            let rest = masked[m.end()..].trim_start_matches([' ', '"', '\'', ')']);
            let unit = rest.trim_start_matches(char::is_alphabetic);
            let closes = rest.starts_with('?')
                || rest.is_empty()
                || (unit.len() < rest.len() && unit.trim_start().starts_with('?'));
            let opens = masked[..m.start()].trim_end().ends_with(':');
            // "Metric/imperial units in the recipe cards?": the fragment
            // question opens with the alternatives.
            let head = &masked[..m.start()];
            let sentence_start = head.rfind(['\n', '.', '?', '!']).map_or(0, |i| i + 1);
            let line_rest = masked[m.end()..].split('\n').next().unwrap_or("");
            let leads_question = head[sentence_start..].trim().is_empty()
                && line_rest
                    .find('?')
                    .is_some_and(|q| !line_rest[..q].contains(['.', '!']));
            if !token.chars().any(char::is_alphabetic) {
                // Numbers: a choice only where a list of options stands,
                // never a date or a ratio in running text.
                let date = items
                    .iter()
                    .any(|i| i.len() == 4 || (i.len() == 2 && i.starts_with('0')));
                return (closes || opens) && !date;
            }
            if items.len() >= 3 {
                return true;
            }
            let lower = token.to_lowercase();
            !SLASH_COMPOUNDS.contains(&lower.as_str()) && (closes || opens || leads_question)
        })
    }

    /// Whether a list (or table) of two or more items is offered as
    /// options: the line before it asks ("Which one should I use?",
    /// "Options:", "Pick one:"), or the question after it selects among
    /// its items ("Which row ...?"). A list of findings followed by an
    /// open question ("What version should they be pinned to?") offers
    /// nothing to pick.
    fn offered_list(&self, message: &str) -> bool {
        let lines: Vec<&str> = message.lines().collect();
        // "Pick one of these schedules:" + a code block of two or more
        // lines: each line is an option.
        let mut fence_lead: Option<&str> = None;
        let mut fence_lines = 0usize;
        let mut fence_labels = 0usize;
        for (n, line) in lines.iter().enumerate() {
            let t = line.trim();
            if t.starts_with("```") || t.starts_with("~~~") {
                match fence_lead.take() {
                    Some(lead) => {
                        // "Which retry policy do you want?" + a block of
                        // candidates, or of `# Option A` / `# Option B`.
                        let lead_asks = has_choice_request(lead)
                            || asks_to_select(lead)
                            || (is_question(lead)
                                && (has_selection_cue(lead) || fence_labels >= 2));
                        if fence_lines >= 2 && lead_asks {
                            return true;
                        }
                    }
                    None => {
                        fence_lead = Some(
                            lines[..n]
                                .iter()
                                .rev()
                                .find(|l| !l.trim().is_empty())
                                .map_or("", |l| l.trim()),
                        );
                        fence_lines = 0;
                        fence_labels = 0;
                    }
                }
            } else if fence_lead.is_some() && !t.is_empty() {
                fence_lines += 1;
                fence_labels += self.option_label.find_iter(t).count();
            }
        }
        let mut i = 0;
        while i < lines.len() {
            if !is_list_line(&self.list_item, lines[i]) {
                i += 1;
                continue;
            }
            let start = i;
            let mut items = 0usize;
            while i < lines.len()
                && (is_list_line(&self.list_item, lines[i]) || is_table_rule(lines[i]))
            {
                items += usize::from(!is_table_rule(lines[i]));
                i += 1;
            }
            if items < 2 {
                continue;
            }
            let lead = lines[..start]
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .map_or("", |l| l.trim());
            let lead_asks = lead.ends_with('?')
                || is_question(lead)
                || (lead.ends_with(':')
                    && (has_selection_cue(lead)
                        || has_choice_request(lead)
                        || contains_any_word(
                            lead,
                            &[
                                "choices",
                                "alternatives",
                                "candidates",
                                "candidate",
                                "ways",
                                "any of these",
                                "one of these",
                                "either of these",
                            ],
                        )));
            let after = lines[i..].join(" ");
            let question = after.find('?').map_or(after.as_str(), |q| &after[..=q]);
            // "... Let me know your pick." after the list selects as well.
            let request = split_sentences(&after)
                .first()
                .map_or("", |seg| seg.text(&after));
            if lead_asks
                || (question.contains('?') && has_selection_cue(question))
                || (has_choice_request(request) && has_selection_cue(request))
            {
                return true;
            }
        }
        false
    }
}

/// Whether `text` opens with a question word ("which account ...", "so
/// should I ...", "what should I highlight ...").
fn opens_question(text: &str) -> bool {
    let mut words = text
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase);
    let mut first = words.next().unwrap_or_default();
    if matches!(first.as_str(), "so" | "then" | "and" | "but") {
        first = words.next().unwrap_or_default();
    }
    matches!(
        first.as_str(),
        "what"
            | "which"
            | "who"
            | "where"
            | "when"
            | "why"
            | "how"
            | "should"
            | "shall"
            | "can"
            | "could"
            | "would"
            | "will"
            | "do"
            | "does"
            | "did"
            | "is"
            | "are"
    )
}

/// Words of a question or request that ask to pick among options.
const SELECTION_CUES: &[&str] = &[
    "which",
    "choose",
    "pick",
    "select",
    "prefer",
    "preference",
    "one of",
    "option",
    "options",
    "go with",
    "between",
    "either",
    "cual",
    "quale",
    "quali",
    "welche",
    "welcher",
    "welches",
];

/// Whether a question asks to pick among alternatives already named:
/// "Which do you prefer?", "Which one?", "Should I pick one of them?" (a
/// "which" + noun question such as "Which directories should be
/// excluded?" asks for new items instead).
fn asks_to_select(question: &str) -> bool {
    let lower = question.to_lowercase();
    let which_selects = lower.match_indices("which").any(|(i, _)| {
        let next = lower[i + 5..]
            .split_whitespace()
            .next()
            .unwrap_or("")
            .trim_matches(|c: char| !c.is_alphanumeric());
        matches!(
            next,
            "" | "one"
                | "ones"
                | "of"
                | "do"
                | "would"
                | "should"
                | "is"
                | "option"
                | "options"
                | "approach"
                | "way"
                | "path"
                | "route"
                | "variant"
                | "version"
                | "alternative"
        )
    });
    which_selects
        || contains_any_word(
            question,
            &[
                "prefer", "choose", "pick", "select", "go with", "one of", "either", "option",
            ],
        )
}

/// Whether `text` contains one of [`SELECTION_CUES`] as whole words.
fn has_selection_cue(text: &str) -> bool {
    contains_any_word(text, SELECTION_CUES)
}

/// Whether a sentence that is not a question still asks to choose ("Pick
/// one: canary or blue-green", "reply `apply` or `hold`").
fn has_choice_request(text: &str) -> bool {
    contains_any_word(
        text,
        &[
            "pick",
            "choose",
            "select",
            "reply",
            "decide",
            "let me know",
            "tell me",
            "your call",
            "prefer",
            "up to you",
        ],
    )
}

/// Number words read as quantities in "one or two days".
const NUMBER_WORDS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "fifteen", "twenty", "thirty", "fifty", "hundred", "couple",
];

/// Whether `word` (trimmed) is a quantity: digits (`10`, `2.5`, `1,000`,
/// `15%`, `4.2k`, `$3M`) or a number word.
fn is_number(word: &str) -> bool {
    let w = word
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '%')
        .trim_end_matches('%')
        .to_lowercase();
    // A magnitude suffix: "4.2k", "3M", "1.5bn".
    let w = ["k", "m", "bn", "b"]
        .iter()
        .find_map(|s| {
            w.strip_suffix(s)
                .filter(|d| d.ends_with(|c: char| c.is_ascii_digit()))
        })
        .map_or(w.clone(), str::to_owned);
    (!w.is_empty()
        && w.starts_with(|c: char| c.is_ascii_digit())
        && w.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ','))
        || NUMBER_WORDS.contains(&w.as_str())
}

/// Whether the `or` (or `vs.`) between `before` and `after` joins two
/// quantities, a unit allowed after the first ("180 ms vs. 140 ms").
fn numbers_around(before: &str, after: &str) -> bool {
    let mut back = before.split_whitespace().rev();
    let last = back.next().unwrap_or("");
    let number_before = is_number(last)
        || (last.len() <= 3
            && last.chars().all(char::is_alphabetic)
            && back.next().is_some_and(is_number));
    number_before && after.split_whitespace().next().is_some_and(is_number)
}

/// Whether the quantity before `or` is hedged ("roughly 10 or 11").
fn approximated(before: &str) -> bool {
    before.split_whitespace().rev().skip(1).take(2).any(|w| {
        matches!(
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
                .as_str(),
            "roughly"
                | "about"
                | "around"
                | "approximately"
                | "approx"
                | "some"
                | "maybe"
                | "perhaps"
                | "nearly"
                | "almost"
                | "every"
                | "each"
                | "took"
                | "takes"
        ) || w.starts_with('~')
    })
}

/// Whether `line` is a list item or a table row (not a `|---|` rule).
fn is_list_line(list_item: &Regex, line: &str) -> bool {
    let t = line.trim();
    if t.starts_with('|') {
        return t.len() > 1 && !is_table_rule(t);
    }
    list_item.is_match(line)
}

/// Whether `line` is a table's `|---|:--:|` rule.
fn is_table_rule(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('|') && t.contains('-') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// Whether the `or` found between `before` and `after` joins two options.
fn is_choice(before: &str, after: &str) -> bool {
    if before.ends_with('/') || after.starts_with('/') {
        return false;
    }
    let Some(next_raw) = after.split_whitespace().next() else {
        return false;
    };
    let next = next_raw
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    if next.is_empty() && !next_raw.starts_with(['`', '"', '\'', '(', '[']) {
        return false;
    }
    if OR_NOT_A_CHOICE.contains(&next.as_str()) {
        return false;
    }
    let prev: Vec<String> = before
        .split_whitespace()
        .rev()
        .take(2)
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    // "a day or two", "an hour or two".
    if next == "two"
        && prev
            .get(1)
            .is_some_and(|w| matches!(w.as_str(), "a" | "an"))
    {
        return false;
    }
    // "give or take", "sooner or later", "whether or not".
    !(next == "take" && prev.first().is_some_and(|w| w == "give")
        || prev
            .first()
            .is_some_and(|w| w == "sooner" || w == "whether"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::tests::violated;

    #[test]
    fn findings_estimates_and_examples_are_not_options() {
        for m in [
            "I looked at the queues:\n- `ingest` holds 40 jobs\n- `mail` holds 2 jobs\nHow long should jobs wait before we page someone?",
            "The export took 12 or 13 minutes on every run. What timeout do you want?",
            "Does the lease contain a clause, such as a break or renewal option, I should flag?",
            "Latency was 180 ms vs. 140 ms last week; what changed on your side?",
            "Either the cache or the proxy drops the header. Can you send me the raw response?",
            "Which branch holds the fix (maybe something like `hotfix/x` or `fix-x`)?",
            "Signups were 1.8k vs. 2.1k in May; what do you make of the drop?",
            "Do you keep other records, e.g. paper receipts or bank PDFs, that I should scan?",
            "Do you own gear, like tents or stoves, that the trip could reuse?",
            "The invoice is due on Friday or on receipt, so which card should I charge?",
            "The plumber can come in three or four days; what should I tell him about the leak?",
        ] {
            assert!(violated(Preference::DoSelection, m), "{m}");
        }
        for m in [
            "Which of these should I deploy?\n- `v2.3.1`\n- `v2.4.0-rc1`",
            "Options:\n1. keep the cron job\n2. move it to the queue\nWhich one?",
            "Should the batch size be 2 or 3 thousand rows?",
            "I can retry the upload or skip the file. Which do you prefer?",
            "Pick one schedule:\n```\n0 6 * * 1\n0 18 * * 5\n```",
            "Rename / archive / delete the old bucket: which do you want?",
            "These are the plans I found; which one fits?\n\n| Plan | Price |\n|---|---|\n| Basic | $5 |\n| Pro | $12 |",
            "Which cache setting do you want?\n```toml\n# Option A\nttl = 60\n# Option B\nttl = 3600\n```",
            "Celsius/Fahrenheit on the dashboard tiles?",
            "I can book the 9:10 train, the 11:40 train, or a car — which should it be?",
            "I can host the docs on any of these:\n- Netlify\n- GitHub Pages\nTell me your choice.",
        ] {
            assert!(!violated(Preference::DoSelection, m), "{m}");
        }
    }

    #[test]
    fn paths_urls_and_code_spans_are_not_options() {
        for m in [
            "Should the new handler go in src/api/v2/ as well?",
            "Is the handler you mean the one in src/api/v2?",
            "I found them under tests/data/golden/. Regenerate?",
            "Can you check whether `config/dev/app` still exists?",
            "Is it in ./deploy/k8s?",
            "Is it in ~/work/app?",
            "Did you mean docs.rs/tokio/latest?",
            "Can you open C:\\app\\v2/conf?",
        ] {
            assert!(violated(Preference::DoSelection, m), "{m}");
        }
        for m in [
            "Should I put the new route in src/api/v1/ or src/api/v2/?",
            "Which output format do you want: CSV/JSON/Parquet?",
            "Do you prefer red/green/blue?",
            "Indent with 2/4/8 spaces?",
        ] {
            assert!(!violated(Preference::DoSelection, m), "{m}");
        }
    }
}
