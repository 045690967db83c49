//! `cargo xtask llm-check --url URL [--backend B] [--model M]`: puts each
//! text task's probe (the first item of its `dev` split that the
//! classifier puts to the model: routing's contract rules decide some
//! without it) to a running server through the classifier's own model
//! prompt, twice, and says
//! which structured form the server took, the latency of the first (cold)
//! and second (warm) call, the label, and whether the answers parsed.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use tact_classifiers::effort::EffortClassifier;
use tact_classifiers::escalation::Escalation;
use tact_classifiers::granularity::GranularityClassifier;
use tact_classifiers::route::Router;
use tact_classifiers::{TextClassifier, TextDecision};
use tact_llm::{Llm, LlmConfig};
use tact_types::{Label, Tier};

/// How many items of a dev split are tried for one the model is asked about.
const MAX_PROBES: usize = 50;

/// One task's two calls.
struct Row {
    task: &'static str,
    form: String,
    cold_ms: f64,
    warm_ms: f64,
    label: String,
    answered: u64,
    failures: Vec<String>,
}

/// Runs the check with `config` (its cache is turned off, so the warm
/// call is sent too). Returns the report and whether every answer parsed.
pub fn run(root: &Path, mut config: LlmConfig) -> Result<(String, bool)> {
    config.cache_size = 0;
    config.run_budget_ms = 0;
    let llm = Llm::new(config.clone())?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "server {} ({}), model {}, timeout {} ms, max_tokens {}",
        llm.client().endpoint(),
        config.backend.as_str(),
        config.model.as_deref().unwrap_or("(none)"),
        config.timeout_ms,
        config.max_tokens
    );
    let t = Instant::now();
    match llm.probe() {
        Ok(()) => {
            let _ = writeln!(out, "probe: answered in {:.1} ms", ms(t));
        }
        Err(e) => {
            let _ = writeln!(out, "probe: {e}");
            return Ok((out, false));
        }
    }
    let rows = vec![
        check::<EffortClassifier>(root, &llm)?,
        check::<GranularityClassifier>(root, &llm)?,
        check::<Router>(root, &llm)?,
    ];
    let _ = writeln!(
        out,
        "{:<12} {:<38} {:>9} {:>9}  {:<16} parsed",
        "task", "form taken", "cold ms", "warm ms", "label"
    );
    let mut ok = true;
    for r in &rows {
        ok &= r.answered == 2;
        let _ = writeln!(
            out,
            "{:<12} {:<38} {:>9.1} {:>9.1}  {:<16} {}",
            r.task,
            r.form,
            r.cold_ms,
            r.warm_ms,
            r.label,
            if r.answered == 2 {
                "2 of 2".to_owned()
            } else {
                format!("{} of 2 ({})", r.answered, r.failures.join(", "))
            }
        );
    }
    let s = llm.stats();
    let _ = writeln!(
        out,
        "forms refused: {}; form in use: {}",
        s.refusals,
        llm.dialect().as_str()
    );
    Ok((out, ok))
}

/// Asks the model about task `C`'s probe twice (no cache).
fn check<C: TextClassifier>(root: &Path, llm: &Llm) -> Result<Row> {
    let path = root.join("fixtures").join(C::TASK).join("dev.jsonl");
    let escalation =
        Escalation::new(Arc::new(llm.clone()), f32::INFINITY).product(llm.config().product.clone());
    let classifier = C::with_escalation("hybrid", escalation)?;
    let before = llm.stats();
    let mut probe = None;
    for item in tact_core::dataset::read_jsonl::<C::Example>(&path)?
        .into_iter()
        .take(MAX_PROBES)
    {
        let (input, _) = C::split(item.record);
        let t = Instant::now();
        let d = classifier.decide(&input);
        if llm.stats().requests > before.requests {
            probe = Some((input, d, ms(t)));
            break;
        }
    }
    let (input, d, cold_ms) = probe.with_context(|| {
        format!(
            "none of the first {MAX_PROBES} items of {} is put to the model",
            path.display()
        )
    })?;
    let t = Instant::now();
    let d2 = classifier.decide(&input);
    let warm_ms = ms(t);
    let after = llm.stats();
    let failures = after
        .failures_by_kind
        .iter()
        .map(|(k, n)| {
            let was = before
                .failures_by_kind
                .iter()
                .find(|(b, _)| b == k)
                .map_or(0, |(_, n)| *n);
            (k.as_str(), n - was)
        })
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    let label = |d: &C::Decision| {
        let by = if d.tier() == Tier::Model {
            ""
        } else {
            " (kept)"
        };
        format!("{}{by}", d.label().as_str())
    };
    Ok(Row {
        task: C::TASK,
        form: llm.dialect().as_str().to_owned(),
        cold_ms,
        warm_ms,
        label: if d.label().as_str() == d2.label().as_str() {
            label(&d)
        } else {
            format!("{}/{}", label(&d), label(&d2))
        },
        answered: after.answered - before.answered,
        failures,
    })
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}
