//! A live terminal view of an agent session, the way a host's terminal UI
//! embeds tact: each question the agent asks tagged with its effort, each
//! user message with its route, guidance nudges the moment they fire (with
//! cooldowns, as a host applies them), and the running interaction score
//! (R_Proact, R_Pers, the violated preferences, questions per effort, a
//! sparkline over turns). `tact watch` is this crate on a terminal.
//!
//! The view is state ([`App`]) fed with [`Step`](read::Step)s and keys,
//! drawn by [`ui::draw`] on any ratatui backend:
//!
//! ```
//! use ratatui::{Terminal, backend::TestBackend};
//! use tact_watch::{App, Options, read::parse_line};
//!
//! let mut app = App::new(Options::default().color(false))?;
//! let failing = r#"{"type":"tool","name":"shell","params":{"command":"npm ci"},"ok":false}"#;
//! for line in [r#"{"type":"user","text":"Install the deps."}"#, failing, failing, failing, failing] {
//!     if let Some(record) = parse_line(line.as_bytes())? {
//!         app.ingest(record);
//!     }
//! }
//! assert!(app.nudges().any(|n| n.classifier == "doom_loop"));
//!
//! let mut terminal = Terminal::new(TestBackend::new(100, 24))?;
//! terminal.draw(|frame| tact_watch::ui::draw(frame, &app))?;
//! let screen = tact_watch::screen_text(terminal.backend().buffer());
//! assert!(screen.contains("nudge doom_loop"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`run`] puts it on the terminal: raw mode, a thread reading the session
//! (a growing file or stdin, through a [`Reader`](read::Reader)) and
//! labelling each step as it is read ([`Labeler`](label::Labeler): the
//! classifiers run there), a thread reading keys, and the UI thread, which
//! never waits on either.

mod app;
mod error;
pub mod label;
pub mod latest;
pub mod log;
mod model;
pub mod read;
mod row;
mod snapshot;
pub mod source;
mod term;
pub mod ui;

pub use app::{Action, App, MAX_ROWS, ModelTier, Options, Pane, SourceState};
pub use error::Error;
pub use model::ModelSpec;
pub use snapshot::snapshot;
pub use term::{Feed, Summary, run, run_feed};

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// `text` as the view may show it: every credential the scanner
/// recognises redacted (all of it when the scanner is unavailable), then
/// every control character escaped (`\u001b` for ESC), so that nothing
/// from a log drives the terminal.
pub(crate) fn redact(text: &str) -> String {
    let clean = match tact::secrets::CredentialScanner::default().redact_text(text) {
        Ok(clean) => clean,
        Err(_) => return tact::secrets::REDACTED.to_owned(),
    };
    tact::types::excerpt::escape_controls(&clean).into_owned()
}

/// The text of a drawn buffer, one line per row with trailing blanks
/// trimmed, styles dropped: what snapshots of the view compare.
pub fn screen_text(buffer: &ratatui::buffer::Buffer) -> String {
    let area = buffer.area;
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        let mut line = String::new();
        let mut skip = 0usize;
        for x in area.left()..area.right() {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let cell = &buffer[(x, y)];
            let symbol = cell.symbol();
            line.push_str(symbol);
            // A wide character covers the next cell(s).
            skip = unicode_width(symbol).saturating_sub(1);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn unicode_width(s: &str) -> usize {
    ratatui::text::Span::raw(s).width()
}
