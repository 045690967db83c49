//! [`Client`]: the async model client. One call: the cache, the budgets,
//! the circuit breaker, then (under the whole-call timeout, within the
//! bound on calls in flight) one request to Ollama's `/api/chat` or an
//! OpenAI-compatible `/v1/chat/completions` asking for a JSON object whose
//! `label` is one of the task's labels, in the structured form the server
//! takes ([`Dialect`], found once and remembered), with the answer's
//! length bounded (`max_tokens` / `num_predict`). A call abandoned at the
//! timeout drops its connection, so a server that watches for it can stop
//! generating. Every failure is an [`Error`] and a `tracing` warning,
//! given once per kind of failure (later ones at debug level); the
//! blocking [`crate::Llm`] gives them on the caller's thread, never on the
//! runtime's worker.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use lru::LruCache;
use serde_json::{Value, json};
use tact_classifiers::escalation::LabelRequest;

use crate::config::{Backend, LlmConfig};
use crate::dialect::{self, Dialect, MAX_REASON_CHARS};
use crate::error::{Error, FailureKind, Result};
use crate::parse::{cut, parse_answer, printable};

/// Largest answer body read (larger is malformed).
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// Most latencies kept by [`Stats`] (later calls are counted, not timed).
const MAX_LATENCIES: usize = 1 << 16;

/// Most bytes of an error answer read (to find the field a refusal names).
const MAX_ERROR_BYTES: usize = 16 << 10;

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
    /// The structured form the server takes (the one in use now).
    pub dialect: Option<Dialect>,
    /// Forms the server refused (each costs one extra request, once).
    pub refusals: u64,
}

#[derive(Default)]
struct Tally {
    requests: u64,
    cache_hits: u64,
    answered: u64,
    failures: [u64; FailureKind::ALL.len()],
    latencies_ns: Vec<u64>,
    refusals: u64,
}

type Cache = Mutex<LruCache<String, (usize, Option<String>)>>;

/// The circuit breaker: failures in a row, and until when it is open.
#[derive(Default)]
struct Breaker {
    in_a_row: AtomicU32,
    open_until: Mutex<Option<Instant>>,
    /// A call is probing the server after the cool-down.
    probing: AtomicBool,
}

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
    ladder: &'static [Dialect],
    /// The index of the form in use in `ladder`.
    step: AtomicUsize,
    /// The server is vLLM (its `json_object` ignores the schema).
    vllm: AtomicBool,
    breaker: Breaker,
    first_call: OnceLock<Instant>,
    /// What the client has to say at info level, said by the caller's
    /// thread ([`Client::flush_notes`]), never on the runtime's worker.
    notes: Mutex<Vec<String>>,
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

/// What one attempt settled: the answer or the failure, not yet counted
/// as a failure nor logged.
pub(crate) type Attempt = Result<Answer>;

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
            // A redirect is an answer of its own (an HTTP error): a POST
            // is never turned into a GET to somewhere else.
            .redirect(reqwest::redirect::Policy::none())
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
            ladder: dialect::ladder(config.backend, config.structured),
            step: AtomicUsize::new(0),
            vllm: AtomicBool::new(false),
            breaker: Breaker::default(),
            first_call: OnceLock::new(),
            notes: Mutex::new(Vec::new()),
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

    /// The structured form the next call asks with.
    pub fn dialect(&self) -> Dialect {
        let i = self.step.load(Ordering::Relaxed);
        self.ladder
            .get(i)
            .or(self.ladder.last())
            .copied()
            .unwrap_or(Dialect::Prose)
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
            dialect: Some(self.dialect()),
            refusals: t.refusals,
        }
    }

    /// Asks the model which of `request.labels` fits `request.prompt`:
    /// from the cache when the same model was asked the same prompt, else
    /// one call within the whole-call timeout. A failure is returned (and
    /// warned about once per kind); the caller keeps its cheaper answer.
    pub async fn classify(&self, request: &LabelRequest<'_>) -> Result<Answer> {
        let r = self.attempt(request).await;
        self.flush_notes();
        r.map_err(|e| self.failed(e))
    }

    /// One request, its failure neither counted nor logged (the caller
    /// settles it: [`Client::classify`], or the blocking handle on its
    /// own thread).
    pub(crate) async fn attempt(&self, request: &LabelRequest<'_>) -> Attempt {
        self.count(|t| t.requests += 1);
        let Some(model) = request
            .model
            .or(self.config.model.as_deref())
            .filter(|m| !m.trim().is_empty())
        else {
            return Err(Error::NoModel);
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
                return Err(Error::Budget { budget });
            }
        }
        let timeout = self.time_left()?;
        let probing = self.breaker_admits()?;
        let started = Instant::now();
        let result = tokio::time::timeout(timeout, self.call(model, request))
            .await
            .unwrap_or(Err(Error::Timeout {
                timeout_ms: duration_ms(timeout),
            }));
        let elapsed = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.count(|t| {
            if t.latencies_ns.len() < MAX_LATENCIES {
                t.latencies_ns.push(elapsed);
            }
        });
        self.breaker_settles(&result, probing);
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
            Err(e) => Err(e),
        }
    }

    /// The time this call may take: the whole-call timeout, or less when
    /// the run's wall-time budget is nearly spent (an error when spent).
    fn time_left(&self) -> Result<Duration> {
        let timeout = self.config.timeout();
        if self.config.run_budget_ms == 0 {
            return Ok(timeout);
        }
        let budget = Duration::from_millis(self.config.run_budget_ms);
        let spent = self.first_call.get_or_init(Instant::now).elapsed();
        match budget.checked_sub(spent) {
            Some(left) if !left.is_zero() => Ok(timeout.min(left)),
            _ => Err(Error::Unavailable {
                reason: format!(
                    "the run's model time ({} ms, run_budget_ms) is spent",
                    self.config.run_budget_ms
                ),
            }),
        }
    }

    /// Whether the breaker lets a call through: closed, or open past its
    /// cool-down with no other call probing (then this call probes:
    /// `Ok(true)`). Open: an error at once.
    fn breaker_admits(&self) -> Result<bool> {
        let until = *self
            .breaker
            .open_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let Some(until) = until else {
            return Ok(false);
        };
        let open = || Error::Unavailable {
            reason: format!(
                "the circuit breaker is open after {} failed calls in a row (breaker_cooldown_ms {})",
                self.config.breaker_failures, self.config.breaker_cooldown_ms
            ),
        };
        if Instant::now() < until || self.breaker.probing.swap(true, Ordering::AcqRel) {
            return Err(open());
        }
        Ok(true)
    }

    /// Counts a call's outcome in the breaker: an answer from the server
    /// (even a malformed one) closes it; a timeout, a refused connection
    /// or an HTTP error counts, and the `breaker_failures`-th in a row (or
    /// a failed probe) opens it for the cool-down.
    fn breaker_settles(&self, result: &Result<(usize, Option<String>)>, probing: bool) {
        let failed = matches!(
            result,
            Err(Error::Timeout { .. } | Error::Connect { .. } | Error::Http { .. })
        );
        let b = &self.breaker;
        if !failed {
            b.in_a_row.store(0, Ordering::Relaxed);
            *b.open_until.lock().unwrap_or_else(PoisonError::into_inner) = None;
        } else {
            let n = b.in_a_row.fetch_add(1, Ordering::Relaxed) + 1;
            if probing || n >= self.config.breaker_failures {
                let cooldown = Duration::from_millis(self.config.breaker_cooldown_ms);
                *b.open_until.lock().unwrap_or_else(PoisonError::into_inner) =
                    Some(Instant::now() + cooldown);
                self.note(format!(
                    "the model server failed {n} calls in a row; not asking it for {} ms",
                    self.config.breaker_cooldown_ms
                ));
            }
        }
        if probing {
            b.probing.store(false, Ordering::Release);
        }
    }

    /// Checks that the server answers, within the whole-call timeout: Ollama's
    /// `GET /api/version`, an OpenAI-compatible server's `GET /v1/models`
    /// (a vLLM server, known by its models' `owned_by`, is then asked
    /// with `guided_json` when it refuses `json_schema`). A failure is
    /// returned, not logged (the caller says it once).
    pub async fn probe(&self) -> Result<()> {
        let url = match self.config.backend {
            Backend::Ollama => self.endpoint.replacen("/api/chat", "/api/version", 1),
            Backend::Openai => self.endpoint.replacen("/chat/completions", "/models", 1),
        };
        let call = async {
            let mut r = self
                .http
                .get(&url)
                .send()
                .await
                .map_err(|e| self.transport(&e, &url))?;
            let status = r.status();
            let body = read_bounded(&mut r, MAX_ERROR_BYTES)
                .await
                .unwrap_or_default();
            let body = String::from_utf8_lossy(&body);
            if !status.is_success() {
                return Err(Error::Http {
                    status: status.as_u16(),
                    detail: cut(&printable(&body), 200),
                });
            }
            let owner = serde_json::from_str::<Value>(&body)
                .ok()
                .and_then(|v| v.pointer("/data/0/owned_by").cloned());
            if owner.as_ref().and_then(Value::as_str) == Some("vllm") {
                self.vllm.store(true, Ordering::Relaxed);
            }
            Ok(())
        };
        tokio::time::timeout(self.config.timeout(), call)
            .await
            .unwrap_or(Err(Error::Timeout {
                timeout_ms: self.config.timeout_ms,
            }))
    }

    /// One request: a permit, the POST in the form in use (stepping down
    /// the ladder once per form the server refuses), the body (at most
    /// [`MAX_BODY_BYTES`]), the answer's label.
    async fn call(
        &self,
        model: &str,
        request: &LabelRequest<'_>,
    ) -> Result<(usize, Option<String>)> {
        let _permit = self.permits.acquire().await.map_err(|e| Error::Runtime {
            message: e.to_string(),
        })?;
        let schema = dialect::schema(request.labels);
        let mut tries = 0;
        let mut response = loop {
            tries += 1;
            let step = self.step.load(Ordering::Relaxed).min(self.ladder.len() - 1);
            let form = self.ladder.get(step).copied().unwrap_or(Dialect::Prose);
            let body = self.body(model, request, form, &schema);
            let mut response = self
                .http
                .post(&self.endpoint)
                .json(&body)
                .send()
                .await
                .map_err(|e| self.transport(&e, &self.endpoint))?;
            let status = response.status();
            if status.is_success() {
                break response;
            }
            let text = read_bounded(&mut response, MAX_ERROR_BYTES)
                .await
                .unwrap_or_default();
            let text = String::from_utf8_lossy(&text);
            let refused = dialect::refuses(form, status.as_u16(), &text);
            if !refused || self.next_step(step) >= self.ladder.len() || tries > self.ladder.len() {
                return Err(Error::Http {
                    status: status.as_u16(),
                    detail: cut(&printable(&text), 200),
                });
            }
            if dialect::is_vllm_error(&text) {
                self.vllm.store(true, Ordering::Relaxed);
            }
            let next = self.next_step(step);
            if self
                .step
                .compare_exchange(step, next, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                self.count(|t| t.refusals += 1);
                let to = self.ladder.get(next).copied().unwrap_or(Dialect::Prose);
                self.note(format!(
                    "the model server refused {} (HTTP {}); asking with {} from now on",
                    form.as_str(),
                    status.as_u16(),
                    to.as_str()
                ));
            }
        };
        let bytes = read_bounded(&mut response, MAX_BODY_BYTES)
            .await
            .map_err(|e| match e {
                ReadError::TooLarge => Error::Malformed {
                    message: format!("an answer of more than {MAX_BODY_BYTES} bytes"),
                },
                ReadError::Transport(e) => self.transport(&e, &self.endpoint),
            })?;
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

    /// The ladder's next step after `step` that this server may take.
    fn next_step(&self, step: usize) -> usize {
        let vllm = self.vllm.load(Ordering::Relaxed);
        (step + 1..self.ladder.len())
            .find(|&i| {
                self.ladder
                    .get(i)
                    .is_some_and(|d| dialect::allowed(*d, vllm))
            })
            .unwrap_or(self.ladder.len())
    }

    /// The request body of the backend in `form`: the prompt as one user
    /// message (with the answer's shape and the reason's limit said),
    /// temperature 0, at most `max_tokens` tokens.
    fn body(
        &self,
        model: &str,
        request: &LabelRequest<'_>,
        form: Dialect,
        schema: &Value,
    ) -> Value {
        let prompt = format!(
            "{}\n\nReply with the JSON object only; keep the reason under 20 words ({MAX_REASON_CHARS} characters at most).",
            request.prompt
        );
        let messages = json!([{"role": "user", "content": prompt}]);
        let mut body = match self.config.backend {
            Backend::Ollama => json!({
                "model": model,
                "messages": messages,
                "stream": false,
                "options": {"temperature": 0, "num_predict": self.config.max_tokens},
                "keep_alive": self.config.keep_alive,
            }),
            Backend::Openai => json!({
                "model": model,
                "messages": messages,
                "stream": false,
                "temperature": 0,
                "max_tokens": self.config.max_tokens,
            }),
        };
        form.apply(&mut body, schema, request.labels);
        body
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

    /// Keeps a message for the caller's thread to log.
    fn note(&self, message: String) {
        self.notes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(message);
    }

    /// Logs (at info level) what the client noted since the last call:
    /// a form the server refused, the breaker opening.
    pub(crate) fn flush_notes(&self) {
        let notes = std::mem::take(&mut *self.notes.lock().unwrap_or_else(PoisonError::into_inner));
        for n in notes {
            tracing::info!(target: "tact::llm", "{n}");
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

/// Why a body could not be read.
enum ReadError {
    TooLarge,
    Transport(reqwest::Error),
}

/// A response's body, at most `max` bytes.
async fn read_bounded(response: &mut reqwest::Response, max: usize) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(ReadError::Transport)? {
        if bytes.len() + chunk.len() > max {
            return Err(ReadError::TooLarge);
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// A duration in whole milliseconds.
fn duration_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
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
