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
    let q = QuestionEffort {
        text: "Ship it?".into(),
        start: 4,
        end: 12,
        effort: Classification::new(EffortLevel::Low, 0.9),
    };
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
