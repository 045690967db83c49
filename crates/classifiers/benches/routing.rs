//! Criterion benchmarks of the query classifiers: per-query latency of the
//! default granularity strategy and of the default router (target: median
//! at most 2 µs each), the seed baselines, and the one-time build cost.

#![allow(clippy::expect_used, missing_docs)]
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tact_classifiers::granularity::{GranularityClassifier, ScoringConfig, Strategy as GStrategy};
use tact_classifiers::route::{Router, Strategy as RStrategy};
use tact_types::{IntentEntry, QueryType};

/// Queries of assorted shapes and languages (not taken from the fixtures'
/// dev split).
const QUERIES: &[(&str, &str)] = &[
    ("value", "What learning rate did they use for the 7B model?"),
    (
        "main_idea",
        "What is the main argument of the position paper?",
    ),
    ("why_table", "Why is the p-value in Table 3 so low?"),
    (
        "imperative",
        "List the hyperparameters of the main experiment",
    ),
    ("noun_phrase", "default port of the metrics server"),
    ("spanish", "¿Cuál es la idea principal del artículo?"),
    ("german", "Wie viele Schichten hat der Encoder?"),
    (
        "long",
        "We are deciding whether to adopt the library in production; based on the documentation, how does its connection pooling behave under heavy load?",
    ),
];

/// Messages of assorted shapes and languages, with and without history.
const MESSAGES: &[(&str, &str)] = &[
    ("retrieval", "Does RequestGet follow redirects by default?"),
    (
        "code",
        "Write an endpoint that returns the orders of a customer by id.",
    ),
    ("conversational", "thanks, that's exactly what I needed"),
    ("platform", "How many API calls have I made this month?"),
    (
        "prefix",
        "You are a direct and concise assistant. Usage: 45% of quota.",
    ),
    ("spanish", "¿Cuánto llevo consumido de la cuota este mes?"),
    (
        "lookalike",
        "Write a check that rejects with 429 when an API key makes more than 100 calls per minute.",
    ),
    ("reformulate", "Can you make that shorter and in Spanish?"),
];

fn history() -> Vec<IntentEntry> {
    let kinds = [
        QueryType::Retrieval,
        QueryType::CodeGeneration,
        QueryType::Retrieval,
        QueryType::Conversational,
        QueryType::Platform,
        QueryType::Retrieval,
        QueryType::CodeGeneration,
        QueryType::Retrieval,
    ];
    kinds
        .iter()
        .enumerate()
        .map(|(i, &kind)| IntentEntry {
            kind,
            snippet: format!("earlier message number {i} about addVar and startLoop"),
        })
        .collect()
}

fn granularity(c: &mut Criterion) {
    let heuristic = GranularityClassifier::builder().build().expect("build");
    let seed = GranularityClassifier::builder()
        .strategy(GStrategy::Seed)
        .build()
        .expect("build");
    let config = ScoringConfig::default();
    let mut group = c.benchmark_group("granularity");
    group.throughput(Throughput::Elements(1));
    // One benchmark per query shape: the target is the median of these.
    for (name, q) in QUERIES {
        group.bench_function(format!("heuristic/{name}"), |b| {
            b.iter(|| black_box(heuristic.classify(black_box(q))));
        });
    }
    group.bench_function("seed/value", |b| {
        b.iter(|| black_box(seed.classify(black_box(QUERIES[0].1))));
    });
    group.bench_function("select_scoring/adaptive_level", |b| {
        b.iter(|| black_box(heuristic.select_scoring(&config, 2, black_box(QUERIES[2].1))));
    });
    group.finish();
    c.bench_function("granularity/build_once", |b| {
        b.iter(|| black_box(GranularityClassifier::builder().build()))
    });
}

fn route(c: &mut Criterion) {
    let router = Router::builder()
        .strategy(RStrategy::Heuristic)
        .build()
        .expect("build");
    let seed = Router::builder()
        .strategy(RStrategy::Seed)
        .build()
        .expect("build");
    let history = history();
    let mut group = c.benchmark_group("route");
    group.throughput(Throughput::Elements(1));
    for (name, m) in MESSAGES {
        group.bench_function(format!("heuristic/{name}"), |b| {
            b.iter(|| black_box(router.route(black_box(m), &[])));
        });
    }
    group.bench_function("heuristic/with_history", |b| {
        b.iter(|| {
            black_box(router.route(black_box("And how does that work with lists?"), &history))
        });
    });
    group.bench_function("seed/platform", |b| {
        b.iter(|| black_box(seed.route(black_box(MESSAGES[3].1), &[])));
    });
    group.finish();
    c.bench_function("route/build_once", |b| {
        b.iter(|| black_box(Router::builder().build()))
    });
}

criterion_group!(benches, granularity, route);
criterion_main!(benches);
