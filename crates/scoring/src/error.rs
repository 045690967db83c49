//! The error type of `tact-scoring`.

use std::path::PathBuf;

/// Everything that can go wrong when loading preferences or sessions, or
/// building a scorer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A preference name outside the PPP set.
    #[error("unknown preference `{found}` (expected one of: {expected})")]
    UnknownPreference {
        /// The name that was given.
        found: String,
        /// The known names, comma separated.
        expected: String,
    },
    /// A session-level or judged preference given to a text-level check.
    #[error("`{preference}` is {kind}, not checked on one message")]
    NotTextLevel {
        /// The preference.
        preference: &'static str,
        /// How it is checked instead.
        kind: &'static str,
    },
    /// A profile name other than `spec`, `paper` or `paper-code`.
    #[error("unknown profile `{0}` (expected one of: spec, paper, paper-code)")]
    UnknownProfile(String),
    /// A preference listed under the wrong key of `[user_preferences]`.
    #[error(
        "`{preference}` is a {category} preference: list it under `{expected_key}`, not `{key}`"
    )]
    MisplacedPreference {
        /// The preference.
        preference: String,
        /// Its category.
        category: &'static str,
        /// The key it was listed under.
        key: &'static str,
        /// The key it belongs under.
        expected_key: &'static str,
    },
    /// A language this crate cannot check.
    #[error("unsupported language `{0}` (expected one of: it, multi, en)")]
    UnsupportedLanguage(String),
    /// A TOML document that does not parse or has the wrong shape.
    #[error("invalid TOML{}: {message}", source_name.as_deref().map(|s| format!(" in {s}")).unwrap_or_default())]
    Toml {
        /// The file, when known.
        source_name: Option<String>,
        /// What the TOML parser said (with line and column).
        message: String,
    },
    /// A session that does not parse or breaks a constraint of the format.
    #[error("invalid session{}: {message}", source_name.as_deref().map(|s| format!(" {s}")).unwrap_or_default())]
    Session {
        /// The file, when known.
        source_name: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// A weight of the `paper` or `paper-code` profile that is not a finite,
    /// non-negative number.
    #[error("invalid {name} weight {value}: it must be a finite number >= 0")]
    InvalidWeight {
        /// `cost_w` or `pref_w`.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// A file could not be read; the I/O error is its `source`, not part
    /// of its message, so a chain printed with its causes says it once.
    #[error("cannot read {}", path.display())]
    Io {
        /// The path that failed.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// The effort classifier or a pattern failed to build.
    #[error(transparent)]
    Classifier(#[from] tact_classifiers::Error),
    /// A judge failed (timeout, unparseable answer...): the preference is
    /// reported as not judged.
    #[error("judge failed: {0}")]
    Judge(String),
    /// A checker pattern failed to compile (a bug in a pattern table).
    #[error("invalid checker pattern: {0}")]
    Pattern(String),
}
