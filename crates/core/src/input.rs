//! Bounded input, shared by every command that reads a file or a stream:
//! a path is checked to be a regular file by its type (not its name)
//! before it is opened, since a FIFO blocks the open and the reads and a
//! device such as `/dev/zero` never ends; a whole read holds at most
//! [`MAX_TEXT_BYTES`]; a line-based read holds at most one line of
//! [`MAX_LINE_BYTES`], a longer line being read past and reported
//! ([`next_line`]), never kept.
//!
//! ```
//! use tact_core::input::{Line, next_line};
//!
//! let mut reader = std::io::Cursor::new(b"short\nmuch too long\nok\n".to_vec());
//! let mut buf = Vec::new();
//! assert_eq!(next_line(&mut reader, &mut buf, 8)?, Line::Read);
//! assert_eq!(buf, b"short");
//! buf.clear();
//! assert_eq!(next_line(&mut reader, &mut buf, 8)?, Line::TooLong(13));
//! buf.clear();
//! assert_eq!(next_line(&mut reader, &mut buf, 8)?, Line::Read);
//! assert_eq!(buf, b"ok");
//! assert_eq!(next_line(&mut reader, &mut buf, 8)?, Line::End);
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::{BufRead, Read};
use std::path::Path;

use crate::Error;

/// The most bytes a command reads whole (a trajectory file, a session
/// file, a configuration, a message on stdin): 256 MiB.
pub const MAX_TEXT_BYTES: u64 = 256 << 20;

/// The most bytes of one line a line-based read keeps (`--file` batches,
/// `--follow` streams): 64 MiB. A longer line is skipped and reported
/// with its source and line number; the lines after it are read.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// What a file type is when it is not a regular file: `folder`, `FIFO`,
/// `socket`, `character device`, `block device`; `None` for a regular
/// file.
pub fn special_kind(t: &std::fs::FileType) -> Option<&'static str> {
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("FIFO");
        }
        if t.is_socket() {
            return Some("socket");
        }
        if t.is_char_device() {
            return Some("character device");
        }
        if t.is_block_device() {
            return Some("block device");
        }
    }
    if t.is_symlink() {
        return Some("symbolic link");
    }
    Some("special file")
}

/// Refuses `path` unless it is a regular file (a link is followed): an
/// [`Error::NotRegular`] naming what it is, decided from its metadata
/// without opening it.
pub fn check_regular(path: &Path) -> Result<std::fs::Metadata, Error> {
    let meta = std::fs::metadata(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    match special_kind(&meta.file_type()) {
        None => Ok(meta),
        Some(kind) => Err(Error::NotRegular {
            path: path.to_owned(),
            kind,
        }),
    }
}

/// Opens `path` for reading once [`check_regular`] accepts it.
pub fn open(path: &Path) -> Result<std::fs::File, Error> {
    check_regular(path)?;
    std::fs::File::open(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })
}

/// Reads `reader` to its end, at most `limit` bytes: a longer input is
/// an [`Error::TooLarge`] naming `source`, found after reading `limit + 1`
/// bytes and no more.
pub fn read_bounded(reader: impl Read, source: &str, limit: u64) -> Result<Vec<u8>, Error> {
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::Dataset {
            file: source.to_owned(),
            line: bytes_lines(&bytes),
            message: format!("cannot read: {e}"),
        })?;
    if bytes.len() as u64 > limit {
        return Err(Error::TooLarge {
            source_name: source.to_owned(),
            limit,
        });
    }
    Ok(bytes)
}

/// Reads the regular file at `path` whole, at most `limit` bytes (its size
/// is checked before it is read).
pub fn read_file(path: &Path, limit: u64) -> Result<Vec<u8>, Error> {
    let file = open(path)?;
    let source = path.display().to_string();
    if file.metadata().is_ok_and(|m| m.len() > limit) {
        return Err(Error::TooLarge {
            source_name: source,
            limit,
        });
    }
    read_bounded(file, &source, limit)
}

/// The 1-based line the end of `bytes` is on.
fn bytes_lines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count() + 1
}

/// What [`next_line`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// A line (without its `\n` or `\r\n`), in the buffer.
    Read,
    /// A line longer than the limit, read past to its end and not kept:
    /// its length in bytes.
    TooLong(u64),
    /// The end of the input.
    End,
}

/// Reads the next line of `reader` into `buf` (without its `\n` or
/// `\r\n`), holding at most `limit` bytes of it: a longer line is read
/// past (its bytes counted, none kept) and reported as [`Line::TooLong`].
/// Memory stays within `limit` plus the reader's buffer, whatever the
/// input; time is linear in the bytes read.
pub fn next_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Line> {
    let mut total = 0u64;
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(at) => (at, true),
            None => (chunk.len(), false),
        };
        total += take as u64;
        if !too_long && buf.len() + take > limit {
            too_long = true;
            *buf = Vec::new();
        }
        if !too_long {
            buf.extend_from_slice(&chunk[..take]);
        }
        reader.consume(if done { take + 1 } else { take });
        if done {
            break;
        }
    }
    if !any {
        return Ok(Line::End);
    }
    if too_long {
        return Ok(Line::TooLong(total));
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Line::Read)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[cfg(unix)]
    #[test]
    fn devices_and_folders_are_refused_by_type() {
        let err = read_file(Path::new("/dev/zero"), MAX_TEXT_BYTES).unwrap_err();
        assert!(
            err.to_string()
                .ends_with("/dev/zero: not a regular file (a character device)"),
            "{err}"
        );
        let err = open(Path::new("/")).unwrap_err();
        assert!(err.to_string().contains("(a folder)"), "{err}");
    }

    #[test]
    fn a_stream_over_the_limit_is_refused_after_limit_bytes() {
        let endless = std::io::repeat(b'x');
        let err = read_bounded(endless, "stdin", 1000).unwrap_err();
        assert_eq!(err.to_string(), "stdin: more than 1000 bytes (the limit)");
        assert_eq!(read_bounded(&b"abc"[..], "s", 3).unwrap(), b"abc");
    }

    #[test]
    fn huge_line_is_skipped() {
        // A line with no newline, far over the limit, from an endless
        // source cut at 50 MB: held never, counted whole.
        let huge = std::io::repeat(b'a').take(50 << 20);
        let mut reader = std::io::BufReader::new(
            std::io::Cursor::new(b"first\n".to_vec())
                .chain(huge)
                .chain(&b"\nlast\r\n"[..]),
        );
        let mut buf = Vec::new();
        assert_eq!(
            next_line(&mut reader, &mut buf, 1 << 20).unwrap(),
            Line::Read
        );
        buf.clear();
        assert_eq!(
            next_line(&mut reader, &mut buf, 1 << 20).unwrap(),
            Line::TooLong(50 << 20)
        );
        assert!(buf.capacity() <= 1 << 20, "{}", buf.capacity());
        buf.clear();
        assert_eq!(
            next_line(&mut reader, &mut buf, 1 << 20).unwrap(),
            Line::Read
        );
        assert_eq!(buf, b"last");
        assert_eq!(
            next_line(&mut reader, &mut buf, 1 << 20).unwrap(),
            Line::End
        );
    }

    proptest! {
        /// Whatever the input and the limit, the lines read are the
        /// input's lines within the limit, the others reported with their
        /// length, and nothing more than the limit is held.
        #[test]
        fn huge_line_is_skipped_never_held(
            lines in proptest::collection::vec("[a-z{}\" ]{0,40}", 0..20),
            limit in 0usize..30,
            cap in 1usize..16,
        ) {
            let text = lines.join("\n");
            let mut reader = std::io::BufReader::with_capacity(cap, text.as_bytes());
            let mut buf = Vec::new();
            let mut seen = Vec::new();
            loop {
                buf.clear();
                match next_line(&mut reader, &mut buf, limit).unwrap() {
                    Line::End => break,
                    Line::Read => {
                        prop_assert!(buf.len() <= limit);
                        seen.push(Ok(String::from_utf8(buf.clone()).unwrap()));
                    }
                    Line::TooLong(n) => {
                        prop_assert!(buf.len() <= limit);
                        seen.push(Err(n));
                    }
                }
            }
            let mut pieces: Vec<&str> = text.split('\n').collect();
            if pieces.last() == Some(&"") {
                pieces.pop();
            }
            let want: Vec<_> = pieces
                .iter()
                .map(|l| if l.len() > limit { Err(l.len() as u64) } else { Ok((*l).to_owned()) })
                .collect();
            prop_assert_eq!(seen, want);
        }
    }
}
