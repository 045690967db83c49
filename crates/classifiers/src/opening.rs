//! The opening of a normalized text, framed for opening cues: `^ ` plus
//! its first bytes, so a cue such as `^ list` matches only at the start and
//! a separate cue set for openings never hides longer phrases of the main
//! set (leftmost-longest matching would let `^ what` swallow `what date`).

/// Bytes of the text kept after `^ `: enough for the first few words.
const OPENING_BYTES: usize = 40;

/// `^ ` followed by the first [`OPENING_BYTES`] bytes of `norm` (cut on a
/// character boundary).
pub(crate) fn opening(norm: &str) -> String {
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
}
