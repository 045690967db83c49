//! Weighted cue sets: literal phrases (one byte trie, walked anchored) and
//! regular expressions (multi-pattern `regex-automata` sets), compiled once and matched against
//! normalized text in a single pass each.
//!
//! A literal matches on word boundaries; a trailing `*` makes it a prefix
//! (`investigat*` matches "investigate" and "investigation"). Regexes use the
//! `regex` crate's syntax, which has no look-around.
//!
//! A set can be frozen ahead of time ([`CueSetBuilder::freeze`]) and read
//! at start without expanding a phrase or compiling a regex
//! ([`CueSetBuilder::thaw`], [`CueSetBuilder::build_frozen`]).

use crate::trie::{self, Trie};
use std::sync::OnceLock;

mod frozen;
pub use frozen::Aligned;

use regex::{Regex, RegexBuilder};
use regex_automata::meta::{self, Regex as RegexSet};
use regex_automata::{Input, PatternID, PatternSet};

/// Regex sets of up to this many patterns share one reusable match set
/// per thread; larger ones allocate one per search.
const SHARED_MATCH_SET_PATTERNS: usize = 128;

thread_local! {
    /// A reusable set of pattern matches: `regex::RegexSet::matches`
    /// allocates a fresh one per call.
    static MATCHES: std::cell::RefCell<PatternSet> =
        std::cell::RefCell::new(PatternSet::new(SHARED_MATCH_SET_PATTERNS));
}

/// The patterns of `set` matching somewhere in `haystack`, in pattern
/// order, passed to `found`.
fn set_matches(set: &Matcher, haystack: &str, mut found: impl FnMut(usize)) {
    let input = Input::new(haystack);
    let mut run = |patset: &mut PatternSet| {
        set.which(&input, patset);
        if patset.is_empty() {
            return;
        }
        // Only this set's ids: the shared match set may be larger, and its
        // own iterator would visit every slot.
        for pid in (0..set.pattern_len()).filter_map(|i| PatternID::new(i).ok()) {
            if patset.contains(pid) {
                found(pid.as_usize());
            }
        }
        patset.clear();
    };
    if set.pattern_len() <= SHARED_MATCH_SET_PATTERNS {
        let reused = MATCHES.with(|m| match m.try_borrow_mut() {
            Ok(mut patset) => {
                run(&mut patset);
                true
            }
            Err(_) => false,
        });
        if reused {
            return;
        }
    }
    run(&mut PatternSet::new(set.pattern_len()));
}

/// Lazy-DFA cache capacity per compiled set (per thread using it).
const DFA_CACHE_BYTES: usize = 32 << 20;

use crate::Error;

/// One weighted cue: a named piece of evidence with a human explanation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cue {
    /// Stable identifier, reported in reasons (e.g. `explicit_options`).
    pub name: &'static str,
    /// A classifier-defined category (which label or feature it supports).
    pub tag: u16,
    /// Weight of the cue; its sign and meaning belong to the classifier.
    pub weight: f32,
    /// Short explanation shown to users.
    pub explanation: &'static str,
}

impl Cue {
    /// A cue with tag 0.
    pub const fn new(name: &'static str, weight: f32, explanation: &'static str) -> Self {
        Self {
            name,
            tag: 0,
            weight,
            explanation,
        }
    }

    /// The same cue with another tag.
    #[must_use]
    pub const fn tagged(mut self, tag: u16) -> Self {
        self.tag = tag;
        self
    }
}

/// A cue found in a text, with the byte span of the match.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CueHit<'a> {
    /// The cue that matched.
    pub cue: &'a Cue,
    /// Byte offset of the match in the searched text.
    pub start: usize,
    /// Byte offset one past the match.
    pub end: usize,
}

impl CueHit<'_> {
    /// The matched text within `haystack` (the text that was searched).
    pub fn matched<'h>(&self, haystack: &'h str) -> &'h str {
        haystack.get(self.start..self.end).unwrap_or("")
    }
}

/// Builder of a [`CueSet`]. It only records what it is given: phrases are
/// expanded, literals normalized and regexes compiled by
/// [`CueSetBuilder::build`], or read ready-made by
/// [`CueSetBuilder::thaw`].
#[derive(Debug, Default, Clone)]
pub struct CueSetBuilder {
    specs: Vec<Spec>,
}

/// One call of the builder, as given.
#[derive(Debug, Clone)]
enum Spec {
    /// A literal phrase, not yet normalized (a trailing `*` makes it a prefix).
    Literal(String, Cue),
    /// A phrase pattern of [`CueSetBuilder::phrases`], not yet expanded.
    Phrases(String, Cue),
    /// A regex, with its `\b` and `\w` already in their ASCII sense.
    Regex(String, Cue),
}

impl Spec {
    fn cue(&self) -> &Cue {
        match self {
            Self::Literal(_, c) | Self::Phrases(_, c) | Self::Regex(_, c) => c,
        }
    }
}

/// What the specs of a builder lower to: every literal (normalized, whether
/// it is a prefix, its spec) in order, and every regex (its spec) with the
/// anchored ones first.
struct Lowered {
    literals: Vec<(String, bool, u32)>,
    regexes: Vec<(String, u32)>,
    anchored: usize,
}

impl CueSetBuilder {
    /// Adds a literal phrase, matched on word boundaries against normalized
    /// text; a trailing `*` matches any word continuation.
    #[must_use]
    pub fn literal(mut self, phrase: &str, cue: Cue) -> Self {
        self.specs.push(Spec::Literal(phrase.to_owned(), cue));
        self
    }

    /// Adds every phrase of `phrases` as a literal of the same cue.
    #[must_use]
    pub fn literals(mut self, phrases: &[&str], cue: Cue) -> Self {
        for p in phrases {
            self = self.literal(p, cue);
        }
        self
    }

    /// Adds every phrase a small pattern language expands to, as literals of
    /// one cue: `(a|b)` alternates, a `?` after a group makes it optional,
    /// a trailing `*` on the whole pattern makes each phrase a prefix, and
    /// everything else is literal text. `(can|could) you (please )?run`
    /// gives four phrases. Literals run on the literal trie,
    /// several times faster than a regex set.
    ///
    /// Fails at [`CueSetBuilder::build`] on unbalanced parentheses or more
    /// than 10,000 phrases.
    #[must_use]
    pub fn phrases(mut self, pattern: &str, cue: Cue) -> Self {
        self.specs.push(Spec::Phrases(pattern.to_owned(), cue));
        self
    }

    /// Adds a regular expression, matched against normalized text.
    ///
    /// `\b` and `\w` are taken in their ASCII sense (normalized text has
    /// its accents folded), which keeps the whole set on the regex crate's
    /// DFA engines: a Unicode `\b` would force the slow NFA path.
    #[must_use]
    pub fn regex(mut self, pattern: &str, cue: Cue) -> Self {
        let pattern = ascii_word_boundaries(pattern).replace(r"\w", r"[0-9A-Za-z_]");
        self.specs.push(Spec::Regex(pattern, cue));
        self
    }

    /// Expands the phrases, normalizes the literals and orders the regexes.
    /// Fails on unbalanced phrases or an empty literal.
    fn lower(&self) -> Result<Lowered, Error> {
        let mut literals: Vec<(String, bool, u32)> = Vec::new();
        let mut regexes: Vec<(String, u32)> = Vec::new();
        let push_literal = |literals: &mut Vec<(String, bool, u32)>, phrase: &str, spec| {
            let (phrase, prefix) = match phrase.strip_suffix('*') {
                Some(p) => (p, true),
                None => (phrase, false),
            };
            let normalized = crate::normalize(phrase);
            if normalized.is_empty() {
                return Err(Error::Pattern {
                    pattern: phrase.to_owned(),
                    message: "empty literal".into(),
                });
            }
            literals.push((normalized, prefix, spec));
            Ok(())
        };
        for (i, spec) in self.specs.iter().enumerate() {
            let i = u32::try_from(i).map_err(|_| Error::Pattern {
                pattern: String::new(),
                message: "too many cues".into(),
            })?;
            match spec {
                Spec::Literal(p, _) => push_literal(&mut literals, p, i)?,
                Spec::Phrases(p, _) => {
                    let list = expand(p).ok_or_else(|| Error::Pattern {
                        pattern: p.clone(),
                        message: "unbalanced parentheses or too many phrases".into(),
                    })?;
                    for phrase in list {
                        push_literal(&mut literals, &phrase, i)?;
                    }
                }
                Spec::Regex(p, _) => regexes.push((p.clone(), i)),
            }
        }
        // Patterns anchored at the start go in a set of their own: an
        // anchored search stops a few bytes in, once every pattern is dead.
        regexes.sort_by_key(|(p, _)| !p.starts_with('^'));
        let anchored = regexes
            .iter()
            .take_while(|(p, _)| p.starts_with('^'))
            .count();
        Ok(Lowered {
            literals,
            regexes,
            anchored,
        })
    }

    /// Compiles the set. Fails on an invalid regex (look-around included),
    /// an empty literal or an unbalanced phrase pattern.
    pub fn build(self) -> Result<CueSet, Error> {
        let lowered = self.lower()?;
        let literals = Literals::new(&lowered.literals);
        let patterns: Vec<&str> = lowered.regexes.iter().map(|(p, _)| p.as_str()).collect();
        let anchored = lowered.anchored;
        let anchored_set = Matcher::compile(&patterns[..anchored])?;
        let set = Matcher::compile(&patterns[anchored..])?;
        Ok(self.assemble(literals, &lowered.regexes, anchored, anchored_set, set))
    }

    /// The set of these cues, from the parts that took the time to build.
    fn assemble(
        &self,
        literals: Literals,
        regexes: &[(String, u32)],
        anchored: usize,
        anchored_set: Matcher,
        set: Matcher,
    ) -> CueSet {
        let cue_of = |spec: u32| {
            self.specs
                .get(spec as usize)
                .map_or(Cue::new("", 0.0, ""), |s| *s.cue())
        };
        let literal_cues = literals.specs.iter().map(|&s| cue_of(s)).collect();
        CueSet {
            ac: literals.trie,
            classes: literals.classes,
            words: literals.words,
            literal_prefix: literals.prefix,
            literal_cues,
            anchored_set,
            anchored,
            set,
            // Each pattern alone only locates a match the sets found (a
            // reason's matched text): compiled the first time it is needed,
            // not here (compiling them all took a fifth of `tact effort`).
            regexes: regexes.iter().map(|(p, _)| LazyRegex::new(p)).collect(),
            regex_cues: regexes.iter().map(|&(_, s)| cue_of(s)).collect(),
        }
    }
}

/// The literal half of a compiled set: everything built from the literals.
struct Literals {
    trie: Trie,
    classes: [u8; 256],
    words: WordFilter,
    prefix: Vec<bool>,
    /// Per literal: the index of the builder's spec it came from.
    specs: Vec<u32>,
}

impl Literals {
    fn new(literals: &[(String, bool, u32)]) -> Self {
        let mut classes = [0u8; 256];
        for (b, c) in classes.iter_mut().enumerate() {
            if u8::try_from(b).is_ok_and(|b| b.is_ascii_alphanumeric()) {
                *c |= ALNUM;
            }
        }
        for (p, ..) in literals {
            if let Some(&b) = p.as_bytes().first() {
                classes[usize::from(b)] |= FIRST;
            }
        }
        Self {
            trie: Trie::new(literals.iter().map(|(p, ..)| p.as_str())),
            classes,
            words: WordFilter::new(literals.iter().map(|(p, prefix, _)| (p.as_str(), *prefix))),
            prefix: literals.iter().map(|&(_, prefix, _)| prefix).collect(),
            specs: literals.iter().map(|&(.., s)| s).collect(),
        }
    }
}

/// A multi-pattern regex set: compiled at start (the regex crate's meta
/// engine), or a dense DFA read in place from a frozen set, or nothing
/// when the set has no pattern.
#[derive(Debug, Clone)]
enum Matcher {
    /// No pattern.
    Empty,
    /// Compiled from the patterns.
    Meta(RegexSet),
    /// Built ahead of time, read in place (see [`CueSetBuilder::thaw`]).
    Dense(Box<regex_automata::dfa::dense::DFA<&'static [u32]>>),
}

impl Matcher {
    /// The set of `patterns`, with the configuration of `regex::RegexSet`.
    fn compile(patterns: &[&str]) -> Result<Self, Error> {
        if patterns.is_empty() {
            return Ok(Self::Empty);
        }
        // A roomy lazy-DFA cache: with large alternations and many
        // distinct inputs, the default cache thrashes and the regex
        // engine falls back to its NFA, several times slower.
        // The configuration of `regex::RegexSet` (all matches, UTF-8,
        // no captures, the crate's NFA size limit), so the sets accept
        // and match exactly what the `regex` crate does.
        RegexSet::builder()
            .configure(
                meta::Config::new()
                    .nfa_size_limit(Some(10 << 20))
                    .hybrid_cache_capacity(DFA_CACHE_BYTES)
                    .match_kind(regex_automata::MatchKind::All)
                    .utf8_empty(true)
                    .which_captures(regex_automata::nfa::thompson::WhichCaptures::None),
            )
            .syntax(regex_automata::util::syntax::Config::new().utf8(true))
            .build_many(patterns)
            .map(Self::Meta)
            .map_err(|e| Error::Pattern {
                pattern: patterns.join(" | "),
                message: e.to_string(),
            })
    }

    fn pattern_len(&self) -> usize {
        match self {
            Self::Empty => 0,
            Self::Meta(set) => set.pattern_len(),
            Self::Dense(dfa) => regex_automata::dfa::Automaton::pattern_len(&**dfa),
        }
    }

    /// Adds the patterns matching somewhere in `input` to `patset`.
    fn which(&self, input: &Input<'_>, patset: &mut PatternSet) {
        match self {
            Self::Empty => {}
            Self::Meta(set) => set.which_overlapping_matches(input, patset),
            Self::Dense(dfa) => {
                // A DFA without quit bytes (no Unicode word boundary) never
                // fails a search.
                let found = regex_automata::dfa::Automaton::try_which_overlapping_matches(
                    &**dfa, input, patset,
                );
                if let Err(e) = found {
                    tracing::debug!(error = %e, "frozen cue set search failed");
                }
            }
        }
    }
}

/// Expands the phrase pattern language of [`CueSetBuilder::phrases`].
/// `None` on unbalanced parentheses or more than 10,000 phrases.
fn expand(pattern: &str) -> Option<Vec<String>> {
    const LIMIT: usize = 10_000;
    // Parses a sequence up to `)` or `|` (not consumed) or the end.
    fn seq(chars: &[char], pos: &mut usize) -> Option<Vec<String>> {
        let mut acc = vec![String::new()];
        while let Some(&c) = chars.get(*pos) {
            match c {
                ')' | '|' => break,
                '(' => {
                    *pos += 1;
                    let mut alts: Vec<String> = Vec::new();
                    loop {
                        alts.extend(seq(chars, pos)?);
                        match chars.get(*pos) {
                            Some('|') => *pos += 1,
                            Some(')') => {
                                *pos += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                    if chars.get(*pos) == Some(&'?') {
                        *pos += 1;
                        alts.push(String::new());
                    }
                    let mut next = Vec::with_capacity(acc.len() * alts.len());
                    for a in &acc {
                        for b in &alts {
                            let mut joined = String::with_capacity(a.len() + b.len());
                            joined.push_str(a);
                            joined.push_str(b);
                            next.push(joined);
                        }
                    }
                    if next.len() > LIMIT {
                        return None;
                    }
                    acc = next;
                }
                _ => {
                    *pos += 1;
                    for a in &mut acc {
                        a.push(c);
                    }
                }
            }
        }
        Some(acc)
    }
    let (body, star) = match pattern.strip_suffix('*') {
        Some(b) => (b, true),
        None => (pattern, false),
    };
    // The whole pattern is one group, so top-level `a|b` alternates.
    let chars: Vec<char> = format!("({body})").chars().collect();
    let mut pos = 0;
    let out = seq(&chars, &mut pos)?;
    if pos != chars.len() {
        return None;
    }
    Some(
        out.into_iter()
            .map(|p| {
                // White space folded to single spaces (an optional group
                // leaves two side by side), without a copy when it is.
                let folded = p.starts_with(' ')
                    || p.ends_with(' ')
                    || p.contains("  ")
                    || p.contains(|c: char| c.is_whitespace() && c != ' ');
                let mut p = if folded {
                    p.split_whitespace().collect::<Vec<_>>().join(" ")
                } else {
                    p
                };
                if star {
                    p.push('*');
                }
                p
            })
            .filter(|p| !p.is_empty() && p != "*")
            .collect(),
    )
}

/// A compiled set of weighted cues. Build it once and share it: matching
/// takes `&self` and allocates only the returned hits.
#[derive(Debug, Clone)]
pub struct CueSet {
    /// The literals' trie, walked anchored at each position where a
    /// literal may start (an automaton's failure transitions would never
    /// run, and they were most of its build).
    ac: Trie,
    /// Per byte: [`FIRST`] when some literal starts with it (a walk
    /// elsewhere would die at once), [`ALNUM`] for ASCII letters and digits.
    classes: [u8; 256],
    /// Which words may start an accepted literal match (see [`WordFilter`]).
    words: WordFilter,
    literal_prefix: Vec<bool>,
    literal_cues: Vec<Cue>,
    anchored_set: Matcher,
    anchored: usize,
    set: Matcher,
    regexes: Vec<LazyRegex>,
    regex_cues: Vec<Cue>,
}

/// A regex compiled the first time it is used (the sets already checked
/// that it compiles: a failure here only loses a match's location).
#[derive(Debug, Clone)]
struct LazyRegex {
    pattern: String,
    regex: OnceLock<Option<Regex>>,
}

impl LazyRegex {
    fn new(pattern: &str) -> Self {
        Self {
            pattern: pattern.to_owned(),
            regex: OnceLock::new(),
        }
    }

    /// The first match's span, if the regex compiles and matches.
    fn find(&self, haystack: &str) -> Option<(usize, usize)> {
        self.regex
            .get_or_init(|| {
                RegexBuilder::new(&self.pattern)
                    .dfa_size_limit(DFA_CACHE_BYTES)
                    .build()
                    .ok()
            })
            .as_ref()?
            .find(haystack)
            .map(|m| (m.start(), m.end()))
    }
}

/// A filter of word starts for the literal walk. A literal accepted at a
/// word start either has that whole word as its first token (its leading
/// run of ASCII letters and digits), or is a single-token prefix literal
/// (`investigat*`) whose token begins the word. The filter keys each token
/// by its first four bytes (shorter tokens by their whole text), so a word
/// whose key no token has cannot start an accepted match and is skipped
/// without walking the automaton. A false positive only costs the walk.
#[derive(Debug, Clone)]
struct WordFilter {
    /// Bit set over hashed keys.
    keys: Box<[u64; WORD_FILTER_WORDS]>,
    /// First bytes of prefix tokens shorter than four bytes: words starting
    /// with them are always walked.
    short_prefix: [bool; 256],
}

/// 64-bit words in the filter's bit set (2^15 bits).
const WORD_FILTER_WORDS: usize = 512;

/// Literals starting at one position that a walk keeps, the longest
/// ("the", "the code" and "the codebase" are three): when a text nests
/// more, a shorter one is not tried.
const NESTED: usize = 4;
/// Byte class: some literal starts with this byte.
const FIRST: u8 = 1;
/// Byte class: an ASCII letter or digit.
const ALNUM: u8 = 2;

impl WordFilter {
    fn new<'p>(literals: impl Iterator<Item = (&'p str, bool)>) -> Self {
        let mut f = Self {
            keys: Box::new([0; WORD_FILTER_WORDS]),
            short_prefix: [false; 256],
        };
        for (lit, is_prefix) in literals {
            let bytes = lit.as_bytes();
            let len = bytes
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric())
                .count();
            let Some(&first) = bytes.first().filter(|_| len > 0) else {
                // Starts with punctuation or a non-ASCII character: it is
                // tried at non-word positions, which the filter never skips.
                continue;
            };
            if is_prefix && len == bytes.len() && len < 4 {
                f.short_prefix[usize::from(first)] = true;
            }
            let (w, m) = bit_of(word_key(&bytes[..len]));
            if let Some(slot) = f.keys.get_mut(w) {
                *slot |= m;
            }
        }
        f
    }

    /// Whether a literal may be accepted at the ASCII word `bytes[at..end]`
    /// (`end` is its end). A word running on into a non-ASCII character is
    /// always walked.
    fn may_start(&self, bytes: &[u8], at: usize, end: usize) -> bool {
        let word = bytes.get(at..end).unwrap_or_default();
        bytes.get(end).is_some_and(|b| !b.is_ascii())
            || word
                .first()
                .is_some_and(|&b| self.short_prefix[usize::from(b)])
            || {
                let (w, m) = bit_of(word_key(word));
                self.keys.get(w).is_some_and(|x| x & m != 0)
            }
    }
}

/// The filter key of a word or token: its first four bytes, or all of it
/// (zero-padded) when shorter, hashed.
fn word_key(word: &[u8]) -> u64 {
    // Built without a variable-length copy, which compiles to a call.
    let k = match *word {
        [a, b, c, d, ..] => u32::from_le_bytes([a, b, c, d]),
        [a, b, c] => u32::from_le_bytes([a, b, c, 0]),
        [a, b] => u32::from_le_bytes([a, b, 0, 0]),
        [a] => u32::from(a),
        [] => 0,
    };
    let x = u64::from(k).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^ (x >> 32)
}

fn bit_of(h: u64) -> (usize, u64) {
    let bit = (h as usize) & (WORD_FILTER_WORDS * 64 - 1);
    (bit / 64, 1u64 << (bit % 64))
}

fn is_word_byte_after(text: &str, at: usize) -> bool {
    text[at..].chars().next().is_some_and(char::is_alphanumeric)
}

impl CueSet {
    /// Starts a builder.
    pub fn builder() -> CueSetBuilder {
        CueSetBuilder::default()
    }

    /// Number of cues (literals and regexes).
    pub fn len(&self) -> usize {
        self.literal_cues.len() + self.regex_cues.len()
    }

    /// Whether the set has no cue.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// All cue matches in `normalized` without locating regex matches:
    /// regex hits carry an empty span at 0 (use [`CueSet::locate`] for the
    /// few whose text is shown). About twice as fast as [`CueSet::hits`].
    pub fn hits_unlocated<'a>(&'a self, normalized: &str) -> Vec<CueHit<'a>> {
        self.collect_hits(normalized, false)
    }

    /// The span of a hit's first match in `normalized` (the same text the
    /// hit came from): literal hits already have it, regex hits are located
    /// now.
    pub fn locate(&self, hit: &CueHit<'_>, normalized: &str) -> (usize, usize) {
        if hit.end > hit.start {
            return (hit.start, hit.end);
        }
        self.regex_cues
            .iter()
            .position(|c| std::ptr::eq(c, hit.cue))
            .and_then(|i| self.regexes.get(i))
            .and_then(|re| re.find(normalized))
            .unwrap_or((0, 0))
    }

    /// All cue matches in `normalized` (text passed through
    /// [`crate::normalize`]), literals first in text order, then regexes.
    /// Each pattern is reported once, at its first match; distinct patterns
    /// of one cue are reported separately (more evidence).
    pub fn hits<'a>(&'a self, normalized: &str) -> Vec<CueHit<'a>> {
        self.collect_hits(normalized, true)
    }

    /// The literals starting exactly at `at`, shortest first (pattern
    /// index, end), and how many there are: an anchored walk of the
    /// automaton that stops at its dead state, a few bytes in for most
    /// positions. Past [`NESTED`] nested literals, the shortest are dropped.
    fn starting_at(&self, bytes: &[u8], at: usize) -> ([(usize, usize); NESTED], usize) {
        let mut found = [(0usize, 0usize); NESTED];
        let mut count = 0usize;
        let mut sid = 0;
        for (i, &b) in bytes.iter().enumerate().skip(at) {
            sid = self.ac.next(sid, b);
            if sid == trie::DEAD {
                break;
            }
            if let Some(pid) = self.ac.pattern(sid) {
                if count == NESTED {
                    found.copy_within(1.., 0);
                    count -= 1;
                }
                if let Some(slot) = found.get_mut(count) {
                    *slot = (pid, i + 1);
                    count += 1;
                }
            }
        }
        (found, count)
    }

    fn collect_hits<'a>(&'a self, normalized: &str, locate: bool) -> Vec<CueHit<'a>> {
        // Allocated at the first hit: many searches find none.
        let mut out: Vec<CueHit<'a>> = Vec::new();
        // The literal patterns reported so far: the first 32 on the stack;
        // any more (a long text) are known by their hits in `out`.
        let mut seen_literal: [usize; 32] = [usize::MAX; 32];
        let mut seen_count = 0usize;
        // Leftmost-longest semantics, searched anchored at each position
        // where a literal may start: a word start or a non-alphanumeric
        // character (a literal starting with a letter or digit never
        // matches mid-word). A match rejected for its end boundary moves on
        // one character: `the code` inside "the codebase" must not hide
        // `codebase`. Each anchored search dies within a few bytes, so this
        // is several times cheaper than restarting an unanchored search
        // after every mid-word hit of a short literal ("o", "or", "du").
        let bytes = normalized.as_bytes();
        let mut pos = 0usize;
        let mut prev_alnum = false;
        while pos < bytes.len() {
            let b = bytes[pos];
            let here = pos;
            if b.is_ascii() {
                let class = self.classes[usize::from(b)];
                if class & ALNUM != 0 {
                    // A word (or the rest of one): its end is found once,
                    // and only a word start that may begin an accepted
                    // match is walked.
                    let mut end = pos + 1;
                    while bytes
                        .get(end)
                        .is_some_and(|&b| self.classes[usize::from(b)] & ALNUM != 0)
                    {
                        end += 1;
                    }
                    let walk =
                        !prev_alnum && class & FIRST != 0 && self.words.may_start(bytes, here, end);
                    pos = end;
                    prev_alnum = true;
                    if !walk {
                        continue;
                    }
                } else {
                    pos += 1;
                    prev_alnum = false;
                    if class & FIRST == 0 {
                        continue;
                    }
                }
            } else {
                let (alnum, len) = normalized
                    .get(pos..)
                    .and_then(|rest| rest.chars().next())
                    .map_or((false, 1), |c| (c.is_alphanumeric(), c.len_utf8()));
                pos += len;
                let mid_word = alnum && prev_alnum;
                prev_alnum = alnum;
                if mid_word || self.classes[usize::from(b)] & FIRST == 0 {
                    continue;
                }
            }
            // The longest literal at this start whose end is a word's: a
            // literal ending in a letter or digit must end a word, unless it
            // is a prefix pattern (`investigat*`). A shorter one stands where
            // a longer one ends mid-word ("the" in "the codebase" beside
            // "the code"); the boundary is tested on the walk's matches
            // only, longest first.
            let (found, count) = self.starting_at(bytes, here);
            let ends_word = |e: usize| {
                normalized
                    .get(..e)
                    .and_then(|t| t.chars().next_back())
                    .is_some_and(char::is_alphanumeric)
            };
            let Some((idx, e, pat_ends_word)) =
                found[..count].iter().rev().find_map(|&(idx, e)| {
                    let pat_ends_word = ends_word(e);
                    (self.literal_prefix.get(idx) == Some(&true)
                        || !pat_ends_word
                        || !is_word_byte_after(normalized, e))
                    .then_some((idx, e, pat_ends_word))
                })
            else {
                continue;
            };
            let s = here;
            let Some(cue) = self.literal_cues.get(idx) else {
                continue;
            };
            if e > s {
                pos = e;
                prev_alnum = pat_ends_word;
            }
            if seen_literal[..seen_count.min(32)].contains(&idx)
                || (seen_count > 32
                    && out.iter().skip(32).any(|h| {
                        std::ptr::eq(h.cue, cue)
                            && normalized.get(h.start..h.end) == normalized.get(s..e)
                    }))
            {
                continue;
            }
            if let Some(slot) = seen_literal.get_mut(seen_count) {
                *slot = idx;
            }
            seen_count += 1;
            if out.capacity() == 0 {
                out.reserve(16);
            }
            out.push(CueHit {
                cue,
                start: s,
                end: e,
            });
        }
        if !self.regex_cues.is_empty() {
            // Pattern order: the anchored set's patterns come first.
            let mut push = |idx: usize| {
                let (Some(cue), Some(re)) = (self.regex_cues.get(idx), self.regexes.get(idx))
                else {
                    return;
                };
                let (start, end) = if locate {
                    re.find(normalized).unwrap_or((0, 0))
                } else {
                    (0, 0)
                };
                if out.capacity() == 0 {
                    out.reserve(16);
                }
                out.push(CueHit { cue, start, end });
            };
            if self.anchored > 0 {
                set_matches(&self.anchored_set, normalized, &mut push);
            }
            if self.regex_cues.len() > self.anchored {
                let offset = self.anchored;
                set_matches(&self.set, normalized, |i| push(offset + i));
            }
        }
        out
    }
}

/// `pattern` with each `\b` in its ASCII sense, `(?-u:\b)`; an escaped
/// backslash (`\\b`) is left alone. A Unicode `\b` sends the regex
/// crate's DFA engines back to its slowest one on any text with a
/// non-ASCII character, about a thousand times slower.
///
/// ```
/// assert_eq!(tact_core::cues::ascii_word_boundaries(r"\bok\b"), r"(?-u:\b)ok(?-u:\b)");
/// assert_eq!(tact_core::cues::ascii_word_boundaries(r"a\\b"), r"a\\b");
/// ```
pub fn ascii_word_boundaries(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('b') => out.push_str(r"(?-u:\b)"),
            Some(next) => {
                out.push('\\');
                out.push(next);
            }
            None => out.push('\\'),
        }
    }
    out
}
#[cfg(test)]
mod tests {
    use super::*;

    fn set() -> CueSet {
        CueSet::builder()
            .literal("investigat*", Cue::new("investigate", 2.0, "investigation"))
            .literal("or", Cue::new("or", 1.0, "alternatives"))
            .literal("look into", Cue::new("look_into", 1.5, "look into"))
            .regex(r"\btable \d+\b", Cue::new("table_ref", 1.0, "table"))
            .build()
            .unwrap()
    }

    /// The same set with its word-start filter letting every word through:
    /// the plain anchored walk the filter must agree with.
    fn unfiltered(set: &CueSet) -> CueSet {
        let mut all = set.clone();
        all.words.keys = Box::new([u64::MAX; WORD_FILTER_WORDS]);
        all
    }

    #[test]
    fn each_literal_pattern_is_reported_once_however_many_patterns_match() {
        // Forty distinct patterns (more than the 32 kept on the stack),
        // each written twice in the text.
        let words: Vec<String> = (0..40).map(|i| format!("w{i}x")).collect();
        let pats: Vec<&str> = words.iter().map(String::as_str).collect();
        let set = CueSet::builder()
            .literals(&pats, Cue::new("w", 1.0, "w"))
            .build()
            .unwrap();
        let text = format!("{} {}", words.join(" "), words.join(" "));
        let hits = set.hits(&text);
        assert_eq!(hits.len(), 40);
        // Each at its first match.
        assert!(hits.iter().all(|h| h.start < text.len() / 2), "{hits:?}");
    }

    #[test]
    fn the_word_filter_skips_only_words_that_cannot_match() {
        let set = CueSet::builder()
            .literals(
                &[
                    "or",
                    "o",
                    "look into",
                    "re*",
                    "investigat*",
                    "e.g",
                    "1)",
                    "größe",
                ],
                Cue::new("a", 1.0, "a"),
            )
            .literal("(a)", Cue::new("b", 1.0, "b"))
            .build()
            .unwrap();
        let all = unfiltered(&set);
        for text in [
            "or o look into it",
            "looking into",
            "lookup into",
            "rerun reset r",
            "investigation investigat invest",
            "e.g. eg e.gx",
            "1) 12) a1)",
            "größe großer gr",
            "(a) x(a) or(",
            "",
            "o",
            "orbit or",
            "investigatoré or",
        ] {
            let t = crate::normalize(text);
            assert_eq!(set.hits(&t), all.hits(&t), "{text}");
        }
    }

    proptest::proptest! {
        #[test]
        fn the_word_filter_agrees_with_the_plain_walk(
            words in proptest::collection::vec(
                "(or|o|look|into|lookup|re|rerun|investigat|investigation|e\\.g|1\\)|\\(a\\)|größe|gr|é|x|[a-z]{1,6}|[,.?!] ?)",
                0..14,
            ),
        ) {
            let set = CueSet::builder()
                .literals(&["or", "o", "look into", "re*", "investigat*", "e.g", "1)", "größe"], Cue::new("a", 1.0, "a"))
                .literal("(a)", Cue::new("b", 1.0, "b"))
                .build()
                .unwrap();
            let all = unfiltered(&set);
            let t = crate::normalize(&words.join(" "));
            proptest::prop_assert_eq!(set.hits(&t), all.hits(&t));
        }
    }

    #[test]
    fn literals_respect_word_boundaries_and_prefixes() {
        let s = set();
        let names = |t: &str| -> Vec<&str> {
            s.hits(&crate::normalize(t))
                .iter()
                .map(|h| h.cue.name)
                .collect()
        };
        assert_eq!(names("Should we investigate?"), ["investigate"]);
        assert_eq!(names("An investigation or two"), ["investigate", "or"]);
        assert!(names("Order the orders").is_empty());
        assert_eq!(
            names("Please LOOK INTO Table 3"),
            ["look_into", "table_ref"]
        );
    }

    #[test]
    fn a_rejected_match_does_not_hide_a_later_one() {
        let s = CueSet::builder()
            .literal("the code", Cue::new("the_code", 1.0, "x"))
            .literal("codebase", Cue::new("codebase", 1.0, "x"))
            .build()
            .unwrap();
        let names: Vec<&str> = s
            .hits("see the codebase")
            .iter()
            .map(|h| h.cue.name)
            .collect();
        assert_eq!(names, ["codebase"]);
    }

    #[test]
    fn a_rejected_match_does_not_hide_a_shorter_one_at_its_start() {
        let s = CueSet::builder()
            .literal("the code", Cue::new("the_code", 1.0, "x"))
            .literal("the", Cue::new("the", 1.0, "x"))
            .literal("codebase", Cue::new("codebase", 1.0, "x"))
            .build()
            .unwrap();
        let hits = s.hits("see the codebase");
        let names: Vec<(&str, usize)> = hits.iter().map(|h| (h.cue.name, h.start)).collect();
        assert_eq!(names, [("the", 4), ("codebase", 8)]);
        // Where the longer one ends a word, it stands alone.
        let names: Vec<&str> = s.hits("the code base").iter().map(|h| h.cue.name).collect();
        assert_eq!(names, ["the_code"]);
    }

    #[test]
    fn matched_text_is_reported() {
        let s = set();
        let t = crate::normalize("we must investigating now");
        let hits = s.hits(&t);
        assert_eq!(hits[0].matched(&t), "investigat");
    }

    #[test]
    fn phrase_patterns_expand_to_literals() {
        let mut got = expand("(can|could) you (please )?run").unwrap();
        got.sort();
        assert_eq!(
            got,
            [
                "can you please run",
                "can you run",
                "could you please run",
                "could you run"
            ]
        );
        assert_eq!(expand("leak*").unwrap(), ["leak*"]);
        assert!(expand("(a|b").is_none());
        assert!(expand("a)").is_none());
        let s = CueSet::builder()
            .phrases("(why|how come) (is|are)", Cue::new("why", 1.0, "why"))
            .build()
            .unwrap();
        assert_eq!(s.hits("so why are we here").len(), 1);
        assert!(
            CueSet::builder()
                .phrases("(x", Cue::new("x", 1.0, "x"))
                .build()
                .is_err()
        );
    }

    #[test]
    fn look_around_is_rejected_with_a_clear_error() {
        let err = CueSet::builder()
            .regex(r"foo(?=bar)", Cue::new("x", 1.0, "x"))
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("foo(?=bar)"));
        assert!(
            CueSet::builder()
                .literal("", Cue::new("x", 1.0, "x"))
                .build()
                .is_err()
        );
    }
}
