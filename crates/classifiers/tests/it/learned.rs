//! The learned tier: the `learned` and `hybrid` strategies of the three
//! text classifiers (tier reported, thresholds honoured, user models
//! checked), malformed model files as clear errors, and property tests
//! (any input or model text, never a panic).

use std::sync::OnceLock;

use proptest::prelude::*;
use tact_classifiers::effort::{EffortClassifier, InMessage, Strategy as EStrategy};
use tact_classifiers::granularity::{GranularityClassifier, Strategy as GStrategy};
use tact_classifiers::learned::{HybridThresholds, LinearModel, Task};
use tact_classifiers::route::{Router, Strategy as RStrategy};
use tact_types::{EffortLevel, IntentEntry, QueryType, RouteRule, Tier};

struct All {
    effort: Vec<EffortClassifier>,
    granularity: Vec<GranularityClassifier>,
    route: Vec<Router>,
}

fn all() -> &'static All {
    static ALL: OnceLock<All> = OnceLock::new();
    ALL.get_or_init(|| All {
        effort: [EStrategy::Learned, EStrategy::Hybrid]
            .map(|s| EffortClassifier::builder().strategy(s).build().unwrap())
            .into(),
        granularity: [GStrategy::Learned, GStrategy::Hybrid]
            .map(|s| {
                GranularityClassifier::builder()
                    .strategy(s)
                    .build()
                    .unwrap()
            })
            .into(),
        route: [RStrategy::Learned, RStrategy::Hybrid]
            .map(|s| Router::builder().strategy(s).build().unwrap())
            .into(),
    })
}

#[test]
fn the_hybrid_names_the_tier_and_honours_its_thresholds() {
    let q = "What authentication method should we use?";
    // Thresholds nothing clears: always the model.
    let always = EffortClassifier::builder()
        .strategy(EStrategy::Hybrid)
        .hybrid_thresholds(HybridThresholds::new(1.1, 0.0))
        .build()
        .unwrap();
    let r = always.classify(q, None);
    assert_eq!(r.tier, Some(Tier::Learned));
    assert!(r.reasons.iter().any(|x| x.cue == "heuristic_deferred"));
    assert!(r.reasons.iter().any(|x| x.cue == "learned_model"));
    // Deferred, but to a model that must be surer than any can be: the
    // heuristic's decision stands, saying so.
    let unsure = EffortClassifier::builder()
        .strategy(EStrategy::Hybrid)
        .hybrid_thresholds(HybridThresholds::new(1.1, 0.0).with_min_model_confidence(1.01))
        .build()
        .unwrap();
    let r = unsure.classify(q, None);
    assert_eq!(r.tier, Some(Tier::Heuristic));
    assert!(r.reasons.iter().any(|x| x.cue == "model_unsure"), "{r:?}");
    let h = EffortClassifier::builder()
        .strategy(EStrategy::Heuristic)
        .build()
        .unwrap()
        .classify(q, None);
    assert_eq!(r.label, h.label);
    // Deferred, to a model that must know more of the words than there
    // are: the heuristic stands, saying why.
    let unfamiliar = EffortClassifier::builder()
        .strategy(EStrategy::Hybrid)
        .hybrid_thresholds(HybridThresholds::new(1.1, 0.0).with_min_model_coverage(1.01))
        .build()
        .unwrap();
    let r = unfamiliar.classify(q, None);
    assert_eq!((r.tier, r.label), (Some(Tier::Heuristic), h.label));
    assert!(
        r.reasons.iter().any(|x| x.cue == "model_unfamiliar"),
        "{r:?}"
    );
    // The words of a question the model learned from are known to it;
    // invented ones are not, and the reason says how many it knew.
    let knows = EffortClassifier::builder()
        .strategy(EStrategy::Hybrid)
        .hybrid_thresholds(HybridThresholds::new(1.1, 0.0).with_min_model_coverage(0.9))
        .build()
        .unwrap();
    assert_eq!(knows.classify(q, None).tier, Some(Tier::Learned));
    let r = knows.classify("What quuxification should the zorblax frobnitz use?", None);
    assert_eq!(r.tier, Some(Tier::Heuristic), "{r:?}");
    assert!(
        r.reasons.iter().any(|x| x.cue == "model_unfamiliar"),
        "{r:?}"
    );
    // A model file's thresholds keep the model's smallest probability.
    let json = r#"{"min_confidence":0.5,"min_gap":1.0,"min_model_confidence":0.7}"#;
    let t: HybridThresholds = serde_json::from_str(json).unwrap();
    assert_eq!(
        t,
        HybridThresholds::new(0.5, 1.0).with_min_model_confidence(0.7)
    );
    assert_eq!(serde_json::to_string(&t).unwrap(), json);
    // Without it, the file is read as before (the model always decides).
    let t: HybridThresholds =
        serde_json::from_str(r#"{"min_confidence":0.5,"min_gap":1.0}"#).unwrap();
    assert_eq!((t.min_model_confidence, t.min_model_coverage), (0.0, 0.0));
    let json = r#"{"min_confidence":0.5,"min_gap":1.0,"min_model_coverage":0.6}"#;
    let t: HybridThresholds = serde_json::from_str(json).unwrap();
    assert_eq!(
        t,
        HybridThresholds::new(0.5, 1.0).with_min_model_coverage(0.6)
    );
    assert_eq!(serde_json::to_string(&t).unwrap(), json);
    // Thresholds everything clears: always the heuristic.
    let never = EffortClassifier::builder()
        .strategy(EStrategy::Hybrid)
        .hybrid_thresholds(HybridThresholds::new(0.0, 0.0))
        .build()
        .unwrap();
    let r = never.classify(q, None);
    assert_eq!(r.tier, Some(Tier::Heuristic));
    let heuristic = EffortClassifier::builder()
        .strategy(EStrategy::Heuristic)
        .build()
        .unwrap()
        .classify(q, None);
    assert_eq!(
        (r.label, r.confidence),
        (heuristic.label, heuristic.confidence)
    );
    assert_eq!(heuristic.tier, Some(Tier::Heuristic));
    // A yes/no on a concrete proposal, which the cues read precisely, is
    // kept from the model whatever the thresholds.
    let proposal = "Should I use PostgreSQL or MySQL for the session store?";
    let r = always.classify(proposal, None);
    assert_eq!((r.label, r.tier), (EffortLevel::Low, Some(Tier::Heuristic)));
    // The learned strategy always reports the model.
    assert_eq!(all().effort[0].classify(q, None).tier, Some(Tier::Learned));
    assert_eq!(
        all().granularity[0]
            .classify("Summarize the paper")
            .classification
            .tier,
        Some(Tier::Learned)
    );
}

#[test]
fn the_learned_router_keeps_rc01_and_rc02() {
    let code = [IntentEntry {
        kind: QueryType::CodeGeneration,
        snippet: "Write an endpoint".into(),
    }];
    for r in &all().route {
        let d = r.route("You are a direct and concise assistant. hi", &code);
        assert_eq!(d.rule, RouteRule::PlatformPrefix);
        let d = r.route("I'm at 92% of my monthly quota, what now?", &code);
        assert_eq!(
            (d.label(), d.rule),
            (QueryType::Platform, RouteRule::PlatformSignal)
        );
    }
    let d = all().route[0].route("Write a function that reverses a list", &[]);
    assert_eq!(d.rule, RouteRule::Learned);
    assert_eq!(d.classification.tier, Some(Tier::Learned));
}

#[test]
fn a_users_model_is_checked_against_the_task() {
    let route = LinearModel::from_json(Task::Route.default_model_json()).unwrap();
    let e = EffortClassifier::builder()
        .strategy(EStrategy::Learned)
        .model(route)
        .build()
        .unwrap_err()
        .to_string();
    assert!(e.contains("cannot serve effort"), "{e}");
    let effort = LinearModel::from_json(Task::Effort.default_model_json()).unwrap();
    let c = EffortClassifier::builder()
        .strategy(EStrategy::Learned)
        .model(effort)
        .build()
        .unwrap();
    assert_eq!(
        c.classify("Which port?", None).label,
        all().effort[0].classify("Which port?", None).label
    );
}

#[test]
fn questions_read_in_their_message_go_to_the_in_message_model() {
    let learned = EffortClassifier::builder()
        .strategy(EStrategy::Learned)
        .build()
        .unwrap();
    let q = "What authentication method should we use?";
    let msg = format!("I set up the API routes.\n\n{q}");
    let at = msg.find(q).unwrap();
    let t = learned.trace(q, None).unwrap();
    let sure = |task: Task| {
        let m = LinearModel::from_json(task.default_model_json()).unwrap();
        let p = m.predict(&t.input.text, t.input.extras.iter().copied());
        p.probability(p.label())
    };
    let alone = learned.classify(q, None).confidence;
    let within = learned
        .classify_in(q, &InMessage::new(&msg), at, None)
        .confidence;
    assert_eq!(
        (alone, within),
        (sure(Task::Effort), sure(Task::EffortInMessage))
    );
    assert_ne!(alone, within);
    // A host's model, of either effort task, serves both readings.
    for task in [Task::Effort, Task::EffortInMessage] {
        let own = EffortClassifier::builder()
            .strategy(EStrategy::Learned)
            .model(LinearModel::from_json(task.default_model_json()).unwrap())
            .build()
            .unwrap();
        assert_eq!(own.classify(q, None).confidence, sure(task));
        let r = own.classify_in(q, &InMessage::new(&msg), at, None);
        assert_eq!(r.confidence, sure(task));
    }
}

#[test]
fn malformed_model_files_are_clear_errors() {
    let good = Task::Granularity.default_model_json();
    for (text, want) in [
        ("", "not a model file"),
        ("null", "not a model file"),
        ("{\"format\":\"tact-linear-model\"}", "missing field"),
        (&good.replace("\"version\":1", "\"version\":2"), "version 2"),
        (
            &good.replace("\"labels\":[", "\"labels\":[\"x\","),
            "bias must hold",
        ),
        (&good[..good.len() / 2], "not a model file"),
    ] {
        let e = LinearModel::from_json(text).unwrap_err().to_string();
        assert!(e.starts_with("invalid model: "), "{e}");
        assert!(e.contains(want), "{want}: {e}");
    }
}

#[test]
fn the_embedded_binary_models_are_their_json_files() {
    for task in [
        Task::Effort,
        Task::EffortInMessage,
        Task::Granularity,
        Task::Route,
    ] {
        let json = LinearModel::from_json(task.default_model_json()).unwrap();
        let bin = LinearModel::from_bytes(task.default_model_bytes()).unwrap();
        assert!(
            json == bin,
            "{}: models/{0}.bin is not models/{0}.json",
            task.name()
        );
        assert_eq!(
            bin.to_bytes(),
            task.default_model_bytes(),
            "{}",
            task.name()
        );
        assert!(*task.default_model().unwrap() == bin, "{}", task.name());
    }
}

#[test]
fn malformed_binary_models_are_clear_errors() {
    let good = Task::Granularity.default_model_bytes();
    let mut extra = good.to_vec();
    extra.push(0);
    let mut bad_magic = good.to_vec();
    bad_magic[0] = b'X';
    for (bytes, want) in [
        (&b""[..], "magic bytes"),
        (&bad_magic[..], "magic bytes"),
        (&good[..20], "truncated header"),
        (&good[..good.len() - 3], "truncated"),
        (&extra[..], "after the last row"),
    ] {
        let e = LinearModel::from_bytes(bytes).unwrap_err().to_string();
        assert!(e.starts_with("invalid model: "), "{e}");
        assert!(e.contains(want), "{want}: {e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn any_binary_model_loads_or_errors(cut in 0usize..150_000, byte in any::<u8>(), bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let _ = LinearModel::from_bytes(&bytes);
        let good = Task::Granularity.default_model_bytes();
        let mut changed = good.to_vec();
        let at = cut.min(changed.len().saturating_sub(1));
        if let Some(b) = changed.get_mut(at) {
            *b = byte;
        }
        if let Ok(m) = LinearModel::from_bytes(&changed) {
            let p = m.predict("how many rows", ["digits"]);
            prop_assert!(p.probabilities().iter().all(|x| x.is_finite()));
        }
    }

    #[test]
    fn learned_and_hybrid_never_panic(text in any::<String>(), ctx in proptest::option::of(any::<String>())) {
        let a = all();
        for c in &a.effort {
            let r = c.classify(&text, ctx.as_deref());
            prop_assert!((0.0..=1.0).contains(&r.confidence));
            prop_assert!(r.tier.is_some());
        }
        for c in &a.granularity {
            let d = c.classify(&text);
            prop_assert!((0.0..=1.0).contains(&d.confidence()));
        }
        let history = [IntentEntry { kind: QueryType::Retrieval, snippet: text.chars().take(60).collect() }];
        for r in &a.route {
            let d = r.route(&text, &history);
            prop_assert!((0.0..=1.0).contains(&d.confidence()));
        }
    }

    #[test]
    fn any_model_text_loads_or_errors(text in any::<String>()) {
        let _ = LinearModel::from_json(&text);
    }

    #[test]
    fn corrupted_model_files_load_or_error(cut in 0usize..4000, byte in any::<u8>()) {
        let good = Task::Granularity.default_model_json().as_bytes();
        let mut bytes = good[..cut.min(good.len())].to_vec();
        bytes.push(byte);
        bytes.extend_from_slice(&good[cut.min(good.len())..]);
        if let Ok(text) = std::str::from_utf8(&bytes) {
            if let Ok(m) = LinearModel::from_json(text) {
                let p = m.predict("how many rows", ["digits"]);
                prop_assert!((p.probabilities().iter().sum::<f32>() - 1.0).abs() < 1e-3);
            }
        }
    }
}

/// Train and calibration items never (near-)duplicate a dev item.
#[test]
fn calibration_and_train_stay_apart_from_dev() {
    use std::collections::HashSet;
    use tact_types::dataset::{EffortExample, GranularityExample, RouteExample};
    fn texts<T: serde::de::DeserializeOwned>(
        path: &str,
        f: impl Fn(&T) -> &str,
    ) -> Vec<HashSet<String>> {
        tact_core::dataset::read_jsonl::<T>(&crate::common::fixtures(path))
            .unwrap()
            .iter()
            .map(|l| {
                tact_core::words(&tact_core::normalize(f(&l.record)))
                    .map(str::to_owned)
                    .collect()
            })
            .collect()
    }
    let sets = [
        (
            texts::<EffortExample>("effort/dev.jsonl", |r| &r.text),
            [
                texts::<EffortExample>("effort/train.jsonl", |r| &r.text),
                texts::<EffortExample>("effort/calibration.jsonl", |r| &r.text),
            ],
        ),
        (
            texts::<EffortExample>("effort/dev-it.jsonl", |r| &r.text),
            [
                texts::<EffortExample>("effort/train-it.jsonl", |r| &r.text),
                texts::<EffortExample>("effort/calibration-it.jsonl", |r| &r.text),
            ],
        ),
        (
            texts::<GranularityExample>("granularity/dev.jsonl", |r| &r.text),
            [
                texts::<GranularityExample>("granularity/train.jsonl", |r| &r.text),
                texts::<GranularityExample>("granularity/calibration.jsonl", |r| &r.text),
            ],
        ),
        (
            texts::<RouteExample>("route/dev.jsonl", |r| &r.text),
            [
                texts::<RouteExample>("route/train.jsonl", |r| &r.text),
                texts::<RouteExample>("route/calibration.jsonl", |r| &r.text),
            ],
        ),
    ];
    for (dev, others) in &sets {
        for d in dev {
            for t in others.iter().flatten() {
                let j = d.intersection(t).count() as f64 / d.union(t).count().max(1) as f64;
                assert!(j < 0.8, "{d:?} near-duplicates {t:?} ({j:.2})");
            }
        }
    }
    let n = |i: usize| sets[i].0.len() + sets[i].1.iter().map(Vec::len).sum::<usize>();
    assert!(n(0) >= 900 && n(1) >= 450 && n(2) >= 700 && n(3) >= 700);
    // The Italian dev split (the second) is smaller.
    let least = [200, 150, 200, 200];
    assert!(sets.iter().zip(least).all(|((dev, _), m)| dev.len() >= m));
}

#[test]
fn every_strategy_of_every_text_task_names_its_tier() {
    let inputs = [
        "Should I keep the old flag or remove it?",
        "Can you profile prod and send me the flame graph?",
        "What is the main argument of the paper?",
        "How many API calls did I make this month?",
        "You are a direct and concise assistant. hi",
        "",
    ];
    for &s in EStrategy::ALL {
        let c = EffortClassifier::builder().strategy(s).build().unwrap();
        for q in inputs {
            let tier = c.classify(q, None).tier;
            let want = match s {
                EStrategy::Seed => Some(Tier::Seed),
                EStrategy::Heuristic => Some(Tier::Heuristic),
                _ => tier.filter(|t| matches!(t, Tier::Heuristic | Tier::Learned)),
            };
            assert!(
                tier.is_some() && tier == want,
                "effort {s:?} {q:?}: {tier:?}"
            );
        }
    }
    for &s in GStrategy::ALL {
        let c = GranularityClassifier::builder()
            .strategy(s)
            .build()
            .unwrap();
        for q in inputs {
            let tier = c.classify(q).classification.tier;
            assert!(tier.is_some(), "granularity {s:?} {q:?}");
            assert_eq!(
                s == GStrategy::Seed,
                tier == Some(Tier::Seed),
                "{s:?} {q:?}"
            );
        }
    }
    for &s in RStrategy::ALL {
        let r = Router::builder().strategy(s).build().unwrap();
        for q in inputs {
            let d = r.route(q, &[]);
            let tier = d.classification.tier;
            assert!(tier.is_some(), "route {s:?} {q:?}");
            // The prefix rule (RC-01) runs before any strategy's tiers.
            if d.rule != RouteRule::PlatformPrefix {
                assert_eq!(
                    s == RStrategy::Seed,
                    tier == Some(Tier::Seed),
                    "{s:?} {q:?}"
                );
            }
        }
    }
}
