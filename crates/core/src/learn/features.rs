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
    #[inline(always)]
    pub(crate) fn for_each_marked<'e>(
        &self,
        text: &str,
        extras: impl IntoIterator<Item = &'e str>,
        mut f: impl FnMut(usize, f32, bool),
    ) -> f32 {
        let mask = (self.dim() - 1) as u64;
        // The features of value 1 (words, word n-grams, extras) and the
        // byte n-grams (value `char_weight`) are counted, and the norm
        // taken from the counts: one sum, not one per feature (the same
        // number as the sum feature by feature wherever `char_weight`'s
        // square is a short binary fraction, as 0.25's is).
        let (mut units, mut chars) = (0u32, 0u32);
        let text = truncate(text, MAX_FEATURE_BYTES);
        // Words: maximal runs of alphanumeric characters (or `_`), each
        // given by its hash, `fnv(b'w', word)`, to a method inlined at
        // each call, not a closure: `f`'s state stays in registers.
        let mut words = WordGrams::default();
        let n = self.word_ngrams;
        let mut word = |h: u64, f: &mut _| words.push(h, n, mask, f);
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
                    word(h, &mut f);
                    h = start;
                    in_word = false;
                }
            }
            if in_word {
                word(h, &mut f);
            }
        } else {
            text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .for_each(|w| word(fnv(b'w', w.as_bytes()), &mut f));
        }
        units += words.count;
        // Byte n-grams over " text ", so that word starts and ends show.
        let [lo, hi] = self.char_ngrams;
        let cw = self.char_weight;
        if lo > 0 && cw > 0.0 {
            let (lo, hi) = (usize::from(lo), usize::from(hi));
            fnv_ngrams(text.as_bytes(), lo, hi, |h| f(fold(h, mask), cw, false));
            chars = ngram_count(text.len() + 2, lo, hi);
        }
        for extra in extras {
            f(fold(fnv(b'x', extra.as_bytes()), mask), 1.0, false);
            units += 1;
        }
        units as f32 + chars as f32 * cw * cw
    }
}

/// The word n-grams' state: the last two words' hashes, the words and
/// the features so far.
#[derive(Default)]
struct WordGrams {
    prev: [u64; 2],
    seen: usize,
    count: u32,
}

impl WordGrams {
    /// Gives `f` the features of the next word (hash `h`): the word, and
    /// up to `n`-grams ending with it.
    #[inline(always)]
    fn push(&mut self, h: u64, n: u8, mask: u64, f: &mut impl FnMut(usize, f32, bool)) {
        let prev = self.prev;
        f(fold(h, mask), 1.0, true);
        self.count += 1;
        if n >= 2 && self.seen >= 1 {
            f(fold(mix(prev[1], h, 2), mask), 1.0, false);
            self.count += 1;
        }
        if n >= 3 && self.seen >= 2 {
            f(fold(mix(mix(prev[0], prev[1], 3), h, 3), mask), 1.0, false);
            self.count += 1;
        }
        self.prev = [prev[1], h];
        self.seen += 1;
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

/// The byte n-grams (`lo..=hi` bytes) of " text ", each FNV-1a hashed
/// from its first byte; `emit` gets each hash, by start, shortest first.
fn fnv_ngrams(bytes: &[u8], lo: usize, hi: usize, mut emit: impl FnMut(u64)) {
    if lo == 0 || lo > hi {
        return;
    }
    let seed = FNV_OFFSET ^ u64::from(b'c');
    let len = bytes.len() + 2;
    // The leading space's, then every start whose `hi` bytes are all in
    // the text (read as slices: no check per byte), then the last ones.
    fnv_ngrams_from(bytes, 0, lo, hi, &mut emit);
    let inner = bytes.len().saturating_sub(hi - 1);
    for w in bytes.windows(hi) {
        let Some((head, tail)) = w.split_at_checked(lo - 1) else {
            continue;
        };
        let mut h = head
            .iter()
            .fold(seed, |h, &b| (h ^ u64::from(b)).wrapping_mul(FNV_PRIME));
        for (k, &b) in (lo..).zip(tail) {
            h = (h ^ u64::from(b)).wrapping_mul(FNV_PRIME);
            emit(h ^ k as u64);
        }
    }
    for start in 1 + inner..len {
        fnv_ngrams_from(bytes, start, lo, hi, &mut emit);
    }
}

/// How many n-grams of `lo..=hi` bytes a text of `len` bytes has.
fn ngram_count(len: usize, lo: usize, hi: usize) -> u32 {
    if lo == 0 || lo > hi {
        return 0;
    }
    // From a start with `r` bytes left: `min(r, hi) - lo + 1` of them.
    let full = len.saturating_sub(hi - 1) * (hi + 1 - lo);
    let short: usize = (lo..hi.min(len + 1)).map(|r| r + 1 - lo).sum();
    u32::try_from(full + short).unwrap_or(u32::MAX)
}

/// The n-grams from `start` of " text " (`lo..=hi` bytes, fewer at its
/// end), read in place: byte `i` is a space at either end, else
/// `text[i - 1]`.
#[inline(always)]
fn fnv_ngrams_from(bytes: &[u8], start: usize, lo: usize, hi: usize, emit: &mut impl FnMut(u64)) {
    let len = bytes.len() + 2;
    let n = hi.min(len.saturating_sub(start));
    let mut h = FNV_OFFSET ^ u64::from(b'c');
    let mut k = 0;
    while k < n {
        let b = bytes
            .get((start + k).wrapping_sub(1))
            .copied()
            .unwrap_or(b' ');
        h = (h ^ u64::from(b)).wrapping_mul(FNV_PRIME);
        k += 1;
        if k >= lo {
            emit(h ^ k as u64);
        }
    }
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
    fn ngram_counts_match_the_ngrams() {
        for len in 0..12 {
            for lo in 0..=5 {
                for hi in 0..=6 {
                    let mut n = 0u32;
                    fnv_ngrams(&vec![b'a'; len], lo, hi, |_| n += 1);
                    let expected = if lo == 0 || lo > hi { 0 } else { n };
                    assert_eq!(ngram_count(len + 2, lo, hi), expected, "{len} {lo} {hi}");
                }
            }
        }
    }

    #[test]
    fn the_norm_is_the_sum_feature_by_feature_for_a_quarter() {
        let cfg = FeatureConfig {
            word_ngrams: 3,
            ..FeatureConfig::default()
        };
        let text = "which port does the dev server use, and can i change it?";
        let mut sum = 0.0f32;
        let norm2 = cfg.for_each(text, ["cue", "marker"], |_, x| sum += x * x);
        assert_eq!(norm2.to_bits(), sum.to_bits());
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
