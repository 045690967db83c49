//! `tact guide`: which guidance classifiers fire on a trajectory and why
//! (`tact guide FILE`), and live guidance over a stream of events
//! (`tact guide --follow`, events as JSONL on stdin, nudges printed the
//! moment they fire, with cooldowns applied). An agent's own log (every
//! format `tact::import` reads; detected by content, or `--format`) is
//! replayed event by event through [`Guide::replay`] as it is read (one
//! turn in memory at a time), as `tact run` replays
//! it: whole (`tact guide FILE`: every nudge and where it fired) or live
//! (`--follow FILE` reads it as the agent appends to it, `tail -f` style).
//! tact's own labelled trajectories keep their verdicts at the end.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use serde::Serialize;
use serde_json::Value;
use tact_core::dataset::parse_jsonl;
use tact_guidance::{
    DetectedPattern, Guide, Nudge, TrajectoryAnalysis, default_classifiers, verdicts,
};
use tact_types::trajectory::{Event, Mode, PendingCall, Trajectory};
use tact_watch::read::Record;

/// Arguments of `tact guide`.
#[derive(clap::Args, Debug)]
pub struct GuideArgs {
    /// A trajectory file: one JSON object (`events`, optional `mode` and
    /// `pending`), a JSON array of events, or JSON Lines of trajectories;
    /// `-` reads it from stdin.
    pub file: Option<PathBuf>,
    /// Read events as JSON Lines on stdin (or `{"pending": [...]}` lines),
    /// or an agent's log (FILE, followed as it grows, or `-` with
    /// --format), and print guidance the moment it fires, with cooldowns
    /// applied.
    #[arg(long)]
    pub follow: bool,
    /// Read FILE (or stdin) as this agent's log format: claude-code,
    /// codex, openhands, swe-agent, aider, openhands-v1, mini-swe-agent,
    /// cline, gemini-cli, specstory (detected by content without).
    #[arg(long, value_name = "NAME")]
    pub format: Option<tact::import::Format>,
    /// With --follow: `headless` (whole run) or `interactive` (windows
    /// restart at each user message). An agent's log is read interactive
    /// (it says where the user spoke), a stream of events headless, unless
    /// this says otherwise.
    #[arg(long)]
    pub mode: Option<Mode>,
    /// Print JSON: one object per trajectory (an agent's log's: its
    /// nudges, each as --follow prints it, and each classifier's fires),
    /// or one per nudge with --follow.
    #[arg(long)]
    pub json: bool,
}

/// Runs `tact guide` with `stdin` for `--follow` and `-`.
pub fn run(args: &GuideArgs, mut stdin: impl BufRead, out: &mut impl Write) -> Result<()> {
    let log_mode = args.mode.unwrap_or(tact::import::LOG_MODE);
    let stream_mode = args.mode.unwrap_or(Mode::Headless);
    let stdin_path = args.file.as_deref().is_none_or(|p| p.as_os_str() == "-");
    if args.follow {
        // Warnings quote the input: redacted and escaped like any output.
        let mut err = crate::redact::Redacting::new(std::io::stderr());
        let summary = match (&args.file, args.format) {
            (_, Some(format)) if stdin_path => {
                // A line with no end is cut at the limit, not held whole.
                let limit = log_line_limit(format);
                let stdin = crate::bounded::LineLimit::new(stdin, "stdin", limit);
                follow_log(stdin, format, "stdin", log_mode, args.json, out, &mut err)?
            }
            (Some(path), format) if !stdin_path => {
                follow_file(path, format, args.mode, args.json, out, &mut err)?
            }
            _ => follow(stdin, stream_mode, args.json, out, &mut err)?,
        };
        tracing::info!(?summary, "guide --follow finished");
        return Ok(());
    }
    let Some(path) = &args.file else {
        bail!("give a trajectory FILE (or - for stdin), or --follow");
    };
    if path.as_os_str() == "-" {
        if let Some(format) = args.format {
            // Streamed, as a file is.
            return guide_log_reader("stdin", stdin, None, format, log_mode, args.json, out);
        }
        let limit = tact_core::input::MAX_TEXT_BYTES;
        let bytes = tact_core::input::read_bounded(&mut stdin, "stdin", limit)?;
        let text = tact_core::dataset::decode_text("stdin", bytes)?;
        return run_guide("stdin", &text, args.json, out);
    }
    let source = path.display().to_string();
    // An agent's log is streamed (one record in memory at a time); only
    // tact's own trajectories are read whole.
    let detected = match args.format {
        Some(f) => Some(f),
        None => {
            use std::io::Read;
            let mut head = Vec::new();
            let file = tact_core::input::open(path)?;
            file.take(64 << 10).read_to_end(&mut head)?;
            tact::import::Format::detect(path, &String::from_utf8_lossy(&head))
        }
    };
    match detected {
        // One event file of an OpenHands V1 conversation: the whole
        // conversation (its folder's event files, in order).
        Some(format @ tact::import::Format::OpenHandsV1) if tact::import::is_event_file(path) => {
            let bytes = tact::import::conversation_events(path, 1 << 30)
                .with_context(|| format!("cannot read the events beside {source}"))?;
            let text = tact_core::dataset::decode_text(&source, bytes)?;
            return run_guide_log(&source, &text, format, log_mode, args.json, out);
        }
        Some(format) => {
            let file = tact_core::input::open(path)?;
            let reader = std::io::BufReader::with_capacity(1 << 16, file);
            return guide_log_reader(
                &source,
                reader,
                Some(path),
                format,
                log_mode,
                args.json,
                out,
            );
        }
        None => {}
    }
    let text = tact_core::dataset::read_text(path)?;
    ensure_native(&source, &text)?;
    run_guide(&source, &text, args.json, out)
}

/// The keys of tact's own trajectories (an object, events, or JSON Lines
/// of either): a file no log format claims is read as one when its first
/// record has one of them.
const NATIVE_KEYS: [&str; 5] = ["events", "type", "trajectory", "expect", "mode"];

/// A file that is no known agent log must be tact's own trajectory (or
/// empty, as a live log may be): else one error naming the formats tried,
/// not one warning per line.
fn ensure_native(source: &str, text: &str) -> Result<()> {
    let content = text
        .lines()
        .map(str::trim)
        .any(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('#'));
    if content && !tact::import::first_record_has_key(text, &NATIVE_KEYS) {
        return Err(tact::import::not_a_known_log(source).into());
    }
    Ok(())
}

/// The longest line of an agent's log read on stdin: a line of a
/// line-based log is cut at `MAX_LINE_BYTES`, a one-document log (read
/// whole) at `MAX_TEXT_BYTES`.
fn log_line_limit(format: tact::import::Format) -> u64 {
    if format.is_line_based() {
        tact_core::input::MAX_LINE_BYTES as u64
    } else {
        tact_core::input::MAX_TEXT_BYTES
    }
}

/// `tact guide FILE` on an agent's log: the log imported, its events (each
/// turn's prompt, tool calls and response) classified as one trajectory.
pub fn run_guide_log(
    source: &str,
    text: &str,
    format: tact::import::Format,
    mode: Mode,
    json: bool,
    out: &mut impl Write,
) -> Result<()> {
    guide_log_reader(source, text.as_bytes(), None, format, mode, json, out)
}

/// `tact guide FILE` on an agent's log read from `reader` (the file at
/// `path`, if it is one): each turn replayed as the import ends it, then
/// dropped (one turn in memory at a time, as `tact run` reads a log),
/// then the report.
fn guide_log_reader(
    source: &str,
    reader: impl std::io::BufRead,
    path: Option<&std::path::Path>,
    format: tact::import::Format,
    mode: Mode,
    json: bool,
    out: &mut impl Write,
) -> Result<()> {
    let replay = std::rc::Rc::new(std::cell::RefCell::new(LogReplay::new(mode)));
    let fed = std::rc::Rc::clone(&replay);
    let on_event = move |event: Event| fed.borrow_mut().event(&event);
    let max = tact::import::MAX_RECORD_BYTES;
    let log = match path {
        Some(path) => {
            tact::import::import_file_replayed(format, path, reader, source, max, on_event)?
        }
        None => tact::import::import_reader_replayed(format, reader, source, max, on_event)?,
    };
    let replay = replay.replace(LogReplay::new(mode));
    write_log_replay(source, log, format, replay, json, out)
}

/// A log's events replayed through a [`Guide`]: the nudges (one bounded
/// line each) and how often each classifier fired.
struct LogReplay {
    guide: Guide,
    mode: Mode,
    events: usize,
    nudges: Vec<NudgeLine>,
    fires: BTreeMap<String, usize>,
}

impl LogReplay {
    fn new(mode: Mode) -> Self {
        LogReplay {
            guide: Guide::new(mode),
            mode,
            events: 0,
            nudges: Vec::new(),
            fires: tact_guidance::default_providers()
                .iter()
                .map(|p| (p.classifier.name().to_owned(), 0))
                .collect(),
        }
    }

    fn event(&mut self, event: &Event) {
        for n in self.guide.replay(event) {
            *self.fires.entry(n.classifier.clone()).or_insert(0) += 1;
            self.nudges.push(NudgeLine::from(&n));
        }
        self.events += 1;
    }
}

/// Writes a replayed log's report (records the import skipped are warned
/// of on stderr).
fn write_log_replay(
    source: &str,
    mut log: tact::import::ImportedLog,
    format: tact::import::Format,
    replay: LogReplay,
    json: bool,
    out: &mut impl Write,
) -> Result<()> {
    for p in std::mem::take(&mut log.problems) {
        eprintln!("warning: {}", redacted(p.to_string().as_bytes()));
    }
    let id = log
        .meta
        .session_id
        .clone()
        .or_else(|| log.meta.task.clone());
    let r = LogReport {
        source: format!("{source} ({format})"),
        id,
        mode: replay.mode,
        turns: log.exchanges,
        events: replay.events,
        nudges: replay.nudges,
        fires: replay.fires,
    };
    let mut buf = Vec::new();
    if json {
        serde_json::to_writer(&mut buf, &r)?;
        writeln!(buf)?;
    } else {
        write_log_report(&r, &mut buf)?;
    }
    out.write_all(redacted(&buf).as_bytes())?;
    out.flush()?;
    Ok(())
}

/// What `tact guide FILE` reports for an agent's log: the nudges of its
/// replay, in order (each as a `--follow --json` line), and how often each
/// classifier fired.
#[derive(Debug, Serialize)]
struct LogReport {
    /// The file and its format.
    source: String,
    /// The session's (or task's) id, if the log has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    /// The guidance mode of the replay.
    mode: Mode,
    /// The log's turns (exchanges opened by the user).
    turns: usize,
    /// Events replayed.
    events: usize,
    /// Every nudge, where it fired.
    nudges: Vec<NudgeLine>,
    /// Every default classifier's fires (0 for one that never fired).
    fires: BTreeMap<String, usize>,
}

/// A trajectory's or log's id as its report's first line shows it.
fn shown_id(id: Option<&str>) -> String {
    id.map(|i| format!(" `{i}`")).unwrap_or_default()
}

/// `n` and `what`, plural unless `n` is 1.
fn counted(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn write_log_report(r: &LogReport, out: &mut impl Write) -> Result<()> {
    let id = shown_id(r.id.as_deref());
    writeln!(
        out,
        "{}{id}: {} mode, {}, {} replayed, {}",
        r.source,
        r.mode,
        counted(r.turns, "turn"),
        counted(r.events, "event"),
        counted(r.nudges.len(), "nudge")
    )?;
    if r.nudges.is_empty() {
        writeln!(out, "  nothing fires")?;
    }
    for n in &r.nudges {
        writeln!(
            out,
            "  [event {} · agent turn {}] {} {:.2}  {}",
            n.event,
            n.turn,
            n.classifier,
            n.confidence,
            n.reason.as_deref().unwrap_or("")
        )?;
    }
    let fired: Vec<String> = r
        .fires
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(c, n)| format!("{c} {n}"))
        .collect();
    if !fired.is_empty() {
        writeln!(out, "  fires: {}", fired.join(", "))?;
    }
    Ok(())
}

/// Feeds a follower's events to the guide, printing each nudge.
fn observe_all(
    guide: &mut Guide,
    events: Vec<Event>,
    summary: &mut FollowSummary,
    json: bool,
    out: &mut impl Write,
) -> Result<()> {
    for event in events {
        summary.events += 1;
        // A call proposed first, as a host sees it before it runs.
        for n in guide.replay(&event) {
            write_nudge(&n, json, out)?;
            summary.nudges += 1;
        }
    }
    Ok(())
}

fn warn_all(
    errors: Vec<tact::import::ImportError>,
    summary: &mut FollowSummary,
    err: &mut impl Write,
) -> Result<()> {
    for e in errors {
        summary.skipped += 1;
        writeln!(err, "warning: {e} (skipped)")?;
        err.flush()?;
    }
    Ok(())
}

/// `tact guide --follow --format NAME -`: an agent's log read from
/// `reader` as it arrives (a half-written last line is waited for), each
/// nudge printed as it fires; a bad line is a warning naming its line.
pub fn follow_log(
    mut reader: impl BufRead,
    format: tact::import::Format,
    source: &str,
    mode: Mode,
    json: bool,
    out: &mut impl Write,
    err: &mut impl Write,
) -> Result<FollowSummary> {
    let mut guide = Guide::new(mode);
    let mut follower = tact::import::Follower::new(format, source);
    let mut summary = FollowSummary::default();
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot read {source}")),
        };
        if chunk.is_empty() {
            break;
        }
        let n = chunk.len();
        let (events, errors) = follower.push(chunk);
        reader.consume(n);
        warn_all(errors, &mut summary, err)?;
        observe_all(&mut guide, events, &mut summary, json, out)?;
    }
    let (events, errors) = follower.finish();
    warn_all(errors, &mut summary, err)?;
    observe_all(&mut guide, events, &mut summary, json, out)?;
    out.flush()?;
    Ok(summary)
}

/// How often a followed file is checked for new bytes.
const POLL: std::time::Duration = std::time::Duration::from_millis(200);

/// `tact guide --follow FILE`: the file read as the agent writes it, never
/// ending (`tail -f`): new bytes of a line-based log as they are appended
/// (a half-written last line is waited for), a one-document log
/// (OpenHands, SWE-agent) read again whole when it changes. Without
/// `--format` (and for tact's own event lines) the format is detected from
/// the file's start.
pub fn follow_file(
    path: &Path,
    format: Option<tact::import::Format>,
    mode: Option<Mode>,
    json: bool,
    out: &mut impl Write,
    err: &mut impl Write,
) -> Result<FollowSummary> {
    use std::io::{Read, Seek, SeekFrom};
    let source = path.display().to_string();
    let mut file = tact_core::input::open(path)?;
    let format = match format {
        Some(f) => Some(f),
        None => {
            let mut head = Vec::new();
            (&mut file).take(64 << 10).read_to_end(&mut head)?;
            file.seek(SeekFrom::Start(0))?;
            tact::import::Format::detect(path, &String::from_utf8_lossy(&head))
        }
    };
    let Some(format) = format else {
        let mut head = Vec::new();
        (&mut file).take(64 << 10).read_to_end(&mut head)?;
        file.seek(SeekFrom::Start(0))?;
        ensure_native(&source, &String::from_utf8_lossy(&head))?;
        let mode = mode.unwrap_or(Mode::Headless);
        return follow(std::io::BufReader::new(Tail { file }), mode, json, out, err);
    };
    let mut guide = Guide::new(mode.unwrap_or(tact::import::LOG_MODE));
    let mut follower = tact::import::Follower::new(format, &source);
    let mut summary = FollowSummary::default();
    let mut buf = vec![0u8; 1 << 16];
    let mut seen_len = None;
    loop {
        if format.is_line_based() {
            let n = match file.read(&mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e).with_context(|| format!("cannot read {source}")),
            };
            if n > 0 {
                let (events, errors) = follower.push(&buf[..n]);
                warn_all(errors, &mut summary, err)?;
                observe_all(&mut guide, events, &mut summary, json, out)?;
                continue;
            }
        } else {
            let len = std::fs::metadata(path).map(|m| m.len()).ok();
            if len != seen_len {
                seen_len = len;
                let limit = tact_core::input::MAX_TEXT_BYTES;
                let bytes = tact_core::input::read_file(path, limit)?;
                let events = follower.replace_document(&bytes);
                observe_all(&mut guide, events, &mut summary, json, out)?;
            }
        }
        out.flush()?;
        std::thread::sleep(POLL);
    }
}

/// A file read as it grows: at its end, reads wait for more (`tail -f`).
struct Tail {
    file: std::fs::File,
}

impl std::io::Read for Tail {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let n = self.file.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            std::thread::sleep(POLL);
        }
    }
}

/// A trajectory read from a file, with the verdicts it expects if it is a
/// labelled `guidance` record.
#[derive(Debug, Clone, PartialEq)]
pub struct GuideInput {
    /// Where it came from (`FILE` or `FILE:LINE`).
    pub source: String,
    /// The trajectory.
    pub trajectory: Trajectory,
    /// The `expect` map, if present.
    pub expect: Option<BTreeMap<String, bool>>,
}

fn input_from_value(source: String, value: Value) -> Result<GuideInput> {
    let expect = match value.get("expect") {
        Some(e) => Some(
            serde_json::from_value(e.clone()).with_context(|| format!("{source}: bad `expect`"))?,
        ),
        None => None,
    };
    let trajectory = serde_json::from_value(value).map_err(|e| anyhow!("{source}: {e}"))?;
    Ok(GuideInput {
        source,
        trajectory,
        expect,
    })
}

/// Reads trajectories from `text`: one JSON object for the whole file
/// (possibly pretty-printed), a JSON array of events (one headless
/// trajectory), or JSON Lines of trajectories (blank and `//` lines
/// skipped). Errors name `source` and the line.
pub fn parse_inputs(source: &str, text: &str) -> Result<Vec<GuideInput>> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) => {
            let events: Vec<Event> = serde_json::from_value(Value::Array(items))
                .map_err(|e| anyhow!("{source}: {e}"))?;
            return Ok(vec![GuideInput {
                source: source.to_owned(),
                trajectory: Trajectory {
                    events,
                    ..Trajectory::default()
                },
                expect: None,
            }]);
        }
        Ok(value @ Value::Object(_)) => {
            return Ok(vec![input_from_value(source.to_owned(), value)?]);
        }
        Ok(_) => {
            return Err(anyhow!(
                "{source}: expected a trajectory object, an array of events, or JSON Lines"
            ));
        }
        Err(whole) => {
            // JSON Lines when the first content line is a JSON value by itself.
            let first = text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.starts_with("//"));
            let jsonl = first.is_some_and(|l| serde_json::from_str::<Value>(l).is_ok());
            if !jsonl {
                return Err(anyhow!(
                    "{source}:{}:{}: {whole}",
                    whole.line(),
                    whole.column()
                ));
            }
        }
    }
    let lines = parse_jsonl::<Value>(source, text)?;
    if lines
        .first()
        .is_some_and(|l| l.record.get("type").is_some())
    {
        return Ok(vec![event_lines(source, lines)?]);
    }
    lines
        .into_iter()
        .map(|l| input_from_value(format!("{source}:{}", l.line), l.record))
        .collect()
}

/// One headless trajectory from JSON Lines of bare events, as
/// `--follow` reads them (`{"pending": [...]}` lines propose calls).
fn event_lines(source: &str, lines: Vec<tact_core::dataset::Line<Value>>) -> Result<GuideInput> {
    let mut trajectory = Trajectory::default();
    for l in lines {
        let at = format!("{source}:{}", l.line);
        if l.record.get("type").is_some() {
            let event = serde_json::from_value(l.record).map_err(|e| anyhow!("{at}: {e}"))?;
            trajectory.events.push(event);
        } else if let Some(p) = l.record.get("pending") {
            let pending: Vec<PendingCall> = serde_json::from_value(p.clone())
                .map_err(|e| anyhow!("{at}: bad `pending`: {e}"))?;
            trajectory.pending = pending;
        } else {
            bail!("{at}: expected an event (with `type`) or `{{\"pending\": [...]}}`");
        }
    }
    Ok(GuideInput {
        source: source.to_owned(),
        trajectory,
        expect: None,
    })
}

/// One classifier that fired.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fired {
    /// The classifier's name.
    pub classifier: String,
    /// `yes` or `maybe`.
    pub verdict: &'static str,
    /// Its confidence.
    pub confidence: f32,
    /// Why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Details for providers.
    #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
    pub metadata: serde_json::Map<String, Value>,
}

/// What `tact guide FILE` reports for one trajectory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GuideReport {
    /// Where the trajectory came from.
    pub source: String,
    /// Its id, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Its mode.
    pub mode: Mode,
    /// Events in the trajectory.
    pub events: usize,
    /// Tool calls in the window.
    pub calls: usize,
    /// Pending calls.
    pub pending: usize,
    /// Classifiers that fired, in table order.
    pub fired: Vec<Fired>,
    /// Every classifier's verdict (a failed classifier is `false`).
    pub verdicts: BTreeMap<String, bool>,
    /// Patterns the analysis detected, with evidence.
    pub patterns: Vec<DetectedPattern>,
    /// `expect` entries the verdicts contradict (`name: expected`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expect_mismatches: Vec<String>,
}

/// Classifies one trajectory with every default classifier.
pub fn report(input: &GuideInput) -> GuideReport {
    let t = &input.trajectory;
    let classifiers = default_classifiers();
    let analysis = TrajectoryAnalysis::from_trajectory(t);
    let mut fired = Vec::new();
    let mut all = BTreeMap::new();
    for (name, fires, result) in verdicts(&classifiers, t) {
        all.insert(name.to_owned(), fires);
        if let (true, Some(r)) = (fires, result) {
            fired.push(Fired {
                classifier: name.to_owned(),
                verdict: r.verdict().as_str(),
                confidence: r.confidence,
                reason: r.reason,
                metadata: r.metadata,
            });
        }
    }
    let expect_mismatches = input
        .expect
        .iter()
        .flatten()
        .filter(|(name, want)| all.get(name.as_str()) != Some(*want))
        .map(|(name, want)| format!("{name}: expected {want}"))
        .collect();
    GuideReport {
        source: input.source.clone(),
        id: t.id.clone(),
        mode: t.mode,
        events: t.events.len(),
        calls: analysis.counts().calls,
        pending: t.pending.len(),
        fired,
        verdicts: all,
        patterns: analysis.patterns(),
        expect_mismatches,
    }
}

/// `text` as tact may show it: every credential its scanner recognises
/// replaced by `[REDACTED]` (the whole text if the scanner is unavailable).
fn redacted(text: &[u8]) -> String {
    let text = String::from_utf8_lossy(text);
    match tact_secrets::CredentialScanner::default().redact_text(&text) {
        Ok(clean) => clean.into_owned(),
        Err(_) => format!("{}\n", tact_secrets::REDACTED),
    }
}

fn write_report(r: &GuideReport, out: &mut impl Write) -> Result<()> {
    let id = shown_id(r.id.as_deref());
    writeln!(
        out,
        "{}{id}: {} mode, {} events, {} calls in window, {} pending",
        r.source, r.mode, r.events, r.calls, r.pending
    )?;
    if r.fired.is_empty() {
        writeln!(out, "  nothing fires")?;
    }
    let width = r
        .fired
        .iter()
        .map(|f| f.classifier.len())
        .max()
        .unwrap_or(0);
    for f in &r.fired {
        writeln!(
            out,
            "  {:<width$}  {:<5} {:.2}  {}",
            f.classifier,
            f.verdict,
            f.confidence,
            f.reason.as_deref().unwrap_or("")
        )?;
    }
    for p in &r.patterns {
        writeln!(
            out,
            "  pattern {} (since event {}): {}",
            p.kind.as_str(),
            p.first_seen,
            p.description
        )?;
    }
    for m in &r.expect_mismatches {
        writeln!(out, "  MISMATCH {m}")?;
    }
    Ok(())
}

/// `tact guide FILE` on already-read text: prints, for each trajectory,
/// which classifiers fire and why (text), or one JSON object per
/// trajectory and line (`json`). `source` names the input in messages.
pub fn run_guide(source: &str, text: &str, json: bool, out: &mut impl Write) -> Result<()> {
    for input in parse_inputs(source, text)? {
        let r = report(&input);
        let mut buf = Vec::new();
        if json {
            serde_json::to_writer(&mut buf, &r)?;
            writeln!(buf)?;
        } else {
            write_report(&r, &mut buf)?;
        }
        out.write_all(redacted(&buf).as_bytes())?;
    }
    out.flush()?;
    Ok(())
}

/// What a `--follow` session saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct FollowSummary {
    /// Events observed.
    pub events: usize,
    /// Pending-call proposals observed.
    pub proposals: usize,
    /// Nudges printed.
    pub nudges: usize,
    /// Bad lines reported and skipped.
    pub skipped: usize,
}

/// One nudge as `--follow --json` prints it (a line) and `tact guide
/// --json` lists it for a log: where it fired (the event's position in
/// the replay, the guide's turn clock), who fired and why.
#[derive(Debug, Serialize)]
struct NudgeLine {
    event: usize,
    turn: usize,
    provider: String,
    classifier: String,
    confidence: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    guidance: String,
}

impl From<&Nudge> for NudgeLine {
    fn from(n: &Nudge) -> Self {
        NudgeLine {
            event: n.position,
            turn: n.turn,
            provider: n.provider.clone(),
            classifier: n.classifier.clone(),
            confidence: n.result.confidence,
            reason: n.result.reason.clone(),
            guidance: n.message.clone(),
        }
    }
}

fn write_nudge(n: &Nudge, json: bool, out: &mut impl Write) -> Result<()> {
    if json {
        let mut buf = Vec::new();
        serde_json::to_writer(&mut buf, &NudgeLine::from(n))?;
        writeln!(buf)?;
        out.write_all(redacted(&buf).as_bytes())?;
    } else {
        // Continuation lines are indented so every nudge starts one block.
        let message = redacted(n.message.as_bytes()).replace('\n', "\n    ");
        writeln!(out, "[event {} · {}] {message}", n.position, n.classifier)?;
    }
    out.flush()?;
    Ok(())
}

/// `tact guide --follow`: reads JSON Lines from `reader`, one event per
/// line (`{"type": ...}`) or a proposal of pending calls
/// (`{"pending": [{"name": ..., "params": {...}}]}`), and prints each
/// nudge of the default providers as soon as it fires (flushing `out`),
/// with cooldowns and once-per-streak applied. Blank and `//` lines are
/// skipped; a bad line (not UTF-8, not JSON, not an event nor a proposal)
/// is reported on `err` as `warning: stdin:LINE: ...` and the stream goes
/// on, as a host's log stream needs. Only a failure to read stops it.
pub fn follow(
    mut reader: impl BufRead,
    mode: Mode,
    json: bool,
    out: &mut impl Write,
    err: &mut impl Write,
) -> Result<FollowSummary> {
    let mut guide = Guide::new(mode);
    let mut summary = FollowSummary::default();
    let mut bytes = Vec::new();
    let limit = tact_core::input::MAX_LINE_BYTES;
    for n in 1.. {
        bytes.clear();
        let read = tact_core::input::next_line(&mut reader, &mut bytes, limit)
            .with_context(|| format!("stdin:{n}: cannot read"))?;
        match read {
            tact_core::input::Line::End => break,
            tact_core::input::Line::TooLong(len) => {
                summary.skipped += 1;
                writeln!(
                    err,
                    "warning: stdin:{n}: a line of {len} bytes, over the limit of {limit} (skipped)"
                )?;
                err.flush()?;
                continue;
            }
            tact_core::input::Line::Read => {}
        }
        match follow_line(&mut guide, &mut summary, &bytes) {
            Ok(nudges) => {
                for nudge in &nudges {
                    write_nudge(nudge, json, out)?;
                    summary.nudges += 1;
                }
            }
            Err(e) => {
                summary.skipped += 1;
                writeln!(err, "warning: stdin:{n}: {e} (skipped)")?;
                err.flush()?;
            }
        }
    }
    out.flush()?;
    Ok(summary)
}

/// Feeds one `--follow` line to the guide: the nudges it fires (none for
/// a blank or `//` line), or why the line is bad. The line is read by
/// `tact_watch::read::parse_line`, the path `tact watch` reads with too.
fn follow_line(guide: &mut Guide, summary: &mut FollowSummary, bytes: &[u8]) -> Result<Vec<Nudge>> {
    match tact_watch::read::parse_line(bytes)? {
        None => Ok(Vec::new()),
        Some(Record::Event(event)) => {
            summary.events += 1;
            Ok(guide.observe(&event))
        }
        Some(Record::Pending(pending)) => {
            summary.proposals += 1;
            Ok(guide.propose(pending))
        }
        Some(_) => bail!("expected an event (with `type`) or `{{\"pending\": [...]}}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LOOP: &str = r#"{"id":"loop","events":[{"type":"user","text":"go"},{"type":"tool","name":"ls"},{"type":"tool","name":"ls"},{"type":"tool","name":"ls"},{"type":"tool","name":"ls"}],"expect":{"doom_loop":true,"monologue":true}}"#;

    fn guide_text(text: &str, json: bool) -> String {
        let mut out = Vec::new();
        run_guide("t.jsonl", text, json, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn text_report_names_what_fires_and_why() {
        let s = guide_text(LOOP, false);
        assert!(
            s.starts_with(
                "t.jsonl `loop`: headless mode, 5 events, 4 calls in window, 0 pending\n"
            ),
            "{s}"
        );
        assert!(s.contains("doom_loop"), "{s}");
        assert!(s.contains("Cycle [ls] repeated 4x"), "{s}");
        assert!(s.contains("pattern doom_loop (since event 4)"), "{s}");
        assert!(s.contains("MISMATCH monologue: expected true"), "{s}");
    }

    #[test]
    fn json_lines_one_object_per_trajectory() {
        let text = format!("// two\n{LOOP}\n\n{{\"events\":[],\"mode\":\"interactive\"}}\n");
        let s = guide_text(&text, true);
        let lines: Vec<Value> = s
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["source"], "t.jsonl:2");
        assert_eq!(lines[0]["verdicts"]["doom_loop"], true);
        assert_eq!(lines[0]["fired"][0]["classifier"], "doom_loop");
        assert_eq!(lines[1]["mode"], "interactive");
        assert_eq!(lines[1]["fired"], json!([]));
    }

    #[test]
    fn whole_file_object_array_and_errors() {
        let pretty =
            serde_json::to_string_pretty(&serde_json::from_str::<Value>(LOOP).unwrap()).unwrap();
        assert_eq!(parse_inputs("p.json", &pretty).unwrap().len(), 1);
        let arr = parse_inputs("a.json", r#"[{"type":"assistant","text":""}]"#).unwrap();
        assert_eq!(arr[0].trajectory.events.len(), 1);
        let err = parse_inputs(
            "b.json",
            "{\n  \"events\": [\n    {\"type\": \"tool\"}\n  ]\n",
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("b.json:"), "{err}");
        let err = parse_inputs(
            "c.jsonl",
            &format!("{LOOP}\n{{\"events\":[{{\"type\":\"x\"}}]}}\n"),
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("c.jsonl:2: "), "{err}");
        assert!(parse_inputs("d.json", "42").is_err());
    }

    /// A log is replayed as `--follow` replays it: the same nudges, at the
    /// same events, each classifier counted.
    #[test]
    fn a_log_is_replayed_as_follow_replays_it() {
        let call = |i: u32| {
            format!(
                r#"{{"type":"assistant","sessionId":"s","message":{{"id":"m{i}","content":[{{"type":"tool_use","id":"t{i}","name":"Bash","input":{{"command":"npm ci"}}}}]}}}}
{{"type":"user","sessionId":"s","message":{{"content":[{{"type":"tool_result","tool_use_id":"t{i}","content":"npm ERR! code EINTEGRITY","is_error":true}}]}}}}
"#
            )
        };
        let mut log = String::from(
            r#"{"type":"user","sessionId":"s","message":{"role":"user","content":"Install it."}}"#,
        );
        log.push('\n');
        for i in 0..4 {
            log.push_str(&call(i));
        }
        let format = tact::import::Format::ClaudeCode;
        let mut out = Vec::new();
        run_guide_log("l.jsonl", &log, format, Mode::Interactive, true, &mut out).unwrap();
        let r: Value = serde_json::from_slice(&out).unwrap();
        let mut followed = Vec::new();
        follow_log(
            log.as_bytes(),
            format,
            "l.jsonl",
            Mode::Interactive,
            true,
            &mut followed,
            &mut Vec::new(),
        )
        .unwrap();
        let lines: Vec<Value> = String::from_utf8(followed)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(r["nudges"], Value::Array(lines));
        assert_eq!(r["nudges"][0]["classifier"], "error_streak");
        assert_eq!(r["nudges"][0]["event"], 3);
        assert_eq!(r["fires"]["error_streak"], 1);
        assert_eq!(r["fires"]["doom_loop"], 1);
        assert_eq!(r["fires"]["large_output"], 0);
        assert_eq!(
            (r["turns"].as_u64(), r["events"].as_u64()),
            (Some(1), Some(5))
        );

        let mut out = Vec::new();
        run_guide_log("l.jsonl", &log, format, Mode::Interactive, false, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with(
                "l.jsonl (claude-code) `s`: interactive mode, 1 turn, 5 events replayed, "
            ),
            "{text}"
        );
        assert!(
            text.contains("  [event 3 · agent turn 3] error_streak 0.50  3 consecutive errors\n"),
            "{text}"
        );
        assert!(
            text.contains("  fires: doom_loop 1, error_streak 1"),
            "{text}"
        );
    }

    #[test]
    fn follow_prints_nudges_as_they_fire() {
        let fail = r#"{"type":"tool","name":"shell","params":{"command":"npm ci"},"ok":false,"output":"npm ERR! code EINTEGRITY"}"#;
        let mut input = String::from("{\"type\":\"user\",\"text\":\"install\"}\n");
        for _ in 0..6 {
            input.push_str(fail);
            input.push('\n');
        }
        input.push_str(r#"{"pending":[{"name":"db","params":{"password":"pw-1234"}}]}"#);
        input.push('\n');
        let mut out = Vec::new();
        let s = follow(
            input.as_bytes(),
            Mode::Interactive,
            false,
            &mut out,
            &mut Vec::new(),
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with("    ")).collect();
        assert_eq!((s.events, s.proposals), (7, 1));
        assert_eq!(s.nudges, lines.len(), "{text}");
        assert!(
            lines[0].starts_with("[event 3 · error_streak] Your last 3 tool calls failed:"),
            "{text}"
        );
        assert!(
            text.contains(
                "[event 4 · doom_loop] You are in a loop: `shell {\"command\":\"npm ci\"}`"
            ),
            "{text}"
        );
        assert!(text.contains("· sensitive_content]"), "{text}");
        assert!(!text.contains("pw-1234"));

        let mut out = Vec::new();
        follow(
            input.as_bytes(),
            Mode::Interactive,
            true,
            &mut out,
            &mut Vec::new(),
        )
        .unwrap();
        let first: Value =
            serde_json::from_str(String::from_utf8(out).unwrap().lines().next().unwrap()).unwrap();
        assert_eq!(
            (first["event"].as_u64(), first["classifier"].as_str()),
            (Some(3), Some("error_streak"))
        );
        assert_eq!(first["confidence"], json!(0.5));
    }

    #[test]
    fn args_dispatch_file_stdin_and_follow() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            guide: GuideArgs,
        }
        let args = |v: &[&str]| {
            Cli::try_parse_from(std::iter::once("guide").chain(v.iter().copied())).map(|c| c.guide)
        };
        let mut out = Vec::new();
        run(&args(&["-"]).unwrap(), LOOP.as_bytes(), &mut out).unwrap();
        assert!(String::from_utf8(out).unwrap().starts_with("stdin `loop`"));
        let a = args(&["--follow", "--mode", "interactive", "--json"]).unwrap();
        assert_eq!(a.mode, Some(Mode::Interactive));
        let mut out = Vec::new();
        run(&a, "{\"type\":\"user\"}\n".as_bytes(), &mut out).unwrap();
        assert!(out.is_empty());
        assert!(args(&["--mode", "batch"]).is_err());
        assert!(args(&["x.json", "--follow"]).is_ok());
        assert!(args(&["x.json", "--format", "cursor"]).is_err());
        assert!(run(&args(&[]).unwrap(), "".as_bytes(), &mut Vec::new()).is_err());
        let err = run(
            &args(&["/nonexistent/t.json"]).unwrap(),
            "".as_bytes(),
            &mut Vec::new(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("cannot read /nonexistent/t.json"));
    }

    #[test]
    fn follow_reports_bad_lines_with_their_number_and_goes_on() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let input = b"\n{\"type\":\"user\"}\n{\"type\":\"bogus\"}\nnpm WARN deprecated\n[1]\n\xff\n{\"type\":\"user\"}\n";
        let s = follow(&input[..], Mode::Headless, false, &mut out, &mut err).unwrap();
        assert_eq!((s.events, s.skipped), (2, 4));
        let err = String::from_utf8(err).unwrap();
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 4, "{err}");
        assert!(lines[0].starts_with("warning: stdin:3: "), "{err}");
        assert!(
            lines[1].starts_with("warning: stdin:4: not valid JSON"),
            "{err}"
        );
        assert!(
            lines[2].starts_with("warning: stdin:5: expected an event"),
            "{err}"
        );
        assert_eq!(lines[3], "warning: stdin:6: invalid UTF-8 (skipped)");
    }
}
