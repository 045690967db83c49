//! The default effort strategy: weighted cues (English, Spanish, German)
//! scored per question part, the highest part deciding.
//!
//! Each part gets three scores. Low gathers offered options and yes/no
//! confirmations of a concrete proposal; medium gathers open preference or
//! decision elicitation and requests to describe what the user knows; high
//! gathers investigation, running or measuring things, fetching data the
//! user does not have at hand, asking other people, and blocking
//! architecture or strategy decisions. When the agent proposes to do the
//! work itself ("Should I investigate ...?") the investigation is the
//! agent's, so those cues count little. Data the user already has in front
//! of them ("the error you just saw") moves a fetch request to medium.

use std::sync::LazyLock;

use smallvec::SmallVec;
use tact_core::{Cue, CueHit, CueSet, WordSet, extract_questions, normalize};
use tact_types::{Classification, EffortLevel, Reason};

use crate::Error;

/// Cue categories (the `tag` of each cue).
mod tag {
    /// Low: the agent proposes something concrete.
    pub const PROPOSAL: u16 = 1;
    /// Low: asks to confirm something concrete.
    pub const CONFIRM: u16 = 2;
    /// Low: offers options.
    pub const OPTIONS: u16 = 3;
    /// High (agent's own work when proposed): investigation verbs.
    pub const INVESTIGATE: u16 = 4;
    /// High: the user must run, fetch or check something.
    pub const USER_ACTION: u16 = 5;
    /// High: data the user must dig out (damped by preference modals).
    pub const DATA: u16 = 6;
    /// High: architecture or strategy decisions.
    pub const STRATEGY: u16 = 7;
    /// Medium: preference, decision or description elicitation.
    pub const ELICIT: u16 = 8;
    /// Modifier: the data is already in front of the user.
    pub const AT_HAND: u16 = 9;
    /// High: other people must be asked.
    pub const OTHERS: u16 = 10;
    /// Medium: an open wh-question.
    pub const OPEN: u16 = 11;
    /// Low: a yes/no question addressed to the user's wishes.
    pub const YESNO: u16 = 12;
    /// A decision for the team (high with strategy, else medium).
    pub const DECIDE: u16 = 13;
    /// High: diagnosis of a cause.
    pub const DIAG: u16 = 14;
    /// High: a quantity to measure or count.
    pub const QUANT: u16 = 15;
    /// High: a yes/no question about a fact of the user's systems.
    pub const FACT: u16 = 16;
    /// High: the agent says the user would have to do work.
    pub const YOU_NEED: u16 = 17;
    /// Medium: a preference modal ("should", "want"), which damps data cues.
    pub const MODAL: u16 = 18;
    /// Medium: asks the user to describe what they know.
    pub const DESCRIBE: u16 = 19;
    /// High: the live state of things ("today", "in production").
    pub const LIVE: u16 = 20;
    /// Marker: the question is about the user ("you", "your").
    pub const YOU: u16 = 21;
    /// Marker: the question asks for a person ("who ...").
    pub const WHO: u16 = 22;
    /// Marker: a polite request frame ("can you").
    pub const POLITE: u16 = 23;
    /// Marker: a word that makes the rare regex cues worth running.
    pub const TRIGGER: u16 = 24;
}

const fn cue(name: &'static str, tag: u16, weight: f32, explanation: &'static str) -> Cue {
    Cue::new(name, weight, explanation).tagged(tag)
}

/// Optional lead-in before the question proper ("ok, so", "also,", "¿").
const LEAD: &str = r"^(?:[¿>*\-\s]*)(?:(?:ok|okay|so|also|and|great|alright|one more thing|quick question|otherwise|then|now|y|pues|entonces|vale|und|gut|auch|noch)[,:]?\s+)*";

fn build_cues() -> Result<CueSet, Error> {
    use tag::*;
    let p = |rest: &str| format!("{LEAD}{rest}");
    let set = CueSet::builder()
        // --- low: the agent proposes something concrete, a yes/no answers it.
        .regex(
            &p(r"(?:should i|shall i|shall we|do you want me to|would you like me to|want me to|would you like (?:us|the \w+) to|can i|may i|could i|is it (?:ok|okay|fine|alright|all right) (?:if i|to)|ok(?:ay)? (?:if i|to)|mind if i|are you (?:ok|okay|fine|happy) with|would it be (?:ok|okay|fine) (?:if|to)|do you mind if|should (?:the|this|these|it|they|that)|quieres que|deseas que|te parece (?:bien )?que|debo|puedo|prefieres que|soll ich|soll (?:das|der|die|es)|mochtest du,? dass ich|willst du,? dass ich|darf ich|kann ich|ist es (?:ok|okay|in ordnung),? wenn ich)\b"),
            cue("agent_proposal", PROPOSAL, 2.2, "yes/no on a concrete proposal"),
        )
        .phrases(
            "(can you confirm|could you confirm|please confirm|just (to )?confirm|is (that|this|it) (right|correct|ok|okay|what you (want|meant|expect))|did you mean|do you mean|are you sure|does (that|this) (look|sound|work)|sound good|sounds good|good to go|ok?|okay?|alright?|(es|esta) (correcto|bien)|te parece bien|vale?|de acuerdo?|ist das (richtig|korrekt|ok|in ordnung)|passt (das|es)|einverstanden|works for you|work for you|fine with you|(ok|okay|fine|alright|good) (with|for) you)",
            cue("confirmation", CONFIRM, 1.6, "asks to confirm something concrete"),
        )
        .regex(
            r"^(?:is|are) [^?]*\b(?:fine|ok|okay|acceptable|alright|good enough)\b",
            cue("confirmation_fine", CONFIRM, 1.6, "asks to confirm something concrete"),
        )
        .regex(
            &p(r"(?:do you (?:want|prefer|need|like|mind|agree)|would you (?:prefer|like|rather)|are you (?:ok|okay|fine|happy|good)|is (?:it|that) (?:ok|okay|fine|acceptable)|quieres|prefieres|te (?:parece|viene)|mochtest du|willst du|brauchst du|ist (?:es|das) (?:ok|okay))\b"),
            cue("yes_no_wish", YESNO, 2.2, "a yes/no question about the user's wishes"),
        )
        // --- low: options offered.
        .literals(&["or", "o", "u", "oder", "vs", "versus"], cue("explicit_options", OPTIONS, 2.0, "offers alternatives"))
        .phrases("option (a|b|c|d|e|1|2|3|4|5|6|7|8|9)", cue("option_list", OPTIONS, 2.0, "lists options"))
        .literals(
            &["(a)", "(1)", "(b)", "(2)", "a)", "b)", "c)", "1)", "2)", "3)"],
            cue("option_marks", OPTIONS, 2.0, "lists options"),
        )
        .phrases(
            "(either|entweder|bien sea)",
            cue("either", OPTIONS, 0.8, "either ... or"),
        )
        .phrases(
            "or not|o no|oder nicht",
            cue("or_not", YESNO, 1.0, "yes or no"),
        )
        // --- high: investigation, research, measurement.
        .literals(
            &[
                "investigat*", "look into", "dig into", "dig through", "dig up", "dig out", "find out",
                "figure out", "track down", "profile", "profiling", "benchmark", "benchmarking", "measure",
                "measuring", "bisect*", "reproduce", "reproducing", "audit", "auditing", "analyze",
                "analyse", "analyzing", "analysing", "survey", "evaluate", "assess", "explore", "go through",
                "read through", "comb through", "look through", "gather", "collect", "compile a list",
                "quantify", "experiment with", "interview", "pull the", "pull up", "check the logs",
                "check your logs", "trace", "inventory", "sift through",
                "investigar", "averiguar", "medir", "analizar", "revisar", "reproducir", "recopilar",
                "untersuch*", "recherchier*", "herausfind*", "messen", "analysier*", "prufen", "nachsehen",
                "nachschauen", "reproduzier*", "sammeln", "ermitteln", "nachfragen",
            ],
            cue("investigation", INVESTIGATE, 2.0, "asks for investigation or measurement"),
        )
        .phrases(
            "research(ing)? (into|on|whether|if|what|how|which|the|a|options|alternatives|solutions|this|that|it)|(do|some|more|further|additional|desk) research",
            cue("research", INVESTIGATE, 2.0, "asks for research"),
        )
        // --- high: the user must run, check or fetch something.
        .phrases(
            "(can|could|would) you (please )?(also )?(run|rerun|re-run|execute|try|test|check|verify|look|find|grab|pull|fetch|export|download|capture|record|profile|time|measure|search|dig|inspect|log into|log in|sign in|ssh|deploy|restart|install|upgrade|ask|reach out|contact|ping|email|confirm with|check with|get|obtain|retrieve|dump|list all|find out)|(would you be able to|are you able to|could you possibly|can you please|is it possible for you to) (run|check|look|find|pull|grab|fetch|export|get|verify|measure|test|ask|send|share|provide|confirm)|please (run|rerun|execute|try|test|check|verify|look up|find|grab|pull|fetch|export|download|capture|record|profile|measure|search|inspect|ask|contact|get|obtain|dump)|(puedes|podrias|podria|puede|pudieras) (ejecutar|correr|probar|revisar|comprobar|verificar|buscar|mirar|preguntar|consultar|medir|exportar|descargar|obtener|sacar|sacarme|averiguar)",
            cue("user_action", USER_ACTION, 2.0, "asks the user to run, fetch or check something"),
        )
        .phrases(
            "(can|could|would) you (please )?(provide|share|send|paste|attach|upload|post|give me|copy)|(me puedes|puedes|podrias) (pasar|pasarme|enviar|enviarme|mandar|mandarme|compartir|pegar)|please (provide|share|send|paste|attach|upload)",
            cue("send_me", DATA, 1.2, "asks the user to send something"),
        )
        // --- high: data the user must dig out.
        .literals(
            &[
                "logs", "log output", "stack trace", "stacktrace", "traceback", "core dump", "heap dump",
                "metrics", "p95", "p99", "p50", "latency", "throughput", "error rate", "flame graph",
                "dashboard", "in production", "in prod", "on prod", "on production", "production hosts",
                "exact version", "exact error", "full error", "which commit", "what commit", "which release",
                "when did", "since when", "usage", "statistics", "traffic", "budget", "cost", "costs",
                "spend", "pay", "credentials", "access to", "permission", "permissions", "output of",
                "results of", "who owns", "who has access", "which team", "which customers", "customers",
                "market share", "competitors", "studies", "evidence", "significance", "registros",
                "metricas", "protokoll*", "metriken", "kunden", "studien", "somewhere", "in the org",
            ],
            cue("data_to_fetch", DATA, 1.0, "asks for data the user must dig out"),
        )
        .literals(
            &[
                "in production", "in prod", "on prod", "on production", "production hosts", "right now",
                "currently", "current", "actually", "actual", "real-world", "real numbers", "today",
                "these days", "this week", "this month", "this quarter", "last week", "last month",
                "last quarter", "last year", "last night", "yesterday", "at peak", "since yesterday",
                "en produccion", "actual", "actualmente", "ahora mismo", "ayer", "el mes pasado",
                "in produktion", "aktuell", "derzeit", "momentan", "gestern", "zu spitzenzeiten",
            ],
            cue("live_state", LIVE, 1.0, "asks for the live state of things"),
        )
        .literals(
            &[
                "you", "your", "you're", "you've", "you'd", "yours", "tu", "tus", "te", "usted", "ustedes",
                "vosotros", "du", "dein", "deine", "ihr", "euch", "euer",
            ],
            cue("about_you", YOU, 0.0, "asks about the user"),
        )
        // Polite request frames: longest-match makes them absorb their "you".
        .literals(
            &["can you", "could you", "would you", "will you", "should you", "do you", "thank you", "kannst du", "konntest du", "puedes tu"],
            cue("polite_frame", POLITE, 0.0, "a polite request frame"),
        )
        .phrases(
            "(tell me|let me know|do you know|any idea|sabes|weisst du) (which|what|whether|if|when|where|how many|how much|who|why|que|cual|cuando|donde|welche|was|wann|wo|ob)",
            cue("embedded_question", OPEN, 0.9, "an open question"),
        )
        .phrases(
            "(i can(')?t find|i couldn(')?t find|i could not find|i cannot find|i can(')?t see|couldn(')?t find|not documented|undocumented|none of the (existing )?docs|no (docs|documentation)|i only have|spread (over|across)|conflicting|no encuentro|no pude encontrar|no esta documentad|finde ich nicht|nirgends|nicht dokumentiert)",
            cue("not_at_hand", DATA, 1.6, "the agent could not find it; the user must dig"),
        )
        .phrases(
            "(you(')?d need to|you would need to|you(')?d have to|you would have to|you(')?ll need to|you will need to|you(')?ll have to|you will have to|requires you to|you need to (check|look|run|compare|ask|find)|tendrias que|habria que|musstest du|du musstest)",
            cue("you_would_need_to", YOU_NEED, 2.5, "the user would have to do work to answer"),
        )
        .phrases(
            "caused by|cause of|causing|due to|coming from|comes from|come from|responsible for|culprit|running out|bottleneck|slower|faster|why (is|are|does|do|did|was|were|has|have)|what's causing|what is causing|what caused|what changed|what broke|viene de|viene del|se debe a|por que|liegt (das|der|die|es)|verursacht|warum|wieso|woran",
            cue("diagnosis", DIAG, 2.2, "asks for a diagnosis of a cause"),
        )
        .literals(&["correlat*", "leak*", "regress*"], cue("diagnosis_stem", DIAG, 2.2, "asks for a diagnosis of a cause"))
        .phrases(
            "(how (many|much|long|often|big|large|fast|slow|frequently)|what (percentage|fraction|share|proportion)|cuanto|cuanta|cuantos|cuantas|wie ((viel|viele)|lange|oft|gross|schnell))",
            cue("quantity", QUANT, 1.4, "asks for a quantity to measure or count"),
        )
        .regex(
            &p(r"(?:is|are|was|were|does|do|did|has|have|had|will|can) (?:the|this|that|these|those|our|any|anyone|anybody|anything|there|it|prod|production|staging|port|\w+ (?:still|already|ever|actually|currently))\b"),
            cue("fact_check", FACT, 1.3, "asks a fact the user must check"),
        )
        .literals(
            &[
                "you just", "just showed", "just got", "you mentioned", "you reported", "you saw",
                "you're seeing", "you are seeing", "you see", "you got", "you posted", "you pasted",
                "you shared", "you sent", "on your screen", "in front of you", "you described",
                "showed you", "you said", "you told me", "the screenshot you", "acabas de", "que ves",
                "que viste", "dijiste", "mencionaste", "comentaste", "du gerade", "du siehst", "du gesehen",
                "erwahnt", "du hattest gesagt",
            ],
            cue("at_hand", AT_HAND, 1.0, "the data is already in front of the user"),
        )
        // --- high: other people must be asked.
        .phrases(
            "ask (your|the|someone|somebody|around|legal|security|finance|ops|the team)|check with|consult|talk to|reach out to|confirm with|loop in|coordinate with|get sign-off|get signoff|get approval|anyone else|other teams|preguntar a|preguntarle a|consultar con|hablar con|fragen|abklaren|rucksprache",
            cue("ask_others", OTHERS, 1.8, "the user must ask someone else"),
        )
        // --- high: blocking architecture / strategy decisions.
        .literals(
            &[
                "architecture", "architectural", "strategy", "strategic", "trade-off", "trade-offs",
                "tradeoff", "tradeoffs", "long-term", "long term", "roadmap", "re-architect", "rearchitect",
                "rewrite", "redesign", "overhaul", "vendor", "build vs buy", "build or buy", "build our own",
                "in-house", "compliance", "compliant", "regulatory", "legal", "licensing", "license",
                "licenses", "before proceeding", "before we proceed", "before i proceed", "before going further",
                "blocking", "blocked", "scalab*", "multi-region", "event sourcing", "microservice*",
                "monolith", "sharding", "data model", "consistency", "standardise", "standardize",
                "standardize on", "adopt", "across all teams", "org-wide", "company-wide", "isolation",
                "multi-tenan*", "tenants", "this affects", "given we", "given the", "next year", "move from",
                "move the", "switch from", "switch to", "before adding", "before building",
                "before the launch", "before launch", "per customer", "per tenant",
                "arquitectura", "estrategia", "a largo plazo", "migrar", "antes del lanzamiento",
                "architektur", "strategie", "langfristig", "migrier*", "abwagung*",
            ],
            cue("strategy_decision", STRATEGY, 1.5, "a blocking architecture or strategy decision"),
        )
        .phrases(
            "(should we|do we need to|need to decide|have to decide|must decide|which direction|what approach should|how should we approach|deberiamos|tenemos que decidir|sollten wir|sollen wir|mussen wir entscheiden)",
            cue("team_decision", DECIDE, 0.8, "a decision the team must take"),
        )
        // --- medium: preference and decision elicitation, describing.
        .regex(
            &p(r"(?:what|which|how|who|where|when|why|que|cual|cuales|como|quien|donde|cuando|was|welche|welcher|welches|wie|wer|wo|wann)\b"),
            cue("open_question", OPEN, 0.9, "an open question"),
        )
        .phrases(
            "(should|shall|would you like|do you want|you want|you'd like|you would like|you prefer|do you expect|you expect|you(')?re hoping|you hope|acceptable|target|deberia|deberian|quieres|prefieres|esperas|soll|sollen|sollte|mochtest|willst|erwartest)",
            cue("preference_modal", MODAL, 1.0, "asks what should be, not what is"),
        )
        .regex(
            &p(r"(?:who|who's|whom|quien|quienes|wer|wem|wen)\b"),
            cue("asks_person", WHO, 0.0, "asks who"),
        )
        .literals(
            &[
                "prefer", "preference", "preferred", "how would you like", "how do you want",
                "what do you think", "your opinion", "your call", "up to you", "more details", "more detail",
                "more context", "use case", "expected behavior", "expected behaviour", "what kind of",
                "what type of", "what sort of", "what style", "what tone", "what format", "naming", "audience",
                "the goal", "your goal", "in mind", "what are you trying", "remember", "recall", "clarify",
                "hoping to", "trying to answer", "meant to", "business question", "research question",
                "care about", "care most", "matter most", "matters most", "important to you", "new name",
                "name for", "call it", "be called", "gustaria", "nombre", "ponemos", "llamamos", "nennen",
                "preferencia", "mas detalles", "caso de uso", "que esperas", "como quieres", "bevorzug*",
                "mehr details", "anwendungsfall", "wie mochtest", "was erwartest",
            ],
            cue("elicit", ELICIT, 1.0, "asks for a preference, decision or description"),
        )
        .phrases(
            "describe|explain|elaborate|sketch|walk me through|in your own words|tell me (more|about|what you)|what you'd like|what you would like|what you have in mind|what you mean|describir|explica|explicar|cuentame|erzahl",
            cue("describe", DESCRIBE, 1.6, "asks the user to describe what they know"),
        )
        .literals(&["beschreib*", "erklar*"], cue("describe_de", DESCRIBE, 1.6, "asks the user to describe what they know"))
        .literals(TRIGGERS, cue("trigger", TRIGGER, 0.0, "a trigger word"))
        .build()?;
    Ok(set)
}

/// Regex cues that only matter when a trigger word is present (German
/// request frames, "which X broke", "A/B/C"): compiled in a set of their
/// own that runs only then, keeping the common path on aho-corasick.
fn build_rare_cues() -> Result<CueSet, Error> {
    use tag::*;
    let set = CueSet::builder()
        .regex(r"\w/\w+/\w", cue("option_slashes", OPTIONS, 2.0, "lists options"))
        .regex(
            r"\b(?:kannst|konntest|konnten sie|konnen sie) (?:du |sie )?(?:mal )?(?:\w+ )?(?:\w+ )?(?:ausfuhren|laufen lassen|testen|prufen|nachsehen|nachschauen|fragen|nachfragen|messen|exportieren|herunterladen|besorgen|raussuchen|heraussuchen)\b",
            cue("user_action_de", USER_ACTION, 2.0, "asks the user to run, fetch or check something"),
        )
        .regex(
            r"\b(?:kannst|konntest) du (?:mir )?(?:\w+ )?(?:schicken|senden|teilen|einfugen|geben)\b",
            cue("send_me_de", DATA, 1.2, "asks the user to send something"),
        )
        .regex(
            r"\bwhich \w+ (?:broke|introduced|causes|caused)\b",
            cue("diagnosis_which", DIAG, 2.2, "asks for a diagnosis of a cause"),
        )
        .regex(r"\bbeim \w+ nachfragen\b", cue("ask_others_de", OTHERS, 1.8, "the user must ask someone else"))
        .build()?;
    Ok(set)
}

/// Trigger words of [`build_rare_cues`] (tag `TRIGGER`, no weight).
const TRIGGERS: &[&str] = &[
    "kannst", "konntest", "konnten", "konnen", "beim", "which", "/",
];

/// [`BARE_VERBS`], [`ES_NOT_VERB`] and [`STOP`] as sets, built once.
static BARE_VERB_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(BARE_VERBS));
static ES_NOT_VERB_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(ES_NOT_VERB));
static STOP_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(STOP));

/// Imperative verbs that open a terse proposal ("Ship it?", "Roll back to
/// v2.3?", "Delete the three volumes?").
const BARE_VERBS: &[&str] = &[
    "add",
    "apply",
    "approve",
    "archive",
    "assign",
    "attach",
    "backfill",
    "batch",
    "bump",
    "cache",
    "cancel",
    "cap",
    "change",
    "clean",
    "close",
    "combine",
    "comment",
    "commit",
    "continue",
    "convert",
    "copy",
    "create",
    "cut",
    "decrease",
    "default",
    "delete",
    "deploy",
    "disable",
    "document",
    "downgrade",
    "drop",
    "email",
    "enable",
    "exclude",
    "export",
    "extend",
    "extract",
    "file",
    "fix",
    "flag",
    "freeze",
    "go",
    "group",
    "hide",
    "import",
    "include",
    "increase",
    "inline",
    "install",
    "keep",
    "kill",
    "label",
    "leave",
    "limit",
    "link",
    "lock",
    "lower",
    "make",
    "mark",
    "mention",
    "merge",
    "move",
    "mute",
    "note",
    "notify",
    "open",
    "pause",
    "pin",
    "ping",
    "post",
    "proceed",
    "promote",
    "publish",
    "push",
    "put",
    "raise",
    "rebase",
    "reboot",
    "reduce",
    "refresh",
    "reload",
    "remove",
    "rename",
    "reorder",
    "replace",
    "reply",
    "restart",
    "resume",
    "retrain",
    "retry",
    "revert",
    "roll",
    "rotate",
    "round",
    "schedule",
    "send",
    "set",
    "ship",
    "show",
    "silence",
    "skip",
    "snooze",
    "sort",
    "split",
    "squash",
    "start",
    "stick",
    "stop",
    "switch",
    "sync",
    "tag",
    "translate",
    "treat",
    "trim",
    "truncate",
    "turn",
    "tweak",
    "unpin",
    "update",
    "upgrade",
    "upload",
    "use",
    "wait",
    "want",
    "wrap",
    "write",
];

/// Spanish words ending in `o` that are not a first-person verb.
const ES_NOT_VERB: &[&str] = &[
    "acaso",
    "algo",
    "archivo",
    "cambio",
    "caso",
    "codigo",
    "como",
    "correo",
    "cuando",
    "cuanto",
    "dato",
    "donde",
    "equipo",
    "eso",
    "esto",
    "formato",
    "metodo",
    "mismo",
    "modelo",
    "ningun",
    "nuevo",
    "objetivo",
    "otro",
    "paso",
    "pero",
    "por",
    "presupuesto",
    "producto",
    "proyecto",
    "punto",
    "quizo",
    "registro",
    "seguro",
    "servicio",
    "solo",
    "tanto",
    "tiempo",
    "todo",
    "uso",
];

/// Whether the part opens with a bare verb: an English imperative
/// ("Ship it?") or a Spanish first-person present ("¿Borro la rama?").
fn bare_verb_start(part: &str) -> bool {
    match ascii_lead_word(part) {
        Some(first) => bare_verb_word(part, first),
        None => {
            let mut words = tact_core::words(part);
            let first = skip_lead_ins(words.next(), &mut words);
            first.is_some_and(|w| bare_verb_word(part, w))
        }
    }
}

/// The first word of `part` after the lead-ins of [`is_lead_in`], found
/// without UAX #29 segmentation when the text makes that safe: ASCII
/// letters and digits up to a space or punctuation that never joins words.
/// `None` when a UAX #29 rule could apply (non-ASCII, `_`, or `.`, `'`,
/// `:`, `,`, `;` between word characters): the caller then segments.
fn ascii_lead_word(part: &str) -> Option<&str> {
    let bytes = part.as_bytes();
    let mut pos = 0usize;
    loop {
        // Skip to the next word character.
        while let Some(&b) = bytes.get(pos) {
            if b.is_ascii_alphanumeric() {
                break;
            }
            if !b.is_ascii() || b == b'_' {
                return None;
            }
            pos += 1;
        }
        if pos >= bytes.len() {
            return Some("");
        }
        let start = pos;
        while bytes.get(pos).is_some_and(u8::is_ascii_alphanumeric) {
            pos += 1;
        }
        match bytes.get(pos) {
            None => {}
            Some(&b) if !b.is_ascii() || b == b'_' => return None,
            Some(b'.' | b'\'' | b':' | b',' | b';')
                if bytes
                    .get(pos + 1)
                    .is_some_and(|n| n.is_ascii_alphanumeric() || !n.is_ascii() || *n == b'_') =>
            {
                return None;
            }
            Some(_) => {}
        }
        let word = part.get(start..pos)?;
        if !is_lead_in(word) {
            return Some(word);
        }
    }
}

/// Skips the lead-in words of [`is_lead_in`] (an exhausted iterator gives
/// `Some("")`, as the segmenting path always did).
fn skip_lead_ins<'a>(
    first: Option<&'a str>,
    words: &mut impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut first = first?;
    while is_lead_in(first) {
        first = words.next().unwrap_or("");
    }
    Some(first)
}

/// Whether `first` (the first word after the lead-ins) makes `part` a
/// terse proposal.
fn bare_verb_word(part: &str, first: &str) -> bool {
    if BARE_VERB_SET.contains(first) {
        return true;
    }
    first.chars().count() >= 4
        && first.ends_with('o')
        && part.trim_start().starts_with('¿')
        && !ES_NOT_VERB_SET.contains(first)
}

/// Words skipped before the verb of a terse proposal ("ok, so merge it").
fn is_lead_in(first: &str) -> bool {
    matches!(
        first,
        "ok" | "okay"
            | "so"
            | "also"
            | "and"
            | "then"
            | "y"
            | "und"
            | "la"
            | "lo"
            | "le"
            | "las"
            | "los"
            | "les"
            | "me"
            | "te"
            | "se"
            | "nos"
            | "ya"
            | "entonces"
    )
}

/// Whether a normalized question may hold several parts: a space, then
/// `and`, `y`, `und`, `also` or `plus`, then a space (one scan of the
/// spaces instead of five substring searches).
fn has_part_connective(n: &str) -> bool {
    let b = n.as_bytes();
    (0..b.len()).any(|i| {
        b[i] == b' '
            && matches!(
                b.get(i + 1..).unwrap_or_default(),
                [b'a', b'n', b'd', b' ', ..]
                    | [b'y', b' ', ..]
                    | [b'u', b'n', b'd', b' ', ..]
                    | [b'a', b'l', b's', b'o', b' ', ..]
                    | [b'p', b'l', b'u', b's', b' ', ..]
            )
    })
}

/// Split points between the parts of a multi-part question (normalized).
fn part_splitter() -> Result<regex::Regex, Error> {
    regex::Regex::new(
        r"(?:,|;|\s-)?\s(?:and|also|plus|y|und)\s(?:also\s)?(?:what|which|how|where|when|who|why|should|shall|do|does|can|could|would|is|are|will|que|cual|como|donde|cuando|debo|puedo|was|welche|wie|wo|wann|soll|kann)(?-u:\b)",
    )
    .map_err(|e| {
        Error::Core(tact_core::Error::Pattern {
            pattern: "part splitter".into(),
            message: e.to_string(),
        })
    })
}

/// Stop words ignored when checking whether a context answers a question.
const STOP: &[&str] = &[
    "a", "about", "an", "and", "any", "are", "be", "can", "como", "con", "could", "cual", "das",
    "de", "del", "der", "did", "die", "do", "does", "du", "el", "for", "from", "fur", "has",
    "have", "how", "i", "ich", "in", "into", "is", "it", "know", "la", "las", "let", "like", "los",
    "me", "mit", "need", "of", "on", "or", "our", "para", "please", "que", "quieres", "should",
    "soll", "that", "the", "there", "this", "to", "una", "und", "uno", "use", "using", "want",
    "was", "we", "welche", "were", "what", "when", "where", "which", "wie", "will", "wir", "with",
    "would", "you", "your",
];

/// The names of the cues and markers that fired (the learned model's extra
/// features), inline for the usual few.
pub(crate) type Extras = SmallVec<[&'static str; 24]>;

#[derive(Debug, Clone)]
pub(crate) struct Heuristic {
    cues: CueSet,
    rare: CueSet,
    splitter: regex::Regex,
}

#[derive(Default, Clone, Copy)]
struct Scores {
    low: f32,
    medium: f32,
    high: f32,
}

impl Heuristic {
    pub(crate) fn new() -> Result<Self, Error> {
        Ok(Self {
            cues: build_cues()?,
            rare: build_rare_cues()?,
            splitter: part_splitter()?,
        })
    }

    pub(crate) fn classify(
        &self,
        question: &str,
        context: Option<&str>,
    ) -> Classification<EffortLevel> {
        self.classify_traced(question, context, None).0
    }

    /// Classifies, and returns the gap between the deciding part's top two
    /// scores; with `trace`, also pushes the names of the cues and markers
    /// that fired (the learned model's extra features) and returns
    /// `normalize(question)` when it was computed on the way (a question
    /// that is one sentence, or none).
    pub(crate) fn classify_traced(
        &self,
        question: &str,
        context: Option<&str>,
        mut trace: Option<&mut Extras>,
    ) -> (Classification<EffortLevel>, f32, Option<String>) {
        let ctx_text = context.map(normalize).filter(|c| !c.is_empty());
        // The parts: each question sentence (with its option list), split
        // again at "and what/which/should ...". No question sentence: the
        // whole text. The other sentences (the preamble) lend their
        // evidence to every part.
        let segments = extract_questions(question);
        // Most questions have one or two parts: kept inline.
        let mut parts: SmallVec<[String; 2]> = SmallVec::new();
        // `normalize(question)`: the only part, or the split segment.
        let mut whole_is_part = false;
        let mut whole: Option<String> = None;
        let mut preamble = String::new();
        let mut add_preamble = |piece: &str| {
            if !piece.trim().is_empty() {
                preamble.push_str(piece);
                preamble.push(' ');
            }
        };
        if segments.is_empty() {
            parts.push(normalize(question));
            whole_is_part = true;
        } else {
            let mut last_end = 0;
            for s in &segments {
                if let Some(between) = question.get(last_end..s.start) {
                    add_preamble(between);
                }
                last_end = s.end;
                let n = normalize(s.text(question));
                let is_whole = s.start == 0 && s.end == question.len();
                let may_split = has_part_connective(&n);
                if !may_split {
                    whole_is_part = is_whole;
                    parts.push(n);
                    continue;
                }
                let mut last = 0;
                for m in self.splitter.find_iter(&n) {
                    let piece = n[last..m.start()].trim();
                    if !piece.is_empty() {
                        parts.push(piece.to_owned());
                    }
                    last = m.start();
                }
                let piece = n[last..].trim_start_matches([',', ';', ' ', '-']);
                let piece = piece
                    .strip_prefix("and ")
                    .or_else(|| piece.strip_prefix("also "))
                    .unwrap_or(piece);
                // "... and when?" continues the part before it.
                match parts.last_mut() {
                    Some(prev) if last > 0 && tact_core::word_count(piece) < 3 => {
                        prev.push(' ');
                        prev.push_str(piece);
                    }
                    _ => parts.push(piece.to_owned()),
                }
                if is_whole {
                    whole = Some(n);
                }
            }
            if let Some(rest) = question.get(last_end..) {
                add_preamble(rest);
            }
        }
        let preamble = normalize(&preamble);
        let pre_hits = if preamble.is_empty() {
            Vec::new()
        } else {
            self.cues.hits_unlocated(&preamble)
        };
        let extra = Extra::from_preamble(&pre_hits);
        if let Some(t) = trace.as_deref_mut() {
            t.extend(extra.taken.iter().map(|h| h.cue.name));
            if extra.at_hand {
                t.push("preamble_at_hand");
            }
            if !preamble.is_empty() {
                t.push("has_preamble");
            }
            if ctx_text.is_some() {
                t.push("has_context");
            }
            if parts.len() > 1 {
                t.push("multi_part");
            }
        }
        let norm_ctx = ctx_text.as_deref().map(|c| Context::new(c, parts.len()));
        // Reasons are written for the deciding part only.
        let mut best: Option<(&str, PartDecision<'_>)> = None;
        for part in &parts {
            let d = self.classify_part(part, norm_ctx.as_ref(), &extra, trace.as_deref_mut());
            let better = match &best {
                None => true,
                Some((_, b)) => d.label > b.label || (d.label == b.label && d.conf > b.conf),
            };
            if better {
                best = Some((part, d));
            }
        }
        let (label, conf, gap, mut reasons) = match best {
            Some((part, d)) => (d.label, d.conf, d.gap, d.reasons(part, &extra, &preamble)),
            None => (EffortLevel::Medium, 0.34, 0.0, Vec::new()),
        };
        if parts.len() > 1 {
            let mut detail = String::with_capacity(32);
            crate::detail::push_count(&mut detail, parts.len() as u64);
            detail.push_str(" parts; the highest decides");
            reasons.push(Reason::new("multi_part", detail, 0.0));
        }
        let normalized = match trace {
            Some(_) if whole_is_part && parts.len() == 1 => parts.pop(),
            Some(_) => whole,
            None => None,
        };
        (
            Classification {
                label,
                confidence: conf,
                reasons,
                tier: None,
            },
            gap,
            normalized,
        )
    }

    fn classify_part<'c>(
        &'c self,
        part: &str,
        ctx: Option<&Context<'_>>,
        extra: &Extra<'_>,
        mut trace: Option<&mut Extras>,
    ) -> PartDecision<'c> {
        let mut hits = self.cues.hits_unlocated(part);
        if hits.iter().any(|h| h.cue.tag == tag::TRIGGER) {
            hits.extend(self.rare.hits_unlocated(part));
        }
        let bare = bare_verb_start(part);
        if let Some(t) = trace.as_deref_mut() {
            t.extend(hits.iter().map(|h| h.cue.name));
            if bare {
                t.push("bare_verb");
            }
        }
        // Per-tag weight sums and counts, in one pass.
        let mut sums = [0.0f32; 32];
        let mut counts = [0u8; 32];
        for h in &hits {
            let t = usize::from(h.cue.tag) & 31;
            sums[t] += h.cue.weight;
            counts[t] = counts[t].saturating_add(1);
        }
        let has = |t: u16| counts[usize::from(t) & 31] > 0;
        let sum = |t: u16| sums[usize::from(t) & 31];
        if let Some(ctx) = ctx {
            // An answer in the context counts, unless the question asks for
            // the live state of things ("today", "in production").
            if !has(tag::LIVE) {
                if let Some(reason) = context_answers(part, ctx) {
                    if let Some(t) = trace {
                        t.push("context_answers");
                    }
                    return PartDecision {
                        label: EffortLevel::Low,
                        conf: 0.8,
                        gap: CONTEXT_GAP,
                        hits: Vec::new(),
                        bare,
                        proposal: false,
                        at_hand: false,
                        fact_lookup: false,
                        context: Some(reason),
                    };
                }
            }
        }
        let proposal = has(tag::PROPOSAL) || bare;
        let at_hand = has(tag::AT_HAND) || extra.at_hand;
        let modal = has(tag::MODAL) || has(tag::ELICIT);
        let describe = has(tag::DESCRIBE);
        let about_you = has(tag::YOU);
        let mut s = Scores {
            medium: 0.4,
            ..Scores::default()
        };
        // Low evidence.
        s.low += sum(tag::PROPOSAL) + sum(tag::CONFIRM) + sum(tag::OPTIONS) + sum(tag::YESNO);

        s.low += extra.options;
        if bare {
            s.low += 2.0;
        }
        // Medium evidence.
        s.medium += sum(tag::ELICIT) + sum(tag::OPEN) + sum(tag::MODAL) + sum(tag::DESCRIBE);
        // High evidence. The agent's own proposed work costs the user little,
        // and "what should X be" asks for a wish, not for data.
        let agent_work = if proposal { 0.25 } else { 1.0 };
        let wish = if modal { 0.3 } else { 1.0 };
        s.high += sum(tag::INVESTIGATE) * agent_work;
        s.high += sum(tag::STRATEGY) * if proposal { 0.3 } else { 1.0 };
        s.high += sum(tag::USER_ACTION) + sum(tag::YOU_NEED) + sum(tag::OTHERS) * agent_work;
        s.high += sum(tag::DIAG) * agent_work;
        let data = (sum(tag::DATA) + sum(tag::QUANT) + sum(tag::FACT) + sum(tag::LIVE))
            * wish
            * agent_work;
        if at_hand {
            s.medium += data;
        } else {
            s.high += data;
        }
        // An open question about things, not about the user's wishes or
        // knowledge, asks for a fact the user must look up.
        let asks_person = has(tag::WHO);
        let fact_lookup =
            has(tag::OPEN) && !modal && !describe && !about_you && !proposal && !asks_person;
        if fact_lookup && at_hand {
            s.medium += FACT_LOOKUP;
        } else if fact_lookup {
            s.high += FACT_LOOKUP;
        }
        if has(tag::DECIDE) && (has(tag::STRATEGY) || extra.strategy > 0.0) {
            s.high += sum(tag::DECIDE);
        } else {
            s.medium += sum(tag::DECIDE);
        }
        s.high += extra.high;
        let label = if s.high >= s.low.max(s.medium) && s.high > 0.0 {
            EffortLevel::High
        } else if s.low >= s.medium {
            EffortLevel::Low
        } else {
            EffortLevel::Medium
        };
        PartDecision {
            label,
            conf: softmax_winner(s, label),
            gap: top_two_gap(s),
            hits,
            bare,
            proposal,
            at_hand,
            fact_lookup,
            context: None,
        }
    }
}

/// One part's decision, with what its reasons are written from (only the
/// deciding part's are).
struct PartDecision<'c> {
    label: EffortLevel,
    conf: f32,
    gap: f32,
    hits: Vec<CueHit<'c>>,
    bare: bool,
    proposal: bool,
    at_hand: bool,
    fact_lookup: bool,
    /// Set when the context answers the part (its only reason).
    context: Option<Reason>,
}

impl PartDecision<'_> {
    /// The reasons for the decision: the supporting cues by weight, then
    /// the markers and the surrounding text's evidence; `default` when
    /// there is none.
    fn reasons(self, part: &str, extra: &Extra<'_>, preamble: &str) -> Vec<Reason> {
        if let Some(reason) = self.context {
            return vec![reason];
        }
        let label = self.label;
        let mut reasons = reasons_for(
            self.hits,
            part,
            label,
            self.proposal,
            self.at_hand,
            label == EffortLevel::Low && self.bare,
        );
        if label == EffortLevel::High && self.fact_lookup {
            reasons.push(Reason::new(
                "fact_lookup",
                "asks for a fact about systems or data, not a wish",
                FACT_LOOKUP,
            ));
        }
        // The surrounding text's evidence for a low or high label.
        reasons.extend(
            extra
                .taken
                .iter()
                .filter(|h| {
                    let option = h.cue.name.starts_with("explicit_options")
                        || h.cue.name.starts_with("option_");
                    match label {
                        EffortLevel::Low => option,
                        EffortLevel::High => !option,
                        EffortLevel::Medium => false,
                    }
                })
                .map(|h| preamble_reason(h, preamble)),
        );
        if reasons.is_empty() {
            reasons.push(Reason::new("default", "no strong cue; open request", 0.0));
        }
        reasons
    }
}

/// The gap reported when the context answers the question (a decided
/// case, as strong as a clear cue).
const CONTEXT_GAP: f32 = 2.0;

/// The top score minus the runner-up's.
fn top_two_gap(s: Scores) -> f32 {
    let mut v = [s.low, s.medium, s.high];
    v.sort_by(|a, b| b.total_cmp(a));
    v[0] - v[1]
}

/// Weight of an open question about facts rather than wishes.
const FACT_LOOKUP: f32 = 1.3;

/// Evidence from the sentences around the questions: "You'd have to run
/// the stress test", "I couldn't find it", "I can do A or B", "This affects
/// isolation and cost".
#[derive(Debug, Default)]
struct Extra<'c> {
    high: f32,
    strategy: f32,
    options: f32,
    at_hand: bool,
    /// The hits that lend evidence (their reasons are written only for
    /// the decision they support).
    taken: SmallVec<[CueHit<'c>; 4]>,
}

impl<'c> Extra<'c> {
    fn from_preamble(hits: &[CueHit<'c>]) -> Self {
        let mut e = Extra::default();
        for h in hits {
            let take = match h.cue.tag {
                tag::YOU_NEED => {
                    e.high += h.cue.weight;
                    true
                }
                tag::DATA if h.cue.name == "not_at_hand" => {
                    e.high += h.cue.weight;
                    true
                }
                tag::STRATEGY => {
                    e.strategy += h.cue.weight;
                    e.high += h.cue.weight * 0.7;
                    true
                }
                tag::OPTIONS => {
                    e.options = e.options.max(1.5);
                    true
                }
                tag::AT_HAND => {
                    e.at_hand = true;
                    false
                }
                _ => false,
            };
            if take {
                e.taken.push(*h);
            }
        }
        e
    }
}

/// The reason of a hit in the surrounding text (`text`, the normalized
/// preamble it was found in).
fn preamble_reason(h: &CueHit<'_>, text: &str) -> Reason {
    const WHERE: &str = " (in the surrounding text)";
    let m = span_text(h, text);
    let mut detail = String::with_capacity(h.cue.explanation.len() + WHERE.len() + m.len() + 4);
    detail.push_str(h.cue.explanation);
    detail.push_str(WHERE);
    if !m.is_empty() {
        detail.push_str(": `");
        detail.push_str(m);
        detail.push('`');
    }
    Reason::new(h.cue.name, detail, h.cue.weight)
}

fn softmax_winner(s: Scores, label: EffortLevel) -> f32 {
    let t = 1.5;
    let (l, m, h) = ((s.low * t).exp(), (s.medium * t).exp(), (s.high * t).exp());
    let total = l + m + h;
    let w = match label {
        EffortLevel::Low => l,
        EffortLevel::Medium => m,
        EffortLevel::High => h,
    };
    if total.is_finite() && total > 0.0 {
        w / total
    } else {
        0.34
    }
}

fn supports(tag: u16, label: EffortLevel, proposal: bool, at_hand: bool) -> bool {
    use tag::*;
    match label {
        EffortLevel::Low => matches!(tag, PROPOSAL | CONFIRM | OPTIONS | YESNO),
        EffortLevel::Medium => {
            matches!(tag, ELICIT | OPEN | DECIDE | MODAL | DESCRIBE) || (tag == DATA && at_hand)
        }
        EffortLevel::High => {
            matches!(tag, USER_ACTION | STRATEGY | DECIDE | YOU_NEED)
                || (matches!(tag, INVESTIGATE | OTHERS | DIAG | QUANT | FACT) && !proposal)
                || (tag == DATA && !at_hand)
        }
    }
}

/// The matched text of a literal hit; regex hits are not located (that
/// would cost a second search per cue), so they give "".
fn span_text<'t>(hit: &CueHit<'_>, text: &'t str) -> &'t str {
    text.get(hit.start..hit.end).unwrap_or("").trim()
}

/// The reasons of the hits supporting `label`, heaviest first (ties in
/// text order), after a leading `bare_proposal` when `bare`.
fn reasons_for(
    mut hits: Vec<CueHit<'_>>,
    part: &str,
    label: EffortLevel,
    proposal: bool,
    at_hand: bool,
    bare: bool,
) -> Vec<Reason> {
    hits.retain(|h| supports(h.cue.tag, label, proposal, at_hand));
    // A stable sort of the small hits rather than of the reasons built
    // from them.
    hits.sort_by(|a, b| b.cue.weight.total_cmp(&a.cue.weight));
    let mut out: Vec<Reason> = Vec::with_capacity(hits.len() + 3);
    if bare {
        out.push(Reason::new(
            "bare_proposal",
            "opens with a verb: a terse proposal",
            2.0,
        ));
    }
    out.extend(hits.iter().map(|h| {
        let matched = span_text(h, part);
        // At most 48 characters quoted (bytes bound characters).
        let detail: std::borrow::Cow<'static, str> =
            if matched.is_empty() || (matched.len() > 48 && matched.chars().count() > 48) {
                h.cue.explanation.into()
            } else {
                [h.cue.explanation, ": `", matched, "`"].concat().into()
            };
        Reason::new(h.cue.name, detail, h.cue.weight)
    }));
    out
}

/// A crude stem for matching question words against a context: a common
/// suffix dropped, then at most five characters ("panicking" ~ "panicked",
/// "lives" ~ "live").
fn stem(w: &str) -> &str {
    let w = ["ing", "ies", "es", "ed", "ly", "s"]
        .iter()
        .find_map(|suf| w.strip_suffix(suf).filter(|rest| rest.len() >= 3))
        .unwrap_or(w);
    if w.len() <= 5 {
        return w;
    }
    if w.as_bytes()[..5].is_ascii() {
        return &w[..5];
    }
    match w.char_indices().nth(5) {
        Some((i, _)) => &w[..i],
        None => w,
    }
}

/// How a context is searched for a question's words, so that the work
/// stays linear in the sizes of both: a question of one part (the usual
/// case) reads the context once; one of several parts indexes it once
/// instead of reading it again for each part.
pub(crate) enum Context<'a> {
    /// Read once, for the one part.
    Scan(&'a str),
    /// The stems of the context, sorted.
    Index(ContextIndex<'a>),
}

impl<'a> Context<'a> {
    fn new(ctx: &'a str, parts: usize) -> Self {
        if parts > 1 {
            Context::Index(ContextIndex::new(ctx))
        } else {
            Context::Scan(ctx)
        }
    }
}

/// The stems of a context's words, sorted for binary search. A stem of up
/// to seven bytes is packed into one integer key (its bytes and its
/// length: equal keys, equal stems), so that sorting and searching compare
/// integers; longer stems (non-ASCII text) are kept as strings.
pub(crate) struct ContextIndex<'a> {
    keys: Vec<u64>,
    long: Vec<&'a str>,
}

impl<'a> ContextIndex<'a> {
    fn new(ctx: &'a str) -> Self {
        let mut keys = Vec::with_capacity(ctx.len() / 4 + 4);
        let mut long = Vec::new();
        for s in tact_core::words(ctx).map(stem) {
            match stem_key(s) {
                Some(k) => keys.push(k),
                None => long.push(s),
            }
        }
        keys.sort_unstable();
        keys.dedup();
        long.sort_unstable();
        long.dedup();
        Self { keys, long }
    }

    fn contains(&self, stem: &str) -> bool {
        match stem_key(stem) {
            Some(k) => self.keys.binary_search(&k).is_ok(),
            None => self.long.binary_search(&stem).is_ok(),
        }
    }
}

/// A stem of at most seven bytes as an integer: its bytes, then its length
/// in the top byte.
fn stem_key(stem: &str) -> Option<u64> {
    let b = stem.as_bytes();
    if b.len() > 7 {
        return None;
    }
    let mut k = (b.len() as u64) << 56;
    for (i, &x) in b.iter().enumerate() {
        k |= u64::from(x) << (8 * i);
    }
    Some(k)
}

/// A question's content-word stems, each once and sorted, with how often
/// it occurs (repeats count again) and whether the context has it.
type Wanted<'p> = SmallVec<[(&'p str, usize, bool); 16]>;

fn content_stems(part: &str) -> Wanted<'_> {
    // At least three characters: a third one starts within the first
    // nine bytes, if there is one.
    let long = |w: &str| w.len() >= 3 && (w.len() > 8 || w.chars().nth(2).is_some());
    let mut stems: SmallVec<[&str; 16]> = tact_core::words(part)
        .filter(|w| long(w) && !STOP_SET.contains(w))
        .map(stem)
        .collect();
    stems.sort_unstable();
    let mut wanted = Wanted::new();
    for s in stems {
        match wanted.last_mut() {
            Some((last, n, _)) if *last == s => *n += 1,
            _ => wanted.push((s, 1, false)),
        }
    }
    wanted
}

/// Marks the wanted stems found in `ctx`, read once: a context word is
/// stemmed only when its first byte starts a wanted stem (a stem is a
/// prefix of its word), then looked up by binary search.
fn scan_context(ctx: &str, wanted: &mut Wanted<'_>) {
    let mut firsts = [false; 256];
    for (s, _, _) in wanted.iter() {
        if let Some(&b) = s.as_bytes().first() {
            firsts[usize::from(b)] = true;
        }
    }
    let mut missing = wanted.len();
    for w in tact_core::words(ctx) {
        if !w
            .as_bytes()
            .first()
            .is_some_and(|&b| firsts[usize::from(b)])
        {
            continue;
        }
        let s = stem(w);
        if let Ok(i) = wanted.binary_search_by(|(want, _, _)| (*want).cmp(s)) {
            if let Some((_, _, seen)) = wanted.get_mut(i).filter(|(_, _, seen)| !*seen) {
                *seen = true;
                missing -= 1;
                if missing == 0 {
                    break;
                }
            }
        }
    }
}

/// Whether the context already answers `part`: at least half of the
/// question's content words (two or more) appear in the context, compared
/// by stem.
fn context_answers(part: &str, ctx: &Context<'_>) -> Option<Reason> {
    let mut wanted = content_stems(part);
    match ctx {
        Context::Scan(text) => scan_context(text, &mut wanted),
        Context::Index(index) => {
            for (s, _, seen) in &mut wanted {
                *seen = index.contains(s);
            }
        }
    }
    let total: usize = wanted.iter().map(|(_, n, _)| n).sum();
    let found: usize = wanted
        .iter()
        .filter(|(_, _, seen)| *seen)
        .map(|(_, n, _)| n)
        .sum();
    if total == 0 {
        return None;
    }
    let ratio = found as f32 / total as f32;
    (ratio >= 0.5 && (found >= 2 || total == 1)).then(|| {
        let mut detail = String::with_capacity(48);
        crate::detail::push_count(&mut detail, found as u64);
        detail.push_str(" of ");
        crate::detail::push_count(&mut detail, total as u64);
        detail.push_str(" key words are in the given context");
        Reason::new("context_answers", detail, 2.0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The segmenting path alone, as `bare_verb_start` was before its
    /// ASCII fast path.
    fn bare_verb_start_segmented(part: &str) -> bool {
        let mut words = tact_core::words(part);
        let first = skip_lead_ins(words.next(), &mut words);
        first.is_some_and(|w| bare_verb_word(part, w))
    }

    #[test]
    fn the_ascii_fast_path_agrees_with_segmentation_on_tricky_words() {
        for part in [
            "",
            "ok",
            "ok, so merge it?",
            "merge it?",
            "e.g. merge",
            "don't merge",
            "re-run the job?",
            "run_all now",
            "3.5 merge",
            "1,000 rows",
            "so: merge",
            "¿borro la rama?",
            "and then deploy",
            "  ...  ship it",
            "ship.it",
            "ship: it",
        ] {
            assert_eq!(
                bare_verb_start(part),
                bare_verb_start_segmented(part),
                "{part:?}"
            );
        }
    }

    #[test]
    fn the_traced_normalization_is_the_question_normalized() {
        let h = Heuristic::new().expect("cues compile");
        let mut returned = 0;
        for q in [
            "Should I use Postgres or SQLite?",
            "Should I ship it and what should the changelog say?",
            "deploy now",
            "  Padded question?  ",
            "\u{b}Should I?",
            "The build failed. Should I retry?",
            "¿Quieres que lo despliegue y cuándo?",
            "",
        ] {
            let mut trace = Extras::new();
            let (_, _, n) = h.classify_traced(q, None, Some(&mut trace));
            if let Some(n) = n {
                assert_eq!(n, normalize(q), "{q:?}");
                returned += 1;
            }
            assert!(h.classify_traced(q, None, None).2.is_none());
        }
        assert!(returned >= 4, "{returned}");
    }

    /// `context_answers` as first written: every context stem in a list.
    fn context_answers_plain(part: &str, ctx: &str) -> Option<String> {
        let stems: Vec<&str> = tact_core::words(ctx).map(stem).collect();
        let (mut total, mut found) = (0usize, 0usize);
        for w in tact_core::words(part).filter(|w| w.chars().count() >= 3 && !STOP_SET.contains(w))
        {
            total += 1;
            found += usize::from(stems.contains(&stem(w)));
        }
        let ratio = found as f32 / total.max(1) as f32;
        (total > 0 && ratio >= 0.5 && (found >= 2 || total == 1))
            .then(|| format!("{found} of {total} key words are in the given context"))
    }

    #[test]
    fn the_context_is_matched_by_stem() {
        let ctx = "deploys run nightly; the café's über-long übersetzungen, 3.11 and v2 ok";
        for (part, answered) in [
            ("when does the deploying run?", true),
            ("is it nightly or weekly?", false),
            ("which café? über or not?", false),
            ("the café's übersetzungen?", true),
            ("übersetzung for 3.11?", true),
            ("nightly deplo runs? weekly? hourly? monthly?", true),
            ("nightly nightly weekly?", true),
            ("what is it?", false),
            ("", false),
        ] {
            for context in [Context::Scan(ctx), Context::Index(ContextIndex::new(ctx))] {
                let got = context_answers(part, &context).map(|r| r.detail.to_string());
                assert_eq!(got.is_some(), answered, "{part}");
                assert_eq!(got, context_answers_plain(part, ctx), "{part}");
            }
        }
    }

    #[test]
    fn the_context_index_finds_exactly_the_context_stems() {
        let ctx = "deploys run nightly; the café's über-long übersetzungen, 3.11 and v2 ok";
        let idx = ContextIndex::new(ctx);
        let stems: Vec<&str> = tact_core::words(ctx).map(stem).collect();
        for w in [
            "deploying",
            "runs",
            "nightly",
            "cafe",
            "café",
            "über",
            "übersetzung",
            "3.11",
            "v2",
            "ok",
            "okay",
            "night",
            "deplo",
            "x",
            "",
        ] {
            assert_eq!(idx.contains(stem(w)), stems.contains(&stem(w)), "{w}");
        }
    }

    #[test]
    fn several_parts_index_the_context_once() {
        let h = Heuristic::new().expect("cues compile");
        let ctx = "the staging cluster runs postgres 15 and redis 7";
        let one = h.classify("Which postgres version does staging run?", Some(ctx));
        let two = h.classify(
            "Which postgres version does staging run, and which redis version does staging run?",
            Some(ctx),
        );
        assert!(matches!(Context::new(ctx, 1), Context::Scan(_)));
        assert!(matches!(Context::new(ctx, 2), Context::Index(_)));
        for c in [one, two] {
            assert_eq!(c.label, EffortLevel::Low);
            assert_eq!(c.reasons[0].cue, "context_answers");
        }
    }

    proptest! {
        #[test]
        fn the_traced_normalization_is_the_question_normalized_for_any_text(
            q in "(?s).{0,80}",
        ) {
            static H: std::sync::LazyLock<Heuristic> =
                std::sync::LazyLock::new(|| Heuristic::new().expect("cues compile"));
            let mut trace = Extras::new();
            if let Some(n) = H.classify_traced(&q, None, Some(&mut trace)).2 {
                prop_assert_eq!(n, normalize(&q));
            }
        }

        #[test]
        fn context_matching_agrees_with_a_plain_search(
            ctx in proptest::collection::vec("[a-cé]{1,9}", 0..30),
            part in proptest::collection::vec("[a-cé]{1,9}", 0..12),
        ) {
            let (ctx, part) = (ctx.join(" "), part.join(" "));
            let plain = context_answers_plain(&part, &ctx);
            for context in [Context::Scan(&ctx), Context::Index(ContextIndex::new(&ctx))] {
                prop_assert_eq!(
                    context_answers(&part, &context).map(|r| r.detail.to_string()),
                    plain.clone()
                );
            }
        }

        #[test]
        fn the_context_index_agrees_with_a_plain_search(
            ctx in proptest::collection::vec("[a-cé]{1,9}", 0..30),
            probe in "[a-cé]{0,9}",
        ) {
            let ctx = ctx.join(" ");
            let stems: Vec<&str> = tact_core::words(&ctx).map(stem).collect();
            prop_assert_eq!(
                ContextIndex::new(&ctx).contains(stem(&probe)),
                stems.contains(&stem(&probe))
            );
        }

        #[test]
        fn part_connective_scan_agrees_with_substring_search(
            n in "( |and|also|plus|und|y|x|a|nd|lso){0,12}",
        ) {
            let naive = [" and ", " y ", " und ", " also ", " plus "]
                .iter()
                .any(|w| n.contains(w));
            prop_assert_eq!(has_part_connective(&n), naive);
        }
    }

    proptest! {
        #[test]
        fn the_ascii_fast_path_agrees_with_segmentation(
            part in "[a-z0-9 .,:;'_?!()-]{0,24}|(ok|so|also|and|then) (merge|ship|run|deploy|keep)[ .,:'a-z]{0,8}"
        ) {
            prop_assert_eq!(bare_verb_start(&part), bare_verb_start_segmented(&part));
        }
    }
}
