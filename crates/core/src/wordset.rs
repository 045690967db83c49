//! A fixed set of words with a membership test of one hash and about one
//! probe: the word lists the classifiers consult per call (terse-proposal
//! verbs, stop words), faster than a binary search of string comparisons.

/// A fixed set of words, built once. Membership is exact (byte equality);
/// the hash only picks where to look.
///
/// ```
/// use tact_core::WordSet;
///
/// let verbs = WordSet::new(["add", "merge", "ship"]);
/// assert!(verbs.contains("merge"));
/// assert!(!verbs.contains("merged"));
/// assert!(!verbs.contains(""));
/// ```
#[derive(Debug, Clone)]
pub struct WordSet {
    /// Open addressing with linear probing; `None` is an empty slot.
    slots: Box<[Option<Slot>]>,
    mask: usize,
    len: usize,
}

/// A filled slot: the word's hash and the word.
type Slot = (u64, Box<str>);

impl WordSet {
    /// A set of `words` (duplicates kept once).
    pub fn new<I, S>(words: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let words: Vec<S> = words.into_iter().collect();
        // At most half full, so probes stay short.
        let cap = (words.len() * 2).next_power_of_two().max(8);
        let mut set = Self {
            slots: vec![None; cap].into_boxed_slice(),
            mask: cap - 1,
            len: 0,
        };
        for w in &words {
            set.insert(w.as_ref());
        }
        set
    }

    fn insert(&mut self, word: &str) {
        if self.contains(word) {
            return;
        }
        let h = hash(word.as_bytes());
        let mut i = (h as usize) & self.mask;
        while let Some(Some(_)) = self.slots.get(i) {
            i = (i + 1) & self.mask;
        }
        if let Some(slot) = self.slots.get_mut(i) {
            *slot = Some((h, word.into()));
            self.len += 1;
        }
    }

    /// Whether `word` is in the set.
    pub fn contains(&self, word: &str) -> bool {
        let h = hash(word.as_bytes());
        let mut i = (h as usize) & self.mask;
        // The table is never full, so the probe meets an empty slot.
        while let Some(Some((sh, sw))) = self.slots.get(i) {
            if *sh == h && **sw == *word {
                return true;
            }
            i = (i + 1) & self.mask;
        }
        false
    }

    /// Number of distinct words.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the set has no word.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A fast hash of a short byte string: eight bytes per multiply.
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    for chunk in bytes.chunks(8) {
        let mut k = [0u8; 8];
        k[..chunk.len()].copy_from_slice(chunk);
        h = (h ^ u64::from_le_bytes(k)).wrapping_mul(K);
        h ^= h >> 29;
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn membership_is_exact() {
        let list = ["a", "ab", "abc", "abcdefgh", "abcdefghi", "über", "", "ab"];
        let set = WordSet::new(list);
        assert_eq!(set.len(), 7);
        for w in list {
            assert!(set.contains(w), "{w}");
        }
        for w in ["b", "abcd", "abcdefg", "abcdefghij", "uber", "A", "ab "] {
            assert!(!set.contains(w), "{w}");
        }
        assert!(WordSet::new(Vec::<&str>::new()).is_empty());
        assert!(!WordSet::new(Vec::<&str>::new()).contains("x"));
    }

    proptest! {
        #[test]
        fn agrees_with_a_sorted_list(
            words in proptest::collection::vec("[a-c]{0,10}", 0..60),
            probe in "[a-c]{0,10}",
        ) {
            let set = WordSet::new(&words);
            let mut sorted = words.clone();
            sorted.sort();
            sorted.dedup();
            prop_assert_eq!(set.len(), sorted.len());
            prop_assert_eq!(set.contains(&probe), sorted.binary_search(&probe).is_ok());
        }
    }
}
