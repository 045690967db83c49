//! The two reward profiles, side by side.
//!
//! | | `spec` (SPEC-PPP-003) | `paper` (PPP released code) |
//! | --- | --- | --- |
//! | R_Proact bonus | +0.05 when no question or all low | +0.05 only with a vague prompt, at least one question, all low |
//! | effort penalties | -0.1 per medium, -0.5 per high | same |
//! | not asking | nothing | -0.1 with a vague prompt, no question and a failed task (R_Prod < 1) |
//! | R_Pers bonus | +0.05 with a checked preference and no violation | +0.05 only with a vague prompt, at least one question, a scored preference and no penalty |
//! | R_Pers penalties | per violation: format -0.05, language -0.10, content -0.05, interaction -0.05 | per violation: -0.5 (`do_selection`, `one_question`, `lang_ita`, `lang_multi`, `capital`, `commas`, `json`, `joke`, `snippet`, `length`), -0.1 (`concise_question`, `detail_question`, `amateur`, `first_try`); once: -1 (`no_ask`, `ask_many`, `only_begin`); `answer_more` -(3 - questions); `professional` 0 |
//! | R | R_Prod + R_Proact + R_Pers (unbounded) | clamp(R_Prod + cost_w R_Proact + pref_w R_Pers, 0, 1), weights 1 by default |
//! | interaction | R_Proact + R_Pers (at most +0.10, unbounded below) | cost_w R_Proact + pref_w R_Pers |
//!
//! With no stated preference R_Pers is 0 in both: there is nothing to
//! comply with (the paper's `no_preference` has no reward function). This
//! is what makes SPEC-PPP-003's own consensus example hold (agent B's
//! interaction is +0.05, its R_Proact bonus alone).

use serde::{Deserialize, Serialize};

use crate::ScoringError;
use crate::preference::{Category, Preference};
use crate::violation::Violation;

/// A reward profile.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(tag = "name", rename_all = "snake_case")]
pub enum Profile {
    /// SPEC-PPP-003's defaults.
    #[default]
    Spec,
    /// The PPP paper's released reward code.
    Paper {
        /// Weight of R_Proact in the clamped total (`cost_w`, default 1).
        cost_w: f64,
        /// Weight of R_Pers in the clamped total (`pref_w`, default 1).
        pref_w: f64,
    },
}

impl Profile {
    /// The `paper` profile with both weights 1.
    pub const PAPER: Profile = Profile::Paper {
        cost_w: 1.0,
        pref_w: 1.0,
    };

    /// The `paper` profile with the given weights (finite and >= 0).
    pub fn paper(cost_w: f64, pref_w: f64) -> Result<Profile, ScoringError> {
        for (name, value) in [("cost_w", cost_w), ("pref_w", pref_w)] {
            if !value.is_finite() || value < 0.0 {
                return Err(ScoringError::InvalidWeight { name, value });
            }
        }
        Ok(Profile::Paper { cost_w, pref_w })
    }

    /// The profile's name: `spec` or `paper`.
    pub fn name(&self) -> &'static str {
        match self {
            Profile::Spec => "spec",
            Profile::Paper { .. } => "paper",
        }
    }

    /// The highest interaction score the profile can give (used to
    /// normalize it onto [0, 1]): +0.10 for `spec`, 0.05 (cost_w + pref_w)
    /// for `paper`.
    pub fn max_interaction(&self) -> f64 {
        match *self {
            Profile::Spec => 0.10,
            Profile::Paper { cost_w, pref_w } => 0.05 * (cost_w + pref_w),
        }
    }
}

impl std::str::FromStr for Profile {
    type Err = ScoringError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "spec" => Ok(Profile::Spec),
            "paper" => Ok(Profile::PAPER),
            _ => Err(ScoringError::UnknownProfile(s.to_owned())),
        }
    }
}

/// Which reward an adjustment belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Component {
    /// R_Proact: how the agent asked.
    Proact,
    /// R_Pers: how the agent followed the user's preferences.
    Pers,
}

/// One rule of a profile that applied, with its signed amount.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Adjustment {
    /// The reward it adds to.
    pub component: Component,
    /// Stable rule name, e.g. `spec.proact.high`.
    pub rule: String,
    /// Signed amount added to the component.
    pub amount: f64,
    /// What triggered it.
    pub detail: String,
}

/// What a profile needs to know about a session.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Facts<'a> {
    pub r_prod: f64,
    pub succeeded: bool,
    pub vague: bool,
    pub low: usize,
    pub medium: usize,
    pub high: usize,
    pub violations: &'a [Violation],
    /// Preferences with a definite result (rules, or a judge's verdicts).
    pub checked: &'a [Preference],
}

/// The rewards a profile gives a session.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rewards {
    pub r_proact: f64,
    pub r_pers: f64,
    pub interaction: f64,
    pub total: f64,
    pub adjustments: Vec<Adjustment>,
}

fn adj(component: Component, rule: &str, amount: f64, detail: String) -> Adjustment {
    Adjustment {
        component,
        rule: rule.to_owned(),
        amount,
        detail,
    }
}

/// The `spec` profile's penalty for one violation of a category.
pub fn spec_penalty(category: Category) -> f64 {
    match category {
        Category::Language => 0.10,
        Category::Format | Category::Content | Category::Interaction => 0.05,
    }
}

/// The `paper` profile's penalty for each violating message of a
/// text-level or judged preference (`None` for session-level ones, which
/// are charged once, and `professional`, which has no reward function).
pub fn paper_penalty(preference: Preference) -> Option<f64> {
    match preference {
        Preference::ConciseQuestion
        | Preference::DetailQuestion
        | Preference::Amateur
        | Preference::FirstTry => Some(0.1),
        Preference::DoSelection
        | Preference::OneQuestion
        | Preference::LangIta
        | Preference::LangMulti
        | Preference::Capital
        | Preference::Commas
        | Preference::Json
        | Preference::Joke
        | Preference::Snippet
        | Preference::Length => Some(0.5),
        Preference::NoAsk
        | Preference::AskMany
        | Preference::AnswerMore
        | Preference::OnlyBegin
        | Preference::Professional => None,
    }
}

impl Profile {
    pub(crate) fn rewards(&self, f: &Facts<'_>) -> Rewards {
        let mut adjustments = Vec::new();
        let asked = f.low + f.medium + f.high;
        let prefix = self.name();
        // Effort penalties: the same in both profiles.
        if f.medium > 0 {
            adjustments.push(adj(
                Component::Proact,
                &format!("{prefix}.proact.medium"),
                -0.1 * f.medium as f64,
                format!("{} medium-effort question(s), -0.1 each", f.medium),
            ));
        }
        if f.high > 0 {
            adjustments.push(adj(
                Component::Proact,
                &format!("{prefix}.proact.high"),
                -0.5 * f.high as f64,
                format!("{} high-effort question(s), -0.5 each", f.high),
            ));
        }
        let all_low = f.medium == 0 && f.high == 0;
        match self {
            Profile::Spec => {
                if all_low {
                    let detail = if asked == 0 {
                        "no question asked".to_owned()
                    } else {
                        format!("all {asked} question(s) low effort")
                    };
                    adjustments.push(adj(Component::Proact, "spec.proact.bonus", 0.05, detail));
                }
                if f.violations.is_empty() {
                    if !f.checked.is_empty() {
                        adjustments.push(adj(
                            Component::Pers,
                            "spec.pers.bonus",
                            0.05,
                            format!("{} preference(s) checked, none violated", f.checked.len()),
                        ));
                    }
                } else {
                    for cat in [
                        Category::Format,
                        Category::Language,
                        Category::Content,
                        Category::Interaction,
                    ] {
                        let n = f.violations.iter().filter(|v| v.category == cat).count();
                        if n > 0 {
                            let each = spec_penalty(cat);
                            adjustments.push(adj(
                                Component::Pers,
                                &format!("spec.pers.{}", cat.as_str()),
                                -each * n as f64,
                                format!("{n} {} violation(s), -{each:.2} each", cat.as_str()),
                            ));
                        }
                    }
                }
            }
            Profile::Paper { .. } => {
                if f.vague && asked > 0 && all_low {
                    adjustments.push(adj(
                        Component::Proact,
                        "paper.proact.bonus",
                        0.05,
                        format!("vague prompt, all {asked} question(s) low effort"),
                    ));
                }
                if f.vague && asked == 0 && !f.succeeded {
                    adjustments.push(adj(
                        Component::Proact,
                        "paper.proact.no_ask_failed",
                        -0.1,
                        format!(
                            "vague prompt, no question asked, task failed (R_Prod {:.2})",
                            f.r_prod
                        ),
                    ));
                }
                let mut penalty = 0.0;
                let mut scored = false;
                for &p in f.checked {
                    let n = f.violations.iter().filter(|v| v.preference == p).count();
                    let (amount, detail) = match (p, paper_penalty(p)) {
                        (Preference::Professional, _) => continue,
                        (_, Some(each)) => (
                            -each * n as f64,
                            format!("{n} violating message(s), -{each} each"),
                        ),
                        (Preference::AnswerMore, None) => {
                            let missing = 3usize.saturating_sub(asked);
                            (
                                -(missing as f64),
                                format!("{asked} question(s) asked, {missing} short of 3"),
                            )
                        }
                        (_, None) => (
                            if n > 0 { -1.0 } else { 0.0 },
                            format!("{n} violation(s), -1 once"),
                        ),
                    };
                    scored = true;
                    if amount != 0.0 {
                        penalty += amount;
                        adjustments.push(adj(
                            Component::Pers,
                            &format!("paper.pers.{p}"),
                            amount,
                            detail,
                        ));
                    }
                }
                if f.vague && asked > 0 && scored && penalty == 0.0 {
                    adjustments.push(adj(
                        Component::Pers,
                        "paper.pers.bonus",
                        0.05,
                        "vague prompt, questions asked, no preference penalty".to_owned(),
                    ));
                }
            }
        }
        let sum = |c: Component| {
            adjustments
                .iter()
                .filter(|a| a.component == c)
                .map(|a| a.amount)
                .sum::<f64>()
                // An empty sum is -0.0; report +0.
                + 0.0
        };
        let r_proact = sum(Component::Proact);
        let r_pers = sum(Component::Pers);
        let (interaction, total) = match *self {
            Profile::Spec => (r_proact + r_pers, f.r_prod + r_proact + r_pers),
            Profile::Paper { cost_w, pref_w } => {
                let interaction = cost_w * r_proact + pref_w * r_pers;
                (interaction, (f.r_prod + interaction).clamp(0.0, 1.0))
            }
        };
        Rewards {
            r_proact,
            r_pers,
            interaction,
            total,
            adjustments,
        }
    }
}
