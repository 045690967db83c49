//! Criterion benchmark of the model tier's cost when it does not escalate:
//! the default (hybrid) effort, granularity and route classifiers with and
//! without the tier configured (a real `Llm` at default thresholds, with
//! inputs the cheaper tiers are sure of, so no call is made). Target: the
//! median per classification with the tier at most 100 ns above the
//! median without it (docs/benchmarks.md).

#![allow(clippy::expect_used, clippy::unwrap_used, missing_docs)]
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use tact_classifiers::effort::EffortClassifier;
use tact_classifiers::granularity::GranularityClassifier;
use tact_classifiers::learned::Task;
use tact_classifiers::route::Router;
use tact_llm::{Llm, LlmConfig};
use tact_types::Tier;

fn llm() -> Llm {
    let mut c = LlmConfig::default();
    // Never called: no input below escalates (checked after the runs).
    c.url = "http://127.0.0.1:9".into();
    c.model = Some("unused".into());
    Llm::new(c).expect("llm")
}

fn bench(c: &mut Criterion) {
    let llm = llm();
    let effort = EffortClassifier::builder().build().unwrap();
    let effort_tier = EffortClassifier::builder()
        .escalation(llm.escalation(Task::Effort))
        .build()
        .unwrap();
    let q = "Should I use PostgreSQL or MySQL for the session store?";
    assert_ne!(effort_tier.classify(q, None).tier, Some(Tier::Model));
    let mut g = c.benchmark_group("tier_not_escalating");
    g.bench_function("effort/without", |b| {
        b.iter(|| effort.classify(black_box(q), None))
    });
    g.bench_function("effort/with", |b| {
        b.iter(|| effort_tier.classify(black_box(q), None))
    });

    let gran = GranularityClassifier::builder().build().unwrap();
    let gran_tier = GranularityClassifier::builder()
        .escalation(llm.escalation(Task::Granularity))
        .build()
        .unwrap();
    let query = "How many attention heads does the encoder have?";
    assert_ne!(
        gran_tier.classify(query).classification.tier,
        Some(Tier::Model)
    );
    g.bench_function("granularity/without", |b| {
        b.iter(|| gran.classify(black_box(query)))
    });
    g.bench_function("granularity/with", |b| {
        b.iter(|| gran_tier.classify(black_box(query)))
    });

    let router = Router::builder().build().unwrap();
    let router_tier = Router::builder()
        .escalation(llm.escalation(Task::Route))
        .build()
        .unwrap();
    let m = "Write a function that parses the config file and returns a map";
    assert_ne!(
        router_tier.route(m, &[]).classification.tier,
        Some(Tier::Model)
    );
    g.bench_function("route/without", |b| {
        b.iter(|| router.route(black_box(m), &[]))
    });
    g.bench_function("route/with", |b| {
        b.iter(|| router_tier.route(black_box(m), &[]))
    });
    g.finish();

    assert_eq!(
        llm.stats().requests,
        0,
        "the tier escalated during the bench"
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
