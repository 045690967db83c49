//! Criterion benchmarks of the learned tier: latency of the `heuristic`,
//! `learned` and `hybrid` strategies of effort, granularity and routing over
//! each task's dev split (a whole pass, as a mean per item), the latency of
//! single dev items (every fifth, one benchmark each, summarised as the
//! median over items; target: hybrid at most 3 µs per item, effort's
//! heuristic at most 2 µs per question), and the one-time cost of loading
//! an embedded model.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::print_stderr,
    missing_docs
)]
use std::cell::RefCell;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

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

/// The records of a task's dev split.
fn dev_items<T: serde::de::DeserializeOwned>(task: &str) -> Vec<T> {
    read_jsonl::<T>(&dev(task))
        .unwrap()
        .into_iter()
        .map(|l| l.record)
        .collect()
}

const STRATEGIES: [&str; 3] = ["heuristic", "learned", "hybrid"];

fn effort(c: &mut Criterion) {
    let items: Vec<EffortExample> = dev_items("effort");
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
    let items: Vec<GranularityExample> = dev_items("granularity");
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
    let items: Vec<RouteExample> = dev_items("route");
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

/// Samples per single-item benchmark.
const ITEM_SAMPLES: usize = 10;

/// Benchmarks every fifth item of a dev split on its own, then prints the
/// median (and mean) over those items of each item's median time per call,
/// and how many items exceed `target_ns`.
fn single_items<I>(
    c: &mut Criterion,
    group_name: &str,
    items: &[I],
    target_ns: f64,
    call: impl Fn(&I),
) {
    let mut group = c.benchmark_group(group_name);
    group
        .sample_size(ITEM_SAMPLES)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_millis(300))
        .throughput(Throughput::Elements(1));
    let mut medians = Vec::new();
    for (i, item) in items.iter().enumerate().step_by(5) {
        // The time per call of each sample criterion takes (warm-up
        // included): the last `ITEM_SAMPLES` are the measured ones.
        let per_call = RefCell::new(Vec::new());
        group.bench_function(format!("{i:03}"), |b| {
            b.iter_custom(|iters| {
                let t = Instant::now();
                for _ in 0..iters {
                    call(black_box(item));
                }
                let d = t.elapsed();
                per_call
                    .borrow_mut()
                    .push(d.as_nanos() as f64 / iters.max(1) as f64);
                d
            });
        });
        // Fewer calls than samples: not measured (filtered out, or
        // `--test`, which runs each benchmark once).
        let mut v = per_call.into_inner();
        if v.len() >= ITEM_SAMPLES {
            let mut measured = v.split_off(v.len() - ITEM_SAMPLES);
            if let Some(m) = median(&mut measured) {
                medians.push(m);
            }
        }
    }
    group.finish();
    let over = medians.iter().filter(|&&m| m > target_ns).count();
    let n = medians.len();
    let mean = medians.iter().sum::<f64>() / n.max(1) as f64;
    if let Some(m) = median(&mut medians) {
        eprintln!(
            "{group_name}: median over {n} items {:.2} µs per call (mean {:.2}); {over} of {n} items above {:.1} µs",
            m / 1000.0,
            mean / 1000.0,
            target_ns / 1000.0
        );
    }
}

fn median(v: &mut [f64]) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

fn per_item(c: &mut Criterion) {
    let effort: Vec<EffortExample> = dev_items("effort");
    for (name, target) in [("heuristic", 2000.0), ("hybrid", 3000.0)] {
        let clf = EffortClassifier::builder()
            .strategy(name.parse().unwrap())
            .build()
            .unwrap();
        single_items(
            c,
            &format!("learned/effort_item/{name}"),
            &effort,
            target,
            |e| {
                black_box(clf.classify(&e.text, e.context.as_deref()));
            },
        );
    }
    let granularity: Vec<GranularityExample> = dev_items("granularity");
    let clf = GranularityClassifier::builder()
        .strategy(GStrategy::Hybrid)
        .build()
        .unwrap();
    single_items(
        c,
        "learned/granularity_item/hybrid",
        &granularity,
        3000.0,
        |e| {
            black_box(clf.classify(&e.text));
        },
    );
    let route: Vec<RouteExample> = dev_items("route");
    let router = Router::builder()
        .strategy(RStrategy::Hybrid)
        .build()
        .unwrap();
    single_items(c, "learned/route_item/hybrid", &route, 3000.0, |e| {
        black_box(router.route(&e.text, &e.history));
    });
}

fn load(c: &mut Criterion) {
    c.bench_function("learned/load_effort_model", |b| {
        b.iter(|| black_box(LinearModel::from_json(Task::Effort.default_model_json()).unwrap()));
    });
}

criterion_group!(benches, effort, granularity, route, per_item, load);
criterion_main!(benches);
