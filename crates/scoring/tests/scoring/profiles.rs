//! The `spec`, `paper` and `paper-code` profiles, rule by rule, and `paper-code` against the released code's conformance table.

use super::*;

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
