//! The one place a log's records become tact's session model: user
//! prompts open turns, an agent message followed by a tool call is an
//! intermediate `assistant` event, the agent's last message before the
//! next prompt is the turn's response, tool calls wait for their result
//! (matched by id), and calls of one model response share a step.

use std::collections::{BTreeSet, HashMap, HashSet};

use tact_scoring::Turn;
use tact_types::trajectory::{Event, JsonValue, ToolCall};

/// The most of one tool output an import keeps, in bytes: its head (the
/// guide quotes an error's first few hundred bytes), beside the whole
/// output's length in characters ([`ToolCall::output_chars`]), so a log's
/// outputs, most of what agents write, cost no memory past their heads.
/// A failed call's output (an error report) keeps 16 times as much.
pub const MAX_OUTPUT_BYTES: usize = 1 << 10;

/// A tool output as kept: its head of at most [`MAX_OUTPUT_BYTES`] (16
/// times that for a failed call; cut on a character boundary), and its
/// length in characters when cut.
pub(crate) fn kept_output(output: &str, ok: bool) -> (String, Option<usize>) {
    let max = if ok {
        MAX_OUTPUT_BYTES
    } else {
        16 * MAX_OUTPUT_BYTES
    };
    if output.len() <= max {
        return (output.to_owned(), None);
    }
    let mut end = max;
    while !output.is_char_boundary(end) {
        end -= 1;
    }
    (output[..end].to_owned(), Some(output.chars().count()))
}

/// What a whole import does with each turn as it ends, in place of
/// keeping it (`tact run` replays, scores and stores it; `tact guide`
/// replays it), and, in a log whose
/// turn runs long ([`Assembler::stream_calls`]), with its completed events
/// as they come ([`TurnPart::Events`]).
pub(crate) struct TurnHook(pub(crate) Box<OnTurn>);

/// The function a [`TurnHook`] calls: the turn, which part of it, and
/// the log's title when read so far ([`Assembler::title`]).
pub(crate) type OnTurn = dyn FnMut(&mut Turn, TurnPart, Option<&str>);

/// Which part of a turn a [`TurnHook`] is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TurnPart {
    /// The turn so far: its prompt (final) and its events completed since
    /// the last part, in order (nothing will be inserted before them or
    /// change them); the hook takes them (what it leaves is dropped).
    Events,
    /// The turn's end: its prompt, its events since the last part, its
    /// response.
    End,
}

/// Completed events of a long turn handed to the hook at once, at least.
const EVENTS_PART: usize = 16;

impl std::fmt::Debug for TurnHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TurnHook")
    }
}

/// Builds turns (for `tact run`) and, as records arrive, the events a
/// live guide observes (for `tact guide --follow`).
#[derive(Debug, Default)]
pub(crate) struct Assembler {
    /// Called on each turn as it ends, before it is kept.
    pub(crate) on_turn: Option<TurnHook>,
    /// Whether `on_turn` is also given a turn's completed events as they
    /// come (logs of one long turn, whose events would otherwise be held
    /// to its end).
    pub(crate) stream_calls: bool,
    /// The log's title once read (`Sink::title`), handed to `on_turn`:
    /// what a turn's questions are classified against.
    pub(crate) title: Option<String>,
    /// The turns ended, kept unless `on_turn` or a live reader took them.
    turns: Vec<Turn>,
    /// How many turns ended (those `on_turn` took are not kept: a hook
    /// that keeps no turn's text keeps nothing per turn).
    ended: usize,
    current: Turn,
    /// Whether the current turn holds anything yet.
    started: bool,
    /// The agent's latest message, not yet followed by a call or a prompt.
    pending_text: Option<String>,
    /// Open calls: id -> index in `current.events` (or in an earlier
    /// turn's events, when a result arrives late: then it is dropped).
    open: HashMap<String, usize>,
    /// Calls already answered, for late updates (a Codex exit code).
    done: HashMap<String, usize>,
    step: u64,
    last_group: Option<String>,
    /// Whether events are kept for a live reader (`take_live`): a whole
    /// import keeps none (they would double its memory).
    live_on: bool,
    /// Events completed since the last `take_live`.
    live: Vec<Event>,
    /// Indices of calls in `current.events` not yet emitted live.
    unemitted: BTreeSet<usize>,
    /// Those of them answered, held behind an earlier call of their step
    /// still open: a parallel step's calls go out in the order written,
    /// as a whole import keeps them.
    held: HashSet<usize>,
    /// The pending message was followed by an action of the host
    /// ([`Assembler::action`]): where in `current.events` it goes if a new
    /// message of the agent makes it an intermediate one.
    acted_on: Option<usize>,
    /// The pending message was returned live already (before the action).
    pending_live: bool,
}

impl Assembler {
    /// An assembler whose completed events a live reader takes
    /// ([`Assembler::take_live`]).
    pub(crate) fn live() -> Self {
        Assembler {
            live_on: true,
            ..Assembler::default()
        }
    }

    fn flush_text(&mut self) {
        let at = self.acted_on.take();
        let live = !std::mem::take(&mut self.pending_live);
        if let Some(text) = self.pending_text.take() {
            let event = Event::assistant(text);
            if live && self.live_on {
                self.live.push(event.clone());
            }
            // Before the actions that followed it (only actions, which no
            // index of `open` or `done` names, come after it).
            match at {
                Some(i) if i <= self.current.events.len() => self.current.events.insert(i, event),
                _ => self.current.events.push(event),
            }
        }
    }

    /// A message of the user: it ends the current turn (the agent's last
    /// message its response) and opens the next.
    pub(crate) fn user(&mut self, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        self.end_turn();
        self.current.prompt = text.to_owned();
        self.started = true;
        if self.live_on {
            self.live.push(Event::user(text));
        }
    }

    /// The user's message that opened the log, read after what followed
    /// it (a SWE-agent trajectory writes its steps before the task): the
    /// first turn's prompt, when it has none.
    pub(crate) fn prompt_first(&mut self, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        let first = match self.turns.first_mut() {
            Some(t) => t,
            None => {
                self.started = true;
                &mut self.current
            }
        };
        if first.prompt.is_empty() {
            first.prompt = text.to_owned();
        }
    }

    /// A message of the agent (empty or white-space text is ignored).
    pub(crate) fn assistant(&mut self, text: &str) {
        self.assistant_owned(text.trim().to_owned());
    }

    /// As [`Assembler::assistant`], the text moved in (not copied when it
    /// is the first of its message and needs no trimming).
    pub(crate) fn assistant_owned(&mut self, mut text: String) {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return;
        }
        if trimmed.len() != text.len() {
            text = trimmed.to_owned();
        }
        self.started = true;
        if self.acted_on.is_some() {
            self.flush_text();
        }
        match &mut self.pending_text {
            Some(p) => {
                p.push_str("\n\n");
                p.push_str(&text);
            }
            None => self.pending_text = Some(text),
        }
    }

    /// A tool call; `group` names the model response it came in (calls of
    /// one response share a step), `None` for a call of its own.
    pub(crate) fn call(
        &mut self,
        id: Option<&str>,
        name: &str,
        params: JsonValue,
        group: Option<&str>,
    ) {
        self.flush_text();
        self.started = true;
        let same = matches!((group, &self.last_group), (Some(g), Some(l)) if g == l);
        if !same {
            self.step += 1;
        }
        self.last_group = group.map(str::to_owned);
        let mut call = ToolCall::new(if name.is_empty() { "unknown" } else { name })
            .step(self.step)
            .output(JsonValue::String(String::new()));
        if !params.is_null() {
            call = call.params(params);
        }
        let index = self.current.events.len();
        self.current.events.push(Event::tool(call));
        self.unemitted.insert(index);
        match id {
            Some(id) => {
                self.open.insert(id.to_owned(), index);
            }
            // No id: no result will come; it is complete now.
            None => self.emit_call(index),
        }
        self.stream_events();
    }

    /// An action the host took on the agent's message (Aider applying an
    /// edit, running a command, committing): a call answered at once, its
    /// own step, that leaves the message pending, so the agent's reply
    /// before its edits is still the turn's response (its questions
    /// asked) unless the agent speaks again.
    pub(crate) fn action(&mut self, name: &str, params: JsonValue, output: &str, ok: bool) {
        self.started = true;
        self.step += 1;
        self.last_group = None;
        let (head, chars) = kept_output(output, ok);
        let mut call = ToolCall::new(if name.is_empty() { "unknown" } else { name })
            .step(self.step)
            .ok(ok)
            .output(JsonValue::String(head));
        call.output_chars = chars;
        if !params.is_null() {
            call = call.params(params);
        }
        if let Some(text) = &self.pending_text {
            if self.acted_on.is_none() {
                self.acted_on = Some(self.current.events.len());
            }
            // Live, the message comes before the action, whatever it
            // turns out to be.
            if !self.pending_live {
                if self.live_on {
                    self.live.push(Event::assistant(text.clone()));
                }
                self.pending_live = true;
            }
        }
        let event = Event::tool(call);
        if self.live_on {
            self.live.push(event.clone());
        }
        self.current.events.push(event);
    }

    /// The call at `index` is complete: it goes out live unless an
    /// earlier call of its step is still open, and so do the calls of its
    /// step it was holding back. Each call is emitted once, in O(log n).
    fn emit_call(&mut self, index: usize) {
        // Every call enters `unemitted` when issued and leaves it once
        // emitted: one not there went out already.
        if !self.unemitted.contains(&index) {
            return;
        }
        let step = self.step_of(index);
        let blocked = self
            .unemitted
            .range(..index)
            .next_back()
            .is_some_and(|&before| self.step_of(before) == step);
        if blocked {
            self.held.insert(index);
            return;
        }
        let mut next = Some(index);
        while let Some(i) = next {
            self.unemitted.remove(&i);
            self.held.remove(&i);
            self.push_live(i);
            next = self
                .unemitted
                .range(i + 1..)
                .next()
                .copied()
                .filter(|&n| self.held.contains(&n) && self.step_of(n) == step);
        }
    }

    fn push_live(&mut self, index: usize) {
        if let Some(e) = self.current.events.get(index) {
            if self.live_on {
                self.live.push(e.clone());
            }
        }
    }

    fn step_of(&self, index: usize) -> Option<u64> {
        match self.current.events.get(index) {
            Some(Event::Tool(call)) => call.step,
            _ => None,
        }
    }

    /// The result of the call `id`: its output and whether it succeeded.
    /// A result without its call (cut from the log) is ignored.
    pub(crate) fn result(&mut self, id: &str, output: &str, ok: bool) {
        if self.open.contains_key(id) {
            self.result_kept(id, kept_output(output, ok), ok);
        } else {
            tracing::debug!(id, "tool result without its call");
        }
    }

    /// As [`Assembler::result`], the output already cut as kept
    /// ([`kept_output`]: its head and length in characters).
    pub(crate) fn result_kept(&mut self, id: &str, kept: (String, Option<usize>), ok: bool) {
        let Some(index) = self.open.remove(id) else {
            tracing::debug!(id, "tool result without its call");
            return;
        };
        if let Some(Event::Tool(call)) = self.current.events.get_mut(index) {
            call.ok = ok;
            let (head, chars) = kept;
            call.output = JsonValue::String(head);
            call.output_chars = chars;
        }
        self.done.insert(id.to_owned(), index);
        self.emit_call(index);
        self.stream_events();
    }

    /// Hands the turn's events so far to the hook ([`TurnPart::Events`])
    /// when they are final: no call open, no message to insert before
    /// them, the prompt known (a SWE-agent log gives its first prompt
    /// last), and enough of them.
    fn stream_events(&mut self) {
        if !self.stream_calls
            || self.current.events.len() < EVENTS_PART
            || !self.open.is_empty()
            || !self.unemitted.is_empty()
            || self.acted_on.is_some()
            || (self.ended == 0 && self.current.prompt.is_empty())
        {
            return;
        }
        let Some(hook) = &mut self.on_turn else {
            return;
        };
        (hook.0)(&mut self.current, TurnPart::Events, self.title.as_deref());
        self.current.events.clear();
        // Their indices are gone: no late update reaches them.
        self.done.clear();
    }

    /// A later report that the call `id` failed (a Codex `exec_command_end`
    /// with a non-zero exit code): marks it failed if it is in this turn.
    pub(crate) fn mark_failed(&mut self, id: &str) {
        let index = self.open.get(id).or_else(|| self.done.get(id)).copied();
        if let Some(Event::Tool(call)) = index.and_then(|i| self.current.events.get_mut(i)) {
            call.ok = false;
        }
    }

    /// The call `id` is still open.
    pub(crate) fn is_open(&self, id: &str) -> bool {
        self.open.contains_key(id)
    }

    /// The most recent open call, if any (an error reported without the
    /// call it belongs to).
    pub(crate) fn last_open(&self) -> Option<String> {
        self.open
            .iter()
            .max_by_key(|(_, i)| **i)
            .map(|(id, _)| id.clone())
    }

    /// The host condensed the agent's context.
    pub(crate) fn condensation(&mut self) {
        self.flush_text();
        self.started = true;
        self.current.events.push(Event::condensation());
        if self.live_on {
            self.live.push(Event::condensation());
        }
    }

    fn end_turn(&mut self) {
        // Calls never answered are kept as issued (ok, empty output).
        self.held.clear();
        for index in std::mem::take(&mut self.unemitted) {
            if let Some(e) = self.current.events.get(index) {
                if self.live_on {
                    self.live.push(e.clone());
                }
            }
        }
        self.open.clear();
        self.done.clear();
        self.acted_on = None;
        let live = !std::mem::take(&mut self.pending_live);
        if let Some(text) = self.pending_text.take() {
            if live && self.live_on {
                self.live.push(Event::assistant(text.clone()));
            }
            self.current.response = text;
        }
        if self.started {
            self.ended += 1;
            match &mut self.on_turn {
                Some(hook) => {
                    (hook.0)(&mut self.current, TurnPart::End, self.title.as_deref());
                    self.current = Turn::default();
                }
                // A live reader took the turn's events as they came.
                None if self.live_on => self.current = Turn::default(),
                None => {
                    // A log's turns live until it is scored: no spare slots kept.
                    self.current.events.shrink_to_fit();
                    self.turns.push(std::mem::take(&mut self.current));
                }
            }
        }
        self.started = false;
    }

    /// The agent's latest message while nothing after it says whether it
    /// is an intermediate message or the turn's response (and it was not
    /// returned live yet): what a live reader shows provisionally while
    /// the log is idle.
    pub(crate) fn draft(&self) -> Option<&str> {
        self.pending_text.as_deref().filter(|_| !self.pending_live)
    }

    /// A live assembler holding only this one's [`Assembler::draft`]: a
    /// scratch for what a reader still holds, so its end can be read
    /// without ending the log.
    pub(crate) fn scratch(&self) -> Assembler {
        Assembler {
            pending_text: self.draft().map(str::to_owned),
            ..Assembler::live()
        }
    }

    /// The events completed since the last call, oldest first.
    pub(crate) fn take_live(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.live)
    }

    /// Ends the log: the turns kept (none that `on_turn` took), the last
    /// one closed, and how many turns ended.
    pub(crate) fn finish(mut self) -> (Vec<Turn>, Vec<Event>, usize) {
        self.end_turn();
        (self.turns, self.live, self.ended)
    }

    /// Ends a live log: the events still pending (the agent's last message,
    /// calls without a result).
    pub(crate) fn flush_live(&mut self) -> Vec<Event> {
        self.end_turn();
        self.take_live()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn turns_responses_steps_and_results() {
        let mut a = Assembler::default();
        a.user("fix it");
        a.assistant("Looking.");
        a.call(Some("1"), "read", json!({"p": 1}), Some("m1"));
        a.call(Some("2"), "read", json!({"p": 2}), Some("m1"));
        a.result("2", "b", true);
        a.result("1", "boom", false);
        a.assistant("Which file?");
        a.user("a.rs");
        a.call(Some("3"), "edit", json!({}), Some("m2"));
        let (turns, _, _) = a.finish();
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].prompt, "fix it");
        assert_eq!(turns[0].response, "Which file?");
        let Event::Tool(c1) = &turns[0].events[1] else {
            panic!()
        };
        let Event::Tool(c2) = &turns[0].events[2] else {
            panic!()
        };
        assert_eq!((c1.step, c2.step), (Some(1), Some(1)));
        assert!(!c1.ok && c2.ok);
        let Event::Tool(c3) = &turns[1].events[0] else {
            panic!()
        };
        assert_eq!(c3.step, Some(2));
        assert!(c3.ok);
    }

    /// A live reader and a turn hook take each turn as it ends: the
    /// assembler keeps none, only their count.
    #[test]
    fn turns_taken_as_they_end_are_not_kept() {
        let mut live = Assembler::live();
        let mut hooked = Assembler {
            on_turn: Some(TurnHook(Box::new(|t, _, _| t.response.clear()))),
            ..Assembler::default()
        };
        for a in [&mut live, &mut hooked] {
            for i in 0..3 {
                a.user(&format!("fix {i}"));
                a.assistant("Done.");
            }
        }
        let (turns, events, ended) = live.finish();
        assert_eq!((turns.len(), ended), (0, 3));
        assert_eq!(events.len(), 6, "{events:?}");
        let (turns, _, ended) = hooked.finish();
        assert_eq!((turns.len(), ended), (0, 3));
    }

    /// Live, a parallel step's calls go out in the order written, as a
    /// whole import keeps them, whatever order their results arrive in;
    /// an open call of an earlier step holds back no later step.
    #[test]
    fn live_calls_of_a_step_go_out_in_the_order_written() {
        let names = |events: Vec<Event>| -> Vec<String> {
            events
                .into_iter()
                .filter_map(|e| match e {
                    Event::Tool(c) => Some(c.name),
                    _ => None,
                })
                .collect()
        };
        let mut a = Assembler::live();
        a.user("go");
        a.call(Some("1"), "a", json!({}), Some("m1"));
        a.call(Some("2"), "b", json!({}), Some("m1"));
        a.call(Some("3"), "c", json!({}), Some("m1"));
        a.result("3", "", true);
        a.result("2", "", true);
        assert!(
            names(a.take_live()).is_empty(),
            "held behind the open first call"
        );
        a.result("1", "", true);
        assert_eq!(names(a.take_live()), ["a", "b", "c"]);
        // "d" never answered: the next step's call is not held by it.
        a.call(Some("4"), "d", json!({}), Some("m2"));
        a.call(Some("5"), "e", json!({}), Some("m3"));
        a.result("5", "", true);
        assert_eq!(names(a.take_live()), ["e"]);
        assert_eq!(names(a.flush_live()), ["d"]);
    }
}
