//! The client behind the other crates' traits, against the scripted
//! server: the scoring `Judge` (judged preferences judged, or "not judged"
//! when the model fails), the guidance `LlmClassifier` (fires on "yes",
//! fails open), and routing's `RouteModel`.

use std::sync::Arc;

use tact_classifiers::route::Router;
use tact_guidance::{GuidanceClassifier, GuidanceContext, LlmGuidance, TrajectoryAnalysis};
use tact_llm::{Backend, Llm, LlmConfig, LlmGuidanceClassifier, LlmJudge};
use tact_scoring::{Preference, Scorer, Session, TaskOutcome, Turn, UserPreferences};
use tact_types::{QueryType, RouteRule};

use crate::server::{Server, ollama};

fn llm(url: &str) -> Llm {
    let mut c = LlmConfig::default();
    c.backend = Backend::Ollama;
    c.url = url.to_owned();
    c.model = Some("judge:3b".into());
    c.timeout_ms = 300;
    Llm::new(c).unwrap()
}

fn session() -> Session {
    let mut s = Session::new(
        "agent",
        TaskOutcome::Tests {
            passed: 1,
            total: 1,
        },
    );
    s.preferences = UserPreferences::from_preferences([Preference::Joke]);
    s.turns.push(Turn::new(
        "Add a cache.",
        "Should the cache be Redis or in-process?",
    ));
    s
}

#[test]
fn the_judge_judges_the_judged_preferences() {
    let server = Server::start(|req| {
        let prompt = req.body["messages"][0]["content"]
            .as_str()
            .unwrap_or_default();
        assert!(prompt.contains("include a joke"), "{prompt}");
        assert!(prompt.contains("Redis or in-process"), "{prompt}");
        ollama(r#"{"label":"violated","reason":"no joke at all"}"#)
    });
    let scorer = Scorer::builder()
        .judge(Arc::new(LlmJudge::new(llm(&server.url))))
        .build()
        .unwrap();
    let score = scorer.score(&session());
    assert!(score.not_judged.is_empty(), "{:?}", score.not_judged);
    let v = score
        .violations
        .iter()
        .find(|v| v.preference == Preference::Joke)
        .expect("the judge's violation");
    assert_eq!(v.checked_by, "llm(judge:3b)");
    assert!(v.actual.contains("no joke"));
    assert_eq!(
        server.seen()[0].body["format"]["properties"]["label"]["enum"],
        serde_json::json!(["respected", "violated"])
    );
}

#[test]
fn a_failed_judge_leaves_the_preference_not_judged() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let judge = LlmJudge::new(llm(&format!("http://127.0.0.1:{port}")));
    let scorer = Scorer::builder().judge(Arc::new(judge)).build().unwrap();
    let with = scorer.score(&session());
    let without = Scorer::builder().build().unwrap().score(&session());
    assert_eq!(with.not_judged.len(), 1);
    assert_eq!(with.not_judged[0].preference, Preference::Joke);
    assert_eq!(with.violations, without.violations);
}

#[test]
fn the_guidance_classifier_fires_on_yes_and_fails_open() {
    let analysis = TrajectoryAnalysis::default();
    let ctx = GuidanceContext::new(&analysis, &[]);
    let server = Server::start(|_| ollama(r#"{"label":"yes","reason":"going in circles"}"#));
    let c = LlmGuidance::new(LlmGuidanceClassifier::new(
        llm(&server.url),
        "Is the agent stuck?",
    ));
    assert_eq!(c.name(), "llm(judge:3b)");
    let r = c.classify(&ctx).unwrap();
    assert!(r.fires(0.5), "{r:?}");
    let prompt = server.seen()[0].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(prompt.contains("Is the agent stuck?") && prompt.contains("Recent actions"));
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let down = LlmGuidance::new(LlmGuidanceClassifier::new(
        llm(&format!("http://127.0.0.1:{port}")),
        "Stuck?",
    ));
    assert!(!down.classify(&ctx).unwrap().fires(0.0));
}

#[test]
fn route_with_model_uses_the_client_as_a_route_model() {
    let server = Server::start(|_| ollama(r#"{"label":"CODE_GENERATION"}"#));
    // The heuristic finds this message ambiguous: route_with_model asks.
    let router = Router::builder()
        .strategy(tact_classifiers::route::Strategy::Heuristic)
        .build()
        .unwrap();
    let d = router.route_with_model("zzz qqq", &[], &llm(&server.url));
    assert_eq!(
        (d.label(), d.rule),
        (QueryType::CodeGeneration, RouteRule::Model)
    );
}
