//! A session scored turn by turn (`PerTurn`) gives what scoring it whole
//! gives: the same questions, violations (in order), abstentions, cost
//! levels and rewards, on every session fixture and on generated
//! sessions, under every profile, both scopes, with and without a judge.

use super::*;
use crate::running::{any_running_session, fixture_sessions, running_scorers};

/// A judge whose verdict names the turn's prompt: a per-turn judge given
/// another prompt than the whole session's gives another violation.
struct PromptJudge;

impl Judge for PromptJudge {
    fn name(&self) -> &str {
        "prompt-judge"
    }

    fn judge(&self, r: &JudgeRequest<'_>) -> Result<Verdict, Error> {
        match r.prompt.len() % 3 {
            0 => Ok(Verdict::Respected),
            1 => Ok(Verdict::Violated {
                actual: format!("to {:?}: {} bytes", r.prompt, r.message.len()),
                span: None,
            }),
            _ => Ok(Verdict::Abstain {
                reason: format!("turn {} of {}", r.turn, r.session.agent),
            }),
        }
    }
}

/// Scores `s` turn by turn: the turns' evidence gathered as a whole
/// scoring reports it.
fn by_turns(scorer: &Scorer, s: &Session) -> SessionScore {
    let mut per_turn = scorer.per_turn(s);
    let (mut questions, mut violations, mut not_judged, mut levels) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for t in &s.turns {
        let scored = per_turn.turn(scorer, t);
        questions.extend(scored.questions);
        violations.extend(scored.violations);
        not_judged.extend(scored.not_judged);
        levels.extend(scored.cost_level);
    }
    assert_eq!(per_turn.turns(), s.turns.len());
    let mut end = per_turn.score(scorer);
    violations.append(&mut end.violations);
    not_judged.append(&mut end.not_judged);
    // A whole scoring lists abstentions preference by preference.
    let prefs = s.preferences.all();
    let rank = |p: Preference| prefs.iter().position(|&q| q == p);
    not_judged.sort_by_key(|n| rank(n.preference));
    end.questions = questions;
    end.violations = violations;
    end.not_judged = not_judged;
    if scorer.profile().name() == "paper-code" {
        end.cost_levels = levels;
    }
    end
}

/// The two scorings of `s` under every scorer; the adjustments' details
/// (which list the ask levels in a whole scoring) aside.
fn check_per_turn(s: &Session) -> Result<(), String> {
    let mut scorers = running_scorers();
    scorers.push(
        Scorer::builder()
            .scope(Scope::All)
            .judge(Arc::new(PromptJudge))
            .build()
            .unwrap(),
    );
    for scorer in scorers {
        let whole = scorer.score(s);
        let mut turns = by_turns(&scorer, s);
        let rules = |r: &SessionScore| -> Vec<(String, u64)> {
            r.adjustments
                .iter()
                .map(|a| (a.rule.clone(), a.amount.to_bits()))
                .collect()
        };
        if rules(&turns) != rules(&whole) {
            return Err(format!(
                "{}: adjustments {:?} against {:?}",
                whole.profile, turns.adjustments, whole.adjustments
            ));
        }
        turns.adjustments.clone_from(&whole.adjustments);
        if turns != whole {
            return Err(format!(
                "{} turns, {}: by turns {turns:?}, whole {whole:?}",
                s.turns.len(),
                whole.profile
            ));
        }
    }
    Ok(())
}

#[test]
fn per_turn_scores_equal_whole_scoring_on_the_fixtures() {
    for (path, s) in fixture_sessions() {
        check_per_turn(&s).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

#[test]
fn a_late_context_is_reported_once_a_question_was_classified() {
    let scorer = Scorer::builder().build().unwrap();
    let s = Session::new("agent", TaskOutcome::Score { value: 1.0 });
    let mut per_turn = scorer.per_turn(&s);
    per_turn.turn(&scorer, &Turn::new("go", "Done."));
    assert!(!per_turn.set_context(Some("Fix the parser".into())));
    assert_eq!(per_turn.context(), Some("Fix the parser"));
    per_turn.turn(&scorer, &Turn::new("go", "Which parser should I fix?"));
    assert!(per_turn.set_context(None));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn per_turn_scores_equal_whole_scoring(s in any_running_session()) {
        prop_assert_eq!(check_per_turn(&s), Ok(()));
    }
}
