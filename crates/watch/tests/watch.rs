//! The integration-test binary of tact-watch: frames of a replay of the
//! demo sessions (`fixtures/sessions/demo`) pinned by insta snapshots at
//! several terminal sizes, including the frame where the doom loop fires,
//! and the keys, panes, colours and redaction of the view.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "watch/logs.rs"]
mod logs;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Color;
use tact_watch::read::{Native, Reader, Step, parse_document, steps};
use tact_watch::{Action, App, Options, screen_text};

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/sessions/demo")
}

/// The steps of a session file, as `tact watch` reads it.
fn file_steps(path: &Path) -> Vec<Step> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    if path.extension().is_some_and(|e| e == "json") {
        for r in parse_document(&text).unwrap().unwrap() {
            steps(r, &mut out);
        }
    } else {
        let mut reader = Native;
        let mut records = Vec::new();
        for line in text.lines() {
            reader.read_line(line.as_bytes(), &mut records).unwrap();
        }
        for r in records {
            steps(r, &mut out);
        }
    }
    out
}

/// The demo's sessions in order: the cache spec's three agents, then the
/// migration's (one per line).
fn demo_steps() -> Vec<Step> {
    let mut out = Vec::new();
    for name in [
        "cache/atlas.json",
        "cache/birch.json",
        "cache/cedar.json",
        "migrate.jsonl",
    ] {
        out.extend(file_steps(&demo().join(name)));
    }
    out
}

fn app() -> App {
    App::new(
        Options::default()
            .color(false)
            .source("fixtures/sessions/demo"),
    )
    .unwrap()
}

fn frame(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| tact_watch::ui::draw(f, app)).unwrap();
    screen_text(terminal.backend().buffer())
}

fn key(app: &mut App, code: KeyCode) -> Action {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// Replays the demo step by step up to the step where `doom_loop` fires.
fn replay_to_doom_loop() -> App {
    let mut app = app();
    app.push(demo_steps());
    while app.step_once() {
        if app.nudges().any(|n| n.classifier == "doom_loop") {
            return app;
        }
    }
    panic!("doom_loop never fired in the demo");
}

#[test]
fn the_doom_loop_frame_at_three_sizes() {
    let app = replay_to_doom_loop();
    insta::assert_snapshot!("doom_loop_120x40", frame(&app, 120, 40));
    insta::assert_snapshot!("doom_loop_80x24", frame(&app, 80, 24));
    // Narrow: one pane, the transcript, then the others with tab.
    insta::assert_snapshot!("doom_loop_50x20", frame(&app, 50, 20));
}

#[test]
fn the_whole_demo_at_three_sizes() {
    let mut app = app();
    app.push(demo_steps());
    while app.step_once() {}
    insta::assert_snapshot!("demo_end_120x40", frame(&app, 120, 40));
    insta::assert_snapshot!("demo_end_80x24", frame(&app, 80, 24));
    let mut narrow = Vec::new();
    for _ in 0..3 {
        narrow.push(frame(&app, 50, 20));
        key(&mut app, KeyCode::Tab);
    }
    insta::assert_snapshot!("demo_end_50x20_tab", narrow.join("\n"));
}

/// `tact watch` labels the steps on its reading thread: the view that
/// ingests them labelled is the one that classifies them itself, frame
/// for frame, with the same tiers counted, on the demo's sessions and on
/// a bare stream.
#[test]
fn steps_labelled_where_they_are_read_make_the_same_view() {
    let bare = [
        r#"{"type":"user","text":"Fix the flaky upload test, please."}"#,
        r#"{"type":"tool","name":"shell","params":{"command":"cargo test"},"ok":false}"#,
        r#"{"type":"assistant","text":"It fails on CI only. Should I pin the runner image? Can you paste the CI log?"}"#,
        r#"{"type":"user","text":"yes"}"#,
    ];
    let mut bare_steps = Vec::new();
    for line in bare {
        if let Some(r) = tact_watch::read::parse_line(line.as_bytes()).unwrap() {
            steps(r, &mut bare_steps);
        }
    }
    for input in [demo_steps(), bare_steps] {
        let mut labeler = tact_watch::label::Labeler::new().unwrap();
        let labeled: Vec<Step> = input.iter().cloned().map(|s| labeler.label(s)).collect();
        assert!(
            labeled.iter().any(|s| matches!(s, Step::Labeled { .. })),
            "some step is labelled"
        );
        let (mut inline, mut ahead) = (app(), app());
        for (a, b) in input.into_iter().zip(labeled) {
            inline.apply(a);
            ahead.apply(b);
        }
        assert_eq!(inline.tiers(), ahead.tiers());
        assert_eq!(inline.score().questions(), ahead.score().questions());
        assert_eq!(frame(&inline, 120, 40), frame(&ahead, 120, 40));
        key(&mut inline, KeyCode::Home);
        key(&mut ahead, KeyCode::Home);
        assert_eq!(frame(&inline, 120, 40), frame(&ahead, 120, 40));
    }
}

/// The README's capture: cedar's session on the cache spec, whole.
#[test]
fn the_readme_capture() {
    let mut app = App::new(Options::default().color(false).source("cedar.json")).unwrap();
    app.push(file_steps(&demo().join("cache/cedar.json")));
    while app.step_once() {}
    app.set_source_state(tact_watch::SourceState::Ended);
    insta::assert_snapshot!("readme_cedar_100x28", frame(&app, 100, 28));
}

#[test]
fn the_doom_loop_nudge_names_classifier_reason_and_event() {
    let app = replay_to_doom_loop();
    let nudge = app.nudges().find(|n| n.classifier == "doom_loop").unwrap();
    let screen = frame(&app, 120, 40);
    assert!(
        screen.contains(&format!("event {:<4}doom_loop", nudge.position)),
        "{screen}"
    );
    assert!(screen.contains("nudge doom_loop: "), "{screen}");
    // The bearer token of the looping command never shows.
    assert!(!screen.contains("9f8e7d6c5b4a3f2e1d0cFIXTURE"), "{screen}");
    assert!(screen.contains("[REDACTED]"), "{screen}");
}

#[test]
fn keys_jump_scroll_toggle_pause_and_quit() {
    let mut app = app();
    app.push(demo_steps());
    while app.step_once() {}
    let _ = frame(&app, 120, 40);
    // n: the first nudge highlighted in the transcript and the guidance pane.
    key(&mut app, KeyCode::Char('n'));
    let first = frame(&app, 120, 40);
    assert!(first.contains("transcript · "), "{first}");
    assert!(!first.contains("transcript · end"), "{first}");
    // h: the first high-effort question.
    key(&mut app, KeyCode::Char('h'));
    let high = frame(&app, 120, 40);
    assert!(high.contains("[HIGH]"), "{high}");
    // End follows again; PgUp scrolls.
    key(&mut app, KeyCode::End);
    assert!(frame(&app, 120, 40).contains("transcript · end"));
    key(&mut app, KeyCode::PageUp);
    assert!(!frame(&app, 120, 40).contains("transcript · end"));
    key(&mut app, KeyCode::PageDown);
    key(&mut app, KeyCode::PageDown);
    assert!(frame(&app, 120, 40).contains("transcript · end"));
    // 2 and 3 hide guidance and score: the transcript takes the width.
    key(&mut app, KeyCode::Char('2'));
    key(&mut app, KeyCode::Char('3'));
    let alone = frame(&app, 120, 40);
    assert!(
        !alone.contains("guidance ·") && !alone.contains(" score"),
        "{alone}"
    );
    key(&mut app, KeyCode::Char('1'));
    assert!(frame(&app, 120, 40).contains("every pane is hidden"));
    for c in ['1', '2', '3', '4'] {
        key(&mut app, KeyCode::Char(c));
    }
    let no_status = frame(&app, 120, 40);
    assert!(!no_status.contains("? help"), "{no_status}");
    key(&mut app, KeyCode::Char('4'));
    // Space pauses: queued steps wait.
    key(&mut app, KeyCode::Char(' '));
    app.push(file_steps(&demo().join("cache/cedar.json")));
    assert_eq!(app.pump(std::time::Instant::now()), 0);
    assert!(frame(&app, 120, 40).contains("PAUSED"));
    key(&mut app, KeyCode::Char(' '));
    assert!(app.pump(std::time::Instant::now()) > 0);
    // ? shows the help, any key closes it, q quits.
    key(&mut app, KeyCode::Char('?'));
    insta::assert_snapshot!("help_80x24", frame(&app, 80, 24));
    assert_eq!(key(&mut app, KeyCode::Char('x')), Action::Continue);
    assert!(!frame(&app, 80, 24).contains(" keys "));
    assert_eq!(key(&mut app, KeyCode::Char('q')), Action::Quit);
}

#[test]
fn colour_unless_no_color() {
    let colours = |color: bool| {
        let mut app = App::new(Options::default().color(color)).unwrap();
        app.push(file_steps(&demo().join("cache/cedar.json")));
        while app.step_once() {}
        let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
        terminal.draw(|f| tact_watch::ui::draw(f, &app)).unwrap();
        let buffer = terminal.backend().buffer().clone();
        buffer
            .content()
            .iter()
            .filter(|c| c.fg != Color::Reset || c.bg != Color::Reset)
            .count()
    };
    assert!(colours(true) > 0);
    assert_eq!(colours(false), 0);
}

#[test]
fn a_replay_steps_at_its_pace() {
    let mut app = App::new(Options::default().color(false).replay(Some(10.0))).unwrap();
    app.push(file_steps(&demo().join("cache/cedar.json")));
    let t0 = Instant::now();
    // The first step at once, then ten a second.
    assert_eq!(app.pump(t0), 1);
    assert_eq!(app.pump(t0 + Duration::from_millis(50)), 0);
    assert_eq!(app.pump(t0 + Duration::from_millis(350)), 3);
    let before = app.queued();
    assert!(before > 0);
    // Everything eventually, never more than a second's worth per frame.
    assert_eq!(app.pump(t0 + Duration::from_secs(60)), 10);
}

#[test]
fn a_bare_stream_opens_turns_and_scores_them() {
    let mut app = app();
    let mut records = Vec::new();
    let lines = [
        r#"{"agent":"solo","outcome":{"kind":"build","success":true},"preferences":{"format":["one_question"]}}"#,
        r#"{"type":"user","text":"Add a retry to the upload client."}"#,
        r#"{"type":"tool","name":"read_file","params":{"path":"src/upload.rs"}}"#,
        r#"{"type":"assistant","text":"Should retries back off exponentially? And which status codes count as transient in production?"}"#,
        "not json",
    ];
    let mut warnings = 0;
    for l in lines {
        if Native.read_line(l.as_bytes(), &mut records).is_err() {
            warnings += 1;
            app.warn(String::from("t:5: not valid JSON"));
        }
    }
    for r in records {
        app.ingest(r);
    }
    assert_eq!(warnings, 1);
    let screen = frame(&app, 120, 30);
    assert!(screen.contains("session solo"), "{screen}");
    assert!(
        screen.contains("[CODE_GENERATION]")
            || screen.contains("[RETRIEVAL]")
            || screen.contains("[CONVERSATIONAL]"),
        "{screen}"
    );
    assert!(screen.contains("violated one_question ×1"), "{screen}");
    assert!(screen.contains("score · spec · turn 1"), "{screen}");
    assert!(
        screen.contains("1 skipped: t:5: not valid JSON"),
        "{screen}"
    );
}

#[test]
fn tiny_and_odd_sizes_never_panic() {
    let app = replay_to_doom_loop();
    for (w, h) in [
        (1, 1),
        (2, 3),
        (10, 2),
        (20, 5),
        (71, 11),
        (72, 12),
        (300, 5),
        (5, 200),
    ] {
        let _ = frame(&app, w, h);
    }
    let empty = App::new(Options::default()).unwrap();
    assert!(frame(&empty, 80, 24).contains("waiting for events"));
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    /// Lines near the format: events of every type with odd fields, bad
    /// JSON, sessions, proposals, arbitrary bytes.
    fn line() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            any::<Vec<u8>>(),
            ".{0,80}".prop_map(String::into_bytes),
            (
                prop_oneof![
                    Just("user"),
                    Just("assistant"),
                    Just("tool"),
                    Just("nudge"),
                    Just("progress"),
                    Just("condensation")
                ],
                ".{0,60}",
                any::<bool>()
            )
                .prop_map(|(t, text, ok)| {
                    serde_json::json!({"type": t, "text": text, "name": text, "ok": ok, "output": text})
                        .to_string()
                        .into_bytes()
                }),
            ".{0,40}".prop_map(|text| serde_json::json!({"pending": [{"name": text, "params": {"password": text}}]}).to_string().into_bytes()),
            ".{0,40}".prop_map(|text| serde_json::json!({"agent": "a", "outcome": {"kind": "build", "success": true}, "turns": [{"prompt": text, "response": format!("{text}?")}]}).to_string().into_bytes()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn any_lines_any_keys_any_size(
            lines in proptest::collection::vec(line(), 0..24),
            keys in proptest::collection::vec(prop_oneof![
                Just(KeyCode::Char('n')), Just(KeyCode::Char('h')), Just(KeyCode::Char('N')),
                Just(KeyCode::Char('H')), Just(KeyCode::PageUp), Just(KeyCode::PageDown),
                Just(KeyCode::Up), Just(KeyCode::Down), Just(KeyCode::Tab), Just(KeyCode::Home),
                Just(KeyCode::End), Just(KeyCode::Char('2')), Just(KeyCode::Char('?')),
            ], 0..12),
            width in 1u16..140,
            height in 1u16..50,
        ) {
            let mut app = App::new(Options::default().color(false)).unwrap();
            // The same records labelled where they are read, as `tact
            // watch` does: the same view.
            let mut labeler = tact_watch::label::Labeler::new().unwrap();
            let mut ahead = App::new(Options::default().color(false)).unwrap();
            let mut records = Vec::new();
            for l in &lines {
                if Native.read_line(l, &mut records).is_err() {
                    app.warn(String::from("bad line"));
                    ahead.warn(String::from("bad line"));
                }
            }
            for r in records {
                let mut read = Vec::new();
                steps(r.clone(), &mut read);
                for s in read {
                    ahead.apply(labeler.label(s));
                }
                app.ingest(r);
            }
            prop_assert_eq!(frame(&app, 100, 30), frame(&ahead, 100, 30));
            for k in keys {
                let _ = frame(&app, width, height);
                key(&mut app, k);
            }
            let _ = frame(&app, width, height);
        }
    }
}

/// The score the view shows at each turn's end is the scorer's on the
/// turns so far, though the view scores each turn once.
#[test]
fn the_running_score_equals_a_full_rescoring_at_every_turn_of_the_demo() {
    use tact::scoring::{Scorer, Session};
    let scorer = Scorer::builder().build().unwrap();
    let mut sessions = 0;
    let mut turns = 0;
    for name in [
        "cache/atlas.json",
        "cache/birch.json",
        "cache/cedar.json",
        "migrate.jsonl",
    ] {
        let path = demo().join(name);
        let mut app = app();
        let mut so_far: Option<Session> = None;
        for located in tact::scoring::read_sessions(&path).unwrap() {
            let s = located.unwrap().session;
            let mut out = Vec::new();
            steps(
                tact_watch::read::Record::Session(Box::new(s.clone())),
                &mut out,
            );
            sessions += 1;
            let mut next_turn = 0;
            for step in out {
                let respond = matches!(step, Step::Respond { .. });
                if let Step::Begin(h) = &step {
                    so_far = Some((**h).clone());
                }
                app.apply(step);
                if respond {
                    let prefix = so_far.as_mut().unwrap();
                    prefix.turns.push(s.turns[next_turn].clone());
                    next_turn += 1;
                    turns += 1;
                    let full = scorer.score(prefix);
                    let run = app.score();
                    assert!(run.is_exact());
                    assert_eq!(
                        (run.r_proact(), run.r_pers(), run.interaction(), run.total()),
                        (full.r_proact, full.r_pers, full.interaction, full.total),
                        "{name}, turn {next_turn}"
                    );
                    assert_eq!(
                        run.questions().iter().sum::<usize>(),
                        full.questions.len(),
                        "{name}, turn {next_turn}"
                    );
                }
            }
        }
    }
    assert!(
        sessions >= 4 && turns >= 8,
        "{sessions} sessions, {turns} turns"
    );
}

#[test]
fn the_transcript_keeps_its_last_rows_and_says_how_many_went() {
    let mut app = App::new(Options::default().color(false).max_rows(40)).unwrap();
    let failing =
        r#"{"type":"tool","name":"shell","params":{"command":"npm ci"},"ok":false,"output":"ERR"}"#;
    let mut lines = vec![r#"{"type":"user","text":"Install the deps."}"#.to_owned()];
    for i in 0..200 {
        if i % 10 == 0 {
            lines.push(
                r#"{"type":"assistant","text":"Which registry mirror does production use, and who owns its credentials?"}"#
                    .to_owned(),
            );
        }
        lines.push(failing.to_owned());
    }
    for l in &lines {
        if let Some(r) = tact_watch::read::parse_line(l.as_bytes()).unwrap() {
            app.ingest(r);
        }
    }
    assert_eq!(app.rows(), 40);
    assert!(app.rows_dropped() > 150, "{}", app.rows_dropped());
    // Nudges go with their rows; the count of those fired stays.
    assert!(app.nudges().count() <= app.nudges_fired());
    let screen = frame(&app, 120, 30);
    assert!(
        screen.contains(&format!("{} oldest rows dropped", app.rows_dropped())),
        "{screen}"
    );
    // Scrolling and jumps stay within the rows kept.
    for code in [
        KeyCode::Home,
        KeyCode::PageUp,
        KeyCode::Char('n'),
        KeyCode::Char('h'),
        KeyCode::Char('H'),
    ] {
        key(&mut app, code);
        let screen = frame(&app, 120, 30);
        assert!(!screen.contains("waiting for events"), "{screen}");
    }
    key(&mut app, KeyCode::Home);
    let screen = frame(&app, 120, 30);
    let first = app.rows_dropped() + 1;
    assert!(
        screen.contains(&format!("transcript · {first}-")),
        "{screen}"
    );
}

/// Ingesting twice the session costs about twice the time: the score is
/// kept turn by turn, not recomputed over the whole session. Generous
/// bounds (a shared machine); timing tests run one at a time.
#[test]
fn ingest_time_grows_linearly_with_the_session() {
    static TIMING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = TIMING.lock().unwrap_or_else(|e| e.into_inner());
    // Many short turns, and one long turn of many messages.
    let turns = |n: usize| -> Vec<String> {
        let mut lines = vec![r#"{"agent":"a","outcome":{"kind":"build","success":true},"preferences":{"format":["commas"],"interaction":["ask_many"]}}"#.to_owned()];
        for i in 0..n {
            lines.push(format!(
                r#"{{"type":"user","text":"Step {i}: keep going."}}"#
            ));
            lines.push(
                r#"{"type":"assistant","text":"Done. Should the cache key include the currency?"}"#
                    .to_owned(),
            );
        }
        lines
    };
    let one_turn = |n: usize| -> Vec<String> {
        let mut lines = vec![r#"{"type":"user","text":"Migrate the schema."}"#.to_owned()];
        for i in 0..n {
            lines.push(format!(
                r#"{{"type":"assistant","text":"Step {i} done, next the index. Which column is the key?"}}"#
            ));
        }
        lines
    };
    let time = |lines: &[String]| {
        let mut best = Duration::MAX;
        for _ in 0..3 {
            let mut app = App::new(Options::default().color(false)).unwrap();
            let t = Instant::now();
            for l in lines {
                if let Ok(Some(r)) = tact_watch::read::parse_line(l.as_bytes()) {
                    app.ingest(r);
                }
            }
            best = best.min(t.elapsed());
        }
        best
    };
    for (name, make) in [
        ("short turns", &turns as &dyn Fn(usize) -> Vec<String>),
        ("one long turn", &one_turn),
    ] {
        let small = time(&make(300));
        let large = time(&make(1_200));
        let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-9);
        // Linear: 4; quadratic: 16.
        assert!(
            ratio < 8.0,
            "{name}: 4x the session took {ratio:.1}x the time ({small:?} vs {large:?})"
        );
    }
}

/// A stand-in model for the model tier: answers `label` (an index of the
/// effort labels), or fails (`None`); waits on `gate` first when given.
struct FakeModel {
    label: Option<usize>,
    gate: Option<std::sync::Mutex<std::sync::mpsc::Receiver<()>>>,
}

impl tact::escalation::LabelModel for FakeModel {
    fn ask(
        &self,
        _request: &tact::escalation::LabelRequest<'_>,
    ) -> Option<tact::escalation::LabelAnswer> {
        if let Some(gate) = &self.gate {
            let _ = gate.lock().unwrap().recv_timeout(Duration::from_secs(20));
        }
        self.label
            .map(|l| tact::escalation::LabelAnswer::new(l, "fake"))
    }
}

/// A view whose model tier asks `model` about every question.
fn app_with_model(model: FakeModel) -> App {
    let escalation = tact::escalation::Escalation::new(std::sync::Arc::new(model), 2.0);
    App::new(
        Options::default()
            .color(false)
            .model(tact_watch::ModelSpec::new(escalation, "fake")),
    )
    .unwrap()
}

fn ingest_lines(app: &mut App, lines: &[&str]) {
    for l in lines {
        if let Some(r) = tact_watch::read::parse_line(l.as_bytes()).unwrap() {
            app.ingest(r);
        }
    }
}

/// Polls the model tier until `done` holds (or 20 s pass).
fn poll_until(app: &mut App, done: impl Fn(&App) -> bool) {
    let end = Instant::now() + Duration::from_secs(20);
    while !done(app) && Instant::now() < end {
        app.poll_model();
        std::thread::sleep(Duration::from_millis(5));
    }
}

const ASKS: [&str; 2] = [
    r#"{"type":"user","text":"Make the tests pass."}"#,
    r#"{"type":"assistant","text":"Done. Should I also bump the version?"}"#,
];

#[test]
fn the_model_tier_answers_off_the_ui_thread_and_relabels_the_question() {
    use tact::types::{EffortLevel, Label};
    let (release, gate) = std::sync::mpsc::channel();
    let mut app = app_with_model(FakeModel {
        label: Some(EffortLevel::High.index()),
        gate: Some(std::sync::Mutex::new(gate)),
    });
    assert_eq!(
        app.model_tier(),
        &tact_watch::ModelTier::Ready {
            name: "fake".into()
        }
    );
    // The model is held: ingesting still returns, the question shows the
    // cheaper tiers' label, and the status line says the model is busy.
    ingest_lines(&mut app, &ASKS);
    let before = frame(&app, 120, 30);
    assert!(before.contains("model fake busy (1)"), "{before}");
    assert!(
        before.contains("?   [low]    Should I also bump"),
        "{before}"
    );
    assert_eq!(app.tiers()[3], 0);
    release.send(()).unwrap();
    poll_until(&mut app, |a| a.tiers()[3] == 1);
    assert_eq!(app.tiers()[3], 1, "the model's answer arrived");
    let after = frame(&app, 120, 30);
    assert!(after.contains("?   [HIGH]   Should I also bump"), "{after}");
    assert!(after.contains("model fake ready"), "{after}");
    // The answer counts in the score of its (still open) turn: the high
    // effort question is in the score pane's counts.
    assert!(
        after.contains("questions low 0 · medium 0 · high 1"),
        "{after}"
    );
}

#[test]
fn a_failing_model_fails_open_and_shows_unavailable() {
    let mut app = app_with_model(FakeModel {
        label: None,
        gate: None,
    });
    for _ in 0..3 {
        ingest_lines(&mut app, &ASKS);
    }
    poll_until(&mut app, |a| {
        matches!(a.model_tier(), tact_watch::ModelTier::Unavailable { .. })
    });
    let screen = frame(&app, 140, 30);
    assert!(
        screen.contains("model fake unavailable: 3 failed calls in a row"),
        "{screen}"
    );
    assert!(
        screen.contains("?   [low]    Should I also bump"),
        "{screen}"
    );
    assert_eq!(app.tiers()[3], 0);
}
