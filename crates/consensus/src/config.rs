//! The `[ppp]` configuration: whether weighted consensus is on, its
//! weights (global and per stage), the reward profile and the
//! normalization of the interaction score.
//!
//! ```toml
//! [ppp]
//! enabled = true               # false: legacy binary consensus (ok / degraded / conflict)
//! technical_weight = 0.7       # used when no stage is named
//! interaction_weight = 0.3
//! profile = "spec"             # or "paper", "paper-code"
//! cost_w = 1.0                 # paper and paper-code profiles only
//! pref_w = 1.0                 # paper and paper-code profiles only
//! normalize = "none"           # or "linear": interaction mapped onto [0, 1]
//! interaction_floor = -1.0     # linear: this interaction (or worse) maps to 0
//!
//! [ppp.stages.plan]            # overrides the built-in stage weights, or adds a stage
//! technical_weight = 0.6
//! interaction_weight = 0.4
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tact_scoring::Profile;

use crate::Error;

/// Tolerance on "the weights sum to 1".
pub const SUM_TOLERANCE: f64 = 1e-6;

/// A validated pair of weights: each finite in [0, 1], summing to 1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Weights {
    technical: f64,
    interaction: f64,
}

impl Weights {
    /// SPEC-PPP-003's default: 0.7 technical, 0.3 interaction.
    pub const DEFAULT: Weights = Weights {
        technical: 0.7,
        interaction: 0.3,
    };

    /// Validates a pair; `name` says where it came from in errors.
    pub fn new(technical: f64, interaction: f64, name: &str) -> Result<Weights, Error> {
        for (which, value) in [
            ("technical_weight", technical),
            ("interaction_weight", interaction),
        ] {
            if !value.is_finite() || !(0.0..=1.0).contains(&value) {
                return Err(Error::InvalidWeight {
                    name: format!("{name}.{which}"),
                    value,
                });
            }
        }
        let sum = technical + interaction;
        if (sum - 1.0).abs() > SUM_TOLERANCE {
            return Err(Error::WeightsSum {
                name: name.to_owned(),
                technical,
                interaction,
                sum,
            });
        }
        Ok(Weights {
            technical,
            interaction,
        })
    }

    /// The technical weight.
    pub fn technical(&self) -> f64 {
        self.technical
    }

    /// The interaction weight.
    pub fn interaction(&self) -> f64 {
        self.interaction
    }
}

/// The built-in stage weights (technical, interaction) of SPEC-PPP-003's
/// pipeline.
pub const STAGES: &[(&str, f64, f64)] = &[
    ("plan", 0.6, 0.4),
    ("tasks", 0.7, 0.3),
    ("implement", 0.7, 0.3),
    ("validate", 0.75, 0.25),
    ("audit", 0.8, 0.2),
    ("unlock", 0.8, 0.2),
];

/// How the interaction score is put on the technical score's scale.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Normalization {
    /// Used as is (SPEC-PPP-003: about +-0.1, unbounded below).
    None,
    /// Mapped linearly from [floor, ceiling] onto [0, 1] and clamped: an
    /// interaction at `floor` or worse counts 0, the profile's best counts 1.
    Linear {
        /// The interaction that maps to 0.
        floor: f64,
        /// The interaction that maps to 1 (the profile's maximum).
        ceiling: f64,
    },
}

impl Normalization {
    /// Checks that a linear map has finite bounds with floor < ceiling.
    pub fn validate(&self) -> Result<(), Error> {
        if let Normalization::Linear { floor, ceiling } = *self {
            if !floor.is_finite() || !ceiling.is_finite() || floor >= ceiling {
                return Err(Error::Normalization(format!(
                    "linear needs finite bounds with floor < ceiling, got floor {floor}, ceiling {ceiling}"
                )));
            }
        }
        Ok(())
    }

    /// Applies the map (the validated bounds make this finite for finite input).
    pub fn apply(&self, interaction: f64) -> f64 {
        match *self {
            Normalization::None => interaction,
            Normalization::Linear { floor, ceiling } => {
                ((interaction - floor) / (ceiling - floor)).clamp(0.0, 1.0)
            }
        }
    }
}

/// Weights of one stage as written in TOML.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageWeights {
    /// Weight of the technical score.
    pub technical_weight: f64,
    /// Weight of the interaction score.
    pub interaction_weight: f64,
}

/// The `[ppp]` section as written (see the module docs); [`PppConfig::validate`]
/// turns it into checked settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct PppConfig {
    /// Weighted consensus on (default) or the legacy binary one.
    pub enabled: bool,
    /// Technical weight when no stage is named (default 0.7).
    pub technical_weight: f64,
    /// Interaction weight when no stage is named (default 0.3).
    pub interaction_weight: f64,
    /// Reward profile: `spec` (default), `paper` or `paper-code`.
    pub profile: String,
    /// `paper` and `paper-code` profiles: weight of R_Proact (default 1).
    pub cost_w: f64,
    /// `paper` and `paper-code` profiles: weight of R_Pers (default 1).
    pub pref_w: f64,
    /// `none` (default) or `linear`.
    pub normalize: String,
    /// `linear`: the interaction that maps to 0 (default -1.0).
    pub interaction_floor: f64,
    /// Per-stage weights, over the built-in ones.
    pub stages: BTreeMap<String, StageWeights>,
}

impl Default for PppConfig {
    fn default() -> Self {
        PppConfig {
            enabled: true,
            technical_weight: 0.7,
            interaction_weight: 0.3,
            profile: "spec".into(),
            cost_w: 1.0,
            pref_w: 1.0,
            normalize: "none".into(),
            interaction_floor: -1.0,
            stages: BTreeMap::new(),
        }
    }
}

#[derive(Deserialize)]
struct Document {
    #[serde(default)]
    ppp: Option<PppConfig>,
}

/// Checked settings, ready to rank agents.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Settings {
    /// Weighted consensus on, or the legacy one.
    pub enabled: bool,
    /// Weights when no stage is named.
    pub default_weights: Weights,
    /// Weights per stage: built-in, then the configured ones.
    pub stages: BTreeMap<String, Weights>,
    /// The reward profile.
    pub profile: Profile,
    /// The interaction score's normalization.
    pub normalization: Normalization,
}

impl Default for Settings {
    fn default() -> Self {
        // The defaults are valid by construction; see the unit test.
        PppConfig::default().validate().unwrap_or(Settings {
            enabled: true,
            default_weights: Weights::DEFAULT,
            stages: BTreeMap::new(),
            profile: Profile::Spec,
            normalization: Normalization::None,
        })
    }
}

impl PppConfig {
    /// Reads the `[ppp]` table of a TOML document (absent: the defaults);
    /// other tables are ignored. `source` names the file in errors.
    pub fn from_toml(text: &str, source: Option<&str>) -> Result<PppConfig, Error> {
        let doc: Document = toml::from_str(text).map_err(|e| Error::Config {
            source_name: source.map(str::to_owned),
            // The parser quotes the offending line: an excerpt of it.
            message: tact_types::excerpt::excerpt(&e.to_string()).into_owned(),
        })?;
        Ok(doc.ppp.unwrap_or_default())
    }

    /// Validates every weight and name, giving the settings to rank with.
    pub fn validate(&self) -> Result<Settings, Error> {
        let default_weights = Weights::new(self.technical_weight, self.interaction_weight, "ppp")?;
        let mut stages = BTreeMap::new();
        for &(name, t, i) in STAGES {
            stages.insert(
                name.to_owned(),
                Weights::new(t, i, &format!("stages.{name}"))?,
            );
        }
        for (name, w) in &self.stages {
            if name.trim().is_empty() {
                return Err(Error::Config {
                    source_name: None,
                    message: "a stage name is empty".into(),
                });
            }
            stages.insert(
                name.clone(),
                Weights::new(
                    w.technical_weight,
                    w.interaction_weight,
                    &format!("stages.{name}"),
                )?,
            );
        }
        let profile = Profile::named(&self.profile, self.cost_w, self.pref_w)?;
        let normalization = match self.normalize.as_str() {
            "none" => Normalization::None,
            "linear" => Normalization::Linear {
                floor: self.interaction_floor,
                ceiling: profile.max_interaction(),
            },
            other => {
                return Err(Error::Normalization(format!(
                    "unknown normalize `{other}` (expected one of: none, linear)"
                )));
            }
        };
        normalization.validate()?;
        Ok(Settings {
            enabled: self.enabled,
            default_weights,
            stages,
            profile,
            normalization,
        })
    }
}

impl Settings {
    /// The weights for `stage` (the defaults when `None`); an unknown
    /// stage is an error.
    pub fn weights_for(&self, stage: Option<&str>) -> Result<Weights, Error> {
        match stage {
            None => Ok(self.default_weights),
            Some(s) => self
                .stages
                .get(s)
                .copied()
                .ok_or_else(|| Error::UnknownStage {
                    stage: s.to_owned(),
                    known: self.stages.keys().cloned().collect::<Vec<_>>().join(", "),
                }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_spec_values() {
        let s = PppConfig::default().validate().unwrap();
        assert_eq!(s, Settings::default());
        assert!(s.enabled);
        assert_eq!(s.default_weights, Weights::DEFAULT);
        let w = |st| s.weights_for(Some(st)).unwrap();
        assert_eq!((w("plan").technical(), w("plan").interaction()), (0.6, 0.4));
        assert_eq!(
            (w("tasks").technical(), w("tasks").interaction()),
            (0.7, 0.3)
        );
        assert_eq!(
            (w("implement").technical(), w("implement").interaction()),
            (0.7, 0.3)
        );
        assert_eq!(
            (w("validate").technical(), w("validate").interaction()),
            (0.75, 0.25)
        );
        assert_eq!(
            (w("audit").technical(), w("audit").interaction()),
            (0.8, 0.2)
        );
        assert_eq!(
            (w("unlock").technical(), w("unlock").interaction()),
            (0.8, 0.2)
        );
        assert_eq!(s.profile, Profile::Spec);
        assert_eq!(s.normalization, Normalization::None);
    }

    #[test]
    fn toml_overrides_and_adds_stages() {
        let cfg = PppConfig::from_toml(
            "[user_preferences]\nformat = []\n\n[ppp]\nprofile = \"paper\"\nnormalize = \"linear\"\n\
             [ppp.stages.plan]\ntechnical_weight = 0.5\ninteraction_weight = 0.5\n\
             [ppp.stages.review]\ntechnical_weight = 0.9\ninteraction_weight = 0.1\n",
            Some("tact.toml"),
        )
        .unwrap();
        let s = cfg.validate().unwrap();
        assert_eq!(s.weights_for(Some("plan")).unwrap().technical(), 0.5);
        assert_eq!(s.weights_for(Some("review")).unwrap().interaction(), 0.1);
        assert_eq!(s.weights_for(Some("audit")).unwrap().technical(), 0.8);
        assert_eq!(s.profile, Profile::PAPER);
        assert_eq!(
            s.normalization,
            Normalization::Linear {
                floor: -1.0,
                ceiling: 0.1
            }
        );
        assert!(PppConfig::from_toml("", None).unwrap().enabled);
    }

    #[test]
    fn the_paper_code_profile_reads_with_its_weights() {
        let cfg = PppConfig::from_toml(
            "[ppp]\nprofile = \"paper-code\"\ncost_w = 0.5\npref_w = 2.0\n",
            None,
        )
        .unwrap();
        let s = cfg.validate().unwrap();
        assert_eq!(s.profile, Profile::paper_code(0.5, 2.0).unwrap());
        assert_eq!(s.profile.name(), "paper-code");
        assert!((s.profile.max_interaction() - 0.125).abs() < 1e-12);
    }

    #[test]
    fn bad_configs_are_clear_errors() {
        let cases = [
            (
                "[ppp]\ntechnical_weight = nan\n",
                "invalid weight `ppp.technical_weight` = NaN",
            ),
            (
                "[ppp]\ninteraction_weight = inf\n",
                "invalid weight `ppp.interaction_weight` = inf",
            ),
            (
                "[ppp]\ntechnical_weight = 0.8\n",
                "weights of ppp sum to 1.1",
            ),
            (
                "[ppp]\ntechnical_weight = -0.2\ninteraction_weight = 1.2\n",
                "must be a finite number in [0, 1]",
            ),
            (
                "[ppp.stages.plan]\ntechnical_weight = 0.6\ninteraction_weight = 0.6\n",
                "weights of stages.plan sum to 1.2",
            ),
            ("[ppp]\nprofile = \"vibes\"\n", "unknown profile `vibes`"),
            ("[ppp]\nnormalize = \"log\"\n", "unknown normalize `log`"),
            (
                "[ppp]\nnormalize = \"linear\"\ninteraction_floor = 0.5\n",
                "floor < ceiling",
            ),
            (
                "[ppp]\nprofile = \"paper\"\ncost_w = -1.0\n",
                "invalid cost_w weight -1",
            ),
            ("[ppp]\nweights = 1\n", "unknown field `weights`"),
            ("[ppp\n", "invalid [ppp] configuration in c.toml"),
        ];
        for (text, needle) in cases {
            let msg = match PppConfig::from_toml(text, Some("c.toml")) {
                Ok(cfg) => cfg.validate().unwrap_err().to_string(),
                Err(e) => e.to_string(),
            };
            assert!(msg.contains(needle), "{text}: {msg}");
        }
        let s = Settings::default();
        let msg = s.weights_for(Some("deploy")).unwrap_err().to_string();
        assert!(
            msg.contains("unknown stage `deploy`") && msg.contains("audit, implement"),
            "{msg}"
        );
    }
}
