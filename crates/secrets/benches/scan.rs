//! Criterion bench of the credential scanner: `redact_text` on one log
//! line without a credential, one with non-ASCII text, one with a
//! credential, 1 MB of prose, typical text (every line of the repository's
//! real agent-log samples, one call per line, as an importer or the watch
//! view redacts them) and text full of credential-like tokens (every
//! gitleaks family's example, with prose between them). `SCAN_BENCH_LOGS`
//! names another folder of logs for the typical text (to compare builds
//! on the same lines).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tact_secrets::CredentialScanner;

fn scan(c: &mut Criterion) {
    let scanner = CredentialScanner::default();
    let clean = r#"{"type":"tool","name":"shell","params":{"command":"cargo test"},"ok":false}"#;
    let accented = "shell command=cargo test -p pricing → résultat : FAILED. 11 passed; 1 failed";
    let leaky = "curl -H 'Authorization: Bearer ghp_aBcD1234EfGh5678IjKl9012MnOp3456QrSt' https://api.example.com";
    let mut prose = String::new();
    while prose.len() < 1 << 20 {
        prose.push_str("The build is green and retried now. Should I ship it? The cache is warm. ");
    }
    // Typical text: each line of the real agent logs under fixtures/logs,
    // or under the folder `SCAN_BENCH_LOGS` names (another commit's logs).
    let logs = std::env::var_os("SCAN_BENCH_LOGS").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/logs"),
        std::path::PathBuf::from,
    );
    let mut lines: Vec<String> = Vec::new();
    let mut stack = vec![logs];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                lines.extend(text.lines().map(str::to_owned));
            }
        }
    }
    lines.sort();
    let typical_bytes: usize = lines.iter().map(String::len).sum();
    // Dense: every family's example between short phrases.
    let mut dense = String::new();
    for (seed, f) in tact_secrets::FAMILY_EXAMPLES.iter().enumerate() {
        let (example, _) = tact_secrets::expand_example(f.example, seed as u64);
        dense.push_str("the key is ");
        dense.push_str(&example);
        dense.push_str(" and then\n");
    }
    let mut group = c.benchmark_group("scanner");
    group.throughput(Throughput::Bytes(typical_bytes as u64));
    group.bench_function("agent_log_lines", |b| {
        b.iter(|| {
            lines
                .iter()
                .map(|l| {
                    scanner
                        .redact_text(black_box(l))
                        .map(|t| t.len())
                        .unwrap_or(0)
                })
                .sum::<usize>()
        });
    });
    for (name, text) in [
        ("clean_line", clean),
        ("non_ascii_line", accented),
        ("line_with_a_token", leaky),
        ("prose_1mb", prose.as_str()),
        ("credential_dense", dense.as_str()),
    ] {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                scanner
                    .redact_text(black_box(text))
                    .map(|t| t.len())
                    .unwrap_or(0)
            });
        });
    }
    group.finish();
}

criterion_group!(benches, scan);
criterion_main!(benches);
