//! The error type of `tact`: every library crate's error converts into it,
//! and the main job's own fatal problems have a variant each.
//!
//! The main job's variants keep their cause in [`std::error::Error::source`]
//! and out of their message, so a chain printed with its sources (as
//! `anyhow`'s `{:#}` does) names each cause once.

use std::path::PathBuf;

/// Everything that can go wrong in `tact`. Problems with one session are not
/// errors: the main job returns them in its report (`job::SessionError`)
/// and goes on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or folder could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The path that failed.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// The folder of the trajectory database could not be created.
    #[error("cannot create {}", path.display())]
    CreateDir {
        /// The folder.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// A configuration document is not valid TOML, or has a table or key
    /// the job does not know (a misspelt table is an error, not a default).
    #[error("invalid configuration {source_name}")]
    Config {
        /// The file (or source name) of the document.
        source_name: String,
        /// What the TOML parser said (with line and column).
        source: toml::de::Error,
    },
    /// The `[ppp]` table of a configuration is not valid.
    #[error("invalid [ppp] in {source_name}")]
    Ppp {
        /// The file (or source name) of the document.
        source_name: String,
        /// Why the table was rejected.
        source: tact_consensus::Error,
    },
    /// The `[user_preferences]` table of a configuration is not valid.
    #[error("invalid [user_preferences] in {source_name}")]
    UserPreferences {
        /// The file (or source name) of the document.
        source_name: String,
        /// Why the table was rejected.
        source: tact_scoring::Error,
    },
    /// The `[llm]` table of a configuration is not valid.
    #[cfg(feature = "llm")]
    #[error("invalid [llm] in {source_name}")]
    Llm {
        /// The file (or source name) of the document.
        source_name: String,
        /// Why the table was rejected.
        source: tact_llm::Error,
    },
    /// The path handed to the job holds no session file.
    #[error("{}: no session files (.json, .jsonl) found", path.display())]
    NoSessionFiles {
        /// The folder that was walked.
        path: PathBuf,
    },
    /// A job was built with neither a database path nor an open store.
    #[error(
        "no trajectory database: give the job one with `JobBuilder::db` or `JobBuilder::store`"
    )]
    NoStore,
    /// From `tact-types` (parsing a label).
    #[error(transparent)]
    Types(#[from] tact_types::Error),
    /// From the text engine (`tact-core`).
    #[error(transparent)]
    Core(#[from] tact_core::Error),
    /// From the classifiers (building one, reading a model).
    #[error(transparent)]
    Classifiers(#[from] tact_classifiers::Error),
    /// From scoring (preferences, sessions, profiles).
    #[error(transparent)]
    Scoring(#[from] tact_scoring::Error),
    /// From consensus (weights, stages, a group that cannot be ranked).
    #[error(transparent)]
    Consensus(#[from] tact_consensus::Error),
    /// From the trajectory store.
    #[cfg(feature = "store")]
    #[error(transparent)]
    Store(#[from] tact_trajectory_store::Error),
}

/// The message and its sources joined by ": ", as `anyhow` prints `{:#}`
/// (for the crate's tests).
#[cfg(test)]
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut next = e.source();
    while let Some(cause) = next {
        s.push_str(": ");
        s.push_str(&cause.to_string());
        next = cause.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_are_sources_not_repeated_in_the_message() {
        let e = Error::Read {
            path: "a/b.toml".into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "gone"),
        };
        assert_eq!(e.to_string(), "cannot read a/b.toml");
        assert_eq!(chain(&e), "cannot read a/b.toml: gone");
        let e = Error::from(tact_consensus::Error::Empty);
        assert_eq!(chain(&e), tact_consensus::Error::Empty.to_string());
    }
}
