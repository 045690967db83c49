//! [`LlmConfig`]: the model tier's settings as the ecosystem has them: the
//! `[llm]` table of `tact.toml`, then the environment (`OLLAMA_HOST`,
//! `OLLAMA_MODEL_NAME`, `OLLAMA_MODEL_NAME_CONVERSATIONAL`, then tact's own
//! `TACT_LLM_BACKEND`, `TACT_LLM_URL`, `TACT_LLM_MODEL`,
//! `TACT_LLM_TIMEOUT_MS`), then a host's or the command line's overrides
//! ([`Overrides`]), each over the one before. [`LlmConfig::load`] is the
//! one function every command builds its settings with.

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tact_classifiers::learned::Task;

use crate::error::{Error, Result};

/// Ollama's default address (`OLLAMA_HOST` unset).
pub const DEFAULT_URL: &str = "http://127.0.0.1:11434";

/// The default whole-call timeout (the guidance spec's 500 ms).
pub const DEFAULT_TIMEOUT_MS: u64 = 500;

/// The file whose `[llm]` table is read when no `--config` is given, in
/// the current directory.
pub const DEFAULT_CONFIG_FILE: &str = "tact.toml";

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
    #[serde(alias = "llama-cpp", alias = "vllm", alias = "lmstudio")]
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

    /// Reads a backend's name (`ollama`, or `openai` and the servers that
    /// speak its API: `llama-cpp`, `llama.cpp`, `vllm`, `lmstudio`), in any
    /// case.
    pub fn parse(name: &str) -> Result<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "ollama" => Ok(Backend::Ollama),
            "openai" | "llama-cpp" | "llama.cpp" | "llamacpp" | "llama-server" | "vllm"
            | "lmstudio" | "lm-studio" => Ok(Backend::Openai),
            _ => Err(Error::Config {
                key: "backend",
                value: name.to_owned(),
                expected: "ollama or openai (llama.cpp, vLLM, LM Studio)",
            }),
        }
    }
}

/// What a host's or the command line's flags set, over the file and the
/// environment (`--llm-backend`, `--llm-url`, `--llm-model`,
/// `--llm-timeout-ms`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Overrides {
    /// The backend (`--llm-backend`).
    pub backend: Option<Backend>,
    /// The server's URL (`--llm-url`).
    pub url: Option<String>,
    /// The model (`--llm-model`).
    pub model: Option<String>,
    /// The whole-call timeout in milliseconds (`--llm-timeout-ms`).
    pub timeout_ms: Option<u64>,
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
    /// Most tokens an answer may take (`max_tokens`, Ollama's
    /// `num_predict`): a label and a short reason need far fewer; a model
    /// that never closes its JSON is stopped there.
    pub max_tokens: u32,
    /// After this many failed calls in a row (timeouts, refusals, HTTP
    /// errors), the tier stops asking for `breaker_cooldown_ms` (calls
    /// fail at once), then lets one call probe the server again.
    pub breaker_failures: u32,
    /// How long the tier stops asking once the breaker opens.
    pub breaker_cooldown_ms: u64,
    /// The most wall time, in milliseconds, the model tier of one client
    /// (one `tact` command) may spend, counted from its first call; past
    /// it, calls fail at once. 0: no limit.
    pub run_budget_ms: u64,
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
            max_tokens: 128,
            breaker_failures: 3,
            breaker_cooldown_ms: 30_000,
            run_budget_ms: 60_000,
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

    /// The `[llm]` table of a whole configuration document (`tact.toml`:
    /// its other tables are not read here); `None` when it has none.
    pub fn from_document(text: &str) -> Result<Option<Self>> {
        let doc: toml::Table = toml::from_str(text).map_err(|e| Error::Config {
            key: "[llm]",
            value: e.to_string(),
            expected: "a TOML document",
        })?;
        match doc.get("llm") {
            None => Ok(None),
            Some(t) => t.clone().try_into().map(Some).map_err(|e| Error::Config {
                key: "[llm]",
                value: e.to_string(),
                expected: "the keys of docs/configuration.md",
            }),
        }
    }

    /// The settings every command with a model tier uses, built one way:
    /// the `[llm]` table of `file` (else of `./tact.toml` when there is
    /// one), then the environment from `env` ([`try_with_env`](Self::try_with_env)),
    /// then `overrides`, validated. A missing `file` is an error; a
    /// missing `./tact.toml` is not.
    pub fn load(
        file: Option<&Path>,
        env: &dyn Fn(&str) -> Option<String>,
        overrides: &Overrides,
    ) -> Result<Self> {
        let path = match file {
            Some(p) => Some(p.to_owned()),
            None => Some(Path::new(DEFAULT_CONFIG_FILE).to_owned()).filter(|p| p.is_file()),
        };
        let table = match path {
            Some(p) => {
                let text = read_config(&p).map_err(|e| Error::Config {
                    key: "--config",
                    value: format!("{}: {e}", p.display()),
                    expected: "a readable TOML file",
                })?;
                Self::from_document(&text)?
            }
            None => None,
        };
        table.unwrap_or_default().resolve(env, overrides)
    }

    /// The environment from `env` then `overrides` over these settings,
    /// validated (what [`load`](Self::load) does after reading the file).
    pub fn resolve(
        self,
        env: &dyn Fn(&str) -> Option<String>,
        overrides: &Overrides,
    ) -> Result<Self> {
        let mut c = self.try_with_env(env)?;
        if let Some(b) = overrides.backend {
            c.backend = b;
        }
        if let Some(url) = &overrides.url {
            c.url.clone_from(url);
        }
        if let Some(m) = &overrides.model {
            c.model = Some(m.clone());
        }
        if let Some(t) = overrides.timeout_ms {
            c.timeout_ms = t;
        }
        c.validate()?;
        Ok(c)
    }

    /// The settings of the process environment over these (see
    /// [`with_env`](Self::with_env)).
    pub fn with_process_env(self) -> Self {
        self.with_env(|k| std::env::var(k).ok())
    }

    /// The environment from `lookup` over these settings, ignoring what
    /// does not read (see [`try_with_env`](Self::try_with_env)).
    pub fn with_env(self, lookup: impl Fn(&str) -> Option<String>) -> Self {
        let fallback = self.clone();
        self.try_with_env(&lookup).unwrap_or(fallback)
    }

    /// `OLLAMA_HOST`, `OLLAMA_MODEL_NAME` and
    /// `OLLAMA_MODEL_NAME_CONVERSATIONAL`, then `TACT_LLM_BACKEND`,
    /// `TACT_LLM_URL`, `TACT_LLM_MODEL` and `TACT_LLM_TIMEOUT_MS` (over the
    /// Ollama ones), from `lookup` over these settings. Blank values are
    /// ignored; a backend or timeout that does not read is an error.
    pub fn try_with_env(mut self, lookup: &dyn Fn(&str) -> Option<String>) -> Result<Self> {
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
        if let Some(b) = get("TACT_LLM_BACKEND") {
            self.backend = Backend::parse(&b)?;
        }
        if let Some(url) = get("TACT_LLM_URL") {
            self.url = url.trim().trim_end_matches('/').to_owned();
        }
        if let Some(m) = get("TACT_LLM_MODEL") {
            self.model = Some(m);
        }
        if let Some(t) = get("TACT_LLM_TIMEOUT_MS") {
            self.timeout_ms = t.trim().parse().map_err(|_| Error::Config {
                key: "TACT_LLM_TIMEOUT_MS",
                value: t.clone(),
                expected: "a whole number of milliseconds",
            })?;
        }
        Ok(self)
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
        if self.max_tokens == 0 {
            return bad("max_tokens", "0".into(), "at least 1 token");
        }
        if self.breaker_failures == 0 {
            return bad("breaker_failures", "0".into(), "at least 1 failure");
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

/// The most bytes of a configuration file read: 16 MiB.
const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// The text of the configuration file at `path`: a regular file (a FIFO
/// or a device is refused by its type, never opened) of at most
/// [`MAX_CONFIG_BYTES`].
fn read_config(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    if !std::fs::metadata(path)?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(MAX_CONFIG_BYTES + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_CONFIG_BYTES {
        return Err(std::io::Error::other(format!(
            "more than {MAX_CONFIG_BYTES} bytes (the limit)"
        )));
    }
    Ok(text)
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

    #[test]
    fn tact_variables_go_over_ollama_ones_and_flags_over_both() {
        let env = |k: &str| match k {
            "OLLAMA_HOST" => Some("localhost:9999".to_owned()),
            "OLLAMA_MODEL_NAME" => Some("qwen".to_owned()),
            "TACT_LLM_BACKEND" => Some("llama-cpp".to_owned()),
            "TACT_LLM_URL" => Some("http://127.0.0.1:8080/".to_owned()),
            "TACT_LLM_TIMEOUT_MS" => Some("20000".to_owned()),
            _ => None,
        };
        let file = LlmConfig::from_document(
            "[ppp]\nnormalize = \"linear\"\n[llm]\nmodel = \"big\"\nmax_tokens = 64\n",
        )
        .unwrap()
        .unwrap();
        let c = file.clone().resolve(&env, &Overrides::default()).unwrap();
        assert_eq!(c.backend, Backend::Openai);
        assert_eq!(c.url, "http://127.0.0.1:8080");
        assert_eq!(
            (c.model.as_deref(), c.timeout_ms, c.max_tokens),
            (Some("qwen"), 20_000, 64)
        );
        let o = Overrides {
            backend: Some(Backend::Ollama),
            model: Some("flag".into()),
            timeout_ms: Some(900),
            ..Overrides::default()
        };
        let c = file.resolve(&env, &o).unwrap();
        assert_eq!(
            (c.backend, c.model.as_deref(), c.timeout_ms),
            (Backend::Ollama, Some("flag"), 900)
        );
        // What does not read is an error, not a silent default.
        let bad = |k: &str| (k == "TACT_LLM_TIMEOUT_MS").then(|| "soon".to_owned());
        assert!(
            LlmConfig::default()
                .resolve(&bad, &Overrides::default())
                .is_err()
        );
        let bad = |k: &str| (k == "TACT_LLM_BACKEND").then(|| "gpt".to_owned());
        assert!(
            LlmConfig::default()
                .resolve(&bad, &Overrides::default())
                .is_err()
        );
        assert_eq!(LlmConfig::from_document("[ppp]\n").unwrap(), None);
        assert!(LlmConfig::from_document("[llm]\nmodle = 1\n").is_err());
        // A named file that is missing is an error.
        let none = |_: &str| -> Option<String> { None };
        let missing = Path::new("/nonexistent/tact.toml");
        assert!(LlmConfig::load(Some(missing), &none, &Overrides::default()).is_err());
    }
}
