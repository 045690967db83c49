//! The credential scanner's keywords compared by first byte: what a
//! process scans before it builds the keywords' automaton.

/// The keywords grouped by their first byte (ASCII lower case), each
/// compared where a text has that byte: what the automaton finds
/// (every keyword occurring, ASCII case-insensitive), with nothing to
/// build but a sort.
#[derive(Debug)]
pub(crate) struct FirstBytes {
    /// Keyword ids and texts, sorted by first byte.
    words: Vec<(u8, usize, &'static [u8])>,
    /// Per byte: where its keywords start in `words` (and end, at the next
    /// byte's start).
    starts: [u16; 257],
}

impl FirstBytes {
    pub(crate) fn new(keywords: &[&'static str]) -> Self {
        let mut words: Vec<(u8, usize, &'static [u8])> = keywords
            .iter()
            .enumerate()
            .filter_map(|(id, w)| {
                let first = w.as_bytes().first()?.to_ascii_lowercase();
                Some((first, id, w.as_bytes()))
            })
            .collect();
        words.sort_by_key(|&(first, id, _)| (first, id));
        let mut starts = [0u16; 257];
        for (b, slot) in starts.iter_mut().enumerate() {
            let at = words.partition_point(|&(first, ..)| usize::from(first) < b);
            *slot = u16::try_from(at).unwrap_or(u16::MAX);
        }
        Self { words, starts }
    }

    /// Calls `found` with the id and the start of each occurrence of a
    /// keyword in `s`.
    pub(crate) fn find(&self, s: &str, mut found: impl FnMut(usize, usize)) {
        let bytes = s.as_bytes();
        for (i, b) in bytes.iter().enumerate() {
            let b = usize::from(b.to_ascii_lowercase());
            let (Some(&from), Some(&to)) = (self.starts.get(b), self.starts.get(b + 1)) else {
                continue;
            };
            let rest = bytes.get(i..).unwrap_or_default();
            for &(_, id, word) in self
                .words
                .get(usize::from(from)..usize::from(to))
                .unwrap_or_default()
            {
                if rest
                    .get(..word.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(word))
                {
                    found(id, i);
                }
            }
        }
    }
}
