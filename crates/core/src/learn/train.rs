//! Deterministic training of a [`LinearModel`]: AdaGrad on the multinomial
//! logistic loss with L2 regularisation, per-example weights and class
//! weights balanced within each group of examples, a fixed seed and order,
//! the weights averaged over several shuffled orders, then temperature
//! scaling fitted on out-of-fold predictions.

use super::{
    FeatureConfig, LinearModel, MAX_LABELS, MODEL_FORMAT, Prediction, TrainingInfo, Vocabulary,
    softmax,
};
use crate::Error;

/// One training example: a normalized text, extra feature names and the
/// index of its label.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Example {
    /// The text, normalized as [`crate::normalize`] does.
    pub text: String,
    /// Extra feature names (heuristic cues that fired...).
    pub extras: Vec<String>,
    /// Index of the gold label in the model's labels.
    pub label: usize,
    /// How much the example counts in the loss, relative to the others
    /// (1 by default; a non-finite or negative weight counts as 0).
    pub weight: f64,
    /// The group of texts it belongs to (0 by default). Classes are
    /// balanced within each group, so that data of another kind, with
    /// other class frequencies, does not shift a group's decisions.
    pub group: u32,
    /// The out-of-fold split it falls in (its position by default): taken
    /// modulo [`Trainer::folds`]. Examples of one source given one fold
    /// are predicted by a model that saw nothing of that source, which is
    /// how the model meets text from a corpus no split comes from.
    pub fold: Option<u32>,
}

impl Example {
    /// Creates an example.
    pub fn new(text: &str, extras: Vec<String>, label: usize) -> Self {
        Self {
            text: text.to_owned(),
            extras,
            label,
            weight: 1.0,
            group: 0,
            fold: None,
        }
    }

    /// The same example, in out-of-fold split `fold` (modulo the folds).
    #[must_use]
    pub fn in_fold(mut self, fold: u32) -> Self {
        self.fold = Some(fold);
        self
    }

    /// The same example, in group `group`.
    #[must_use]
    pub fn in_group(mut self, group: u32) -> Self {
        self.group = group;
        self
    }

    /// The same example, counting `weight` times in the loss.
    #[must_use]
    pub fn with_weight(mut self, weight: f64) -> Self {
        self.weight = weight;
        self
    }
}

/// The hyper-parameters of a training run. Two runs with the same
/// parameters and examples give identical models.
#[derive(Debug, Clone, PartialEq)]
pub struct Trainer {
    /// How texts become features.
    pub features: FeatureConfig,
    /// Passes over the data.
    pub epochs: u32,
    /// L2 regularisation strength (applied to the weights a step touches).
    pub l2: f64,
    /// AdaGrad base learning rate.
    pub learning_rate: f64,
    /// Seed of the example order.
    pub seed: u64,
    /// Folds for the out-of-fold predictions the temperature is fitted on
    /// (at least 2).
    pub folds: u32,
    /// Example orders to train on (at least 1), each shuffled from its own
    /// seed (`seed`, `seed + 1`, ...); the model's weights are their mean.
    /// The logits of a linear model are linear in its weights, so the mean
    /// model scores as the mean of the models would, at one model's cost,
    /// and depends less on the luck of one order.
    pub shuffles: u32,
    /// How far the classes are balanced within each group, in 0..=1: each
    /// example's class weight is the fully balancing one (group total over
    /// classes present times class total) to this power. 1 (the default)
    /// balances fully; 0 keeps the data's own class frequencies, which
    /// suits text where one class is most of what a user meets.
    pub class_balance: f64,
}

impl Default for Trainer {
    fn default() -> Self {
        Self {
            features: FeatureConfig::default(),
            epochs: 25,
            l2: 1e-4,
            learning_rate: 0.5,
            seed: 0x7AC7,
            folds: 5,
            shuffles: 1,
            class_balance: 1.0,
        }
    }
}

/// A trained model with the out-of-fold predictions of its training data.
#[derive(Debug, Clone)]
pub struct Fit {
    /// The model, trained on every example and calibrated.
    pub model: LinearModel,
    /// For each example, in input order, the calibrated prediction of a
    /// model trained without its fold: an honest estimate of how the model
    /// does on unseen data (used to choose the hybrid thresholds).
    pub out_of_fold: Vec<Prediction>,
}

struct Encoded {
    buckets: Vec<(u32, f64)>,
    /// The buckets of its words (unigrams), with repeats.
    words: Vec<u32>,
    scale: f64,
    label: usize,
    weight: f64,
    group: u32,
}

impl Trainer {
    /// Trains a model for `task` with `labels` on `examples`.
    pub fn train(
        &self,
        task: &str,
        labels: Vec<String>,
        examples: &[Example],
    ) -> Result<Fit, Error> {
        let bad = |message: String| Error::Model { message };
        let k = labels.len();
        if !(2..=MAX_LABELS).contains(&k) {
            return Err(bad(format!("{k} labels; a model has 2 to {MAX_LABELS}")));
        }
        self.features.validate().map_err(bad)?;
        if self.folds < 2 {
            return Err(bad("at least 2 folds are needed".into()));
        }
        if !(0.0..=1.0).contains(&self.class_balance) {
            return Err(bad(format!(
                "class_balance {} is outside 0..=1",
                self.class_balance
            )));
        }
        if self.shuffles < 1 {
            return Err(bad("at least 1 shuffle is needed".into()));
        }
        if examples.len() < self.folds as usize {
            return Err(bad(format!(
                "{} examples for {} folds",
                examples.len(),
                self.folds
            )));
        }
        if let Some(e) = examples.iter().find(|e| e.label >= k) {
            return Err(bad(format!("label index {} is not below {k}", e.label)));
        }
        let _span = tracing::info_span!("learn.train", task, examples = examples.len()).entered();
        let data: Vec<Encoded> = examples.iter().map(|e| self.encode(e)).collect();

        // Out-of-fold logits, fold = the example's fold (else its position)
        // modulo the fold count.
        let folds = self.folds as usize;
        let fold_of: Vec<usize> = examples
            .iter()
            .enumerate()
            .map(|(i, e)| e.fold.map_or(i, |f| f as usize) % folds)
            .collect();
        let mut oof_logits = vec![[0.0f64; MAX_LABELS]; data.len()];
        // And the share of each example's words its fold's model saw.
        let mut oof_coverage = vec![1.0f32; data.len()];
        for fold in 0..folds {
            let train: Vec<usize> = (0..data.len()).filter(|&i| fold_of[i] != fold).collect();
            let (w, b) = self.fit(&data, &train, k);
            let vocabulary = self.vocabulary(&data, &train);
            for i in (0..data.len()).filter(|&i| fold_of[i] == fold) {
                oof_logits[i] = logits(&w, &b, &data[i], k);
                let words = &data[i].words;
                let seen = words
                    .iter()
                    .filter(|b| vocabulary.contains(**b as usize))
                    .count();
                oof_coverage[i] = vocabulary.share(seen as u32, words.len() as u32);
            }
        }
        let temperature = fit_temperature(&oof_logits, &data, k);
        let out_of_fold = oof_logits
            .iter()
            .zip(&oof_coverage)
            .map(|(l, c)| predict_logits(l, k, temperature).with_coverage(*c))
            .collect();

        let all: Vec<usize> = (0..data.len()).collect();
        let (w, b) = self.fit(&data, &all, k);
        let model = LinearModel {
            task: task.to_owned(),
            labels,
            features: self.features,
            training: TrainingInfo {
                examples: data.len(),
                epochs: self.epochs,
                l2: self.l2,
                learning_rate: self.learning_rate,
                seed: self.seed,
                folds: self.folds,
                shuffles: self.shuffles,
                class_balance: self.class_balance,
            },
            temperature: round(f64::from(temperature)),
            hybrid: None,
            bias: b.iter().map(|x| round(*x)).collect(),
            weights: w.iter().map(|x| round(*x)).collect(),
            vocabulary: self.vocabulary(&data, &all),
        };
        tracing::info!(
            target: "tact::learn",
            format = MODEL_FORMAT,
            rows = model.nonzero_rows(),
            temperature,
            "trained"
        );
        Ok(Fit { model, out_of_fold })
    }

    /// An example's feature buckets, their norm and its weight (a weight
    /// that is no positive number counts as 0).
    fn encode(&self, e: &Example) -> Encoded {
        let mut buckets = Vec::new();
        let mut words = Vec::new();
        let norm2 = self.features.for_each_marked(
            &e.text,
            e.extras.iter().map(String::as_str),
            |b, x, word| {
                buckets.push((b as u32, f64::from(x)));
                if word {
                    words.push(b as u32);
                }
            },
        );
        Encoded {
            buckets,
            words,
            scale: if norm2 > 0.0 {
                1.0 / f64::from(norm2).sqrt()
            } else {
                0.0
            },
            label: e.label,
            weight: if e.weight.is_finite() && e.weight > 0.0 {
                e.weight
            } else {
                0.0
            },
            group: e.group,
        }
    }

    /// The words of the examples `idx` that count in the loss.
    fn vocabulary(&self, data: &[Encoded], idx: &[usize]) -> Vocabulary {
        let words = idx
            .iter()
            .map(|&i| &data[i])
            .filter(|e| e.weight > 0.0)
            .flat_map(|e| e.words.iter().map(|b| *b as usize));
        Vocabulary::of(self.features.dim(), words)
    }

    /// The mean of [`Trainer::fit_order`] over the `shuffles` seeds.
    fn fit(&self, data: &[Encoded], idx: &[usize], k: usize) -> (Vec<f64>, Vec<f64>) {
        let (mut w, mut b) = self.fit_order(data, idx, k, self.seed);
        for s in 1..self.shuffles {
            let (ws, bs) = self.fit_order(data, idx, k, self.seed.wrapping_add(u64::from(s)));
            w.iter_mut().zip(&ws).for_each(|(x, y)| *x += y);
            b.iter_mut().zip(&bs).for_each(|(x, y)| *x += y);
        }
        if self.shuffles > 1 {
            let n = f64::from(self.shuffles);
            w.iter_mut().chain(b.iter_mut()).for_each(|x| *x /= n);
        }
        (w, b)
    }

    /// AdaGrad over the examples `idx`, in an order shuffled per epoch
    /// from `seed`. Returns the weights (`dim * k`) and biases.
    fn fit_order(
        &self,
        data: &[Encoded],
        idx: &[usize],
        k: usize,
        seed: u64,
    ) -> (Vec<f64>, Vec<f64>) {
        let dim = self.features.dim();
        let mut w = vec![0.0f64; dim * k];
        let mut g2 = vec![0.0f64; dim * k];
        let mut b = vec![0.0f64; k];
        let mut gb = vec![0.0f64; k];
        // Class weights balanced within each group, over the examples'
        // weights: group total / (classes present in the group * class
        // total in the group).
        let mut groups: Vec<(u32, [f64; MAX_LABELS])> = Vec::new();
        for &i in idx {
            let e = &data[i];
            let slot = match groups.iter().position(|(g, _)| *g == e.group) {
                Some(p) => p,
                None => {
                    groups.push((e.group, [0.0; MAX_LABELS]));
                    groups.len() - 1
                }
            };
            groups[slot].1[e.label] += e.weight;
        }
        let class_weights: Vec<(u32, [f64; MAX_LABELS])> = groups
            .iter()
            .map(|(g, counts)| {
                let total: f64 = counts.iter().sum();
                let present = counts.iter().filter(|c| **c > 0.0).count().max(1);
                let mut w = [0.0f64; MAX_LABELS];
                for (wj, &c) in w.iter_mut().zip(counts.iter()).take(k) {
                    if c > 0.0 {
                        let balancing = total / (present as f64 * c);
                        *wj = if self.class_balance == 1.0 {
                            balancing
                        } else {
                            balancing.powf(self.class_balance)
                        };
                    }
                }
                (*g, w)
            })
            .collect();
        let class_weight = |e: &Encoded| {
            class_weights
                .iter()
                .find(|(g, _)| *g == e.group)
                .map_or(0.0, |(_, w)| w[e.label])
        };
        let mut order = idx.to_vec();
        let mut rng = SplitMix64(seed);
        let lr = self.learning_rate;
        for _ in 0..self.epochs {
            for i in (1..order.len()).rev() {
                let j = (rng.next() % (i as u64 + 1)) as usize;
                order.swap(i, j);
            }
            for &i in &order {
                let e = &data[i];
                let l = logits(&w, &b, e, k);
                let p = softmax64(&l[..k]);
                let mut g = [0.0f64; MAX_LABELS];
                let cw = e.weight * class_weight(e);
                for j in 0..k {
                    let y = if j == e.label { 1.0 } else { 0.0 };
                    g[j] = cw * (p[j] - y);
                }
                for &(bucket, x) in &e.buckets {
                    let base = bucket as usize * k;
                    for j in 0..k {
                        let grad = g[j] * x * e.scale + self.l2 * w[base + j];
                        g2[base + j] += grad * grad;
                        w[base + j] -= lr * grad / (g2[base + j].sqrt() + 1e-8);
                    }
                }
                for j in 0..k {
                    gb[j] += g[j] * g[j];
                    b[j] -= lr * g[j] / (gb[j].sqrt() + 1e-8);
                }
            }
        }
        (w, b)
    }
}

fn logits(w: &[f64], b: &[f64], e: &Encoded, k: usize) -> [f64; MAX_LABELS] {
    let mut out = [0.0f64; MAX_LABELS];
    for &(bucket, x) in &e.buckets {
        let base = bucket as usize * k;
        for j in 0..k {
            out[j] += w[base + j] * x;
        }
    }
    for j in 0..k {
        out[j] = b[j] + out[j] * e.scale;
    }
    out
}

fn softmax64(l: &[f64]) -> [f64; MAX_LABELS] {
    let max = l.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut p = [0.0f64; MAX_LABELS];
    let mut total = 0.0;
    for (pi, li) in p.iter_mut().zip(l) {
        *pi = (li - max).exp();
        total += *pi;
    }
    for pi in p.iter_mut().take(l.len()) {
        *pi /= total;
    }
    p
}

fn predict_logits(l: &[f64; MAX_LABELS], k: usize, temperature: f32) -> Prediction {
    let mut scaled = [0.0f32; MAX_LABELS];
    for j in 0..k {
        scaled[j] = (l[j] / f64::from(temperature)) as f32;
    }
    softmax(&scaled[..k], k)
}

/// The temperature in 0.2..=5.0 (steps of 0.05) with the lowest mean
/// negative log-likelihood of the out-of-fold logits.
fn fit_temperature(oof: &[[f64; MAX_LABELS]], data: &[Encoded], k: usize) -> f32 {
    let mut best = (f64::INFINITY, 1.0f32);
    for step in 0..=96u32 {
        let t = 0.2 + 0.05 * f64::from(step);
        let nll: f64 = oof
            .iter()
            .zip(data)
            .map(|(l, e)| {
                let scaled: Vec<f64> = l[..k].iter().map(|x| x / t).collect();
                let p = softmax64(&scaled);
                -(p[e.label].max(1e-12)).ln()
            })
            .sum::<f64>()
            / oof.len().max(1) as f64;
        if nll < best.0 {
            best = (nll, t as f32);
        }
    }
    best.1
}

/// Weights are stored to 4 decimals: the file stays small and a model read
/// back equals the model written.
fn round(x: f64) -> f32 {
    ((x * 1e4).round() / 1e4) as f32
}

/// A small, fixed pseudo-random generator (SplitMix64), so that training
/// is reproducible on every platform.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Examples of `(text, label)` pairs with no extras (shared with the
    /// model's tests).
    pub(crate) fn labelled(pairs: &[(&str, usize)]) -> Vec<Example> {
        pairs
            .iter()
            .map(|(t, y)| Example::new(t, vec![], *y))
            .collect()
    }

    fn data() -> Vec<Example> {
        let mut v = Vec::new();
        for (i, w) in ["port", "date", "count", "name", "size", "id"]
            .iter()
            .enumerate()
        {
            v.push(Example::new(&format!("which {w} is used {i}"), vec![], 0));
            v.push(Example::new(
                &format!("explain why the {w} design works"),
                vec!["why".into()],
                1,
            ));
        }
        v
    }

    #[test]
    fn training_is_deterministic() {
        let t = Trainer {
            epochs: 4,
            folds: 3,
            ..Trainer::default()
        };
        let a = t.train("x", vec!["a".into(), "b".into()], &data()).unwrap();
        let b = t.train("x", vec!["a".into(), "b".into()], &data()).unwrap();
        assert_eq!(a.model.to_json(), b.model.to_json());
        assert_eq!(a.out_of_fold, b.out_of_fold);
        assert_eq!(a.out_of_fold.len(), data().len());
    }

    #[test]
    fn examples_of_one_fold_are_predicted_by_a_model_blind_to_that_fold() {
        let t = Trainer {
            epochs: 3,
            folds: 2,
            ..Trainer::default()
        };
        // By position, "zebra" is in both folds; given one fold, its
        // examples are predicted by a model that never saw the word.
        let mut by_position = data();
        for _ in 0..2 {
            by_position.push(Example::new("zebra crossing", vec![], 0));
        }
        let blind: Vec<Example> = by_position
            .iter()
            .cloned()
            .map(|e| {
                let f = u32::from(e.text.starts_with("zebra"));
                e.in_fold(f)
            })
            .collect();
        let n = by_position.len();
        let a = t
            .train("x", vec!["a".into(), "b".into()], &by_position)
            .unwrap();
        let b = t.train("x", vec!["a".into(), "b".into()], &blind).unwrap();
        assert!(a.out_of_fold[n - 1].coverage() > 0.99);
        assert!(b.out_of_fold[n - 1].coverage() < 0.01);
        assert!(b.out_of_fold[n - 2].coverage() < 0.01);
    }

    #[test]
    fn several_shuffles_average_the_models_of_their_orders() {
        let t = Trainer {
            epochs: 3,
            folds: 2,
            ..Trainer::default()
        };
        let data = data();
        let enc: Vec<Encoded> = data.iter().map(|e| t.encode(e)).collect();
        let idx: Vec<usize> = (0..enc.len()).collect();
        let (w0, b0) = t.fit_order(&enc, &idx, 2, t.seed);
        let (w1, b1) = t.fit_order(&enc, &idx, 2, t.seed + 1);
        assert_ne!(w0, w1, "two orders give two models");
        let two = Trainer {
            shuffles: 2,
            ..t.clone()
        };
        let (w, b) = two.fit(&enc, &idx, 2);
        for ((m, x), y) in w.iter().zip(&w0).zip(&w1) {
            assert!((m - (x + y) / 2.0).abs() < 1e-12);
        }
        for ((m, x), y) in b.iter().zip(&b0).zip(&b1) {
            assert!((m - (x + y) / 2.0).abs() < 1e-12);
        }
        // One shuffle is the one order; the count is recorded in the file
        // only when it is more than one, and read back.
        assert_eq!(t.fit(&enc, &idx, 2), (w0, b0));
        let labels = || vec!["a".into(), "b".into()];
        let one = t.train("x", labels(), &data).unwrap().model;
        assert!(!one.to_json().contains("shuffles"));
        let fit = two.train("x", labels(), &data).unwrap().model;
        assert_eq!(fit.training().shuffles, 2);
        let back = LinearModel::from_json(&fit.to_json()).unwrap();
        assert_eq!(back.training().shuffles, 2);
        assert_eq!(
            LinearModel::from_json(&one.to_json())
                .unwrap()
                .training()
                .shuffles,
            1
        );
        let none = Trainer { shuffles: 0, ..t };
        assert!(none.train("x", labels(), &data).is_err());
    }

    #[test]
    fn class_balance_weighs_the_classes_and_is_recorded_when_partial() {
        // Three of one class, one of the other: balancing moves the bias.
        let data = labelled(&[("red", 0), ("rose", 0), ("ruby", 0), ("blue", 1)]);
        let t = Trainer {
            epochs: 5,
            folds: 2,
            ..Trainer::default()
        };
        let labels = || vec!["a".into(), "b".into()];
        let at = |class_balance: f64| {
            Trainer {
                class_balance,
                ..t.clone()
            }
            .train("x", labels(), &data)
        };
        let full = at(1.0).unwrap().model;
        let half = at(0.5).unwrap().model;
        let none = at(0.0).unwrap().model;
        // The unseen word's prediction is the bias: the more balanced, the
        // less it leans to the frequent class.
        let p = |m: &LinearModel| m.predict("green", []).probability(0);
        assert!(
            p(&full) < p(&half) && p(&half) < p(&none),
            "{} {} {}",
            p(&full),
            p(&half),
            p(&none)
        );
        assert!(!full.to_json().contains("class_balance"));
        assert!(half.to_json().contains("\"class_balance\":0.5"));
        let back = LinearModel::from_json(&half.to_json()).unwrap();
        assert_eq!(back.training().class_balance, 0.5);
        assert_eq!(
            LinearModel::from_json(&full.to_json())
                .unwrap()
                .training()
                .class_balance,
            1.0
        );
        for bad in [-0.1, 1.5, f64::NAN] {
            let e = at(bad).unwrap_err();
            assert!(e.to_string().contains("class_balance"), "{e}");
        }
    }

    #[test]
    fn learns_a_separable_problem() {
        let fit = Trainer::default()
            .train("x", vec!["a".into(), "b".into()], &data())
            .unwrap();
        let right = data()
            .iter()
            .filter(|e| {
                fit.model
                    .predict(&e.text, e.extras.iter().map(String::as_str))
                    .label()
                    == e.label
            })
            .count();
        assert_eq!(right, data().len());
        assert!(fit.model.temperature() > 0.0);
    }

    #[test]
    fn the_weight_of_an_example_decides_between_conflicting_labels() {
        let t = Trainer {
            epochs: 6,
            folds: 2,
            ..Trainer::default()
        };
        let fit = |wa: f64, wb: f64| {
            let mut d = data();
            for _ in 0..3 {
                d.push(Example::new("the same words", vec![], 0).with_weight(wa));
                d.push(Example::new("the same words", vec![], 1).with_weight(wb));
            }
            t.train("x", vec!["a".into(), "b".into()], &d)
                .unwrap()
                .model
                .predict("the same words", std::iter::empty())
                .label()
        };
        assert_eq!(fit(5.0, 0.2), 0);
        assert_eq!(fit(0.2, 5.0), 1);
        // A weight that is no number counts as 0.
        assert_eq!(fit(f64::NAN, 1.0), 1);
    }

    #[test]
    fn one_group_trains_as_no_group_and_groups_balance_their_own_classes() {
        let t = Trainer {
            epochs: 4,
            folds: 3,
            ..Trainer::default()
        };
        let labels = || vec!["a".to_owned(), "b".to_owned()];
        let plain = t.train("x", labels(), &data()).unwrap();
        let grouped: Vec<Example> = data().into_iter().map(|e| e.in_group(7)).collect();
        let grouped = t.train("x", labels(), &grouped).unwrap();
        assert_eq!(plain.model.to_json(), grouped.model.to_json());
        // A second group with only `a` examples: pooled, `a` would be
        // weighted down in the first group too; balanced per group, the
        // first group's separable problem is still learned.
        let mut d = data();
        for i in 0..30 {
            d.push(Example::new(&format!("other kind {i}"), vec![], 0).in_group(1));
        }
        let fit = t.train("x", labels(), &d).unwrap();
        for e in data() {
            assert_eq!(
                fit.model
                    .predict(&e.text, e.extras.iter().map(String::as_str))
                    .label(),
                e.label,
                "{}",
                e.text
            );
        }
    }

    #[test]
    fn rejects_bad_inputs() {
        let t = Trainer::default();
        assert!(t.train("x", vec!["a".into()], &data()).is_err());
        assert!(
            t.train("x", vec!["a".into(), "b".into()], &data()[..2])
                .is_err()
        );
        let mut d = data();
        d[0].label = 5;
        assert!(t.train("x", vec!["a".into(), "b".into()], &d).is_err());
    }
}
