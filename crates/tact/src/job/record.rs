//! One session's way into the store: its run id, the replay of its events
//! through the guidance classifiers (the trajectory a host saw), and the
//! database record of its score and replay.

use tact_consensus::Weights;
use tact_scoring::{Session, SessionScore};
use tact_trajectory_store::{
    GuidanceFireRecord, QuestionRecord, ScoreRecord, SessionRecord, Severity, ToolCallRecord,
    TurnRecord, ViolationRecord,
};
use tact_types::trajectory::{Event, JsonValue};

use crate::guidance::Guide;

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

/// The replay of a session's events through a [`Guide`]: the tool calls
/// and the guidance that fired, with positions in the replayed trajectory.
pub(crate) struct Replay {
    pub(crate) tool_calls: Vec<ToolCallRecord>,
    pub(crate) guidance: Vec<GuidanceFireRecord>,
}

/// Replays a session as the trajectory a host saw: for each turn, the
/// prompt (a `user` event, when not empty), the turn's events, then the
/// response (an `assistant` event, when not empty), each through
/// [`Guide::replay`] (a tool call proposed, then observed with its result),
/// the path `tact guide` replays a log with too.
pub(crate) fn replay(session: &Session) -> Replay {
    let mut replayer = Replayer::new(session.mode);
    for turn in &session.turns {
        replayer.turn(turn);
    }
    replayer.finish()
}

/// A replay turn by turn ([`replay`]'s steps), so a log's turns are
/// replayed as it is read and their events need not be kept.
pub(crate) struct Replayer {
    guide: Guide,
    out: Replay,
    nudges: Vec<crate::guidance::Nudge>,
}

impl Replayer {
    pub(crate) fn new(mode: tact_types::trajectory::Mode) -> Self {
        Replayer {
            guide: Guide::new(mode),
            out: Replay {
                tool_calls: Vec::new(),
                guidance: Vec::new(),
            },
            nudges: Vec::new(),
        }
    }

    /// Replays the next turn.
    pub(crate) fn turn(&mut self, turn: &tact_scoring::Turn) {
        let (guide, out, nudges) = (&mut self.guide, &mut self.out, &mut self.nudges);
        if !turn.prompt.is_empty() {
            nudges.extend(guide.replay(&Event::user(turn.prompt.clone())));
        }
        for event in &turn.events {
            if let Event::Tool(call) = event {
                out.tool_calls.push(ToolCallRecord {
                    position: u32_of(guide.analysis().position()),
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
            nudges.extend(guide.replay(event));
        }
        if !turn.response.is_empty() {
            nudges.extend(guide.replay(&Event::assistant(turn.response.clone())));
        }
    }

    /// The replay of the turns given.
    pub(crate) fn finish(self) -> Replay {
        let mut out = self.out;
        out.guidance = self
            .nudges
            .into_iter()
            .map(|n| GuidanceFireRecord {
                position: u32_of(n.position),
                classifier: n.classifier,
                confidence: n.result.confidence,
                reason: n.result.reason.unwrap_or(n.message),
            })
            .collect();
        out
    }
}

/// The database record of a scored, replayed session.
pub(crate) fn record(
    session: &Session,
    score: &SessionScore,
    weights: Weights,
    final_score: Option<f64>,
    replay: Replay,
) -> SessionRecord {
    let mut turns: Vec<TurnRecord> = session
        .turns
        .iter()
        .enumerate()
        .map(|(i, t)| TurnRecord {
            number: u32_of(i),
            prompt: t.prompt.clone(),
            response: t.response.clone(),
            ..TurnRecord::default()
        })
        .collect();
    for q in &score.questions {
        if let Some(t) = turns.get_mut(q.turn) {
            t.questions.push(QuestionRecord {
                text: q.text.clone(),
                effort: q.effort,
                // A host-supplied effort is taken as certain.
                confidence: q.confidence.unwrap_or(1.0),
                reasons: q.reasons.clone(),
            });
        }
    }
    let last = turns.len().saturating_sub(1);
    for v in &score.violations {
        // Session-level violations with no turn go to the last turn.
        let Some(t) = turns.get_mut(v.turn.unwrap_or(last)) else {
            tracing::debug!(preference = %v.preference, "violation of a session without turns not stored");
            continue;
        };
        t.violations.push(ViolationRecord {
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
    SessionRecord {
        spec_id: session.spec_id.clone().unwrap_or_default(),
        stage: session.stage.clone(),
        agent: session.agent.clone(),
        run_id: run_id(session),
        created_at: None,
        turns,
        tool_calls: replay.tool_calls,
        guidance: replay.guidance,
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
