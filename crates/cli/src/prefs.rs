//! `tact prefs check`: does one agent message respect one or more user
//! preferences? Text-level preferences are checked by the labelling
//! guide's rules; judged ones are reported "not judged" (no judge is
//! configured on the command line); session-level ones need a session
//! (`tact score`).

use std::io::{Read, Write};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use tact_scoring::{CheckKind, Preference, TextChecker, Violation};

/// Arguments of `tact prefs`.
#[derive(clap::Args, Debug)]
pub struct PrefsArgs {
    #[command(subcommand)]
    pub command: PrefsCommand,
}

/// Subcommands of `tact prefs`.
#[derive(clap::Subcommand, Debug)]
pub enum PrefsCommand {
    /// Check one agent message against preferences.
    Check(CheckArgs),
}

/// Arguments of `tact prefs check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// A preference name (repeat for several): concise_question,
    /// detail_question, do_selection, one_question, lang_ita, capital,
    /// commas, json, snippet, length; judged ones are reported not judged.
    #[arg(long = "pref", required = true)]
    pub prefs: Vec<String>,
    /// The agent message (read from stdin when omitted).
    pub text: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Outcome {
    preference: Preference,
    /// `ok`, `violated` or `not_judged`.
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    violation: Option<Violation>,
}

/// Runs `tact prefs`, reading the message from `input` when not given.
pub fn run(args: &PrefsArgs, mut input: impl Read, out: &mut impl Write) -> Result<()> {
    let PrefsCommand::Check(args) = &args.command;
    let prefs: Vec<Preference> = args
        .prefs
        .iter()
        .map(|p| p.parse::<Preference>())
        .collect::<Result<_, _>>()?;
    if let Some(p) = prefs.iter().find(|p| p.check_kind() == CheckKind::Session) {
        bail!(
            "`{p}` is scored on whole sessions, not on one message: use `tact score SESSION.json`"
        );
    }
    let text = match &args.text {
        Some(t) => t.clone(),
        None => {
            let limit = tact_core::input::MAX_TEXT_BYTES;
            let bytes = tact_core::input::read_bounded(&mut input, "stdin", limit)
                .context("cannot read the message from stdin")?;
            tact_core::dataset::decode_text("stdin", bytes)?
        }
    };
    // Spans of the message are shown: never a credential.
    let text = crate::redact::text(&text);
    let checker = TextChecker::new()?;
    let mut results = Vec::new();
    for p in prefs {
        let outcome = if p.check_kind() == CheckKind::Judged {
            Outcome {
                preference: p,
                status: "not_judged",
                violation: None,
            }
        } else {
            let v = checker.check(p, &text)?;
            Outcome {
                preference: p,
                status: if v.is_some() { "violated" } else { "ok" },
                violation: v,
            }
        };
        results.push(outcome);
    }
    if args.json {
        let value = serde_json::json!({ "text": text, "results": results });
        writeln!(out, "{value}")?;
        return Ok(());
    }
    for r in &results {
        match &r.violation {
            None if r.status == "not_judged" => writeln!(
                out,
                "{}: not judged (a judged preference; no judge configured)",
                r.preference
            )?,
            None => writeln!(out, "{}: ok", r.preference)?,
            Some(v) => {
                writeln!(out, "{}: violated", r.preference)?;
                writeln!(out, "  expected: {}", v.expected)?;
                writeln!(out, "  actual:   {}", v.actual)?;
                if let Some(span) = &v.span {
                    writeln!(out, "  at {}..{}: {:?}", span.start, span.end, span.text)?;
                }
            }
        }
    }
    Ok(())
}
