//! Which files the job reads: the session files under a path (walked
//! sorted, hidden entries and links to folders skipped), an agent's log
//! told by its first bytes, a log that holds many sessions read one line
//! (one session) at a time, and devices, FIFOs and sockets refused by file
//! type without being opened.

use std::path::{Path, PathBuf};

use super::{Error, Format, Job, Result, SessionError, SessionErrorKind, SessionFormat, Tally};

impl Job {
    /// Imports each session of a log that holds many, one a line
    /// (OpenHands' `output.jsonl`), as its own, in file order: one line in
    /// memory at a time, at most [`Limits::max_session_bytes`](super::Limits)
    /// (a longer line is an error naming it; the others are read).
    pub(super) fn import_sessions(
        &mut self,
        tally: &mut Tally,
        file: &Path,
        format: Format,
        progress: &mut dyn FnMut(&Tally),
    ) -> Result<()> {
        let Some(reader) = open_reader(tally, file) else {
            return Ok(());
        };
        let source = file.display().to_string();
        let limit = self.limits.max_session_bytes;
        for line in crate::import::SessionLines::new(reader, &source, limit) {
            match line {
                Ok(line) => self.import_file(tally, file, format, Some(&line), progress)?,
                Err(e) => {
                    tally.read += 1;
                    tally.total += 1;
                    tally.errors.push(SessionError::in_file(
                        file,
                        Some(e.line),
                        SessionErrorKind::Invalid(tact_scoring::Error::Session {
                            source_name: Some(format!("{source}:{}", e.line)),
                            message: e.message,
                        }),
                    ));
                    tally.done += 1;
                    progress(tally);
                }
            }
        }
        Ok(())
    }
}

/// The session files under `path`, sorted: `path` itself when it is a
/// file, else every `.json` and `.jsonl` file below it (symbolic links
/// to folders and entries starting with `.` are not followed). Folders
/// that cannot be read are reported in `errors`.
pub(super) fn session_files(path: &Path, errors: &mut Vec<SessionError>) -> Result<Vec<PathBuf>> {
    let meta = std::fs::metadata(path).map_err(|source| Error::Read {
        path: path.to_owned(),
        source,
    })?;
    if meta.is_file() {
        return Ok(vec![path.to_owned()]);
    }
    if !meta.is_dir() {
        let kind = SessionErrorKind::NotRegular(special_kind(&meta.file_type()));
        errors.push(SessionError::in_file(path, None, kind));
        return Ok(Vec::new());
    }
    let unreadable = |p: &Path, e| SessionError::in_file(p, None, SessionErrorKind::Read(e));
    let mut files = Vec::new();
    let mut dirs = vec![path.to_owned()];
    while let Some(dir) = dirs.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                errors.push(unreadable(&dir, e));
                continue;
            }
        };
        for entry in entries {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    errors.push(unreadable(&dir, e));
                    continue;
                }
            };
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let p = entry.path();
            // The type is looked at before the name or the content: a
            // FIFO, socket or device named like a session file (a `.md`
            // one too) is said, never opened (a FIFO would block).
            let refused = |p: &Path, t: &std::fs::FileType| {
                SessionError::in_file(p, None, SessionErrorKind::NotRegular(special_kind(t)))
            };
            match entry.file_type() {
                Ok(t) if t.is_dir() => dirs.push(p),
                Ok(t) if t.is_file() => {
                    if is_candidate(&p) {
                        files.push(p);
                    }
                }
                // A link to a session file is read; a link to a folder is
                // not followed.
                Ok(t) if t.is_symlink() => match std::fs::metadata(&p) {
                    Ok(m) if m.is_dir() => {}
                    Ok(m) if m.is_file() => {
                        if is_candidate(&p) {
                            files.push(p);
                        }
                    }
                    Ok(m) if named_like_session(&p) => errors.push(refused(&p, &m.file_type())),
                    Ok(_) => {}
                    Err(e) => errors.push(unreadable(&p, e)),
                },
                Ok(t) if named_like_session(&p) => errors.push(refused(&p, &t)),
                Ok(_) => {}
                Err(e) => errors.push(unreadable(&p, e)),
            }
        }
    }
    files.sort();
    // An OpenHands V1 conversation folder is one log: its first event
    // file stands for all of them.
    let mut conversations = std::collections::HashSet::new();
    files.retain(|f| {
        !crate::import::is_event_file(f) || conversations.insert(f.parent().map(Path::to_owned))
    });
    Ok(files)
}

/// `file` opened for reading line by line, or `None` with the failure
/// reported in `tally`.
pub(super) fn open_reader(
    tally: &mut Tally,
    file: &Path,
) -> Option<std::io::BufReader<std::fs::File>> {
    match std::fs::File::open(file) {
        Ok(f) => Some(std::io::BufReader::with_capacity(1 << 16, f)),
        Err(e) => {
            tally
                .errors
                .push(SessionError::in_file(file, None, SessionErrorKind::Read(e)));
            None
        }
    }
}

/// The lowercase extension of `p` (empty without one).
fn extension(p: &Path) -> String {
    p.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default()
}

/// Whether a path is named like a file that may hold sessions: `.json`,
/// `.jsonl`, `.traj` or `.md` (what its content is, is not looked at).
fn named_like_session(p: &Path) -> bool {
    SessionFormat::of(p).is_some() || matches!(extension(p).as_str(), "traj" | "md")
}

/// Whether a regular file found in a folder may hold sessions: a `.json`,
/// `.jsonl` or `.traj` file, or a `.md` file that starts as an Aider chat
/// history or a SpecStory history (any other Markdown, a README say, is
/// passed over silently). In a Cline task folder only
/// `api_conversation_history.json` is read (`ui_messages.json` is the
/// same task; the other files are not logs); an OpenHands V1
/// conversation's `base_state.json` is not a log either.
fn is_candidate(p: &Path) -> bool {
    !is_cline_companion(p)
        && named_like_session(p)
        && (extension(p) != "md"
            || matches!(
                Format::detect(p, &head(p)),
                Some(Format::Aider | Format::SpecStory)
            ))
}

/// A file of a Cline task folder beside its `api_conversation_history.json`,
/// or an OpenHands V1 conversation's `base_state.json` beside its `events/`.
fn is_cline_companion(p: &Path) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase());
    let cline = matches!(
        name.as_deref(),
        Some("ui_messages.json" | "task_metadata.json" | "settings.json")
    ) && p.with_file_name("api_conversation_history.json").is_file();
    cline || (name.as_deref() == Some("base_state.json") && p.with_file_name("events").is_dir())
}

/// The first 64 KB of a file as text (a UTF-8 sequence cut at the end
/// dropped); empty when it cannot be read.
pub(super) fn head(p: &Path) -> String {
    use std::io::Read;
    let limit: u64 = 64 << 10;
    let mut buf = Vec::new();
    if let Ok(f) = std::fs::File::open(p) {
        let _ = f.take(limit).read_to_end(&mut buf);
    }
    // A UTF-8 sequence cut at the end is not an error of the head.
    match std::str::from_utf8(&buf) {
        Ok(s) => s.to_owned(),
        Err(e) => String::from_utf8_lossy(&buf[..e.valid_up_to()]).into_owned(),
    }
}

/// What a path that is neither a regular file nor a folder is.
fn special_kind(t: &std::fs::FileType) -> &'static str {
    tact_core::input::special_kind(t).unwrap_or("special file")
}
