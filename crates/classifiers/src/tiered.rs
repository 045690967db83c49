//! The tiered text classifier every text task shares: the tiers in order
//! (the task's baseline or its cues, then the learned model, then a
//! model-backed tier), the strategy that picks among them, the hybrid rule,
//! and the builder settings; each task only says how its cues trace an
//! input ([`Cues`]) and what its baseline decides ([`Baseline`]).
//!
//! The cascade, for an input:
//! 1. `seed`: the design documents' baseline decides alone.
//! 2. `heuristic`: the cues decide alone.
//! 3. `learned` and `hybrid`: the cues trace the input (decision, top-two
//!    gap, whether a contract rule fixed it, the model's features); the
//!    learned model decides unless a rule fixed the decision (`learned`) or
//!    the cues were confident enough ([`learned::defers`], `hybrid`).
//! 4. The model-backed tier ([`Escalation`], an LLM behind strict timeouts,
//!    when the builder was given one) comes last: a decision whose
//!    confidence is below its threshold, and that no contract rule fixed,
//!    is put to the model with the task's prompt ([`Cues::prompt`]); its
//!    answer replaces the decision (tier `llm`), and any failure keeps
//!    the decision (fail-open).
//!
//! Every decision leaves here naming the tier that took it.

use std::borrow::Cow;
use std::fmt::Debug;
use std::sync::{Arc, OnceLock};

use tact_types::{Classification, Label, Tier};

use crate::Error;
use crate::escalation::{Escalation, LabelRequest, MODEL_CONFIDENCE};
use crate::learned::{self, HybridThresholds, LinearModel, ModelInput, Task, Traced};

/// Which tiers a classifier runs: the four strategies every text task
/// offers, in task-independent form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The cues alone.
    Heuristic,
    /// The baseline alone.
    Seed,
    /// The learned model, unless a contract rule fixed the decision.
    Learned,
    /// The cues when confident, the learned model otherwise.
    Hybrid,
}

/// What the cues found for one input, with what the later tiers need.
pub(crate) struct Trace<D> {
    /// The cues' decision.
    pub decision: D,
    /// The gap between the top two scores, in the cues' own units.
    pub gap: f32,
    /// A contract rule decided: no strategy defers it (routing's RC-02).
    pub fixed: bool,
    /// The hybrid keeps it whatever its confidence (routing's reference
    /// resolved through the history, which the model cannot see).
    pub kept_by_hybrid: bool,
    /// The normalized input, when the cues computed it on the way.
    pub text: Option<String>,
}

/// A task's cue-based tier (crate-private): what the generic classifier
/// needs from it.
pub(crate) trait Cues: Clone + Debug + Send + Sync {
    /// The task's labels.
    type Label: Label;
    /// One input (the text and what goes with it).
    type Input<'a>: Copy;
    /// The task's decision (a classification plus task-specific fields).
    type Decision;
    /// Where the cues push the names of what fired (the model's extra
    /// features).
    type Extras: Default + AsRef<[&'static str]>;

    /// The learned model's task.
    const TASK: Task;

    /// The task of a second default model, for the inputs
    /// [`Cues::alternate`] picks (effort's questions read in their
    /// message); `None` for one model.
    const ALTERNATE: Option<Task> = None;

    /// Whether the [`Cues::ALTERNATE`] model reads this input.
    fn alternate(_input: Self::Input<'_>) -> bool {
        false
    }

    /// The cues' decision alone.
    fn decide(&self, input: Self::Input<'_>) -> Self::Decision;

    /// The cues' decision with its gap and the model's features.
    fn trace(&self, input: Self::Input<'_>, extras: &mut Self::Extras) -> Trace<Self::Decision>;

    /// The normalized input the model reads, when the trace did not give it.
    fn model_text<'a>(input: Self::Input<'a>) -> Cow<'a, str>;

    /// The decision's classification.
    fn classification(decision: &mut Self::Decision) -> &mut Classification<Self::Label>;

    /// The decision's classification, taken out.
    fn into_classification(decision: Self::Decision) -> Classification<Self::Label>;

    /// The decision with the learned model's classification in its place.
    fn with_model(decision: Self::Decision, model: Classification<Self::Label>) -> Self::Decision;

    /// Whether a decision the hybrid deferred may stand when the model is
    /// less sure than the thresholds ask (by default it does).
    fn stands_unsure(_decision: &mut Self::Decision) -> bool {
        true
    }

    /// The prompt a language model gets for this input (the model-backed
    /// tier); `product` names what the assistant serves (routing only).
    fn prompt(input: Self::Input<'_>, product: &str) -> String;

    /// The decision with a language model's classification in its place
    /// (default: as the learned model's).
    fn with_answer(
        decision: Self::Decision,
        answer: Classification<Self::Label>,
    ) -> Self::Decision {
        Self::with_model(decision, answer)
    }
}

/// A task's baseline tier (the design documents' procedure, kept for
/// comparison).
pub(crate) trait Baseline<C: Cues>: Clone + Debug + Send + Sync {
    /// The baseline's decision.
    fn decide(&self, input: C::Input<'_>) -> C::Decision;
}

/// The tier that reads the input first.
#[derive(Debug, Clone)]
enum First<C, S> {
    Cues(C),
    Seed(S),
}

/// The builder settings every text classifier shares.
#[derive(Debug, Clone, Default)]
pub(crate) struct Settings {
    /// A model given to the builder instead of the embedded default.
    pub model: Option<Arc<LinearModel>>,
    /// Thresholds given to the builder instead of the model's.
    pub thresholds: Option<HybridThresholds>,
    /// The model-backed tier, if any.
    pub escalation: Option<Escalation>,
}

/// The generic tiered classifier: one per task instance.
#[derive(Debug, Clone)]
pub(crate) struct Tiered<C, S> {
    kind: Kind,
    first: First<C, S>,
    /// The task's model and its thresholds.
    model: Slot,
    /// The task's second default model and its thresholds, for the inputs
    /// [`Cues::alternate`] picks (none when the builder was given a model).
    alternate: Option<Slot>,
    escalation: Option<Escalation>,
}

/// A model and its hybrid thresholds: settled when the classifier is
/// built (a host's model, or none), or the task's embedded default, read
/// the first time an input needs it. `tact effort` on a bare question
/// never reads the model of questions in their messages, nor `tact
/// questions` the model of bare questions (reading the two took a third
/// of a one-question command).
#[derive(Debug, Clone)]
enum Slot {
    /// Settled at build.
    Ready(Option<Arc<LinearModel>>, HybridThresholds),
    /// The embedded default of `task`.
    Default {
        task: Task,
        /// The builder's thresholds, if it was given any.
        thresholds: Option<HybridThresholds>,
        /// The model and its thresholds once read (shared by clones); no
        /// model if the embedded one failed to read (logged once).
        settled: Arc<OnceLock<(Option<Arc<LinearModel>>, HybridThresholds)>>,
    },
}

impl Slot {
    fn default_of(task: Task, thresholds: Option<HybridThresholds>) -> Self {
        Self::Default {
            task,
            thresholds,
            settled: Arc::new(OnceLock::new()),
        }
    }

    /// The model, if any, and the thresholds.
    fn get(&self) -> (Option<&LinearModel>, HybridThresholds) {
        let (model, thresholds) = match self {
            Self::Ready(m, t) => (m, t),
            Self::Default {
                task,
                thresholds,
                settled,
            } => {
                let (m, t) = settled.get_or_init(|| {
                    learned::settle(*task, true, None, *thresholds).unwrap_or_else(|e| {
                        tracing::error!(error = %e, task = task.name(), "an embedded model failed to read");
                        (None, thresholds.unwrap_or(learned::FALLBACK_THRESHOLDS))
                    })
                });
                (m, t)
            }
        };
        (model.as_deref(), *thresholds)
    }
}

impl<C: Cues, S: Baseline<C>> Tiered<C, S> {
    /// Builds the tiers `kind` needs: the baseline or the cues, and the
    /// model (the given one checked against the task, or the embedded
    /// default) with its thresholds.
    pub(crate) fn build(
        kind: Kind,
        settings: Settings,
        cues: impl FnOnce() -> Result<C, Error>,
        seed: impl FnOnce() -> Result<S, Error>,
    ) -> Result<Self, Error> {
        let first = match kind {
            Kind::Seed => First::Seed(seed()?),
            _ => First::Cues(cues()?),
        };
        let needs_model = matches!(kind, Kind::Learned | Kind::Hybrid);
        // A host's model serves every input; the defaults may be two.
        let defaults = needs_model && settings.model.is_none();
        let alternate = match C::ALTERNATE {
            Some(task) if defaults => Some(Slot::default_of(task, settings.thresholds)),
            _ => None,
        };
        let model = if defaults {
            Slot::default_of(C::TASK, settings.thresholds)
        } else {
            let (model, thresholds) =
                learned::settle(C::TASK, needs_model, settings.model, settings.thresholds)?;
            Slot::Ready(model, thresholds)
        };
        Ok(Self {
            kind,
            first,
            model,
            alternate,
            escalation: settings.escalation,
        })
    }

    /// The model-backed tier, if any.
    pub(crate) fn escalation(&self) -> Option<&Escalation> {
        self.escalation.as_ref()
    }

    /// Names the model the model-backed tier asks, unless it names one
    /// already (a router's main slot, RC-05).
    pub(crate) fn default_model_name(&mut self, name: Option<&str>) {
        if let (Some(e), Some(name)) = (&mut self.escalation, name) {
            if e.model_name.is_none() {
                e.model_name = Some(Arc::from(name));
            }
        }
    }

    /// The hybrid thresholds in use.
    pub(crate) fn thresholds(&self) -> HybridThresholds {
        self.model.get().1
    }

    /// The cues, `None` for the baseline.
    pub(crate) fn cues(&self) -> Option<&C> {
        match &self.first {
            First::Cues(c) => Some(c),
            First::Seed(_) => None,
        }
    }

    /// Classifies one input through the tiers of the strategy, then the
    /// model-backed tier when the decision is unsure.
    pub(crate) fn classify(&self, input: C::Input<'_>) -> C::Decision {
        let (mut decision, fixed) = self.cheaper(input);
        match &self.escalation {
            Some(e) if e.asks(C::classification(&mut decision).confidence, fixed) => {
                escalate::<C>(e, input, decision)
            }
            _ => decision,
        }
    }

    /// The decision of the cheaper tiers (baseline or cues, then the
    /// learned model), and whether a contract rule fixed it.
    fn cheaper(&self, input: C::Input<'_>) -> (C::Decision, bool) {
        let cues = match &self.first {
            // The baseline is kept as the design wrote it: never escalated.
            First::Seed(s) => return (named::<C>(s.decide(input), Tier::Seed), true),
            First::Cues(c) => c,
        };
        // The alternate model reads its inputs, or the task's if it failed
        // to read.
        let alternate = match &self.alternate {
            Some(a) if C::alternate(input) => Some(a.get()).filter(|(m, _)| m.is_some()),
            _ => None,
        };
        let (model, thresholds) = alternate.unwrap_or_else(|| self.model.get());
        let thresholds = &thresholds;
        let Some(model) = model else {
            let mut extras = C::Extras::default();
            if self.escalation.is_none() {
                return (named::<C>(cues.decide(input), Tier::Heuristic), false);
            }
            // The trace says whether a contract rule fixed the decision.
            let t = cues.trace(input, &mut extras);
            return (named::<C>(t.decision, Tier::Heuristic), t.fixed);
        };
        let mut extras = C::Extras::default();
        let t = cues.trace(input, &mut extras);
        let mut decision = t.decision;
        let confidence = C::classification(&mut decision).confidence;
        let defer = match self.kind {
            Kind::Learned => !t.fixed,
            _ => learned::defers(confidence, t.gap, t.fixed || t.kept_by_hybrid, thresholds),
        };
        if !defer {
            return (named::<C>(decision, Tier::Heuristic), t.fixed);
        }
        let text = t.text.map_or_else(|| C::model_text(input), Cow::Owned);
        let hybrid = self.kind == Kind::Hybrid;
        let (c, p) = learned::model_decision(
            model,
            &text,
            extras.as_ref(),
            hybrid.then(|| (C::classification(&mut decision), thresholds, t.gap)),
        );
        if hybrid && !thresholds.trusts(&p) && C::stands_unsure(&mut decision) {
            // The model is unsure too, or the text is unlike its training
            // data: the heuristic's decision stands.
            let h = C::classification(&mut decision);
            if h.reasons.is_empty() {
                // Its reasons went to the model's decision (both agreed).
                h.reasons = c.reasons;
            }
            h.reasons.push(if p.coverage() < thresholds.min_model_coverage {
                tact_types::Reason::new(
                    "model_unfamiliar",
                    "deferred, but the learned model saw too few of the words in training: the heuristic stands",
                    0.0,
                )
            } else {
                tact_types::Reason::new(
                    "model_unsure",
                    "deferred, but the learned model was less sure than the hybrid asks: the heuristic stands",
                    0.0,
                )
            });
            return (named::<C>(decision, Tier::Heuristic), t.fixed);
        }
        (C::with_model(decision, c), false)
    }

    /// The cues' decision with its gap and the model's input (what `cargo
    /// xtask train` learns from); `None` for the baseline.
    pub(crate) fn trace(&self, input: C::Input<'_>) -> Option<Traced<C::Label>> {
        let cues = self.cues()?;
        let mut extras = C::Extras::default();
        let t = cues.trace(input, &mut extras);
        Some(Traced {
            heuristic: C::into_classification(t.decision),
            gap: t.gap,
            fixed: t.fixed || t.kept_by_hybrid,
            input: ModelInput {
                text: t.text.unwrap_or_else(|| C::model_text(input).into_owned()),
                extras: extras.as_ref().to_vec(),
            },
        })
    }
}

/// The decision, naming the tier that took it.
fn named<C: Cues>(mut decision: C::Decision, tier: Tier) -> C::Decision {
    C::classification(&mut decision).tier = Some(tier);
    decision
}

/// Puts an unsure decision to the model-backed tier: its answer replaces
/// the decision (tier `llm`, naming the model, the earlier decision's
/// reasons kept when both agree); without one, the decision stands.
#[cold]
#[inline(never)]
fn escalate<C: Cues>(
    e: &Escalation,
    input: C::Input<'_>,
    mut decision: C::Decision,
) -> C::Decision {
    let labels: Vec<&'static str> = C::Label::ALL.iter().map(|l| l.as_str()).collect();
    let prompt = C::prompt(input, &e.product);
    let mut request = LabelRequest::new(C::TASK.name(), &labels, &prompt);
    request.model = e.model_name.as_deref();
    let Some(answer) = e.model.ask(&request) else {
        return decision;
    };
    let Some(&label) = C::Label::ALL.get(answer.label) else {
        return decision;
    };
    let before = C::classification(&mut decision);
    let mut why = String::with_capacity(64);
    why.push_str(&answer.model);
    why.push_str(" answered ");
    why.push_str(label.as_str());
    if let Some(r) = answer
        .reason
        .as_deref()
        .map(str::trim)
        .filter(|r| !r.is_empty())
    {
        why.push_str(": ");
        // A model's reason is shown, never trusted to be short.
        why.extend(r.chars().take(200));
    }
    why.push_str(" (the ");
    why.push_str(before.tier.map_or("heuristic", Tier::as_str));
    why.push_str(" tier said ");
    why.push_str(before.label.as_str());
    why.push_str(" at confidence ");
    learned::push_fixed2(&mut why, before.confidence);
    why.push(')');
    let mut c = Classification::new(label, MODEL_CONFIDENCE)
        .with_tier(Tier::Model)
        .with_reason(tact_types::Reason::new("llm", why, MODEL_CONFIDENCE));
    c.tier_model = Some(answer.model);
    if before.label == label {
        c.reasons.append(&mut before.reasons);
    }
    C::with_answer(decision, c)
}

/// Writes the builder methods every text classifier's builder shares
/// (`strategy`, `model`, `hybrid_thresholds`), on a builder with fields
/// `strategy` and `settings`.
macro_rules! builder_methods {
    (task: $task:literal, labels: $labels:literal) => {
        /// Chooses the strategy (default: [`Strategy::Hybrid`]).
        #[must_use]
        pub fn strategy(mut self, strategy: Strategy) -> Self {
            self.strategy = strategy;
            self
        }

        #[doc = concat!(
                            "Uses `model` instead of the embedded default for the `learned` and\n",
                            "`hybrid` strategies (checked at `build`: it must be\n",
                            "a `", $task, "` model with labels ", $labels, ")."
                        )]
        #[must_use]
        pub fn model(mut self, model: $crate::learned::LinearModel) -> Self {
            self.settings.model = Some(std::sync::Arc::new(model));
            self
        }

        /// Sets the hybrid thresholds: the heuristic decides when its
        /// confidence and the gap between its top two scores reach them.
        /// By default, the thresholds stored with the model.
        #[must_use]
        pub fn hybrid_thresholds(mut self, thresholds: $crate::learned::HybridThresholds) -> Self {
            self.settings.thresholds = Some(thresholds);
            self
        }

        /// Adds the model-backed tier: decisions whose confidence is below
        /// its threshold are put to a language model, failing open (see
        /// [`Escalation`](crate::escalation::Escalation)).
        #[must_use]
        pub fn escalation(mut self, escalation: $crate::escalation::Escalation) -> Self {
            self.settings.escalation = Some(escalation);
            self
        }
    };
}

/// Writes what every text classifier offers besides classifying: a shared
/// default instance compiled on first use, and its strategy and
/// thresholds, on a classifier with fields `strategy` and `tiers`.
macro_rules! classifier_methods {
    (ty: $ty:ty, builder: $builder:ty, what: $what:literal) => {
        /// Starts a builder.
        pub fn builder() -> $builder {
            <$builder>::default()
        }

        /// A shared default instance, compiled on first use.
        pub fn shared() -> Result<&'static $ty, $crate::Error> {
            static SHARED: std::sync::OnceLock<Result<$ty, String>> = std::sync::OnceLock::new();
            SHARED
                .get_or_init(|| <$ty>::builder().build().map_err(|e| e.to_string()))
                .as_ref()
                .map_err(|e| {
                    $crate::Error::Core(tact_core::Error::Pattern {
                        pattern: $what.into(),
                        message: e.clone(),
                    })
                })
        }

        /// The strategy in use.
        pub fn strategy(&self) -> Strategy {
            self.strategy
        }

        /// The hybrid thresholds in use: the builder's, else the model's
        /// (with the embedded models, effort's questions read in their
        /// message use the in-message model's own).
        pub fn hybrid_thresholds(&self) -> $crate::learned::HybridThresholds {
            self.tiers.thresholds()
        }

        /// The model-backed tier, if the builder was given one.
        pub fn escalation(&self) -> Option<&$crate::escalation::Escalation> {
            self.tiers.escalation()
        }
    };
}

/// Defines a text classifier over `Tiered<cues, baseline>` and its
/// builder: the builder's shared methods and `build`, the classifier's
/// shared methods (see [`builder_methods`] and [`classifier_methods`]).
macro_rules! tiered_classifier {
    (
        $(#[$meta:meta])* pub struct $ty:ident(Tiered<$cues:ty, $seed:ty>);
        $(#[$bmeta:meta])* pub struct $builder:ident;
        task: $task:literal, labels: $labels:literal, what: $what:literal,
        build: $build_doc:literal, baseline: $seed_new:expr $(,)?
    ) => {
        $(#[$bmeta])*
        #[derive(Debug, Clone, Default)]
        pub struct $builder {
            strategy: Strategy,
            settings: $crate::tiered::Settings,
        }

        impl $builder {
            $crate::tiered::builder_methods!(task: $task, labels: $labels);

            #[doc = $build_doc]
            pub fn build(self) -> Result<$ty, $crate::Error> {
                Ok($ty {
                    strategy: self.strategy,
                    tiers: $crate::tiered::Tiered::build(
                        self.strategy.kind(),
                        self.settings,
                        <$cues>::new,
                        $seed_new,
                    )?,
                })
            }
        }

        $(#[$meta])*
        #[derive(Debug, Clone)]
        pub struct $ty {
            strategy: Strategy,
            tiers: $crate::tiered::Tiered<$cues, $seed>,
        }

        impl $ty {
            $crate::tiered::classifier_methods!(ty: $ty, builder: $builder, what: $what);
        }
    };
}

pub(crate) use {builder_methods, classifier_methods, tiered_classifier};
