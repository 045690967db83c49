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

/// Checks of the frozen cue sets each task embeds (`models/*.frozen`).
#[cfg(test)]
pub(crate) mod frozen {
    use tact_core::cues::Aligned;
    use tact_core::{CueSet, CueSetBuilder};

    /// A frozen set: its file under `models/`, its tables, its bytes, and
    /// whether its regexes are frozen too ([`CueSetBuilder::freeze`]) or
    /// compiled at start ([`CueSetBuilder::freeze_literals`]).
    pub(crate) type Frozen = (
        &'static str,
        fn() -> CueSetBuilder,
        &'static Aligned<[u8]>,
        bool,
    );

    /// Each set's bytes are those its tables freeze to, and read without
    /// compiling; with `TACT_FREEZE` set, stale files are rewritten (the
    /// test still fails: build and test again).
    pub(crate) fn are_the_tables(sets: &[Frozen]) {
        let mut stale = Vec::new();
        for &(file, tables, frozen, dfas) in sets {
            let fresh = if dfas {
                tables().freeze()
            } else {
                tables().freeze_literals()
            }
            .unwrap();
            if fresh == frozen.bytes {
                assert!(tables().thaw(&frozen.bytes).is_ok(), "{file}");
                continue;
            }
            if std::env::var_os("TACT_FREEZE").is_some() {
                let path = format!("{}/models/{file}", env!("CARGO_MANIFEST_DIR"));
                std::fs::write(&path, &fresh).unwrap();
            }
            stale.push(file);
        }
        assert!(
            stale.is_empty(),
            "models/{stale:?} are not the cue tables': run \
             `TACT_FREEZE=1 cargo test -p tact-classifiers frozen` (which writes them), then test again"
        );
    }

    /// Each frozen set finds what the compiled one finds, cue by cue and
    /// span by span, on the `fields` of every item of `task`'s `splits`
    /// (normalized, and with `head` applied, as the classifier reads them).
    pub(crate) fn match_as_compiled(
        sets: &[Frozen],
        task: &str,
        splits: &[&str],
        fields: &[&str],
        head: fn(&str) -> String,
    ) {
        let sets: Vec<(CueSet, CueSet)> = sets
            .iter()
            .map(|(_, tables, frozen, _)| {
                (
                    tables().thaw(&frozen.bytes).unwrap(),
                    tables().build().unwrap(),
                )
            })
            .collect();
        let dir = format!("{}/../../fixtures/{task}", env!("CARGO_MANIFEST_DIR"));
        let mut texts = 0;
        for split in splits {
            let lines = std::fs::read_to_string(format!("{dir}/{split}.jsonl")).unwrap();
            for line in lines.lines().filter(|l| !l.trim().is_empty()) {
                let item: serde_json::Value = serde_json::from_str(line).unwrap();
                for field in fields {
                    let Some(text) = item.get(*field).and_then(|v| v.as_str()) else {
                        continue;
                    };
                    let n = tact_core::normalize(text);
                    for t in [n.clone(), head(&n)] {
                        for (frozen, compiled) in &sets {
                            assert_eq!(frozen.hits(&t), compiled.hits(&t), "{split}: {text}");
                        }
                    }
                    texts += 1;
                }
            }
        }
        assert!(texts > 1000, "{texts}");
    }
}
