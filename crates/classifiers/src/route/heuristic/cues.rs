//! The routing heuristic's cue tables: the cue categories and the
//! weighted English and Spanish cues per query type, references and topic
//! switches, and the cues of the message's opening words.

use tact_core::cues::Aligned;
use tact_core::{Cue, CueSet, CueSetBuilder};

use crate::Error;

/// Cue categories (the `tag` of each cue).
pub(super) mod tag {
    /// Platform: the user's own account, first person ("my plan").
    pub const MINE: u16 = 1;
    /// Platform: account, billing or quota data.
    pub const ACCOUNT: u16 = 2;
    /// Platform: weaker account vocabulary.
    pub const PLAT: u16 = 3;
    /// A usage noun: with a percentage or a figure it is account data.
    pub const USAGE: u16 = 4;
    /// Code: a verb asking to write or change code.
    pub const CODE_VERB: u16 = 5;
    /// Code: an artifact to write.
    pub const ARTIFACT: u16 = 6;
    /// Code: the specification of what code must do.
    pub const SPEC: u16 = 7;
    /// Retrieval: documentation.
    pub const DOC: u16 = 8;
    /// Retrieval: a question about the language or library.
    pub const LANG: u16 = 9;
    /// Conversational: greetings, thanks, acknowledgements.
    pub const SOCIAL: u16 = 10;
    /// Conversational: reformulate the previous answer.
    pub const REFORM: u16 = 11;
    /// Conversational: small talk, questions about the assistant.
    pub const META: u16 = 12;
    /// A reference to an earlier turn.
    pub const REF: u16 = 13;
    /// A topic switch: no reference to earlier turns.
    pub const SWITCH: u16 = 14;
    /// Platform look-alike: the user's own app data or a code requirement.
    pub const LOOKALIKE: u16 = 15;
    /// A question opening.
    pub const QUESTION: u16 = 16;
    /// A reference that is also a code verb ("fix it", "do the same").
    pub const REF_CODE: u16 = 17;
    /// A how-to question frame ("how do I ...", "¿cómo ...?").
    pub const HOWTO: u16 = 18;
    /// A polite request frame ("can you ...", "could we ..."): with a code
    /// verb it asks for work, not for an answer.
    pub const REQUEST: u16 = 19;
    /// Retrieval: read the project to answer ("scan the repo and tell
    /// me"); with a code verb it is the first step of a change ("read
    /// @TODO.md and fix phase 1") and counts for nothing.
    pub const READ: u16 = 20;
    /// A third-party service ("on Vercel", "my GitHub"): billing, plans
    /// and limits there are not the user's account on this platform.
    pub const THIRD_PARTY: u16 = 21;
}

const fn cue(name: &'static str, tag: u16, weight: f32, explanation: &'static str) -> Cue {
    Cue::new(name, weight, explanation).tagged(tag)
}

pub(super) fn build_cues() -> Result<(CueSet, CueSet), Error> {
    Ok((
        cue_builder().build_frozen(&FROZEN.bytes)?,
        starts_builder().build_frozen(&FROZEN_STARTS.bytes)?,
    ))
}

/// The route cues, built ahead of time (`models/route-cues.frozen`,
/// made from [`cue_builder`] by the test `the_frozen_route_cues_are_the_tables`
/// with `TACT_FREEZE=1`): read at start without expanding a phrase or
/// building the trie. Stale bytes (a pattern changed) are compiled from
/// the tables instead.
static FROZEN: &Aligned<[u8]> = &Aligned {
    align: [],
    bytes: *include_bytes!("../../../models/route-cues.frozen"),
};

/// [`starts_builder`]'s set, built ahead of time as [`FROZEN`] is.
static FROZEN_STARTS: &Aligned<[u8]> = &Aligned {
    align: [],
    bytes: *include_bytes!("../../../models/route-starts.frozen"),
};

/// The route cue tables.
#[allow(clippy::too_many_lines)]
fn cue_builder() -> CueSetBuilder {
    use tag::*;
    CueSet::builder()
        // -------------------------------------------------------------
        // PLATFORM: the user's own account, first person.
        .phrases(
            "my (peak |daily |total |monthly |current |weekly |average |overall )?(daily |monthly |weekly )?(usage|consumption|spend|bill)|my (current |last |latest |next |previous )?(account|plan|plan's|quota|usage|subscription|bill|billing|invoice|invoices|card|credit card|payment|payments|last payment|card payment|payment method|credits|free credits|trial|api calls|api call count|request limit|rate limit|limit|limits|remaining quota|monthly quota|monthly request limit|execution limit|monthly execution limit|usage counter|console|balance|spend|spending|consumption|billing address|billing details|team|seats|tokens)|(our|this) (current )?(account|quota|subscription|balance|billing|consumption|card|credit card|payment|bill|credits|usage|limit|request limit|rate limit)",
            cue("my_account", MINE, 3.0, "the user's own account data"),
        )
        .phrases(
            "(mi|mis) (cuenta|plan|cuota|suscripcion|factura|facturas|tarjeta|pago|pagos|ultimo pago|consumo|saldo|creditos|prueba gratuita|plan actual|limite|limites|gasto|recibo|recibos|cobros|datos de facturacion|metodo de pago)|(nuestra|esta) (cuenta|cuota|suscripcion)|(nuestro|este) (consumo|saldo)",
            cue("my_account", MINE, 3.0, "the user's own account data"),
        )
        .literals(
            &[
                "do i have left", "have i used", "i've used", "i have used", "i've consumed",
                "have i made", "did i make", "am i paying", "will i pay", "i'm paying", "am i on",
                "i'm on", "is this account", "which of my projects", "am i to", "charged me", "charge me", "cost me", "bill me", "i paid",
                "did i exceed", "over my", "i exceed", "exceed my", "go over my", "go past my", "hit my",
                "me quedan", "cuanto me queda", "me queda hasta", "que me queda", "llevo consumido",
                "me paso del", "me paso de", "pasarme del", "limite de llamadas", "have i spent",
                "i spent", "we spent", "have we spent", "he gastado", "hemos gastado",
                "how much have i", "how much have we", "cuanto he", "cuanto hemos", "cuanto llevo",
                "cuanto llevamos", "me habeis pasado", "me han pasado", "no reconozco",
                "i didn't choose", "i was billed", "i was charged", "we were charged",
                "estoy al", "vamos por", "voy por",
                "llevo este mes", "llevo hoy", "llevo", "he consumido", "he hecho", "he usado",
                "me habeis cobrado", "me han cobrado", "me cobrais", "lo cobrais", "pague",
                "voy a pagar", "me costaria", "tengo contratado", "tengo el proyecto",
                "mis apis", "me conviene subir", "uso va mi cuenta", "quedan en mi",
                "my colleague", "on the account", "on my account",
            ],
            cue("my_account", MINE, 3.0, "the user's own account data"),
        )
        // "I'm at 80%", not "I am at a loss"; "70% of my", not "all styles of my".
        .regex(
            r"\b(?:i'm|i am|im) at (?:about |around |roughly )?[0-9]|[0-9%] of my\b",
            cue("my_account", MINE, 3.0, "the user's own account data"),
        )
        // PLATFORM: account, billing and quota data.
        .literals(
            &[
                "quota", "cuota", "billing", "billed", "facturacion", "invoice", "invoices",
                "factura", "facturas", "subscription", "suscripcion", "refund", "devolver la parte",
                "charged", "cobrado", "overage", "upgrade", "downgrade", "subir de plan",
                "cambiar de plan", "free tier", "annual plan", "plan anual", "annual billing",
                "seat limit", "billing cycle", "billing period", "cycle", "ciclo", "renew",
                "renews", "renueva", "renovacion", "dame de baja", "darme de baja", "cancel my",
                "trial", "free credits", "credits left", "creditos", "saldo", "vat", "iva",
                "good standing", "credit card on file", "payment failed", "pago rechazado",
                "ha sido rechazado", "tarjeta con la que pago", "enterprise", "starter plan",
                "pro plan", "to pro", "free plan", "free tier", "team plan", "my plan",
                "which plan", "what plan", "current plan", "paid plan", "plan limits",
                "plan limit", "mi plan", "que plan", "cual plan", "plan actual",
                "plan que tengo", "incluye el plan", "the plan i have", "the plan i'm on",
                "plan am i on", "plan include", "plan includes",
                "business plan", "enterprise plan", "plan gratuito", "plan pro", "plan business",
                "plan empresa", "pricing", "tarifa",
                "tarifas", "cuanto cuesta", "how much does", "how much is", "discount", "descuento",
                "pay yearly", "pay monthly", "pay annually", "pagar", "pago", "pay", "payment",
                "payment method", "payment methods", "metodo de pago", "forma de pago",
                "datos de facturacion", "direccion de facturacion", "billing address",
                "billing details", "tax id", "vat number", "nif", "cif", "next payment",
                "next charge", "proximo cobro", "proximo pago", "proxima factura", "want to cancel",
                "quiero cancelar", "cancelar la suscripcion", "darme de alta", "dar de baja",
                "prueba gratuita", "periodo de prueba", "free trial", "caduca", "expira",
                "expires", "vence", "recibo", "recibos", "receipt", "receipts", "cobro", "cobros",
                "cargo", "cargos", "charge", "charges", "transferencia", "tarjeta", "consumption",
                "balance", "suspended", "suspendida", "seats", "asientos", "usage report",
                "count towards", "count toward", "count against",
                "counts towards", "counts against", "cuentan para", "cuenta para", "expired",
                "overages",
            ],
            cue("account_data", ACCOUNT, 2.5, "account, billing or quota data"),
        )
        .phrases(
            "the (current )?(account|quota|usage|subscription|bill|billing|invoice|invoices|credits|trial|request limit|rate limit|remaining quota|monthly quota|usage counter)|the current plan",
            cue("account_data", ACCOUNT, 2.5, "account, billing or quota data"),
        )
        .literals(
            &[
                "limite", "limit", "quota", "cuota", "estoy al", "voy por", "vamos por", "va por",
                "we're at", "we are at", "i'm at", "i am at", "tokens", "spent", "gastado",
                "usage", "uso", "consumo", "consumido", "consumed", "used", "gone", "calls",
                "llamadas", "requests", "peticiones", "executions", "ejecuciones", "storage",
                "almacenamiento", "spend", "spent", "credits", "projects", "proyectos",
                // The user's project or account is account data with a usage
                // figure ("my project has made 8,400 of 10,000 calls"), not
                // alone ("my project folder", "forked it to my account").
                "my project", "my projects", "to my account",
            ],
            cue("usage_noun", USAGE, 0.5, "usage vocabulary"),
        )
        .literals(
            &[
                "usage breakdown", "usage for", "usage this", "peak daily usage", "consumo desglosado",
                "usage counter", "contador de uso", "request cap", "api call count", "calls left",
                "requests left", "remaining quota", "counter resets", "roll over", "pasan al mes",
                "price difference", "paying per month", "per month right now", "seat", "billing admin",
                "billing email", "teammate", "this morning", "the platform", "la plataforma",
                "la consola", "the console", "my plan", "the next invoice", "last invoice",
                "ultima factura", "a nombre de mi empresa", "how much quota", "unused calls",
                "que no gasto", "unused part", "annual billing",
            ],
            cue("platform_request", PLAT, 1.5, "a request about the platform account"),
        )
        // Look-alikes: the user's own app data, or a limit as code.
        .literals(
            &[
                "table", "tabla", "_table", "our customers", "our users", "each customer",
                "each of our", "per customer", "nuestros clientes", "de un cliente", "per key",
                "api key", "every api key", "same ip", "same token", "mismo token", "per ip",
                "per day", "por hora", "per hour", "per minute", "por minuto", "usage of",
                "uso de", "el uso", "report object", "billing api", "invoices endpoint",
                "given used and total", "a department", "un departamento", "in the code",
                "stripe-style", "login", "attempts", "my endpoints", "mis endpoints",
            ],
            cue("lookalike", LOOKALIKE, 0.0, "the user's app data or a code requirement"),
        )
        // Third-party services a coding agent's user works with (a payment
        // provider is left out: paying with it is this platform's billing).
        .literals(
            &[
                "vercel", "netlify", "heroku", "aws", "azure", "gcp", "google cloud", "github",
                "gitlab", "bitbucket", "supabase", "firebase", "cloudflare", "openai",
                "anthropic", "digitalocean", "railway", "fly.io", "render.com", "twilio",
                "sendgrid", "mailgun", "docker hub", "npm", "pypi", "hugging face", "huggingface",
            ],
            cue("third_party", THIRD_PARTY, 0.0, "names a third-party service"),
        )
        // -------------------------------------------------------------
        // CODE_GENERATION: verbs.
        .literals(
            &[
                "write", "rewrite", "escribe", "escribeme", "escribelo", "escribir", "me escribes",
                "generate", "genera", "generame", "create", "crea", "creame", "implement",
                "implementa", "build me", "hazme", "haz que", "haz una", "haz un", "fix", "corrige",
                "corrigelo", "arregla", "arreglalo", "convert", "convierte", "conviertelo",
                "translate", "traduce", "turn this", "turn that", "refactor", "refactoriza",
                "complete", "completa", "rename", "add", "anade", "anadele", "agrega", "optimize",
                "optimizalo", "optimiza", "change it", "cambia", "cambialo", "combine", "make this", "make the", "now make", "ponle", "pasame", "paginate", "sacando",
                "give me a snippet", "i need an endpoint", "i need a function", "necesito un script",
                "necesito un endpoint", "necesito una funcion", "quiero una funcion",
                "quiero un endpoint", "necesito que mis", "escribelo", "use the function",
                "instead of my",
                "quedaria", "debug", "depura", "handle negative", "wrap", "envuelve", "extract",
                "extrae", "move", "mueve", "split", "separa", "replace", "reemplaza", "sustituye",
                "remove", "quita", "elimina", "mejora", "improve", "speed up", "acelera",
                "simplify", "simplifica", "clean up", "limpia", "inserta", "ordena", "filtra",
                "validate", "valida", "fix this", "corrige este", "corrige esta", "build",
                "construye", "give me the code", "dame el codigo", "show me the code",
                "muestrame el codigo", "the code for", "the code to", "el codigo para",
                "can you code", "code a", "code me", "program a", "extend", "extiende", "amplia",
                "termina", "finish", "sort", "modify", "modifica", "adapt", "adapta", "adjust",
                "ajusta", "tweak", "port", "migrate", "migra", "draft", "scaffold", "develop",
                "desarrolla", "programa", "me haces", "me puedes hacer", "me creas", "crearme", "fill in",
                "rellena", "change", "put",
                "show me the", "help me write", "ayudame a escribir",
            ],
            cue("code_verb", CODE_VERB, 1.5, "asks to write or change code"),
        )
        // What a user asks a coding agent to do to the project: run,
        // commit, ship (real transcripts: "commit and push", "run the
        // tests", "restart the server", "sync").
        .literals(
            &[
                "commit", "commit it", "push", "push it", "push changes", "push the changes",
                "deploy", "redeploy", "restart", "reinstall", "install", "rerun", "re-run",
                "run the tests", "run tests", "run the test", "run the unit tests", "run it",
                "run them", "run the app", "run the server", "run the script", "run this",
                "execute", "proceed with", "spin up", "sync", "revert", "roll back", "rollback",
                "bump", "start the server", "start phase", "continue with", "merge",
                "haz commit", "sube los cambios", "despliega", "reinicia", "ejecuta",
                "make a", "make it", "make them", "make sure", "turn it", "turn them",
                "update", "organize", "reorganize", "include", "look into", "take a look",
                "resolve", "configure", "set up", "apply", "i want you to",
                "actualiza", "organiza", "incluye", "configura", "aplica",
                "revise", "ensure", "undo", "tighten", "patch", "benchmark", "restore",
                "incorporate", "edit", "work through", "work off", "do it", "do them",
                "do this", "test this", "test it",
                "test the", "try again", "effect the changes", "make the changes",
                "mark with", "mark as", "help me test", "help me fix", "help me build",
                "help me set up", "filter",
                // Portuguese, common in public agent transcripts.
                "atualize", "atualiza", "valide", "resolva", "crie", "adicione",
                "implemente", "corrija", "remova", "ajuste", "faca", "rode", "teste",
                "utilize", "gere", "me ajude a", "altere", "mude", "coloque", "refatore",
                "inclua", "execute",
                // Polish imperatives (normalized: no accents, but `ł` stays).
                "napraw", "zrob", "dodaj", "usun", "zmien", "popraw", "uruchom", "zapisz",
                "rozpocznij", "dokoncz", "przenies", "uaktualnij", "zaktualizuj", "stworz",
                "stworzmy", "utworz", "zaimplementuj", "zacommituj", "przejdz", "uzupełnij",
                "posprzataj", "skopiuj", "przepisz", "start implementing", "implementing",
                "execute task", "excute",
                "solve", "fork", "turn off", "turn on", "enable", "disable", "hide",
                "increase", "decrease", "reduce", "init", "initialize", "set it up",
                "let's work on", "lets work on", "let's continue", "lets continue",
                "let's start", "lets start", "let's begin", "lets begin", "let's implement",
                "lets implement", "let's move", "lets move", "let's do", "lets do",
                "let's fix", "lets fix", "let's remove", "lets remove", "let's set",
                "lets set", "let's make", "lets make", "let's build", "lets build",
                "let's create", "lets create", "let's address", "lets address",
                "let's update", "lets update", "let's integrate", "lets integrate",
            ],
            cue("agent_action", CODE_VERB, 1.5, "asks the agent to act on the project"),
        )
        .literals(
            &[
                "endpoint", "endpoints", "function", "functions", "funcion", "funciones", "script",
                "snippet", "code", "codigo", "loop", "bucle", "query", "consulta", "check",
                "validation", "validacion", "middleware", "webhook receiver", "handler", "cron",
                "job", "program", "programa", "method", "regex", "helper", "branch", "block",
                "bloque", "try/exception", "try/catch", "if", "else", "cache", "this returns",
                "the if", "este if", "this loop", "este bucle", "this endpoint", "este endpoint",
                "this function", "esta funcion", "este codigo", "this code", "example", "ejemplo",
                "crud", "class", "module", "modulo", "test", "tests", "unit test", "unit tests",
                "pruebas unitarias", "test case", "mock", "parser", "webhook", "webhook handler",
                "tarea programada", "scheduled task", "service", "servicio", "http client",
                "boilerplate", "template", "plantilla", "pagination", "paginacion", "logger",
                "variable names", "codebase", "sql", "status code", "comments", "comentarios",
            ],
            cue("artifact", ARTIFACT, 1.0, "names code to write"),
        )
        .literals(
            &[
                "that returns", "that accepts", "that takes", "that receives", "that reads",
                "that computes", "that calculates", "that converts", "that checks", "that counts",
                "that parses", "that masks", "that removes", "that generates", "that merges",
                "that validates", "that verifies", "that sends", "that stores", "that lists",
                "that blocks", "that rejects", "that caps", "that posts", "that deletes",
                "that creates", "that updates", "that fetches", "that hashes", "that formats",
                "que devuelva", "que reciba", "que calcule", "que compruebe", "que valide",
                "que lea", "que liste", "que consulte", "que envie", "que borre", "que registre",
                "que convierta", "que aplane", "que busque", "que sume", "que devuelvan",
                "que devuelve", "que ignore", "que use", "que paguen", "returns 400", "return 200",
                "returns the", "and returns", "y devuelva", "devuelva un", "returning",
                "a 404", "un 404", "429 if", "429 when", "with 429", "in parallel",
                "to avap", "into avap", "a avap", "in avap:", "en avap:", "avap equivalent",
                "equivalente en avap de", "into an avap", "so it", "para que", "so only",
                "so the", "instead of plain", "throws", "syntax error", "falla", "fails",
                "doesn't work", "no funciona", "is broken", "breaks", "tarda mucho", "still fails",
                "sigue fallando", "that logs", "i want a", "i want an", "i need a", "i need an",
                "quiero un", "quiero una", "necesito un", "necesito una", "so it also",
                "para que acepte", "para que use", "que te pase",
            ],
            cue("code_spec", SPEC, 1.0, "specifies what code must do"),
        )
        // A bug report without a question: the user wants it fixed.
        .literals(
            &[
                "not working", "isn't working", "is not working", "stopped working",
                "no longer works", "doesn't start", "does not start", "not starting",
                "won't start", "nothing happened", "nothing happens", "does nothing",
                "still getting", "i get an error", "i'm getting an error", "getting an error",
                "gives an error", "crashes", "crashed", "still not", "is failing", "are failing",
                "not loading", "doesn't load", "doesn't show", "can't connect", "sigue sin",
                "no arranca", "da error", "me sale un error",
                "complains", "getting this error", "i get this error", "not showing",
                "isn't showing", "not populated", "no change in", "absolutely no difference",
                "doesn't seem to", "i still do not see", "i still don't see", "still broken",
                "is duplicating", "issue when", "not seeing", "i do not see", "is showing up",
                "out of sync", "no code was provided", "not inserted", "been inserted",
                "nao funciona", "deu erro", "um erro", "esta quebrado",
                "nie działa", "bład", "błedy", "now i get", "now i'm getting", "still get", "segue erro", "segue o erro",
                "does not exist", "doesn't exist",
                "still doing", "still seeing", "still there", "still occurs", "still happening",
                "still shows", "still showing", "keeps", "not applied", "wasn't applied",
                "was not applied", "didn't work", "did not work", "doesn't work",
                "does not work", "marche pas", "no change", "not displaying", "not appearing",
                "doesn't appear", "does not appear", "didn't close", "is broken", "are broken",
                // A pasted error or stack trace.
                "traceback (most recent call last)", "\"severity\":", "panicked at",
                "uncaught", "typeerror:", "referenceerror:", "syntaxerror:", "valueerror:",
                "keyerror:", "attributeerror:", "importerror:", "modulenotfounderror:",
                "cannot find module", "module not found", "failed to compile", "npm err!",
                "is not defined", "is not a function", "does not exist on type",
                "error[e", "exception in thread", "stack trace",
            ],
            cue("bug_report", SPEC, 1.0, "reports a bug to fix"),
        )
        // A requirement the project must meet ("I want all tables to take
        // the full width", "the default mode should be casual"): work to
        // do. "I want to know" is a question, not a requirement.
        .literals(
            &[
                "should be", "should have", "should only", "should always", "should never",
                "should not", "shouldn't", "should appear", "should show", "should use",
                "i want all", "i want everything", "i want the", "i want this", "i want that",
                "i want it", "i want them", "i want each", "i want every", "i only want",
                "i still want", "we need more", "needs to be", "must be", "must not",
                "deberia ser", "deberia tener", "tiene que", "quiero que",
                "i don't like", "i do not like", "i want better", "i want more", "i want less",
                "i'd like the", "i would like the", "make it so", "i want to add",
                "we need to", "need it to", "it needs to", "they need to",
                "can we also", "could we also",
            ],
            cue("requirement", SPEC, 1.0, "states a requirement of the project"),
        )
        // -------------------------------------------------------------
        // RETRIEVAL: documentation and language questions.
        .literals(
            &[
                "admite", "permite", "soporta", "support", "supports", "accept", "accepts",
                "acepta", "is it possible", "can it", "does it support",
            ],
            cue("capability", LANG, 1.5, "asks what the language or library can do"),
        )
        .literals(
            &[
                "docs", "documentation", "documented", "documentacion", "documentada",
                "documentado", "la doc", "the doc", "reference", "referencia", "style guide",
                "guia oficial", "official", "oficial", "manual", "according to the docs",
                "reference page", "in the docs", "en la documentacion",
            ],
            cue("documentation", DOC, 2.0, "asks about the documentation"),
        )
        // RETRIEVAL: reading the project to answer, not changing it
        // ("Scan the repo and tell me ...", "Read @README.md", "explain
        // without making any changes").
        .literals(
            &[
                "scan the repo", "scan the codebase", "scan the project", "search all files",
                "search the codebase", "search the repo", "search the project", "read @",
                "analyze the", "analyse the", "examine the", "audit the", "identify all",
                "identify why", "what options", "how would this work", "how can i go about",
                "without making any changes", "without changing", "don't change",
                "do not change", "tell me what", "tell me which", "tell me where",
                "revisa el codigo", "analiza el", "sin cambiar", "sin hacer cambios",
                "pesquise", "leia", "avalie", "analise o", "analise a", "verifique se",
                "explain what", "explain how", "explain why", "please explain",
                "can you explain", "describe in detail", "describe what", "what do these",
                "what does this code", "is there a good reason", "why do we", "why did we",
                "why are we", "show me the current", "show me where", "can you find",
                "can you confirm that", "need to verify", "want to look at", "need some advice",
                "improvement ideas", "am i looking in", "como faco para", "me explique", "sprawdz", "pesquisar",
            ],
            cue("read_project", READ, 2.0, "asks to read the project and answer"),
        )
        .literals(
            &[
                "avap", "built-in", "builtin", "native", "nativa", "nativo", "standard library",
                "libreria estandar", "syntax", "sintaxis", "operator", "operators", "operadores",
                "keyword", "keywords", "reserved", "interpreter", "interprete", "runtime",
                "runtimes", "parser", "data types", "tipos de datos", "case sensitive",
                "mayusculas y minusculas", "scope", "ambito", "zero-based", "one-based",
                "how do i", "how do you", "how can i", "how does", "how is", "how are",
                "what does", "what do", "difference between", "diferencia", "que diferencia",
                "que hace", "que devuelve", "que pasa si", "what happens", "is there a",
                "is there any", "are there", "hay alguna", "hay algun", "hay un", "existe",
                "se puede", "se pueden", "can i", "como se", "como hago", "como paso",
                "como convierto", "como cambio", "como recibo", "como leo", "como funciona",
                "return value", "give back", "default", "por defecto", "para que sirve", "what is",
                "que es", "when would i use", "recommended way", "forma de", "equivalent",
                "equivalente", "variable", "variables", "string", "list", "lista", "type",
                "types", "declare", "declara", "declarar", "what arguments", "parameters",
                "parametros", "timezone", "format", "formato", "exactly", "exactamente",
                "behaviour", "behavior", "retry by itself", "does", "do i",
                "which", "cual", "cuales", "que funciones", "which functions", "the language",
                "el lenguaje", "implicitly", "maximum", "maximo", "upper bound", "largest",
                "nesting", "recursion", "recursion depth", "encoding", "case", "compiled",
                "interpreted", "mean", "means", "significa", "argument", "arguments",
                "que usaste", "you used", "did you use", "se escribe", "como se escribe",
                "how do i write", "how do you write", "how is it written", "thread safe",
                "thread-safe", "compatible", "deprecated", "obsoleto", "async", "blocking",
                "performance", "efficient", "case insensitive", "null", "empty", "unicode",
                "utf-8", "available", "disponible", "funciona con", "funciona tambien",
                "work with", "works with", "sintaxis de", "where can i find", "donde encuentro",
                "donde puedo encontrar",
            ],
            cue("language_question", LANG, 1.0, "asks about the language or library"),
        )
        // -------------------------------------------------------------
        // CONVERSATIONAL: greetings, thanks, acknowledgements.
        .literals(
            &[
                "hi", "hello", "hey", "hola", "buenas", "buenos dias", "buenas tardes",
                "buenas noches", "good morning", "good afternoon", "good evening", "yo",
                "hello again", "hola otra vez", "vuelvo a la carga", "thanks", "thank you", "thx",
                "ty", "cheers", "gracias", "mil gracias", "muchas gracias", "appreciate",
                "great", "genial", "perfect", "perfecto", "nice", "cool", "awesome", "ok", "okay",
                "vale", "got it", "understood", "entendido", "de acuerdo", "sounds good",
                "makes sense", "fair enough", "lol", "haha", "jajaja", "jaja", "bye", "see you",
                "hasta luego", "hasta manana", "adios", "buen finde", "un saludo", "never mind",
                "nevermind", "nada", "olvidalo", "no te preocupes", "sorry", "perdona", "perdon",
                "wrong window", "wrong chat", "me equivoque", "ignore that", "ignore my last",
                "start over", "empezar de nuevo", "lo pruebo", "te digo", "let me think",
                "come back later", "that's all", "that's everything", "con esto ya",
                "suficiente por hoy", "ya funciona!", "funciona perfecto", "it works", "that worked", "works now",
                "ya funciona", "me has salvado", "saved me", "helpful", "crack", "claro",
                "me ha quedado claro", "clear", "very clear", "done", "listo", "entonces",
                "ya lo he resuelto", "that helps", "brb", "cheers", "🙏", "😊", "no worries",
                "exactly what i needed", "much better", "better answer", "patience", "paciencia",
                "morning", "hiya", "howdy", "hey there", "saludos", "que hay", "many thanks",
                "much appreciated", "tysm", "muy amable", "te agradezco", "alright", "all right",
                "sure", "yep", "yes", "nope", "go ahead", "adelante", "excellent", "excelente",
                "brilliant", "amazing", "wonderful", "estupendo", "guay", "de lujo",
                "good job", "well done", "buen trabajo", "you rock", "me sirve", "useful",
                "util", "i'm back", "ya estoy", "one sec", "un momento", "espera", "exhausted",
                "tired", "cansado", "long day",
            ],
            cue("social", SOCIAL, 3.0, "a greeting, thanks or acknowledgement"),
        )
        // CONVERSATIONAL: reformulate or continue the previous answer.
        .literals(
            &[
                "shorter", "mas corto", "too long", "muy largo", "resumelo", "resumemelo",
                "summarize what", "summarise what", "in one sentence", "en una frase",
                "en dos lineas", "two lines", "three sentences", "key point", "tl;dr",
                "bullet points", "bullet", "numbered list", "as a list", "in a list",
                "en una lista", "en forma de tabla", "in a table", "put that in a table",
                "rephrase", "reword", "reformula", "de otra forma", "de otra manera", "otra vez",
                "again", "repeat", "repite", "say it", "dimelo", "in english", "en ingles",
                "in spanish", "en espanol", "in plain words", "simpler", "more simply",
                "mas sencillas", "mas sencillo", "mas despacio", "slower", "like i'm", "como si",
                "nino", "non-technical", "without the jargon", "sin codigo", "no code",
                "analogy", "analogia", "ejemplo de la vida real", "more formal", "mas formal",
                "bold", "negrita", "email to my team", "your answer", "tu respuesta",
                "the last answer", "la ultima respuesta", "last answer", "previous answer",
                "what you changed", "you just wrote", "the code you", "expand on", "expand a bit",
                "your second point", "go over that", "didn't get", "don't get", "i still don't",
                "no entendi", "no lo pillo", "no te sigo", "que quiere decir", "yes or no",
                "si o no", "first step again", "one more time", "final sentence",
                "skip the explanation", "explain that", "explain it", "explicamelo",
                "explicalo", "explicame eso", "explicame lo", "say that", "cut it down",
                "pasamelo en", "ponlo en", "me lo pones", "me lo repites", "lo resumes",
                "hazlo mas", "palabras mas", "sin ejemplos", "for a non", "lo que hemos hablado",
                "hemos hablado", "in two bullet", "se me ha borrado", "closed the tab", "concise",
                "more concise", "mas conciso", "less technical", "menos tecnico", "more detail",
                "mas detalle", "more detailed", "shorter version", "longer", "mas largo",
                "your explanation", "tu explicacion", "your last message", "tu ultimo mensaje",
                "your reply", "your response", "into german", "in german", "en aleman",
                "al aleman", "al ingles", "al espanol", "to english", "to spanish", "in french",
                "en frances", "traducelo", "i don't understand", "don't understand", "no entiendo",
                "no lo entiendo", "clarify", "aclara", "aclaralo", "what do you mean",
                "que quieres decir", "a que te refieres", "what did you mean", "go on", "sigue",
                "continua", "keep going", "continue", "en vinetas", "en puntos", "un solo parrafo",
                "one paragraph", "en un parrafo", "like i'm five", "eli5", "for a beginner",
                "para principiantes", "resume lo que", "lo que me has dicho", "what you said",
                "not what i meant", "that's not what i", "no es lo que", "i meant", "quise decir",
                "me referia", "resumen de lo que", "me has explicado", "you explained",
                "you told me", "what you explained", "hazme un resumen de lo",
            ],
            cue("reformulate", REFORM, 3.0, "asks to reformulate or continue the answer"),
        )
        // CONVERSATIONAL: small talk, questions about the assistant.
        .literals(
            &[
                "who are you", "your name", "como te llamas", "quien eres", "are you a bot",
                "a bot or", "are you a person", "eres una persona", "una ia", "an ai",
                "hablas", "what can you", "help me with", "que sabes hacer", "what kinds of things",
                "how's your day", "how are you", "que tal", "que tal estas", "weekend plans",
                "weekend", "calor", "are you there", "estas ahi", "is it ok if i ask", "you're very",
                "you are very", "any weekend", "model are you", "que modelo eres", "are you gpt",
                "are you chatgpt", "who made you", "who created you", "who built you",
                "quien te ha creado", "quien te creo", "te ha creado", "a joke", "un chiste",
                "do you speak", "can you speak", "your favourite", "your favorite", "tu favorito",
                "tu favorita", "do you like", "te gusta", "nice to meet", "encantado",
                "frustrating", "frustrante",
            ],
            cue("small_talk", META, 3.0, "small talk or a question about the assistant"),
        )
        // -------------------------------------------------------------
        // References to earlier turns (RC-03), and topic switches.
        .literals(
            &[
                "that function", "that snippet", "that code", "that endpoint", "that answer",
                "that part", "that one", "that again", "that last", "that case", "to that",
                "with that", "of that", "about that", "on that", "for that", "from that",
                "like that", "in that", "is that", "does that", "was that", "that's", "put that",
                "do that", "break that", "say that",
                "that instead", "in it",
                "does it", "with it", "to it", "on it", "of it", "explain it", "say it", "the same",
                "same thing", "the previous", "the last one", "the first one",
                "the second one", "the other one", "the second version", "the other file",
                "above", "there", "lo mismo", "eso mismo", "lo anterior", "el anterior",
                "la anterior", "eso", "esa funcion", "ese codigo", "ese endpoint", "con eso",
                "de eso", "y eso", "en eso", "a eso", "esto", "hazlo", "ponlo", "dimelo",
                "pasamelo", "resumelo", "escribelo", "explicamelo", "repitelo",
                "me lo", "se lo", "la de", "el de", "last month", "el mes pasado", "yesterday",
                "ayer", "by endpoint", "por endpoint", "same with", "the other",
                "el otro", "la otra", "los otros", "before", "antes", "earlier", "previous",
            ],
            cue("reference", REF, 0.0, "refers to an earlier turn"),
        )
        .literals(
            &[
                "fix it", "fix that", "make it", "make that", "use it", "using it", "use that",
                "turn that", "turn it", "change it", "change that", "do the same", "same for",
                "the same but", "now the same", "do it for", "lo mismo para", "lo mismo en",
                "hazlo para", "haz lo mismo", "arreglalo", "corrigelo", "cambialo", "optimizalo",
                "conviertelo", "anadele", "anadelo", "ponle", "how would that look",
                "how would it look", "what would that look like", "what would it look like",
            ],
            cue("reference_code", REF_CODE, 1.5, "asks to change the earlier code"),
        )
        .literals(
            &[
                "different topic", "different question", "otra cosa", "by the way", "por cierto",
                "unrelated", "new question", "cambiando de tema", "another question",
                "otra pregunta", "quick one", "pregunta rapida",
            ],
            cue("topic_switch", SWITCH, 0.0, "switches topic"),
        )
}

/// The cues of a query's opening words.
fn starts_builder() -> CueSetBuilder {
    use tag::*;
    CueSet::builder()
        .literals(
            &[
                "^ and",
                "^ y",
                "^ ok and",
                "^ ok, and",
                "^ ¿y",
                "^ now",
                "^ ok now",
                "^ ok, now",
                "^ ahora",
                "^ also",
                "^ what about",
                "^ vale, ¿y",
                "^ vale, y",
            ],
            cue("reference", REF, 0.0, "refers to an earlier turn"),
        )
        .literals(
            &["^ how", "^ can", "^ could", "^ should", "^ ¿", "^ como"],
            cue("question_opening", QUESTION, 0.0, "opens a question"),
        )
        .literals(
            &[
                "^ can you",
                "^ could you",
                "^ can we",
                "^ could we",
                "^ would you",
                "^ will you",
                "^ please",
                "^ pls",
                "^ puedes",
                "^ podrias",
                "^ podemos",
                "^ por favor",
            ],
            cue("request_opening", REQUEST, 0.0, "opens a polite request"),
        )
        // A message that opens with an imperative code verb ("add scipy",
        // "rename it", "can we change every model to ..."): a request to
        // the agent, however short.
        .literals(
            &[
                "^ add",
                "^ remove",
                "^ delete",
                "^ rename",
                "^ replace",
                "^ fix",
                "^ implement",
                "^ create",
                "^ refactor",
                "^ move",
                "^ change",
                "^ convert",
                "^ write",
                "^ build",
                "^ generate",
                "^ run",
                "^ install",
                "^ deploy",
                "^ upload",
                "^ publish",
                "^ start",
                "^ restart",
                "^ commit",
                "^ push",
                "^ merge",
                "^ can we add",
                "^ can we change",
                "^ can we remove",
                "^ can we make",
                "^ let's add",
                "^ lets add",
                "^ let's change",
                "^ lets change",
            ],
            cue(
                "imperative",
                CODE_VERB,
                1.0,
                "opens with a request to change code",
            ),
        )
        // A shell command typed as the message ("git push origin main",
        // "chmod +x run.sh", "pwd"): the agent is to run it.
        .literals(
            &[
                "^ git",
                "^ npm",
                "^ npx",
                "^ yarn",
                "^ pnpm",
                "^ bun",
                "^ cargo",
                "^ pip",
                "^ pip3",
                "^ python",
                "^ python3",
                "^ node",
                "^ docker",
                "^ kubectl",
                "^ chmod",
                "^ cd",
                "^ ls",
                "^ pwd",
                "^ mkdir",
                "^ curl",
                "^ pytest",
                "^ uv",
                "^ poetry",
                "^ brew",
                "^ sudo",
                "^ gh",
                "^ terraform",
                "^ make",
                "^ ./",
                "^ time",
                "^ mv",
                "^ cp",
                "^ rm",
                "^ /run",
                "^ /mv",
                "^ /test",
            ],
            cue(
                "shell_command",
                CODE_VERB,
                1.5,
                "a shell command for the agent to run",
            ),
        )
        .literals(
            &[
                "^ what",
                "^ what's",
                "^ whats",
                "^ which",
                "^ why",
                "^ where",
                "^ when",
                "^ is",
                "^ are",
                "^ does",
                // "do it", "do the option you think is best" are requests.
                "^ do you",
                "^ do we",
                "^ do i",
                "^ do they",
                "^ do these",
                "^ do those",
                "^ que",
                "^ cual",
                "^ donde",
                "^ cuando",
                "^ por que",
                "^ hay",
                "^ es",
                "^ ¿que",
                "^ ¿cual",
                "^ ¿donde",
                "^ ¿cuando",
                "^ ¿por que",
                "^ ¿hay",
                "^ ¿es",
                "^ ¿existe",
            ],
            cue(
                "question_opening",
                HOWTO,
                0.0,
                "opens a question about something",
            ),
        )
        .literals(
            &[
                "^ how do i",
                "^ how can i",
                "^ how do you",
                "^ how would i",
                "^ how to",
                "^ how should i",
                "^ how do we",
                "^ how can we",
                "^ is it possible",
                "^ ¿como",
                "^ como",
                "^ ¿se puede",
                "^ se puede",
                "^ ¿puedo",
                "^ can i",
                "^ what's the best way",
                "^ what is the best way",
                "^ what's the recommended way",
            ],
            cue("howto_question", HOWTO, 0.0, "asks how to do something"),
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::once::frozen::{self, Frozen};

    const SETS: [Frozen; 2] = [
        ("route-cues.frozen", cue_builder, FROZEN, true),
        ("route-starts.frozen", starts_builder, FROZEN_STARTS, true),
    ];

    #[test]
    fn the_frozen_route_cues_are_the_tables() {
        frozen::are_the_tables(&SETS);
    }

    #[test]
    fn the_frozen_route_cues_match_as_the_compiled_ones() {
        frozen::match_as_compiled(
            &SETS,
            "route",
            &["train", "calibration", "real-train", "real-calibration"],
            &["text"],
            |n| crate::opening::opening(n).as_str().to_owned(),
        );
    }
}
