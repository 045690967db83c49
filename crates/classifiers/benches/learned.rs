//! Criterion benchmarks of the learned tier: per-item latency of the
//! `heuristic`, `learned` and `hybrid` strategies of effort, granularity
//! and routing over each task's dev split (target: hybrid median at most
//! 3 µs per item), and the one-time cost of loading an embedded model.

#![allow(clippy::expect_used, clippy::unwrap_used, missing_docs)]
use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tact_classifiers::effort::{EffortClassifier, Strategy as EStrategy};
use tact_classifiers::granularity::{GranularityClassifier, Strategy as GStrategy};
use tact_classifiers::learned::{LinearModel, Task};
use tact_classifiers::route::{Router, Strategy as RStrategy};
use tact_core::dataset::read_jsonl;
use tact_types::dataset::{EffortExample, GranularityExample, RouteExample};

fn dev(task: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(task)
        .join("dev.jsonl")
}

const STRATEGIES: [&str; 3] = ["heuristic", "learned", "hybrid"];

fn effort(c: &mut Criterion) {
    let items: Vec<EffortExample> = read_jsonl::<EffortExample>(&dev("effort"))
        .unwrap()
        .into_iter()
        .map(|l| l.record)
        .collect();
    let mut group = c.benchmark_group("learned/effort_dev");
    group.throughput(Throughput::Elements(items.len() as u64));
    for name in STRATEGIES {
        let s: EStrategy = name.parse().unwrap();
        let clf = EffortClassifier::builder().strategy(s).build().unwrap();
        group.bench_function(name, |b| {
            b.iter(|| {
                for e in &items {
                    black_box(clf.classify(black_box(&e.text), e.context.as_deref()));
                }
            });
        });
    }
    group.finish();
}

fn granularity(c: &mut Criterion) {
    let items: Vec<GranularityExample> = read_jsonl::<GranularityExample>(&dev("granularity"))
        .unwrap()
        .into_iter()
        .map(|l| l.record)
        .collect();
    let mut group = c.benchmark_group("learned/granularity_dev");
    group.throughput(Throughput::Elements(items.len() as u64));
    for name in STRATEGIES {
        let s: GStrategy = name.parse().unwrap();
        let clf = GranularityClassifier::builder()
            .strategy(s)
            .build()
            .unwrap();
        group.bench_function(name, |b| {
            b.iter(|| {
                for e in &items {
                    black_box(clf.classify(black_box(&e.text)));
                }
            });
        });
    }
    group.finish();
}

fn route(c: &mut Criterion) {
    let items: Vec<RouteExample> = read_jsonl::<RouteExample>(&dev("route"))
        .unwrap()
        .into_iter()
        .map(|l| l.record)
        .collect();
    let mut group = c.benchmark_group("learned/route_dev");
    group.throughput(Throughput::Elements(items.len() as u64));
    for name in STRATEGIES {
        let s: RStrategy = name.parse().unwrap();
        let router = Router::builder().strategy(s).build().unwrap();
        group.bench_function(name, |b| {
            b.iter(|| {
                for e in &items {
                    black_box(router.route(black_box(&e.text), &e.history));
                }
            });
        });
    }
    group.finish();
}

fn load(c: &mut Criterion) {
    c.bench_function("learned/load_effort_model", |b| {
        b.iter(|| black_box(LinearModel::from_json(Task::Effort.default_model_json()).unwrap()));
    });
}

criterion_group!(benches, effort, granularity, route, load);
criterion_main!(benches);
