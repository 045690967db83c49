//! The text of a consensus decision, as the `tact` command prints it:
//! [`decision`] for one decision on its own (`tact consensus`), and the
//! `Display` of a job's [`Group`] and [`Report`] (`tact run`). Both go
//! through one function, so the two views cannot drift apart.
//!
//! Rendering writes into a formatter; nothing here prints.

use std::fmt::{self, Write};

use tact_consensus::{AgentScore, Decision, Normalization, WeightedConsensus};

use crate::job::{Group, Member, Report};

/// A decision on its own, as `tact consensus` prints it: a headline with
/// the stage, weights, profile and normalization, the ranking with each
/// agent's normalized interaction and the best agent (weighted), or the
/// agents per verdict and the verdict (legacy).
///
/// ```
/// use tact::consensus::{Candidate, Decision, Normalization, Weights, weighted_consensus};
///
/// let candidates = [
///     Candidate { agent: "agent_a".into(), technical: 1.0, interaction: -1.5 },
///     Candidate { agent: "agent_b".into(), technical: 0.9, interaction: 0.05 },
/// ];
/// let consensus = weighted_consensus(&candidates, Weights::DEFAULT, Normalization::None)?;
/// let d = Decision::Weighted { stage: None, profile: "spec".into(), consensus, sessions: vec![] };
/// let text = tact::render::decision(&d).to_string();
/// assert!(text.ends_with("best: agent_b (score 0.645, margin 0.395 over agent_a)\n"));
/// # Ok::<(), tact::Error>(())
/// ```
pub fn decision(decision: &Decision) -> impl fmt::Display + '_ {
    DecisionText(decision)
}

struct DecisionText<'a>(&'a Decision);

impl fmt::Display for DecisionText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_decision(f, self.0, None)
    }
}

/// `interaction as is`, or the linear map's bounds.
fn normalization(n: Normalization) -> String {
    match n {
        Normalization::None => "interaction as is".to_owned(),
        Normalization::Linear { floor, ceiling } => {
            format!("interaction mapped from [{floor:.2}, {ceiling:.2}] onto [0, 1]")
        }
    }
}

fn signed(x: f64) -> String {
    format!("{x:+.3}")
}

/// A group's title: `SPEC, stage STAGE` (or `(none)`).
fn title(group: &Group) -> String {
    format!(
        "{}, stage {}",
        group.spec,
        group.stage.as_deref().unwrap_or("(none)")
    )
}

/// What `tact run` shows beside an agent's scores: its questions per
/// effort, violated preferences and the guidance that fired.
fn member_columns(member: Option<&Member>) -> (String, String, String) {
    let Some(m) = member else {
        return ("-".to_owned(), "-".to_owned(), "-".to_owned());
    };
    let violations = if m.violations.is_empty() {
        "-".to_owned()
    } else {
        m.violations
            .iter()
            .map(|(p, n)| {
                if *n > 1 {
                    format!("{} x{n}", p.as_str())
                } else {
                    p.as_str().to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let guidance = if m.guidance.is_empty() {
        "-".to_owned()
    } else {
        m.guidance.join(", ")
    };
    (m.questions.to_string(), violations, guidance)
}

/// The ranking table of a weighted consensus, then its best agent. A group
/// adds each member's columns; a decision on its own adds the normalized
/// interaction.
fn write_table<W: Write + ?Sized>(
    out: &mut W,
    c: &WeightedConsensus,
    group: Option<&Group>,
) -> fmt::Result {
    let agent_width = if group.is_some() { 10 } else { 16 };
    write!(
        out,
        "  {:<4} {:<agent_width$} {:>9} {:>11}",
        "rank", "agent", "technical", "interaction"
    )?;
    match group {
        Some(_) => writeln!(
            out,
            " {:>7}  {:<9} {:<32} guidance",
            "final", "q l/m/h", "violations"
        )?,
        None => writeln!(out, " {:>10} {:>7}", "normalized", "final")?,
    }
    for s in &c.scores {
        write!(
            out,
            "  {:<4} {:<agent_width$} {:>9.3} {:>11}",
            s.rank,
            s.agent,
            s.technical_score,
            signed(s.interaction_score),
        )?;
        match group {
            Some(g) => {
                let (q, v, g) = member_columns(g.member(&s.agent));
                writeln!(out, " {:>7.3}  {q:<9} {v:<32} {g}", s.final_score)?;
            }
            None => writeln!(
                out,
                " {:>10} {:>7.3}",
                s.normalized_interaction
                    .map_or_else(|| "-".to_owned(), |n| format!("{n:.3}")),
                s.final_score
            )?,
        }
    }
    let indent = if group.is_some() { "  " } else { "" };
    match (c.confidence.margin, c.scores.first(), c.scores.get(1)) {
        (Some(m), Some(first), Some(second)) if m.abs() < 0.5e-9 => writeln!(
            out,
            "{indent}best: {} (score {:.3}, tied with {} on the final score; ranked first by {})",
            c.best_agent,
            c.confidence.score,
            second.agent,
            tie_break(first, second)
        ),
        (Some(m), _, Some(second)) => writeln!(
            out,
            "{indent}best: {} (score {:.3}, margin {:.3} over {})",
            c.best_agent, c.confidence.score, m, second.agent
        ),
        _ => writeln!(
            out,
            "{indent}best: {} (score {:.3}, the only agent)",
            c.best_agent, c.confidence.score
        ),
    }
}

/// Writes a decision: on its own (`group` is `None`, the `tact consensus`
/// view) or as the ranking of a job's group (the `tact run` view, titled by
/// spec and stage, with each member's questions, violations and guidance).
fn write_decision<W: Write + ?Sized>(
    out: &mut W,
    decision: &Decision,
    group: Option<&Group>,
) -> fmt::Result {
    match decision {
        Decision::Weighted {
            stage,
            profile,
            consensus: c,
            ..
        } => {
            let weights = format!(
                "(technical {:.2}, interaction {:.2})",
                c.technical_weight, c.interaction_weight
            );
            let norm = normalization(c.normalization);
            match group {
                Some(g) => writeln!(
                    out,
                    "{}: weighted consensus {weights}, profile {profile}, {norm}",
                    title(g)
                )?,
                None => writeln!(
                    out,
                    "weighted consensus, stage {} {weights}, profile {profile}, {norm}",
                    stage.as_deref().unwrap_or("(none: default weights)"),
                )?,
            }
            write_table(out, c, group)
        }
        Decision::Legacy {
            stage,
            consensus: c,
        } => {
            let status = c.status.as_str();
            match group {
                Some(g) => writeln!(
                    out,
                    "{}: legacy consensus ([ppp] enabled = false): {status}",
                    title(g)
                )?,
                None => writeln!(
                    out,
                    "legacy consensus ([ppp] enabled = false), stage {}: {status}",
                    stage.as_deref().unwrap_or("(none)"),
                )?,
            }
            for (verdict, agents) in &c.groups {
                writeln!(out, "  {verdict}: {}", agents.join(", "))?;
            }
            if !c.missing.is_empty() {
                writeln!(out, "  no verdict: {}", c.missing.join(", "))?;
            }
            if group.is_none() {
                match &c.verdict {
                    Some(v) => writeln!(out, "verdict: {v}")?,
                    None => writeln!(out, "verdict: none")?,
                }
            }
            Ok(())
        }
        // A kind of decision this renderer does not know yet.
        _ => writeln!(out, "a consensus decision this version cannot show"),
    }
}

/// What ranked `first` above `second` when their final scores tie: the
/// consensus compares the technical score, then the interaction score,
/// then the agents' names.
fn tie_break(first: &AgentScore, second: &AgentScore) -> &'static str {
    let same = |a: f64, b: f64| (a - b).abs() < 0.5e-9;
    if !same(first.technical_score, second.technical_score) {
        "its higher technical score"
    } else if !same(first.interaction_score, second.interaction_score) {
        "its higher interaction score"
    } else {
        "name, its technical and interaction scores being equal too"
    }
}

/// The legend under `tact run`'s rankings.
const LEGEND: &str = "\
Columns: technical is R_Prod, the task outcome in [0, 1]; interaction is the
profile's interaction reward (R_Proact + R_Pers under `spec`), used as is
unless [ppp] normalize maps it onto [0, 1]; final = technical weight x
technical + interaction weight x interaction (ties go to the higher
technical score, then interaction, then name); q l/m/h counts the questions
the agent asked its user by effort: low/medium/high.
";

impl fmt::Display for Group {
    /// The group's ranking as `tact run` prints it (or why it has none),
    /// then a blank line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.ranking {
            Ok(d) => write_decision(f, d, Some(self))?,
            Err(e) => writeln!(f, "{}: no ranking: {e}", title(self))?,
        }
        writeln!(f)
    }
}

impl fmt::Display for Report {
    /// What `tact run` prints on stdout: each group, then the summary line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for g in &self.groups {
            write!(f, "{g}")?;
        }
        if self
            .groups
            .iter()
            .any(|g| matches!(g.ranking, Ok(Decision::Weighted { .. })))
        {
            writeln!(f, "{LEGEND}")?;
        }
        write!(f, "{} sessions read", self.read)?;
        if let Some(files) = self.files {
            write!(f, " from {files} files")?;
        }
        write!(
            f,
            ": {} stored in {}, {} skipped",
            self.stored(),
            self.db.display(),
            self.skipped()
        )?;
        if !self.truncations.is_empty() {
            write!(f, ", {} cut by the limits", self.truncations.len())?;
        }
        if let Some(stage) = &self.stage {
            if self.other_stages > 0 {
                write!(
                    f,
                    ", {} of other stages than {stage} left out",
                    self.other_stages
                )?;
            }
        }
        writeln!(f)?;
        if self.stored() > 0 {
            writeln!(
                f,
                "What was stored, with charts: tact report --db {}",
                self.db.display()
            )?;
        }
        Ok(())
    }
}
