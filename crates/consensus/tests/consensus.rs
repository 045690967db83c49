//! The integration-test binary of tact-consensus: SPEC-PPP-003's example
//! on session fixtures, per-stage weights, normalization, deterministic
//! ties, the legacy mode, clear errors, and property tests that consensus
//! never panics (NaN and infinities included).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use proptest::prelude::*;
use tact_consensus::{
    Candidate, Consensus, Decision, Error, LegacyStatus, Normalization, PppConfig, Weights,
    weighted_consensus,
};
use tact_scoring::Session;

fn sessions(dir: &str) -> Vec<Session> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/sessions")
        .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files.iter().map(|f| Session::read(f).unwrap()).collect()
}

fn config(toml: &str) -> PppConfig {
    PppConfig::from_toml(toml, None).unwrap()
}

#[track_caller]
fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

fn weighted(d: Decision) -> tact_consensus::WeightedConsensus {
    match d {
        Decision::Weighted { consensus, .. } => consensus,
        _ => panic!("expected a weighted decision"),
    }
}

#[test]
fn the_specs_example_b_beats_a_0645_to_025() {
    let c = Consensus::new(&PppConfig::default()).unwrap();
    let d = c.decide(&sessions("spec_example"), None).unwrap();
    let Decision::Weighted {
        stage,
        profile,
        consensus,
        sessions,
    } = d
    else {
        panic!("weighted");
    };
    assert_eq!(
        (stage.as_deref(), profile.as_str()),
        (Some("implement"), "spec")
    );
    // A: three high-effort questions, R_Proact -1.5; B: none, +0.05.
    close(sessions[0].interaction, -1.5);
    close(sessions[1].interaction, 0.05);
    assert_eq!(consensus.best_agent, "agent_b");
    close(consensus.scores[0].final_score, 0.645);
    close(consensus.scores[1].final_score, 0.25);
    close(consensus.confidence.score, 0.645);
    close(consensus.confidence.margin.unwrap(), 0.395);
    assert_eq!(consensus.scores[1].agent, "agent_a");
    assert_eq!(
        (consensus.technical_weight, consensus.interaction_weight),
        (0.7, 0.3)
    );
}

#[test]
fn stage_weights_apply_and_unknown_stages_are_errors() {
    let c = Consensus::new(&PppConfig::default()).unwrap();
    let w = weighted(c.decide(&sessions("plan_italian"), None).unwrap());
    assert_eq!((w.technical_weight, w.interaction_weight), (0.6, 0.4));
    // Agent B asked in Italian without commas; A in English with a comma.
    assert_eq!(w.best_agent, "agent_b");
    let err = c
        .decide(&sessions("spec_example"), Some("deploy"))
        .unwrap_err();
    assert!(matches!(err, Error::Empty), "{err}");
    let mut s = sessions("spec_example");
    for x in &mut s {
        x.stage = Some("deploy".into());
    }
    let err = c.decide(&s, None).unwrap_err().to_string();
    assert!(err.contains("unknown stage `deploy`"), "{err}");
}

#[test]
fn mixed_specs_or_stages_are_refused_and_a_stage_filters() {
    let c = Consensus::new(&PppConfig::default()).unwrap();
    let mut all = sessions("spec_example");
    all.extend(sessions("review_conflict"));
    let err = c.decide(&all, None).unwrap_err().to_string();
    assert!(err.contains("sessions mix specs"), "{err}");
    let mut mixed = sessions("spec_example");
    mixed[0].stage = Some("plan".into());
    let err = c.decide(&mixed, None).unwrap_err().to_string();
    assert!(
        err.contains("sessions mix stages: implement, plan"),
        "{err}"
    );
    let w = weighted(c.decide(&mixed, Some("plan")).unwrap());
    assert_eq!(w.scores.len(), 1);
    assert_eq!(w.best_agent, "agent_a");
}

#[test]
fn normalization_maps_interaction_onto_the_unit_interval() {
    let c = Consensus::new(&config(
        "[ppp]\nnormalize = \"linear\"\ninteraction_floor = -1.0\n",
    ))
    .unwrap();
    let w = weighted(c.decide(&sessions("spec_example"), None).unwrap());
    // B: (0.05 + 1) / (0.10 + 1); A: -1.5 is below the floor, 0.
    let b = &w.scores[0];
    close(b.normalized_interaction.unwrap(), 1.05 / 1.1);
    close(b.final_score, 0.7 * 0.9 + 0.3 * 1.05 / 1.1);
    close(w.scores[1].normalized_interaction.unwrap(), 0.0);
    close(w.scores[1].final_score, 0.7);
    assert_eq!(w.best_agent, "agent_b");
    for s in &w.scores {
        assert!((0.0..=1.0).contains(&s.normalized_interaction.unwrap()));
    }
}

#[test]
fn ties_break_on_technical_then_interaction_then_name() {
    let cand = |agent: &str, technical: f64, interaction: f64| Candidate {
        agent: agent.into(),
        technical,
        interaction,
    };
    // Same final score (0.7 * 0.5 + 0.3 * 0.5 = 0.7 * 0.2 + 0.3 * 1.2).
    let r = weighted_consensus(
        &[cand("b", 0.5, 0.5), cand("a", 0.2, 1.2)],
        Weights::DEFAULT,
        Normalization::None,
    )
    .unwrap();
    assert_eq!(r.best_agent, "b", "higher technical wins a tie");
    close(r.confidence.margin.unwrap(), 0.0);
    let r = weighted_consensus(
        &[cand("zed", 0.5, 0.5), cand("amy", 0.5, 0.5)],
        Weights::DEFAULT,
        Normalization::None,
    )
    .unwrap();
    assert_eq!(r.best_agent, "amy", "then the name");
    let ranks: Vec<usize> = r.scores.iter().map(|s| s.rank).collect();
    assert_eq!(ranks, [1, 2]);
    let one = weighted_consensus(
        &[cand("solo", 1.0, 0.0)],
        Weights::DEFAULT,
        Normalization::None,
    )
    .unwrap();
    assert_eq!(one.confidence.margin, None);
}

#[test]
fn bad_input_gives_clear_errors() {
    let cand = |agent: &str, technical: f64, interaction: f64| Candidate {
        agent: agent.into(),
        technical,
        interaction,
    };
    let run = |c: &[Candidate]| {
        weighted_consensus(c, Weights::DEFAULT, Normalization::None)
            .unwrap_err()
            .to_string()
    };
    assert!(run(&[]).contains("no candidates"));
    assert!(run(&[cand("a", f64::NAN, 0.0)]).contains("invalid technical score NaN for agent `a`"));
    assert!(run(&[cand("a", 1.5, 0.0)]).contains("invalid technical score 1.5"));
    assert!(run(&[cand("a", 1.0, f64::NEG_INFINITY)]).contains("invalid interaction score -inf"));
    assert!(run(&[cand("a", 1.0, 0.0), cand("a", 0.5, 0.0)]).contains("agent `a` appears twice"));
    assert!(run(&[cand(" ", 1.0, 0.0)]).contains("agent name is empty"));
    assert!(
        Weights::new(0.7, f64::INFINITY, "ppp")
            .unwrap_err()
            .to_string()
            .contains("ppp.interaction_weight")
    );
    assert!(
        Weights::new(0.5, 0.4, "ppp")
            .unwrap_err()
            .to_string()
            .contains("sum to 0.9")
    );
    let bad = Normalization::Linear {
        floor: f64::NAN,
        ceiling: 0.1,
    };
    assert!(weighted_consensus(&[cand("a", 1.0, 0.0)], Weights::DEFAULT, bad).is_err());
    let c = Consensus::new(&PppConfig::default()).unwrap();
    assert!(matches!(c.decide(&[], None), Err(Error::Empty)));
}

#[test]
fn disabled_ppp_runs_the_legacy_binary_consensus() {
    let c = Consensus::new(&config("[ppp]\nenabled = false\n")).unwrap();
    let Decision::Legacy { stage, consensus } =
        c.decide(&sessions("review_conflict"), None).unwrap()
    else {
        panic!("legacy");
    };
    assert_eq!(stage.as_deref(), Some("validate"));
    assert_eq!(consensus.status, LegacyStatus::Conflict);
    assert_eq!(consensus.verdict.as_deref(), Some("approve"));
    assert_eq!(consensus.groups["changes_requested"], ["agent_c"]);
    let Decision::Legacy { consensus, .. } = c.decide(&sessions("spec_example"), None).unwrap()
    else {
        panic!("legacy");
    };
    assert_eq!(consensus.status, LegacyStatus::Ok);
    let mut s = sessions("spec_example");
    s[1].verdict = None;
    let Decision::Legacy { consensus, .. } = c.decide(&s, None).unwrap() else {
        panic!("legacy");
    };
    assert_eq!(
        (consensus.status, consensus.missing.as_slice()),
        (LegacyStatus::Degraded, &["agent_b".to_owned()][..])
    );
}

#[test]
fn the_paper_profile_can_rank_too() {
    let c = Consensus::new(&config("[ppp]\nprofile = \"paper\"\n")).unwrap();
    let Decision::Weighted {
        profile, consensus, ..
    } = c.decide(&sessions("plan_italian"), None).unwrap()
    else {
        panic!("weighted");
    };
    assert_eq!(profile, "paper");
    assert_eq!(consensus.best_agent, "agent_b");
}

fn any_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>(),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        -2.0..2.0f64,
        0.0..=1.0f64,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn weighted_consensus_never_panics(
        cands in proptest::collection::vec(("[a-d]{0,2}", any_f64(), any_f64()), 0..6),
        wt in any_f64(),
        wi in any_f64(),
        floor in any_f64(),
        ceiling in any_f64(),
        linear in any::<bool>(),
    ) {
        let candidates: Vec<Candidate> = cands
            .into_iter()
            .map(|(agent, technical, interaction)| Candidate { agent, technical, interaction })
            .collect();
        let normalization = if linear { Normalization::Linear { floor, ceiling } } else { Normalization::None };
        let Ok(weights) = Weights::new(wt, wi, "ppp") else { return Ok(()); };
        if let Ok(r) = weighted_consensus(&candidates, weights, normalization) {
            prop_assert_eq!(r.scores.len(), candidates.len());
            prop_assert_eq!(&r.scores[0].agent, &r.best_agent);
            prop_assert!(r.confidence.score.is_finite());
            prop_assert!(r.confidence.margin.is_none_or(|m| m >= -1e-6));
            prop_assert!(r.scores.windows(2).all(|w| w[0].final_score >= w[1].final_score - 1e-6));
            if linear {
                for s in &r.scores {
                    let n = s.normalized_interaction.unwrap();
                    prop_assert!((0.0..=1.0).contains(&n));
                    prop_assert!((0.0..=1.0).contains(&s.final_score));
                }
            }
        }
    }

    #[test]
    fn configs_and_decisions_never_panic(
        t in any_f64(), i in any_f64(), floor in any_f64(), enabled in any::<bool>(),
        stage in proptest::option::of("(plan|audit|nowhere)"),
        technical in proptest::collection::vec(any_f64(), 0..4),
    ) {
        let mut cfg = PppConfig::default();
        cfg.enabled = enabled;
        cfg.technical_weight = t;
        cfg.interaction_weight = i;
        cfg.normalize = "linear".into();
        cfg.interaction_floor = floor;
        let Ok(c) = Consensus::new(&cfg) else { return Ok(()); };
        let sessions: Vec<Session> = technical
            .iter()
            .enumerate()
            .map(|(k, &value)| Session::new(format!("agent{k}"), tact_scoring::TaskOutcome::Score { value }))
            .collect();
        let _ = c.decide(&sessions, stage.as_deref());
    }
}

/// The README's library example, kept compiling and running.
#[test]
fn the_readme_example_runs() -> Result<(), Box<dyn std::error::Error>> {
    use tact_scoring::{Preference, Scorer, TaskOutcome, TextChecker, Turn, UserPreferences};

    let checker = TextChecker::new()?;
    assert!(
        checker
            .check(Preference::Json, "{\"question\": \"Retry?\"}")?
            .is_none()
    );

    let mut a = Session::new(
        "agent_a",
        TaskOutcome::Tests {
            passed: 10,
            total: 10,
        },
    );
    a.preferences = UserPreferences::none().with(Preference::Commas);
    a.turns.push(Turn::new(
        "Speed up the export.",
        "I looked at it. Should I parallelize the dumps, or switch to Parquet?",
    ));
    let score = Scorer::builder().build()?.score(&a);
    assert_eq!(score.violations.len(), 1);

    let config = PppConfig::from_toml("[ppp]\nnormalize = \"linear\"\n", Some("tact.toml"))?;
    let b = Session::new(
        "agent_b",
        TaskOutcome::Tests {
            passed: 9,
            total: 10,
        },
    );
    let Decision::Weighted { consensus, .. } =
        Consensus::new(&config)?.decide(&[a, b], Some("plan"))?
    else {
        panic!("weighted");
    };
    // A: 0.6 * 1 + 0.4 * (0.05 - 0.05 + 1) / 1.1; B: 0.6 * 0.9 + 0.4 * (0.05 + 1) / 1.1.
    assert_eq!(consensus.best_agent, "agent_a");
    close(
        consensus.confidence.margin.unwrap(),
        0.06 - 0.4 * 0.05 / 1.1,
    );
    Ok(())
}
