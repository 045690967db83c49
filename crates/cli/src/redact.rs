//! The CLI's output layer. No output of tact carries a credential its
//! scanner recognises, nor a raw control character from its input: every
//! byte tact writes to stdout or stderr (reports, JSON, nudges, warnings,
//! errors, `tracing` events) goes through [`Redacting`] (or [`shown`] for
//! the last error), which replaces each credential with `[REDACTED]` (see
//! `tact-secrets`) and writes each control character but line feed and tab
//! as a JSON escape (`\u001b` for ESC; see
//! [`tact_types::excerpt::escape_controls`]): shown, never obeyed by the
//! terminal, and in `--json` output the same character to a JSON reader.

use std::io::{self, Write};

use tact_secrets::{CredentialScanner, REDACTED};

/// `text` with every credential the scanner recognises redacted (the whole
/// text when the scanner is unavailable: nothing unchecked is shown).
pub fn text(text: &str) -> String {
    match CredentialScanner::default().redact_text(text) {
        Ok(clean) => clean.into_owned(),
        Err(_) => REDACTED.to_owned(),
    }
}

/// `text` as tact shows it: redacted on the whole text (before any cut),
/// then cut to an excerpt (see [`tact_types::excerpt::excerpt`]), its
/// control characters escaped.
pub fn shown(text: &str) -> String {
    let clean = self::text(text);
    let short = tact_types::excerpt::excerpt(&clean);
    tact_types::excerpt::escape_controls(&short).into_owned()
}

/// Writes `warning: MESSAGE` on stderr, redacted and escaped.
pub fn warn(message: &str) {
    let mut err = Redacting::new(io::stderr().lock());
    let _ = writeln!(err, "warning: {message}");
    let _ = err.flush();
}

/// A writer that holds what is written until `flush` (or drop), then
/// writes it redacted, so a credential split over several writes is still
/// seen whole. Commands flush once per unit they show (a nudge, a report).
/// A long unit (the report of thousands of sessions) is written in pieces
/// that end at a blank line once [`DRAIN_AT`] bytes are held: no
/// credential the scanner knows spans a blank line (a PEM block has none),
/// and memory stays bounded by a piece, not the report.
#[derive(Debug)]
pub struct Redacting<W: Write> {
    inner: W,
    buf: Vec<u8>,
}

impl<W: Write> Redacting<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            buf: Vec::new(),
        }
    }

    fn drain(&mut self) -> io::Result<()> {
        self.drain_to(self.buf.len())
    }

    /// Writes the first `end` bytes held, redacted, and keeps the rest.
    fn drain_to(&mut self, end: usize) -> io::Result<()> {
        if end == 0 {
            return Ok(());
        }
        let clean = text(&String::from_utf8_lossy(&self.buf[..end]));
        self.buf.drain(..end);
        let safe = tact_types::excerpt::escape_controls(&clean);
        self.inner.write_all(safe.as_bytes())
    }
}

/// How much a [`Redacting`] writer holds before it writes what ends at a
/// blank line.
const DRAIN_AT: usize = 64 << 10;

impl<W: Write> Write for Redacting<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let before = self.buf.len();
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= DRAIN_AT {
            // The last blank line, searched only in what was just added
            // (and the byte before it), so holding stays linear.
            let from = before.saturating_sub(1);
            if let Some(at) = self.buf[from..].windows(2).rposition(|w| w == b"\n\n") {
                self.drain_to(from + at + 2)?;
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.drain()?;
        self.inner.flush()
    }
}

impl<W: Write> Drop for Redacting<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_unit_is_written_in_pieces_at_blank_lines_and_stays_redacted() {
        let mut out = Redacting::new(Vec::new());
        let key = format!("AK{}Z3XQ7T4M9P2LWK5D", "IA");
        for i in 0..20_000 {
            write!(out, "group {i}\nkey {}", &key[..6]).unwrap();
            writeln!(out, "{}\n", &key[6..]).unwrap();
        }
        assert!(out.buf.len() < 2 * DRAIN_AT, "{}", out.buf.len());
        assert!(!out.inner.is_empty());
        out.flush().unwrap();
        let shown = String::from_utf8(out.inner.clone()).unwrap();
        assert!(!shown.contains(&key[6..]));
        assert_eq!(shown.matches("key [REDACTED]\n\n").count(), 20_000);
    }

    #[test]
    fn a_credential_split_over_writes_is_redacted_on_flush() {
        let mut out = Redacting::new(Vec::new());
        let key = format!("AK{}Z3XQ7T4M9P2LWK5D", "IA");
        write!(out, "key {}", &key[..6]).unwrap();
        writeln!(out, "{} done", &key[6..]).unwrap();
        out.flush().unwrap();
        let shown = String::from_utf8(out.inner.clone()).unwrap();
        assert_eq!(shown, "key [REDACTED] done\n");
    }

    #[test]
    fn escape_in_output_is_escaped_and_json_stays_json() {
        let mut out = Redacting::new(Vec::new());
        let v = serde_json::json!({"agent": "a\u{1b}]0;t\u{7}\u{9b}2J"});
        writeln!(out, "{v}\tagent a\u{1b}[2J").unwrap();
        out.flush().unwrap();
        let shown = String::from_utf8(out.inner.clone()).unwrap();
        assert!(!shown.chars().any(tact_types::excerpt::is_escaped_control));
        let (json, text) = shown.split_once('\t').unwrap();
        let back: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(back, v);
        assert_eq!(text, "agent a\\u001b[2J\n");
    }

    proptest::proptest! {
        /// Whatever is written, what comes out has no control character
        /// but line feed and tab.
        #[test]
        fn escape_in_any_output_is_escaped(text in "\\PC*|[\\x00-\\x{a0}a]*") {
            let mut out = Redacting::new(Vec::new());
            out.write_all(text.as_bytes()).unwrap();
            out.flush().unwrap();
            let written = String::from_utf8(out.inner.clone()).unwrap();
            proptest::prop_assert!(!written.chars().any(tact_types::excerpt::is_escaped_control));
            let e = shown(&text);
            proptest::prop_assert!(!e.chars().any(tact_types::excerpt::is_escaped_control));
        }
    }

    #[test]
    fn error_quoting_token_is_redacted_before_the_cut() {
        let token = format!("ghp_{}", "aB3".repeat(12));
        // The token straddles the excerpt's cut of a long line.
        let long = format!(
            "{}{token}",
            "x".repeat(tact_types::excerpt::MAX_LINE_CHARS - 10)
        );
        let e = shown(&format!("unknown variant `{token}`\n{long}"));
        assert!(!e.contains("ghp_") && !e.contains("aB3aB3"), "{e}");
    }
}
