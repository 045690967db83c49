//! The main job's configuration document: `[ppp]` (consensus weights,
//! reward profile, normalization), `[user_preferences]` (preferences for
//! sessions that state none) and `[llm]` (the model-backed tier), nothing
//! else (`docs/configuration.md`).

use std::path::Path;

use serde::Deserialize;
use tact_consensus::PppConfig;
use tact_scoring::UserPreferences;

use crate::{Error, Result};

/// The configuration of a [`Job`](super::Job): the document `tact run
/// --config` reads. A misspelt table or key is an error, not a silent
/// default.
///
/// ```
/// let config = tact::job::Config::from_toml(
///     "[ppp]\nnormalize = \"linear\"\n[user_preferences]\nformat = [\"commas\"]\n",
///     "tact.toml",
/// )?;
/// assert_eq!(config.ppp.normalize, "linear");
/// assert!(tact::job::Config::from_toml("[pp]\n", "tact.toml").is_err());
/// # Ok::<(), tact::Error>(())
/// ```
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Config {
    /// Consensus weights (global and per stage), reward profile,
    /// normalization; `enabled = false` for the legacy consensus.
    #[serde(default)]
    pub ppp: PppConfig,
    /// Preferences for sessions that state none.
    #[serde(default)]
    pub user_preferences: Option<UserPreferences>,
    /// What imported agent logs do not carry (spec, stage, agent, run,
    /// outcome, preferences), for every log (`docs/import.md`).
    #[serde(default)]
    pub import: Option<crate::import::ImportDefaults>,
    /// Where `tact run` and `tact report` store (`[store] url`), under
    /// `--db` and `TACT_DB`.
    #[serde(default)]
    pub store: Option<StoreConfig>,
    /// The model-backed tier's settings (used when the host or `tact run
    /// --llm` turns the tier on; the environment goes over them).
    #[cfg(feature = "llm")]
    #[serde(default)]
    pub llm: Option<tact_llm::LlmConfig>,
    /// The `[llm]` table, accepted and unread without the `llm` feature.
    #[cfg(not(feature = "llm"))]
    #[serde(default)]
    pub llm: Option<toml::Table>,
}

/// The `[store]` table: where the trajectory store lives.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct StoreConfig {
    /// A path, `sqlite://PATH`, or a PostgreSQL URL (`postgres://` /
    /// `postgresql://`, or libpq's key=value form); `--db` and `TACT_DB`
    /// go over it.
    #[serde(default)]
    pub url: Option<String>,
}

impl Config {
    /// A configuration of these tables (validated when the job is built).
    pub fn new(ppp: PppConfig, user_preferences: Option<UserPreferences>) -> Self {
        Config {
            ppp,
            user_preferences,
            import: None,
            store: None,
            llm: None,
        }
    }

    /// Reads and validates a configuration file (a regular file, read
    /// within `tact_core::input`'s limit).
    pub fn read(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = tact_core::dataset::read_text(path)?;
        Self::from_toml(&text, &path.display().to_string())
    }

    /// Parses and validates a configuration; `source_name` names it in errors.
    pub fn from_toml(text: &str, source_name: &str) -> Result<Self> {
        let config: Config = toml::from_str(text).map_err(|source| Error::Config {
            source_name: source_name.to_owned(),
            source,
        })?;
        config.validate(source_name)?;
        Ok(config)
    }

    /// Checks both tables; `source_name` names the document in errors.
    pub fn validate(&self, source_name: &str) -> Result<()> {
        self.ppp.validate().map_err(|source| Error::Ppp {
            source_name: source_name.to_owned(),
            source,
        })?;
        if let Some(p) = &self.user_preferences {
            p.validate().map_err(|source| Error::UserPreferences {
                source_name: source_name.to_owned(),
                source,
            })?;
        }
        #[cfg(feature = "llm")]
        if let Some(l) = &self.llm {
            l.validate().map_err(|source| Error::Llm {
                source_name: source_name.to_owned(),
                source,
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::chain;

    #[test]
    fn config_rejects_unknown_tables_and_bad_values() {
        let ok = Config::from_toml(
            "[ppp]\nnormalize = \"linear\"\n[user_preferences]\nformat = [\"commas\"]\n",
            "t.toml",
        )
        .unwrap();
        assert_eq!(ok.ppp.normalize, "linear");
        for (text, needle) in [
            ("[pp]\nenabled = true\n", "unknown field `pp`"),
            ("[ppp]\ntechnical_weight = 0.9\n", "sum to 1.2"),
            (
                "[user_preferences]\nformat = [\"snippet\"]\n",
                "list it under `content`",
            ),
        ] {
            let e = chain(&Config::from_toml(text, "t.toml").unwrap_err());
            assert!(e.contains("t.toml") && e.contains(needle), "{e}");
        }
    }

    #[test]
    fn a_missing_file_names_it() {
        let e = Config::read("/nonexistent/tact.toml").unwrap_err();
        assert!(matches!(e, Error::Core(tact_core::Error::Io { .. })));
        assert_eq!(e.to_string(), "cannot read /nonexistent/tact.toml");
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_refused_by_type() {
        let e = Config::read("/dev/zero").unwrap_err().to_string();
        assert_eq!(e, "/dev/zero: not a regular file (a character device)");
    }
}
