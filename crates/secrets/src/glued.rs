//! Tests of the shapes marked `\g` (a distinctive prefix found whatever
//! precedes it): a token glued to a word is redacted, and no `\g` finds
//! anything on the repository's fixtures that its `\b` form does not.

use proptest::prelude::*;
use regex::Regex;

use crate::families::{Form, SHAPES};
use crate::{CredentialScanner, FAMILY_EXAMPLES, expand_example};

/// Every pattern of the built-in shapes that carries a `\g`.
fn glued_patterns() -> Vec<&'static str> {
    let mut out = Vec::new();
    for s in SHAPES {
        match s.form {
            Form::One(p, _) => out.push(p),
            Form::Any(alts) => out.extend(alts.iter().map(|(p, _)| *p)),
            Form::Assign(_) => {}
        }
    }
    out.retain(|p| p.contains(r"\g"));
    out
}

/// The family examples a `\g` alternative matches when glued to a word
/// (not one of the shape's `\b` alternatives): the ones glued tokens are
/// tested with.
fn glued_examples() -> Vec<String> {
    let patterns: Vec<Regex> = glued_patterns()
        .iter()
        .map(|p| Regex::new(&super::scanner::ascii_boundaries(p)).unwrap())
        .collect();
    FAMILY_EXAMPLES
        .iter()
        .enumerate()
        .map(|(seed, f)| expand_example(f.example, seed as u64).0)
        .filter(|e| {
            patterns
                .iter()
                .any(|p| p.find(&format!("_{e}")).is_some_and(|m| m.start() == 1))
        })
        .collect()
}

#[test]
fn glued_token_is_redacted() {
    let s = CredentialScanner::default();
    let examples = glued_examples();
    assert!(examples.len() >= 30, "{} examples", examples.len());
    for token in &examples {
        for glue in ["x", "tok_", "id9", "é"] {
            let text = format!("set {glue}{token} now");
            let clean = s.redact_text(&text).unwrap();
            assert_eq!(clean, format!("set {glue}[REDACTED] now"), "{text}");
        }
    }
    // The prefixes the issue names, each glued.
    let body = "aB3dE6".repeat(8);
    for token in [
        format!("ghp_{}", &body[..36]),
        format!("gho_{}", &body[..36]),
        format!("github_pat_{}", &body[..45]),
        format!("xoxb-{}", &body[..20]),
        "AKIAZ3XQ7T4M9P2LWK5D".to_owned(),
        format!("sk-ant-{}", &body[..30]),
        format!("glpat-{}", &body[..20]),
    ] {
        let text = format!("tok_{token}");
        let clean = s.redact_text(&text).unwrap();
        assert_eq!(clean, "tok_[REDACTED]", "{token}");
    }
    let ghp = format!("ghp_{}", "aB3".repeat(12));
    let text = format!("xghp{} and tok_{ghp}", &ghp[3..]);
    let clean = s.redact_text(&text).unwrap();
    assert_eq!(clean, "x[REDACTED] and tok_[REDACTED]");
}

#[test]
fn short_prefixes_keep_their_boundary() {
    // `sk-` and `npm_` occur inside ordinary words: not a credential there.
    let s = CredentialScanner::default();
    for text in [
        "task-abcdefghijklmnopqrstuvwxyz0123",
        "pnpm_abcdefghijklmnopqrstuvwxyz0123456789",
    ] {
        assert_eq!(s.redact_text(text).unwrap(), text);
    }
}

/// Each `\g` pattern finds the same spans as its `\b` form on every line
/// of the repository's fixtures: the glue adds no finding on clean texts.
#[test]
fn glued_prefixes_add_no_finding_on_the_fixtures() {
    let pairs: Vec<(Regex, Regex)> = glued_patterns()
        .iter()
        .map(|p| {
            let glued = Regex::new(&super::scanner::ascii_boundaries(p)).unwrap();
            let bounded = p.replace(r"\g", r"\b");
            let bounded = Regex::new(&super::scanner::ascii_boundaries(&bounded)).unwrap();
            (glued, bounded)
        })
        .collect();
    assert!(pairs.len() >= 30, "{}", pairs.len());
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut stack = vec![root];
    let mut lines = 0usize;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            for line in text.lines() {
                lines += 1;
                for (glued, bounded) in &pairs {
                    let a: Vec<_> = glued.find_iter(line).map(|m| m.range()).collect();
                    let b: Vec<_> = bounded.find_iter(line).map(|m| m.range()).collect();
                    assert_eq!(a, b, "{}: {glued}", path.display());
                }
            }
        }
    }
    assert!(lines > 10_000, "{lines} lines");
}

proptest! {
    /// Whatever word precedes it, a glued token is redacted and the word
    /// kept.
    #[test]
    fn glued_token_is_redacted_after_any_word(
        word in "[A-Za-z0-9_]{1,12}",
        pick in any::<prop::sample::Index>(),
    ) {
        let examples = glued_examples();
        let token = pick.get(&examples);
        let text = format!("{word}{token}");
        let clean = CredentialScanner::default().redact_text(&text).unwrap();
        prop_assert!(clean.ends_with("[REDACTED]"), "{text} -> {clean}");
        prop_assert!(clean.starts_with(word.as_str()) || word.contains("AKIA"), "{clean}");
    }
}
