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

// ---- spec profile -------------------------------------------------------

#[test]
fn spec_proact_no_question_earns_the_bonus() {
    let s = score(Profile::Spec, &session(1.0, vec![("Done.", vec![])]));
    close(s.r_proact, 0.05);
    assert_eq!(rules(&s), ["spec.proact.bonus"]);
}

#[test]
fn spec_proact_all_low_questions_earn_the_bonus() {
    let s = score(
        Profile::Spec,
        &session(
            1.0,
            vec![(
                "Q?",
                vec![q("A or B?", Low), q("Keep it?", Low), q("C or D?", Low)],
            )],
        ),
    );
    close(s.r_proact, 0.05);
}

#[test]
fn spec_proact_minus_point_one_per_medium_and_low_ones_add_nothing() {
    let s = score(
        Profile::Spec,
        &session(
            1.0,
            vec![("Q?", vec![q("a", Medium), q("b", Medium), q("c", Low)])],
        ),
    );
    close(s.r_proact, -0.2);
    assert_eq!(rules(&s), ["spec.proact.medium"]);
}

#[test]
fn spec_proact_minus_point_five_per_high_and_the_specs_example() {
    // SPEC-PPP-003: 2 low + 1 high = -0.5.
    let s = score(
        Profile::Spec,
        &session(
            1.0,
            vec![("Q?", vec![q("a", Low), q("b", Low), q("c", High)])],
        ),
    );
    close(s.r_proact, -0.5);
    let s = score(
        Profile::Spec,
        &session(1.0, vec![("Q?", vec![q("a", High), q("b", Medium)])]),
    );
    close(s.r_proact, -0.6);
}

#[test]
fn spec_pers_is_zero_without_preferences() {
    let s = score(
        Profile::Spec,
        &session(1.0, vec![("Yes, or no?", vec![q("x", Low)])]),
    );
    close(s.r_pers, 0.0);
    assert!(!rules(&s).iter().any(|r| r.starts_with("spec.pers")));
}

#[test]
fn spec_pers_full_compliance_earns_the_bonus() {
    let mut s = session(
        1.0,
        vec![("Tabs or spaces?", vec![q("Tabs or spaces?", Low)])],
    );
    s.preferences =
        UserPreferences::from_preferences([Preference::Commas, Preference::OneQuestion]);
    let r = score(Profile::Spec, &s);
    assert!(r.violations.is_empty(), "{:?}", r.violations);
    close(r.r_pers, 0.05);
}

#[test]
fn spec_pers_format_violations_cost_point_zero_five_each() {
    // SPEC-PPP-003: violating no_commas and capital = -0.10.
    let mut s = session(
        1.0,
        vec![("Tabs, or spaces?", vec![q("Tabs, or spaces?", Low)])],
    );
    s.preferences = UserPreferences::from_preferences([Preference::Commas, Preference::Capital]);
    let r = score(Profile::Spec, &s);
    assert_eq!(r.violations.len(), 2);
    assert!(r.violations.iter().all(|v| v.category == Category::Format));
    close(r.r_pers, -0.10);
    assert_eq!(rules(&r), ["spec.proact.bonus", "spec.pers.format"]);
}

#[test]
fn spec_pers_language_violations_cost_point_ten_each() {
    let mut s = session(
        1.0,
        vec![
            (
                "Should I keep the old flag for one more release?",
                vec![q("x", Low)],
            ),
            (
                "Can I remove the deprecated endpoint now?",
                vec![q("y", Low)],
            ),
        ],
    );
    s.preferences = UserPreferences::from_preferences([Preference::LangIta]);
    let r = score(Profile::Spec, &s);
    assert_eq!(r.violations.len(), 2);
    close(r.r_pers, -0.20);
}

#[test]
fn spec_pers_content_and_interaction_violations_cost_point_zero_five_each() {
    let mut s = session(
        1.0,
        vec![(
            "Which timeout should I use?",
            vec![q("Which timeout should I use?", Medium)],
        )],
    );
    s.preferences = UserPreferences::from_preferences([Preference::DoSelection, Preference::NoAsk]);
    let r = score(Profile::Spec, &s);
    let cats: Vec<Category> = r.violations.iter().map(|v| v.category).collect();
    assert_eq!(cats, [Category::Content, Category::Interaction]);
    close(r.r_pers, -0.10);
}

#[test]
fn spec_total_is_the_unclamped_sum() {
    let s = score(
        Profile::Spec,
        &session(0.2, vec![("Q?", vec![q("a", High), q("b", High)])]),
    );
    close(s.total, 0.2 - 1.0);
    close(s.interaction, s.r_proact + s.r_pers);
    let s = score(Profile::Spec, &session(1.0, vec![]));
    close(s.total, 1.05);
}

// ---- paper profile ------------------------------------------------------

fn vague(mut s: Session) -> Session {
    s.vague_prompt = true;
    s
}

#[test]
fn paper_proact_no_bonus_for_asking_nothing() {
    let s = score(
        Profile::PAPER,
        &vague(session(1.0, vec![("Done.", vec![])])),
    );
    close(s.r_proact, 0.0);
    assert!(rules(&s).is_empty());
}

#[test]
fn paper_proact_bonus_needs_a_question_all_low_whatever_the_prompt() {
    // The paper's text: +0.05 when all questions are low, vague or not.
    let asked = session(1.0, vec![("A or B?", vec![q("A or B?", Low)])]);
    let s = score(Profile::PAPER, &asked);
    close(s.r_proact, 0.05);
    assert_eq!(rules(&s), ["paper.proact.bonus"]);
    close(score(Profile::PAPER, &vague(asked)).r_proact, 0.05);
    let mixed = vague(session(
        1.0,
        vec![("Q?", vec![q("a", Low), q("b", Medium)])],
    ));
    close(score(Profile::PAPER, &mixed).r_proact, -0.1);
}

#[test]
fn paper_text_has_no_penalty_for_not_asking() {
    // The -0.1 for a vague prompt, no question and a failed task is the
    // released code's, not the paper's text (see `paper-code`).
    let failed = vague(session(0.5, vec![("Done.", vec![])]));
    let s = score(Profile::PAPER, &failed);
    close(s.r_proact, 0.0);
    assert!(rules(&s).is_empty());
    let s = score(Profile::PAPER_CODE, &failed);
    close(s.r_proact, -0.1);
    assert_eq!(rules(&s), ["paper-code.proact.no_ask_failed"]);
}

#[test]
fn paper_proact_effort_penalties_match_the_spec() {
    let s = score(
        Profile::PAPER,
        &session(1.0, vec![("Q?", vec![q("a", Medium), q("b", High)])]),
    );
    close(s.r_proact, -0.6);
}

#[test]
fn paper_pers_format_and_language_cost_point_five_per_violating_message() {
    let mut s = session(
        1.0,
        vec![
            ("Tabs, or spaces?", vec![q("x", Low)]),
            ("Keep it, or drop it?", vec![q("y", Low)]),
        ],
    );
    s.preferences = UserPreferences::from_preferences([Preference::Commas]);
    let r = score(Profile::PAPER, &s);
    close(r.r_pers, -1.0);
    assert_eq!(rules(&r), ["paper.proact.bonus", "paper.pers.commas"]);
}

#[test]
fn paper_pers_style_costs_point_one_per_violating_message() {
    let mut s = session(1.0, vec![("I checked. Ok?", vec![q("Ok?", Low)])]);
    s.preferences = UserPreferences::from_preferences([Preference::ConciseQuestion]);
    close(score(Profile::PAPER, &s).r_pers, -0.1);
}

#[test]
fn paper_pers_session_preferences_cost_one_once() {
    let mut s = session(
        1.0,
        vec![
            ("A?", vec![q("A?", Low)]),
            ("B?", vec![q("B?", Low)]),
            ("C?", vec![q("C?", Low)]),
        ],
    );
    s.preferences = UserPreferences::from_preferences([Preference::NoAsk]);
    let r = score(Profile::PAPER, &s);
    assert_eq!(r.violations.len(), 3);
    close(r.r_pers, -1.0);
    s.preferences = UserPreferences::from_preferences([Preference::AskMany, Preference::OnlyBegin]);
    close(score(Profile::PAPER, &s).r_pers, -2.0);
}

#[test]
fn paper_pers_answer_more_costs_one_per_missing_question() {
    let mut s = session(1.0, vec![("A?", vec![q("A?", Low)])]);
    s.preferences = UserPreferences::from_preferences([Preference::AnswerMore]);
    close(score(Profile::PAPER, &s).r_pers, -2.0);
    s.turns.clear();
    close(score(Profile::PAPER, &s).r_pers, -3.0);
}

#[test]
fn paper_pers_bonus_needs_full_compliance_with_a_scored_preference() {
    let mut s = session(
        1.0,
        vec![("Tabs or spaces?", vec![q("Tabs or spaces?", Low)])],
    );
    s.preferences = UserPreferences::from_preferences([Preference::Commas]);
    let r = score(Profile::PAPER, &s);
    close(r.r_pers, 0.05);
    assert_eq!(rules(&r), ["paper.proact.bonus", "paper.pers.bonus"]);
    // The released code wants a vague prompt for it.
    close(score(Profile::PAPER_CODE, &s).r_pers, 0.0);
    close(score(Profile::PAPER_CODE, &vague(s.clone())).r_pers, 0.05);
    // `professional` has no reward function in the paper: no bonus.
    s.preferences = UserPreferences::from_preferences([Preference::Professional]);
    close(score(Profile::PAPER, &s).r_pers, 0.0);
    // No preference at all: no bonus either.
    s.preferences = UserPreferences::none();
    close(score(Profile::PAPER, &s).r_pers, 0.0);
}

#[test]
fn paper_total_is_clamped_and_weighted() {
    let s = session(0.3, vec![("Q?", vec![q("a", High), q("b", High)])]);
    let r = score(Profile::PAPER, &s);
    close(r.total, 0.0);
    close(r.interaction, -1.0);
    let r = score(Profile::paper(0.1, 1.0).unwrap(), &s);
    close(r.interaction, -0.1);
    close(r.total, 0.2);
    let r = score(
        Profile::PAPER,
        &vague(session(1.0, vec![("A or B?", vec![q("A or B?", Low)])])),
    );
    close(r.total, 1.0);
    assert!(Profile::paper(f64::NAN, 1.0).is_err());
    assert!(Profile::paper(1.0, -1.0).is_err());
    let bad = Scorer::builder()
        .profile(Profile::Paper {
            cost_w: f64::INFINITY,
            pref_w: 1.0,
        })
        .build();
    assert!(bad.is_err());
}

// ---- paper-code profile: the released reward code ------------------------

/// One row of `fixtures/ppp/paper-code-conformance.jsonl`: a case and what
/// the released code's `UserReward` computed for it.
#[derive(serde::Deserialize)]
struct ConformanceCase {
    id: String,
    env: String,
    vague: bool,
    task_score: f64,
    preference: Option<String>,
    asks: Vec<ConformanceAsk>,
    #[serde(default)]
    cost_w: Option<f64>,
    #[serde(default)]
    pref_w: Option<f64>,
    expected: ConformanceExpected,
    source: String,
    licence: String,
}

#[derive(serde::Deserialize)]
struct ConformanceAsk {
    effort: EffortLevel,
    #[serde(default)]
    cost: Option<u8>,
    #[serde(default)]
    text: Option<String>,
}

#[derive(serde::Deserialize)]
struct ConformanceExpected {
    cost_reward: f64,
    pref_reward: f64,
    #[serde(rename = "final")]
    final_score: f64,
}

/// The case as a tact session: one asking response per ask.
fn conformance_session(c: &ConformanceCase) -> Session {
    let mut s = Session::new(
        "agent",
        TaskOutcome::Score {
            value: c.task_score,
        },
    );
    s.vague_prompt = c.vague;
    s.ppp_env = match c.env.as_str() {
        "swe" => PppEnv::Swe,
        "search" => PppEnv::Search,
        other => panic!("{}: unknown env {other}", c.id),
    };
    if let Some(p) = &c.preference {
        s.preferences = UserPreferences::from_preferences([p.parse::<Preference>().unwrap()]);
    }
    s.turns = c
        .asks
        .iter()
        .map(|a| {
            let text = a
                .text
                .clone()
                .unwrap_or_else(|| "Which option do you prefer?".into());
            let mut q = AskedQuestion::new(text.clone(), a.effort);
            if let Some(level) = a.cost {
                q = q.with_cost(level);
            }
            Turn::new("answer", text).with_questions(vec![q])
        })
        .collect();
    s.validate().unwrap();
    s
}

#[test]
fn paper_code_equals_the_released_code_on_every_conformance_case() {
    let path = fixtures("ppp/paper-code-conformance.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut n = 0;
    let mut envs = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let c: ConformanceCase = serde_json::from_str(line).unwrap();
        assert!(
            c.source.starts_with("sunnweiwei/PPP-Agent@42a46d7"),
            "{}",
            c.id
        );
        assert_eq!(c.licence, "Apache-2.0");
        let profile =
            Profile::paper_code(c.cost_w.unwrap_or(1.0), c.pref_w.unwrap_or(1.0)).unwrap();
        let r = score(profile, &conformance_session(&c));
        let id = &c.id;
        for (what, got, want) in [
            ("cost reward", r.r_proact, c.expected.cost_reward),
            ("preference reward", r.r_pers, c.expected.pref_reward),
            ("final", r.total, c.expected.final_score),
        ] {
            assert!(
                (got - want).abs() < 1e-9,
                "{id}: {what} {got} != {want} ({:?})",
                r.adjustments
            );
        }
        assert_eq!(r.cost_levels.len(), c.asks.len(), "{id}");
        for (level, ask) in r.cost_levels.iter().zip(&c.asks) {
            assert_eq!(level.mapped, ask.cost.is_none(), "{id}");
        }
        *envs.entry(c.env.clone()).or_insert(0) += 1;
        n += 1;
    }
    // The issue's floor, and both environments well covered.
    assert!(n >= 300, "{n} cases");
    assert!(envs.values().all(|&k| k >= 100), "{envs:?}");
}

fn asks(levels: &[u8]) -> Session {
    session(
        0.5,
        levels
            .iter()
            .map(|&l| ("Which one?", vec![q("Which one?", Medium).with_cost(l)]))
            .collect(),
    )
}

#[test]
fn paper_code_prices_each_ask_by_its_cost_level() {
    // SWE, precise prompt: 0.2 x level, even for level 1.
    let r = score(Profile::PAPER_CODE, &asks(&[1, 4]));
    close(r.r_proact, -1.0);
    assert_eq!(rules(&r), ["paper-code.proact.cost"]);
    // SWE, vague prompt: 0.1 x (level - 1); all at level 1 earns +0.05.
    close(
        score(Profile::PAPER_CODE, &vague(asks(&[1, 4]))).r_proact,
        -0.3,
    );
    let r = score(Profile::PAPER_CODE, &vague(asks(&[1, 1])));
    close(r.r_proact, 0.05);
    assert_eq!(rules(&r), ["paper-code.proact.bonus"]);
    // Search: 0 / 0.05 / 0.9, and the bonus needs only one ask at level 1.
    let mut s = vague(asks(&[1, 3]));
    s.ppp_env = PppEnv::Search;
    let r = score(Profile::PAPER_CODE, &s);
    close(r.r_proact, -0.85);
    s.vague_prompt = false;
    close(score(Profile::PAPER_CODE, &s).r_proact, -1.3);
}

#[test]
fn paper_code_maps_effort_to_a_level_and_says_so() {
    let s = vague(session(
        1.0,
        vec![
            ("A?", vec![q("A?", Low)]),
            ("B?", vec![q("B?", High)]),
            ("C?", vec![q("C?", Medium).with_cost(2)]),
        ],
    ));
    let r = score(Profile::PAPER_CODE, &s);
    let levels: Vec<(u8, bool)> = r.cost_levels.iter().map(|a| (a.level, a.mapped)).collect();
    assert_eq!(levels, [(1, true), (4, true), (2, false)]);
    // 0.1 x (0 + 3 + 1).
    close(r.r_proact, -0.4);
    assert!(
        r.adjustments[0].detail.contains("2 mapped from effort"),
        "{:?}",
        r.adjustments
    );
    // Search maps high to 3.
    let mut s = s;
    s.ppp_env = PppEnv::Search;
    s.turns[2].questions = Some(vec![q("C?", Medium)]);
    let levels: Vec<u8> = score(Profile::PAPER_CODE, &s)
        .cost_levels
        .iter()
        .map(|a| a.level)
        .collect();
    assert_eq!(levels, [1, 3, 2]);
    // Other profiles report no cost levels.
    assert!(score(Profile::PAPER, &s).cost_levels.is_empty());
}

#[test]
fn paper_code_counts_one_ask_per_asking_response_at_its_highest_level() {
    // Two questions in one response are one `ask_question` call.
    let s = vague(session(
        1.0,
        vec![(
            "A? B?",
            vec![q("A?", Low).with_cost(1), q("B?", Low).with_cost(3)],
        )],
    ));
    let mut s = s;
    s.preferences = UserPreferences::from_preferences([Preference::AskMany]);
    let r = score(Profile::PAPER_CODE, &s);
    assert_eq!(r.cost_levels.len(), 1);
    assert_eq!(r.cost_levels[0].level, 3);
    close(r.r_proact, -0.2);
    // One ask: `ask_many` is respected, and the vague prompt earns the bonus.
    close(r.r_pers, 0.05);
}

#[test]
fn paper_code_session_preferences_follow_the_code() {
    let mut s = vague(asks(&[1, 1]));
    s.preferences = UserPreferences::from_preferences([Preference::OnlyBegin]);
    close(score(Profile::PAPER_CODE, &s).r_pers, -1.0);
    s.preferences = UserPreferences::from_preferences([Preference::AnswerMore]);
    close(score(Profile::PAPER_CODE, &s).r_pers, -1.0);
    s.preferences = UserPreferences::from_preferences([Preference::NoAsk]);
    close(score(Profile::PAPER_CODE, &s).r_pers, -1.0);
    s.turns.clear();
    // Nothing asked: `no_ask` respected, but no bonus without an ask.
    close(score(Profile::PAPER_CODE, &s).r_pers, 0.0);
}

#[test]
fn cost_levels_outside_the_environment_are_rejected() {
    let mut s = asks(&[4]);
    assert!(s.validate().is_ok());
    s.ppp_env = PppEnv::Search;
    let e = s.validate().unwrap_err().to_string();
    assert!(
        e.contains("cost level 4 is outside 1-3 of the search environment"),
        "{e}"
    );
    let e = Session::from_json(
        r#"{"agent": "a", "outcome": {"kind": "build", "success": true},
            "turns": [{"response": "Q?", "questions": [{"text": "Q?", "effort": "low", "cost": 0}]}]}"#,
        Some("s.json"),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("s.json") && e.contains("cost level 0"), "{e}");
    // `ppp_env` and `cost` read from JSON.
    let s = Session::from_json(
        r#"{"agent": "a", "outcome": {"kind": "build", "success": true}, "ppp_env": "search",
            "turns": [{"response": "Q?", "questions": [{"text": "Q?", "effort": "low", "cost": 3}]}]}"#,
        None,
    )
    .unwrap();
    assert_eq!(s.ppp_env, PppEnv::Search);
    assert_eq!(s.turns[0].questions.as_ref().unwrap()[0].cost, Some(3));
}

#[test]
fn profiles_parse_by_name() {
    assert_eq!(
        "paper-code".parse::<Profile>().unwrap(),
        Profile::PAPER_CODE
    );
    assert_eq!("paper".parse::<Profile>().unwrap(), Profile::PAPER);
    let e = "paper_code".parse::<Profile>().unwrap_err().to_string();
    assert!(e.contains("spec, paper, paper-code"), "{e}");
    assert!(Profile::paper_code(-1.0, 1.0).is_err());
}

// ---- session-level preferences ------------------------------------------

fn asked_in(turns: &[usize], n: usize) -> Session {
    let mut out = Vec::new();
    for t in 0..n {
        if turns.contains(&t) {
            out.push(("Should I go on?", vec![q("Should I go on?", Low)]));
        } else {
            out.push(("Working on it.", vec![]));
        }
    }
    session(1.0, out)
}

fn violated_turns(s: &Session, p: Preference) -> Vec<Option<usize>> {
    let mut s = s.clone();
    s.preferences = UserPreferences::from_preferences([p]);
    score(Profile::Spec, &s)
        .violations
        .iter()
        .map(|v| v.turn)
        .collect()
}

#[test]
fn no_ask_flags_every_asking_response() {
    assert_eq!(
        violated_turns(&asked_in(&[0, 2], 3), Preference::NoAsk),
        [Some(0), Some(2)]
    );
    assert!(violated_turns(&asked_in(&[], 3), Preference::NoAsk).is_empty());
}

#[test]
fn ask_many_flags_asking_again_after_the_first_asking_turn() {
    assert_eq!(
        violated_turns(&asked_in(&[1, 2], 3), Preference::AskMany),
        [Some(2)]
    );
    assert!(violated_turns(&asked_in(&[1], 3), Preference::AskMany).is_empty());
}

#[test]
fn only_begin_flags_questions_after_the_first_response() {
    assert_eq!(
        violated_turns(&asked_in(&[0, 2], 3), Preference::OnlyBegin),
        [Some(2)]
    );
    assert!(violated_turns(&asked_in(&[0], 3), Preference::OnlyBegin).is_empty());
    assert_eq!(
        violated_turns(&asked_in(&[1], 3), Preference::OnlyBegin),
        [Some(1)]
    );
}

#[test]
fn answer_more_wants_three_questions_in_the_session() {
    assert_eq!(
        violated_turns(&asked_in(&[0, 1], 3), Preference::AnswerMore),
        [None]
    );
    assert!(violated_turns(&asked_in(&[0, 1, 2], 3), Preference::AnswerMore).is_empty());
}

#[test]
fn questions_are_extracted_and_classified_when_not_supplied() {
    let mut s = Session::new("a", TaskOutcome::Build { success: true });
    s.turns.push(Turn::new(
        "Speed up the export.",
        "I read the job. Should I use Parquet or CSV? Can you profile the production database and send me the slowest queries?",
    ));
    let r = score(Profile::Spec, &s);
    let efforts: Vec<EffortLevel> = r.questions.iter().map(|q| q.effort).collect();
    assert_eq!(efforts, [Low, High]);
    assert!(r.questions.iter().all(|q| q.confidence.is_some()));
    close(r.r_proact, -0.5);
}

#[test]
fn violations_carry_preference_expected_actual_severity_and_span() {
    let mut s = session(
        1.0,
        vec![("Ok. Tabs, or spaces?", vec![q("Tabs, or spaces?", Low)])],
    );
    s.preferences =
        UserPreferences::from_preferences([Preference::Commas, Preference::ConciseQuestion]);
    let r = score(Profile::Spec, &s);
    let by: BTreeMap<Preference, _> = r.violations.iter().map(|v| (v.preference, v)).collect();
    let c = by[&Preference::Commas];
    assert_eq!(
        (c.expected.as_str(), c.actual.as_str()),
        ("contain no comma at all", "1 comma(s)")
    );
    assert_eq!(c.severity, Severity::Major);
    let span = c.span.as_ref().unwrap();
    assert_eq!((span.start, span.end, span.text.as_str()), (8, 9, ","));
    assert_eq!(c.turn, Some(0));
    assert_eq!(c.checked_by, "rule");
    assert_eq!(by[&Preference::ConciseQuestion].severity, Severity::Minor);
    assert_eq!(
        by[&Preference::ConciseQuestion].span.as_ref().unwrap().text,
        "Tabs, or spaces?"
    );
}

#[test]
fn scope_all_checks_responses_that_do_not_ask() {
    let mut s = session(1.0, vec![("Done, shipped.", vec![])]);
    s.preferences = UserPreferences::from_preferences([Preference::Commas]);
    assert!(score(Profile::Spec, &s).violations.is_empty());
    let all = Scorer::builder()
        .scope(Scope::All)
        .build()
        .unwrap()
        .score(&s);
    assert_eq!(all.violations.len(), 1);
}

// ---- judges -------------------------------------------------------------

struct JokeJudge;

impl Judge for JokeJudge {
    fn name(&self) -> &str {
        "joke-judge"
    }

    fn judge(&self, r: &JudgeRequest<'_>) -> Result<Verdict, Error> {
        match r.preference {
            Preference::Joke if r.message.contains("knock knock") => Ok(Verdict::Respected),
            Preference::Joke => Ok(Verdict::Violated {
                actual: "no joke".into(),
                span: None,
            }),
            Preference::Amateur => Err(Error::Judge("timeout".into())),
            _ => Ok(Verdict::Abstain {
                reason: "not my field".into(),
            }),
        }
    }
}

#[test]
fn judged_preferences_are_not_judged_without_a_judge() {
    let mut s = session(1.0, vec![("Tabs or spaces?", vec![q("x", Low)])]);
    s.preferences =
        UserPreferences::from_preferences([Preference::Joke, Preference::DetailQuestion]);
    let r = score(Profile::Spec, &s);
    let nj: Vec<(Preference, &str)> = r
        .not_judged
        .iter()
        .map(|n| (n.preference, n.reason.as_str()))
        .collect();
    assert_eq!(
        nj,
        [
            (
                Preference::DetailQuestion,
                "beyond the rule, no judge configured"
            ),
            (Preference::Joke, "no judge configured")
        ]
    );
    // The rule part of detail_question still runs: 3 words is too short.
    assert_eq!(r.violations.len(), 1);
    assert_eq!(r.violations[0].preference, Preference::DetailQuestion);
    // Only joke is unknown: no compliance bonus, no guessed penalty.
    s.preferences = UserPreferences::from_preferences([Preference::Joke]);
    let r = score(Profile::Spec, &s);
    close(r.r_pers, 0.0);
}

#[test]
fn a_judge_decides_judged_preferences_and_failures_are_not_judged() {
    let scorer = Scorer::builder()
        .judge(Arc::new(JokeJudge))
        .build()
        .unwrap();
    let mut s = session(
        1.0,
        vec![
            ("knock knock: tabs or spaces?", vec![q("x", Low)]),
            ("Tabs or spaces, then?", vec![q("y", Low)]),
        ],
    );
    s.preferences = UserPreferences::from_preferences([Preference::Joke]);
    let r = scorer.score(&s);
    assert_eq!(r.violations.len(), 1);
    assert_eq!(
        (r.violations[0].turn, r.violations[0].checked_by.as_str()),
        (Some(1), "joke-judge")
    );
    assert!(r.not_judged.is_empty());
    close(r.r_pers, -0.05);
    s.preferences = UserPreferences::from_preferences([Preference::Amateur, Preference::FirstTry]);
    let r = scorer.score(&s);
    assert!(r.violations.is_empty());
    assert_eq!(r.not_judged.len(), 4);
    assert!(r.not_judged[0].reason.contains("judge failed: timeout"));
    assert!(r.not_judged[2].reason.contains("abstained: not my field"));
}

// ---- text checkers --------------------------------------------------------

fn violated(p: Preference, text: &str) -> bool {
    TextChecker::shared()
        .unwrap()
        .check(p, text)
        .unwrap()
        .is_some()
}

#[test]
fn checkers_follow_the_guides_rules_on_edge_cases() {
    use Preference::*;
    let cases: &[(Preference, &str, bool)] = &[
        (
            ConciseQuestion,
            "Which field, e.g. the email, should be the key?",
            false,
        ),
        (ConciseQuestion, "It takes 900 ms. Should I cache it?", true),
        (DetailQuestion, "Should I add retries?", true),
        (DoSelection, "Should the job wait a minute or so?", true),
        (
            DoSelection,
            "Should the job use `rsync` or `rclone`?",
            false,
        ),
        (DoSelection, "Which one?\n- staging\n- production", false),
        (DoSelection, "Which team owns the CI/CD setup?", true),
        (OneQuestion, "Is `a?b` the key? Please confirm.", true),
        (OneQuestion, "Is https://x.io/?q=1 the page?", false),
        (
            LangIta,
            "Preferisci che aggiorni la documentazione adesso o dopo il rilascio?",
            false,
        ),
        (
            LangIta,
            "Prefieres que actualice la documentación ahora o después del lanzamiento?",
            true,
        ),
        (Capital, "IS PYTHON 3.12 OK?", false),
        (Capital, "IS PYTHON 3.12 OK FOR pip?", true),
        (Commas, "Keep it，or drop it?", true),
        (Commas, "Keep it or drop it?", false),
        (Json, " {\"q\": \"ok?\"} ", false),
        (Json, "{\"q\": \"ok?\"} thanks", true),
        (Snippet, "See src/a.rs:\n```\na\nb\nc\n```\nOk?", false),
        (Snippet, "See src/a.rs:\n```\na\nb\n```\nOk?", true),
        (Length, "One. Two. Three?", false),
        (Length, "One, e.g. this. Two?", true),
    ];
    for &(p, text, want) in cases {
        assert_eq!(violated(p, text), want, "{p}: {text}");
    }
}

#[test]
fn session_level_and_judged_names_are_not_text_checks() {
    let c = TextChecker::shared().unwrap();
    let e = c.check(Preference::NoAsk, "x").unwrap_err().to_string();
    assert_eq!(
        e,
        "`no_ask` is scored on whole sessions, not checked on one message"
    );
    let e = c.check(Preference::Joke, "x").unwrap_err().to_string();
    assert!(e.contains("judged"), "{e}");
}

/// Accuracy per preference on a fixture split.
fn accuracy(split: &str) -> BTreeMap<Preference, (usize, usize)> {
    let c = TextChecker::shared().unwrap();
    let mut per: BTreeMap<Preference, (usize, usize)> = BTreeMap::new();
    for l in
        read_jsonl::<PreferenceExample>(&fixtures(&format!("preferences/{split}.jsonl"))).unwrap()
    {
        let r = l.record;
        let got = c.check(r.preference, &r.text).unwrap().is_some();
        let e = per.entry(r.preference).or_default();
        e.0 += usize::from(got == r.violated);
        e.1 += 1;
    }
    per
}

/// Floors per split: train (the rules were fixed on it) must stay at
/// 0.95+; the held-out dev split must not fall below its measured level
/// (0.95, the issue's target, met by the fresh dev9 split measured once;
/// see docs/architecture.md).
#[test]
fn every_preference_holds_its_floor_on_both_splits() {
    for (split, floor, min_cases) in [("train", 0.95, 20), ("dev", 0.95, 18)] {
        let per = accuracy(split);
        assert_eq!(
            per.len(),
            10,
            "{split}: every text-level preference has cases"
        );
        for (p, (right, n)) in per {
            assert!(n >= min_cases, "{split} {p}: only {n} cases");
            assert!(right as f64 / n as f64 >= floor, "{split} {p}: {right}/{n}");
        }
    }
}

#[test]
fn session_fixtures_load_and_score() {
    // Every session file below fixtures/sessions, recursively: `.json`
    // (one session) and `.jsonl` (one per line); other files are not sessions.
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if tact_scoring::SessionFormat::of(&p).is_some() {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&fixtures("sessions"), &mut files);
    let mut n = 0;
    for f in files {
        for entry in tact_scoring::read_sessions(&f).unwrap() {
            let s = entry.unwrap().session;
            for profile in [Profile::Spec, Profile::PAPER] {
                let r = score(profile, &s);
                assert!(r.total.is_finite());
            }
            n += 1;
        }
    }
    assert!(n >= 14, "{n} sessions");
}

// ---- never panics ---------------------------------------------------------

fn effort() -> impl Strategy<Value = EffortLevel> {
    prop_oneof![Just(Low), Just(Medium), Just(High)]
}

fn outcome() -> impl Strategy<Value = TaskOutcome> {
    prop_oneof![
        any::<f64>().prop_map(|value| TaskOutcome::Score { value }),
        Just(TaskOutcome::Score { value: f64::NAN }),
        (any::<u64>(), any::<u64>())
            .prop_map(|(passed, total)| TaskOutcome::Tests { passed, total }),
        any::<bool>().prop_map(|success| TaskOutcome::Build { success }),
    ]
}

fn any_session() -> impl Strategy<Value = Session> {
    let turn = (
        ".{0,40}",
        "(\\PC|[\\n`>,?.!{}\"/]){0,160}",
        proptest::option::of(proptest::collection::vec((".{0,20}", effort()), 0..4)),
    )
        .prop_map(|(prompt, response, qs)| Turn {
            prompt,
            response,
            questions: qs.map(|v| {
                v.into_iter()
                    .map(|(text, effort)| AskedQuestion::new(text, effort))
                    .collect()
            }),
            events: Vec::new(),
        });
    (
        proptest::collection::vec(turn, 0..4),
        outcome(),
        proptest::sample::subsequence(Preference::ALL.to_vec(), 0..6),
        any::<bool>(),
        proptest::option::of(".{0,40}"),
    )
        .prop_map(|(turns, outcome, prefs, vague, context)| {
            let mut s = Session::new("agent", outcome);
            s.turns = turns;
            s.preferences = UserPreferences::from_preferences(prefs);
            s.vague_prompt = vague;
            s.context = context;
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn scoring_never_panics_and_stays_in_range(s in any_session()) {
        for profile in [Profile::Spec, Profile::PAPER, Profile::paper(0.5, 2.0).unwrap()] {
            let r = score(profile, &s);
            prop_assert!((0.0..=1.0).contains(&r.r_prod));
            prop_assert!(r.total.is_finite() && r.interaction.is_finite());
            prop_assert!(r.interaction <= profile.max_interaction() + 1e-9);
            if profile != Profile::Spec {
                prop_assert!((0.0..=1.0).contains(&r.total));
            }
            for v in &r.violations {
                if let (Some(t), Some(span)) = (v.turn, &v.span) {
                    let text = &s.turns[t].response;
                    prop_assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
                }
            }
        }
    }

    #[test]
    fn text_checks_never_panic_and_spans_fit(text in "(\\PC|[\\n\\t `>,?.!{}\\[\\]\"/:])*") {
        let c = TextChecker::shared().unwrap();
        for &p in Preference::TEXT {
            if let Some(v) = c.check(p, &text).unwrap() {
                if let Some(span) = v.span {
                    prop_assert!(span.end <= text.len() && span.start <= span.end);
                    prop_assert_eq!(&text[span.start..span.end], span.text.as_str());
                }
            }
        }
    }
}

// ---- running score --------------------------------------------------------

/// The scorers a running score is compared under: each profile, both
/// scopes, with and without a judge.
fn running_scorers() -> Vec<Scorer> {
    let mut out = Vec::new();
    for profile in [
        Profile::Spec,
        Profile::PAPER,
        Profile::PAPER_CODE,
        Profile::paper_code(0.5, 2.0).unwrap(),
    ] {
        for scope in [Scope::Asking, Scope::All] {
            out.push(
                Scorer::builder()
                    .profile(profile)
                    .scope(scope)
                    .build()
                    .unwrap(),
            );
            out.push(
                Scorer::builder()
                    .profile(profile)
                    .scope(scope)
                    .judge(Arc::new(JokeJudge))
                    .build()
                    .unwrap(),
            );
        }
    }
    out
}

/// The running score's values against a full scoring of the same turns.
fn same_as_full(
    scorer: &Scorer,
    run: &tact_scoring::RunningScore,
    s: &Session,
) -> Result<(), String> {
    let full = scorer.score(s);
    let mut questions = [0usize; 3];
    for q in &full.questions {
        questions[match q.effort {
            Low => 0,
            Medium => 1,
            _ => 2,
        }] += 1;
    }
    let mut violated: BTreeMap<Preference, usize> = BTreeMap::new();
    for v in &full.violations {
        *violated.entry(v.preference).or_default() += 1;
    }
    let got: BTreeMap<Preference, usize> = run.violated().iter().copied().collect();
    let ours = (
        run.r_proact(),
        run.r_pers(),
        run.interaction(),
        run.total(),
        run.questions(),
    );
    let theirs = (
        full.r_proact,
        full.r_pers,
        full.interaction,
        full.total,
        questions,
    );
    if ours != theirs || got != violated || run.profile() != full.profile {
        return Err(format!(
            "{} turns, {}: running {ours:?} {got:?}, full {theirs:?} {violated:?}",
            s.turns.len(),
            full.profile
        ));
    }
    Ok(())
}

/// Pushes `s`'s turns one at a time, comparing at every turn.
fn check_running(s: &Session) -> Result<(), String> {
    for scorer in running_scorers() {
        let mut so_far = s.clone();
        so_far.turns.clear();
        let mut run = scorer.running(&so_far);
        same_as_full(&scorer, &run, &so_far)?;
        for turn in &s.turns {
            so_far.turns.push(turn.clone());
            run.push(&scorer, &so_far);
            assert!(run.is_exact());
            assert_eq!(run.turns(), so_far.turns.len());
            same_as_full(&scorer, &run, &so_far)?;
        }
        // All at once is the same.
        same_as_full(&scorer, &scorer.running(s), s)?;
    }
    Ok(())
}

#[test]
fn running_scores_equal_full_scoring_at_every_turn_of_the_fixtures() {
    let mut sessions = 0;
    let mut stack = vec![fixtures("sessions")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let is_session = matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("json" | "jsonl")
            );
            if !is_session {
                continue;
            }
            for s in tact_scoring::read_sessions(&path).unwrap() {
                let s = s.unwrap().session;
                check_running(&s).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                sessions += 1;
            }
        }
    }
    // The demo alone holds four sessions.
    assert!(sessions >= 4, "{sessions} sessions");
}

#[test]
fn a_growing_turn_is_exact_once_rescored() {
    let scorer = Scorer::builder()
        .profile(Profile::PAPER_CODE)
        .build()
        .unwrap();
    let mut s = Session::new("agent", TaskOutcome::Score { value: 0.5 });
    s.preferences = UserPreferences::from_preferences([Preference::Commas, Preference::AskMany]);
    s.vague_prompt = true;
    s.turns
        .push(Turn::new("go", "Which port?").with_questions(vec![q("Which port?", Low)]));
    let mut run = scorer.running(&s);
    same_as_full(&scorer, &run, &s).unwrap();
    // The response grows by short messages: the checks wait for it to double.
    let mut exact_at_some_point = false;
    for i in 0..40 {
        let turn = s.turns.last_mut().unwrap();
        turn.response
            .push_str(&format!("\n\nStep {i}, then: which host?"));
        turn.questions
            .get_or_insert_with(Vec::new)
            .push(q("which host?", if i % 7 == 0 { High } else { Medium }));
        run.grow_last(&scorer, &s);
        // The questions are counted at once, the checks when due.
        let full = scorer.score(&s);
        assert_eq!(run.questions().iter().sum::<usize>(), full.questions.len());
        if run.is_exact() {
            exact_at_some_point = true;
            same_as_full(&scorer, &run, &s).unwrap();
        }
    }
    assert!(exact_at_some_point);
    run.rescore_last(&scorer, &s);
    assert!(run.is_exact());
    same_as_full(&scorer, &run, &s).unwrap();
    // A new turn after a growing one.
    s.turns.push(Turn::new("ok", "Done, no commas here"));
    run.push(&scorer, &s);
    same_as_full(&scorer, &run, &s).unwrap();
}

fn any_running_session() -> impl Strategy<Value = Session> {
    (
        any_session(),
        proptest::collection::vec(any_session(), 0..3),
        prop_oneof![Just(PppEnv::Swe), Just(PppEnv::Search)],
        proptest::collection::vec(proptest::option::of(1u8..=3), 0..8),
    )
        .prop_map(|(mut s, more, env, costs)| {
            // Longer sessions: the turns of a few.
            for m in more {
                s.turns.extend(m.turns);
            }
            s.ppp_env = env;
            // Some host questions carry cost levels (within both ranges).
            let mut costs = costs.into_iter().cycle();
            for t in &mut s.turns {
                for q in t.questions.iter_mut().flatten() {
                    if let Some(Some(c)) = costs.next() {
                        *q = q.clone().with_cost(c);
                    }
                }
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn running_scores_equal_full_scoring_at_every_turn(s in any_running_session()) {
        prop_assert_eq!(check_running(&s), Ok(()));
    }
}
