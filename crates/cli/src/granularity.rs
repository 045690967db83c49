//! `tact granularity`: classify retrieval queries as fine-grained or
//! holistic, one at a time or in batches, optionally with the scoring
//! method a recursion level would use; output as text or JSON lines.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Result, bail};
use tact_classifiers::granularity::{GranularityClassifier, ScoringConfig, Strategy};
use tact_types::dataset::GranularityQuery;
use tact_types::{GranularityDecision, Label};

use crate::batch::{Fields, Render};

/// Arguments of `tact granularity`.
#[derive(clap::Args, Debug)]
pub struct GranularityArgs {
    /// The query to classify (omit with --file).
    pub query: Option<String>,
    /// Classify every line of FILE: plain text (one query per line) or
    /// JSONL objects with `text` and optional `id`; `-` reads stdin. A line over 64 MiB is
    /// skipped with a warning naming it.
    #[arg(long, conflicts_with = "query")]
    pub file: Option<PathBuf>,
    /// Strategy and output format.
    #[command(flatten)]
    pub opts: crate::batch::TextOptions,
    /// Also choose the scoring method for this recursion level, from the
    /// default levels overridden by `RECURSIVE_LLM_LEVEL_<N>_SCORING_METHOD`.
    #[arg(long, value_name = "N")]
    pub level: Option<usize>,
    /// The model-backed tier.
    #[command(flatten)]
    pub llm: crate::llm::LlmArgs,
}

/// Everything `tact granularity` needs besides its arguments: the
/// classifier and the scoring configuration (read from the environment by
/// `main`, injected by tests).
pub struct Granularity {
    classifier: GranularityClassifier,
    scoring: ScoringConfig,
    /// Lines of a batch classified at once.
    parallel: usize,
}

impl Granularity {
    /// Builds the classifier of `strategy` with a scoring configuration.
    pub fn new(
        strategy: Option<&str>,
        scoring: ScoringConfig,
        llm: Option<&tact::llm::Llm>,
    ) -> Result<Self> {
        let strategy: Strategy = strategy.map_or(Ok(Strategy::default()), str::parse)?;
        let mut b = GranularityClassifier::builder().strategy(strategy);
        if let Some(llm) = llm {
            b = b.escalation(llm.escalation(tact_classifiers::learned::Task::Granularity));
        }
        Ok(Self {
            classifier: b.build()?,
            scoring,
            parallel: crate::llm::parallel(llm),
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

/// The scoring choice of `level` for `query`, as JSON.
fn scoring_json(g: &Granularity, level: usize, query: &str) -> serde_json::Value {
    let choice = g.classifier.select_scoring(&g.scoring, level, query);
    serde_json::json!({
        "level": choice.level,
        "configured": choice.configured,
        "method": choice.method,
        "reason": choice.reason,
    })
}

/// One result as JSON: the decision, plus the scoring choice when a level
/// was given.
fn json_value(g: &Granularity, level: Option<usize>, query: &str) -> Result<serde_json::Value> {
    let d = g.classifier.classify(query);
    let mut v = serde_json::to_value(&d)?;
    if let (Some(level), Some(obj)) = (level, v.as_object_mut()) {
        obj.insert("scoring".into(), scoring_json(g, level, query));
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
        let scoring = |q: &GranularityQuery, obj: &mut Fields| {
            if let Some(level) = args.level {
                obj.insert("scoring".into(), scoring_json(g, level, &q.text));
            }
        };
        return Render::<GranularityClassifier>::new(&|q, _| text(g, args.level, &q.text))
            .json_extra(&scoring)
            .parallel(g.parallel)
            .run_file(&g.classifier, path, args.opts.json, out);
    }
    let Some(q) = &args.query else {
        bail!("give a QUERY or --file FILE");
    };
    if args.opts.json {
        writeln!(out, "{}", json_value(g, args.level, q)?)?;
    } else {
        writeln!(out, "{}", text(g, args.level, q))?;
    }
    Ok(())
}
