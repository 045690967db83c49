//! List items in a text: the options an agent's message lays out before
//! it asks the user to pick one.

/// The byte ranges of the lines of `text` that open a list item (without
/// their line break), in order: a bullet (`-`, `*`, `+`, `•`), a number or
/// a letter with `.` or `)` (`1.`, `2)`, `a)`, `B.`), a numbered heading
/// (`### 1.`, `**1.`), or `Option A` / `**Option 2`. One pass, linear in
/// the text's length; the items before a point are then counted by a
/// binary search.
///
/// ```
/// let message = "Two ways:\n1. Keep the cache\n2. Drop it\n\nWhich do you prefer?";
/// let items = tact_core::text::list_item_lines(message);
/// assert_eq!(items.len(), 2);
/// assert_eq!(&message[items[0].clone()], "1. Keep the cache");
/// assert!(tact_core::text::list_item_lines("No list here.").is_empty());
/// ```
pub fn list_item_lines(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut at = 0usize;
    for piece in text.split_inclusive('\n') {
        let line = piece.strip_suffix('\n').unwrap_or(piece);
        let line = line.strip_suffix('\r').unwrap_or(line);
        if opens_item(line) {
            out.push(at..at + line.len());
        }
        at += piece.len();
    }
    out
}

/// Whether one line opens a list item.
fn opens_item(line: &str) -> bool {
    // Something after the marker and a space.
    let has_text = |rest: &str| rest.starts_with([' ', '\t']) && !rest.trim().is_empty();
    let raw = line.trim_start();
    if let Some(rest) = raw.strip_prefix(['-', '*', '+', '•']) {
        if has_text(rest) {
            return true;
        }
    }
    // Emphasis and heading marks before the marker ("### 1.", "**2)").
    let t = raw.trim_start_matches(['#', '*', '_', ' ']);
    // "Option A", "Option 2", "Opción B" (no allocation: a line at a time).
    let starts_ci = |p: &str| t.get(..p.len()).is_some_and(|h| h.eq_ignore_ascii_case(p));
    if starts_ci("option ") || starts_ci("opción ") || starts_ci("opcion ") {
        return true;
    }
    // "1." "12)" "a)" "B.": one or two digits or one letter, then the mark.
    let bytes = t.as_bytes();
    let head = match bytes
        .iter()
        .take(3)
        .take_while(|b| b.is_ascii_digit())
        .count()
    {
        n @ (1 | 2) => n,
        0 if bytes.first().is_some_and(u8::is_ascii_alphabetic) => 1,
        _ => return false,
    };
    matches!(bytes.get(head), Some(b'.' | b')'))
        && t.get(head + 1..)
            .is_some_and(|rest| has_text(rest.trim_start_matches(['*', '_'])))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn list_markers_count_and_prose_does_not() {
        for (line, item) in [
            ("- Keep the cache", true),
            ("  * Drop it", true),
            ("• Option one", true),
            ("1. Keep the cache", true),
            ("12) Twelve", true),
            ("a) First", true),
            ("B. Second", true),
            ("### 1. Ship the docs", true),
            ("**2. Medium fixes**", true),
            ("**Option A**: keep it", true),
            ("Option 2: drop it", true),
            ("Opción B: borrarlo", true),
            ("The cache is warm.", false),
            ("1.5 seconds is the median.", false),
            ("e.g. the cache", false),
            ("-", false),
            ("- ", false),
            ("", false),
            ("v1.2 is out", false),
            ("A.I. is everywhere", false),
        ] {
            assert_eq!(opens_item(line), item, "{line:?}");
        }
        let m = "Two ways:\n1. Keep\n2. Drop\n- also this\n\nWhich one?";
        assert_eq!(list_item_lines(m), [10..17, 18..25, 26..37]);
        assert_eq!(list_item_lines("a\r\n- b\r\n- c"), [3..6, 8..11]);
    }

    proptest! {
        #[test]
        fn never_panics(s in ".{0,300}") {
            let items = list_item_lines(&s);
            prop_assert!(items.len() <= s.lines().count());
            prop_assert!(items.iter().all(|r| s.get(r.clone()).is_some()));
        }
    }
}
