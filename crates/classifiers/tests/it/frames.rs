//! The frame around a text changes no classifier's decision: a list marker,
//! a bullet, emoji, markdown emphasis or a greeting before it, thanks after
//! it, doubled spaces (the forms of real text that the real-data issue
//! names), on every item of the annotator-written (Italian too) and real
//! train splits, under the default (hybrid) strategy and the heuristic.

use tact_classifiers::effort::{EffortClassifier, Strategy as EffortStrategy};
use tact_classifiers::granularity::{GranularityClassifier, Strategy as GranularityStrategy};
use tact_classifiers::route::{Router, Strategy as RouteStrategy};
use tact_core::dataset::read_jsonl;
use tact_types::Label;
use tact_types::dataset::{EffortExample, GranularityExample, RouteExample};

use crate::common::fixtures;

/// The framed forms of a text, by name.
fn frames(text: &str) -> Vec<(&'static str, String)> {
    let t = text.trim();
    vec![
        ("list marker", format!("1. {t}")),
        ("bullet", format!("- {t}")),
        ("emoji", format!("🤔 {t}")),
        ("bold", format!("**{t}")),
        ("marker", format!("[OK] {t}")),
        ("greeting", format!("Hi! {t}")),
        ("thanks", format!("{t} Thanks!")),
        ("spaces", format!("  {}  ", t.replace(' ', "  "))),
    ]
}

/// Every framed form of every text decides as the text does; `decide`
/// returns a label's name. Returns the failures, at most a few.
fn unchanged<'a>(
    texts: impl Iterator<Item = String>,
    decide: impl Fn(&str) -> &'a str,
) -> Vec<String> {
    let mut failures = Vec::new();
    let mut checked = 0usize;
    for text in texts {
        // A text of punctuation alone ("?") is all frame.
        if !text.chars().any(char::is_alphanumeric) {
            continue;
        }
        let want = decide(&text);
        for (name, framed) in frames(&text) {
            checked += 1;
            let got = decide(&framed);
            if got != want && failures.len() < 5 {
                failures.push(format!("{name}: {want} -> {got}: {framed:?}"));
            }
        }
    }
    assert!(checked > 1_000, "only {checked} framed texts");
    failures
}

fn texts<T>(split: &str, text: impl Fn(&T) -> String) -> Vec<String>
where
    T: serde::de::DeserializeOwned,
{
    // Effort's Italian questions have a train split of their own.
    ["train", "real-train", "train-it"]
        .iter()
        .map(|s| fixtures(&format!("{split}/{s}.jsonl")))
        .filter(|p| p.exists())
        .flat_map(|p| read_jsonl::<T>(&p).unwrap())
        .map(|l| text(&l.record))
        .collect()
}

#[test]
fn effort_decisions_ignore_the_frame() {
    let all = texts::<EffortExample>("effort", |e| e.text.clone());
    for strategy in [EffortStrategy::Hybrid, EffortStrategy::Heuristic] {
        let c = EffortClassifier::builder()
            .strategy(strategy)
            .build()
            .unwrap();
        let failures = unchanged(all.iter().cloned(), |t| c.classify(t, None).label.as_str());
        assert!(failures.is_empty(), "{strategy:?}: {failures:#?}");
    }
}

#[test]
fn granularity_decisions_ignore_the_frame() {
    let all = texts::<GranularityExample>("granularity", |e| e.text.clone());
    for strategy in [GranularityStrategy::Hybrid, GranularityStrategy::Heuristic] {
        let c = GranularityClassifier::builder()
            .strategy(strategy)
            .build()
            .unwrap();
        let failures = unchanged(all.iter().cloned(), |t| c.label(t).as_str());
        assert!(failures.is_empty(), "{strategy:?}: {failures:#?}");
    }
}

#[test]
fn routing_decisions_ignore_the_frame() {
    // Without history: the frame is the message's own.
    let all = texts::<RouteExample>("route", |e| e.text.clone());
    for strategy in [RouteStrategy::Hybrid, RouteStrategy::Heuristic] {
        let r = Router::builder().strategy(strategy).build().unwrap();
        let failures = unchanged(all.iter().cloned(), |t| r.route(t, &[]).label().as_str());
        assert!(failures.is_empty(), "{strategy:?}: {failures:#?}");
    }
}

#[test]
fn huge_frames_classify() {
    // Each would take hours if cutting the frame were quadratic.
    let huge = [
        "[".repeat(300_000),
        "[ok] ".repeat(60_000),
        "hi ".repeat(100_000),
        "1. ".repeat(100_000),
        "- ".repeat(150_000),
        "🤔".repeat(75_000),
        format!("fix it{}", " thanks".repeat(45_000)),
        "@".repeat(300_000),
        "@a ".repeat(100_000),
    ];
    let effort = EffortClassifier::builder().build().unwrap();
    let granularity = GranularityClassifier::builder().build().unwrap();
    let router = Router::builder().build().unwrap();
    for text in &huge {
        assert!(text.len() >= 250_000);
        assert!((0.0..=1.0).contains(&effort.classify(text, None).confidence));
        assert!((0.0..=1.0).contains(&granularity.classify(text).confidence()));
        assert!((0.0..=1.0).contains(&router.route(text, &[]).confidence()));
    }
}
