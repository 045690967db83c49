//! `tact watch --snapshot`: a whole session ingested at once and its final
//! frame drawn off screen, as plain text (no colour, no escape sequence):
//! for tests, bug reports and README captures.

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::app::{App, Options, SourceState};
use crate::read::Step;
use crate::{Error, screen_text, ui};

/// The final frame of the view, `width` by `height` cells, after every
/// step of `steps` and every warning of `warnings` (bad lines skipped) was
/// ingested: one line per row, trailing blanks trimmed. Colours are off
/// whatever `opts` says; a control character that reached a cell is shown
/// as `�`, so the text carries none.
pub fn snapshot(
    opts: Options,
    steps: Vec<Step>,
    warnings: Vec<String>,
    width: u16,
    height: u16,
) -> Result<String, Error> {
    let mut app = App::new(opts.color(false).replay(None))?;
    for w in warnings {
        app.warn(w);
    }
    app.push(steps);
    while app.step_once() {}
    app.set_source_state(SourceState::Ended);
    let mut terminal =
        Terminal::new(TestBackend::new(width.max(1), height.max(1))).map_err(Error::Terminal)?;
    terminal
        .draw(|frame| ui::draw(frame, &app))
        .map_err(Error::Terminal)?;
    let text = screen_text(terminal.backend().buffer());
    Ok(text
        .chars()
        .map(|c| {
            if c != '\n' && c.is_control() {
                char::REPLACEMENT_CHARACTER
            } else {
                c
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tact::types::Event;

    #[test]
    fn the_final_frame_is_plain_text() {
        let steps = vec![
            Step::Event(Event::user("Add a cache.")),
            Step::Event(Event::assistant("Should it be Redis or in-process?")),
        ];
        let text = snapshot(Options::default(), steps, vec!["t:3: bad".into()], 80, 20).unwrap();
        assert_eq!(text.lines().count(), 20);
        assert!(text.contains("Should it be Redis or in-process?"), "{text}");
        assert!(!text.contains('\u{1b}'));
        assert!(text.contains("turn 1"), "{text}");
    }
}
