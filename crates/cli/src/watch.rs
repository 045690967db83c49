//! `tact watch`: a live terminal view of one agent session (the
//! `tact-watch` crate on the terminal): questions by effort, user messages
//! by route, nudges as they fire, the running interaction score.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Result, bail};
use tact_types::trajectory::Mode;
use tact_watch::read::Native;
use tact_watch::source::Source;

/// Arguments of `tact watch`.
#[derive(clap::Args, Debug)]
pub struct WatchArgs {
    /// The session: a file followed as it grows (JSON Lines of events,
    /// `{"pending": [...]}` proposals or whole sessions; a `.json` file is
    /// one session, read whole), or `-` for stdin.
    #[arg(default_value = "-")]
    pub path: PathBuf,
    /// Step through the session at SPEED events per second instead of
    /// showing what is there at once.
    #[arg(long, value_name = "SPEED")]
    pub replay: Option<f64>,
    /// The guidance mode of a bare event stream: `headless` (whole run)
    /// or `interactive` (windows restart at each user message); a session
    /// says its own.
    #[arg(long, default_value = "headless")]
    pub mode: Mode,
    /// Most transcript rows kept in memory: older ones are dropped (the
    /// status line counts them).
    #[arg(long, value_name = "N", default_value_t = tact_watch::MAX_ROWS)]
    pub max_rows: usize,
    /// The model tier: questions the cheaper tiers are unsure of are put
    /// to the model on a thread of their own, never the screen's.
    #[command(flatten)]
    pub llm: crate::llm::LlmArgs,
}

/// Runs the view until `q`, then prints what it saw on `out`. `color` is
/// off when `NO_COLOR` is set; `llm`, the model tier's client when on.
pub fn run(
    args: &WatchArgs,
    color: bool,
    llm: Option<&tact::llm::Llm>,
    out: &mut impl Write,
) -> Result<()> {
    if args.max_rows == 0 {
        bail!("--max-rows takes at least 1 row");
    }
    if let Some(speed) = args.replay {
        if !speed.is_finite() || speed <= 0.0 {
            bail!("--replay takes a positive number of events per second, not {speed}");
        }
    }
    let source = if args.path.as_os_str() == "-" {
        Source::Stdin
    } else {
        if !args.path.is_file() {
            bail!("{}: not a file", args.path.display());
        }
        Source::File(args.path.clone())
    };
    let mut opts = tact_watch::Options::default()
        .mode(args.mode)
        .color(color)
        .replay(args.replay)
        .max_rows(args.max_rows)
        .source(source.name());
    if let Some(llm) = llm {
        let name = llm.config().model.as_deref().unwrap_or("model");
        opts = opts.model(tact_watch::ModelSpec::new(
            llm.escalation(tact::learned::Task::Effort),
            name,
        ));
    }
    let summary = tact_watch::run(opts, source, Box::new(Native))?;
    writeln!(
        out,
        "tact watch: {} events, {} nudges, {} lines skipped",
        summary.events, summary.nudges, summary.skipped
    )?;
    out.flush()?;
    Ok(())
}
