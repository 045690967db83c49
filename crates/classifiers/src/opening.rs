//! The opening of a normalized text, framed for opening cues: `^ ` plus
//! its first bytes, so a cue such as `^ list` matches only at the start and
//! a separate cue set for openings never hides longer phrases of the main
//! set (leftmost-longest matching would let `^ what` swallow `what date`).
//! Decoration before the first word (emoji, markdown emphasis, quote and
//! heading marks, bracketed markers such as `[OK]`) is skipped.

/// Bytes of the text kept after `^ `: enough for the first few words.
const OPENING_BYTES: usize = 40;

/// Longest bracketed marker skipped at the start (`[EMOJI]`, `[WARN]`).
const MARKER_BYTES: usize = 12;

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

/// `^ ` followed by the first [`OPENING_BYTES`] bytes of `norm` after its
/// decoration (cut on a character boundary).
pub(crate) fn opening(norm: &str) -> String {
    let norm = undecorated(norm);
    let mut end = norm.len().min(OPENING_BYTES);
    while end > 0 && !norm.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end + 2);
    out.push_str("^ ");
    out.push_str(norm.get(..end).unwrap_or(""));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_on_characters() {
        assert_eq!(opening("list the fields"), "^ list the fields");
        let s = "é".repeat(30);
        let o = opening(&s);
        assert!(o.len() <= OPENING_BYTES + 2);
        assert!(o.ends_with('é'));
        assert_eq!(opening(""), "^ ");
    }

    #[test]
    fn skips_decoration_before_the_first_word() {
        assert_eq!(opening("🚀 **fix** it"), "^ fix** it");
        assert_eq!(opening("[emoji] [ok] quer que eu"), "^ quer que eu");
        assert_eq!(opening("> ## ¿que es"), "^ ¿que es");
        assert_eq!(opening("./run.sh"), "^ ./run.sh");
        assert_eq!(opening("[a b] x"), "^ [a b] x");
        assert_eq!(opening("[unclosed"), "^ [unclosed");
        assert_eq!(opening("✅"), "^ ");
    }
}
