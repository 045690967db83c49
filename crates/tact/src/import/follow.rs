//! A live log read as the agent writes it (`tact guide --follow`): bytes
//! in, as they arrive, trajectory events out, as each completes. A line
//! not yet ended by `\n` is kept until its end arrives (a live log's last
//! line is often half-written), so it is never reported as an error.
//! JSON Lines and Aider's Markdown are read line by line; OpenHands' and
//! SWE-agent's one-document formats are parsed when the document can be
//! complete: the JSON nesting (and whether a string is open) is tracked
//! over the new bytes only, and the document is parsed once its top-level
//! value closes, so a stream is read in linear time however it is cut. A
//! file rewritten whole (SWE-agent rewrites its `.traj` after each step)
//! is read again, and only the events not yet returned come out.

use tact_types::trajectory::Event;

use super::{Format, ImportError, ImportedLog, LineParser, Sink, import_text};

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
    /// Where the document's top-level value stands, over the bytes seen.
    nesting: Nesting,
    /// The document was parsed since it last changed shape (complete, or
    /// failed): not parsed again until it is replaced or the stream ends.
    parsed: bool,
    /// The last parse read the document whole: every event is out.
    complete: bool,
}

/// The JSON nesting of a document read so far, tracked byte by byte over
/// new bytes only: the depth of open arrays and objects, whether a string
/// (and an escape in it) is open, and whether a top-level value closed.
#[derive(Debug, Default, Clone, Copy)]
struct Nesting {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// A top-level array or object closed (the document may be complete).
    closed: bool,
}

impl Nesting {
    /// Reads `bytes`; whether a top-level value closed among them.
    fn scan(&mut self, bytes: &[u8]) -> bool {
        let mut closed_now = false;
        for &b in bytes {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'[' | b'{' => self.depth += 1,
                b']' | b'}' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        self.closed = true;
                        closed_now = true;
                    }
                }
                _ => {}
            }
        }
        closed_now
    }
}

impl Follower {
    /// A follower of a log of `format`; `source` names it in errors.
    pub fn new(format: Format, source: &str) -> Self {
        Follower {
            format,
            source: source.to_owned(),
            sink: {
                let mut sink = Sink::new(format, source);
                sink.asm = super::assemble::Assembler::live();
                sink
            },
            parser: LineParser::new(format),
            partial: Vec::new(),
            line: 0,
            document: Vec::new(),
            emitted: 0,
            nesting: Nesting::default(),
            parsed: false,
            complete: false,
        }
    }

    /// The format followed.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The log's title once it says one (a Claude Code `summary`, a
    /// SpecStory heading): the context a whole read gives the session.
    pub fn title(&self) -> Option<&str> {
        self.sink.meta.title.as_deref()
    }

    /// The agent's latest message while nothing after it says yet whether
    /// it is an intermediate message or the turn's response (the importer
    /// decides at the next call or user message): what a reader shows,
    /// provisionally, while the log is idle, so the agent's question is
    /// seen while the agent waits for the user. `None` when the agent has
    /// nothing pending, and for a one-document log (each read of it is
    /// whole: its last message is already out as the response).
    pub fn draft(&self) -> Option<String> {
        if !self.format.is_line_based() {
            return None;
        }
        self.parser.draft(self.format, &self.sink)
    }

    /// Takes the bytes that arrived: the events they complete, and the
    /// problems of the lines they end (each naming source and line; the
    /// stream goes on past them).
    pub fn push(&mut self, bytes: &[u8]) -> (Vec<Event>, Vec<ImportError>) {
        if !self.format.is_line_based() {
            self.document.extend_from_slice(bytes);
            if self.complete && !bytes.iter().all(u8::is_ascii_whitespace) {
                // Past the end of the document: read again at the end, to
                // say what is wrong.
                self.complete = false;
            }
            // Parsed only when the top-level value closes: once per
            // document, not once per push.
            if self.nesting.scan(bytes) && !self.parsed {
                return (self.reparse(), Vec::new());
            }
            return (Vec::new(), Vec::new());
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
        self.nesting = Nesting::default();
        self.parsed = false;
        self.complete = false;
        if self.nesting.scan(bytes) {
            return self.reparse();
        }
        Vec::new()
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

    /// Parses the document (once its top-level value closed): the events
    /// not returned yet. A document that does not parse is not parsed
    /// again until it changes whole or the stream ends.
    fn reparse(&mut self) -> Vec<Event> {
        self.parsed = true;
        let Ok(text) = std::str::from_utf8(&self.document) else {
            return Vec::new();
        };
        match import_text(self.format, text, &self.source) {
            Ok(log) => {
                self.complete = true;
                self.new_events(&log)
            }
            Err(_) => Vec::new(),
        }
    }

    /// The events of `log` beyond those already returned.
    fn new_events(&mut self, log: &ImportedLog) -> Vec<Event> {
        if self.sink.meta.title.is_none() {
            self.sink.meta.title.clone_from(&log.meta.title);
        }
        let new: Vec<Event> = log.events().into_iter().skip(self.emitted).collect();
        self.emitted += new.len();
        new
    }

    /// The end of the stream: the last line (even without its `\n`) is
    /// read, and the events still pending come out (the agent's last
    /// message, calls without a result). A one-document log that does not
    /// parse by then is an error.
    pub fn finish(&mut self) -> (Vec<Event>, Vec<ImportError>) {
        if !self.format.is_line_based() {
            if self.complete || self.document.iter().all(u8::is_ascii_whitespace) {
                return (Vec::new(), Vec::new());
            }
            let text = String::from_utf8_lossy(&self.document).into_owned();
            return match import_text(self.format, &text, &self.source) {
                Ok(log) => (self.new_events(&log), Vec::new()),
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
    fn the_agents_held_message_is_a_draft_until_what_follows_says_what_it_is() {
        let user = |t: &str| {
            format!(
                r#"{{"type":"user","sessionId":"s","message":{{"role":"user","content":"{t}"}}}}"#
            ) + "\n"
        };
        let said = r#"{"type":"assistant","sessionId":"s","message":{"id":"m1","content":[{"type":"text","text":"Redis or in-process?"}]}}"#.to_owned() + "\n";
        let mut f = Follower::new(Format::ClaudeCode, "live.jsonl");
        assert_eq!(f.push(user("Add a cache.").as_bytes()).0.len(), 1);
        assert_eq!(f.draft(), None);
        // Held: not returned until the user's reply, but a draft meanwhile.
        assert!(f.push(said.as_bytes()).0.is_empty());
        assert_eq!(f.draft().as_deref(), Some("Redis or in-process?"));
        let (events, _) = f.push(user("In-process.").as_bytes());
        assert_eq!(events[0], Event::assistant("Redis or in-process?"));
        assert_eq!(f.draft(), None);

        // Aider's reader holds the reply itself, until the next prompt.
        let mut f = Follower::new(Format::Aider, "live.md");
        let (events, _) = f.push(b"#### add a cache  \n\nRedis or in-process?\n");
        assert_eq!(events, [Event::user("add a cache")]);
        assert_eq!(f.draft().as_deref(), Some("Redis or in-process?"));
        // Read on copies: the reply still comes out whole.
        let (events, _) = f.finish();
        assert!(
            events.contains(&Event::assistant("Redis or in-process?")),
            "{events:?}"
        );
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
