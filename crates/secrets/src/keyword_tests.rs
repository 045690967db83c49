//! Tests of the credential scanner's keyword pass: the first-byte pass,
//! the automaton and the DFA's four-part scan find the same keyword
//! occurrences, every built-in pattern compiles, and running each pattern
//! only where its keywords occur (and only around them) loses no match.

use super::*;

/// Calls `each` with the text of every file under `dir`, at any depth.
fn texts_under(dir: &std::path::Path, each: &mut impl FnMut(String)) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            texts_under(&path, each);
        } else if let Ok(text) = std::fs::read_to_string(&path) {
            each(text);
        }
    }
}

/// The first-byte pass and the DFA's four-part scan find the keyword
/// occurrences the automaton finds, on every keyword in three casings,
/// glued to other text, on every line of the agent logs under
/// `fixtures/logs`, and on runs of those lines (long enough to be
/// scanned in four parts).
#[test]
fn the_first_byte_pass_and_the_lanes_find_what_the_automaton_finds() {
    let b = Builtins::build().unwrap();
    let nfa = keyword_automaton(&b.words, AhoCorasickKind::ContiguousNFA).unwrap();
    let lanes = Keywords::new(&b.words).unwrap();
    let by_automaton = |s: &str| {
        let mut v: Vec<(usize, usize)> = nfa
            .find_overlapping_iter(s)
            .map(|m| (m.pattern().as_usize(), m.start()))
            .collect();
        v.sort_unstable();
        v
    };
    let by_first = |s: &str| {
        let mut v = Vec::new();
        b.first.find(s, |id, at| v.push((id, at)));
        v.sort_unstable();
        v
    };
    let by_lanes = |s: &str| {
        let mut v = Vec::new();
        lanes.find(s, |id, at| v.push((id, at)));
        v.sort_unstable();
        v
    };
    let mut texts: Vec<String> = Vec::new();
    for w in &b.words {
        texts.push(format!("é{}{w}x", w.to_ascii_uppercase()));
        texts.push(format!("-{}_", w.to_ascii_lowercase()));
        texts.push(w.get(1..).unwrap_or_default().to_owned());
    }
    texts.push(b.words.concat());
    let logs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/logs");
    texts_under(&logs, &mut |text| {
        texts.extend(text.lines().map(str::to_owned));
    });
    assert!(texts.len() > 1000, "{}", texts.len());
    let runs: Vec<String> = texts.chunks(7).map(|c| c.concat()).collect();
    texts.extend(runs);
    let mut found = 0;
    for t in &texts {
        let want = by_automaton(t);
        assert_eq!(by_first(t), want, "{t}");
        assert_eq!(by_lanes(t), want, "{t}");
        found += want.len();
    }
    assert!(found > b.words.len(), "{found}");
}

#[test]
fn each_shape_compiles() {
    let b = Builtins::build().unwrap();
    assert!(b.entries.len() <= MAX_BUILTIN);
    for e in &b.entries {
        if let Err(err) = Regex::new(&e.pattern) {
            panic!("{}: {err}", e.id);
        }
    }
}

/// Keywords are ASCII; one with an upper-case letter is compared in
/// its case (the automaton folds case, the hit is then checked).
#[test]
fn keywords_are_ascii() {
    for s in SHAPES {
        let kws: Vec<&str> = match s.form {
            Form::One(_, k) => k.to_vec(),
            Form::Any(alts) => alts.iter().flat_map(|(_, k)| k.iter().copied()).collect(),
            Form::Assign(v) => v.iter().map(|(k, _, _)| *k).collect(),
        };
        assert!(!kws.is_empty(), "{}", s.id);
        for k in kws {
            assert!(!k.is_empty() && k.is_ascii(), "{}: {k:?}", s.id);
        }
    }
}

/// The spans the scanner finds in `t` through its keyword pass (each
/// pattern run only around its keywords) and its redaction are those of
/// running every pattern on the whole text; whether there is any.
fn same_as_every_pattern(b: &Builtins, shapes: &Shapes, t: &str) -> bool {
    let mut fast = shapes.spans(t);
    let mut full: Vec<Range> = b
        .entries
        .iter()
        .flat_map(|e| e.confirmed(t, None))
        .collect();
    assert_eq!(
        replace_spans(t, fast.clone()),
        replace_spans(t, full.clone()),
        "{t}"
    );
    fast.sort_by_key(|r| (r.start, r.end));
    full.sort_by_key(|r| (r.start, r.end));
    fast.dedup();
    full.dedup();
    assert_eq!(fast, full, "{t}");
    !full.is_empty()
}

/// Every span the scanner finds through its keyword pass, over the
/// family examples planted in text, every line of the repository's
/// fixtures and each fixture file whole (up to 64 KiB: windows inside a
/// long text), is the span of running every pattern on the whole text:
/// no pattern matches a text that lacks its keywords, nor away from them.
#[test]
fn the_keyword_pass_loses_no_match() {
    let b = Arc::new(Builtins::build().unwrap());
    let shapes = Shapes::with_extra(Arc::clone(&b), &[]).unwrap();
    let mut texts: Vec<String> = Vec::new();
    let mut dense = String::new();
    for (seed, f) in crate::FAMILY_EXAMPLES.iter().enumerate() {
        let (example, _) = crate::expand_example(f.example, seed as u64);
        texts.push(example.clone());
        texts.push(format!("set it with {example}, then run it"));
        texts.push(example.to_uppercase());
        texts.push(example.to_lowercase());
        dense.push_str(&format!("the key is {example} and then\n"));
    }
    texts.push(dense);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    texts_under(&root, &mut |text| {
        texts.extend(text.lines().take(2000).map(str::to_owned));
        let mut end = text.len().min(64 << 10);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        texts.push(text.get(..end).unwrap_or_default().to_owned());
    });
    assert!(texts.len() > 1000, "{} texts", texts.len());
    let found = texts
        .iter()
        .filter(|t| same_as_every_pattern(&b, &shapes, t))
        .count();
    assert!(found > crate::FAMILY_EXAMPLES.len(), "{found}");
    // Past DFA_AFTER bytes the scan moved from the NFA to the DFA:
    // both took part in the comparison.
    assert!(
        matches!(b.fast.get(), Some(Some(_))),
        "the DFA was not built"
    );
}

/// Pieces of generated texts: keywords, credential-like runs, the
/// characters around assignments, non-ASCII text.
fn piece() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let keywords: Vec<String> = SHAPES
        .iter()
        .flat_map(|s| match s.form {
            Form::One(_, k) => k.to_vec(),
            Form::Any(alts) => alts.iter().flat_map(|(_, k)| k.iter().copied()).collect(),
            Form::Assign(v) => v.iter().map(|(k, _, _)| *k).collect(),
        })
        .map(str::to_owned)
        .collect();
    let examples: Vec<String> = crate::FAMILY_EXAMPLES
        .iter()
        .enumerate()
        .map(|(seed, f)| crate::expand_example(f.example, seed as u64).0)
        .collect();
    prop_oneof![
        3 => proptest::sample::select(keywords).prop_flat_map(|k| {
            prop_oneof![Just(k.clone()), Just(k.to_ascii_uppercase()), Just(k.to_ascii_lowercase())]
        }),
        2 => proptest::sample::select(examples),
        3 => "[A-Za-z0-9_]{1,40}",
        3 => proptest::sample::select(vec![
            " ", "=", ": ", "\"", "'", "\n", "_", "-", ".", "://", "@", " = ", "→", "é",
            "Bearer ", "kind: Secret\n", "data:\n  k: ", "-----BEGIN RSA PRIVATE KEY-----\n",
        ])
        .prop_map(str::to_owned),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
    /// On texts glued from keywords, examples and the characters around
    /// credentials, the keyword pass's windows find what every pattern
    /// over the whole text finds.
    #[test]
    fn windows_find_what_whole_text_runs_find(pieces in proptest::collection::vec(piece(), 1..40)) {
        static SCANNER: LazyLock<(Arc<Builtins>, Shapes)> = LazyLock::new(|| {
            // The DFA's four-part scan from the first text on.
            let b = Builtins::build().unwrap();
            b.fast.set(Keywords::new(&b.words)).unwrap();
            let b = Arc::new(b);
            let shapes = Shapes::with_extra(Arc::clone(&b), &[]).unwrap();
            (b, shapes)
        });
        let (b, shapes) = &*SCANNER;
        same_as_every_pattern(b, shapes, &pieces.concat());
    }
}
