//! `tact granularity`: classify retrieval queries as fine-grained or
//! holistic, one at a time or in batches, optionally with the scoring
//! method a recursion level would use; output as text or JSON lines.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use tact_classifiers::granularity::{GranularityClassifier, ScoringConfig, Strategy};
use tact_types::dataset::GranularityQuery;
use tact_types::{GranularityDecision, Label};

/// Arguments of `tact granularity`.
#[derive(clap::Args, Debug)]
pub struct GranularityArgs {
    /// The query to classify (omit with --file).
    pub query: Option<String>,
    /// Classify every line of FILE: plain text (one query per line) or
    /// JSONL objects with `text` and optional `id`.
    #[arg(long, conflicts_with = "query")]
    pub file: Option<PathBuf>,
    /// Strategy: heuristic, seed, learned or hybrid (default: the
    /// library's default, hybrid).
    #[arg(long)]
    pub strategy: Option<String>,
    /// Also choose the scoring method for this recursion level, from the
    /// default levels overridden by RECURSIVE_LLM_LEVEL_<N>_SCORING_METHOD.
    #[arg(long, value_name = "N")]
    pub level: Option<usize>,
    /// Print JSON (one object per line in batch mode).
    #[arg(long)]
    pub json: bool,
}

/// Everything `tact granularity` needs besides its arguments: the
/// classifier and the scoring configuration (read from the environment by
/// `main`, injected by tests).
pub struct Granularity {
    classifier: GranularityClassifier,
    scoring: ScoringConfig,
}

impl Granularity {
    /// Builds the classifier of `strategy` with a scoring configuration.
    pub fn new(strategy: Option<&str>, scoring: ScoringConfig) -> Result<Self> {
        let strategy: Strategy = strategy.map_or(Ok(Strategy::default()), str::parse)?;
        Ok(Self {
            classifier: GranularityClassifier::builder()
                .strategy(strategy)
                .build()?,
            scoring,
        })
    }
}

fn text_line(query: &str, d: &GranularityDecision, method: Option<&str>) -> String {
    let reasons: Vec<&str> = d
        .classification
        .reasons
        .iter()
        .filter(|r| r.weight >= 0.0)
        .map(|r| r.detail.as_ref())
        .collect();
    let mut line = format!(
        "{:<12} {:.2}{}  {}",
        d.label().as_str(),
        d.confidence(),
        if d.ambiguous { " (ambiguous)" } else { "" },
        query.replace('\n', " ")
    );
    if let Some(m) = method {
        line.push_str(&format!("\n             scoring: {m}"));
    }
    line.push_str(&format!(
        "\n             evidence: fine-grained {:.1}, holistic {:.1}; because: {}",
        d.evidence.fine_grained,
        d.evidence.holistic,
        reasons.join("; ")
    ));
    line
}

/// One result as JSON: the decision, plus the scoring choice when a level
/// was given.
fn json_value(g: &Granularity, level: Option<usize>, query: &str) -> Result<serde_json::Value> {
    let d = g.classifier.classify(query);
    let mut v = serde_json::to_value(&d)?;
    if let (Some(level), Some(obj)) = (level, v.as_object_mut()) {
        let choice = g.classifier.select_scoring(&g.scoring, level, query);
        obj.insert(
            "scoring".into(),
            serde_json::json!({
                "level": choice.level,
                "configured": choice.configured,
                "method": choice.method,
                "reason": choice.reason,
            }),
        );
    }
    Ok(v)
}

fn text(g: &Granularity, level: Option<usize>, query: &str) -> String {
    let d = g.classifier.classify(query);
    let method = level.map(|l| {
        let c = g.classifier.select_scoring(&g.scoring, l, query);
        format!(
            "{} at level {} ({}; configured {})",
            c.method, c.level, c.reason, c.configured
        )
    });
    text_line(query, &d, method.as_deref())
}

/// Runs `tact granularity`.
pub fn run(args: &GranularityArgs, g: &Granularity, out: &mut impl Write) -> Result<()> {
    if let Some(path) = &args.file {
        let file =
            std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        return run_batch(
            g,
            args,
            std::io::BufReader::new(file),
            &path.display().to_string(),
            out,
        );
    }
    let Some(q) = &args.query else {
        bail!("give a QUERY or --file FILE");
    };
    if args.json {
        writeln!(out, "{}", json_value(g, args.level, q)?)?;
    } else {
        writeln!(out, "{}", text(g, args.level, q))?;
    }
    Ok(())
}

/// Streams one result per input line. A JSONL line that does not parse is
/// an error naming the source and line; blank lines are skipped.
fn run_batch(
    g: &Granularity,
    args: &GranularityArgs,
    reader: impl BufRead,
    source: &str,
    out: &mut impl Write,
) -> Result<()> {
    for (i, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("{source}:{}: cannot read", i + 1))?;
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let query = if trimmed.starts_with('{') {
            serde_json::from_str::<GranularityQuery>(trimmed)
                .with_context(|| format!("{source}:{}: invalid JSON line", i + 1))?
        } else {
            GranularityQuery {
                id: None,
                text: trimmed.to_owned(),
            }
        };
        if args.json {
            let mut v = json_value(g, args.level, &query.text)?;
            if let Some(obj) = v.as_object_mut() {
                obj.insert("line".into(), (i + 1).into());
                obj.insert("id".into(), query.id.clone().into());
                obj.insert("text".into(), query.text.clone().into());
            }
            writeln!(out, "{v}")?;
        } else {
            writeln!(out, "{}", text(g, args.level, &query.text))?;
        }
        out.flush()?;
    }
    Ok(())
}
