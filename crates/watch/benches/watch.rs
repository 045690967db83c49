//! Criterion benchmarks of `tact watch`: one frame drawn with 10,000
//! events in the session (target: under 2 ms, median), and the cost of
//! ingesting one event against `tact guide --follow`'s (target: no more,
//! median), all reading the line with the same `parse_line`. `tact watch`
//! splits the work over two threads, each timed alone: the reading thread
//! parses and labels (`watch_read`), the UI thread observes, keeps rows
//! and scores (`watch_view`); `inline` is both on one thread, as a host
//! calling `App::ingest` does.
//!
//! ```sh
//! cargo bench -p tact-watch --bench watch
//! ```
#![allow(clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tact::guidance::Guide;
use tact::types::Mode;
use tact_watch::label::Labeler;
use tact_watch::read::{Record, Step, parse_line, steps};
use tact_watch::{App, Options};

/// A bare event stream of `n` lines, as an agent's log: per turn a user
/// message, reads, a test run (failing, then passing), and a message with
/// questions; every fifth turn loops on a failing health check.
fn stream(n: usize, with_messages: bool) -> Vec<String> {
    let mut lines = Vec::with_capacity(n);
    let mut turn = 0usize;
    while lines.len() < n {
        if with_messages {
            lines.push(format!(
                r#"{{"type":"user","text":"Step {turn}: make the pricing tests pass and keep the cache."}}"#
            ));
        }
        for f in 0..3 {
            lines.push(format!(
                r#"{{"type":"tool","name":"read_file","params":{{"path":"src/pricing/mod{turn}_{f}.rs"}},"output":"pub fn get_price(&self, id: u64) -> Price {{"}}"#
            ));
        }
        lines.push(r#"{"type":"tool","name":"shell","params":{"command":"cargo test -p pricing"},"ok":false,"output":"test result: FAILED. 11 passed; 1 failed"}"#.to_owned());
        if turn % 5 == 0 {
            for _ in 0..4 {
                lines.push(r#"{"type":"tool","name":"shell","params":{"command":"curl -sf https://pricing.internal/healthz"},"ok":false,"output":"curl: (7) Failed to connect"}"#.to_owned());
            }
        }
        lines.push(r#"{"type":"tool","name":"shell","params":{"command":"cargo test -p pricing"},"output":"test result: ok. 12 passed"}"#.to_owned());
        if with_messages {
            lines.push(r#"{"type":"assistant","text":"The tests pass now. Should the cache key include the currency? Can you find out which Redis version production runs?"}"#.to_owned());
        }
        turn += 1;
    }
    lines.truncate(n);
    lines
}

fn app_with(lines: &[String]) -> App {
    let mut app = App::new(Options::default().color(false).source("bench")).expect("app");
    for l in lines {
        if let Ok(Some(r)) = parse_line(l.as_bytes()) {
            app.ingest(r);
        }
    }
    app
}

fn key(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn render(c: &mut Criterion) {
    let lines = stream(10_000, true);
    let mut g = c.benchmark_group("frame_10k_events");
    g.measurement_time(Duration::from_secs(5));
    for (w, h) in [(120u16, 40u16), (80, 24)] {
        let app = app_with(&lines);
        assert_eq!(app.events(), 10_000);
        let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("terminal");
        // Following the end, as a live session is watched.
        g.bench_function(format!("follow_{w}x{h}"), |b| {
            b.iter(|| {
                terminal
                    .draw(|f| tact_watch::ui::draw(f, black_box(&app)))
                    .expect("draw");
            })
        });
        // Paging through the whole transcript from the top: each frame
        // draws rows never drawn before (their text built and redacted);
        // the app is rebuilt, untimed, when every page was drawn.
        g.bench_function(format!("page_cold_{w}x{h}"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                let mut app = app_with(&lines);
                let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("terminal");
                let pages = 10_000 / usize::from(h) - 1;
                let mut page = 0;
                key(&mut app, KeyCode::Home);
                for _ in 0..iters {
                    if page == pages {
                        app = app_with(&lines);
                        key(&mut app, KeyCode::Home);
                        page = 0;
                    }
                    let t = Instant::now();
                    terminal
                        .draw(|f| tact_watch::ui::draw(f, black_box(&app)))
                        .expect("draw");
                    total += t.elapsed();
                    key(&mut app, KeyCode::PageDown);
                    page += 1;
                }
                total
            })
        });
    }
    g.finish();
}

/// `tact guide --follow`'s work per line (its `follow_line`): the shared
/// `parse_line`, then the guide observes the event or the proposal.
fn guide_follow(guide: &mut Guide, lines: &[String]) -> usize {
    let mut nudges = 0;
    for l in lines {
        nudges += match parse_line(l.as_bytes()) {
            Ok(Some(Record::Event(e))) => guide.observe(&e).len(),
            Ok(Some(Record::Pending(p))) => guide.propose(p).len(),
            _ => 0,
        };
    }
    nudges
}

/// A host's work per line on one thread ([`App::ingest`]): the same
/// `parse_line`, then the view ingests the record (guide, classifiers,
/// transcript row, score).
fn inline(app: &mut App, lines: &[String]) -> u64 {
    for l in lines {
        if let Ok(Some(r)) = parse_line(l.as_bytes()) {
            app.ingest(r);
        }
    }
    app.events()
}

/// `tact watch`'s reading thread's work per line: the same `parse_line`,
/// the record's steps, and the classifiers' labels on each.
fn read(labeler: &mut Labeler, lines: &[String], out: &mut Vec<Step>) -> usize {
    let mut parsed = Vec::new();
    for l in lines {
        if let Ok(Some(r)) = parse_line(l.as_bytes()) {
            steps(r, &mut parsed);
        }
    }
    out.extend(parsed.into_iter().map(|s| labeler.label(s)));
    out.len()
}

fn ingest(c: &mut Criterion) {
    let mut g = c.benchmark_group("ingest");
    g.measurement_time(Duration::from_secs(5));
    for (name, with_messages) in [("tools", false), ("mixed", true)] {
        let lines = stream(1_000, with_messages);
        g.throughput(Throughput::Elements(lines.len() as u64));
        g.bench_function(format!("{name}/guide_follow"), |b| {
            b.iter_batched_ref(
                || Guide::new(Mode::Headless),
                |guide| guide_follow(guide, black_box(&lines)),
                BatchSize::PerIteration,
            )
        });
        // `tact watch`: its two threads, each timed alone.
        let mut labeler = Labeler::new().expect("labeler");
        g.bench_function(format!("{name}/watch_read"), |b| {
            // The steps are dropped outside the timing: the view owns them.
            b.iter_batched_ref(
                || Vec::with_capacity(lines.len()),
                |out| read(&mut labeler, black_box(&lines), out),
                BatchSize::PerIteration,
            )
        });
        g.bench_function(format!("{name}/watch_view"), |b| {
            // By reference: the app (and the guide above) is dropped
            // outside the timing, which measures ingesting alone.
            b.iter_batched_ref(
                || {
                    let app = App::new(Options::default().color(false)).expect("app");
                    let mut labeled = Vec::new();
                    read(&mut labeler, &lines, &mut labeled);
                    (app, labeled)
                },
                |(app, labeled)| {
                    for step in labeled.drain(..) {
                        app.apply(step);
                    }
                    app.events()
                },
                BatchSize::PerIteration,
            )
        });
        // Both on one thread, as a host that calls `App::ingest`.
        g.bench_function(format!("{name}/inline"), |b| {
            b.iter_batched_ref(
                || App::new(Options::default().color(false)).expect("app"),
                |app| inline(app, black_box(&lines)),
                BatchSize::PerIteration,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, render, ingest);
criterion_main!(benches);
