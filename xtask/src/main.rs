//! `cargo xtask`: project chores. `eval` measures every strategy of every
//! task on labelled JSONL (accuracy, macro-F1, per-class table, confusion
//! matrix, latency percentiles, the hybrid's deferral rate); `train` fits
//! the learned tier's models; `curve` draws a learning curve (what more
//! labelled data buys); `compare` diffs two saved eval runs; `deps`
//! checks the dependency rules of `docs/architecture.md`; `store-bench`
//! measures the trajectory store on SQLite and PostgreSQL; `llm-check`
//! tells how a running model server takes the model tier's calls;
//! `startup` measures what one call of the `tact` binary costs;
//! `mem-bench` the peak memory of `tact run` and `tact guide` on agents'
//! logs of growing size.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod compare;
mod curve;
mod deps;
mod guidance_task;
mod llm_check;
mod mem_bench;
mod metrics;
mod preferences_task;
mod questions_task;
mod report;
mod startup;
mod store_bench;
mod tasks;
mod train;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};

use crate::metrics::Run;

#[derive(Parser)]
#[command(name = "cargo xtask", about = "tact project chores")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure classifiers on labelled JSONL datasets.
    Eval(Box<EvalArgs>),
    /// Train the learned models from the fixtures' train splits (and any
    /// --dataset) and write the model files.
    Train(TrainArgs),
    /// Draw a learning curve: train a task's model on growing shares of
    /// its real train data (or of --dataset), drawn by source, and
    /// measure each on a split it never learns from.
    Curve(CurveArgs),
    /// Print the metric differences between two saved eval runs (files
    /// written by `eval --save`, or `eval --json` output).
    Compare {
        /// The baseline run.
        a: PathBuf,
        /// The new run.
        b: PathBuf,
    },
    /// Check that every workspace package depends only on the workspace
    /// packages its rule in docs/architecture.md ("Dependency rules")
    /// allows.
    Deps,
    /// Measure what one call of the `tact` binary costs: wall time (median
    /// and p90 over --runs) and peak memory of each one-question command,
    /// against a --base binary when given (runs alternate).
    Startup {
        /// The binary measured (default: target/release/tact).
        #[arg(long)]
        bin: Option<PathBuf>,
        /// A binary to compare with (the build before a change).
        #[arg(long)]
        base: Option<PathBuf>,
        /// Runs per command and binary.
        #[arg(long, default_value_t = 30)]
        runs: usize,
    },
    /// Benchmark the trajectory store on SQLite and PostgreSQL (1, 4 and
    /// 8 writer processes; `tact run` over 10,000 sessions), or with
    /// `--fault`, stop the PostgreSQL server mid-ingest and check that
    /// every session is whole or absent.
    StoreBench(store_bench::StoreBenchArgs),
    /// Measure the peak memory of `tact run` and `tact guide` on agents'
    /// logs of 10, 50 and 100 MB of every format and on one large record
    /// each (GNU time), against the largest record.
    MemBench(mem_bench::MemBenchArgs),
    /// Put each text task's probe to a running model server (twice) and
    /// say which structured form it took, the cold and warm latency, and
    /// whether the answers parse.
    LlmCheck(LlmCheckArgs),
}

/// The model tier's settings, read as `tact --llm` reads them: the `[llm]`
/// table of --config (else ./tact.toml), OLLAMA_* and TACT_LLM_*, then
/// these flags.
#[derive(clap::Args)]
struct LlmFlags {
    /// A TOML file whose `[llm]` table sets the model tier.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// ollama, or openai (llama.cpp, vLLM, LM Studio).
    #[arg(long, value_name = "BACKEND")]
    llm_backend: Option<String>,
    /// The server's URL.
    #[arg(long, value_name = "URL")]
    llm_url: Option<String>,
    /// The model.
    #[arg(long, value_name = "MODEL")]
    llm_model: Option<String>,
    /// The whole-call timeout in milliseconds.
    #[arg(long, value_name = "MS")]
    llm_timeout_ms: Option<u64>,
}

impl LlmFlags {
    fn load(&self) -> Result<tact_llm::LlmConfig> {
        llm_config(
            self.config.as_deref(),
            self.llm_backend.as_deref(),
            self.llm_url.clone(),
            self.llm_model.clone(),
            self.llm_timeout_ms,
        )
    }
}

/// The model tier's settings from a file, the environment and flags
/// (`tact_llm::LlmConfig::load`, as every `tact` command builds them).
fn llm_config(
    file: Option<&Path>,
    backend: Option<&str>,
    url: Option<String>,
    model: Option<String>,
    timeout_ms: Option<u64>,
) -> Result<tact_llm::LlmConfig> {
    let mut o = tact_llm::Overrides::default();
    o.backend = backend.map(tact_llm::Backend::parse).transpose()?;
    o.url = url;
    o.model = model;
    o.timeout_ms = timeout_ms;
    let env = |k: &str| std::env::var(k).ok();
    Ok(tact_llm::LlmConfig::load(file, &env, &o)?)
}

#[derive(clap::Args)]
struct LlmCheckArgs {
    /// The server's base URL (http://127.0.0.1:8080, or with /v1).
    #[arg(long)]
    url: String,
    /// ollama, or openai (llama.cpp, vLLM, LM Studio); default: the
    /// `[llm]` table's, else ollama.
    #[arg(long)]
    backend: Option<String>,
    /// The model (else TACT_LLM_MODEL, OLLAMA_MODEL_NAME or `[llm]` model).
    #[arg(long)]
    model: Option<String>,
    /// The whole-call timeout for the check's calls, in milliseconds (a
    /// cold call on a CPU can take seconds; the tier's own timeout is
    /// `[llm]` timeout_ms).
    #[arg(long, default_value_t = 60_000)]
    timeout_ms: u64,
    /// A TOML file whose `[llm]` table is read first.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

#[derive(clap::Args)]
struct TrainArgs {
    /// Only this model's task (effort, effort-in-message, granularity,
    /// route; default: all four).
    #[arg(long)]
    task: Option<String>,
    /// Where to write `<task>.json` (default: crates/classifiers/models,
    /// the embedded defaults).
    #[arg(long)]
    out: Option<PathBuf>,
    /// More labelled data in the labelling guide's format, added to the
    /// train split (needs --task).
    #[arg(long)]
    dataset: Vec<PathBuf>,
    /// Only the user's --dataset files, not the fixtures' train split.
    #[arg(long)]
    no_fixtures: bool,
    /// Leave out the fixtures' real train splits (`real-train`), which the
    /// committed models learn from (the thresholds are chosen on
    /// `real-calibration` in any case; `effort-in-message` always learns
    /// from `real-train`).
    #[arg(long)]
    no_real: bool,
    /// How much each item of the real train splits counts in the loss,
    /// against 1 for the annotator-written ones (default: each task's,
    /// `real_weight_for` in xtask/src/train.rs).
    #[arg(long)]
    real_weight: Option<f64>,
    /// Train on N shuffled example orders and keep the mean of their
    /// weights (default 1): a model that depends less on the luck of one
    /// order, at N times the training time and the same classification cost.
    #[arg(long, value_name = "N")]
    shuffles: Option<u32>,
    /// How much each item of the --dataset files counts in the loss,
    /// against 1 for the fixtures': once for every file, or once per
    /// --dataset, in the same order.
    #[arg(long)]
    dataset_weight: Vec<f64>,
    /// Train into a temporary folder and check that every model file
    /// equals the committed one byte for byte (the embedded models are a
    /// fresh, reproducible training); exit 1 naming those that differ.
    #[arg(long, conflicts_with_all = ["out", "dataset", "no_fixtures", "no_real", "real_weight", "shuffles"])]
    check: bool,
    /// Write nothing; for each corpus of the real train and calibration
    /// splits, train without it and print the hybrid's figures on it
    /// (mean and worst over the corpora of at least 10 items).
    #[arg(long, conflicts_with_all = ["out", "check"])]
    leave_one_source_out: bool,
}

#[derive(clap::Args)]
struct CurveArgs {
    /// The model's task (effort, effort-in-message, granularity, route).
    #[arg(long)]
    task: String,
    /// Labelled data to draw from (added to what is drawn from the
    /// fixtures' real train splits).
    #[arg(long)]
    dataset: Vec<PathBuf>,
    /// Draw from the --dataset files alone, on top of no fixture data.
    #[arg(long)]
    no_fixtures: bool,
    /// The file each model is measured on (default: the fixtures'
    /// `real-calibration` split of the task, which no model learns from).
    #[arg(long, value_name = "FILE")]
    on: Option<PathBuf>,
    /// The shares of the drawn data to train on.
    #[arg(long, value_delimiter = ',', default_value = "0,0.125,0.25,0.5,1")]
    fractions: Vec<f64>,
    /// Draws per share, each from its own seed (the table gives their
    /// mean ± standard deviation).
    #[arg(long, default_value_t = 3)]
    seeds: u32,
    /// Draw single items rather than whole sources (`source` up to its
    /// first `@` or `#`). By source, the curve tells what data from new
    /// sources buys, which is what a user's own text is.
    #[arg(long)]
    by_item: bool,
    /// How much each drawn item counts in the loss, against 1 for the
    /// annotator-written ones.
    #[arg(long, default_value_t = 1.0)]
    real_weight: f64,
}

#[derive(clap::Args)]
struct EvalArgs {
    /// Only this task (default: every task that has fixtures).
    #[arg(long)]
    task: Option<String>,
    /// A dataset file in the labelling guide's format, instead of the
    /// fixtures' split.
    #[arg(long)]
    dataset: Option<PathBuf>,
    /// The fixtures split to use when no --dataset is given:
    /// `fixtures/<task>/<SPLIT>.jsonl` (dev, train, calibration, real-dev,
    /// real-train, real-calibration; for effort's Italian questions also
    /// dev-it, train-it, calibration-it). The `questions` task has real
    /// data only: its `dev` is `real-dev`.
    #[arg(long, default_value = "dev")]
    split: String,
    /// Also report the figures per value of this dataset field (for
    /// `source`: per repository or dataset, what comes before its first
    /// `@` or `#`), so a user sees where a classifier is weak.
    #[arg(long, value_name = "FIELD")]
    group: Option<String>,
    /// Exit non-zero when the `questions` task's F1 (over all questions)
    /// is below this.
    #[arg(long)]
    min_f1: Option<f64>,
    /// Exit non-zero when the `questions` task's precision (over all
    /// questions) is below this.
    #[arg(long)]
    min_precision: Option<f64>,
    /// Exit non-zero when the `questions` task's recall (over all
    /// questions) is below this.
    #[arg(long)]
    min_recall: Option<f64>,
    /// Exit non-zero when the `route` task's share of non-PLATFORM
    /// messages routed to PLATFORM is above this.
    #[arg(long, value_name = "RATE")]
    max_wrongly_platform: Option<f64>,
    /// Only this strategy (default: all, the task's default first). For
    /// the text tasks, also `cascade` (the hybrid, then a local LLM for the
    /// items below the task's threshold) and `llm` (the hybrid, then the
    /// LLM for every item but RC-01 and RC-02): they read the model tier's
    /// settings as `tact --llm` does (--config, OLLAMA_*, TACT_LLM_*, the
    /// --llm-* flags) and add the escalation rate, the model's latency
    /// percentiles, its failures by kind and the structured form used.
    #[arg(long)]
    strategy: Option<String>,
    /// Print exactly one JSON object on stdout (needs a single task and
    /// uses the default strategy unless --strategy is given).
    #[arg(long)]
    json: bool,
    /// Exit non-zero when the gated strategy's macro-F1 is below this: the
    /// chosen --strategy, or else each task's default strategy.
    #[arg(long)]
    min_macro_f1: Option<f64>,
    /// Exit non-zero when the gated strategy's accuracy is below this (for
    /// `preferences`: the overall accuracy and every preference's).
    #[arg(long)]
    min_accuracy: Option<f64>,
    /// Also list up to N misclassified items per run (line, gold, predicted, text).
    #[arg(long, value_name = "N")]
    errors: Option<usize>,
    /// Leave timings out (`-` in text, 0 in JSON): reports that diff
    /// cleanly between runs and machines.
    #[arg(long)]
    no_timing: bool,
    /// Also write every run of the text tasks as a JSON array to FILE (for
    /// `cargo xtask compare`).
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// The model tier's settings (for the `llm` and `cascade` strategies).
    #[command(flatten)]
    llm: LlmFlags,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// The path as shown in reports: relative to the workspace root if inside.
fn shown(path: &Path) -> String {
    let root = root();
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    abs.strip_prefix(&root)
        .map_or_else(|_| path.display().to_string(), |p| p.display().to_string())
}

/// `eval` for the guidance task (its own metrics: per-classifier verdicts).
fn eval_guidance(args: &EvalArgs, path: &Path) -> Result<bool> {
    if let Some(s) = args.strategy.as_deref().filter(|s| *s != "default") {
        bail!("unknown strategy `{s}` for guidance (expected: default)");
    }
    let mut report = guidance_task::eval(path).context("task guidance")?;
    if args.no_timing {
        report.latency_ns = metrics::Latency {
            p50: 0,
            p95: 0,
            p99: 0,
        };
    }
    report.dataset = shown(path);
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!(
            "{}",
            guidance_task::render(&report, !args.no_timing, args.errors)
        );
    }
    Ok(match args.min_macro_f1 {
        Some(min) => {
            let (pass, line) = guidance_task::gate(&report, min);
            eprintln!("{line}");
            pass
        }
        None => true,
    })
}

/// The `--group` key of each evaluated item, read from the dataset's
/// lines by line number.
fn group_keys(path: &Path, field: &str, items: &[(usize, String)]) -> Result<Vec<String>> {
    let raw = tact_core::dataset::read_jsonl::<serde_json::Map<String, serde_json::Value>>(path)?;
    let by_line: std::collections::HashMap<usize, String> = raw
        .into_iter()
        .map(|l| (l.line, metrics::group_key(field, l.record.get(field))))
        .collect();
    Ok(items
        .iter()
        .map(|(line, _)| {
            by_line
                .get(line)
                .cloned()
                .unwrap_or_else(|| "(none)".into())
        })
        .collect())
}

/// `eval` for the questions task (precision, recall and F1 over all
/// questions).
fn eval_questions(args: &EvalArgs, path: &Path) -> Result<bool> {
    let strategies: Vec<&str> = match (&args.strategy, args.json) {
        (Some(s), _) => vec![s.as_str()],
        (None, true) => vec![questions_task::STRATEGIES[0]],
        (None, false) => questions_task::STRATEGIES.to_vec(),
    };
    let mut reports = Vec::new();
    for strategy in strategies {
        let mut r = questions_task::eval(path, shown(path), strategy, args.group.as_deref())
            .context("task questions")?;
        if args.no_timing {
            r.latency_ns = metrics::Latency {
                p50: 0,
                p95: 0,
                p99: 0,
            };
        }
        reports.push(r);
    }
    if args.json {
        if let Some(r) = reports.first() {
            println!("{}", serde_json::to_string(r)?);
        }
    } else {
        print!(
            "{}",
            questions_task::render(&reports, !args.no_timing, args.errors)
        );
    }
    let mut ok = true;
    if let Some(r) = reports.first() {
        for (name, min, value) in [
            ("F1", args.min_f1, r.f1),
            ("precision", args.min_precision, r.precision),
            ("recall", args.min_recall, r.recall),
        ] {
            let Some(min) = min else { continue };
            let passed = value >= min;
            ok &= passed;
            eprintln!(
                "gate questions {}: {name} {value:.3} {} {min:.3}",
                r.strategy,
                if passed { ">=" } else { "< (FAILED)" }
            );
        }
    }
    Ok(ok)
}

/// `eval` for the preferences task (adds `per_preference`).
fn eval_preferences(args: &EvalArgs, path: &Path) -> Result<bool> {
    if let Some(s) = args.strategy.as_deref().filter(|s| *s != "rules") {
        bail!("unknown strategy `{s}` for preferences (expected: rules)");
    }
    let mut report = preferences_task::eval(path, shown(path)).context("task preferences")?;
    if args.no_timing {
        preferences_task::without_timing(&mut report);
    }
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!(
            "{}",
            preferences_task::render(&report, !args.no_timing, args.errors)
        );
    }
    let (pass, lines) = preferences_task::gate(&report, args.min_macro_f1, args.min_accuracy);
    for line in lines {
        eprintln!("{line}");
    }
    Ok(pass)
}

fn eval(args: &EvalArgs) -> Result<bool> {
    let root = root();
    if args
        .strategy
        .as_deref()
        .is_some_and(|s| tasks::MODEL_STRATEGIES.contains(&s))
    {
        tasks::set_llm_config(args.llm.load()?);
    }
    let split_name = args.split.as_str();
    let preferences = root
        .join("fixtures/preferences")
        .join(format!("{split_name}.jsonl"));
    if args.task.as_deref() == Some("preferences") {
        let path = args.dataset.clone().unwrap_or(preferences);
        return eval_preferences(args, &path);
    }
    let with_preferences = args.task.is_none() && args.dataset.is_none() && preferences.exists();
    if args.task.as_deref() == Some("guidance") {
        let path = args
            .dataset
            .clone()
            .unwrap_or_else(|| guidance_task::default_path(&root));
        return eval_guidance(args, &path);
    }
    let guidance = guidance_task::default_path(&root);
    let with_guidance = args.task.is_none() && args.dataset.is_none() && guidance.exists();
    let questions = root.join("fixtures/questions").join(match split_name {
        "dev" => "real-dev.jsonl".to_owned(),
        other => format!("{other}.jsonl"),
    });
    if args.task.as_deref() == Some("questions") {
        let path = args.dataset.clone().unwrap_or(questions);
        return eval_questions(args, &path);
    }
    let with_questions = args.task.is_none() && args.dataset.is_none() && questions.exists();
    let all = tasks::all();
    let split = split_name;
    let mut selected: Vec<(&dyn tasks::Task, PathBuf)> = Vec::new();
    for task in &all {
        if args.task.as_deref().is_some_and(|t| t != task.name()) {
            continue;
        }
        let path = match &args.dataset {
            Some(p) => p.clone(),
            None => root
                .join("fixtures")
                .join(task.name())
                .join(format!("{split}.jsonl")),
        };
        if args.dataset.is_none() && !path.exists() {
            continue;
        }
        selected.push((task.as_ref(), path));
    }
    if let Some(t) = &args.task {
        if selected.is_empty() {
            let names: Vec<_> = all.iter().map(|t| t.name()).collect();
            bail!(
                "unknown task `{t}` or no fixtures for it (tasks: {})",
                names.join(", ")
            );
        }
    }
    if args.dataset.is_some() && selected.len() != 1 {
        bail!("--dataset needs --task NAME");
    }
    if args.json
        && selected.len()
            + usize::from(with_guidance)
            + usize::from(with_preferences)
            + usize::from(with_questions)
            != 1
    {
        bail!("--json prints one run: name it with --task");
    }
    let mut runs: Vec<(Run, bool)> = Vec::new();
    for (task, path) in selected {
        let strategies: Vec<&str> = match (&args.strategy, args.json) {
            (Some(s), _) => vec![s.as_str()],
            (None, true) => task.strategies().into_iter().take(1).collect(),
            (None, false) => task.strategies(),
        };
        let default = task.strategies().first().copied().unwrap_or("");
        for strategy in strategies {
            let outcome = task
                .evaluate(&path, strategy)
                .with_context(|| format!("task {} strategy {strategy}", task.name()))?;
            let labels = task.labels();
            let (accuracy, macro_f1, per_class, confusion) =
                metrics::score(&labels, &outcome.gold, &outcome.pred);
            if let (Some(max), false) = (args.errors, args.json) {
                let misses = outcome
                    .gold
                    .iter()
                    .zip(&outcome.pred)
                    .filter(|(g, p)| g != p)
                    .count();
                println!(
                    "{} / {strategy}: {misses} misclassified of {}{}",
                    task.name(),
                    outcome.gold.len(),
                    if misses > max {
                        format!(", the first {max}:")
                    } else {
                        ":".to_owned()
                    }
                );
                let mut shown_errors = 0;
                for ((g, p), (line, text)) in
                    outcome.gold.iter().zip(&outcome.pred).zip(&outcome.items)
                {
                    if g != p && shown_errors < max {
                        shown_errors += 1;
                        let name = |i: &usize| labels.get(*i).copied().unwrap_or("?");
                        println!(
                            "{}:{line}: gold {} predicted {}: {}",
                            shown(&path),
                            name(g),
                            name(p),
                            text.replace('\n', " ")
                        );
                    }
                }
            }
            let mut lat = outcome.latencies_ns;
            let gated = args.strategy.is_some() || strategy == default;
            runs.push((
                Run {
                    task: task.name().to_owned(),
                    dataset: shown(&path),
                    strategy: strategy.to_owned(),
                    n: outcome.gold.len(),
                    accuracy,
                    macro_f1,
                    per_class,
                    latency_ns: if args.no_timing {
                        metrics::Latency {
                            p50: 0,
                            p95: 0,
                            p99: 0,
                        }
                    } else {
                        metrics::latency(&mut lat)
                    },
                    deferred: outcome
                        .deferred
                        .map(|d| d as f64 / outcome.gold.len().max(1) as f64),
                    route: (task.name() == "route")
                        .then(|| metrics::RouteErrors::from_confusion(&confusion)),
                    groups: match &args.group {
                        Some(field) => {
                            let keys = group_keys(&path, field, &outcome.items)?;
                            metrics::by_group(&labels, &keys, &outcome.gold, &outcome.pred)
                        }
                        None => Vec::new(),
                    },
                    confusion,
                    model_tier: outcome.model_tier.map(|mut m| metrics::ModelTierRun {
                        escalation_rate: m.escalated as f64 / outcome.gold.len().max(1) as f64,
                        escalated: m.escalated,
                        answered: m.answered,
                        failures: m.failures,
                        detail: std::mem::take(&mut m.detail),
                        latency_ns: if args.no_timing {
                            metrics::ModelLatency {
                                p50: 0,
                                p90: 0,
                                p99: 0,
                            }
                        } else {
                            metrics::model_latency(&mut m.latencies_ns)
                        },
                    }),
                },
                gated,
            ));
        }
    }
    if args.json {
        if let Some((run, _)) = runs.first() {
            println!("{}", serde_json::to_string(run)?);
        }
    } else {
        let plain: Vec<Run> = runs.iter().map(|(r, _)| r.clone()).collect();
        print!("{}", report::render(&plain, !args.no_timing));
    }
    if let Some(path) = &args.save {
        let plain: Vec<&Run> = runs.iter().map(|(r, _)| r).collect();
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, serde_json::to_string_pretty(&plain)? + "\n")
            .with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    }
    let mut ok = true;
    if with_guidance {
        ok &= eval_guidance(args, &guidance)?;
    }
    if with_preferences {
        ok &= eval_preferences(args, &preferences)?;
    }
    if with_questions {
        ok &= eval_questions(args, &questions)?;
    }
    if let Some(max) = args.max_wrongly_platform {
        for (run, _) in runs.iter().filter(|(_, gated)| *gated) {
            if let Some(e) = &run.route {
                let pass = e.wrongly_platform_rate <= max;
                ok &= pass;
                eprintln!(
                    "gate {} {}: wrongly sent to PLATFORM {:.4} ({} of {}) {} {max:.4}",
                    run.task,
                    run.strategy,
                    e.wrongly_platform_rate,
                    e.wrongly_platform,
                    e.non_platform,
                    if pass { "<=" } else { "> (FAILED)" }
                );
            }
        }
    }
    if let Some(min) = args.min_macro_f1 {
        for (run, gated) in &runs {
            if !gated {
                continue;
            }
            let pass = run.macro_f1 >= min;
            ok &= pass;
            eprintln!(
                "gate {} {}: macro-F1 {:.3} {} {min:.3}",
                run.task,
                run.strategy,
                run.macro_f1,
                if pass { ">=" } else { "< (FAILED)" }
            );
        }
    }
    if let Some(min) = args.min_accuracy {
        for (run, _) in runs.iter().filter(|(_, gated)| *gated) {
            let pass = run.accuracy >= min;
            ok &= pass;
            eprintln!(
                "gate {} {}: accuracy {:.3} {} {min:.3}",
                run.task,
                run.strategy,
                run.accuracy,
                if pass { ">=" } else { "< (FAILED)" }
            );
        }
    }
    Ok(ok)
}

fn train_cmd(args: &TrainArgs) -> Result<bool> {
    let root = root();
    let tasks: Vec<tact_classifiers::learned::Task> = match &args.task {
        None => train::TASKS.to_vec(),
        Some(name) => match train::TASKS.iter().find(|t| t.name() == name) {
            Some(t) => vec![*t],
            None => bail!(
                "no learned tier for task `{name}` (tasks: effort, effort-in-message, granularity, route)"
            ),
        },
    };
    if !args.dataset.is_empty() && tasks.len() != 1 {
        bail!("--dataset needs --task NAME");
    }
    if args.dataset_weight.len() > 1 && args.dataset_weight.len() != args.dataset.len() {
        bail!(
            "{} --dataset-weight for {} --dataset: give one, or one per --dataset",
            args.dataset_weight.len(),
            args.dataset.len()
        );
    }
    if args.no_fixtures && args.dataset.is_empty() {
        bail!("--no-fixtures needs at least one --dataset");
    }
    let committed = train::default_out(&root);
    let out = if args.check {
        let dir = std::env::temp_dir().join(format!("tact-train-check-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    } else {
        args.out.clone().unwrap_or_else(|| committed.clone())
    };
    let mut stale = Vec::new();
    for task in tasks {
        let mut sources = Vec::new();
        if !args.no_fixtures {
            sources.extend(train::fixture_sources(
                &root,
                task,
                match (args.no_real, args.real_weight) {
                    _ if task == tact_classifiers::learned::Task::EffortInMessage => {
                        args.real_weight.or(train::real_weight_for(task))
                    }
                    (true, _) => None,
                    (false, Some(w)) => Some(w),
                    (false, None) => train::real_weight_for(task),
                },
            ));
        }
        // The heuristic was never tuned on a user's data: the thresholds
        // are chosen on it too.
        sources.extend(args.dataset.iter().enumerate().map(|(i, p)| train::Source {
            path: p.clone(),
            train: true,
            thresholds: true,
            group: "dataset",
            weight: match args.dataset_weight.as_slice() {
                [] => 1.0,
                [w] => *w,
                ws => ws.get(i).copied().unwrap_or(1.0),
            },
        }));
        let mut trainer = train::trainer_for(task);
        if let Some(n) = args.shuffles {
            trainer.shuffles = n;
        }
        if args.leave_one_source_out {
            let probe = train::real_probe_files(&root, task);
            let rows = train::leave_one_source_out(task, &sources, &probe, &trainer)?;
            print!("{}", train::left_out_table(task, &rows, 10));
            continue;
        }
        let trained = train::train(task, &sources, &trainer)?;
        let path = train::write(&out, &trained)?;
        println!("{}", train::summary(&trained));
        println!("{:<12} wrote {}", "", shown(&path));
        if args.check {
            for ext in ["json", "bin"] {
                let file = format!("{}.{ext}", task.name());
                let fresh = std::fs::read(out.join(&file))?;
                if std::fs::read(committed.join(&file)).ok().as_deref() != Some(&fresh[..]) {
                    stale.push(file);
                }
            }
        }
    }
    if args.check {
        let _ = std::fs::remove_dir_all(&out);
        if !stale.is_empty() {
            eprintln!(
                "not a fresh training: {} in {} (run `cargo xtask train`)",
                stale.join(", "),
                shown(&committed)
            );
            return Ok(false);
        }
        println!("the committed models are a fresh training");
    }
    Ok(true)
}

fn curve_cmd(args: &CurveArgs) -> Result<bool> {
    let root = root();
    let Some(task) = train::TASKS.iter().copied().find(|t| t.name() == args.task) else {
        bail!(
            "no learned tier for task `{}` (tasks: effort, effort-in-message, granularity, route)",
            args.task
        );
    };
    if args.seeds == 0 || args.fractions.is_empty() {
        bail!("--seeds and --fractions need at least one value");
    }
    if let Some(f) = args.fractions.iter().find(|f| !(0.0..=1.0).contains(*f)) {
        bail!("--fractions takes shares in 0..=1, not {f}");
    }
    if args.no_fixtures && args.dataset.is_empty() {
        bail!("--no-fixtures needs at least one --dataset");
    }
    let mut sources = Vec::new();
    if !args.no_fixtures {
        sources.extend(
            train::fixture_sources(&root, task, Some(args.real_weight))
                .into_iter()
                .map(|s| {
                    let grow = s.train && s.group == "real";
                    (s, grow)
                }),
        );
    }
    sources.extend(args.dataset.iter().map(|p| {
        (
            train::Source {
                path: p.clone(),
                train: true,
                thresholds: false,
                group: "dataset",
                weight: args.real_weight,
            },
            true,
        )
    }));
    let dir = match task {
        tact_classifiers::learned::Task::EffortInMessage => "effort",
        t => t.name(),
    };
    let on = args.on.clone().unwrap_or_else(|| {
        root.join("fixtures")
            .join(dir)
            .join("real-calibration.jsonl")
    });
    let plan = curve::Plan {
        task,
        sources,
        on,
        fractions: args.fractions.clone(),
        seeds: args.seeds,
        by_source: !args.by_item,
    };
    print!("{}", curve::run(&plan)?);
    Ok(true)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Eval(args) => eval(&args),
        Command::Train(args) => train_cmd(&args),
        Command::Curve(args) => curve_cmd(&args),
        Command::Compare { a, b } => compare::run(&a, &b).map(|text| {
            print!("{text}");
            true
        }),
        Command::Deps => deps::run(&root()),
        Command::Startup { bin, base, runs } => {
            let root = root();
            let bin = bin.unwrap_or_else(|| root.join("target/release/tact"));
            startup::run(&root, &bin, base.as_ref(), runs).map(|table| {
                print!("{table}");
                true
            })
        }
        Command::StoreBench(args) => store_bench::run(&args, &root()),
        Command::MemBench(args) => mem_bench::run(&args, &root()).map(|table| {
            print!("{table}");
            true
        }),
        Command::LlmCheck(args) => llm_config(
            args.config.as_deref(),
            args.backend.as_deref(),
            Some(args.url.clone()),
            args.model.clone(),
            Some(args.timeout_ms),
        )
        .and_then(|c| llm_check::run(&root(), c))
        .map(|(text, ok)| {
            print!("{text}");
            ok
        }),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
