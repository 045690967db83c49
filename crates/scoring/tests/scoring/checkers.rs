//! The text checkers' edge cases, and property tests that scoring and checking never panic.

use super::*;

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

pub(crate) fn any_session() -> impl Strategy<Value = Session> {
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
