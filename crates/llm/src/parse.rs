//! Reading a label out of a model's answer text: a `<think>...</think>`
//! preamble is skipped, the first JSON object with a `label` is taken
//! (prose before or after it is tolerated), and the label must be one of
//! the task's (exactly, or up to case and `-`, `_`, space). Linear in the
//! answer's length.

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
    let label = object
        .get("label")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    let index = find_label(label, labels).ok_or_else(|| Error::OffSchema {
        label: cut(label, 80),
    })?;
    let reason = object
        .get("reason")
        .and_then(serde_json::Value::as_str)
        .map(|r| cut(r, 400));
    Ok((index, reason))
}

/// The first JSON object in `text` that has a `label` key.
fn first_object(text: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    let mut from = 0;
    for _ in 0..MAX_OBJECT_STARTS {
        let start = from + text[from..].find('{')?;
        let mut stream =
            serde_json::Deserializer::from_str(&text[start..]).into_iter::<serde_json::Value>();
        if let Some(Ok(serde_json::Value::Object(map))) = stream.next() {
            if map.contains_key("label") {
                return Some(map);
            }
            // A complete object without a label: go on after it.
            from = start + stream.byte_offset().max(1);
        } else {
            from = start + 1;
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
    fn many_braces_are_bounded_work() {
        // At most MAX_OBJECT_STARTS attempts, each stopped by serde_json's
        // depth limit: an error, not a million parses.
        let text = "{".repeat(1_000_000);
        assert!(parse_answer(&text, L).is_err());
    }
}
