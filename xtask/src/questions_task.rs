//! The `questions` task: which questions an agent's message asks its user,
//! scored as the labelling guide says (a found question matches a labelled
//! one when their texts are equal after folding case, white space, a list
//! marker and the final punctuation; precision, recall and F1 over all
//! questions of the dataset).

use std::fmt::Write;
use std::path::Path;

use anyhow::{Result, bail};
use serde::{Deserialize, Serialize};
use tact_core::dataset::read_jsonl;
use tact_core::text::{Dropped, find_questions, is_question, split_sentences};

use crate::metrics::{Latency, group_key, latency};
use crate::tasks::timed;

/// One line of a `questions` dataset.
#[derive(Deserialize)]
struct Example {
    text: String,
    questions: Vec<String>,
}

/// The strategies, the default first: `default` decides which sentences
/// address the user ([`find_questions`]); `plain` takes every sentence
/// that reads as a question (the extractor before that decision).
pub const STRATEGIES: &[&str] = &["default", "plain"];

/// Precision, recall and F1 of one group of messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupFigures {
    pub group: String,
    pub n: usize,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

/// One run of the `questions` task, as `--json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub task: String,
    pub dataset: String,
    pub strategy: String,
    /// Messages.
    pub n: usize,
    /// Labelled questions.
    pub gold: usize,
    /// Questions found.
    pub found: usize,
    /// Found questions that match a labelled one.
    pub matched: usize,
    pub precision: f64,
    pub recall: f64,
    /// F1 over all questions.
    pub f1: f64,
    /// Share of messages whose questions were all found and nothing else.
    pub exact: f64,
    pub latency_ns: Latency,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupFigures>,
    /// Per message with an error: line, missed, found wrongly (not in JSON).
    #[serde(skip)]
    pub errors: Vec<MessageErrors>,
}

/// What one message got wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageErrors {
    pub line: usize,
    pub missed: Vec<String>,
    /// Each wrongly found question with the reason it was kept.
    pub wrong: Vec<(String, &'static str)>,
    /// Why each missed question was dropped, where it was seen at all.
    pub dropped: Vec<(String, &'static str)>,
}

/// A question's text folded for matching: lower case, white space
/// collapsed, a leading list marker, surrounding Markdown emphasis and the
/// final punctuation removed.
pub fn fold(q: &str) -> String {
    let t = q.trim();
    let t = strip_list_marker(t);
    let t = t.trim_matches(|c: char| matches!(c, '*' | '_') || c.is_whitespace());
    let t = t.trim_end_matches(|c: char| {
        matches!(
            c,
            '?' | '？' | '.' | '!' | ':' | '*' | '_' | '"' | '\'' | ')'
        ) || c.is_whitespace()
    });
    let mut out = String::with_capacity(t.len());
    for w in t.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(w.chars().flat_map(char::to_lowercase));
    }
    out
}

/// `t` without a leading list marker (`- `, `* `, `+ `, `• `, `1. `,
/// `1) `, `a) `).
fn strip_list_marker(t: &str) -> &str {
    for m in ["- ", "* ", "+ ", "• "] {
        if let Some(rest) = t.strip_prefix(m) {
            return rest.trim_start();
        }
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=3).contains(&digits) {
        if let Some(rest) = t[digits..]
            .strip_prefix(". ")
            .or_else(|| t[digits..].strip_prefix(") "))
        {
            return rest.trim_start();
        }
    }
    let mut c = t.chars();
    if let (Some(a), Some(')'), Some(' ')) = (c.next(), c.next(), c.next()) {
        if a.is_ascii_lowercase() {
            return t[3..].trim_start();
        }
    }
    t
}

/// The questions a strategy finds in a message (sentence texts).
fn extract(strategy: &str, text: &str) -> Vec<String> {
    match strategy {
        "plain" => split_sentences(text)
            .iter()
            .filter(|s| !s.is_code && is_question(s.text(text)))
            .map(|s| s.text(text).to_owned())
            .collect(),
        _ => find_questions(text)
            .kept
            .iter()
            .map(|q| q.sentence.text(text).to_owned())
            .collect(),
    }
}

/// Matches found against gold questions (each used once): the count of
/// matches, the missed gold questions and the unmatched found ones.
fn match_questions(gold: &[String], found: &[String]) -> (usize, Vec<String>, Vec<String>) {
    let mut open: Vec<Option<String>> = gold.iter().map(|g| Some(fold(g))).collect();
    let mut wrong = Vec::new();
    let mut matched = 0;
    for f in found {
        let key = fold(f);
        match open.iter_mut().find(|g| g.as_deref() == Some(key.as_str())) {
            Some(slot) => {
                *slot = None;
                matched += 1;
            }
            None => wrong.push(f.clone()),
        }
    }
    let missed = gold
        .iter()
        .zip(&open)
        .filter(|(_, o)| o.is_some())
        .map(|(g, _)| g.clone())
        .collect();
    (matched, missed, wrong)
}

/// P, R, F1 from counts (0 rather than NaN).
fn prf(matched: usize, found: usize, gold: usize) -> (f64, f64, f64) {
    let p = if found == 0 {
        if gold == 0 { 1.0 } else { 0.0 }
    } else {
        matched as f64 / found as f64
    };
    let r = if gold == 0 {
        1.0
    } else {
        matched as f64 / gold as f64
    };
    let f = if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    };
    (p, r, f)
}

/// Runs `strategy` over the dataset at `path`; `group` names a field to
/// report the figures per value of.
pub fn eval(path: &Path, dataset: String, strategy: &str, group: Option<&str>) -> Result<Report> {
    if !STRATEGIES.contains(&strategy) {
        bail!(
            "unknown strategy `{strategy}` for questions (expected: {})",
            STRATEGIES.join(", ")
        );
    }
    let records = read_jsonl::<Example>(path)?;
    let keys: Vec<String> = match group {
        Some(field) => {
            let raw = read_jsonl::<serde_json::Map<String, serde_json::Value>>(path)?;
            raw.iter()
                .map(|l| group_key(field, l.record.get(field)))
                .collect()
        }
        None => Vec::new(),
    };
    let texts: Vec<&str> = records.iter().map(|r| r.record.text.as_str()).collect();
    let (_, mut lat) = timed(&texts, |t| extract(strategy, t).len());
    let mut totals = (0usize, 0usize, 0usize);
    let mut exact = 0usize;
    let mut errors = Vec::new();
    // Per group: matched, found, gold, messages (a group per message stays
    // linear).
    let mut per_group: std::collections::BTreeMap<String, (usize, usize, usize, usize)> =
        std::collections::BTreeMap::new();
    for (i, r) in records.iter().enumerate() {
        let found = extract(strategy, &r.record.text);
        let (matched, missed, wrong) = match_questions(&r.record.questions, &found);
        totals.0 += matched;
        totals.1 += found.len();
        totals.2 += r.record.questions.len();
        if let Some(key) = keys.get(i) {
            let slot = per_group.entry(key.clone()).or_default();
            slot.0 += matched;
            slot.1 += found.len();
            slot.2 += r.record.questions.len();
            slot.3 += 1;
        }
        if missed.is_empty() && wrong.is_empty() {
            exact += 1;
            continue;
        }
        let text = &r.record.text;
        let explained = find_questions(text);
        let reason_kept = |q: &str| {
            explained
                .kept
                .iter()
                .find(|k| k.sentence.text(text) == q)
                .map_or("a question", |k| k.kept.as_str())
        };
        let dropped = missed
            .iter()
            .filter_map(|m| {
                let key = fold(m);
                explained
                    .dropped
                    .iter()
                    .find(|d| fold(d.sentence.text(text)).ends_with(&key))
                    .map(|d| (m.clone(), Dropped::as_str(d.why)))
            })
            .collect();
        errors.push(MessageErrors {
            line: r.line,
            wrong: wrong.iter().map(|w| (w.clone(), reason_kept(w))).collect(),
            missed,
            dropped,
        });
    }
    let (precision, recall, f1) = prf(totals.0, totals.1, totals.2);
    let mut groups: Vec<GroupFigures> = per_group
        .into_iter()
        .map(|(group, (m, f, g, n))| {
            let (precision, recall, f1) = prf(m, f, g);
            GroupFigures {
                group,
                n,
                precision,
                recall,
                f1,
            }
        })
        .collect();
    groups.sort_by(|a, b| b.n.cmp(&a.n).then_with(|| a.group.cmp(&b.group)));
    Ok(Report {
        task: "questions".into(),
        dataset,
        strategy: strategy.to_owned(),
        n: records.len(),
        gold: totals.2,
        found: totals.1,
        matched: totals.0,
        precision,
        recall,
        f1,
        exact: if records.is_empty() {
            0.0
        } else {
            exact as f64 / records.len() as f64
        },
        latency_ns: latency(&mut lat),
        groups,
        errors,
    })
}

/// Renders runs as text: one table of the strategies, then per run the
/// groups and (up to `errors` messages) what each message got wrong.
pub fn render(reports: &[Report], timing: bool, errors: Option<usize>) -> String {
    let mut out = String::new();
    let Some(first) = reports.first() else {
        return out;
    };
    let _ = writeln!(out, "task questions on {}", first.dataset);
    let _ = writeln!(
        out,
        "  {:<12} {:>5} {:>6} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "strategy", "n", "gold", "found", "precision", "recall", "F1", "exact", "p50 ns"
    );
    for r in reports {
        let p50 = if timing {
            r.latency_ns.p50.to_string()
        } else {
            "-".to_owned()
        };
        let _ = writeln!(
            out,
            "  {:<12} {:>5} {:>6} {:>6} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9}",
            r.strategy, r.n, r.gold, r.found, r.precision, r.recall, r.f1, r.exact, p50
        );
    }
    for r in reports {
        if !r.groups.is_empty() {
            let _ = writeln!(out, "\n  questions / {}", r.strategy);
            let rows: Vec<(&str, usize, Vec<f64>)> = r
                .groups
                .iter()
                .map(|g| (g.group.as_str(), g.n, vec![g.precision, g.recall, g.f1]))
                .collect();
            crate::report::group_table(&mut out, &["precision", "recall", "F1"], &rows);
        }
        if let Some(max) = errors {
            let _ = writeln!(
                out,
                "\n  questions / {}: {} of {} messages with an error{}",
                r.strategy,
                r.errors.len(),
                r.n,
                if r.errors.len() > max {
                    format!(", the first {max}:")
                } else {
                    ":".to_owned()
                }
            );
            for e in r.errors.iter().take(max) {
                let _ = writeln!(out, "  {}:{}:", r.dataset, e.line);
                for m in &e.missed {
                    let why = e
                        .dropped
                        .iter()
                        .find(|(q, _)| q == m)
                        .map_or(String::new(), |(_, w)| format!(" (dropped: {w})"));
                    let _ = writeln!(out, "    missed: {}{why}", m.replace('\n', " "));
                }
                for (w, why) in &e.wrong {
                    let _ = writeln!(out, "    found wrongly: {} ({why})", w.replace('\n', " "));
                }
            }
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_ignores_case_space_markers_and_final_punctuation() {
        assert_eq!(fold("1. Which  DB?"), "which db");
        assert_eq!(fold("- **Which DB?**"), "which db");
        assert_eq!(
            fold("Please confirm the region."),
            "please confirm the region"
        );
        assert_eq!(fold("a) Keep it?"), "keep it");
    }

    #[test]
    fn matching_counts_each_gold_question_once() {
        let gold = vec!["Which DB?".to_owned(), "Which port?".to_owned()];
        let found = vec![
            "which db".to_owned(),
            "Which DB?".to_owned(),
            "2. Which port?".to_owned(),
        ];
        let (m, missed, wrong) = match_questions(&gold, &found);
        assert_eq!((m, missed.len(), wrong.len()), (2, 0, 1));
        assert_eq!(prf(2, 3, 2).1, 1.0);
        assert_eq!(prf(0, 0, 0), (1.0, 1.0, 1.0));
    }
}
