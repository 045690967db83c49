//! A running score: a session scored one turn at a time, each turn once,
//! giving at every turn the R_Proact, R_Pers, interaction and total that
//! [`Scorer::score`] gives the turns so far, in time linear in the session.

use tact_types::EffortLevel;

use crate::preference::{COUNT, CheckKind, Preference};
use crate::profile::{AskFacts, CostLevel, Facts, Rewards};
use crate::scorer::{Scope, Scorer, SessionQuestion};
use crate::session::{PppEnv, Session};

/// The score of a session so far, kept turn by turn: a host that scores
/// while the session runs (a live view, a dashboard) calls
/// [`RunningScore::push`] as turns end, and each turn is scored once,
/// where rescoring the whole session at each turn costs the square of its
/// length. The values equal those of [`Scorer::score`] on the turns so far.
///
/// ```
/// use tact_scoring::{Scorer, Session, TaskOutcome, Turn};
///
/// let scorer = Scorer::builder().build()?;
/// let mut session = Session::new("agent", TaskOutcome::Score { value: 1.0 });
/// let mut run = scorer.running(&session);
/// for response in ["Done.", "Which Redis version does production run?"] {
///     session.turns.push(Turn::new("go on", response));
///     run.push(&scorer, &session);
///     let full = scorer.score(&session);
///     assert_eq!((run.r_proact(), run.r_pers(), run.total()), (full.r_proact, full.r_pers, full.total));
/// }
/// # Ok::<(), tact_scoring::Error>(())
/// ```
///
/// A turn still being written (its response and questions growing) is
/// updated with [`RunningScore::grow_last`], which costs what was added;
/// the checks that read the whole response rerun when it has doubled since
/// they last ran, so until [`RunningScore::rescore_last`] the values may
/// lag those checks ([`RunningScore::is_exact`] says when).
#[derive(Debug, Clone)]
pub struct RunningScore {
    profile: &'static str,
    prefs: Vec<Preference>,
    head: Head,
    /// The turns before the last one, summed.
    done: Tally,
    /// The last turn scored.
    last: Option<TurnTally>,
    r_proact: f64,
    r_pers: f64,
    interaction: f64,
    total: f64,
    questions: [usize; 3],
    violated: Vec<(Preference, usize)>,
}

/// What a session's header says that its rewards read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Head {
    r_prod: f64,
    succeeded: bool,
    vague: bool,
    env: PppEnv,
}

impl Head {
    pub(crate) fn of(session: &Session) -> Self {
        Head {
            r_prod: session.outcome.r_prod(),
            succeeded: session.outcome.succeeded(),
            vague: session.vague_prompt,
            env: session.ppp_env,
        }
    }

    pub(crate) fn r_prod(&self) -> f64 {
        self.r_prod
    }
}

/// Counts over turns.
#[derive(Debug, Clone)]
pub(crate) struct Tally {
    pub(crate) efforts: [usize; 3],
    pub(crate) violations: usize,
    pub(crate) by_category: [usize; 4],
    pub(crate) by_preference: [usize; COUNT],
    pub(crate) asks: AskFacts,
    /// Scoped turns (those preferences are checked on).
    pub(crate) scoped: usize,
    /// Per preference, the scoped turns the judge gave no verdict on.
    pub(crate) unjudged: [usize; COUNT],
}

impl Tally {
    /// Counts a violation of `p`.
    pub(crate) fn violation(&mut self, p: Preference) {
        self.violations += 1;
        self.by_category[p.category().index()] += 1;
        if let Some(n) = self.by_preference.get_mut(p.index()) {
            *n += 1;
        }
    }

    /// Counts `answer_more`'s violation of the session (fewer than 3
    /// questions), when it is stated and applies; whether it did.
    pub(crate) fn answer_more(&mut self, prefs: &[Preference]) -> bool {
        let asked: usize = self.efforts.iter().sum();
        let applies = prefs.contains(&Preference::AnswerMore) && asked < 3;
        if applies {
            self.violation(Preference::AnswerMore);
        }
        applies
    }

    /// The rewards of these counts (`answer_more` counted in) under the
    /// scorer's profile: the preferences with a definite result are those
    /// not judged, or judged on every scoped turn.
    pub(crate) fn rewards(
        &self,
        scorer: &Scorer,
        prefs: &[Preference],
        head: Head,
        ask_levels: Option<&[CostLevel]>,
    ) -> Rewards {
        let checked: Vec<Preference> = prefs
            .iter()
            .copied()
            .filter(|&p| {
                if !p.needs_judge() || self.scoped == 0 || p.check_kind() != CheckKind::Judged {
                    return true;
                }
                scorer.has_judge() && self.unjudged.get(p.index()).copied().unwrap_or(0) == 0
            })
            .collect();
        let facts = Facts {
            r_prod: head.r_prod,
            succeeded: head.succeeded,
            vague: head.vague,
            low: self.efforts[0],
            medium: self.efforts[1],
            high: self.efforts[2],
            violations: self.violations,
            by_category: self.by_category,
            by_preference: self.by_preference,
            checked: &checked,
            env: head.env,
            asks: self.asks,
            ask_levels,
        };
        scorer.profile().rewards(&facts)
    }
}

impl Default for Tally {
    fn default() -> Self {
        Self {
            efforts: [0; 3],
            violations: 0,
            by_category: [0; 4],
            by_preference: [0; COUNT],
            asks: AskFacts::default(),
            scoped: 0,
            unjudged: [0; COUNT],
        }
    }
}

/// One turn's share.
#[derive(Debug, Clone)]
struct TurnTally {
    index: usize,
    efforts: [usize; 3],
    /// Its highest cost level and whether one was mapped from effort.
    level: Option<(u8, bool)>,
    /// Host-supplied questions counted so far.
    supplied: usize,
    /// Response length when the whole-response pass last ran (`None`:
    /// never).
    passed_at: Option<usize>,
    /// Whether that pass checked the preferences (the turn was scoped).
    checked: bool,
    /// Whether something is not counted yet (see [`RunningScore::grow_last`]).
    stale: bool,
    /// Questions extracted from the response by the last pass.
    extracted: [usize; 3],
    extracted_level: Option<(u8, bool)>,
    /// The preferences' verdicts of the last pass.
    violations: usize,
    by_category: [usize; 4],
    by_preference: [usize; COUNT],
    violated: [bool; COUNT],
    unjudged: [usize; COUNT],
}

impl TurnTally {
    fn new(index: usize) -> Self {
        Self {
            index,
            efforts: [0; 3],
            level: None,
            supplied: 0,
            passed_at: None,
            checked: false,
            stale: false,
            extracted: [0; 3],
            extracted_level: None,
            violations: 0,
            by_category: [0; 4],
            by_preference: [0; COUNT],
            violated: [false; COUNT],
            unjudged: [0; COUNT],
        }
    }

    fn asked(&self) -> usize {
        self.efforts.iter().chain(&self.extracted).sum()
    }

    fn level(&self) -> Option<(u8, bool)> {
        match (self.level, self.extracted_level) {
            (Some((a, ma)), Some((b, mb))) => Some((a.max(b), ma | mb)),
            (a, b) => a.or(b),
        }
    }
}

pub(crate) fn effort_index(e: EffortLevel) -> usize {
    match e {
        EffortLevel::Low => 0,
        EffortLevel::Medium => 1,
        _ => 2,
    }
}

/// Counts `q` into `efforts` and the turn's highest cost `level`.
pub(crate) fn count_question(
    env: PppEnv,
    effort: EffortLevel,
    cost: Option<u8>,
    efforts: &mut [usize; 3],
    level: &mut Option<(u8, bool)>,
) {
    efforts[effort_index(effort)] += 1;
    let (l, mapped) = match cost {
        Some(l) => (l, false),
        None => (env.level_of(effort), true),
    };
    *level = Some(match *level {
        Some((m, was)) => (m.max(l), was | mapped),
        None => (l, mapped),
    });
}

impl RunningScore {
    /// A running score of `session`'s header (preferences, prompt,
    /// outcome, environment) with no turn scored.
    pub fn new(scorer: &Scorer, session: &Session) -> Self {
        let mut run = Self {
            profile: scorer.profile().name(),
            prefs: session.preferences.all(),
            head: Head::of(session),
            done: Tally::default(),
            last: None,
            r_proact: 0.0,
            r_pers: 0.0,
            interaction: 0.0,
            total: 0.0,
            questions: [0; 3],
            violated: Vec::new(),
        };
        run.refresh(scorer);
        run
    }

    /// Turns scored so far.
    pub fn turns(&self) -> usize {
        self.last.as_ref().map_or(0, |l| l.index + 1)
    }

    /// Scores the turns of `session` not scored yet (those after the first
    /// [`RunningScore::turns`]), each in time linear in its length. The
    /// session is the one this score started from, grown by turns.
    pub fn push(&mut self, scorer: &Scorer, session: &Session) {
        for index in self.turns()..session.turns.len() {
            if let Some(last) = self.last.take() {
                self.fold(&last);
            }
            let mut turn = TurnTally::new(index);
            self.grow(scorer, session, &mut turn, true);
            self.last = Some(turn);
        }
        self.refresh(scorer);
    }

    /// The last scored turn grew (text appended to its response, questions
    /// appended to the host's): counts what was added, reruns the checks of
    /// the whole response (question extraction when the host supplied
    /// none, the preferences' checks and judge) only when the response has
    /// at least doubled since they last ran, then scores any new turn. So
    /// growing a turn costs time linear in its final length however often
    /// it grows; until then [`RunningScore::is_exact`] is `false`.
    pub fn grow_last(&mut self, scorer: &Scorer, session: &Session) {
        if let Some(mut last) = self.last.take() {
            self.grow(scorer, session, &mut last, false);
            self.last = Some(last);
        }
        self.push(scorer, session);
    }

    /// Rescores the last scored turn whole (exact, in time linear in its
    /// length), then scores any new turn.
    pub fn rescore_last(&mut self, scorer: &Scorer, session: &Session) {
        if let Some(last) = self.last.take() {
            let mut turn = TurnTally::new(last.index);
            self.grow(scorer, session, &mut turn, true);
            self.last = Some(turn);
        }
        self.push(scorer, session);
    }

    /// Whether the values are those [`Scorer::score`] gives the turns so
    /// far (`false` only after [`RunningScore::grow_last`] left a check of
    /// the last turn for later).
    pub fn is_exact(&self) -> bool {
        !self.last.as_ref().is_some_and(|l| l.stale)
    }

    /// Counts what turn `t` added since `t` was last counted; the whole
    /// response is read again when `whole` or when it has doubled.
    fn grow(&self, scorer: &Scorer, session: &Session, t: &mut TurnTally, whole: bool) {
        let Some(turn) = session.turns.get(t.index) else {
            return;
        };
        if let Some(qs) = &turn.questions {
            for q in qs.get(t.supplied..).unwrap_or_default() {
                count_question(
                    self.head.env,
                    q.effort,
                    q.cost,
                    &mut t.efforts,
                    &mut t.level,
                );
            }
            t.supplied = t.supplied.max(qs.len());
        }
        let asking = t.asked() > 0 || (turn.questions.is_none() && t.passed_at.is_none());
        let scoped = match scorer.scope() {
            Scope::Asking => asking,
            Scope::All => true,
        };
        let reads_whole = turn.questions.is_none() || (scoped && self.checks_text());
        let len = turn.response.len();
        let due = match t.passed_at {
            None => true,
            Some(at) => whole || len >= at.saturating_mul(2) || (scoped && !t.checked),
        };
        if reads_whole && due {
            self.pass(scorer, session, t);
        }
        t.stale = reads_whole && t.passed_at != Some(len);
    }

    /// The whole-response pass of turn `t`: its questions when extracted,
    /// then the preferences' checks when the turn is scoped.
    fn pass(&self, scorer: &Scorer, session: &Session, t: &mut TurnTally) {
        let Some(turn) = session.turns.get(t.index) else {
            return;
        };
        t.extracted = [0; 3];
        t.extracted_level = None;
        if turn.questions.is_none() {
            let mut qs: Vec<SessionQuestion> = Vec::new();
            scorer.extracted(t.index, &turn.response, session.context.as_deref(), &mut qs);
            for q in &qs {
                count_question(
                    self.head.env,
                    q.effort,
                    q.cost,
                    &mut t.extracted,
                    &mut t.extracted_level,
                );
            }
        }
        t.passed_at = Some(turn.response.len());
        t.violations = 0;
        t.by_category = [0; 4];
        t.by_preference = [0; COUNT];
        t.violated = [false; COUNT];
        t.unjudged = [0; COUNT];
        t.checked = match scorer.scope() {
            Scope::Asking => t.asked() > 0,
            Scope::All => true,
        };
        if !t.checked {
            return;
        }
        for &p in &self.prefs {
            let mut found = Vec::new();
            if p.check_kind() == CheckKind::Text {
                if let Ok(Some(v)) = scorer.checker().check(p, &turn.response) {
                    found.push(v);
                }
            }
            if p.needs_judge() {
                if let Some(judge) = scorer.judge() {
                    match scorer.judge_turn(judge, p, session, t.index) {
                        Ok(Some(v)) => found.push(v),
                        Ok(None) => {}
                        Err(_) => {
                            if let Some(n) = t.unjudged.get_mut(p.index()) {
                                *n += 1;
                            }
                        }
                    }
                }
            }
            for v in found {
                t.violations += 1;
                t.by_category[v.category.index()] += 1;
                if let Some(n) = t.by_preference.get_mut(v.preference.index()) {
                    *n += 1;
                }
                if let Some(b) = t.violated.get_mut(v.preference.index()) {
                    *b = true;
                }
            }
        }
    }

    /// Whether some stated preference reads the messages (a text rule or a
    /// judge).
    fn checks_text(&self) -> bool {
        self.prefs
            .iter()
            .any(|p| p.check_kind() == CheckKind::Text || p.needs_judge())
    }

    /// Adds turn `t` to `into`, with its session-level violations given
    /// the turns before it (`into` as it stands).
    fn add(prefs: &[Preference], into: &mut Tally, t: &TurnTally) {
        for (i, sum) in into.efforts.iter_mut().enumerate() {
            *sum += t.efforts[i] + t.extracted[i];
        }
        let mut violated = t.violated;
        into.violations += t.violations;
        for (a, b) in into.by_category.iter_mut().zip(&t.by_category) {
            *a += b;
        }
        for (a, b) in into.by_preference.iter_mut().zip(&t.by_preference) {
            *a += b;
        }
        for (a, b) in into.unjudged.iter_mut().zip(&t.unjudged) {
            *a += b;
        }
        into.scoped += usize::from(t.checked);
        if let Some((level, mapped)) = t.level() {
            // The session-level rules, per asking turn.
            for &p in prefs {
                let hit = match p {
                    Preference::NoAsk => true,
                    Preference::AskMany => into.asks.n > 0,
                    Preference::OnlyBegin => t.index > 0,
                    _ => false,
                };
                if hit {
                    into.violation(p);
                    if let Some(b) = violated.get_mut(p.index()) {
                        *b = true;
                    }
                }
            }
            let ask = CostLevel {
                turn: t.index,
                level,
                mapped,
            };
            into.asks.add(&ask, &violated);
        }
    }

    fn fold(&mut self, t: &TurnTally) {
        Self::add(&self.prefs, &mut self.done, t);
    }

    /// Recomputes the values from the counts (time bounded by the number
    /// of preferences).
    fn refresh(&mut self, scorer: &Scorer) {
        let mut all = self.done.clone();
        if let Some(last) = &self.last {
            Self::add(&self.prefs, &mut all, last);
        }
        all.answer_more(&self.prefs);
        let rewards = all.rewards(scorer, &self.prefs, self.head, None);
        self.r_proact = rewards.r_proact;
        self.r_pers = rewards.r_pers;
        self.interaction = rewards.interaction;
        self.total = rewards.total;
        self.questions = all.efforts;
        let mut violated: Vec<(Preference, usize)> = Preference::ALL
            .iter()
            .filter_map(|&p| {
                let n = all.by_preference.get(p.index()).copied().unwrap_or(0);
                (n > 0).then_some((p, n))
            })
            .collect();
        violated.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.as_str().cmp(b.0.as_str())));
        self.violated = violated;
    }

    /// The profile's name (`spec`, `paper` or `paper-code`).
    pub fn profile(&self) -> &'static str {
        self.profile
    }

    /// R_Proact so far.
    pub fn r_proact(&self) -> f64 {
        self.r_proact
    }

    /// R_Pers so far.
    pub fn r_pers(&self) -> f64 {
        self.r_pers
    }

    /// The interaction score so far (see [`crate::Profile`]).
    pub fn interaction(&self) -> f64 {
        self.interaction
    }

    /// The total reward R so far.
    pub fn total(&self) -> f64 {
        self.total
    }

    /// Questions asked so far: low, medium, high effort.
    pub fn questions(&self) -> [usize; 3] {
        self.questions
    }

    /// The violated preferences with their number of violations, most
    /// violated first (ties by name).
    pub fn violated(&self) -> &[(Preference, usize)] {
        &self.violated
    }
}
