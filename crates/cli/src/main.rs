//! The `tact` command line: the end-to-end main job (`tact run`: score,
//! replay, store and rank agent sessions), and the classifiers one at a
//! time: the effort of clarifying questions, the granularity of retrieval
//! queries, the route of assistant messages, guidance over trajectories.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod batch;
mod bounded;
mod effort;
mod granularity;
mod guide;
mod llm;
mod prefs;
mod redact;
mod report;
mod route;
mod run;
mod score;
mod store;
mod watch;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Fast, explainable classifiers for hosts of LLM agents.
#[derive(Parser)]
#[command(name = "tact", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The main job: read agent sessions (a file or a folder), classify
    /// their questions, check preferences, replay guidance over their tool
    /// events, compute rewards, store it all (--db: a file, default
    /// ./tact.db, or a PostgreSQL URL) and
    /// print the weighted consensus ranking per spec and stage.
    Run(run::RunArgs),
    /// Classify the effort (low / medium / high) of a clarifying question.
    Effort(effort::EffortArgs),
    /// Read an agent message on stdin and list its questions with their effort.
    Questions(effort::QuestionsArgs),
    /// Say which guidance classifiers fire on an agent trajectory and why,
    /// or follow a live one (--follow) and print nudges as they fire.
    Guide(guide::GuideArgs),
    /// Report the telemetry of a trajectory database: leaderboard,
    /// interaction scores over time, most violated preferences, question
    /// effort, guidance fires; `--out DIR` adds an HTML page of SVG charts.
    Report(report::ReportArgs),
    /// Check an agent message against user preferences (`tact prefs check`).
    Prefs(prefs::PrefsArgs),
    /// Score one agent session: R_Prod, R_Proact, R_Pers and the rules behind them.
    Score(score::ScoreArgs),
    /// Rank several agents' sessions by technical and interaction quality.
    Consensus(score::ConsensusArgs),
    /// Classify a retrieval query as fine-grained or holistic (and pick the
    /// scoring method of a recursion level with --level).
    Granularity(granularity::GranularityArgs),
    /// Route an assistant message to RETRIEVAL, CODE_GENERATION,
    /// CONVERSATIONAL or PLATFORM under the routing contract.
    Route(route::RouteArgs),
    /// The trajectory store itself: `tact store copy FROM TO` moves a
    /// history between a SQLite file and a PostgreSQL database.
    Store(store::StoreArgs),
    /// Watch one agent session live in a terminal UI: questions by effort,
    /// user messages by route, guidance nudges as they fire, the running
    /// interaction score (a growing file, or `-` for stdin).
    Watch(watch::WatchArgs),
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("TACT_LOG"))
        .with_writer(|| redact::Redacting::new(std::io::stderr()))
        .init();
    let cli = Cli::parse();
    let env = |k: &str| std::env::var(k).ok();
    let stdout = std::io::stdout();
    let mut out = redact::Redacting::new(stdout.lock());
    let result = match cli.command {
        Command::Run(args) => {
            // Stderr is locked per write, never for the whole run: a
            // `tracing` event from another thread (TACT_LOG=warn) must not
            // wait for the run to end.
            let mut err = redact::Redacting::new(std::io::stderr());
            let done = run::run(&args, &env, &mut out, &mut err);
            let _ = out.flush();
            let _ = err.flush();
            match done {
                // Some sessions were skipped (reported on stderr): the
                // others are stored, but the exit status says so.
                Ok(report) if !report.is_clean() => return ExitCode::from(1),
                Ok(_) => Ok(()),
                Err(e) => Err(e),
            }
        }
        Command::Effort(args) => with_llm(&args.llm, &env, &mut out, |llm, out| {
            effort::run_effort(&args, llm, out)
        }),
        Command::Questions(args) => with_llm(&args.llm, &env, &mut out, |llm, out| {
            let stdin = std::io::stdin();
            effort::run_questions(&args, llm, stdin.lock(), out)
        }),
        Command::Guide(args) => {
            let stdin = std::io::stdin();
            guide::run(&args, stdin.lock(), &mut out)
        }
        Command::Report(args) => report::run(&args, &env, &mut out),
        Command::Store(args) => store::run(&args, &mut out),
        Command::Prefs(args) => prefs::run(&args, std::io::stdin().lock(), &mut out),
        Command::Score(args) => score::run_score(&args, &mut out),
        Command::Consensus(args) => score::run_consensus(&args, &mut out),
        Command::Granularity(args) => with_llm(&args.llm, &env, &mut out, |llm, out| {
            let scoring = tact::granularity::ScoringConfig::from_env()?;
            let g = granularity::Granularity::new(args.opts.strategy.as_deref(), scoring, llm)?;
            granularity::run(&args, &g, out)
        }),
        Command::Route(args) => with_llm(&args.llm, &env, &mut out, |llm, out| {
            let slots = tact::route::ModelSlots::from_env();
            let r = route::router(&args, slots, llm)?;
            route::run(&args, &r, llm::parallel(llm), out)
        }),
        Command::Watch(args) => with_llm(&args.llm, &env, &mut out, |llm, out| {
            // https://no-color.org: set and not empty turns colour off.
            let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
            watch::run(&args, color, llm, out)
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`tact questions --json | head -1`): stop
        // quietly, as Unix tools do.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = out.flush();
            // A parser may quote a huge input: no credential the scanner
            // knows (redacted before the excerpt's cut), an excerpt of the
            // message, no raw control character.
            eprintln!("{}", redact::shown(&format!("error: {}", chain(&e))));
            ExitCode::from(2)
        }
    }
}

/// Runs a text command with the model client its `--llm` options ask
/// for, then prints the model's failures, if any, as one warning on stderr.
fn with_llm<W: Write>(
    args: &llm::LlmArgs,
    env: &dyn Fn(&str) -> Option<String>,
    out: &mut W,
    command: impl FnOnce(Option<&tact::llm::Llm>, &mut W) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let stderr = std::io::stderr();
    let client = {
        let mut err = redact::Redacting::new(stderr.lock());
        let client = llm::client(args, env, &mut err);
        let _ = err.flush();
        client?
    };
    let done = command(client.as_ref(), out);
    let _ = out.flush();
    let mut err = redact::Redacting::new(stderr.lock());
    llm::report(client.as_ref(), &mut err)?;
    let _ = err.flush();
    done
}

/// Whether the error comes from writing to a closed pipe.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        let kind = match cause.downcast_ref::<std::io::Error>() {
            Some(io) => Some(io.kind()),
            None => cause
                .downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind),
        };
        kind == Some(std::io::ErrorKind::BrokenPipe)
    })
}

/// The error and its causes, `: ` between them, each said once: a cause
/// whose text its error's message already holds is not repeated.
fn chain(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let message = cause.to_string();
        if message.is_empty() || text.contains(&message) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&message);
    }
    text
}
