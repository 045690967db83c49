//! The frame around a normalized text that no classifier reads (emoji,
//! markdown emphasis, quote and heading marks, bracketed markers such as
//! `[OK]`, a list marker or a greeting before it, thanks after it), and
//! the opening of a text for opening cues: `^ ` plus its first bytes, so a
//! cue such as `^ list` matches only at the start and a separate cue set
//! for openings never hides longer phrases of the main set
//! (leftmost-longest matching would let `^ what` swallow `what date`).

/// Bytes of the text kept after `^ `: enough for the first few words.
const OPENING_BYTES: usize = 40;

/// Longest bracketed marker skipped at the start (`[EMOJI]`, `[WARN]`).
const MARKER_BYTES: usize = 12;

/// `norm` (normalized text) without its frame: [`undecorated`], then a list
/// marker (`1.`, `2)`, `-`, `+`, `•`) or a greeting followed by
/// punctuation or a space, repeatedly. What is left is never empty when
/// `norm` held a word: a greeting alone stays.
pub(crate) fn unframed(norm: &str) -> &str {
    let mut rest = undecorated(norm);
    loop {
        let next = list_marker(rest)
            .or_else(|| greeting(rest))
            .map(undecorated);
        match next {
            Some(n) if !n.is_empty() && n.len() < rest.len() => rest = n,
            _ => return rest,
        }
    }
}

/// What the classifiers read of a normalized text: [`unframed`] and
/// [`without_sign_off`], so that a list marker, emoji or greeting before it
/// or thanks after it change no tier's decision.
pub(crate) fn body(norm: &str) -> &str {
    without_sign_off(unframed(norm))
}

/// [`body`] as the learned model's owned text, reusing `norm` when nothing
/// is cut.
pub(crate) fn model_form(norm: String) -> String {
    let kept = body(&norm);
    if kept.len() == norm.len() {
        norm
    } else {
        kept.to_owned()
    }
}

/// Whether a normalized piece of text is only a greeting or thanks ("Hi!",
/// "Thanks in advance."), with its punctuation and emoji.
pub(crate) fn is_courtesy(norm: &str) -> bool {
    let core = norm.trim_matches(|c: char| {
        c.is_whitespace()
            || matches!(c, '!' | '.' | ',' | ':' | ';' | '-' | '*' | '¡')
            || (!c.is_ascii() && !c.is_alphanumeric())
    });
    !core.is_empty() && (greeting(core) == Some("") || SIGN_OFFS.contains(&core))
}

/// Sign-offs dropped from the end of a message ("... Thanks!").
const SIGN_OFFS: &[&str] = &[
    "thanks in advance",
    "thank you very much",
    "thank you so much",
    "thanks a lot",
    "thank you",
    "thanks",
    "thx",
    "cheers",
    "muchas gracias",
    "gracias",
    "vielen dank",
    "danke",
    "obrigado",
    "obrigada",
    "dziekuje",
    "dzieki",
];

/// Whether `word` ends one of [`SIGN_OFFS`]: a `match`, compiled to a
/// length switch, as this runs on every message (a test checks it against
/// the list).
fn is_sign_off_last_word(word: &str) -> bool {
    matches!(
        word,
        "thanks"
            | "thx"
            | "cheers"
            | "gracias"
            | "danke"
            | "dank"
            | "obrigado"
            | "obrigada"
            | "dziekuje"
            | "dzieki"
            | "you"
            | "advance"
            | "much"
            | "lot"
    )
}

/// `norm` (normalized text) without a sign-off at its end ("how do I ...?
/// thanks!") and the punctuation after it, when something other than
/// punctuation comes before it: "thanks!" alone, or "great, thanks",
/// keep what they have to say.
pub(crate) fn without_sign_off(norm: &str) -> &str {
    let body = norm.trim_end_matches(|c: char| {
        c.is_whitespace()
            || matches!(c, '!' | '.' | ',' | ':' | ')' | '*')
            || (!c.is_ascii() && !c.is_alphanumeric())
    });
    // The last word first: most texts end in none of the sign-offs' last
    // words, and comparing whole words mostly stops at their lengths.
    let start = body
        .bytes()
        .rposition(|b| !b.is_ascii_alphabetic())
        .map_or(0, |i| i + 1);
    if !is_sign_off_last_word(&body[start..]) {
        return without_separator(norm);
    }
    for s in SIGN_OFFS {
        let Some(before) = body.strip_suffix(s) else {
            continue;
        };
        // A whole word ("no thanks" yes, "shanks" no).
        if before
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric)
        {
            continue;
        }
        // The separator before the sign-off goes with it; a sentence's
        // own end stays, as it does without a sign-off ("X." and "X.
        // thanks!" read the same).
        let kept = before.trim_end_matches(|c: char| {
            c.is_whitespace() || matches!(c, ',' | '-') || (!c.is_ascii() && !c.is_alphanumeric())
        });
        if kept.chars().any(char::is_alphanumeric) {
            return kept;
        }
        return norm;
    }
    without_separator(norm)
}

/// `norm` without a dangling separator at its end ("... the image
/// data,"), as a sign-off would take it with it: "X," and "X, thanks" read
/// the same.
fn without_separator(norm: &str) -> &str {
    let kept = norm.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, ',' | '-'));
    if kept.chars().any(char::is_alphanumeric) {
        kept
    } else {
        norm
    }
}

/// The text after a leading list marker and its space, if any.
fn list_marker(s: &str) -> Option<&str> {
    let digits = s.bytes().take(4).take_while(u8::is_ascii_digit).count();
    let after = if (1..=3).contains(&digits) {
        s[digits..].strip_prefix(['.', ')'])?
    } else {
        s.strip_prefix(['-', '+', '•'])?
    };
    after.strip_prefix([' ', '\t'])
}

/// The text after a leading greeting and its punctuation, if any: the
/// first word is matched whole, with no scan of the greeting list.
fn greeting(s: &str) -> Option<&str> {
    let end = s
        .bytes()
        .position(|b| !b.is_ascii_alphabetic())
        .unwrap_or(s.len());
    let (word, mut after) = s.split_at(end);
    let second = |after: &'_ str, words: &[&str]| -> Option<usize> {
        let rest = after.strip_prefix(' ')?;
        words
            .iter()
            .find(|w| rest.starts_with(**w))
            .map(|w| w.len() + 1)
    };
    match word {
        "hi" | "hey" | "hello" => {
            if let Some(n) = second(after, &["there"]) {
                after = &after[n..];
            }
        }
        "buenas" => {
            if let Some(n) = second(after, &["tardes", "noches"]) {
                after = &after[n..];
            }
        }
        "hola" | "hallo" | "ola" | "oi" | "czesc" => {}
        "good" => after = &after[second(after, &["morning", "afternoon", "evening"])?..],
        "buenos" => after = &after[second(after, &["dias"])?..],
        "guten" => after = &after[second(after, &["morgen", "tag"])?..],
        "dzien" => after = &after[second(after, &["dobry"])?..],
        _ => return None,
    }
    // A whole word only ("hint", "holanda", "hey," but not "heyday",
    // "good morningside").
    if after
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphanumeric())
    {
        return None;
    }
    let rest = after.trim_start_matches([' ', '!', ',', '.', ':', ';', '-']);
    (rest.len() < after.len() || after.is_empty()).then_some(rest)
}

/// `norm` without the decoration before its first word: white space,
/// emoji and other non-ASCII symbols (but `¿` and `¡`), `*`, `_`, `#`, `>`,
/// and bracketed markers of a few characters.
fn undecorated(norm: &str) -> &str {
    let mut rest = norm;
    loop {
        if let Some(inner) = rest.strip_prefix('[') {
            // Only the first bytes are searched, so a run of `[` stays linear.
            match inner.bytes().take(MARKER_BYTES + 1).position(|b| b == b']') {
                Some(close) if close <= MARKER_BYTES && !inner[..close].contains(' ') => {
                    rest = &inner[close + 1..];
                    continue;
                }
                _ => return rest,
            }
        }
        match rest.chars().next() {
            Some(c)
                if c.is_whitespace()
                    || matches!(c, '*' | '_' | '#' | '>')
                    || (!c.is_ascii() && !c.is_alphanumeric() && !matches!(c, '¿' | '¡')) =>
            {
                rest = &rest[c.len_utf8()..];
            }
            _ => return rest,
        }
    }
}

/// `^ ` followed by the first [`OPENING_BYTES`] bytes of `norm` (cut on a
/// character boundary), on the stack. Callers pass the text [`unframed`],
/// as they classify it.
pub(crate) fn opening(norm: &str) -> Opening {
    let mut end = norm.len().min(OPENING_BYTES);
    while end > 0 && !norm.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = Opening {
        buf: [0; OPENING_BYTES + 2],
        len: end + 2,
    };
    out.buf[..2].copy_from_slice(b"^ ");
    out.buf[2..end + 2].copy_from_slice(&norm.as_bytes()[..end]);
    out
}

/// The opening of a text: see [`opening`].
pub(crate) struct Opening {
    buf: [u8; OPENING_BYTES + 2],
    len: usize,
}

impl Opening {
    /// The opening as text.
    pub(crate) fn as_str(&self) -> &str {
        // Cut on a character boundary, so always UTF-8.
        std::str::from_utf8(self.buf.get(..self.len).unwrap_or_default()).unwrap_or("^ ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn the_frame_is_cut_from_the_ends_of_any_text(t in "(?s).{0,60}") {
            let n = tact_core::normalize(&t);
            let u = unframed(&n);
            prop_assert!(n.ends_with(u));
            let w = without_sign_off(u);
            prop_assert!(u.starts_with(w));
            prop_assert_eq!(unframed(u), u);
            let _ = (is_courtesy(&n), model_form(n.clone()), opening(u).as_str().len());
        }
    }

    #[test]
    fn cuts_on_characters() {
        assert_eq!(opening("list the fields").as_str(), "^ list the fields");
        let s = "é".repeat(30);
        let o = opening(&s);
        let o = o.as_str();
        assert!(o.len() <= OPENING_BYTES + 2);
        assert!(o.ends_with('é'));
        assert_eq!(opening("").as_str(), "^ ");
    }

    #[test]
    fn skips_decoration_before_the_first_word() {
        assert_eq!(opening(unframed("🚀 **fix** it")).as_str(), "^ fix** it");
        assert_eq!(
            opening(unframed("[emoji] [ok] quer que eu")).as_str(),
            "^ quer que eu"
        );
        assert_eq!(opening(unframed("> ## ¿que es")).as_str(), "^ ¿que es");
        assert_eq!(opening(unframed("./run.sh")).as_str(), "^ ./run.sh");
        assert_eq!(opening(unframed("[a b] x")).as_str(), "^ [a b] x");
        assert_eq!(opening(unframed("[unclosed")).as_str(), "^ [unclosed");
        assert_eq!(opening(unframed("✅")).as_str(), "^ ");
    }

    #[test]
    fn the_last_words_are_those_of_the_sign_offs() {
        let derived: Vec<&str> = SIGN_OFFS
            .iter()
            .filter_map(|s| s.rsplit(' ').next())
            .collect();
        for w in &derived {
            assert!(is_sign_off_last_word(w), "{w}");
        }
        for w in [
            "thanks", "thx", "cheers", "gracias", "danke", "dank", "obrigado", "obrigada",
            "dziekuje", "dzieki", "you", "advance", "much", "lot",
        ] {
            assert!(derived.contains(&w), "{w} ends no sign-off");
        }
    }

    #[test]
    fn courtesies_alone() {
        assert!(is_courtesy("hi!"));
        assert!(is_courtesy(" thanks in advance. 🙏"));
        assert!(!is_courtesy("thanks for the logs"));
        assert!(!is_courtesy("!"));
        assert!(is_courtesy("buenas tardes."));
        assert!(is_courtesy("good morning!"));
    }

    #[test]
    fn drops_a_sign_off_after_something_else() {
        // The sentence's own end stays, as it does without a sign-off; a
        // dangling separator goes, with or without one.
        assert_eq!(without_sign_off("push it. thanks!"), "push it.");
        assert_eq!(without_sign_off("push it"), "push it");
        assert_eq!(without_sign_off("push it, thanks"), "push it");
        assert_eq!(without_sign_off("push it,"), "push it");
        assert_eq!(without_sign_off(", -"), ", -");
        assert_eq!(
            without_sign_off("what license? thank you 🙏"),
            "what license?"
        );
        assert_eq!(without_sign_off("thanks!"), "thanks!");
        assert_eq!(without_sign_off("great, thanks"), "great");
        assert_eq!(without_sign_off("check the shanks"), "check the shanks");
        assert_eq!(without_sign_off("¡gracias!"), "¡gracias!");
        assert_eq!(without_sign_off(""), "");
        assert_eq!(without_sign_off("中文 thanks 中文"), "中文 thanks 中文");
    }

    #[test]
    fn skips_list_markers_and_greetings() {
        assert_eq!(unframed("1. **would you like"), "would you like");
        assert_eq!(unframed("- [ok] 12) what"), "what");
        assert_eq!(unframed("hi! how do i"), "how do i");
        assert_eq!(unframed("hola, ¿como"), "¿como");
        assert_eq!(unframed("buenas tardes, ¿como"), "¿como");
        assert_eq!(unframed("hint: use"), "hint: use");
        assert_eq!(unframed("hey"), "hey");
        assert_eq!(unframed("2024. was a year"), "2024. was a year");
        assert_eq!(unframed("-v flag"), "-v flag");
        assert_eq!(unframed("./run.sh"), "./run.sh");
        assert_eq!(unframed(""), "");
    }
}
