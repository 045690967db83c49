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
//! Four strategies:
//! - [`Strategy::Hybrid`] (the default, as it beats the heuristic on the
//!   dev split): the heuristic when confident, the learned model
//!   otherwise; RC-01 and RC-02 are never overridden.
//! - [`Strategy::Heuristic`]: the cues (see the `heuristic` module).
//! - [`Strategy::Seed`]: only what the ADR decides without a model (see
//!   [`seed`]).
//! - [`Strategy::Learned`]: the learned linear model of [`crate::learned`]
//!   after RC-01 and RC-02.
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

use std::borrow::Cow;

use tact_core::normalize;
use tact_types::dataset::{RouteExample, RouteQuery};
use tact_types::{Classification, IntentEntry, QueryType, Reason, RouteDecision, RouteRule, Tier};

pub use contract::{Observation, Violation};
pub use history::{
    DEFAULT_MAX_SESSIONS, HISTORY_WINDOW, HistoryStore, MAX_SESSION_ID_BYTES, SNIPPET_CHARS, entry,
    snippet, window,
};
pub use models::{ModelSlots, RouteModel, parse_model_output};
pub use prompt::{
    HISTORY_RULE, PLATFORM_PRIORITY_RULE, ROLE, build_model_prompt, build_prompt, render_history,
};

use crate::Error;
use crate::learned::{Task, Traced};
use crate::tiered::{self, Baseline, Cues, Settings, Tiered, Trace};

/// A message, its normalized form and the history window.
type Input<'a> = (&'a str, &'a str, &'a [IntentEntry]);

/// Whether the heuristic decided CODE_GENERATION on the shapes of a
/// request to a coding agent: an action on the project ("commit and
/// push", "run the tests"), a shell command, a bug report or pasted error,
/// a requirement. The cues read them precisely on real messages (right
/// on 229 of 244 in `real-train`, 79 of 90 in `real-calibration`), where
/// the model, trained on annotator-written text, mostly overturned them
/// wrongly: kept, the hybrid reads 0.775 instead of 0.699 on `real-train`
/// and 0.759 instead of 0.729 on `real-calibration`.
/// `fired`: the names of the cues that fired (the model's extras), all of
/// them, where the reasons keep the strongest few.
fn agent_request(a: &heuristic::Analysis, fired: &[&str]) -> bool {
    a.classification.label == QueryType::CodeGeneration
        && fired.iter().any(|&n| {
            matches!(
                n,
                "agent_action" | "shell_command" | "bug_report" | "requirement" | "imperative"
            )
        })
}

/// Whether the heuristic decided RETRIEVAL on a request to read the
/// project and answer without changing it ("Read @README.md then
/// @PLAN.md", "what do these tools do, describe in detail", "why did we
/// ...", "I need to verify that ..."). The model, trained on
/// annotator-written questions about documentation, turned most such real
/// messages into code requests or small talk.
fn reads_project(a: &heuristic::Analysis, fired: &[&str]) -> bool {
    a.classification.label == QueryType::Retrieval && fired.contains(&"read_project")
}

/// The smallest probability at which the learned model may send a
/// message to PLATFORM, which skips retrieval (RC-04): the contract's
/// rules decide PLATFORM, or a model that is very sure.
const PLATFORM_MODEL_MIN: f32 = 0.9;

impl Cues for heuristic::Heuristic {
    type Label = QueryType;
    type Input<'a> = Input<'a>;
    type Decision = heuristic::Analysis;
    type Extras = Vec<&'static str>;

    const TASK: Task = Task::Route;

    fn decide(&self, (message, norm, history): Input<'_>) -> heuristic::Analysis {
        self.analyze(message, norm, history)
    }

    fn trace(
        &self,
        (message, norm, history): Input<'_>,
        extras: &mut Self::Extras,
    ) -> Trace<heuristic::Analysis> {
        extras.reserve(16);
        let a = self.analyze_traced(message, norm, history, Some(extras));
        Trace {
            gap: a.gap,
            // RC-02 is never deferred to a model.
            fixed: a.rule == RouteRule::PlatformSignal,
            // A reference resolved through the history (RC-03) stays with
            // the heuristic in the hybrid: the model reads the new message
            // only, not the earlier turn "that" points to.
            kept_by_hybrid: a.rule == RouteRule::HistoryReference
                || agent_request(&a, extras)
                || reads_project(&a, extras),
            decision: a,
            text: None,
        }
    }

    fn model_text<'a>(input: Self::Input<'a>) -> Cow<'a, str> {
        // What the heuristic reads: no greeting, list marker or thanks.
        Cow::Borrowed(crate::opening::body(input.1))
    }

    fn classification(a: &mut heuristic::Analysis) -> &mut Classification<QueryType> {
        &mut a.classification
    }

    fn into_classification(a: heuristic::Analysis) -> Classification<QueryType> {
        a.classification
    }

    fn with_model(mut a: heuristic::Analysis, c: Classification<QueryType>) -> heuristic::Analysis {
        // PLATFORM skips retrieval and goes to the small model (RC-04,
        // RC-05): the learned tier may decide it only where the cues saw
        // account, billing, quota or usage evidence, and only when it is
        // very sure. Otherwise the cues' decision stands.
        if c.label == QueryType::Platform && !a.platform_evidence {
            a.classification.tier = Some(tact_types::Tier::Heuristic);
            a.classification.reasons.push(tact_types::Reason::new(
                "platform_without_evidence",
                "the learned model said PLATFORM, but the message has no account, billing, quota or usage data",
                0.0,
            ));
            return a;
        }
        if c.label == QueryType::Platform && c.confidence < PLATFORM_MODEL_MIN {
            a.classification.tier = Some(tact_types::Tier::Heuristic);
            a.classification.reasons.push(tact_types::Reason::new(
                "platform_unsure",
                "the learned model said PLATFORM, but not surely enough to skip retrieval",
                0.0,
            ));
            return a;
        }
        heuristic::Analysis {
            ambiguous: c.confidence < 0.5,
            classification: c,
            rule: RouteRule::Learned,
            gap: a.gap,
            resolved: a.resolved,
            platform_evidence: a.platform_evidence,
        }
    }

    /// An unsure PLATFORM never stands for want of a sure model: it would
    /// skip retrieval (RC-04) on evidence the hybrid found too weak.
    fn stands_unsure(a: &mut heuristic::Analysis) -> bool {
        a.classification.label != QueryType::Platform
    }

    /// The ADR's classifier prompt (RC-03's `<history_rule>`, RC-02's
    /// `<platform_priority_rule>`, the last 6 history entries, RC-06).
    fn prompt((message, _, history): Input<'_>, product: &str) -> String {
        build_model_prompt(product, message, history)
    }

    fn with_answer(a: heuristic::Analysis, c: Classification<QueryType>) -> heuristic::Analysis {
        heuristic::Analysis {
            ambiguous: false,
            classification: c,
            rule: RouteRule::Model,
            gap: a.gap,
            resolved: a.resolved,
            platform_evidence: a.platform_evidence,
        }
    }
}

/// ADR-0008's deterministic rules alone (see [`seed`]).
#[derive(Debug, Clone, Copy)]
struct SeedRules;

impl Baseline<heuristic::Heuristic> for SeedRules {
    fn decide(&self, (message, _, _): Input<'_>) -> heuristic::Analysis {
        let c = seed::classify(message);
        let rule = if c.label == QueryType::Platform {
            RouteRule::PlatformSignal
        } else {
            RouteRule::Fallback
        };
        heuristic::Analysis {
            classification: c,
            rule,
            gap: 0.0,
            ambiguous: rule == RouteRule::Fallback,
            resolved: None,
            platform_evidence: rule == RouteRule::PlatformSignal,
        }
    }
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
    settings: Settings,
}

impl Default for RouterBuilder {
    fn default() -> Self {
        Self {
            strategy: Strategy::default(),
            prefixes: vec![DEFAULT_PLATFORM_PREFIX.to_owned()],
            slots: ModelSlots::default(),
            settings: Settings::default(),
        }
    }
}

impl RouterBuilder {
    // RC-01 and RC-02 decisions are never deferred to the model.
    tiered::builder_methods!(
        task: "route",
        labels: "`RETRIEVAL`, `CODE_GENERATION`, `CONVERSATIONAL`, `PLATFORM` in this order"
    );

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
        let mut tiers = Tiered::build(
            self.strategy.kind(),
            self.settings,
            heuristic::Heuristic::new,
            || Ok(SeedRules),
        )?;
        // The classifier's model is the main slot's (RC-05), unless the
        // escalation names one.
        tiers.default_model_name(self.slots.model(tact_types::ModelSlot::Main));
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
            tiers,
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
    tiers: Tiered<heuristic::Heuristic, SeedRules>,
}

impl Router {
    // The shared router has the default prefix and no model slots.
    tiered::classifier_methods!(ty: Router, builder: RouterBuilder, what: "<route cues>");

    /// The model slots.
    pub fn model_slots(&self) -> &ModelSlots {
        &self.slots
    }

    /// The registered platform prefixes, normalized.
    pub fn platform_prefixes(&self) -> &[String] {
        &self.prefixes
    }

    /// Routes `message` with the session's `history` (oldest first; only
    /// the last [`HISTORY_WINDOW`] entries are read). Calls a model only
    /// through the model-backed tier the builder was given
    /// ([`RouterBuilder::escalation`]), and never for RC-01 or RC-02.
    pub fn route(&self, message: &str, history: &[IntentEntry]) -> RouteDecision {
        let history = window(history);
        let norm = normalize(message);
        let prefix = self
            .prefix_finder
            .as_ref()
            .and_then(|f| f.find(&norm))
            .map(|m| m.as_str());
        if let Some(prefix) = prefix {
            // A contract rule, taken before any cue or model: the rule tier.
            let c = Classification::new(QueryType::Platform, 1.0)
                .with_tier(Tier::Heuristic)
                .with_reason(Reason::new(
                    "platform_prefix",
                    format!("registered platform prefix `{prefix}` (RC-01)"),
                    1.0,
                ));
            return self.decision(c, RouteRule::PlatformPrefix, false, None);
        }
        let a = self.tiers.classify((message, &norm, history));
        self.decision(a.classification, a.rule, a.ambiguous, a.resolved)
    }

    /// The heuristic's decision with its top-two gap, whether a contract
    /// rule fixed it for the hybrid (RC-02, or a reference resolved through
    /// the history), and the learned model's input (what `cargo xtask
    /// train` learns from). `None` for the `seed` strategy and for a
    /// platform prefix (RC-01), which no model sees.
    pub fn trace(&self, message: &str, history: &[IntentEntry]) -> Option<Traced<QueryType>> {
        let norm = normalize(message);
        if self
            .prefix_finder
            .as_ref()
            .is_some_and(|f| f.is_match(&norm))
        {
            return None;
        }
        self.tiers.trace((message, &norm, window(history)))
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
        let mut c = Classification::new(label, 0.5)
            .with_tier(Tier::Model)
            .with_reason(Reason::new(
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
        let mut d = RouteDecision::new(classification, rule);
        d.model = self.slots.model_for(label).map(str::to_owned);
        d.ambiguous = ambiguous;
        d.resolved = resolved;
        d
    }
}

crate::text::text_classifier!(
    Router, task: "route", input: RouteQuery, example: RouteExample,
    label: QueryType, decision: RouteDecision,
    split: |e| (RouteQuery { id: e.id, text: e.text, history: e.history }, e.label),
    decide: |c, q| c.route(&q.text, &q.history),
    // The message, then its history as `[TYPE] snippet` entries.
    describe: |q| {
        let mut shown = q.text.clone();
        for (i, e) in q.history.iter().enumerate() {
            shown.push_str(if i == 0 { "  (history: " } else { " | " });
            shown.push_str(&format!("[{}] {}", e.kind, e.snippet));
        }
        if !q.history.is_empty() {
            shown.push(')');
        }
        shown
    },
);
