//! Files that hold many sessions, one a line: OpenHands' resolver and
//! evaluation output (`output.jsonl`, one task a line, each with its
//! `history`). [`holds_sessions`] tells such a file by its first record;
//! [`SessionLines`] reads it line by line (one line in memory at a time,
//! at most a limit of bytes), and each [`SessionLine`] is imported as a
//! log of its own, by the format's own reader, with the session id, run
//! id and error lines of its line. `tact run`, `tact guide` and `tact
//! watch` read such a file through these alone.

use std::io::BufRead;
use std::path::Path;

use tact_core::input::{Line, next_line};
use tact_types::trajectory::Event;

use super::{Format, ImportError, ImportedLog, TurnHook, import_reader_with, import_replayed};

/// Whether a log of `format` whose file starts with `head` holds many
/// sessions, one a line: an OpenHands file whose first record (blank and
/// comment lines skipped) is a task of its resolver or evaluation output.
///
/// ```
/// use tact::import::{Format, holds_sessions};
///
/// let head = r#"{"instance_id":"a__b-1","instruction":"Fix it.","history":[]}"#;
/// assert_eq!(Format::detect("output.jsonl".as_ref(), head), Some(Format::OpenHands));
/// assert!(holds_sessions(Format::OpenHands, head));
/// assert!(!holds_sessions(Format::OpenHands, "[{\"action\":\"message\",\"source\":\"user\"}]"));
/// ```
pub fn holds_sessions(format: Format, head: &str) -> bool {
    let t = super::skip_comments(head.strip_prefix('\u{feff}').unwrap_or(head));
    format == Format::OpenHands && super::openhands::task_looks_like(t.lines().next().unwrap_or(""))
}

/// The sessions of a file that holds many, one a line, read from `reader`
/// as a stream: each non-blank line (comment lines, `//` or `#`, skipped)
/// at most `limit` bytes. A longer line is an error naming it, and the
/// lines after it are read; a failure to read ends the stream.
#[derive(Debug)]
pub struct SessionLines<R> {
    reader: R,
    source: String,
    limit: usize,
    line: usize,
    done: bool,
}

/// One line of a file that holds many sessions: its 1-based number and
/// bytes (without the end of line).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionLine {
    /// The line's number in the file.
    pub line: usize,
    /// The line.
    pub bytes: Vec<u8>,
}

impl<R: BufRead> SessionLines<R> {
    /// The sessions of `reader`; `source` names it in errors.
    pub fn new(reader: R, source: &str, limit: usize) -> Self {
        SessionLines {
            reader,
            source: source.to_owned(),
            limit,
            line: 0,
            done: false,
        }
    }

    /// The same, `reader` starting after the file's first `lines` lines
    /// (a followed file read on from where an earlier read stopped), so
    /// lines keep their numbers.
    #[must_use]
    pub fn starting_at(mut self, lines: usize) -> Self {
        self.line = lines;
        self
    }
}

impl<R: BufRead> Iterator for SessionLines<R> {
    type Item = Result<SessionLine, ImportError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut buf = Vec::new();
        while !self.done {
            self.line += 1;
            buf.clear();
            let line = self.line;
            match next_line(&mut self.reader, &mut buf, self.limit) {
                Err(e) => {
                    self.done = true;
                    return Some(Err(ImportError::new(
                        &self.source,
                        line,
                        format!("cannot read: {e}"),
                    )));
                }
                Ok(Line::End) => self.done = true,
                Ok(Line::TooLong(bytes)) => {
                    return Some(Err(ImportError::new(
                        &self.source,
                        line,
                        format!(
                            "a record of {bytes} bytes is over the limit of {} bytes; skipped",
                            self.limit
                        ),
                    )));
                }
                Ok(Line::Read) => {
                    let bytes = match (line, buf.strip_prefix("\u{feff}".as_bytes())) {
                        (1, Some(rest)) => rest,
                        _ => &buf[..],
                    };
                    let t = bytes.trim_ascii();
                    if t.is_empty() || t.starts_with(b"//") || t.starts_with(b"#") {
                        continue;
                    }
                    return Some(Ok(SessionLine {
                        line,
                        bytes: t.to_vec(),
                    }));
                }
            }
        }
        None
    }
}

impl SessionLine {
    /// The session of this line, read whole as a log of `format` (at most
    /// `max_record_bytes` a record); `source` names the file.
    pub fn import(
        &self,
        format: Format,
        source: &str,
        max_record_bytes: usize,
    ) -> Result<ImportedLog, ImportError> {
        self.import_with(format, source, max_record_bytes, None)
    }

    /// As [`SessionLine::import`], each turn's events handed to `on_event`
    /// as the turn ends and not kept, as
    /// [`import_reader_replayed`](super::import_reader_replayed) does.
    pub fn import_replayed(
        &self,
        format: Format,
        source: &str,
        max_record_bytes: usize,
        on_event: impl FnMut(Event) + 'static,
    ) -> Result<ImportedLog, ImportError> {
        let read = import_replayed(
            format,
            &self.bytes[..],
            source,
            max_record_bytes,
            None,
            on_event,
        );
        self.located(read, source)
    }

    /// As [`SessionLine::import`], `on_turn` called on each turn as it ends.
    pub(crate) fn import_with(
        &self,
        format: Format,
        source: &str,
        max_record_bytes: usize,
        on_turn: Option<TurnHook>,
    ) -> Result<ImportedLog, ImportError> {
        let read = import_reader_with(
            format,
            &self.bytes[..],
            source,
            max_record_bytes,
            on_turn,
            None,
        );
        self.located(read, source)
    }

    /// The session id this line's session has without one of its own:
    /// the file's stem and the line (`output:3`).
    pub fn fallback_id(&self, source: &str) -> String {
        let stem = Path::new(source)
            .file_stem()
            .map_or_else(|| source.to_owned(), |s| s.to_string_lossy().into_owned());
        format!("{stem}:{}", self.line)
    }

    /// A line's import placed in its file: errors and problems at the
    /// line, the session id the task's (else [`SessionLine::fallback_id`]).
    fn located(
        &self,
        read: Result<ImportedLog, ImportError>,
        source: &str,
    ) -> Result<ImportedLog, ImportError> {
        match read {
            Ok(mut log) => {
                log.line = Some(self.line);
                for p in &mut log.problems {
                    p.line = self.line;
                }
                if log.meta.session_id.is_none() {
                    log.meta.session_id = Some(
                        log.meta
                            .task
                            .clone()
                            .unwrap_or_else(|| self.fallback_id(source)),
                    );
                }
                Ok(log)
            }
            Err(mut e) => {
                e.line = self.line;
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = concat!(
        "# output of a run\n",
        r#"{"issue":{"owner":"o","repo":"r","number":5,"title":"Add a licence"},"instruction":"Add a licence.","history":[{"content":"Add a licence.","wait_for_response":false,"action":"message"},{"command":"touch LICENSE","thought":"Creating it.","action":"run"},{"content":"","command":"touch LICENSE","exit_code":0,"observation":"run"},{"outputs":{},"thought":"Done.","action":"finish"}],"success":true,"error":null}"#,
        "\n\n",
        r#"{"instruction":"Fix the bug.","history":[{"code":"open_file('a.py')","thought":"Looking.","action":"run_ipython"},{"content":"[Your proposed edit has introduced new syntax error(s). Please understand the errors]","code":"x","observation":"run_ipython"},{"outputs":{},"thought":"Should I go on?","action":"finish"}],"success":false}"#,
        "\n",
    );

    #[test]
    fn each_line_is_a_session_of_its_own() {
        assert_eq!(
            Format::detect("output.jsonl".as_ref(), TWO),
            Some(Format::OpenHands)
        );
        assert!(holds_sessions(Format::OpenHands, TWO));
        let lines: Vec<SessionLine> = SessionLines::new(TWO.as_bytes(), "output.jsonl", 1 << 20)
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(lines.iter().map(|l| l.line).collect::<Vec<_>>(), [2, 4]);
        let a = lines[0]
            .import(Format::OpenHands, "output.jsonl", 1 << 20)
            .unwrap();
        assert_eq!(a.meta.session_id.as_deref(), Some("o/r#5"));
        assert_eq!(a.meta.title.as_deref(), Some("Add a licence"));
        assert_eq!(
            a.meta.outcome,
            Some(tact_scoring::TaskOutcome::Build { success: true })
        );
        assert_eq!(a.turns.len(), 1);
        let t = &a.turns[0];
        assert_eq!(t.prompt, "Add a licence.");
        assert_eq!(t.response, "Done.");
        assert_eq!(super::super::tool_names(t), ["run"]);
        let session = a.session("output.jsonl".as_ref(), &Default::default());
        assert_eq!(session.run_id.as_deref(), Some("output.jsonl:2"));
        assert_eq!(session.spec_id.as_deref(), Some("o/r#5"));

        // No id: the file's stem and line; the instruction is the prompt;
        // a refused edit fails its call.
        let b = lines[1]
            .import(Format::OpenHands, "runs/output.jsonl", 1 << 20)
            .unwrap();
        assert_eq!(b.meta.session_id.as_deref(), Some("output:4"));
        let t = &b.turns[0];
        assert_eq!(t.prompt, "Fix the bug.");
        let Event::Tool(call) = &t.events[1] else {
            panic!("{:?}", t.events)
        };
        assert!(!call.ok);
        assert_eq!(call.params["code"], "open_file('a.py')");
        assert_eq!(t.response, "Should I go on?");
    }

    /// An evaluation run's history: the agent asks and waits for a
    /// response (`wait_for_response`), the harness's stand-in user answers;
    /// the older evaluation output writes `[action, observation]` pairs
    /// with `source` and `cause`.
    #[test]
    fn the_agent_s_wait_for_the_user_and_pairs_of_events() {
        let line = concat!(
            r#"{"instance_id":"django__django-11099","instruction":"Fix the validator.","history":["#,
            r#"[{"id":1,"source":"agent","action":"run","args":{"command":"ls","thought":"Looking."}},{"id":2,"cause":1,"source":"agent","observation":"run","content":"a.py","extras":{"exit_code":0}}],"#,
            r#"{"content":"Should I also update the tests?","wait_for_response":true,"action":"message"},"#,
            r#"{"content":"Please continue working on the task.","wait_for_response":false,"action":"message"},"#,
            r#"{"outputs":{},"thought":"Done.","action":"finish"}],"#,
            r#""metadata":{"llm_config":{"model":"claude-3-5-sonnet"}},"test_result":{"report":{"resolved":false}}}"#,
        );
        let l = SessionLines::new(line.as_bytes(), "output.jsonl", 1 << 20)
            .next()
            .unwrap()
            .unwrap();
        let log = l
            .import(Format::OpenHands, "output.jsonl", 1 << 20)
            .unwrap();
        assert_eq!(log.meta.session_id.as_deref(), Some("django__django-11099"));
        assert_eq!(log.meta.model.as_deref(), Some("claude-3-5-sonnet"));
        assert_eq!(
            log.meta.outcome,
            Some(tact_scoring::TaskOutcome::Build { success: false })
        );
        assert_eq!(log.turns.len(), 2);
        assert_eq!(log.turns[0].prompt, "Fix the validator.");
        assert_eq!(super::super::tool_names(&log.turns[0]), ["run"]);
        assert_eq!(log.turns[0].response, "Should I also update the tests?");
        assert_eq!(log.turns[1].prompt, "Please continue working on the task.");
        assert_eq!(log.turns[1].response, "Done.");
    }

    #[test]
    fn a_bad_or_long_line_is_an_error_of_its_line_and_the_rest_is_read() {
        let text = format!(
            "{}\n{{\"instruction\":1,\n{{\"instruction\":\"a\",\"history\":[]}}\n",
            "x".repeat(50)
        );
        let mut lines = SessionLines::new(text.as_bytes(), "o.jsonl", 40);
        let e = lines.next().unwrap().unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.message.contains("over the limit"), "{e}");
        let bad = lines.next().unwrap().unwrap();
        let e = bad
            .import(Format::OpenHands, "o.jsonl", 1 << 20)
            .unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let empty = lines.next().unwrap().unwrap();
        let e = empty
            .import(Format::OpenHands, "o.jsonl", 1 << 20)
            .unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        assert!(lines.next().is_none());
    }
}
