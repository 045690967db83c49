//! One session's way into the store: its run id, the replay of its events
//! through the guidance classifiers (the trajectory a host saw), the
//! scoring of each turn as it ends ([`TurnScoring`]), and its rows
//! written in pieces as it is replayed and scored ([`Streaming`]), then
//! its key and score ([`write`]).

use std::sync::Arc;

use tact_consensus::Weights;
use tact_scoring::{PerTurn, Preference, Scorer, Session, SessionScore, TurnScore, Violation};
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
/// calls and fires written at once, then scored ([`TurnScoring`]) and
/// its record written with its questions and violations, its text
/// dropped; then [`write`] adds the key and score. Nothing per turn is
/// kept to the end but counts.
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
    /// Each turn scored as it ends, when the session is to be stored.
    pub(crate) scoring: Option<TurnScoring>,
}

/// A session's turns scored as they end ([`PerTurn`]): each turn's record
/// (its prompt, response, questions and violations) built at once and
/// held until the next turn ends, which is when it is written (the
/// session's own violation, known at its end, goes to its last turn).
/// What is kept of a turn past that: the counts of the report's row.
pub(crate) struct TurnScoring {
    scorer: Arc<Scorer>,
    per_turn: PerTurn,
    max_questions: usize,
    held: Option<TurnRecord>,
    /// Questions stored: low, medium, high.
    pub(crate) kept: [u32; 3],
    /// The violated preferences with their counts, in order of first
    /// violation.
    pub(crate) violated: Vec<(Preference, usize)>,
    /// Turns with more questions than the limit: (turn, questions found).
    pub(crate) cut_questions: Vec<(usize, usize)>,
    /// A question was classified against another context than the
    /// session's (a log's title read after it): the scores are not those
    /// of the session read whole.
    pub(crate) stale_context: bool,
    /// The context was given, not read from the log.
    fixed_context: bool,
}

impl TurnScoring {
    /// Scoring of the session `header` (its turns are not read) by
    /// `scorer`, at most `max_questions` of a response stored.
    pub(crate) fn new(scorer: Arc<Scorer>, header: &Session, max_questions: usize) -> Self {
        TurnScoring {
            per_turn: scorer.per_turn(header),
            scorer,
            max_questions,
            held: None,
            kept: [0; 3],
            violated: Vec::new(),
            cut_questions: Vec::new(),
            stale_context: false,
            fixed_context: header.context.is_some(),
        }
    }

    /// The log's title as read so far, the context of the questions of
    /// the turns from now on (unless it was given).
    fn title(&mut self, title: Option<&str>) {
        if self.fixed_context || title.is_none() || self.per_turn.context() == title {
            return;
        }
        self.stale_context |= self.per_turn.set_context(title.map(str::to_owned));
    }

    /// Scores turn `t` (its text then dropped): the record of the turn
    /// before, if any, to write.
    fn turn(&mut self, t: &mut tact_scoring::Turn) -> Option<TurnRecord> {
        let TurnScore {
            turn: index,
            mut questions,
            violations,
            ..
        } = self.per_turn.turn(&self.scorer, t);
        if questions.len() > self.max_questions {
            self.cut_questions.push((index, questions.len()));
            questions.truncate(self.max_questions);
        }
        let mut record = TurnRecord {
            number: u32_of(index),
            prompt: std::mem::take(&mut t.prompt),
            response: std::mem::take(&mut t.response),
            ..TurnRecord::default()
        };
        t.questions = None;
        for q in questions {
            let n = &mut self.kept[match q.effort {
                tact_types::EffortLevel::Low => 0,
                tact_types::EffortLevel::Medium => 1,
                _ => 2,
            }];
            *n = n.saturating_add(1);
            record.questions.push(QuestionRecord {
                text: q.text,
                effort: q.effort,
                // A host-supplied effort is taken as certain.
                confidence: q.confidence.unwrap_or(1.0),
                reasons: q.reasons,
            });
        }
        self.violations(&mut record, violations);
        self.held.replace(record)
    }

    /// Adds `violations` to `record`, counted.
    fn violations(&mut self, record: &mut TurnRecord, violations: Vec<Violation>) {
        for v in violations {
            match self.violated.iter_mut().find(|(p, _)| *p == v.preference) {
                Some((_, n)) => *n += 1,
                None => self.violated.push((v.preference, 1)),
            }
            record.violations.push(violation_record(v));
        }
    }

    /// Sets the session's outcome, known once its log is read.
    pub(crate) fn set_outcome(&mut self, outcome: tact_scoring::TaskOutcome) {
        self.per_turn.set_outcome(outcome);
    }

    /// The session's score once its last turn is scored, and its last
    /// turn's record with the session's own violations (none for a
    /// session without turns: they are counted, not stored).
    fn finish(&mut self) -> (SessionScore, Option<TurnRecord>) {
        let mut score = self.per_turn.score(&self.scorer);
        let own = std::mem::take(&mut score.violations);
        let mut last = self.held.take().unwrap_or_default();
        self.violations(&mut last, own);
        if self.per_turn.turns() == 0 {
            if !last.violations.is_empty() {
                tracing::debug!("violations of a session without turns not stored");
            }
            return (score, None);
        }
        (score, Some(last))
    }
}

/// A violation as the store keeps it.
fn violation_record(v: Violation) -> ViolationRecord {
    ViolationRecord {
        preference: v.preference.as_str().to_owned(),
        expected: v.expected,
        actual: v.actual,
        severity: match v.severity {
            tact_scoring::Severity::Minor => Severity::Low,
            tact_scoring::Severity::Major => Severity::High,
        },
        span: v.span.as_ref().map(|s| (u32_of(s.start), u32_of(s.end))),
    }
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
            scoring: None,
        }
    }

    /// A log's turn as the import gives it: a part of its events (its
    /// prompt replayed before the first), or its end (the rest, and its
    /// response cut to the limit, redacted whole first); replayed,
    /// written, its events dropped; at its end scored, against the log's
    /// `title` as read so far, and its text dropped.
    pub(crate) fn log_turn(
        &mut self,
        t: &mut tact_scoring::Turn,
        part: TurnPart,
        title: Option<&str>,
    ) {
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
            self.write_replayed();
            if let Some(scoring) = &mut self.scoring {
                scoring.title(title);
            }
            self.score(t);
            return;
        }
        self.write_replayed();
    }

    /// A turn replayed, its calls and fires written, then scored and its
    /// text dropped.
    pub(crate) fn turn(&mut self, t: &mut tact_scoring::Turn) {
        self.replayer.turn(t);
        self.write_replayed();
        self.score(t);
    }

    /// Scores turn `t` (when the session is scored), its text then
    /// dropped, and writes the turn before it.
    fn score(&mut self, t: &mut tact_scoring::Turn) {
        let Some(scoring) = &mut self.scoring else {
            return;
        };
        let Some(record) = scoring.turn(t) else {
            return;
        };
        if self.error.is_none() {
            if let Err(e) = self.writer.turn(&record) {
                self.error = Some(e);
            }
        }
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

/// Writes a scored, replayed session's last turn (with the session's own
/// violations) and its key and score ([`Streaming`] wrote its calls,
/// fires and other turns), and commits: the session's score (its
/// rewards; the evidence went with the turns) and its scoring's counts.
pub(crate) fn write(
    streaming: &mut Streaming,
    session: &Session,
    weights: Weights,
    final_score: impl FnOnce(&SessionScore) -> Option<f64>,
) -> Result<(SessionScore, TurnScoring), tact_trajectory_store::Error> {
    let Some(mut scoring) = streaming.scoring.take() else {
        return Err(tact_trajectory_store::Error::Session(
            "the session was not scored".into(),
        ));
    };
    let (score, last) = scoring.finish();
    if let Some(e) = streaming.error.take() {
        return Err(e);
    }
    let writer = &mut streaming.writer;
    if let Some(last) = last {
        writer.turn(&last)?;
    }
    let final_score = final_score(&score);
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
    })?;
    Ok((score, scoring))
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
