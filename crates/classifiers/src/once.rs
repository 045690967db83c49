//! Cue sets built once per process, the first time a classifier needs
//! them: every classifier of a task shares them, and a command builds only
//! the sets of the tasks it runs (`tact effort` builds nothing of routing).

use std::sync::OnceLock;

use tact_core::CueSet;

use crate::Error;

/// A cue set of the process, built by `build` on first use; a build that
/// failed (a bug in a cue table) fails every use with its message.
pub(crate) fn shared(
    cell: &'static OnceLock<Result<CueSet, String>>,
    build: fn() -> Result<CueSet, Error>,
) -> Result<&'static CueSet, Error> {
    cell.get_or_init(|| build().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|message| {
            Error::Core(tact_core::Error::Pattern {
                pattern: "<built-in cues>".into(),
                message: message.clone(),
            })
        })
}

/// A cue set needed by few texts (Italian questions, rare cues): built on
/// first use; `None`, after one logged error, if it failed to build, so
/// the classifier goes on without it (fail open).
pub(crate) fn lazy(
    cell: &'static OnceLock<Result<CueSet, String>>,
    build: fn() -> Result<CueSet, Error>,
) -> Option<&'static CueSet> {
    let first = cell.get().is_none();
    match shared(cell, build) {
        Ok(set) => Some(set),
        Err(e) => {
            if first {
                tracing::error!(error = %e, "a built-in cue set failed to build");
            }
            None
        }
    }
}
