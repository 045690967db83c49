//! The view's state: what was ingested (transcript rows, nudges, the
//! running score, tiers used) and how it is looked at (scroll, cursor,
//! panes shown, pause, help), changed by [`Step`]s and keys only, so it is
//! tested without a terminal.

use std::cell::{Cell, OnceCell};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use tact::guidance::{Guide, Nudge};
use tact::scoring::{AskedQuestion, RunningScore, Scorer, Session, TaskOutcome, Turn};
use tact::types::{EffortLevel, Event, Mode, Tier};

use crate::Error;
use crate::label::{Classifiers, Found, Labels};
use crate::model::{Job, ModelSpec, Place, Worker};
use crate::read::{Record, Step};
use crate::row::{Row, RowKind, one_line};

/// Most steps ingested between two frames, so a huge file never holds the
/// screen still.
const STEPS_PER_PUMP: usize = 20_000;
/// Transcript rows kept by default (older ones are dropped, and counted).
pub const MAX_ROWS: usize = 10_000;

/// How the view is set up.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Options {
    /// The guidance mode of a bare event stream (a session says its own).
    pub mode: Mode,
    /// Colours on (off under `NO_COLOR`).
    pub color: bool,
    /// Steps per second to replay at; `None` shows everything at once.
    pub replay: Option<f64>,
    /// The source's name in the status line (a path, or `stdin`).
    pub source: String,
    /// Most transcript rows kept (at least 1; default [`MAX_ROWS`]): the
    /// oldest are dropped, with the nudges and jumps that point at them,
    /// and the status line says how many.
    pub max_rows: usize,
    /// The model tier: questions the cheaper tiers are unsure of are put
    /// to this model on a worker thread, and its answers replace their
    /// effort as they arrive (`None`, the default: no model tier).
    pub model: Option<ModelSpec>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            mode: Mode::Headless,
            color: true,
            replay: None,
            source: String::from("stdin"),
            max_rows: MAX_ROWS,
            model: None,
        }
    }
}

impl Options {
    /// The same options with `mode` for a bare stream.
    #[must_use]
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// The same options with colours on or off.
    #[must_use]
    pub fn color(mut self, color: bool) -> Self {
        self.color = color;
        self
    }

    /// The same options replaying at `speed` steps per second (`None`:
    /// everything at once).
    #[must_use]
    pub fn replay(mut self, speed: Option<f64>) -> Self {
        self.replay = speed.filter(|s| s.is_finite() && *s > 0.0);
        self
    }

    /// The same options with the model tier `spec` turned on.
    #[must_use]
    pub fn model(mut self, spec: ModelSpec) -> Self {
        self.model = Some(spec);
        self
    }

    /// The same options keeping at most `rows` transcript rows (at least 1).
    #[must_use]
    pub fn max_rows(mut self, rows: usize) -> Self {
        self.max_rows = rows.max(1);
        self
    }

    /// The same options naming the source `name`.
    #[must_use]
    pub fn source(mut self, name: impl Into<String>) -> Self {
        self.source = name.into();
        self
    }
}

/// The model tier's state, shown in the status line: the hook a host (or
/// the model tier, when turned on) sets with [`App::set_model_tier`]. The
/// model runs off the UI thread; the view only shows what it is told.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ModelTier {
    /// No model tier (the default).
    #[default]
    Off,
    /// On and idle.
    Ready {
        /// The model's name.
        name: String,
    },
    /// Calls in flight.
    Busy {
        /// The model's name.
        name: String,
        /// Calls waiting for an answer.
        in_flight: usize,
    },
    /// On but failing (its calls fail open: the cheaper tiers decide).
    Unavailable {
        /// The model's name.
        name: String,
        /// Why.
        reason: String,
    },
}

/// Where the followed input stands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SourceState {
    /// Reading, waiting for more (a growing file, an open pipe).
    #[default]
    Following,
    /// Everything was read (a closed pipe, a whole document).
    Ended,
    /// Reading failed; what was read is shown.
    Failed(String),
}

/// One of the four panes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    /// The transcript (key 1).
    Transcript,
    /// The guidance nudges (key 2).
    Guidance,
    /// The score (key 3).
    Score,
    /// The status line (key 4).
    Status,
}

impl Pane {
    /// The four panes, in key order.
    pub const ALL: [Pane; 4] = [Pane::Transcript, Pane::Guidance, Pane::Score, Pane::Status];

    fn index(self) -> usize {
        match self {
            Pane::Transcript => 0,
            Pane::Guidance => 1,
            Pane::Score => 2,
            Pane::Status => 3,
        }
    }
}

/// A nudge that fired, with the transcript row it shows at.
#[derive(Debug)]
pub(crate) struct Fired {
    pub(crate) nudge: Nudge,
    /// Its row in the transcript.
    pub(crate) row: usize,
    /// Its reason (or message), one line, redacted when first drawn.
    reason: OnceCell<String>,
}

impl Fired {
    pub(crate) fn reason(&self) -> &str {
        self.reason.get_or_init(|| {
            let text = self
                .nudge
                .result
                .reason
                .as_deref()
                .unwrap_or(&self.nudge.message);
            crate::redact(&one_line(text))
        })
    }
}

/// The running score of the current session.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ScoreView {
    pub(crate) profile: String,
    pub(crate) turns: usize,
    pub(crate) r_proact: f64,
    pub(crate) r_pers: f64,
    pub(crate) interaction: f64,
    /// Questions asked: low, medium, high.
    pub(crate) questions: [usize; 3],
    /// Violated preferences with their count, most violated first.
    pub(crate) violated: Vec<(&'static str, usize)>,
    /// Preferences stated (nothing to violate without them).
    pub(crate) preferences: usize,
}

/// Events per second over the last second or so.
#[derive(Debug, Default)]
struct Rate {
    samples: VecDeque<(Instant, u64)>,
    per_second: f64,
}

impl Rate {
    fn tick(&mut self, now: Instant, total: u64) {
        self.samples.push_back((now, total));
        while self.samples.len() > 2
            && self
                .samples
                .front()
                .is_some_and(|(t, _)| now.duration_since(*t) > Duration::from_secs(2))
        {
            self.samples.pop_front();
        }
        self.per_second = match self.samples.front() {
            Some(&(t, n)) if now.duration_since(t) >= Duration::from_millis(200) => {
                total.saturating_sub(n) as f64 / now.duration_since(t).as_secs_f64()
            }
            _ => self.per_second,
        };
    }
}

/// What a key did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Go on.
    Continue,
    /// Quit the view.
    Quit,
}

/// The whole view: feed it [`Step`]s ([`App::push`] then [`App::pump`], or
/// [`App::apply`] directly), keys ([`App::on_key`]), and draw it with
/// [`crate::ui::draw`].
pub struct App {
    opts: Options,
    scorer: Scorer,
    classifiers: Classifiers,
    guide: Guide,
    /// The current session: its header and the turns so far (the text of
    /// turns already scored is dropped: only the last one is read again).
    session: Session,
    /// The current session's score, kept turn by turn.
    run: RunningScore,
    /// Sessions begun (0 for a bare stream without a header).
    pub(crate) sessions: usize,
    /// The transcript rows kept; row numbers count from the session's
    /// first row, so the first kept one is [`App::first_row`].
    pub(crate) rows: VecDeque<Row>,
    /// Rows dropped from the front (the number of the first kept row).
    pub(crate) first_row: usize,
    /// The nudges kept (those whose row is kept); nudge numbers count from
    /// the first fired, so the first kept one is `first_nudge`.
    pub(crate) nudges: VecDeque<Fired>,
    pub(crate) first_nudge: usize,
    /// Rows of high-effort questions kept, in order.
    high_rows: VecDeque<usize>,
    /// Rows at the transcript's end that show a draft ([`Step::Draft`]):
    /// taken away by the next step.
    draft_rows: usize,
    pub(crate) score: Option<ScoreView>,
    /// The interaction score after each scored turn of this session.
    pub(crate) spark: Vec<f64>,
    /// Decisions per tier: heuristic, learned, seed, model.
    pub(crate) tiers: [usize; 4],
    /// Events observed.
    pub(crate) events: u64,
    /// Bad lines skipped, and the last one's message.
    pub(crate) skipped: usize,
    pub(crate) last_warning: Option<String>,
    pub(crate) source_state: SourceState,
    pub(crate) model: ModelTier,
    worker: Option<Worker>,
    rate: Rate,
    queue: VecDeque<Step>,
    credit: f64,
    last_pump: Option<Instant>,
    // The view.
    /// Top row of the transcript when scrolled; `None` follows the end.
    pub(crate) top: Option<usize>,
    /// The row jumped to (highlighted).
    pub(crate) cursor: Option<usize>,
    /// The nudge jumped to (highlighted).
    pub(crate) nudge_cursor: Option<usize>,
    pub(crate) shown: [bool; 4],
    pub(crate) focus: Pane,
    pub(crate) help: bool,
    pub(crate) paused: bool,
    /// Rows of the transcript's last drawn area (for paging).
    pub(crate) page: Cell<usize>,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("opts", &self.opts)
            .field("events", &self.events)
            .field("rows", &self.rows.len())
            .field("first_row", &self.first_row)
            .field("nudges", &self.nudges.len())
            .finish_non_exhaustive()
    }
}

/// The header of a bare stream's session: no preferences, no outcome yet.
fn bare_session() -> Session {
    Session::new("agent", TaskOutcome::Score { value: 0.0 })
}

impl App {
    /// A [`Labeler`](crate::label::Labeler) with this view's classifiers,
    /// shared rather than built again, for the thread that reads the
    /// session.
    pub fn labeler(&self) -> crate::label::Labeler {
        crate::label::Labeler::with(self.classifiers.clone())
    }

    /// Builds the classifiers, the scorer and an empty view.
    pub fn new(opts: Options) -> Result<Self, Error> {
        let scorer = Scorer::builder().build().map_err(tact::Error::from)?;
        let classifiers = Classifiers::new()?;
        let session = bare_session();
        let run = RunningScore::new(&scorer, &session);
        let worker = opts.model.as_ref().and_then(Worker::start);
        let model = match (&opts.model, &worker) {
            (None, _) => ModelTier::Off,
            (Some(_), Some(w)) => w.state(),
            (Some(spec), None) => ModelTier::Unavailable {
                name: spec.name.clone(),
                reason: String::from("could not start"),
            },
        };
        Ok(Self {
            guide: Guide::new(opts.mode),
            opts,
            scorer,
            classifiers,
            session,
            run,
            sessions: 0,
            rows: VecDeque::new(),
            first_row: 0,
            nudges: VecDeque::new(),
            first_nudge: 0,
            high_rows: VecDeque::new(),
            draft_rows: 0,
            score: None,
            spark: Vec::new(),
            tiers: [0; 4],
            events: 0,
            skipped: 0,
            last_warning: None,
            source_state: SourceState::Following,
            model,
            worker,
            rate: Rate::default(),
            queue: VecDeque::new(),
            credit: 0.0,
            last_pump: None,
            top: None,
            cursor: None,
            nudge_cursor: None,
            shown: [true; 4],
            focus: Pane::Transcript,
            help: false,
            paused: false,
            page: Cell::new(10),
        })
    }

    /// The options it was built with.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Sets the model tier's state shown in the status line (a host that
    /// runs its own model; the view's own model tier, [`Options::model`],
    /// sets it as its calls go).
    pub fn set_model_tier(&mut self, state: ModelTier) {
        self.model = state;
    }

    /// The model tier's state, as the status line shows it.
    pub fn model_tier(&self) -> &ModelTier {
        &self.model
    }

    /// Decisions per tier so far: heuristic, learned, seed, model (an
    /// answer of the model tier moves its question from the cheaper tier).
    pub fn tiers(&self) -> [usize; 4] {
        self.tiers
    }

    /// Says where the input stands; at its end the last turn's score is
    /// made exact (see [`RunningScore::grow_last`]).
    pub fn set_source_state(&mut self, state: SourceState) {
        if state != SourceState::Following && !self.run.is_exact() {
            self.run.rescore_last(&self.scorer, &self.session);
            self.show_score(false);
        }
        self.source_state = state;
    }

    /// Reports a bad line (skipped, counted, its message in the status line).
    pub fn warn(&mut self, message: String) {
        self.skipped += 1;
        self.last_warning = Some(crate::redact(&one_line(&message)));
    }

    /// The current session's running score (what the score pane shows).
    pub fn score(&self) -> &RunningScore {
        &self.run
    }

    /// Events observed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// The nudges kept (those whose transcript row is kept), oldest first.
    pub fn nudges(&self) -> impl Iterator<Item = &Nudge> {
        self.nudges.iter().map(|f| &f.nudge)
    }

    /// Nudges fired so far, kept or not.
    pub fn nudges_fired(&self) -> usize {
        self.first_nudge + self.nudges.len()
    }

    /// Transcript rows kept (at most [`Options::max_rows`]).
    pub fn rows(&self) -> usize {
        self.rows.len()
    }

    /// Transcript rows dropped from the front to keep [`Options::max_rows`].
    pub fn rows_dropped(&self) -> usize {
        self.first_row
    }

    /// The number of the row after the last: rows so far, kept or not.
    pub(crate) fn end_row(&self) -> usize {
        self.first_row + self.rows.len()
    }

    /// Nudge number `i`, when kept.
    pub(crate) fn nudge(&self, i: usize) -> Option<&Fired> {
        self.nudges.get(i.checked_sub(self.first_nudge)?)
    }

    /// Adds a transcript row, dropping the oldest beyond the bound with
    /// what points at them; returns its number.
    fn push_row(&mut self, row: Row) -> usize {
        self.rows.push_back(row);
        while self.rows.len() > self.opts.max_rows {
            self.rows.pop_front();
            self.first_row += 1;
        }
        let first = self.first_row;
        while self.high_rows.front().is_some_and(|&r| r < first) {
            self.high_rows.pop_front();
        }
        while self.nudges.front().is_some_and(|f| f.row < first) {
            self.nudges.pop_front();
            self.first_nudge += 1;
            self.nudge_cursor = self.nudge_cursor.and_then(|c| c.checked_sub(1));
        }
        self.end_row() - 1
    }

    /// Steps waiting (paused, or a replay's pace).
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Whether the view is paused.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Queues steps read from the input; [`App::pump`] ingests them.
    pub fn push(&mut self, steps: impl IntoIterator<Item = Step>) {
        self.queue.extend(steps);
    }

    /// Ingests queued steps: all of them (a bounded number per call) when
    /// live, as many as the replay's pace allows by `now`, none when
    /// paused. Also updates the events-per-second figure. Returns how many
    /// steps were ingested.
    pub fn pump(&mut self, now: Instant) -> usize {
        let elapsed = self
            .last_pump
            .map(|t| now.saturating_duration_since(t).as_secs_f64());
        self.last_pump = Some(now);
        self.poll_model();
        let mut n = 0;
        if !self.paused {
            let budget = match self.opts.replay {
                None => STEPS_PER_PUMP,
                Some(speed) => {
                    // The first step shows at once; a pause earns nothing,
                    // and a slow frame at most one second of steps.
                    self.credit = match elapsed {
                        None => 1.0,
                        Some(secs) => (self.credit + secs * speed).min(speed.max(1.0)),
                    };
                    let whole = self.credit.floor();
                    self.credit -= whole;
                    whole as usize
                }
            };
            while n < budget {
                let Some(step) = self.queue.pop_front() else {
                    break;
                };
                self.apply(step);
                n += 1;
            }
        }
        self.rate.tick(now, self.events);
        n
    }

    /// Ingests the next queued step whatever the pace (a replay's one step).
    pub fn step_once(&mut self) -> bool {
        match self.queue.pop_front() {
            Some(step) => {
                self.apply(step);
                true
            }
            None => false,
        }
    }

    /// Events per second, as last measured.
    pub fn rate(&self) -> f64 {
        self.rate.per_second
    }

    /// Ingests one record at once, bypassing the queue (no pause, no
    /// replay pace): what `tact guide --follow` does with a line, plus the
    /// transcript, the classifiers and the score.
    pub fn ingest(&mut self, record: Record) {
        match record {
            Record::Event(e) => self.apply(Step::Event(e)),
            Record::Pending(p) => self.apply(Step::Propose(p)),
            other => {
                let mut out = Vec::new();
                crate::read::steps(other, &mut out);
                for step in out {
                    self.apply(step);
                }
            }
        }
    }

    /// Ingests one step: guidance observes it (cooldowns applied as a host
    /// would), questions and user messages are classified (unless a
    /// [`Labeler`](crate::label::Labeler) labelled the step already), the
    /// transcript grows, and a turn's end rescores the session.
    pub fn apply(&mut self, step: Step) {
        let labels = match &step {
            Step::Labeled { .. } => Labels::default(),
            step => self
                .classifiers
                .labels(step, self.session.context.as_deref()),
        };
        self.apply_labeled(step, labels);
    }

    /// [`App::apply`] with the step's labels.
    fn apply_labeled(&mut self, step: Step, labels: Labels) {
        if !matches!(step, Step::Labeled { .. }) {
            // Whatever comes next says what the draft was.
            self.clear_draft();
        }
        match step {
            Step::Labeled { step, labels } => self.apply_labeled(*step, labels),
            Step::Context(context) => self.session.context = Some(context),
            Step::Draft { response } => self.show_draft(&response, labels.questions),
            Step::Begin(header) => self.begin(*header),
            Step::Turn { prompt } => {
                self.session
                    .turns
                    .push(Turn::new(prompt.clone(), "").with_questions(Vec::new()));
                if !prompt.is_empty() {
                    self.observe(Event::user(prompt), false, labels);
                }
            }
            Step::TurnEvent(event) => self.observe(event, false, labels),
            Step::Event(event) => self.observe(event, true, labels),
            Step::Propose(pending) => {
                let nudges = self.guide.propose(pending);
                self.fired(nudges);
            }
            Step::Respond {
                response,
                questions,
            } => {
                if !response.is_empty() {
                    let nudges = self.guide.observe(&Event::assistant(response.as_str()));
                    self.events += 1;
                    // The answer's questions replace the last turn's.
                    let at = (self.session.turns.len().saturating_sub(1), 0);
                    let asked = self.agent_rows(&response, questions, labels.questions, at);
                    self.fired(nudges);
                    if let Some(turn) = self.session.turns.last_mut() {
                        turn.response = response;
                        turn.questions = Some(asked);
                    }
                }
                self.rescore(false);
            }
        }
    }

    /// Shows a draft: the agent's message and its questions, as rows only
    /// (no guidance, no score, no model call), until the next step.
    fn show_draft(&mut self, text: &str, found: Option<Vec<Found>>) {
        if text.is_empty() {
            return;
        }
        let found = found.unwrap_or_else(|| {
            self.classifiers
                .questions(text, self.session.context.as_deref())
        });
        self.push_row(Row::new(RowKind::Draft, text));
        for q in &found {
            self.push_row(Row::new(RowKind::Question(q.effort), &q.text));
        }
        self.draft_rows = 1 + found.len();
    }

    /// Takes the draft's rows away, with what pointed at them.
    fn clear_draft(&mut self) {
        let n = std::mem::take(&mut self.draft_rows).min(self.rows.len());
        if n == 0 {
            return;
        }
        self.rows.truncate(self.rows.len() - n);
        let end = self.end_row();
        if self.cursor.is_some_and(|c| c >= end) {
            self.cursor = None;
        }
        if self.top.is_some_and(|t| t >= end) {
            self.top = None;
        }
    }

    fn begin(&mut self, header: Session) {
        self.guide = Guide::new(header.mode);
        let mut title = header.agent.clone();
        for part in [&header.spec_id, &header.stage].into_iter().flatten() {
            title.push_str(" · ");
            title.push_str(part);
        }
        self.run = RunningScore::new(&self.scorer, &header);
        self.session = header;
        self.sessions += 1;
        self.score = None;
        self.spark.clear();
        self.push_row(Row::new(RowKind::Session, &title));
    }

    /// Observes an event and adds its rows; `bare` events of a stream
    /// open turns (`user`) and answer them (`assistant`); `labels`: what
    /// the classifiers said of it.
    fn observe(&mut self, event: Event, bare: bool, labels: Labels) {
        let nudges = self.guide.observe(&event);
        self.events += 1;
        match event {
            Event::User { text } => {
                let (route, tier) = match labels.route {
                    Some(r) => r,
                    None => self.classifiers.route(&text),
                };
                self.count_tier(tier);
                self.push_row(Row::new(RowKind::User(route), &text));
                if bare {
                    // The turn it closes is scored exactly (once).
                    if !self.run.is_exact() {
                        self.run.rescore_last(&self.scorer, &self.session);
                    }
                    self.session
                        .turns
                        .push(Turn::new(text, "").with_questions(Vec::new()));
                }
                self.fired(nudges);
            }
            Event::Assistant { text } => {
                if bare {
                    // Its questions are appended to the last turn's (or to
                    // a first turn made below).
                    let at = self.session.turns.last().map_or((0, 0), |t| {
                        (
                            self.session.turns.len() - 1,
                            t.questions.as_ref().map_or(0, Vec::len),
                        )
                    });
                    let asked = self.agent_rows(&text, None, labels.questions, at);
                    self.fired(nudges);
                    if self.session.turns.is_empty() {
                        self.session
                            .turns
                            .push(Turn::new("", "").with_questions(Vec::new()));
                    }
                    if let Some(turn) = self.session.turns.last_mut() {
                        if !turn.response.is_empty() {
                            turn.response.push_str("\n\n");
                        }
                        turn.response.push_str(&text);
                        turn.questions.get_or_insert_with(Vec::new).extend(asked);
                    }
                    self.rescore(true);
                } else {
                    self.push_row(Row::new(RowKind::Agent, &text));
                    self.fired(nudges);
                }
            }
            Event::Tool(call) => {
                self.push_row(Row::tool(&call));
                self.fired(nudges);
            }
            Event::Nudge { text } => {
                self.push_row(Row::new(RowKind::Injected, &text));
                self.fired(nudges);
            }
            Event::Condensation => {
                self.push_row(Row::new(RowKind::Condensation, "context condensed"));
                self.fired(nudges);
            }
            Event::Progress { kind } => {
                self.push_row(Row::new(RowKind::Progress, kind.as_str()));
                self.fired(nudges);
            }
            other => {
                tracing::debug!(?other, "event of a newer kind shown as progress");
                self.push_row(Row::new(RowKind::Progress, "event"));
                self.fired(nudges);
            }
        }
    }

    /// The rows of an agent message and its questions: the host's, or
    /// those of the message with their classified effort. `at`: the turn
    /// the questions go to and the place of the first among its questions
    /// (where a model's later answer finds them). Questions the cheaper
    /// tiers are unsure of go to the model tier, when it is on.
    fn agent_rows(
        &mut self,
        text: &str,
        supplied: Option<Vec<AskedQuestion>>,
        found: Option<Vec<Found>>,
        at: (usize, usize),
    ) -> Vec<AskedQuestion> {
        self.push_row(Row::new(RowKind::Agent, text));
        // Per question: whether the model is asked, and the tier that
        // decided meanwhile.
        let mut ask: Vec<Option<usize>> = Vec::new();
        let asked = match supplied {
            Some(qs) => qs,
            None => {
                let found = match found {
                    Some(f) => f,
                    None => self
                        .classifiers
                        .questions(text, self.session.context.as_deref()),
                };
                let mut asked = Vec::with_capacity(found.len());
                for q in found {
                    let tier = q.tier.map(tier_index);
                    if let Some(t) = tier {
                        self.tiers[t] += 1;
                    }
                    let wants = self.worker.as_ref().is_some_and(|w| w.wants(q.confidence));
                    ask.push(tier.filter(|_| wants));
                    asked.push(AskedQuestion::new(q.text, q.effort));
                }
                asked
            }
        };
        for (i, q) in asked.iter().enumerate() {
            let row = self.push_row(Row::new(RowKind::Question(q.effort), q.text.as_str()));
            if q.effort == EffortLevel::High {
                self.high_rows.push_back(row);
            }
            if let (Some(Some(tier)), Some(worker)) = (ask.get(i), self.worker.as_mut()) {
                worker.submit(Job {
                    place: Place {
                        row,
                        turn: at.0,
                        index: at.1 + i,
                        tier: *tier,
                    },
                    text: q.text.clone(),
                    context: self.session.context.clone(),
                });
            }
        }
        if let Some(w) = &self.worker {
            self.model = w.state();
        }
        asked
    }

    /// Takes the model tier's answers that arrived, without waiting: each
    /// replaces its question's effort in the transcript and, while its turn
    /// is still the last one, in the score (rescored once per call). A
    /// failed call leaves the cheaper decision. Returns the answers taken.
    pub fn poll_model(&mut self) -> usize {
        let Some(worker) = self.worker.as_mut() else {
            return 0;
        };
        let answers = worker.poll();
        self.model = worker.state();
        let last_turn = self.session.turns.len().checked_sub(1);
        let mut rescore = false;
        for answer in &answers {
            let Some(effort) = answer.effort else {
                continue;
            };
            let a = answer.place;
            if let Some(t) = self.tiers.get_mut(a.tier) {
                *t = t.saturating_sub(1);
            }
            self.tiers[tier_index(Tier::Model)] += 1;
            if let Some(row) = a
                .row
                .checked_sub(self.first_row)
                .and_then(|i| self.rows.get_mut(i))
            {
                if let RowKind::Question(old) = row.kind {
                    row.kind = RowKind::Question(effort);
                    match (old == EffortLevel::High, effort == EffortLevel::High) {
                        (false, true) => {
                            let at = self.high_rows.partition_point(|&r| r < a.row);
                            self.high_rows.insert(at, a.row);
                        }
                        (true, false) => self.high_rows.retain(|&r| r != a.row),
                        _ => {}
                    }
                }
            }
            if last_turn == Some(a.turn) {
                let q = self
                    .session
                    .turns
                    .get_mut(a.turn)
                    .and_then(|t| t.questions.as_mut())
                    .and_then(|qs| qs.get_mut(a.index));
                if let Some(q) = q {
                    rescore |= q.effort != effort;
                    q.effort = effort;
                }
            }
        }
        if rescore && self.run.turns() == self.session.turns.len() {
            self.run.rescore_last(&self.scorer, &self.session);
            self.show_score(false);
        }
        answers.len()
    }

    fn count_tier(&mut self, tier: Option<Tier>) {
        if let Some(t) = tier {
            self.tiers[tier_index(t)] += 1;
        }
    }

    fn fired(&mut self, nudges: Vec<Nudge>) {
        for nudge in nudges {
            let index = self.nudges_fired();
            let row = self.push_row(Row::new(
                RowKind::Guidance(index),
                nudge.classifier.as_str(),
            ));
            self.nudges.push_back(Fired {
                nudge,
                row,
                reason: OnceCell::new(),
            });
        }
    }

    /// Scores the turns so far, each new one once (a running score, so a
    /// session costs time linear in its length); `grown`: the last turn
    /// scored got more text. Then the view shows the score.
    fn rescore(&mut self, grown: bool) {
        let scored = self.run.turns();
        if grown && scored == self.session.turns.len() {
            self.run.grow_last(&self.scorer, &self.session);
        } else {
            self.run.push(&self.scorer, &self.session);
        }
        // Turns before the last are never read again: their text goes.
        let last = self.session.turns.len().saturating_sub(1);
        for turn in self
            .session
            .turns
            .get_mut(scored.saturating_sub(1)..last)
            .unwrap_or_default()
        {
            turn.prompt = String::new();
            turn.response = String::new();
            turn.questions = Some(Vec::new());
            turn.events = Vec::new();
        }
        self.show_score(true);
    }

    /// The score pane's figures from the running score; `point`: a new
    /// point of the sparkline.
    fn show_score(&mut self, point: bool) {
        let r = &self.run;
        if point {
            self.spark.push(r.interaction());
        } else if let Some(last) = self.spark.last_mut() {
            *last = r.interaction();
        }
        self.score = Some(ScoreView {
            profile: r.profile().to_owned(),
            turns: self.session.turns.len(),
            r_proact: r.r_proact(),
            r_pers: r.r_pers(),
            interaction: r.interaction(),
            questions: r.questions(),
            violated: r.violated().iter().map(|&(p, n)| (p.as_str(), n)).collect(),
            preferences: self.session.preferences.all().len(),
        });
    }

    // --- keys -----------------------------------------------------------

    /// Handles one key: `q` quits, space pauses, arrows and pages scroll,
    /// `n`/`N` and `h`/`H` jump to the next (previous) nudge and
    /// high-effort question, `1`-`4` toggle panes, tab moves the focus,
    /// `?` shows the help.
    pub fn on_key(&mut self, key: KeyEvent) -> Action {
        if key.kind == KeyEventKind::Release {
            return Action::Continue;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if self.help {
            // Any key closes the help; q still quits.
            self.help = false;
            return match key.code {
                KeyCode::Char('q') => Action::Quit,
                KeyCode::Char('c') if ctrl => Action::Quit,
                _ => Action::Continue,
            };
        }
        match key.code {
            KeyCode::Char('q') => return Action::Quit,
            KeyCode::Char('c') if ctrl => return Action::Quit,
            KeyCode::Char(' ') => self.paused = !self.paused,
            KeyCode::Char('?') => self.help = true,
            KeyCode::Up | KeyCode::Char('k') => self.scroll_by(-1),
            KeyCode::Down | KeyCode::Char('j') => self.scroll_by(1),
            KeyCode::PageUp => self.scroll_by(-(self.page_rows() as isize)),
            KeyCode::PageDown => self.scroll_by(self.page_rows() as isize),
            KeyCode::Home | KeyCode::Char('g') => {
                self.top = Some(0);
                self.cursor = None;
            }
            KeyCode::End | KeyCode::Char('G') => {
                self.top = None;
                self.cursor = None;
                self.nudge_cursor = None;
            }
            KeyCode::Char('n') => self.jump_nudge(true),
            KeyCode::Char('N') => self.jump_nudge(false),
            KeyCode::Char('h') => self.jump_high(true),
            KeyCode::Char('H') => self.jump_high(false),
            KeyCode::Char(c @ '1'..='4') => {
                let i = usize::from(c as u8 - b'1');
                self.shown[i] = !self.shown[i];
                if !self.shown[self.focus.index()] {
                    self.next_focus();
                }
            }
            KeyCode::Tab => self.next_focus(),
            _ => {}
        }
        Action::Continue
    }

    fn page_rows(&self) -> usize {
        self.page.get().saturating_sub(1).max(1)
    }

    /// The top row drawn for a transcript area `height` rows tall.
    pub(crate) fn top_row(&self, height: usize) -> usize {
        let last = self.end_row().saturating_sub(height).max(self.first_row);
        self.top.map_or(last, |t| t.clamp(self.first_row, last))
    }

    fn scroll_by(&mut self, delta: isize) {
        let height = self.page.get().max(1);
        let current = self.top_row(height);
        let last = self.end_row().saturating_sub(height).max(self.first_row);
        let next = current
            .saturating_add_signed(delta)
            .clamp(self.first_row, last);
        self.top = if delta > 0 && next >= last {
            None
        } else {
            Some(next)
        };
    }

    /// Shows `row` in the middle of the transcript, highlighted.
    fn show_row(&mut self, row: usize) {
        self.cursor = Some(row);
        let height = self.page.get().max(1);
        self.top = Some(row.saturating_sub(height / 2));
    }

    fn cursor_row(&self) -> Option<usize> {
        self.cursor.filter(|&c| c >= self.first_row)
    }

    fn jump_nudge(&mut self, forward: bool) {
        let at = self.cursor_row();
        let index = pick(self.nudges.len(), at, forward, |i| self.nudges[i].row);
        if let Some(i) = index {
            self.nudge_cursor = Some(i);
            let row = self.nudges[i].row;
            self.show_row(row);
        }
    }

    fn jump_high(&mut self, forward: bool) {
        let at = self.cursor_row();
        if let Some(i) = pick(self.high_rows.len(), at, forward, |i| self.high_rows[i]) {
            let row = self.high_rows[i];
            self.show_row(row);
        }
    }

    fn next_focus(&mut self) {
        let main = [Pane::Transcript, Pane::Guidance, Pane::Score];
        let start = main.iter().position(|p| *p == self.focus).unwrap_or(0);
        for k in 1..=main.len() {
            let p = main[(start + k) % main.len()];
            if self.shown[p.index()] {
                self.focus = p;
                return;
            }
        }
    }

    /// Whether `pane` is shown.
    pub fn is_shown(&self, pane: Pane) -> bool {
        self.shown[pane.index()]
    }
}

/// The index of the next (or previous) of `len` sorted positions after
/// (before) `at`, wrapping around; the first (last) when there is no `at`.
fn pick(
    len: usize,
    at: Option<usize>,
    forward: bool,
    pos: impl Fn(usize) -> usize,
) -> Option<usize> {
    if len == 0 {
        return None;
    }
    // The first index whose position is not before (forward: not at or
    // before) `at`: a binary search over the sorted positions.
    let first = |pred: &dyn Fn(usize) -> bool| {
        let (mut lo, mut hi) = (0, len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(pos(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    };
    Some(match (at, forward) {
        (None, true) => 0,
        (None, false) => len - 1,
        (Some(a), true) => {
            let i = first(&|p| p <= a);
            if i < len { i } else { 0 }
        }
        (Some(a), false) => {
            let i = first(&|p| p < a);
            if i > 0 { i - 1 } else { len - 1 }
        }
    })
}

fn tier_index(t: Tier) -> usize {
    match t {
        Tier::Heuristic => 0,
        Tier::Learned => 1,
        Tier::Seed => 2,
        _ => 3,
    }
}
