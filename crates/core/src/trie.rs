//! [`Trie`]: the literals of a cue set as a byte trie, walked anchored at
//! the positions where a literal may start. An Aho-Corasick automaton
//! does the same walk, but builds failure transitions that an anchored
//! walk never takes: for the effort cues they were two thirds of the
//! automaton's build, and the build was most of what a one-question
//! command spent. The trie builds in one pass over the literals' bytes.

/// A state of the walk.
pub(crate) type State = u32;

/// No transition: the walk is over.
pub(crate) const DEAD: State = u32::MAX;

/// No pattern ends at a node.
const NONE: u32 = u32::MAX;

/// A byte trie over patterns; each node knows the first pattern (lowest
/// index) that ends there.
#[derive(Debug, Clone)]
pub(crate) struct Trie {
    /// The root's transitions, one per byte.
    pub(crate) root: Box<[State; 256]>,
    /// Per node: its children's range in `edges` (start, end).
    pub(crate) spans: Vec<(u32, u32)>,
    /// Children of every node, each node's sorted by byte.
    pub(crate) edges: Vec<(u8, State)>,
    /// Per node: the first pattern ending there, or [`NONE`].
    pub(crate) ends: Vec<u32>,
}

impl Trie {
    /// The trie of `patterns` (empty patterns are ignored: the walk never
    /// reports a match before its first byte).
    pub(crate) fn new<'p>(patterns: impl IntoIterator<Item = &'p str>) -> Self {
        // Build with each node's children as a linked list of siblings (no
        // allocation per node), then flatten them sorted.
        #[derive(Clone, Copy)]
        struct Build {
            byte: u8,
            first_child: u32,
            next_sibling: u32,
        }
        let mut nodes = vec![Build {
            byte: 0,
            first_child: NONE,
            next_sibling: NONE,
        }];
        let mut ends: Vec<u32> = vec![NONE];
        for (pid, p) in patterns.into_iter().enumerate() {
            let pid = u32::try_from(pid).unwrap_or(NONE);
            let mut node = 0usize;
            for &b in p.as_bytes() {
                let mut child = nodes.get(node).map_or(NONE, |n| n.first_child);
                while child != NONE {
                    match nodes.get(child as usize) {
                        Some(c) if c.byte == b => break,
                        Some(c) => child = c.next_sibling,
                        None => child = NONE,
                    }
                }
                if child == NONE {
                    child = u32::try_from(nodes.len()).unwrap_or(NONE);
                    let sibling = nodes.get(node).map_or(NONE, |n| n.first_child);
                    nodes.push(Build {
                        byte: b,
                        first_child: NONE,
                        next_sibling: sibling,
                    });
                    ends.push(NONE);
                    if let Some(n) = nodes.get_mut(node) {
                        n.first_child = child;
                    }
                }
                node = child as usize;
            }
            if node != 0 {
                if let Some(e) = ends.get_mut(node) {
                    if *e == NONE {
                        *e = pid;
                    }
                }
            }
        }
        let mut root = Box::new([DEAD; 256]);
        let mut spans = Vec::with_capacity(nodes.len());
        let mut edges: Vec<(u8, State)> = Vec::with_capacity(nodes.len());
        for (n, node) in nodes.iter().enumerate() {
            let start = edges.len();
            let mut child = node.first_child;
            while let Some(c) = nodes.get(child as usize) {
                edges.push((c.byte, child));
                child = c.next_sibling;
            }
            let kids = edges.get_mut(start..).unwrap_or_default();
            kids.sort_unstable_by_key(|&(b, _)| b);
            if n == 0 {
                for &(b, s) in kids.iter() {
                    root[usize::from(b)] = s;
                }
            }
            spans.push((
                u32::try_from(start).unwrap_or(u32::MAX),
                u32::try_from(edges.len()).unwrap_or(u32::MAX),
            ));
        }
        Self {
            root,
            spans,
            edges,
            ends,
        }
    }

    /// The state after `byte` from `state` (the root is state 0), or
    /// [`DEAD`].
    #[inline]
    pub(crate) fn next(&self, state: State, byte: u8) -> State {
        if state == 0 {
            return self.root[usize::from(byte)];
        }
        let Some(&(start, end)) = self.spans.get(state as usize) else {
            return DEAD;
        };
        let Some(children) = self.edges.get(start as usize..end as usize) else {
            return DEAD;
        };
        if children.len() <= 8 {
            children
                .iter()
                .find(|(b, _)| *b == byte)
                .map_or(DEAD, |&(_, s)| s)
        } else {
            children
                .binary_search_by_key(&byte, |&(b, _)| b)
                .ok()
                .and_then(|i| children.get(i))
                .map_or(DEAD, |&(_, s)| s)
        }
    }

    /// The first pattern that ends at `state`, if any.
    #[inline]
    pub(crate) fn pattern(&self, state: State) -> Option<usize> {
        self.ends
            .get(state as usize)
            .copied()
            .filter(|&p| p != NONE)
            .map(|p| p as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(t: &Trie, text: &str) -> Vec<(usize, usize)> {
        let mut s = 0;
        let mut out = Vec::new();
        for (i, &b) in text.as_bytes().iter().enumerate() {
            s = t.next(s, b);
            if s == DEAD {
                break;
            }
            if let Some(p) = t.pattern(s) {
                out.push((p, i + 1));
            }
        }
        out
    }

    #[test]
    fn every_prefix_pattern_is_reported_in_order_and_duplicates_keep_the_first() {
        let t = Trie::new(["the", "the code", "the codebase", "to", "the", ""]);
        assert_eq!(walk(&t, "the codebase!"), [(0, 3), (1, 8), (2, 12)]);
        assert_eq!(walk(&t, "tx"), []);
        assert_eq!(walk(&t, "to be"), [(3, 2)]);
        assert_eq!(walk(&t, ""), []);
    }

    #[test]
    fn wide_nodes_are_searched_like_narrow_ones() {
        let words: Vec<String> = (b'a'..=b'z').map(|c| format!("x{}", c as char)).collect();
        let t = Trie::new(words.iter().map(String::as_str));
        for (i, w) in words.iter().enumerate() {
            assert_eq!(walk(&t, w), [(i, 2)]);
        }
        assert_eq!(walk(&t, "x!"), []);
    }
}
