//! The integration-test binary of tact-scoring: each rule of the `spec`,
//! `paper` and `paper-code` profiles stated and pinned, `paper-code`
//! checked against the released code's conformance table, the session-level preferences, the
//! judge contract, the text checkers' edge cases, fixture floors, and
//! property tests that scoring and checking never panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use proptest::prelude::*;
use tact_core::dataset::read_jsonl;
use tact_scoring::dataset::PreferenceExample;
use tact_scoring::{
    AskedQuestion, Category, Error, Judge, JudgeRequest, PppEnv, Preference, Profile, Scope,
    Scorer, Session, SessionScore, Severity, TaskOutcome, TextChecker, Turn, UserPreferences,
    Verdict,
};
use tact_types::EffortLevel::{self, High, Low, Medium};

fn fixtures(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel)
}

fn q(text: &str, effort: EffortLevel) -> AskedQuestion {
    AskedQuestion::new(text, effort)
}

/// A session whose turns carry host-supplied questions (no extraction).
fn session(r_prod: f64, turns: Vec<(&str, Vec<AskedQuestion>)>) -> Session {
    let mut s = Session::new("agent", TaskOutcome::Score { value: r_prod });
    s.turns = turns
        .into_iter()
        .map(|(resp, qs)| Turn::new("prompt", resp).with_questions(qs))
        .collect();
    s
}

fn score(profile: Profile, s: &Session) -> SessionScore {
    Scorer::builder().profile(profile).build().unwrap().score(s)
}

#[track_caller]
fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

fn rules(s: &SessionScore) -> Vec<&str> {
    s.adjustments.iter().map(|a| a.rule.as_str()).collect()
}

mod checkers;
mod per_turn;
mod preferences;
mod profiles;
mod running;
