//! [`Client`]: the async model client. One call: the cache, the budget,
//! then (under the whole-call timeout, within the bound on calls in
//! flight) one request to Ollama's `/api/chat` or an OpenAI-compatible
//! `/v1/chat/completions` asking for a JSON object whose `label` is one
//! of the task's labels. Every failure is an [`Error`] and a `tracing`
//! warning, given once per kind of failure (later ones at debug level).

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use lru::LruCache;
use serde_json::{Value, json};
use tact_classifiers::escalation::LabelRequest;

use crate::config::{Backend, LlmConfig};
use crate::error::{Error, FailureKind, Result};
use crate::parse::{cut, parse_answer};

/// Largest answer body read (larger is malformed).
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// Most latencies kept by [`Stats`] (later calls are counted, not timed).
const MAX_LATENCIES: usize = 1 << 16;

/// A model's answer to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Answer {
    /// The label's index in the request's labels.
    pub label: usize,
    /// The model's reason, if it gave one.
    pub reason: Option<String>,
    /// The model asked.
    pub model: String,
    /// Whether the answer came from the cache.
    pub cached: bool,
}

/// What a client did so far (for `cargo xtask eval` and hosts' metrics).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Stats {
    /// Requests asked of the client (cache hits included).
    pub requests: u64,
    /// Answers taken from the cache.
    pub cache_hits: u64,
    /// Usable answers from the server.
    pub answered: u64,
    /// Failures, of every kind.
    pub failures: u64,
    /// Failures per kind (kinds that occurred), in [`FailureKind::ALL`] order.
    pub failures_by_kind: Vec<(FailureKind, u64)>,
    /// The time of each call sent to the server (answered or failed), in
    /// nanoseconds, in call order (the first 65,536).
    pub latencies_ns: Vec<u64>,
}

#[derive(Default)]
struct Tally {
    requests: u64,
    cache_hits: u64,
    answered: u64,
    failures: [u64; FailureKind::ALL.len()],
    latencies_ns: Vec<u64>,
}

type Cache = Mutex<LruCache<String, (usize, Option<String>)>>;

/// The async model client; share it (`Arc`) across tasks.
pub struct Client {
    http: reqwest::Client,
    config: LlmConfig,
    endpoint: String,
    permits: tokio::sync::Semaphore,
    cache: Option<Cache>,
    sent: AtomicU64,
    warned: [AtomicBool; FailureKind::ALL.len()],
    tally: Mutex<Tally>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("backend", &self.config.backend)
            .field("endpoint", &self.endpoint)
            .field("model", &self.config.model)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client for `config` (validated). Building needs no runtime; calls
    /// need a tokio runtime with time and I/O enabled.
    pub fn new(config: LlmConfig) -> Result<Self> {
        config.validate()?;
        let timeout = config.timeout();
        let connect = Duration::from_millis(config.connect_timeout_ms).min(timeout);
        let mut http = reqwest::Client::builder()
            .connect_timeout(connect)
            .timeout(timeout)
            .user_agent(concat!("tact-llm/", env!("CARGO_PKG_VERSION")));
        if is_loopback(&config.url) {
            // A proxy from the environment must not swallow loopback calls.
            http = http.no_proxy();
        }
        let http = http.build().map_err(|e| Error::Runtime {
            message: format!("cannot build the HTTP client: {e}"),
        })?;
        let base = config.url.trim_end_matches('/');
        let endpoint = match config.backend {
            Backend::Ollama => format!("{base}/api/chat"),
            Backend::Openai if base.ends_with("/v1") => format!("{base}/chat/completions"),
            Backend::Openai => format!("{base}/v1/chat/completions"),
        };
        let cache = NonZeroUsize::new(config.cache_size).map(|n| Mutex::new(LruCache::new(n)));
        Ok(Self {
            http,
            permits: tokio::sync::Semaphore::new(config.max_in_flight),
            endpoint,
            cache,
            sent: AtomicU64::new(0),
            warned: Default::default(),
            tally: Mutex::new(Tally::default()),
            config,
        })
    }

    /// The settings in use.
    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    /// The URL every call goes to.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// What the client did so far.
    pub fn stats(&self) -> Stats {
        let t = self.tally.lock().unwrap_or_else(PoisonError::into_inner);
        Stats {
            requests: t.requests,
            cache_hits: t.cache_hits,
            answered: t.answered,
            failures: t.failures.iter().sum(),
            failures_by_kind: FailureKind::ALL
                .iter()
                .zip(t.failures)
                .filter(|(_, n)| *n > 0)
                .map(|(k, n)| (*k, n))
                .collect(),
            latencies_ns: t.latencies_ns.clone(),
        }
    }

    /// Asks the model which of `request.labels` fits `request.prompt`:
    /// from the cache when the same model was asked the same prompt, else
    /// one call within the whole-call timeout. A failure is returned (and
    /// warned about once per kind); the caller keeps its cheaper answer.
    pub async fn classify(&self, request: &LabelRequest<'_>) -> Result<Answer> {
        self.count(|t| t.requests += 1);
        let Some(model) = request
            .model
            .or(self.config.model.as_deref())
            .filter(|m| !m.trim().is_empty())
        else {
            return Err(self.failed(Error::NoModel));
        };
        let key = self.cache.as_ref().map(|_| {
            let mut k =
                String::with_capacity(model.len() + request.task.len() + request.prompt.len() + 2);
            k.push_str(model);
            k.push('\0');
            k.push_str(request.task);
            k.push('\0');
            k.push_str(request.prompt);
            k
        });
        if let (Some(cache), Some(key)) = (&self.cache, &key) {
            let hit = cache
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(key)
                .cloned();
            if let Some((label, reason)) = hit.filter(|(l, _)| *l < request.labels.len()) {
                self.count(|t| t.cache_hits += 1);
                return Ok(Answer {
                    label,
                    reason,
                    model: model.to_owned(),
                    cached: true,
                });
            }
        }
        if let Some(budget) = self.config.budget {
            if self.sent.fetch_add(1, Ordering::Relaxed) >= budget {
                return Err(self.failed(Error::Budget { budget }));
            }
        }
        let started = Instant::now();
        let result = tokio::time::timeout(self.config.timeout(), self.call(model, request))
            .await
            .unwrap_or(Err(Error::Timeout {
                timeout_ms: self.config.timeout_ms,
            }));
        let elapsed = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.count(|t| {
            if t.latencies_ns.len() < MAX_LATENCIES {
                t.latencies_ns.push(elapsed);
            }
        });
        match result {
            Ok((label, reason)) => {
                self.count(|t| t.answered += 1);
                if let (Some(cache), Some(key)) = (&self.cache, key) {
                    cache
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .put(key, (label, reason.clone()));
                }
                Ok(Answer {
                    label,
                    reason,
                    model: model.to_owned(),
                    cached: false,
                })
            }
            Err(e) => Err(self.failed(e)),
        }
    }

    /// Checks that the server answers, within the whole-call timeout: Ollama's
    /// `GET /api/version`, an OpenAI-compatible server's `GET /v1/models`.
    /// A failure is returned, not logged (the caller says it once).
    pub async fn probe(&self) -> Result<()> {
        let url = match self.config.backend {
            Backend::Ollama => self.endpoint.replacen("/api/chat", "/api/version", 1),
            Backend::Openai => self.endpoint.replacen("/chat/completions", "/models", 1),
        };
        let call = async {
            let r = self
                .http
                .get(&url)
                .send()
                .await
                .map_err(|e| self.transport(&e, &url))?;
            match r.status() {
                s if s.is_success() => Ok(()),
                s => Err(Error::Http { status: s.as_u16() }),
            }
        };
        tokio::time::timeout(self.config.timeout(), call)
            .await
            .unwrap_or(Err(Error::Timeout {
                timeout_ms: self.config.timeout_ms,
            }))
    }

    /// One request: a permit, the POST, the body (at most
    /// [`MAX_BODY_BYTES`]), the answer's label.
    async fn call(
        &self,
        model: &str,
        request: &LabelRequest<'_>,
    ) -> Result<(usize, Option<String>)> {
        let _permit = self.permits.acquire().await.map_err(|e| Error::Runtime {
            message: e.to_string(),
        })?;
        let body = self.body(model, request);
        let mut response = self
            .http
            .post(&self.endpoint)
            .json(&body)
            .send()
            .await
            .map_err(|e| self.transport(&e, &self.endpoint))?;
        let status = response.status();
        if !status.is_success() {
            return Err(Error::Http {
                status: status.as_u16(),
            });
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| self.transport(&e, &self.endpoint))?
        {
            if bytes.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(Error::Malformed {
                    message: format!("an answer of more than {MAX_BODY_BYTES} bytes"),
                });
            }
            bytes.extend_from_slice(&chunk);
        }
        let v: Value = serde_json::from_slice(&bytes).map_err(|e| Error::Malformed {
            message: format!(
                "not JSON ({e}): {:?}",
                cut(&String::from_utf8_lossy(&bytes), 80)
            ),
        })?;
        let content = match self.config.backend {
            Backend::Ollama => v.pointer("/message/content"),
            Backend::Openai => v.pointer("/choices/0/message/content"),
        }
        .and_then(Value::as_str)
        .ok_or_else(|| Error::Malformed {
            message: format!(
                "no {} in the answer",
                match self.config.backend {
                    Backend::Ollama => "message.content",
                    Backend::Openai => "choices[0].message.content",
                }
            ),
        })?;
        parse_answer(content, request.labels)
    }

    /// The request body of the backend: the prompt as one user message,
    /// temperature 0, the answer's JSON schema.
    fn body(&self, model: &str, request: &LabelRequest<'_>) -> Value {
        let schema = json!({
            "type": "object",
            "properties": {
                "label": {"type": "string", "enum": request.labels},
                "reason": {"type": "string"},
            },
            "required": ["label"],
        });
        let messages = json!([{"role": "user", "content": request.prompt}]);
        match self.config.backend {
            Backend::Ollama => {
                let mut body = json!({
                    "model": model,
                    "messages": messages,
                    "stream": false,
                    "options": {"temperature": 0},
                    "keep_alive": self.config.keep_alive,
                });
                if self.config.structured {
                    body["format"] = schema;
                }
                body
            }
            Backend::Openai => {
                let mut body = json!({
                    "model": model,
                    "messages": messages,
                    "stream": false,
                    "temperature": 0,
                });
                if self.config.structured {
                    body["response_format"] = json!({
                        "type": "json_schema",
                        "json_schema": {"name": "classification", "schema": schema},
                    });
                }
                body
            }
        }
    }

    fn transport(&self, e: &reqwest::Error, url: &str) -> Error {
        if e.is_timeout() {
            Error::Timeout {
                timeout_ms: self.config.timeout_ms,
            }
        } else {
            // The innermost cause says why (refused, unknown host...).
            let mut message = e.to_string();
            let mut source = std::error::Error::source(e);
            while let Some(s) = source {
                message = s.to_string();
                source = s.source();
            }
            Error::Connect {
                url: url.to_owned(),
                message,
            }
        }
    }

    /// Counts and reports a failure: a warning the first time its kind
    /// occurs, debug afterwards.
    pub(crate) fn failed(&self, e: Error) -> Error {
        let kind = e.kind();
        self.count(|t| t.failures[kind.index()] += 1);
        let first = !self.warned[kind.index()].swap(true, Ordering::Relaxed);
        if first {
            tracing::warn!(
                target: "tact::llm",
                kind = kind.as_str(),
                error = %e,
                "model call failed; keeping the cheaper tiers' decision (further {} failures are logged at debug level)",
                kind.as_str()
            );
        } else {
            tracing::debug!(target: "tact::llm", kind = kind.as_str(), error = %e, "model call failed");
        }
        e
    }

    fn count(&self, f: impl FnOnce(&mut Tally)) {
        f(&mut self.tally.lock().unwrap_or_else(PoisonError::into_inner));
    }
}

/// Whether the URL's host is a loopback address or `localhost`.
fn is_loopback(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?']).next().unwrap_or_default();
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = if let Some(v6) = host.strip_prefix('[') {
        v6.split(']').next().unwrap_or_default()
    } else {
        host.split(':').next().unwrap_or_default()
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_are_recognised() {
        for url in [
            "http://127.0.0.1:11434",
            "http://localhost",
            "http://[::1]:8080/v1",
            "http://u:p@127.0.0.2/",
        ] {
            assert!(is_loopback(url), "{url}");
        }
        for url in ["http://10.0.0.1:11434", "https://ollama.example"] {
            assert!(!is_loopback(url), "{url}");
        }
    }

    #[test]
    fn endpoints_follow_the_backend() {
        let mut c = LlmConfig::default();
        assert_eq!(
            Client::new(c.clone()).unwrap().endpoint(),
            "http://127.0.0.1:11434/api/chat"
        );
        c.backend = Backend::Openai;
        c.url = "http://127.0.0.1:8080/v1/".into();
        assert_eq!(
            Client::new(c.clone()).unwrap().endpoint(),
            "http://127.0.0.1:8080/v1/chat/completions"
        );
        c.url = "http://127.0.0.1:8080".into();
        assert_eq!(
            Client::new(c).unwrap().endpoint(),
            "http://127.0.0.1:8080/v1/chat/completions"
        );
    }
}
