//! [`Error`]: why a model call failed (every failure fails open: callers
//! keep the cheaper tiers' decision), and [`FailureKind`], the kind a
//! warning is given once for.

/// Why a model call gave no usable label.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The configuration is invalid (a bad URL, a zero timeout...).
    #[error("invalid [llm] configuration: {key} = {value:?}: expected {expected}")]
    Config {
        /// The key at fault.
        key: &'static str,
        /// Its value.
        value: String,
        /// What was expected.
        expected: &'static str,
    },
    /// No model was named (neither the request, nor `[llm] model`, nor
    /// `OLLAMA_MODEL_NAME`).
    #[error("no model configured (set OLLAMA_MODEL_NAME, [llm] model or --llm-model)")]
    NoModel,
    /// The server could not be reached (refused, unknown host...).
    #[error("cannot reach the model server at {url}: {message}")]
    Connect {
        /// The endpoint.
        url: String,
        /// The transport's message.
        message: String,
    },
    /// The call took longer than the whole-call timeout.
    #[error("the model call took longer than {timeout_ms} ms")]
    Timeout {
        /// The timeout.
        timeout_ms: u64,
    },
    /// The server answered with an HTTP error (a redirect included: none
    /// is followed).
    #[error("the model server answered HTTP {status}: {detail:?}")]
    Http {
        /// The status code.
        status: u16,
        /// The start of the answer's body (control characters made spaces).
        detail: String,
    },
    /// The answer was not the JSON the API documents, or held no JSON
    /// object with a `label`.
    #[error("malformed model answer: {message}")]
    Malformed {
        /// What was wrong.
        message: String,
    },
    /// The answer's label is none of the task's labels.
    #[error("the model answered {label:?}, none of the task's labels")]
    OffSchema {
        /// The label given (cut to 80 characters).
        label: String,
    },
    /// The session's call budget is spent.
    #[error("the model call budget ({budget} calls) is spent")]
    Budget {
        /// The budget.
        budget: u64,
    },
    /// The tier stopped asking for now: the circuit breaker is open after
    /// failures in a row, or the run's wall-time budget is spent.
    #[error("the model tier is not asking: {reason}")]
    Unavailable {
        /// Why.
        reason: String,
    },
    /// The client's runtime or HTTP stack could not be set up, or a call
    /// could not be run on it.
    #[error("the model client cannot run: {message}")]
    Runtime {
        /// What failed.
        message: String,
    },
}

impl Error {
    /// The failure's kind.
    pub fn kind(&self) -> FailureKind {
        match self {
            Error::Config { .. } | Error::Runtime { .. } => FailureKind::Setup,
            Error::NoModel => FailureKind::NoModel,
            Error::Connect { .. } => FailureKind::Connect,
            Error::Timeout { .. } => FailureKind::Timeout,
            Error::Http { .. } => FailureKind::Http,
            Error::Malformed { .. } => FailureKind::Malformed,
            Error::OffSchema { .. } => FailureKind::OffSchema,
            Error::Budget { .. } => FailureKind::Budget,
            Error::Unavailable { .. } => FailureKind::Unavailable,
        }
    }
}

/// The kinds of failure a client warns about once each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FailureKind {
    /// Configuration or runtime.
    Setup,
    /// No model named.
    NoModel,
    /// Server unreachable.
    Connect,
    /// Whole-call timeout.
    Timeout,
    /// HTTP error status.
    Http,
    /// Malformed answer.
    Malformed,
    /// Off-schema label.
    OffSchema,
    /// Budget spent.
    Budget,
    /// Breaker open or the run's time spent.
    Unavailable,
}

impl FailureKind {
    /// Every kind, in order.
    pub const ALL: [FailureKind; 9] = [
        FailureKind::Setup,
        FailureKind::NoModel,
        FailureKind::Connect,
        FailureKind::Timeout,
        FailureKind::Http,
        FailureKind::Malformed,
        FailureKind::OffSchema,
        FailureKind::Budget,
        FailureKind::Unavailable,
    ];

    /// The kind's name, as in warnings and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Setup => "setup",
            FailureKind::NoModel => "no_model",
            FailureKind::Connect => "connect",
            FailureKind::Timeout => "timeout",
            FailureKind::Http => "http",
            FailureKind::Malformed => "malformed",
            FailureKind::OffSchema => "off_schema",
            FailureKind::Budget => "budget",
            FailureKind::Unavailable => "unavailable",
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// `Result` with this crate's [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
