//! The `paper-code` profile: the PPP paper's released reward code
//! (`UserReward.calculate_cost_reward`, `calculate_preference_reward` and
//! the `REWARD_FUNCTIONS` of `envs/userville.py`, PPP-Agent at 42a46d7),
//! rule by rule.
//!
//! The code's unit is one `ask_question` call, priced at the cost level the
//! simulated user gave its answer; here an asking response is one call
//! ([`CostLevel`]). The code's `stats` map onto a session as: `ask_turn` the
//! number of asks, `if_ask` whether there is one, `level_N` the asks at
//! level N, `level_sum` the sum of their levels, and `reward_0` the asks
//! that violate the preference.

use super::{Adjustment, AskFacts, Component, CostLevel, Facts, adj, paper_penalty};
use crate::preference::Preference;
use crate::session::PppEnv;

/// The released code's price of the asks: `(base cost, how it is priced)`.
fn base_cost(env: PppEnv, vague: bool, asks: &AskFacts) -> (f64, &'static str) {
    let n = asks.n as f64;
    // Levels are small integers: their sum is the same in u64 or f64.
    let level_sum = asks.level_sum as f64;
    let at = |level: usize| asks.at.get(level).copied().unwrap_or(0) as f64;
    match (env, vague) {
        (PppEnv::Swe, true) => ((level_sum - n) * 0.1, "0.1 x (level - 1) per ask"),
        (PppEnv::Swe, false) => (level_sum * 0.2, "0.2 x level per ask"),
        (PppEnv::Search, true) => (
            0.0 + at(1) * 0.0 + at(2) * 0.05 + at(3) * 0.9,
            "0, 0.05, 0.9 for levels 1, 2, 3",
        ),
        (PppEnv::Search, false) => (
            (0.0 + at(1) * 0.0 + at(2) * 0.05 + at(3) * 0.9) + level_sum * 0.1,
            "0, 0.05, 0.9 for levels 1, 2, 3, plus 0.1 x level",
        ),
    }
}

/// The levels as text: `1, 3 (mapped from effort)`; without the list,
/// their number.
fn levels(asks: &AskFacts, list: Option<&[CostLevel]>) -> String {
    let mut out = String::new();
    match list {
        Some(list) => {
            for (i, a) in list.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&a.level.to_string());
            }
        }
        None => out.push_str(&format!("of {} ask(s)", asks.n)),
    }
    if asks.mapped > 0 {
        out.push_str(&format!(" ({} mapped from effort)", asks.mapped));
    }
    out
}

/// The released code's reward of one preference: `None` where it has no
/// reward function (`professional`).
fn preference_reward(p: Preference, f: &Facts<'_>) -> Option<(f64, String)> {
    let asks = f.asks.n;
    let once = |hit: bool, what: String| Some((if hit { -1.0 } else { 0.0 }, what));
    match p {
        Preference::Professional => None,
        Preference::NoAsk => once(asks > 0, format!("{asks} ask(s), -1 when any")),
        Preference::AskMany => once(asks > 1, format!("{asks} ask(s), -1 when more than one")),
        Preference::OnlyBegin => {
            let later = f.asks.later;
            once(
                later > 0,
                format!("{later} ask(s) after the first response, -1 when any"),
            )
        }
        Preference::AnswerMore => {
            let missing = 3usize.saturating_sub(asks);
            Some((
                -(missing as f64),
                format!("{asks} ask(s), -1 for each of the {missing} short of 3"),
            ))
        }
        _ => {
            let each = paper_penalty(p)?;
            let violating = f.asks.violating.get(p.index()).copied().unwrap_or(0);
            Some((
                -each * violating as f64,
                format!("{violating} violating ask(s), -{each} each"),
            ))
        }
    }
}

/// Appends the profile's adjustments: R_Proact is the code's cost reward,
/// R_Pers its preference reward.
pub(super) fn rewards(f: &Facts<'_>, out: &mut Vec<Adjustment>) {
    let asks = &f.asks;
    let prompt = if f.vague { "vague" } else { "precise" };
    let (base, priced) = base_cost(f.env, f.vague, asks);
    if base != 0.0 {
        out.push(adj(
            Component::Proact,
            "paper-code.proact.cost",
            -base,
            format!(
                "{} environment, {prompt} prompt: {priced}; ask levels {}",
                f.env,
                levels(asks, f.ask_levels)
            ),
        ));
    }
    let level_1 = asks.at[1];
    let bonus = match f.env {
        PppEnv::Swe => level_1 > 0 && level_1 == asks.n,
        PppEnv::Search => level_1 > 0,
    };
    if f.vague && bonus {
        let detail = match f.env {
            PppEnv::Swe => "vague prompt, every ask at level 1",
            PppEnv::Search => "vague prompt, an ask at level 1 (the search environment's rule)",
        };
        out.push(adj(
            Component::Proact,
            "paper-code.proact.bonus",
            0.05,
            detail.to_owned(),
        ));
    }
    if f.vague && asks.n == 0 && !f.succeeded {
        out.push(adj(
            Component::Proact,
            "paper-code.proact.no_ask_failed",
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
        let Some((amount, detail)) = preference_reward(p, f) else {
            continue;
        };
        scored = true;
        if amount != 0.0 {
            penalty += amount;
            out.push(adj(
                Component::Pers,
                &format!("paper-code.pers.{p}"),
                amount,
                detail,
            ));
        }
    }
    if f.vague && asks.n > 0 && scored && penalty == 0.0 {
        out.push(adj(
            Component::Pers,
            "paper-code.pers.bonus",
            0.05,
            "vague prompt, asked, no preference penalty".to_owned(),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(turn: usize, level: u8) -> CostLevel {
        CostLevel {
            turn,
            level,
            mapped: false,
        }
    }

    fn facts(asks: &[CostLevel]) -> AskFacts {
        let mut f = AskFacts::default();
        for a in asks {
            f.add(a, &[false; crate::preference::COUNT]);
        }
        f
    }

    #[test]
    fn prices_follow_the_environment_and_the_prompt() {
        let asks = facts(&[ask(0, 1), ask(1, 3)]);
        let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-12, "{a} != {b}");
        close(base_cost(PppEnv::Swe, true, &asks).0, 0.2);
        close(base_cost(PppEnv::Swe, false, &asks).0, 0.8);
        close(base_cost(PppEnv::Search, true, &asks).0, 0.9);
        close(base_cost(PppEnv::Search, false, &asks).0, 1.3);
        close(base_cost(PppEnv::Swe, true, &facts(&[])).0, 0.0);
    }

    #[test]
    fn levels_say_how_many_were_mapped() {
        let mut a = ask(0, 3);
        a.mapped = true;
        let list = [ask(0, 1), a];
        assert_eq!(
            levels(&facts(&list), Some(&list)),
            "1, 3 (1 mapped from effort)"
        );
        assert_eq!(levels(&facts(&[ask(0, 2)]), Some(&[ask(0, 2)])), "2");
        assert_eq!(
            levels(&facts(&list), None),
            "of 2 ask(s) (1 mapped from effort)"
        );
    }
}
