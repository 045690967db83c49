//! A stream whose lines are bounded: [`LineLimit`] passes a reader's
//! bytes through, but of a line longer than its limit only the first
//! `limit` bytes (then the line's end), warning on stderr with the
//! source and line. `tact guide --follow --format NAME -` reads stdin
//! through it, so that a line with no end (a 3 GB line, `/dev/zero` piped
//! in) never grows the follower's buffer past the limit.

use std::io::{self, BufRead, Read};

/// A [`BufRead`] over `inner` that cuts each line at `limit` bytes.
#[derive(Debug)]
pub struct LineLimit<R> {
    inner: R,
    source: String,
    limit: u64,
    /// The 1-based line being read.
    line: usize,
    /// Bytes of that line passed or dropped so far.
    in_line: u64,
    /// Whether the rest of the line is being dropped.
    cutting: bool,
    /// What the last `fill_buf` returned: its length and whether it ends
    /// the line.
    pending: (usize, bool),
}

impl<R: BufRead> LineLimit<R> {
    /// Wraps `inner`, named `source` in warnings.
    pub fn new(inner: R, source: &str, limit: u64) -> Self {
        Self {
            inner,
            source: source.to_owned(),
            limit,
            line: 1,
            in_line: 0,
            cutting: false,
            pending: (0, false),
        }
    }

    fn warn_cut(&self) {
        crate::redact::warn(&format!(
            "{}:{}: a line of {} bytes, over the limit of {}: read up to it",
            self.source, self.line, self.in_line, self.limit
        ));
    }
}

impl<R: BufRead> Read for LineLimit<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = {
            let avail = self.fill_buf()?;
            let n = avail.len().min(buf.len());
            buf[..n].copy_from_slice(&avail[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for LineLimit<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        loop {
            let (len, newline) = {
                let chunk = self.inner.fill_buf()?;
                (chunk.len(), memchr_newline(chunk))
            };
            if len == 0 {
                if self.cutting {
                    self.cutting = false;
                    self.warn_cut();
                }
                self.pending = (0, false);
                return Ok(&[]);
            }
            if self.cutting {
                // Dropped up to the line's end, which is passed on.
                let drop = newline.unwrap_or(len);
                self.in_line += drop as u64;
                self.inner.consume(drop);
                if newline.is_some() {
                    self.cutting = false;
                    self.warn_cut();
                }
                continue;
            }
            let room =
                usize::try_from(self.limit.saturating_sub(self.in_line)).unwrap_or(usize::MAX);
            let (take, ends) = match newline {
                Some(at) if at <= room => (at + 1, true),
                _ if room == 0 => {
                    self.cutting = true;
                    continue;
                }
                _ => (len.min(room), false),
            };
            self.pending = (take, ends);
            let chunk = self.inner.fill_buf()?;
            return Ok(&chunk[..take.min(chunk.len())]);
        }
    }

    fn consume(&mut self, amt: usize) {
        let (len, ends) = self.pending;
        let amt = amt.min(len);
        self.inner.consume(amt);
        if ends && amt == len {
            self.line += 1;
            self.in_line = 0;
        } else {
            self.in_line += amt as u64;
        }
        self.pending = (len - amt, ends);
    }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(input: &[u8], limit: u64, cap: usize) -> Vec<u8> {
        let mut r = LineLimit::new(io::BufReader::with_capacity(cap, input), "t", limit);
        let mut out = Vec::new();
        r.read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn huge_line_is_cut_at_the_limit() {
        let mut input = b"ok\n".to_vec();
        input.extend(std::iter::repeat_n(b'a', 100));
        input.extend_from_slice(b"\nlast");
        let out = through(&input, 10, 7);
        assert_eq!(out, b"ok\naaaaaaaaaa\nlast");
    }

    proptest::proptest! {
        /// Each line comes through cut to the limit, none lost.
        #[test]
        fn lines_come_through_cut_to_the_limit(
            lines in proptest::collection::vec("[a-z]{0,30}", 0..12),
            limit in 0u64..20,
            cap in 1usize..9,
        ) {
            let text = lines.join("\n");
            let out = through(text.as_bytes(), limit, cap);
            let want: Vec<String> = lines
                .iter()
                .map(|l| l.chars().take(usize::try_from(limit).unwrap()).collect())
                .collect();
            proptest::prop_assert_eq!(String::from_utf8(out).unwrap(), want.join("\n"));
        }
    }
}
