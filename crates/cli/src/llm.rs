//! `--llm`, `--llm-url`, `--llm-model`: the options that turn the
//! model-backed tier on for `effort`, `questions`, `granularity`, `route`
//! and `run`, the settings they make (the `[llm]` table, then the
//! environment, then these flags), and the one warning a command prints
//! when the model failed.

use std::io::Write;

use anyhow::Result;
use tact::llm::{Llm, LlmConfig};

/// The options every command with a model tier shares.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct LlmArgs {
    /// Ask a local LLM about the decisions the cheaper tiers are unsure of
    /// (Ollama at OLLAMA_HOST with OLLAMA_MODEL_NAME, or the [llm] table);
    /// any failure keeps the cheaper decision.
    #[arg(long)]
    pub llm: bool,
    /// The model server's URL (over OLLAMA_HOST and [llm] url).
    #[arg(long, value_name = "URL", requires = "llm")]
    pub llm_url: Option<String>,
    /// The model (over OLLAMA_MODEL_NAME and [llm] model).
    #[arg(long, value_name = "MODEL", requires = "llm")]
    pub llm_model: Option<String>,
}

/// The model client `args` ask for: `file` (the `[llm]` table, if any),
/// then the environment from `env`, then the flags. `None` without `--llm`,
/// and when the server does not answer a first probe: then one warning on
/// `err` says so and the command runs on the cheaper tiers alone.
pub fn client(
    args: &LlmArgs,
    file: Option<LlmConfig>,
    env: &dyn Fn(&str) -> Option<String>,
    err: &mut dyn Write,
) -> Result<Option<Llm>> {
    if !args.llm {
        return Ok(None);
    }
    let mut config = file.unwrap_or_default().with_env(env);
    if let Some(url) = &args.llm_url {
        config.url.clone_from(url);
    }
    if let Some(model) = &args.llm_model {
        config.model = Some(model.clone());
    }
    let llm = Llm::new(config)?;
    if let Err(e) = llm.probe() {
        writeln!(
            err,
            "warning: the model tier is off ({e}); the cheaper tiers decide"
        )?;
        return Ok(None);
    }
    Ok(Some(llm))
}

/// Writes one warning when the model failed: how many calls, of which
/// kinds, and the first kind's cause is in the `tracing` log (`TACT_LOG=warn`).
pub fn report(llm: Option<&Llm>, err: &mut dyn Write) -> Result<()> {
    let Some(llm) = llm else {
        return Ok(());
    };
    let s = llm.stats();
    if s.failures == 0 {
        return Ok(());
    }
    let kinds: Vec<String> = s
        .failures_by_kind
        .iter()
        .map(|(k, n)| format!("{} {n}", k.as_str()))
        .collect();
    let model = llm.config().model.as_deref().unwrap_or("no model");
    writeln!(
        err,
        "warning: the model tier ({model} at {}) failed {} of {} calls ({}); the cheaper tiers' decisions were kept",
        llm.client().endpoint(),
        s.failures,
        s.requests,
        kinds.join(", ")
    )?;
    Ok(())
}
