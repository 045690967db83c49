//! A session turned into the rows both backends write: credentials
//! redacted, non-finite numbers zeroed, JSON columns serialized, integers
//! checked, NUL characters (which PostgreSQL text cannot hold) replaced by
//! U+001A SUBSTITUTE, one byte for one (a cut's byte limits still hold). One function per
//! row for both backends, so they store the same values; a session's rows
//! are prepared piece by piece ([`Pieces`]) as it is written.

use std::time::{SystemTime, UNIX_EPOCH};

use tact_secrets::CredentialScanner;
use tact_types::Label;

use crate::Error;
use crate::model::{GuidanceFireRecord, ScoreRecord, SessionRecord, ToolCallRecord, TurnRecord};

pub(crate) fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// A question's row.
pub(crate) struct QuestionRow {
    pub(crate) text: String,
    pub(crate) effort: &'static str,
    pub(crate) confidence: f64,
    pub(crate) reasons: String,
}

/// A violation's row.
pub(crate) struct ViolationRow {
    pub(crate) preference: String,
    pub(crate) expected: String,
    pub(crate) actual: String,
    pub(crate) severity: &'static str,
    pub(crate) span_start: Option<i64>,
    pub(crate) span_end: Option<i64>,
}

/// A turn's row and its children.
pub(crate) struct TurnRow {
    pub(crate) number: i64,
    pub(crate) timestamp: Option<i64>,
    pub(crate) prompt: String,
    pub(crate) response: String,
    pub(crate) token_count: Option<i64>,
    pub(crate) latency_ms: Option<i64>,
    pub(crate) questions: Vec<QuestionRow>,
    pub(crate) violations: Vec<ViolationRow>,
}

/// A tool call's row.
pub(crate) struct ToolCallRow {
    pub(crate) position: i64,
    pub(crate) step: Option<i64>,
    pub(crate) name: String,
    pub(crate) params: String,
    pub(crate) ok: bool,
    pub(crate) output_chars: i64,
}

/// A guidance fire's row.
pub(crate) struct GuidanceRow {
    pub(crate) position: i64,
    pub(crate) classifier: String,
    pub(crate) confidence: f64,
    pub(crate) reason: String,
}

/// A score's row.
pub(crate) struct ScoreRow {
    pub(crate) r_prod: f64,
    pub(crate) r_proact: f64,
    pub(crate) r_pers: f64,
    pub(crate) total: f64,
    pub(crate) profile: String,
    pub(crate) technical_weight: f64,
    pub(crate) interaction_weight: f64,
    pub(crate) final_score: Option<f64>,
}

/// A session's own row: its key and stage, written when the session is
/// finished (the rows written before it hang on a placeholder key).
pub(crate) struct Header {
    pub(crate) spec_id: String,
    pub(crate) stage: Option<String>,
    pub(crate) agent: String,
    pub(crate) run_id: String,
    pub(crate) created_at: i64,
    pub(crate) updated_at: i64,
}

/// Rows prepared and not yet written: a session's pieces, sent in
/// batches of about [`FLUSH_ROWS`] rows or [`FLUSH_BYTES`] bytes.
#[derive(Default)]
pub(crate) struct Pieces {
    pub(crate) turns: Vec<TurnRow>,
    pub(crate) tool_calls: Vec<ToolCallRow>,
    pub(crate) guidance: Vec<GuidanceRow>,
    /// Rows held (a turn's questions and violations included).
    rows: usize,
    /// Their text's bytes, about.
    bytes: usize,
}

/// How a session is finished: its row `id`, its last rows, its key and
/// score; `keyed` when its row was written with its key (a session of one
/// batch), else it is keyed now.
pub(crate) struct Finish<'a> {
    pub(crate) id: i64,
    pub(crate) pieces: &'a Pieces,
    pub(crate) header: &'a Header,
    pub(crate) score: Option<&'a ScoreRow>,
    pub(crate) keyed: bool,
}

/// Rows held before a batch is written.
pub(crate) const FLUSH_ROWS: usize = 512;
/// Bytes of text held before a batch is written.
pub(crate) const FLUSH_BYTES: usize = 1 << 20;

impl Pieces {
    pub(crate) fn push_turn(&mut self, t: TurnRow) {
        self.rows += 1 + t.questions.len() + t.violations.len();
        self.bytes += t.prompt.len()
            + t.response.len()
            + t.questions
                .iter()
                .map(|q| q.text.len() + q.reasons.len())
                .sum::<usize>()
            + t.violations
                .iter()
                .map(|v| v.expected.len() + v.actual.len() + v.preference.len())
                .sum::<usize>();
        self.turns.push(t);
    }

    pub(crate) fn push_tool_call(&mut self, c: ToolCallRow) {
        self.rows += 1;
        self.bytes += c.name.len() + c.params.len();
        self.tool_calls.push(c);
    }

    pub(crate) fn push_guidance(&mut self, g: GuidanceRow) {
        self.rows += 1;
        self.bytes += g.classifier.len() + g.reason.len();
        self.guidance.push(g);
    }

    /// Whether a batch is due.
    pub(crate) fn full(&self) -> bool {
        self.rows >= FLUSH_ROWS || self.bytes >= FLUSH_BYTES
    }

    /// Emptied once written (the rows' text freed, the lists' slots kept
    /// for the next batch).
    pub(crate) fn clear(&mut self) {
        self.turns.clear();
        self.tool_calls.clear();
        self.guidance.clear();
        self.rows = 0;
        self.bytes = 0;
    }
}

/// NUL replaced by U+001A SUBSTITUTE, byte for byte (PostgreSQL text holds
/// no NUL; SQLite gets the same, so both backends keep the same values).
pub(crate) fn clean(text: &str) -> String {
    if text.contains('\0') {
        text.replace('\0', "\u{1A}")
    } else {
        text.to_owned()
    }
}

fn redact_text(scanner: &CredentialScanner, text: &str) -> Result<String, Error> {
    scanner
        .redact_text(text)
        .map(|t| clean(&t))
        .map_err(|e| Error::Redaction(e.to_string()))
}

fn redact_json<T: serde::Serialize>(
    scanner: &CredentialScanner,
    value: &T,
) -> Result<String, Error> {
    let value = serde_json::to_value(value)?;
    let redacted = scanner
        .redact(&value)
        .map_err(|e| Error::Redaction(e.to_string()))?;
    Ok(serde_json::to_string(&redacted)?)
}

fn finite(x: f64) -> f64 {
    if x.is_finite() { x } else { 0.0 }
}

/// A turn's rows, redacted.
pub(crate) fn turn(scanner: &CredentialScanner, t: &TurnRecord) -> Result<TurnRow, Error> {
    let mut questions = Vec::with_capacity(t.questions.len());
    for q in &t.questions {
        questions.push(QuestionRow {
            text: clean(
                &scanner
                    .redact_part(&q.text, &t.response)
                    .map_err(|e| Error::Redaction(e.to_string()))?,
            ),
            effort: q.effort.as_str(),
            confidence: finite(f64::from(q.confidence)),
            // A cue's matched text is part of the question: redacted too.
            reasons: redact_json(scanner, &q.reasons)?,
        });
    }
    let mut violations = Vec::with_capacity(t.violations.len());
    for v in &t.violations {
        violations.push(ViolationRow {
            preference: clean(&v.preference),
            expected: redact_text(scanner, &v.expected)?,
            actual: redact_text(scanner, &v.actual)?,
            severity: v.severity.as_str(),
            span_start: v.span.map(|x| i64::from(x.0)),
            span_end: v.span.map(|x| i64::from(x.1)),
        });
    }
    Ok(TurnRow {
        number: i64::from(t.number),
        timestamp: t.timestamp,
        prompt: redact_text(scanner, &t.prompt)?,
        response: redact_text(scanner, &t.response)?,
        token_count: t.token_count.map(i64::from),
        latency_ms: t.latency_ms.map(i64::from),
        questions,
        violations,
    })
}

/// A tool call's row, its params redacted; `Err` for a step the
/// databases cannot hold exactly (above `i64::MAX`).
pub(crate) fn tool_call(
    scanner: &CredentialScanner,
    c: &ToolCallRecord,
) -> Result<ToolCallRow, Error> {
    // Steps are kept exact; one the databases cannot hold is refused.
    let step = c
        .step
        .map(|n| {
            i64::try_from(n).map_err(|_| {
                Error::Sqlite(rusqlite::Error::ToSqlConversionFailure(
                    format!("step {n} is above {}", i64::MAX).into(),
                ))
            })
        })
        .transpose()?;
    Ok(ToolCallRow {
        position: i64::from(c.position),
        step,
        name: redact_text(scanner, &c.name)?,
        // The sensitive-content detector runs before anything is written.
        params: redact_json(scanner, &c.params)?,
        ok: c.ok,
        output_chars: i64::try_from(c.output_chars).unwrap_or(i64::MAX),
    })
}

/// A guidance fire's row, its reason redacted.
pub(crate) fn guidance(
    scanner: &CredentialScanner,
    g: &GuidanceFireRecord,
) -> Result<GuidanceRow, Error> {
    Ok(GuidanceRow {
        position: i64::from(g.position),
        classifier: clean(&g.classifier),
        confidence: finite(f64::from(g.confidence)),
        reason: redact_text(scanner, &g.reason)?,
    })
}

/// The score's row.
pub(crate) fn score(sc: &ScoreRecord) -> ScoreRow {
    ScoreRow {
        r_prod: finite(sc.r_prod),
        r_proact: finite(sc.r_proact),
        r_pers: finite(sc.r_pers),
        total: finite(sc.total),
        profile: clean(&sc.profile),
        technical_weight: finite(sc.technical_weight),
        interaction_weight: finite(sc.interaction_weight),
        final_score: sc.final_score.map(finite),
    }
}

/// The session's own row (key, stage, times).
pub(crate) fn header(s: &SessionRecord) -> Header {
    let now = now();
    Header {
        spec_id: clean(&s.spec_id),
        stage: s.stage.as_deref().map(clean),
        agent: clean(&s.agent),
        run_id: clean(&s.run_id),
        created_at: s.created_at.unwrap_or(now),
        updated_at: now,
    }
}

/// The pieces `s` holds itself (turns, tool calls, guidance), prepared.
pub(crate) fn pieces_into(
    scanner: &CredentialScanner,
    s: &SessionRecord,
    out: &mut Pieces,
) -> Result<(), Error> {
    for t in &s.turns {
        out.push_turn(turn(scanner, t)?);
    }
    for c in &s.tool_calls {
        out.push_tool_call(tool_call(scanner, c)?);
    }
    for g in &s.guidance {
        out.push_guidance(guidance(scanner, g)?);
    }
    Ok(())
}
