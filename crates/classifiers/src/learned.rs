//! The learned tier shared by the text classifiers: the embedded default
//! models, the model input (normalized text plus the heuristic cues that
//! fired), and the hybrid rule deciding when the heuristic defers.
//!
//! The default models are trained by `cargo xtask train` from the train
//! splits of `fixtures/` and embedded with `include_str!`, so the library
//! works with no file and no configuration. A host can load its own with
//! [`LinearModel::from_json`] and pass it to a classifier's builder.

use std::sync::{Arc, OnceLock};

pub use tact_core::learn::{HybridThresholds, LinearModel, Prediction};
use tact_types::{Classification, Label, Reason, Tier};

use crate::Error;

/// The task a model serves (its `task` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Task {
    /// Question effort (`low`, `medium`, `high`).
    Effort,
    /// Question effort for a question read in the agent message it was
    /// asked in ([`crate::effort::EffortClassifier::classify_in`]): the
    /// same labels, from a model that also learned from real agents'
    /// questions (the fixtures' `real-train` split), its thresholds chosen
    /// on real ones.
    EffortInMessage,
    /// Query granularity (`fine-grained`, `holistic`).
    Granularity,
    /// Query routing (`RETRIEVAL`, `CODE_GENERATION`, `CONVERSATIONAL`,
    /// `PLATFORM`).
    Route,
}

impl Task {
    /// The task's name, as in model files and `cargo xtask`.
    pub fn name(self) -> &'static str {
        match self {
            Task::Effort => "effort",
            Task::EffortInMessage => "effort-in-message",
            Task::Granularity => "granularity",
            Task::Route => "route",
        }
    }

    /// The label names a model for this task must have, in order.
    pub fn labels(self) -> Vec<String> {
        fn names<L: Label>() -> Vec<String> {
            L::ALL.iter().map(|l| l.as_str().to_owned()).collect()
        }
        match self {
            Task::Effort | Task::EffortInMessage => names::<tact_types::EffortLevel>(),
            Task::Granularity => names::<tact_types::Granularity>(),
            Task::Route => names::<tact_types::QueryType>(),
        }
    }

    /// The embedded default model file of the task.
    pub fn default_model_json(self) -> &'static str {
        match self {
            Task::Effort => include_str!("../models/effort.json"),
            Task::EffortInMessage => include_str!("../models/effort-in-message.json"),
            Task::Granularity => include_str!("../models/granularity.json"),
            Task::Route => include_str!("../models/route.json"),
        }
    }

    /// The embedded default model in binary form
    /// ([`LinearModel::to_bytes`]), which the library reads at start: the
    /// same model as [`Task::default_model_json`].
    pub fn default_model_bytes(self) -> &'static [u8] {
        match self {
            Task::Effort => include_bytes!("../models/effort.bin"),
            Task::EffortInMessage => include_bytes!("../models/effort-in-message.bin"),
            Task::Granularity => include_bytes!("../models/granularity.bin"),
            Task::Route => include_bytes!("../models/route.bin"),
        }
    }

    /// The embedded default model, read once (from its binary form) and
    /// shared.
    pub fn default_model(self) -> Result<Arc<LinearModel>, Error> {
        static CACHE: [OnceLock<Result<Arc<LinearModel>, String>>; 4] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        let slot = match self {
            Task::Effort => &CACHE[0],
            Task::Granularity => &CACHE[1],
            Task::Route => &CACHE[2],
            Task::EffortInMessage => &CACHE[3],
        };
        slot.get_or_init(|| {
            LinearModel::from_bytes(self.default_model_bytes())
                .map_err(|e| match e {
                    tact_core::Error::Model { message } => message,
                    other => other.to_string(),
                })
                .and_then(|m| {
                    self.check(&m)
                        .map(|()| Arc::new(m))
                        .map_err(|e| e.to_string())
                })
        })
        .clone()
        .map_err(|message| {
            Error::Core(tact_core::Error::Model {
                message: format!("embedded {} model: {message}", self.name()),
            })
        })
    }

    /// Checks that `model` was trained for this task with its labels in
    /// order (either effort model serves either effort task).
    pub fn check(self, model: &LinearModel) -> Result<(), Error> {
        let want = self.labels();
        // Either effort model serves an effort classifier.
        let effort = [Task::Effort.name(), Task::EffortInMessage.name()];
        let serves = model.task() == self.name()
            || (effort.contains(&self.name()) && effort.contains(&model.task()));
        if !serves || model.labels() != want.as_slice() {
            return Err(Error::Core(tact_core::Error::Model {
                message: format!(
                    "a {} model with labels {:?} cannot serve {} (labels {:?})",
                    model.task(),
                    model.labels(),
                    self.name(),
                    want
                ),
            }));
        }
        Ok(())
    }
}

/// What the learned model reads for one input: the normalized text and
/// the names of the heuristic cues that fired.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelInput {
    /// The input, normalized (see [`tact_core::normalize`]).
    pub text: String,
    /// Names of the heuristic cues and markers that fired.
    pub extras: Vec<&'static str>,
}

/// A heuristic decision with what the hybrid needs to judge it.
#[derive(Debug, Clone, PartialEq)]
pub struct Traced<L> {
    /// The heuristic's decision.
    pub heuristic: Classification<L>,
    /// Gap between the heuristic's top two scores, in its own evidence
    /// units.
    pub gap: f32,
    /// Whether a contract rule decided, which the hybrid never defers
    /// (routing's RC-02, and a reference resolved through the history).
    pub fixed: bool,
    /// The learned model's input.
    pub input: ModelInput,
}

/// Whether the hybrid defers a heuristic decision to the model.
pub fn defers(confidence: f32, gap: f32, fixed: bool, t: &HybridThresholds) -> bool {
    !fixed && (confidence < t.min_confidence || gap < t.min_gap)
}

/// Thresholds used when neither the builder nor the model file sets them.
pub const FALLBACK_THRESHOLDS: HybridThresholds = HybridThresholds::new(0.6, 0.5);

/// The model and thresholds a classifier's builder settles on: the given
/// model (checked against `task`) or the embedded default, when
/// `needs_model`; the given thresholds, else the model's, else
/// [`FALLBACK_THRESHOLDS`].
pub(crate) fn settle(
    task: Task,
    needs_model: bool,
    model: Option<Arc<LinearModel>>,
    thresholds: Option<HybridThresholds>,
) -> Result<(Option<Arc<LinearModel>>, HybridThresholds), Error> {
    let model = if needs_model {
        Some(match model {
            Some(m) => {
                task.check(&m)?;
                m
            }
            None => task.default_model()?,
        })
    } else {
        None
    };
    let thresholds = thresholds
        .or_else(|| model.as_ref().and_then(|m| m.hybrid()))
        .unwrap_or(FALLBACK_THRESHOLDS);
    Ok((model, thresholds))
}

/// The model's decision as a classification with reasons. With the
/// hybrid's `heuristic` decision, the result names it and, when both tiers
/// agree, takes over (moves out) the heuristic's reasons: the caller keeps
/// only its label and confidence.
/// The model reads the normalized text and the names of the cues that
/// fired. Also returns the model's prediction, for the hybrid's checks.
pub(crate) fn model_decision<L: Label>(
    model: &LinearModel,
    text: &str,
    extras: &[&'static str],
    heuristic: Option<(&mut Classification<L>, &HybridThresholds, f32)>,
) -> (Classification<L>, Prediction) {
    let p = model.predict(text, extras.iter().copied());
    let i = p.label();
    let label = L::ALL.get(i).copied().unwrap_or(L::ALL[0]);
    let prob = p.probability(i);
    let mut why = String::with_capacity(64);
    why.push_str("the learned model gives ");
    why.push_str(label.as_str());
    why.push_str(" a probability of ");
    push_fixed2(&mut why, prob);
    let mut c = Classification::new(label, prob)
        .with_tier(Tier::Learned)
        .with_reason(Reason::new("learned_model", why, prob));
    if let Some((h, t, gap)) = heuristic {
        let mut why = String::with_capacity(112);
        why.push_str("the heuristic said ");
        why.push_str(h.label.as_str());
        for (text, x) in [
            (" at confidence ", h.confidence),
            (" with a gap of ", gap),
            (" (thresholds ", t.min_confidence),
            (" and ", t.min_gap),
        ] {
            why.push_str(text);
            push_fixed2(&mut why, x);
        }
        if t.min_model_confidence > 0.0 {
            why.push_str("; the model decides at a probability of ");
            push_fixed2(&mut why, t.min_model_confidence);
            why.push_str(" or more");
        }
        if t.min_model_coverage > 0.0 {
            why.push_str("; it knows ");
            push_fixed2(&mut why, p.coverage());
            why.push_str(" of the words, and decides at ");
            push_fixed2(&mut why, t.min_model_coverage);
            why.push_str(" or more");
        }
        why.push(')');
        c.reasons.push(Reason::new("heuristic_deferred", why, 0.0));
        if h.label == label {
            c.reasons.append(&mut h.reasons);
        }
    }
    (c, p)
}

/// Appends `x` as `format!("{x:.2}")` would (two decimals, the exact
/// binary value rounded half to even), without the formatting machinery:
/// a deferral writes five of these. Negative, non-finite and huge values
/// go through `format!`.
pub(crate) fn push_fixed2(out: &mut String, x: f32) {
    if !(x.is_finite() && x.is_sign_positive() && x < 1e9) {
        use std::fmt::Write;
        let _ = write!(out, "{x:.2}");
        return;
    }
    // x = m * 2^e exactly.
    let bits = x.to_bits();
    let exp = ((bits >> 23) & 0xff) as i32;
    let frac = u64::from(bits & 0x7f_ffff);
    let (m, e) = if exp == 0 {
        (frac, -149)
    } else {
        (frac | 0x80_0000, exp - 150)
    };
    // Hundredths, rounded half to even: m * 100 < 2^31, and x < 1e9 keeps
    // e <= 6.
    let n = m * 100;
    let hundredths = if e >= 0 {
        n << e
    } else if e <= -40 {
        // n < 2^31 is below half a unit of 2^-e: rounds to zero.
        0
    } else {
        let sh = e.unsigned_abs();
        let (q, r, half) = (n >> sh, n & ((1 << sh) - 1), 1 << (sh - 1));
        if r > half || (r == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    let cents = hundredths % 100;
    crate::detail::push_count(out, hundredths / 100);
    out.push('.');
    out.push(char::from(b'0' + (cents / 10) as u8));
    out.push(char::from(b'0' + (cents % 10) as u8));
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fixed2(x: f32) -> String {
        let mut s = String::new();
        push_fixed2(&mut s, x);
        s
    }

    #[test]
    fn fixed2_matches_format_on_ties_edges_and_a_sweep() {
        let mut xs = vec![
            0.0,
            -0.0,
            0.005,
            0.015,
            0.125,
            0.375,
            0.625,
            0.995,
            9.995,
            99.995,
            1e-40,
            1e-30,
            0.994_999,
            1.0,
            2.5,
            1e8,
            9.99e8,
            1e9,
            -0.001,
            -3.25,
            f32::NAN,
            f32::INFINITY,
            f32::MIN_POSITIVE,
            f32::MAX,
        ];
        // Every multiple of 1/1024 below 8 (ties included), then a sweep
        // of bit patterns across [0, 2^31) with an odd stride.
        xs.extend((0..8192).map(|i| i as f32 / 1024.0));
        xs.extend((0u32..0x7f80_0000).step_by(7919).map(f32::from_bits));
        for x in xs {
            assert_eq!(fixed2(x), format!("{x:.2}"), "{x:e}");
        }
    }

    /// Every non-negative `f32` below 1000 (about 1.1 billion values):
    /// `cargo test -p tact-classifiers --release -- --ignored fixed2`.
    #[test]
    #[ignore = "exhaustive; about a minute in release"]
    fn fixed2_matches_format_exhaustively_below_1000() {
        let end = 1000f32.to_bits();
        let mut s = String::new();
        let mut f = String::new();
        for bits in 0..end {
            let x = f32::from_bits(bits);
            s.clear();
            push_fixed2(&mut s, x);
            f.clear();
            use std::fmt::Write;
            let _ = write!(f, "{x:.2}");
            assert_eq!(s, f, "{x:e}");
        }
    }

    proptest! {
        #[test]
        fn fixed2_matches_format_on_any_f32(bits in any::<u32>()) {
            let x = f32::from_bits(bits);
            prop_assert_eq!(fixed2(x), format!("{x:.2}"));
        }
    }

    #[test]
    fn embedded_models_load_and_match_their_tasks() {
        for task in [Task::Effort, Task::Granularity, Task::Route] {
            let m = task.default_model().unwrap();
            assert_eq!(m.task(), task.name());
            assert!(m.nonzero_rows() > 100, "{}", task.name());
        }
        let effort = Task::Effort.default_model().unwrap();
        assert!(Task::Route.check(&effort).is_err());
    }

    #[test]
    fn deferral_respects_fixed_rules() {
        let t = HybridThresholds::new(0.7, 1.0);
        assert!(defers(0.5, 2.0, false, &t));
        assert!(defers(0.9, 0.5, false, &t));
        assert!(!defers(0.9, 2.0, false, &t));
        assert!(!defers(0.1, 0.0, true, &t));
    }
}
