//! One session's way into the store: its run id, the replay of its events
//! through the guidance classifiers (the trajectory a host saw), and its
//! rows written in pieces as it is replayed ([`Streaming`]), then its
//! turns and score ([`write`]).

use tact_consensus::Weights;
use tact_scoring::{Session, SessionScore};
use tact_trajectory_store::{
    GuidanceFireRecord, QuestionRecord, ScoreRecord, SessionRecord, SessionWriter, Severity, Store,
    ToolCallRecord, TurnRecord, ViolationRecord,
};
use tact_types::trajectory::{Event, JsonValue};

use crate::guidance::Guide;
use crate::import::TurnPart;

/// FNV-1a, 64 bits: a stable digest for run ids (std's hasher may change
/// between Rust releases).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The session's run id: its own, or a digest of its content, so storing
/// the same session again replaces it.
pub(crate) fn run_id(session: &Session) -> String {
    if let Some(id) = &session.run_id {
        return id.clone();
    }
    let bytes = serde_json::to_vec(session).unwrap_or_else(|_| format!("{session:?}").into_bytes());
    format!("run-{:016x}", fnv1a(&bytes))
}

fn output_chars(output: &JsonValue) -> u64 {
    let n = match output {
        JsonValue::String(s) => s.chars().count(),
        other => other.to_string().chars().count(),
    };
    u64::try_from(n).unwrap_or(u64::MAX)
}

fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A turn's replay through a [`Guide`]: its tool calls and the guidance
/// that fired, with positions in the replayed trajectory.
#[derive(Default)]
pub(crate) struct Replay {
    pub(crate) tool_calls: Vec<ToolCallRecord>,
    pub(crate) guidance: Vec<GuidanceFireRecord>,
}

/// Replays a whole session ([`Replayer`]'s steps; the tests').
#[cfg(test)]
pub(crate) fn replay(session: &Session) -> Replay {
    let mut replayer = Replayer::new(session.mode);
    let mut out = Replay::default();
    for turn in &session.turns {
        replayer.turn(turn);
        let r = replayer.take();
        out.tool_calls.extend(r.tool_calls);
        out.guidance.extend(r.guidance);
    }
    out
}

/// Replays a session turn by turn as the trajectory a host saw: for each
/// turn, the prompt (a `user` event, when not empty), the turn's events,
/// then the response (an `assistant` event, when not empty), each through
/// [`Guide::replay`] (a tool call proposed, then observed with its
/// result), the path `tact guide` replays a log with too. Each turn's
/// calls and fires are taken ([`Replayer::take`]) before the next.
pub(crate) struct Replayer {
    guide: Guide,
    out: Replay,
    /// The classifiers that fired, each once, in order of first fire.
    classifiers: Vec<String>,
}

impl Replayer {
    pub(crate) fn new(mode: tact_types::trajectory::Mode) -> Self {
        Replayer {
            guide: Guide::new(mode),
            out: Replay::default(),
            classifiers: Vec::new(),
        }
    }

    /// Replays the next turn.
    pub(crate) fn turn(&mut self, turn: &tact_scoring::Turn) {
        self.prompt(turn);
        self.events(&turn.events);
        self.response(turn);
    }

    /// A turn's prompt (a `user` event, when not empty).
    pub(crate) fn prompt(&mut self, turn: &tact_scoring::Turn) {
        if !turn.prompt.is_empty() {
            self.event(&Event::user(turn.prompt.clone()));
        }
    }

    /// A turn's events (all, or the part given).
    pub(crate) fn events(&mut self, events: &[Event]) {
        for event in events {
            if let Event::Tool(call) = event {
                self.out.tool_calls.push(ToolCallRecord {
                    position: u32_of(self.guide.analysis().position()),
                    step: call.step,
                    name: call.name.clone(),
                    params: call.params.clone(),
                    ok: call.ok,
                    output_chars: call.output_chars.map_or_else(
                        || output_chars(&call.output),
                        |n| u64::try_from(n).unwrap_or(u64::MAX),
                    ),
                });
            }
            self.event(event);
        }
    }

    /// A turn's response (an `assistant` event, when not empty).
    pub(crate) fn response(&mut self, turn: &tact_scoring::Turn) {
        if !turn.response.is_empty() {
            self.event(&Event::assistant(turn.response.clone()));
        }
    }

    fn event(&mut self, event: &Event) {
        for n in self.guide.replay(event) {
            if !self.classifiers.contains(&n.classifier) {
                self.classifiers.push(n.classifier.clone());
            }
            self.out.guidance.push(GuidanceFireRecord {
                position: u32_of(n.position),
                classifier: n.classifier,
                confidence: n.result.confidence,
                reason: n.result.reason.unwrap_or(n.message),
            });
        }
    }

    /// The calls and fires replayed since the last call.
    pub(crate) fn take(&mut self) -> Replay {
        std::mem::take(&mut self.out)
    }

    /// The classifiers that fired, each once.
    pub(crate) fn classifiers(&self) -> &[String] {
        &self.classifiers
    }
}

/// A session on its way into the store, written in pieces inside its one
/// transaction ([`SessionWriter`], the job's store lent to it): each
/// turn replayed as it comes (a log's as the import reads it, its
/// response cut to the limit first and its events dropped after), its
/// calls and fires written at once; then [`write`] adds the turns with
/// their questions and violations and the score. Nothing per call is
/// kept to the end.
pub(crate) struct Streaming {
    writer: SessionWriter<Store>,
    replayer: Replayer,
    max_message: usize,
    turns: usize,
    /// A log's turn was given in part: its prompt is replayed.
    in_turn: bool,
    /// The responses cut: (turn, bytes, bytes kept).
    pub(crate) cut: Vec<(usize, (usize, usize))>,
    /// The first write that failed: the session is then not stored.
    pub(crate) error: Option<tact_trajectory_store::Error>,
}

impl Streaming {
    pub(crate) fn new(
        store: Store,
        mode: tact_types::trajectory::Mode,
        max_message: usize,
    ) -> Self {
        Streaming {
            writer: SessionWriter::new(store),
            replayer: Replayer::new(mode),
            max_message,
            turns: 0,
            in_turn: false,
            cut: Vec::new(),
            error: None,
        }
    }

    /// A log's turn as the import gives it: a part of its events (its
    /// prompt replayed before the first), or its end (the rest, and its
    /// response cut to the limit, redacted whole first); replayed,
    /// written, its events dropped.
    pub(crate) fn log_turn(&mut self, t: &mut tact_scoring::Turn, part: TurnPart) {
        if !self.in_turn {
            self.replayer.prompt(t);
            self.in_turn = true;
        }
        self.replayer.events(&t.events);
        t.events = Vec::new();
        if part == TurnPart::End {
            if let Some(c) = cut_response(t, self.max_message) {
                self.cut.push((self.turns, c));
            }
            self.turns += 1;
            self.replayer.response(t);
            self.in_turn = false;
        }
        self.write_replayed();
    }

    /// A turn replayed and its calls and fires written.
    pub(crate) fn turn(&mut self, t: &tact_scoring::Turn) {
        self.replayer.turn(t);
        self.write_replayed();
    }

    fn write_replayed(&mut self) {
        let replay = self.replayer.take();
        if self.error.is_some() {
            return;
        }
        let written = replay
            .tool_calls
            .iter()
            .try_for_each(|c| self.writer.tool_call(c))
            .and_then(|()| {
                replay
                    .guidance
                    .iter()
                    .try_for_each(|g| self.writer.guidance(g))
            });
        if let Err(e) = written {
            self.error = Some(e);
        }
    }

    /// The classifiers that fired, each once.
    pub(crate) fn classifiers(&self) -> &[String] {
        self.replayer.classifiers()
    }

    /// The store back (an unfinished session rolled back).
    pub(crate) fn into_store(self) -> Option<Store> {
        self.writer.into_inner()
    }
}

/// Writes a scored, replayed session: its turns one at a time with their
/// questions and violations, then its key and score ([`Streaming`] wrote
/// its calls and fires), and commits. The trajectory's id.
pub(crate) fn write(
    streaming: &mut Streaming,
    session: &Session,
    score: &SessionScore,
    weights: Weights,
    final_score: Option<f64>,
) -> Result<i64, tact_trajectory_store::Error> {
    if let Some(e) = streaming.error.take() {
        return Err(e);
    }
    let writer = &mut streaming.writer;
    // The questions and violations by turn, in the score's order within one.
    let mut questions: Vec<(usize, usize)> = score
        .questions
        .iter()
        .enumerate()
        .map(|(i, q)| (q.turn, i))
        .collect();
    questions.sort_by_key(|&(turn, _)| turn);
    let last = session.turns.len().saturating_sub(1);
    let mut violations: Vec<(usize, usize)> = score
        .violations
        .iter()
        .enumerate()
        // Session-level violations with no turn go to the last turn.
        .map(|(i, v)| (v.turn.unwrap_or(last), i))
        .collect();
    violations.sort_by_key(|&(turn, _)| turn);
    let (mut q, mut v) = (questions.iter().peekable(), violations.iter().peekable());
    for (i, t) in session.turns.iter().enumerate() {
        let mut turn = TurnRecord {
            number: u32_of(i),
            prompt: t.prompt.clone(),
            response: t.response.clone(),
            ..TurnRecord::default()
        };
        while let Some(&(_, k)) = q.next_if(|&&(turn, _)| turn <= i) {
            let Some(q) = score.questions.get(k).filter(|q| q.turn == i) else {
                continue;
            };
            turn.questions.push(QuestionRecord {
                text: q.text.clone(),
                effort: q.effort,
                // A host-supplied effort is taken as certain.
                confidence: q.confidence.unwrap_or(1.0),
                reasons: q.reasons.clone(),
            });
        }
        while let Some(&(at, k)) = v.next_if(|&&(turn, _)| turn <= i) {
            let Some(v) = score.violations.get(k).filter(|_| at == i) else {
                continue;
            };
            turn.violations.push(ViolationRecord {
                preference: v.preference.as_str().to_owned(),
                expected: v.expected.clone(),
                actual: v.actual.clone(),
                severity: match v.severity {
                    tact_scoring::Severity::Minor => Severity::Low,
                    tact_scoring::Severity::Major => Severity::High,
                },
                span: v.span.as_ref().map(|s| (u32_of(s.start), u32_of(s.end))),
            });
        }
        writer.turn(&turn)?;
    }
    if v.peek().is_some() {
        tracing::debug!("violations of a session without turns not stored");
    }
    writer.finish(&SessionRecord {
        spec_id: session.spec_id.clone().unwrap_or_default(),
        stage: session.stage.clone(),
        agent: session.agent.clone(),
        run_id: run_id(session),
        created_at: None,
        score: Some(ScoreRecord {
            r_prod: score.r_prod,
            r_proact: score.r_proact,
            r_pers: score.r_pers,
            total: score.total,
            profile: score.profile.clone(),
            technical_weight: weights.technical(),
            interaction_weight: weights.interaction(),
            final_score,
        }),
        ..SessionRecord::default()
    })
}

/// Cuts a response beyond `max` bytes to it (on a character boundary),
/// redacted whole first: a credential the cut would halve is not kept in
/// part. Its length and the bytes kept, when cut.
pub(crate) fn cut_response(t: &mut tact_scoring::Turn, max: usize) -> Option<(usize, usize)> {
    if t.response.len() <= max {
        return None;
    }
    let bytes = t.response.len();
    redact_whole(&mut t.response);
    let mut kept = max;
    while !t.response.is_char_boundary(kept) {
        kept -= 1;
    }
    t.response.truncate(kept);
    t.response.shrink_to_fit();
    Some((bytes, kept))
}

/// `text` with every credential the scanner knows redacted, on the whole
/// text (before any cut); all of it when the scanner is unavailable.
pub(crate) fn redact_whole(text: &mut String) {
    match tact_secrets::CredentialScanner::default().redact_text(text) {
        Ok(std::borrow::Cow::Borrowed(_)) => {}
        Ok(std::borrow::Cow::Owned(clean)) => *text = clean,
        Err(_) => *text = tact_secrets::REDACTED.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_are_stable_digests_unless_given() {
        let s = Session::from_json(
            r#"{"agent":"a","outcome":{"kind":"build","success":true}}"#,
            None,
        )
        .unwrap();
        assert_eq!(run_id(&s), run_id(&s.clone()));
        let mut t = s.clone();
        t.agent = "b".into();
        assert_ne!(run_id(&s), run_id(&t));
        t.run_id = Some("r1".into());
        assert_eq!(run_id(&t), "r1");
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn replay_proposes_each_call_and_records_positions() {
        let s = Session::from_json(
            r#"{"agent":"a","outcome":{"kind":"build","success":true},"turns":[
              {"prompt":"go","response":"done","events":[
                {"type":"tool","name":"shell","params":{"command":"deploy","api_key":"k-123456789"},"output":"ok"},
                {"type":"tool","name":"shell","params":{"command":"deploy"},"output":"ok","step":4}]}]}"#,
            None,
        )
        .unwrap();
        let r = replay(&s);
        assert_eq!(r.tool_calls.len(), 2);
        assert_eq!((r.tool_calls[0].position, r.tool_calls[1].position), (1, 2));
        assert_eq!(r.tool_calls[1].step, Some(4));
        assert_eq!(r.tool_calls[0].output_chars, 2);
        let fired: Vec<&str> = r.guidance.iter().map(|g| g.classifier.as_str()).collect();
        assert_eq!(fired, ["sensitive_content"]);
        assert_eq!(r.guidance[0].position, 0);
    }
}
