//! Agents' own logs in the view: each sample log (`fixtures/logs`), read
//! live through import's `Follower` in small chunks as a growing file
//! arrives, makes the view the whole log makes (read as the session
//! `tact run` scores): the same turns, questions per effort, score and
//! nudges, SpecStory's included (its title, the context its questions are
//! classified in, comes out live before its turns). While a followed log
//! is idle, the agent's last message shows as a draft before the user
//! replies. A log of many sessions (OpenHands' `output.jsonl`) shows the
//! last, read as `tact run` reads it, then each session appended.

use std::path::{Path, PathBuf};

use tact::import::{Format, ImportDefaults};
use tact_watch::log::{LogFollower, header, log_steps};
use tact_watch::read::Step;
use tact_watch::{App, Options};

fn samples() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/logs");
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            if f.is_file() && name != "SOURCES.md" && name != "README.md" {
                out.push(f);
            } else if f.is_dir() {
                // A Cline task folder: both of its files.
                out.push(f.join("api_conversation_history.json"));
                out.push(f.join("ui_messages.json"));
            }
        }
    }
    out.sort();
    out
}

/// What the view ends with: turns scored, questions per effort, the
/// interaction, and the nudges (position, classifier).
fn ending(steps: Vec<Step>) -> (usize, [usize; 3], f64, Vec<(usize, String)>) {
    let mut app = App::new(Options::default().color(false)).unwrap();
    app.push(steps);
    while app.step_once() {}
    app.set_source_state(tact_watch::SourceState::Ended);
    let s = app.score();
    let nudges = app
        .nudges()
        .map(|n| (n.position, n.classifier.clone()))
        .collect();
    (s.turns(), s.questions(), s.interaction(), nudges)
}

#[test]
fn a_log_followed_live_makes_the_view_of_the_whole_log() {
    let samples = samples();
    assert!(samples.len() >= 13, "{samples:?}");
    for path in samples {
        let text = std::fs::read_to_string(&path).unwrap();
        let format = Format::detect(&path, &text).expect("a known log");
        if tact::import::holds_sessions(format, &text) {
            // Followed session by session: below.
            continue;
        }
        let defaults = ImportDefaults::default();
        let whole = log_steps(format, &text, &path, &defaults).unwrap();

        let mut live = vec![Step::Begin(Box::new(header(format, &path, &defaults)))];
        let mut follower = LogFollower::new(format, "live");
        if format.is_line_based() {
            // A growing file: bytes arrive in small pieces, lines cut anywhere.
            for chunk in text.as_bytes().chunks(97) {
                assert!(follower.push(chunk, &mut live).is_empty(), "{path:?}");
            }
        } else {
            follower.replace_document(text.as_bytes(), &mut live);
        }
        assert!(follower.finish(&mut live).is_empty(), "{path:?}");

        let (a, b) = (ending(whole), ending(live));
        assert_eq!((a.0, a.1), (b.0, b.1), "{path:?}: turns and questions");
        assert!((a.2 - b.2).abs() < 1e-9, "{path:?}: interaction");
        assert_eq!(a.3, b.3, "{path:?}: nudges");
        assert!(a.0 > 0, "{path:?}: no turn");
    }
}

/// A log of many sessions, one a line, followed as the harness writes it
/// (a line per task, whole): the view starts on the last session, as a
/// whole read picks it, and each line appended is the next session shown,
/// the same view a whole read of the file makes of it.
#[test]
fn a_log_of_many_sessions_shows_the_last_then_each_one_appended() {
    use tact_watch::log::{pick_session, session_steps};
    use tact_watch::source::{Input, Source, spawn_sessions};
    let sample = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/logs/openhands/openhands-resolver-output.jsonl");
    let text = std::fs::read_to_string(&sample).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    let dir = std::env::temp_dir().join(format!("tact-watch-many-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("output.jsonl");
    // The first task written, and half of the second.
    let (half, rest) = lines[1].split_at(lines[1].len() / 2);
    std::fs::write(&file, format!("{}\n{half}", lines[0])).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let defaults = ImportDefaults::default();
    let wrap: fn(Input) -> Input = |i| i;
    spawn_sessions(
        Source::File(file.clone()),
        Format::OpenHands,
        defaults.clone(),
        None,
        None,
        tx,
        wrap,
    )
    .unwrap();
    let next = || loop {
        match rx.recv_timeout(std::time::Duration::from_secs(20)).unwrap() {
            Input::Steps(s) => return s,
            Input::Warning(w) | Input::Failed(w) => panic!("{w}"),
            _ => {}
        }
    };
    let whole = |wanted: Option<&str>| {
        let picked = pick_session(Format::OpenHands, text.as_bytes(), "f", wanted).unwrap();
        session_steps(&picked.log, &file, &defaults)
    };
    let first = next();
    assert!(
        matches!(&first[0], Step::Begin(s) if s.spec_id.as_deref() == Some("neubig/pr-viewer#5")),
        "{:?}",
        first[0]
    );
    assert_eq!(ending(first), ending(whole(Some("neubig/pr-viewer#5"))));
    // The second task's line ends: its session is shown.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    std::io::Write::write_all(&mut f, format!("{rest}\n").as_bytes()).unwrap();
    let second = next();
    let (live, read) = (ending(second), ending(whole(None)));
    assert_eq!(live, read);
    assert_eq!(live.3.len(), 2, "error_streak and progress_stall: {live:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A followed log in pieces, `idle` called after each (as the reading
/// thread does when a poll finds nothing new): the steps so far.
fn follow_in_pieces(pieces: &[&str], follower: &mut LogFollower) -> Vec<Step> {
    let mut out = Vec::new();
    for piece in pieces {
        assert!(follower.push(piece.as_bytes(), &mut out).is_empty());
        follower.idle(&mut out);
    }
    out
}

fn frame(steps: &[Step]) -> String {
    let mut all = vec![Step::Begin(Box::new(header(
        Format::ClaudeCode,
        Path::new("live.jsonl"),
        &ImportDefaults::default(),
    )))];
    all.extend(steps.iter().cloned());
    tact_watch::snapshot(Options::default(), all, Vec::new(), 120, 30).unwrap()
}

/// While the agent waits for the user, its question is on screen (a
/// draft: `agent…`), before the user's reply closes the turn; the reply
/// makes it the turn's response, shown once.
#[test]
fn the_agents_last_question_shows_while_the_log_waits_for_the_user() {
    let user = |t: &str| {
        format!(r#"{{"type":"user","sessionId":"s","message":{{"role":"user","content":"{t}"}}}}"#)
            + "\n"
    };
    let said = |id: &str, t: &str| {
        format!(
            r#"{{"type":"assistant","sessionId":"s","message":{{"id":"{id}","content":[{{"type":"text","text":"{t}"}}]}}}}"#
        ) + "\n"
    };
    let call = r#"{"type":"assistant","sessionId":"s","message":{"id":"m2","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"src/cache.rs"}}]}}"#.to_owned() + "\n";
    let result = r#"{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"pub struct Cache;"}]}}"#.to_owned() + "\n";
    let question = "Should the cache live in Redis or in process?";
    let first = said("m1", "Looking at the cache.");
    let asked = said("m3", question);
    let (head, tail) = asked.split_at(40);
    let mut follower = LogFollower::new(Format::ClaudeCode, "live.jsonl");
    let steps = follow_in_pieces(
        &[&user("Add a cache."), &first, &call, &result, head, tail],
        &mut follower,
    );
    // The first message became intermediate when the call came: its
    // draft was taken away, and no draft is left but the question's.
    let drafts: Vec<&str> = steps
        .iter()
        .filter_map(|s| match s {
            Step::Draft { response } => Some(response.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(drafts, ["Looking at the cache.", question]);
    let shown = frame(&steps);
    assert!(shown.contains(&format!("agent…{question}")), "{shown}");
    assert_eq!(
        shown.matches(question).count(),
        2,
        "the message and its question row: {shown}"
    );
    assert!(!shown.contains("agent…Looking"), "{shown}");
    // A draft is not scored.
    assert!(!shown.contains("questions low 1"), "{shown}");
    // Idle again, nothing new: no second draft.
    let mut more = Vec::new();
    follower.idle(&mut more);
    assert!(more.is_empty(), "{more:?}");

    // The user replies: the question is the turn's response.
    let mut all = steps;
    assert!(
        follower
            .push(user("In process.").as_bytes(), &mut all)
            .is_empty()
    );
    follower.idle(&mut all);
    let shown = frame(&all);
    assert!(!shown.contains("agent…"), "{shown}");
    assert!(shown.contains(&format!("agent {question}")), "{shown}");
    assert_eq!(shown.matches(question).count(), 2, "{shown}");
    // Scored now, not before.
    assert!(
        shown.contains("questions low 1 · medium 0 · high 0"),
        "{shown}"
    );
}

/// Aider's reply is held by its Markdown reader until the user's next
/// `####` prompt: idle, it is shown as a draft all the same.
#[test]
fn an_aider_reply_shows_before_the_next_prompt() {
    let question = "Do you want the function in a new file hello.py?";
    let log = format!(
        "# aider chat started at 2026-02-27 18:26:37\n\n#### Add a hello world function  \n\nSure. {question}\n\n"
    );
    let mut follower = LogFollower::new(Format::Aider, "live.md");
    let steps = follow_in_pieces(&[&log[..50], &log[50..]], &mut follower);
    assert!(
        steps
            .iter()
            .any(|s| matches!(s, Step::Draft { response } if response.ends_with(question))),
        "{steps:?}"
    );
    assert!(frame(&steps).contains(question));
    let mut all = steps;
    follower.push(b"#### yes  \n", &mut all);
    follower.finish(&mut all);
    let (live, whole) = (
        ending(all),
        ending(
            log_steps(
                Format::Aider,
                &format!("{log}#### yes  \n"),
                Path::new("live.md"),
                &ImportDefaults::default(),
            )
            .unwrap(),
        ),
    );
    assert_eq!((live.0, live.1), (whole.0, whole.1));
}
