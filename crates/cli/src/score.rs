//! `tact score` (one session's PPP rewards with the rules behind them) and
//! `tact consensus` (rank several agents' sessions by technical and
//! interaction quality, or the legacy binary consensus, rendered by
//! `tact::render` as `tact run` renders its groups).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use tact::consensus::{Consensus, PppConfig};
use tact::scoring::{Profile, Scope, Scorer, Session, SessionScore, Severity};

/// Arguments of `tact score`.
#[derive(clap::Args, Debug)]
pub struct ScoreArgs {
    /// A session file (JSON; see fixtures/sessions/README.md).
    pub session: PathBuf,
    /// Reward profile: spec (SPEC-PPP-003), paper (the PPP paper's text) or
    /// paper-code (the paper's released reward code; questions' `cost`
    /// levels, the session's `ppp_env`).
    #[arg(long, default_value = "spec")]
    pub profile: String,
    /// Check preferences on every response, not only those that ask.
    #[arg(long)]
    pub all_responses: bool,
    /// Print the score as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `tact consensus`.
#[derive(clap::Args, Debug)]
pub struct ConsensusArgs {
    /// Session files of several agents on one spec and stage.
    #[arg(required = true)]
    pub sessions: Vec<PathBuf>,
    /// The stage whose weights apply; sessions of other stages are left out.
    #[arg(long)]
    pub stage: Option<String>,
    /// A TOML file with a `[ppp]` section (weights, profile, normalize, enabled).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Print the decision as JSON.
    #[arg(long)]
    pub json: bool,
}

fn signed(x: f64) -> String {
    format!("{x:+.3}")
}

/// Writes a session score as text.
fn write_score(out: &mut impl Write, s: &SessionScore) -> Result<()> {
    let formula = match s.profile.as_str() {
        "paper" | "paper-code" => "clamp(R_Prod + cost_w R_Proact + pref_w R_Pers, 0, 1)",
        _ => "R_Prod + R_Proact + R_Pers",
    };
    writeln!(
        out,
        "{} ({} profile): R {:.3} = {formula}",
        s.agent, s.profile, s.total
    )?;
    writeln!(
        out,
        "  R_Prod {:.3}  R_Proact {}  R_Pers {}  interaction {}",
        s.r_prod,
        signed(s.r_proact),
        signed(s.r_pers),
        signed(s.interaction)
    )?;
    writeln!(out, "  rules:")?;
    if s.adjustments.is_empty() {
        writeln!(out, "    none")?;
    }
    for a in &s.adjustments {
        writeln!(out, "    {:<28} {}  {}", a.rule, signed(a.amount), a.detail)?;
    }
    writeln!(out, "  questions:")?;
    if s.questions.is_empty() {
        writeln!(out, "    none")?;
    }
    for q in &s.questions {
        let cost = q.cost.map(|c| format!("cost {c} ")).unwrap_or_default();
        writeln!(
            out,
            "    turn {} {:<6} {cost}{}",
            q.turn,
            q.effort.to_string(),
            q.text.replace('\n', " ")
        )?;
    }
    if !s.cost_levels.is_empty() {
        writeln!(out, "  asks (cost levels):")?;
        for a in &s.cost_levels {
            let how = if a.mapped {
                "mapped from effort"
            } else {
                "given"
            };
            writeln!(out, "    turn {} level {} ({how})", a.turn, a.level)?;
        }
    }
    writeln!(out, "  violations:")?;
    if s.violations.is_empty() {
        writeln!(out, "    none")?;
    }
    for v in &s.violations {
        let turn = v.turn.map(|t| format!("turn {t} ")).unwrap_or_default();
        let at = v
            .span
            .as_ref()
            .map(|sp| format!(" at {:?}", sp.text))
            .unwrap_or_default();
        writeln!(
            out,
            "    {turn}{} ({}, {}): expected {}; got {}{at}",
            v.preference,
            v.category.as_str(),
            match v.severity {
                Severity::Minor => "minor",
                Severity::Major => "major",
            },
            v.expected,
            v.actual
        )?;
    }
    if !s.not_judged.is_empty() {
        writeln!(out, "  not judged:")?;
        for n in &s.not_judged {
            writeln!(out, "    {}: {}", n.preference, n.reason)?;
        }
    }
    Ok(())
}

/// Runs `tact score`.
pub fn run_score(args: &ScoreArgs, out: &mut impl Write) -> Result<()> {
    let profile: Profile = args.profile.parse()?;
    let session = Session::read(&args.session)?;
    let scorer = Scorer::builder()
        .profile(profile)
        .scope(if args.all_responses {
            Scope::All
        } else {
            Scope::Asking
        })
        .build()?;
    let score = scorer.score(&session);
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&score)?)?;
    } else {
        write_score(out, &score)?;
    }
    Ok(())
}

/// Runs `tact consensus`.
pub fn run_consensus(args: &ConsensusArgs, out: &mut impl Write) -> Result<()> {
    let config = match &args.config {
        Some(path) => {
            let text = tact_core::dataset::read_text(path)?;
            PppConfig::from_toml(&text, Some(&path.display().to_string()))?
        }
        None => PppConfig::default(),
    };
    let consensus = Consensus::new(&config)?;
    let sessions: Vec<Session> = args
        .sessions
        .iter()
        .map(|p| Session::read(p))
        .collect::<Result<_, _>>()?;
    let decision = consensus.decide(&sessions, args.stage.as_deref())?;
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&decision)?)?;
        return Ok(());
    }
    // The same rendering as `tact run`'s groups (tact::render).
    write!(out, "{}", tact::render::decision(&decision))?;
    Ok(())
}
