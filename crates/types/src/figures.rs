//! Serializing measured figures without float noise, to what each means:
//! a confidence, cue weight or evidence (an `f32`) to 4 decimals, so
//! `0.876804530620575` is written `0.8768` and `1.4000000953674316` is
//! `1.4`; a reward, weight or score (an `f64`) to 9 decimals, so
//! `0.050000000000000044` is `0.05`. Use with
//! `#[serde(serialize_with = ...)]`; reading is unchanged, and nothing is
//! rounded in memory.
//!
//! ```
//! #[derive(serde::Serialize)]
//! struct Figures {
//!     #[serde(serialize_with = "tact_types::figures::f32_figure")]
//!     weight: f32,
//!     #[serde(serialize_with = "tact_types::figures::f64_figure")]
//!     reward: f64,
//! }
//! let json = serde_json::to_string(&Figures { weight: 0.8 + 0.6, reward: 0.1 + 0.2 - 0.25 }).unwrap();
//! assert_eq!(json, r#"{"weight":1.4,"reward":0.05}"#);
//! ```

use serde::Serializer;

/// Writes an `f32` figure (a confidence, a cue weight, evidence) rounded
/// to 4 decimals. Non-finite values are written as they are.
pub fn f32_figure<S: Serializer>(x: &f32, s: S) -> Result<S::Ok, S::Error> {
    if !x.is_finite() {
        return s.serialize_f32(*x);
    }
    s.serialize_f64(round_to(f64::from(*x), 1e4))
}

/// Writes an `f64` figure (a reward, a weight, a score) rounded to 9
/// decimals: sums and products of rewards and weights mean nothing below
/// that. Non-finite and huge values are
/// written as they are.
pub fn f64_figure<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(round_to(*x, 1e9))
}

/// [`f64_figure`] for an optional figure.
pub fn opt_f64_figure<S: Serializer>(x: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match x {
        Some(v) => s.serialize_some(&round_to(*v, 1e9)),
        None => s.serialize_none(),
    }
}

/// `x` rounded to `1 / scale`; non-finite and huge values unchanged.
fn round_to(x: f64, scale: f64) -> f64 {
    if x.is_finite() && x.abs() < 1e9 {
        // Adding 0.0 turns a rounded -0 into 0.
        (x * scale).round() / scale + 0.0
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_to_nano(x: f64) -> f64 {
        round_to(x, 1e9)
    }

    #[test]
    fn rounding_keeps_what_the_figure_means() {
        assert_eq!(round_to_nano(0.050000000000000044), 0.05);
        assert_eq!(round_to_nano(-1e-12).to_string(), "0");
        assert_eq!(round_to_nano(0.645), 0.645);
        assert_eq!(round_to_nano(f64::INFINITY), f64::INFINITY);
        assert_eq!(round_to_nano(1e12), 1e12);
        let figure = |x: f32| round_to(f64::from(x), 1e4);
        assert_eq!(figure(0.8_f32 + 0.6_f32), 1.4);
        assert_eq!(figure(0.876_804_5), 0.8768);
        assert_eq!(figure(0.999_969_6), 1.0);
    }
}
