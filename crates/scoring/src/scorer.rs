//! The scorer: finds the questions of a session and their effort, checks
//! the user's preferences (rules, session rules, judge), and applies a
//! reward profile.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tact_classifiers::effort::EffortClassifier;
use tact_types::{EffortLevel, Reason};

use crate::Error;
use crate::checks::TextChecker;
use crate::judge::{Judge, JudgeRequest, NotJudged, Verdict};
use crate::preference::COUNT;
use crate::preference::{CheckKind, Preference};
use crate::profile::AskFacts;
use crate::profile::{Adjustment, CostLevel, Facts, Profile};
use crate::running::RunningScore;
use crate::session::{AskedQuestion, Session, Turn};
use crate::violation::{Span, Violation};

/// Which agent messages the text-level and judged preferences are checked on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Responses that ask at least one question (the default): the paper's
    /// user judges each question the agent asks.
    #[default]
    Asking,
    /// Every response.
    All,
}

/// A question of a session, with its turn and effort.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionQuestion {
    /// The 0-based turn.
    pub turn: usize,
    /// The question's text.
    pub text: String,
    /// Its effort.
    pub effort: EffortLevel,
    /// The classifier's confidence; `None` when the host supplied the effort.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
    /// The cues behind the classified effort (empty when the host supplied it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<Reason>,
    /// The cost level the host supplied (see [`AskedQuestion::cost`](crate::AskedQuestion::cost)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<u8>,
}

/// A session's score under one profile, with everything behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionScore {
    /// The agent.
    pub agent: String,
    /// The profile's name (`spec` or `paper`).
    pub profile: String,
    /// R_Prod: the task outcome in [0, 1].
    #[serde(serialize_with = "tact_types::figures::f64_figure")]
    pub r_prod: f64,
    /// R_Proact: how the agent asked.
    #[serde(serialize_with = "tact_types::figures::f64_figure")]
    pub r_proact: f64,
    /// R_Pers: how the agent followed the user's preferences.
    #[serde(serialize_with = "tact_types::figures::f64_figure")]
    pub r_pers: f64,
    /// The interaction score consensus weighs (see [`Profile`]).
    #[serde(serialize_with = "tact_types::figures::f64_figure")]
    pub interaction: f64,
    /// The total reward R.
    #[serde(serialize_with = "tact_types::figures::f64_figure")]
    pub total: f64,
    /// The rules that applied, in order.
    pub adjustments: Vec<Adjustment>,
    /// Every question asked, in order.
    pub questions: Vec<SessionQuestion>,
    /// Every preference violation, in turn order.
    pub violations: Vec<Violation>,
    /// Judged preferences left undecided.
    pub not_judged: Vec<NotJudged>,
    /// Under `paper-code`: each asking response with the cost level it was
    /// priced at, and whether that level was mapped from effort (empty
    /// under the other profiles).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cost_levels: Vec<CostLevel>,
}

/// Builder of a [`Scorer`].
#[derive(Default)]
pub struct ScorerBuilder {
    profile: Profile,
    scope: Scope,
    judge: Option<Arc<dyn Judge>>,
    effort: Option<EffortClassifier>,
}

impl std::fmt::Debug for ScorerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScorerBuilder")
            .field("profile", &self.profile)
            .field("scope", &self.scope)
            .field("judge", &self.judge.as_ref().map(|j| j.name().to_owned()))
            .finish()
    }
}

impl ScorerBuilder {
    /// The reward profile (default: [`Profile::Spec`]).
    #[must_use]
    pub fn profile(mut self, profile: Profile) -> Self {
        self.profile = profile;
        self
    }

    /// Which messages preferences are checked on (default: [`Scope::Asking`]).
    #[must_use]
    pub fn scope(mut self, scope: Scope) -> Self {
        self.scope = scope;
        self
    }

    /// The judge for judged preferences (default: none, "not judged").
    #[must_use]
    pub fn judge(mut self, judge: Arc<dyn Judge>) -> Self {
        self.judge = Some(judge);
        self
    }

    /// The effort classifier of extracted questions (default: the
    /// default [`EffortClassifier`]); say, one with a model-backed tier.
    #[must_use]
    pub fn effort(mut self, effort: EffortClassifier) -> Self {
        self.effort = Some(effort);
        self
    }

    /// Compiles the checkers and the effort classifier, and validates the
    /// profile's weights.
    pub fn build(self) -> Result<Scorer, Error> {
        if let Some((cost_w, pref_w)) = self.profile.weights() {
            Profile::named(self.profile.name(), cost_w, pref_w)?;
        }
        Ok(Scorer {
            profile: self.profile,
            scope: self.scope,
            judge: self.judge,
            checker: TextChecker::new()?,
            effort: match self.effort {
                Some(e) => e,
                None => EffortClassifier::builder().build()?,
            },
        })
    }
}

/// Scores sessions. Build once, share: scoring takes `&self` and never
/// panics.
pub struct Scorer {
    profile: Profile,
    scope: Scope,
    judge: Option<Arc<dyn Judge>>,
    checker: TextChecker,
    effort: EffortClassifier,
}

impl std::fmt::Debug for Scorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scorer")
            .field("profile", &self.profile)
            .field("scope", &self.scope)
            .field("judge", &self.judge.as_ref().map(|j| j.name().to_owned()))
            .finish_non_exhaustive()
    }
}

impl Scorer {
    /// Starts a builder.
    pub fn builder() -> ScorerBuilder {
        ScorerBuilder::default()
    }

    /// The profile in use.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The text-level checkers.
    pub fn checker(&self) -> &TextChecker {
        &self.checker
    }

    /// The questions of a session: those the host supplied for a turn, or
    /// else those found in the response, with their classified effort
    /// (against the session's `context`).
    pub fn questions(&self, session: &Session) -> Vec<SessionQuestion> {
        let mut out = Vec::new();
        for (turn, t) in session.turns.iter().enumerate() {
            self.turn_questions(turn, t, session.context.as_deref(), &mut out);
        }
        out
    }

    /// Appends the questions of turn `turn`: the host's, or those found in
    /// its response, classified against `context`.
    pub(crate) fn turn_questions(
        &self,
        turn: usize,
        t: &Turn,
        context: Option<&str>,
        out: &mut Vec<SessionQuestion>,
    ) {
        match &t.questions {
            Some(qs) => out.extend(qs.iter().map(|q| supplied(turn, q))),
            None => self.extracted(turn, &t.response, context, out),
        }
    }

    /// Appends the questions found in `response`, classified.
    pub(crate) fn extracted(
        &self,
        turn: usize,
        response: &str,
        context: Option<&str>,
        out: &mut Vec<SessionQuestion>,
    ) {
        let asked_in = tact_classifiers::effort::InMessage::new(response);
        for seg in tact_core::extract_questions(response) {
            let text = seg.text(response);
            let r = self.effort.classify_in(text, &asked_in, seg.start, context);
            out.push(SessionQuestion {
                turn,
                text: text.to_owned(),
                effort: r.label,
                confidence: Some(r.confidence),
                reasons: r.reasons,
                cost: None,
            });
        }
    }

    /// The scope preferences are checked in.
    pub(crate) fn scope(&self) -> Scope {
        self.scope
    }

    /// Whether a judge is configured.
    pub(crate) fn has_judge(&self) -> bool {
        self.judge.is_some()
    }

    /// Starts a running score of `session`: its header (preferences,
    /// prompt, outcome, environment) and the turns it has so far, each
    /// scored once; [`RunningScore::push`] scores the turns that follow.
    pub fn running(&self, session: &Session) -> RunningScore {
        let mut run = RunningScore::new(self, session);
        run.push(self, session);
        run
    }

    /// Scores one session.
    pub fn score(&self, session: &Session) -> SessionScore {
        let _span = tracing::debug_span!("scoring.score", agent = %session.agent, turns = session.turns.len()).entered();
        let questions = self.questions(session);
        let asking_turns: Vec<usize> = {
            let mut t: Vec<usize> = questions.iter().map(|q| q.turn).collect();
            t.dedup();
            t
        };
        let scoped: Vec<usize> = match self.scope {
            Scope::Asking => asking_turns.clone(),
            Scope::All => (0..session.turns.len()).collect(),
        };
        let prefs = session.preferences.all();
        let mut violations = Vec::new();
        let mut not_judged = Vec::new();
        let mut checked = Vec::new();
        for &p in &prefs {
            let mut definite = true;
            match p.check_kind() {
                CheckKind::Text => {
                    for &turn in &scoped {
                        let message = &session.turns[turn].response;
                        if let Ok(Some(v)) = self.checker.check(p, message) {
                            violations.push(v.in_turn(turn));
                        }
                    }
                }
                CheckKind::Session => {
                    violations.extend(session_violations(p, session, &questions, &asking_turns));
                }
                CheckKind::Judged => {}
            }
            if p.needs_judge() && !scoped.is_empty() {
                definite =
                    self.judge_preference(p, session, &scoped, &mut violations, &mut not_judged)
                        || p.check_kind() != CheckKind::Judged;
            }
            if definite {
                checked.push(p);
            }
        }
        violations.sort_by_key(|v| v.turn.unwrap_or(usize::MAX));
        let count = |l: EffortLevel| questions.iter().filter(|q| q.effort == l).count();
        let asks = cost_levels(session, &questions);
        let mut by_category = [0; 4];
        let mut by_preference = [0; COUNT];
        for v in &violations {
            by_category[v.category.index()] += 1;
            if let Some(n) = by_preference.get_mut(v.preference.index()) {
                *n += 1;
            }
        }
        // Asks and violations are both in turn order: one merge.
        let mut ask_facts = AskFacts::default();
        let mut next = 0;
        for a in &asks {
            while violations
                .get(next)
                .is_some_and(|v| v.turn.unwrap_or(usize::MAX) < a.turn)
            {
                next += 1;
            }
            let mut violated = [false; COUNT];
            for v in violations[next..]
                .iter()
                .take_while(|v| v.turn == Some(a.turn))
            {
                if let Some(b) = violated.get_mut(v.preference.index()) {
                    *b = true;
                }
            }
            ask_facts.add(a, &violated);
        }
        let facts = Facts {
            r_prod: session.outcome.r_prod(),
            succeeded: session.outcome.succeeded(),
            vague: session.vague_prompt,
            low: count(EffortLevel::Low),
            medium: count(EffortLevel::Medium),
            high: count(EffortLevel::High),
            violations: violations.len(),
            by_category,
            by_preference,
            checked: &checked,
            env: session.ppp_env,
            asks: ask_facts,
            ask_levels: Some(&asks),
        };
        let rewards = self.profile.rewards(&facts);
        SessionScore {
            agent: session.agent.clone(),
            profile: self.profile.name().to_owned(),
            r_prod: facts.r_prod,
            r_proact: rewards.r_proact,
            r_pers: rewards.r_pers,
            interaction: rewards.interaction,
            total: rewards.total,
            adjustments: rewards.adjustments,
            questions,
            violations,
            not_judged,
            cost_levels: if matches!(self.profile, Profile::PaperCode { .. }) {
                asks
            } else {
                Vec::new()
            },
        }
    }

    /// Asks the judge about `p` on every scoped message. Returns whether
    /// every message got a verdict.
    fn judge_preference(
        &self,
        p: Preference,
        session: &Session,
        scoped: &[usize],
        violations: &mut Vec<Violation>,
        not_judged: &mut Vec<NotJudged>,
    ) -> bool {
        let what = if p == Preference::DetailQuestion {
            "beyond the rule, "
        } else {
            ""
        };
        let Some(judge) = &self.judge else {
            not_judged.push(NotJudged {
                preference: p,
                reason: format!("{what}no judge configured"),
            });
            return false;
        };
        let mut complete = true;
        for &turn in scoped {
            match self.judge_turn(judge.as_ref(), p, session, turn) {
                Ok(Some(v)) => violations.push(v),
                Ok(None) => {}
                Err(n) => {
                    complete = false;
                    not_judged.push(n);
                }
            }
        }
        complete
    }

    /// The judge's verdict on `p` in turn `turn`: a violation, none, or why
    /// it gave none.
    pub(crate) fn judge_turn(
        &self,
        judge: &dyn Judge,
        p: Preference,
        session: &Session,
        turn: usize,
    ) -> Result<Option<Violation>, NotJudged> {
        let (prompt, message) = session
            .turns
            .get(turn)
            .map_or(("", ""), |t| (t.prompt.as_str(), t.response.as_str()));
        self.judge_message(judge, p, session, turn, prompt, message)
    }

    /// The judge's verdict on `p` in `message`, the response of turn
    /// `turn` to `prompt`: a violation, none, or why it gave none.
    pub(crate) fn judge_message(
        &self,
        judge: &dyn Judge,
        p: Preference,
        session: &Session,
        turn: usize,
        prompt: &str,
        message: &str,
    ) -> Result<Option<Violation>, NotJudged> {
        let what = if p == Preference::DetailQuestion {
            "beyond the rule, "
        } else {
            ""
        };
        let request = JudgeRequest {
            preference: p,
            message,
            turn,
            prompt,
            session,
        };
        match judge.judge(&request) {
            Ok(Verdict::Respected) => Ok(None),
            Ok(Verdict::Violated { actual, span }) => {
                let mut v = Violation::rule(p, actual, span.or_else(|| Some(Span::whole(message))));
                v.checked_by = judge.name().to_owned();
                Ok(Some(v.in_turn(turn)))
            }
            Ok(Verdict::Abstain { reason }) => Err(NotJudged {
                preference: p,
                reason: format!("{what}turn {turn}: {} abstained: {reason}", judge.name()),
            }),
            Err(e) => Err(NotJudged {
                preference: p,
                reason: format!("{what}turn {turn}: {}: {e}", judge.name()),
            }),
        }
    }

    /// The judge, when one is configured.
    pub(crate) fn judge(&self) -> Option<&dyn Judge> {
        self.judge.as_deref()
    }
}

/// A question the host supplied for turn `turn`.
fn supplied(turn: usize, q: &AskedQuestion) -> SessionQuestion {
    SessionQuestion {
        turn,
        text: q.text.clone(),
        effort: q.effort,
        confidence: None,
        reasons: Vec::new(),
        cost: q.cost,
    }
}

/// The asking responses of a session, in turn order, each at the highest
/// level of its questions: the host's `cost`, else mapped from the effort.
fn cost_levels(session: &Session, questions: &[SessionQuestion]) -> Vec<CostLevel> {
    let mut asks: Vec<CostLevel> = Vec::new();
    for q in questions {
        let (level, mapped) = match q.cost {
            Some(level) => (level, false),
            None => (session.ppp_env.level_of(q.effort), true),
        };
        match asks.last_mut() {
            Some(a) if a.turn == q.turn => {
                a.level = a.level.max(level);
                a.mapped |= mapped;
            }
            _ => asks.push(CostLevel {
                turn: q.turn,
                level,
                mapped,
            }),
        }
    }
    asks
}

/// The session-level rules:
/// - `no_ask`: each response that asks is a violation;
/// - `ask_many`: each asking response after the first asking one;
/// - `answer_more`: one violation when fewer than 3 questions were asked;
/// - `only_begin`: each asking response after the first turn.
fn session_violations(
    p: Preference,
    session: &Session,
    questions: &[SessionQuestion],
    asking_turns: &[usize],
) -> Vec<Violation> {
    // Per asking turn, its first question and how many it asked: one pass
    // (questions are in turn order).
    let mut of_turn: std::collections::BTreeMap<usize, (usize, usize)> = Default::default();
    for (i, q) in questions.iter().enumerate() {
        of_turn.entry(q.turn).or_insert((i, 0)).1 += 1;
    }
    let first = asking_turns.first().copied().unwrap_or(0);
    let mut out: Vec<Violation> = asking_turns
        .iter()
        .filter_map(|&t| {
            let &(at, asked) = of_turn.get(&t)?;
            let response = session.turns.get(t).map_or("", |t| t.response.as_str());
            let first_text = questions.get(at).map(|q| q.text.as_str());
            asking_turn_violation(p, t, asked, first_text, response, first)
        })
        .collect();
    out.extend(answer_more_violation(p, questions.len()));
    out
}

/// The session-level violation of `p` in asking turn `turn`, which asked
/// `asked` questions, the first `first_text`, in `response`;
/// `first_asking` is the session's first asking turn.
pub(crate) fn asking_turn_violation(
    p: Preference,
    turn: usize,
    asked: usize,
    first_text: Option<&str>,
    response: &str,
    first_asking: usize,
) -> Option<Violation> {
    let actual = match p {
        Preference::NoAsk => format!("asked {asked} question(s) in turn {turn}"),
        Preference::AskMany if turn != first_asking => {
            format!("asked again in turn {turn} after asking in turn {first_asking}")
        }
        Preference::OnlyBegin if turn > 0 => format!("asked {asked} question(s) in turn {turn}"),
        _ => return None,
    };
    // The turn's first question, located in its response when it is there.
    let span = first_text.and_then(|q| {
        let at = response.find(q)?;
        Some(Span::of(response, at, at + q.len()))
    });
    Some(Violation::rule(p, actual, span).in_turn(turn))
}

/// `answer_more`'s one violation of a session that asked fewer than 3
/// questions (of no turn).
pub(crate) fn answer_more_violation(p: Preference, asked: usize) -> Option<Violation> {
    (p == Preference::AnswerMore && asked < 3)
        .then(|| Violation::rule(p, format!("{asked} question(s) in the session"), None))
}
