//! `tact run PATH`: the end-to-end main job, a thin shell over
//! [`tact::Job`]. Reads the arguments and the `--config` file, builds the
//! job, drives a progress bar from its callback, then prints what the
//! report holds: each skipped session on stderr (with its file and line),
//! the rankings and the summary on stdout.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tact::job::{Config, Job, Progress, Report};

/// Arguments of `tact run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// A session file (`.json`: one session; `.jsonl`: one per line), an
    /// agent's log (Claude Code, Codex, OpenHands V0 and V1, SWE-agent
    /// `.traj`, mini-swe-agent `.traj.json`, Aider and SpecStory `.md`,
    /// Cline task files, Gemini CLI chats, detected by content) or a
    /// folder, walked recursively (other files and hidden entries are
    /// skipped; a file that is neither a log nor a session is one error).
    pub path: PathBuf,
    /// The trajectory store: a path (created on first use), sqlite://PATH,
    /// or a PostgreSQL URL (postgres://USER@HOST/DB, or libpq's
    /// key=value form); else TACT_DB, else `[store] url`, else tact.db.
    #[arg(long, value_name = "PATH|URL")]
    pub db: Option<String>,
    /// Only sessions of this stage (sessions with no stage are taken as
    /// this stage); sessions of other stages are left out.
    #[arg(long)]
    pub stage: Option<String>,
    /// The model-backed tier: unsure question efforts are put to the
    /// model, which also judges the judged preferences.
    #[command(flatten)]
    pub llm: crate::llm::LlmArgs,
    /// Read agent logs as this format instead of detecting it:
    /// claude-code, codex, openhands, swe-agent, aider, openhands-v1,
    /// mini-swe-agent, cline, gemini-cli, specstory.
    #[arg(long, value_name = "NAME")]
    pub format: Option<tact::import::Format>,
    /// For imported logs: the spec (else the task id, the session id or
    /// the file name: logs of different tasks are never compared).
    #[arg(long)]
    pub spec: Option<String>,
    /// For imported logs: the agent's name (else the model).
    #[arg(long)]
    pub agent: Option<String>,
    /// For imported logs: the outcome, as a session's JSON
    /// (`{"kind":"tests","passed":9,"total":10}`); else R_Prod 0.
    #[arg(long, value_name = "JSON", value_parser = parse_outcome)]
    pub outcome: Option<tact::scoring::TaskOutcome>,
}

fn parse_outcome(s: &str) -> std::result::Result<tact::scoring::TaskOutcome, String> {
    serde_json::from_str(s).map_err(|e| format!("not an outcome: {e}"))
}

/// A progress bar over sessions (its length grows as each file is
/// parsed), drawn on stderr only when stderr is a terminal.
fn progress_bar() -> ProgressBar {
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let pb = ProgressBar::with_draw_target(Some(0), target);
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} sessions {wide_msg}") {
        pb.set_style(style);
    }
    pb
}

/// Runs `tact run`: rankings on `out`, skipped sessions on `err`. `main`
/// exits with 1 when the report is not clean. `env` is the environment
/// (`OLLAMA_*`, read with `--llm`).
pub fn run(
    args: &RunArgs,
    env: &dyn Fn(&str) -> Option<String>,
    out: &mut impl Write,
    err: &mut impl Write,
) -> Result<Report> {
    let mut config = match &args.llm.config {
        Some(p) => Config::read(p)?,
        None => Config::default(),
    };
    // The [llm] table is read (with the environment and the flags) the way
    // every command reads it.
    config.llm = None;
    let llm = crate::llm::client(&args.llm, env, err)?;
    let url = config.store.as_ref().and_then(|s| s.url.as_deref());
    let location = crate::store::location(args.db.as_deref(), env, url)?;
    let mut job = Job::builder().config(config).database(location);
    if let Some(llm) = &llm {
        job = job
            .effort(crate::effort::classifier(None, Some(llm))?)
            .judge(std::sync::Arc::new(tact::llm::LlmJudge::new(llm.clone())));
    }
    if let Some(stage) = &args.stage {
        job = job.stage(stage);
    }
    if let Some(format) = args.format {
        job = job.format(format);
    }
    let mut defaults = tact::import::ImportDefaults::default();
    defaults.spec.clone_from(&args.spec);
    defaults.agent.clone_from(&args.agent);
    defaults.outcome = args.outcome;
    job = job.import_defaults(defaults);
    let mut job = job.build()?;
    let pb = progress_bar();
    let mut file = 0;
    let report = job.run_path(&args.path, |p: Progress<'_>| {
        if p.file_number != file {
            file = p.file_number;
            if let Some(path) = p.file {
                // A file's name is input too: its control characters escaped.
                let name = path.display().to_string();
                let name = tact_types::excerpt::escape_controls(&name);
                pb.set_message(format!("(file {} of {}) {name}", file, p.files));
            }
        }
        pb.set_length(u64::try_from(p.total).unwrap_or(u64::MAX));
        pb.set_position(u64::try_from(p.done).unwrap_or(u64::MAX));
    });
    pb.finish_and_clear();
    let report = report?;
    for e in &report.errors {
        let e = e.to_string();
        writeln!(
            err,
            "warning: {} (skipped)",
            tact_types::excerpt::excerpt(&e)
        )?;
    }
    for t in &report.truncations {
        writeln!(err, "note: {t}")?;
    }
    for n in &report.notes {
        writeln!(err, "note: {n}")?;
    }
    crate::llm::report(llm.as_ref(), err)?;
    write!(out, "{report}")?;
    Ok(report)
}
