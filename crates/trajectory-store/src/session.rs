//! A session written in pieces inside its one transaction
//! ([`SessionWriter`]): its turns, tool calls and guidance fires are
//! prepared (redacted) as they are given and written in batches, so a
//! writer holds at most one batch, whatever the session's size; the key,
//! stage and score come last, with [`SessionWriter::finish`], which
//! replaces a stored session of that key and commits. Dropped unfinished,
//! the transaction is rolled back: nothing half-written.
//!
//! The transaction begins with the first batch. A session that fits in
//! one batch begins as it is finished, its key known: the key's lock, the
//! old session's delete and its row, then its rows (as a whole-session
//! ingest did; the database's write lock held only then). A larger one's
//! rows hang on a placeholder trajectory row (key `(U+001A, U+001A,
//! U+001A pending)`, on PostgreSQL with the connection's process id) until
//! `finish` gives it its key, after the key's lock and the old session's
//! delete. On SQLite such a session holds the database's write lock from
//! its first batch to its finish (other writers wait, up to
//! [`BUSY_TIMEOUT`](crate::BUSY_TIMEOUT)); on PostgreSQL writers of other
//! keys never wait on it.
//! [`Store::ingest`](crate::Store::ingest) is `finish` on a fresh writer.

use std::borrow::BorrowMut;

use tact_secrets::CredentialScanner;

use crate::Error;
use crate::model::{GuidanceFireRecord, SessionRecord, ToolCallRecord, TurnRecord};
use crate::prepare::{self, Finish, Pieces};
use crate::store::Store;

/// A session being written in pieces into a [`Store`] (borrowed, or
/// owned: `S` is `&mut Store` or `Store`), inside one transaction.
///
/// ```
/// use tact_trajectory_store::{SessionRecord, Store, ToolCallRecord, TurnRecord};
///
/// let mut store = Store::open_in_memory()?;
/// let mut writer = store.session();
/// for n in 0..3 {
///     writer.turn(&TurnRecord { number: n, prompt: format!("step {n}"), ..TurnRecord::default() })?;
///     writer.tool_call(&ToolCallRecord {
///         position: n, step: None, name: "shell".into(),
///         params: serde_json::json!({"command": "ls"}), ok: true, output_chars: 10,
///     })?;
/// }
/// let summary = SessionRecord {
///     spec_id: "SPEC-1".into(), agent: "claude".into(), run_id: "r1".into(),
///     ..SessionRecord::default()
/// };
/// writer.finish(&summary)?;
/// drop(writer);
/// let stored = store.load("SPEC-1", "claude", "r1")?.expect("stored");
/// assert_eq!((stored.session.turns.len(), stored.session.tool_calls.len()), (3, 3));
/// # Ok::<(), tact_trajectory_store::Error>(())
/// ```
#[derive(Debug)]
pub struct SessionWriter<S: BorrowMut<Store>> {
    /// `None` only once taken back by [`into_inner`](Self::into_inner).
    store: Option<S>,
    scanner: CredentialScanner,
    pending: PendingRows,
    /// The placeholder trajectory's id once the transaction has begun.
    id: Option<i64>,
    /// A piece failed: the transaction is rolled back, and `finish` says so.
    failed: Option<String>,
    finished: bool,
}

/// [`Pieces`] with a `Debug` that does not print rows.
#[derive(Default)]
struct PendingRows(Pieces);

impl std::fmt::Debug for PendingRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PendingRows")
    }
}

impl<S: BorrowMut<Store>> SessionWriter<S> {
    /// A writer for one session into `store`; nothing is sent until the
    /// first batch is full or the session is finished.
    pub fn new(store: S) -> Self {
        let scanner = store.borrow().scanner().clone();
        SessionWriter {
            store: Some(store),
            scanner,
            pending: PendingRows::default(),
            id: None,
            failed: None,
            finished: false,
        }
    }

    /// The store written into.
    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref().map(|s| s.borrow())
    }

    /// Adds a turn (its questions and violations with it), redacted.
    pub fn turn(&mut self, turn: &TurnRecord) -> Result<(), Error> {
        let row = self.guard(|scanner| prepare::turn(scanner, turn))?;
        self.pending.0.push_turn(row);
        self.flush_if_full()
    }

    /// Adds a tool call, its params redacted.
    pub fn tool_call(&mut self, call: &ToolCallRecord) -> Result<(), Error> {
        let row = self.guard(|scanner| prepare::tool_call(scanner, call))?;
        self.pending.0.push_tool_call(row);
        self.flush_if_full()
    }

    /// Adds a guidance fire, its reason redacted.
    pub fn guidance(&mut self, fire: &GuidanceFireRecord) -> Result<(), Error> {
        let row = self.guard(|scanner| prepare::guidance(scanner, fire))?;
        self.pending.0.push_guidance(row);
        self.flush_if_full()
    }

    /// Finishes the session: `summary`'s own turns, tool calls and guidance
    /// fires are added to those given before, the session stored under its
    /// key (`spec_id`, `agent`, `run_id`; a stored session of that key is
    /// replaced, its rows all removed) with its stage, time and score, and
    /// the transaction committed. Returns the trajectory's id. On any
    /// error (or after a piece failed), nothing of the session is written.
    pub fn finish(&mut self, summary: &SessionRecord) -> Result<i64, Error> {
        let result = self.finish_inner(summary);
        self.finished = true;
        result.map_err(|e| {
            self.rollback();
            Error::Ingest {
                spec_id: summary.spec_id.clone(),
                agent: summary.agent.clone(),
                run_id: summary.run_id.clone(),
                source: Box::new(e),
            }
        })
    }

    fn finish_inner(&mut self, summary: &SessionRecord) -> Result<i64, Error> {
        if self.finished {
            return Err(Error::Session("finished already".into()));
        }
        if let Some(failed) = &self.failed {
            return Err(Error::Session(format!("an earlier piece failed: {failed}")));
        }
        prepare::pieces_into(&self.scanner, summary, &mut self.pending.0)?;
        let header = prepare::header(summary);
        let score = summary.score.as_ref().map(prepare::score);
        // A session of one batch begins here, its key known: written with
        // it at once (the old session's rows removed first), no placeholder.
        let (id, keyed) = match self.id {
            Some(id) => (id, false),
            None => {
                let id = backend(&mut self.store)?.session_begin(Some(&header))?;
                self.id = Some(id);
                (id, true)
            }
        };
        backend(&mut self.store)?.session_finish(&Finish {
            id,
            pieces: &self.pending.0,
            header: &header,
            score: score.as_ref(),
            keyed,
        })?;
        self.id = None;
        self.pending.0 = Pieces::default();
        Ok(id)
    }

    /// The store back; an unfinished session is rolled back.
    pub fn into_inner(mut self) -> Option<S> {
        self.rollback();
        self.store.take()
    }

    /// The placeholder's id, the transaction begun first if need be.
    fn begun(&mut self) -> Result<i64, Error> {
        if let Some(id) = self.id {
            return Ok(id);
        }
        let id = backend(&mut self.store)?.session_begin(None)?;
        self.id = Some(id);
        Ok(id)
    }

    /// Prepares a piece; a failure rolls the session back.
    fn guard<T>(
        &mut self,
        prepare: impl FnOnce(&CredentialScanner) -> Result<T, Error>,
    ) -> Result<T, Error> {
        if self.finished {
            return Err(Error::Session("finished already".into()));
        }
        prepare(&self.scanner).inspect_err(|e| self.fail(e))
    }

    fn fail(&mut self, e: &Error) {
        if self.failed.is_none() {
            self.failed = Some(e.to_string());
        }
        self.rollback();
        self.pending.0 = Pieces::default();
    }

    fn flush_if_full(&mut self) -> Result<(), Error> {
        if !self.pending.0.full() {
            return Ok(());
        }
        let written = self
            .begun()
            .and_then(|id| backend(&mut self.store)?.session_write(id, &self.pending.0));
        match written {
            Ok(()) => {
                self.pending.0.clear();
                Ok(())
            }
            Err(e) => {
                self.fail(&e);
                Err(e)
            }
        }
    }

    fn rollback(&mut self) {
        if self.id.take().is_some() {
            if let Ok(store) = backend(&mut self.store) {
                store.session_rollback();
            }
        }
    }
}

impl<S: BorrowMut<Store>> Drop for SessionWriter<S> {
    fn drop(&mut self) {
        self.rollback();
    }
}

fn backend<S: BorrowMut<Store>>(store: &mut Option<S>) -> Result<&mut Store, Error> {
    store
        .as_mut()
        .map(BorrowMut::borrow_mut)
        .ok_or_else(|| Error::Session("the writer has no store".into()))
}
