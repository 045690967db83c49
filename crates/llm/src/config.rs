//! [`LlmConfig`]: the model tier's settings as the ecosystem has them: the
//! `[llm]` table of `tact.toml`, then the environment (`OLLAMA_HOST`,
//! `OLLAMA_MODEL_NAME`, `OLLAMA_MODEL_NAME_CONVERSATIONAL`), then a host's
//! or the command line's overrides, each over the one before.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use tact_classifiers::learned::Task;

use crate::error::{Error, Result};

/// Ollama's default address (`OLLAMA_HOST` unset).
pub const DEFAULT_URL: &str = "http://127.0.0.1:11434";

/// The default whole-call timeout (the guidance spec's 500 ms).
pub const DEFAULT_TIMEOUT_MS: u64 = 500;

/// Which API the server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Backend {
    /// Ollama's native `POST /api/chat` (structured outputs in `format`).
    #[default]
    Ollama,
    /// The OpenAI-compatible `POST /v1/chat/completions` (llama.cpp server,
    /// vLLM, LM Studio), with `response_format` when `structured` is on.
    Openai,
}

impl Backend {
    /// The backend's name, as in `[llm] backend`.
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Ollama => "ollama",
            Backend::Openai => "openai",
        }
    }
}

/// The confidence below which each text task asks the model. The defaults
/// were chosen on the calibration splits (`fixtures/<task>/calibration.jsonl`),
/// never on dev: the largest threshold at which the hybrid's accuracy on
/// the decisions below it is at most 0.8 (a small model does better
/// there), else (effort, whose hybrid has no such region) just below the
/// lowest confidence the hybrid gives a calibration item, so that only
/// decisions less sure than any of them are asked about. The method and
/// the figures are in `docs/configuration.md`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct Thresholds {
    /// Question effort.
    pub effort: f32,
    /// Query granularity.
    pub granularity: f32,
    /// Query routing.
    pub route: f32,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            effort: 0.87,
            granularity: 0.79,
            route: 0.87,
        }
    }
}

impl Thresholds {
    /// The threshold of `task`.
    pub fn of(&self, task: Task) -> f32 {
        match task {
            Task::Effort | Task::EffortInMessage => self.effort,
            Task::Granularity => self.granularity,
            _ => self.route,
        }
    }
}

/// The model tier's settings: the `[llm]` table of `tact.toml`.
///
/// ```
/// use tact_llm::{Backend, LlmConfig};
///
/// let file = LlmConfig::from_toml("backend = \"openai\"\nurl = \"http://127.0.0.1:8080\"\nmodel = \"qwen\"\n")?;
/// let env = |k: &str| (k == "OLLAMA_MODEL_NAME").then(|| "qwen2.5:3b".to_owned());
/// let config = file.with_env(env);
/// assert_eq!((config.backend, config.model.as_deref()), (Backend::Openai, Some("qwen2.5:3b")));
/// assert_eq!(config.timeout_ms, 500);
/// # Ok::<(), tact_llm::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct LlmConfig {
    /// The API the server speaks (`ollama` or `openai`).
    pub backend: Backend,
    /// The server's base URL (`OLLAMA_HOST`; default [`DEFAULT_URL`]).
    pub url: String,
    /// The main slot's model (`OLLAMA_MODEL_NAME`), which classifies.
    pub model: Option<String>,
    /// The conversational slot's model (`OLLAMA_MODEL_NAME_CONVERSATIONAL`,
    /// RC-05), falling back to `model`.
    pub model_conversational: Option<String>,
    /// The whole-call timeout in milliseconds (connect, send, answer).
    pub timeout_ms: u64,
    /// The connect timeout in milliseconds (at most `timeout_ms`).
    pub connect_timeout_ms: u64,
    /// How long Ollama keeps the model loaded after a call (`keep_alive`).
    pub keep_alive: String,
    /// Ask for structured output (`format` / `response_format`); turn off
    /// for an OpenAI-compatible server that rejects `response_format`.
    pub structured: bool,
    /// Most calls in flight at once; more wait (within their timeout).
    pub max_in_flight: usize,
    /// Answers kept (least recently used dropped), keyed by model and
    /// prompt; 0 turns the cache off.
    pub cache_size: usize,
    /// Most calls per client (a session, a `tact` command); answers from
    /// the cache are free. None: no budget.
    pub budget: Option<u64>,
    /// The product the routing prompt names.
    pub product: String,
    /// The confidence below which each task asks the model.
    pub thresholds: Thresholds,
}

impl Default for LlmConfig {
    fn default() -> Self {
        Self {
            backend: Backend::Ollama,
            url: DEFAULT_URL.to_owned(),
            model: None,
            model_conversational: None,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            connect_timeout_ms: 200,
            keep_alive: "5m".to_owned(),
            structured: true,
            max_in_flight: 4,
            cache_size: 256,
            budget: None,
            product: tact_classifiers::escalation::DEFAULT_PRODUCT.to_owned(),
            thresholds: Thresholds::default(),
        }
    }
}

impl LlmConfig {
    /// Parses an `[llm]` table's body (TOML); unknown keys are errors.
    pub fn from_toml(text: &str) -> Result<Self> {
        toml::from_str(text).map_err(|e| Error::Config {
            key: "[llm]",
            value: e.to_string(),
            expected: "the keys of docs/configuration.md",
        })
    }

    /// The settings of the process environment over these (see
    /// [`with_env`](Self::with_env)).
    pub fn with_process_env(self) -> Self {
        self.with_env(|k| std::env::var(k).ok())
    }

    /// `OLLAMA_HOST`, `OLLAMA_MODEL_NAME` and
    /// `OLLAMA_MODEL_NAME_CONVERSATIONAL` from `lookup` over these
    /// settings (blank values are ignored).
    pub fn with_env(mut self, lookup: impl Fn(&str) -> Option<String>) -> Self {
        let get = |k: &str| lookup(k).filter(|v| !v.trim().is_empty());
        if let Some(host) = get("OLLAMA_HOST") {
            self.url = host_url(&host);
        }
        if let Some(m) = get("OLLAMA_MODEL_NAME") {
            self.model = Some(m);
        }
        if let Some(m) = get("OLLAMA_MODEL_NAME_CONVERSATIONAL") {
            self.model_conversational = Some(m);
        }
        self
    }

    /// The whole-call timeout.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }

    /// Checks the values: a URL with a scheme, timeouts and concurrency
    /// above zero, thresholds that are numbers.
    pub fn validate(&self) -> Result<()> {
        let bad = |key, value: String, expected| {
            Err(Error::Config {
                key,
                value,
                expected,
            })
        };
        if !(self.url.starts_with("http://") || self.url.starts_with("https://")) {
            return bad("url", self.url.clone(), "an http:// or https:// URL");
        }
        if self.timeout_ms == 0 {
            return bad("timeout_ms", "0".into(), "a timeout above 0 ms");
        }
        if self.connect_timeout_ms == 0 {
            return bad("connect_timeout_ms", "0".into(), "a timeout above 0 ms");
        }
        if self.max_in_flight == 0 {
            return bad("max_in_flight", "0".into(), "at least 1 call");
        }
        let t = self.thresholds;
        for (key, x) in [
            ("thresholds.effort", t.effort),
            ("thresholds.granularity", t.granularity),
            ("thresholds.route", t.route),
        ] {
            if !x.is_finite() {
                return bad(
                    key,
                    x.to_string(),
                    "a finite number (0 never asks, above 1 always)",
                );
            }
        }
        Ok(())
    }
}

/// `OLLAMA_HOST` as Ollama reads it: `host`, `host:port` or a URL; the
/// scheme defaults to `http` and the port to 11434.
fn host_url(host: &str) -> String {
    let host = host.trim().trim_end_matches('/');
    if host.contains("://") {
        return host.to_owned();
    }
    let has_port = host
        .rsplit_once(':')
        .is_some_and(|(_, p)| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    if has_port {
        format!("http://{host}")
    } else {
        format!("http://{host}:11434")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ollama_host_reads_as_ollama_does() {
        assert_eq!(host_url("127.0.0.1"), "http://127.0.0.1:11434");
        assert_eq!(host_url("0.0.0.0:8080"), "http://0.0.0.0:8080");
        assert_eq!(
            host_url("https://ollama.example/"),
            "https://ollama.example"
        );
    }

    #[test]
    fn the_environment_overrides_the_file_and_blank_values_do_not() {
        let env = |k: &str| match k {
            "OLLAMA_HOST" => Some("localhost:9999".to_owned()),
            "OLLAMA_MODEL_NAME" => Some(" ".to_owned()),
            "OLLAMA_MODEL_NAME_CONVERSATIONAL" => Some("small".to_owned()),
            _ => None,
        };
        let c =
            LlmConfig::from_toml("model = \"big\"\ntimeout_ms = 800\n[thresholds]\neffort = 0.5\n")
                .unwrap()
                .with_env(env);
        assert_eq!(c.url, "http://localhost:9999");
        assert_eq!(c.model.as_deref(), Some("big"));
        assert_eq!(c.model_conversational.as_deref(), Some("small"));
        assert_eq!((c.timeout_ms, c.thresholds.effort), (800, 0.5));
        assert!(LlmConfig::from_toml("modle = \"x\"").is_err());
        let bad = LlmConfig {
            url: "127.0.0.1".into(),
            ..LlmConfig::default()
        };
        assert!(bad.validate().is_err());
    }
}
