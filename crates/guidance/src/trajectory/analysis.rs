//! The incremental trajectory analysis: one [`TrajectoryAnalysis::update`]
//! per event, amortized constant time over bounded ring buffers, keeping
//! what the guidance classifiers query (counts, recent calls, errors and
//! steps, tool and error frequencies, repeated cycles, progress, message
//! runs, condensations) and the patterns detected so far.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::Hasher;
use std::sync::Arc;

use serde::Serialize;
use tact_types::trajectory::{Event, Mode, ToolCall, Trajectory};

use super::action::{ActionKind, CallView, RANGE_KEYS, finds_nothing};
use super::errors::{error_text, normalize_error};
use super::fingerprint::{
    FoldBuildHasher, FoldHasher, PassThroughBuild, call_summary, hash_output, hash_str, hash_value,
    output_chars,
};
use tact_secrets::{CredentialScanner, REDACTED};

/// Most distinct tool names given their own frequency counter.
const MAX_INTERNED_TOOLS: usize = 4096;

/// Tuning of a [`TrajectoryAnalysis`]. The thresholds only decide when a
/// pattern counts as detected in [`TrajectoryAnalysis::patterns`];
/// classifiers apply their own.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct AnalysisConfig {
    /// Longest call cycle detected (cycles of 1 to this many calls).
    pub max_cycle_len: usize,
    /// How many recent calls, errors and steps are kept (at least
    /// `max_cycle_len`).
    pub recent_capacity: usize,
    /// Repetitions of a cycle of 2 or more calls that make a doom loop.
    pub cycle_repetitions: u32,
    /// Repetitions of one call that make a doom loop.
    pub single_call_repetitions: u32,
    /// Occurrences of one normalized error that make a repeated error.
    pub error_repetitions: u32,
    /// Calls without progress that make a progress stall.
    pub stall_threshold: u32,
    /// Agent messages in a row that make a monologue.
    pub monologue_threshold: u32,
    /// Empty agent messages in a row that make empty responses.
    pub empty_threshold: u32,
    /// Condensations (with two back to back) that make a context-window loop.
    pub condensation_threshold: u32,
    /// Most distinct files, searches, commands, URLs and edits remembered
    /// for progress; once full, unseen ones count as new.
    pub max_tracked_values: usize,
    /// Most distinct normalized errors counted.
    pub max_tracked_errors: usize,
    /// Characters of params kept in a call's summary.
    pub summary_chars: usize,
    /// Characters kept of a normalized error message.
    pub error_chars: usize,
}

impl Default for AnalysisConfig {
    fn default() -> Self {
        Self {
            max_cycle_len: 16,
            recent_capacity: 32,
            cycle_repetitions: 3,
            single_call_repetitions: 4,
            error_repetitions: 3,
            stall_threshold: 5,
            monologue_threshold: 3,
            empty_threshold: 3,
            condensation_threshold: 10,
            max_tracked_values: 65_536,
            max_tracked_errors: 1024,
            summary_chars: 120,
            error_chars: 200,
        }
    }
}

/// Counts over the current window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Counts {
    /// Events in the window.
    pub events: usize,
    /// Agent turns: agent messages plus tool steps (a parallel step is one).
    pub turns: usize,
    /// Tool calls.
    pub calls: usize,
    /// Tool steps.
    pub steps: usize,
    /// Failed tool calls.
    pub errors: usize,
    /// Failed calls at the end of the call sequence.
    pub consecutive_errors: usize,
    /// Distinct tool names called.
    pub unique_tools: usize,
    /// Agent messages.
    pub assistant_messages: usize,
    /// Host-injected nudges.
    pub nudges: usize,
    /// Explicit progress events.
    pub progress_events: usize,
    /// Context condensations.
    pub condensations: usize,
    /// Pairs of condensations with no event between them.
    pub back_to_back_condensations: usize,
}

/// One tool call as remembered by the analysis.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct CallRecord {
    /// 0-based index of the event in the whole trajectory.
    pub position: usize,
    /// The tool's name.
    #[serde(serialize_with = "ser_arc_str")]
    pub name: Arc<str>,
    /// `name {params}`, params cut to a few dozen characters.
    pub summary: Box<str>,
    /// Whether the call succeeded.
    pub ok: bool,
    /// The step number, if given.
    pub step: Option<u64>,
    /// Output length in characters (Unicode scalar values).
    pub output_chars: usize,
    /// Fingerprint of the call's identity: name, canonical params and result.
    pub identity: u64,
    #[serde(skip)]
    name_hash: u64,
}

/// One failed call's normalized error.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ErrorRecord {
    /// 0-based index of the event in the whole trajectory.
    pub position: usize,
    /// The tool that failed.
    #[serde(serialize_with = "ser_arc_str")]
    pub tool: Arc<str>,
    /// The normalized error message (see
    /// [`normalize_error`](super::normalize_error)).
    pub message: Box<str>,
    /// Fingerprint of the normalized message.
    pub fingerprint: u64,
}

/// One step: consecutive calls that share a step number, or a single call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct StepRecord {
    /// The step number, if given.
    pub step: Option<u64>,
    /// Calls in the step.
    pub calls: u32,
    /// The first call's tool.
    #[serde(serialize_with = "ser_arc_str")]
    pub tool: Arc<str>,
    /// Whether every call of the step used the same tool.
    pub single_tool: bool,
    /// Position of the step's first call.
    pub position: usize,
    #[serde(skip)]
    tool_hash: u64,
}

/// A cycle of calls the call sequence ends in, repeated back to back with
/// the same results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Cycle {
    /// Calls per repetition.
    pub len: usize,
    /// Complete repetitions at the end of the sequence.
    pub repetitions: u32,
}

/// The kinds of pattern the analysis detects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PatternKind {
    /// The call sequence ends in a repeated cycle with the same results.
    DoomLoop,
    /// The last failure's normalized error has occurred repeatedly.
    RepeatedError,
    /// Many calls since the last progress.
    ProgressStall,
    /// Many agent messages with no call or user message between them.
    Monologue,
    /// Many empty agent messages in a row.
    EmptyResponses,
    /// Many condensations, two of them back to back.
    ContextWindowLoop,
}

impl PatternKind {
    /// Every kind, in report order.
    pub const ALL: [Self; 6] = [
        Self::DoomLoop,
        Self::RepeatedError,
        Self::ProgressStall,
        Self::Monologue,
        Self::EmptyResponses,
        Self::ContextWindowLoop,
    ];

    /// The kind's snake-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::DoomLoop => "doom_loop",
            Self::RepeatedError => "repeated_error",
            Self::ProgressStall => "progress_stall",
            Self::Monologue => "monologue",
            Self::EmptyResponses => "empty_responses",
            Self::ContextWindowLoop => "context_window_loop",
        }
    }

    fn index(self) -> usize {
        match self {
            Self::DoomLoop => 0,
            Self::RepeatedError => 1,
            Self::ProgressStall => 2,
            Self::Monologue => 3,
            Self::EmptyResponses => 4,
            Self::ContextWindowLoop => 5,
        }
    }
}

/// A pattern that holds after the last event, with its evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct DetectedPattern {
    /// What was detected.
    pub kind: PatternKind,
    /// Position of the event at which this occurrence was first detected.
    pub first_seen: usize,
    /// How many separate times this pattern began in the window.
    pub occurrences: u32,
    /// A one-line description.
    pub description: String,
    /// Supporting details (call summaries, error messages...).
    pub evidence: Vec<String>,
}

#[derive(Debug, Clone, Copy, Default)]
struct PatternState {
    active: bool,
    first_seen: usize,
    occurrences: u32,
}

/// Incremental analysis of one agent trajectory.
///
/// Feed it every event, oldest first; each update costs amortized constant
/// time (plus the size of the event itself) and memory stays bounded by the
/// configured capacities. In [`Mode::Interactive`] every window statistic
/// restarts after each `user` event; nudges do not restart it.
///
/// ```
/// use tact_guidance::TrajectoryAnalysis;
/// use tact_types::{Event, Mode, ToolCall};
///
/// let mut a = TrajectoryAnalysis::new(Mode::Headless);
/// a.update(&Event::user("install deps"));
/// for _ in 0..4 {
///     a.update(&Event::tool(ToolCall::new("shell").params(serde_json::json!({"command": "npm ci"})).ok(false).output("npm ERR! code EINTEGRITY")));
/// }
/// assert_eq!(a.counts().consecutive_errors, 4);
/// let cycle = a.cycle(1, 1, 4).unwrap();
/// assert_eq!((cycle.len, cycle.repetitions), (1, 4));
/// assert_eq!(a.error_frequencies()[0], ("npm ERR! code EINTEGRITY", 4));
/// ```
#[derive(Debug, Clone)]
pub struct TrajectoryAnalysis {
    config: AnalysisConfig,
    mode: Mode,
    position: usize,
    window_start: usize,
    lifetime_turns: usize,
    lifetime_calls: usize,
    counts: Counts,
    calls: VecDeque<CallRecord>,
    errors: VecDeque<ErrorRecord>,
    steps: VecDeque<StepRecord>,
    /// `runs[l]`: trailing calls equal to the call `l` before them.
    runs: Vec<u32>,
    tool_ids: HashMap<Box<str>, u32, FoldBuildHasher>,
    tool_names: Vec<Arc<str>>,
    tool_freq: Vec<u32>,
    touched_tools: Vec<u32>,
    error_freq: HashMap<u64, (u32, Box<str>), PassThroughBuild>,
    seen_values: HashSet<u64, PassThroughBuild>,
    calls_since_progress: usize,
    monologue_run: usize,
    empty_run: usize,
    last_was_condensation: bool,
    patterns: [PatternState; 6],
}

impl Default for TrajectoryAnalysis {
    fn default() -> Self {
        Self::new(Mode::Headless)
    }
}

impl TrajectoryAnalysis {
    /// An empty analysis with the default configuration.
    pub fn new(mode: Mode) -> Self {
        Self::with_config(mode, AnalysisConfig::default())
    }

    /// An empty analysis with `config`.
    pub fn with_config(mode: Mode, mut config: AnalysisConfig) -> Self {
        config.max_cycle_len = config.max_cycle_len.max(1);
        config.recent_capacity = config.recent_capacity.max(config.max_cycle_len).max(8);
        let cap = config.recent_capacity;
        Self {
            runs: vec![0; config.max_cycle_len + 1],
            config,
            mode,
            position: 0,
            window_start: 0,
            lifetime_turns: 0,
            lifetime_calls: 0,
            counts: Counts::default(),
            calls: VecDeque::with_capacity(cap),
            errors: VecDeque::with_capacity(cap),
            steps: VecDeque::with_capacity(cap),
            tool_ids: HashMap::default(),
            tool_names: Vec::new(),
            tool_freq: Vec::new(),
            touched_tools: Vec::new(),
            error_freq: HashMap::default(),
            seen_values: HashSet::default(),
            calls_since_progress: 0,
            monologue_run: 0,
            empty_run: 0,
            last_was_condensation: false,
            patterns: [PatternState::default(); 6],
        }
    }

    /// Analyses every event of `trajectory` in its mode.
    pub fn from_trajectory(trajectory: &Trajectory) -> Self {
        let mut a = Self::new(trajectory.mode);
        a.extend(&trajectory.events);
        a
    }

    /// Updates with each event in order.
    pub fn extend<'a>(&mut self, events: impl IntoIterator<Item = &'a Event>) {
        for e in events {
            self.update(e);
        }
    }

    /// The configuration in use.
    pub fn config(&self) -> &AnalysisConfig {
        &self.config
    }

    /// The window mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Events seen in all (the position the next event will have).
    pub fn position(&self) -> usize {
        self.position
    }

    /// Position of the first event of the current window.
    pub fn window_start(&self) -> usize {
        self.window_start
    }

    /// Agent turns over the whole trajectory (never restarts): a clock for
    /// cooldowns.
    pub fn lifetime_turns(&self) -> usize {
        self.lifetime_turns
    }

    /// Tool calls over the whole trajectory (never restarts).
    pub fn lifetime_calls(&self) -> usize {
        self.lifetime_calls
    }

    /// Counts over the current window.
    pub fn counts(&self) -> &Counts {
        &self.counts
    }

    /// The last `n` calls of the window (at most the recent capacity),
    /// oldest first.
    pub fn recent_calls(
        &self,
        n: usize,
    ) -> impl DoubleEndedIterator<Item = &CallRecord> + ExactSizeIterator {
        let skip = self.calls.len().saturating_sub(n);
        self.calls.range(skip..)
    }

    /// The last call of the window.
    pub fn last_call(&self) -> Option<&CallRecord> {
        self.calls.back()
    }

    /// The last `n` errors of the window (at most the recent capacity),
    /// oldest first.
    pub fn recent_errors(
        &self,
        n: usize,
    ) -> impl DoubleEndedIterator<Item = &ErrorRecord> + ExactSizeIterator {
        let skip = self.errors.len().saturating_sub(n);
        self.errors.range(skip..)
    }

    /// The last `n` steps of the window (at most the recent capacity),
    /// oldest first.
    pub fn recent_steps(
        &self,
        n: usize,
    ) -> impl DoubleEndedIterator<Item = &StepRecord> + ExactSizeIterator {
        let skip = self.steps.len().saturating_sub(n);
        self.steps.range(skip..)
    }

    /// Calls per tool name in the window, most frequent first.
    pub fn tool_frequencies(&self) -> Vec<(&str, u32)> {
        let mut v: Vec<(&str, u32)> = self
            .touched_tools
            .iter()
            .filter_map(|&id| {
                let i = id as usize;
                Some((self.tool_names.get(i)?.as_ref(), *self.tool_freq.get(i)?))
            })
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        v
    }

    /// Occurrences per normalized error message in the window, most
    /// frequent first.
    pub fn error_frequencies(&self) -> Vec<(&str, u32)> {
        let mut v: Vec<(&str, u32)> = self.error_freq.values().map(|(n, m)| (&**m, *n)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        v
    }

    /// How often the normalized error with this fingerprint occurred in the
    /// window.
    pub fn error_count(&self, fingerprint: u64) -> u32 {
        self.error_freq.get(&fingerprint).map_or(0, |e| e.0)
    }

    /// The shortest cycle of `min_len..=max_len` calls (bounded by the
    /// configured `max_cycle_len`) that the window's call sequence ends in,
    /// repeated back to back at least `min_repetitions` times (and at least
    /// twice) with the same results. Costs at most `max_cycle_len` steps.
    pub fn cycle(&self, min_len: usize, max_len: usize, min_repetitions: u32) -> Option<Cycle> {
        let need = min_repetitions.max(2);
        let hi = max_len.min(self.config.max_cycle_len);
        (min_len.max(1)..=hi).find_map(|len| {
            let run = *self.runs.get(len)? as usize;
            let repetitions = u32::try_from(run / len + 1).unwrap_or(u32::MAX);
            (run >= len && repetitions >= need).then_some(Cycle { len, repetitions })
        })
    }

    /// The calls of one repetition of `cycle` (the last `cycle.len` calls),
    /// oldest first.
    pub fn cycle_calls(&self, cycle: Cycle) -> impl Iterator<Item = &CallRecord> {
        self.recent_calls(cycle.len)
    }

    /// Calls since the last progress: a `progress` event, or a successful
    /// call that, on its normalized view ([`CallView`]), commits, edits a
    /// file with content new to the window (an edit whose content the log
    /// does not carry counts each time; one that changes nothing never),
    /// or reads a file, runs a search or command or fetches a URL new to
    /// the window. A call that only waits on a running command (a poll)
    /// neither counts nor resets. Counts from the window's start when there
    /// was none.
    pub fn calls_since_progress(&self) -> usize {
        self.calls_since_progress
    }

    /// Agent messages at the end with no call or user message after them
    /// (nudges, progress and condensations neither count nor break).
    pub fn monologue_run(&self) -> usize {
        self.monologue_run
    }

    /// Empty or white-space agent messages at the end, counted like
    /// [`Self::monologue_run`] and broken by a non-empty one.
    pub fn empty_run(&self) -> usize {
        self.empty_run
    }

    /// Updates the analysis with the next event.
    pub fn update(&mut self, event: &Event) {
        let position = self.position;
        self.position += 1;
        match event {
            Event::User { .. } => {
                if self.mode == Mode::Interactive {
                    self.reset_window(position + 1);
                    return;
                }
                self.counts.events += 1;
                self.monologue_run = 0;
                self.empty_run = 0;
                self.last_was_condensation = false;
            }
            Event::Tool(call) => {
                self.counts.events += 1;
                self.tool(position, call);
                self.last_was_condensation = false;
            }
            Event::Assistant { text } => {
                self.counts.events += 1;
                self.counts.assistant_messages += 1;
                self.counts.turns += 1;
                self.lifetime_turns += 1;
                self.monologue_run += 1;
                if text.trim().is_empty() {
                    self.empty_run += 1;
                } else {
                    self.empty_run = 0;
                }
                self.last_was_condensation = false;
            }
            Event::Nudge { .. } => {
                self.counts.events += 1;
                self.counts.nudges += 1;
                self.last_was_condensation = false;
            }
            Event::Progress { .. } => {
                self.counts.events += 1;
                self.counts.progress_events += 1;
                self.calls_since_progress = 0;
                self.last_was_condensation = false;
            }
            Event::Condensation => {
                self.counts.events += 1;
                self.counts.condensations += 1;
                if self.last_was_condensation {
                    self.counts.back_to_back_condensations += 1;
                }
                self.last_was_condensation = true;
            }
            _ => {
                self.counts.events += 1;
                self.last_was_condensation = false;
            }
        }
        self.track_patterns(position, matches!(event, Event::Tool(_)));
    }

    fn tool(&mut self, position: usize, call: &ToolCall) {
        let name_hash = hash_str(&call.name);
        let identity = {
            let mut h = FoldHasher::with_seed(0x63_616c6c);
            h.write_u64(name_hash);
            h.write_u64(hash_value(&call.params));
            h.write_u8(u8::from(call.ok));
            h.write_u64(hash_output(&call.output));
            // An output kept as its head: its whole length tells it apart.
            if let Some(n) = call.output_chars {
                h.write_usize(n);
            }
            h.finish()
        };

        // Repeated cycles: compare with the call `len` calls back.
        let n = self.calls.len();
        for len in 1..self.runs.len() {
            let same = n >= len
                && self
                    .calls
                    .get(n - len)
                    .is_some_and(|c| c.identity == identity);
            if let Some(r) = self.runs.get_mut(len) {
                *r = if same { r.saturating_add(1) } else { 0 };
            }
        }

        let name = self.intern(&call.name);

        // Steps and turns.
        let same_step = match (call.step, self.steps.back_mut()) {
            (Some(s), Some(last)) if last.step == Some(s) => {
                last.calls = last.calls.saturating_add(1);
                last.single_tool &= last.tool_hash == name_hash;
                true
            }
            _ => false,
        };
        if !same_step {
            push_bounded(
                &mut self.steps,
                StepRecord {
                    step: call.step,
                    calls: 1,
                    tool: Arc::clone(&name),
                    single_tool: true,
                    position,
                    tool_hash: name_hash,
                },
                self.config.recent_capacity,
            );
            self.counts.steps += 1;
            self.counts.turns += 1;
            self.lifetime_turns += 1;
        }

        self.counts.calls += 1;
        self.lifetime_calls += 1;

        // Errors.
        if call.ok {
            self.counts.consecutive_errors = 0;
        } else {
            self.counts.errors += 1;
            self.counts.consecutive_errors += 1;
            // Error messages are shown in reasons: never with a credential.
            let text = error_text(&call.output);
            let text = CredentialScanner::default()
                .redact_text(&text)
                .map_or_else(|_| REDACTED.to_owned(), std::borrow::Cow::into_owned);
            let message: Box<str> =
                normalize_error(&text, self.config.error_chars).into_boxed_str();
            let fingerprint = hash_str(&message);
            if let Some(e) = self.error_freq.get_mut(&fingerprint) {
                e.0 = e.0.saturating_add(1);
            } else if self.error_freq.len() < self.config.max_tracked_errors {
                self.error_freq.insert(fingerprint, (1, message.clone()));
            }
            push_bounded(
                &mut self.errors,
                ErrorRecord {
                    position,
                    tool: Arc::clone(&name),
                    message,
                    fingerprint,
                },
                self.config.recent_capacity,
            );
        }

        // Progress: a successful call that changes content (an edit that
        // changes it, a commit) or brings new ground (a file, search,
        // command or URL new to the window), judged on the call's
        // normalized view whatever the tool names its params.
        let progress = match progress_mark(&call.name, &call.params, &call.output) {
            Progress::Always => Some(true),
            Progress::Never => Some(false),
            Progress::Wait => None,
            Progress::IfNew(fp) => {
                let new = !self.seen_values.contains(&fp);
                if new && self.seen_values.len() < self.config.max_tracked_values {
                    self.seen_values.insert(fp);
                }
                // Once full, unseen values count as new.
                Some(new)
            }
        };
        match progress {
            Some(true) if call.ok => self.calls_since_progress = 0,
            // Waiting on a running command is no action of its own.
            None => {}
            _ => self.calls_since_progress += 1,
        }

        self.monologue_run = 0;
        self.empty_run = 0;

        push_bounded(
            &mut self.calls,
            CallRecord {
                position,
                summary: redacted_summary(&call.name, &call.params, self.config.summary_chars)
                    .into_boxed_str(),
                name,
                ok: call.ok,
                step: call.step,
                output_chars: call
                    .output_chars
                    .unwrap_or_else(|| output_chars(&call.output)),
                identity,
                name_hash,
            },
            self.config.recent_capacity,
        );
    }

    /// Returns the shared name and counts the call in the window frequencies.
    fn intern(&mut self, name: &str) -> Arc<str> {
        let id = match self.tool_ids.get(name) {
            Some(&id) => Some(id),
            None if self.tool_names.len() < MAX_INTERNED_TOOLS => {
                let id = u32::try_from(self.tool_names.len()).unwrap_or(u32::MAX);
                self.tool_ids.insert(name.into(), id);
                self.tool_names.push(Arc::from(name));
                self.tool_freq.push(0);
                Some(id)
            }
            None => None,
        };
        let Some(id) = id else {
            // Too many distinct names: not counted per tool.
            self.counts.unique_tools += 1;
            return Arc::from(name);
        };
        let i = id as usize;
        if let Some(f) = self.tool_freq.get_mut(i) {
            if *f == 0 {
                self.touched_tools.push(id);
                self.counts.unique_tools += 1;
            }
            *f = f.saturating_add(1);
        }
        self.tool_names
            .get(i)
            .map_or_else(|| Arc::from(name), Arc::clone)
    }

    fn reset_window(&mut self, start: usize) {
        self.window_start = start;
        self.counts = Counts::default();
        self.calls.clear();
        self.errors.clear();
        self.steps.clear();
        self.runs.fill(0);
        for id in self.touched_tools.drain(..) {
            if let Some(f) = self.tool_freq.get_mut(id as usize) {
                *f = 0;
            }
        }
        clear_set(&mut self.error_freq);
        clear_set(&mut self.seen_values);
        self.calls_since_progress = 0;
        self.monologue_run = 0;
        self.empty_run = 0;
        self.last_was_condensation = false;
        self.patterns = [PatternState::default(); 6];
    }

    fn is_active(&self, kind: PatternKind) -> bool {
        let c = &self.config;
        match kind {
            PatternKind::DoomLoop => self.doom_cycle().is_some(),
            PatternKind::RepeatedError => self.repeated_error().is_some(),
            PatternKind::ProgressStall => self.calls_since_progress >= c.stall_threshold as usize,
            PatternKind::Monologue => self.monologue_run >= c.monologue_threshold as usize,
            PatternKind::EmptyResponses => self.empty_run >= c.empty_threshold as usize,
            PatternKind::ContextWindowLoop => {
                self.counts.condensations >= c.condensation_threshold as usize
                    && self.counts.back_to_back_condensations > 0
            }
        }
    }

    fn track_patterns(&mut self, position: usize, was_tool: bool) {
        for kind in PatternKind::ALL {
            // Only tool events can change the call-based patterns.
            if matches!(kind, PatternKind::DoomLoop | PatternKind::RepeatedError) && !was_tool {
                continue;
            }
            let active = self.is_active(kind);
            let st = &mut self.patterns[kind.index()];
            if active && !st.active {
                st.first_seen = position;
                st.occurrences = st.occurrences.saturating_add(1);
            }
            st.active = active;
        }
    }

    /// The doom loop by the configured thresholds: one call repeated
    /// `single_call_repetitions` times, or a longer cycle repeated
    /// `cycle_repetitions` times.
    pub fn doom_cycle(&self) -> Option<Cycle> {
        let c = &self.config;
        self.cycle(1, 1, c.single_call_repetitions)
            .or_else(|| self.cycle(2, c.max_cycle_len, c.cycle_repetitions))
    }

    /// The last failure's error and its count when the last call failed
    /// and that normalized error occurred at least `error_repetitions`
    /// times in the window.
    pub fn repeated_error(&self) -> Option<(&ErrorRecord, u32)> {
        if self.counts.consecutive_errors == 0 {
            return None;
        }
        let last = self.errors.back()?;
        let n = self.error_count(last.fingerprint);
        (n >= self.config.error_repetitions).then_some((last, n))
    }

    /// Position at which the current occurrence of `kind` was first
    /// detected, if the pattern holds after the last event (cheap: no
    /// evidence is built).
    pub fn pattern_first_seen(&self, kind: PatternKind) -> Option<usize> {
        let st = self.patterns[kind.index()];
        st.active.then_some(st.first_seen)
    }

    /// The pattern of `kind` if it holds after the last event.
    pub fn pattern(&self, kind: PatternKind) -> Option<DetectedPattern> {
        let st = self.patterns[kind.index()];
        if !st.active {
            return None;
        }
        let (description, evidence) = match kind {
            PatternKind::DoomLoop => {
                let cycle = self.doom_cycle()?;
                let calls: Vec<String> = self
                    .cycle_calls(cycle)
                    .map(|c| c.summary.to_string())
                    .collect();
                (
                    format!(
                        "a cycle of {} call{} repeated {}x with the same results",
                        cycle.len,
                        if cycle.len == 1 { "" } else { "s" },
                        cycle.repetitions
                    ),
                    calls,
                )
            }
            PatternKind::RepeatedError => {
                let (e, n) = self.repeated_error()?;
                (format!("the same error {n}x"), vec![e.message.to_string()])
            }
            PatternKind::ProgressStall => (
                format!(
                    "{} calls since the last progress",
                    self.calls_since_progress
                ),
                self.recent_calls(self.calls_since_progress)
                    .map(|c| c.summary.to_string())
                    .collect(),
            ),
            PatternKind::Monologue => (
                format!("{} agent messages in a row", self.monologue_run),
                Vec::new(),
            ),
            PatternKind::EmptyResponses => (
                format!("{} empty agent messages in a row", self.empty_run),
                Vec::new(),
            ),
            PatternKind::ContextWindowLoop => (
                format!(
                    "{} condensations, {} back to back",
                    self.counts.condensations, self.counts.back_to_back_condensations
                ),
                Vec::new(),
            ),
        };
        Some(DetectedPattern {
            kind,
            first_seen: st.first_seen,
            occurrences: st.occurrences,
            description,
            evidence,
        })
    }

    /// Every pattern that holds after the last event, in
    /// [`PatternKind::ALL`] order.
    pub fn patterns(&self) -> Vec<DetectedPattern> {
        PatternKind::ALL
            .iter()
            .filter_map(|&k| self.pattern(k))
            .collect()
    }
}

fn ser_arc_str<S: serde::Serializer>(s: &Arc<str>, ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(s)
}

/// What a call means for progress.
enum Progress {
    /// It is progress whenever it succeeds (a commit; an edit the log says
    /// was applied without its content).
    Always,
    /// It never is (an edit that changes nothing, a call of no known kind).
    Never,
    /// It neither is nor counts: it waits on a command already running.
    Wait,
    /// It is when this fingerprint is new to the window.
    IfNew(u64),
}

/// A call's progress mark, from its normalized view (and, for a search,
/// whether its output found anything).
fn progress_mark(name: &str, params: &serde_json::Value, output: &serde_json::Value) -> Progress {
    let view = CallView::of(name, params);
    let mark = |tag: &str, parts: &[Option<&str>]| {
        let mut h = FoldHasher::with_seed(0x70_726f67);
        h.write(tag.as_bytes());
        for p in parts {
            h.write_u64(p.map_or(0, hash_str));
        }
        Progress::IfNew(h.finish())
    };
    let file = view.file.as_deref();
    match view.kind {
        ActionKind::Commit => Progress::Always,
        ActionKind::Wait => Progress::Wait,
        ActionKind::Edit => match (view.changes, view.content) {
            (Some(false), _) => Progress::Never,
            (_, Some(content)) => {
                let mut h = FoldHasher::with_seed(0x65_646974);
                h.write_u64(file.map_or(0, hash_str));
                h.write_u64(hash_value(content));
                Progress::IfNew(h.finish())
            }
            (_, None) => Progress::Always,
        },
        ActionKind::Read => {
            // Another part of the same file is new ground too.
            let range = RANGE_KEYS
                .iter()
                .filter_map(|k| params.get(*k))
                .map(hash_value)
                .fold(0u64, |a, h| a.rotate_left(7) ^ h);
            let mut h = FoldHasher::with_seed(0x72_656164);
            h.write_u64(file.map_or(0, hash_str));
            h.write_u64(range);
            Progress::IfNew(h.finish())
        }
        // A search is new ground when it finds something.
        ActionKind::Search if finds_nothing(output) => Progress::Never,
        ActionKind::Search => Progress::IfNew(hash_value(params) ^ 0x7365_6172_6368),
        ActionKind::Command => mark("command", &[view.command.as_deref()]),
        ActionKind::Fetch => mark("url", &[view.url]),
        _ => match (file, view.command.as_deref(), view.url) {
            (None, None, None) => Progress::Never,
            (f, c, u) => mark("other", &[f, c, u]),
        },
    }
}

fn push_bounded<T>(q: &mut VecDeque<T>, item: T, cap: usize) {
    if q.len() >= cap {
        q.pop_front();
    }
    q.push_back(item);
}

/// Empties a hash container, dropping its allocation when it grew large so
/// that later clears stay cheap.
fn clear_set<C: Clearable>(c: &mut C) {
    if c.capacity() > 1024 {
        *c = C::default();
    } else {
        c.clear();
    }
}

trait Clearable: Default {
    fn capacity(&self) -> usize;
    fn clear(&mut self);
}

impl<K, V> Clearable for HashMap<K, V, PassThroughBuild> {
    fn capacity(&self) -> usize {
        HashMap::capacity(self)
    }
    fn clear(&mut self) {
        HashMap::clear(self);
    }
}

impl<K> Clearable for HashSet<K, PassThroughBuild> {
    fn capacity(&self) -> usize {
        HashSet::capacity(self)
    }
    fn clear(&mut self) {
        HashSet::clear(self);
    }
}

/// A call's summary as reasons show it: from its params with every
/// credential the scanner recognises redacted (the params themselves are
/// only redacted when the scanner finds one, so a clean call costs a scan).
fn redacted_summary(name: &str, params: &serde_json::Value, limit: usize) -> String {
    let scanner = CredentialScanner::default();
    let summary = match scanner.scan(params) {
        Ok(None) => call_summary(name, params, limit),
        Ok(Some(_)) => match scanner.redact(params) {
            Ok(clean) => call_summary(name, &clean, limit),
            Err(_) => format!("{name} {REDACTED}"),
        },
        Err(_) => format!("{name} {REDACTED}"),
    };
    // A cut may leave half a credential the params scan saw whole; the
    // name may carry one too.
    match scanner.redact_text(&summary) {
        Ok(clean) => clean.into_owned(),
        Err(_) => format!("{name} {REDACTED}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tact_types::trajectory::ProgressKind;

    fn call(name: &str, params: serde_json::Value, ok: bool, out: &str) -> Event {
        Event::tool(ToolCall::new(name).params(params).ok(ok).output(out))
    }

    #[test]
    fn cycles_of_one_and_more_calls() {
        let mut a = TrajectoryAnalysis::default();
        let x = call("w", json!({"p": 1}), true, "ok");
        let y = call("t", json!({}), false, "fail");
        for _ in 0..3 {
            a.update(&x);
            a.update(&Event::assistant("again"));
            a.update(&y);
        }
        let c = a.cycle(2, 16, 3).unwrap();
        assert_eq!((c.len, c.repetitions), (2, 3));
        assert!(a.cycle(1, 1, 2).is_none());
        assert_eq!(a.doom_cycle(), Some(c));
        let names: Vec<&str> = a.cycle_calls(c).map(|c| &*c.name).collect();
        assert_eq!(names, ["w", "t"]);
        let p = a.pattern(PatternKind::DoomLoop).unwrap();
        assert_eq!(p.first_seen, 8);
        assert_eq!(p.evidence, ["w {\"p\":1}", "t"]);
        a.update(&call("other", json!({}), true, ""));
        assert!(a.doom_cycle().is_none());
        assert!(a.patterns().iter().all(|p| p.kind != PatternKind::DoomLoop));
    }

    #[test]
    fn interactive_windows_restart_at_user_not_nudge() {
        let mut a = TrajectoryAnalysis::new(Mode::Interactive);
        let f = call("sh", json!({"command": "x"}), false, "err");
        a.update(&f);
        a.update(&f);
        a.update(&Event::nudge("stop"));
        a.update(&f);
        assert_eq!(a.counts().consecutive_errors, 3);
        a.update(&Event::user("try again"));
        assert_eq!(a.counts().calls, 0);
        assert_eq!(a.window_start(), 5);
        assert_eq!(a.lifetime_calls(), 3);
        assert!(a.tool_frequencies().is_empty());
        a.update(&f);
        assert_eq!(a.tool_frequencies(), [("sh", 1)]);
        assert_eq!(a.counts().unique_tools, 1);
    }

    #[test]
    fn progress_values_messages_and_condensations() {
        let mut a = TrajectoryAnalysis::default();
        a.update(&call("read", json!({"path": "a"}), true, ""));
        assert_eq!(a.calls_since_progress(), 0);
        a.update(&call("read", json!({"file": "a"}), true, ""));
        a.update(&call("read", json!({"path": "b"}), false, ""));
        a.update(&call("read", json!({"path": "b"}), true, ""));
        assert_eq!(a.calls_since_progress(), 3);
        a.update(&Event::progress(ProgressKind::TestPassed));
        assert_eq!(a.calls_since_progress(), 0);
        a.update(&Event::assistant(""));
        a.update(&Event::condensation());
        a.update(&Event::assistant(" "));
        assert_eq!((a.monologue_run(), a.empty_run()), (2, 2));
        a.update(&Event::assistant("x"));
        assert_eq!((a.monologue_run(), a.empty_run()), (3, 0));
        a.update(&Event::condensation());
        a.update(&Event::condensation());
        assert_eq!(a.counts().back_to_back_condensations, 1);
        assert_eq!(a.counts().turns, 7);
    }

    #[test]
    fn steps_group_consecutive_calls_with_one_number() {
        let mut a = TrajectoryAnalysis::default();
        let s = |n: &str, step| Event::tool(ToolCall::new(n).step(step));
        a.update(&s("read_file", 1));
        a.update(&s("grep", 1));
        a.update(&Event::tool(ToolCall::new("read_file")));
        a.update(&Event::tool(ToolCall::new("read_file")));
        a.update(&s("search", 2));
        let steps: Vec<(u32, bool)> = a
            .recent_steps(10)
            .map(|s| (s.calls, s.single_tool))
            .collect();
        assert_eq!(steps, [(2, false), (1, true), (1, true), (1, true)]);
        assert_eq!(a.counts().turns, 4);
    }

    #[test]
    fn errors_are_normalized_and_counted() {
        let mut a = TrajectoryAnalysis::default();
        a.update(&call("t", json!({}), false, "panic at src/a.rs:10:5"));
        a.update(&call("t", json!({"x": 1}), false, "panic at /b/a.rs:99:1"));
        a.update(&call("t", json!({"x": 2}), false, " panic at a.rs:1:1 "));
        let (e, n) = a.repeated_error().unwrap();
        assert_eq!((&*e.message, n), ("panic at a.rs:#:#", 3));
        assert_eq!(a.recent_errors(2).count(), 2);
        assert_eq!(a.pattern(PatternKind::RepeatedError).unwrap().first_seen, 2);
    }

    #[test]
    fn rings_stay_bounded() {
        let mut a = TrajectoryAnalysis::default();
        for i in 0..1000 {
            a.update(&call("t", json!({"path": i}), i % 2 == 0, "x"));
        }
        assert_eq!(a.recent_calls(usize::MAX).len(), 32);
        assert_eq!(a.recent_errors(usize::MAX).len(), 32);
        assert_eq!(a.counts().calls, 1000);
        assert_eq!(a.last_call().unwrap().position, 999);
    }
}
