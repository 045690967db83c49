//! The learned tier: multinomial logistic regression over hashed word and
//! byte n-grams plus caller-supplied cue features, in plain Rust.
//!
//! - [`FeatureConfig`] turns a normalized text (and extra feature names,
//!   such as the heuristic cues that fired) into hash buckets.
//! - [`LinearModel`] holds the weights, reads and writes the versioned
//!   JSON model format ([`MODEL_FORMAT`], [`MODEL_VERSION`]) and predicts
//!   calibrated probabilities with no allocation.
//! - [`Trainer`] fits a model deterministically (fixed seed, fixed order,
//!   AdaGrad with L2 regularisation, balanced class weights) and calibrates
//!   it by temperature scaling on out-of-fold predictions.
//!
//! ```
//! use tact_core::learn::{Example, FeatureConfig, LinearModel, Trainer};
//!
//! let data: Vec<Example> = [
//!     ("what is the port", 0), ("which port is used", 0), ("port number please", 0),
//!     ("summarize the design", 1), ("explain the overall design", 1), ("overview of the design", 1),
//! ]
//! .iter()
//! .map(|(t, y)| Example::new(t, Vec::new(), *y))
//! .collect();
//! let labels = vec!["fine".to_string(), "broad".to_string()];
//! let fit = Trainer::default().train("demo", labels, &data)?;
//! let model = LinearModel::from_json(&fit.model.to_json())?;
//! let p = model.predict("explain the design", []);
//! assert_eq!(p.label(), 1);
//! assert!(p.probability(1) > 0.5);
//! # Ok::<(), tact_core::Error>(())
//! ```

mod features;
mod train;

use serde::{Deserialize, Serialize};

pub use features::{FeatureConfig, MAX_FEATURE_BYTES};
pub use train::{Example, Fit, Trainer};

use crate::Error;

/// The `format` field of every model file.
pub const MODEL_FORMAT: &str = "tact-linear-model";
/// The version of the model file format this crate reads and writes.
pub const MODEL_VERSION: u32 = 1;
/// Most labels a model may have.
pub const MAX_LABELS: usize = 8;

/// Default hybrid thresholds stored with a model: the heuristic decides
/// when its confidence and its top-two evidence gap reach them; otherwise
/// the model decides, when it is at least as sure as
/// `min_model_confidence` and knows at least `min_model_coverage` of the
/// input's words.
///
/// ```
/// use tact_core::learn::HybridThresholds;
///
/// let t = HybridThresholds::new(0.7, 1.0).with_min_model_confidence(0.8);
/// assert_eq!(t.min_model_confidence, 0.8);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct HybridThresholds {
    /// Smallest heuristic confidence (in [0, 1]) kept without the model.
    pub min_confidence: f32,
    /// Smallest gap between the heuristic's top two scores (in the
    /// heuristic's own evidence units) kept without the model.
    pub min_gap: f32,
    /// Smallest probability of the model's label for the model to replace
    /// a deferred decision (0, the default: always); below it the
    /// heuristic's decision stands. A model trained on other text than
    /// the user's is seldom sure of it, so this keeps it from overruling
    /// the cues there.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub min_model_confidence: f32,
    /// Smallest share of the input's words the model saw in training (its
    /// [`Prediction::coverage`]) for it to replace a deferred decision (0,
    /// the default: any); below it the heuristic's decision stands. On
    /// text unlike its training data a model can be confidently wrong
    /// where the cues still hold.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub min_model_coverage: f32,
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(x: &f32) -> bool {
    *x == 0.0
}

impl HybridThresholds {
    /// Thresholds on the heuristic's confidence and gap; the model's
    /// answer always replaces a deferred decision.
    #[must_use]
    pub const fn new(min_confidence: f32, min_gap: f32) -> Self {
        Self {
            min_confidence,
            min_gap,
            min_model_confidence: 0.0,
            min_model_coverage: 0.0,
        }
    }

    /// The same thresholds, the model replacing a deferred decision only
    /// when the probability of its label reaches `p`.
    #[must_use]
    pub const fn with_min_model_confidence(mut self, p: f32) -> Self {
        self.min_model_confidence = p;
        self
    }

    /// The same thresholds, the model replacing a deferred decision only
    /// when it saw at least `share` of the input's words in training (see
    /// [`Prediction::coverage`]).
    #[must_use]
    pub const fn with_min_model_coverage(mut self, share: f32) -> Self {
        self.min_model_coverage = share;
        self
    }

    /// Whether the model's `prediction` may replace a deferred decision:
    /// it is sure enough and knows enough of the input's words.
    pub fn trusts(&self, prediction: &Prediction) -> bool {
        prediction.probability(prediction.label()) >= self.min_model_confidence
            && prediction.coverage() >= self.min_model_coverage
    }
}

/// How a model was trained (recorded in the file, informative).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainingInfo {
    /// Number of training examples.
    pub examples: usize,
    /// Passes over the data.
    pub epochs: u32,
    /// L2 regularisation strength.
    pub l2: f64,
    /// AdaGrad base learning rate.
    pub learning_rate: f64,
    /// Seed of the example order.
    pub seed: u64,
    /// Folds used to fit the temperature.
    pub folds: u32,
    /// Shuffled example orders whose weights were averaged (written only
    /// when more than 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub shuffles: u32,
    /// How far classes were balanced within each group (see
    /// [`Trainer::class_balance`]; written only when not 1).
    #[serde(default = "full", skip_serializing_if = "is_full")]
    pub class_balance: f64,
}

/// The default of [`TrainingInfo::class_balance`].
const fn full() -> f64 {
    1.0
}

/// Whether [`TrainingInfo::class_balance`] is its default.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_full(x: &f64) -> bool {
    *x == 1.0
}

/// The default of [`TrainingInfo::shuffles`].
const fn one() -> u32 {
    1
}

/// Whether [`TrainingInfo::shuffles`] is its default.
const fn is_one(n: &u32) -> bool {
    *n == 1
}

/// The model file, as serialized.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelFile {
    format: String,
    version: u32,
    task: String,
    labels: Vec<String>,
    features: FeatureConfig,
    training: TrainingInfo,
    temperature: f32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hybrid: Option<HybridThresholds>,
    bias: Vec<f32>,
    /// The buckets of the words seen in training, in order (absent from
    /// older files: every word then counts as seen).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    vocabulary: Vec<u32>,
    /// Non-zero rows: `[bucket, [w_label0, w_label1, ...]]`, by bucket.
    rows: Vec<Row>,
}

/// A model file's row: a bucket and its weight per label.
type Row = (u64, Vec<f64>);

/// The magic bytes that open a model in binary form.
const BINARY_MAGIC: &[u8; 8] = b"TACTLM1\0";

/// Little-endian reads off the front of a byte slice.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        self.take(4)?.try_into().ok().map(u32::from_le_bytes)
    }
}

/// The word buckets a model saw in training, as a bitset (no bits at all
/// when the model file records none).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Vocabulary(Vec<u64>);

impl Vocabulary {
    /// The set of `buckets` (each below `dim`); not recorded when there
    /// are none.
    pub(crate) fn of(dim: usize, buckets: impl IntoIterator<Item = usize>) -> Self {
        let mut bits = vec![0u64; dim.div_ceil(64)];
        let mut any = false;
        for b in buckets {
            if let Some(w) = bits.get_mut(b / 64) {
                *w |= 1 << (b % 64);
                any = true;
            }
        }
        if any { Self(bits) } else { Self::default() }
    }

    pub(crate) fn contains(&self, bucket: usize) -> bool {
        self.0
            .get(bucket / 64)
            .is_some_and(|w| (w >> (bucket % 64)) & 1 == 1)
    }

    /// Whether it records the words at all (a model without them counts
    /// every word as seen).
    fn is_recorded(&self) -> bool {
        !self.0.is_empty()
    }

    /// The buckets in the set, in order.
    fn buckets(&self) -> Vec<u32> {
        let mut out = Vec::new();
        for (i, &w) in self.0.iter().enumerate() {
            let mut w = w;
            while w != 0 {
                let bit = w.trailing_zeros();
                out.push((i * 64) as u32 + bit);
                w &= w - 1;
            }
        }
        out
    }

    /// The share of `words` (of `total`) seen, 1 when there are none or no
    /// vocabulary is recorded.
    pub(crate) fn share(&self, seen: u32, total: u32) -> f32 {
        if total == 0 || !self.is_recorded() {
            1.0
        } else {
            seen as f32 / total as f32
        }
    }
}

/// A trained linear classifier over hashed features.
#[derive(Debug, Clone, PartialEq)]
pub struct LinearModel {
    task: String,
    labels: Vec<String>,
    features: FeatureConfig,
    training: TrainingInfo,
    temperature: f32,
    hybrid: Option<HybridThresholds>,
    bias: Vec<f32>,
    /// Dense `dim * labels` weights, row-major by bucket.
    weights: Vec<f32>,
    /// The words seen in training.
    vocabulary: Vocabulary,
}

/// Probabilities over a model's labels (no allocation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prediction {
    probs: [f32; MAX_LABELS],
    len: usize,
    coverage: f32,
}

impl Prediction {
    /// Index of the most probable label (the first on ties).
    pub fn label(&self) -> usize {
        let mut best = 0;
        for i in 1..self.len {
            if self.probs[i] > self.probs[best] {
                best = i;
            }
        }
        best
    }

    /// Probability of label `i` (0 outside the model's labels).
    pub fn probability(&self, i: usize) -> f32 {
        if i < self.len { self.probs[i] } else { 0.0 }
    }

    /// All probabilities, in label order.
    pub fn probabilities(&self) -> &[f32] {
        &self.probs[..self.len]
    }

    /// The share of the input's words (word unigrams, counted with their
    /// repeats) that occurred in the model's training data: 1 when the
    /// input has no word or the model file records no vocabulary. Low on
    /// text unlike the training data, where the probabilities deserve the
    /// least trust.
    pub fn coverage(&self) -> f32 {
        self.coverage
    }

    /// Probability of the top label minus that of the runner-up.
    pub fn margin(&self) -> f32 {
        let top = self.label();
        let second = (0..self.len)
            .filter(|&i| i != top)
            .map(|i| self.probs[i])
            .fold(0.0f32, f32::max);
        self.probs[top] - second
    }
}

impl LinearModel {
    /// Reads a model file. Every field is checked: the format name and
    /// version, the label count, the feature configuration, and that every
    /// row names a bucket in range with one finite weight per label.
    pub fn from_json(json: &str) -> Result<Self, Error> {
        let bad = |message: String| Error::Model { message };
        let file: ModelFile =
            serde_json::from_str(json).map_err(|e| bad(format!("not a model file: {e}")))?;
        let (mut model, rows) = Self::empty(file)?;
        let k = model.labels.len();
        let dim = model.features.dim();
        for (n, (bucket, row)) in rows.iter().enumerate() {
            if row.len() != k {
                return Err(bad(format!("row {n} must hold {k} weights")));
            }
            let Some(base) = usize::try_from(*bucket).ok().filter(|b| *b < dim) else {
                return Err(bad(format!("row {n}: bucket {bucket} is not in 0..{dim}")));
            };
            for (j, w) in row.iter().enumerate() {
                if !w.is_finite() {
                    return Err(bad(format!("row {n}: weight {j} is not finite")));
                }
                if let Some(slot) = model.weights.get_mut(base * k + j) {
                    *slot = *w as f32;
                }
            }
        }
        Ok(model)
    }

    /// The model's metadata checked (format, version, labels, features,
    /// bias, temperature, vocabulary), with all-zero weights, and the
    /// file's rows to fill them.
    fn empty(mut file: ModelFile) -> Result<(Self, Vec<Row>), Error> {
        let bad = |message: String| Error::Model { message };
        if file.format != MODEL_FORMAT {
            return Err(bad(format!(
                "format is `{}`, expected `{MODEL_FORMAT}`",
                file.format
            )));
        }
        if file.version != MODEL_VERSION {
            return Err(bad(format!(
                "format version {} is not supported (this build reads {MODEL_VERSION})",
                file.version
            )));
        }
        let k = file.labels.len();
        if !(2..=MAX_LABELS).contains(&k) {
            return Err(bad(format!("{k} labels; a model has 2 to {MAX_LABELS}")));
        }
        file.features.validate().map_err(bad)?;
        if file.bias.len() != k || file.bias.iter().any(|b| !b.is_finite()) {
            return Err(bad(format!("bias must hold {k} finite numbers")));
        }
        if !(file.temperature.is_finite() && file.temperature > 0.0) {
            return Err(bad("temperature must be a positive number".into()));
        }
        let dim = file.features.dim();
        if let Some(b) = file.vocabulary.iter().find(|b| **b as usize >= dim) {
            return Err(bad(format!("vocabulary bucket {b} is not in 0..{dim}")));
        }
        let vocabulary = Vocabulary::of(dim, file.vocabulary.iter().map(|b| *b as usize));
        let file_rows = std::mem::take(&mut file.rows);
        Ok((
            Self {
                task: file.task,
                labels: file.labels,
                features: file.features,
                training: file.training,
                temperature: file.temperature,
                hybrid: file.hybrid,
                bias: file.bias,
                weights: vec![0.0f32; dim * k],
                vocabulary,
            },
            file_rows,
        ))
    }

    /// The model in tact's compact binary form (what the embedded default
    /// models are shipped as, read at start without parsing text): the
    /// magic bytes `TACTLM1\0`, the length (u32, little-endian) and JSON of
    /// the model file without its rows, then the count of non-zero rows
    /// (u32) and each row as its bucket (u32) and one f32 per label, all
    /// little-endian. [`LinearModel::from_bytes`] reads it back exactly;
    /// the JSON of [`LinearModel::to_json`] stays the format a user edits
    /// and loads.
    pub fn to_bytes(&self) -> Vec<u8> {
        let k = self.labels.len();
        let header = self.file(Vec::new());
        // Serializing plain numbers and strings cannot fail.
        let header = serde_json::to_vec(&header).unwrap_or_default();
        let rows: Vec<(usize, &[f32])> = self
            .weights
            .chunks(k)
            .enumerate()
            .filter(|(_, w)| w.iter().any(|x| *x != 0.0))
            .collect();
        let mut out = Vec::with_capacity(16 + header.len() + rows.len() * (4 + 4 * k));
        out.extend_from_slice(BINARY_MAGIC);
        out.extend_from_slice(
            &u32::try_from(header.len())
                .unwrap_or(u32::MAX)
                .to_le_bytes(),
        );
        out.extend_from_slice(&header);
        out.extend_from_slice(&u32::try_from(rows.len()).unwrap_or(u32::MAX).to_le_bytes());
        for (bucket, w) in rows {
            out.extend_from_slice(&u32::try_from(bucket).unwrap_or(u32::MAX).to_le_bytes());
            for x in w {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        out
    }

    /// Reads a model written by [`LinearModel::to_bytes`], checked as
    /// [`LinearModel::from_json`] checks a file.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let bad = |message: String| Error::Model { message };
        let mut r = Reader(bytes);
        if r.take(BINARY_MAGIC.len()) != Some(BINARY_MAGIC) {
            return Err(bad("not a binary tact model (magic bytes)".into()));
        }
        let header_len = r.u32().ok_or_else(|| bad("truncated header".into()))?;
        let header = r
            .take(header_len as usize)
            .ok_or_else(|| bad("truncated header".into()))?;
        let file: ModelFile =
            serde_json::from_slice(header).map_err(|e| bad(format!("not a model header: {e}")))?;
        let (mut model, _) = Self::empty(file)?;
        let k = model.labels.len();
        let dim = model.features.dim();
        let rows = r.u32().ok_or_else(|| bad("truncated rows".into()))? as usize;
        // One pass over the rows' bytes, each row a slice: the weights of
        // a model are most of what a one-question command reads at start.
        let row_bytes = 4 * (1 + k);
        let body = rows
            .checked_mul(row_bytes)
            .and_then(|n| r.take(n))
            .ok_or_else(|| {
                let whole = r.0.len() / row_bytes;
                bad(format!("row {whole} is truncated"))
            })?;
        for (n, row) in body.chunks_exact(row_bytes).enumerate() {
            let (head, weights) = row.split_at(4);
            let bucket =
                head.try_into()
                    .map(u32::from_le_bytes)
                    .map_err(|_| bad(format!("row {n} is truncated")))? as usize;
            if bucket >= dim {
                return Err(bad(format!("row {n}: bucket {bucket} is not in 0..{dim}")));
            }
            let slots = model
                .weights
                .get_mut(bucket * k..(bucket + 1) * k)
                .unwrap_or_default();
            for (j, (slot, w)) in slots.iter_mut().zip(weights.chunks_exact(4)).enumerate() {
                let w = f32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                if !w.is_finite() {
                    return Err(bad(format!("row {n}: weight {j} is not finite")));
                }
                *slot = w;
            }
        }
        if !r.0.is_empty() {
            return Err(bad(format!("{} bytes after the last row", r.0.len())));
        }
        Ok(model)
    }

    /// Writes the model file (stable: the same model gives the same bytes).
    pub fn to_json(&self) -> String {
        let k = self.labels.len();
        let rows = self
            .weights
            .chunks(k)
            .enumerate()
            .filter(|(_, w)| w.iter().any(|x| *x != 0.0))
            .map(|(i, w)| (i as u64, w.iter().map(|x| decimal(*x)).collect()))
            .collect();
        let file = self.file(rows);
        // Serializing plain numbers and strings cannot fail.
        let mut out = serde_json::to_string(&file).unwrap_or_default();
        out.push('\n');
        out
    }

    /// The model file of this model with `rows` as its rows.
    fn file(&self, rows: Vec<Row>) -> ModelFile {
        ModelFile {
            format: MODEL_FORMAT.to_owned(),
            version: MODEL_VERSION,
            task: self.task.clone(),
            labels: self.labels.clone(),
            features: self.features,
            training: self.training.clone(),
            temperature: self.temperature,
            hybrid: self.hybrid,
            bias: self.bias.clone(),
            vocabulary: self.vocabulary.buckets(),
            rows,
        }
    }

    /// The task the model was trained for.
    pub fn task(&self) -> &str {
        &self.task
    }

    /// The label names, in index order.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// The feature configuration.
    pub fn features(&self) -> &FeatureConfig {
        &self.features
    }

    /// How the model was trained.
    pub fn training(&self) -> &TrainingInfo {
        &self.training
    }

    /// The calibration temperature (logits are divided by it).
    pub fn temperature(&self) -> f32 {
        self.temperature
    }

    /// The hybrid thresholds stored with the model, if any.
    pub fn hybrid(&self) -> Option<HybridThresholds> {
        self.hybrid
    }

    /// Sets the hybrid thresholds stored with the model.
    pub fn set_hybrid(&mut self, thresholds: Option<HybridThresholds>) {
        self.hybrid = thresholds;
    }

    /// Number of non-zero weight rows.
    pub fn nonzero_rows(&self) -> usize {
        let k = self.labels.len();
        self.weights
            .chunks(k)
            .filter(|w| w.iter().any(|x| *x != 0.0))
            .count()
    }

    /// Calibrated probabilities for a normalized `text` (see
    /// [`crate::normalize`]) and the names of extra features (for example
    /// the heuristic cues that fired). Allocates nothing.
    pub fn predict<'e>(&self, text: &str, extras: impl IntoIterator<Item = &'e str>) -> Prediction {
        // Rows of a known width are added as fixed-size arrays, which the
        // compiler turns into a few vector instructions per feature.
        match self.labels.len() {
            2 => self.predict_rows::<2>(text, extras),
            3 => self.predict_rows::<3>(text, extras),
            4 => self.predict_rows::<4>(text, extras),
            _ => self.predict_any(text, extras),
        }
    }

    /// [`LinearModel::predict`] for a model of exactly `K` labels: each
    /// feature's row is read as a `[f32; K]`.
    fn predict_rows<'e, const K: usize>(
        &self,
        text: &str,
        extras: impl IntoIterator<Item = &'e str>,
    ) -> Prediction {
        let mut sums = [0.0f32; K];
        let (mut words, mut seen) = (0u32, 0u32);
        let norm2 = self
            .features
            .for_each_marked(text, extras, |bucket, x, word| {
                if word {
                    words += 1;
                    seen += u32::from(self.vocabulary.contains(bucket));
                }
                let row = self
                    .weights
                    .get(bucket * K..)
                    .and_then(|r| r.first_chunk::<K>());
                if let Some(row) = row {
                    for (sum, w) in sums.iter_mut().zip(row) {
                        *sum += w * x;
                    }
                }
            });
        self.finish(&sums, norm2, self.vocabulary.share(seen, words))
    }

    /// [`LinearModel::predict`] for any number of labels up to
    /// [`MAX_LABELS`].
    fn predict_any<'e>(&self, text: &str, extras: impl IntoIterator<Item = &'e str>) -> Prediction {
        let k = self.labels.len().min(MAX_LABELS);
        let mut sums = [0.0f32; MAX_LABELS];
        let (mut words, mut seen) = (0u32, 0u32);
        let norm2 = self
            .features
            .for_each_marked(text, extras, |bucket, x, word| {
                if word {
                    words += 1;
                    seen += u32::from(self.vocabulary.contains(bucket));
                }
                let base = bucket * k;
                if let Some(row) = self.weights.get(base..base + k) {
                    for (sum, w) in sums.iter_mut().zip(row) {
                        *sum += w * x;
                    }
                }
            });
        self.finish(&sums[..k], norm2, self.vocabulary.share(seen, words))
    }

    /// Logits from the summed weights, scaled by the features' norm and
    /// the temperature, then softmax; with the input's word `coverage`.
    fn finish(&self, sums: &[f32], norm2: f32, coverage: f32) -> Prediction {
        let k = sums.len().min(self.labels.len()).min(MAX_LABELS);
        let scale = if norm2 > 0.0 { 1.0 / norm2.sqrt() } else { 0.0 };
        let mut logits = [0.0f32; MAX_LABELS];
        for (j, logit) in logits.iter_mut().enumerate().take(k) {
            let bias = self.bias.get(j).copied().unwrap_or(0.0);
            let sum = sums.get(j).copied().unwrap_or(0.0);
            *logit = (bias + sum * scale) / self.temperature;
        }
        softmax(&logits[..k], k).with_coverage(coverage)
    }
}

/// Weights are stored to 4 decimals; this prints one as that decimal
/// (reading it back gives the same `f32`).
fn decimal(x: f32) -> f64 {
    (f64::from(x) * 1e4).round() / 1e4
}

/// A numerically safe softmax into a [`Prediction`].
pub(crate) fn softmax(logits: &[f32], k: usize) -> Prediction {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut probs = [0.0f32; MAX_LABELS];
    let mut total = 0.0f32;
    for (p, l) in probs.iter_mut().zip(logits) {
        *p = (l - max).exp();
        total += *p;
    }
    if !(total.is_finite() && total > 0.0) {
        let uniform = 1.0 / k as f32;
        for p in probs.iter_mut().take(k) {
            *p = uniform;
        }
    } else {
        for p in probs.iter_mut().take(k) {
            *p /= total;
        }
    }
    Prediction {
        probs,
        len: k,
        coverage: 1.0,
    }
}

impl Prediction {
    /// The same probabilities for an input with word `coverage`.
    pub(crate) fn with_coverage(mut self, coverage: f32) -> Self {
        self.coverage = coverage;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::train::tests::labelled;
    use super::*;

    fn tiny() -> LinearModel {
        let data = labelled(&[
            ("how many rows", 0),
            ("which port", 0),
            ("what date", 0),
            ("summarize everything", 1),
            ("explain the approach", 1),
            ("overview of themes", 1),
        ]);
        let trainer = Trainer {
            epochs: 5,
            folds: 2,
            ..Trainer::default()
        };
        match trainer.train("t", vec!["a".into(), "b".into()], &data) {
            Ok(fit) => fit.model,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn json_round_trip_is_exact() {
        let m = tiny();
        let json = m.to_json();
        let back = LinearModel::from_json(&json).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.to_json(), json);
    }

    #[test]
    fn malformed_files_are_clear_errors() {
        let json = tiny().to_json();
        let cases = [
            ("", "not a model file"),
            ("{}", "not a model file"),
            ("[1,2]", "not a model file"),
            (&json.replace(MODEL_FORMAT, "other"), "format is `other`"),
            (&json.replace("\"version\":1", "\"version\":9"), "version 9"),
            (
                &json.replace("\"hash_bits\":16", "\"hash_bits\":60"),
                "hash_bits",
            ),
            (
                &json.replace("\"temperature\":", "\"temperature\":-"),
                "temperature",
            ),
            (
                &json.replace("\"rows\":[[", "\"rows\":[[99999999,[1,2]],["),
                "row 0",
            ),
            (&json.replace("\"rows\":[[", "\"rows\":[[1,[1]],["), "row 0"),
            (
                &json.replace("\"rows\":[[", "\"rows\":[[1.5,[1,2]],["),
                "not a model file",
            ),
            (
                &json.replace("\"task\"", "\"extra\":1,\"task\""),
                "unknown field",
            ),
            (
                &json.replace("\"vocabulary\":[", "\"vocabulary\":[70000,"),
                "vocabulary bucket 70000",
            ),
        ];
        for (text, want) in cases {
            let e = LinearModel::from_json(text).unwrap_err().to_string();
            assert!(e.contains(want), "{want}: {e}");
        }
    }

    #[test]
    fn coverage_is_the_share_of_words_seen_in_training() {
        let m = tiny();
        assert_eq!(m.predict("which port", []).coverage(), 1.0);
        assert_eq!(m.predict("which zebra", []).coverage(), 0.5);
        // Repeats count: three words of four are unknown.
        assert_eq!(m.predict("zebra zebra zebra port", []).coverage(), 0.25);
        // No word, or extras alone: nothing to be unfamiliar with.
        assert_eq!(m.predict("", ["cue"]).coverage(), 1.0);
        assert_eq!(m.predict("?!", []).coverage(), 1.0);
        // A file without a vocabulary counts every word as seen.
        let json = m.to_json();
        let start = json.find(",\"vocabulary\":").unwrap();
        let end = json.find(",\"rows\":").unwrap();
        let old = LinearModel::from_json(&format!("{}{}", &json[..start], &json[end..])).unwrap();
        assert_eq!(old.predict("which zebra", []).coverage(), 1.0);
        assert_eq!(
            old.predict("which zebra", []).probabilities(),
            m.predict("which zebra", []).probabilities()
        );
    }

    #[test]
    fn out_of_fold_coverage_uses_the_folds_vocabulary() {
        // Two folds by position (0 and 2, 1 and 3): "delta" only in fold 0.
        let data = labelled(&[
            ("alpha beta", 0),
            ("beta gamma", 1),
            ("gamma delta", 0),
            ("alpha beta", 1),
        ]);
        let trainer = Trainer {
            epochs: 2,
            folds: 2,
            ..Trainer::default()
        };
        let fit = trainer
            .train("t", vec!["a".into(), "b".into()], &data)
            .unwrap();
        let cov: Vec<f32> = fit.out_of_fold.iter().map(Prediction::coverage).collect();
        // "delta" is unknown to the model of the other fold; the final
        // model knows every word.
        assert_eq!(cov, vec![1.0, 1.0, 0.5, 1.0]);
        assert_eq!(fit.model.predict("alpha delta", []).coverage(), 1.0);
    }

    #[test]
    fn predictions_are_probabilities() {
        let m = tiny();
        for text in ["", "how many", "explain", &"x".repeat(50_000)] {
            let p = m.predict(text, ["cue"]);
            let total: f32 = p.probabilities().iter().sum();
            assert!((total - 1.0).abs() < 1e-4, "{total}");
            assert!(p.margin() >= 0.0);
        }
        assert_eq!(m.predict("summarize the approach", []).label(), 1);
    }
}
