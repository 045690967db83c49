//! A session scored as its turns end, each turn's evidence (questions,
//! violations) handed back with it: a host that stores a session as it
//! reads it (`tact run` on an agent's log) keeps no turn's text to the
//! end, only counts, and gets the score [`Scorer::score`] gives the whole
//! session.

use crate::judge::NotJudged;
use crate::preference::{CheckKind, Preference};
use crate::profile::CostLevel;
use crate::running::{Head, Tally, count_question};
use crate::scorer::{
    Scope, Scorer, SessionQuestion, SessionScore, answer_more_violation, asking_turn_violation,
};
use crate::session::{Session, TaskOutcome, Turn};
use crate::violation::Violation;

/// A session scored turn by turn, each turn once and then forgotten but
/// for counts: [`PerTurn::turn`] scores the next turn and hands back its
/// questions and violations ([`TurnScore`]); [`PerTurn::score`] gives
/// the rewards. The questions, violations and rewards are those
/// [`Scorer::score`] gives the whole session, in the same order (each
/// turn's violations in the order of the session's preferences, the
/// session's own violation, `answer_more`, at the end).
///
/// ```
/// use tact_scoring::{Preference, Scorer, Session, TaskOutcome, Turn, UserPreferences};
///
/// let scorer = Scorer::builder().build()?;
/// let mut session = Session::new("agent", TaskOutcome::Score { value: 1.0 });
/// session.preferences = UserPreferences::none().with(Preference::AskMany);
/// let mut per_turn = scorer.per_turn(&session);
/// let mut violations = Vec::new();
/// for response in ["Which Redis version?", "Done.", "Should I restart it now?"] {
///     let turn = Turn::new("go on", response);
///     let scored = per_turn.turn(&scorer, &turn);
///     violations.extend(scored.violations);
///     session.turns.push(turn);
/// }
/// let end = per_turn.score(&scorer);
/// let whole = scorer.score(&session);
/// assert_eq!(violations, whole.violations);
/// assert_eq!((end.total, end.r_pers), (whole.total, whole.r_pers));
/// # Ok::<(), tact_scoring::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct PerTurn {
    /// The session's header (no turns): the judge's context.
    header: Session,
    prefs: Vec<Preference>,
    head: Head,
    tally: Tally,
    turns: usize,
    first_asking: Option<usize>,
    /// Whether a question was classified against the context.
    classified: bool,
}

/// One turn's evidence, as [`Scorer::score`] reports it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TurnScore {
    /// The 0-based turn.
    pub turn: usize,
    /// Its questions, in order.
    pub questions: Vec<SessionQuestion>,
    /// Its preference violations, in the order of the session's
    /// preferences.
    pub violations: Vec<Violation>,
    /// The judge's abstentions and failures on it.
    pub not_judged: Vec<NotJudged>,
    /// When it asks: the cost level it is priced at (`paper-code`).
    pub cost_level: Option<CostLevel>,
}

impl Scorer {
    /// Starts scoring `session` turn by turn: its header (preferences,
    /// context, outcome, environment) is read, its turns are not (give
    /// them to [`PerTurn::turn`]).
    pub fn per_turn(&self, session: &Session) -> PerTurn {
        PerTurn {
            header: Session {
                spec_id: session.spec_id.clone(),
                stage: session.stage.clone(),
                agent: session.agent.clone(),
                run_id: session.run_id.clone(),
                mode: session.mode,
                preferences: session.preferences.clone(),
                vague_prompt: session.vague_prompt,
                ppp_env: session.ppp_env,
                context: session.context.clone(),
                turns: Vec::new(),
                outcome: session.outcome,
                verdict: session.verdict.clone(),
            },
            prefs: session.preferences.all(),
            head: Head::of(session),
            tally: Tally::default(),
            turns: 0,
            first_asking: None,
            classified: false,
        }
    }
}

impl PerTurn {
    /// Turns scored so far.
    pub fn turns(&self) -> usize {
        self.turns
    }

    /// Sets the session's outcome, when it is known only once its log is
    /// read (a task's result recorded at its end): the score reads it,
    /// the turns do not.
    pub fn set_outcome(&mut self, outcome: TaskOutcome) {
        self.header.outcome = outcome;
        self.head = Head::of(&self.header);
    }

    /// The context questions are classified against (the session's).
    pub fn context(&self) -> Option<&str> {
        self.header.context.as_deref()
    }

    /// Sets the context later questions are classified against (a log's
    /// title, read after its first records). Whether a question was
    /// classified already, against the context before.
    pub fn set_context(&mut self, context: Option<String>) -> bool {
        self.header.context = context;
        self.classified
    }

    /// Scores the session's next turn: its questions (the host's, or
    /// those found in its response and classified), its preferences'
    /// checks (text rules, session rules given the turns before, the
    /// judge), counted for [`PerTurn::score`].
    pub fn turn(&mut self, scorer: &Scorer, turn: &Turn) -> TurnScore {
        let index = self.turns;
        self.turns += 1;
        let mut questions = Vec::new();
        scorer.turn_questions(index, turn, self.header.context.as_deref(), &mut questions);
        self.classified |= turn.questions.is_none() && !questions.is_empty();
        let mut efforts = [0; 3];
        let mut level = None;
        for q in &questions {
            count_question(self.head_env(), q.effort, q.cost, &mut efforts, &mut level);
        }
        let asking = !questions.is_empty();
        if asking && self.first_asking.is_none() {
            self.first_asking = Some(index);
        }
        let scoped = match scorer.scope() {
            Scope::Asking => asking,
            Scope::All => true,
        };
        let mut violations = Vec::new();
        let mut not_judged = Vec::new();
        for &p in &self.prefs {
            match p.check_kind() {
                CheckKind::Text if scoped => {
                    if let Ok(Some(v)) = scorer.checker().check(p, &turn.response) {
                        violations.push(v.in_turn(index));
                    }
                }
                CheckKind::Session if asking => {
                    let first = questions.first().map(|q| q.text.as_str());
                    let first_asking = self.first_asking.unwrap_or(index);
                    violations.extend(asking_turn_violation(
                        p,
                        index,
                        questions.len(),
                        first,
                        &turn.response,
                        first_asking,
                    ));
                }
                _ => {}
            }
            if p.needs_judge() && scoped {
                if let Some(judge) = scorer.judge() {
                    let judged = scorer.judge_message(
                        judge,
                        p,
                        &self.header,
                        index,
                        &turn.prompt,
                        &turn.response,
                    );
                    match judged {
                        Ok(Some(v)) => violations.push(v),
                        Ok(None) => {}
                        Err(n) => {
                            if let Some(k) = self.tally.unjudged.get_mut(p.index()) {
                                *k += 1;
                            }
                            not_judged.push(n);
                        }
                    }
                }
            }
        }
        for (sum, n) in self.tally.efforts.iter_mut().zip(efforts) {
            *sum += n;
        }
        self.tally.scoped += usize::from(scoped);
        let mut violated = [false; crate::preference::COUNT];
        for v in &violations {
            self.tally.violations += 1;
            self.tally.by_category[v.category.index()] += 1;
            if let Some(n) = self.tally.by_preference.get_mut(v.preference.index()) {
                *n += 1;
            }
            if let Some(b) = violated.get_mut(v.preference.index()) {
                *b = true;
            }
        }
        let cost_level = level.map(|(level, mapped)| CostLevel {
            turn: index,
            level,
            mapped,
        });
        if let Some(ask) = &cost_level {
            self.tally.asks.add(ask, &violated);
        }
        TurnScore {
            turn: index,
            questions,
            violations,
            not_judged,
            cost_level,
        }
    }

    fn head_env(&self) -> crate::session::PppEnv {
        self.header.ppp_env
    }

    /// The session's score on the turns scored so far (once its last
    /// turn is scored, the whole session's). The evidence handed back
    /// with each turn is not repeated: `questions` and `cost_levels` are
    /// empty, `violations` holds the session's own (`answer_more`, of no
    /// turn) and `not_judged` the judged preferences left undecided for
    /// want of a judge.
    pub fn score(&self, scorer: &Scorer) -> SessionScore {
        self.score_with(scorer, None)
    }

    /// [`PerTurn::score`], the adjustments' details naming `ask_levels`
    /// (the turns' [`TurnScore::cost_level`]) when given.
    pub(crate) fn score_with(
        &self,
        scorer: &Scorer,
        ask_levels: Option<&[CostLevel]>,
    ) -> SessionScore {
        let mut tally = self.tally.clone();
        let asked: usize = tally.efforts.iter().sum();
        let mut violations = Vec::new();
        for &p in &self.prefs {
            violations.extend(answer_more_violation(p, asked));
        }
        tally.answer_more(&self.prefs);
        let mut not_judged = Vec::new();
        if scorer.judge().is_none() && tally.scoped > 0 {
            for &p in self.prefs.iter().filter(|p| p.needs_judge()) {
                let what = if p == Preference::DetailQuestion {
                    "beyond the rule, "
                } else {
                    ""
                };
                not_judged.push(NotJudged {
                    preference: p,
                    reason: format!("{what}no judge configured"),
                });
            }
        }
        let rewards = tally.rewards(scorer, &self.prefs, self.head, ask_levels);
        SessionScore {
            agent: self.header.agent.clone(),
            profile: scorer.profile().name().to_owned(),
            r_prod: self.head.r_prod(),
            r_proact: rewards.r_proact,
            r_pers: rewards.r_pers,
            interaction: rewards.interaction,
            total: rewards.total,
            adjustments: rewards.adjustments,
            questions: Vec::new(),
            violations,
            not_judged,
            cost_levels: Vec::new(),
        }
    }
}
