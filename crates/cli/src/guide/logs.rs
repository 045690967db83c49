//! `tact guide` on an agent's log: the log replayed event by event as it
//! is read (`tact guide FILE`, one turn in memory at a time), a file of
//! many sessions reported session by session, and the log followed live
//! as the agent appends to it (`--follow FILE` or `-` with `--format`).

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Serialize;
use tact_guidance::{Guide, Nudge};
use tact_types::trajectory::{Event, Mode};
use tact_watch::source::Tail;

use super::{
    FollowSummary, NudgeLine, ensure_native, follow, redacted, write_nudge, write_redacted,
};

/// The longest line of an agent's log read on stdin: a line of a
/// line-based log is cut at `MAX_LINE_BYTES`, a one-document log (read
/// whole) at `MAX_TEXT_BYTES`.
pub(super) fn log_line_limit(format: tact::import::Format) -> u64 {
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
pub(super) fn guide_log_reader(
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

/// `tact guide FILE` on a log that holds many sessions, one a line
/// (OpenHands' `output.jsonl`): each session replayed and reported as
/// [`guide_log_reader`] reports a log, under its own heading (`FILE:LINE`
/// and its id), in file order, one line in memory at a time. A line that
/// cannot be read is a warning naming it, the others are read, and the
/// command then fails.
pub(super) fn guide_sessions(
    source: &str,
    reader: impl BufRead,
    format: tact::import::Format,
    mode: Mode,
    json: bool,
    out: &mut impl Write,
) -> Result<()> {
    let max = tact::import::MAX_RECORD_BYTES;
    let (mut read, mut failed) = (0usize, 0usize);
    for line in tact::import::SessionLines::new(reader, source, max) {
        read += 1;
        let replayed = line.and_then(|line| {
            let replay = std::rc::Rc::new(std::cell::RefCell::new(LogReplay::new(mode)));
            let fed = std::rc::Rc::clone(&replay);
            let on_event = move |event: Event| fed.borrow_mut().event(&event);
            let log = line.import_replayed(format, source, max, on_event)?;
            let replay = replay.replace(LogReplay::new(mode));
            Ok((format!("{source}:{}", line.line), log, replay))
        });
        match replayed {
            Ok((at, log, replay)) => write_log_replay(&at, log, format, replay, json, out)?,
            Err(e) => {
                failed += 1;
                eprintln!("warning: {} (skipped)", redacted(e.to_string().as_bytes()));
            }
        }
    }
    if failed > 0 {
        bail!("{source}: {failed} of {read} sessions could not be read");
    }
    Ok(())
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
    write_redacted(&r, json, write_log_report, out)?;
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
pub(super) fn shown_id(id: Option<&str>) -> String {
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

/// `tact guide --follow` on a log that holds many sessions, one a line
/// (OpenHands' `output.jsonl`, a line written whole as each task ends):
/// each session replayed through a guide of its own as its line arrives,
/// its nudges printed then (as JSON, each with its `session`; as text,
/// under a `session ID (FILE:LINE)` line); a bad line is a warning naming
/// it, and the stream goes on.
pub fn follow_sessions(
    reader: impl BufRead,
    format: tact::import::Format,
    source: &str,
    mode: Mode,
    json: bool,
    out: &mut impl Write,
    err: &mut impl Write,
) -> Result<FollowSummary> {
    let mut summary = FollowSummary::default();
    let max = tact::import::MAX_RECORD_BYTES;
    for line in tact::import::SessionLines::new(reader, source, max) {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                warn_all(vec![e], &mut summary, err)?;
                continue;
            }
        };
        let fired = std::rc::Rc::new(std::cell::RefCell::new((Guide::new(mode), Vec::new(), 0)));
        let fed = std::rc::Rc::clone(&fired);
        let on_event = move |event: Event| {
            let (guide, nudges, events) = &mut *fed.borrow_mut();
            *events += 1;
            nudges.extend(guide.replay(&event));
        };
        match line.import_replayed(format, source, max, on_event) {
            Ok(log) => {
                let (_, nudges, events) = fired.replace((Guide::new(mode), Vec::new(), 0));
                summary.events += events;
                let id = log.meta.session_id.unwrap_or_default();
                if !json {
                    let heading = format!("session {id} ({source}:{})\n", line.line);
                    out.write_all(redacted(heading.as_bytes()).as_bytes())?;
                }
                for n in &nudges {
                    write_session_nudge(n, &id, json, out)?;
                    summary.nudges += 1;
                }
                out.flush()?;
            }
            Err(e) => warn_all(vec![e], &mut summary, err)?,
        }
    }
    out.flush()?;
    Ok(summary)
}

/// A nudge of one session of a file of many: as [`write_nudge`], the
/// session's id in its JSON line.
fn write_session_nudge(n: &Nudge, session: &str, json: bool, out: &mut impl Write) -> Result<()> {
    if !json {
        return write_nudge(n, json, out);
    }
    let mut line = NudgeLine::from(n);
    line.session = Some(session.to_owned());
    let mut buf = Vec::new();
    serde_json::to_writer(&mut buf, &line)?;
    writeln!(buf)?;
    out.write_all(redacted(&buf).as_bytes())?;
    Ok(())
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
    let mut head = Vec::new();
    (&mut file).take(64 << 10).read_to_end(&mut head)?;
    file.seek(SeekFrom::Start(0))?;
    let head = String::from_utf8_lossy(&head);
    let Some(format) = format else {
        ensure_native(&source, &head)?;
        let mode = mode.unwrap_or(Mode::Headless);
        return follow(
            std::io::BufReader::new(Tail::new(file, POLL)),
            mode,
            json,
            out,
            err,
        );
    };
    if tact::import::holds_sessions(format, &head) {
        // Each session a line, written whole when its task ends.
        let reader = std::io::BufReader::new(Tail::new(file, POLL));
        let mode = mode.unwrap_or(tact::import::LOG_MODE);
        return follow_sessions(reader, format, &source, mode, json, out, err);
    }
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
