//! Criterion bench of the text engine in MB/s: normalization, sentence
//! splitting and question extraction on 1 MB of prose, as one long line
//! (the shape that made splitting quadratic) and as paragraphs, and the
//! question finder on the real agent messages of `fixtures/questions`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use tact_core::text::{extract_questions, find_questions, normalize, split_sentences};

/// `unit` repeated to 1 MB.
fn one_mb(unit: &str) -> String {
    let mut s = String::with_capacity((1 << 20) + unit.len());
    while s.len() < 1 << 20 {
        s.push_str(unit);
    }
    s
}

fn text(c: &mut Criterion) {
    let inputs = [
        (
            "one_line",
            one_mb("The build is green and retried now. Should I ship it? "),
        ),
        (
            "paragraphs",
            one_mb(
                "I looked at the repo, e.g. the parser in src/a.rs. It takes 3.5 s.\n\
                 Which approach do you prefer?\n1. Rewrite\n2. Patch\n\n",
            ),
        ),
    ];
    let mut group = c.benchmark_group("text");
    for (name, input) in &inputs {
        group.throughput(Throughput::Bytes(input.len() as u64));
        group.bench_with_input(BenchmarkId::new("normalize", name), input, |b, t| {
            b.iter(|| normalize(black_box(t)).len());
        });
        group.bench_with_input(BenchmarkId::new("split_sentences", name), input, |b, t| {
            b.iter(|| split_sentences(black_box(t)).len());
        });
        group.bench_with_input(
            BenchmarkId::new("extract_questions", name),
            input,
            |b, t| {
                b.iter(|| extract_questions(black_box(t)).len());
            },
        );
    }
    // Real agent messages (the questions task's train split), one at a
    // time as a host meets them.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/questions/real-train.jsonl"
    );
    let messages: Vec<String> = std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v.get("text")?.as_str().map(str::to_owned))
        .collect();
    let bytes: usize = messages.iter().map(String::len).sum();
    if bytes > 0 {
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_function("find_questions/agent_messages", |b| {
            b.iter(|| {
                messages
                    .iter()
                    .map(|m| find_questions(black_box(m)).kept.len())
                    .sum::<usize>()
            });
        });
    }
    group.finish();
}

criterion_group!(benches, text);
criterion_main!(benches);
