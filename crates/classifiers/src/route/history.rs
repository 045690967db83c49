//! The per-session intent history of ADR-0008: entries `{type, snippet}`
//! with 60-character snippets, and a store that stays bounded per session
//! and across sessions (RC-06).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

use tact_types::{IntentEntry, QueryType};

/// Characters of a message kept in its history snippet.
pub const SNIPPET_CHARS: usize = 60;

/// Most history entries a classifier reads (the last ones) (RC-06).
pub const HISTORY_WINDOW: usize = 6;

/// Default number of sessions a [`HistoryStore`] keeps.
pub const DEFAULT_MAX_SESSIONS: usize = 10_000;

/// Session ids longer than this (in bytes) are stored as a fixed-size hash.
pub const MAX_SESSION_ID_BYTES: usize = 128;

/// The first [`SNIPPET_CHARS`] characters of `message` (leading white
/// space skipped), cut on a character boundary.
pub fn snippet(message: &str) -> &str {
    let t = message.trim_start();
    match t.char_indices().nth(SNIPPET_CHARS) {
        Some((i, _)) => &t[..i],
        None => t,
    }
}

/// A history entry for a classified message: its type and snippet.
pub fn entry(kind: QueryType, message: &str) -> IntentEntry {
    IntentEntry {
        kind,
        snippet: snippet(message).to_owned(),
    }
}

/// The last [`HISTORY_WINDOW`] entries of `history`: all a classifier may
/// read (RC-06).
pub fn window(history: &[IntentEntry]) -> &[IntentEntry] {
    &history[history.len().saturating_sub(HISTORY_WINDOW)..]
}

#[derive(Debug, Default)]
struct Session {
    entries: VecDeque<IntentEntry>,
    tick: u64,
}

#[derive(Debug, Default)]
struct Inner {
    sessions: HashMap<String, Session>,
    /// Least recently used first: tick -> session key.
    order: BTreeMap<u64, String>,
    tick: u64,
}

/// Per-session intent histories, shared across threads (RC-06).
///
/// Each session keeps at most `per_session` entries (the newest), each
/// snippet is at most [`SNIPPET_CHARS`] characters, session ids are at most
/// [`MAX_SESSION_ID_BYTES`] bytes (longer ones are hashed), and at most
/// `max_sessions` sessions are kept: recording into a new session beyond
/// that evicts the least recently used one. Memory is therefore bounded
/// whatever the number of sessions and turns.
///
/// ```
/// use tact_classifiers::route::HistoryStore;
/// use tact_types::QueryType;
///
/// let store = HistoryStore::new();
/// for i in 0..10 {
///     store.record("session-1", QueryType::Retrieval, &format!("question {i}"));
/// }
/// let recent = store.recent("session-1");
/// assert_eq!(recent.len(), 6);
/// assert_eq!(recent[5].snippet, "question 9");
/// ```
#[derive(Debug)]
pub struct HistoryStore {
    inner: Mutex<Inner>,
    per_session: usize,
    max_sessions: usize,
}

impl Default for HistoryStore {
    fn default() -> Self {
        Self::new()
    }
}

impl HistoryStore {
    /// A store keeping [`HISTORY_WINDOW`] entries per session and
    /// [`DEFAULT_MAX_SESSIONS`] sessions.
    pub fn new() -> Self {
        Self::with_limits(HISTORY_WINDOW, DEFAULT_MAX_SESSIONS)
    }

    /// A store with its own limits (each at least 1).
    pub fn with_limits(per_session: usize, max_sessions: usize) -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            per_session: per_session.max(1),
            max_sessions: max_sessions.max(1),
        }
    }

    /// Entries kept per session.
    pub fn per_session(&self) -> usize {
        self.per_session
    }

    /// Sessions kept at most.
    pub fn max_sessions(&self) -> usize {
        self.max_sessions
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the maps in a state
        // that breaks their invariants badly enough to matter: keep going.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a classified message in `session`.
    pub fn record(&self, session: &str, kind: QueryType, message: &str) {
        self.push(session, entry(kind, message));
    }

    /// Appends an entry to `session` (its snippet cut to
    /// [`SNIPPET_CHARS`] characters), dropping the oldest beyond the
    /// per-session bound and evicting the least recently used session
    /// beyond the session bound.
    pub fn push(&self, session: &str, mut item: IntentEntry) {
        let cut = snippet(&item.snippet).len();
        if cut < item.snippet.len() || item.snippet.starts_with(char::is_whitespace) {
            item.snippet = snippet(&item.snippet).to_owned();
        }
        let key = session_key(session);
        let mut inner = self.lock();
        inner.tick += 1;
        let tick = inner.tick;
        let previous_tick = inner.sessions.get(&key).map(|s| s.tick);
        match previous_tick {
            Some(old) => {
                inner.order.remove(&old);
            }
            None => {
                while inner.sessions.len() >= self.max_sessions {
                    let Some((_, oldest)) = inner.order.pop_first() else {
                        break;
                    };
                    inner.sessions.remove(&oldest);
                }
            }
        }
        inner.order.insert(tick, key.clone());
        let s = inner.sessions.entry(key).or_default();
        s.tick = tick;
        s.entries.push_back(item);
        while s.entries.len() > self.per_session {
            s.entries.pop_front();
        }
    }

    /// The last [`HISTORY_WINDOW`] entries of `session`, oldest first
    /// (empty for an unknown session).
    pub fn recent(&self, session: &str) -> Vec<IntentEntry> {
        let key = session_key(session);
        let inner = self.lock();
        inner.sessions.get(&key).map_or_else(Vec::new, |s| {
            let skip = s.entries.len().saturating_sub(HISTORY_WINDOW);
            s.entries.iter().skip(skip).cloned().collect()
        })
    }

    /// Forgets one session.
    pub fn clear(&self, session: &str) {
        let key = session_key(session);
        let mut inner = self.lock();
        if let Some(s) = inner.sessions.remove(&key) {
            inner.order.remove(&s.tick);
        }
    }

    /// Number of sessions kept.
    pub fn session_count(&self) -> usize {
        self.lock().sessions.len()
    }

    /// Number of entries kept across all sessions.
    pub fn entry_count(&self) -> usize {
        self.lock().sessions.values().map(|s| s.entries.len()).sum()
    }

    /// An estimate of the heap bytes the stored sessions use (keys,
    /// entries and snippets, by capacity).
    pub fn approx_bytes(&self) -> usize {
        let inner = self.lock();
        let per_entry = std::mem::size_of::<IntentEntry>();
        inner
            .sessions
            .iter()
            .map(|(k, s)| {
                2 * k.capacity()
                    + std::mem::size_of::<Session>()
                    + s.entries.capacity() * per_entry
                    + s.entries
                        .iter()
                        .map(|e| e.snippet.capacity())
                        .sum::<usize>()
            })
            .sum()
    }
}

/// The stored key of a session id: the id itself when short, else a
/// fixed-size digest of it.
fn session_key(session: &str) -> String {
    if session.len() <= MAX_SESSION_ID_BYTES {
        return session.to_owned();
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    session.hash(&mut h);
    let mut h2 = std::collections::hash_map::DefaultHasher::new();
    (session.len(), session).hash(&mut h2);
    format!("#{:016x}{:016x}", h.finish(), h2.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_cut_on_characters() {
        assert_eq!(snippet("  hi"), "hi");
        let long = "é".repeat(100);
        assert_eq!(snippet(&long).chars().count(), 60);
        assert_eq!(snippet(&long).len(), 120);
        assert_eq!(snippet(""), "");
    }

    #[test]
    fn sessions_are_evicted_least_recently_used_first() {
        let s = HistoryStore::with_limits(2, 2);
        s.record("a", QueryType::Retrieval, "1");
        s.record("b", QueryType::Retrieval, "2");
        s.record("a", QueryType::Platform, "3");
        s.record("c", QueryType::Retrieval, "4");
        assert_eq!(s.session_count(), 2);
        assert!(s.recent("b").is_empty());
        assert_eq!(s.recent("a").len(), 2);
        s.clear("a");
        assert_eq!(s.session_count(), 1);
        let long = "x".repeat(10_000);
        s.record(&long, QueryType::Retrieval, "5");
        assert_eq!(s.recent(&long).len(), 1);
    }
}
