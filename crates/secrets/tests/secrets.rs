//! The scanner through its public API: property tests over arbitrary JSON
//! and text with a credential planted in them (never panics, the credential
//! is found and redacted and never echoed, redaction is idempotent and
//! leaves nothing credential-shaped), and the errors of `with_extra`.

// Test helpers outside `#[test]` functions may unwrap too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::borrow::Cow;

use proptest::prelude::*;
use serde_json::{Value, json};
use tact_secrets::{CredentialScanner, Error, REDACTED};

/// One credential of each kind of built-in shape.
const SECRETS: &[&str] = &[
    "AKIAZ3XQ7T4M9P2LWK5D",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "Bearer 9f8e7d6c5b4a3928",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
    "xoxb-1234567890-abcdefghij",
    "AIzaSyA1234567890abcdefghijklmnopqrstuv",
    "sk-proj-0123456789abcdefghijklmn",
    "-----BEGIN RSA PRIVATE KEY-----",
];

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|i| json!(i)),
        "[a-z ]{0,12}".prop_map(Value::String),
        ".{0,12}".prop_map(Value::String),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("password".to_owned()),
                    Just("api_key".to_owned()),
                    Just("path".to_owned()),
                    "[a-zA-Z_-]{0,6}",
                ],
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Every string (keys and values) in `v`.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|i| strings(i, out)),
        Value::Object(map) => {
            for (k, i) in map {
                out.push(k.clone());
                strings(i, out);
            }
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn a_planted_credential_is_found_redacted_and_never_echoed(
        rest in json_value(),
        key in "[a-z_]{1,8}",
        secret in prop::sample::select(SECRETS),
    ) {
        let scanner = CredentialScanner::default();
        let params = json!({"rest": rest, key: secret});
        let found = scanner.scan(&params).unwrap();
        let found = found.expect("the planted credential is found");
        let shown = format!("{found:?}");
        prop_assert!(!shown.contains(secret), "{}", shown);

        let redacted = scanner.redact(&params).unwrap();
        prop_assert!(!redacted.to_string().contains(secret));
        prop_assert_eq!(&scanner.redact(&redacted).unwrap(), &redacted);
        let mut left = Vec::new();
        strings(&redacted, &mut left);
        for s in left {
            prop_assert_eq!(scanner.scan(&Value::String(s)).unwrap(), None);
        }
    }

    #[test]
    fn arbitrary_json_never_panics_and_redaction_is_idempotent(v in json_value()) {
        let scanner = CredentialScanner::default();
        let _ = scanner.scan(&v).unwrap();
        let redacted = scanner.redact(&v).unwrap();
        prop_assert_eq!(&scanner.redact(&redacted).unwrap(), &redacted);
        let _ = scanner.redact_text(&v.to_string()).unwrap();
    }

    #[test]
    fn free_text_loses_a_planted_credential(
        before in "[a-z ]{0,24}",
        after in "[a-z ]{0,24}",
        secret in prop::sample::select(SECRETS),
    ) {
        let text = format!("{before} {secret} {after}");
        let out = CredentialScanner::default().redact_text(&text).unwrap();
        prop_assert!(!out.contains(secret), "{}", out);
        prop_assert!(out.contains(REDACTED));
    }

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,200}") {
        let scanner = CredentialScanner::default();
        match scanner.redact_text(&text).unwrap() {
            Cow::Borrowed(same) => prop_assert_eq!(same, text.as_str()),
            Cow::Owned(changed) => prop_assert!(changed.contains(REDACTED), "{}", changed),
        }
    }
}

#[test]
fn extra_shapes_and_their_errors() {
    let scanner =
        CredentialScanner::with_extra(&[("ticket", r"\bTCK-[0-9]{6}\b")], &["pin"]).unwrap();
    let found = scanner
        .scan(&json!({"note": "see TCK-123456"}))
        .unwrap()
        .unwrap();
    assert_eq!(
        (found.kind.as_str(), found.path.as_str()),
        ("ticket", "params.note")
    );
    assert!(scanner.names_credential("userPin"));

    // Look-around is not in the `regex` syntax: a build error, named.
    let err = CredentialScanner::with_extra(&[("bad", "(?=x)")], &[]).unwrap_err();
    assert!(
        matches!(&err, Error::Pattern { pattern, .. } if pattern == "(?=x)"),
        "{err}"
    );
    assert!(
        err.to_string()
            .starts_with("invalid credential pattern `(?=x)`"),
        "{err}"
    );
}
