//! Drawing the view: the transcript, guidance, score and status panes laid
//! out for the terminal's size (one pane at a time when narrow), in colour
//! unless told not to. Drawing reads only what is on screen: a frame costs
//! the same with ten events or a million.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Sparkline};
use tact::types::{EffortLevel, QueryType};

use crate::app::{App, ModelTier, Pane, SourceState};
use crate::row::RowKind;

/// Below this width or height, one pane at a time.
pub const NARROW_WIDTH: u16 = 72;
/// See [`NARROW_WIDTH`].
pub const NARROW_HEIGHT: u16 = 12;
/// Rows of the score's sparkline, at most.
const SPARK_ROWS: u16 = 3;

/// Styles, or none under `NO_COLOR`.
#[derive(Clone, Copy)]
struct Theme {
    color: bool,
}

impl Theme {
    fn fg(self, c: Color) -> Style {
        if self.color {
            Style::default().fg(c)
        } else {
            Style::default()
        }
    }

    fn effort(self, e: EffortLevel) -> (Style, &'static str) {
        match e {
            EffortLevel::Low => (self.fg(Color::Green), "[low]   "),
            EffortLevel::Medium => (self.fg(Color::Yellow), "[medium]"),
            _ => (self.fg(Color::Red).add_modifier(Modifier::BOLD), "[HIGH]  "),
        }
    }

    fn route(self, q: QueryType) -> (Style, &'static str) {
        match q {
            QueryType::Retrieval => (self.fg(Color::Blue), "[RETRIEVAL]"),
            QueryType::CodeGeneration => (self.fg(Color::Cyan), "[CODE_GENERATION]"),
            QueryType::Conversational => (self.fg(Color::Gray), "[CONVERSATIONAL]"),
            _ => (self.fg(Color::LightMagenta), "[PLATFORM]"),
        }
    }

    fn nudge(self) -> Style {
        self.fg(Color::Magenta).add_modifier(Modifier::BOLD)
    }

    fn dim(self) -> Style {
        self.fg(Color::DarkGray)
    }
}

/// Draws the whole view on `frame`.
pub fn draw(frame: &mut Frame<'_>, app: &App) {
    let theme = Theme {
        color: app.options().color,
    };
    let area = frame.area();
    let (main, status) = if app.is_shown(Pane::Status) && area.height > 1 {
        let [main, status] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(area);
        (main, Some(status))
    } else {
        (area, None)
    };
    let panes: Vec<Pane> = [Pane::Transcript, Pane::Guidance, Pane::Score]
        .into_iter()
        .filter(|p| app.is_shown(*p))
        .collect();
    let narrow = main.width < NARROW_WIDTH || main.height < NARROW_HEIGHT;
    if panes.is_empty() {
        frame.render_widget(
            Paragraph::new("every pane is hidden: 1, 2, 3 show them again"),
            main,
        );
    } else if narrow {
        let pane = if panes.contains(&app.focus) {
            app.focus
        } else {
            panes[0]
        };
        draw_pane(frame, app, theme, pane, main, panes.len() > 1);
    } else if panes.contains(&Pane::Transcript) && panes.len() > 1 {
        let side = (main.width * 2 / 5).clamp(32, 64);
        let [left, right] =
            Layout::horizontal([Constraint::Min(30), Constraint::Length(side)]).areas(main);
        draw_pane(frame, app, theme, Pane::Transcript, left, false);
        draw_side(frame, app, theme, &panes, right);
    } else if panes.contains(&Pane::Transcript) {
        draw_pane(frame, app, theme, Pane::Transcript, main, false);
    } else {
        draw_side(frame, app, theme, &panes, main);
    }
    if let Some(status) = status {
        draw_status(frame, app, theme, status);
    }
    if app.help {
        draw_help(frame, theme, area);
    }
}

/// Guidance above the score, in one column.
fn draw_side(frame: &mut Frame<'_>, app: &App, theme: Theme, panes: &[Pane], area: Rect) {
    let guidance = panes.contains(&Pane::Guidance);
    let score = panes.contains(&Pane::Score);
    match (guidance, score) {
        (true, true) => {
            let score_height = 10.min(area.height.saturating_sub(4)).max(3);
            let [g, s] = Layout::vertical([Constraint::Min(3), Constraint::Length(score_height)])
                .areas(area);
            draw_pane(frame, app, theme, Pane::Guidance, g, false);
            draw_pane(frame, app, theme, Pane::Score, s, false);
        }
        (true, false) => draw_pane(frame, app, theme, Pane::Guidance, area, false),
        (false, true) => draw_pane(frame, app, theme, Pane::Score, area, false),
        (false, false) => {}
    }
}

fn block(title: String, theme: Theme, focused: bool) -> Block<'static> {
    let style = if focused {
        theme.fg(Color::Cyan)
    } else {
        Style::default()
    };
    Block::default()
        .borders(Borders::ALL)
        .border_style(style)
        .title(title)
}

fn draw_pane(frame: &mut Frame<'_>, app: &App, theme: Theme, pane: Pane, area: Rect, more: bool) {
    let hint = if more { " · tab: next pane" } else { "" };
    match pane {
        Pane::Transcript => draw_transcript(frame, app, theme, area, hint),
        Pane::Guidance => draw_guidance(frame, app, theme, area, hint),
        Pane::Score => draw_score(frame, app, theme, area, hint),
        Pane::Status => draw_status(frame, app, theme, area),
    }
}

fn draw_transcript(frame: &mut Frame<'_>, app: &App, theme: Theme, area: Rect, hint: &str) {
    let height = usize::from(area.height.saturating_sub(2));
    app.page.set(height.max(1));
    let top = app.top_row(height);
    let end = (top + height).min(app.end_row());
    let position = if app.top.is_none() {
        String::from("end")
    } else {
        format!("{}-{}/{}", top + 1, end, app.end_row())
    };
    let title = format!(" transcript · {position}{hint} ");
    let mut lines = Vec::with_capacity(end - top);
    let kept = top.saturating_sub(app.first_row)..end.saturating_sub(app.first_row);
    for (i, row) in app.rows.range(kept).enumerate() {
        let mut line = row_line(app, theme, row);
        if app.cursor == Some(top + i) {
            line = line.patch_style(Style::default().add_modifier(Modifier::REVERSED));
        }
        lines.push(line);
    }
    if app.rows.is_empty() {
        lines.push(Line::styled("waiting for events…", theme.dim()));
    }
    frame.render_widget(
        Paragraph::new(lines).block(block(title, theme, app.focus == Pane::Transcript)),
        area,
    );
}

fn row_line<'a>(app: &'a App, theme: Theme, row: &'a crate::row::Row) -> Line<'a> {
    let text = row.text();
    match &row.kind {
        RowKind::Session => Line::from(vec![
            Span::styled("━━ session ", theme.dim()),
            Span::styled(text, Style::default().add_modifier(Modifier::BOLD)),
        ]),
        RowKind::User(route) => {
            let (style, label) = theme.route(*route);
            Line::from(vec![
                Span::styled("user  ", Style::default().add_modifier(Modifier::BOLD)),
                Span::styled(label, style),
                Span::raw(" "),
                Span::raw(text),
            ])
        }
        RowKind::Agent => Line::from(vec![Span::styled("agent ", theme.dim()), Span::raw(text)]),
        // Provisional: the log is idle after it, what it is not yet known.
        RowKind::Draft => Line::from(vec![
            Span::styled("agent…", theme.dim()),
            Span::styled(text, Style::default().add_modifier(Modifier::ITALIC)),
        ]),
        RowKind::Question(effort) => {
            let (style, label) = theme.effort(*effort);
            Line::from(vec![
                Span::raw("  ?   "),
                Span::styled(label, style),
                Span::raw(" "),
                Span::styled(text, style.remove_modifier(Modifier::BOLD)),
            ])
        }
        RowKind::Tool { ok } => {
            let (mark, style) = if *ok {
                ("✓ ", theme.fg(Color::Green))
            } else {
                ("✗ ", theme.fg(Color::Red))
            };
            Line::from(vec![
                Span::styled("tool  ", theme.dim()),
                Span::styled(mark, style),
                Span::raw(text),
            ])
        }
        RowKind::Guidance(i) => {
            let reason = app.nudge(*i).map_or("", |f| f.reason());
            Line::from(vec![
                Span::styled("  ⚑   nudge ", theme.nudge()),
                Span::styled(text, theme.nudge()),
                Span::raw(": "),
                Span::raw(reason),
            ])
        }
        RowKind::Injected => Line::from(vec![
            Span::styled("host  ", theme.fg(Color::Magenta)),
            Span::raw(text),
        ]),
        RowKind::Progress => Line::from(vec![
            Span::styled("prog  ", theme.fg(Color::Green)),
            Span::raw(text),
        ]),
        RowKind::Condensation => Line::from(vec![
            Span::styled("····  ", theme.dim()),
            Span::styled(text, theme.dim()),
        ]),
    }
}

fn draw_guidance(frame: &mut Frame<'_>, app: &App, theme: Theme, area: Rect, hint: &str) {
    let title = format!(" guidance · {} nudges{hint} ", app.nudges_fired());
    let per = 2usize;
    let fit = (usize::from(area.height.saturating_sub(2)) / per).max(1);
    let n = app.nudges.len();
    // The last ones, or a window holding the one jumped to.
    let start = match app.nudge_cursor {
        Some(c) if c + fit <= n => c.saturating_sub(fit / 2).min(n.saturating_sub(fit)),
        _ => n.saturating_sub(fit),
    };
    let mut lines = Vec::new();
    for (i, f) in app.nudges.iter().enumerate().skip(start).take(fit) {
        let n = &f.nudge;
        let mut head = Line::from(vec![
            Span::styled(format!("event {:<4}", n.position), theme.dim()),
            Span::styled(n.classifier.clone(), theme.nudge()),
            Span::raw(format!(" {:.2} ", n.result.confidence)),
            Span::styled(n.provider.clone(), theme.dim()),
        ]);
        let mut reason = Line::from(vec![Span::raw("  "), Span::raw(f.reason())]);
        if app.nudge_cursor == Some(i) {
            let rev = Style::default().add_modifier(Modifier::REVERSED);
            head = head.patch_style(rev);
            reason = reason.patch_style(rev);
        }
        lines.push(head);
        lines.push(reason);
    }
    if lines.is_empty() {
        lines.push(Line::styled("no nudge yet", theme.dim()));
    }
    frame.render_widget(
        Paragraph::new(lines).block(block(title, theme, app.focus == Pane::Guidance)),
        area,
    );
}

fn figure(x: f64) -> String {
    format!("{x:+.2}")
}

fn draw_score(frame: &mut Frame<'_>, app: &App, theme: Theme, area: Rect, hint: &str) {
    let Some(s) = &app.score else {
        let b = block(format!(" score{hint} "), theme, app.focus == Pane::Score);
        frame.render_widget(
            Paragraph::new(Line::styled("no turn scored yet", theme.dim())).block(b),
            area,
        );
        return;
    };
    let title = format!(" score · {} · turn {}{hint} ", s.profile, s.turns);
    let b = block(title, theme, app.focus == Pane::Score);
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let (low, medium, high) = (
        theme.effort(EffortLevel::Low).0,
        theme.effort(EffortLevel::Medium).0,
        theme.effort(EffortLevel::High).0,
    );
    let violated = if s.preferences == 0 {
        String::from("no preference stated")
    } else if s.violated.is_empty() {
        String::from("none")
    } else {
        s.violated
            .iter()
            .map(|(p, n)| format!("{p} ×{n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let lines = vec![
        Line::from(vec![
            Span::styled("R_Proact ", Style::default().add_modifier(Modifier::BOLD)),
            Span::raw(figure(s.r_proact)),
            Span::styled("  R_Pers ", Style::default().add_modifier(Modifier::BOLD)),
            Span::raw(figure(s.r_pers)),
        ]),
        Line::raw(format!("interaction {}", figure(s.interaction))),
        Line::from(vec![
            Span::raw("questions "),
            Span::styled(format!("low {}", s.questions[0]), low),
            Span::raw(" · "),
            Span::styled(format!("medium {}", s.questions[1]), medium),
            Span::raw(" · "),
            Span::styled(format!("high {}", s.questions[2]), high),
        ]),
        Line::from(vec![
            Span::raw("violated "),
            Span::styled(violated, theme.fg(Color::Red)),
        ]),
    ];
    let text_height = (lines.len() as u16).min(inner.height);
    let [text, rest] =
        Layout::vertical([Constraint::Length(text_height), Constraint::Min(0)]).areas(inner);
    frame.render_widget(Paragraph::new(lines), text);
    if rest.height >= 2 {
        let [label, spark, _] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Length(rest.height.saturating_sub(1).min(SPARK_ROWS)),
            Constraint::Min(0),
        ])
        .areas(rest);
        let width = usize::from(spark.width);
        let shown = &app.spark[app.spark.len().saturating_sub(width)..];
        let (min, max) = shown
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
        frame.render_widget(
            Paragraph::new(Line::styled(
                format!(
                    "interaction over turns ({} to {})",
                    figure(min),
                    figure(max)
                ),
                theme.dim(),
            )),
            label,
        );
        let data: Vec<u64> = shown
            .iter()
            .map(|&x| ((x - min) * 1000.0).round().max(0.0) as u64 + 1)
            .collect();
        frame.render_widget(
            Sparkline::default()
                .data(&data)
                .style(theme.fg(Color::Cyan)),
            spark,
        );
    }
}

fn draw_status(frame: &mut Frame<'_>, app: &App, theme: Theme, area: Rect) {
    let mut spans = Vec::new();
    let (state, style) = match &app.source_state {
        SourceState::Following => ("live".to_owned(), theme.fg(Color::Green)),
        SourceState::Ended => ("ended".to_owned(), theme.dim()),
        SourceState::Failed(why) => (format!("failed: {why}"), theme.fg(Color::Red)),
    };
    if app.paused {
        spans.push(Span::styled(
            " PAUSED ",
            Style::default().add_modifier(Modifier::REVERSED),
        ));
        spans.push(Span::raw(" "));
    }
    spans.push(Span::styled(state, style));
    spans.push(Span::raw(format!(
        " · {} events · {:.1}/s",
        app.events,
        app.rate()
    )));
    if app.first_row > 0 {
        spans.push(Span::styled(
            format!(" · {} oldest rows dropped", app.first_row),
            theme.dim(),
        ));
    }
    if let Some(speed) = app.options().replay {
        spans.push(Span::raw(format!(
            " · replay {speed}/s, {} queued",
            app.queued()
        )));
    }
    let names = ["heuristic", "learned", "seed", "model"];
    let tiers: Vec<String> = names
        .iter()
        .zip(app.tiers)
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    spans.push(Span::raw(format!(
        " · tiers {}",
        if tiers.is_empty() {
            String::from("-")
        } else {
            tiers.join(" ")
        }
    )));
    let model = match &app.model {
        ModelTier::Off => String::from("off"),
        ModelTier::Ready { name } => format!("{name} ready"),
        ModelTier::Busy { name, in_flight } => format!("{name} busy ({in_flight})"),
        ModelTier::Unavailable { name, reason } => format!("{name} unavailable: {reason}"),
    };
    spans.push(Span::raw(format!(" · model {model}")));
    if app.skipped > 0 {
        spans.push(Span::styled(
            format!(
                " · {} skipped: {}",
                app.skipped,
                app.last_warning.as_deref().unwrap_or("")
            ),
            theme.fg(Color::Yellow),
        ));
    }
    spans.push(Span::styled(" · ? help", theme.dim()));
    spans.push(Span::raw(format!(" · {}", app.options().source)));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

const HELP: [(&str, &str); 11] = [
    ("q", "quit"),
    ("space", "pause / resume"),
    ("↑ ↓ j k", "scroll one row"),
    ("PgUp PgDn", "scroll one page"),
    ("Home End", "first row / follow the end"),
    ("n N", "next / previous nudge"),
    ("h H", "next / previous high-effort question"),
    ("1 2 3 4", "toggle transcript, guidance, score, status"),
    ("tab", "next pane (one at a time when narrow)"),
    ("?", "this help (any key closes it)"),
    ("NO_COLOR", "set in the environment: no colour"),
];

fn draw_help(frame: &mut Frame<'_>, theme: Theme, area: Rect) {
    let width = 60.min(area.width);
    let height = (HELP.len() as u16 + 2).min(area.height);
    let rect = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    let lines: Vec<Line<'_>> = HELP
        .iter()
        .map(|(k, what)| {
            Line::from(vec![
                Span::styled(format!("{k:>10}  "), theme.fg(Color::Cyan)),
                Span::raw(*what),
            ])
        })
        .collect();
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines).block(block(String::from(" keys "), theme, true)),
        rect,
    );
}
