//! Router: every rule of the ADR-0008 routing contract (tests named after
//! RC-01 ... RC-06), the monitored contract violations as `tracing`
//! warnings, the classifier prompt, the fallback model path, fixture-driven
//! quality floors, and property tests (any input and history, never a
//! panic; snippets never split a character).

use crate::common::{self, fixtures};
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use tact_classifiers::route::{
    HISTORY_WINDOW, HistoryStore, ModelSlots, Observation, RouteModel, Router, SNIPPET_CHARS,
    Strategy as RouteStrategy, Violation, build_prompt, entry, render_history, snippet,
};
use tact_core::dataset::read_jsonl;
use tact_types::QueryType::{self, CodeGeneration, Conversational, Platform, Retrieval};
use tact_types::dataset::RouteExample;
use tact_types::{IntentEntry, Label, ModelSlot, RouteRule};

/// The heuristic router: the contract tests below check how its rules
/// read messages and history. The default (hybrid) router has its own
/// tests at the end.
fn router() -> &'static Router {
    static R: std::sync::OnceLock<Router> = std::sync::OnceLock::new();
    R.get_or_init(|| {
        Router::builder()
            .strategy(RouteStrategy::Heuristic)
            .build()
            .unwrap()
    })
}

fn h(kind: QueryType, text: &str) -> IntentEntry {
    entry(kind, text)
}

#[track_caller]
fn assert_route(message: &str, history: &[IntentEntry], want: QueryType) {
    let d = router().route(message, history);
    assert_eq!(d.label(), want, "{message}: {:?}", d.classification.reasons);
    assert!((0.0..=1.0).contains(&d.confidence()));
    assert!(
        !d.classification.reasons.is_empty(),
        "{message}: no reasons"
    );
    assert_eq!(d.needs_retrieval, d.label().needs_retrieval());
    assert_eq!(d.model_slot, d.label().model_slot());
}

/// A model that counts its calls and answers a fixed text.
struct CountingModel {
    calls: AtomicUsize,
    answer: Option<String>,
    seen_model: Mutex<Option<String>>,
}

impl CountingModel {
    fn new(answer: Option<&str>) -> Self {
        Self {
            calls: AtomicUsize::new(0),
            answer: answer.map(str::to_owned),
            seen_model: Mutex::new(None),
        }
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

impl RouteModel for CountingModel {
    fn complete(&self, model: Option<&str>, prompt: &str) -> Option<String> {
        assert!(prompt.contains("<history_rule>"));
        self.calls.fetch_add(1, Ordering::SeqCst);
        *self.seen_model.lock().unwrap() = model.map(str::to_owned);
        self.answer.clone()
    }
}

// ---------------------------------------------------------------- RC-01

#[test]
fn rc01_platform_prefix_routes_without_calling_a_model() {
    let model = CountingModel::new(Some("RETRIEVAL"));
    let cases = [
        "You are a direct and concise assistant. The project used 45% of its quota.",
        "YOU ARE A DIRECT AND CONCISE ASSISTANT: write a loop that prints 1 to 5",
        "you are a direct  and concise\nassistant; ¿cómo se declara una función?",
        "Context first. You Are A Direct And Concise Assistant - thanks!",
    ];
    for m in cases {
        for history in [vec![], vec![h(Retrieval, "What is addVar?"); 10]] {
            let d = router().route_with_model(m, &history, &model);
            assert_eq!(d.label(), Platform, "{m}");
            assert_eq!(d.rule, RouteRule::PlatformPrefix);
            assert_eq!(d.rule.contract_id(), Some("RC-01"));
            assert_eq!(d.confidence(), 1.0);
            assert!(!d.ambiguous);
        }
    }
    assert_eq!(
        model.calls(),
        0,
        "no model may be called on the prefix path"
    );
    // The same counting model is called for an ambiguous case, so the
    // count above is meaningful.
    let d = router().route_with_model("zzz qqq", &[], &model);
    assert_eq!(model.calls(), 1);
    assert_eq!(d.rule, RouteRule::Model);
    assert_eq!(d.label(), Retrieval);
}

#[test]
fn rc01_prefixes_are_configurable() {
    let r = Router::builder()
        .platform_prefixes(["[platform-insight]"])
        .platform_prefix("Eres un asistente directo")
        .build()
        .unwrap();
    assert_eq!(
        r.route("[PLATFORM-INSIGHT] write a loop", &[]).rule,
        RouteRule::PlatformPrefix
    );
    assert_eq!(
        r.route("eres un asistente directo: hola", &[]).rule,
        RouteRule::PlatformPrefix
    );
    // The default prefix was replaced.
    assert_ne!(
        r.route("You are a direct and concise assistant. Write a loop.", &[])
            .rule,
        RouteRule::PlatformPrefix
    );
    assert!(Router::builder().platform_prefixes(["  "]).build().is_err());
    let none = Router::builder()
        .platform_prefixes(Vec::<String>::new())
        .build()
        .unwrap();
    assert_ne!(
        none.route("you are a direct and concise assistant", &[])
            .rule,
        RouteRule::PlatformPrefix
    );
}

// ---------------------------------------------------------------- RC-02

#[test]
fn rc02_platform_signals_win_whatever_the_history() {
    let code_history = vec![h(CodeGeneration, "Write an endpoint that lists products"); 6];
    let docs_history = vec![h(Retrieval, "How does startLoop work?"); 6];
    let cases = [
        "How many requests do I have left today?",
        "We're at 72% of the monthly API quota and it's only the 12th. What should we do?",
        "I've used 8,400 of my 10,000 calls. Which plan would you recommend?",
        "When does my subscription renew?",
        "Can you resend my last invoice?",
        "¿Cuánto llevo consumido de la cuota este mes?",
        "Mi proyecto va por el 85% de uso, ¿qué me recomiendas?",
        "¿Cuál es el límite de peticiones de mi plan?",
        "Before I deploy this: will it push me over my plan's monthly execution limit?",
    ];
    for m in cases {
        for history in [&code_history, &docs_history, &Vec::new()] {
            let d = router().route(m, history);
            assert_eq!(d.label(), Platform, "{m} with {} turns", history.len());
            assert_eq!(d.rule, RouteRule::PlatformSignal, "{m}");
            assert!(!d.needs_retrieval);
        }
    }
    // The signal path never calls a model either.
    let model = CountingModel::new(Some("CODE_GENERATION"));
    let d = router().route_with_model(cases[0], &code_history, &model);
    assert_eq!((d.label(), model.calls()), (Platform, 0));
}

#[test]
fn rc02_look_alikes_are_not_platform() {
    let cases = [
        (
            "Write a check that rejects a request with 429 when the same IP makes more than 60 calls a minute.",
            CodeGeneration,
        ),
        (
            "Write a report query that sums invoice amounts per customer from the invoices table.",
            CodeGeneration,
        ),
        (
            "Write a function that returns what percentage of a quota is used, given used and total.",
            CodeGeneration,
        ),
        (
            "Genera una consulta sobre la tabla facturas que devuelva el total por mes.",
            CodeGeneration,
        ),
        ("What's the usage of getQueryParamList?", Retrieval),
        (
            "Is there a limit on how long a string can be in AVAP?",
            Retrieval,
        ),
        ("How do I add a LIMIT clause to ormAccessSelect?", Retrieval),
    ];
    for (m, want) in cases {
        assert_route(m, &[], want);
        assert_ne!(
            router().route(m, &[]).rule,
            RouteRule::PlatformSignal,
            "{m}"
        );
    }
}

#[test]
fn a_third_party_services_billing_and_a_project_plan_are_not_platform() {
    for m in [
        // A pasted notice of another service.
        "Hobby accounts are limited to daily cron jobs. This cron expression (*/10 * * * *) would run more than once per day. Upgrade to the Pro plan to unlock all Cron Jobs features on Vercel.",
        "GitHub says I've hit the rate limit for the API, can you add retries with backoff?",
        // A project plan, and a domain word.
        "By following this plan, we can keep the project on track. Start with task 1.",
        "https://restapi.e-conomic.com/accounting-years/2022/entries?demo=true\n\nI think we need to use similar like this?",
        // The user's project or account, with no usage figure.
        "i downloaded db browser how can i connect it to my project folder",
        "i forked it to my account",
    ] {
        let r = router().route(m, &[]);
        assert_ne!(
            r.classification.label, Platform,
            "{m}: {:?}",
            r.classification.reasons
        );
    }
    // The user's own account stays PLATFORM.
    assert_route(
        "Which plan am I on, and how much of my quota is left?",
        &[],
        Platform,
    );
    assert_route(
        "Which of my projects is burning through the most calls?",
        &[],
        Platform,
    );
    assert_route(
        "My project has made 8,400 of 10,000 calls this month",
        &[],
        Platform,
    );
}

#[test]
fn a_message_in_a_script_the_cues_do_not_read_asks_for_work_and_keeps_retrieval() {
    // No cue fires in Chinese: a request, not a remark (which would skip
    // retrieval); a question mark, full-width too, still asks a question.
    let d = router().route("帮我实现这个功能", &[]);
    assert_eq!(d.label(), CodeGeneration, "{:?}", d.classification.reasons);
    assert_eq!(d.rule, RouteRule::Fallback);
    assert!(d.needs_retrieval);
    assert!(
        d.classification
            .reasons
            .iter()
            .any(|r| r.detail.contains("script the cues do not read")),
        "{:?}",
        d.classification.reasons
    );
    assert_route("这个模型要怎么运行？", &[], Retrieval);
    // A remark in a script the cues read stays a remark.
    assert_route("lets skip Prompt Registry", &[], Conversational);
}

#[test]
fn reading_the_project_is_retrieval_and_a_code_verb_opening_is_a_request() {
    // Questions answered by reading the project, not by changing it: the
    // hybrid keeps the heuristic's RETRIEVAL.
    for m in [
        "Read @ARCHITECTURE.md then @ROADMAP.md",
        "@parser.rs @lexer.rs what do these modules do, describe in detail",
        "why did we end up with two cache layers?",
        "I need to verify that the export only reads from the configured folder",
        "Can you show me where the theme colours are set?",
        "sprawdź status kolejki",
    ] {
        let r = router().route(m, &[]);
        assert_eq!(r.label(), Retrieval, "{m}: {:?}", r.classification.reasons);
    }
    // A short message that opens with a code verb asks for the change.
    for m in [
        "add both",
        "Rename it to fetch_all",
        "can we change every loader to be lazy",
        "I don't like this folder layout.",
        "now I get 12:01:33 -- Loading plugin: notify",
        "do it",
        "@docs/ remove this folder, we already keep one in @assets/",
        "Run all unit tests for the parser now",
        "Read @NOTES.md and then start implementing @TODO.md",
    ] {
        let r = router().route(m, &[]);
        assert_eq!(
            r.label(),
            CodeGeneration,
            "{m}: {:?}",
            r.classification.reasons
        );
    }
}

// ---------------------------------------------------------------- RC-03

#[test]
fn rc03_ten_retrieval_turns_do_not_change_a_clear_platform_or_code_label() {
    let ten: Vec<IntentEntry> = (0..10)
        .map(|i| {
            h(
                Retrieval,
                &format!("How does AVAP function number {i} work?"),
            )
        })
        .collect();
    let clear = [
        (
            "How many API calls has my account made this month?",
            Platform,
        ),
        ("Which plan is this account on?", Platform),
        (
            "Write an endpoint that deletes an order by id and returns 204.",
            CodeGeneration,
        ),
        (
            "Escribe una función que compruebe si un año es bisiesto.",
            CodeGeneration,
        ),
        ("thanks, bye!", Conversational),
    ];
    for (m, want) in clear {
        let alone = router().route(m, &[]);
        let with = router().route(m, &ten);
        assert_eq!(alone.label(), want, "{m}");
        assert_eq!(with.label(), want, "{m} after ten RETRIEVAL turns");
        assert_eq!(with.confidence(), alone.confidence(), "{m}");
        assert!(with.resolved.is_none());
    }
}

#[test]
fn rc03_history_only_resolves_references() {
    let usage = [h(Platform, "How many API calls did I make this month?")];
    let code = [h(
        CodeGeneration,
        "Write an endpoint that lists products with pagination",
    )];
    let docs = [h(Retrieval, "¿Cómo se ordena una lista en AVAP?")];
    // Elliptical follow-ups take their referent's type ...
    for (m, history, want) in [
        ("And last month?", &usage[..], Platform),
        ("can you break that down by endpoint?", &usage[..], Platform),
        ("¿Y con fechas?", &docs[..], Retrieval),
        ("And for the DELETE method?", &code[..], CodeGeneration),
    ] {
        let d = router().route(m, history);
        assert_eq!(d.label(), want, "{m}: {:?}", d.classification.reasons);
        assert_eq!(d.rule, RouteRule::HistoryReference, "{m}");
        assert_eq!(d.resolved.as_ref(), history.last());
        assert!(
            d.classification
                .reasons
                .iter()
                .any(|r| r.cue == "history_reference")
        );
    }
    // A change to earlier code is code whatever the rule that saw it.
    assert_route(
        "ok now the same but for PUT requests",
        &code,
        CodeGeneration,
    );
    // ... which they do not have without history.
    assert_ne!(router().route("And last month?", &[]).label(), Platform);
    // Without a reference, the same history decides nothing, even when the
    // content alone is ambiguous.
    for m in ["zzz qqq", "hmm", "Is recursion supported?"] {
        assert_eq!(
            router().route(m, &usage).label(),
            router().route(m, &[]).label(),
            "{m}"
        );
    }
    // A topic switch cancels the reference.
    assert_eq!(
        router()
            .route(
                "Different topic: how do I declare a global variable?",
                &usage
            )
            .label(),
        Retrieval
    );
    // Clear content wins over the referent.
    assert_route(
        "Can you go over that again? I got distracted.",
        &code,
        Conversational,
    );
    assert_route("Is that function thread safe?", &code, Retrieval);
}

#[test]
fn rc03_snippets_are_60_characters_rendered_as_type_and_quote() {
    let long = "Escribe un endpoint que devuelva los productos sin stock de la tienda online";
    let e = entry(CodeGeneration, long);
    assert_eq!(e.snippet.chars().count(), SNIPPET_CHARS);
    assert_eq!(
        e.snippet,
        "Escribe un endpoint que devuelva los productos sin stock de "
    );
    let accents = "ñ".repeat(100);
    assert_eq!(snippet(&accents).len(), 2 * SNIPPET_CHARS);
    let rendered = render_history(&[
        h(Retrieval, "What is addVar in AVAP?"),
        h(Platform, "You have a \"project\" usage\npercentage of 20%"),
    ]);
    assert_eq!(
        rendered,
        "[RETRIEVAL] \"What is addVar in AVAP?\"\n[PLATFORM] \"You have a \\\"project\\\" usage percentage of 20%\""
    );
}

// ---------------------------------------------------------------- RC-04

#[test]
fn rc04_needs_retrieval_is_false_for_conversational_and_platform() {
    for (m, want, rag) in [
        ("Does RequestGet follow redirects?", Retrieval, true),
        (
            "Write a function that reverses a list.",
            CodeGeneration,
            true,
        ),
        ("thanks a lot!", Conversational, false),
        ("When does my subscription renew?", Platform, false),
    ] {
        let d = router().route(m, &[]);
        assert_eq!(d.label(), want, "{m}");
        assert_eq!(d.needs_retrieval, rag, "{m}");
        assert_eq!(d.needs_retrieval(), rag, "{m}");
    }
    for &t in QueryType::ALL {
        assert_eq!(
            t.needs_retrieval(),
            matches!(t, Retrieval | CodeGeneration),
            "{t}"
        );
    }
}

// ---------------------------------------------------------------- RC-05

#[test]
fn rc05_model_slots_come_from_the_environment_with_fallback() {
    let both: HashMap<&str, &str> = [
        ("OLLAMA_MODEL_NAME", "qwen3:1.7b"),
        ("OLLAMA_MODEL_NAME_CONVERSATIONAL", "qwen3:0.6b"),
    ]
    .into_iter()
    .collect();
    let slots = ModelSlots::from_lookup(|k| both.get(k).map(|v| (*v).to_owned()));
    let r = Router::builder().model_slots(slots).build().unwrap();
    for (m, model) in [
        ("Does RequestGet follow redirects?", "qwen3:1.7b"),
        ("Write a function that reverses a list.", "qwen3:1.7b"),
        ("thanks a lot!", "qwen3:0.6b"),
        ("When does my subscription renew?", "qwen3:0.6b"),
    ] {
        assert_eq!(r.route(m, &[]).model.as_deref(), Some(model), "{m}");
    }
    // The conversational slot falls back to the main one.
    let main_only =
        ModelSlots::from_lookup(|k| (k == "OLLAMA_MODEL_NAME").then(|| "qwen3:1.7b".to_owned()));
    assert_eq!(
        main_only.model(ModelSlot::Conversational),
        Some("qwen3:1.7b")
    );
    let r = Router::builder().model_slots(main_only).build().unwrap();
    assert_eq!(
        r.route("thanks a lot!", &[]).model.as_deref(),
        Some("qwen3:1.7b")
    );
    // Nothing configured: the slot is still reported, without a model.
    let d = router().route("thanks a lot!", &[]);
    assert_eq!((d.model_slot, d.model), (ModelSlot::Conversational, None));
    assert_eq!(ModelSlot::Main.env_var(), "OLLAMA_MODEL_NAME");
}

#[test]
fn rc05_the_fallback_model_runs_on_the_main_slot() {
    let slots = ModelSlots::new(Some("big".into()), Some("small".into()));
    let r = Router::builder()
        .strategy(RouteStrategy::Heuristic)
        .model_slots(slots)
        .build()
        .unwrap();
    let model = CountingModel::new(Some("<think>hmm</think> conversational"));
    let d = r.route_with_model("zzz qqq", &[], &model);
    assert_eq!(model.calls(), 1);
    assert_eq!(model.seen_model.lock().unwrap().as_deref(), Some("big"));
    assert_eq!((d.label(), d.rule), (Conversational, RouteRule::Model));
    assert_eq!(d.model.as_deref(), Some("small"));
    // Unparseable answers keep the heuristic decision.
    let mute = CountingModel::new(Some("I am not sure."));
    let kept = r.route_with_model("zzz qqq", &[], &mute);
    assert_eq!(kept.label(), r.route("zzz qqq", &[]).label());
    assert!(
        kept.classification
            .reasons
            .iter()
            .any(|x| x.cue == "model_unparsed")
    );
    let failed = CountingModel::new(None);
    let _ = r.route_with_model("zzz qqq", &[], &failed);
    // Confident decisions never call the model.
    let quiet = CountingModel::new(Some("PLATFORM"));
    let d = r.route_with_model("Write a function that reverses a list.", &[], &quiet);
    assert_eq!((d.label(), quiet.calls()), (CodeGeneration, 0));
}

// ---------------------------------------------------------------- RC-06

#[test]
fn rc06_history_is_bounded_and_the_classifier_reads_the_last_six() {
    // The classifier reads at most the last 6 entries: a referent seven
    // turns back is out of reach.
    let mut history = vec![h(Platform, "How many API calls did I make this month?")];
    history.extend(std::iter::repeat_n(h(Conversational, "ok"), HISTORY_WINDOW));
    assert_eq!(history.len(), 7);
    assert_ne!(
        router().route("And last month?", &history).label(),
        Platform
    );
    assert_eq!(
        router().route("And last month?", &history[..1]).label(),
        Platform
    );
    // The prompt renders at most 6 entries too.
    let rendered = render_history(&history);
    assert_eq!(rendered.lines().count(), HISTORY_WINDOW);
    assert!(!rendered.contains("API calls"));

    // The store is bounded per session ...
    let store = HistoryStore::new();
    for i in 0..1_000 {
        store.record("s", Retrieval, &format!("question {i} {}", "x".repeat(500)));
    }
    let recent = store.recent("s");
    assert_eq!(recent.len(), HISTORY_WINDOW);
    assert!(recent[5].snippet.starts_with("question 999"));
    assert!(
        recent
            .iter()
            .all(|e| e.snippet.chars().count() <= SNIPPET_CHARS)
    );
    // ... and across sessions, whatever their number and id length.
    let store = HistoryStore::with_limits(HISTORY_WINDOW, 1_000);
    let long_id = "k".repeat(10_000);
    for i in 0..20_000 {
        let id = format!("{long_id}-{i}");
        store.record(&id, Platform, &"ü".repeat(1_000));
    }
    assert_eq!(store.session_count(), 1_000);
    assert!(store.entry_count() <= 1_000 * HISTORY_WINDOW);
    let bound = 1_000 * (HISTORY_WINDOW * (64 + 4 * SNIPPET_CHARS) + 512);
    assert!(
        store.approx_bytes() <= bound,
        "{} > {bound}",
        store.approx_bytes()
    );
    // The most recent sessions survive.
    assert_eq!(store.recent(&format!("{long_id}-19999")).len(), 1);
    assert!(store.recent(&format!("{long_id}-0")).is_empty());
}

#[test]
fn rc06_the_store_is_shared_across_threads() {
    let store = Arc::new(HistoryStore::with_limits(3, 50));
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let store = Arc::clone(&store);
            std::thread::spawn(move || {
                for i in 0..200 {
                    store.record(&format!("s{}", i % 80), Retrieval, &format!("t{t} m{i}"));
                    let _ = store.recent(&format!("s{}", i % 7));
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert!(store.session_count() <= 50);
    assert!(store.entry_count() <= 150);
}

// --------------------------------------------------- contract violations

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `f` with a subscriber capturing warnings; returns what was logged.
fn warnings<T>(f: impl FnOnce() -> T) -> (T, String) {
    let buf = Captured::default();
    let writer = buf.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::WARN)
        .finish();
    let out = tracing::subscriber::with_default(subscriber, f);
    let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
    (out, text)
}

#[test]
fn contract_violations_are_returned_and_logged_as_warnings() {
    let slots = ModelSlots::new(Some("qwen3:1.7b".into()), Some("qwen3:0.6b".into()));
    let r = Router::builder().model_slots(slots).build().unwrap();

    // RC-04 and RC-05: a platform query that hit retrieval on the big model.
    let d = r.route("When does my subscription renew?", &[]);
    let observed = Observation {
        retrieval_ran: true,
        model_used: Some("qwen3:1.7b"),
        classifier_called: false,
    };
    let (v, log) = warnings(|| r.check(&d, &observed));
    assert_eq!(v.len(), 2, "{v:?}");
    assert_eq!(v[0].rule(), "RC-04");
    assert_eq!(v[1].rule(), "RC-05");
    assert!(
        log.contains("WARN") && log.contains("RC-04") && log.contains("RC-05"),
        "{log}"
    );
    assert!(log.contains("PLATFORM query hit retrieval"), "{log}");

    // RC-01: a prefix query sent to the LLM classifier.
    let d = r.route("You are a direct and concise assistant. Plan: Pro.", &[]);
    let (v, log) = warnings(|| {
        r.check(
            &d,
            &Observation {
                classifier_called: true,
                model_used: Some("qwen3:0.6b"),
                ..Observation::default()
            },
        )
    });
    assert_eq!(v, [Violation::PrefixCalledModel]);
    assert!(log.contains("RC-01"), "{log}");

    // RC-02 and RC-03: an external classifier's answers.
    let docs: Vec<IntentEntry> = (0..6).map(|i| h(Retrieval, &format!("docs {i}"))).collect();
    let (v, log) = warnings(|| {
        r.check_classifier_output(
            "How many API calls did my account make today?",
            &docs,
            Retrieval,
        )
    });
    assert_eq!(v.len(), 2, "{v:?}");
    assert_eq!(v[0].rule(), "RC-02");
    assert_eq!(v[1].rule(), "RC-03");
    assert!(log.contains("RC-02") && log.contains("RC-03"), "{log}");
    let (v, _) = warnings(|| {
        r.check_classifier_output(
            "Write an endpoint that deletes an order by id.",
            &docs,
            Retrieval,
        )
    });
    assert_eq!(
        v,
        [Violation::MirrorsHistory {
            got: Retrieval,
            content: CodeGeneration
        }]
    );

    // A well-behaved host logs nothing.
    let d = r.route("Does RequestGet follow redirects?", &docs);
    let (v, log) = warnings(|| {
        let mut v = r.check(
            &d,
            &Observation {
                retrieval_ran: true,
                model_used: Some("qwen3:1.7b"),
                classifier_called: false,
            },
        );
        v.extend(r.check_classifier_output("Does RequestGet follow redirects?", &docs, Retrieval));
        v
    });
    assert!(v.is_empty(), "{v:?}");
    assert!(log.is_empty(), "{log}");
}

// ---------------------------------------------------------------- prompt

#[test]
fn the_classifier_prompt_carries_both_rules_and_the_rendered_history() {
    let history: Vec<IntentEntry> = (0..9)
        .map(|i| {
            h(
                if i % 2 == 0 {
                    Retrieval
                } else {
                    CodeGeneration
                },
                &format!("turn {i}"),
            )
        })
        .collect();
    let p = build_prompt("¿Y esto cuánto cuesta?", &history);
    assert!(p.contains("<history_rule>") && p.contains("</history_rule>"));
    assert!(p.contains("<platform_priority_rule>") && p.contains("</platform_priority_rule>"));
    assert!(p.contains("ONLY to resolve ambiguous references"));
    assert!(p.contains("[CODE_GENERATION] \"turn 3\""));
    assert!(!p.contains("\"turn 2\""), "only the last 6 entries");
    assert!(p.contains("<message>\n¿Y esto cuánto cuesta?\n</message>"));
    assert_eq!(router().prompt("x", &[]), build_prompt("x", &[]));
    assert!(build_prompt("x", &[]).contains("<history>\n(none)\n</history>"));
}

// ------------------------------------------------------- quality, strategies

#[test]
fn strategies_parse_by_name_and_the_seed_knows_only_the_adr_rules() {
    assert_eq!(
        "seed".parse::<RouteStrategy>().unwrap(),
        RouteStrategy::Seed
    );
    assert!("oracle".parse::<RouteStrategy>().is_err());
    let seed = Router::builder()
        .strategy(RouteStrategy::Seed)
        .build()
        .unwrap();
    assert_eq!(
        seed.route("you are a direct and concise assistant. hi", &[])
            .rule,
        RouteRule::PlatformPrefix
    );
    assert_eq!(seed.route("Usage is at 45%", &[]).label(), Platform);
    assert_eq!(seed.route("thanks!", &[]).label(), Retrieval);
    // Its substring keywords catch code look-alikes.
    assert_eq!(
        seed.route("Write a rate limit check for my endpoint", &[])
            .label(),
        Platform
    );
}

fn macro_f1(path: &str, strategy: RouteStrategy) -> f64 {
    let r = Router::builder().strategy(strategy).build().unwrap();
    let items = read_jsonl::<RouteExample>(&fixtures(path)).unwrap();
    common::macro_f1(
        4,
        items.iter().map(|l| {
            let p = r.route(&l.record.text, &l.record.history).label();
            (l.record.label.index(), p.index())
        }),
    )
}

/// The dev split is the measured figure; the floor is the issue's gate.
#[test]
fn dev_split_quality_floor() {
    let heuristic = macro_f1("route/dev.jsonl", RouteStrategy::Heuristic);
    let seed = macro_f1("route/dev.jsonl", RouteStrategy::Seed);
    assert!(heuristic >= 0.90, "heuristic dev macro-F1 {heuristic:.3}");
    assert!(
        seed < heuristic,
        "seed {seed:.3} vs heuristic {heuristic:.3}"
    );
}

#[test]
fn fixture_splits_follow_the_issue() {
    let train = read_jsonl::<RouteExample>(&fixtures("route/train.jsonl")).unwrap();
    let dev = read_jsonl::<RouteExample>(&fixtures("route/dev.jsonl")).unwrap();
    let all: Vec<&RouteExample> = train.iter().chain(&dev).map(|l| &l.record).collect();
    assert!(all.len() >= 400);
    let with_history = all.iter().filter(|e| !e.history.is_empty()).count();
    let share = with_history as f64 / all.len() as f64;
    assert!((0.2..=0.45).contains(&share), "history share {share:.2}");
    let spanish = all
        .iter()
        .filter(|e| e.text.contains(['ñ', 'á', 'é', 'í', 'ó', 'ú', '¿', '¡']))
        .count();
    assert!(spanish >= 80, "{spanish} Spanish messages");
    for e in &all {
        assert!(
            e.history
                .iter()
                .all(|x| x.snippet.chars().count() <= SNIPPET_CHARS)
        );
    }
    let norm = |t: &str| tact_core::normalize(t);
    let train_texts: std::collections::HashSet<String> =
        train.iter().map(|l| norm(&l.record.text)).collect();
    for l in &dev {
        assert!(
            !train_texts.contains(&norm(&l.record.text)),
            "dev line {} repeats a train message",
            l.line
        );
    }
}

#[test]
fn huge_and_odd_inputs_route() {
    let big = "Write a function, fix it, my plan is at 72%? eso\n".repeat(25_000);
    assert!(big.len() > 1_000_000);
    let long_history: Vec<IntentEntry> = (0..10_000).map(|_| h(Platform, &big)).collect();
    let seed = Router::builder()
        .strategy(RouteStrategy::Seed)
        .build()
        .unwrap();
    for r in [router(), &seed] {
        let d = r.route(&big, &long_history);
        assert!((0.0..=1.0).contains(&d.confidence()));
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
            "\n\n(",
        ] {
            let d = r.route(s, &[h(Retrieval, s)]);
            assert!((0.0..=1.0).contains(&d.confidence()));
        }
    }
    assert!(build_prompt(&big, &long_history).len() < big.len() + 4_000);
}

// ---------------------------------------------------------------- properties

fn query_type() -> impl Strategy<Value = QueryType> {
    prop::sample::select(QueryType::ALL.to_vec())
}

fn any_history() -> impl Strategy<Value = Vec<IntentEntry>> {
    prop::collection::vec(
        (query_type(), any::<String>()).prop_map(|(kind, snippet)| IntentEntry { kind, snippet }),
        0..12,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_message_and_history_route_without_panicking(m in any::<String>(), history in any_history()) {
        let seed = Router::builder().strategy(RouteStrategy::Seed).build().unwrap();
        for r in [router(), &seed] {
            let d = r.route(&m, &history);
            prop_assert!((0.0..=1.0).contains(&d.confidence()));
            prop_assert!(!d.classification.reasons.is_empty());
            prop_assert_eq!(d.needs_retrieval, d.label().needs_retrieval());
            let _ = r.check_classifier_output(&m, &history, d.label());
            let _ = r.prompt(&m, &history);
        }
        let model = |_: Option<&str>, p: &str| Some(p.chars().rev().collect::<String>());
        let _ = router().route_with_model(&m, &history, &model);
    }

    #[test]
    fn message_like_strings_route(m in "[A-Za-zñá¿?,. ]{0,30}(my plan|write|eso|that|thanks|usage|72%|table)[a-z ?]{0,30}", history in any_history()) {
        let d = router().route(&m, &history);
        prop_assert!((0.0..=1.0).contains(&d.confidence()));
    }

    #[test]
    fn snippets_never_split_a_character(s in any::<String>()) {
        let cut = snippet(&s);
        prop_assert!(s.trim_start().starts_with(cut));
        prop_assert!(cut.chars().count() <= SNIPPET_CHARS);
        prop_assert!(s.trim_start().is_char_boundary(cut.len()));
        if s.trim_start().chars().count() >= SNIPPET_CHARS {
            prop_assert_eq!(cut.chars().count(), SNIPPET_CHARS);
        }
        let store = HistoryStore::with_limits(2, 2);
        store.record(&s, QueryType::Platform, &s);
        let back = store.recent(&s);
        prop_assert_eq!(back.len(), 1);
        prop_assert_eq!(back[0].snippet.as_str(), cut);
    }
}

// ------------------------------------------------ the default (hybrid) router

#[test]
fn hybrid_keeps_rc01_and_rc02_rule_based() {
    let r = Router::shared().unwrap();
    assert_eq!(r.strategy(), RouteStrategy::Hybrid);
    let d = r.route("You are a direct and concise assistant. Fix this loop", &[]);
    assert_eq!(d.rule, RouteRule::PlatformPrefix);
    for m in [
        "I'm at 92% of my monthly quota, what now?",
        "How many API calls did I make this month?",
        "¿Cuánto llevo gastado de mi plan este mes?",
    ] {
        let d = r.route(
            m,
            &[h(CodeGeneration, "Write an endpoint that lists products")],
        );
        assert_eq!(
            (d.label(), d.rule),
            (Platform, RouteRule::PlatformSignal),
            "{m}"
        );
        assert_eq!(d.classification.tier, Some(tact_types::Tier::Heuristic));
    }
    // A model-decided route names its tier and rule.
    let d = r.route("zzz qqq", &[]);
    match d.rule {
        RouteRule::Learned => assert_eq!(d.classification.tier, Some(tact_types::Tier::Learned)),
        _ => assert_eq!(d.classification.tier, Some(tact_types::Tier::Heuristic)),
    }
}

#[test]
fn hybrid_reads_only_the_history_window() {
    let r = Router::shared().unwrap();
    let mut history = vec![h(Platform, "How many API calls did I make this month?")];
    history.extend(std::iter::repeat_n(
        h(CodeGeneration, "Write a parser"),
        HISTORY_WINDOW,
    ));
    for m in ["And last month?", "can you break that down?", "thanks!"] {
        let all = r.route(m, &history);
        let window = r.route(m, &history[1..]);
        assert_eq!(all, window, "{m}");
    }
}
