//! tact's model-backed tier: a local LLM (Ollama, or an OpenAI-compatible
//! server such as llama.cpp's, vLLM or LM Studio) asked about what the
//! cheaper tiers leave unsure, behind strict limits, failing open.
//!
//! ```
//! use tact_classifiers::effort::EffortClassifier;
//! use tact_classifiers::learned::Task;
//! use tact_llm::{Llm, LlmConfig};
//!
//! // `[llm]` of tact.toml, then OLLAMA_HOST / OLLAMA_MODEL_NAME(_CONVERSATIONAL).
//! let mut config = LlmConfig::default().with_process_env();
//! config.url = "http://127.0.0.1:9".into(); // nothing listens here
//! config.model = Some("qwen2.5:3b".into());
//! let llm = Llm::new(config)?;
//! let c = EffortClassifier::builder().escalation(llm.escalation(Task::Effort)).build()?;
//! // Unsure decisions are put to the model; with no server, the cheaper
//! // tiers' decision stands (and one warning is logged).
//! let r = c.classify("What do you think about the retry policy?", None);
//! assert!(r.confidence > 0.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! - [`Client`] (async, tokio and reqwest): Ollama's `POST /api/chat`
//!   (`stream: false`, `options.temperature: 0`, `num_predict`,
//!   `keep_alive`) or the OpenAI-compatible `POST /v1/chat/completions`
//!   (`max_tokens`). The answer is an object with a required `label` (an
//!   enum of the task's labels) and an optional, bounded `reason`, asked
//!   for in the structured form the server takes ([`Dialect`]: Ollama's
//!   `format`, OpenAI `json_schema`, llama-cpp-python's `json_object` with
//!   `schema`, vLLM's `guided_json`, a llama.cpp GBNF `grammar`, or JSON in
//!   prose), found by stepping down once per refusal and remembered. The
//!   answer is read leniently (a `<think>` preamble, prose, a fenced block,
//!   raw control characters in strings, a trailing comma, case).
//! - Limits: a connect timeout and a whole-call timeout (500 ms by
//!   default; a call abandoned there closes its connection), a bound on
//!   calls in flight, a small LRU cache keyed by model and prompt, an
//!   optional call budget, a circuit breaker and a per-run wall-time
//!   budget; no redirect is followed. Every failure (refused, timeout, HTTP
//!   error, malformed or off-schema answer, budget spent, breaker open) is
//!   an [`Error`] the tiers turn into the cheaper answer, with a `tracing`
//!   warning once per kind of failure (target `tact::llm`), given on the
//!   caller's thread.
//! - [`Llm`]: the blocking handle (its own runtime; safe outside a runtime,
//!   and from inside one it only blocks the calling thread for at most the
//!   timeout). It implements the text classifiers' `LabelModel`
//!   ([`Llm::escalation`]) and routing's `RouteModel`; [`LlmJudge`] is a
//!   scoring `Judge`, [`LlmGuidanceClassifier`] a guidance `LlmClassifier`.
//! - [`LlmConfig`]: the `[llm]` table of `tact.toml`, the environment
//!   (`OLLAMA_*`, `TACT_LLM_*`) and a command's [`Overrides`], built by
//!   [`LlmConfig::load`] for every command.

mod adapters;
mod blocking;
mod client;
mod config;
mod dialect;
mod error;
mod parse;

pub use adapters::{LlmGuidanceClassifier, LlmJudge};
pub use blocking::Llm;
pub use client::{Answer, Client, MAX_BODY_BYTES, Stats};
pub use config::{
    Backend, DEFAULT_CONFIG_FILE, DEFAULT_TIMEOUT_MS, DEFAULT_URL, LlmConfig, Overrides, Thresholds,
};
pub use dialect::{Dialect, MAX_REASON_CHARS};
pub use error::{Error, FailureKind, Result};
