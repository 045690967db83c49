//! Criterion benchmarks of the store: question rows per second in batched
//! inserts (target: at least 100,000/s) and loading one trajectory by
//! (spec, agent) with 100,000 trajectories stored (target: at most 1 ms).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use tact_trajectory_store::{QuestionRecord, SessionRecord, Store, TurnRecord};
use tact_types::EffortLevel;

const TURNS: u32 = 100;
const QUESTIONS_PER_TURN: usize = 10;

fn session(i: u64, turns: u32, questions: usize) -> SessionRecord {
    SessionRecord {
        spec_id: format!("SPEC-{}", i % 1000),
        stage: Some("implement".into()),
        agent: format!("agent-{}", i % 100),
        run_id: format!("run-{i}"),
        created_at: Some(1_700_000_000 + i64::try_from(i).unwrap()),
        turns: (1..=turns)
            .map(|n| TurnRecord {
                number: n,
                prompt: "Add retries to the upload client".into(),
                response: "Should I cap the retries at five, or keep retrying until the deadline?"
                    .into(),
                questions: (0..questions)
                    .map(|q| QuestionRecord {
                        text: format!("Question {q}: exponential or fixed backoff?"),
                        effort: EffortLevel::Low,
                        confidence: 0.9,
                        reasons: vec![],
                    })
                    .collect(),
                ..TurnRecord::default()
            })
            .collect(),
        ..SessionRecord::default()
    }
}

fn temp_path(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tact-store-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", p.display()));
    }
    p
}

fn inserts(c: &mut Criterion) {
    let mut store = Store::open(temp_path("inserts.db")).unwrap();
    let mut next = 0u64;
    let mut group = c.benchmark_group("store");
    // One session of 100 turns x 10 questions: 1,000 question rows (plus
    // 100 turn rows) in one transaction.
    group.throughput(Throughput::Elements(
        u64::from(TURNS) * QUESTIONS_PER_TURN as u64,
    ));
    group.bench_function("insert_question_rows", |b| {
        b.iter_batched(
            || {
                next += 1;
                session(next, TURNS, QUESTIONS_PER_TURN)
            },
            |s| black_box(store.ingest(&s).unwrap()),
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

fn loads(c: &mut Criterion) {
    let mut store = Store::open(temp_path("loads.db")).unwrap();
    let sessions: Vec<SessionRecord> = (0..100_000).map(|i| session(i, 2, 1)).collect();
    for r in store.ingest_all(&sessions) {
        r.unwrap();
    }
    assert_eq!(store.trajectory_count().unwrap(), 100_000);
    let mut group = c.benchmark_group("store");
    group.throughput(Throughput::Elements(1));
    let mut i = 0u64;
    group.bench_function("load_by_spec_agent_of_100k", |b| {
        b.iter(|| {
            i = (i + 7919) % 100_000;
            let spec = format!("SPEC-{}", i % 1000);
            let agent = format!("agent-{}", i % 100);
            black_box(store.load_latest(&spec, &agent).unwrap())
        });
    });
    group.finish();
}

criterion_group!(benches, inserts, loads);
criterion_main!(benches);
