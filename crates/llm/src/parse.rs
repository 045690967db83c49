//! Reading a label out of a model's answer text: a `<think>...</think>`
//! preamble is skipped, the first JSON object with a `label` is taken
//! (prose or a fenced block around it is tolerated), and the label must be
//! one of the task's (exactly, or up to case and `-`, `_`, space). Small
//! models write JSON loosely: an object that does not parse is read again
//! with raw control characters inside its strings escaped and trailing
//! commas dropped, and the `label` key is found in any case. The reason
//! comes back with its control characters made spaces. Linear in the
//! answer's length (at most [`MAX_OBJECT_STARTS`] tries).

use crate::error::{Error, Result};

/// How many `{` a search tries before giving up (bounds the work on an
/// answer full of braces).
const MAX_OBJECT_STARTS: usize = 16;

/// The label's index in `labels` and the reason, from `text`.
pub(crate) fn parse_answer(text: &str, labels: &[&str]) -> Result<(usize, Option<String>)> {
    let body = match text.rfind("</think>") {
        Some(i) => &text[i + "</think>".len()..],
        None if text.contains("<think>") => {
            return Err(Error::Malformed {
                message: "an unfinished <think> block and no answer".into(),
            });
        }
        None => text,
    };
    let object = first_object(body).ok_or_else(|| Error::Malformed {
        message: format!("no JSON object with a label in {:?}", cut(body, 80)),
    })?;
    let label = field(&object, "label")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    let index = find_label(label, labels).ok_or_else(|| Error::OffSchema {
        label: cut(&printable(label), 80),
    })?;
    let reason = field(&object, "reason")
        .and_then(serde_json::Value::as_str)
        .map(|r| cut(printable(r).trim(), 400))
        .filter(|r| !r.is_empty());
    Ok((index, reason))
}

/// The value of `key` in `object`, the key matched in any case.
fn field<'a>(
    object: &'a serde_json::Map<String, serde_json::Value>,
    key: &str,
) -> Option<&'a serde_json::Value> {
    object.get(key).or_else(|| {
        object
            .iter()
            .find(|(k, _)| k.trim().eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
    })
}

/// Whether `object` has a `label` key (in any case).
fn has_label(object: &serde_json::Map<String, serde_json::Value>) -> bool {
    field(object, "label").is_some()
}

/// `s` with every control character a space (no raw control character
/// from a model reaches an output).
pub(crate) fn printable(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// `text` as loose JSON made strict: raw control characters inside
/// strings escaped, a comma before a closing `}` or `]` dropped. Strings
/// are tracked from the start of `text` (an object's opening brace).
fn repair(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let (mut in_string, mut escaped) = (false, false);
    for (i, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => {
                    escaped = false;
                    out.push(c);
                }
                '\\' => {
                    escaped = true;
                    out.push(c);
                }
                '"' => {
                    in_string = false;
                    out.push(c);
                }
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
                c => out.push(c),
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            ',' => {
                let next = text[i + 1..].trim_start().chars().next();
                if !matches!(next, Some('}' | ']')) {
                    out.push(c);
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// The first JSON object in `text` that has a `label` key, read strictly
/// or, failing that, [`repair`]ed.
fn first_object(text: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    let mut from = 0;
    for _ in 0..MAX_OBJECT_STARTS {
        let start = from + text[from..].find('{')?;
        let mut stream =
            serde_json::Deserializer::from_str(&text[start..]).into_iter::<serde_json::Value>();
        match stream.next() {
            Some(Ok(serde_json::Value::Object(map))) => {
                if has_label(&map) {
                    return Some(map);
                }
                // A complete object without a label: go on after it.
                from = start + stream.byte_offset().max(1);
            }
            _ => {
                let repaired = repair(&text[start..]);
                let mut stream =
                    serde_json::Deserializer::from_str(&repaired).into_iter::<serde_json::Value>();
                if let Some(Ok(serde_json::Value::Object(map))) = stream.next() {
                    if has_label(&map) {
                        return Some(map);
                    }
                }
                from = start + 1;
            }
        }
    }
    None
}

/// The index of `label` among `labels`: exact, else up to case and the
/// separators `-`, `_` and space.
fn find_label(label: &str, labels: &[&str]) -> Option<usize> {
    if let Some(i) = labels.iter().position(|l| *l == label) {
        return Some(i);
    }
    let key = |s: &str| -> String {
        s.trim()
            .chars()
            .map(|c| match c {
                '-' | ' ' => '_',
                c => c.to_ascii_lowercase(),
            })
            .collect()
    };
    let want = key(label);
    if want.is_empty() {
        return None;
    }
    labels.iter().position(|l| key(l) == want)
}

/// At most `n` characters of `s`.
pub(crate) fn cut(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const L: &[&str] = &["low", "medium", "high"];

    #[test]
    fn answers_with_think_blocks_prose_and_case_are_read() {
        assert_eq!(parse_answer(r#"{"label":"high"}"#, L).unwrap(), (2, None));
        assert_eq!(
            parse_answer("<think>hmm {\"label\":\"low\"}</think>\nSure: {\"label\": \"Medium\", \"reason\": \"a preference\"} done", L).unwrap(),
            (1, Some("a preference".into()))
        );
        assert_eq!(
            parse_answer(r#"{"x": 1} then {"label":"low"}"#, L)
                .unwrap()
                .0,
            0
        );
        assert_eq!(
            parse_answer(r#"{"label":"fine grained"}"#, &["fine-grained", "holistic"])
                .unwrap()
                .0,
            0
        );
    }

    #[test]
    fn bad_answers_are_errors_of_their_kind() {
        for (text, kind) in [
            ("", "malformed"),
            ("<think>still thinking", "malformed"),
            ("low", "malformed"),
            ("{\"label\": ", "malformed"),
            (r#"{"label":"extreme"}"#, "off_schema"),
            (r#"{"label": 3}"#, "off_schema"),
        ] {
            let e = parse_answer(text, L).unwrap_err();
            assert_eq!(e.kind().as_str(), kind, "{text}");
        }
    }

    #[test]
    fn loose_json_is_read() {
        // A raw newline in the reason (18 of 42 route answers of a small
        // model), a trailing comma, a fenced block, the key's case.
        assert_eq!(
            parse_answer(
                "{\"label\": \"high\", \"reason\": \"two\nlines\\\"q\\\"\ttab\"}",
                L
            )
            .unwrap(),
            (2, Some("two lines\"q\" tab".into()))
        );
        assert_eq!(parse_answer("{\"label\": \"low\",}", L).unwrap().0, 0);
        assert_eq!(
            parse_answer(
                "```json\n{\n  \"Label\": \"MEDIUM\",\n  \"reason\": \"x\",\n}\n```",
                L
            )
            .unwrap(),
            (1, Some("x".into()))
        );
        // A comma inside a string stays.
        assert_eq!(
            parse_answer("{\"label\": \"low\", \"reason\": \"a,}\n\",}", L).unwrap(),
            (0, Some("a,}".into()))
        );
        // An off-schema label is still off-schema, its control characters gone.
        let e = parse_answer("{\"label\": \"ex\u{1b}[2J\ntreme\"}", L).unwrap_err();
        assert_eq!(e.kind().as_str(), "off_schema");
        assert!(!e.to_string().contains('\u{1b}'), "{e}");
    }

    #[test]
    fn many_braces_are_bounded_work() {
        // At most MAX_OBJECT_STARTS attempts, each stopped by serde_json's
        // depth limit: an error, not a million parses.
        let text = "{".repeat(1_000_000);
        assert!(parse_answer(&text, L).is_err());
    }
}
