//! Question effort classification: strategies, the classifier and its
//! builder, and whole-message question extraction.
//!
//! Four strategies:
//! - [`Strategy::Hybrid`] (the default, as it beats the heuristic on the
//!   dev split): the heuristic when confident, the learned model otherwise.
//! - [`Strategy::Heuristic`]: weighted cues in English, Spanish, German
//!   and Italian following the labelling guide (options and concrete
//!   confirmations are low, preference elicitation is medium, investigation,
//!   measurement, gathering data and blocking strategy decisions are high;
//!   multi-part questions take their highest part; a `context` that answers
//!   the question makes it low).
//! - [`Strategy::Seed`]: ADR-001-002's keyword + length tree, unchanged, as
//!   the baseline.
//! - [`Strategy::Learned`]: the learned linear model (see
//!   [`crate::learned`]) over the question's n-grams and the heuristic's
//!   cues.
//!
//! The hybrid keeps the heuristic's decision when its confidence and
//! top-two gap clear the thresholds ([`HybridThresholds`](crate::learned::HybridThresholds), stored with the
//! model or set on the builder) and asks the learned model otherwise; the
//! result's `tier` says which decided.

mod heuristic;
pub mod seed;

use std::borrow::Cow;

use tact_core::{extract_questions, normalize};
use tact_types::dataset::{EffortExample, EffortQuery};
use tact_types::{Classification, EffortLevel, QuestionEffort};

use crate::learned::{Task, Traced};
use crate::tiered::{self, Baseline, Cues, Trace};

crate::strategy::strategy_enum! {
    task: "effort",
    what: "Which decision procedure an [`EffortClassifier`] uses.",
    heuristic: "The labelling-guide heuristic.",
    seed: "ADR-001-002's keyword + length tree, kept as the baseline.",
    default: Hybrid,
    all: [Hybrid, Heuristic, Seed, Learned],
}

/// A question, what the user already has at hand, and whether it is read
/// in the agent message it was asked in.
type Input<'a> = (&'a str, Option<&'a str>, bool);

impl Cues for heuristic::Heuristic {
    type Label = EffortLevel;
    type Input<'a> = Input<'a>;
    type Decision = Classification<EffortLevel>;
    type Extras = heuristic::Extras;

    const TASK: Task = Task::Effort;
    const ALTERNATE: Option<Task> = Some(Task::EffortInMessage);

    fn alternate((_, _, in_message): Input<'_>) -> bool {
        in_message
    }

    fn decide(&self, (question, context, _): Input<'_>) -> Self::Decision {
        self.classify(question, context)
    }

    fn trace(
        &self,
        (question, context, _): Input<'_>,
        extras: &mut Self::Extras,
    ) -> Trace<Self::Decision> {
        let (decision, gap, text) = self.classify_traced(question, context, Some(extras));
        // The guide's common low shapes, "Would you like me to ...?",
        // "Should I go ahead with ...?", "Do you want ...?", "Do you
        // approve this plan?": a yes/no on a concrete proposal, or a
        // confirmation of something concrete. The cues read them precisely
        // (on the annotator-written calibration split and the real train
        // and calibration splits, 377 of 382 such decisions are right),
        // where the model, trained on annotator-written text, turned real
        // ones medium, so the hybrid keeps them from the model.
        let kept_by_hybrid = decision.label == EffortLevel::Low
            && extras.iter().any(|&n| {
                matches!(
                    n,
                    "agent_proposal" | "yes_no_wish" | "confirmation" | "confirmation_fine"
                )
            });
        Trace {
            decision,
            gap,
            fixed: false,
            kept_by_hybrid,
            // The model's form of the question, as `model_text` gives it.
            text: text.map(crate::opening::model_form),
        }
    }

    fn model_text<'a>(input: Self::Input<'a>) -> Cow<'a, str> {
        Cow::Owned(crate::opening::model_form(normalize(input.0)))
    }

    fn classification(decision: &mut Self::Decision) -> &mut Self::Decision {
        decision
    }

    fn into_classification(decision: Self::Decision) -> Self::Decision {
        decision
    }

    fn with_model(_: Self::Decision, model: Self::Decision) -> Self::Decision {
        model
    }

    fn prompt((question, context, _): Input<'_>, _: &str) -> String {
        model_prompt(question, context)
    }
}

/// The labelling guide's definitions of the three levels, for a language
/// model (ADR-001-002's Phase 3).
const GUIDE: &str = "Classify how much effort a clarifying question that an AI agent asked costs its user to answer.\nlow: the user answers at once, without thinking hard or looking anything up: picking one of the options the question offers (\"PostgreSQL or MySQL?\"), a yes/no on a concrete proposal or guess (\"Should I go ahead with it?\"), or a fact already written in the context.\nmedium: the user must form and state a preference or decision the question does not offer as options, or recall and describe something, but need not investigate and the work is not blocked on a long answer (\"What authentication method should we use?\").\nhigh: the user must investigate, research, measure, read documents, fetch or reproduce something (logs, stack traces, metrics, a file's content), try a change and report back, or take a blocking decision about architecture or strategy with trade-offs (\"Should we investigate distributed caching strategies before proceeding?\").\nA question with several parts takes the highest effort of its parts. When the context already answers the question, it is low.";

/// The effort prompt of the model-backed tier: the guide, the context (if
/// any) and the question, an answer asked as a JSON object.
fn model_prompt(question: &str, context: Option<&str>) -> String {
    let context = context.filter(|c| !c.trim().is_empty());
    let mut out =
        String::with_capacity(GUIDE.len() + question.len() + context.map_or(0, str::len) + 160);
    out.push_str(GUIDE);
    out.push_str("\n\n<context>\n");
    out.push_str(context.unwrap_or("(none)"));
    out.push_str("\n</context>\n\n<question>\n");
    out.push_str(question);
    out.push_str("\n</question>\n\nAnswer with a JSON object: {\"label\": one of low, medium, high, \"reason\": a few words}.");
    out
}

/// ADR-001-002's tree, which reads the question alone.
#[derive(Debug, Clone, Copy)]
struct SeedTree;

impl Baseline<heuristic::Heuristic> for SeedTree {
    fn decide(&self, (question, ..): Input<'_>) -> Classification<EffortLevel> {
        seed::classify(question)
    }
}

tiered::tiered_classifier! {
    /// Classifies the effort a clarifying question costs the user.
    pub struct EffortClassifier(Tiered<heuristic::Heuristic, SeedTree>);
    /// Builder of an [`EffortClassifier`].
    pub struct EffortClassifierBuilder;
    task: "effort",
    labels: "`low`, `medium`, `high`",
    what: "<effort cues>",
    build: "Compiles the classifier's cue sets (and loads the model for the `learned` and `hybrid` strategies). Do this once and share the classifier: classification takes `&self`.",
    baseline: || Ok(SeedTree),
}

impl EffortClassifier {
    /// Classifies one question. `context` is what the user already has at
    /// hand (the task description or spec the agent was given); when it
    /// answers the question, the question is low effort. The result names
    /// the tier that decided.
    pub fn classify(&self, question: &str, context: Option<&str>) -> Classification<EffortLevel> {
        self.tiers.classify((question, context, false))
    }

    /// The heuristic's decision with its top-two gap and the learned
    /// model's input (what `cargo xtask train` learns from). `None` for
    /// the `seed` strategy, which has no cues.
    pub fn trace(&self, question: &str, context: Option<&str>) -> Option<Traced<EffortLevel>> {
        self.tiers.trace((question, context, false))
    }

    /// [`EffortClassifier::trace`] for a question inside its message, as
    /// [`EffortClassifier::classify_in`] reads it: a pick among the options
    /// the message lists is a fixed decision, which the hybrid never
    /// defers.
    pub fn trace_in(
        &self,
        question: &str,
        message: &InMessage,
        at: usize,
        context: Option<&str>,
    ) -> Option<Traced<EffortLevel>> {
        let mut t = self.tiers.trace((question, context, true))?;
        if let Some(r) = picks_listed_option(question, message.items_before(at)) {
            t.heuristic = r;
            t.fixed = true;
        }
        Some(t)
    }

    /// Classifies a question the agent asked inside a message (its list
    /// items found once by [`InMessage::new`]), `at` the byte offset where
    /// the question starts in it. The message is what the user has in
    /// front of them: a question that asks the user to pick ("Which
    /// approach do you prefer?", "Let me know how you'd like to proceed")
    /// after the message lists two or more options is low effort, as
    /// picking one of the options offered is (decided by the heuristic
    /// tier, under the `hybrid` and `heuristic` strategies). Otherwise it
    /// is [`EffortClassifier::classify`], but for the learned tier: with
    /// the embedded models, a question read in its message goes to the
    /// model that also learned from real agents' questions in their
    /// messages ([`Task::EffortInMessage`]; a model given to the builder
    /// serves both). Linear in the question's length
    /// (and logarithmic in the message's items), so classifying every
    /// question of a message stays linear in the message.
    pub fn classify_in(
        &self,
        question: &str,
        message: &InMessage,
        at: usize,
        context: Option<&str>,
    ) -> Classification<EffortLevel> {
        if matches!(self.strategy(), Strategy::Hybrid | Strategy::Heuristic) {
            if let Some(r) = picks_listed_option(question, message.items_before(at)) {
                return r;
            }
        }
        self.tiers.classify((question, context, true))
    }

    /// Finds every question in a whole agent message and classifies each
    /// in its message ([`EffortClassifier::classify_in`]).
    pub fn questions(&self, message: &str) -> Vec<QuestionEffort> {
        let _span = tracing::debug_span!("effort.questions", bytes = message.len()).entered();
        let asked_in = InMessage::new(message);
        extract_questions(message)
            .into_iter()
            .map(|seg| {
                let text = seg.text(message);
                let r = self.classify_in(text, &asked_in, seg.start, None);
                QuestionEffort::new(text, seg.start, seg.end, r)
            })
            .collect()
    }
}

/// A question that asks the user to pick, in its normalized form: which
/// one, which approach, a preference, how to proceed, what to do next.
static PICK: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
    regex::Regex::new(concat!(
        r"(?-u:\b)(?:which (?:[a-z]+ )?(?:one|ones|option|options|approach|path|direction|step|steps|area|areas|part|way|fix|plan|of (?:these|those|them|the)|would you|do you|should (?:i|we)|you)",
        r"|prefer[a-z]*|preference|your priority|your choice|choose|pick",
        r"|how (?:would|do) you (?:like|want) (?:me )?to proceed|how you(?: would|'d|d) like (?:me )?to proceed",
        r"|what would you like (?:me )?to do|where (?:would|do) you (?:like|want) (?:me )?to start",
        r"|which (?:[a-z]+ ){1,3}(?:do|would|should) you",
        r"|cual prefieres|que opcion|cual de|prefieres|welche (?:option|variante)|bevorzug[a-z]*",
        r"|quel(?:le)? [a-z]+ prefer[a-z]*|ktor[a-z]*)(?-u:\b)",
    ))
    .ok()
});

/// An agent message its questions are classified in
/// ([`EffortClassifier::classify_in`]): where its list items end, found
/// in one pass.
#[derive(Debug, Clone, Default)]
pub struct InMessage {
    item_ends: Vec<usize>,
}

impl InMessage {
    /// Finds the list items of `message` (linear in its length).
    pub fn new(message: &str) -> Self {
        Self {
            item_ends: tact_core::text::list_item_lines(message)
                .into_iter()
                .map(|r| r.end)
                .collect(),
        }
    }

    /// How many list items end before byte offset `at` (an item on the
    /// line of `at` itself does not count).
    pub fn items_before(&self, at: usize) -> usize {
        self.item_ends.partition_point(|&e| e < at)
    }
}

/// Low effort when `question` asks to pick and its message lists `items`
/// (two or more) options before it.
fn picks_listed_option(question: &str, items: usize) -> Option<Classification<EffortLevel>> {
    if items < 2 {
        return None;
    }
    let picks = PICK
        .as_ref()
        .is_some_and(|re| re.is_match(&normalize(question)));
    if !picks {
        return None;
    }
    let mut detail = String::from("asks to pick one of the ");
    crate::detail::push_count(&mut detail, items as u64);
    detail.push_str(" options its message lists");
    let mut c =
        Classification::new(EffortLevel::Low, 0.9).with_reasons(vec![tact_types::Reason::new(
            "picks_listed_option",
            detail,
            2.0,
        )]);
    c.tier = Some(tact_types::Tier::Heuristic);
    Some(c)
}

crate::text::text_classifier!(
    EffortClassifier, task: "effort", input: EffortQuery, example: EffortExample,
    label: EffortLevel, decision: Classification<EffortLevel>,
    split: |e| (EffortQuery { id: e.id, text: e.text, context: e.context, message: e.message }, e.label),
    decide: |c, q| match q.message.as_deref() {
        // The question where it stands in its message (or, not found
        // there, after the whole message).
        Some(m) => c.classify_in(
            &q.text,
            &InMessage::new(m),
            m.find(q.text.as_str()).unwrap_or(m.len()),
            q.context.as_deref(),
        ),
        None => c.classify(&q.text, q.context.as_deref()),
    },
);
