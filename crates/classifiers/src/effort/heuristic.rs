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

use tact_core::{Cue, CueHit, CueSet, extract_questions, normalize};
use tact_types::{Classification, EffortLevel, Reason};

use crate::Error;

/// Cue categories (the `tag` of each cue).
mod tag {
    pub const PROPOSAL: u16 = 1;
    pub const CONFIRM: u16 = 2;
    pub const OPTIONS: u16 = 3;
    pub const INVESTIGATE: u16 = 4;
    pub const USER_ACTION: u16 = 5;
    pub const DATA: u16 = 6;
    pub const STRATEGY: u16 = 7;
    pub const ELICIT: u16 = 8;
    pub const AT_HAND: u16 = 9;
    pub const OTHERS: u16 = 10;
    pub const OPEN: u16 = 11;
    pub const YESNO: u16 = 12;
    pub const DECIDE: u16 = 13;
}

const fn cue(name: &'static str, tag: u16, weight: f32, explanation: &'static str) -> Cue {
    Cue::new(name, weight, explanation).tagged(tag)
}

/// Optional lead-in before the question proper ("ok, so", "also,", "¿").
const LEAD: &str = r"^(?:[¿>*\-\s]*)(?:(?:ok|okay|so|also|and|great|alright|one more thing|quick question|before i (?:start|continue|proceed)|otherwise|then|now|y|pues|entonces|vale|also|und|gut|noch eine frage)[,:]?\s+)*";

fn build_cues() -> Result<CueSet, Error> {
    use tag::*;
    let p = |rest: &str| format!("{LEAD}{rest}");
    let set = CueSet::builder()
        // --- low: the agent proposes something concrete, a yes/no answers it.
        .regex(
            &p(r"(?:should i|shall i|shall we|do you want me to|would you like me to|want me to|would you like (?:us|the agent) to|can i|may i|could i|is it (?:ok|okay|fine|alright) (?:if i|to)|ok(?:ay)? (?:if i|to)|mind if i|are you (?:ok|okay|fine|happy) with|would it be (?:ok|okay|fine) (?:if|to)|do you mind if|should the (?:agent|script|tool) |quieres que|deseas que|te parece (?:bien )?que|debo|puedo|lo (?:hago|cambio|borro)|prefieres que (?:lo|la)|soll ich|sollen wir (?:jetzt|gleich|direkt)|mochtest du,? dass ich|willst du,? dass ich|darf ich|kann ich|ist es (?:ok|okay|in ordnung),? wenn ich)\b"),
            cue("agent_proposal", PROPOSAL, 2.2, "yes/no on a concrete proposal"),
        )
        .regex(
            &p(r"(?:can you confirm|could you confirm|please confirm|just (?:to )?confirm|confirm(?:ing)? (?:that|whether|the)|is (?:that|this|it) (?:right|correct|ok|okay|what you (?:want|meant|expect))|did you mean|do you mean|are you sure|is the (?:above|plan|change|diff) (?:ok|okay|fine|good)|does (?:that|this) (?:look|sound|work)|sound(?:s)? good|good to go|(?:es|esta) (?:correcto|bien)|te parece bien|confirmas|ist das (?:richtig|korrekt|ok|in ordnung)|passt das|bestatige)\b"),
            cue("confirmation", CONFIRM, 1.6, "asks to confirm something concrete"),
        )
        .regex(
            &p(r"(?:is|are|was|were|do|does|did|has|have|will|would|can|could|should|es|esta|hay|tienes|ist|sind|hast|hat|gibt es)\b"),
            cue("yes_no_form", YESNO, 0.6, "a yes/no question"),
        )
        // --- low: options offered.
        .regex(r"\w \b(?:or|o|u|oder|vs\.?|versus) \w", cue("explicit_options", OPTIONS, 2.0, "offers alternatives"))
        .regex(r"(?:\n\s*(?:[-*+•]|\d{1,2}[.)]|[a-e]\)))|\boption (?:[a-e1-9])\b|\((?:a|1)\)|\b(?:a|b|c)\)\s|\b\w+/\w+/\w+\b", cue("option_list", OPTIONS, 2.0, "lists options"))
        .regex(r"\b(?:either|entweder|bien sea)\b", cue("either", OPTIONS, 0.8, "either ... or"))
        .regex(r"\bor not\b|\bo no\b|\boder nicht\b", cue("or_not", YESNO, 1.0, "yes or no"))
        // --- high: investigation, research, measurement.
        .literals(
            &[
                "investigat*", "research*", "look into", "dig into", "dig through", "dig up", "dig out",
                "find out", "figure out", "track down", "profile", "profiling", "benchmark*", "measure*",
                "bisect*", "reproduce", "reproducing", "audit*", "analy*", "survey*", "evaluate", "assess*",
                "explore", "study", "go through", "read through", "comb through", "look through",
                "gather", "collect", "compile a list", "estimate", "quantify", "root cause", "root-cause",
                "experiment*", "interview*", "pull the", "pull up", "check the logs", "check your logs",
                "trace", "tracing", "dump", "inventory",
                "investigar", "averiguar", "medir", "analizar", "revisar", "reproducir", "recopilar",
                "untersuch*", "recherchier*", "herausfind*", "messen", "analysier*", "prufen", "nachsehen",
                "nachschauen", "reproduzier*", "sammeln", "ermitteln",
            ],
            cue("investigation", INVESTIGATE, 2.0, "asks for investigation or measurement"),
        )
        // --- high: the user must run, check or fetch something.
        .regex(
            r"\b(?:can|could|would) you (?:please )?(?:run|rerun|re-run|execute|try|test|check|verify|look|find|grab|pull|fetch|export|download|capture|record|profile|time|measure|search|dig|inspect|open|log into|log in|sign in|ssh|deploy|restart|install|upgrade|ask|reach out|contact|ping|email|confirm with|check with|get|obtain|retrieve|provide|share|send|paste|attach|upload|post|dump|list|tell me (?:what|which|how many|how much|when|where|why)|let me know (?:what|which|how many|how much|when|where|why))\b|\bplease (?:run|rerun|execute|try|test|check|verify|look up|find|grab|pull|fetch|export|download|capture|record|profile|measure|search|inspect|ask|contact|get|obtain|provide|share|send|paste|attach|upload|dump)\b|^(?:[¿\s]*)(?:run|check|verify|look up|find|grab|pull|fetch|export|capture|measure|ask|send|paste|share|provide)\b|\b(?:puedes|podrias|podria|puede|pudieras) (?:ejecutar|correr|probar|revisar|comprobar|verificar|buscar|mirar|enviar(?:me)?|mandar(?:me)?|pasar(?:me)?|compartir|pegar|preguntar|consultar|medir|exportar|descargar|obtener)\b|\b(?:kannst|konntest|konnten sie|konnen sie) (?:du |sie )?(?:mal )?(?:\w+ )?(?:\w+ )?(?:ausfuhren|laufen lassen|testen|prufen|nachsehen|nachschauen|schicken|senden|teilen|einfugen|fragen|messen|exportieren|herunterladen|besorgen|raussuchen|heraussuchen)\b",
            cue("user_action", USER_ACTION, 1.4, "asks the user to run, fetch or check something"),
        )
        // --- high: data the user must dig out.
        .literals(
            &[
                "logs", "log output", "stack trace", "stacktrace", "traceback", "core dump", "heap dump",
                "metrics", "p95", "p99", "p50", "latency", "throughput", "error rate", "flame graph",
                "dashboard", "in production", "in prod", "on prod", "production data", "right now",
                "currently", "exact version", "exact error", "full error", "which commit", "what commit",
                "which release", "which version introduced", "when did", "since when", "how many users",
                "how much traffic", "how many requests", "usage numbers", "numbers", "statistics",
                "benchmarks", "budget", "cost", "costs", "pricing", "sla", "slo", "credentials",
                "access to", "permission", "permissions", "output of", "results of", "the output",
                "who owns", "who is responsible", "which team", "registros", "en produccion", "metricas",
                "traza", "en este momento", "actualmente", "protokoll*", "in produktion", "metriken",
                "aktuell", "derzeit",
            ],
            cue("data_to_fetch", DATA, 1.0, "asks for data the user must dig out"),
        )
        .literals(
            &[
                "you just", "you mentioned", "you reported", "you saw", "you're seeing", "you are seeing",
                "you see", "you got", "you posted", "you pasted", "you shared", "you sent", "on your screen",
                "in front of you", "you described", "acabas de", "que ves", "que viste", "du gerade",
                "du siehst", "du gesehen",
            ],
            cue("at_hand", AT_HAND, 1.0, "the data is already in front of the user"),
        )
        // --- high: other people must be asked.
        .regex(
            r"\b(?:ask|check with|consult|talk to|reach out to|confirm with|loop in|coordinate with|get sign-?off from|get approval from|preguntar a|consultar con|hablar con|fragen|abklaren|rucksprache)\b",
            cue("ask_others", OTHERS, 1.6, "the user must ask someone else"),
        )
        // --- high: blocking architecture / strategy decisions.
        .literals(
            &[
                "architecture", "architectural", "strategy", "strategic", "trade-off", "trade-offs",
                "tradeoff", "tradeoffs", "long-term", "long term", "roadmap", "migrate", "migration",
                "re-architect", "rearchitect", "rewrite", "redesign", "overhaul", "vendor", "build vs buy",
                "build or buy", "compliance", "regulatory", "legal", "licensing", "before proceeding",
                "before we proceed", "before i proceed", "before going further", "blocking", "blocked",
                "scalab*", "multi-region", "event sourcing", "microservice*", "monolith", "sharding",
                "data model", "consistency model", "approach for the whole", "direction",
                "arquitectura", "estrategia", "a largo plazo", "migrar", "migracion", "compensacion",
                "architektur", "strategie", "langfristig", "migrier*", "abwagung*",
            ],
            cue("strategy_decision", STRATEGY, 1.5, "a blocking architecture or strategy decision"),
        )
        .regex(
            r"\b(?:should we|do we need to|need to decide|have to decide|must decide|which direction|what approach should|how should we approach|deberiamos|tenemos que decidir|sollten wir|mussen wir entscheiden)\b",
            cue("team_decision", DECIDE, 0.7, "a decision the team must take"),
        )
        // --- medium: preference and decision elicitation, describing.
        .regex(
            &p(r"(?:what|which|how|who|where|when|why|que|cual|cuales|como|quien|donde|cuando|por que|was|welche|welcher|welches|wie|wer|wo|wann|warum)\b"),
            cue("open_question", OPEN, 0.9, "an open question"),
        )
        .literals(
            &[
                "prefer", "preference", "preferred", "would you like", "do you want", "how would you like",
                "how do you want", "what do you think", "your opinion", "your call", "up to you",
                "describe", "explain", "elaborate", "more details", "more detail", "more context",
                "tell me more", "use case", "what do you expect", "expected behavior", "expected behaviour",
                "what should", "how should", "which should", "what kind of", "what type of", "what sort of",
                "what style", "what tone", "what format", "naming", "audience", "the goal", "your goal",
                "in mind", "what are you trying", "remember", "recall", "what was", "clarify",
                "prefieres", "preferencia", "describe", "explica", "explicar", "mas detalles", "caso de uso",
                "que esperas", "como quieres", "como deberia", "bevorzug*", "beschreib*", "erklar*",
                "mehr details", "anwendungsfall", "wie mochtest", "wie soll", "was erwartest",
            ],
            cue("elicit", ELICIT, 1.0, "asks for a preference, decision or description"),
        )
        .build()?;
    Ok(set)
}

/// Split points between the parts of a multi-part question (normalized).
fn part_splitter() -> Result<regex::Regex, Error> {
    regex::Regex::new(
        r"(?:,|;|\s-)?\s(?:and|also|plus|y|und)\s(?:also\s)?(?:what|which|how|where|when|who|why|should|shall|do|does|can|could|would|is|are|will|que|cual|como|donde|cuando|debo|puedo|was|welche|wie|wo|wann|soll|kann)\b",
    )
    .map_err(|e| {
        Error::Core(tact_core::CoreError::Pattern {
            pattern: "part splitter".into(),
            message: e.to_string(),
        })
    })
}

/// Stop words ignored when checking whether a context answers a question.
const STOP: &[&str] = &[
    "the", "and", "for", "you", "your", "this", "that", "with", "should", "would", "could", "which",
    "what", "when", "where", "how", "are", "was", "were", "does", "did", "can", "will", "want", "like",
    "use", "using", "our", "we", "me", "i", "to", "of", "in", "on", "is", "it", "be", "do", "a", "an",
    "or", "there", "any", "have", "has", "from", "into", "about", "please", "let", "know", "need",
    "que", "cual", "como", "para", "con", "los", "las", "el", "la", "de", "del", "una", "uno", "quieres",
    "was", "wie", "welche", "der", "die", "das", "und", "mit", "fur", "soll", "ich", "wir", "du",
];

#[derive(Debug, Clone)]
pub(crate) struct Heuristic {
    cues: CueSet,
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
            splitter: part_splitter()?,
        })
    }

    pub(crate) fn classify(&self, question: &str, context: Option<&str>) -> Classification<EffortLevel> {
        let norm_ctx = context.map(normalize).filter(|c| !c.is_empty());
        // The parts: each question sentence (with its option list), split
        // again at "and what/which/should ...". No question mark: the whole.
        let segments = extract_questions(question);
        let mut parts: Vec<String> = Vec::new();
        if segments.is_empty() {
            parts.push(normalize(question));
        } else {
            for s in &segments {
                let n = normalize(s.text(question));
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
                parts.push(piece.to_owned());
            }
        }
        let mut best: Option<(EffortLevel, f32, Vec<Reason>)> = None;
        for part in &parts {
            let (label, conf, reasons) = self.classify_part(part, norm_ctx.as_deref());
            let better = match &best {
                None => true,
                Some((l, c, _)) => label > *l || (label == *l && conf > *c),
            };
            if better {
                best = Some((label, conf, reasons));
            }
        }
        let (label, conf, mut reasons) =
            best.unwrap_or((EffortLevel::Medium, 0.34, Vec::new()));
        if parts.len() > 1 {
            reasons.push(Reason::new(
                "multi_part",
                format!("{} parts; the highest decides", parts.len()),
                0.0,
            ));
        }
        Classification {
            label,
            confidence: conf,
            reasons,
        }
    }

    fn classify_part(&self, part: &str, ctx: Option<&str>) -> (EffortLevel, f32, Vec<Reason>) {
        let hits = self.cues.hits(part);
        if let Some(ctx) = ctx {
            if let Some(reason) = context_answers(part, ctx) {
                return (EffortLevel::Low, 0.8, vec![reason]);
            }
        }
        let has = |t: u16| hits.iter().any(|h| h.cue.tag == t);
        let sum = |t: u16| -> f32 { hits.iter().filter(|h| h.cue.tag == t).map(|h| h.cue.weight).sum() };
        let proposal = has(tag::PROPOSAL);
        let at_hand = has(tag::AT_HAND);
        let mut s = Scores {
            medium: 0.4,
            ..Scores::default()
        };
        // Low evidence.
        s.low += sum(tag::PROPOSAL) + sum(tag::CONFIRM) + sum(tag::OPTIONS) + sum(tag::YESNO);
        // Medium evidence.
        s.medium += sum(tag::ELICIT) + sum(tag::OPEN);
        // High evidence. The agent's own proposed work costs the user little.
        let agent_work = if proposal { 0.25 } else { 1.0 };
        s.high += sum(tag::INVESTIGATE) * agent_work;
        s.high += sum(tag::STRATEGY) * if proposal { 0.3 } else { 1.0 };
        s.high += sum(tag::USER_ACTION) + sum(tag::OTHERS) * agent_work;
        let data = sum(tag::DATA);
        if at_hand {
            s.medium += data;
        } else {
            s.high += data * agent_work;
        }
        if has(tag::DECIDE) && has(tag::STRATEGY) {
            s.high += sum(tag::DECIDE);
        } else {
            s.medium += sum(tag::DECIDE);
        }
        let label = if s.high >= s.low.max(s.medium) && s.high > 0.0 {
            EffortLevel::High
        } else if s.low >= s.medium {
            EffortLevel::Low
        } else {
            EffortLevel::Medium
        };
        let conf = softmax_winner(s, label);
        let reasons = reasons_for(&hits, part, label, proposal, at_hand);
        (label, conf, reasons)
    }
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
    if total.is_finite() && total > 0.0 { w / total } else { 0.34 }
}

fn supports(tag: u16, label: EffortLevel, proposal: bool, at_hand: bool) -> bool {
    use tag::*;
    match label {
        EffortLevel::Low => matches!(tag, PROPOSAL | CONFIRM | OPTIONS | YESNO),
        EffortLevel::Medium => {
            matches!(tag, ELICIT | OPEN | DECIDE) || (tag == DATA && at_hand)
        }
        EffortLevel::High => {
            matches!(tag, USER_ACTION | STRATEGY | DECIDE)
                || (matches!(tag, INVESTIGATE | OTHERS) && !proposal)
                || (tag == DATA && !at_hand)
        }
    }
}

fn reasons_for(hits: &[CueHit<'_>], part: &str, label: EffortLevel, proposal: bool, at_hand: bool) -> Vec<Reason> {
    let mut out: Vec<Reason> = hits
        .iter()
        .filter(|h| supports(h.cue.tag, label, proposal, at_hand))
        .map(|h| {
            let matched = h.matched(part).trim();
            let detail = if matched.chars().count() > 48 {
                h.cue.explanation.to_owned()
            } else {
                format!("{}: `{}`", h.cue.explanation, matched)
            };
            Reason::new(h.cue.name, detail, h.cue.weight)
        })
        .collect();
    out.sort_by(|a, b| b.weight.total_cmp(&a.weight));
    if out.is_empty() {
        out.push(Reason::new("default", "no strong cue; open request", 0.0));
    }
    out
}

/// Whether `ctx` already answers `part`: most of the question's content
/// words appear in the context.
fn context_answers(part: &str, ctx: &str) -> Option<Reason> {
    let content: Vec<&str> = tact_core::words(part)
        .filter(|w| w.chars().count() >= 3 && !STOP.contains(w))
        .collect();
    if content.is_empty() {
        return None;
    }
    let found = content
        .iter()
        .filter(|w| tact_core::words(ctx).any(|c| c == **w || (c.len() > 4 && w.starts_with(&c[..c.len() - 1]))))
        .count();
    let ratio = found as f32 / content.len() as f32;
    (ratio >= 0.6 && found >= 2).then(|| {
        Reason::new(
            "context_answers",
            format!("{found} of {} key words are in the given context", content.len()),
            2.0,
        )
    })
}
