//! Criterion bench of agent-log import in MB/s per format: each sample of
//! `fixtures/logs` (the largest of each format) repeated to about 4 MB and
//! imported whole (`import_text`), as `tact run` reads a log.

use std::hint::black_box;
use std::path::Path;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use tact::import::{Format, import_text};

/// A log of `format` of about 4 MB: the sample's records repeated (JSON
/// Lines and Markdown), or its event list / trajectory steps repeated (one
/// JSON document).
fn four_mb(rel: &str, format: Format) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel);
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let target = 4 << 20;
    match format {
        Format::OpenHands => {
            let events: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap_or_default();
            let mut all = Vec::new();
            while serde_json::to_string(&all).map_or(0, |s| s.len()) < target && !events.is_empty()
            {
                all.extend(events.iter().cloned());
            }
            serde_json::to_string(&all).unwrap_or_default()
        }
        Format::SweAgent => {
            let mut v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            let steps = v["trajectory"].as_array().cloned().unwrap_or_default();
            let mut all = Vec::new();
            while all.len() * (text.len() / steps.len().max(1)) < target && !steps.is_empty() {
                all.extend(steps.iter().cloned());
            }
            v["trajectory"] = serde_json::Value::Array(all);
            v.to_string()
        }
        _ => {
            let mut s = String::with_capacity(target + text.len());
            while s.len() < target && !text.is_empty() {
                s.push_str(&text);
                if !s.ends_with('\n') {
                    s.push('\n');
                }
            }
            s
        }
    }
}

fn import(c: &mut Criterion) {
    let inputs = [
        (
            Format::ClaudeCode,
            "fixtures/logs/claude-code/ask-user-question.jsonl",
        ),
        (
            Format::Codex,
            "fixtures/logs/codex/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
        ),
        (
            Format::OpenHands,
            "fixtures/logs/openhands/basic_gui_mode.json",
        ),
        (
            Format::SweAgent,
            "fixtures/logs/swe-agent/pydicom__pydicom-1458.traj",
        ),
        (
            Format::Aider,
            "fixtures/logs/aider/mozgoslav.aider.chat.history.md",
        ),
    ];
    let mut group = c.benchmark_group("import");
    group.sample_size(20);
    for (format, rel) in inputs {
        let text = four_mb(rel, format);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("import_text", format.name()),
            &text,
            |b, t| {
                b.iter(|| import_text(format, black_box(t), "bench").map(|l| l.turns.len()));
            },
        );
    }
    group.finish();
}

criterion_group!(benches, import);
criterion_main!(benches);
