//! `--llm` and its options: the flags that turn the model-backed tier on
//! for `effort`, `questions`, `granularity`, `route`, `watch` and `run`,
//! and the one way they all build its settings
//! ([`tact::llm::LlmConfig::load`]: the `[llm]` table of `--config` or
//! `./tact.toml`, then `OLLAMA_*` and `TACT_LLM_*`, then these flags), and
//! the one warning a command prints when the model failed.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use tact::llm::{Backend, Llm, LlmConfig, Overrides};

/// The options every command with a model tier shares.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct LlmArgs {
    /// Ask a local LLM about the decisions the cheaper tiers are unsure of
    /// (Ollama at OLLAMA_HOST with OLLAMA_MODEL_NAME, or the [llm] table);
    /// any failure keeps the cheaper decision.
    #[arg(long)]
    pub llm: bool,
    /// A TOML file whose [llm] table sets the model tier (default:
    /// ./tact.toml when there is one); `tact run` also reads its [ppp],
    /// [user_preferences] and [import] (docs/configuration.md).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The API the server speaks: ollama, or openai for an
    /// OpenAI-compatible one (llama.cpp, vLLM, LM Studio); over
    /// TACT_LLM_BACKEND and [llm] backend.
    #[arg(long, value_name = "BACKEND", requires = "llm", value_parser = parse_backend)]
    pub llm_backend: Option<Backend>,
    /// The model server's URL (over TACT_LLM_URL, OLLAMA_HOST and [llm] url).
    #[arg(long, value_name = "URL", requires = "llm")]
    pub llm_url: Option<String>,
    /// The model (over TACT_LLM_MODEL, OLLAMA_MODEL_NAME and [llm] model).
    #[arg(long, value_name = "MODEL", requires = "llm")]
    pub llm_model: Option<String>,
    /// The whole-call timeout in milliseconds (over TACT_LLM_TIMEOUT_MS
    /// and [llm] timeout_ms; default 500).
    #[arg(long, value_name = "MS", requires = "llm")]
    pub llm_timeout_ms: Option<u64>,
}

fn parse_backend(s: &str) -> std::result::Result<Backend, String> {
    Backend::parse(s).map_err(|e| e.to_string())
}

impl LlmArgs {
    /// The flags' overrides of the file and the environment.
    pub fn overrides(&self) -> Overrides {
        let mut o = Overrides::default();
        o.backend = self.llm_backend;
        o.url.clone_from(&self.llm_url);
        o.model.clone_from(&self.llm_model);
        o.timeout_ms = self.llm_timeout_ms;
        o
    }

    /// The settings these options ask for, from the file, `env` and the
    /// flags (the one function every command uses).
    pub fn config(&self, env: &dyn Fn(&str) -> Option<String>) -> Result<LlmConfig> {
        Ok(LlmConfig::load(
            self.config.as_deref(),
            env,
            &self.overrides(),
        )?)
    }
}

/// The model client `args` ask for ([`LlmArgs::config`]). `None` without
/// `--llm`, and when the server does not answer a first probe: then one
/// warning on `err` says so and the command runs on the cheaper tiers
/// alone.
pub fn client(
    args: &LlmArgs,
    env: &dyn Fn(&str) -> Option<String>,
    err: &mut dyn Write,
) -> Result<Option<Llm>> {
    if !args.llm {
        return Ok(None);
    }
    let llm = Llm::new(args.config(env)?)?;
    if let Err(e) = llm.probe() {
        writeln!(
            err,
            "warning: the model tier is off ({e}); the cheaper tiers decide"
        )?;
        return Ok(None);
    }
    Ok(Some(llm))
}

/// How many lines a batch command classifies at once: the model tier's
/// `max_in_flight`, else 1.
pub fn parallel(llm: Option<&Llm>) -> usize {
    llm.map_or(1, |l| l.config().max_in_flight)
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
