//! Transcript rows: what one line of the view shows (a message, a
//! question with its effort, a tool call, a nudge), built from the event
//! when it is ingested, at most [`ROW_CHARS`] characters, and redacted the
//! first time it is drawn.

use std::cell::OnceCell;

use tact::types::{EffortLevel, QueryType, ToolCall};

/// Most characters of one transcript row kept for display.
pub(crate) const ROW_CHARS: usize = 400;

/// What a transcript row shows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RowKind {
    /// A session starts.
    Session,
    /// A user message, with its route.
    User(QueryType),
    /// An agent message (its questions follow as rows).
    Agent,
    /// The agent's latest message while a followed log is idle, shown
    /// provisionally (its questions follow as rows) until what follows
    /// says whether it is the turn's response.
    Draft,
    /// A question the agent asked, with its effort.
    Question(EffortLevel),
    /// A tool call (`ok`: it succeeded).
    Tool {
        /// The call succeeded.
        ok: bool,
    },
    /// A nudge that fired here (index into the nudges).
    Guidance(usize),
    /// A nudge the host injected (a `nudge` event of the input).
    Injected,
    /// A progress signal.
    Progress,
    /// The host trimmed the context.
    Condensation,
}

/// One transcript row: one line on screen.
///
/// A row keeps its line only, never the event it came from: whatever an
/// event's size (a tool's whole output, a long message), a row holds at
/// most [`ROW_CHARS`] characters, and the event itself is dropped as soon
/// as it is ingested.
#[derive(Debug)]
pub(crate) struct Row {
    pub(crate) kind: RowKind,
    /// The line as ingested (not yet redacted): the first line of the
    /// text, at most [`ROW_CHARS`] characters.
    line: String,
    /// The line shown, redacted the first time it is drawn.
    shown: OnceCell<String>,
}

impl Row {
    /// A row showing the first line of `text`.
    pub(crate) fn new(kind: RowKind, text: &str) -> Self {
        Self::with_line(kind, one_line(text))
    }

    /// A row showing a tool call: its name, params and the first line of
    /// its output.
    pub(crate) fn tool(call: &ToolCall) -> Self {
        Self::with_line(RowKind::Tool { ok: call.ok }, call_line(call))
    }

    fn with_line(kind: RowKind, line: String) -> Self {
        Self {
            kind,
            line,
            shown: OnceCell::new(),
        }
    }

    /// The row's text: one line, at most [`ROW_CHARS`] characters, with
    /// every credential the scanner recognises redacted.
    pub(crate) fn text(&self) -> &str {
        self.shown.get_or_init(|| crate::redact(&self.line))
    }
}

/// The first line of `text` (trimmed), cut at [`ROW_CHARS`] characters,
/// and whether anything of `text` was left out.
fn first_line(text: &str) -> (&str, bool) {
    let text = text.trim();
    // Only the bytes a line can keep are searched: a huge one-line text
    // costs no more than a short one.
    let mut head = text.len().min(LINE_BYTES);
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let end = memchr::memchr2(b'\n', b'\r', &text.as_bytes()[..head]).unwrap_or(head);
    let first = text.get(..end).unwrap_or("");
    // Bytes bound characters: a short line needs no counting.
    let first = if first.len() <= ROW_CHARS {
        first
    } else {
        first
            .char_indices()
            .nth(ROW_CHARS)
            .map_or(first, |(at, _)| &first[..at])
    };
    (first, first.len() < text.len())
}

/// The first line of `text`, cut at [`ROW_CHARS`] (with `…` when cut).
pub(crate) fn one_line(text: &str) -> String {
    let (first, cut) = first_line(text);
    let mut out = String::with_capacity(first.len() + if cut { 3 } else { 0 });
    out.push_str(first);
    if cut {
        out.push('…');
    }
    out
}

/// Bytes a line is built from before it is cut to its first line: enough
/// for [`ROW_CHARS`] characters of any width and one more, which marks
/// the cut.
const LINE_BYTES: usize = 4 * ROW_CHARS + 4;

/// A line being built that takes at most [`LINE_BYTES`] bytes and then
/// refuses the rest, so a huge value costs no more than its first bytes.
struct LineBuf(String);

impl LineBuf {
    fn push(&mut self, s: &str) -> bool {
        std::fmt::Write::write_str(self, s).is_ok()
    }
}

impl std::fmt::Write for LineBuf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let room = LINE_BYTES.saturating_sub(self.0.len());
        if s.len() <= room {
            self.0.push_str(s);
            return Ok(());
        }
        let mut cut = room;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        self.0.push_str(s.get(..cut).unwrap_or(""));
        Err(std::fmt::Error)
    }
}

/// A tool call in one line: name, params (`key=value` for an object),
/// and the first line of its output, built from the call's first
/// [`LINE_BYTES`] bytes at most, in one allocation.
fn call_line(call: &ToolCall) -> String {
    use std::fmt::Write as _;
    let mut b = LineBuf(String::with_capacity(128));
    let mut room = b.push(&call.name);
    match &call.params {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                room = room
                    && b.push(" ")
                    && b.push(k)
                    && b.push("=")
                    && match v {
                        serde_json::Value::String(v) => b.push(v),
                        other => write!(b, "{other}").is_ok(),
                    };
                if !room {
                    break;
                }
            }
        }
        other => room = room && write!(b, " {other}").is_ok(),
    }
    if room {
        let rendered;
        let output = match &call.output {
            serde_json::Value::String(s) => s.as_str(),
            serde_json::Value::Null => "",
            other => {
                let mut o = LineBuf(String::new());
                let _ = write!(o, "{other}");
                rendered = o.0;
                &rendered
            }
        };
        let (first, cut) = first_line(output);
        if !first.is_empty() && b.push(" → ") && b.push(first) && cut {
            let _ = b.push("…");
        }
    }
    // Most lines are one line already; else (a newline or leading blank
    // in the name or params, or too long) the first line, cut.
    let whole = matches!(first_line(&b.0), (first, false) if first.len() == b.0.len());
    if whole { b.0 } else { one_line(&b.0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(params: serde_json::Value, output: serde_json::Value) -> ToolCall {
        let mut c = ToolCall::new("shell");
        c.params = params;
        c.output = output;
        c
    }

    #[test]
    fn a_tool_row_shows_name_params_and_the_first_line_of_the_output() {
        let c = call(
            serde_json::json!({"command": "cargo test", "timeout": 60}),
            serde_json::json!("test result: ok\nmore"),
        );
        assert_eq!(
            call_line(&c),
            "shell command=cargo test timeout=60 → test result: ok…"
        );
        let bare = call(serde_json::json!({}), serde_json::Value::Null);
        assert_eq!(call_line(&bare), "shell");
        let list = call(serde_json::json!(["a", 1]), serde_json::json!({"n": 2}));
        assert_eq!(call_line(&list), r#"shell ["a",1] → {"n":2}"#);
        // A newline in the params ends the line.
        let heredoc = call(
            serde_json::json!({"command": "cat <<EOF\nx"}),
            serde_json::json!("ok"),
        );
        assert_eq!(call_line(&heredoc), "shell command=cat <<EOF…");
    }

    #[test]
    fn a_row_holds_at_most_its_characters_whatever_the_event_size() {
        let huge = "é".repeat(1_000_000);
        let c = call(
            serde_json::json!({"a": huge.clone(), "b": {"nested": huge.clone()}}),
            serde_json::json!({"big": huge.clone()}),
        );
        let line = call_line(&c);
        assert_eq!(line.chars().count(), ROW_CHARS + 1);
        assert!(line.ends_with('…'));
        let row = Row::new(RowKind::Agent, &huge);
        assert_eq!(row.line.chars().count(), ROW_CHARS + 1);
        assert_eq!(Row::new(RowKind::Agent, "  one\ntwo").text(), "one…");
        assert_eq!(Row::new(RowKind::Agent, "").text(), "");
        // Cut inside a multi-byte character: never splits it.
        let mut b = LineBuf(String::new());
        assert!(!b.push(&"€".repeat(LINE_BYTES)));
        assert!(b.0.len() <= LINE_BYTES && b.0.chars().all(|c| c == '€'));
    }
}
