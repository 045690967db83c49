//! The scanner through its public API: property tests over arbitrary JSON
//! and text with a credential planted in them (never panics, the credential
//! is found and redacted and never echoed, redaction is idempotent and
//! leaves nothing credential-shaped), and the errors of `with_extra`.

// Test helpers outside `#[test]` functions may unwrap too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::borrow::Cow;

use proptest::prelude::*;
use serde_json::{Value, json};
use tact_secrets::{
    CredentialScanner, Error, FAMILY_EXAMPLES, GITLEAKS_FAMILY_COUNT, NOT_COVERED, REDACTED,
    expand_example,
};

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

/// The fake example of every covered gitleaks family, expanded (seeded by
/// its position): the text and its secret runs.
fn family_examples() -> Vec<(&'static str, &'static str, String, Vec<String>)> {
    FAMILY_EXAMPLES
        .iter()
        .zip(1u64..)
        .map(|(f, seed)| {
            let (text, runs) = expand_example(f.example, seed);
            (f.family, f.kind, text, runs)
        })
        .collect()
}

/// Gitleaks' default configuration (222 rules, 130 families by rule-id
/// prefix at commit b58d3f1) is what secret scanning is measured against:
/// every covered family's fake example is detected, in free text and in
/// JSON params, and redacted whole; and the families covered are at least
/// 90 % of gitleaks' 130.
#[test]
fn gitleaks_families_are_covered_detected_and_redacted() {
    let scanner = CredentialScanner::default();
    let mut families: Vec<&str> = FAMILY_EXAMPLES.iter().map(|f| f.family).collect();
    families.sort_unstable();
    families.dedup();
    assert_eq!(
        families.len(),
        FAMILY_EXAMPLES.len(),
        "one example a family"
    );
    for (family, _) in NOT_COVERED {
        assert!(!families.contains(family), "{family}");
    }
    assert_eq!(
        families.len() + NOT_COVERED.len(),
        GITLEAKS_FAMILY_COUNT,
        "every gitleaks family is covered or named as not covered"
    );
    let coverage = families.len() as f64 / GITLEAKS_FAMILY_COUNT as f64;
    assert!(coverage >= 0.90, "coverage {coverage}");
    assert_eq!(families.len(), 129);

    for (family, kind, text, runs) in family_examples() {
        assert!(runs.iter().all(|r| !r.is_empty()), "{family}");
        // Free text, with prose around it.
        let prose = format!("ran it:\n{text}\nthen exit 0");
        let kinds = scanner.kinds_in_text(&prose).unwrap();
        assert!(
            kinds.iter().any(|k| k == kind),
            "{family}: {kind} not in {kinds:?} for {prose}"
        );
        let red = scanner.redact_text(&prose).unwrap();
        for r in &runs {
            assert!(!red.contains(r.as_str()), "{family}: {red}");
        }
        assert!(red.contains(REDACTED), "{family}");
        assert!(red.starts_with("ran it:"), "{family}: {red}");
        assert!(
            scanner.kinds_in_text(&red).unwrap().is_empty(),
            "{family}: {red}"
        );
        assert_eq!(scanner.redact_text(&red).unwrap(), red, "{family}");

        // JSON params: the value alone, and inside a command.
        for params in [
            json!({"value": text}),
            json!({"command": format!("echo '{text}' > cfg"), "timeout": 30}),
        ] {
            let found = scanner.scan(&params).unwrap();
            let found = found.unwrap_or_else(|| panic!("{family}: not found in {params}"));
            for r in &runs {
                assert!(!format!("{found:?}").contains(r.as_str()), "{family}");
            }
            let red = scanner.redact(&params).unwrap().to_string();
            for r in &runs {
                assert!(!red.contains(r.as_str()), "{family}: {red}");
            }
        }
    }
}

/// The formats a coding agent meets that used to reach the database
/// unredacted: each is detected and redacted whole.
#[test]
fn agent_credential_formats_are_found_and_redacted() {
    let scanner = CredentialScanner::default();
    let (k, _) = expand_example("{U16}", 7);
    let (sk, _) = expand_example("{m40}", 8);
    let (b64, _) = expand_example("{m32}", 9);
    let (pw, _) = expand_example("{m12}", 10);
    let (hex, _) = expand_example("{h40}", 11);
    let id = format!("AK{}{k}", "IA");
    let cases: Vec<(String, Vec<String>)> = vec![
        (
            format!("aws configure set aws_access_key_id {id}"),
            vec![id.clone()],
        ),
        (
            format!("aws configure set aws_secret_access_key {sk}"),
            vec![sk.clone()],
        ),
        (format!("AWS_SECRET_ACCESS_KEY={sk}"), vec![sk.clone()]),
        (format!("creds: {id}, {sk}"), vec![id.clone(), sk.clone()]),
        (
            format!("curl -H 'Authorization: Basic {b64}=' https://x.invalid"),
            vec![b64.clone()],
        ),
        (
            format!("curl -s --user deploy:{pw} https://x.invalid"),
            vec![pw.clone()],
        ),
        (
            format!("psql postgres://app:p$ss:{pw}@db:5432/x"),
            vec![pw.clone()],
        ),
        (format!("DB_PASS={pw} ./migrate"), vec![pw.clone()]),
        (format!("export SMTP_PASSWORD='{pw}'"), vec![pw.clone()]),
        (format!("GH_TOKEN={pw} gh pr list"), vec![pw.clone()]),
        (
            format!(
                "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={b64}==;EndpointSuffix=core.windows.net"
            ),
            vec![b64.clone()],
        ),
        (
            format!("{{\"auths\": {{\"registry.example\": {{\"auth\": \"{b64}\"}}}}}}"),
            vec![b64.clone()],
        ),
        (
            format!("{{\"type\": \"service_account\", \"private_key_id\": \"{hex}\"}}"),
            vec![hex.clone()],
        ),
        (
            format!("apiVersion: v1\nkind: Secret\ndata:\n  tls.key: {b64}\n  anything: {pw}\n"),
            vec![b64.clone(), pw.clone()],
        ),
    ];
    for (text, secrets) in &cases {
        assert!(!scanner.kinds_in_text(text).unwrap().is_empty(), "{text}");
        let red = scanner.redact_text(text).unwrap();
        for s in secrets {
            assert!(!red.contains(s.as_str()), "{text} -> {red}");
        }
        let params = json!({"command": text});
        assert!(scanner.scan(&params).unwrap().is_some(), "{text}");
    }
    // A PEM key loses its body and END line too.
    let pem = format!("-----BEGIN PRIVATE KEY-----\n{b64}\n{sk}\n-----END PRIVATE KEY-----\nnext");
    let red = scanner.redact_text(&pem).unwrap();
    assert_eq!(red, format!("{REDACTED}\nnext"));
    // The GCP key id under its own key in JSON.
    let sa = json!({"type": "service_account", "private_key_id": hex});
    assert_eq!(scanner.redact(&sa).unwrap()["private_key_id"], REDACTED);
}

/// Things that look like credentials to a careless scanner but are not.
#[test]
fn false_positives_stay_clean() {
    let scanner = CredentialScanner::default();
    for text in [
        "max_tokens: 4096, token_count: 18234",
        "{\"max_tokens\": 512, \"token_count\": 18234}",
        "MAX_TOKEN=4096",
        "the secret sauce is caching",
        "password: required",
        "Bearer authentication is used",
        "Basic authentication is used",
        "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        "id 123e4567-e89b-12d3-a456-426614174000",
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ dev@laptop",
        "postgres://app:${DB_PASSWORD}@db/x",
        "PWD=/home/dev/project",
        "grep -r 'password\\s*=' src",
        "the token is stored in the keychain",
        "curl -u \"$USER:$PASS\" https://x.invalid",
        "see https://example.com:8443/path and mail a@b.c",
    ] {
        assert_eq!(
            scanner.kinds_in_text(text).unwrap(),
            Vec::<String>::new(),
            "{text}"
        );
        assert_eq!(scanner.redact_text(text).unwrap(), text, "{text}");
    }
}
