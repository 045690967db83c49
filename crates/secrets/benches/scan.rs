//! Criterion bench of the credential scanner: `redact_text` on one log
//! line without a credential, one with non-ASCII text, one with a
//! credential, and 1 MB of prose.

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
    let mut group = c.benchmark_group("scanner");
    for (name, text) in [
        ("clean_line", clean),
        ("non_ascii_line", accented),
        ("line_with_a_token", leaky),
        ("prose_1mb", prose.as_str()),
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
