//! Hashed features of a normalized text: word unigrams and bigrams, byte
//! n-grams across the padded text, and caller-supplied extra features
//! (heuristic cue names), each folded into `2^hash_bits` buckets.

use serde::{Deserialize, Serialize};

/// Bytes of the text read for features; the rest of a huge input is
/// ignored so that a call stays bounded.
pub const MAX_FEATURE_BYTES: usize = 2048;

/// How a text becomes features. Stored in the model file: a model is only
/// valid with the configuration it was trained with.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeatureConfig {
    /// Number of hash buckets as a power of two (8..=20).
    pub hash_bits: u8,
    /// Longest word n-gram (1 = unigrams, 2 = unigrams and bigrams).
    pub word_ngrams: u8,
    /// Shortest and longest byte n-gram over the space-padded text
    /// (`[0, 0]` turns them off).
    pub char_ngrams: [u8; 2],
    /// Value of each byte n-gram feature (words, bigrams and extras count
    /// 1): there are many more of them, and they should refine rather than
    /// drown the word and cue features.
    pub char_weight: f32,
}

impl Default for FeatureConfig {
    fn default() -> Self {
        Self {
            hash_bits: 16,
            word_ngrams: 1,
            char_ngrams: [3, 5],
            char_weight: 0.25,
        }
    }
}

impl FeatureConfig {
    /// Number of buckets.
    pub fn dim(&self) -> usize {
        1usize << self.hash_bits
    }

    /// Checks the ranges a model file may hold.
    pub(crate) fn validate(&self) -> Result<(), String> {
        if !(8..=20).contains(&self.hash_bits) {
            return Err(format!("hash_bits {} is outside 8..=20", self.hash_bits));
        }
        if !(1..=3).contains(&self.word_ngrams) {
            return Err(format!("word_ngrams {} is outside 1..=3", self.word_ngrams));
        }
        let [lo, hi] = self.char_ngrams;
        if (lo, hi) != (0, 0) && !(lo >= 1 && lo <= hi && hi <= 8) {
            return Err(format!(
                "char_ngrams [{lo}, {hi}] must be [0, 0] or 1 <= lo <= hi <= 8"
            ));
        }
        if !(self.char_weight.is_finite() && (0.0..=4.0).contains(&self.char_weight)) {
            return Err(format!("char_weight {} is outside 0..=4", self.char_weight));
        }
        Ok(())
    }

    /// Calls `f` with the bucket and value of every feature of `text`
    /// (normalized, see [`crate::normalize`]) and of each `extras` name,
    /// and returns the feature vector's squared norm (the sum of the
    /// squared values). Allocates nothing.
    pub fn for_each<'e>(
        &self,
        text: &str,
        extras: impl IntoIterator<Item = &'e str>,
        mut f: impl FnMut(usize, f32),
    ) -> f32 {
        self.for_each_marked(text, extras, |bucket, x, _| f(bucket, x))
    }

    /// [`FeatureConfig::for_each`], also telling `f` whether a feature is
    /// a word (a unigram: what [`crate::learn::Prediction::coverage`]
    /// counts).
    pub(crate) fn for_each_marked<'e>(
        &self,
        text: &str,
        extras: impl IntoIterator<Item = &'e str>,
        mut f: impl FnMut(usize, f32, bool),
    ) -> f32 {
        let mask = (self.dim() - 1) as u64;
        let mut norm2 = 0.0f32;
        let mut emit = |h: u64, v: f32, word: bool| {
            f(fold(h, mask), v, word);
            norm2 += v * v;
        };
        let text = truncate(text, MAX_FEATURE_BYTES);
        // Words: maximal runs of alphanumeric characters (or `_`).
        let mut prev: [u64; 2] = [0, 0];
        let mut seen = 0usize;
        // Called with each word's hash, `fnv(b'w', word)`.
        let mut word = |h: u64| {
            emit(h, 1.0, true);
            if self.word_ngrams >= 2 && seen >= 1 {
                emit(mix(prev[1], h, 2), 1.0, false);
            }
            if self.word_ngrams >= 3 && seen >= 2 {
                emit(mix(mix(prev[0], prev[1], 3), h, 3), 1.0, false);
            }
            prev = [prev[1], h];
            seen += 1;
        };
        if text.is_ascii() {
            // The same words, split and hashed in one pass over the bytes:
            // no character decoding.
            let start = fnv(b'w', b"");
            let mut h = start;
            let mut in_word = false;
            for &b in text.as_bytes() {
                if b.is_ascii_alphanumeric() || b == b'_' {
                    h = (h ^ u64::from(b)).wrapping_mul(FNV_PRIME);
                    in_word = true;
                } else if in_word {
                    word(h);
                    h = start;
                    in_word = false;
                }
            }
            if in_word {
                word(h);
            }
        } else {
            text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .for_each(|w| word(fnv(b'w', w.as_bytes())));
        }
        // Byte n-grams over " text ", so that word starts and ends show.
        let [lo, hi] = self.char_ngrams;
        let cw = self.char_weight;
        if lo > 0 && cw > 0.0 {
            // " text " read in place, not copied into a padded buffer: byte
            // `i` of it is a space at either end, else `text[i - 1]`.
            let bytes = text.as_bytes();
            let padded = |i: usize| bytes.get(i.wrapping_sub(1)).copied().unwrap_or(b' ');
            let len = bytes.len() + 2;
            let (lo, hi) = (usize::from(lo), usize::from(hi));
            for start in 0..len {
                let n = hi.min(len - start);
                let mut h = FNV_OFFSET ^ u64::from(b'c');
                let mut k = 0;
                while k < n {
                    h = (h ^ u64::from(padded(start + k))).wrapping_mul(FNV_PRIME);
                    k += 1;
                    if k >= lo {
                        emit(h ^ k as u64, cw, false);
                    }
                }
            }
        }
        for extra in extras {
            emit(fnv(b'x', extra.as_bytes()), 1.0, false);
        }
        norm2
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

fn fnv(namespace: u8, bytes: &[u8]) -> u64 {
    let mut h = (FNV_OFFSET ^ u64::from(namespace)).wrapping_mul(FNV_PRIME);
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(FNV_PRIME);
    }
    h
}

fn mix(a: u64, b: u64, salt: u64) -> u64 {
    (a.rotate_left(17) ^ b ^ salt).wrapping_mul(FNV_PRIME)
}

/// Folds a 64-bit hash into a bucket (a final avalanche so that low bits
/// depend on every input byte).
fn fold(h: u64, mask: u64) -> usize {
    let mut x = h;
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    (x & mask) as usize
}

/// The longest prefix of `s` of at most `max` bytes ending on a character
/// boundary.
fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(cfg: &FeatureConfig, text: &str, extras: &[&str]) -> Vec<usize> {
        let mut v = Vec::new();
        let mut n2 = 0.0;
        let norm2 = cfg.for_each(text, extras.iter().copied(), |i, x| {
            v.push(i);
            n2 += x * x;
        });
        assert!((norm2 - n2).abs() < 1e-3);
        v
    }

    #[test]
    fn counts_words_bigrams_ngrams_and_extras() {
        let cfg = FeatureConfig {
            hash_bits: 12,
            word_ngrams: 2,
            char_ngrams: [3, 3],
            char_weight: 0.5,
        };
        // "a b": 2 words + 1 bigram; " a b " has 5 bytes: 3 trigrams; 1 extra.
        assert_eq!(collect(&cfg, "a b", &["cue"]).len(), 2 + 1 + 3 + 1);
        assert!(collect(&cfg, "", &[]).len() <= 1);
        assert!(collect(&cfg, "x y z", &[]).iter().all(|&i| i < 4096));
    }

    #[test]
    fn deterministic_and_order_sensitive() {
        let cfg = FeatureConfig {
            word_ngrams: 2,
            ..FeatureConfig::default()
        };
        assert_eq!(
            collect(&cfg, "which port", &[]),
            collect(&cfg, "which port", &[])
        );
        let mut a = collect(&cfg, "port which", &[]);
        let mut b = collect(&cfg, "which port", &[]);
        a.sort_unstable();
        b.sort_unstable();
        assert_ne!(a, b, "bigrams see word order");
    }

    #[test]
    fn huge_and_multibyte_inputs_are_bounded() {
        let cfg = FeatureConfig::default();
        let huge = "é".repeat(100_000);
        let n = collect(&cfg, &huge, &[]).len();
        assert!(n < 3 * MAX_FEATURE_BYTES, "{n}");
    }

    /// The word features as first written: split on characters, then
    /// hashed word by word.
    fn word_buckets_by_split(cfg: &FeatureConfig, text: &str) -> Vec<usize> {
        let mask = (cfg.dim() - 1) as u64;
        let mut v = Vec::new();
        let mut prev = [0u64; 2];
        for (seen, w) in text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .enumerate()
        {
            let h = fnv(b'w', w.as_bytes());
            v.push(fold(h, mask));
            if cfg.word_ngrams >= 2 && seen >= 1 {
                v.push(fold(mix(prev[1], h, 2), mask));
            }
            if cfg.word_ngrams >= 3 && seen >= 2 {
                v.push(fold(mix(mix(prev[0], prev[1], 3), h, 3), mask));
            }
            prev = [prev[1], h];
        }
        v
    }

    /// The byte n-gram features as first written: " text " copied into a
    /// padded buffer, each n-gram hashed from its start.
    fn char_buckets_by_copy(cfg: &FeatureConfig, text: &str) -> Vec<usize> {
        let mask = (cfg.dim() - 1) as u64;
        let padded = [b" ", text.as_bytes(), b" "].concat();
        let [lo, hi] = cfg.char_ngrams.map(usize::from);
        let mut v = Vec::new();
        for start in 0..padded.len() {
            let mut h = FNV_OFFSET ^ u64::from(b'c');
            for (k, &b) in padded[start..(start + hi).min(padded.len())]
                .iter()
                .enumerate()
            {
                h = (h ^ u64::from(b)).wrapping_mul(FNV_PRIME);
                if k + 1 >= lo {
                    v.push(fold(h ^ (k as u64 + 1), mask));
                }
            }
        }
        v
    }

    proptest::proptest! {
        #[test]
        fn the_in_place_byte_ngrams_match_a_padded_copy(
            t in "(?s).{0,40}",
            lo in 1u8..=3,
            extra in 0u8..=2,
        ) {
            let cfg = FeatureConfig {
                word_ngrams: 1,
                char_ngrams: [lo, lo + extra],
                char_weight: 0.5,
                ..FeatureConfig::default()
            };
            let words = FeatureConfig { char_ngrams: [0, 0], char_weight: 0.0, ..cfg };
            let all = collect(&cfg, &t, &[]);
            let n_words = collect(&words, &t, &[]).len();
            proptest::prop_assert_eq!(&all[n_words..], &char_buckets_by_copy(&cfg, &t)[..]);
        }

        #[test]
        fn the_ascii_word_pass_matches_splitting(t in "[ab_1 ,.'-]{0,30}", n in 1u8..=3) {
            let cfg = FeatureConfig {
                word_ngrams: n,
                char_ngrams: [0, 0],
                char_weight: 0.0,
                ..FeatureConfig::default()
            };
            proptest::prop_assert_eq!(collect(&cfg, &t, &[]), word_buckets_by_split(&cfg, &t));
        }
    }

    #[test]
    fn validates_ranges() {
        assert!(FeatureConfig::default().validate().is_ok());
        let bad = FeatureConfig {
            hash_bits: 40,
            ..FeatureConfig::default()
        };
        assert!(bad.validate().is_err());
        let bad = FeatureConfig {
            char_ngrams: [4, 2],
            ..FeatureConfig::default()
        };
        assert!(bad.validate().is_err());
    }
}
