//! [`Llm`]: the blocking handle synchronous callers use (the text
//! classifiers' tier, the CLI, the `Judge` and `LlmClassifier` traits). It
//! owns a small tokio runtime (one worker thread) on which its
//! [`Client`]'s calls run; the caller waits on a channel, at most the
//! whole-call timeout (plus a margin).
//!
//! Safe outside any runtime, and also called from inside one: the call
//! never enters the caller's runtime (no `block_on`), it only blocks the
//! calling thread for at most the timeout, so an async host should prefer
//! [`Llm::client`] and `.await` there. Dropping the handle, even inside a
//! runtime, shuts its own runtime down in the background.
//!
//! The runtime's worker never logs: a failure is counted and warned about
//! on the caller's thread, once, whichever side settles the call first
//! (the worker with its result, or the caller giving up at the timeout).
//! So a host whose main thread holds the stderr lock (as `tact run` may)
//! never stalls the worker on a warning.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tact_classifiers::escalation::{Escalation, LabelAnswer, LabelModel, LabelRequest};
use tact_classifiers::learned::Task;
use tact_classifiers::route::ModelSlots;

use crate::client::{Answer, Client, Stats};
use crate::config::LlmConfig;
use crate::error::{Error, Result};

/// How long past the client's own timeout a blocking caller waits before
/// giving up on the runtime (which enforces the timeout itself).
const MARGIN: Duration = Duration::from_millis(40);

/// Owns the runtime; shuts it down without blocking when dropped.
struct Runtime(Option<tokio::runtime::Runtime>);

impl Drop for Runtime {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

struct Inner {
    client: Arc<Client>,
    runtime: Runtime,
}

/// The blocking handle to a model client: cheap to clone (shared), `Send +
/// Sync`. Implements [`LabelModel`] for the text classifiers' tier.
#[derive(Clone)]
pub struct Llm {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Llm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Llm").field(&self.inner.client).finish()
    }
}

/// A request with its own strings, to move onto the runtime.
struct Owned {
    task: String,
    labels: Vec<&'static str>,
    prompt: String,
    model: Option<String>,
}

impl Llm {
    /// A handle for `config` (validated): its client and a one-worker
    /// runtime.
    pub fn new(config: LlmConfig) -> Result<Self> {
        let client = Arc::new(Client::new(config)?);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("tact-llm")
            .enable_all()
            .build()
            .map_err(|e| Error::Runtime {
                message: format!("cannot start the runtime: {e}"),
            })?;
        Ok(Self {
            inner: Arc::new(Inner {
                client,
                runtime: Runtime(Some(runtime)),
            }),
        })
    }

    /// The async client (for callers already on a runtime).
    pub fn client(&self) -> &Arc<Client> {
        &self.inner.client
    }

    /// The settings in use.
    pub fn config(&self) -> &LlmConfig {
        self.inner.client.config()
    }

    /// What the client did so far.
    pub fn stats(&self) -> Stats {
        self.inner.client.stats()
    }

    /// The model slots of the settings (RC-05): `model` and
    /// `model_conversational`.
    pub fn model_slots(&self) -> ModelSlots {
        let c = self.config();
        ModelSlots::new(c.model.clone(), c.model_conversational.clone())
    }

    /// The model-backed tier of `task` for a classifier's builder: this
    /// handle, the task's threshold and the routing prompt's product.
    pub fn escalation(&self, task: Task) -> Escalation {
        let c = self.config();
        Escalation::new(Arc::new(self.clone()), c.thresholds.of(task)).product(c.product.clone())
    }

    /// [`Client::probe`], blocking the calling thread at most the
    /// whole-call timeout (plus a few milliseconds).
    pub fn probe(&self) -> Result<()> {
        let client = Arc::clone(&self.inner.client);
        let Some(rt) = &self.inner.runtime.0 else {
            return Err(Error::Runtime {
                message: "the runtime is shut down".into(),
            });
        };
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        rt.spawn(async move {
            let _ = tx.send(client.probe().await);
        });
        rx.recv_timeout(self.config().timeout() + MARGIN)
            .unwrap_or(Err(Error::Timeout {
                timeout_ms: self.config().timeout_ms,
            }))
    }

    /// The structured form the server takes (see [`Client::dialect`]).
    pub fn dialect(&self) -> crate::Dialect {
        self.inner.client.dialect()
    }

    /// [`Client::classify`], blocking the calling thread at most the
    /// whole-call timeout (plus a few milliseconds).
    pub fn classify(&self, request: &LabelRequest<'_>) -> Result<Answer> {
        let client = Arc::clone(&self.inner.client);
        let owned = Owned {
            task: request.task.to_owned(),
            labels: request.labels.to_vec(),
            prompt: request.prompt.to_owned(),
            model: request.model.map(str::to_owned),
        };
        let Some(rt) = &self.inner.runtime.0 else {
            return Err(client.failed(Error::Runtime {
                message: "the runtime is shut down".into(),
            }));
        };
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        // Whoever sets it first settles the call: the worker sends its
        // result, or the caller counts a timeout. Never both.
        let settled = Arc::new(AtomicBool::new(false));
        let worker_settled = Arc::clone(&settled);
        rt.spawn(async move {
            let mut r = LabelRequest::new(&owned.task, &owned.labels, &owned.prompt);
            r.model = owned.model.as_deref();
            let result = client.attempt(&r).await;
            if !worker_settled.swap(true, Ordering::AcqRel) {
                let _ = tx.send(result);
            }
        });
        let wait = self.config().timeout() + MARGIN;
        let client = &self.inner.client;
        let result = match rx.recv_timeout(wait) {
            Ok(r) => r,
            Err(_) if !settled.swap(true, Ordering::AcqRel) => Err(Error::Timeout {
                timeout_ms: self.config().timeout_ms,
            }),
            // The worker settled just now: its result is on its way.
            Err(_) => rx.recv().unwrap_or(Err(Error::Timeout {
                timeout_ms: self.config().timeout_ms,
            })),
        };
        client.flush_notes();
        result.map_err(|e| client.failed(e))
    }
}

impl LabelModel for Llm {
    fn ask(&self, request: &LabelRequest<'_>) -> Option<LabelAnswer> {
        let a = self.classify(request).ok()?;
        let answer = LabelAnswer::new(a.label, a.model);
        Some(match a.reason {
            Some(r) => answer.with_reason(r),
            None => answer,
        })
    }
}
