//! Guidance providers: turn a classifier's result into a short nudge for
//! the agent, paired with their classifier and gating
//! ([`GuidanceProviderConfig`]), and the [`Guide`] a host feeds events to
//! and gets nudges back from, with cooldowns, per-turn limits and one nudge
//! per streak.

use std::panic::{AssertUnwindSafe, catch_unwind};

use serde::Serialize;
use serde_json::Value;
use tact_types::trajectory::{Event, Mode, PendingCall};

use crate::classifiers::{
    ContextWindowLoopClassifier, DoomLoopClassifier, EmptyResponseClassifier,
    ErrorStreakClassifier, HighToolCountClassifier, LargeOutputClassifier, MonologueClassifier,
    ProgressStallClassifier, SensitiveContentClassifier, SequentialWhenParallelClassifier,
};
use crate::framework::{
    ClassificationResult, ClassifierConfig, CooldownTracker, GuidanceClassifier, GuidanceContext,
    classify_guarded,
};
use crate::trajectory::TrajectoryAnalysis;

/// Turns a firing classifier's result into guidance text for the agent.
pub trait GuidanceProvider: Send + Sync {
    /// A stable identifier.
    fn name(&self) -> &str;
    /// The nudge, or `None` to stay silent this time.
    fn guidance(&self, result: &ClassificationResult, ctx: &GuidanceContext<'_>) -> Option<String>;
}

/// Breaks doom loops by naming the repeated calls.
#[derive(Debug, Clone, Copy, Default)]
pub struct DoomLoopBreaker;

impl GuidanceProvider for DoomLoopBreaker {
    fn name(&self) -> &str {
        "doom_loop_breaker"
    }

    fn guidance(
        &self,
        result: &ClassificationResult,
        _ctx: &GuidanceContext<'_>,
    ) -> Option<String> {
        let calls: Vec<String> = match result.metadata.get("cycle") {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .map(|s| format!("`{s}`"))
                .collect(),
            _ => Vec::new(),
        };
        let times = result
            .metadata
            .get("repetitions")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let what = if calls.is_empty() {
            "the same calls".to_owned()
        } else {
            calls.join(" then ")
        };
        Some(format!(
            "You are in a loop: {what} ran {times} times in a row with the same results. \
             Repeating it will not change the outcome. Stop, re-read the last result, question \
             your assumption, and try a different approach (other parameters, another tool), or \
             ask the user."
        ))
    }
}

/// Lists the normalized errors of an error streak and asks for a diagnosis.
#[derive(Debug, Clone, Copy, Default)]
pub struct DiagnosticSignalProvider;

impl GuidanceProvider for DiagnosticSignalProvider {
    fn name(&self) -> &str {
        "diagnostic_signal"
    }

    fn guidance(
        &self,
        _result: &ClassificationResult,
        ctx: &GuidanceContext<'_>,
    ) -> Option<String> {
        let streak = ctx.analysis.counts().consecutive_errors;
        if streak == 0 {
            return None;
        }
        let mut text = format!("Your last {streak} tool calls failed:");
        // Consecutive identical (normalized) errors are listed once with a count.
        let mut lines: Vec<(String, usize)> = Vec::new();
        for e in ctx.analysis.recent_errors(streak.min(5)) {
            let line = format!("{}: {}", e.tool, e.message);
            match lines.last_mut() {
                Some((last, n)) if *last == line => *n += 1,
                _ => lines.push((line, 1)),
            }
        }
        for (line, n) in lines {
            if n > 1 {
                text.push_str(&format!("\n- {line} (x{n})"));
            } else {
                text.push_str(&format!("\n- {line}"));
            }
        }
        text.push_str(
            "\nDiagnose the root cause before the next call: read the error, check the environment \
             and your inputs. Do not retry a failing call unchanged.",
        );
        Some(text)
    }
}

/// Reminds the agent to batch independent read-only calls.
#[derive(Debug, Clone, Copy, Default)]
pub struct ParallelToolReminder;

impl GuidanceProvider for ParallelToolReminder {
    fn name(&self) -> &str {
        "parallel_tool_reminder"
    }

    fn guidance(
        &self,
        result: &ClassificationResult,
        _ctx: &GuidanceContext<'_>,
    ) -> Option<String> {
        let tools: Vec<&str> = match result.metadata.get("tools") {
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let mut uniq: Vec<&str> = Vec::new();
        for t in tools {
            if !uniq.contains(&t) {
                uniq.push(t);
            }
        }
        let which = if uniq.is_empty() {
            "read-only".to_owned()
        } else {
            uniq.join(", ")
        };
        Some(format!(
            "You issued independent {which} calls one per step. Batch independent reads: issue them \
             together in one step so they run in parallel."
        ))
    }
}

/// A fixed nudge followed by the classifier's reason in parentheses.
#[derive(Debug, Clone)]
pub struct MessageNudge {
    name: String,
    text: String,
}

impl MessageNudge {
    /// A provider named `name` that says `text`.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            text: text.into(),
        }
    }
}

impl GuidanceProvider for MessageNudge {
    fn name(&self) -> &str {
        &self.name
    }

    fn guidance(
        &self,
        result: &ClassificationResult,
        _ctx: &GuidanceContext<'_>,
    ) -> Option<String> {
        Some(match &result.reason {
            Some(reason) => format!("{} ({reason})", self.text),
            None => self.text.clone(),
        })
    }
}

/// A provider paired with the classifier that triggers it, and how often
/// it may speak.
pub struct GuidanceProviderConfig {
    /// Writes the nudge.
    pub provider: Box<dyn GuidanceProvider>,
    /// Decides when.
    pub classifier: Box<dyn GuidanceClassifier>,
    /// Most nudges from this provider in one turn (default 1).
    pub max_per_turn: u32,
    /// Minimum confidence, cooldown in turns, most fires per session.
    pub config: ClassifierConfig,
}

impl GuidanceProviderConfig {
    /// `provider` triggered by `classifier`, at most once per turn, no
    /// cooldown.
    pub fn new(
        provider: impl GuidanceProvider + 'static,
        classifier: impl GuidanceClassifier + 'static,
    ) -> Self {
        Self {
            provider: Box::new(provider),
            classifier: Box::new(classifier),
            max_per_turn: 1,
            config: ClassifierConfig::default(),
        }
    }

    /// Sets the most nudges per turn (builder style).
    #[must_use]
    pub fn max_per_turn(mut self, n: u32) -> Self {
        self.max_per_turn = n;
        self
    }

    /// Sets the cooldown in turns (builder style).
    #[must_use]
    pub fn cooldown_turns(mut self, turns: usize) -> Self {
        self.config.cooldown_turns = turns;
        self
    }

    /// Sets the most nudges per session (builder style).
    #[must_use]
    pub fn max_fires_per_session(mut self, n: u32) -> Self {
        self.config.max_fires_per_session = Some(n);
        self
    }

    /// Sets the minimum confidence (builder style).
    #[must_use]
    pub fn min_confidence(mut self, c: f32) -> Self {
        self.config.min_confidence = c;
        self
    }
}

/// The default providers, highest priority first: the doom-loop breaker,
/// the error-streak diagnostic, nudges for empty replies, monologues,
/// context-window loops and credentials in pending calls, then efficiency
/// hints with cooldowns (large outputs, stalls, batching reads, many
/// calls).
pub fn default_providers() -> Vec<GuidanceProviderConfig> {
    vec![
        GuidanceProviderConfig::new(DoomLoopBreaker, DoomLoopClassifier::default()),
        GuidanceProviderConfig::new(DiagnosticSignalProvider, ErrorStreakClassifier::default()),
        GuidanceProviderConfig::new(
            MessageNudge::new(
                "empty_response_nudge",
                "Your last replies were empty. Continue the task: call a tool, or say what blocks you.",
            ),
            EmptyResponseClassifier::default(),
        ),
        GuidanceProviderConfig::new(
            MessageNudge::new(
                "monologue_nudge",
                "You have sent several messages without acting. Call a tool to make progress, or ask \
                 the user if you are blocked.",
            ),
            MonologueClassifier::default(),
        ),
        GuidanceProviderConfig::new(
            MessageNudge::new(
                "context_window_nudge",
                "The context keeps overflowing. Work in smaller steps, read only the parts of files \
                 you need, and summarize before going on.",
            ),
            ContextWindowLoopClassifier::default(),
        ),
        GuidanceProviderConfig::new(
            MessageNudge::new(
                "credential_warning",
                "A pending tool call carries a credential. Do not put secrets in tool parameters; \
                 use the configured secret store or environment, or ask the user.",
            ),
            SensitiveContentClassifier::default(),
        ),
        GuidanceProviderConfig::new(
            MessageNudge::new(
                "large_output_hint",
                "That output is very large. Filter or page it (grep, head, line ranges) instead of \
                 reading it whole.",
            ),
            LargeOutputClassifier::default(),
        )
        .cooldown_turns(5),
        GuidanceProviderConfig::new(
            MessageNudge::new(
                "progress_stall_hint",
                "Several calls brought nothing new. Step back, restate the goal and plan the next \
                 concrete step.",
            ),
            ProgressStallClassifier::default(),
        )
        .cooldown_turns(10),
        GuidanceProviderConfig::new(
            ParallelToolReminder,
            SequentialWhenParallelClassifier::default(),
        )
        .cooldown_turns(10),
        GuidanceProviderConfig::new(
            MessageNudge::new(
                "tool_budget_hint",
                "You have made many tool calls. Check that the plan still converges; finish or ask \
                 the user before going further.",
            ),
            HighToolCountClassifier::default(),
        )
        .cooldown_turns(20)
        .max_fires_per_session(3),
    ]
}

/// One nudge produced by a [`Guide`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Nudge {
    /// The provider's name.
    pub provider: String,
    /// The triggering classifier's name.
    pub classifier: String,
    /// Position of the last event seen when it fired.
    pub position: usize,
    /// The turn clock when it fired.
    pub turn: usize,
    /// The guidance text for the agent.
    pub message: String,
    /// The classifier's result.
    pub result: ClassificationResult,
}

struct Slot {
    spec: GuidanceProviderConfig,
    key: String,
    nudged_this_streak: bool,
    turn: usize,
    fires_this_turn: u32,
}

/// Watches a trajectory event by event and says when to inject guidance.
///
/// Each provider nudges when its classifier fires, at most once per streak
/// (it must stop firing before it can nudge again), at most `max_per_turn`
/// times per turn, and subject to its cooldown and session limit. Failing
/// classifiers and providers are skipped (fail-open).
///
/// ```
/// use tact_guidance::Guide;
/// use tact_types::{Event, Mode, ToolCall};
///
/// let mut guide = Guide::new(Mode::Headless);
/// let failing = Event::tool(ToolCall::new("shell").params(serde_json::json!({"command": "npm ci"})).ok(false).output("npm ERR! code EINTEGRITY"));
/// let mut nudges = Vec::new();
/// for _ in 0..6 {
///     nudges.extend(guide.observe(&failing));
/// }
/// let names: Vec<&str> = nudges.iter().map(|n| n.provider.as_str()).collect();
/// // The error streak is diagnosed at the 3rd failure, the loop broken at
/// // the 4th, the stall flagged at the 5th: once each, however long it lasts.
/// assert_eq!(names, ["diagnostic_signal", "doom_loop_breaker", "progress_stall_hint"]);
/// assert!(nudges[1].message.contains("`shell {\"command\":\"npm ci\"}`"));
/// ```
pub struct Guide {
    analysis: TrajectoryAnalysis,
    slots: Vec<Slot>,
    tracker: CooldownTracker,
    pending: Vec<PendingCall>,
}

impl Guide {
    /// A guide with the [`default_providers`].
    pub fn new(mode: Mode) -> Self {
        Self::with_providers(mode, default_providers())
    }

    /// A guide with `providers`, in priority order.
    pub fn with_providers(mode: Mode, providers: Vec<GuidanceProviderConfig>) -> Self {
        Self::with_analysis(TrajectoryAnalysis::new(mode), providers)
    }

    /// A guide over an existing (possibly configured) analysis.
    pub fn with_analysis(
        analysis: TrajectoryAnalysis,
        providers: Vec<GuidanceProviderConfig>,
    ) -> Self {
        let slots = providers
            .into_iter()
            .enumerate()
            .map(|(i, spec)| Slot {
                key: format!("{i}:{}/{}", spec.provider.name(), spec.classifier.name()),
                spec,
                nudged_this_streak: false,
                turn: 0,
                fires_this_turn: 0,
            })
            .collect();
        Self {
            analysis,
            slots,
            tracker: CooldownTracker::new(),
            pending: Vec::new(),
        }
    }

    /// The analysis so far.
    pub fn analysis(&self) -> &TrajectoryAnalysis {
        &self.analysis
    }

    /// The pending calls currently considered.
    pub fn pending(&self) -> &[PendingCall] {
        &self.pending
    }

    /// Records the next event (which also clears the pending calls: they
    /// were proposed before it) and returns the nudges that fire now.
    pub fn observe(&mut self, event: &Event) -> Vec<Nudge> {
        self.pending.clear();
        self.analysis.update(event);
        self.evaluate()
    }

    /// Sets the calls the agent proposes next and returns the nudges that
    /// fire now (e.g. a credential warning before the call runs).
    pub fn propose(&mut self, pending: Vec<PendingCall>) -> Vec<Nudge> {
        self.pending = pending;
        self.evaluate()
    }

    /// Replays one event of a recorded session as a host saw it happen: a
    /// tool call is first proposed (its parameters seen before it runs, as
    /// `sensitive_content` needs), then observed with its result; any other
    /// event is observed. The one way tact replays an agent's log, whole
    /// (`tact run`, `tact guide FILE`) or live (`tact guide --follow`).
    pub fn replay(&mut self, event: &Event) -> Vec<Nudge> {
        let mut nudges = match event {
            Event::Tool(call) => self.propose(vec![PendingCall::new(
                call.name.clone(),
                call.params.clone(),
            )]),
            _ => Vec::new(),
        };
        nudges.extend(self.observe(event));
        nudges
    }

    /// Evaluates every provider on the current state.
    pub fn evaluate(&mut self) -> Vec<Nudge> {
        let ctx = GuidanceContext::new(&self.analysis, &self.pending);
        let turn = self.analysis.lifetime_turns();
        let position = self.analysis.position().saturating_sub(1);
        let mut out = Vec::new();
        for slot in &mut self.slots {
            let Some(result) = classify_guarded(&slot.spec.classifier, &ctx) else {
                continue;
            };
            if !result.fires(slot.spec.config.min_confidence) {
                slot.nudged_this_streak = false;
                continue;
            }
            if slot.nudged_this_streak || !self.tracker.can_fire(&slot.key, turn, &slot.spec.config)
            {
                continue;
            }
            if slot.turn == turn && slot.fires_this_turn >= slot.spec.max_per_turn {
                continue;
            }
            let provider = &slot.spec.provider;
            let message = match catch_unwind(AssertUnwindSafe(|| provider.guidance(&result, &ctx)))
            {
                Ok(Some(m)) => m,
                Ok(None) => continue,
                Err(_) => {
                    tracing::warn!(provider = %slot.key, "guidance provider panicked; skipped");
                    continue;
                }
            };
            self.tracker.record_fire(&slot.key, turn);
            slot.nudged_this_streak = true;
            if slot.turn != turn {
                slot.turn = turn;
                slot.fires_this_turn = 0;
            }
            slot.fires_this_turn += 1;
            out.push(Nudge {
                provider: provider.name().to_owned(),
                classifier: slot.spec.classifier.name().to_owned(),
                position,
                turn,
                message,
                result,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tact_types::ToolCall;

    fn read(path: &str) -> Event {
        Event::tool(
            ToolCall::new("read_file")
                .params(json!({"path": path}))
                .output("x"),
        )
    }

    #[test]
    fn once_per_streak_then_again_after_it_breaks() {
        let mut g = Guide::with_providers(
            Mode::Headless,
            vec![GuidanceProviderConfig::new(
                DiagnosticSignalProvider,
                ErrorStreakClassifier::default(),
            )],
        );
        let fail = |c: &str| {
            Event::tool(
                ToolCall::new("sh")
                    .params(json!({"command": c}))
                    .ok(false)
                    .output(format!("error in /x/{c}.rs:1")),
            )
        };
        let mut fired = Vec::new();
        for i in 0..5 {
            fired.push(g.observe(&fail(&format!("c{i}"))).len());
        }
        assert_eq!(fired, [0, 0, 1, 0, 0]);
        g.observe(&read("ok.rs"));
        let mut again = Vec::new();
        for i in 0..3 {
            again.extend(g.observe(&fail(&format!("d{i}"))));
        }
        assert_eq!(again.len(), 1);
        assert!(
            again[0].message.contains("- sh: error in d#.rs:#"),
            "{}",
            again[0].message
        );
    }

    #[test]
    fn cooldowns_apply_across_streaks() {
        let mut g = Guide::with_providers(
            Mode::Headless,
            vec![
                GuidanceProviderConfig::new(
                    ParallelToolReminder,
                    SequentialWhenParallelClassifier::default(),
                )
                .cooldown_turns(10),
            ],
        );
        let mut turns_fired = Vec::new();
        for i in 0..30 {
            let e = if i % 4 == 3 {
                Event::tool(ToolCall::new("edit_file"))
            } else {
                read(&format!("f{i}"))
            };
            if !g.observe(&e).is_empty() {
                turns_fired.push(g.analysis().lifetime_turns());
            }
        }
        assert_eq!(turns_fired, [3, 15, 27]);
    }

    #[test]
    fn pending_credentials_are_flagged_then_cleared() {
        let mut g = Guide::new(Mode::Interactive);
        g.observe(&Event::user("connect"));
        let n = g.propose(vec![PendingCall::new("db", json!({"password": "pw-123"}))]);
        assert_eq!(n.len(), 1);
        assert_eq!(n[0].provider, "credential_warning");
        assert!(!n[0].message.contains("pw-123"));
        g.observe(&Event::tool(
            ToolCall::new("db").params(json!({"password": "pw-123"})),
        ));
        assert!(g.pending().is_empty());
    }

    #[test]
    fn a_replayed_call_is_proposed_before_it_is_observed() {
        let call = Event::tool(ToolCall::new("db").params(json!({"password": "pw-123"})));
        let mut g = Guide::new(Mode::Interactive);
        assert!(g.replay(&Event::user("connect")).is_empty());
        let n = g.replay(&call);
        // Flagged while pending, at the position of the event before it.
        assert_eq!(n.len(), 1, "{n:?}");
        assert_eq!(
            (n[0].provider.as_str(), n[0].position),
            ("credential_warning", 0)
        );
        assert_eq!(g.analysis().position(), 2);
        assert!(g.pending().is_empty());
        // Observed alone, the call's parameters are not seen as pending.
        let mut h = Guide::new(Mode::Interactive);
        h.observe(&Event::user("connect"));
        assert!(
            h.observe(&call)
                .iter()
                .all(|n| n.provider != "credential_warning")
        );
    }

    struct Silent;
    impl GuidanceProvider for Silent {
        fn name(&self) -> &str {
            "silent"
        }
        fn guidance(&self, _: &ClassificationResult, _: &GuidanceContext<'_>) -> Option<String> {
            panic!("provider bug")
        }
    }

    #[test]
    fn panicking_providers_are_skipped() {
        let mut g = Guide::with_providers(
            Mode::Headless,
            vec![
                GuidanceProviderConfig::new(Silent, MonologueClassifier::default()),
                GuidanceProviderConfig::new(
                    MessageNudge::new("m", "act"),
                    MonologueClassifier::default(),
                ),
            ],
        );
        let mut out = Vec::new();
        for _ in 0..3 {
            out.extend(g.observe(&Event::assistant("hm")));
        }
        assert_eq!(out.len(), 1);
        assert_eq!(
            out[0].message,
            "act (3 agent messages in a row without acting)"
        );
    }
}
