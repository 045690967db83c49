//! Helpers shared by the integration-test modules: fixture paths and
//! macro-F1 over (gold, predicted) label indices.

use std::path::PathBuf;

/// A path under the workspace's `fixtures/`.
pub fn fixtures(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel)
}

/// Macro-F1 over `classes` labels from (gold, predicted) index pairs; a
/// class with no prediction or no support scores F1 0.
pub fn macro_f1(classes: usize, pairs: impl IntoIterator<Item = (usize, usize)>) -> f64 {
    let mut m = vec![vec![0usize; classes]; classes];
    for (g, p) in pairs {
        m[g][p] += 1;
    }
    (0..classes)
        .map(|i| {
            let tp = m[i][i] as f64;
            let p = tp / (0..classes).map(|g| m[g][i]).sum::<usize>().max(1) as f64;
            let r = tp / m[i].iter().sum::<usize>().max(1) as f64;
            if p + r == 0.0 {
                0.0
            } else {
                2.0 * p * r / (p + r)
            }
        })
        .sum::<f64>()
        / classes as f64
}

#[test]
fn macro_f1_matches_a_hand_computation() {
    // gold a a b b, pred a b b b: F1(a) = 2/3, F1(b) = 0.8.
    let got = macro_f1(2, [(0, 0), (0, 1), (1, 1), (1, 1)]);
    assert!((got - (2.0 / 3.0 + 0.8) / 2.0).abs() < 1e-12);
    assert_eq!(macro_f1(3, [(0, 0), (1, 1), (2, 2)]), 1.0);
}
