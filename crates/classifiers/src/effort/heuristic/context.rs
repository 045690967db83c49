//! Matching a question against the context the user has at hand: word
//! stems, the stop words, a scan or an index of the context, and whether
//! the context answers a question part.

use std::sync::LazyLock;

use smallvec::SmallVec;
use tact_core::WordSet;
use tact_types::Reason;

/// [`STOP`] as a set, built once.
static STOP_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(STOP));

/// Stop words ignored when checking whether a context answers a question.
const STOP: &[&str] = &[
    "a",
    "about",
    "an",
    "and",
    "any",
    "are",
    "be",
    "can",
    "como",
    "con",
    "could",
    "cual",
    "das",
    "de",
    "del",
    "der",
    "did",
    "die",
    "do",
    "does",
    "du",
    "el",
    "for",
    "from",
    "fur",
    "has",
    "have",
    "how",
    "i",
    "ich",
    "in",
    "into",
    "is",
    "it",
    "know",
    "la",
    "las",
    "let",
    "like",
    "los",
    "me",
    "mit",
    "need",
    "of",
    "on",
    "or",
    "our",
    "para",
    "please",
    "que",
    "quieres",
    "should",
    "soll",
    "that",
    "the",
    "there",
    "this",
    "to",
    "una",
    "und",
    "uno",
    "use",
    "using",
    "want",
    "was",
    "we",
    "welche",
    "were",
    "what",
    "when",
    "where",
    "which",
    "wie",
    "will",
    "wir",
    "with",
    "would",
    "you",
    "your",
    // Italian.
    "agli",
    "alla",
    "alle",
    "anche",
    "ancora",
    "avete",
    "che",
    "chi",
    "come",
    "cosa",
    "dal",
    "dalla",
    "dei",
    "del",
    "della",
    "delle",
    "deve",
    "devo",
    "dove",
    "fare",
    "gli",
    "hai",
    "nei",
    "nel",
    "nella",
    "non",
    "per",
    "perche",
    "posso",
    "preferisci",
    "puoi",
    "qual",
    "quale",
    "quali",
    "quando",
    "quella",
    "quello",
    "questa",
    "questo",
    "sono",
    "sul",
    "sulla",
    "tra",
    "usate",
    "usi",
    "vuoi",
];

/// A crude stem for matching question words against a context: a common
/// suffix dropped, then at most five characters ("panicking" ~ "panicked",
/// "lives" ~ "live").
fn stem(w: &str) -> &str {
    let w = ["ing", "ies", "es", "ed", "ly", "s"]
        .iter()
        .find_map(|suf| w.strip_suffix(suf).filter(|rest| rest.len() >= 3))
        .unwrap_or(w);
    if w.len() <= 5 {
        return w;
    }
    if w.as_bytes()[..5].is_ascii() {
        return &w[..5];
    }
    match w.char_indices().nth(5) {
        Some((i, _)) => &w[..i],
        None => w,
    }
}

/// How a context is searched for a question's words, so that the work
/// stays linear in the sizes of both: a question of one part (the usual
/// case) reads the context once; one of several parts indexes it once
/// instead of reading it again for each part.
pub(crate) enum Context<'a> {
    /// Read once, for the one part.
    Scan(&'a str),
    /// The stems of the context, sorted.
    Index(ContextIndex<'a>),
}

impl<'a> Context<'a> {
    pub(super) fn new(ctx: &'a str, parts: usize) -> Self {
        if parts > 1 {
            Context::Index(ContextIndex::new(ctx))
        } else {
            Context::Scan(ctx)
        }
    }
}

/// The stems of a context's words, sorted for binary search. A stem of up
/// to seven bytes is packed into one integer key (its bytes and its
/// length: equal keys, equal stems), so that sorting and searching compare
/// integers; longer stems (non-ASCII text) are kept as strings.
pub(crate) struct ContextIndex<'a> {
    keys: Vec<u64>,
    long: Vec<&'a str>,
}

impl<'a> ContextIndex<'a> {
    fn new(ctx: &'a str) -> Self {
        let mut keys = Vec::with_capacity(ctx.len() / 4 + 4);
        let mut long = Vec::new();
        for s in tact_core::words(ctx).map(stem) {
            match stem_key(s) {
                Some(k) => keys.push(k),
                None => long.push(s),
            }
        }
        keys.sort_unstable();
        keys.dedup();
        long.sort_unstable();
        long.dedup();
        Self { keys, long }
    }

    fn contains(&self, stem: &str) -> bool {
        match stem_key(stem) {
            Some(k) => self.keys.binary_search(&k).is_ok(),
            None => self.long.binary_search(&stem).is_ok(),
        }
    }
}

/// A stem of at most seven bytes as an integer: its bytes, then its length
/// in the top byte.
fn stem_key(stem: &str) -> Option<u64> {
    let b = stem.as_bytes();
    if b.len() > 7 {
        return None;
    }
    let mut k = (b.len() as u64) << 56;
    for (i, &x) in b.iter().enumerate() {
        k |= u64::from(x) << (8 * i);
    }
    Some(k)
}

/// A question's content-word stems, each once and sorted, with how often
/// it occurs (repeats count again) and whether the context has it.
type Wanted<'p> = SmallVec<[(&'p str, usize, bool); 16]>;

fn content_stems(part: &str) -> Wanted<'_> {
    // At least three characters: a third one starts within the first
    // nine bytes, if there is one.
    let long = |w: &str| w.len() >= 3 && (w.len() > 8 || w.chars().nth(2).is_some());
    let mut stems: SmallVec<[&str; 16]> = tact_core::words(part)
        .filter(|w| long(w) && !STOP_SET.contains(w))
        .map(stem)
        .collect();
    stems.sort_unstable();
    let mut wanted = Wanted::new();
    for s in stems {
        match wanted.last_mut() {
            Some((last, n, _)) if *last == s => *n += 1,
            _ => wanted.push((s, 1, false)),
        }
    }
    wanted
}

/// Marks the wanted stems found in `ctx`, read once: a context word is
/// stemmed only when its first byte starts a wanted stem (a stem is a
/// prefix of its word), then looked up by binary search.
fn scan_context(ctx: &str, wanted: &mut Wanted<'_>) {
    let mut firsts = [false; 256];
    for (s, _, _) in wanted.iter() {
        if let Some(&b) = s.as_bytes().first() {
            firsts[usize::from(b)] = true;
        }
    }
    let mut missing = wanted.len();
    for w in tact_core::words(ctx) {
        if !w
            .as_bytes()
            .first()
            .is_some_and(|&b| firsts[usize::from(b)])
        {
            continue;
        }
        let s = stem(w);
        if let Ok(i) = wanted.binary_search_by(|(want, _, _)| (*want).cmp(s)) {
            if let Some((_, _, seen)) = wanted.get_mut(i).filter(|(_, _, seen)| !*seen) {
                *seen = true;
                missing -= 1;
                if missing == 0 {
                    break;
                }
            }
        }
    }
}

/// Whether the context already answers `part`: at least half of the
/// question's content words (two or more) appear in the context, compared
/// by stem.
pub(super) fn context_answers(part: &str, ctx: &Context<'_>) -> Option<Reason> {
    let mut wanted = content_stems(part);
    match ctx {
        Context::Scan(text) => scan_context(text, &mut wanted),
        Context::Index(index) => {
            for (s, _, seen) in &mut wanted {
                *seen = index.contains(s);
            }
        }
    }
    let total: usize = wanted.iter().map(|(_, n, _)| n).sum();
    let found: usize = wanted
        .iter()
        .filter(|(_, _, seen)| *seen)
        .map(|(_, n, _)| n)
        .sum();
    if total == 0 {
        return None;
    }
    let ratio = found as f32 / total as f32;
    (ratio >= 0.5 && (found >= 2 || total == 1)).then(|| {
        let mut detail = String::with_capacity(48);
        crate::detail::push_count(&mut detail, found as u64);
        detail.push_str(" of ");
        crate::detail::push_count(&mut detail, total as u64);
        detail.push_str(" key words are in the given context");
        Reason::new("context_answers", detail, 2.0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use tact_types::EffortLevel;

    use super::super::Heuristic;

    /// `context_answers` as first written: every context stem in a list.
    fn context_answers_plain(part: &str, ctx: &str) -> Option<String> {
        let stems: Vec<&str> = tact_core::words(ctx).map(stem).collect();
        let (mut total, mut found) = (0usize, 0usize);
        for w in tact_core::words(part).filter(|w| w.chars().count() >= 3 && !STOP_SET.contains(w))
        {
            total += 1;
            found += usize::from(stems.contains(&stem(w)));
        }
        let ratio = found as f32 / total.max(1) as f32;
        (total > 0 && ratio >= 0.5 && (found >= 2 || total == 1))
            .then(|| format!("{found} of {total} key words are in the given context"))
    }

    #[test]
    fn the_context_is_matched_by_stem() {
        let ctx = "deploys run nightly; the café's über-long übersetzungen, 3.11 and v2 ok";
        for (part, answered) in [
            ("when does the deploying run?", true),
            ("is it nightly or weekly?", false),
            ("which café? über or not?", false),
            ("the café's übersetzungen?", true),
            ("übersetzung for 3.11?", true),
            ("nightly deplo runs? weekly? hourly? monthly?", true),
            ("nightly nightly weekly?", true),
            ("what is it?", false),
            ("", false),
        ] {
            for context in [Context::Scan(ctx), Context::Index(ContextIndex::new(ctx))] {
                let got = context_answers(part, &context).map(|r| r.detail.to_string());
                assert_eq!(got.is_some(), answered, "{part}");
                assert_eq!(got, context_answers_plain(part, ctx), "{part}");
            }
        }
    }

    #[test]
    fn the_context_index_finds_exactly_the_context_stems() {
        let ctx = "deploys run nightly; the café's über-long übersetzungen, 3.11 and v2 ok";
        let idx = ContextIndex::new(ctx);
        let stems: Vec<&str> = tact_core::words(ctx).map(stem).collect();
        for w in [
            "deploying",
            "runs",
            "nightly",
            "cafe",
            "café",
            "über",
            "übersetzung",
            "3.11",
            "v2",
            "ok",
            "okay",
            "night",
            "deplo",
            "x",
            "",
        ] {
            assert_eq!(idx.contains(stem(w)), stems.contains(&stem(w)), "{w}");
        }
    }

    #[test]
    fn several_parts_index_the_context_once() {
        let h = Heuristic::new().expect("cues compile");
        let ctx = "the staging cluster runs postgres 15 and redis 7";
        let one = h.classify("Which postgres version does staging run?", Some(ctx));
        let two = h.classify(
            "Which postgres version does staging run, and which redis version does staging run?",
            Some(ctx),
        );
        assert!(matches!(Context::new(ctx, 1), Context::Scan(_)));
        assert!(matches!(Context::new(ctx, 2), Context::Index(_)));
        for c in [one, two] {
            assert_eq!(c.label, EffortLevel::Low);
            assert_eq!(c.reasons[0].cue, "context_answers");
        }
    }

    proptest! {
        #[test]
        fn context_matching_agrees_with_a_plain_search(
            ctx in proptest::collection::vec("[a-cé]{1,9}", 0..30),
            part in proptest::collection::vec("[a-cé]{1,9}", 0..12),
        ) {
            let (ctx, part) = (ctx.join(" "), part.join(" "));
            let plain = context_answers_plain(&part, &ctx);
            for context in [Context::Scan(&ctx), Context::Index(ContextIndex::new(&ctx))] {
                prop_assert_eq!(
                    context_answers(&part, &context).map(|r| r.detail.to_string()),
                    plain.clone()
                );
            }
        }

        #[test]
        fn the_context_index_agrees_with_a_plain_search(
            ctx in proptest::collection::vec("[a-cé]{1,9}", 0..30),
            probe in "[a-cé]{0,9}",
        ) {
            let ctx = ctx.join(" ");
            let stems: Vec<&str> = tact_core::words(&ctx).map(stem).collect();
            prop_assert_eq!(
                ContextIndex::new(&ctx).contains(stem(&probe)),
                stems.contains(&stem(&probe))
            );
        }
    }
}
