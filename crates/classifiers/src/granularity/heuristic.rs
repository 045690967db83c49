//! The default granularity strategy: weighted cues in English, German and
//! Spanish on two sides (fine-grained, holistic), one aho-corasick pass,
//! and a calibrated confidence.
//!
//! What it fixes in the design's families:
//! - "what is the main idea / argument / contribution" is holistic: the
//!   holistic noun outweighs the question frame, which counts for nothing;
//! - imperatives: "list", "name", "quote", "give me the", "find the step"
//!   are fine-grained, "walk me through", "explain", "summarize" holistic,
//!   and a holistic object ("list the main arguments") still wins;
//! - "how many / how much / how long" are quantities (fine-grained), "how
//!   does / how do / how is" explanations (holistic);
//! - a table, figure, number or year is only weak evidence: "why" or "what
//!   does it tell us" about it is holistic;
//! - a definition ("what does SLO stand for", "explica qué significa la
//!   sigla") is fine-grained even when phrased with "explain".
//!
//! Confidence is not `max / total`. The margin between the two sides goes
//! through a logistic curve, and is shrunk towards 0.5 while the total
//! evidence is below a floor; a decision is `ambiguous` when the evidence
//! is below the floor or the gap is below a minimum. Ties and ambiguous
//! cases go to fine-grained, the cheaper scoring path.

use tact_core::cues::Aligned;
use tact_core::{Cue, CueSet, CueSetBuilder, normalize};
use tact_types::{Classification, Granularity, GranularityDecision, GranularityEvidence, Reason};

use crate::Error;
use crate::calibration::Calibration;

/// Cue sides (the `tag` of each cue).
mod tag {
    /// Evidence for a locatable piece of information.
    pub const FINE: u16 = 1;
    /// Evidence for understanding across passages.
    pub const HOLISTIC: u16 = 2;
    /// A noun naming a value (rate, port, date ...): fine-grained, capped.
    pub const VALUE: u16 = 3;
    /// Half of a substitution ("can I use ..." at the start, "instead of"):
    /// no weight alone; both together are holistic advice.
    pub const SUBSTITUTION: u16 = 4;
    /// A request for the assistant to do something ("can you set a
    /// timer") or a question about the user's own records ("my balance"):
    /// no weight, markers the hybrid reads.
    pub const MARKER: u16 = 5;
}

/// Total evidence below which a decision is ambiguous and its confidence
/// is shrunk towards 0.5.
pub const EVIDENCE_FLOOR: f32 = 1.5;
/// Smallest gap between the two sides for an unambiguous decision.
pub const MIN_GAP: f32 = 1.0;
/// Slope of the logistic curve from the gap to the confidence: a fixed
/// design constant, not fitted (a gap of one strong cue, 3, gives about
/// 0.94). docs/architecture.md gives the measured reliability.
const SLOPE: f32 = 0.9;
/// Most evidence value nouns may add together.
const VALUE_CAP: f32 = 1.6;
/// Evidence of a substitution to judge ("can I use X instead of Y").
const SUBSTITUTION_WEIGHT: f32 = 2.5;
/// Evidence of a digit in the query (a number, year, table index).
const DIGIT_WEIGHT: f32 = 0.4;

const fn fine(name: &'static str, weight: f32, explanation: &'static str) -> Cue {
    Cue::new(name, weight, explanation).tagged(tag::FINE)
}

const fn holistic(name: &'static str, weight: f32, explanation: &'static str) -> Cue {
    Cue::new(name, weight, explanation).tagged(tag::HOLISTIC)
}

const fn value(name: &'static str, weight: f32, explanation: &'static str) -> Cue {
    Cue::new(name, weight, explanation).tagged(tag::VALUE)
}

/// The cue tables: the main set, searched in the normalized query, and the
/// opening set, searched in `^ ` + the query's first words (so an opening
/// cue never hides a longer phrase of the main set).
fn build_cues() -> Result<(CueSet, CueSet), Error> {
    Ok((
        cue_builder().build_frozen(&FROZEN.bytes)?,
        starts_builder().build_frozen(&FROZEN_STARTS.bytes)?,
    ))
}

/// The granularity cues, built ahead of time (`models/granularity-cues.frozen`,
/// made from [`cue_builder`] by the test `the_frozen_granularity_cues_are_the_tables`
/// with `TACT_FREEZE=1`): read at start without expanding a phrase or
/// building the trie. Stale bytes (a pattern changed) are compiled from
/// the tables instead.
static FROZEN: &Aligned<[u8]> = &Aligned {
    align: [],
    bytes: *include_bytes!("../../models/granularity-cues.frozen"),
};

/// [`starts_builder`]'s set, built ahead of time as [`FROZEN`] is.
static FROZEN_STARTS: &Aligned<[u8]> = &Aligned {
    align: [],
    bytes: *include_bytes!("../../models/granularity-starts.frozen"),
};

/// The granularity cue tables.
#[allow(clippy::too_many_lines)]
fn cue_builder() -> CueSetBuilder {
    CueSet::builder()
        // ---------------------------------------------------------------
        // Holistic: summaries and overviews.
        .literals(
            &[
                "summarize", "summarise", "summary", "summarization", "summarisation", "summerize",
                "sumarize", "overview", "overveiw", "gist", "tl;dr", "tldr", "recap", "synopsis",
                "big picture", "in a nutshell", "what is it about", "resumen", "resume", "resumir",
                "resumeme", "resumelo", "resumir", "sintesis", "vision general", "panorama general",
                "en terminos generales", "a grandes rasgos", "de que trata", "zusammenfass*",
                "uberblick", "im wesentlichen", "worum geht", "im uberblick", "kurzfassung", "fasse",
                "fass", "fassen sie",
                "sum up", "sum it up", "brief me", "high-level", "high level", "highlights",
                "sintetiza", "sintetizar", "en resumen", "vision de conjunto", "panorama",
                "zusammenfassen", "gesamtbild", "ubersicht", "rundown", "run-down", "plot of",
                "in a few sentences", "in a few words", "in two sentences", "en pocas palabras",
                "en pocas frases", "in wenigen satzen", "in wenigen worten",
            ],
            holistic("summary", 3.0, "asks for a summary or overview"),
        )
        .phrases(
            "(what|what's|whats) (is|was) (the|this|that) (paper|article|book|report|document|study|doc|section|chapter|talk|memo|policy) about",
            holistic("summary", 3.0, "asks for a summary or overview"),
        )
        // Holistic: explanations and walkthroughs.
        .literals(
            &[
                "explain", "explains", "explaining", "explian", "expalin", "explanation", "explica",
                "explicame", "explicar", "explicanos", "explique", "erklar*", "describe",
                "describa", "describir", "describeme", "beschreib*", "discuss", "discusses",
                "elaborate", "outline", "walk me through", "walk us through", "walk through",
                "take me through", "guide me through", "break down", "unpack", "fuhr mich durch",
                "fuhre mich durch", "fuhren sie mich durch", "guiame por", "llevame por",
                "clarify", "elucidate", "help me understand", "understand", "go through",
                "run through", "talk me through", "walkthrough", "walk-through", "aclara",
                "aclarar", "entender", "comprender", "verstehen", "erlautere", "erlautern",
                "erklarung", "explicacion", "descripcion", "beschreibung",
            ],
            holistic("explanation", 2.5, "asks for an explanation"),
        )
        .literals(
            &[
                "step by step", "paso a paso", "schritt fur schritt", "from start to finish",
                "end to end", "end-to-end", "from beginning to end", "de principio a fin",
                "von anfang bis ende", "in plain english", "in plain words", "in simple terms",
                "in plain language", "en lenguaje sencillo", "en palabras sencillas",
                "in einfachen worten", "in detail", "en detalle", "im detail",
            ],
            holistic("explanation_scope", 1.5, "asks for an explanation of the whole"),
        )
        .phrases(
            "how (does|do|did|dose|is|are|was|were|can|could|should|would|will|has|have|had|well) ",
            holistic("how_explanation", 2.0, "asks how something works or happens"),
        )
        .literals(
            &[
                "como funciona", "como funcionan", "como se relacionan", "como se relaciona",
                "como trata", "como tratan", "como valoran", "como valora", "como afecta",
                "como explican", "como justifican", "como encaja", "como se organiza",
                "wie funktioniert", "wie funktionieren", "wie hangen", "wie hangt", "wie geht",
                "wie gehen", "wie bewerten", "wie bewertet", "wie unterscheiden", "wie ist",
                "wie sind", "wie hat sich", "wie haben sich", "wie wirkt", "wie wirken",
                "wie erklaren", "wie begrunden",
            ],
            holistic("how_explanation", 2.0, "asks how something works or happens"),
        )
        .literals(&["como", "wie"], holistic("how_weak", 1.0, "asks how"))
        .literals(
            &[
                "about how", "about why", "how the", "how a", "how an", "how its", "how their",
                "what should i", "how should i", "what problem", "which problem", "trying to",
                "between the", "choosing between", "choose between", "como el", "como la",
                "wie der", "wie die", "wie das",
            ],
            holistic("embedded_how", 1.5, "asks how, why or what to weigh"),
        )
        // Holistic: reasons and motivation.
        .literals(
            &[
                "why", "por que", "porque", "warum", "wieso", "weshalb", "rationale", "reasoning",
                "reasons", "reason behind", "reason for", "motivation", "motivations", "motivated",
                "motivate", "motivo", "motivaron", "motivacion", "justify", "justifies",
                "justification", "justifican", "justifica", "begrunden", "begrundung", "intuition",
                "intuicion", "intuitiv*", "what drove", "drivers", "what led to",
                "how come", "what caused", "causes", "caused", "causa", "causas",
                "ursache", "ursachen", "grund", "grunde", "razon", "razones", "motivos",
                "a que se debe", "wodurch", "weswegen", "what explains", "what led", "steckt hinter",
                "what's behind", "what is behind", "que hay detras", "razonamiento",
            ],
            holistic("reasoning", 4.0, "asks why: reasons or motivation"),
        )
        // Holistic: comparisons and trade-offs.
        .literals(
            &[
                "compare", "compares", "comparing", "comparison", "compara", "comparar",
                "comparacion", "vergleich*", "contrast", "difference between", "differences",
                "differ", "differs", "diferencian", "diferencias", "unterscheiden", "unterschied*",
                "pros and cons", "pros/cons", "pros & cons", "pro/contra", "trade-offs", "tradeoffs", "trade offs", "trade-off", "tradeoff",
                "advantages", "disadvantages", "ventajas", "desventajas", "vor- und nachteile",
                "vorteile", "nachteile", "strengths", "weaknesses", "schwachen", "debilidades",
                "fortalezas", "relationship between", "relate", "relates", "interact",
                "interacts", "interplay", "tie back", "ties back", "zusammenhang*",
                "zusammenhangen", "evolved", "evolve", "evolution", "changed", "cambiado",
                "verandert", "shift", "trend", "balance",
                "compared", "versus", "similarities", "distinguish", "diferencia entre",
                "diferencias entre", "se diferencia*", "frente a", "gegenuber", "im vergleich",
                "unterscheidet", "which is better", "cual es mejor", "was ist besser", "ventaja",
                "inconvenientes", "pros y contras", "vorteil", "nachteil", "de que manera",
                "de que forma", "auf welche weise", "inwiefern", "inwieweit", "hasta que punto",
                "to what extent", "in what way", "in what ways", "rather than", "better fit",
                "good fit", "better", "mejor", "besser", "en lugar de",
            ],
            holistic("comparison", 2.5, "asks for a comparison or trade-offs"),
        )
        // Holistic: implications, interpretation, assessment.
        .literals(
            &[
                "implication*", "implicaciones", "implica", "imply", "implies", "consequence*",
                "consecuencias", "konsequenz*", "auswirkung*", "impact", "affect", "affects",
                "significance", "mean for", "means for", "significa para", "bedeuten fur",
                "bedeutet fur", "tell us", "tells us", "telling us", "nos dice", "sagt", "conclude",
                "concludes", "conclusion", "conclusions", "concluyen", "fazit", "takeaway",
                "takeaways", "takeway", "lessons", "lehren", "lecciones", "evidence", "support the",
                "interpret*", "assess*", "critique", "criticize", "convincing", "convincingly",
                "credible", "creible", "credibility", "robust", "robustness", "solidez",
                "uberzeugend", "favorable", "consistent with", "valoracion", "valoran", "bewerten",
                "bewertung", "stance", "position on", "opinion", "worry", "risks", "risk factors",
                "riesgos", "risiken", "concerns", "caveats", "limitations", "limitaciones",
                "einschrankungen", "drawbacks", "assumptions", "themes", "recur", "what happens",
                "what would happen", "happen overall", "best way", "consider when",
                "should i consider", "obligations", "rights", "role", "rol", "rolle", "purpose",
                "proposito", "zweck", "philosophy", "story", "strategy", "estrategia",
                "strategie", "methodology", "metodologia", "approach", "enfoque", "ansatz",
                "plan to", "address confounding", "account for",
                "effect of", "effects", "efecto", "efectos", "impacto", "repercusiones", "folgen",
                "importance", "importancia", "bedeutung", "relevance", "relevancia", "relevanz",
                "interpretacion", "interpreta", "deutung", "evaluate", "evalua", "evaluar",
                "beurteile", "beurteilen", "beurteilung", "valora", "valorar", "evaluacion",
                "critica", "kritik", "kritisch", "convincente", "plausible", "plausibel",
                "glaubwurdig", "validity", "validez", "reliability", "fiabilidad", "amenazas",
                "threats", "grenzen", "schwachstellen", "puntos debiles", "aprendizajes",
                "lessons learned", "recommendations", "recomendaciones", "empfehlungen",
                "suggestions", "sugerencias", "should we", "deberiamos", "sollten wir",
                "would you recommend", "best practice", "best practices", "buenas practicas",
                "enough to", "worry about", "reveal", "reveals", "revela", "revelan", "the point of",
                "criticism", "criticisms", "criticas", "opinan", "think about", "tone", "sentiment",
                "matter", "matters", "scale", "scales", "open questions", "know about", "say about",
                "says about", "propose", "proposes", "propone", "concluye", "reflect", "reflects",
                "what they mean", "what it means", "was folgt", "pflichten", "justificacion",
            ],
            holistic("interpretation", 2.0, "asks for implications, interpretation or assessment"),
        )
        .phrases(
            "(what|what do|what does|what did) (the|these|those|our|their) (results|findings|data|numbers|ablations|experiments|figures) (mean|show|suggest|indicate|tell)|was bedeuten",
            holistic("interpretation", 2.0, "asks for implications, interpretation or assessment"),
        )
        .phrases(
            "(main|key|central|primary|core|principal|overall|biggest|most important|wichtigsten|wichtigste) (idea|ideas|argument|arguments|point|points|finding|findings|contribution|contributions|takeaway|takeaways|insight|insights|message|conclusion|conclusions|theme|themes|concern|concerns|risk|risks|risk factors|steps|lessons|weaknesses|strengths|thesis|claim|claims|negotiation points|decisions|drivers|argumente|punkte|erkenntnisse)",
            holistic("main_idea", 3.0, "asks for the main idea or argument"),
        )
        .literals(
            &[
                "argument", "arguments", "argumentos", "argumente", "argue", "argues", "thesis",
                "tesis", "kernaussage", "hauptaussage", "hauptbeitrag", "zentrale these",
                "contribution", "idea principal", "conclusion principal", "idea central",
                "decisions", "decisiones", "entscheidungen", "decided", "se decidio",
                "ideas principales", "mensaje principal", "conclusiones principales",
                "hallazgos principales", "aportacion", "contribucion", "contribuciones", "aporte",
                "hauptidee", "kernidee", "grundidee", "hauptargument", "hauptergebnisse",
                "leitgedanke", "hauptthese", "hauptthemen", "central idea", "core idea", "underlying idea",
                "premise", "premisa", "pramisse", "puntos clave", "ideas clave", "kernpunkte",
            ],
            holistic("main_idea", 2.0, "asks for the main idea or argument"),
        )
        .literals(
            &[
                "overall", "in general", "as a whole", "en general", "insgesamt", "broader",
                "general", "generales", "allgemein",
            ],
            holistic("overall", 1.0, "asks about the whole"),
        )
        .literals(
            &[
                "architecture", "arquitectura", "architektur", "structure", "structured",
                "organized", "organised", "organizado", "aufgebaut", "design", "workflow", "flujo",
                "ablauf", "procedure", "procedimiento", "verfahren", "process", "proceso",
                "prozess", "mechanism", "mecanismo", "mechanismus", "lifecycle", "pipeline",
                "experimental design", "work", "works", "handle", "treat", "treats", "behave",
                "behaves", "results", "resultados", "ergebnisse", "findings", "hallazgos",
                "organizacion", "estructura", "struktur", "gliederung", "aufbau",
                "funcionamiento", "funktionsweise", "arbeitsweise", "how it works", "dynamics",
                "dinamica", "logic", "logica", "logik", "framework",
            ],
            holistic("structure", 1.0, "asks about a structure, process or body of results"),
        )
        // Holistic: advice, a course of action, what to do in a case (the
        // guide: "requests for advice or experience are holistic").
        .literals(
            &[
                "what should i do", "what should we do", "what should be done", "what do you do",
                "what can i do", "what can we do", "what would you do", "what would you",
                "what should", "what steps", "which steps", "first step to", "how should i",
                "how should we", "should i be concerned", "should i be worried", "best approach",
                "best practice", "best practices", "best design", "would you recommend",
                "do you recommend", "can you recommend", "recommend me", "advice", "advise", "tips", "suggestions", "que debo hacer",
                "que hago", "que harias", "que recomiendas", "consejos", "was soll ich",
                "was sollte", "was wurdest du", "empfehlung*", "tipps",
            ],
            holistic("advice", 2.5, "asks for advice or a course of action"),
        )
        // Holistic: a question of opinion, value or policy in yes/no form
        // ("Is Y better than Z?", "Should X be banned?").
        .literals(
            &[
                "worth it", "is it worth", "a good idea", "a bad idea", "good for", "bad for",
                "safer", "ethical", "ethically", "legit", "fair", "justified", "really help",
                "ideal", "ideal choice", "appropriate", "overrated", "vale la pena", "es buena idea",
                "lohnt es sich", "sinnvoll", "realistic", "realista", "realistas",
                "do you think", "what do you think", "in your opinion", "en tu opinion",
                "was denkst du", "was halten sie",
                "realistisch",
            ],
            holistic("opinion", 2.0, "asks for an opinion or assessment"),
        )
        // Holistic: an open set to explore, not one listed item.
        .literals(
            &[
                "what are some", "places to see", "places to visit",
                "things to do", "what to do in", "what to do at", "what to do with",
                "what to do and see", "where to go", "what else", "ways to", "ideas for",
                "examples of", "cuales son algunos", "que hacer en", "formas de",
                "was kann man", "beispiele fur",
            ],
            holistic("open_set", 2.0, "asks for an open set of things to explore"),
        )
        // Holistic: what a person or an era did or was like, beliefs,
        // factors, a hypothetical (real search queries: "what did kepler
        // accomplish", "what was the government like in virginia colony").
        .literals(
            &[
                "tell me about", "accomplish", "accomplished", "achievements", "achieve",
                "contributions to", "beliefs", "main subjects", "factors", "what if",
                "hypothetical", "would have happened", "how effective", "most effective",
                "viable", "feasible", "likely to become", "considered okay",
                "considered acceptable", "to see near", "what to see", "for fun",
                "historical places", "attractions", "what to visit",
            ],
            holistic("open_set", 2.0, "asks for an open set of things to explore"),
        )
        .regex(
            r"\bwhat (?:was|were|is|are) [a-z0-9' -]{1,40} like\b|\bwhat did [a-z0-9' -]{1,40} (?:do|accomplish|achieve|contribute)\b|\b(?:what|which) (?:is|are|was) the (?:best|most effective|ideal) \b",
            holistic("opinion", 2.0, "asks for an opinion or assessment"),
        )
        // Holistic: a procedure to follow (the guide: "how to ..." and
        // "how do I ..." procedures are holistic), a substitution to judge,
        // whether something is safe or fine to do.
        .literals(
            &[
                "how to", "what do i do to", "what do i need to do", "what do i have to do",
                "what do you need to do", "what do you do to", "what is the process",
                "what's the process", "whats the process", "the process of", "the process for",
                "procedure for", "the procedure to", "steps to", "what are the steps",
                "teach me", "instructions for", "instructions on", "como hago para",
                "como puedo", "wie kann ich", "que hago para", "que tengo que hacer para",
                "was muss ich tun",
            ],
            holistic("procedure", 2.5, "asks for a procedure to follow"),
        )
        .literals(
            &["instead of", "in place of"],
            Cue::new("instead", 0.0, "names what to replace").tagged(tag::SUBSTITUTION),
        )
        .literals(
            &[
                "substitute", "swap out", "ok to use", "okay to use", "fine to use",
                "where should i", "where should we", "use it instead of",
                "is it safe", "is it ok", "is it okay", "would it be ok", "would it be okay",
                "be okay to", "good reviews", "suggestion", "too high", "too much", "recipe", "recipes",
                "meaning of life", "life's meaning", "sentido de la vida",
            ],
            holistic("advice", 2.5, "asks for advice or a course of action"),
        )
        // Holistic: what a work or event is about (a summary).
        .regex(
            r"\bwhat (?:is|was|are|were) [a-z0-9' -]{1,60} about\b",
            holistic("summary", 3.0, "asks for a summary or overview"),
        )
        // ---------------------------------------------------------------
        // Fine-grained: quantities.
        .literals(
            &[
                "how many", "hw many", "how much", "how long", "how old", "how big", "how large",
                "how far", "how high", "how often", "how fast", "cuantos", "cuantas", "cuanto",
                "cuanta", "a cuanto", "wie viele", "wie viel", "wie vieler", "wie hoch",
                "wie lange", "wie gross", "wie alt", "wie oft", "wie schnell",
                "what percentage", "what fraction", "what proportion", "que porcentaje",
                "wie viel prozent", "how many times",
            ],
            fine("quantity", 2.5, "asks for a quantity"),
        )
        .literals(
            &["in one number", "one number", "a single number", "just the number", "only the number"],
            fine("quantity", 3.0, "asks for a quantity"),
        )
        // Fine-grained: who, when, where, which.
        .literals(
            &[
                "who", "whom", "whose", "quien", "quienes", "a quien", "wer", "wem", "wen",
                "when", "cuando", "wann", "where", "donde", "en que fecha", "what date",
                "which date", "what year", "which year", "in which year", "in what year",
                "which figure", "which table", "which appendix", "which paragraph", "what figure",
                "what table", "en que tabla", "que tabla", "que figura", "welche tabelle",
                "welche abbildung", "in welcher tabelle",
                "what time", "at what", "which page", "what page", "en que pagina",
                "auf welcher seite", "which section", "what section", "which chapter",
                "which file", "which module", "which clause", "what clause", "que seccion",
                "en que seccion", "welcher abschnitt", "in welchem abschnitt", "which version",
                "what version", "in what version", "que version", "welche version",
                "what is the name", "what's the name", "como se llama", "wie heisst", "which one",
                "cual de", "welcher der", "which of",
            ],
            fine("lookup", 1.5, "asks who, when, where or which"),
        )
        // Fine-grained: a word's spelling or translation, an account's
        // balance (one value to look up, however the question is phrased).
        .literals(
            &[
                "spell", "spelled", "spelling", "spelt", "how do you say", "how would you say",
                "how would i say", "how do germans say", "how do the french say", "my balance",
                "points balance", "bank balance", "current balance", "credit balance",
                "balance on my", "balance of my", "balance in my", "balance for my",
                "checking balance", "savings balance", "account balance", "rewards balance",
                "card balance", "enough money in my", "enough in my", "como se dice",
                "wie sagt man", "como se escribe", "wie schreibt man", "saldo de mi",
                "mi saldo", "kontostand",
            ],
            fine("lexical", 3.5, "asks for one word, translation or balance"),
        )
        // Fine-grained: definitions and quotes.
        .literals(
            &[
                "stand for", "stands for", "abbreviation", "acronym", "sigla", "siglas",
                "abkurzung", "define", "definition", "definicion", "definiert", "defined",
                "defines", "define", "meaning of", "glossary", "glosario", "what counts as",
                "what is meant by", "was versteht man unter", "que se entiende por",
                "abreviatura", "acronimo", "steht fur", "explain which", "explica cual",
                "explicame cual", "explain what the default", "refers to", "refer to", "what name", "which name",
                "que nombre", "welchen namen",
            ],
            fine("definition", 2.5, "asks for a definition"),
        )
        .literals(
            &["mean", "means", "meaning", "significa", "bedeutet"],
            fine("definition_weak", 1.2, "asks what something means"),
        )
        .literals(
            &[
                "quote", "verbatim", "word for word", "exact wording", "textualmente",
                "literalmente", "cita", "citar", "zitiere", "zitieren", "wortlich",
                "cite", "cita textual", "wortlaut", "exact quote", "exact sentence",
                "frase exacta",
            ],
            fine("quote", 3.0, "asks for a verbatim span"),
        )
        // Fine-grained: imperatives that ask for items or values.
        .literals(
            &["list all", "just name", "just tell me", "just give me"],
            fine("item_request", 1.5, "asks to list, name or give items"),
        )
        .literals(
            &["exact", "exactly", "precise", "specific", "exacto", "exacta", "genau"],
            fine("exact", 1.0, "asks for an exact value"),
        )
        .literals(
            &["step", "paso", "schritt", "row", "fila", "zeile", "entry", "cell", "celda"],
            fine("entry", 1.0, "asks for one step or entry"),
        )
        .literals(
            &[
                "table", "tabla", "tabelle", "figure", "fig", "figura", "abbildung", "column",
                "columna", "spalte", "appendix", "apendice", "anhang", "equation", "eq", "note",
            ],
            fine("reference", 0.8, "refers to a table, figure or equation"),
        )
        .literals(
            &[
                "highest", "lowest", "largest", "smallest", "fastest", "slowest", "biggest",
                "higher", "lower", "mayor", "menor", "hochsten", "niedrigsten", "hoheren",
                "hochste", "most", "least", "maximum", "minimum", "max", "min", "top-1", "top-5",
            ],
            fine("extreme", 0.8, "asks for an extreme value"),
        )
        .literals(&["or", "o", "oder"], fine("alternatives", 0.8, "asks which of named options"))
        // Fine-grained: nouns that name a value.
        .literals(
            &[
                "value", "values", "default", "defaults", "number", "count", "rate", "p-value",
                "percentage", "percent", "accuracy", "score", "f1", "bleu", "fid", "perplexity",
                "recall", "auc", "size", "dimension", "dimention", "version", "port", "name",
                "date", "year", "deadline", "amount", "price", "cost", "fee", "limit", "cap",
                "cutoff", "threshold", "period", "temperature", "speed", "capacity", "length",
                "duration", "formula", "signature", "command", "flag", "field", "fields",
                "parameter", "parameters", "hyperparameter*", "path", "header", "code",
                "variable", "setting", "id", "ticket", "email", "address", "seed", "seeds",
                "coefficient", "estimate", "elasticity", "standard error", "median", "total",
                "revenue", "dividend", "rent", "deposit", "salary", "budget", "sample size",
                "ratio", "layer", "layers", "optimizer", "tokenizer", "dataset", "datasets",
                "license", "type", "format", "unit", "model", "gene", "antibody", "cell line",
                "concentration", "test", "warranty", "notice period", "per diem", "interest",
                "margin", "sales", "employees", "key", "button", "menu", "page", "section",
                "valor", "por defecto", "numero", "tasa", "tamano", "puerto", "nombre", "fecha",
                "ano", "plazo", "importe", "precio", "limite", "umbral", "periodo", "formula",
                "comando", "parametro", "parametros", "variable de entorno", "fianza", "dividendo",
                "optimizador", "capas", "garantia", "empleados", "prueba", "wert", "standardwert",
                "zahl", "lernrate", "grosse", "datum", "jahr", "frist", "betrag", "preis",
                "grenze", "formel", "befehl", "umgebungsvariable", "kaution", "dividende",
                "optimierer", "zelllinie", "schichten", "garantie", "umsatz", "batchgrosse",
                "port", "stichprobe",
                "url", "link", "enlace", "phone", "telefono", "telefonnummer", "adresse",
                "direccion", "author", "autor", "isbn", "doi", "sku", "iban", "voltage",
                "voltaje", "spannung", "weight", "peso", "gewicht", "height", "altura", "width",
                "ancho", "breite", "age", "edad", "alter", "sueldo", "gehalt", "vocabulary size",
                "context length", "context window", "epochs", "epocas", "epochen", "checkpoint",
                "release date", "due date", "expiry", "caducidad", "ablaufdatum", "timeout",
                "interval", "intervalo", "intervall", "frequency", "frecuencia", "frequenz",
                "proporcion", "anteil",
            ],
            value("value_noun", 0.8, "names a value"),
        )
        // Look-alikes: the holistic word is part of a value's name.
        .literals(
            &[
                "impact factor", "reason code", "strategy parameter", "design doc",
                "overall accuracy", "main dataset", "interaction effect", "key used",
                "overview section", "in the overview", "approach achieved", "approach has",
                "main source", "hauptquelle", "conjunto de datos principal", "balance sheet",
                "balance general", "overall survival", "overall response", "grade of evidence",
                "level of evidence",
            ],
            fine("value_name", 2.0, "a holistic word inside a value's name"),
        )
        .literals(
            &[
                "describe the default", "describe the value", "explain what the abbreviation",
                "wie lautet", "value of", "what value", "used to compare", "para comparar",
                "zum vergleich", "statistical test", "prueba estadistica", "statistischer test",
            ],
            fine("definition", 2.5, "asks for a definition"),
        )
        .literals(
            &[
                "my", "mis", "mein", "meine", "meinen", "meinem", "meiner", "meines",
            ],
            Cue::new("own_records", 0.0, "asks about the user's own records").tagged(tag::MARKER),
        )
}

/// The cues of a query's opening words.
fn starts_builder() -> CueSetBuilder {
    CueSet::builder()
        .literals(
            &[
                "^ which",
                "^ what",
                "^ whats",
                "^ what's",
                "^ que",
                "^ ¿que",
                "^ cual",
                "^ ¿cual",
                "^ welche",
                "^ welcher",
                "^ welches",
                "^ welchen",
                "^ was ist",
                "^ was war",
            ],
            fine("wh_question", 0.6, "asks what or which"),
        )
        .literals(
            &[
                "^ list",
                "^ name",
                "^ nenne",
                "^ nennen",
                "^ enumera",
                "^ enumerate",
                "^ state",
                "^ find",
                "^ show me the",
                "^ give me the",
                "^ tell me the",
                "^ get",
                "^ dame el",
                "^ dame la",
                "^ dime el",
                "^ dime la",
                "^ gib mir den",
                "^ gib mir die",
                "^ look up",
                "^ nombra",
                "^ indica",
                "^ senala",
                "^ gib",
                "^ zeige",
                "^ zeig mir",
                "^ muestra",
                "^ muestrame",
                "^ copy",
                "^ extract",
                "^ extrae",
                "^ provide the",
            ],
            fine("item_request", 1.5, "asks to list, name or give items"),
        )
        // A hypothetical case or scenario to reason about.
        .literals(
            &[
                "^ if",
                "^ suppose",
                "^ imagine",
                "^ let's say",
                "^ lets say",
                "^ assume",
                "^ in a scenario",
                "^ hypothetically",
                "^ si",
                "^ supongamos",
                "^ imagina",
                "^ angenommen",
                "^ wenn",
            ],
            holistic("scenario", 1.5, "sets up a case to reason about"),
        )
        // A question of policy or advice in yes/no form ("Should X be
        // banned?", "Should I do an ultrasound or a CT scan?").
        .literals(
            &[
                "^ should",
                "^ ¿deberia",
                "^ deberia",
                "^ sollte",
                "^ soll man",
            ],
            holistic("policy", 1.5, "asks what should be done"),
        )
        .literals(
            &[
                "^ can i use",
                "^ could i use",
                "^ can we use",
                "^ should i use",
                "^ can you use",
                "^ is it possible to use",
            ],
            Cue::new("use_opening", 0.0, "asks about using something").tagged(tag::SUBSTITUTION),
        )
        .literals(
            &[
                "^ can you",
                "^ could you",
                "^ would you",
                "^ will you",
                "^ can u",
                "^ could u",
                "^ puedes",
                "^ podrias",
                "^ kannst du",
            ],
            Cue::new("assistant_task", 0.0, "asks the assistant to do something")
                .tagged(tag::MARKER),
        )
        .literals(
            &[
                "^ does",
                "^ did",
                "^ is there",
                "^ are there",
                "^ is it",
                "^ do they",
                "^ can i",
                "^ ¿hay",
                "^ hay",
                "^ gibt es",
            ],
            fine("yes_no", 0.8, "a yes/no question about one fact"),
        )
}

/// The compiled default strategy.
#[derive(Debug, Clone)]
pub(crate) struct Heuristic {
    cues: CueSet,
    starts: CueSet,
}

impl Heuristic {
    pub(crate) fn new() -> Result<Self, Error> {
        let (cues, starts) = build_cues()?;
        Ok(Self { cues, starts })
    }

    pub(crate) fn classify(&self, query: &str) -> GranularityDecision {
        self.classify_traced(query, None)
    }

    /// Classifies; with `trace`, also pushes the names of the cues that
    /// fired (the learned model's extra features).
    pub(crate) fn classify_traced(
        &self,
        query: &str,
        trace: Option<&mut Vec<&'static str>>,
    ) -> GranularityDecision {
        let normalized = normalize(query);
        // "1. What is ...": a list marker is no number of the query.
        let norm = crate::opening::unframed(&normalized);
        let opening = crate::opening::opening(norm);
        let head = opening.as_str();
        let hits = self.cues.hits(norm);
        let head_hits = self.starts.hits(head);
        let found: Vec<(&Cue, &str)> = head_hits
            .iter()
            .map(|h| (h.cue, h.matched(head)))
            .chain(hits.iter().map(|h| (h.cue, h.matched(norm))))
            .collect();
        let (mut f, mut h, mut values) = (0.0f32, 0.0f32, 0.0f32);
        let (mut use_opening, mut instead) = (false, false);
        for (cue, _) in &found {
            match cue.tag {
                tag::FINE => f += cue.weight,
                tag::HOLISTIC => h += cue.weight,
                tag::VALUE => values += cue.weight,
                tag::SUBSTITUTION if cue.name == "instead" => instead = true,
                tag::SUBSTITUTION => use_opening = true,
                _ => {}
            }
        }
        // "Can I use greek yogurt instead of sour cream?": advice.
        let substitution = use_opening && instead;
        if substitution {
            h += SUBSTITUTION_WEIGHT;
        }
        let values = values.min(VALUE_CAP);
        f += values;
        let digits = norm.bytes().any(|b| b.is_ascii_digit());
        if let Some(t) = trace {
            t.extend(found.iter().map(|(cue, _)| cue.name));
            if digits {
                t.push("digits");
            }
        }
        if digits {
            f += DIGIT_WEIGHT;
        }
        let label = if h > f {
            Granularity::Holistic
        } else {
            Granularity::FineGrained
        };
        let (confidence, ambiguous) = CALIBRATION.confidence(f.max(h), f.min(h), f + h);
        let mut reasons = reasons(&found, label, digits, values);
        if substitution {
            let sign = if label == Granularity::Holistic {
                1.0
            } else {
                -1.0
            };
            reasons.push(Reason::new(
                "substitution",
                "asks whether one thing can replace another",
                sign * SUBSTITUTION_WEIGHT,
            ));
            reasons.sort_by(|a, b| b.weight.total_cmp(&a.weight));
        }
        GranularityDecision::new(
            Classification::new(label, confidence).with_reasons(reasons),
            ambiguous,
            GranularityEvidence {
                fine_grained: f,
                holistic: h,
            },
        )
    }
}

/// The calibration of the two-sided evidence.
const CALIBRATION: Calibration = Calibration {
    floor: EVIDENCE_FLOOR,
    min_gap: MIN_GAP,
    slope: SLOPE,
    neutral: 0.5,
};

/// Most reasons reported (the strongest, by signed weight).
const MAX_REASONS: usize = 8;
/// Most value words named in the `value_noun` reason.
const MAX_VALUE_WORDS: usize = 5;

fn reasons(found: &[(&Cue, &str)], label: Granularity, digits: bool, values: f32) -> Vec<Reason> {
    let mut value_words: Vec<&str> = Vec::new();
    let mut signed: Vec<(&Cue, &str, f32)> = Vec::with_capacity(found.len());
    for (cue, matched) in found {
        let side = match cue.tag {
            tag::HOLISTIC => Granularity::Holistic,
            tag::VALUE => {
                if value_words.len() < MAX_VALUE_WORDS && !value_words.contains(matched) {
                    value_words.push(matched);
                }
                continue;
            }
            // Its reason is the pair's (`substitution`); a marker has none.
            tag::SUBSTITUTION | tag::MARKER => continue,
            _ => Granularity::FineGrained,
        };
        let sign = if side == label { 1.0 } else { -1.0 };
        signed.push((cue, matched, sign * cue.weight));
    }
    signed.sort_by(|a, b| b.2.total_cmp(&a.2));
    signed.truncate(MAX_REASONS);
    let mut out: Vec<Reason> = signed
        .into_iter()
        .map(|(cue, matched, weight)| {
            let matched = matched.strip_prefix("^ ").unwrap_or(matched);
            Reason::new(
                cue.name,
                crate::detail::cue_match(cue.explanation, matched),
                weight,
            )
        })
        .collect();
    let fine_sign = if label == Granularity::FineGrained {
        1.0
    } else {
        -1.0
    };
    if !value_words.is_empty() {
        out.push(Reason::new(
            "value_noun",
            format!("names a value: `{}`", value_words.join("`, `")),
            fine_sign * values,
        ));
    }
    if digits {
        out.push(Reason::new(
            "number",
            "mentions a number",
            fine_sign * DIGIT_WEIGHT,
        ));
    }
    out.sort_by(|a, b| b.weight.total_cmp(&a.weight));
    if out.first().is_none_or(|r| r.weight <= 0.0) {
        out.insert(
            0,
            Reason::new(
                "tie_to_fine_grained",
                "no more evidence for holistic: ties go to the cheaper fine-grained path",
                0.0,
            ),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::once::frozen::{self, Frozen};

    const SETS: [Frozen; 2] = [
        // Its regexes' bounded repetitions (`[a-z0-9' -]{1,40}`, unanchored)
        // make a DFA too large to build: compiled at start.
        ("granularity-cues.frozen", cue_builder, FROZEN, false),
        (
            "granularity-starts.frozen",
            starts_builder,
            FROZEN_STARTS,
            true,
        ),
    ];

    #[test]
    fn the_frozen_granularity_cues_are_the_tables() {
        frozen::are_the_tables(&SETS);
    }

    #[test]
    fn the_frozen_granularity_cues_match_as_the_compiled_ones() {
        frozen::match_as_compiled(
            &SETS,
            "granularity",
            &["train", "calibration", "real-train", "real-calibration"],
            &["text"],
            |n| {
                crate::opening::opening(crate::opening::unframed(n))
                    .as_str()
                    .to_owned()
            },
        );
    }
}
