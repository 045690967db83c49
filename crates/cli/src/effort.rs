//! `tact effort` and `tact questions`: argument types, batch reading and
//! output formatting (text or JSON lines), written against any reader and
//! writer so tests can drive them.

use std::io::Write;
use std::path::PathBuf;

use crate::batch::{Render, write_one};
use anyhow::{Context, Result, bail};
use tact::llm::Llm;
use tact_classifiers::effort::{EffortClassifier, Strategy};
use tact_classifiers::learned::Task;
use tact_types::{Classification, EffortLevel};

/// Arguments of `tact effort`.
#[derive(clap::Args, Debug)]
pub struct EffortArgs {
    /// The question to classify (omit with --file).
    pub question: Option<String>,
    /// What the user already has at hand (task description, spec).
    #[arg(long)]
    pub context: Option<String>,
    /// Classify every line of FILE: plain text (one question per line) or
    /// JSONL objects with `text` and optional `context` and `id`; `-` reads stdin. A line over 64 MiB is
    /// skipped with a warning naming it.
    #[arg(long, conflicts_with = "question")]
    pub file: Option<PathBuf>,
    /// Strategy and output format.
    #[command(flatten)]
    pub opts: crate::batch::TextOptions,
    /// The model-backed tier.
    #[command(flatten)]
    pub llm: crate::llm::LlmArgs,
}

/// Arguments of `tact questions`.
#[derive(clap::Args, Debug)]
pub struct QuestionsArgs {
    /// Strategy: heuristic, seed, learned or hybrid (default: the
    /// library's default, hybrid).
    #[arg(long)]
    pub strategy: Option<String>,
    /// Print JSON: an array of questions with offsets and effort (with
    /// --explain: an object with `questions`, each with why it was kept,
    /// and `dropped`).
    #[arg(long)]
    pub json: bool,
    /// The model-backed tier.
    #[command(flatten)]
    pub llm: crate::llm::LlmArgs,
    /// Also say why each question was taken as one to the user, and list
    /// every sentence with a `?` that was left out with its reason (the
    /// agent answers or pursues it itself, a closing, a heading, quoted,
    /// in code or a link ...).
    #[arg(long)]
    pub explain: bool,
}

/// A sentence left out of the questions, as `--explain --json` shows it.
#[derive(serde::Serialize)]
struct DroppedJson<'a> {
    text: &'a str,
    start: usize,
    end: usize,
    why: &'static str,
}

/// The classifier of `strategy`, with the model-backed tier of `llm`.
pub fn classifier(strategy: Option<&str>, llm: Option<&Llm>) -> Result<EffortClassifier> {
    let strategy: Strategy = strategy.map_or(Ok(Strategy::default()), str::parse)?;
    let mut b = EffortClassifier::builder().strategy(strategy);
    if let Some(llm) = llm {
        b = b.escalation(llm.escalation(Task::Effort));
    }
    Ok(b.build()?)
}

/// Formats one result as a text line: `LABEL (confidence) text` plus reasons.
fn text_line(text: &str, r: &Classification<EffortLevel>) -> String {
    let reasons: Vec<&str> = r.reasons.iter().map(|x| x.detail.as_ref()).collect();
    format!(
        "{:<6} {:.2}  {}\n       because: {}",
        r.label.to_string(),
        r.confidence,
        text.replace('\n', " "),
        reasons.join("; ")
    )
}

/// Runs `tact effort`.
pub fn run_effort(args: &EffortArgs, llm: Option<&Llm>, out: &mut impl Write) -> Result<()> {
    let c = classifier(args.opts.strategy.as_deref(), llm)?;
    let Some(q) = &args.question else {
        let Some(path) = &args.file else {
            bail!("give a QUESTION or --file FILE");
        };
        let render = Render::<EffortClassifier>::new(&|q, r| text_line(&q.text, r))
            .parallel(crate::llm::parallel(llm));
        return render.run_file(&c, path, args.opts.json, out);
    };
    if q.trim().is_empty() {
        bail!("the question is empty: give the text of a question");
    }
    let r = c.classify(q, args.context.as_deref());
    write_one(out, args.opts.json, &r, || text_line(q, &r))
}

/// Runs `tact questions` on a message read from `input`.
pub fn run_questions(
    args: &QuestionsArgs,
    llm: Option<&Llm>,
    mut input: impl std::io::Read,
    out: &mut impl Write,
) -> Result<()> {
    let c = classifier(args.strategy.as_deref(), llm)?;
    let bytes =
        tact_core::input::read_bounded(&mut input, "stdin", tact_core::input::MAX_TEXT_BYTES)
            .context("cannot read the message from stdin")?;
    let message = tact_core::dataset::decode_text("stdin", bytes)?;
    // Questions are shown as found: a credential (even one the split
    // would cut in pieces) never is.
    let message = crate::redact::text(&message);
    let found = c.questions(&message);
    // The classifier's questions are `find_questions`' kept ones, in order;
    // found again only to say why (a one-message call spent a tenth of
    // its instructions finding them twice).
    let explained = if args.explain {
        tact_core::text::find_questions(&message)
    } else {
        tact_core::text::Questions::default()
    };
    let kept: Vec<&'static str> = explained.kept.iter().map(|k| k.kept.as_str()).collect();
    let dropped: Vec<DroppedJson<'_>> = explained
        .dropped
        .iter()
        .map(|d| DroppedJson {
            text: d.sentence.text(&message),
            start: d.sentence.start,
            end: d.sentence.end,
            why: d.why.as_str(),
        })
        .collect();
    if args.json {
        if args.explain {
            let questions: Vec<serde_json::Value> = found
                .iter()
                .zip(kept.iter().chain(std::iter::repeat(&"a question")))
                .map(|(q, why)| {
                    let mut v = serde_json::to_value(q)?;
                    if let Some(o) = v.as_object_mut() {
                        o.insert("kept".into(), (*why).into());
                    }
                    Ok(v)
                })
                .collect::<Result<_>>()?;
            let v = serde_json::json!({"questions": questions, "dropped": dropped});
            writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        } else {
            writeln!(out, "{}", serde_json::to_string_pretty(&found)?)?;
        }
        return Ok(());
    }
    if found.is_empty() {
        writeln!(out, "no questions")?;
    }
    for (i, q) in found.iter().enumerate() {
        writeln!(out, "{}. {}", i + 1, text_line(&q.text, &q.effort))?;
        if let (true, Some(why)) = (args.explain, kept.get(i)) {
            writeln!(out, "       kept: {why}")?;
        }
    }
    if args.explain && !dropped.is_empty() {
        writeln!(out, "left out:")?;
        for d in &dropped {
            writeln!(out, "  - {}\n       {}", d.text.replace('\n', " "), d.why)?;
        }
    }
    Ok(())
}
