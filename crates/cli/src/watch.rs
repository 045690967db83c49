//! `tact watch`: a live terminal view of one agent session (the
//! `tact-watch` crate on the terminal): questions by effort, user messages
//! by route, nudges as they fire, the running interaction score. An
//! agent's own log (Claude Code, Codex, OpenHands, SWE-agent, Aider;
//! detected by content, or `--format`) is read through `tact::import`, the
//! path `tact run` and `tact guide` read it with; `--latest` opens the
//! newest session an agent keeps; `--snapshot` prints the final frame.
//! A log that holds many sessions, one a line (OpenHands' `output.jsonl`),
//! shows one: `--session ID`, else the last (the one growing live).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use tact::import::Format;
use tact_types::trajectory::Mode;
use tact_watch::read::Native;
use tact_watch::source::Source;
use tact_watch::{Feed, log};

/// Arguments of `tact watch`.
#[derive(clap::Args, Debug)]
pub struct WatchArgs {
    /// The session: a file followed as it grows (an agent's log, JSON
    /// Lines of events, `{"pending": [...]}` proposals or whole sessions;
    /// a `.json` file is one session, read whole), or `-` for stdin.
    pub path: Option<PathBuf>,
    /// Read the file (or stdin) as this agent's log format: claude-code,
    /// codex, openhands, swe-agent, aider (detected by content without).
    #[arg(long, value_name = "NAME")]
    pub format: Option<Format>,
    /// In a log that holds many sessions, one a line (OpenHands'
    /// `output.jsonl`): the session to show, by its id (the task's
    /// instance or issue id, else FILE-STEM:LINE); the last by default,
    /// and while following, each new one as its line is written.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Open the newest session where the agent keeps them: claude-code
    /// (`~/.claude/projects`, or `$CLAUDE_CONFIG_DIR/projects`) or codex
    /// (`~/.codex/sessions`, or `$CODEX_HOME/sessions`); without AGENT,
    /// the newest of both.
    #[arg(long, value_name = "AGENT", num_args = 0..=1, default_missing_value = "any", conflicts_with = "path")]
    pub latest: Option<String>,
    /// Read the whole session, print its final frame as plain text on
    /// stdout and exit (no terminal needed).
    #[arg(long)]
    pub snapshot: bool,
    /// With --snapshot: the frame's size in cells, WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "100x30", value_parser = parse_size)]
    pub size: (u16, u16),
    /// Step through the session at SPEED events per second instead of
    /// showing what is there at once.
    #[arg(long, value_name = "SPEED")]
    pub replay: Option<f64>,
    /// The guidance mode of a bare event stream: `headless` (whole run)
    /// or `interactive` (windows restart at each user message); a session
    /// or an agent's log says its own.
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

/// `WIDTHxHEIGHT`, each from 20 to 1000 cells.
fn parse_size(s: &str) -> std::result::Result<(u16, u16), String> {
    let bad = || format!("expected WIDTHxHEIGHT (20 to 1000 each, e.g. 100x30), not `{s}`");
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u16 = w.trim().parse().map_err(|_| bad())?;
    let h: u16 = h.trim().parse().map_err(|_| bad())?;
    if !(20..=1000).contains(&w) || !(20..=1000).contains(&h) {
        return Err(bad());
    }
    Ok((w, h))
}

/// The session to read and, for an agent's log, its format.
fn source_of(args: &WatchArgs) -> Result<(Source, Option<Format>)> {
    if let Some(agent) = &args.latest {
        let agent = match agent.as_str() {
            "any" => None,
            "claude" => Some(Format::ClaudeCode),
            name => Some(name.parse::<Format>().map_err(anyhow::Error::msg)?),
        };
        let env = |k: &str| std::env::var_os(k);
        let (path, format) = tact_watch::latest::newest(agent, &env)?;
        return Ok((Source::File(path), args.format.or(Some(format))));
    }
    let path = args.path.clone().unwrap_or_else(|| PathBuf::from("-"));
    if path.as_os_str() == "-" {
        return Ok((Source::Stdin, args.format));
    }
    if !path.is_file() {
        bail!("{}: not a file", path.display());
    }
    let format = match args.format {
        Some(f) => Some(f),
        None => {
            let mut head = Vec::new();
            std::fs::File::open(&path)
                .with_context(|| format!("cannot read {}", path.display()))?
                .take(64 << 10)
                .read_to_end(&mut head)
                .with_context(|| format!("cannot read {}", path.display()))?;
            log::detect(&path, &String::from_utf8_lossy(&head))
        }
    };
    Ok((Source::File(path), format))
}

/// Runs the view until `q`, then prints what it saw on `out` (or, with
/// `--snapshot`, prints the final frame and returns). `color` is off when
/// `NO_COLOR` is set; `llm`, the model tier's client when on.
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
    let (source, format) = source_of(args)?;
    // A log of many sessions shows one of them.
    let many = match format {
        Some(f @ Format::OpenHands) => tact::import::holds_sessions(f, &head_of(&source)?),
        _ => false,
    };
    if args.session.is_some() && !many {
        bail!(
            "--session picks a session of a log that holds many (one a line, as OpenHands' output.jsonl)"
        );
    }
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
    if args.snapshot {
        if let (true, Some(format)) = (many, format) {
            return snapshot_sessions(
                opts,
                &source,
                format,
                args.session.as_deref(),
                args.size,
                out,
            );
        }
        return snapshot(opts, &source, format, args.size, out);
    }
    if many {
        let shown = match &args.session {
            Some(id) => format!("{} · session {id}", source.name()),
            None => format!("{} · last session", source.name()),
        };
        opts = opts.source(shown);
    }
    let feed = match (format, &source) {
        (Some(format), _) if many => Feed::Sessions {
            format,
            defaults: Box::new(match &source {
                Source::File(p) => log::sidecar(p),
                Source::Stdin => tact::import::ImportDefaults::default(),
            }),
            session: args.session.clone(),
        },
        (Some(format), Source::File(path)) => Feed::Log {
            format,
            header: Box::new(log::header(format, path, &log::sidecar(path))),
        },
        (Some(format), Source::Stdin) => Feed::Log {
            format,
            header: Box::new(log::header(
                format,
                Path::new("stdin"),
                &tact::import::ImportDefaults::default(),
            )),
        },
        (None, _) => Feed::Lines(Box::new(Native)),
    };
    let summary = tact_watch::run_feed(opts, source, feed)?;
    writeln!(
        out,
        "tact watch: {} events, {} nudges, {} lines skipped",
        summary.events, summary.nudges, summary.skipped
    )?;
    out.flush()?;
    Ok(())
}

/// The start of the session's file (64 KB), or of stdin as far as it has
/// arrived (peeked, not consumed: the reading thread reads it all).
fn head_of(source: &Source) -> Result<String> {
    use std::io::BufRead;
    let bytes = match source {
        Source::File(path) => {
            let mut head = Vec::new();
            std::fs::File::open(path)
                .with_context(|| format!("cannot read {}", path.display()))?
                .take(64 << 10)
                .read_to_end(&mut head)
                .with_context(|| format!("cannot read {}", path.display()))?;
            head
        }
        Source::Stdin => std::io::stdin()
            .lock()
            .fill_buf()
            .context("cannot read stdin")?
            .to_vec(),
    };
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// `--snapshot` of a log that holds many sessions: the session `wanted`
/// (else the last) read as `tact run` imports it, one line in memory at a
/// time; the status line names it, its line and how many the log holds.
fn snapshot_sessions(
    opts: tact_watch::Options,
    source: &Source,
    format: Format,
    wanted: Option<&str>,
    (width, height): (u16, u16),
    out: &mut impl Write,
) -> Result<()> {
    let name = source.name();
    let (path, picked, defaults) = match source {
        Source::File(path) => {
            let file = std::fs::File::open(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let reader = std::io::BufReader::with_capacity(1 << 16, file);
            let picked = log::pick_session(format, reader, &name, wanted)?;
            (path.clone(), picked, log::sidecar(path))
        }
        Source::Stdin => {
            let stdin = std::io::stdin();
            let picked = log::pick_session(format, stdin.lock(), &name, wanted)?;
            let defaults = tact::import::ImportDefaults::default();
            (PathBuf::from("stdin"), picked, defaults)
        }
    };
    let id = picked.log.meta.session_id.clone().unwrap_or_default();
    let which = if wanted.is_some() { "chosen" } else { "last" };
    let opts = opts.source(format!(
        "{name} · session {id} (line {}, {which} of {})",
        picked.log.line.unwrap_or(0),
        picked.sessions
    ));
    let steps = log::session_steps(&picked.log, &path, &defaults);
    let frame = tact_watch::snapshot(opts, steps, picked.warnings, width, height)?;
    out.write_all(frame.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// `--snapshot`: the whole session read (an agent's log as `tact run`
/// imports it), its final frame printed as plain text.
fn snapshot(
    opts: tact_watch::Options,
    source: &Source,
    format: Option<Format>,
    (width, height): (u16, u16),
    out: &mut impl Write,
) -> Result<()> {
    let (path, bytes) = match source {
        Source::File(path) => (
            path.clone(),
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?,
        ),
        _ => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .context("cannot read stdin")?;
            (PathBuf::from("stdin"), bytes)
        }
    };
    let name = source.name();
    let (steps, warnings) = match format {
        Some(format) => {
            let text = tact_core::dataset::decode_text(&name, bytes)?;
            let defaults = match source {
                Source::File(p) => log::sidecar(p),
                _ => tact::import::ImportDefaults::default(),
            };
            (log::log_steps(format, &text, &path, &defaults)?, Vec::new())
        }
        None => tact_watch::source::native_steps(&bytes, &name),
    };
    let frame = tact_watch::snapshot(opts, steps, warnings, width, height)?;
    out.write_all(frame.as_bytes())?;
    out.flush()?;
    Ok(())
}
