//! The "contract violations to monitor" of ADR-0008: checks of what a host
//! actually did with a routing decision, or of what an external classifier
//! answered, each violation returned and emitted as a `tracing` warning
//! (target `tact::route::contract`).
//!
//! | symptom | rule |
//! | --- | --- |
//! | a platform prefix query triggered the LLM classifier | RC-01 |
//! | a classifier ignored account data in the message | RC-02 |
//! | a classifier output mirrors the dominant history type | RC-03 |
//! | a platform or conversational query hit retrieval | RC-04 |
//! | the wrong model slot served a response | RC-05 |

use tact_types::{IntentEntry, Label, QueryType, RouteDecision, RouteRule};

use super::Router;
use super::history::window;

/// What a host observed while serving one routed message.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Observation<'a> {
    /// A retrieval (search) step ran for the message.
    pub retrieval_ran: bool,
    /// The model that produced the response, if known.
    pub model_used: Option<&'a str>,
    /// An LLM classifier was called to classify the message.
    pub classifier_called: bool,
}

/// A broken rule of the routing contract.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Violation {
    /// RC-01: a message with a platform prefix was sent to a model
    /// classifier.
    PrefixCalledModel,
    /// RC-02: the message carries account data but was classified as
    /// another type.
    PlatformSignalIgnored {
        /// The type the classifier gave.
        got: QueryType,
    },
    /// RC-03: the classifier answered the history's dominant type against
    /// the message's own clear content.
    MirrorsHistory {
        /// The type the classifier gave (the history's dominant one).
        got: QueryType,
        /// The type the message's content alone supports.
        content: QueryType,
    },
    /// RC-04: a conversational or platform message ran retrieval.
    RetrievalForNonRagType {
        /// The routed type.
        label: QueryType,
    },
    /// RC-05: the response came from another model than the type's slot.
    WrongModel {
        /// The routed type.
        label: QueryType,
        /// The slot's model.
        expected: String,
        /// The model that was used.
        used: String,
    },
}

impl Violation {
    /// The contract rule broken (`RC-01` ...).
    pub fn rule(&self) -> &'static str {
        match self {
            Self::PrefixCalledModel => "RC-01",
            Self::PlatformSignalIgnored { .. } => "RC-02",
            Self::MirrorsHistory { .. } => "RC-03",
            Self::RetrievalForNonRagType { .. } => "RC-04",
            Self::WrongModel { .. } => "RC-05",
        }
    }
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::PrefixCalledModel => {
                f.write_str("RC-01: platform prefix query triggered the LLM classifier")
            }
            Self::PlatformSignalIgnored { got } => write!(
                f,
                "RC-02: account data in the message but classified {got}, not PLATFORM"
            ),
            Self::MirrorsHistory { got, content } => write!(
                f,
                "RC-03: classifier output {got} mirrors the dominant history type; the message reads as {content}"
            ),
            Self::RetrievalForNonRagType { label } => {
                write!(f, "RC-04: {label} query hit retrieval")
            }
            Self::WrongModel {
                label,
                expected,
                used,
            } => write!(
                f,
                "RC-05: {used} served a {label} response; its slot's model is {expected}"
            ),
        }
    }
}

fn warn_all(violations: &[Violation]) {
    for v in violations {
        tracing::warn!(
            target: "tact::route::contract",
            rule = v.rule(),
            violation = %v,
            "routing contract violation"
        );
    }
}

/// The type holding a strict majority of the (windowed) history, if any,
/// with at least 3 entries.
fn dominant(history: &[IntentEntry]) -> Option<QueryType> {
    let recent = window(history);
    if recent.len() < 3 {
        return None;
    }
    let mut counts = [0usize; 4];
    for e in recent {
        if let Some(c) = counts.get_mut(e.kind.index()) {
            *c += 1;
        }
    }
    QueryType::ALL
        .iter()
        .copied()
        .find(|t| counts.get(t.index()).is_some_and(|&c| 2 * c > recent.len()))
}

impl Router {
    /// Checks what a host did with `decision` (RC-01, RC-04, RC-05); every
    /// violation is returned and emitted as a `tracing` warning.
    pub fn check(&self, decision: &RouteDecision, observed: &Observation<'_>) -> Vec<Violation> {
        let mut out = Vec::new();
        if decision.rule == RouteRule::PlatformPrefix && observed.classifier_called {
            out.push(Violation::PrefixCalledModel);
        }
        if observed.retrieval_ran && !decision.label().needs_retrieval() {
            out.push(Violation::RetrievalForNonRagType {
                label: decision.label(),
            });
        }
        if let (Some(used), Some(expected)) = (
            observed.model_used,
            self.model_slots().model_for(decision.label()),
        ) {
            if used != expected {
                out.push(Violation::WrongModel {
                    label: decision.label(),
                    expected: expected.to_owned(),
                    used: used.to_owned(),
                });
            }
        }
        warn_all(&out);
        out
    }

    /// Checks the answer `output` of an external (LLM) classifier for
    /// `message` with `history` (RC-01, RC-02, RC-03); every violation is
    /// returned and emitted as a `tracing` warning.
    ///
    /// RC-03 is flagged when the answer is the history's dominant type
    /// (a strict majority of the last 6 entries, at least 3), while the
    /// message's content alone, read without history, clearly says
    /// another type.
    pub fn check_classifier_output(
        &self,
        message: &str,
        history: &[IntentEntry],
        output: QueryType,
    ) -> Vec<Violation> {
        let mut out = Vec::new();
        let alone = self.route(message, &[]);
        match alone.rule {
            RouteRule::PlatformPrefix => out.push(Violation::PrefixCalledModel),
            RouteRule::PlatformSignal if output != QueryType::Platform => {
                out.push(Violation::PlatformSignalIgnored { got: output });
            }
            _ => {}
        }
        if let Some(d) = dominant(history) {
            if output == d && alone.label() != d && !alone.ambiguous {
                out.push(Violation::MirrorsHistory {
                    got: output,
                    content: alone.label(),
                });
            }
        }
        warn_all(&out);
        out
    }
}
