//! [`TextClassifier`]: what every text classifier of tact (effort,
//! granularity, route) offers to tools that treat them alike, such as batch
//! runners and evaluation: inputs and labelled examples as the labelling
//! guide's datasets carry them, a strategy chosen by name, and a
//! serializable decision that always names the tier that took it.
//!
//! ```
//! use tact_classifiers::effort::EffortClassifier;
//! use tact_classifiers::{TextClassifier, TextDecision};
//! use tact_types::{Label, Tier};
//!
//! fn first_label<C: TextClassifier>(c: &C, lines: &[&str]) -> Option<String> {
//!     let input = C::input(lines.first()?.to_string());
//!     let d = c.decide(&input);
//!     assert!(matches!(d.tier(), Tier::Heuristic | Tier::Learned | Tier::Seed | Tier::Model));
//!     Some(d.label().as_str().to_owned())
//! }
//!
//! let c = EffortClassifier::with_strategy("heuristic")?;
//! assert_eq!(first_label(&c, &["Tabs or spaces?"]).as_deref(), Some("low"));
//! # Ok::<(), tact_classifiers::Error>(())
//! ```

use serde::Serialize;
use serde::de::DeserializeOwned;
use tact_types::{Classification, GranularityDecision, Label, Reason, RouteDecision, Tier};

use crate::Error;

/// A text classifier's decision: a label with its confidence and reasons,
/// and the tier that took it.
pub trait TextDecision: Serialize {
    /// The task's labels.
    type Label: Label;

    /// The decided label.
    fn label(&self) -> Self::Label;

    /// The confidence in the label, in [0, 1].
    fn confidence(&self) -> f32;

    /// The cues and rules behind the decision.
    fn reasons(&self) -> &[Reason];

    /// The tier that took the decision (tact's classifiers always name it;
    /// a classification built by hand without one counts as the heuristic).
    fn tier(&self) -> Tier;

    /// The decision's classification part.
    fn classification(&self) -> &Classification<Self::Label>;
}

impl<L: Label + Serialize> TextDecision for Classification<L> {
    type Label = L;

    fn label(&self) -> L {
        self.label
    }

    fn confidence(&self) -> f32 {
        self.confidence
    }

    fn reasons(&self) -> &[Reason] {
        &self.reasons
    }

    fn tier(&self) -> Tier {
        self.tier.unwrap_or(Tier::Heuristic)
    }

    fn classification(&self) -> &Classification<L> {
        self
    }
}

/// Implements [`TextDecision`] for a decision that flattens a
/// classification into its own fields.
macro_rules! decision_with_classification {
    ($ty:ty, $label:ty) => {
        impl TextDecision for $ty {
            type Label = $label;

            fn label(&self) -> $label {
                self.classification.label
            }

            fn confidence(&self) -> f32 {
                self.classification.confidence
            }

            fn reasons(&self) -> &[Reason] {
                &self.classification.reasons
            }

            fn tier(&self) -> Tier {
                self.classification.tier()
            }

            fn classification(&self) -> &Classification<$label> {
                &self.classification
            }
        }
    };
}

decision_with_classification!(GranularityDecision, tact_types::Granularity);
decision_with_classification!(RouteDecision, tact_types::QueryType);

/// One of tact's text classifiers, as batch tools and evaluation see it.
///
/// Each classifier keeps its own richer API (`EffortClassifier::classify`
/// with a context, `Router::route` with a history, ...); this trait is the
/// part they share, so that a tool written once serves every text task.
pub trait TextClassifier: Sized + Send + Sync {
    /// The task's name in the labelling guide (`effort`, `granularity`,
    /// `route`).
    const TASK: &'static str;

    /// One input as batch files and datasets carry it: `text`, an optional
    /// `id`, and what else the task reads (a context, a history).
    type Input: DeserializeOwned + Serialize;

    /// One line of the task's labelled dataset.
    type Example: DeserializeOwned;

    /// The task's labels.
    type Label: Label;

    /// What [`decide`](Self::decide) returns.
    type Decision: TextDecision<Label = Self::Label>;

    /// The strategy names, the default first.
    fn strategies() -> Vec<&'static str>;

    /// Builds the classifier with the named strategy (`default` for the
    /// default), everything else at its default.
    fn with_strategy(strategy: &str) -> Result<Self, Error>;

    /// Builds the classifier with the named strategy and a model-backed
    /// tier (see [`Escalation`](crate::escalation::Escalation)). tact's
    /// classifiers implement it; by default, an error (no such tier).
    fn with_escalation(
        strategy: &str,
        escalation: crate::escalation::Escalation,
    ) -> Result<Self, Error> {
        let _ = escalation;
        Err(Error::InvalidConfig {
            key: "escalation".into(),
            value: strategy.to_owned(),
            expected: "a classifier with a model-backed tier",
        })
    }

    /// An input made of bare text (a plain line of a batch file).
    fn input(text: String) -> Self::Input;

    /// The input's text.
    fn text(input: &Self::Input) -> &str;

    /// The input's identifier, if it has one.
    fn id(input: &Self::Input) -> Option<&str>;

    /// The input as a person reads it in a list of errors (the text, and
    /// what goes with it when it matters).
    fn describe(input: &Self::Input) -> String {
        Self::text(input).to_owned()
    }

    /// A labelled example split into its input and its gold label.
    fn split(example: Self::Example) -> (Self::Input, Self::Label);

    /// Classifies one input; the decision names its tier.
    fn decide(&self, input: &Self::Input) -> Self::Decision;
}

/// Implements [`TextClassifier`] for a classifier whose input is one of
/// the labelling guide's query records (`id`, `text`, and the task's own
/// fields, all defaulted), given how an example splits and how an input is
/// decided.
macro_rules! text_classifier {
    (
        $ty:ty, task: $task:literal, input: $input:ty, example: $example:ty,
        label: $label:ty, decision: $decision:ty,
        split: |$e:ident| $split:expr,
        decide: |$c:ident, $i:ident| $decide:expr
        $(, describe: |$d:ident| $describe:expr)? $(,)?
    ) => {
        impl $crate::TextClassifier for $ty {
            const TASK: &'static str = $task;
            type Input = $input;
            type Example = $example;
            type Label = $label;
            type Decision = $decision;

            fn strategies() -> Vec<&'static str> {
                Strategy::ALL.iter().map(|s| s.name()).collect()
            }

            fn with_strategy(strategy: &str) -> Result<Self, $crate::Error> {
                Self::builder().strategy(strategy.parse()?).build()
            }

            fn with_escalation(
                strategy: &str,
                escalation: $crate::escalation::Escalation,
            ) -> Result<Self, $crate::Error> {
                Self::builder().strategy(strategy.parse()?).escalation(escalation).build()
            }

            fn input(text: String) -> $input {
                <$input as $crate::text::WithText>::default_with_text(text)
            }

            fn text(input: &$input) -> &str {
                &input.text
            }

            fn id(input: &$input) -> Option<&str> {
                input.id.as_deref()
            }

            $(
                fn describe($d: &$input) -> String {
                    $describe
                }
            )?

            fn split($e: $example) -> ($input, $label) {
                $split
            }

            fn decide(&self, $i: &$input) -> $decision {
                let $c = self;
                $decide
            }
        }
    };
}

pub(crate) use text_classifier;

/// Builds a query record from bare text.
pub(crate) trait WithText: Default {
    /// The record with this text and every other field at its default.
    fn default_with_text(text: String) -> Self;
}

macro_rules! with_text {
    ($($ty:ty),+) => {$(
        impl WithText for $ty {
            fn default_with_text(text: String) -> Self {
                Self { text, ..Self::default() }
            }
        }
    )+};
}

with_text!(
    tact_types::dataset::EffortQuery,
    tact_types::dataset::GranularityQuery,
    tact_types::dataset::RouteQuery
);
