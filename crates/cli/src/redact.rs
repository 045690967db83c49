//! No output of tact carries a credential its scanner recognises: every
//! byte tact writes to stdout or stderr (reports, JSON, nudges, errors,
//! `tracing` events) goes through [`Redacting`], which replaces each
//! credential with `[REDACTED]` (see `tact-secrets`).

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

/// A writer that holds what is written until `flush` (or drop), then
/// writes it redacted, so a credential split over several writes is still
/// seen whole. Commands flush once per unit they show (a nudge, a report).
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
        if self.buf.is_empty() {
            return Ok(());
        }
        let clean = text(&String::from_utf8_lossy(&self.buf));
        self.buf.clear();
        self.inner.write_all(clean.as_bytes())
    }
}

impl<W: Write> Write for Redacting<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(bytes);
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
    fn a_credential_split_over_writes_is_redacted_on_flush() {
        let mut out = Redacting::new(Vec::new());
        let key = format!("AK{}Z3XQ7T4M9P2LWK5D", "IA");
        write!(out, "key {}", &key[..6]).unwrap();
        writeln!(out, "{} done", &key[6..]).unwrap();
        out.flush().unwrap();
        let shown = String::from_utf8(out.inner.clone()).unwrap();
        assert_eq!(shown, "key [REDACTED] done\n");
    }
}
