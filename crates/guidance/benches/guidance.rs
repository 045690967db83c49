//! Criterion bench of guidance: updating the trajectory analysis with one
//! event and running the whole default classifier set, on trajectories of
//! 100 and 10,000 events (target: at most 5 µs at 10,000 events and at
//! most twice the 100-event cost).

use std::hint::black_box;

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use serde_json::json;
use tact_guidance::{GuidanceContext, TrajectoryAnalysis, classify_all, default_classifiers};
use tact_types::trajectory::{Event, Mode, PendingCall, ProgressKind, ToolCall};

/// A realistic coding-agent event `i`: reads, searches, edits, test runs
/// (some failing), messages, progress and the odd condensation.
fn event(i: usize) -> Event {
    let m = i / 8;
    match i % 8 {
        0 => Event::tool(
            ToolCall::new("read_file")
                .params(json!({"path": format!("src/module_{m}.rs")}))
                .output(format!("//! module {m}\npub fn f{m}() -> u32 {{ {m} }}\n")),
        ),
        1 => Event::tool(
            ToolCall::new("grep")
                .params(json!({"pattern": format!("fn f{m}"), "path": "src"}))
                .output(format!("src/module_{m}.rs:2:pub fn f{m}() -> u32")),
        ),
        2 => Event::assistant(format!("Updating f{m} to take a context.")),
        3 => Event::tool(
            ToolCall::new("edit_file")
                .params(json!({"path": format!("src/module_{m}.rs"), "old": format!("f{m}()"), "new": format!("f{m}(ctx)")}))
                .output("applied"),
        ),
        4 => Event::tool(
            ToolCall::new("run_tests")
                .params(json!({"command": format!("cargo test module_{m}")}))
                .ok(m % 3 != 0)
                .output(if m % 3 == 0 {
                    format!("error[E0061]: this function takes 1 argument\n --> src/module_{m}.rs:2:8")
                } else {
                    "test result: ok. 3 passed".to_owned()
                }),
        ),
        5 if m % 3 != 0 => Event::progress(ProgressKind::TestPassed),
        5 => Event::nudge("Diagnose the failure before retrying."),
        6 if m % 12 == 11 => Event::condensation(),
        6 => Event::tool(
            ToolCall::new("search")
                .params(json!({"query": format!("callers of f{m}")}))
                .output("3 results")
                .step(i as u64),
        ),
        _ => Event::tool(
            ToolCall::new("read_file")
                .params(json!({"path": format!("tests/module_{m}.rs")}))
                .output("#[test] fn t() {}")
                .step(i as u64 - 1),
        ),
    }
}

fn analysis_of(n: usize) -> TrajectoryAnalysis {
    let mut a = TrajectoryAnalysis::new(Mode::Headless);
    a.update(&Event::user("Thread a context through every module"));
    for i in 0..n.saturating_sub(1) {
        a.update(&event(i));
    }
    a
}

fn bench(c: &mut Criterion) {
    let classifiers = default_classifiers();
    let mut group = c.benchmark_group("guidance/update_and_classify_all");
    for n in [100usize, 10_000] {
        let base = analysis_of(n);
        // The next event cycles through the 8 kinds of the mix, so both
        // sizes are measured on the same events.
        let next: Vec<Event> = (n..n + 8).map(event).collect();
        let mut k = 0usize;
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter_batched_ref(
                || {
                    k = k.wrapping_add(1);
                    (base.clone(), k % next.len())
                },
                |(a, i)| {
                    a.update(black_box(&next[*i]));
                    let ctx = GuidanceContext::new(a, &[]);
                    black_box(classify_all(&classifiers, &ctx));
                },
                BatchSize::SmallInput,
            );
        });
    }
    group.finish();

    // The same with one pending call to scan for credentials.
    let pending = [PendingCall::new(
        "http_request",
        json!({"url": "https://api.example.com/v1/jobs", "headers": {"Accept": "application/json"}, "body": {"name": "nightly", "retries": 3}}),
    )];
    let mut group = c.benchmark_group("guidance/update_and_classify_all_with_pending");
    let base = analysis_of(10_000);
    let next = event(10_000);
    group.bench_function("10000", |b| {
        b.iter_batched_ref(
            || base.clone(),
            |a| {
                a.update(black_box(&next));
                let ctx = GuidanceContext::new(a, &pending);
                black_box(classify_all(&classifiers, &ctx));
            },
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
