//! A live log read as the agent writes it (`tact guide --follow`): bytes
//! in, as they arrive, trajectory events out, as each completes. A line
//! not yet ended by `\n` is kept until its end arrives (a live log's last
//! line is often half-written), so it is never reported as an error.
//! JSON Lines and Aider's Markdown are read line by line; OpenHands' and
//! SWE-agent's one-document formats are read again whole each time they
//! parse (SWE-agent rewrites its `.traj` after each step) and only the
//! events not yet returned come out.

use tact_types::trajectory::Event;

use super::{Format, ImportError, LineParser, Sink, import_text};

/// Reads a live log of one format.
///
/// ```
/// use tact::import::{Follower, Format};
///
/// let mut f = Follower::new(Format::Codex, "live.jsonl");
/// let first = r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}}"#;
/// let (events, errors) = f.push(first[..40].as_bytes());
/// assert!(events.is_empty() && errors.is_empty()); // half a line: waited for
/// let (events, errors) = f.push(format!("{}\n", &first[40..]).as_bytes());
/// assert_eq!((events.len(), errors.len()), (1, 0));
/// ```
#[derive(Debug)]
pub struct Follower {
    format: Format,
    source: String,
    sink: Sink,
    parser: LineParser,
    /// Bytes of the line not yet ended.
    partial: Vec<u8>,
    /// Lines read (for error messages).
    line: usize,
    /// A one-document format's text so far, and how many of its events
    /// were returned.
    document: Vec<u8>,
    emitted: usize,
}

impl Follower {
    /// A follower of a log of `format`; `source` names it in errors.
    pub fn new(format: Format, source: &str) -> Self {
        Follower {
            format,
            source: source.to_owned(),
            sink: Sink::new(format, source),
            parser: LineParser::new(format),
            partial: Vec::new(),
            line: 0,
            document: Vec::new(),
            emitted: 0,
        }
    }

    /// The format followed.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Takes the bytes that arrived: the events they complete, and the
    /// problems of the lines they end (each naming source and line; the
    /// stream goes on past them).
    pub fn push(&mut self, bytes: &[u8]) -> (Vec<Event>, Vec<ImportError>) {
        if !self.format.is_line_based() {
            self.document.extend_from_slice(bytes);
            return (self.reparse(false), Vec::new());
        }
        let mut errors = Vec::new();
        let mut rest = bytes;
        while let Some(at) = memchr::memchr(b'\n', rest) {
            self.partial.extend_from_slice(&rest[..at]);
            rest = &rest[at + 1..];
            let line = std::mem::take(&mut self.partial);
            if let Err(e) = self.take_line(&line) {
                errors.push(e);
            }
        }
        self.partial.extend_from_slice(rest);
        (self.sink.asm.take_live(), errors)
    }

    /// Replaces a one-document log's text (the file was rewritten) and
    /// returns the events beyond those already returned.
    pub fn replace_document(&mut self, bytes: &[u8]) -> Vec<Event> {
        self.document.clear();
        self.document.extend_from_slice(bytes);
        self.reparse(false)
    }

    fn take_line(&mut self, line: &[u8]) -> Result<(), ImportError> {
        self.line += 1;
        let n = self.line;
        let text = std::str::from_utf8(line)
            .map_err(|_| ImportError::new(&self.source, n, "invalid UTF-8"))?;
        let text = if n == 1 {
            text.strip_prefix('\u{feff}').unwrap_or(text)
        } else {
            text
        };
        let text = text.strip_suffix('\r').unwrap_or(text);
        self.parser
            .line(text, &mut self.sink)
            .map_err(|m| ImportError::new(&self.source, n, m))
    }

    fn reparse(&mut self, at_end: bool) -> Vec<Event> {
        let Ok(text) = std::str::from_utf8(&self.document) else {
            return Vec::new();
        };
        // Only a document that may be complete is parsed.
        let t = text.trim_end();
        if !(at_end || t.ends_with(']') || t.ends_with('}')) {
            return Vec::new();
        }
        match import_text(self.format, text, &self.source) {
            Ok(log) => {
                let events = log.events();
                let new: Vec<Event> = events.into_iter().skip(self.emitted).collect();
                self.emitted += new.len();
                new
            }
            Err(_) => Vec::new(),
        }
    }

    /// The end of the stream: the last line (even without its `\n`) is
    /// read, and the events still pending come out (the agent's last
    /// message, calls without a result). A one-document log that does not
    /// parse by then is an error.
    pub fn finish(&mut self) -> (Vec<Event>, Vec<ImportError>) {
        if !self.format.is_line_based() {
            if self.document.iter().all(u8::is_ascii_whitespace) {
                return (Vec::new(), Vec::new());
            }
            let text = String::from_utf8_lossy(&self.document).into_owned();
            return match import_text(self.format, &text, &self.source) {
                Ok(_) => (self.reparse(true), Vec::new()),
                Err(e) => (Vec::new(), vec![e]),
            };
        }
        let mut errors = Vec::new();
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            if let Err(e) = self.take_line(&line) {
                errors.push(e);
            }
        }
        self.parser.end(&mut self.sink);
        (self.sink.asm.flush_live(), errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_half_written_last_line_is_waited_for_then_read() {
        let line = r#"{"type":"assistant","sessionId":"s","message":{"id":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#;
        let result = r#"{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"boom","is_error":true}]}}"#;
        let mut f = Follower::new(Format::ClaudeCode, "live.jsonl");
        let (e, errs) = f.push(format!("{line}\n{}", &result[..30]).as_bytes());
        assert!(e.is_empty() && errs.is_empty());
        let (e, errs) = f.push(format!("{}\n", &result[30..]).as_bytes());
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(e.len(), 1);
        let Event::Tool(call) = &e[0] else {
            panic!("{e:?}")
        };
        assert!(!call.ok);
    }

    #[test]
    fn bad_lines_are_reported_with_their_number_and_the_stream_goes_on() {
        let mut f = Follower::new(Format::Codex, "live.jsonl");
        let (_, errs) = f.push(b"not json\n\xff\n");
        let errs: Vec<String> = errs.iter().map(ToString::to_string).collect();
        assert_eq!(errs.len(), 2);
        assert!(
            errs[0].starts_with("live.jsonl:1: not a JSON record"),
            "{errs:?}"
        );
        assert_eq!(errs[1], "live.jsonl:2: invalid UTF-8");
    }
}
