//! How the labelling guide reads a message's offers and lead-ins: a
//! generic offer of more help or a conditional invitation asks nothing, an
//! unfinished lead-in asks through its listed options, an emphasised label
//! or a parenthesis is no part of the question after or before it.

use super::openers::ASKING_LEAD_INS;
use super::{opens_with, starts_list_item};

/// Whether the sentence (its lower-case head) offers open-ended further
/// help, a closing that needs no answer ("Would you like me to help with
/// anything else?").
pub(super) fn is_generic_offer(head: &str, text: &str) -> bool {
    (GENERIC_OFFERS
        .as_ref()
        .is_some_and(|offers| offers.is_match(head))
        && !head.contains(" or "))
        || open_ended_offer(head, text)
}

/// An offer of unspecified further work ("Would you like me to make any
/// adjustments to the styling?", "... explain any part of these changes
/// in more detail?"): an offer whose object is "any" thing, not "any of
/// these" options, with no example of a concrete step.
pub(super) fn open_ended_offer(head: &str, text: &str) -> bool {
    let head = head.strip_prefix("or ").unwrap_or(head);
    let offer = [
        "would you like me to ",
        "do you want me to ",
        "shall i ",
        "should i ",
        "want me to ",
    ];
    if !offer.iter().any(|o| head.starts_with(o)) {
        return false;
    }
    let lower = text.trim_start().to_lowercase();
    let lower = lower.trim_start_matches(|c: char| !c.is_alphanumeric());
    let lower = lower.strip_prefix("or ").unwrap_or(lower);
    let Some(rest) = offer.iter().find_map(|o| lower.strip_prefix(o)) else {
        return false;
    };
    // Every alternative it offers is vague ("expand on any aspect or make
    // any adjustments?"); one concrete step ("... or help with implementing
    // the display?") makes it a real choice.
    // The alternatives: what follows an " or " that opens a clause (an
    // asking lead-in or a verb), not an " or " inside an object ("the
    // styling or layout").
    const VERBS: &[&str] = &[
        "would",
        "should",
        "shall",
        "do",
        "help",
        "proceed",
        "start",
        "implement",
        "try",
        "make",
        "add",
        "explain",
        "expand",
        "focus",
        "run",
        "create",
        "review",
        "move",
        "continue",
        "update",
        "fix",
        "test",
        "elaborate",
        "adjust",
        "change",
        "demonstrate",
        "provide",
        "explore",
        "show",
        "perhaps",
    ];
    let mut alternatives: Vec<&str> = Vec::new();
    let mut from = 0;
    for (at, _) in rest.match_indices(" or ") {
        let next = rest[at + 4..]
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("");
        if VERBS.contains(&next) {
            alternatives.push(&rest[from..at]);
            from = at + 4;
        }
    }
    alternatives.push(&rest[from..]);
    alternatives.into_iter().all(|part| {
        let part = part.trim_start_matches([',', ' ']);
        let part = part.strip_prefix("perhaps ").unwrap_or(part);
        let part = [
            "would you like me to ",
            "would you like to ",
            "should i ",
            "shall i ",
        ]
        .iter()
        .find_map(|p| part.strip_prefix(p))
        .unwrap_or(part);
        [
            "make any ",
            "explain any",
            "elaborate on any",
            "clarify any",
            "adjust any",
            "change any",
            "expand on any",
            "demonstrate any",
            "add any",
            "run any additional",
            "add more",
            "focus on a specific",
            "focus on any",
            "explore other",
            "provide any",
            "adjust anything",
            "change anything",
            "help with any specific",
            "proceed with other",
        ]
        .iter()
        .any(|v| part.starts_with(v))
            || part.contains("in more detail")
            || part.contains("in further detail")
    })
}

/// The question after an emphasised label (`**Label**: `, `**Label** -
/// `, past a list marker), if the sentence opens with one.
pub(super) fn after_label(sentence: &str) -> Option<&str> {
    let t = sentence.trim_start();
    let t = if starts_list_item(t) {
        t.split_once(char::is_whitespace)?.1.trim_start()
    } else {
        t
    };
    let mark = ["**", "__"].into_iter().find(|m| t.starts_with(m))?;
    let close = t[2..].find(mark)? + 2;
    let rest = &t[close + 2..];
    let rest = rest
        .strip_prefix(':')
        .or_else(|| {
            rest.trim_start()
                .strip_prefix(['-', '\u{2013}', '\u{2014}'])
        })?
        .trim_start();
    (!rest.is_empty()).then_some(rest)
}

/// Whether a list item's line (from its first byte; only its first 400
/// are read) is a label followed by examples of what it asks for: two or
/// more short questions after an emphasised label ("1. **What you want me
/// to do** - Build something? Fix a bug? Create files?").
pub(super) fn label_with_examples(line: &str) -> bool {
    let end = line.find('\n').unwrap_or(line.len());
    let Some(line) = line.get(..end) else {
        return false;
    };
    if end >= 400 || !starts_list_item(line) {
        return false;
    }
    let Some(rest) = after_label(line).map(str::trim_end) else {
        return false;
    };
    rest.ends_with('?')
        && rest.matches('?').count() >= 2
        && rest
            .split_terminator('?')
            .all(|part| (1..=4).contains(&part.split_whitespace().count()))
}

/// Whether a sentence ending in a colon asks through the options listed
/// after it: an asking lead-in ("Would you like me to:"), also after a
/// leading clause ("We should fix those, but first, would you like me
/// to:"), that is unfinished without them.
pub(super) fn asks_through_options(text: &str, head: &str) -> bool {
    // A lead-in after a clause (", would you like"): each ", " of the
    // text is tried against the lead-ins, no string built per lead-in.
    let after_clause = || {
        let lower = text.to_lowercase();
        lower.match_indices(", ").any(|(at, _)| {
            let rest = &lower[at + 2..];
            ASKING_LEAD_INS.iter().any(|l| rest.starts_with(l))
        })
    };
    // The cheap test first: most lead-ins are complete.
    unfinished_lead_in(text) && (opens_with(head, ASKING_LEAD_INS) || after_clause())
}

/// Whether a line is one of a lead-in's options: a list item, or a line
/// opening with an emphasised label (`**Option A** - ...`).
pub(super) fn is_option_line(text: &str) -> bool {
    starts_list_item(text) || text.trim_start().starts_with("**")
}

/// Whether a lead-in ending in a colon is unfinished without its options
/// ("Would you like me to:", "Do you have:", "Should I:"), so its listed
/// items are the questions, rather than complete ("Can you confirm that
/// you see:").
pub(super) fn unfinished_lead_in(text: &str) -> bool {
    let t = text
        .trim_end()
        .trim_end_matches(['*', '_'])
        .trim_end_matches(':')
        .trim_end_matches(['*', '_'])
        .to_lowercase();
    let last = t
        .rsplit(|c: char| !c.is_alphanumeric() && c != '\'')
        .next()
        .unwrap_or("");
    matches!(
        last,
        "to" | "me"
            | "i"
            | "have"
            | "like"
            | "want"
            | "prefer"
            | "either"
            | "should"
            | "eu"
            | "żebym"
            | "que"
            | "you"
    )
}

/// Whether `text` is a short answer format such as `(y/n)`, `[Y/n]` or
/// `(yes/no)`: bracketed options of a word or two, separated by `/`.
pub(super) fn is_answer_format(text: &str) -> bool {
    let t = text.trim();
    let inner = t
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .or_else(|| t.strip_prefix('[').and_then(|r| r.strip_suffix(']')));
    inner.is_some_and(|inner| {
        let parts: Vec<&str> = inner.split('/').map(str::trim).collect();
        inner.len() <= 24
            && parts.len() >= 2
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.split_whitespace().count() <= 2)
    })
}

/// Whether a sentence without `?` only invites a reply on a condition of
/// the user's wish ("Let me know if you'd like the icon larger.", "If you
/// want to use the local path, let me know and I can try it."): by the
/// labelling guide no question to the user. A request to report a result
/// ("Let me know if the error persists.") still asks. `head` is its
/// lower-case head ([`head_of`]).
pub(super) fn is_conditional_invitation(text: &str, head: &str) -> bool {
    if text.contains(['?', '\u{ff1f}']) {
        return false;
    }
    let lower = text.to_lowercase().replace('\u{2019}', "'");
    let asks = [
        "let me know",
        "tell me",
        "just say",
        "ping me",
        "say which",
        "me avise",
    ];
    let wish = |after_if: &str| {
        [
            "you'd like",
            "you would like",
            "you want",
            "you'd want",
            "you prefer",
            "you'd prefer",
            "you would prefer",
            "you need",
            "you wish",
            "you'd rather",
            "you're interested",
            "you are interested",
        ]
        .iter()
        .any(|w| after_if.starts_with(w))
    };
    let conditional_ask = asks.iter().any(|a| {
        lower.match_indices(a).any(|(at, _)| {
            lower[at + a.len()..]
                .trim_start_matches([',', ' '])
                .strip_prefix("if ")
                .is_some_and(wish)
        })
    });
    // "If not, let me know ...", "Or if you'd like to proceed, just let
    // me know ...", "If you say whether ..., we can pin it": the reply
    // is asked for on a condition that opens the sentence.
    let head = ["or ", "and ", "but "]
        .iter()
        .find_map(|w| head.strip_prefix(w))
        .unwrap_or(head);
    let opens_conditional = (head.starts_with("if ") || head.starts_with("se "))
        && !head.starts_with("if so")
        && (asks.iter().any(|a| lower.contains(a))
            || head.starts_with("if you say")
            || head.strip_prefix("if ").is_some_and(wish)
            || lower.contains(", please "));
    conditional_ask || opens_conditional || lower.contains("say if you want")
}

/// Whether a message says its agent waits for the user's answer ("I'll
/// wait for your confirmation before proceeding.") or cannot go on
/// without it ("I cannot provide the edit ..."), so that even a
/// conditional invitation in it asks.
pub(super) fn waits_for_answer(message: &str) -> bool {
    let lower = message.to_lowercase().replace('\u{2019}', "'");
    [
        "i'll wait",
        "i will wait",
        "waiting for your",
        "wait for your",
        "i'll hold off",
        "i will hold off",
        // The agent says it cannot go on without the user.
        "cannot provide",
        "can't provide",
        "cannot proceed",
        "can't proceed",
        "unable to proceed",
        "need to proceed",
        "before i can",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

/// The phrases of a generic offer ([`is_generic_offer`]), compiled once
/// (`None` only if the automaton could not be built: then none is one).
static GENERIC_OFFERS: std::sync::LazyLock<Option<aho_corasick::AhoCorasick>> =
    std::sync::LazyLock::new(|| {
        aho_corasick::AhoCorasick::new([
            "anything else",
            "any other questions",
            "any other changes",
            "any other adjustments",
            "any further changes",
            "any further adjustments",
            "any additional changes",
            "any other modifications",
            "any more changes",
            "any other help",
            "any further help",
            "further assistance",
            "anything more",
            "explain anything",
            "clarify anything",
            "is there anything specific",
            "is there something specific",
            "is there any specific",
            "is there any particular",
            "does that clarify",
            "does this clarify",
            "does this help",
            "does that help",
            "era isso que",
        ])
        .ok()
    });
