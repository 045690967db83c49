//! Effort classifier: the labelling guide's shapes, fixture-driven quality
//! floors, whole-message extraction, and property tests that any input
//! classifies without panicking.

use crate::common::{self, fixtures};
use tact_types::Label;

use proptest::prelude::*;
use tact_classifiers::effort::{EffortClassifier, InMessage, Strategy};
use tact_core::dataset::read_jsonl;
use tact_types::EffortLevel::{self, High, Low, Medium};
use tact_types::dataset::EffortExample;

fn classifier() -> &'static EffortClassifier {
    EffortClassifier::shared().unwrap()
}

#[track_caller]
fn assert_effort(q: &str, ctx: Option<&str>, want: EffortLevel) {
    let r = classifier().classify(q, ctx);
    assert_eq!(r.label, want, "{q}: {:?}", r.reasons);
    assert!((0.0..=1.0).contains(&r.confidence));
    assert!(!r.reasons.is_empty(), "{q}: no reasons");
}

#[test]
fn offered_options_and_concrete_confirmations_are_low() {
    assert_effort("Tabs or spaces for the new module?", None, Low);
    assert_effort(
        "Would you like me to add a migration for the new column?",
        None,
        Low,
    );
    assert_effort(
        "Shall I keep the deprecated `--fast` flag for one more release?",
        None,
        Low,
    );
    assert_effort("Restart the worker pool now?", None, Low);
    assert_effort("¿Quieres que actualice también el README?", None, Low);
    assert_effort("Soll ich die alten Branches löschen?", None, Low);
}

#[test]
fn open_preferences_and_descriptions_are_medium() {
    assert_effort(
        "How should failed uploads be reported to the user?",
        None,
        Medium,
    );
    assert_effort(
        "What tone do you want for the release announcement?",
        None,
        Medium,
    );
    assert_effort(
        "Could you describe the workflow you have in mind for approvals?",
        None,
        Medium,
    );
    assert_effort(
        "You said the installer showed an error. What did it say?",
        None,
        Medium,
    );
}

#[test]
fn investigation_and_blocking_strategy_are_high() {
    assert_effort(
        "Can you profile the checkout service in staging and send me the results?",
        None,
        High,
    );
    assert_effort(
        "What's the current p99 latency of the search API in production?",
        None,
        High,
    );
    assert_effort(
        "Is the slowdown coming from the ORM or from the connection pool?",
        None,
        High,
    );
    assert_effort(
        "Should we move the whole platform to an event-driven architecture before the launch?",
        None,
        High,
    );
    assert_effort(
        "Could you check with the security team whether we may log IP addresses?",
        None,
        High,
    );
}

#[test]
fn a_context_that_answers_makes_it_low() {
    let spec = "Spec: the export runs nightly at 02:00 UTC and writes Parquet files to s3://exports/daily.";
    assert_effort("Which format should the export files use?", Some(spec), Low);
    assert_effort("Which format should the export files use?", None, Medium);
}

#[test]
fn multi_part_questions_take_their_highest_part() {
    let r = classifier().classify(
        "Should I name the table `events`? And how many rows does the current one have in prod?",
        None,
    );
    assert_eq!(r.label, High);
    assert!(r.reasons.iter().any(|x| x.cue == "multi_part"));
}

#[test]
fn whole_messages_yield_each_question_with_offsets() {
    let m = "The build is green. Should I open the PR now? Also, can you run the load test on staging and paste the numbers?";
    let found = classifier().questions(m);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].effort.label, Low);
    assert_eq!(found[1].effort.label, High);
    for q in &found {
        assert_eq!(&m[q.start..q.end], q.text);
    }
}

#[test]
fn strategies_parse_by_name() {
    assert_eq!("seed".parse::<Strategy>().unwrap(), Strategy::Seed);
    assert_eq!(
        "heuristic".parse::<Strategy>().unwrap(),
        Strategy::Heuristic
    );
    let err = "llm".parse::<Strategy>().unwrap_err().to_string();
    assert!(err.contains("heuristic, seed"), "{err}");
}

fn macro_f1(path: &str, strategy: Strategy) -> f64 {
    let c = EffortClassifier::builder()
        .strategy(strategy)
        .build()
        .unwrap();
    let items = read_jsonl::<EffortExample>(&fixtures(path)).unwrap();
    common::macro_f1(
        3,
        items.iter().map(|l| {
            let p = c
                .classify(&l.record.text, l.record.context.as_deref())
                .label;
            (l.record.label.index(), p.index())
        }),
    )
}

/// The dev split is the measured figure; the floor here is the issue's
/// gate, and the seed baseline must stay well below it.
#[test]
fn dev_split_quality_floor() {
    let heuristic = macro_f1("effort/dev.jsonl", Strategy::Heuristic);
    let seed = macro_f1("effort/dev.jsonl", Strategy::Seed);
    assert!(heuristic >= 0.80, "heuristic dev macro-F1 {heuristic:.3}");
    assert!(
        seed < heuristic,
        "seed {seed:.3} vs heuristic {heuristic:.3}"
    );
}

/// The Italian dev split (annotator-written, `fixtures/README.md`): the
/// default strategy at CI's gate, the cues alone well above the seed tree,
/// which reads no Italian.
#[test]
fn italian_dev_split_quality_floor() {
    let hybrid = macro_f1("effort/dev-it.jsonl", Strategy::Hybrid);
    let heuristic = macro_f1("effort/dev-it.jsonl", Strategy::Heuristic);
    let seed = macro_f1("effort/dev-it.jsonl", Strategy::Seed);
    assert!(hybrid >= 0.88, "hybrid Italian dev macro-F1 {hybrid:.3}");
    assert!(
        heuristic >= 0.78 && seed < heuristic - 0.2,
        "heuristic {heuristic:.3}, seed {seed:.3}"
    );
}

#[test]
fn fixture_splits_share_no_text() {
    let train = read_jsonl::<EffortExample>(&fixtures("effort/train.jsonl")).unwrap();
    let dev = read_jsonl::<EffortExample>(&fixtures("effort/dev.jsonl")).unwrap();
    use std::collections::HashSet;
    let words = |t: &str| -> HashSet<String> {
        tact_core::words(&tact_core::normalize(t))
            .map(str::to_owned)
            .collect()
    };
    let train_sets: Vec<HashSet<String>> = train.iter().map(|l| words(&l.record.text)).collect();
    for l in &dev {
        let d = words(&l.record.text);
        for (t, tl) in train_sets.iter().zip(&train) {
            let jaccard = d.intersection(t).count() as f64 / d.union(t).count().max(1) as f64;
            assert!(
                jaccard < 0.8,
                "dev line {} near-duplicates train line {} ({jaccard:.2})",
                l.line,
                tl.line
            );
        }
    }
    assert!(train.len() + dev.len() >= 450);
}

#[test]
fn huge_and_odd_inputs_classify() {
    let c = classifier();
    let big = "why does it fail or not? ".repeat(50_000);
    assert!(big.len() > 1_000_000);
    let _ = c.classify(&big, Some(&big));
    let _ = c.questions(&big);
    for s in [
        "",
        " ",
        "?",
        "¿?",
        "\u{0}",
        "🦀🦀?",
        "ǅ̸̢̛̰̀?",
        "\u{202e}reversed?",
        "a\u{0301}?",
    ] {
        let r = c.classify(s, Some(s));
        assert!((0.0..=1.0).contains(&r.confidence));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_string_classifies_without_panicking(q in any::<String>(), ctx in proptest::option::of(any::<String>())) {
        for c in [classifier(), &EffortClassifier::builder().strategy(Strategy::Seed).build().unwrap()] {
            let r = c.classify(&q, ctx.as_deref());
            prop_assert!((0.0..=1.0).contains(&r.confidence));
            prop_assert!(!r.reasons.is_empty());
            let found = c.questions(&q);
            for f in found {
                prop_assert!(q.is_char_boundary(f.start) && q.is_char_boundary(f.end));
            }
        }
    }

    #[test]
    fn question_like_strings_classify(q in "[A-Za-z¿?,. ]{0,40}(or|and|should|why|how many|can you)[a-z ?]{0,40}") {
        let r = classifier().classify(&q, None);
        prop_assert!((0.0..=1.0).contains(&r.confidence));
    }
}

#[test]
fn picking_one_of_the_options_the_message_lists_is_low() {
    let c = classifier();
    let q = "Which approach would you prefer?";
    let listed = "Two ways to fix the cache:\n\n1. Key it by currency\n2. Drop it for prices\n\nWhich approach would you prefer?";
    let at = listed.find(q).unwrap();
    let r = c.classify_in(q, &InMessage::new(listed), at, None);
    assert_eq!(r.label, Low);
    assert!(
        r.reasons.iter().any(|r| r.cue == "picks_listed_option"),
        "{:?}",
        r.reasons
    );
    assert!(r.reasons[0].detail.contains("2 options"), "{:?}", r.reasons);
    // Without options in front of the user, the question alone decides:
    // for the cues, stating a preference not offered is medium.
    let bare = "I looked at the cache. Which approach would you prefer?";
    let r = c.classify_in(q, &InMessage::new(bare), bare.find(q).unwrap(), None);
    assert!(r.reasons.iter().all(|r| r.cue != "picks_listed_option"));
    let cues = EffortClassifier::builder()
        .strategy(Strategy::Heuristic)
        .build()
        .unwrap();
    let r = cues.classify_in(q, &InMessage::new(bare), bare.find(q).unwrap(), None);
    assert_eq!(r.label, Medium);
    // Options listed after the question do not count.
    let after = format!("{q}\n1. Key it\n2. Drop it");
    let r = c.classify_in(q, &InMessage::new(&after), 0, None);
    assert!(r.reasons.iter().all(|r| r.cue != "picks_listed_option"));
    // A question that asks the user to dig something out is not a pick.
    let logs = "Can you paste the stack trace from production?";
    let msg = format!("Two suspects:\n- the cache\n- the pool\n\n{logs}");
    let r = c.classify_in(logs, &InMessage::new(&msg), msg.find(logs).unwrap(), None);
    assert!(r.reasons.iter().all(|r| r.cue != "picks_listed_option"));
    // "Which <words> do you want": a pick too.
    let which = "Which exact behavior do you want when Ollama is missing?";
    let msg = format!("Two ways:\n- install it\n- ask first\n\n{which}");
    let r = c.classify_in(which, &InMessage::new(&msg), msg.find(which).unwrap(), None);
    assert!(
        r.reasons.iter().any(|r| r.cue == "picks_listed_option"),
        "{:?}",
        r.reasons
    );
    // The seed strategy reads the question alone.
    let seed = EffortClassifier::builder()
        .strategy(Strategy::Seed)
        .build()
        .unwrap();
    let r = seed.classify_in(q, &InMessage::new(listed), at, None);
    assert_eq!(r.label, seed.classify(q, None).label);
    // `questions` classifies each question in its message.
    let found = c.questions(listed);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].effort.label, Low);
}

#[test]
fn italian_shapes_of_the_labelling_guide() {
    let h = EffortClassifier::builder()
        .strategy(Strategy::Heuristic)
        .build()
        .unwrap();
    for (q, want) in [
        // A yes/no on a concrete proposal, the agent's first person, and
        // offered options are low.
        ("Vuoi che aggiunga anche i test per il nuovo endpoint?", Low),
        ("Procedo con il merge su `main`?", Low),
        ("Lo rinomino in `parse_config`?", Low),
        ("Va bene se rimuovo la vecchia route?", Low),
        ("Mi confermi che la porta è la 8080?", Low),
        ("Preferisci PostgreSQL oppure MySQL?", Low),
        // An open preference, or a description the user knows, is medium.
        (
            "Come vuoi che vengano gestiti gli errori di upload?",
            Medium,
        ),
        ("Puoi descrivere meglio il caso d'uso?", Medium),
        ("Che nome vuoi dare al nuovo servizio?", Medium),
        // Running, fetching, pasting, diagnosing and strategy are high.
        (
            "Puoi incollare l'output completo dei log dopo aver riavviato il server?",
            High,
        ),
        ("Prova a svuotare la cache e fammi sapere cosa vedi.", High),
        ("Perché le richieste sono così lente in produzione?", High),
        (
            "Potresti chiedere al team legale se possiamo usare questa licenza?",
            High,
        ),
        (
            "Dovremmo passare a un'architettura a microservizi prima del lancio?",
            High,
        ),
    ] {
        let r = h.classify(q, None);
        assert_eq!(r.label, want, "{q}: {:?}", r.reasons);
    }
}

#[test]
fn shapes_of_real_agent_questions() {
    let h = EffortClassifier::builder()
        .strategy(Strategy::Heuristic)
        .build()
        .unwrap();
    for (q, want) in [
        // A terse option offered as a gerund, or with a verb of the list.
        ("Updating the callers to the new state API too?", Low),
        ("Adding TODO comments for the legacy code?", Low),
        ("Focus on the shared utilities first, then the modes?", Low),
        ("Ignore the linter warnings for now and move on?", Low),
        // Polish yes/no proposals and confirmations.
        ("Czy chcesz, żebym rozpoczął implementację od fazy 1?", Low),
        ("Czy w tej wersji plan jest akceptowalny?", Low),
        // Portuguese yes/no proposals, also in capitals and after emoji or
        // a bracketed marker.
        ("🚀 Quer que eu rode os testes de integração agora?", Low),
        ("[OK] POSSO SEGUIR PARA A FASE 2?", Low),
        ("Você prefere que eu mantenha o nome antigo?", Low),
        // A yes/no on whether a proposal fits.
        ("Would a separate module for the parsers make sense?", Low),
        (
            "¿Tiene sentido separar los analizadores en otro módulo?",
            Low,
        ),
        (
            "Wenn du möchtest, dass ich die Tests aufteile, sag Bescheid.",
            Low,
        ),
        ("Let me know if you'd like any changes to the outline.", Low),
        (
            "Would you like a short note to clarify the retry policy?",
            Low,
        ),
        (
            "If you'd like me to split the commit, just let me know.",
            Low,
        ),
        // Checking the console, or fetching a file's contents, is high.
        ("Do you see the \"saved\" message in the console?", High),
        ("Please share the contents of your config file.", High),
    ] {
        let r = h.classify(q, None);
        assert_eq!(r.label, want, "{q}: {:?}", r.reasons);
    }
    // The hybrid keeps a yes/no proposal or a concrete confirmation from
    // the model, which turned such real questions medium.
    for q in [
        "Do you approve this plan?",
        "Or do you want to review the changes so far first?",
        "Let me know when you're ready for the next recommendation.",
    ] {
        let r = classifier().classify(q, None);
        assert_eq!(r.label, Low, "{q}: {:?}", r.reasons);
        assert_eq!(r.tier, Some(tact_types::Tier::Heuristic), "{q}");
    }
}
