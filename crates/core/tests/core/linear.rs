//! The text engine is linear on any input: one long line of prose (where
//! a backward search per sentence made `split_sentences` quadratic) or
//! many short lines, generated texts of 256 KiB to 2 MiB.
//!
//! Timing on a loaded machine is noisy, so each size keeps its best of
//! three runs and the bound is generous: 8 times the text may take at most
//! 16 times as long (linear is 8; the quadratic splitter took about 45
//! times as long), plus a fixed allowance for timer noise on fast inputs.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use tact_core::text::{
    extract_questions, find_questions, list_item_lines, normalize, split_sentences,
};

/// The smallest text of a measurement: 256 KiB, then 2, 4 and 8 times it.
/// Large enough that a quadratic path takes tens of times the allowance
/// at the largest size (the quadratic splitter took about 45 times as long
/// on 8 times the text), small enough for a test binary that runs in
/// seconds.
const BASE: usize = 256 << 10;

/// `unit` repeated to at least `bytes` bytes.
fn repeat_to(unit: &str, bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + unit.len());
    while s.len() < bytes {
        s.push_str(unit);
    }
    s
}

/// A text path: its name, and a function returning a count of its output.
type TextPath<'a> = (&'a str, &'a dyn Fn(&str) -> usize);

/// The best of three runs of `f` on `text`.
fn best_of_three(text: &str, f: &dyn Fn(&str) -> usize) -> Duration {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f(std::hint::black_box(text)));
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// Asserts that every text path takes linear time on `unit` repeated to
/// 1, 2, 4 and 8 times [`BASE`].
fn assert_linear(unit: &str) {
    // One measurement at a time: the test threads would otherwise time
    // each other.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let paths: [TextPath<'_>; 5] = [
        ("normalize", &|t| normalize(t).len()),
        ("list_item_lines", &|t| list_item_lines(t).len()),
        ("split_sentences", &|t| split_sentences(t).len()),
        ("extract_questions", &|t| extract_questions(t).len()),
        ("find_questions", &|t| {
            let q = find_questions(t);
            q.kept.len() + q.dropped.len()
        }),
    ];
    let texts: Vec<String> = [1, 2, 4, 8]
        .iter()
        .map(|m| repeat_to(unit, m * BASE))
        .collect();
    for (name, f) in paths {
        let times: Vec<Duration> = texts.iter().map(|t| best_of_three(t, f)).collect();
        let allowance = Duration::from_millis(20);
        for (k, t) in times.iter().enumerate().skip(1) {
            let factor = 2u32 << k; // 4, 8, 16 for 2, 4, 8 times the size
            assert!(
                *t <= times[0] * factor + allowance,
                "{name} is superlinear on {unit:?}: {times:?} for 1, 2, 4, 8 times 256 KiB"
            );
        }
    }
}

#[test]
fn the_issue_prose_on_one_line_is_linear() {
    assert_linear("The build is green and retried now. ");
    assert_linear("Is the build green? Use e.g. ruff. It takes 3.5 s. Ask J. Smith. ");
}

#[test]
fn many_short_lines_and_list_items_are_linear() {
    assert_linear("Which option?\n1. Rewrite\n2. Patch\n\n");
    assert_linear("He said \"wait. Stop.\" Then `a.b? c.` ran. ");
    // What the question finder reads: marks inside one long word, links
    // and inline code, headings, lead-ins, requests, closings.
    assert_linear("a?b`c?\"d?https://x.io/?q=1");
    assert_linear(
        "## Why? Is it on? Yes. Would you like me to:\n1. Fix it?\n\nTry it and let me know. ",
    );
    assert_linear(
        "Please run it, then tell me what you see and let me know if you need anything else ",
    );
}

/// A generated sentence: words, then a terminator or an abbreviation.
fn sentence() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec("[A-Za-z0-9]{1,9}", 1..12),
        prop::sample::select(vec![
            ". ", "? ", "! ", ", ", " e.g. ", " 3.5 s. ", " \"", "` ", "\n", "\n\n", "\n- ",
            " 1. ", " Mon. ", "... ", "…", "¿", "。",
        ]),
    )
        .prop_map(|(words, end)| words.join(" ") + end)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generated_texts_take_linear_time(sentences in proptest::collection::vec(sentence(), 1..20)) {
        assert_linear(&sentences.concat());
    }
}
