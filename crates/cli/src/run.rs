//! `tact run PATH`: the end-to-end main job. Reads agent sessions (a file,
//! or a folder walked recursively for `.json` and `.jsonl` files), scores
//! each one (questions extracted and classified, preferences checked,
//! rewards), replays the guidance classifiers over its tool events, stores
//! it all in the trajectory database (one transaction per session), and
//! prints the weighted consensus ranking of each (spec, stage). A bad
//! session is reported on stderr with its file and line and skipped.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Deserialize;
use tact_consensus::{Consensus, Decision, Normalization, PppConfig, Weights};
use tact_guidance::Guide;
use tact_scoring::{
    LocatedSession, Scorer, Session, SessionFormat, SessionScore, UserPreferences, read_sessions,
};
use tact_trajectory_store::{
    GuidanceFireRecord, QuestionRecord, ScoreRecord, SessionRecord, Severity, Store,
    ToolCallRecord, TurnRecord, ViolationRecord,
};
use tact_types::trajectory::{Event, JsonValue, PendingCall};

/// Arguments of `tact run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// A session file (`.json`: one session; `.jsonl`: one per line) or a
    /// folder, walked recursively for `.json` and `.jsonl` files (other
    /// files and hidden entries are skipped).
    pub path: PathBuf,
    /// The trajectory database (created on first use).
    #[arg(long, default_value = "tact.db")]
    pub db: PathBuf,
    /// A TOML file with `[ppp]` and `[user_preferences]` (docs/configuration.md).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Only sessions of this stage (sessions with no stage are taken as
    /// this stage); sessions of other stages are left out.
    #[arg(long)]
    pub stage: Option<String>,
}

/// What a run did; `main` exits with 1 when something was skipped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Sessions stored in the database.
    pub stored: usize,
    /// Sessions (or files) reported and skipped.
    pub skipped: usize,
    /// Groups (spec, stage) that could not be ranked.
    pub unranked: usize,
}

impl Summary {
    /// Whether nothing was skipped and every group was ranked.
    pub fn clean(&self) -> bool {
        self.skipped == 0 && self.unranked == 0
    }
}

/// The configuration file of `tact run`: `[ppp]` and `[user_preferences]`,
/// nothing else (a misspelt table is an error, not a silent default).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Consensus weights, profile, normalization.
    #[serde(default)]
    pub ppp: PppConfig,
    /// Preferences for sessions that state none.
    #[serde(default)]
    pub user_preferences: Option<UserPreferences>,
}

impl RunConfig {
    /// Reads and validates a configuration file.
    pub fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses and validates a configuration; `source` names it in errors.
    pub fn parse(text: &str, source: &str) -> Result<Self> {
        let config: RunConfig =
            toml::from_str(text).with_context(|| format!("invalid configuration {source}"))?;
        config
            .ppp
            .validate()
            .with_context(|| format!("invalid [ppp] in {source}"))?;
        if let Some(p) = &config.user_preferences {
            p.validate()
                .with_context(|| format!("invalid [user_preferences] in {source}"))?;
        }
        Ok(config)
    }
}

/// The session files under `path`, sorted: `path` itself when it is a
/// file, else every `.json` and `.jsonl` file below it (symbolic links
/// to folders and entries starting with `.` are not followed). Folders
/// that cannot be read are reported in `problems`.
fn session_files(path: &Path, problems: &mut Vec<String>) -> Result<Vec<PathBuf>> {
    let meta =
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    if meta.is_file() {
        return Ok(vec![path.to_owned()]);
    }
    let mut files = Vec::new();
    let mut dirs = vec![path.to_owned()];
    while let Some(dir) = dirs.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                problems.push(format!("cannot read {}: {e}", dir.display()));
                continue;
            }
        };
        for entry in entries {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    problems.push(format!("cannot read {}: {e}", dir.display()));
                    continue;
                }
            };
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let p = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => dirs.push(p),
                Ok(t) if t.is_file() && SessionFormat::of(&p).is_some() => files.push(p),
                Ok(_) => {}
                Err(e) => problems.push(format!("cannot read {}: {e}", p.display())),
            }
        }
    }
    files.sort();
    Ok(files)
}

/// FNV-1a, 64 bits: a stable digest for run ids (std's hasher may change
/// between Rust releases).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The session's run id: its own, or a digest of its content, so storing
/// the same session again replaces it.
fn run_id(session: &Session) -> String {
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
struct Replay {
    tool_calls: Vec<ToolCallRecord>,
    guidance: Vec<GuidanceFireRecord>,
}

/// Replays a session as the trajectory a host saw: for each turn, the
/// prompt (a `user` event, when not empty), the turn's events, then the
/// response (an `assistant` event, when not empty). Each tool call is
/// first proposed (a pending call, so `sensitive_content` sees its params)
/// and then observed with its result.
fn replay(session: &Session) -> Replay {
    let mut guide = Guide::new(session.mode);
    let mut out = Replay {
        tool_calls: Vec::new(),
        guidance: Vec::new(),
    };
    let mut nudges = Vec::new();
    for turn in &session.turns {
        if !turn.prompt.is_empty() {
            nudges.extend(guide.observe(&Event::user(turn.prompt.clone())));
        }
        for event in &turn.events {
            if let Event::Tool(call) = event {
                nudges.extend(guide.propose(vec![PendingCall::new(
                    call.name.clone(),
                    call.params.clone(),
                )]));
                out.tool_calls.push(ToolCallRecord {
                    position: u32_of(guide.analysis().position()),
                    step: call.step.map(|s| u32::try_from(s).unwrap_or(u32::MAX)),
                    name: call.name.clone(),
                    params: call.params.clone(),
                    ok: call.ok,
                    output_chars: output_chars(&call.output),
                });
            }
            nudges.extend(guide.observe(event));
        }
        if !turn.response.is_empty() {
            nudges.extend(guide.observe(&Event::assistant(turn.response.clone())));
        }
    }
    out.guidance = nudges
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

/// The database record of a scored, replayed session.
fn record(
    session: &Session,
    score: &SessionScore,
    weights: Weights,
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
        }),
    }
}

/// A stored session, kept for the ranking of its group.
struct Stored {
    session: Session,
    score: SessionScore,
    fired: Vec<String>,
}

/// Groups of stored sessions by (spec, stage).
type Groups = BTreeMap<(String, Option<String>), Vec<Stored>>;

/// Everything one run needs, built once.
struct Pipeline {
    consensus: Consensus,
    scorer: Scorer,
    default_prefs: Option<UserPreferences>,
    stage: Option<String>,
}

impl Pipeline {
    /// Scores, replays and stores one session; `Ok(None)` when it belongs
    /// to another stage than `--stage`.
    fn process(
        &self,
        store: &mut Store,
        at: &str,
        mut session: Session,
    ) -> Result<Option<Stored>, String> {
        let Some(spec) = session.spec_id.clone().filter(|s| !s.trim().is_empty()) else {
            return Err(format!(
                "{at}: the session has no `spec_id` (tact run groups sessions by spec)"
            ));
        };
        if let Some(want) = &self.stage {
            match &session.stage {
                Some(s) if s != want => return Ok(None),
                Some(_) => {}
                None => session.stage = Some(want.clone()),
            }
        }
        let weights = self
            .consensus
            .settings()
            .weights_for(session.stage.as_deref())
            .map_err(|e| format!("{at}: {e}"))?;
        if session.preferences.is_empty() {
            if let Some(p) = &self.default_prefs {
                session.preferences = p.clone();
            }
        }
        let score = self.scorer.score(&session);
        let replay = replay(&session);
        let mut fired: Vec<String> = Vec::new();
        for g in &replay.guidance {
            if !fired.contains(&g.classifier) {
                fired.push(g.classifier.clone());
            }
        }
        let rec = record(&session, &score, weights, replay);
        store
            .ingest(&rec)
            .map_err(|e| format!("{at}: not stored: {e}"))?;
        tracing::debug!(spec = %spec, agent = %session.agent, "session stored");
        Ok(Some(Stored {
            session,
            score,
            fired,
        }))
    }
}

/// A progress bar over sessions (its length grows as each file is
/// parsed), drawn on stderr only when stderr is a terminal.
fn progress_bar() -> ProgressBar {
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let pb = ProgressBar::with_draw_target(Some(0), target);
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} sessions {wide_msg}") {
        pb.set_style(style);
    }
    pb
}

/// Runs `tact run`: rankings on `out`, problems on `err`.
pub fn run(args: &RunArgs, out: &mut impl Write, err: &mut impl Write) -> Result<Summary> {
    let config = match &args.config {
        Some(p) => RunConfig::read(p)?,
        None => RunConfig::default(),
    };
    let consensus = Consensus::new(&config.ppp)?;
    if let Some(stage) = &args.stage {
        consensus.settings().weights_for(Some(stage))?;
    }
    let scorer = Scorer::builder()
        .profile(consensus.settings().profile)
        .build()?;
    let pipeline = Pipeline {
        consensus,
        scorer,
        default_prefs: config.user_preferences.filter(|p| !p.is_empty()),
        stage: args.stage.clone(),
    };
    let mut problems = Vec::new();
    let files = session_files(&args.path, &mut problems)?;
    if files.is_empty() && problems.is_empty() {
        bail!(
            "{}: no session files (.json, .jsonl) found",
            args.path.display()
        );
    }
    if let Some(dir) = args.db.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let mut store = Store::open(&args.db)?;
    let mut summary = Summary {
        skipped: problems.len(),
        ..Summary::default()
    };
    let mut groups = Groups::new();
    let mut read = 0usize;
    let mut other_stages = 0usize;
    let pb = progress_bar();
    for (k, file) in files.iter().enumerate() {
        pb.set_message(format!(
            "(file {} of {}) {}",
            k + 1,
            files.len(),
            file.display()
        ));
        let results = match read_sessions(file) {
            Ok(r) => r,
            Err(e) => {
                problems.push(e.to_string());
                summary.skipped += 1;
                continue;
            }
        };
        pb.inc_length(u64::try_from(results.len()).unwrap_or(0));
        for result in results {
            pb.inc(1);
            read += 1;
            let outcome =
                result
                    .map_err(|e| e.to_string())
                    .and_then(|LocatedSession { line, session }| {
                        let at = format!("{}:{line}", file.display());
                        pipeline.process(&mut store, &at, session)
                    });
            match outcome {
                Ok(Some(stored)) => {
                    summary.stored += 1;
                    let key = (
                        stored.session.spec_id.clone().unwrap_or_default(),
                        stored.session.stage.clone(),
                    );
                    groups.entry(key).or_default().push(stored);
                }
                Ok(None) => other_stages += 1,
                Err(message) => {
                    summary.skipped += 1;
                    problems.push(message);
                }
            }
        }
    }
    pb.finish_and_clear();
    for p in &problems {
        writeln!(err, "warning: {p} (skipped)")?;
    }
    for ((spec, stage), members) in &groups {
        if !write_group(out, &pipeline.consensus, spec, stage.as_deref(), members)? {
            summary.unranked += 1;
        }
    }
    let left_out = match (&args.stage, other_stages) {
        (Some(s), n) if n > 0 => format!(", {n} of other stages than {s} left out"),
        _ => String::new(),
    };
    writeln!(
        out,
        "{read} sessions read from {} files: {} stored in {}, {} skipped{left_out}",
        files.len(),
        summary.stored,
        args.db.display(),
        summary.skipped,
    )?;
    Ok(summary)
}

fn signed(x: f64) -> String {
    format!("{x:+.3}")
}

/// Questions per effort as `low/medium/high`.
fn efforts(score: &SessionScore) -> String {
    let n = |l| score.questions.iter().filter(|q| q.effort == l).count();
    use tact_types::EffortLevel::{High, Low, Medium};
    format!("{}/{}/{}", n(Low), n(Medium), n(High))
}

/// Violated preferences with their counts, in order of first violation.
fn violations(score: &SessionScore) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for v in &score.violations {
        match counts.iter_mut().find(|(p, _)| *p == v.preference.as_str()) {
            Some((_, n)) => *n += 1,
            None => counts.push((v.preference.as_str(), 1)),
        }
    }
    if counts.is_empty() {
        return "-".into();
    }
    counts
        .iter()
        .map(|(p, n)| {
            if *n > 1 {
                format!("{p} x{n}")
            } else {
                (*p).to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Writes one group's ranking; `false` when it could not be ranked.
fn write_group(
    out: &mut impl Write,
    consensus: &Consensus,
    spec: &str,
    stage: Option<&str>,
    members: &[Stored],
) -> Result<bool> {
    let sessions: Vec<Session> = members.iter().map(|m| m.session.clone()).collect();
    let title = format!("{spec}, stage {}", stage.unwrap_or("(none)"));
    let decision = match consensus.decide(&sessions, stage) {
        Ok(d) => d,
        Err(e) => {
            writeln!(out, "{title}: no ranking: {e}\n")?;
            return Ok(false);
        }
    };
    let by_agent = |agent: &str| members.iter().find(|m| m.session.agent == agent);
    match &decision {
        Decision::Weighted {
            profile,
            consensus: c,
            ..
        } => {
            let norm = match c.normalization {
                Normalization::None => "interaction as is".to_owned(),
                Normalization::Linear { floor, ceiling } => {
                    format!("interaction mapped from [{floor:.2}, {ceiling:.2}] onto [0, 1]")
                }
            };
            writeln!(
                out,
                "{title}: weighted consensus (technical {:.2}, interaction {:.2}), profile {profile}, {norm}",
                c.technical_weight, c.interaction_weight
            )?;
            writeln!(
                out,
                "  {:<4} {:<10} {:>9} {:>11} {:>7}  {:<9} {:<32} guidance",
                "rank", "agent", "technical", "interaction", "final", "q l/m/h", "violations"
            )?;
            for s in &c.scores {
                let (q, v, g) = by_agent(&s.agent).map_or_else(
                    || ("-".to_owned(), "-".to_owned(), "-".to_owned()),
                    |m| {
                        let g = if m.fired.is_empty() {
                            "-".to_owned()
                        } else {
                            m.fired.join(", ")
                        };
                        (efforts(&m.score), violations(&m.score), g)
                    },
                );
                writeln!(
                    out,
                    "  {:<4} {:<10} {:>9.3} {:>11} {:>7.3}  {q:<9} {v:<32} {g}",
                    s.rank,
                    s.agent,
                    s.technical_score,
                    signed(s.interaction_score),
                    s.final_score,
                )?;
            }
            match (c.confidence.margin, c.scores.get(1)) {
                (Some(m), Some(second)) => writeln!(
                    out,
                    "  best: {} (score {:.3}, margin {:.3} over {})",
                    c.best_agent, c.confidence.score, m, second.agent
                )?,
                _ => writeln!(
                    out,
                    "  best: {} (score {:.3}, the only agent)",
                    c.best_agent, c.confidence.score
                )?,
            }
        }
        Decision::Legacy { consensus: c, .. } => {
            writeln!(
                out,
                "{title}: legacy consensus ([ppp] enabled = false): {}",
                c.status.as_str()
            )?;
            for (verdict, agents) in &c.groups {
                writeln!(out, "  {verdict}: {}", agents.join(", "))?;
            }
            if !c.missing.is_empty() {
                writeln!(out, "  no verdict: {}", c.missing.join(", "))?;
            }
        }
    }
    writeln!(out)?;
    Ok(true)
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
    fn config_rejects_unknown_tables_and_bad_values() {
        let ok = RunConfig::parse(
            "[ppp]\nnormalize = \"linear\"\n[user_preferences]\nformat = [\"commas\"]\n",
            "t.toml",
        )
        .unwrap();
        assert_eq!(ok.ppp.normalize, "linear");
        for (text, needle) in [
            ("[pp]\nenabled = true\n", "unknown field `pp`"),
            ("[ppp]\ntechnical_weight = 0.9\n", "sum to 1.2"),
            (
                "[user_preferences]\nformat = [\"snippet\"]\n",
                "list it under `content`",
            ),
        ] {
            let e = format!("{:#}", RunConfig::parse(text, "t.toml").unwrap_err());
            assert!(e.contains("t.toml") && e.contains(needle), "{e}");
        }
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
