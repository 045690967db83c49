//! Adaptive query routing with the routing contract of ADR-0008: which
//! pipeline (`RETRIEVAL`, `CODE_GENERATION`, `CONVERSATIONAL`, `PLATFORM`)
//! and which model slot serve a user message.
//!
//! The contract, rule by rule:
//! - RC-01: a registered platform prefix (default
//!   [`DEFAULT_PLATFORM_PREFIX`], matched case-insensitively anywhere in
//!   the message) routes to `PLATFORM` without calling any model.
//! - RC-02: account usage, quota percentages, limits, plan, subscription,
//!   invoice or billing data of the user's account routes to `PLATFORM`
//!   whatever the history; the same words as a code requirement or as the
//!   user's own app data (an `invoices` table) do not.
//! - RC-03: history (entries `{type, snippet}`) is used only to resolve a
//!   reference in the message ("this", "that function", "eso", "lo
//!   anterior"); how often a type occurs in it never counts.
//! - RC-04: [`RouteDecision::needs_retrieval`] is false for
//!   `CONVERSATIONAL` and `PLATFORM`.
//! - RC-05: [`ModelSlots`] from `OLLAMA_MODEL_NAME` and
//!   `OLLAMA_MODEL_NAME_CONVERSATIONAL` (the second falling back to the
//!   first); retrieval and code generation use the first.
//! - RC-06: the classifier reads at most the last [`HISTORY_WINDOW`] (6)
//!   entries; [`HistoryStore`] is bounded per session and across sessions.
//!
//! Violations a host's behaviour shows are reported by [`Router::check`]
//! and [`Router::check_classifier_output`] as `tracing` warnings.
//!
//! Four strategies: [`Strategy::Hybrid`] (the default, as it beats the
//! heuristic on the dev split), [`Strategy::Heuristic`] (see the `heuristic`
//! module), [`Strategy::Seed`] (only what the ADR decides without a model;
//! see [`seed`]), [`Strategy::Learned`] (the learned linear model of
//! [`crate::learned`] after RC-01 and RC-02) and [`Strategy::Hybrid`] (the
//! heuristic when confident, the learned model otherwise; RC-01 and RC-02
//! are never overridden).
//!
//! ```
//! use tact_classifiers::route::{HistoryStore, Router};
//! use tact_types::{QueryType, RouteRule};
//!
//! let router = Router::builder().build()?;
//! let store = HistoryStore::new();
//!
//! let d = router.route("Does addResult accept a nested JSON object?", &store.recent("s1"));
//! assert_eq!(d.label(), QueryType::Retrieval);
//! store.record("s1", d.label(), "Does addResult accept a nested JSON object?");
//!
//! let d = router.route("I'm at 92% of my monthly quota, what now?", &store.recent("s1"));
//! assert_eq!((d.label(), d.rule), (QueryType::Platform, RouteRule::PlatformSignal));
//! assert!(!d.needs_retrieval());
//!
//! let d = router.route("You are a direct and concise assistant. Plan: Pro.", &[]);
//! assert_eq!(d.rule, RouteRule::PlatformPrefix);
//! # Ok::<(), tact_classifiers::Error>(())
//! ```

pub mod contract;
mod heuristic;
mod history;
mod models;
mod prompt;
pub mod seed;

use std::sync::{Arc, OnceLock};

use tact_core::normalize;
use tact_types::{Classification, IntentEntry, QueryType, Reason, RouteDecision, RouteRule, Tier};

pub use contract::{Observation, Violation};
pub use history::{
    DEFAULT_MAX_SESSIONS, HISTORY_WINDOW, HistoryStore, MAX_SESSION_ID_BYTES, SNIPPET_CHARS, entry,
    snippet, window,
};
pub use models::{ModelSlots, RouteModel, parse_model_output};
pub use prompt::{HISTORY_RULE, PLATFORM_PRIORITY_RULE, ROLE, build_prompt, render_history};

use crate::Error;
use crate::learned::{self, HybridThresholds, LinearModel, ModelInput, Task, Traced};

/// The heuristic analysis of a message with the learned model's input
/// (the normalized text and the cues that fired).
fn analyze_for_model(
    h: &heuristic::Heuristic,
    message: &str,
    norm: String,
    history: &[IntentEntry],
) -> (heuristic::Analysis, ModelInput) {
    let mut extras = Vec::with_capacity(16);
    let a = h.analyze_traced(message, &norm, history, Some(&mut extras));
    (a, ModelInput { text: norm, extras })
}

/// The platform-injected prefix registered by default (RC-01).
pub const DEFAULT_PLATFORM_PREFIX: &str = "you are a direct and concise assistant";

crate::strategy::strategy_enum! {
    task: "route",
    what: "Which decision procedure a [`Router`] uses after the prefix fast path.",
    heuristic: "Weighted English and Spanish cues with the RC-02 signal and RC-03 reference resolution.",
    seed: "Only ADR-0008's deterministic rules; `RETRIEVAL` otherwise.",
    default: Hybrid,
    all: [Hybrid, Heuristic, Seed, Learned],
}

/// Builder of a [`Router`].
#[derive(Debug, Clone)]
pub struct RouterBuilder {
    strategy: Strategy,
    prefixes: Vec<String>,
    slots: ModelSlots,
    model: Option<Arc<LinearModel>>,
    thresholds: Option<HybridThresholds>,
}

impl Default for RouterBuilder {
    fn default() -> Self {
        Self {
            strategy: Strategy::default(),
            prefixes: vec![DEFAULT_PLATFORM_PREFIX.to_owned()],
            slots: ModelSlots::default(),
            model: None,
            thresholds: None,
        }
    }
}

impl RouterBuilder {
    /// Chooses the strategy (default: [`Strategy::Hybrid`]).
    #[must_use]
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// Uses `model` instead of the embedded default for the `learned` and
    /// `hybrid` strategies (checked at [`build`](Self::build): it must be
    /// a `route` model with the four types in [`QueryType::ALL`] order).
    #[must_use]
    pub fn model(mut self, model: LinearModel) -> Self {
        self.model = Some(Arc::new(model));
        self
    }

    /// Sets the hybrid thresholds: the heuristic decides when its
    /// confidence and the gap between its top two type scores reach them.
    /// By default, the thresholds stored with the model. RC-01 and RC-02
    /// decisions are never deferred.
    #[must_use]
    pub fn hybrid_thresholds(mut self, thresholds: HybridThresholds) -> Self {
        self.thresholds = Some(thresholds);
        self
    }

    /// Registers one more platform prefix (RC-01).
    #[must_use]
    pub fn platform_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefixes.push(prefix.into());
        self
    }

    /// Replaces the registered platform prefixes (RC-01); an empty list
    /// disables the fast path.
    #[must_use]
    pub fn platform_prefixes<I, S>(mut self, prefixes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.prefixes = prefixes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the model slots (RC-05), e.g. [`ModelSlots::from_env`]. By
    /// default no model is configured and decisions carry no model name.
    #[must_use]
    pub fn model_slots(mut self, slots: ModelSlots) -> Self {
        self.slots = slots;
        self
    }

    /// Compiles the router. Fails on a prefix that is blank once
    /// normalized.
    pub fn build(self) -> Result<Router, Error> {
        let mut prefixes = Vec::with_capacity(self.prefixes.len());
        for p in &self.prefixes {
            let n = normalize(p);
            if n.is_empty() {
                return Err(Error::InvalidConfig {
                    key: "platform prefix".into(),
                    value: p.clone(),
                    expected: "a non-blank phrase",
                });
            }
            prefixes.push(n);
        }
        let heuristic = match self.strategy {
            Strategy::Seed => None,
            _ => Some(heuristic::Heuristic::new()?),
        };
        let (model, thresholds) = learned::settle(
            Task::Route,
            matches!(self.strategy, Strategy::Learned | Strategy::Hybrid),
            self.model,
            self.thresholds,
        )?;
        // One literal alternation, searched with the regex crate's
        // precomputed substring finders: `str::contains` would rebuild its
        // searcher on every message.
        let prefix_finder = if prefixes.is_empty() {
            None
        } else {
            let alternation: Vec<String> = prefixes.iter().map(|p| regex::escape(p)).collect();
            Some(regex::Regex::new(&alternation.join("|")).map_err(|e| {
                Error::Core(tact_core::Error::Pattern {
                    pattern: "<platform prefixes>".into(),
                    message: e.to_string(),
                })
            })?)
        };
        Ok(Router {
            strategy: self.strategy,
            prefixes,
            prefix_finder,
            slots: self.slots,
            heuristic,
            model,
            thresholds,
        })
    }
}

/// Routes user messages to a pipeline and a model slot under the routing
/// contract. Build once and share: routing takes `&self`.
#[derive(Debug, Clone)]
pub struct Router {
    strategy: Strategy,
    prefixes: Vec<String>,
    prefix_finder: Option<regex::Regex>,
    slots: ModelSlots,
    heuristic: Option<heuristic::Heuristic>,
    model: Option<Arc<LinearModel>>,
    thresholds: HybridThresholds,
}

impl Router {
    /// Starts a builder.
    pub fn builder() -> RouterBuilder {
        RouterBuilder::default()
    }

    /// A shared default router (default prefix, no model slots), compiled
    /// on first use.
    pub fn shared() -> Result<&'static Router, Error> {
        static SHARED: OnceLock<Result<Router, String>> = OnceLock::new();
        SHARED
            .get_or_init(|| Self::builder().build().map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| {
                Error::Core(tact_core::Error::Pattern {
                    pattern: "<route cues>".into(),
                    message: e.clone(),
                })
            })
    }

    /// The strategy in use.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// The model slots.
    pub fn model_slots(&self) -> &ModelSlots {
        &self.slots
    }

    /// The registered platform prefixes, normalized.
    pub fn platform_prefixes(&self) -> &[String] {
        &self.prefixes
    }

    /// Routes `message` with the session's `history` (oldest first; only
    /// the last [`HISTORY_WINDOW`] entries are read). Never calls a model.
    pub fn route(&self, message: &str, history: &[IntentEntry]) -> RouteDecision {
        let history = window(history);
        let norm = normalize(message);
        let prefix = self
            .prefix_finder
            .as_ref()
            .and_then(|f| f.find(&norm))
            .map(|m| m.as_str());
        if let Some(prefix) = prefix {
            let c = Classification::new(QueryType::Platform, 1.0).with_reason(Reason::new(
                "platform_prefix",
                format!("registered platform prefix `{prefix}` (RC-01)"),
                1.0,
            ));
            return self.decision(c, RouteRule::PlatformPrefix, false, None);
        }
        match &self.heuristic {
            Some(h) if self.model.is_some() => self.route_learned(h, message, norm, history),
            Some(h) => {
                let a = h.analyze(message, &norm, history);
                self.decision(a.classification, a.rule, a.ambiguous, a.resolved)
            }
            None => {
                let c = seed::classify(message);
                let rule = if c.label == QueryType::Platform {
                    RouteRule::PlatformSignal
                } else {
                    RouteRule::Fallback
                };
                let ambiguous = rule == RouteRule::Fallback;
                self.decision(c, rule, ambiguous, None)
            }
        }
    }

    /// The `learned` and `hybrid` strategies after the prefix fast path:
    /// RC-02 stays rule-based; otherwise the model decides (always for
    /// `learned`; for `hybrid` when the heuristic is not confident and did
    /// not resolve a reference through the history).
    fn route_learned(
        &self,
        h: &heuristic::Heuristic,
        message: &str,
        norm: String,
        history: &[IntentEntry],
    ) -> RouteDecision {
        let (a, input) = analyze_for_model(h, message, norm, history);
        let fixed = a.rule == RouteRule::PlatformSignal;
        let confidence = a.classification.confidence;
        // A reference resolved through the history (RC-03) stays with the
        // heuristic in the hybrid: the model reads the new message only,
        // not the earlier turn "that" points to.
        let resolved = a.rule == RouteRule::HistoryReference;
        let defer = match self.strategy {
            Strategy::Learned => !fixed,
            _ => learned::defers(confidence, a.gap, fixed || resolved, &self.thresholds),
        };
        let mut heuristic = a.classification.with_tier(Tier::Heuristic);
        let Some(model) = self.model.as_deref().filter(|_| defer) else {
            return self.decision(heuristic, a.rule, a.ambiguous, a.resolved);
        };
        let hybrid = (self.strategy == Strategy::Hybrid).then_some((
            &mut heuristic,
            &self.thresholds,
            a.gap,
        ));
        let c = learned::model_decision(model, &input, hybrid);
        let ambiguous = c.confidence < 0.5;
        self.decision(c, RouteRule::Learned, ambiguous, a.resolved)
    }

    /// The heuristic's decision with its top-two gap, whether a contract
    /// rule fixed it for the hybrid (RC-02, or a reference resolved through
    /// the history), and the learned model's input (what `cargo xtask
    /// train` learns from). `None` for the `seed` strategy and for a
    /// platform prefix (RC-01), which no model sees.
    pub fn trace(&self, message: &str, history: &[IntentEntry]) -> Option<Traced<QueryType>> {
        let h = self.heuristic.as_ref()?;
        let norm = normalize(message);
        if self
            .prefix_finder
            .as_ref()
            .is_some_and(|f| f.is_match(&norm))
        {
            return None;
        }
        let (a, input) = analyze_for_model(h, message, norm, window(history));
        Some(Traced {
            fixed: matches!(
                a.rule,
                RouteRule::PlatformSignal | RouteRule::HistoryReference
            ),
            gap: a.gap,
            heuristic: a.classification,
            input,
        })
    }

    /// Routes like [`Router::route`], and asks `model` (with the
    /// classifier prompt, on the main slot's model) only when the
    /// heuristics found the case ambiguous. The model is never called for a
    /// platform prefix (RC-01) or a platform data signal (RC-02); an answer
    /// that names no type keeps the heuristic decision.
    pub fn route_with_model(
        &self,
        message: &str,
        history: &[IntentEntry],
        model: &dyn RouteModel,
    ) -> RouteDecision {
        let decision = self.route(message, history);
        let deterministic = matches!(
            decision.rule,
            RouteRule::PlatformPrefix | RouteRule::PlatformSignal
        );
        if deterministic || !decision.ambiguous {
            return decision;
        }
        let prompt = build_prompt(message, history);
        let main = self.slots.model(tact_types::ModelSlot::Main);
        let answer = model.complete(main, &prompt);
        let Some(label) = answer.as_deref().and_then(parse_model_output) else {
            tracing::debug!(
                target: "tact::route",
                answered = answer.is_some(),
                "model answer names no type; keeping the heuristic decision"
            );
            let mut kept = decision;
            kept.classification.reasons.push(Reason::new(
                "model_unparsed",
                "the fallback model's answer named no type",
                0.0,
            ));
            return kept;
        };
        let mut c = Classification::new(label, 0.5).with_reason(Reason::new(
            "model",
            format!("the fallback model answered {label}"),
            1.0,
        ));
        c.reasons.extend(
            decision
                .classification
                .reasons
                .iter()
                .filter(|_| decision.label() == label)
                .cloned(),
        );
        self.decision(c, RouteRule::Model, false, decision.resolved)
    }

    /// The classifier prompt for `message` with `history` (see
    /// [`build_prompt`]).
    pub fn prompt(&self, message: &str, history: &[IntentEntry]) -> String {
        build_prompt(message, history)
    }

    fn decision(
        &self,
        classification: Classification<QueryType>,
        rule: RouteRule,
        ambiguous: bool,
        resolved: Option<IntentEntry>,
    ) -> RouteDecision {
        let label = classification.label;
        RouteDecision {
            classification,
            rule,
            model_slot: label.model_slot(),
            model: self.slots.model_for(label).map(str::to_owned),
            needs_retrieval: label.needs_retrieval(),
            ambiguous,
            resolved,
        }
    }
}
