//! The credential scanner's keyword DFA run over four parts of a text at
//! once: a DFA's scan waits on each state's load before the next byte's,
//! so one scan uses a fraction of what the core can do; four independent
//! scans of four parts of the text run side by side in the same time.
//! Each part is scanned on past its end by the longest keyword's length
//! less one, so that an occurrence starting in it is found whole, and
//! reports only the occurrences that start in it: every occurrence once,
//! as one scan of the whole text finds them.

use aho_corasick::automaton::Automaton;
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, MatchKind};

/// Parts of a text scanned at once.
const LANES: usize = 4;

/// Texts shorter than this are scanned in one part.
const SPLIT_FROM: usize = 32;

/// The keywords' DFA: ASCII case-insensitive, every occurrence reported
/// (overlapping ones too), no prefilter (the start state is then an
/// ordinary one).
#[derive(Debug)]
pub(crate) struct Keywords {
    dfa: DFA,
    /// The longest keyword's length.
    longest: usize,
}

impl Keywords {
    /// The DFA over `words`; `None` if it failed to build.
    pub(crate) fn new(words: &[&str]) -> Option<Self> {
        let dfa = aho_corasick::dfa::Builder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .prefilter(false)
            .build(words)
            .ok()?;
        let longest = words.iter().map(|w| w.len()).max().unwrap_or(1);
        // The scan needs an unanchored start.
        dfa.start_state(Anchored::No).ok()?;
        Some(Self { dfa, longest })
    }

    /// Calls `found` with the keyword id and the start of each occurrence
    /// of a keyword in `s`.
    pub(crate) fn find(&self, s: &str, mut found: impl FnMut(usize, usize)) {
        let Ok(start) = self.dfa.start_state(Anchored::No) else {
            return;
        };
        let bytes = s.as_bytes();
        let n = bytes.len();
        if n < SPLIT_FROM {
            self.run(bytes, 0, 0..n, start, &mut found);
            return;
        }
        // Lane k reports starts in [k * part, (k + 1) * part) (the last
        // lane: to the end) and scans on to where the longest keyword
        // starting there ends; the parts are cut so that the four scans
        // are about as long.
        let part = (n + 1 - self.longest.min(n)).div_ceil(LANES).max(1);
        let lane = |k: usize| {
            let from = (k * part).min(n);
            let to = if k + 1 == LANES {
                n
            } else {
                ((k + 1) * part).min(n)
            };
            let end = (to + self.longest - 1).min(n);
            (from, to, end)
        };
        let lanes = [lane(0), lane(1), lane(2), lane(3)];
        let common = lanes.iter().map(|&(f, _, e)| e - f).min().unwrap_or(0);
        let slice = |k: usize| {
            let (f, ..) = lanes.get(k).copied().unwrap_or((0, 0, 0));
            bytes.get(f..f + common).unwrap_or_default()
        };
        let (s0, s1, s2, s3) = (slice(0), slice(1), slice(2), slice(3));
        let dfa = &self.dfa;
        let (mut q0, mut q1, mut q2, mut q3) = (start, start, start, start);
        for (i, (((&b0, &b1), &b2), &b3)) in s0.iter().zip(s1).zip(s2).zip(s3).enumerate() {
            q0 = dfa.next_state(Anchored::No, q0, b0);
            q1 = dfa.next_state(Anchored::No, q1, b1);
            q2 = dfa.next_state(Anchored::No, q2, b2);
            q3 = dfa.next_state(Anchored::No, q3, b3);
            if dfa.is_special(q0) | dfa.is_special(q1) | dfa.is_special(q2) | dfa.is_special(q3) {
                for (&(f, t, _), q) in lanes.iter().zip([q0, q1, q2, q3]) {
                    if dfa.is_special(q) {
                        self.report(q, f + i, f..t, &mut found);
                    }
                }
            }
        }
        for (&(f, t, e), q) in lanes.iter().zip([q0, q1, q2, q3]) {
            self.run(
                bytes.get(..e).unwrap_or_default(),
                f + common,
                f..t,
                q,
                &mut found,
            );
        }
    }

    /// Scans `bytes[at..]` from state `sid`, reporting the occurrences
    /// that start in `starts`.
    fn run(
        &self,
        bytes: &[u8],
        at: usize,
        starts: std::ops::Range<usize>,
        mut sid: aho_corasick::automaton::StateID,
        found: &mut impl FnMut(usize, usize),
    ) {
        for (i, &b) in bytes.get(at..).unwrap_or_default().iter().enumerate() {
            sid = self.dfa.next_state(Anchored::No, sid, b);
            if self.dfa.is_special(sid) {
                self.report(sid, at + i, starts.clone(), found);
            }
        }
    }

    /// Reports the keywords state `sid` matches, ending at byte `at`, that
    /// start in `starts`.
    fn report(
        &self,
        sid: aho_corasick::automaton::StateID,
        at: usize,
        starts: std::ops::Range<usize>,
        found: &mut impl FnMut(usize, usize),
    ) {
        if !self.dfa.is_match(sid) {
            return;
        }
        for i in 0..self.dfa.match_len(sid) {
            let pid = self.dfa.match_pattern(sid, i);
            let start = (at + 1).saturating_sub(self.dfa.pattern_len(pid));
            if starts.contains(&start) {
                found(pid.as_usize(), start);
            }
        }
    }
}
