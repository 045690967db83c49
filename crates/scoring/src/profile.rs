//! The reward profiles, rule by rule, with the document each rule comes from.
//!
//! Sources: **SPEC** is SPEC-PPP-003 (this project's design document);
//! **paper** is section 5.1 of "Training Proactive and Personalized LLM
//! Agents" (Sun et al., 2025, arXiv:2511.02208); **code** is the paper's
//! released reward code, `UserReward` in `envs/userville.py` of the
//! PPP-Agent repository at commit 42a46d7.
//!
//! | rule | `spec` | `paper` | `paper-code` |
//! | --- | --- | --- | --- |
//! | unit of R_Proact | each question (SPEC) | each question (paper) | each asking response, as one `ask_question` call, at the highest cost level of its questions (code) |
//! | question price | -0.1 per medium, -0.5 per high (SPEC) | -0.1 per medium, -0.5 per high (paper) | by cost level (code): SWE with a vague prompt 0.1 x (level - 1), with a precise prompt 0.2 x level; search 0, 0.05, 0.9 for levels 1, 2, 3, plus 0.1 x level with a precise prompt |
//! | cost level | - | - | the question's `cost` when the host gives it, else mapped from its effort (tact): SWE low 1, medium 3, high 4; search low 1, medium 2, high 3 |
//! | R_Proact bonus | +0.05 when no question or all low (SPEC) | +0.05 when at least one question and all low (paper; asking nothing is no low-effort query, our reading) | +0.05 with a vague prompt when SWE: every ask at level 1; search: at least one ask at level 1 (code) |
//! | not asking | nothing (SPEC) | nothing (paper) | -0.1 with a vague prompt, no question and a failed task, R_Prod < 1 (code) |
//! | R_Pers bonus | +0.05 with a checked preference and no violation (SPEC) | +0.05 with a checked preference and no penalty (paper) | +0.05 with a vague prompt, at least one ask, a scored preference and no penalty (code) |
//! | message preferences | per violation: format -0.05, language -0.10, content -0.05, interaction -0.05 (SPEC) | per violating message: -0.5 format and language (`do_selection`, `one_question`, `lang_ita`, `lang_multi`, `capital`, `commas`, `json`, `joke`, `snippet`, `length`), -0.1 style (`concise_question`, `detail_question`, `amateur`, `first_try`) (paper's judge; the split per name from code) | the same per violating ask (code) |
//! | session preferences | per violation, as their category (SPEC) | once: -1 (`no_ask`, `ask_many`, `only_begin`); `answer_more` -(3 - questions) (code) | `no_ask` -1 when anything was asked, `ask_many` -1 when asked more than once, `only_begin` -1 when asked after the first response, `answer_more` -(3 - asks) (code) |
//! | `professional` | a content preference (SPEC) | no reward (code: no reward function) | no reward (code) |
//! | R | R_Prod + R_Proact + R_Pers, unbounded (SPEC) | clamp(R_Prod + cost_w R_Proact + pref_w R_Pers, 0, 1), weights 1 by default, which is the paper's R clipped as in training (paper; weights from code) | clamp(R_Prod + cost_w R_Proact + pref_w R_Pers, 0, 1), weights 1 by default (code) |
//! | interaction | R_Proact + R_Pers (at most +0.10, unbounded below) | cost_w R_Proact + pref_w R_Pers | cost_w R_Proact + pref_w R_Pers |
//!
//! With no stated preference R_Pers is 0 in every profile: there is nothing
//! to comply with (the paper's `no_preference` has no reward function). This
//! is what makes SPEC-PPP-003's own consensus example hold (agent B's
//! interaction is +0.05, its R_Proact bonus alone).
//!
//! `paper-code` is checked against the released code itself: the table
//! `fixtures/ppp/paper-code-conformance.jsonl` holds 730 cases whose
//! expected values the code computed, and a test requires tact's final
//! score and cost reward to equal each to 1e-9.

use serde::{Deserialize, Serialize};

use crate::Error;
use crate::preference::{COUNT, Category, Preference};
use crate::session::PppEnv;

mod paper_code;

/// A reward profile (the module docs compare them rule by rule).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(tag = "name", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Profile {
    /// SPEC-PPP-003's defaults.
    #[default]
    Spec,
    /// The PPP paper's text (section 5.1), clipped to [0, 1] as in training.
    Paper {
        /// Weight of R_Proact in the clamped total (`cost_w`, default 1).
        cost_w: f64,
        /// Weight of R_Pers in the clamped total (`pref_w`, default 1).
        pref_w: f64,
    },
    /// The PPP paper's released reward code (`UserReward`), exactly: cost
    /// levels per ask, the SWE or search environment's prices.
    #[serde(rename = "paper-code")]
    PaperCode {
        /// Weight of the cost reward R_Proact (`cost_w`, default 1).
        cost_w: f64,
        /// Weight of the preference reward R_Pers (`pref_w`, default 1).
        pref_w: f64,
    },
}

impl Profile {
    /// The `paper` profile with both weights 1.
    pub const PAPER: Profile = Profile::Paper {
        cost_w: 1.0,
        pref_w: 1.0,
    };

    /// The `paper-code` profile with both weights 1.
    pub const PAPER_CODE: Profile = Profile::PaperCode {
        cost_w: 1.0,
        pref_w: 1.0,
    };

    /// The `paper` profile with the given weights (finite and >= 0).
    pub fn paper(cost_w: f64, pref_w: f64) -> Result<Profile, Error> {
        check_weights(cost_w, pref_w)?;
        Ok(Profile::Paper { cost_w, pref_w })
    }

    /// The `paper-code` profile with the given weights (finite and >= 0).
    pub fn paper_code(cost_w: f64, pref_w: f64) -> Result<Profile, Error> {
        check_weights(cost_w, pref_w)?;
        Ok(Profile::PaperCode { cost_w, pref_w })
    }

    /// The profile named `name` (`spec`, `paper` or `paper-code`), with
    /// these weights for the two profiles that take them.
    pub fn named(name: &str, cost_w: f64, pref_w: f64) -> Result<Profile, Error> {
        match name {
            "spec" => Ok(Profile::Spec),
            "paper" => Profile::paper(cost_w, pref_w),
            "paper-code" => Profile::paper_code(cost_w, pref_w),
            _ => Err(Error::UnknownProfile(name.to_owned())),
        }
    }

    /// The profile's name: `spec`, `paper` or `paper-code`.
    pub fn name(&self) -> &'static str {
        match self {
            Profile::Spec => "spec",
            Profile::Paper { .. } => "paper",
            Profile::PaperCode { .. } => "paper-code",
        }
    }

    /// The weights `(cost_w, pref_w)` of the clamped total, `None` for
    /// `spec`.
    pub fn weights(&self) -> Option<(f64, f64)> {
        match *self {
            Profile::Spec => None,
            Profile::Paper { cost_w, pref_w } | Profile::PaperCode { cost_w, pref_w } => {
                Some((cost_w, pref_w))
            }
        }
    }

    /// The formula of the total reward R, as text.
    pub fn formula(&self) -> &'static str {
        match self {
            Profile::Spec => "R_Prod + R_Proact + R_Pers",
            Profile::Paper { .. } | Profile::PaperCode { .. } => {
                "clamp(R_Prod + cost_w R_Proact + pref_w R_Pers, 0, 1)"
            }
        }
    }

    /// The highest interaction score the profile can give (used to
    /// normalize it onto [0, 1]): +0.10 for `spec`, 0.05 (cost_w + pref_w)
    /// for `paper` and `paper-code`.
    pub fn max_interaction(&self) -> f64 {
        match self.weights() {
            None => 0.10,
            Some((cost_w, pref_w)) => 0.05 * (cost_w + pref_w),
        }
    }
}

fn check_weights(cost_w: f64, pref_w: f64) -> Result<(), Error> {
    for (name, value) in [("cost_w", cost_w), ("pref_w", pref_w)] {
        if !value.is_finite() || value < 0.0 {
            return Err(Error::InvalidWeight { name, value });
        }
    }
    Ok(())
}

impl std::str::FromStr for Profile {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Profile::named(s, 1.0, 1.0)
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
#[non_exhaustive]
pub struct Adjustment {
    /// The reward it adds to.
    pub component: Component,
    /// Stable rule name, e.g. `spec.proact.high`.
    pub rule: String,
    /// Signed amount added to the component.
    #[serde(serialize_with = "tact_types::figures::f64_figure")]
    pub amount: f64,
    /// What triggered it.
    pub detail: String,
}

/// What a profile needs to know about a session: counts only, so that a
/// running score ([`crate::RunningScore`]) keeps them turn by turn and
/// gets the same rewards as a full scoring.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Facts<'a> {
    pub r_prod: f64,
    pub succeeded: bool,
    pub vague: bool,
    pub low: usize,
    pub medium: usize,
    pub high: usize,
    /// Violations in all.
    pub violations: usize,
    /// Violations per category ([`Category::index`]).
    pub by_category: [usize; 4],
    /// Violations per preference ([`Preference::index`]).
    pub by_preference: [usize; COUNT],
    /// Preferences with a definite result (rules, or a judge's verdicts).
    pub checked: &'a [Preference],
    /// The PPP environment (`paper-code`).
    pub env: PppEnv,
    /// The asking responses with their cost levels (`paper-code`), counted.
    pub asks: AskFacts,
    /// The asking responses themselves, for the adjustments' details
    /// (`None`: the details give their number only).
    pub ask_levels: Option<&'a [CostLevel]>,
}

/// The asking responses of a session, counted (`paper-code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AskFacts {
    /// Asking responses.
    pub n: usize,
    /// The sum of their levels.
    pub level_sum: u64,
    /// Asks at levels 0 to 3 (higher levels are only summed).
    pub at: [usize; 4],
    /// Asks after the first response (turn > 0).
    pub later: usize,
    /// Asks whose level was mapped from effort.
    pub mapped: usize,
    /// Per preference, the asks whose turn has a violation of it.
    pub violating: [usize; COUNT],
}

impl Default for AskFacts {
    fn default() -> Self {
        Self {
            n: 0,
            level_sum: 0,
            at: [0; 4],
            later: 0,
            mapped: 0,
            violating: [0; COUNT],
        }
    }
}

impl AskFacts {
    /// Counts one ask at `level` in `turn`, with the preferences violated
    /// in that turn.
    pub(crate) fn add(&mut self, ask: &CostLevel, violated: &[bool; COUNT]) {
        self.n += 1;
        self.level_sum += u64::from(ask.level);
        if let Some(a) = self.at.get_mut(usize::from(ask.level)) {
            *a += 1;
        }
        self.later += usize::from(ask.turn > 0);
        self.mapped += usize::from(ask.mapped);
        for (n, &v) in self.violating.iter_mut().zip(violated) {
            *n += usize::from(v);
        }
    }
}

/// One asking response under the `paper-code` profile: the released code's
/// unit, one `ask_question` call, priced at one cost level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CostLevel {
    /// The 0-based turn whose response asked.
    pub turn: usize,
    /// The level: the highest of the turn's questions (the simulated user
    /// reports the most sensitive information its answer used).
    pub level: u8,
    /// Whether some question of the turn had no `cost` and had its level
    /// mapped from its effort ([`PppEnv::level_of`]).
    pub mapped: bool,
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
        if let Profile::PaperCode { cost_w, pref_w } = *self {
            paper_code::rewards(f, &mut adjustments);
            let r_proact = sum(&adjustments, Component::Proact);
            let r_pers = sum(&adjustments, Component::Pers);
            return Rewards {
                r_proact,
                r_pers,
                interaction: cost_w * r_proact + pref_w * r_pers,
                // The released code's order of operations.
                total: (f.r_prod + r_proact * cost_w + r_pers * pref_w).clamp(0.0, 1.0),
                adjustments,
            };
        }
        // Effort penalties: the same in `spec` and `paper`.
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
                if f.violations == 0 {
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
                        let n = f.by_category[cat.index()];
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
            // (`paper-code` has returned above.)
            Profile::Paper { .. } | Profile::PaperCode { .. } => {
                if asked > 0 && all_low {
                    adjustments.push(adj(
                        Component::Proact,
                        "paper.proact.bonus",
                        0.05,
                        format!("all {asked} question(s) low effort"),
                    ));
                }
                let mut penalty = 0.0;
                let mut scored = false;
                for &p in f.checked {
                    let n = f.by_preference.get(p.index()).copied().unwrap_or(0);
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
                if scored && penalty == 0.0 {
                    adjustments.push(adj(
                        Component::Pers,
                        "paper.pers.bonus",
                        0.05,
                        "every scored preference complied with".to_owned(),
                    ));
                }
            }
        }
        let r_proact = sum(&adjustments, Component::Proact);
        let r_pers = sum(&adjustments, Component::Pers);
        let (interaction, total) = match self.weights() {
            None => (r_proact + r_pers, f.r_prod + r_proact + r_pers),
            Some((cost_w, pref_w)) => {
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

/// The sum of one component's adjustments, in order.
fn sum(adjustments: &[Adjustment], c: Component) -> f64 {
    adjustments
        .iter()
        .filter(|a| a.component == c)
        .fold(0.0, |acc, a| acc + a.amount)
        // An empty sum is 0.0 here, and -0.0 + 0.0 reports +0.
        + 0.0
}
