//! [`JobBuilder`]: a [`Job`]'s configuration, stage filter, reward
//! profile or judge, limits and database, checked once when it is built.

use std::path::PathBuf;
use std::sync::Arc;

use tact_consensus::{Consensus, PppConfig};
use tact_scoring::{Judge, Profile, Scorer, UserPreferences};
use tact_trajectory_store::{Location, Store};

use super::{Config, Job, Limits, Storage};
use crate::import::{Format, ImportDefaults};
use crate::{Error, Result};

/// Builds a [`Job`]: its configuration, stage filter, reward profile or
/// judge, and database.
#[derive(Default)]
#[must_use]
pub struct JobBuilder {
    config: Config,
    stage: Option<String>,
    profile: Option<Profile>,
    judge: Option<Arc<dyn Judge>>,
    effort: Option<tact_classifiers::effort::EffortClassifier>,
    storage: Option<Storage>,
    limits: Limits,
    format: Option<Format>,
    import: ImportDefaults,
}

impl std::fmt::Debug for JobBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobBuilder")
            .field("config", &self.config)
            .field("stage", &self.stage)
            .field("profile", &self.profile)
            .field("judge", &self.judge.is_some())
            .field("effort", &self.effort)
            .field("storage", &self.storage)
            .field("limits", &self.limits)
            .field("format", &self.format)
            .field("import", &self.import)
            .finish()
    }
}

impl JobBuilder {
    /// Reads every log as this agent format (`--format`), instead of
    /// detecting each file's format by its content; files whose extension
    /// the format does not use are read as before.
    pub fn format(mut self, format: Format) -> Self {
        self.format = Some(format);
        self
    }

    /// What imported logs do not carry (spec, stage, agent, run, outcome,
    /// preferences), over the configuration's `[import]` table; a log's
    /// sidecar (`LOG.tact.toml`) overrides both.
    pub fn import_defaults(mut self, defaults: ImportDefaults) -> Self {
        self.import = defaults;
        self
    }

    /// The whole configuration (`[ppp]` and `[user_preferences]`).
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// The `[ppp]` table: consensus weights, profile, normalization.
    pub fn ppp(mut self, ppp: PppConfig) -> Self {
        self.config.ppp = ppp;
        self
    }

    /// Preferences for sessions that state none.
    pub fn user_preferences(mut self, preferences: UserPreferences) -> Self {
        self.config.user_preferences = Some(preferences);
        self
    }

    /// Only sessions of this stage: sessions with no stage are taken as
    /// this stage, sessions of other stages are left out (counted in
    /// [`Report::other_stages`](super::Report::other_stages)).
    pub fn stage(mut self, stage: impl Into<String>) -> Self {
        self.stage = Some(stage.into());
        self
    }

    /// The reward profile, in place of `[ppp] profile` (the normalization
    /// ceiling follows it).
    pub fn profile(mut self, profile: Profile) -> Self {
        self.profile = Some(profile);
        self
    }

    /// A judge for the preferences no rule checks (reported "not judged"
    /// without one).
    pub fn judge(mut self, judge: Arc<dyn Judge>) -> Self {
        self.judge = Some(judge);
        self
    }

    /// The effort classifier of the questions found in responses (default:
    /// the default [`EffortClassifier`](tact_classifiers::effort::EffortClassifier));
    /// say, one with a model-backed tier.
    pub fn effort(mut self, effort: tact_classifiers::effort::EffortClassifier) -> Self {
        self.effort = Some(effort);
        self
    }

    /// The input limits (largest session read, largest response analysed,
    /// most questions kept per response); [`Limits::default`] without.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The database file, created (with its folder) on the job's first run.
    pub fn db(mut self, path: impl Into<PathBuf>) -> Self {
        self.storage = Some(Storage::At(Location::Sqlite(path.into())));
        self
    }

    /// The database at a [`Location`] (`Location::parse` reads `--db`:
    /// a path, `sqlite://`, `postgres://`...), opened on the job's first
    /// run: a SQLite file is created with its folder; a PostgreSQL
    /// location never touches the file system.
    pub fn database(mut self, location: Location) -> Self {
        self.storage = Some(Storage::At(location));
        self
    }

    /// A store already open (say [`Store::open_in_memory`]); get it back
    /// with [`Job::into_store`].
    pub fn store(mut self, store: Store) -> Self {
        self.storage = Some(Storage::Open(store));
        self
    }

    /// Validates the configuration and the stage, and builds the scorer and
    /// the consensus. Fails without a database ([`Error::NoStore`]).
    pub fn build(self) -> Result<Job> {
        let storage = self.storage.ok_or(Error::NoStore)?;
        self.config.validate("the configuration")?;
        let scorer = |profile: Profile| {
            let mut b = Scorer::builder().profile(profile);
            if let Some(j) = &self.judge {
                b = b.judge(Arc::clone(j));
            }
            if let Some(e) = &self.effort {
                b = b.effort(e.clone());
            }
            b.build()
        };
        let consensus = if self.profile.is_some() || self.judge.is_some() || self.effort.is_some() {
            let profile = match self.profile {
                Some(p) => p,
                None => self.config.ppp.validate()?.profile,
            };
            Consensus::with_scorer(&self.config.ppp, scorer(profile)?)?
        } else {
            Consensus::new(&self.config.ppp)?
        };
        if let Some(stage) = &self.stage {
            consensus.settings().weights_for(Some(stage))?;
        }
        let scorer = Arc::new(scorer(consensus.settings().profile)?);
        let import = self
            .config
            .import
            .clone()
            .unwrap_or_default()
            .overridden_by(&self.import);
        Ok(Job {
            format: self.format,
            import,
            consensus,
            scorer,
            default_prefs: self.config.user_preferences.filter(|p| !p.is_empty()),
            stage: self.stage,
            storage,
            limits: self.limits,
        })
    }
}
