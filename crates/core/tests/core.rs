//! Integration and property tests of tact-core: the text engine never
//! panics and its offsets always slice the input.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "core/linear.rs"]
mod linear;

use proptest::prelude::*;
use tact_core::dataset::parse_jsonl;
use tact_core::{extract_questions, normalize, split_sentences, word_count};

fn check_offsets(text: &str) {
    for s in split_sentences(text) {
        assert!(s.start <= s.end && s.end <= text.len());
        assert!(text.is_char_boundary(s.start) && text.is_char_boundary(s.end));
    }
    for q in extract_questions(text) {
        assert!(text.is_char_boundary(q.start) && text.is_char_boundary(q.end));
        assert!(!q.text(text).is_empty());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_string_is_safe(text in any::<String>()) {
        let _ = normalize(&text);
        let _ = word_count(&text);
        check_offsets(&text);
    }

    #[test]
    fn punctuation_heavy_strings_are_safe(text in "[a-zé¿?!.`\\n \t:0-9-]{0,200}") {
        check_offsets(&text);
        let n = normalize(&text);
        prop_assert!(!n.contains("  "));
        prop_assert_eq!(n.trim(), n.as_str());
    }

    #[test]
    fn any_jsonl_text_gives_records_or_an_error(text in any::<String>()) {
        let _ = parse_jsonl::<serde_json::Value>("p.jsonl", &text);
    }
}

#[test]
fn a_megabyte_of_text_is_fine() {
    let big = "Should we check the logs? e.g. v3.11 is out. `x.y?` ".repeat(20_000);
    assert!(big.len() > 1_000_000);
    let qs = extract_questions(&big);
    assert_eq!(qs.len(), 20_000);
    let nul = "\0".repeat(1 << 20);
    check_offsets(&nul);
}

#[test]
fn questions_from_a_realistic_agent_message() {
    let m = "I looked at `src/db.rs` and the v2.3.1 changelog (e.g. the pool rewrite).\n\n\
             Before I change anything:\n\
             - Should I keep the old pool size?\n\
             - Which timeout do you want: 5s or 30s?\n\n\
             ```sql\nSELECT 1; -- why?\n```\n\
             Let me know if staging is free. Thanks!";
    let got: Vec<&str> = extract_questions(m).iter().map(|q| q.text(m)).collect();
    assert_eq!(
        got,
        [
            "- Should I keep the old pool size?",
            "- Which timeout do you want: 5s or 30s?",
            "Let me know if staging is free."
        ]
    );
}
