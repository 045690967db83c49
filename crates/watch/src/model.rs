//! The model tier off the UI thread: a worker thread that puts the
//! questions the cheaper tiers are unsure of to a model (a local LLM, or
//! any [`LabelModel`](tact::escalation::LabelModel)) and
//! sends the answers back; the view polls them without waiting.

use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError, TrySendError};

use tact::effort::EffortClassifier;
use tact::escalation::Escalation;
use tact::types::{EffortLevel, Tier};

/// Questions waiting for the model at most; more are left to the cheaper
/// tiers (and counted), so a slow model never piles work up.
pub(crate) const MAX_WAITING: usize = 32;

/// Failures in a row after which the status line says the model is
/// unavailable (its calls still fail open).
const FAILURES_UNAVAILABLE: usize = 3;

/// The model tier a view is given: the escalation of the effort task (its
/// model and the confidence below which it is asked) and the model's name
/// for the status line.
#[derive(Debug, Clone)]
pub struct ModelSpec {
    pub(crate) escalation: Escalation,
    pub(crate) name: String,
}

impl ModelSpec {
    /// The model tier asking `escalation`'s model, shown as `name`.
    pub fn new(escalation: Escalation, name: impl Into<String>) -> Self {
        Self {
            escalation,
            name: name.into(),
        }
    }

    /// The model's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl PartialEq for ModelSpec {
    /// Two specs are equal when they name the same model with the same
    /// threshold (the model itself is not comparable).
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.escalation.threshold().to_bits() == other.escalation.threshold().to_bits()
    }
}

/// Where a question put to the model stands in the view.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place {
    /// Its transcript row.
    pub(crate) row: usize,
    /// The turn it was asked in, and its place among the turn's questions.
    pub(crate) turn: usize,
    pub(crate) index: usize,
    /// The cheaper tier that decided meanwhile (an index of the view's
    /// tier counts).
    pub(crate) tier: usize,
}

/// One question put to the model.
#[derive(Debug)]
pub(crate) struct Job {
    pub(crate) place: Place,
    pub(crate) text: String,
    pub(crate) context: Option<String>,
}

/// The model's answer to a [`Job`]: `None` when it failed (timeout,
/// refusal, an answer off the schema) and the cheaper decision stands.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) place: Place,
    pub(crate) effort: Option<EffortLevel>,
}

/// The worker's handle on the UI side.
#[derive(Debug)]
pub(crate) struct Worker {
    jobs: SyncSender<Job>,
    answers: Receiver<Answer>,
    threshold: f32,
    pub(crate) name: String,
    pub(crate) in_flight: usize,
    /// Questions left to the cheaper tiers because the queue was full.
    pub(crate) overflowed: usize,
    failures_in_a_row: usize,
    /// The worker thread is gone (it could not start, or it stopped).
    gone: bool,
}

impl Worker {
    /// Starts the worker thread. `None` (with a warning) when the
    /// classifier or the thread cannot be made: the view runs without a
    /// model tier.
    pub(crate) fn start(spec: &ModelSpec) -> Option<Self> {
        let classifier = match EffortClassifier::builder()
            .escalation(spec.escalation.clone())
            .build()
        {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(target: "tact::watch", error = %e, "model tier off");
                return None;
            }
        };
        let (jobs, job_rx) = mpsc::sync_channel::<Job>(MAX_WAITING);
        let (answer_tx, answers) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name(String::from("tact-watch-model"))
            .spawn(move || {
                // Ends when the view is gone (its sender dropped). A model
                // that never answers holds this thread only: the view
                // stops queueing once `MAX_WAITING` are waiting.
                while let Ok(job) = job_rx.recv() {
                    let r = classifier.classify(&job.text, job.context.as_deref());
                    let effort = (r.tier == Some(Tier::Model)).then_some(r.label);
                    let answer = Answer {
                        place: job.place,
                        effort,
                    };
                    if answer_tx.send(answer).is_err() {
                        break;
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::warn!(target: "tact::watch", error = %e, "model tier off: no thread");
            return None;
        }
        Some(Self {
            jobs,
            answers,
            threshold: spec.escalation.threshold(),
            name: spec.name.clone(),
            in_flight: 0,
            overflowed: 0,
            failures_in_a_row: 0,
            gone: false,
        })
    }

    /// Whether a cheaper decision of this confidence goes to the model.
    pub(crate) fn wants(&self, confidence: f32) -> bool {
        !self.gone && confidence < self.threshold
    }

    /// Queues `job` without waiting; a full queue leaves the question to
    /// the cheaper tiers.
    pub(crate) fn submit(&mut self, job: Job) {
        match self.jobs.try_send(job) {
            Ok(()) => self.in_flight += 1,
            Err(TrySendError::Full(_)) => self.overflowed += 1,
            Err(TrySendError::Disconnected(_)) => self.gone = true,
        }
    }

    /// The answers that arrived, without waiting.
    pub(crate) fn poll(&mut self) -> Vec<Answer> {
        let mut out = Vec::new();
        loop {
            match self.answers.try_recv() {
                Ok(a) => {
                    self.in_flight = self.in_flight.saturating_sub(1);
                    if a.effort.is_some() {
                        self.failures_in_a_row = 0;
                    } else {
                        self.failures_in_a_row += 1;
                    }
                    out.push(a);
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    self.gone = true;
                    self.in_flight = 0;
                    break;
                }
            }
        }
        out
    }

    /// The state the status line shows.
    pub(crate) fn state(&self) -> crate::ModelTier {
        let name = self.name.clone();
        if self.gone {
            crate::ModelTier::Unavailable {
                name,
                reason: String::from("worker stopped"),
            }
        } else if self.failures_in_a_row >= FAILURES_UNAVAILABLE {
            crate::ModelTier::Unavailable {
                name,
                reason: format!("{} failed calls in a row", self.failures_in_a_row),
            }
        } else if self.in_flight > 0 {
            crate::ModelTier::Busy {
                name,
                in_flight: self.in_flight,
            }
        } else {
            crate::ModelTier::Ready { name }
        }
    }
}
