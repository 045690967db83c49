//! Criterion benchmarks of the text classifiers: per-question latency of
//! the effort heuristic (issue 2's default strategy; target: median at
//! most 2 µs per question; the hybrid default and the dev split are in
//! `benches/learned.rs`), the seed baseline, whole-message extraction, and
//! the one-time build cost.

#![allow(clippy::expect_used, missing_docs)]
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tact_classifiers::effort::{EffortClassifier, Strategy};

/// Questions of assorted shapes and lengths (not taken from the fixtures'
/// dev split).
const QUESTIONS: &[(&str, &str)] = &[
    (
        "options",
        "Should I use PostgreSQL or MySQL for the session store?",
    ),
    (
        "preference",
        "What naming convention do you want for the new metrics?",
    ),
    (
        "user_action",
        "Can you profile the import job on staging and send me the flame graph?",
    ),
    ("terse", "Ship it?"),
    (
        "preamble",
        "I found two config files. Which one should I edit, config/dev.yaml or config/local.yaml?",
    ),
    ("spanish", "¿Quieres que borre las ramas antiguas?"),
    (
        "german",
        "Wie viele Anfragen pro Sekunde verarbeitet der Dienst derzeit?",
    ),
    (
        "strategy",
        "Should we split the monolith into services before the launch, given the team's size and the latency budget?",
    ),
    (
        "multi_part",
        "Should I keep the old flag? Also, what's the current p95 of the export endpoint?",
    ),
];

fn effort(c: &mut Criterion) {
    let heuristic = EffortClassifier::builder()
        .strategy(Strategy::Heuristic)
        .build()
        .expect("build");
    let seed = EffortClassifier::builder()
        .strategy(Strategy::Seed)
        .build()
        .expect("build");
    let mut group = c.benchmark_group("effort");
    group.throughput(Throughput::Elements(1));
    // One benchmark per question shape: the target is the median of these.
    for (name, q) in QUESTIONS {
        group.bench_function(format!("heuristic/{name}"), |b| {
            b.iter(|| black_box(heuristic.classify(black_box(q), None)));
        });
    }
    group.bench_function("heuristic/question_with_context", |b| {
        let ctx = "Task: add rate limiting to the public API, 100 requests per minute per key, return 429.";
        b.iter(|| black_box(heuristic.classify(black_box("What rate limit should apply per key?"), Some(ctx))));
    });
    group.bench_function("seed/options", |b| {
        b.iter(|| black_box(seed.classify(black_box(QUESTIONS[0].1), None)));
    });
    let message = QUESTIONS
        .iter()
        .map(|(_, q)| *q)
        .collect::<Vec<_>>()
        .join(" I checked the logs. ");
    group.throughput(Throughput::Bytes(message.len() as u64));
    group.bench_function("heuristic/message", |b| {
        b.iter(|| black_box(heuristic.questions(black_box(&message))))
    });
    group.finish();
    c.bench_function("effort/build_once", |b| {
        b.iter(|| black_box(EffortClassifier::builder().build()))
    });
}

criterion_group!(benches, effort);
criterion_main!(benches);
