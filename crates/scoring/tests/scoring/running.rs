//! The running score of a session in progress.

use super::*;
use crate::checkers::any_session;
use crate::preferences::JokeJudge;

// ---- running score --------------------------------------------------------

/// The scorers a running score is compared under: each profile, both
/// scopes, with and without a judge.
pub(crate) fn running_scorers() -> Vec<Scorer> {
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

/// Every session of the session fixtures, with its file.
pub(crate) fn fixture_sessions() -> Vec<(PathBuf, Session)> {
    let mut out = Vec::new();
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
                out.push((path.clone(), s.unwrap().session));
            }
        }
    }
    // The demo alone holds four sessions.
    assert!(out.len() >= 4, "{} sessions", out.len());
    out
}

#[test]
fn running_scores_equal_full_scoring_at_every_turn_of_the_fixtures() {
    for (path, s) in fixture_sessions() {
        check_running(&s).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
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

pub(crate) fn any_running_session() -> impl Strategy<Value = Session> {
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
