//! The effort heuristic's cue tables: the cue categories, the weighted
//! cues (English, Spanish, German, Italian) and the rare regex cues with their
//! trigger words, the bare verbs of terse proposals, and the splitter
//! between the parts of a multi-part question.

use std::sync::LazyLock;

use tact_core::cues::Aligned;
use tact_core::{Cue, CueSet, CueSetBuilder, WordSet};

use crate::Error;

/// Cue categories (the `tag` of each cue).
pub(super) mod tag {
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
    /// Marker: an Italian word that makes the Italian regex cues worth
    /// running.
    pub const ITALIAN: u16 = 25;
}

const fn cue(name: &'static str, tag: u16, weight: f32, explanation: &'static str) -> Cue {
    Cue::new(name, weight, explanation).tagged(tag)
}

/// The `user_action` cue, read by several tables (and languages).
const USER_ACTION_CUE: Cue = cue(
    "user_action",
    tag::USER_ACTION,
    2.0,
    "asks the user to run, fetch or check something",
);
/// The `agent_proposal` cue, read by several tables (and languages).
const PROPOSAL_CUE: Cue = cue(
    "agent_proposal",
    tag::PROPOSAL,
    2.2,
    "yes/no on a concrete proposal",
);
/// The `yes_no_wish` cue, read by several tables (and languages).
const YES_NO_WISH_CUE: Cue = cue(
    "yes_no_wish",
    tag::YESNO,
    2.2,
    "a yes/no question about the user's wishes",
);
/// The `send_me` cue, read by several tables (and languages).
const SEND_ME_CUE: Cue = cue("send_me", tag::DATA, 1.2, "asks the user to send something");
/// The `open_question` cue, read by several tables (and languages).
const OPEN_CUE: Cue = cue("open_question", tag::OPEN, 0.9, "an open question");
/// The `fact_check` cue, read by several tables (and languages).
const FACT_CUE: Cue = cue(
    "fact_check",
    tag::FACT,
    1.3,
    "asks a fact the user must check",
);
/// The `diagnosis` cue, read by several tables (and languages).
const DIAGNOSIS_CUE: Cue = cue(
    "diagnosis",
    tag::DIAG,
    2.2,
    "asks for a diagnosis of a cause",
);
/// The `asks_person` cue, read by several tables (and languages).
const ASKS_PERSON_CUE: Cue = cue("asks_person", tag::WHO, 0.0, "asks who");

/// Optional lead-in before the question proper: symbols, emoji and
/// bracketed markers ("¿", "**", "🚀", "[OK]"), then words ("ok, so",
/// "also,").
const LEAD: &str = r"^(?:[^\p{L}\p{N}\[]|\[[a-z?!]{1,10}\])*(?:(?:ok|okay|so|also|and|or|great|alright|one more thing|quick question|otherwise|then|now|y|pues|entonces|vale|und|gut|auch|noch|ou|e|entao|(?:please |just )?let me know (?:if|whether))[,:]?\s+)*";

/// [`LEAD`] with the Italian lead-in words ("allora", "perfetto", "un'ultima
/// cosa:"), for the Italian cues alone.
const LEAD_IT: &str = r"^(?:[^\p{L}\p{N}\[]|\[[a-z?!]{1,10}\])*(?:(?:ok|okay|e|allora|quindi|inoltre|perfetto|ottimo|bene|poi|infine|(?:un')?ultima cosa|domanda veloce|(?:per favore )?fammi sapere se)[,:]?\s+)*";

/// The effort cues, built ahead of time (`models/effort-cues.frozen`, made
/// from [`cue_builder`] by the test `the_frozen_effort_cues_are_the_tables`
/// with `TACT_FREEZE=1`): read at start without expanding a phrase or
/// compiling a regex, which took two thirds of a `tact effort` call.
/// Stale bytes (a pattern changed) are compiled from the tables instead.
static FROZEN: &Aligned<[u8]> = &Aligned {
    align: [],
    bytes: *include_bytes!("../../../models/effort-cues.frozen"),
};

/// [`italian_cue_builder`]'s set, built ahead of time as [`FROZEN`] is.
static FROZEN_ITALIAN: &Aligned<[u8]> = &Aligned {
    align: [],
    bytes: *include_bytes!("../../../models/effort-italian-cues.frozen"),
};

pub(super) fn build_cues() -> Result<CueSet, Error> {
    Ok(cue_builder().build_frozen(&FROZEN.bytes)?)
}

/// The effort cue tables.
pub(super) fn cue_builder() -> CueSetBuilder {
    use tag::*;
    let p = |rest: &str| format!("{LEAD}{rest}");
    CueSet::builder()
        // --- low: the agent proposes something concrete, a yes/no answers it.
        .regex(
            &p(r"(?:should i|shall i|shall we|do you want me to|would you like me to|want me to|you'd like me to|you would like me to|would you like (?:us|the \w+) to|can i|may i|could i|is it (?:ok|okay|fine|alright|all right) (?:if i|to)|ok(?:ay)? (?:if i|to)|mind if i|are you (?:ok|okay|fine|happy) with|would it be (?:ok|okay|fine) (?:if|to)|do you mind if|should (?:the|this|these|it|they|that)|quieres que|deseas que|te parece (?:bien )?que|debo|puedo|prefieres que|soll ich|soll (?:das|der|die|es)|mochtest du,? dass ich|willst du,? dass ich|darf ich|kann ich|ist es (?:ok|okay|in ordnung),? wenn ich|czy mam|czy moge|czy (?:chcesz|wolisz),? (?:zebym|abym|bym)|(?:voce )?(?:quer|queres|deseja|gostaria|prefere) que eu|posso|devo|if you(?:'d like| would like| want| prefer)|si (?:quieres|prefieres) que|wenn (?:du|sie) (?:mochtest|mochten|willst),? dass ich)\b"),
            PROPOSAL_CUE,
        )
        .phrases(
            "(do you approve|(are you )?ready to proceed|ready for the next|can you confirm|could you confirm|please confirm|just (to )?confirm|is (that|this|it) (right|correct|ok|okay|what you (want|meant|expect))|did you mean|do you mean|are you sure|does (that|this) (look|sound|work)|sound good|sounds good|good to go|ok?|okay?|alright?|(es|esta) (correcto|bien)|te parece bien|vale?|de acuerdo?|ist das (richtig|korrekt|ok|in ordnung)|passt (das|es)|einverstanden|works for you|work for you|fine with you|(make|makes) sense|(align|aligns) with your (vision|plan|expectations|goals|intent)|tiene sentido|macht (das|es) sinn|ergibt (das|es) sinn|what you had in mind|(ok|okay|fine|alright|good) (with|for) you|(mi )?confermi|(puoi|potresti|puo|potrebbe) confermare|e corretto|e giusto|giusto?|corretto?|vero?|va bene|(ti|le) va bene|ti torna|(siamo )?d'accordo|ha senso|(ti|le) sembra (giusto|corretto|ok|sensato|ragionevole|una buona idea)|e quello che (intendevi|volevi|ti aspettavi)|intendevi|ti convince|va bene cosi|e ok cosi)",
            cue("confirmation", CONFIRM, 1.6, "asks to confirm something concrete"),
        )
        .regex(
            r"^(?:(?:is|are) [^?]*\b(?:fine|ok|okay|acceptable|alright|good enough)|czy [^?]*\b(?:akceptowaln[a-z]*|w porzadku|ok))\b",
            cue("confirmation_fine", CONFIRM, 1.6, "asks to confirm something concrete"),
        )
        .regex(
            &p(r"(?:do you (?:want|prefer|need|like|mind|agree)|would you (?:prefer|like|rather)|you(?:'d like| want| would like| prefer| approve)|are you (?:ok|okay|fine|happy|good)|is (?:it|that) (?:ok|okay|fine|acceptable)|quieres|prefieres|te (?:parece|viene)|mochtest du|willst du|brauchst du|ist (?:es|das) (?:ok|okay)|czy (?:chcesz|wolisz|zatwierdzasz|akceptujesz|potrzebujesz)|(?:voce )?(?:quer|prefere|deseja|gostaria)|era isso que)\b"),
            YES_NO_WISH_CUE,
        )
        // An Italian proposal with its object first, taken up by a pronoun
        // ("Il modello dati lo tengo su Firestore?").
        .phrases(
            "(lo|la|li|le|l') (tengo|metto|scrivo|configuro|faccio|aggiungo|uso|lascio|tolgo|sposto|imposto|creo|aggiorno|rimuovo|elimino|cancello|rinomino|sistemo|gestisco|salvo|separo|mantengo|pubblico|attivo|disattivo|abilito|disabilito|includo|escludo|correggo|riscrivo|preparo|mando|invio|carico|installo|lancio|avvio)",
            PROPOSAL_CUE,
        )
        // --- low: options offered.
        .literals(&["or", "o", "u", "oder", "vs", "versus", "oppure"], cue("explicit_options", OPTIONS, 2.0, "offers alternatives"))
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
            "or not|o no|oder nicht|oppure no|o meno",
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
                "indag*", "misurare", "misurarlo", "misurarla", "analizzare", "analizzarlo", "riprodurre",
                "riprodurlo", "raccogliere", "ricostruire", "scoprire", "esaminare", "profilare", "monitorare",
                "fare una ricerca", "fare ricerche",
            ],
            cue("investigation", INVESTIGATE, 2.0, "asks for investigation or measurement"),
        )
        .phrases(
            "research(ing)? (into|on|whether|if|what|how|which|the|a|options|alternatives|solutions|this|that|it)|(do|some|more|further|additional|desk) research",
            cue("research", INVESTIGATE, 2.0, "asks for research"),
        )
        // --- high: the user must run, check or fetch something.
        .phrases(
            "(can|could|would) you (please )?(also )?(run|rerun|re-run|execute|try|test|check|verify|look|find|grab|pull|fetch|export|download|capture|record|profile|time|measure|search|dig|inspect|log into|log in|sign in|ssh|deploy|restart|install|upgrade|ask|reach out|contact|ping|email|confirm with|check with|get|obtain|retrieve|dump|list all|find out)|(would you be able to|are you able to|could you possibly|can you please|is it possible for you to) (run|check|look|find|pull|grab|fetch|export|get|verify|measure|test|ask|send|share|provide|confirm)|please (run|rerun|execute|try|test|check|verify|look up|find|grab|pull|fetch|export|download|capture|record|profile|measure|search|inspect|ask|contact|get|obtain|dump)|(puedes|podrias|podria|puede|pudieras) (ejecutar|correr|probar|revisar|comprobar|verificar|buscar|mirar|preguntar|consultar|medir|exportar|descargar|obtener|sacar|sacarme|averiguar)|per favore (esegui|lancia|prova|controlla|verifica|riavvia|apri|ricarica|cerca|guarda)",
            USER_ACTION_CUE,
        )
        // Italian requests to act, by the verb's stem, so that a verb with
        // its pronouns attached ("verificarlo", "mandarmelo") matches too.
        .phrases(
            "(mi )?(puoi|potresti|puo|potrebbe|potete|potreste|riesci a|riusciresti a|ti chiedo di|le chiedo di) (anche )?(eseguir|lanciar|far girar|rieseguir|provar|testar|controllar|verificar|cercar|guardar|dare un'occhiata|misurar|esportar|scaricar|ottener|recuperar|riavviar|installar|aggiornar|aprir|acceder|collegar|contattar|trovar|ricaricar|interrogar|riprodur|fare un test|fare una prova|fare uno scan|fare un dump)*",
            USER_ACTION_CUE,
        )
        // The user is to act in their environment and report what they
        // see ("Please reload the page and check again", "Run these
        // commands and let me know if you see any errors").
        .phrases(
            "please (reload|refresh|hard refresh|restart|reopen|open|follow these steps|follow the steps|observe|go ahead and paste|paste)|let me know (what you see|what happens|the result|the results|the output|if you see|if you get|if it works|whether it works|how it goes|when you've|once you've|when you have|once you have)|once you've|when you've done|(fammi sapere|dimmi) (cosa vedi|cosa succede|il risultato|i risultati|l'output|se vedi|se funziona|se ottieni|come va|quando hai|appena hai)|appena hai|quando avrai|dopo aver (eseguito|lanciato|riavviato|provato|ricaricato)",
            USER_ACTION_CUE,
        )
        .literals(
            &["in the network tab", "do you see any", "in your browser", "in the browser console",
              "in the devtools", "in the console", "in your console", "content of the", "contents of the",
              "content of your", "contents of your", "please ensure", "please make sure you", "please make sure that you",
              "from your network", "in your repository", "in your github", "in your terminal",
              "nella console", "nel browser", "nel terminale", "nel tuo repository", "contenuto del", "contenuto della",
              "contenuto di", "contenuto dei", "nei devtools", "nella scheda network"],
            USER_ACTION_CUE,
        )
        .phrases(
            "(can|could|would) you (please )?(provide|share|send|paste|attach|upload|post|give me|copy)|(me puedes|puedes|podrias) (pasar|pasarme|enviar|enviarme|mandar|mandarme|compartir|pegar)|please (provide|share|send|paste|attach|upload)|(mi )?(puoi|potresti|puo|potrebbe|potete|potreste) (incollare|inviare|mandare|condividere|allegare|caricare|girare|passare|fornire|darmi|inviarmi|mandarmi|incollarmi|passarmi|girarmi|fornirmi|copiare|postare)|per favore (incolla|invia|manda|condividi|allega|carica)|(mi )?(puoi|potresti|puo|potrebbe|potete|potreste) (incollar|inviar|mandar|condivider|allegar|girar|passar|fornir|copiar|postar)*",
            SEND_ME_CUE,
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
                "i log", "dei log", "nei log", "il log", "del log", "nel log", "metriche", "latenza",
                "in produzione", "traffico", "costi", "costo", "spesa", "clienti", "statistiche",
                "versione esatta", "errore esatto", "errore completo", "output di", "output del",
                "output della", "output dei", "risultati di", "risultati del", "chi gestisce",
                "chi ha accesso", "quale team", "quali clienti", "credenziali", "permessi", "accesso a",
                "quale commit", "da quando", "utilizzo", "concorrenti", "dati reali", "numeri reali",
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
                "in produzione", "attualmente", "adesso", "in questo momento", "al momento", "oggi",
                "ieri", "il mese scorso", "la settimana scorsa", "l'anno scorso", "di recente",
            ],
            cue("live_state", LIVE, 1.0, "asks for the live state of things"),
        )
        .literals(
            &[
                "you", "your", "you're", "you've", "you'd", "yours", "tu", "tus", "te", "usted", "ustedes",
                "vosotros", "du", "dein", "deine", "ihr", "euch", "euer", "tuo", "tua", "tuoi", "tue", "ti",
                "vostro", "vostra", "vostri", "vostre", "voi",
            ],
            cue("about_you", YOU, 0.0, "asks about the user"),
        )
        // Polite request frames: longest-match makes them absorb their "you".
        .literals(
            &["can you", "could you", "would you", "will you", "should you", "do you", "thank you", "kannst du", "konntest du", "puedes tu"],
            cue("polite_frame", POLITE, 0.0, "a polite request frame"),
        )
        .phrases(
            "(tell me|let me know|do you know|any idea|sabes|weisst du) (which|what|when|where|how many|how much|who|why|que|cual|cuando|donde|welche|was|wann|wo)|(dimmi|mi dici|mi sai dire|sai|sapresti|fammi sapere) (quale|quali|cosa|che|quando|dove|quanti|quante|quanto|chi|perche|come)",
            cue("embedded_question", OPEN, 0.9, "an open question"),
        )
        .phrases(
            "(i can(')?t find|i couldn(')?t find|i could not find|i cannot find|i can(')?t see|couldn(')?t find|not documented|undocumented|none of the (existing )?docs|no (docs|documentation)|i only have|spread (over|across)|conflicting|no encuentro|no pude encontrar|no esta documentad|finde ich nicht|nirgends|nicht dokumentiert|non trovo|non riesco a trovare|non sono riuscito a trovare|non ho trovato|non e documentat|nessuna documentazione|non c'e documentazione)",
            cue("not_at_hand", DATA, 1.6, "the agent could not find it; the user must dig"),
        )
        .phrases(
            "(you(')?d need to|you would need to|you(')?d have to|you would have to|you(')?ll need to|you will need to|you(')?ll have to|you will have to|requires you to|you need to (check|look|run|compare|ask|find)|tendrias que|habria que|musstest du|du musstest|dovresti (controllare|verificare|chiedere|cercare|guardare|confrontare|eseguire|misurare)|bisognerebbe|ti toccherebbe|richiede che tu|(va|andrebbe|andrebbero) (verificato|verificata|controllato|controllata|misurato|misurata|verificati|controllati))",
            cue("you_would_need_to", YOU_NEED, 2.5, "the user would have to do work to answer"),
        )
        .phrases(
            "caused by|cause of|causing|due to|coming from|comes from|come from|responsible for|culprit|running out|bottleneck|slower|faster|why (is|are|does|do|did|was|were|has|have)|what's causing|what is causing|what caused|what changed|what broke|viene de|viene del|se debe a|por que|liegt (das|der|die|es)|verursacht|warum|wieso|woran|causato da|causata da|causa di|dovuto a|dovuta a|deriva da|responsabile di|collo di bottiglia|piu lento|piu lenta|piu veloce|cosa causa|cosa ha causato|cosa e cambiato|da cosa dipende|come mai",
            DIAGNOSIS_CUE,
        )
        .literals(&["correlat*", "leak*", "regress*"], cue("diagnosis_stem", DIAG, 2.2, "asks for a diagnosis of a cause"))
        .phrases(
            "(how (many|much|long|often|big|large|fast|slow|frequently)|what (percentage|fraction|share|proportion)|cuanto|cuanta|cuantos|cuantas|wie ((viel|viele)|lange|oft|gross|schnell)|quanti|quante|quanta|quanto (tempo|spesso|costa|costano|pesa|dura|traffico|grande|spazio|memoria)|ogni quanto|con che frequenza|(che|quale) percentuale|in che misura)",
            cue("quantity", QUANT, 1.4, "asks for a quantity to measure or count"),
        )
        .regex(
            &p(r"(?:is|are|was|were|does|do|did|has|have|had|will|can) (?:the|this|that|these|those|our|any|anyone|anybody|anything|there|it|prod|production|staging|port|\w+ (?:still|already|ever|actually|currently))\b"),
            FACT_CUE,
        )
        .literals(
            &[
                "you just", "just showed", "just got", "you mentioned", "you reported", "you saw",
                "you're seeing", "you are seeing", "you see", "you got", "you posted", "you pasted",
                "you shared", "you sent", "on your screen", "in front of you", "you described",
                "showed you", "you said", "you told me", "the screenshot you", "acabas de", "que ves",
                "que viste", "dijiste", "mencionaste", "comentaste", "du gerade", "du siehst", "du gesehen",
                "erwahnt", "du hattest gesagt", "hai appena", "hai detto", "hai menzionato", "hai segnalato",
                "hai incollato", "hai condiviso", "hai inviato", "mi hai mandato", "mi hai inviato", "che vedi",
                "che hai visto", "sul tuo schermo", "stai vedendo", "hai visto", "hai ottenuto",
            ],
            cue("at_hand", AT_HAND, 1.0, "the data is already in front of the user"),
        )
        // --- high: other people must be asked.
        .phrases(
            "ask (your|the|someone|somebody|around|legal|security|finance|ops|the team)|check with|consult|talk to|reach out to|confirm with|loop in|coordinate with|get sign-off|get signoff|get approval|anyone else|other teams|preguntar a|preguntarle a|consultar con|hablar con|fragen|abklaren|rucksprache|chiedere (a|al|alla|ai|alle|all')|chiedi (a|al|alla|ai|alle)|consultare|consultarti|parlare con|parlarne con|sentire (il|la|i|le|lo|l')|confrontarti con|verificare con|controllare con|coinvolgere|il via libera|altri team|qualcun altro|(il team|l'ufficio) legale|chiederlo|chiederla|chiederli|chiedilo|(va|andrebbe) chiesto",
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
                "architettura", "architetturale", "architetturali", "strategia", "strategico", "strategica",
                "compromesso", "compromessi", "a lungo termine", "riscrivere", "riscrittura", "riprogettare",
                "riprogettazione", "fornitore", "conformita", "normativa", "normative", "licenza", "licenze",
                "prima di procedere", "prima di andare avanti", "bloccante", "microservizi*",
                "monolite", "modello dei dati", "modello dati", "consistenza", "migrazione", "migrare",
                "per cliente", "tra tutti i team", "a livello aziendale", "standardizzare", "resta fermo",
                "resta bloccato", "bloccato", "bloccata", "finche non decidiamo", "finche non scegliamo",
            ],
            cue("strategy_decision", STRATEGY, 1.5, "a blocking architecture or strategy decision"),
        )
        .phrases(
            "(should we|do we need to|need to decide|have to decide|must decide|which direction|what approach should|how should we approach|deberiamos|tenemos que decidir|sollten wir|sollen wir|mussen wir entscheiden|dovremmo|dobbiamo decidere|bisogna decidere|va deciso|che direzione|che approccio dovremmo|come dovremmo)",
            cue("team_decision", DECIDE, 0.8, "a decision the team must take"),
        )
        // --- medium: preference and decision elicitation, describing.
        .regex(
            &p(r"(?:what|which|how|who|where|when|why|que|cual|cuales|como|quien|donde|cuando|was|welche|welcher|welches|wie|wer|wo|wann)\b"),
            OPEN_CUE,
        )
        .phrases(
            "(should|shall|would you like|do you want|you want|you'd like|you would like|you prefer|do you expect|you expect|you(')?re hoping|you hope|acceptable|target|deberia|deberian|quieres|prefieres|esperas|soll|sollen|sollte|mochtest|willst|erwartest|dovrebbe|dovrebbero|vuoi|preferisci|ti aspetti|si aspetta|vi aspettate|desideri|vorresti|preferiresti|preferisce|desidera|vorrebbe|accettabile|deseja|prefere|gostaria|deve|devono|dovra|dovranno|andrebbe|andrebbero|vanno|secondo te|secondo lei)",
            cue("preference_modal", MODAL, 1.0, "asks what should be, not what is"),
        )
        .regex(
            &p(r"(?:who|who's|whom|quien|quienes|wer|wem|wen)\b"),
            ASKS_PERSON_CUE,
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
                "preferisci", "preferenza", "preferenze", "preferito", "come vuoi", "come preferisci",
                "come vorresti", "cosa ne pensi", "che ne pensi", "la tua opinione", "tuo parere", "decidi tu",
                "piu dettagli", "maggiori dettagli", "piu contesto", "caso d'uso", "casi d'uso",
                "comportamento atteso", "che tipo di", "quale tipo di", "che genere di", "che stile", "che tono",
                "che formato", "quale formato", "nome", "pubblico", "obiettivo", "in mente", "chiamarlo",
                "chiamarla", "ti ricordi", "ricordi", "chiarire", "nuovo nome", "cosa ti aspetti", "nomenclatura",
                "convenzione", "convenzioni", "a tuo avviso", "a tuo parere",
            ],
            cue("elicit", ELICIT, 1.0, "asks for a preference, decision or description"),
        )
        .phrases(
            "describe|explain|elaborate|sketch|walk me through|in your own words|tell me (more|about|what you)|what you'd like|what you would like|what you have in mind|what you mean|describir|explica|explicar|cuentame|erzahl",
            cue("describe", DESCRIBE, 1.6, "asks the user to describe what they know"),
        )
        .literals(&["beschreib*", "erklar*", "descriv*", "spieg*", "raccontami", "illustrami", "illustrare", "cosa intendi", "che intendi", "cosa intende"], cue("describe_de", DESCRIBE, 1.6, "asks the user to describe what they know"))
        .literals(TRIGGERS, cue("trigger", TRIGGER, 0.0, "a trigger word"))
        .literals(ITALIAN_MARKERS, cue("italian", ITALIAN, 0.0, "an Italian word"))
}

/// Regex cues that only matter when a trigger word is present (German
/// request frames, "which X broke", "A/B/C"): compiled in a set of their
/// own that runs only then, keeping the common path on aho-corasick.
pub(super) fn build_rare_cues() -> Result<CueSet, Error> {
    // Compiled, not frozen: its unanchored DFA would take three times as
    // long to read as its regex set takes to compile.
    Ok(rare_cue_builder().build()?)
}

/// The rare cue tables.
fn rare_cue_builder() -> CueSetBuilder {
    use tag::*;
    CueSet::builder()
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
}

/// The Italian cues that must read the start of the question (a question
/// in Italian has no inversion: its first words say what it asks),
/// compiled in a set of their own that runs only when an Italian word of
/// [`ITALIAN_MARKERS`] is present, so that the anchored set every
/// question runs stays small. Their names are those of the same cues in
/// the other languages.
pub(super) fn build_italian_cues() -> Result<CueSet, Error> {
    Ok(italian_cue_builder().build_frozen(&FROZEN_ITALIAN.bytes)?)
}

/// The Italian cue tables.
pub(super) fn italian_cue_builder() -> CueSetBuilder {
    let p = |rest: &str| format!("{LEAD_IT}{rest}");
    CueSet::builder()
        .regex(
            &p(r"(?:vuoi che|vuole che|desideri che|desidera che|preferisci che|preferisce che|va bene se|ti va (?:bene )?se|e ok se|ok se|ti dispiace se|le dispiace se|ti sta bene se|dovrei|procedo|procediamo|si procede|lo faccio|faccio io|(?:se vuoi|se preferisci),? (?:posso|procedo))\b"),
            PROPOSAL_CUE,
        )
        .regex(
            &p(r"(?:vuoi|preferisci|desideri|vorresti|preferiresti|ti serve|ti servono|ti va|ti sta bene|ti interessa|le serve|le va|preferisce|desidera|vorrebbe|gradiresti|gradirebbe|(?:ti|le) piacerebbe|hai bisogno|ha bisogno)\b"),
            YES_NO_WISH_CUE,
        )
        // Imperatives to the user ("Prova a riavviare ...", "Incollami il
        // log"); the agent's own first person ("Riavvio ...?") is a proposal.
        .regex(
            &p(r"(?:prova a|prova ad|esegui|lancia|rilancia|riavvia|ricarica|controlla|verifica|apri)\b"),
            USER_ACTION_CUE,
        )
        .regex(
            &p(r"(?:incolla|incollami|mandami|inviami|girami|passami|allega|allegami|condividi)\b"),
            SEND_ME_CUE,
        )
        // "perché" also means "because": only a question that opens with
        // it asks why.
        .regex(
            &p(r"(?:perche|come mai)\b"),
            DIAGNOSIS_CUE,
        )
        .regex(
            &p(r"(?:c'e|ci sono|esiste|esistono|avete)\b"),
            FACT_CUE,
        )
        .regex(
            &p(r"(?:cosa|che cosa|che|quale|quali|qual|come|chi|dove|quando|perche)\b"),
            OPEN_CUE,
        )
        .regex(&p(r"chi\b"), ASKS_PERSON_CUE)
}

/// Italian words that make [`build_italian_cues`] worth running (tag
/// `ITALIAN`, no weight): the words its cues open with, and common
/// Italian function words.
const ITALIAN_MARKERS: &[&str] = &[
    "vuoi",
    "vuole",
    "desideri",
    "desidera",
    "preferisci",
    "preferisce",
    "va",
    "ti",
    "dovrei",
    "procedo",
    "procediamo",
    "procede",
    "faccio",
    "vorresti",
    "preferiresti",
    "serve",
    "servono",
    "interessa",
    "piacerebbe",
    "gradiresti",
    "gradirebbe",
    "vorrebbe",
    "hai",
    "ha",
    "prova",
    "esegui",
    "lancia",
    "rilancia",
    "riavvia",
    "ricarica",
    "controlla",
    "verifica",
    "apri",
    "incolla",
    "incollami",
    "mandami",
    "inviami",
    "girami",
    "passami",
    "allega",
    "allegami",
    "condividi",
    "perche",
    "mai",
    "c'e",
    "ci",
    "esiste",
    "esistono",
    "avete",
    "cosa",
    "che",
    "quale",
    "quali",
    "qual",
    "chi",
    "dove",
    "quando",
    "come",
    "allora",
    "quindi",
    "perfetto",
    "ottimo",
    "il",
    "della",
    "di",
    "per",
];

/// Trigger words of [`build_rare_cues`] (tag `TRIGGER`, no weight).
const TRIGGERS: &[&str] = &[
    "kannst", "konntest", "konnten", "konnen", "beim", "which", "/",
];

/// [`BARE_VERBS`] with [`IT_PROPOSAL_VERBS`], and [`ES_NOT_VERB`], as
/// sets, built once.
pub(super) static BARE_VERB_SET: LazyLock<WordSet> =
    LazyLock::new(|| WordSet::new(BARE_VERBS.iter().chain(IT_PROPOSAL_VERBS)));
pub(super) static ES_NOT_VERB_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(ES_NOT_VERB));

/// Imperative verbs that open a terse proposal ("Ship it?", "Roll back to
/// v2.3?", "Delete the three volumes?").
const BARE_VERBS: &[&str] = &[
    "add",
    "address",
    "adjust",
    "apply",
    "approve",
    "archive",
    "assign",
    "attach",
    "attempt",
    "backfill",
    "batch",
    "begin",
    "build",
    "bump",
    "cache",
    "cancel",
    "cap",
    "change",
    "check",
    "clean",
    "close",
    "combine",
    "comment",
    "commit",
    "complete",
    "configure",
    "consolidate",
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
    "draft",
    "drop",
    "email",
    "enable",
    "enhance",
    "exclude",
    "expand",
    "explore",
    "export",
    "extend",
    "extract",
    "file",
    "finalise",
    "finalize",
    "fix",
    "flag",
    "focus",
    "freeze",
    "generate",
    "go",
    "group",
    "help",
    "hide",
    "ignore",
    "implement",
    "import",
    "improve",
    "include",
    "increase",
    "inline",
    "install",
    "integrate",
    "investigate",
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
    "migrate",
    "mock",
    "modify",
    "move",
    "mute",
    "note",
    "notify",
    "open",
    "optimise",
    "optimize",
    "pause",
    "pin",
    "ping",
    "polish",
    "post",
    "prepare",
    "proceed",
    "promote",
    "publish",
    "push",
    "put",
    "raise",
    "rebase",
    "reboot",
    "reduce",
    "refactor",
    "refine",
    "refresh",
    "reload",
    "remove",
    "rename",
    "reorder",
    "replace",
    "reply",
    "rerun",
    "restart",
    "restructure",
    "resume",
    "retrain",
    "retry",
    "revert",
    "review",
    "rewrite",
    "roll",
    "rotate",
    "round",
    "run",
    "schedule",
    "search",
    "send",
    "set",
    "ship",
    "show",
    "silence",
    "simplify",
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
    "tackle",
    "tag",
    "test",
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
    "walk",
    "want",
    "wrap",
    "write",
];

/// Italian verbs in the first person that open the agent's proposal
/// ("Procedo con il deploy?", "Lo aggiungo?", "Facciamo così?"): the
/// singular present, and the plural of a few common verbs.
const IT_PROPOSAL_VERBS: &[&str] = &[
    "abilito",
    "aggiorno",
    "aggiungiamo",
    "aggiungo",
    "applico",
    "archivio",
    "attivo",
    "avvio",
    "blocco",
    "cambio",
    "cancello",
    "carico",
    "chiudo",
    "committo",
    "configuro",
    "continuo",
    "controllo",
    "converto",
    "correggo",
    "creo",
    "disabilito",
    "disattivo",
    "divido",
    "elimino",
    "escludo",
    "estraggo",
    "facciamo",
    "faccio",
    "genero",
    "ignoro",
    "implemento",
    "imposto",
    "includo",
    "inserisco",
    "installo",
    "integro",
    "invio",
    "lancio",
    "lascio",
    "mando",
    "mantengo",
    "metto",
    "mostro",
    "nascondo",
    "migro",
    "modifico",
    "ottimizzo",
    "passiamo",
    "preparo",
    "procediamo",
    "procedo",
    "provo",
    "pubblico",
    "pusho",
    "riavvio",
    "ricarico",
    "rifaccio",
    "rilascio",
    "rimuovo",
    "rinomino",
    "ripristino",
    "riprovo",
    "riorganizzo",
    "riscrivo",
    "salvo",
    "schedulo",
    "scrivo",
    "semplifico",
    "separo",
    "sistemo",
    "sostituisco",
    "sposto",
    "teniamo",
    "tengo",
    "testo",
    "tolgo",
    "unisco",
    "usiamo",
    "uso",
    "verifico",
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

/// Split points between the parts of a multi-part question (normalized).
pub(super) fn part_splitter() -> Result<regex::Regex, Error> {
    regex::Regex::new(
        r"(?:,|;|\s-)?\s(?:and|also|plus|y|und|e)\s(?:also\s|anche\s)?(?:what|which|how|where|when|who|why|should|shall|do|does|can|could|would|is|are|will|que|cual|como|donde|cuando|debo|puedo|was|welche|wie|wo|wann|soll|kann|cosa|quale|quali|come|dove|quando|chi|perche|devo|posso|vuoi|preferisci|puoi|potresti)(?-u:\b)",
    )
    .map_err(|e| {
        Error::Core(tact_core::Error::Pattern {
            pattern: "part splitter".into(),
            message: e.to_string(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::once::frozen::{self, Frozen};

    const SETS: [Frozen; 2] = [
        ("effort-cues.frozen", cue_builder, FROZEN, true),
        (
            "effort-italian-cues.frozen",
            italian_cue_builder,
            FROZEN_ITALIAN,
            true,
        ),
    ];

    #[test]
    fn the_frozen_effort_cues_are_the_tables() {
        frozen::are_the_tables(&SETS);
    }

    #[test]
    fn the_part_splitter_compiles() {
        assert!(part_splitter().is_ok());
    }

    #[test]
    fn the_frozen_effort_cues_match_as_the_compiled_ones() {
        frozen::match_as_compiled(
            &SETS,
            "effort",
            &[
                "train",
                "calibration",
                "train-it",
                "calibration-it",
                "real-train",
                "real-calibration",
            ],
            &["text", "message"],
            str::to_owned,
        );
    }
}
