//! Frozen cue sets: a [`CueSet`] built ahead of time and written to bytes
//! ([`CueSetBuilder::freeze`]), then read at start without expanding a
//! phrase, building the trie or compiling a regex
//! ([`CueSetBuilder::thaw`]). The regex sets are dense DFAs of
//! `regex-automata`, read in place; the cues themselves (names, weights,
//! explanations) still come from the builder, so only a change of the
//! patterns calls for new bytes.
//!
//! Layout (little-endian, every section padded to 8 bytes): the magic, the
//! builder's fingerprint, the counts, the byte classes, the word filter,
//! the trie (root, spans, edge bytes, edge states, ends), per literal its
//! spec index with its prefix flag in the top bit, per regex its spec
//! index, then the anchored set's DFA and the other set's DFA.

use regex_automata::MatchKind;
use regex_automata::dfa::dense;
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::syntax;

use super::{CueSet, CueSetBuilder, Error, Literals, Matcher, Spec, WORD_FILTER_WORDS, WordFilter};
use crate::trie::Trie;

/// The first bytes of a frozen set (the last one is the format version).
const MAGIC: &[u8; 8] = b"tactcue1";

/// The top bit of a literal's word: the literal is a prefix (`investigat*`).
const PREFIX_BIT: u32 = 1 << 31;

/// Bytes of `B` at the alignment a frozen set needs (8): a frozen set is
/// read in place, and its DFAs are arrays of `u32`.
///
/// ```
/// use tact_core::cues::Aligned;
///
/// static FROZEN: &Aligned<[u8]> = &Aligned { align: [], bytes: *b"not a set" };
/// assert_eq!(FROZEN.bytes.len(), 9);
/// ```
#[derive(Debug)]
#[repr(C)]
pub struct Aligned<B: ?Sized> {
    /// Aligns `bytes` to 8.
    pub align: [u64; 0],
    /// The bytes (`*include_bytes!(...)`).
    pub bytes: B,
}

impl CueSetBuilder {
    /// A hash of every spec as given (kind, pattern, order), not of the
    /// cues: a frozen set is read only by a builder with the same patterns.
    fn fingerprint(&self) -> u64 {
        // FNV-1a.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |b: u8| {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        };
        for spec in &self.specs {
            let (kind, text) = match spec {
                Spec::Literal(p, _) => (b'l', p),
                Spec::Phrases(p, _) => (b'p', p),
                Spec::Regex(p, _) => (b'r', p),
            };
            eat(kind);
            text.bytes().for_each(&mut eat);
            // Not a byte of UTF-8 text: ends the pattern.
            eat(0xff);
        }
        h
    }

    /// The set these specs build, as bytes for [`CueSetBuilder::thaw`]
    /// (the same specs give the same bytes). Its regex sets are built as
    /// dense DFAs, which takes far longer than [`CueSetBuilder::build`]:
    /// this runs when the patterns change, not at start.
    ///
    /// # Errors
    ///
    /// What [`CueSetBuilder::build`] fails on, and a DFA over its limits.
    pub fn freeze(&self) -> Result<Vec<u8>, Error> {
        self.freeze_with(true)
    }

    /// [`CueSetBuilder::freeze`] without the regex sets, which
    /// [`CueSetBuilder::thaw`] then compiles: for sets whose regexes would
    /// make a DFA too large to build or to read faster than they compile
    /// (an unanchored bounded repetition such as `[a-z ]{1,40}`).
    ///
    /// # Errors
    ///
    /// What [`CueSetBuilder::build`] fails on.
    pub fn freeze_literals(&self) -> Result<Vec<u8>, Error> {
        self.freeze_with(false)
    }

    fn freeze_with(&self, dfas: bool) -> Result<Vec<u8>, Error> {
        let lowered = self.lower()?;
        let literals = Literals::new(&lowered.literals);
        let patterns: Vec<&str> = lowered.regexes.iter().map(|(p, _)| p.as_str()).collect();
        let (anchored_dfa, dfa) = if dfas {
            (
                dfa_bytes(patterns.get(..lowered.anchored).unwrap_or_default())?,
                dfa_bytes(patterns.get(lowered.anchored..).unwrap_or_default())?,
            )
        } else {
            (Vec::new(), Vec::new())
        };
        let trie = &literals.trie;
        let mut w = Writer(Vec::new());
        w.0.extend_from_slice(MAGIC);
        w.u64(self.fingerprint());
        for n in [
            trie.spans.len(),
            trie.edges.len(),
            literals.specs.len(),
            lowered.regexes.len(),
            lowered.anchored,
            anchored_dfa.len(),
            dfa.len(),
        ] {
            w.u32(u32::try_from(n).map_err(|_| too_large())?);
        }
        w.pad();
        w.0.extend_from_slice(&literals.classes);
        w.0.extend(literals.words.short_prefix.iter().map(|&b| u8::from(b)));
        literals.words.keys.iter().for_each(|&k| w.u64(k));
        trie.root.iter().for_each(|&s| w.u32(s));
        trie.spans.iter().for_each(|&(a, b)| {
            w.u32(a);
            w.u32(b);
        });
        w.0.extend(trie.edges.iter().map(|&(b, _)| b));
        w.pad();
        trie.edges.iter().for_each(|&(_, s)| w.u32(s));
        trie.ends.iter().for_each(|&e| w.u32(e));
        for (&spec, &prefix) in literals.specs.iter().zip(&literals.prefix) {
            if spec & PREFIX_BIT != 0 {
                return Err(too_large());
            }
            w.u32(spec | if prefix { PREFIX_BIT } else { 0 });
        }
        lowered.regexes.iter().for_each(|&(_, s)| w.u32(s));
        w.pad();
        w.0.extend_from_slice(&anchored_dfa);
        w.pad();
        w.0.extend_from_slice(&dfa);
        w.pad();
        Ok(w.0)
    }

    /// The set these specs build, read from `frozen` (the bytes
    /// [`CueSetBuilder::freeze`] wrote for the same specs, at an address
    /// aligned to 8, as [`Aligned`] keeps them): nothing is expanded,
    /// built or compiled.
    ///
    /// # Errors
    ///
    /// [`Error::Pattern`] when `frozen` is not a frozen set of these specs
    /// (another fingerprint, a truncated or misaligned buffer, a DFA this
    /// build of `regex-automata` does not read).
    pub fn thaw(&self, frozen: &'static [u8]) -> Result<CueSet, Error> {
        let bad = |message: &str| Error::Pattern {
            pattern: "frozen cue set".into(),
            message: message.into(),
        };
        let mut r = Reader {
            bytes: frozen,
            pos: 0,
        };
        if r.take(MAGIC.len()) != Some(MAGIC.as_slice()) {
            return Err(bad("not a frozen cue set (magic bytes)"));
        }
        if r.u64() != Some(self.fingerprint()) {
            return Err(bad("frozen for other patterns: freeze the set again"));
        }
        let truncated = || bad("truncated");
        let mut count = || r.u32().map(|n| n as usize).ok_or_else(truncated);
        let (nodes, edges, literal_count, regex_count, anchored, anchored_len, set_len) = (
            count()?,
            count()?,
            count()?,
            count()?,
            count()?,
            count()?,
            count()?,
        );
        r.pad();
        let mut classes = [0u8; 256];
        classes.copy_from_slice(r.take(256).ok_or_else(truncated)?);
        let mut short_prefix = [false; 256];
        for (slot, &b) in short_prefix
            .iter_mut()
            .zip(r.take(256).ok_or_else(truncated)?)
        {
            *slot = b != 0;
        }
        let mut keys = Box::new([0u64; WORD_FILTER_WORDS]);
        for slot in keys.iter_mut() {
            *slot = r.u64().ok_or_else(truncated)?;
        }
        let mut root = Box::new([crate::trie::DEAD; 256]);
        for slot in root.iter_mut() {
            *slot = r.u32().ok_or_else(truncated)?;
        }
        let flat_spans = r.u32s(nodes.saturating_mul(2)).ok_or_else(truncated)?;
        let spans = flat_spans.chunks_exact(2).map(|c| (c[0], c[1])).collect();
        let edge_bytes = r.take(edges).ok_or_else(truncated)?;
        r.pad();
        let edge_states = r.u32s(edges).ok_or_else(truncated)?;
        let ends = r.u32s(nodes).ok_or_else(truncated)?;
        let words = r.u32s(literal_count).ok_or_else(truncated)?;
        let regex_specs = r.u32s(regex_count).ok_or_else(truncated)?;
        r.pad();
        let anchored_dfa = r.take(anchored_len).ok_or_else(truncated)?;
        r.pad();
        let dfa = r.take(set_len).ok_or_else(truncated)?;
        let trie = Trie {
            root,
            spans,
            edges: edge_bytes.iter().copied().zip(edge_states).collect(),
            ends,
        };
        let literals = Literals {
            trie,
            classes,
            words: WordFilter { keys, short_prefix },
            prefix: words.iter().map(|&w| w & PREFIX_BIT != 0).collect(),
            specs: words.iter().map(|&w| w & !PREFIX_BIT).collect(),
        };
        // The regexes in the order `lower` gives them (anchored first).
        let regexes: Vec<(String, u32)> = regex_specs
            .iter()
            .map(|&s| match self.specs.get(s as usize) {
                Some(Spec::Regex(p, _)) => Ok((p.clone(), s)),
                _ => Err(bad("a regex spec is not a regex")),
            })
            .collect::<Result<_, _>>()?;
        if anchored > regexes.len() {
            return Err(bad("more anchored regexes than regexes"));
        }
        let sources: Vec<&str> = regexes.iter().map(|(p, _)| p.as_str()).collect();
        let read = |bytes: &'static [u8], patterns: &[&str]| -> Result<Matcher, Error> {
            if bytes.is_empty() {
                // No pattern, or frozen without its DFA: compiled now.
                return Matcher::compile(patterns);
            }
            let (dfa, _) = dense::DFA::from_bytes(bytes).map_err(|e| Error::Pattern {
                pattern: "frozen cue set".into(),
                message: e.to_string(),
            })?;
            if regex_automata::dfa::Automaton::pattern_len(&dfa) != patterns.len() {
                return Err(bad("a DFA has another number of patterns"));
            }
            Ok(Matcher::Dense(Box::new(dfa)))
        };
        let (anchored_sources, sources) = sources.split_at(anchored);
        let anchored_set = read(anchored_dfa, anchored_sources)?;
        let set = read(dfa, sources)?;
        Ok(self.assemble(literals, &regexes, anchored, anchored_set, set))
    }

    /// [`CueSetBuilder::thaw`] when `frozen` is a frozen set of these specs,
    /// else [`CueSetBuilder::build`] (with a warning: the frozen bytes are
    /// stale).
    ///
    /// # Errors
    ///
    /// What [`CueSetBuilder::build`] fails on.
    pub fn build_frozen(self, frozen: &'static [u8]) -> Result<CueSet, Error> {
        match self.thaw(frozen) {
            Ok(set) => Ok(set),
            Err(e) => {
                tracing::warn!(error = %e, "frozen cue set not read; compiling the cues");
                self.build()
            }
        }
    }
}

fn too_large() -> Error {
    Error::Pattern {
        pattern: "frozen cue set".into(),
        message: "too large to freeze".into(),
    }
}

/// The dense DFA (minimized) of `patterns`, configured as [`Matcher::compile`]'s sets
/// (all matches, UTF-8, no captures), as little-endian bytes; empty when
/// there is no pattern.
fn dfa_bytes(patterns: &[&str]) -> Result<Vec<u8>, Error> {
    if patterns.is_empty() {
        return Ok(Vec::new());
    }
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .match_kind(MatchKind::All)
                .minimize(true)
                .dfa_size_limit(None)
                .determinize_size_limit(None),
        )
        .syntax(syntax::Config::new().utf8(true))
        .thompson(
            thompson::Config::new()
                .utf8(true)
                .nfa_size_limit(Some(10 << 20))
                .which_captures(WhichCaptures::None),
        )
        .build_many(patterns)
        .map_err(|e| Error::Pattern {
            pattern: patterns.join(" | "),
            message: e.to_string(),
        })?;
    // Dense, not sparse: the sparse DFA (a twentieth of the bytes) reads
    // about as slowly at start (its read validates every state) and
    // searches at half the speed.
    let (bytes, pad) = dfa.to_bytes_little_endian();
    Ok(bytes.get(pad..).unwrap_or_default().to_vec())
}

/// Little-endian writer.
struct Writer(Vec<u8>);

impl Writer {
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    /// Zeros up to the next multiple of 8.
    fn pad(&mut self) {
        self.0.resize(self.0.len().next_multiple_of(8), 0);
    }
}

/// Little-endian reader over a frozen set.
struct Reader {
    bytes: &'static [u8],
    pos: usize,
}

impl Reader {
    fn take(&mut self, n: usize) -> Option<&'static [u8]> {
        let end = self.pos.checked_add(n)?;
        let out = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(out)
    }

    fn u32(&mut self) -> Option<u32> {
        self.take(4)?.try_into().ok().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Option<u64> {
        self.take(8)?.try_into().ok().map(u64::from_le_bytes)
    }

    fn u32s(&mut self, n: usize) -> Option<Vec<u32>> {
        let bytes = self.take(n.checked_mul(4)?)?;
        Some(
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        )
    }

    /// Skips to the next multiple of 8.
    fn pad(&mut self) {
        self.pos = self.pos.next_multiple_of(8);
    }
}
