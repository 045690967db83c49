//! Classification metrics (accuracy, per-class precision/recall/F1,
//! macro-F1, confusion matrix) and latency percentiles, with the JSON shape
//! of `cargo xtask eval --json`.

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};

/// Precision, recall, F1 and support of one class.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClassMetrics {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub support: usize,
}

/// Per-class metrics keyed by label, serialized in label order.
#[derive(Debug, Clone, PartialEq)]
pub struct PerClass(pub Vec<(String, ClassMetrics)>);

impl Serialize for PerClass {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for PerClass {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // serde_json keeps a map's order only with `preserve_order`; read
        // the entries in file order with a visitor instead.
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = PerClass;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map of class metrics")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<PerClass, A::Error> {
                let mut v = Vec::new();
                while let Some((k, x)) = m.next_entry::<String, ClassMetrics>()? {
                    v.push((k, x));
                }
                Ok(PerClass(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// A confusion matrix: `matrix[gold][predicted]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Confusion {
    pub labels: Vec<String>,
    pub matrix: Vec<Vec<usize>>,
}

/// Latency percentiles in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub p50: u64,
    pub p95: u64,
    pub p99: u64,
}

/// One evaluation run: a task, a dataset and a strategy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub task: String,
    pub dataset: String,
    pub strategy: String,
    pub n: usize,
    pub accuracy: f64,
    pub macro_f1: f64,
    pub per_class: PerClass,
    pub confusion: Confusion,
    pub latency_ns: Latency,
    /// For the `hybrid` strategy: the share of items the heuristic
    /// deferred to the learned model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deferred: Option<f64>,
    /// For the `route` task: the errors the routing contract cares about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<RouteErrors>,
    /// With `--group FIELD`: the figures per group of items, largest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupRun>,
    /// For the `llm` and `cascade` strategies: the model tier's figures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_tier: Option<ModelTierRun>,
}

/// The routing errors that matter under the contract: a message sent to
/// `PLATFORM` skips retrieval and goes to the small model (RC-04, RC-05).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RouteErrors {
    /// Messages whose gold label is not `PLATFORM`.
    pub non_platform: usize,
    /// Of those, the ones routed to `PLATFORM`.
    pub wrongly_platform: usize,
    /// `wrongly_platform / non_platform` (0 when there are none).
    pub wrongly_platform_rate: f64,
    /// Messages whose gold label needs retrieval (`RETRIEVAL`,
    /// `CODE_GENERATION`).
    pub needs_retrieval: usize,
    /// Of those, the ones routed to a label that skips it.
    pub kept_from_retrieval: usize,
}

impl RouteErrors {
    /// The counts from a route confusion matrix (labels in the order of
    /// `tact_types::RouteLabel::ALL`, matched by name).
    pub fn from_confusion(c: &Confusion) -> Self {
        let at = |name: &str| c.labels.iter().position(|l| l == name);
        let platform = at("PLATFORM");
        let needs = |i: usize| {
            c.labels
                .get(i)
                .is_some_and(|l| l == "RETRIEVAL" || l == "CODE_GENERATION")
        };
        let mut e = Self {
            non_platform: 0,
            wrongly_platform: 0,
            wrongly_platform_rate: 0.0,
            needs_retrieval: 0,
            kept_from_retrieval: 0,
        };
        for (g, row) in c.matrix.iter().enumerate() {
            let total: usize = row.iter().sum();
            if Some(g) != platform {
                e.non_platform += total;
                e.wrongly_platform += platform.and_then(|p| row.get(p)).copied().unwrap_or(0);
            }
            if needs(g) {
                e.needs_retrieval += total;
                e.kept_from_retrieval += row
                    .iter()
                    .enumerate()
                    .filter(|(p, _)| !needs(*p))
                    .map(|(_, n)| n)
                    .sum::<usize>();
            }
        }
        if e.non_platform > 0 {
            e.wrongly_platform_rate = e.wrongly_platform as f64 / e.non_platform as f64;
        }
        e
    }
}

/// The figures of one group of items (`--group FIELD`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupRun {
    /// The field's value (for `source`, what comes before its first `@`
    /// or `#`: the repository or dataset).
    pub group: String,
    pub n: usize,
    pub accuracy: f64,
    pub macro_f1: f64,
}

/// The group of a dataset line's `field`: its string value (for
/// `source`, cut at the first `@` or `#`, so that one repository or
/// dataset is one group), `(none)` when absent.
pub fn group_key(field: &str, value: Option<&serde_json::Value>) -> String {
    match value {
        None | Some(serde_json::Value::Null) => "(none)".to_owned(),
        Some(serde_json::Value::String(s)) if field == "source" => {
            s.split(['@', '#']).next().unwrap_or(s).to_owned()
        }
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    }
}

/// Per-group figures of a run: items grouped by `keys` (one per item),
/// largest group first, then by name.
pub fn by_group(labels: &[&str], keys: &[String], gold: &[usize], pred: &[usize]) -> Vec<GroupRun> {
    // One pass to gather each group's items (a group per item stays linear).
    let mut groups: std::collections::BTreeMap<&str, (Vec<usize>, Vec<usize>)> =
        std::collections::BTreeMap::new();
    for (key, (g, p)) in keys.iter().zip(gold.iter().zip(pred)) {
        let slot = groups.entry(key.as_str()).or_default();
        slot.0.push(*g);
        slot.1.push(*p);
    }
    let mut out: Vec<GroupRun> = groups
        .into_iter()
        .map(|(k, (g, p))| {
            let (accuracy, macro_f1, _, _) = score(labels, &g, &p);
            GroupRun {
                group: k.to_owned(),
                n: g.len(),
                accuracy,
                macro_f1,
            }
        })
        .collect();
    out.sort_by(|a, b| b.n.cmp(&a.n).then_with(|| a.group.cmp(&b.group)));
    out
}

/// The model tier's figures over one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelTierRun {
    /// Share of items put to the model.
    pub escalation_rate: f64,
    /// Items put to the model.
    pub escalated: u64,
    /// Usable answers.
    pub answered: u64,
    /// Failed calls.
    pub failures: u64,
    /// Latency of the calls sent to the server, in nanoseconds.
    pub latency_ns: ModelLatency,
    /// Failures by kind and the structured form the server took.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

/// Model call latency percentiles, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ModelLatency {
    /// Median.
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
}

/// The p50, p90 and p99 of model call times.
pub fn model_latency(samples: &mut [u64]) -> ModelLatency {
    samples.sort_unstable();
    let pick = |q| nearest_rank(samples, q);
    ModelLatency {
        p50: pick(0.50),
        p90: pick(0.90),
        p99: pick(0.99),
    }
}

/// Computes the metrics of predictions against gold labels (indices into
/// `labels`). Classes with no support and no prediction count 0 in neither
/// precision nor recall; macro-F1 averages over classes with support or
/// predictions.
pub fn score(labels: &[&str], gold: &[usize], pred: &[usize]) -> (f64, f64, PerClass, Confusion) {
    let k = labels.len();
    let mut matrix = vec![vec![0usize; k]; k];
    for (&g, &p) in gold.iter().zip(pred) {
        if g < k && p < k {
            matrix[g][p] += 1;
        }
    }
    let n = gold.len().min(pred.len());
    let correct: usize = (0..k).map(|i| matrix[i][i]).sum();
    let accuracy = if n == 0 {
        0.0
    } else {
        correct as f64 / n as f64
    };
    let mut per = Vec::with_capacity(k);
    let mut f1_sum = 0.0;
    let mut f1_count = 0usize;
    for (i, label) in labels.iter().enumerate() {
        let tp = matrix[i][i] as f64;
        let support: usize = matrix[i].iter().sum();
        let predicted: usize = (0..k).map(|g| matrix[g][i]).sum();
        let precision = if predicted == 0 {
            0.0
        } else {
            tp / predicted as f64
        };
        let recall = if support == 0 {
            0.0
        } else {
            tp / support as f64
        };
        let f1 = if precision + recall == 0.0 {
            0.0
        } else {
            2.0 * precision * recall / (precision + recall)
        };
        if support > 0 || predicted > 0 {
            f1_sum += f1;
            f1_count += 1;
        }
        per.push((
            (*label).to_owned(),
            ClassMetrics {
                precision,
                recall,
                f1,
                support,
            },
        ));
    }
    let macro_f1 = if f1_count == 0 {
        0.0
    } else {
        f1_sum / f1_count as f64
    };
    (
        accuracy,
        macro_f1,
        PerClass(per),
        Confusion {
            labels: labels.iter().map(|l| (*l).to_owned()).collect(),
            matrix,
        },
    )
}

/// The nearest-rank `q` percentile of sorted samples (0 when there are
/// none).
fn nearest_rank(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Nearest-rank percentiles of the samples (0 when there are none).
pub fn latency(samples: &mut [u64]) -> Latency {
    samples.sort_unstable();
    let pick = |q| nearest_rank(samples, q);
    Latency {
        p50: pick(0.50),
        p95: pick(0.95),
        p99: pick(0.99),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perfect_and_imperfect_scores() {
        let labels = ["a", "b", "c"];
        let (acc, f1, per, conf) = score(&labels, &[0, 1, 2], &[0, 1, 2]);
        assert_eq!((acc, f1), (1.0, 1.0));
        assert_eq!(per.0[1].1.support, 1);
        assert_eq!(
            conf.matrix,
            vec![vec![1, 0, 0], vec![0, 1, 0], vec![0, 0, 1]]
        );

        // gold a a b b, pred a b b b: a P=1 R=.5 F=.667; b P=.667 R=1 F=.8
        let (acc, f1, per, _) = score(&labels[..2], &[0, 0, 1, 1], &[0, 1, 1, 1]);
        assert_eq!(acc, 0.75);
        assert!((per.0[0].1.f1 - 2.0 / 3.0).abs() < 1e-9);
        assert!((f1 - (2.0 / 3.0 + 0.8) / 2.0).abs() < 1e-9);
    }

    #[test]
    fn empty_input_is_zero_not_nan() {
        let (acc, f1, _, _) = score(&["a"], &[], &[]);
        assert_eq!((acc, f1), (0.0, 0.0));
        assert_eq!(
            latency(&mut []),
            Latency {
                p50: 0,
                p95: 0,
                p99: 0
            }
        );
    }

    #[test]
    fn percentiles_use_nearest_rank() {
        let mut s: Vec<u64> = (1..=100).collect();
        assert_eq!(
            latency(&mut s),
            Latency {
                p50: 50,
                p95: 95,
                p99: 99
            }
        );
    }
}
