//! The input side: a thread that reads the followed file (as `tail -f`
//! does: to its end, then whatever is appended) or stdin, turns each line
//! into steps with a [`Reader`], labels them with a [`Labeler`] (the
//! classifiers run here, not on the UI thread), and sends them in batches
//! over a channel. The UI thread never waits on it.

use std::cell::RefCell;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::time::Duration;

use crate::label::Labeler;
use crate::log::LogFollower;
use crate::read::{Reader, Step, parse_document, steps};
use tact::import::Format;
use tact::scoring::Session;

/// Where the session is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Standard input, until it closes.
    Stdin,
    /// A file, followed as it grows (a `.json` file is one document, read
    /// whole).
    File(PathBuf),
}

impl Source {
    /// The source's name in messages: the path, or `stdin`.
    pub fn name(&self) -> String {
        match self {
            Source::Stdin => String::from("stdin"),
            Source::File(p) => p.display().to_string(),
        }
    }
}

/// What the reading thread sends.
#[derive(Debug)]
#[non_exhaustive]
pub enum Input {
    /// Steps read, in order.
    Steps(Vec<Step>),
    /// A bad line, skipped (`SOURCE:LINE: why`).
    Warning(String),
    /// The input ended (stdin closed, a whole document read).
    Ended,
    /// Reading failed; nothing more comes.
    Failed(String),
}

/// How often a followed file is checked for growth.
const POLL: Duration = Duration::from_millis(100);
/// Lines read before a batch is sent even if more follow.
const BATCH: usize = 512;

/// Starts the reading thread; it sends on `tx` (wrapped by `wrap`) until
/// the input ends or the receiver is gone. With a `labeler`, each step is
/// labelled on this thread as it is read (each user message routed, each
/// agent message's questions classified), so the view's thread does not
/// classify.
pub fn spawn<M: Send + 'static>(
    source: Source,
    reader: Box<dyn Reader>,
    labeler: Option<Labeler>,
    tx: Sender<M>,
    wrap: fn(Input) -> M,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    start(labeler, tx, wrap, move |send| {
        let name = source.name();
        let done = match &source {
            Source::Stdin => {
                let stdin = std::io::stdin();
                follow(stdin.lock(), &name, reader, send, None)
            }
            Source::File(path) => read_file(path, &name, reader, send),
        };
        if let Err(e) = done {
            let _ = send(Input::Failed(format!("{name}: {e}")));
        }
    })
}

/// Starts the reading thread: `body` reads, sending through a sender that
/// labels steps with `labeler` (when there is one) and wraps them for `tx`;
/// a send fails once the receiver is gone.
fn start<M: Send + 'static>(
    labeler: Option<Labeler>,
    tx: Sender<M>,
    wrap: fn(Input) -> M,
    body: impl FnOnce(&dyn Fn(Input) -> bool) + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name(String::from("tact-watch-read"))
        .spawn(move || {
            let labeler = RefCell::new(labeler);
            let send = |input: Input| tx.send(wrap(labelled(input, &labeler))).is_ok();
            body(&send);
        })
}

/// `input` with its steps labelled by `labeler`, if there is one.
fn labelled(input: Input, labeler: &RefCell<Option<Labeler>>) -> Input {
    match (input, labeler.borrow_mut().as_mut()) {
        (Input::Steps(steps), Some(l)) => {
            Input::Steps(steps.into_iter().map(|s| l.label(s)).collect())
        }
        (input, _) => input,
    }
}

/// The steps of a whole session file in tact's own formats (`text`, named
/// `name` in warnings), as the reading thread gets them, and the warnings
/// of its bad lines.
pub fn native_steps(text: &[u8], name: &str) -> (Vec<Step>, Vec<String>) {
    // One JSON document (a session, a trajectory, an array of events).
    if let Some(Ok(records)) = std::str::from_utf8(text).ok().and_then(parse_document) {
        let mut out = Vec::new();
        for r in records {
            steps(r, &mut out);
        }
        return (out, Vec::new());
    }
    let got = RefCell::new((Vec::new(), Vec::new()));
    let send = |i: Input| {
        let mut g = got.borrow_mut();
        match i {
            Input::Steps(s) => g.0.extend(s),
            Input::Warning(w) | Input::Failed(w) => g.1.push(w),
            Input::Ended => {}
        }
        true
    };
    if let Err(e) = follow(text, name, Box::new(crate::read::Native), &send, None) {
        send(Input::Failed(format!("{name}: {e}")));
    }
    got.into_inner()
}

/// Starts the reading thread of an agent's log of `format` (read through
/// `tact::import`'s [`Follower`](tact::import::Follower), as `tact guide
/// --follow` reads it): `header` first, then the steps of its turns as
/// they complete. A file is followed as it grows (a one-document format
/// read again whole when it changes); stdin is read to its end. Bad lines
/// are warnings naming their line; the stream goes on.
pub fn spawn_log<M: Send + 'static>(
    source: Source,
    format: Format,
    header: Session,
    labeler: Option<Labeler>,
    tx: Sender<M>,
    wrap: fn(Input) -> M,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    start(labeler, tx, wrap, move |send| {
        let name = source.name();
        if !send(Input::Steps(vec![Step::Begin(Box::new(header))])) {
            return;
        }
        let mut log = LogFollower::new(format, &name);
        if let Err(e) = follow_log(&source, &mut log, send) {
            let _ = send(Input::Failed(format!("{name}: {e}")));
        }
    })
}

/// Starts the reading thread of an agent's log that holds many sessions,
/// one a line (OpenHands' `output.jsonl`, each task's line written whole
/// when it ends): a file is read to its last complete line, the session
/// `wanted` (else the last) sent as [`pick_session`](crate::log::pick_session)
/// picks it, then each line appended is a new session, sent when it is
/// `wanted` (any, without), so the view follows the run's latest task;
/// stdin sends each session `wanted` as its line arrives. One line in
/// memory at a time; a bad line is a warning naming it.
pub fn spawn_sessions<M: Send + 'static>(
    source: Source,
    format: Format,
    defaults: tact::import::ImportDefaults,
    wanted: Option<String>,
    labeler: Option<Labeler>,
    tx: Sender<M>,
    wrap: fn(Input) -> M,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    start(labeler, tx, wrap, move |send| {
        let name = source.name();
        let path = match &source {
            Source::File(p) => p.clone(),
            Source::Stdin => PathBuf::from("stdin"),
        };
        let session =
            |log: &tact::import::ImportedLog| crate::log::session_steps(log, &path, &defaults);
        let max = tact::import::MAX_RECORD_BYTES;
        let each = |lines: &mut dyn Iterator<
            Item = Result<tact::import::SessionLine, tact::import::ImportError>,
        >| {
            for line in lines {
                let sent = match line.and_then(|l| l.import(format, &name, max)) {
                    Ok(log) => {
                        let id = log.meta.session_id.as_deref().unwrap_or_default();
                        wanted.as_deref().is_some_and(|w| w != id)
                            || send(Input::Steps(session(&log)))
                    }
                    Err(e) => send(Input::Warning(e.to_string())),
                };
                if !sent {
                    return false;
                }
            }
            true
        };
        let done = match &source {
            Source::Stdin => {
                let stdin = std::io::stdin();
                let mut lines = tact::import::SessionLines::new(stdin.lock(), &name, max);
                if each(&mut lines) {
                    send(Input::Ended);
                }
                Ok::<(), std::io::Error>(())
            }
            Source::File(path) => (|| {
                let mut file = File::open(path)?;
                let end = last_line_end(&mut file)?;
                file.seek(SeekFrom::Start(0))?;
                let head = BufReader::with_capacity(1 << 16, (&mut file).take(end));
                let picked = crate::log::pick_session(format, head, &name, wanted.as_deref());
                match picked {
                    Ok(p) => {
                        for w in p.warnings {
                            if !send(Input::Warning(w)) {
                                return Ok(());
                            }
                        }
                        if !send(Input::Steps(session(&p.log))) {
                            return Ok(());
                        }
                    }
                    // Nothing yet (or not the session asked for): wait.
                    Err(e) if end > 0 => {
                        if !send(Input::Warning(e.to_string())) {
                            return Ok(());
                        }
                    }
                    Err(_) => {}
                }
                file.seek(SeekFrom::Start(end))?;
                let lines_before = count_lines(path, end)?;
                let tail = BufReader::with_capacity(1 << 16, Tail::new(file, POLL));
                let mut lines =
                    tact::import::SessionLines::new(tail, &name, max).starting_at(lines_before);
                each(&mut lines);
                Ok(())
            })(),
        };
        if let Err(e) = done {
            let _ = send(Input::Failed(format!("{name}: {e}")));
        }
    })
}

/// Where the file's last complete line ends (after its `\n`; 0 when it
/// has none), read backwards from its end a block at a time.
fn last_line_end(file: &mut File) -> std::io::Result<u64> {
    let mut end = file.metadata()?.len();
    let mut block = vec![0u8; 1 << 16];
    while end > 0 {
        let start = end.saturating_sub(block.len() as u64);
        let n = usize::try_from(end - start).unwrap_or(block.len());
        file.seek(SeekFrom::Start(start))?;
        let got = block.get_mut(..n).unwrap_or_default();
        file.read_exact(got)?;
        if let Some(at) = memchr::memrchr(b'\n', got) {
            return Ok(start + at as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// The lines of the file's first `len` bytes (its last complete line's
/// number, when `len` is where that line ends).
fn count_lines(path: &Path, len: u64) -> std::io::Result<usize> {
    let mut reader = BufReader::with_capacity(1 << 16, File::open(path)?.take(len));
    let mut lines = 0;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(lines);
        }
        lines += memchr::memchr_iter(b'\n', buf).count();
        let n = buf.len();
        reader.consume(n);
    }
}

/// A file read as it grows (`tail -f`): at its end, a read waits for more,
/// checking every `poll`.
#[derive(Debug)]
pub struct Tail {
    file: File,
    poll: Duration,
}

impl Tail {
    /// `file` read from where it stands, waiting at its end.
    pub fn new(file: File, poll: Duration) -> Self {
        Tail { file, poll }
    }
}

impl Read for Tail {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let n = self.file.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            std::thread::sleep(self.poll);
        }
    }
}

/// Sends the steps and warnings of one read; `false` when the view is gone.
fn send_log(out: Vec<Step>, warnings: Vec<String>, send: &dyn Fn(Input) -> bool) -> bool {
    for w in warnings {
        if !send(Input::Warning(w)) {
            return false;
        }
    }
    out.is_empty() || send(Input::Steps(out))
}

/// Reads a log into steps: stdin to its end; a line-based file to its end,
/// then whatever is appended (polled; read again from the top if it was
/// truncated; at each poll that finds nothing new, the agent's message held
/// so far sent as a draft); a one-document file read again whole whenever its length or
/// time changes (SWE-agent rewrites its `.traj` after each step).
fn follow_log(
    source: &Source,
    log: &mut LogFollower,
    send: &dyn Fn(Input) -> bool,
) -> std::io::Result<()> {
    let mut buf = vec![0u8; 1 << 16];
    let path = match source {
        Source::Stdin => {
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            loop {
                let n = match input.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                };
                let mut out = Vec::new();
                let warnings = log.push(buf.get(..n).unwrap_or_default(), &mut out);
                if !send_log(out, warnings, send) {
                    return Ok(());
                }
            }
            let mut out = Vec::new();
            let warnings = log.finish(&mut out);
            if send_log(out, warnings, send) {
                send(Input::Ended);
            }
            return Ok(());
        }
        Source::File(path) => path,
    };
    if !log.format().is_line_based() {
        let mut seen = None;
        loop {
            let meta = std::fs::metadata(path)?;
            let now = (meta.len(), meta.modified().ok());
            if seen != Some(now) {
                seen = Some(now);
                let bytes = std::fs::read(path)?;
                let mut out = Vec::new();
                log.replace_document(&bytes, &mut out);
                if !send_log(out, Vec::new(), send) {
                    return Ok(());
                }
            }
            std::thread::sleep(POLL);
        }
    }
    let mut file = File::open(path)?;
    let mut offset = 0u64;
    loop {
        let n = match file.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n > 0 {
            offset += n as u64;
            let mut out = Vec::new();
            let warnings = log.push(buf.get(..n).unwrap_or_default(), &mut out);
            if !send_log(out, warnings, send) {
                return Ok(());
            }
            continue;
        }
        // Idle: the agent's message held so far is shown as a draft.
        let mut out = Vec::new();
        log.idle(&mut out);
        if !send_log(out, Vec::new(), send) {
            return Ok(());
        }
        std::thread::sleep(POLL);
        if std::fs::metadata(path).is_ok_and(|m| m.len() < offset) {
            // Truncated: start again from the top.
            file.seek(SeekFrom::Start(0))?;
            offset = 0;
            *log = LogFollower::new(log.format(), &source.name());
            if !send(Input::Warning(format!(
                "{}: truncated; read again",
                source.name()
            ))) {
                return Ok(());
            }
        }
    }
}

fn read_file(
    path: &Path,
    name: &str,
    reader: Box<dyn Reader>,
    send: &dyn Fn(Input) -> bool,
) -> std::io::Result<()> {
    let file = File::open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    if path.extension().is_some_and(|e| e == "json") {
        let mut text = String::new();
        BufReader::new(&file).read_to_string(&mut text)?;
        if let Some(parsed) = parse_document(&text) {
            match parsed {
                Ok(records) => {
                    let mut out = Vec::new();
                    for r in records {
                        steps(r, &mut out);
                    }
                    send(Input::Steps(out));
                }
                Err(e) => {
                    send(Input::Warning(format!("{name}: {e}")));
                }
            }
            send(Input::Ended);
            return Ok(());
        }
    }
    follow(
        BufReader::new(File::open(path)?),
        name,
        reader,
        send,
        Some(path),
    )
}

/// Reads lines from `input` into steps, batch by batch. With `grow`, the
/// end of the file is not the end: it is polled for appended lines (and
/// read again from the start if it was truncated).
fn follow(
    mut input: impl BufRead + Seek2,
    name: &str,
    mut reader: Box<dyn Reader>,
    send: &dyn Fn(Input) -> bool,
    grow: Option<&Path>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut records = Vec::new();
    let mut batch = Vec::new();
    let mut lines = 0usize;
    let mut read_since_send = 0usize;
    let mut offset = 0u64;
    // A first line `{` or `[` alone starts a pretty-printed document.
    let mut document: Option<String> = None;
    loop {
        let n = input.read_until(b'\n', &mut buf)?;
        offset += n as u64;
        let complete = buf.ends_with(b"\n");
        if n == 0 || !complete {
            // The end for now: send what was read.
            if !batch.is_empty() && !send(Input::Steps(std::mem::take(&mut batch))) {
                return Ok(());
            }
            read_since_send = 0;
            let Some(path) = grow else {
                // A last line without its end of line still counts.
                if let Some(doc) = document.take() {
                    let mut text = doc;
                    text.push_str(&String::from_utf8_lossy(&buf));
                    whole(&text, name, &mut batch, send);
                } else if !buf.is_empty() {
                    lines += 1;
                    line(
                        &mut *reader,
                        &buf,
                        name,
                        lines,
                        &mut records,
                        &mut batch,
                        send,
                    );
                }
                if !batch.is_empty() {
                    send(Input::Steps(std::mem::take(&mut batch)));
                }
                send(Input::Ended);
                return Ok(());
            };
            std::thread::sleep(POLL);
            if std::fs::metadata(path).is_ok_and(|m| m.len() < offset) {
                // Truncated: start again from the top.
                input.rewind_to_start()?;
                offset = 0;
                buf.clear();
                if !send(Input::Warning(format!("{name}: truncated; read again"))) {
                    return Ok(());
                }
            }
            continue;
        }
        lines += 1;
        if let Some(doc) = &mut document {
            // Only a closing `}` or `]` at the start of a line can end a
            // pretty-printed document: one parse per such line.
            let closes =
                matches!(buf.first(), Some(b'}' | b']')) && matches!(trim(&buf), b"}" | b"]");
            doc.push_str(&String::from_utf8_lossy(&buf));
            buf.clear();
            if closes && parse_document(doc).is_some() {
                let text = std::mem::take(doc);
                document = None;
                whole(&text, name, &mut batch, send);
            }
            continue;
        }
        if lines == 1 && matches!(trim(&buf), b"{" | b"[") {
            document = Some(String::from_utf8_lossy(&buf).into_owned());
            buf.clear();
            continue;
        }
        line(
            &mut *reader,
            &buf,
            name,
            lines,
            &mut records,
            &mut batch,
            send,
        );
        buf.clear();
        read_since_send += 1;
        if read_since_send >= BATCH {
            read_since_send = 0;
            if !send(Input::Steps(std::mem::take(&mut batch))) {
                return Ok(());
            }
        }
    }
}

fn trim(b: &[u8]) -> &[u8] {
    let start = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    let end = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    b.get(start..end).unwrap_or(&[])
}

/// One line through the reader into `batch`; a bad line is a warning.
fn line(
    reader: &mut dyn Reader,
    bytes: &[u8],
    name: &str,
    number: usize,
    records: &mut Vec<crate::read::Record>,
    batch: &mut Vec<Step>,
    send: &dyn Fn(Input) -> bool,
) {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    match reader.read_line(bytes, records) {
        Ok(()) => {
            for r in records.drain(..) {
                steps(r, batch);
            }
        }
        Err(e) => {
            records.clear();
            send(Input::Warning(format!("{name}:{number}: {e}")));
        }
    }
}

/// A whole (pretty-printed) document into `batch`.
fn whole(text: &str, name: &str, batch: &mut Vec<Step>, send: &dyn Fn(Input) -> bool) {
    match parse_document(text) {
        Some(Ok(records)) => {
            for r in records {
                steps(r, batch);
            }
        }
        Some(Err(e)) => {
            send(Input::Warning(format!("{name}: {e}")));
        }
        None => {
            send(Input::Warning(format!(
                "{name}: not JSON Lines nor one JSON document"
            )));
        }
    }
}

/// Going back to the start of a followed file (stdin cannot).
trait Seek2 {
    fn rewind_to_start(&mut self) -> std::io::Result<()>;
}

impl Seek2 for BufReader<File> {
    fn rewind_to_start(&mut self) -> std::io::Result<()> {
        self.seek(SeekFrom::Start(0)).map(|_| ())
    }
}

impl Seek2 for std::io::StdinLock<'_> {
    fn rewind_to_start(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Seek2 for &[u8] {
    fn rewind_to_start(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::Native;
    use std::cell::RefCell;

    fn read_all(text: &[u8]) -> (Vec<Step>, Vec<String>, bool) {
        let got = RefCell::new((Vec::new(), Vec::new(), false));
        let send = |i: Input| {
            let mut g = got.borrow_mut();
            match i {
                Input::Steps(s) => g.0.extend(s),
                Input::Warning(w) => g.1.push(w),
                Input::Ended => g.2 = true,
                Input::Failed(f) => g.1.push(f),
            }
            true
        };
        follow(text, "t", Box::new(Native), &send, None).unwrap();
        got.into_inner()
    }

    #[test]
    fn lines_become_steps_and_bad_lines_warnings() {
        let (steps, warnings, ended) =
            read_all(b"{\"type\":\"user\",\"text\":\"a\"}\nnope\n\n{\"type\":\"condensation\"}");
        assert_eq!(steps.len(), 2);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].starts_with("t:2: not valid JSON"),
            "{warnings:?}"
        );
        assert!(ended);
    }

    #[test]
    fn a_pretty_printed_session_is_read_whole() {
        let text = b"{\n  \"agent\": \"a\",\n  \"outcome\": {\"kind\": \"build\", \"success\": true},\n  \"turns\": [{\"prompt\": \"go\", \"response\": \"ok\"}]\n}\n";
        let (steps, warnings, _) = read_all(text);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(steps.len(), 3);
    }
}
