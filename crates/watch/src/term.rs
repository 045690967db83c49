//! The terminal loop: raw mode and the alternate screen (restored on exit
//! and on panic), a thread reading keys and a thread reading (and
//! labelling) the session, both feeding one channel, and the UI thread ingesting, drawing and
//! handling keys, never waiting on either for longer than a frame.

use std::io::IsTerminal;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use ratatui::crossterm::event::{self, Event as TermEvent};

use crate::app::{Action, App, Options, SourceState};
use crate::read::Reader;
use crate::source::{self, Input, Source};
use crate::{Error, ui};
use tact::import::Format;
use tact::scoring::Session;

/// The longest the UI thread waits for a message before it draws again.
const FRAME: Duration = Duration::from_millis(50);
/// Most messages handled between two frames.
const MESSAGES_PER_FRAME: usize = 256;

/// What a view saw, once it is closed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Summary {
    /// Events observed.
    pub events: u64,
    /// Nudges fired.
    pub nudges: usize,
    /// Bad lines skipped.
    pub skipped: usize,
}

enum Msg {
    Input(Input),
    Term(TermEvent),
}

/// How the followed source is read.
#[non_exhaustive]
pub enum Feed {
    /// tact's own formats, line by line through a [`Reader`].
    Lines(Box<dyn Reader>),
    /// An agent's log of `format`, through `tact::import` (as `tact run`
    /// and `tact guide` read it), its session starting with `header`
    /// ([`crate::log::header`]).
    Log {
        /// The log's format.
        format: Format,
        /// The session's header.
        header: Box<Session>,
    },
    /// An agent's log that holds many sessions, one a line (OpenHands'
    /// `output.jsonl`): the session named `session`, else the last, then
    /// each one appended (`crate::source::spawn_sessions`).
    Sessions {
        /// The log's format.
        format: Format,
        /// What the log does not carry (its sidecar).
        defaults: Box<tact::import::ImportDefaults>,
        /// The session's id, if one is asked for.
        session: Option<String>,
    },
}

/// Runs the view on the terminal until `q`: `source` read by `reader` on
/// a thread of its own, keys on another. Needs a terminal on stdout.
pub fn run(opts: Options, source: Source, reader: Box<dyn Reader>) -> Result<Summary, Error> {
    run_feed(opts, source, Feed::Lines(reader))
}

/// [`run`] with any [`Feed`]: tact's own stream or an agent's log.
pub fn run_feed(opts: Options, source: Source, feed: Feed) -> Result<Summary, Error> {
    if !std::io::stdout().is_terminal() {
        return Err(Error::Terminal(std::io::Error::other(
            "stdout is not a terminal (tact watch draws a screen; use `tact guide --follow` in a pipe)",
        )));
    }
    let mut app = App::new(opts)?;
    let (tx, rx) = mpsc::channel();
    // The session's steps are classified on the reading thread, as they
    // are read: the UI thread only observes them.
    let labeler = app.labeler();
    match feed {
        Feed::Lines(reader) => source::spawn(source, reader, Some(labeler), tx.clone(), Msg::Input),
        Feed::Log { format, header } => source::spawn_log(
            source,
            format,
            *header,
            Some(labeler),
            tx.clone(),
            Msg::Input,
        ),
        Feed::Sessions {
            format,
            defaults,
            session,
        } => source::spawn_sessions(
            source,
            format,
            *defaults,
            session,
            Some(labeler),
            tx.clone(),
            Msg::Input,
        ),
    }
    .map_err(Error::Terminal)?;
    std::thread::Builder::new()
        .name(String::from("tact-watch-keys"))
        .spawn(move || {
            // Blocks on the terminal, never the UI thread; ends with the
            // process or when the UI is gone.
            while let Ok(ev) = event::read() {
                if tx.send(Msg::Term(ev)).is_err() {
                    break;
                }
            }
        })
        .map_err(Error::Terminal)?;
    let mut terminal = ratatui::try_init().map_err(Error::Terminal)?;
    let result = (|| {
        loop {
            let mut quit = false;
            let mut handle = |m: Msg, app: &mut App| match m {
                Msg::Input(Input::Steps(steps)) => app.push(steps),
                Msg::Input(Input::Warning(w)) => app.warn(w),
                Msg::Input(Input::Ended) => app.set_source_state(SourceState::Ended),
                Msg::Input(Input::Failed(why)) => app.set_source_state(SourceState::Failed(why)),
                Msg::Term(TermEvent::Key(key)) => {
                    if app.on_key(key) == Action::Quit {
                        quit = true;
                    }
                }
                Msg::Term(_) => {}
            };
            match rx.recv_timeout(FRAME) {
                Ok(m) => {
                    handle(m, &mut app);
                    for m in rx.try_iter().take(MESSAGES_PER_FRAME) {
                        handle(m, &mut app);
                    }
                }
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {}
            }
            if quit {
                return Ok(());
            }
            app.pump(Instant::now());
            terminal
                .draw(|frame| ui::draw(frame, &app))
                .map_err(Error::Terminal)?;
        }
    })();
    ratatui::restore();
    result.map(|()| Summary {
        events: app.events(),
        nudges: app.nudges_fired(),
        skipped: app.skipped,
    })
}
