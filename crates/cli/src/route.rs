//! `tact route`: route user messages to a pipeline and model slot under
//! the routing contract, one at a time (with an optional history file) or
//! in batches; output as text or JSON lines.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::batch::{Render, write_one};
use anyhow::{Context, Result, bail};
use tact_classifiers::route::{ModelSlots, Router, Strategy};
use tact_types::{IntentEntry, Label, RouteDecision};

/// Arguments of `tact route`.
#[derive(clap::Args, Debug)]
pub struct RouteArgs {
    /// The new user message (omit with --file).
    pub message: Option<String>,
    /// The session's earlier turns, oldest first: a JSON array of
    /// `{"type": ..., "snippet": ...}`, or one such object per line.
    #[arg(long, conflicts_with = "file")]
    pub history: Option<PathBuf>,
    /// Route every line of FILE: plain text (one message per line) or
    /// JSONL objects with `text` and optional `history` and `id`; `-` reads stdin. A line over 64 MiB is
    /// skipped with a warning naming it.
    #[arg(long, conflicts_with = "message")]
    pub file: Option<PathBuf>,
    /// Strategy and output format.
    #[command(flatten)]
    pub opts: crate::batch::TextOptions,
    /// Registered platform prefixes (RC-01), replacing the default; repeat
    /// the flag for several.
    #[arg(long = "prefix", value_name = "PREFIX")]
    pub prefixes: Vec<String>,
    /// Print the classifier prompt the message would get instead of
    /// routing it (for hosts that still ask an LLM).
    #[arg(long, conflicts_with_all = ["file", "json"])]
    pub prompt: bool,
    /// The model-backed tier.
    #[command(flatten)]
    pub llm: crate::llm::LlmArgs,
}

/// Builds the router of `args` with the given model slots (read from the
/// environment by `main`, injected by tests), and the model-backed tier of
/// `llm` (whose slots, with `--llm-model`, replace them).
pub fn router(args: &RouteArgs, slots: ModelSlots, llm: Option<&tact::llm::Llm>) -> Result<Router> {
    let strategy: Strategy = args
        .opts
        .strategy
        .as_deref()
        .map_or(Ok(Strategy::default()), str::parse)?;
    let mut b = Router::builder().strategy(strategy);
    b = match llm {
        Some(llm) => b
            .model_slots(llm.model_slots())
            .escalation(llm.escalation(tact_classifiers::learned::Task::Route)),
        None => b.model_slots(slots),
    };
    if !args.prefixes.is_empty() {
        b = b.platform_prefixes(args.prefixes.iter().cloned());
    }
    Ok(b.build()?)
}

/// Reads a history file: a JSON array of entries, or one entry per line
/// (blank and `//` lines skipped). Errors name the file and, for JSONL,
/// the line.
pub fn read_history(path: &Path) -> Result<Vec<IntentEntry>> {
    // Bytes that are not UTF-8 are an error naming file and line.
    let text = tact_core::dataset::read_text(path)?;
    if text.trim_start().starts_with('[') {
        return serde_json::from_str(&text)
            .with_context(|| format!("{}: not a JSON array of history entries", path.display()));
    }
    let lines = tact_core::dataset::parse_jsonl::<IntentEntry>(&path.display().to_string(), &text)?;
    Ok(lines.into_iter().map(|l| l.record).collect())
}

fn text_line(message: &str, d: &RouteDecision) -> String {
    let reasons: Vec<&str> = d
        .classification
        .reasons
        .iter()
        .map(|r| r.detail.as_ref())
        .collect();
    let model = match &d.model {
        Some(m) => format!("{} ({m})", d.model_slot),
        None => d.model_slot.to_string(),
    };
    format!(
        "{:<15} {:.2}{}  {}\n                rule: {}; model slot: {model}; retrieval: {}\n                because: {}",
        d.label().as_str(),
        d.confidence(),
        if d.ambiguous { " (ambiguous)" } else { "" },
        message.replace('\n', " "),
        d.rule,
        if d.needs_retrieval { "yes" } else { "no" },
        reasons.join("; ")
    )
}

/// Runs `tact route`.
/// `parallel` lines of a batch are routed at once (the model tier's
/// `max_in_flight`).
pub fn run(args: &RouteArgs, router: &Router, parallel: usize, out: &mut impl Write) -> Result<()> {
    if let Some(path) = &args.file {
        return Render::<Router>::new(&|q, d| text_line(&q.text, d))
            .parallel(parallel)
            .run_file(router, path, args.opts.json, out);
    }
    let Some(message) = &args.message else {
        bail!("give a MESSAGE or --file FILE");
    };
    let history = match &args.history {
        Some(p) => read_history(p)?,
        None => Vec::new(),
    };
    if args.prompt {
        writeln!(out, "{}", router.prompt(message, &history))?;
        return Ok(());
    }
    let d = router.route(message, &history);
    write_one(out, args.opts.json, &d, || text_line(message, &d))
}
