//! Granularity classifier: the labelling guide's shapes and the design's
//! known flaws, calibrated confidence and ambiguity, scoring-method
//! selection per level (configured in code and through an injected
//! environment), fixture-driven quality floors, and property tests.

use crate::common::{self, fixtures};
use std::collections::HashMap;

use proptest::prelude::*;
use tact_classifiers::granularity::{
    EVIDENCE_FLOOR, GranularityClassifier, MIN_GAP, ScoringConfig, Strategy,
};
use tact_core::dataset::read_jsonl;
use tact_types::Granularity::{self, FineGrained, Holistic};
use tact_types::dataset::GranularityExample;
use tact_types::{Label, ScoringMethod};

fn classifier() -> &'static GranularityClassifier {
    GranularityClassifier::shared().unwrap()
}

/// The heuristic alone (the default hybrid hands its unsure cases to the
/// model, whose confidence follows other rules).
fn heuristic() -> GranularityClassifier {
    GranularityClassifier::builder()
        .strategy(Strategy::Heuristic)
        .build()
        .unwrap()
}

fn seed() -> GranularityClassifier {
    GranularityClassifier::builder()
        .strategy(Strategy::Seed)
        .build()
        .unwrap()
}

#[track_caller]
fn assert_label(q: &str, want: Granularity) {
    let d = classifier().classify(q);
    assert_eq!(d.label(), want, "{q}: {:?}", d.classification.reasons);
    assert!((0.0..=1.0).contains(&d.confidence()));
    assert!(!d.classification.reasons.is_empty(), "{q}: no reasons");
}

#[test]
fn the_guides_examples() {
    // "When a query has both, the label follows what the answer must mainly contain."
    assert_label("Why is the p-value in Table 3 so low?", Holistic);
    assert_label("What is the p-value in Table 3?", FineGrained);
    assert_label("Summarize the related work section", Holistic);
    assert_label("When was the dataset released?", FineGrained);
    assert_label(
        "What are the limitations the authors acknowledge?",
        Holistic,
    );
}

#[test]
fn assistant_queries_follow_the_guides_common_shapes() {
    // A procedure to follow, a substitution or a safety question to judge.
    for q in [
        "what do i do to reset my online banking password",
        "could you tell me how to dispute a charge",
        "what is the procedure for reporting a stolen card",
        "can i use greek yogurt instead of sour cream",
        "is it safe to drink tap water in lisbon",
        "where should i travel for a quiet beach holiday",
        "Should schools ban phones in class?",
        "do you think remote work raises productivity",
        "what to do with kids in lisbon this weekend",
    ] {
        assert_label(q, Holistic);
    }
    // A spelling, a word in another language, an account's balance.
    for q in [
        "how do you spell necessary",
        "how do you say thank you in japanese",
        "¿cómo se escribe otorrinolaringólogo?",
        "wie ist mein Kontostand",
        "what's the balance on my visa card",
        "do i have enough money in my savings account for rent",
    ] {
        assert_label(q, FineGrained);
    }
    // The hybrid keeps a procedure from the model, which reads these two
    // as fine-grained.
    for q in [
        "what do i do to change the date of my card payment",
        "what is the procedure to raise the limit on my card",
    ] {
        assert_kept_by_the_hybrid(q, Holistic);
    }
}

/// The default (hybrid) classifier labels `q` as `want`, keeping the
/// heuristic's decision from the model.
fn assert_kept_by_the_hybrid(q: &str, want: tact_types::Granularity) {
    let d = classifier().classify(q);
    assert_eq!(d.label(), want, "{q}");
    assert_eq!(
        d.classification.tier,
        Some(tact_types::Tier::Heuristic),
        "{q}"
    );
}

#[test]
fn tasks_and_own_records_stay_fine_grained_unless_they_ask_for_understanding() {
    // Kept from the model, which met "can you" before "explain" and
    // "summarize" only, and questions about the user's own records, which
    // it hardly met at all.
    for q in [
        "can you set an alarm for 7 am tomorrow",
        "could you turn the volume down a bit",
        "would you read me my last message",
        "what are my upcoming dentist appointments",
        "what are my streaming subscriptions",
        "what were my medical expenses in march",
    ] {
        assert_kept_by_the_hybrid(q, FineGrained);
    }
    assert_label("Can you explain why the build takes so long?", Holistic);
    assert_label("why do my builds take so long", Holistic);
    assert_label("Could you summarize the design document?", Holistic);
}

#[test]
fn main_idea_questions_are_holistic_although_they_say_what_is_the() {
    assert_label("What is the main idea of the chapter?", Holistic);
    assert_label("What is the central argument of the essay?", Holistic);
    assert_label("What is the key insight behind the method?", Holistic);
    // The seed ties "what is the" against "main idea" and picks fine-grained.
    assert_eq!(
        seed()
            .classify("What is the main idea of the chapter?")
            .label(),
        FineGrained
    );
    // "main" modifying a value is still a value.
    assert_label(
        "What is the main dataset used for pretraining?",
        FineGrained,
    );
}

#[test]
fn imperatives_follow_what_they_ask_for() {
    assert_label("List the hyperparameters used for fine-tuning", FineGrained);
    assert_label("Name the datasets used for evaluation", FineGrained);
    assert_label("Quote the termination clause", FineGrained);
    assert_label("Find step 4 of the installation guide", FineGrained);
    assert_label("Walk me through the installation", Holistic);
    assert_label("Explain the retry policy", Holistic);
    // A holistic object wins over a fine-grained verb.
    assert_label("List the main arguments against the proposal", Holistic);
}

#[test]
fn how_many_is_a_quantity_and_how_does_an_explanation() {
    assert_label("How many layers does the encoder have?", FineGrained);
    assert_label("How much did revenue grow in 2023?", FineGrained);
    assert_label("How does the encoder handle long inputs?", Holistic);
    assert_label("How do the authors justify the sample size?", Holistic);
}

#[test]
fn tables_and_numbers_asked_why_are_holistic() {
    assert_label(
        "Why does accuracy drop in the last row of Table 2?",
        Holistic,
    );
    assert_label("Why did margins fall in 2022?", Holistic);
    assert_label("What does Figure 3 tell us about overfitting?", Holistic);
    assert_label(
        "What accuracy does Figure 3 show at 10k steps?",
        FineGrained,
    );
}

#[test]
fn definitions_are_fine_grained_even_when_phrased_with_explain() {
    assert_label("Explain what the abbreviation SLA stands for", FineGrained);
    assert_label("Define exposure bias", FineGrained);
    assert_label("Explain the intuition behind exposure bias", Holistic);
}

#[test]
fn german_and_spanish_cues() {
    assert_label("Wie viele Teilnehmer hatte die Studie?", FineGrained);
    assert_label("Fasse die Ergebnisse zusammen", Holistic);
    assert_label("Warum ist der Fehler so hoch?", Holistic);
    assert_label("Welche Lernrate wurde verwendet?", FineGrained);
    assert_label("¿Cuántos empleados tiene la empresa?", FineGrained);
    assert_label("¿Por qué bajó el margen?", Holistic);
    assert_label("Resume las conclusiones del informe", Holistic);
    assert_label("¿Qué puerto usa el servidor?", FineGrained);
}

#[test]
fn confidence_is_calibrated_not_max_over_total() {
    // One weak hit: the seed's max/total says 1.0; the default is unsure.
    let heuristic = heuristic();
    let q = "overall numbers please";
    assert_eq!(seed().classify(q).confidence(), 1.0);
    let d = heuristic.classify(q);
    assert!(d.confidence() < 0.8, "{}", d.confidence());
    // Strong, one-sided evidence is confident and not ambiguous.
    let d = heuristic.classify("Summarize and explain why the authors changed their approach");
    assert_eq!(d.label(), Holistic);
    assert!(d.confidence() > 0.9 && !d.ambiguous, "{d:?}");
    // No evidence at all: the cheaper fine-grained path, flagged ambiguous.
    let d = heuristic.classify("zzz qqq");
    assert_eq!(d.label(), FineGrained);
    assert!(d.ambiguous);
    assert_eq!(d.confidence(), 0.5);
    assert!(
        d.classification
            .reasons
            .iter()
            .any(|r| r.cue == "tie_to_fine_grained")
    );
    // Ambiguity follows the documented floor and gap.
    for q in [
        "What is the p-value in Table 3?",
        "Explain the results",
        "rent amount",
        "Why is the p-value in Table 3 so low?",
    ] {
        let d = heuristic.classify(q);
        let e = d.evidence;
        let expected = e.fine_grained + e.holistic < EVIDENCE_FLOOR
            || (e.fine_grained - e.holistic).abs() < MIN_GAP;
        assert_eq!(d.ambiguous, expected, "{q}: {e:?}");
        assert!(e.fine_grained >= 0.0 && e.holistic >= 0.0);
    }
}

#[test]
fn reasons_are_signed_for_the_decided_label() {
    let d = classifier().classify("Why is the p-value in Table 3 so low?");
    let first = &d.classification.reasons[0];
    assert_eq!(first.cue, "reasoning");
    assert!(first.weight > 0.0);
    assert!(d.classification.reasons.iter().any(|r| r.weight < 0.0));
}

#[test]
fn adaptive_levels_pick_multi_vector_or_llm() {
    let c = classifier();
    let config = ScoringConfig::default();
    let fine = c.select_scoring(&config, 2, "What dropout rate was used?");
    assert_eq!(fine.method, ScoringMethod::MultiVector);
    assert_eq!(fine.configured, ScoringMethod::Adaptive);
    assert_eq!(fine.granularity.as_ref().unwrap().label(), FineGrained);
    let holistic = c.select_scoring(
        &config,
        5,
        "Summarize the discussion and explain why it matters",
    );
    assert_eq!(holistic.method, ScoringMethod::Llm);
    // Ambiguous decisions take the cheaper path even when leaning holistic
    // (the heuristic's: the learned model may be sure of this one).
    let c = GranularityClassifier::builder()
        .strategy(Strategy::Heuristic)
        .build()
        .unwrap();
    let q = "overall numbers please";
    let d = c.classify(q);
    assert!(d.ambiguous);
    assert_eq!(
        c.select_scoring(&config, 2, q).method,
        ScoringMethod::MultiVector
    );
    // Non-adaptive levels do not classify.
    let fixed = c.select_scoring(&config, 0, "Summarize the paper");
    assert_eq!(fixed.method, ScoringMethod::DenseSparse);
    assert!(fixed.granularity.is_none());
    let forced = ScoringConfig::new([ScoringMethod::Llm]);
    assert_eq!(
        c.select_scoring(&forced, 7, "What port?").method,
        ScoringMethod::Llm
    );
}

#[test]
fn levels_are_configured_through_an_injected_environment() {
    let env: HashMap<&str, &str> = [
        ("RECURSIVE_LLM_LEVEL_0_SCORING_METHOD", "llm"),
        ("RECURSIVE_LLM_LEVEL_1_SCORING_METHOD", " "),
        ("RECURSIVE_LLM_LEVEL_4_SCORING_METHOD", "Multi-Vector"),
    ]
    .into_iter()
    .collect();
    let config = ScoringConfig::from_lookup(|k| env.get(k).map(|v| (*v).to_owned())).unwrap();
    assert_eq!(
        config.levels(),
        [
            ScoringMethod::Llm,
            ScoringMethod::DenseSparse,
            ScoringMethod::Adaptive,
            ScoringMethod::Adaptive,
            ScoringMethod::MultiVector
        ]
    );
    assert_eq!(config.method_for(9), ScoringMethod::MultiVector);
    let bad = ScoringConfig::from_lookup(|k| {
        (k == "RECURSIVE_LLM_LEVEL_2_SCORING_METHOD").then(|| "bm25".to_owned())
    })
    .unwrap_err();
    let msg = bad.to_string();
    assert!(
        msg.contains("RECURSIVE_LLM_LEVEL_2_SCORING_METHOD") && msg.contains("bm25"),
        "{msg}"
    );
    assert_eq!(
        ScoringConfig::from_lookup(|_| None).unwrap(),
        ScoringConfig::default()
    );
}

#[test]
fn strategies_parse_by_name() {
    assert_eq!("seed".parse::<Strategy>().unwrap(), Strategy::Seed);
    assert_eq!("default".parse::<Strategy>().unwrap(), Strategy::Hybrid);
    let err = "oracle".parse::<Strategy>().unwrap_err().to_string();
    assert!(err.contains("granularity"), "{err}");
    assert_eq!(seed().strategy(), Strategy::Seed);
}

fn macro_f1(path: &str, strategy: Strategy) -> f64 {
    let c = GranularityClassifier::builder()
        .strategy(strategy)
        .build()
        .unwrap();
    let items = read_jsonl::<GranularityExample>(&fixtures(path)).unwrap();
    common::macro_f1(
        2,
        items.iter().map(|l| {
            (
                l.record.label.index(),
                c.classify(&l.record.text).label().index(),
            )
        }),
    )
}

/// The dev split is the measured figure; the floor is the gate
/// for the default (hybrid), which is the default only because it beats
/// the heuristic there; the seed baseline stays well below both.
#[test]
fn dev_split_quality_floor() {
    let hybrid = macro_f1("granularity/dev.jsonl", Strategy::Hybrid);
    let heuristic = macro_f1("granularity/dev.jsonl", Strategy::Heuristic);
    let seed = macro_f1("granularity/dev.jsonl", Strategy::Seed);
    assert!(hybrid >= 0.90, "hybrid dev macro-F1 {hybrid:.3}");
    assert!(
        hybrid > heuristic,
        "hybrid {hybrid:.3} vs heuristic {heuristic:.3}"
    );
    assert!(heuristic >= 0.85, "heuristic dev macro-F1 {heuristic:.3}");
    assert!(
        seed < heuristic,
        "seed {seed:.3} vs heuristic {heuristic:.3}"
    );
}

#[test]
fn fixture_splits_are_large_balanced_and_share_no_text() {
    let train = read_jsonl::<GranularityExample>(&fixtures("granularity/train.jsonl")).unwrap();
    let dev = read_jsonl::<GranularityExample>(&fixtures("granularity/dev.jsonl")).unwrap();
    assert!(train.len() + dev.len() >= 400);
    for split in [&train, &dev] {
        let holistic = split.iter().filter(|l| l.record.label == Holistic).count();
        let share = holistic as f64 / split.len() as f64;
        assert!((0.35..=0.65).contains(&share), "holistic share {share:.2}");
    }
    let norm = |t: &str| tact_core::normalize(t);
    let train_texts: std::collections::HashSet<String> =
        train.iter().map(|l| norm(&l.record.text)).collect();
    for l in &dev {
        assert!(
            !train_texts.contains(&norm(&l.record.text)),
            "dev line {} repeats a train query",
            l.line
        );
    }
}

#[test]
fn huge_and_odd_inputs_classify() {
    let big = "why is the p-value in table 3 so low? ".repeat(30_000);
    assert!(big.len() > 1_000_000);
    for c in [classifier(), &seed()] {
        let _ = c.classify(&big);
        for s in [
            "",
            " ",
            "?",
            "¿?",
            "\u{0}",
            "🦀",
            "ǅ̸̢̛̰̀",
            "\u{202e}x",
            "a\u{0301}",
        ] {
            let d = c.classify(s);
            assert!((0.0..=1.0).contains(&d.confidence()));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_string_classifies_without_panicking(q in any::<String>(), level in 0usize..40) {
        for c in [classifier(), &seed()] {
            let d = c.classify(&q);
            prop_assert!((0.0..=1.0).contains(&d.confidence()));
            prop_assert!(!d.classification.reasons.is_empty());
            prop_assert!(d.evidence.fine_grained >= 0.0 && d.evidence.holistic >= 0.0);
            let choice = c.select_scoring(&ScoringConfig::default(), level, &q);
            prop_assert_ne!(choice.method, ScoringMethod::Adaptive);
        }
    }

    #[test]
    fn query_like_strings_classify(q in "[A-Za-zäöüñé¿?,. ]{0,30}(why|how many|summarize|table 3|cuántos|warum)[a-z ?]{0,30}") {
        let d = classifier().classify(&q);
        prop_assert!((0.0..=1.0).contains(&d.confidence()));
    }
}
