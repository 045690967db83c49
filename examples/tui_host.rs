//! The smallest terminal UI embedding tact, to copy into a host: a
//! stand-in agent loop sends its events, the UI thread feeds each one to
//! the facade (guidance with cooldowns, the effort of each question) and
//! draws the transcript and the nudges with ratatui. `HOOK` comments mark
//! where a real host plugs in. `q` quits. Without a terminal (in a pipe),
//! it runs the script to its end and prints one frame instead.
//!
//! ```sh
//! cargo run --example tui_host
//! ```
#![allow(clippy::print_stdout)]

use std::io::IsTerminal;
use std::sync::mpsc;
use std::time::Duration;

use ratatui::crossterm::event::{self, Event as Term, KeyCode};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui::{Frame, Terminal, backend::TestBackend};
use serde_json::json;
use tact::effort::EffortClassifier;
use tact::guidance::Guide;
use tact::secrets::CredentialScanner;
use tact::types::{EffortLevel, Event, Mode, ToolCall};

/// HOOK (your agent): the stand-in for a real agent loop, on its own
/// thread. A host sends each message and tool result as it happens.
fn stand_in_agent(tx: mpsc::Sender<Event>, pace: Duration) {
    let health = || {
        ToolCall::new("shell")
            .params(json!({"command": "curl -sf https://pricing.internal/healthz"}))
            .ok(false)
            .output("curl: (7) Failed to connect: Connection refused")
    };
    let mut script = vec![
        Event::user("Put a read-through cache in front of get_price."),
        Event::tool(ToolCall::new("read_file").params(json!({"path": "src/pricing.rs"}))),
        Event::assistant("Checking that the pricing service is up first."),
    ];
    script.extend((0..5).map(|_| Event::tool(health())));
    script.push(Event::assistant(
        "Should the cache key include the currency? Can you find out which Redis \
         version production runs and send me the platform team's notes?",
    ));
    for event in script {
        std::thread::sleep(pace);
        if tx.send(event).is_err() {
            return; // The UI quit.
        }
    }
}

/// What the host keeps: tact's state and what it shows.
struct Host {
    guide: Guide,
    effort: EffortClassifier,
    scanner: CredentialScanner,
    transcript: Vec<Line<'static>>,
    nudges: Vec<Line<'static>>,
}

impl Host {
    /// Called on the UI thread for every agent event: tact answers in
    /// microseconds, so nothing here waits.
    fn on_event(&mut self, event: Event) {
        // HOOK (guidance): every event goes to the guide, which applies the
        // cooldowns and says when to nudge.
        for nudge in self.guide.observe(&event) {
            // HOOK (nudge): show it, and inject `nudge.message` into the
            // agent's next turn (as a system or user message).
            let text = format!(
                "event {} · {}: {}",
                nudge.position,
                nudge.classifier,
                nudge.message.replace('\n', " ")
            );
            self.nudges.push(Line::styled(
                self.clean(&text),
                Style::default().fg(Color::Magenta),
            ));
        }
        let line = match &event {
            Event::User { text } => format!("user  {text}"),
            Event::Assistant { text } => {
                self.transcript
                    .push(Line::raw(self.clean(&format!("agent {text}"))));
                // HOOK (questions): classify each question before the user
                // sees it; a host may reword or hold back a high-effort one.
                for q in tact::text::extract_questions(text) {
                    let q = q.text(text);
                    let (label, color) = match self.effort.classify(q, None).label {
                        EffortLevel::Low => ("low", Color::Green),
                        EffortLevel::Medium => ("medium", Color::Yellow),
                        _ => ("HIGH", Color::Red),
                    };
                    let row = self.clean(&format!("  ? [{label}] {q}"));
                    self.transcript
                        .push(Line::styled(row, Style::default().fg(color)));
                }
                return;
            }
            Event::Tool(call) => format!("tool  {} {} ok={}", call.name, call.params, call.ok),
            _ => return,
        };
        self.transcript.push(Line::raw(self.clean(&line)));
    }

    /// HOOK (display): nothing shown carries a credential tact recognises.
    fn clean(&self, text: &str) -> String {
        self.scanner
            .redact_text(text)
            .map_or_else(|_| String::from("[REDACTED]"), |t| t.into_owned())
    }
}

fn draw(frame: &mut Frame<'_>, host: &Host) {
    let [top, bottom] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(8)]).areas(frame.area());
    // The newest rows that fit.
    let rows = usize::from(top.height.saturating_sub(2));
    let shown = &host.transcript[host.transcript.len().saturating_sub(rows)..];
    let block = |title| Block::default().borders(Borders::ALL).title(title);
    frame.render_widget(
        Paragraph::new(shown.to_vec()).block(block(" agent (q quits) ")),
        top,
    );
    let nudges = Paragraph::new(host.nudges.clone()).wrap(Wrap { trim: true });
    frame.render_widget(nudges.block(block(" tact nudges ")), bottom);
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut host = Host {
        // Build once (patterns and models load here), reuse for every event.
        guide: Guide::new(Mode::Interactive),
        effort: EffortClassifier::builder().build()?,
        scanner: CredentialScanner::default(),
        transcript: Vec::new(),
        nudges: Vec::new(),
    };
    let (tx, rx) = mpsc::channel();
    if !std::io::stdout().is_terminal() {
        // No terminal: the whole script, one frame, printed.
        stand_in_agent(tx, Duration::ZERO);
        rx.try_iter().for_each(|e| host.on_event(e));
        let mut terminal = Terminal::new(TestBackend::new(100, 24))?;
        terminal.draw(|f| draw(f, &host))?;
        let buffer = terminal.backend().buffer();
        for y in 0..buffer.area.height {
            let row: String = (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect();
            println!("{}", row.trim_end());
        }
        return Ok(());
    }
    std::thread::spawn(move || stand_in_agent(tx, Duration::from_millis(400)));
    // Raw mode and the alternate screen, restored on panic too.
    let mut terminal = ratatui::try_init()?;
    let result = (|| -> std::io::Result<()> {
        loop {
            // HOOK (your event loop): take what the agent sent, never wait on it.
            rx.try_iter().for_each(|e| host.on_event(e));
            terminal.draw(|f| draw(f, &host))?;
            // Keys, waiting at most one frame.
            if event::poll(Duration::from_millis(50))? {
                if let Term::Key(key) = event::read()? {
                    if key.code == KeyCode::Char('q') {
                        return Ok(());
                    }
                }
            }
        }
    })();
    ratatui::restore();
    Ok(result?)
}
