//! Text taken from input, made safe to show: short excerpts of error
//! messages (a parser's message may quote the input, TOML the offending
//! line, serde a whole string value, and a huge bad input must not make a
//! huge error), and control characters escaped ([`escape_controls`]), so
//! that a name or a message from a log cannot drive the terminal it is
//! printed on (set its title, clear it, colour it).

use std::borrow::Cow;
use std::fmt::Write;

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

/// Whether `c` is escaped by [`escape_controls`]: a C0 control but line
/// feed and tab, DEL, or a C1 control (U+0080 to U+009F, which some
/// terminals obey as escape sequences too).
pub fn is_escaped_control(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// `text` with every control character but line feed and tab written as a
/// JSON escape, `\u` and four hex digits (ESC is `\u001b`): shown as is
/// on a terminal, the same character to a JSON reader (inside a JSON
/// string), never obeyed. Borrowed when there is none; linear in the
/// text's length.
///
/// ```
/// use tact_types::excerpt::escape_controls;
///
/// assert_eq!(escape_controls("agent\u{1b}]0;pwned\u{7}"), "agent\\u001b]0;pwned\\u0007");
/// assert_eq!(escape_controls("two\tcolumns\n"), "two\tcolumns\n");
/// assert_eq!(escape_controls("csi\u{9b}2J"), "csi\\u009b2J");
/// ```
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let Some(first) = text.find(is_escaped_control) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if is_escaped_control(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_in_agent_name_is_escaped() {
        let name = "evil\u{1b}]0;title\u{7}\u{1b}[2J\u{1b}[31mred\r\u{7f}\u{85}";
        let shown = escape_controls(name);
        assert_eq!(
            shown,
            "evil\\u001b]0;title\\u0007\\u001b[2J\\u001b[31mred\\u000d\\u007f\\u0085"
        );
        // Inside a JSON string, the escapes read back as the characters.
        let json = format!("\"{shown}\"");
        let back: String = serde_json::from_str(&json).unwrap();
        assert_eq!(back, name);
    }

    proptest::proptest! {
        /// Whatever the text, nothing escaped is left, and the escapes
        /// decode (as JSON) back to the text.
        #[test]
        fn escaped_text_has_no_control_and_decodes_back(text in "\\PC*|[\\x00-\\x{9f}a\"\\\\]*") {
            let shown = escape_controls(&text);
            proptest::prop_assert!(!shown.chars().any(is_escaped_control));
            let json = serde_json::to_string(&text).unwrap();
            let again = escape_controls(&json);
            let back: String = serde_json::from_str(&again).unwrap();
            proptest::prop_assert_eq!(back, text);
        }
    }

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
