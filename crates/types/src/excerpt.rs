//! Short excerpts of error messages: a parser's message may quote the
//! input (TOML quotes the offending line, serde a whole string value), and
//! a huge bad input must not make a huge error.

use std::borrow::Cow;

/// The most characters of one line an error message quotes.
pub const MAX_LINE_CHARS: usize = 200;

/// The most lines an error message keeps.
pub const MAX_LINES: usize = 40;

/// `message` with each line cut to [`MAX_LINE_CHARS`] characters (an
/// ellipsis and the count of characters left out mark the cut) and at most
/// [`MAX_LINES`] lines; borrowed when nothing is cut. Linear in the
/// message's length.
///
/// ```
/// use tact_types::excerpt::{MAX_LINE_CHARS, excerpt};
///
/// assert_eq!(excerpt("short"), "short");
/// let long = format!("x = \"{}\"", "a".repeat(10_000_000));
/// assert!(excerpt(&long).len() < MAX_LINE_CHARS + 64);
/// ```
pub fn excerpt(message: &str) -> Cow<'_, str> {
    let long_line = message
        .split('\n')
        .any(|l| l.len() > MAX_LINE_CHARS && l.chars().nth(MAX_LINE_CHARS).is_some());
    let many_lines = message.split('\n').nth(MAX_LINES).is_some();
    if !long_line && !many_lines {
        return Cow::Borrowed(message);
    }
    let mut out = String::new();
    let mut lines = message.split('\n');
    for (k, line) in lines.by_ref().take(MAX_LINES).enumerate() {
        if k > 0 {
            out.push('\n');
        }
        match line.char_indices().nth(MAX_LINE_CHARS) {
            Some((at, _)) => {
                let cut = line[at..].chars().count();
                out.push_str(&line[..at]);
                out.push_str(&format!("… ({cut} more characters)"));
            }
            None => out.push_str(line),
        }
    }
    let more = lines.count();
    if more > 0 {
        out.push_str(&format!("\n… ({more} more lines)"));
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_and_many_lines_are_cut() {
        let big = format!(
            "error at line 1\n  | x = \"{}\"\n  ^",
            "é".repeat(5_000_000)
        );
        let e = excerpt(&big);
        assert!(e.len() < 1_000, "{}", e.len());
        assert!(e.starts_with("error at line 1\n  | x = \""));
        assert!(e.contains("… (4999810 more characters)"), "{e}");
        assert!(e.ends_with("\n  ^"));
        let many = "l\n".repeat(1_000);
        let e = excerpt(&many);
        assert_eq!(e.lines().count(), MAX_LINES + 1);
        assert!(e.ends_with("… (961 more lines)"), "{e}");
        assert!(matches!(excerpt("a\nb"), Cow::Borrowed("a\nb")));
    }
}
