//! The tier gives up (issue 41's defect "the model tier never gives up")
//! and cancels what it abandons: a stalled server costs a few timeouts,
//! not one per call; the breaker lets one call probe after its cool-down;
//! the run's wall-time budget ends the asking; a redirect is not followed;
//! a call abandoned at its timeout closes its connection.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tact_classifiers::effort::EffortClassifier;
use tact_classifiers::escalation::{Escalation, LabelRequest};
use tact_llm::{Backend, FailureKind, Llm, LlmConfig};

use crate::server::{Reply, Server, ollama};

const LABELS: &[&str] = &["low", "medium", "high"];

fn config(url: &str) -> LlmConfig {
    let mut c = LlmConfig::default();
    c.backend = Backend::Ollama;
    c.url = url.to_owned();
    c.model = Some("qwen2.5:3b".into());
    c
}

fn ask(llm: &Llm, prompt: &str) -> Result<usize, FailureKind> {
    llm.classify(&LabelRequest::new("effort", LABELS, prompt))
        .map(|a| a.label)
        .map_err(|e| e.kind())
}

#[test]
fn model_tier_never_gives_up() {
    // The server answers its probe but never a chat call: 200 questions
    // (the default 500 ms timeout) end within 5 s, every one decided by
    // the cheaper tiers, after `breaker_failures` timeouts.
    let server = Server::start(|req| match req.path.as_str() {
        "/api/version" => Reply::ok(serde_json::json!({"version": "0.12.6"})),
        _ => Reply::stall(),
    });
    let llm = Llm::new(config(&server.url)).unwrap();
    llm.probe().unwrap();
    let plain = EffortClassifier::builder().build().unwrap();
    let tiered = EffortClassifier::builder()
        .escalation(Escalation::new(Arc::new(llm.clone()), 2.0))
        .build()
        .unwrap();
    let started = Instant::now();
    for i in 0..200 {
        let q = format!("Which retry policy should question {i} use?");
        assert_eq!(tiered.classify(&q, None), plain.classify(&q, None), "{q}");
    }
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    let s = llm.stats();
    assert_eq!(
        s.failures_by_kind,
        vec![(FailureKind::Timeout, 3), (FailureKind::Unavailable, 197)]
    );
    assert_eq!(server.posts().len(), 3);
}

#[test]
fn the_breaker_lets_one_call_probe_after_its_cool_down() {
    let calls = Arc::new(AtomicUsize::new(0));
    let n = Arc::clone(&calls);
    let server = Server::start(move |_| {
        if n.fetch_add(1, Ordering::SeqCst) < 3 {
            Reply::raw(503, r#"{"error":"server busy"}"#)
        } else {
            ollama(r#"{"label":"low"}"#)
        }
    });
    let mut c = config(&server.url);
    c.breaker_cooldown_ms = 150;
    let llm = Llm::new(c).unwrap();
    for p in ["a", "b", "c"] {
        assert_eq!(ask(&llm, p), Err(FailureKind::Http));
    }
    assert_eq!(ask(&llm, "d"), Err(FailureKind::Unavailable));
    assert_eq!(server.posts().len(), 3);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(ask(&llm, "e"), Ok(0));
    assert_eq!(ask(&llm, "f"), Ok(0));
    assert_eq!(server.posts().len(), 5);
}

#[test]
fn the_runs_wall_time_budget_ends_the_asking() {
    let server = Server::start(|_| ollama(r#"{"label":"high"}"#).after(Duration::from_millis(150)));
    let mut c = config(&server.url);
    c.run_budget_ms = 250;
    c.timeout_ms = 1_000;
    let llm = Llm::new(c).unwrap();
    let started = Instant::now();
    assert_eq!(ask(&llm, "a"), Ok(2));
    // 100 ms left: this call is cut there.
    assert_eq!(ask(&llm, "b"), Err(FailureKind::Timeout));
    assert_eq!(ask(&llm, "c"), Err(FailureKind::Unavailable));
    assert!(started.elapsed() < Duration::from_millis(600));
    assert_eq!(server.posts().len(), 2);
}

#[test]
fn a_redirect_to_another_port_is_not_followed() {
    let other = Server::start(|_| ollama(r#"{"label":"high"}"#));
    let location = format!("{}/api/chat", other.url);
    let server = Server::start(move |_| Reply::raw(302, "").header("Location", &location));
    let llm = Llm::new(config(&server.url)).unwrap();
    assert_eq!(ask(&llm, "a"), Err(FailureKind::Http));
    assert!(other.seen().is_empty(), "{:?}", other.seen());
}

#[test]
fn a_call_abandoned_at_its_timeout_closes_its_connection() {
    let server = Server::start(|_| Reply::stall());
    let mut c = config(&server.url);
    c.timeout_ms = 200;
    let llm = Llm::new(c).unwrap();
    assert_eq!(ask(&llm, "a"), Err(FailureKind::Timeout));
    let deadline = Instant::now() + Duration::from_secs(2);
    while server.closed() == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(server.closed(), 1, "the server was left generating");
}
