//! Reading labelled JSON Lines datasets as the labelling guide defines them:
//! one JSON object per line, blank lines and `//` lines ignored, unknown
//! fields ignored, and every bad line an error naming file and line.

use std::path::Path;

use serde::de::DeserializeOwned;

use crate::Error;

/// A parsed dataset line with its 1-based line number.
#[derive(Debug, Clone, PartialEq)]
pub struct Line<T> {
    /// The 1-based line number in the source.
    pub line: usize,
    /// The parsed record.
    pub record: T,
}

/// Parses JSONL text into records of type `T`.
///
/// `source` names the file in errors. Parsing stops at the first bad line:
/// a dataset is used whole or not at all.
pub fn parse_jsonl<T: DeserializeOwned>(source: &str, text: &str) -> Result<Vec<Line<T>>, Error> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with("//") {
            continue;
        }
        let value: serde_json::Value =
            serde_json::from_str(trimmed).map_err(|e| Error::Dataset {
                file: source.to_owned(),
                line,
                message: format!("not valid JSON: {e}"),
            })?;
        if !value.is_object() {
            return Err(Error::Dataset {
                file: source.to_owned(),
                line,
                message: "expected a JSON object".into(),
            });
        }
        let record = T::deserialize(value).map_err(|e| Error::Dataset {
            file: source.to_owned(),
            line,
            message: e.to_string(),
        })?;
        out.push(Line { line, record });
    }
    Ok(out)
}

/// Reads and parses a JSONL file (see [`parse_jsonl`]); a line that is
/// not UTF-8 is an error naming file and line (see [`read_text`]).
pub fn read_jsonl<T: DeserializeOwned>(path: &Path) -> Result<Vec<Line<T>>, Error> {
    let text = read_text(path)?;
    parse_jsonl(&path.display().to_string(), &text)
}

/// Reads a text file whole: a regular file of at most
/// [`MAX_TEXT_BYTES`](crate::input::MAX_TEXT_BYTES) (a FIFO or a device is
/// [`Error::NotRegular`], a larger file [`Error::TooLarge`], see
/// [`input`](crate::input)). Bytes that are not UTF-8 are an
/// [`Error::Dataset`] naming the file and the line that holds them
/// (`FILE:LINE: invalid UTF-8`), where the standard library names nothing.
pub fn read_text(path: &Path) -> Result<String, Error> {
    let bytes = crate::input::read_file(path, crate::input::MAX_TEXT_BYTES)?;
    decode_text(&path.display().to_string(), bytes)
}

/// The text of `bytes` read from `source` (a file, `stdin`); bytes that
/// are not UTF-8 are an [`Error::Dataset`] naming `source` and their line
/// (`SOURCE:LINE: invalid UTF-8`).
pub fn decode_text(source: &str, bytes: Vec<u8>) -> Result<String, Error> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        Error::Dataset {
            file: source.to_owned(),
            line: valid.iter().filter(|&&b| b == b'\n').count() + 1,
            message: "invalid UTF-8".into(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Rec {
        text: String,
        label: tact_types::EffortLevel,
    }

    #[test]
    fn skips_blank_and_comment_lines_and_ignores_unknown_fields() {
        let t = "// header\n\n{\"text\":\"a\",\"label\":\"low\",\"extra\":1}\n";
        let recs: Vec<Line<Rec>> = parse_jsonl("f.jsonl", t).unwrap();
        assert_eq!(recs.len(), 1);
        assert_eq!(recs[0].line, 3);
    }

    #[test]
    fn a_line_that_is_not_utf8_is_named() {
        let path =
            std::env::temp_dir().join(format!("tact-core-utf8-{}.jsonl", std::process::id()));
        std::fs::write(
            &path,
            b"{\"text\":\"a\",\"label\":\"low\"}\n{\"text\":\"\xff\"}\n",
        )
        .unwrap();
        let err = read_jsonl::<Rec>(&path).unwrap_err().to_string();
        let _ = std::fs::remove_file(&path);
        assert!(err.ends_with(".jsonl:2: invalid UTF-8"), "{err}");
    }

    #[test]
    fn errors_name_file_line_and_problem() {
        let cases = [
            (
                "{\"text\":\"a\",\"label\":\"low\"}\n{oops",
                2,
                "not valid JSON",
            ),
            ("{\"label\":\"low\"}", 1, "missing field `text`"),
            (
                "{\"text\":\"a\",\"label\":\"huge\"}",
                1,
                "unknown variant `huge`",
            ),
            ("[1,2]", 1, "expected a JSON object"),
        ];
        for (text, line, needle) in cases {
            let err = parse_jsonl::<Rec>("data/x.jsonl", text).unwrap_err();
            let msg = err.to_string();
            assert!(msg.starts_with(&format!("data/x.jsonl:{line}: ")), "{msg}");
            assert!(msg.contains(needle), "{msg}");
        }
    }
}
