//! The client and the classifiers' tier against the scripted server: a
//! right answer on both APIs, then each failure (slow, HTTP 500, refused,
//! malformed, off-schema), a `<think>` block, many concurrent calls,
//! cache hits and the budget. Each failure gives back the cheaper tiers'
//! decision within the timeout plus 50 ms.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tact_classifiers::effort::EffortClassifier;
use tact_classifiers::escalation::{Escalation, LabelRequest};
use tact_classifiers::learned::Task;
use tact_classifiers::route::Router;
use tact_llm::{Backend, FailureKind, Llm, LlmConfig};
use tact_types::{EffortLevel, QueryType, RouteRule, Tier};

use crate::server::{Reply, Server, ollama, openai};

const LABELS: &[&str] = &["low", "medium", "high"];
const TIMEOUT_MS: u64 = 300;
/// The issue's bound: a failure returns within the timeout plus 50 ms.
const BOUND: Duration = Duration::from_millis(TIMEOUT_MS + 50);

fn config(url: &str, backend: Backend) -> LlmConfig {
    let mut c = LlmConfig::default();
    c.backend = backend;
    c.url = url.to_owned();
    c.model = Some("qwen2.5:3b".into());
    c.timeout_ms = TIMEOUT_MS;
    c
}

fn llm(url: &str) -> Llm {
    Llm::new(config(url, Backend::Ollama)).unwrap()
}

/// An effort classifier that asks `llm` about every decision.
fn always(llm: &Llm) -> EffortClassifier {
    EffortClassifier::builder()
        .escalation(Escalation::new(Arc::new(llm.clone()), 2.0))
        .build()
        .unwrap()
}

const QUESTION: &str = "What do you think about the retry policy?";

/// The classifier's decision equals the cheaper tiers' one, within the
/// bound, and the client counted one failure of `kind`.
fn fails_open(llm: &Llm, kind: FailureKind) {
    let plain = EffortClassifier::builder().build().unwrap();
    let c = always(llm);
    let t = Instant::now();
    let r = c.classify(QUESTION, None);
    let elapsed = t.elapsed();
    assert_eq!(r, plain.classify(QUESTION, None));
    assert!(elapsed <= BOUND, "{kind:?}: {elapsed:?}");
    let stats = llm.stats();
    assert_eq!(stats.failures_by_kind, vec![(kind, 1)], "{stats:?}");
}

#[test]
fn ollama_right_answer_speaks_the_documented_request() {
    let server =
        Server::start(|_| ollama(r#"{"label": "high", "reason": "needs an investigation"}"#));
    let llm = llm(&server.url);
    let r = always(&llm).classify(QUESTION, Some("the spec"));
    assert_eq!((r.label, r.tier), (EffortLevel::High, Some(Tier::Model)));
    assert_eq!(r.tier_model.as_deref(), Some("qwen2.5:3b"));
    assert!(r.reasons[0].detail.contains("needs an investigation"));
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    let (req, body) = (&seen[0], &seen[0].body);
    assert_eq!(
        (req.method.as_str(), req.path.as_str()),
        ("POST", "/api/chat")
    );
    assert_eq!(body["model"], "qwen2.5:3b");
    assert_eq!(body["stream"], false);
    assert_eq!(body["options"]["temperature"], 0);
    assert_eq!(body["keep_alive"], "5m");
    assert_eq!(body["format"]["type"], "object");
    assert_eq!(body["format"]["required"], serde_json::json!(["label"]));
    assert_eq!(
        body["format"]["properties"]["label"]["enum"],
        serde_json::json!(["low", "medium", "high"])
    );
    assert_eq!(body["messages"][0]["role"], "user");
    let prompt = body["messages"][0]["content"].as_str().unwrap();
    assert!(prompt.contains(QUESTION) && prompt.contains("the spec"));
}

#[test]
fn openai_compatible_right_answer_speaks_the_documented_request() {
    let server = Server::start(|_| openai(r#"{"label":"low"}"#));
    let llm = Llm::new(config(&format!("{}/v1", server.url), Backend::Openai)).unwrap();
    let a = llm
        .classify(&LabelRequest::new("effort", LABELS, "Tabs or spaces?"))
        .unwrap();
    assert_eq!((a.label, a.reason, a.cached), (0, None, false));
    let seen = server.seen();
    let body = &seen[0].body;
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert_eq!(body["temperature"], 0);
    assert_eq!(body["stream"], false);
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(
        body["response_format"]["json_schema"]["schema"]["properties"]["label"]["enum"],
        serde_json::json!(LABELS)
    );
    // Without structured output, no response_format is sent.
    let mut c = config(&server.url, Backend::Openai);
    c.structured = false;
    Llm::new(c)
        .unwrap()
        .classify(&LabelRequest::new("effort", LABELS, "other"))
        .unwrap();
    assert!(server.seen()[1].body.get("response_format").is_none());
}

#[test]
fn a_slow_answer_times_out() {
    let server = Server::start(|_| ollama(r#"{"label":"high"}"#).after(Duration::from_secs(3)));
    fails_open(&llm(&server.url), FailureKind::Timeout);
}

#[test]
fn http_500_fails_open() {
    let server = Server::start(|_| Reply::raw(500, r#"{"error":"model crashed"}"#));
    fails_open(&llm(&server.url), FailureKind::Http);
}

#[test]
fn connection_refused_fails_open() {
    // A port that was just free: nothing listens on it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    fails_open(
        &llm(&format!("http://127.0.0.1:{port}")),
        FailureKind::Connect,
    );
}

#[test]
fn malformed_json_fails_open() {
    let server = Server::start(|_| Reply::raw(200, "{\"message\": {\"content\": "));
    fails_open(&llm(&server.url), FailureKind::Malformed);
    let server = Server::start(|_| ollama("I think it is high effort."));
    fails_open(&llm(&server.url), FailureKind::Malformed);
}

#[test]
fn an_off_schema_label_fails_open() {
    let server = Server::start(|_| ollama(r#"{"label": "extreme"}"#));
    fails_open(&llm(&server.url), FailureKind::OffSchema);
}

#[test]
fn a_think_block_and_prose_are_skipped() {
    let server = Server::start(|_| {
        ollama(
            "<think>\nThe user must {\"label\": \"high\"} investigate? No.\n</think>\nHere you go: {\"label\": \"medium\", \"reason\": \"a preference\"} Hope it helps.",
        )
    });
    let llm = llm(&server.url);
    let a = llm
        .classify(&LabelRequest::new("effort", LABELS, "x"))
        .unwrap();
    assert_eq!((a.label, a.reason.as_deref()), (1, Some("a preference")));
}

#[test]
fn many_concurrent_calls_stay_within_the_bound_in_flight() {
    let server = Server::start(|req| {
        let prompt = req.body["messages"][0]["content"]
            .as_str()
            .unwrap_or_default();
        // The client adds the answer's instructions after the prompt.
        let asked = prompt.lines().next().unwrap_or_default();
        let label = if asked.ends_with('0') { "low" } else { "high" };
        ollama(&format!("{{\"label\":\"{label}\"}}")).after(Duration::from_millis(40))
    });
    let mut c = config(&server.url, Backend::Ollama);
    c.max_in_flight = 3;
    c.timeout_ms = 5_000;
    let llm = Llm::new(c).unwrap();
    let handles: Vec<_> = (0..24)
        .map(|i| {
            let llm = llm.clone();
            std::thread::spawn(move || {
                let prompt = format!("question {i}");
                llm.classify(&LabelRequest::new("effort", LABELS, &prompt))
                    .map(|a| (i, a.label))
            })
        })
        .collect();
    for h in handles {
        let (i, label) = h.join().unwrap().unwrap();
        assert_eq!(label, if i % 10 == 0 { 0 } else { 2 }, "{i}");
    }
    assert_eq!(server.seen().len(), 24);
    assert!(server.max_open() <= 3, "{} in flight", server.max_open());
    assert!(server.max_open() >= 2, "calls ran one by one");
    assert_eq!(llm.stats().answered, 24);
}

#[test]
fn the_same_prompt_is_answered_from_the_cache() {
    let server = Server::start(|_| ollama(r#"{"label":"high","reason":"r"}"#));
    let llm = llm(&server.url);
    let c = always(&llm);
    let first = c.classify(QUESTION, None);
    let second = c.classify(QUESTION, None);
    assert_eq!(first, second);
    assert_eq!(server.seen().len(), 1);
    let stats = llm.stats();
    assert_eq!(
        (stats.requests, stats.cache_hits, stats.answered),
        (2, 1, 1)
    );
    // Another model is another key.
    let mut r = LabelRequest::new("effort", LABELS, "p");
    llm.classify(&r).unwrap();
    r.model = Some("other:1b");
    let a = llm.classify(&r).unwrap();
    assert_eq!((a.model.as_str(), a.cached), ("other:1b", false));
    assert_eq!(server.seen().len(), 3);
    assert_eq!(server.seen()[2].body["model"], "other:1b");
    // A cache of size 0 is off.
    let mut c = config(&server.url, Backend::Ollama);
    c.cache_size = 0;
    let uncached = Llm::new(c).unwrap();
    uncached.classify(&r).unwrap();
    uncached.classify(&r).unwrap();
    assert_eq!(server.seen().len(), 5);
}

#[test]
fn a_spent_budget_fails_open_without_a_call() {
    let server = Server::start(|_| ollama(r#"{"label":"high"}"#));
    let mut c = config(&server.url, Backend::Ollama);
    c.budget = Some(1);
    let llm = Llm::new(c).unwrap();
    assert!(
        llm.classify(&LabelRequest::new("effort", LABELS, "a"))
            .is_ok()
    );
    // A cached answer is free.
    assert!(
        llm.classify(&LabelRequest::new("effort", LABELS, "a"))
            .is_ok()
    );
    let e = llm
        .classify(&LabelRequest::new("effort", LABELS, "b"))
        .unwrap_err();
    assert_eq!(e.kind(), FailureKind::Budget);
    assert_eq!(server.seen().len(), 1);
}

#[test]
fn no_model_fails_open_without_a_call() {
    let server = Server::start(|_| ollama(r#"{"label":"high"}"#));
    let mut c = config(&server.url, Backend::Ollama);
    c.model = None;
    let llm = Llm::new(c).unwrap();
    fails_open(&llm, FailureKind::NoModel);
    assert!(server.seen().is_empty());
}

#[test]
fn the_router_asks_the_main_slot_and_never_for_rc01_or_rc02() {
    let server = Server::start(|_| ollama(r#"{"label":"CONVERSATIONAL"}"#));
    let mut c = config(&server.url, Backend::Ollama);
    c.model = Some("qwen3:1.7b".into());
    c.model_conversational = Some("qwen3:0.6b".into());
    let llm = Llm::new(c).unwrap();
    let router = Router::builder()
        .model_slots(llm.model_slots())
        .escalation(Escalation::new(Arc::new(llm.clone()), 2.0))
        .build()
        .unwrap();
    for m in [
        "You are a direct and concise assistant. Hi!",
        "I'm at 92% of my monthly quota, what now?",
    ] {
        assert_eq!(router.route(m, &[]).label(), QueryType::Platform);
    }
    assert!(
        server.seen().is_empty(),
        "RC-01 and RC-02 never call the model"
    );
    let d = router.route("shorter please", &[]);
    assert_eq!(
        (d.label(), d.rule),
        (QueryType::Conversational, RouteRule::Model)
    );
    assert_eq!(d.model.as_deref(), Some("qwen3:0.6b"));
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].body["model"], "qwen3:1.7b");
    let prompt = seen[0].body["messages"][0]["content"].as_str().unwrap();
    assert!(prompt.contains("<history_rule>") && prompt.contains("<platform_priority_rule>"));
}

#[test]
fn the_default_thresholds_leave_confident_decisions_alone() {
    let server = Server::start(|_| ollama(r#"{"label":"high"}"#));
    let llm = llm(&server.url);
    let c = EffortClassifier::builder()
        .escalation(llm.escalation(Task::Effort))
        .build()
        .unwrap();
    let r = c.classify("Should I use PostgreSQL or MySQL?", None);
    assert_eq!((r.label, r.tier), (EffortLevel::Low, Some(Tier::Heuristic)));
    assert!(server.seen().is_empty());
}

#[test]
fn the_blocking_handle_works_inside_a_runtime_and_drops_there() {
    let server = Server::start(|_| ollama(r#"{"label":"low"}"#));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let url = server.url.clone();
    let label = rt.block_on(async move {
        let llm = llm(&url);
        let a = llm
            .classify(&LabelRequest::new("effort", LABELS, "x"))
            .map(|a| a.label);
        // Async callers may also await the client itself.
        let b = llm
            .client()
            .classify(&LabelRequest::new("effort", LABELS, "y"))
            .await
            .map(|a| a.label);
        drop(llm);
        (a.unwrap(), b.unwrap())
    });
    assert_eq!(label, (0, 0));
}
