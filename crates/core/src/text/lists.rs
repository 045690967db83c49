//! List items in a text: the options an agent's message lays out before
//! it asks the user to pick one.

/// How many lines of `text` open a list item: a bullet (`-`, `*`, `+`,
/// `•`), a number or a letter with `.` or `)` (`1.`, `2)`, `a)`, `B.`),
/// a numbered heading (`### 1.`, `**1.`), or `Option A` / `**Option 2`.
/// Linear in the text's length.
///
/// ```
/// let message = "Two ways:\n1. Keep the cache\n2. Drop it\n\nWhich do you prefer?";
/// assert_eq!(tact_core::text::list_items(message), 2);
/// assert_eq!(tact_core::text::list_items("No list here."), 0);
/// ```
pub fn list_items(text: &str) -> usize {
    text.lines().filter(|l| opens_item(l)).count()
}

/// The byte ranges of the lines that open a list item (as [`list_items`]
/// counts them; without their line break), in order: one pass, so that
/// the items before any point of the text are then counted by a binary
/// search.
///
/// ```
/// let message = "Two ways:\n1. Keep the cache\n2. Drop it\n\nWhich do you prefer?";
/// let items = tact_core::text::list_item_lines(message);
/// assert_eq!(items.len(), 2);
/// assert_eq!(&message[items[0].clone()], "1. Keep the cache");
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
    let t = line.trim_start();
    // Emphasis and heading marks before the marker ("### 1.", "**2)").
    let t = t.trim_start_matches(['#', '*', '_', ' ']);
    let rest_after = |rest: &str| rest.starts_with([' ', '\t']) && !rest.trim().is_empty();
    // Bullets: the line itself, before the marks were dropped.
    let raw = line.trim_start();
    for b in ['-', '*', '+', '•'] {
        if let Some(rest) = raw.strip_prefix(b) {
            if rest_after(rest) {
                return true;
            }
        }
    }
    // "Option A", "Option 2", "Opción B".
    let lower_head: String = t.chars().take(8).flat_map(char::to_lowercase).collect();
    if lower_head.starts_with("option ")
        || lower_head.starts_with("opción ")
        || lower_head.starts_with("opcion ")
    {
        return true;
    }
    // "1." "12)" "a)" "B.": up to two digits or one letter, then the mark.
    let bytes = t.as_bytes();
    let digits = bytes
        .iter()
        .take(3)
        .take_while(|b| b.is_ascii_digit())
        .count();
    let head = match digits {
        1 | 2 => digits,
        0 if bytes.first().is_some_and(u8::is_ascii_alphabetic) => 1,
        _ => return false,
    };
    match bytes.get(head) {
        Some(b'.' | b')') => t.get(head + 1..).is_some_and(|rest| {
            let rest = rest.trim_start_matches(['*', '_']);
            rest_after(rest)
                || (!rest.is_empty()
                    && !rest.starts_with(char::is_alphanumeric)
                    && !rest.trim().is_empty())
        }),
        _ => false,
    }
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
        assert_eq!(list_items(m), 3);
        assert_eq!(list_item_lines(m), [10..17, 18..25, 26..37]);
        assert_eq!(list_item_lines("a\r\n- b\r\n- c"), [3..6, 8..11]);
    }

    proptest! {
        #[test]
        fn never_panics(s in ".{0,300}") {
            let n = list_items(&s);
            prop_assert!(n <= s.lines().count());
            prop_assert_eq!(list_item_lines(&s).len(), n);
        }
    }
}
