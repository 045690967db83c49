//! Reading a log as a stream, one record in memory at a time: lines of a
//! line-based log (`tact_core::input::next_line`: at most a limit of
//! bytes each; a longer line is read past and reported), and the items of a one-document JSON log (the
//! elements of its top-level array, or of each array member of its
//! top-level object, and that object's other members whole), split by a
//! byte scanner that tracks nesting and strings, so no document is ever
//! parsed whole and a record over the limit is skipped, its line said.

use std::io::BufRead;

/// What the scanner hands on.
pub(crate) enum Item<'a> {
    /// An item's bytes: its member key in the top-level object (`None` in
    /// a top-level array) and the 1-based line it starts on.
    Value {
        key: Option<&'a str>,
        raw: Vec<u8>,
        line: usize,
    },
    /// An item over the limit, read past: its key, line and size.
    TooLarge {
        key: Option<&'a str>,
        line: usize,
        bytes: u64,
    },
}

/// A problem of the document's structure: the line and what is wrong.
pub(crate) type Fault = (usize, String);

/// Where the scanner stands in the document's structure.
#[derive(Debug, Default)]
struct Scanner {
    line: usize,
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The top-level value's opening byte (`[` or `{`), once seen.
    top: Option<u8>,
    /// The top-level value closed.
    closed: bool,
    /// In the top-level object: the member's key, being read or read.
    key: Vec<u8>,
    reading_key: bool,
    /// In the top-level object: after a member's `:` (its value next).
    after_colon: bool,
    /// The depth whose children are items (1 in a top-level array; 1 for
    /// a member's value, 2 for the elements of a member that is an array).
    item_level: usize,
    /// An item ended at this level and no `,` followed yet.
    need_comma: bool,
    item: Option<Open>,
}

/// An item being read.
#[derive(Debug)]
struct Open {
    line: usize,
    bytes: u64,
    buf: Vec<u8>,
    over: bool,
    /// The item is an array or object (else a string or a bare scalar).
    container: bool,
    /// The item is a string.
    string: bool,
}

impl Open {
    /// Bytes of the item: kept up to `limit`, counted past it.
    fn take(&mut self, bytes: &[u8], limit: usize) {
        self.bytes += bytes.len() as u64;
        if self.over {
            return;
        }
        if self.buf.len() + bytes.len() <= limit {
            self.buf.extend_from_slice(bytes);
        } else {
            self.over = true;
            self.buf = Vec::new();
        }
    }
}

impl Scanner {
    fn start_item(&mut self, b: u8, limit: usize) {
        self.item = Some(Open {
            line: self.line,
            bytes: 0,
            buf: Vec::with_capacity(64.min(limit)),
            over: false,
            container: b == b'[' || b == b'{',
            string: b == b'"',
        });
    }

    fn key(&self) -> Option<&str> {
        (self.top == Some(b'{')).then(|| std::str::from_utf8(&self.key).unwrap_or(""))
    }
}

/// Scans a JSON document from `reader`, handing each item to `on_item`
/// (at most `limit` bytes of it in memory): the top-level value's opening
/// byte (`[` or `{`), or a fault of the document's structure or of
/// reading, with its line.
pub(crate) fn scan_items(
    reader: &mut impl BufRead,
    limit: usize,
    on_item: &mut dyn FnMut(Item<'_>) -> Result<(), Fault>,
) -> Result<u8, Fault> {
    let mut s = Scanner {
        line: 1,
        ..Scanner::default()
    };
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err((s.line, format!("cannot read: {e}"))),
        };
        if chunk.is_empty() {
            break;
        }
        let n = chunk.len();
        let mut k = 0;
        while k < n {
            // Inside a string (most of a log's bytes): up to the next quote
            // or backslash at once.
            if s.in_string && !s.escaped && !s.reading_key {
                let rest = &chunk[k..];
                let j = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
                if j > 0 {
                    let plain = &rest[..j];
                    s.line += memchr::memchr_iter(b'\n', plain).count();
                    if let Some(item) = &mut s.item {
                        item.take(plain, limit);
                    }
                    k += j;
                    continue;
                }
            }
            step(&mut s, chunk[k], limit, on_item)?;
            k += 1;
        }
        reader.consume(n);
    }
    // A bare scalar item at the end of an unclosed document.
    if s.depth > 0 || s.in_string || s.top.is_none() {
        let what = if s.top.is_none() && s.depth == 0 && !s.in_string {
            "expected a JSON array or object"
        } else {
            "EOF while parsing"
        };
        return Err((s.line, format!("not valid JSON: {what}")));
    }
    Ok(s.top.unwrap_or(b'['))
}

/// Scans a JSON document from `reader` as [`scan_items`] does, each item
/// parsed and handed to `on_value` with its key and line, with `sink`
/// (an item over `limit` bytes is skipped and reported in the sink). The
/// top-level value's opening byte, or the error naming the line.
pub(crate) fn scan_values(
    reader: &mut impl BufRead,
    sink: &mut super::Sink,
    limit: usize,
    on_value: &mut dyn FnMut(Option<&str>, serde_json::Value, &mut super::Sink),
) -> Result<u8, super::ImportError> {
    let source = sink.source.clone();
    scan_items(reader, limit, &mut |item| {
        match item {
            Item::Value { key, raw, line } => {
                let v = serde_json::from_slice(&raw).map_err(|e| {
                    (
                        line + e.line().saturating_sub(1),
                        format!("not valid JSON: {e}"),
                    )
                })?;
                // The record's bytes go before its value is read.
                drop(raw);
                on_value(key, v, sink);
            }
            Item::TooLarge { line, bytes, .. } => sink.too_large(line, bytes, limit),
        }
        Ok(())
    })
    .map_err(|(line, m)| super::ImportError::new(&source, line, m))
}

/// Whether the document `reader` holds starts with `[` (a JSON array),
/// blank and comment lines before it skipped (and consumed, so a scan
/// starts at the `[`).
pub(crate) fn starts_array(reader: &mut impl BufRead) -> bool {
    let Ok(buf) = reader.fill_buf() else {
        return false;
    };
    let buf = &buf[..buf.len().min(1 << 16)];
    let head = match std::str::from_utf8(buf) {
        Ok(h) => h,
        Err(e) => std::str::from_utf8(&buf[..e.valid_up_to()]).unwrap_or(""),
    };
    let rest = super::skip_comments(head);
    if !rest.starts_with('[') {
        return false;
    }
    let skipped = head.len() - rest.len();
    reader.consume(skipped);
    true
}

/// The document's first line (up to `cap` bytes, its end of line kept),
/// read from `reader`: the caller reads on from `reader` after it, or
/// chains the bytes back before it. Whether the line ended within `cap`.
pub(crate) fn first_line(
    reader: &mut impl BufRead,
    cap: usize,
) -> std::io::Result<(Vec<u8>, bool)> {
    use std::io::Read;
    let mut out = Vec::new();
    let cap64 = u64::try_from(cap).unwrap_or(u64::MAX);
    reader.take(cap64).read_until(b'\n', &mut out)?;
    let ended = out.ends_with(b"\n") || out.len() < cap;
    Ok((out, ended))
}

/// Ends the open item (its last byte read): hands it on.
fn end_item(
    s: &mut Scanner,
    on_item: &mut dyn FnMut(Item<'_>) -> Result<(), Fault>,
) -> Result<(), Fault> {
    if let Some(item) = s.item.take() {
        s.need_comma = true;
        let key = s.key();
        if item.over {
            on_item(Item::TooLarge {
                key,
                line: item.line,
                bytes: item.bytes,
            })?;
        } else {
            on_item(Item::Value {
                key,
                raw: item.buf,
                line: item.line,
            })?;
        }
    }
    Ok(())
}

/// Reads one byte of the document.
fn step(
    s: &mut Scanner,
    b: u8,
    limit: usize,
    on_item: &mut dyn FnMut(Item<'_>) -> Result<(), Fault>,
) -> Result<(), Fault> {
    if b == b'\n' {
        s.line += 1;
    }
    // A bare scalar item ends before a delimiter.
    if let Some(item) = &s.item {
        if !item.container
            && !item.string
            && (b.is_ascii_whitespace() || matches!(b, b',' | b']' | b'}'))
        {
            end_item(s, on_item)?;
        }
    }
    if let Some(item) = &mut s.item {
        item.take(&[b], limit);
    }
    if s.in_string {
        if s.escaped {
            s.escaped = false;
        } else if b == b'\\' {
            s.escaped = true;
        } else if b == b'"' {
            s.in_string = false;
            if s.reading_key {
                s.reading_key = false;
            } else if s.item.as_ref().is_some_and(|i| i.string) && s.depth == s.item_level {
                end_item(s, on_item)?;
            }
        } else if s.reading_key && s.key.len() < 256 {
            s.key.push(b);
        }
        return Ok(());
    }
    if b.is_ascii_whitespace() {
        return Ok(());
    }
    if s.closed {
        return Err((s.line, "not valid JSON: trailing characters".to_owned()));
    }
    if s.top.is_none() {
        return match b {
            b'[' | b'{' => {
                s.top = Some(b);
                s.depth = 1;
                s.item_level = 1;
                Ok(())
            }
            _ => Err((s.line, "expected a JSON array or object".to_owned())),
        };
    }
    let at_item_level = s.item.is_none() && s.depth == s.item_level;
    // In the top-level object, outside a member's value: keys, `:` and `,`.
    if s.top == Some(b'{') && s.depth == 1 && s.item.is_none() && !s.after_colon {
        match b {
            b'"' => {
                s.in_string = true;
                s.reading_key = true;
                s.key.clear();
            }
            b':' => s.after_colon = true,
            b',' => s.need_comma = false,
            b'}' => {
                s.depth = 0;
                s.closed = true;
            }
            _ => return Err((s.line, "not valid JSON: expected a key".to_owned())),
        }
        return Ok(());
    }
    if s.top == Some(b'{') && s.depth == 1 && s.after_colon && s.item.is_none() {
        // A member's value: an array's elements are items, else the value.
        s.after_colon = false;
        s.need_comma = false;
        if b == b'[' {
            s.depth = 2;
            s.item_level = 2;
            return Ok(());
        }
        s.item_level = 1;
    } else if at_item_level {
        match b {
            b',' if s.need_comma => {
                s.need_comma = false;
                return Ok(());
            }
            b']' | b'}' => {
                s.need_comma = false;
                s.depth -= 1;
                if s.depth == 0 {
                    s.closed = true;
                } else {
                    // The end of a member's array: back to the object.
                    s.item_level = 1;
                }
                return Ok(());
            }
            _ if s.need_comma => {
                return Err((s.line, "not valid JSON: expected `,`".to_owned()));
            }
            _ => {}
        }
    }
    if s.item.is_none() {
        s.start_item(b, limit);
        if let Some(item) = &mut s.item {
            item.bytes = 1;
            item.buf.push(b);
        }
    }
    match b {
        b'"' => s.in_string = true,
        b'[' | b'{' => s.depth += 1,
        b']' | b'}' => {
            s.depth = s.depth.saturating_sub(1);
            if s.depth == s.item_level && s.item.as_ref().is_some_and(|i| i.container) {
                end_item(s, on_item)?;
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(doc: &str, limit: usize) -> Result<Vec<String>, Fault> {
        let mut out = Vec::new();
        scan_items(&mut doc.as_bytes(), limit, &mut |i| {
            out.push(match i {
                Item::Value { key, raw, line } => {
                    format!("{key:?}@{line}:{}", String::from_utf8_lossy(&raw))
                }
                Item::TooLarge { key, line, bytes } => format!("{key:?}@{line}:{bytes} bytes"),
            });
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn arrays_and_object_members_split_into_items() {
        assert_eq!(
            items("[{\"a\":\"]}\\\"\"}, 1 ,\n\"x\", [2,[3]], true]", 100).unwrap(),
            [
                "None@1:{\"a\":\"]}\\\"\"}",
                "None@1:1",
                "None@2:\"x\"",
                "None@2:[2,[3]]",
                "None@2:true"
            ]
        );
        assert_eq!(
            items(
                "{\"trajectory\": [{\"a\":1},\n{\"b\":[2]}], \"info\": {\"x\": 1}, \"n\": 3, \"s\": \"t\"}",
                100
            )
            .unwrap(),
            [
                "Some(\"trajectory\")@1:{\"a\":1}",
                "Some(\"trajectory\")@2:{\"b\":[2]}",
                "Some(\"info\")@2:{\"x\": 1}",
                "Some(\"n\")@2:3",
                "Some(\"s\")@2:\"t\""
            ]
        );
        assert_eq!(items("{\"e\": []}", 10).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn an_item_over_the_limit_is_read_past_and_the_rest_read() {
        let doc = format!("[\"{}\",\n{{\"a\":1}}]", "x".repeat(50));
        assert_eq!(
            items(&doc, 20).unwrap(),
            ["None@1:52 bytes", "None@2:{\"a\":1}"]
        );
    }

    #[test]
    fn broken_documents_are_faults_with_their_line() {
        assert_eq!(items("[\n1,\n", 10).unwrap_err().0, 3);
        assert!(items("[1 2]", 10).unwrap_err().1.contains("expected `,`"));
        assert!(items("[1] x", 10).unwrap_err().1.contains("trailing"));
        assert!(items("42", 10).is_err());
        assert!(items("", 10).is_err());
    }
}
