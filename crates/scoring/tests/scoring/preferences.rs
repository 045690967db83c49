//! Session-level preferences and the judge contract.

use super::*;

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

pub(crate) struct JokeJudge;

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
