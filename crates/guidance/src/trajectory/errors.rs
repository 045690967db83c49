//! Error normalization: two failures are "the same error" when their
//! messages agree once paths are cut to basenames and line numbers, ids,
//! hex hashes, UUIDs and timestamps are replaced by placeholders.
//!
//! A single hand-written pass over a bounded prefix of the message (no
//! regex), so normalizing costs well under a microsecond.

use serde_json::Value;

/// How much of an error message is looked at, in bytes (cut on a character
/// boundary). Long outputs such as backtraces are identified by their head.
pub const ERROR_PREFIX_BYTES: usize = 400;

/// Normalizes an error message: paths become their basename, every
/// stand-alone number (line and column numbers, ports, counts, the parts of
/// a timestamp) becomes `#`, UUIDs and long hex ids become `<id>`, and runs
/// of white space become one space. Only the first
/// [`ERROR_PREFIX_BYTES`] bytes are read; the result holds at most
/// `max_chars` characters.
///
/// ```
/// use tact_guidance::trajectory::normalize_error;
///
/// let a = normalize_error("error at /home/ci/src/main.rs:42:7 (2024-05-01T10:00:00Z)", 200);
/// let b = normalize_error("error at C:\\work\\src\\main.rs:7:1 (2024-06-11T08:30:12Z)", 200);
/// assert_eq!(a, b);
/// assert_eq!(a, "error at main.rs:#:# (#-#-#T#:#:#Z)");
/// ```
pub fn normalize_error(message: &str, max_chars: usize) -> String {
    let head = prefix(message, ERROR_PREFIX_BYTES);
    let mut out = String::with_capacity(head.len().min(max_chars * 2));
    let mut chars_out = 0usize;
    let bytes = head.as_bytes();
    let mut i = 0;
    let mut pending_space = false;
    while i < bytes.len() && chars_out < max_chars {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            pending_space = !out.is_empty();
            i += 1;
            continue;
        }
        let piece_start = i;
        // A white-space-delimited token that contains a path separator is
        // cut to what follows its last separator (keeping leading quotes
        // and brackets).
        let token_end = bytes[i..]
            .iter()
            .position(u8::is_ascii_whitespace)
            .map_or(bytes.len(), |p| i + p);
        let token = &head[i..token_end];
        let (lead, body) = split_leading_punct(token);
        let rest = match body.rfind(['/', '\\']) {
            Some(sep) if looks_like_path(body) => &body[sep + 1..],
            _ => body,
        };
        if pending_space {
            out.push(' ');
            chars_out += 1;
            pending_space = false;
        }
        out.push_str(lead);
        chars_out += lead.chars().count();
        chars_out += normalize_words(rest, &mut out);
        i = token_end.max(piece_start + 1);
    }
    if chars_out > max_chars {
        let cut = out
            .char_indices()
            .nth(max_chars)
            .map_or(out.len(), |(p, _)| p);
        out.truncate(cut);
    }
    out
}

/// The text of a failed call's output used as its error message: a string
/// as is, anything else as compact JSON (bounded).
pub fn error_text(output: &Value) -> std::borrow::Cow<'_, str> {
    match output {
        Value::String(s) => std::borrow::Cow::Borrowed(s.as_str()),
        other => {
            let mut w = super::fingerprint::Bounded::new(ERROR_PREFIX_BYTES);
            let _ = super::fingerprint::write_json(&mut w, other, 0);
            std::borrow::Cow::Owned(w.finish())
        }
    }
}

fn prefix(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

fn split_leading_punct(token: &str) -> (&str, &str) {
    let n = token
        .bytes()
        .take_while(|b| matches!(b, b'"' | b'\'' | b'`' | b'(' | b'[' | b'<' | b'{'))
        .count();
    token.split_at(n)
}

/// A token is a path when it has a separator with a name-like character
/// next to it (so that `a / b` or `and/or` stay, while `src/a.rs`,
/// `./x`, `C:\x\y` and URLs are cut).
fn looks_like_path(token: &str) -> bool {
    let b = token.as_bytes();
    let seps = b.iter().filter(|&&c| c == b'/' || c == b'\\').count();
    if seps == 0 {
        return false;
    }
    if seps == 1 {
        // One separator: a path only if anchored (`/x`, `./x`, `~/x`) or
        // if one side has a file extension or a further dot.
        let Some(pos) = token.find(['/', '\\']) else {
            return false;
        };
        let (l, r) = (&token[..pos], &token[pos + 1..]);
        return l.is_empty()
            || l == "."
            || l == ".."
            || l == "~"
            || r.contains('.')
            || l.contains('.');
    }
    true
}

/// Appends `s` with numbers, UUIDs and hex ids replaced; returns the number
/// of characters appended. Text without digits is copied in runs.
fn normalize_words(s: &str, out: &mut String) -> usize {
    let b = s.as_bytes();
    let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut n = 0;
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if !is_word(b[i]) {
            i += 1;
            continue;
        }
        if is_uuid_at(b, i) {
            n += flush(s, copied, i, out);
            out.push_str("<id>");
            n += 4;
            i += 36;
            copied = i;
            continue;
        }
        let end = b[i..]
            .iter()
            .position(|&c| !is_word(c))
            .map_or(b.len(), |p| i + p);
        if b[i..end].iter().any(u8::is_ascii_digit) {
            n += flush(s, copied, i, out);
            n += push_word(&s[i..end], out);
            copied = end;
        }
        i = end;
    }
    n + flush(s, copied, b.len(), out)
}

/// Copies `s[from..to]` (ASCII-delimited, so on character boundaries) and
/// returns its length in characters.
fn flush(s: &str, from: usize, to: usize, out: &mut String) -> usize {
    let piece = s.get(from..to).unwrap_or("");
    out.push_str(piece);
    piece.chars().count()
}

fn push_word(word: &str, out: &mut String) -> usize {
    let bytes = word.as_bytes();
    let digits = bytes.iter().filter(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        out.push_str(word);
        return word.chars().count();
    }
    let hex = bytes.iter().all(u8::is_ascii_hexdigit);
    if (hex && bytes.len() >= 7 && digits < bytes.len())
        || (word.starts_with("0x") && bytes.len() > 2)
    {
        out.push_str("<id>");
        return 4;
    }
    // Replace every run of digits with `#` (line numbers, ids, times).
    let mut n = 0;
    let mut in_digits = false;
    for c in word.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
                n += 1;
                in_digits = true;
            }
        } else {
            in_digits = false;
            out.push(c);
            n += 1;
        }
    }
    n
}

fn is_uuid_at(b: &[u8], i: usize) -> bool {
    const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];
    if b.len() < i + 36 {
        return false;
    }
    let mut p = i;
    for (g, len) in GROUPS.iter().enumerate() {
        if !b[p..p + len].iter().all(u8::is_ascii_hexdigit) {
            return false;
        }
        p += len;
        if g < 4 {
            if b[p] != b'-' {
                return false;
            }
            p += 1;
        }
    }
    b.get(p).is_none_or(|c| !c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> String {
        normalize_error(s, 200)
    }

    #[test]
    fn paths_become_basenames_and_numbers_placeholders() {
        assert_eq!(
            n("No such file: /tmp/build-123/src/lib.rs"),
            "No such file: lib.rs"
        );
        assert_eq!(n("--> src/parser/mod.rs:88:13"), "--> mod.rs:#:#");
        assert_eq!(
            n("error: port 5432 already in use"),
            "error: port # already in use"
        );
        assert_eq!(
            n("see https://example.com/docs/errors/E0425.html"),
            "see E#.html"
        );
        assert_eq!(n("use and/or"), "use and/or");
        assert_eq!(n("(\"./a/b.txt\") failed"), "(\"b.txt\") failed");
    }

    #[test]
    fn ids_hashes_uuids_and_timestamps_are_stripped() {
        assert_eq!(
            n("request 550e8400-e29b-41d4-a716-446655440000 failed"),
            n("request 123e4567-e89b-12d3-a456-426614174000 failed")
        );
        assert_eq!(n("commit 3f2a9c1d not found"), "commit <id> not found");
        assert_eq!(n("at 0x7ffd5e8c"), "at <id>");
        assert_eq!(
            n("Nov 20 10:00:00 app[812]: crash"),
            "Nov # #:#:# app[#]: crash"
        );
        assert_eq!(
            n("2024-05-01 10:00:00.123 boom"),
            n("2023-01-31 23:59:59.999 boom")
        );
    }

    #[test]
    fn white_space_collapses_and_length_is_bounded() {
        assert_eq!(n("  a \n\n\t b  "), "a b");
        assert_eq!(normalize_error(&"x".repeat(1000), 10).chars().count(), 10);
        assert_eq!(normalize_error("é字😀 ok", 3), "é字😀");
        // The prefix is cut on a character boundary (400 bytes = 200 `é`).
        assert_eq!(
            normalize_error(&"é".repeat(1000), 1000).chars().count(),
            200
        );
        assert_eq!(
            normalize_error(&format!("x{}", "é".repeat(1000)), 1000)
                .chars()
                .count(),
            200
        );
        assert_eq!(n(""), "");
    }

    proptest::proptest! {
        #[test]
        fn never_panics_and_respects_the_bound(s in "(\\PC|[/\\\\:0-9a-f -])*", max in 0usize..60) {
            let out = normalize_error(&s, max);
            proptest::prop_assert!(out.chars().count() <= max);
            proptest::prop_assert_eq!(normalize_error(&s, max), out);
        }
    }

    #[test]
    fn error_text_of_json_outputs() {
        assert_eq!(error_text(&serde_json::json!("boom")), "boom");
        assert_eq!(error_text(&serde_json::json!({"code": 1})), "{\"code\":1}");
    }
}
