//! The configuration example and its docs stay complete: `docs/tact.toml`
//! parses with the strict config structs (unknown keys are errors) and
//! sets every key they accept, and `docs/configuration.md` documents every
//! one of them. The accepted keys are read from the structs themselves
//! (their serde field names), so a new key fails this test until it is
//! documented.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::PathBuf;

use tact_consensus::{PppConfig, StageWeights};
use tact_scoring::{Preference, UserPreferences};

fn read(rel: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The keys a struct accepts: the field names it serializes, with every
/// optional field filled in.
fn keys<T: serde::Serialize>(value: &T) -> BTreeSet<String> {
    match serde_json::to_value(value).unwrap() {
        serde_json::Value::Object(map) => map.keys().cloned().collect(),
        other => panic!("not a struct: {other}"),
    }
}

fn ppp_keys() -> BTreeSet<String> {
    keys(&PppConfig::default())
}

fn stage_keys() -> BTreeSet<String> {
    keys(&StageWeights {
        technical_weight: 0.5,
        interaction_weight: 0.5,
    })
}

fn user_preference_keys() -> BTreeSet<String> {
    // Every list non-empty, so none is skipped when serialized.
    keys(&UserPreferences::from_preferences([
        Preference::LangIta,
        Preference::Commas,
        Preference::Snippet,
        Preference::NoAsk,
    ]))
}

fn llm_keys() -> BTreeSet<String> {
    let mut c = tact::llm::LlmConfig::default();
    c.model = Some("m".into());
    c.model_conversational = Some("m".into());
    c.budget = Some(1);
    keys(&c)
}

fn threshold_keys() -> BTreeSet<String> {
    keys(&tact::llm::Thresholds::default())
}

#[test]
fn the_structs_accept_the_keys_this_test_expects() {
    // A guard on the key discovery itself (so the checks below are not
    // vacuous): if a key is added, the docs tests below catch it.
    assert!(ppp_keys().len() >= 9, "{:?}", ppp_keys());
    assert!(ppp_keys().contains("stages"));
    assert_eq!(
        stage_keys(),
        BTreeSet::from(["interaction_weight".into(), "technical_weight".into()])
    );
    assert_eq!(user_preference_keys().len(), 4);
}

#[test]
fn the_example_parses_strictly_and_sets_every_key() {
    let text = read("docs/tact.toml");
    let config = PppConfig::from_toml(&text, Some("docs/tact.toml")).unwrap();
    config.validate().unwrap();
    let prefs = UserPreferences::from_toml(&text, Some("docs/tact.toml")).unwrap();
    assert!(!prefs.is_empty());

    let doc: toml::Table = text.parse().unwrap();
    let tables: BTreeSet<&str> = doc.keys().map(String::as_str).collect();
    assert_eq!(tables, BTreeSet::from(["llm", "ppp", "user_preferences"]));
    let llm = tact::llm::LlmConfig::from_toml(&toml::to_string(&doc["llm"]).unwrap()).unwrap();
    llm.validate().unwrap();
    let llm_table = doc["llm"].as_table().unwrap();
    let set: BTreeSet<String> = llm_table.keys().cloned().collect();
    assert_eq!(set, llm_keys(), "[llm] of docs/tact.toml");
    let set: BTreeSet<String> = llm_table["thresholds"]
        .as_table()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(set, threshold_keys(), "[llm.thresholds] of docs/tact.toml");
    let ppp = doc["ppp"].as_table().unwrap();
    let set: BTreeSet<String> = ppp.keys().cloned().collect();
    assert_eq!(set, ppp_keys(), "[ppp] of docs/tact.toml");
    let stages = ppp["stages"].as_table().unwrap();
    assert!(!stages.is_empty());
    for (name, stage) in stages {
        let set: BTreeSet<String> = stage.as_table().unwrap().keys().cloned().collect();
        assert_eq!(set, stage_keys(), "[ppp.stages.{name}]");
    }
    let up = doc["user_preferences"].as_table().unwrap();
    let set: BTreeSet<String> = up.keys().cloned().collect();
    assert_eq!(set, user_preference_keys(), "[user_preferences]");

    // Strict: a misspelt key in either table is an error.
    for (table, bad) in [
        ("[ppp]", "technical_weigth"),
        ("[user_preferences]", "formats"),
    ] {
        let broken = text.replacen(&format!("{table}\n"), &format!("{table}\n{bad} = 1\n"), 1);
        assert_ne!(broken, text);
        let err = match table {
            "[ppp]" => PppConfig::from_toml(&broken, None)
                .map(|_| ())
                .unwrap_err()
                .to_string(),
            _ => UserPreferences::from_toml(&broken, None)
                .map(|_| ())
                .unwrap_err()
                .to_string(),
        };
        assert!(err.contains(&format!("unknown field `{bad}`")), "{err}");
    }
}

#[test]
fn every_accepted_key_is_documented() {
    let docs = read("docs/configuration.md");
    let (ppp_part, rest) = docs
        .split_once("## `[user_preferences]`")
        .expect("a `[user_preferences]` section");
    let (_, ppp_part) = ppp_part
        .split_once("## `[ppp]`")
        .expect("a `[ppp]` section");
    let row = |key: &str| format!("| `{key}` |");
    for key in ppp_keys().iter().chain(&stage_keys()) {
        assert!(
            ppp_part.contains(&row(key)),
            "`[ppp]` key `{key}` is not documented in docs/configuration.md"
        );
    }
    for key in user_preference_keys() {
        assert!(
            rest.contains(&row(&key)),
            "`[user_preferences]` key `{key}` is not documented in docs/configuration.md"
        );
    }
    let (_, llm_part) = docs.split_once("## `[llm]`").expect("an `[llm]` section");
    for key in llm_keys().iter().filter(|k| *k != "thresholds") {
        assert!(
            llm_part.contains(&row(key)),
            "`[llm]` key `{key}` is not documented in docs/configuration.md"
        );
    }
    for key in threshold_keys() {
        assert!(
            llm_part.contains(&format!("`thresholds.{key}`")),
            "`[llm.thresholds]` key `{key}` is not documented in docs/configuration.md"
        );
    }
    // Every preference name is listed under its key.
    for p in Preference::ALL {
        assert!(
            rest.contains(&format!("`{}`", p.as_str()))
                || matches!(p, Preference::LangIta | Preference::LangMulti),
            "preference `{}` is not documented",
            p.as_str()
        );
    }
}
