//! Integration tests of tact-types: the JSON shapes hosts rely on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use tact_types::dataset::EffortExample;
use tact_types::{Classification, EffortLevel, Label, QuestionEffort, Reason};

#[test]
fn classification_json_shape_is_stable() {
    let c = Classification::new(EffortLevel::High, 0.75).with_reason(Reason::new(
        "investigation",
        "asks for investigation: `profile`",
        2.0,
    ));
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "label": "high",
            "confidence": 0.75,
            "reasons": [{"cue": "investigation", "detail": "asks for investigation: `profile`", "weight": 2.0}]
        })
    );
    let back: Classification<EffortLevel> = serde_json::from_value(json).unwrap();
    assert_eq!(back, c);
}

#[test]
fn question_effort_round_trips() {
    let q = QuestionEffort::new(
        "Ship it?",
        4,
        12,
        Classification::new(EffortLevel::Low, 0.9),
    );
    let s = serde_json::to_string(&q).unwrap();
    assert_eq!(serde_json::from_str::<QuestionEffort>(&s).unwrap(), q);
}

#[test]
fn effort_records_follow_the_labelling_guide() {
    let r: EffortExample = serde_json::from_str(
        r#"{"text":"Which port?","label":"medium","context":"none","extra":[1]}"#,
    )
    .unwrap();
    assert_eq!(r.label, EffortLevel::Medium);
    assert_eq!(r.context.as_deref(), Some("none"));
    assert!(serde_json::from_str::<EffortExample>(r#"{"text":"x","label":"urgent"}"#).is_err());
    assert!(serde_json::from_str::<EffortExample>(r#"{"label":"low"}"#).is_err());
    assert_eq!(EffortLevel::ALL.len(), 3);
    assert_eq!(EffortLevel::High.index(), 2);
}

#[test]
fn granularity_and_route_records_follow_the_labelling_guide() {
    use tact_types::dataset::{GranularityExample, RouteExample, RouteQuery};
    use tact_types::{Granularity, IntentEntry, QueryType};

    let g: GranularityExample = serde_json::from_str(
        r#"{"id":"g1","text":"Why is the p-value in Table 3 so low?","label":"holistic","extra":1}"#,
    )
    .unwrap();
    assert_eq!(g.label, Granularity::Holistic);
    assert!(
        serde_json::from_str::<GranularityExample>(r#"{"text":"x","label":"fine_grained"}"#)
            .is_err()
    );

    let r: RouteExample = serde_json::from_str(
        r#"{"text":"And last month?","label":"PLATFORM","history":[{"type":"PLATFORM","snippet":"How many calls did I make?"}]}"#,
    )
    .unwrap();
    assert_eq!(r.label, QueryType::Platform);
    assert_eq!(
        r.history,
        [IntentEntry {
            kind: QueryType::Platform,
            snippet: "How many calls did I make?".into()
        }]
    );
    let bare: RouteExample =
        serde_json::from_str(r#"{"text":"hi","label":"CONVERSATIONAL"}"#).unwrap();
    assert!(bare.history.is_empty());
    assert!(serde_json::from_str::<RouteExample>(r#"{"text":"hi","label":"SMALL_TALK"}"#).is_err());
    assert!(
        serde_json::from_str::<RouteExample>(
            r#"{"text":"hi","label":"RETRIEVAL","history":[{"type":"DOCS","snippet":"x"}]}"#
        )
        .is_err()
    );
    let q: RouteQuery = serde_json::from_str(r#"{"text":"hi"}"#).unwrap();
    assert_eq!(serde_json::to_string(&q).unwrap(), r#"{"text":"hi"}"#);
}

#[test]
fn route_decision_json_is_flat_and_round_trips() {
    use tact_types::{ModelSlot, QueryType, RouteDecision, RouteRule};

    let mut d = RouteDecision::new(
        Classification::new(QueryType::Platform, 1.0).with_reason(Reason::new(
            "platform_prefix",
            "registered platform prefix",
            1.0,
        )),
        RouteRule::PlatformPrefix,
    );
    d.model = Some("qwen3:0.6b".into());
    assert_eq!(d.model_slot, ModelSlot::Conversational);
    assert!(!d.needs_retrieval && !d.ambiguous && d.resolved.is_none());
    let v = serde_json::to_value(&d).unwrap();
    assert_eq!(
        v,
        serde_json::json!({
            "label": "PLATFORM",
            "confidence": 1.0,
            "reasons": [{"cue": "platform_prefix", "detail": "registered platform prefix", "weight": 1.0}],
            "rule": "platform_prefix",
            "model_slot": "conversational",
            "model": "qwen3:0.6b",
            "needs_retrieval": false,
            "ambiguous": false
        })
    );
    let back: RouteDecision = serde_json::from_value(v).unwrap();
    assert_eq!(back, d);
    assert!(!back.needs_retrieval());
    assert_eq!(
        RouteRule::PlatformPrefix.to_string(),
        "platform_prefix (RC-01)"
    );
    assert_eq!(RouteRule::Content.contract_id(), None);
}
