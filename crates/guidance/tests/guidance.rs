//! Guidance classifiers against the hand-written fixtures in
//! `fixtures/guidance/` (every verdict must match), and property tests:
//! arbitrary event sequences never panic and agree with a naive
//! re-implementation of the labelling guide, and a panicking classifier
//! inside `run_classifiers` is skipped.

// Test helpers outside `#[test]` functions may unwrap too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "guidance/real_logs.rs"]
mod real_logs;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{Value, json};
use tact_guidance::{
    ActionKind, CLASSIFIER_NAMES, CallView, ClassificationResult, ClassifyError,
    GuidanceClassifier, GuidanceContext, Guide, TrajectoryAnalysis, default_classifiers,
    run_classifiers, verdicts,
};
use tact_types::trajectory::{
    Event, GuidanceExample, Mode, PendingCall, ProgressKind, ToolCall, Trajectory,
};

/// A fixture case with its 1-based line number.
struct Line {
    line: usize,
    record: GuidanceExample,
}

/// The cases of a `guidance` JSONL file under the dataset line rules
/// (blank and `//` lines skipped); a bad line fails with file and line.
fn read_cases(path: &Path) -> Vec<Line> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .enumerate()
        .filter(|(_, raw)| !raw.trim().is_empty() && !raw.trim().starts_with("//"))
        .map(|(i, raw)| Line {
            line: i + 1,
            record: serde_json::from_str(raw.trim())
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1)),
        })
        .collect()
}

fn fixture_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/guidance");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_fixture_verdict_matches() {
    let classifiers = default_classifiers();
    let mut checked = 0;
    let mut cases = 0;
    let mut wrong = Vec::new();
    let mut per: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for file in fixture_files() {
        for line in read_cases(&file) {
            cases += 1;
            let r = &line.record;
            for name in r.expect.keys() {
                assert!(
                    CLASSIFIER_NAMES.contains(&name.as_str()),
                    "{}:{}: unknown classifier {name}",
                    file.display(),
                    line.line
                );
            }
            for (name, fired, result) in verdicts(&classifiers, &r.trajectory()) {
                assert!(
                    result.is_some(),
                    "{name} failed on {}:{}",
                    file.display(),
                    line.line
                );
                let Some(&gold) = r.expect.get(name) else {
                    continue;
                };
                checked += 1;
                let e = per.entry(name).or_default();
                if gold {
                    e.0 += 1
                } else {
                    e.1 += 1
                }
                if fired != gold {
                    wrong.push(format!(
                        "{}:{} {}: {name} expected {gold}, got {fired} ({:?})",
                        file.display(),
                        line.line,
                        r.id.as_deref().unwrap_or("-"),
                        result.and_then(|r| r.reason)
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {checked} verdicts wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(
        cases >= 248 && checked >= 700,
        "{cases} cases, {checked} verdicts"
    );
    for name in CLASSIFIER_NAMES {
        let (pos, neg) = per.get(name).copied().unwrap_or_default();
        assert!(
            pos > 0 && neg > 0,
            "{name}: {pos} positive, {neg} negative verdicts"
        );
    }
}

#[test]
fn incremental_guide_agrees_with_batch_verdicts_on_fixtures() {
    // Feeding a Guide event by event ends in the same analysis as a batch run.
    for file in fixture_files() {
        for line in read_cases(&file) {
            let t = line.record.trajectory();
            let mut guide = Guide::new(t.mode);
            for e in &t.events {
                let _ = guide.observe(e);
            }
            let batch = TrajectoryAnalysis::from_trajectory(&t);
            assert_eq!(guide.analysis().counts(), batch.counts());
            assert_eq!(
                guide.analysis().calls_since_progress(),
                batch.calls_since_progress()
            );
        }
    }
}

#[test]
fn sensitive_reasons_never_repeat_the_secret() {
    for file in fixture_files() {
        for line in read_cases(&file) {
            let t = line.record.trajectory();
            let mut strings = Vec::new();
            for p in &t.pending {
                collect_strings(&p.params, &mut strings);
            }
            let classifiers = default_classifiers();
            for (name, _, result) in verdicts(&classifiers, &t) {
                let Some(r) = result else { continue };
                let shown = format!("{:?} {}", r.reason, Value::Object(r.metadata));
                for s in strings.iter().filter(|s| s.len() >= 6) {
                    assert!(
                        !shown.contains(s.as_str()),
                        "{name} repeats `{s}` in {shown}"
                    );
                }
            }
        }
    }
}

fn collect_strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
        Value::Object(m) => m.values().for_each(|x| collect_strings(x, out)),
        _ => {}
    }
}

// ---------------------------------------------------------------------------
// A naive reference of the labelling guide's table, written independently
// of the incremental analysis (quadratic, whole-trajectory).

fn canon(v: &Value) -> String {
    match v {
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(0.0);
            if f.fract() == 0.0 && f.abs() < 1e15 {
                format!("n{}", f as i64)
            } else {
                format!("n{f}")
            }
        }
        Value::Array(a) => format!("[{}]", a.iter().map(canon).collect::<Vec<_>>().join(",")),
        Value::Object(m) => {
            let mut kv: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{k:?}:{}", canon(v)))
                .collect();
            kv.sort();
            format!("{{{}}}", kv.join(","))
        }
        other => other.to_string(),
    }
}

fn naive(t: &Trajectory) -> BTreeMap<&'static str, bool> {
    let mut ev: &[Event] = &t.events;
    if t.mode == Mode::Interactive {
        if let Some(i) = ev.iter().rposition(|e| matches!(e, Event::User { .. })) {
            ev = &ev[i + 1..];
        }
    }
    let tools: Vec<&ToolCall> = ev
        .iter()
        .filter_map(|e| {
            if let Event::Tool(c) = e {
                Some(c)
            } else {
                None
            }
        })
        .collect();
    let ids: Vec<String> = tools
        .iter()
        .map(|c| {
            let out = match &c.output {
                Value::String(s) => format!("s{:?}", s.trim()),
                o => format!("j{}", canon(o)),
            };
            format!("{}|{}|{}|{out}", c.name, canon(&c.params), c.ok)
        })
        .collect();
    let n = ids.len();
    let mut r = BTreeMap::new();
    let single = n >= 4 && (1..4).all(|k| ids[n - 1] == ids[n - 1 - k]);
    let cyc = (2..=16.min(n / 3)).any(|l| (0..2 * l).all(|i| ids[n - 1 - i] == ids[n - 1 - i - l]));
    r.insert("doom_loop", single || cyc);
    let streak = tools.iter().rev().take_while(|c| !c.ok).count();
    r.insert("error_streak", streak >= 3);
    let mut seen = HashSet::new();
    let mut since = 0;
    for e in ev {
        match e {
            Event::Progress { .. } => since = 0,
            Event::Tool(c) => {
                // The rule of datasets.md on the call's normalized view.
                let v = CallView::of(&c.name, &c.params);
                let file = v.file.as_deref().unwrap_or("");
                let found = !tact_guidance::trajectory::finds_nothing(&c.output);
                let range: Vec<String> = tact_guidance::trajectory::RANGE_KEYS
                    .iter()
                    .filter_map(|k| c.params.get(*k).map(canon))
                    .collect();
                let progress = match v.kind {
                    ActionKind::Commit => true,
                    ActionKind::Edit => match (v.changes, v.content) {
                        (Some(false), _) => false,
                        (_, Some(content)) => {
                            seen.insert(format!("edit|{file}|{}", canon(content)))
                        }
                        (_, None) => true,
                    },
                    ActionKind::Read => seen.insert(format!("read|{file}|{}", range.join(","))),
                    ActionKind::Search => {
                        found && seen.insert(format!("search|{}", canon(&c.params)))
                    }
                    ActionKind::Command => {
                        seen.insert(format!("command|{}", v.command.as_deref().unwrap_or("")))
                    }
                    ActionKind::Fetch => seen.insert(format!("url|{}", v.url.unwrap_or(""))),
                    _ => match (v.file.as_deref(), v.command.as_deref(), v.url) {
                        (None, None, None) => false,
                        (f, c, u) => seen.insert(format!("other|{f:?}|{c:?}|{u:?}")),
                    },
                };
                if c.ok && progress {
                    since = 0
                } else {
                    since += 1
                }
            }
            _ => {}
        }
    }
    r.insert("progress_stall", since >= 5);
    r.insert("high_tool_count", n >= 40);
    r.insert(
        "single_tool_repeated",
        n >= 4
            && tools[n.saturating_sub(5)..]
                .iter()
                .all(|c| c.name == tools[n - 1].name),
    );
    let mut steps: Vec<(Option<u64>, Vec<&str>)> = Vec::new();
    for c in &tools {
        match (c.step, steps.last_mut()) {
            (Some(s), Some((Some(p), names))) if *p == s => names.push(&c.name),
            _ => steps.push((c.step, vec![&c.name])),
        }
    }
    let indep = ["read_file", "search", "grep"];
    r.insert(
        "sequential_when_parallel",
        steps.len() >= 3
            && steps[steps.len() - 3..]
                .iter()
                .all(|(_, ns)| ns.len() == 1 && indep.contains(&ns[0])),
    );
    let large = tools.last().is_some_and(|c| {
        let len = match &c.output {
            Value::String(s) => s.chars().count(),
            o => o.to_string().chars().count(),
        };
        len > 10_000
    });
    r.insert("large_output", large);
    let (mut mono, mut empty) = (0, 0);
    for e in ev {
        match e {
            Event::Tool(_) | Event::User { .. } => (mono, empty) = (0, 0),
            Event::Assistant { text } => {
                mono += 1;
                empty = if text.trim().is_empty() { empty + 1 } else { 0 };
            }
            _ => {}
        }
    }
    r.insert("monologue", mono >= 3);
    r.insert("empty_response", empty >= 3);
    let conds = ev
        .iter()
        .filter(|e| matches!(e, Event::Condensation))
        .count();
    let b2b = ev
        .windows(2)
        .any(|w| matches!(w, [Event::Condensation, Event::Condensation]));
    r.insert("context_window_loop", conds >= 10 && b2b);
    let stuck = [
        "doom_loop",
        "error_streak",
        "monologue",
        "empty_response",
        "context_window_loop",
    ]
    .iter()
    .any(|k| r[k]);
    r.insert("stuck", stuck);
    r
}

#[test]
fn naive_reference_agrees_with_fixtures() {
    // Guards the reference itself before it is used as an oracle below.
    for file in fixture_files() {
        for line in read_cases(&file) {
            let r = &line.record;
            if !r.pending.is_empty() {
                continue;
            }
            let got = naive(&r.trajectory());
            for (name, gold) in &r.expect {
                if name != "sensitive_content" {
                    assert_eq!(
                        got[name.as_str()],
                        *gold,
                        "{}:{} {name}",
                        file.display(),
                        line.line
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Property tests.

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..3).prop_map(|i| json!(i)),
        (-3i64..3).prop_map(|i| json!(i as f64)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        prop_oneof![
            Just("a.rs"),
            Just("b.rs"),
            Just(""),
            Just(" x "),
            Just("Bearer 1234567890abcdef")
        ]
        .prop_map(|s| json!(s)),
        ".{0,12}".prop_map(Value::String),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("path".to_owned()),
                    Just("command".to_owned()),
                    Just("password".to_owned()),
                    "[a-zA-Z_-]{0,6}"
                ],
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn small_params() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => (0u8..3).prop_map(|i| json!({"path": format!("f{i}.rs")})),
        1 => Just(json!({})),
        1 => json_value(),
    ]
}

fn event() -> impl Strategy<Value = Event> {
    let tool = (
        prop_oneof![
            Just("read_file"),
            Just("grep"),
            Just("search"),
            Just("shell"),
            Just("edit_file")
        ],
        small_params(),
        prop::bool::weighted(0.7),
        prop_oneof![
            4 => (0u8..3).prop_map(|i| json!(format!("out{i}"))),
            1 => Just(json!("  out0\n")),
            1 => json_value(),
            1 => (9_990usize..10_010).prop_map(|n| json!("é".repeat(n))),
        ],
        prop::option::weighted(0.3, 0u64..3),
    )
        .prop_map(|(name, params, ok, output, step)| {
            let mut c = ToolCall::new(name).params(params).ok(ok).output(output);
            if let Some(s) = step {
                c = c.step(s);
            }
            Event::tool(c)
        });
    prop_oneof![
        1 => prop_oneof![Just(""), Just("  "), Just("text"), Just("é\n")].prop_map(Event::assistant),
        1 => Just(Event::user("u")),
        1 => Just(Event::nudge("n")),
        2 => Just(Event::condensation()),
        1 => Just(Event::progress(ProgressKind::TestPassed)),
        6 => tool,
    ]
}

fn trajectory() -> impl Strategy<Value = Trajectory> {
    (
        prop::collection::vec(event(), 0..120),
        prop_oneof![Just(Mode::Headless), Just(Mode::Interactive)],
        prop::collection::vec(json_value().prop_map(|p| PendingCall::new("call", p)), 0..3),
    )
        .prop_map(|(events, mode, pending)| Trajectory {
            id: None,
            events,
            mode,
            pending,
        })
}

/// Repeats a short random block to make loops, streaks and runs common.
fn loopy_trajectory() -> impl Strategy<Value = Trajectory> {
    (
        prop::collection::vec(event(), 1..5),
        1usize..12,
        trajectory(),
    )
        .prop_map(|(block, times, mut t)| {
            for _ in 0..times {
                t.events.extend(block.iter().cloned());
            }
            t
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_sequences_never_panic_and_match_the_reference(t in prop_oneof![trajectory(), loopy_trajectory()]) {
        let classifiers = default_classifiers();
        let got = verdicts(&classifiers, &t);
        let reference = naive(&t);
        for (name, fired, result) in &got {
            let r = result.as_ref().expect("no classifier fails on valid input");
            prop_assert!((0.0..=1.0).contains(&r.confidence));
            if *name != "sensitive_content" {
                prop_assert_eq!(*fired, reference[name], "{} on {:?}", name, t);
            }
        }
        // Guide, patterns and serialization also hold up.
        let mut guide = Guide::new(t.mode);
        for e in &t.events {
            for n in guide.observe(e) {
                prop_assert!(!n.message.is_empty());
            }
        }
        let _ = guide.propose(t.pending.clone());
        let a = TrajectoryAnalysis::from_trajectory(&t);
        for p in a.patterns() {
            prop_assert!(p.first_seen < a.position());
        }
        prop_assert!(a.recent_calls(usize::MAX).len() <= a.config().recent_capacity);
    }

    #[test]
    fn arbitrary_json_lines_never_panic(line in ".{0,200}") {
        let _ = serde_json::from_str::<Event>(&line);
        let _ = serde_json::from_str::<GuidanceExample>(&line);
    }

    #[test]
    fn panicking_classifier_is_skipped(t in trajectory(), at in 0usize..13) {
        let mut classifiers = default_classifiers();
        classifiers.insert(at.min(classifiers.len()), Box::new(Panics));
        let analysis = TrajectoryAnalysis::from_trajectory(&t);
        let ctx = GuidanceContext::new(&analysis, &t.pending);
        let fired = run_classifiers(&classifiers, &ctx, 0.5);
        let without: Vec<Box<dyn GuidanceClassifier>> = default_classifiers();
        let expected = run_classifiers(&without, &ctx, 0.5);
        prop_assert_eq!(fired.map(|f| f.classifier.name().to_owned()), expected.map(|f| f.classifier.name().to_owned()));
    }
}

struct Panics;

impl GuidanceClassifier for Panics {
    fn name(&self) -> &str {
        "panics"
    }

    fn classify(&self, _: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        panic!("deliberate panic inside a classifier")
    }
}
