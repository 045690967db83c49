//! `tact run` scores each turn as it ends and writes it at once (no
//! turn's text is held to the end): what it stores and reports equals
//! what scoring each session whole gives, on every agent log and session
//! fixture, under the default job and under one with every preference, a
//! judge, the `paper-code` profile and small limits (responses cut,
//! questions dropped past the first of a response).

use std::path::Path;
use std::sync::Arc;

use tact::import::{Format, ImportDefaults, MAX_RECORD_BYTES, import_reader};
use tact::job::{Job, Limits};
use tact::scoring::{
    Judge, JudgeRequest, Preference, Profile, Session, Severity, UserPreferences, Verdict,
};
use tact::store::{QuestionRecord, ScoreRecord, SessionRecord, Store, TurnRecord, ViolationRecord};

/// A judge whose verdict depends on the turn's prompt and message.
struct LengthJudge;

impl Judge for LengthJudge {
    fn name(&self) -> &str {
        "length-judge"
    }

    fn judge(&self, r: &JudgeRequest<'_>) -> tact::scoring::Result<Verdict> {
        Ok(match (r.prompt.len() + r.message.len()) % 3 {
            0 => Verdict::Respected,
            1 => Verdict::Violated {
                actual: format!("{} then {} bytes", r.prompt.len(), r.message.len()),
                span: None,
            },
            _ => Verdict::Abstain {
                reason: "unsure".into(),
            },
        })
    }
}

/// The session `tact run` reads from `file` (the `line`th of a session
/// file), read whole.
fn read_whole(file: &Path, line: usize) -> Session {
    let head = std::fs::read_to_string(file).unwrap_or_default();
    let format = if file.extension().is_some_and(|e| e == "traj") {
        Some(Format::SweAgent)
    } else {
        Format::detect(file, &head)
    };
    match format {
        // A file of many sessions: its `line`th read whole.
        Some(format) if tact::import::holds_sessions(format, &head) => {
            let reader = std::io::BufReader::new(std::fs::File::open(file).unwrap());
            let source = file.display().to_string();
            let log = tact::import::SessionLines::new(reader, &source, MAX_RECORD_BYTES)
                .map(Result::unwrap)
                .find(|l| l.line == line)
                .unwrap()
                .import(format, &source, MAX_RECORD_BYTES)
                .unwrap();
            let defaults = ImportDefaults::sidecar_of(file)
                .unwrap()
                .unwrap_or_default();
            log.into_session(file, &defaults)
        }
        Some(format) => {
            let reader = std::io::BufReader::new(std::fs::File::open(file).unwrap());
            let log = import_reader(
                format,
                reader,
                &file.display().to_string(),
                MAX_RECORD_BYTES,
            )
            .unwrap();
            let defaults = ImportDefaults::sidecar_of(file)
                .unwrap()
                .unwrap_or_default();
            log.into_session(file, &defaults)
        }
        None => {
            tact::scoring::read_sessions(file)
                .unwrap()
                .into_iter()
                .map(Result::unwrap)
                .find(|s| s.line == line)
                .unwrap()
                .session
        }
    }
}

/// What the job stored for `session` were it scored whole: its turns with
/// their questions and violations, and its score.
fn whole(
    job: &Job,
    mut session: Session,
    stage: Option<&str>,
    limits: Limits,
    prefs: &UserPreferences,
) -> SessionRecord {
    if session.preferences.is_empty() {
        session.preferences = prefs.clone();
    }
    for t in &mut session.turns {
        if t.response.len() > limits.max_message_bytes {
            let scanner = tact::secrets::CredentialScanner::default();
            t.response = scanner.redact_text(&t.response).unwrap().into_owned();
            let mut kept = limits.max_message_bytes;
            while !t.response.is_char_boundary(kept) {
                kept -= 1;
            }
            t.response.truncate(kept);
        }
    }
    let score = job.scorer().score(&session);
    let mut turns: Vec<TurnRecord> = session
        .turns
        .iter()
        .enumerate()
        .map(|(i, t)| TurnRecord {
            number: i as u32,
            prompt: t.prompt.clone(),
            response: t.response.clone(),
            ..TurnRecord::default()
        })
        .collect();
    for q in &score.questions {
        let turn = &mut turns[q.turn];
        if turn.questions.len() < limits.max_questions_per_message {
            turn.questions.push(QuestionRecord {
                text: q.text.clone(),
                effort: q.effort,
                confidence: q.confidence.unwrap_or(1.0),
                reasons: q.reasons.clone(),
            });
        }
    }
    let last = turns.len().saturating_sub(1);
    for v in &score.violations {
        if let Some(turn) = turns.get_mut(v.turn.unwrap_or(last)) {
            turn.violations.push(ViolationRecord {
                preference: v.preference.as_str().to_owned(),
                expected: v.expected.clone(),
                actual: v.actual.clone(),
                severity: match v.severity {
                    Severity::Minor => tact::store::Severity::Low,
                    Severity::Major => tact::store::Severity::High,
                },
                span: v.span.as_ref().map(|s| (s.start as u32, s.end as u32)),
            });
        }
    }
    let weights = job.consensus().settings().weights_for(stage).unwrap();
    SessionRecord {
        turns,
        score: Some(ScoreRecord {
            r_prod: score.r_prod,
            r_proact: score.r_proact,
            r_pers: score.r_pers,
            total: score.total,
            profile: score.profile.clone(),
            technical_weight: weights.technical(),
            interaction_weight: weights.interaction(),
            final_score: job.consensus().final_score(&score, weights),
        }),
        ..SessionRecord::default()
    }
}

/// Runs the job over `dir` and compares each stored session with the
/// same session scored whole (stored alike, so redacted alike).
fn check(dir: &Path, judged: bool) -> usize {
    let prefs = if judged {
        UserPreferences::from_preferences(Preference::ALL.iter().copied())
    } else {
        UserPreferences::none()
    };
    let limits = if judged {
        Limits::default()
            .max_message_bytes(2000)
            .max_questions_per_message(1)
    } else {
        Limits::default()
    };
    let mut builder = Job::builder()
        .store(Store::open_in_memory().unwrap())
        .limits(limits)
        .user_preferences(prefs.clone());
    if judged {
        builder = builder
            .judge(Arc::new(LengthJudge))
            .profile(Profile::PAPER_CODE);
    }
    let mut job = builder.build().unwrap();
    let report = job.run_path(dir, |_| {}).unwrap();
    let mut oracle = Store::open_in_memory().unwrap();
    let mut checked = 0;
    for group in &report.groups {
        for m in &group.members {
            let file = m.file.as_deref().unwrap();
            let session = read_whole(file, m.line.unwrap());
            let mut expected = whole(&job, session, group.stage.as_deref(), limits, &prefs);
            // The report's row: the questions kept and the violations.
            let mut efforts = [0u32; 3];
            let mut violated: Vec<(Preference, usize)> = Vec::new();
            for t in &expected.turns {
                for q in &t.questions {
                    efforts[match q.effort {
                        tact::types::EffortLevel::Low => 0,
                        tact::types::EffortLevel::Medium => 1,
                        _ => 2,
                    }] += 1;
                }
                for v in &t.violations {
                    let p: Preference = v.preference.parse().unwrap();
                    match violated.iter_mut().find(|(q, _)| *q == p) {
                        Some((_, n)) => *n += 1,
                        None => violated.push((p, 1)),
                    }
                }
            }
            let at = format!("{}: {}", file.display(), m.agent);
            assert_eq!(
                (m.questions.low, m.questions.medium, m.questions.high),
                (efforts[0], efforts[1], efforts[2]),
                "{at}"
            );
            assert_eq!(&*m.violations, &violated[..], "{at}");
            let score = expected.score.as_ref().unwrap();
            assert_eq!(
                (m.rewards.r_proact, m.rewards.r_pers, m.rewards.total),
                (score.r_proact, score.r_pers, score.total),
                "{at}"
            );
            expected.spec_id.clone_from(&group.spec);
            expected.stage.clone_from(&group.stage);
            expected.agent = m.agent.to_string();
            expected.run_id = m.run_id.to_string();
            oracle.ingest(&expected).unwrap();
            let stored = job.store().unwrap();
            let got = stored
                .load(&group.spec, &m.agent, &m.run_id)
                .unwrap()
                .unwrap();
            let want = oracle
                .load(&group.spec, &m.agent, &m.run_id)
                .unwrap()
                .unwrap();
            assert_eq!(got.session.turns, want.session.turns, "{at}");
            assert_eq!(got.session.score, want.session.score, "{at}");
            checked += 1;
        }
    }
    checked
}

#[test]
fn turn_by_turn_stores_what_whole_scoring_gives() {
    let root = super::repo("fixtures");
    let mut dirs: Vec<_> = std::fs::read_dir(root.join("logs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.push(root.join("sessions"));
    dirs.sort();
    for judged in [false, true] {
        let mut sessions = 0;
        for dir in &dirs {
            let n = check(dir, judged);
            assert!(n > 0, "{}: no session stored", dir.display());
            sessions += n;
        }
        assert!(sessions >= 30, "{sessions} sessions");
    }
}

/// A Claude Code log whose title (a `summary` record) comes after the
/// questions it is the context of: read again with it, so its questions
/// are classified against it as when the log is read whole.
#[test]
fn a_title_read_after_a_question_is_its_context() {
    let dir = super::scratch("late-title");
    let mut lines = Vec::new();
    let exchanges = [
        (
            "Set up the store.",
            "Which database should I use for the store?",
        ),
        (
            "The one we agreed on.",
            "Should the cache expire after an hour?",
        ),
    ];
    for (i, (prompt, reply)) in exchanges.iter().enumerate() {
        lines.push(format!(
            r#"{{"type":"user","uuid":"u{i}","sessionId":"s","message":{{"role":"user","content":"{prompt}"}}}}"#
        ));
        lines.push(format!(
            r#"{{"type":"assistant","uuid":"a{i}","sessionId":"s","message":{{"id":"m{i}","content":[{{"type":"text","text":"{reply}"}}]}}}}"#
        ));
    }
    lines.push(
        r#"{"type":"summary","summary":"Use PostgreSQL as the database for the store; the cache expires after an hour","leafUuid":"a1"}"#
            .to_owned(),
    );
    std::fs::write(dir.join("late.jsonl"), lines.join("\n") + "\n").unwrap();
    assert_eq!(check(&dir, false), 1);
    assert_eq!(check(&dir, true), 1);
}
