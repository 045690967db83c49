//! The model-backed tier through a stand-in `LabelModel` that counts its
//! calls: only unsure decisions are asked about, RC-01 and RC-02 never
//! (whatever the threshold), the routing prompt carries the contract's
//! blocks and the main slot's model, and a failed call keeps the cheaper
//! tiers' decision.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use tact_classifiers::effort::EffortClassifier;
use tact_classifiers::escalation::{Escalation, LabelAnswer, LabelModel, LabelRequest};
use tact_classifiers::granularity::GranularityClassifier;
use tact_classifiers::route::{ModelSlots, Router};
use tact_types::{EffortLevel, Granularity, IntentEntry, QueryType, RouteRule, Tier};

/// The last request: its prompt, model and labels.
type Asked = (String, Option<String>, Vec<&'static str>);

/// Answers `label` (or fails with `None`), counting calls and keeping the
/// last request's prompt and model.
struct Counting {
    label: Option<&'static str>,
    calls: AtomicUsize,
    last: Mutex<Option<Asked>>,
}

impl Counting {
    fn new(label: Option<&'static str>) -> Arc<Self> {
        Arc::new(Self {
            label,
            calls: AtomicUsize::new(0),
            last: Mutex::new(None),
        })
    }
    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
    fn last(&self) -> Asked {
        self.last.lock().unwrap().clone().unwrap()
    }
}

impl LabelModel for Counting {
    fn ask(&self, r: &LabelRequest<'_>) -> Option<LabelAnswer> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        *self.last.lock().unwrap() = Some((
            r.prompt.to_owned(),
            r.model.map(str::to_owned),
            r.labels.to_vec(),
        ));
        let i = r.labels.iter().position(|l| Some(*l) == self.label)?;
        Some(LabelAnswer::new(i, r.model.unwrap_or("stand-in")).with_reason("because"))
    }
}

fn always(model: &Arc<Counting>) -> Escalation {
    Escalation::new(Arc::clone(model) as Arc<dyn LabelModel>, 2.0)
}

#[test]
fn a_zero_threshold_never_asks_and_decisions_are_unchanged() {
    let model = Counting::new(Some("high"));
    let plain = EffortClassifier::builder().build().unwrap();
    let tiered = EffortClassifier::builder()
        .escalation(Escalation::new(model.clone(), 0.0))
        .build()
        .unwrap();
    for q in [
        "Tabs or spaces?",
        "What should we do?",
        "Can you profile the service and send the flame graph?",
        "",
    ] {
        assert_eq!(plain.classify(q, None), tiered.classify(q, None), "{q}");
    }
    assert_eq!(model.calls(), 0);
}

#[test]
fn an_unsure_effort_decision_is_put_to_the_model_which_names_itself() {
    let model = Counting::new(Some("high"));
    let c = EffortClassifier::builder()
        .escalation(always(&model))
        .build()
        .unwrap();
    let r = c.classify("Tabs or spaces?", Some("the spec says tabs"));
    assert_eq!(model.calls(), 1);
    assert_eq!(r.label, EffortLevel::High);
    assert_eq!(r.tier, Some(Tier::Model));
    assert_eq!(r.tier_model.as_deref(), Some("stand-in"));
    assert!(
        r.reasons[0]
            .detail
            .contains("stand-in answered high: because")
    );
    let (prompt, _, labels) = model.last();
    assert_eq!(labels, ["low", "medium", "high"]);
    assert!(prompt.contains("Tabs or spaces?") && prompt.contains("the spec says tabs"));
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["tier"], "llm");
    assert_eq!(json["tier_model"], "stand-in");
}

#[test]
fn a_failed_call_keeps_the_cheaper_tiers_decision() {
    let model = Counting::new(None);
    let plain = GranularityClassifier::builder().build().unwrap();
    let tiered = GranularityClassifier::builder()
        .escalation(always(&model))
        .build()
        .unwrap();
    let q = "What is the main argument of the paper?";
    assert_eq!(plain.classify(q), tiered.classify(q));
    assert_eq!(model.calls(), 1);
    let model = Counting::new(Some("fine-grained"));
    let tiered = GranularityClassifier::builder()
        .escalation(always(&model))
        .build()
        .unwrap();
    let d = tiered.classify(q);
    assert_eq!(
        (d.label(), d.classification.tier),
        (Granularity::FineGrained, Some(Tier::Model))
    );
}

#[test]
fn the_seed_baseline_is_never_escalated() {
    let model = Counting::new(Some("high"));
    let c = EffortClassifier::builder()
        .strategy(tact_classifiers::effort::Strategy::Seed)
        .escalation(always(&model))
        .build()
        .unwrap();
    assert_eq!(
        c.classify("What do you think?", None).tier,
        Some(Tier::Seed)
    );
    assert_eq!(model.calls(), 0);
}

fn h(kind: QueryType, snippet: &str) -> IntentEntry {
    IntentEntry {
        kind,
        snippet: snippet.into(),
    }
}

#[test]
fn rc01_and_rc02_never_call_the_model_under_any_strategy() {
    use tact_classifiers::route::Strategy;
    let model = Counting::new(Some("RETRIEVAL"));
    for strategy in [Strategy::Hybrid, Strategy::Heuristic, Strategy::Learned] {
        let router = Router::builder()
            .strategy(strategy)
            .escalation(always(&model))
            .build()
            .unwrap();
        for m in [
            "You are a direct and concise assistant. Write a loop.",
            "I'm at 92% of my monthly quota, what now?",
            "When does my subscription renew?",
        ] {
            for history in [vec![], vec![h(QueryType::Retrieval, "What is addVar?"); 10]] {
                let d = router.route(m, &history);
                assert_eq!(d.label(), QueryType::Platform, "{m}");
                assert!(matches!(
                    d.rule,
                    RouteRule::PlatformPrefix | RouteRule::PlatformSignal
                ));
            }
        }
    }
    assert_eq!(model.calls(), 0, "RC-01 and RC-02 never reach a model");
    // The same model is called for an unsure message: the count above means something.
    let router = Router::builder()
        .escalation(always(&model))
        .build()
        .unwrap();
    let d = router.route("zzz qqq", &[]);
    assert_eq!(model.calls(), 1);
    assert_eq!(
        (d.label(), d.rule),
        (QueryType::Retrieval, RouteRule::Model)
    );
    assert_eq!(d.classification.tier, Some(Tier::Model));
}

#[test]
fn the_routing_prompt_carries_the_contract_and_the_main_slot_model() {
    let model = Counting::new(Some("CONVERSATIONAL"));
    let router = Router::builder()
        .model_slots(ModelSlots::new(
            Some("qwen3:1.7b".into()),
            Some("qwen3:0.6b".into()),
        ))
        .escalation(always(&model).product("the Acme API"))
        .build()
        .unwrap();
    let history: Vec<IntentEntry> = (0..9)
        .map(|i| h(QueryType::Retrieval, &format!("question number {i}")))
        .collect();
    let d = router.route("shorter please", &history);
    let (prompt, asked, _) = model.last();
    assert_eq!(
        asked.as_deref(),
        Some("qwen3:1.7b"),
        "RC-05: the main slot classifies"
    );
    assert!(prompt.contains("<history_rule>") && prompt.contains("<platform_priority_rule>"));
    assert!(prompt.contains("assistant for the Acme API."));
    assert!(!prompt.contains("AVAP"));
    // RC-06: the last 6 entries only.
    assert!(!prompt.contains("question number 2") && prompt.contains("question number 3"));
    assert!(prompt.contains("question number 8"));
    assert_eq!(d.label(), QueryType::Conversational);
    // RC-05: the answer's type is served by its slot's model.
    assert_eq!(d.model.as_deref(), Some("qwen3:0.6b"));
    assert_eq!(d.classification.tier_model.as_deref(), Some("qwen3:1.7b"));
}
