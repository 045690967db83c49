//! Fast 64-bit fingerprints of JSON values compared the guide's way
//! (objects key by key in any order, numbers by value), character counts
//! of outputs, and short bounded summaries of params.

use std::hash::{BuildHasher, Hasher};

use serde_json::Value;

/// Deepest nesting that is walked; anything deeper is treated as opaque so
/// that no input can exhaust the stack.
pub(crate) const MAX_DEPTH: usize = 128;

const K0: u64 = 0xa076_1d64_78bd_642f;
const K1: u64 = 0xe703_7ed1_a0b4_28db;

#[inline]
fn fold_mul(a: u64, b: u64) -> u64 {
    let r = u128::from(a).wrapping_mul(u128::from(b));
    // Truncations are the point of the fold: low and high halves mixed.
    (r as u64) ^ ((r >> 64) as u64)
}

/// A small, fast, well-mixing hasher (multiply-fold over 8-byte words).
/// Not DoS resistant; used for fingerprints and for maps keyed by them.
#[derive(Debug, Clone, Copy)]
pub struct FoldHasher {
    state: u64,
}

impl Default for FoldHasher {
    fn default() -> Self {
        Self { state: K0 }
    }
}

impl FoldHasher {
    /// A hasher seeded with `seed`.
    pub fn with_seed(seed: u64) -> Self {
        Self {
            state: fold_mul(seed ^ K0, K1),
        }
    }

    #[inline]
    fn mix(&mut self, word: u64) {
        self.state = fold_mul(self.state ^ word, K1);
    }
}

impl Hasher for FoldHasher {
    #[inline]
    fn finish(&self) -> u64 {
        fold_mul(self.state, K0 ^ 0x9e37_79b9_7f4a_7c15)
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.mix(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 59));
        }
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.mix(i);
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.mix(u64::from(i) | 0x100);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.mix(i as u64);
    }
}

/// [`BuildHasher`] of [`FoldHasher`], for maps inside the analysis.
#[derive(Debug, Clone, Copy, Default)]
pub struct FoldBuildHasher;

impl BuildHasher for FoldBuildHasher {
    type Hasher = FoldHasher;

    fn build_hasher(&self) -> FoldHasher {
        FoldHasher::default()
    }
}

/// Hasher for keys that already are well-mixed 64-bit fingerprints.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }
}

/// [`BuildHasher`] for fingerprint-keyed sets and maps.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PassThroughBuild;

impl BuildHasher for PassThroughBuild {
    type Hasher = PassThrough;

    fn build_hasher(&self) -> PassThrough {
        PassThrough::default()
    }
}

/// Fingerprint of a string.
pub fn hash_str(s: &str) -> u64 {
    let mut h = FoldHasher::default();
    h.write_usize(s.len());
    h.write(s.as_bytes());
    h.finish()
}

/// Fingerprint of a JSON value compared the guide's way: objects key by key
/// in any order, arrays in order, numbers by value (`1` equals `1.0`).
pub fn hash_value(v: &Value) -> u64 {
    let mut h = FoldHasher::default();
    write_value(&mut h, v, 0);
    h.finish()
}

fn write_value(h: &mut FoldHasher, v: &Value, depth: usize) {
    if depth > MAX_DEPTH {
        h.write_u8(0xff);
        return;
    }
    match v {
        Value::Null => h.write_u8(0),
        Value::Bool(b) => {
            h.write_u8(1);
            h.write_u8(u8::from(*b));
        }
        Value::Number(n) => {
            h.write_u8(2);
            write_number(h, n);
        }
        Value::String(s) => {
            h.write_u8(4);
            h.write_usize(s.len());
            h.write(s.as_bytes());
        }
        Value::Array(items) => {
            h.write_u8(5);
            h.write_usize(items.len());
            for item in items {
                write_value(h, item, depth + 1);
            }
        }
        Value::Object(map) => {
            h.write_u8(6);
            h.write_usize(map.len());
            // Order-independent: a commutative sum of per-entry hashes.
            let mut acc = 0u64;
            for (k, item) in map {
                let mut e = FoldHasher::with_seed(0x6f62_6a65_6374);
                e.write_usize(k.len());
                e.write(k.as_bytes());
                write_value(&mut e, item, depth + 1);
                acc = acc.wrapping_add(e.finish());
            }
            h.write_u64(acc);
        }
    }
}

fn write_number(h: &mut FoldHasher, n: &serde_json::Number) {
    let int = if let Some(i) = n.as_i64() {
        Some(i128::from(i))
    } else if let Some(u) = n.as_u64() {
        Some(i128::from(u))
    } else {
        n.as_f64().and_then(|f| {
            // Integral floats within i128 compare equal to the integer.
            (f.is_finite() && f.fract() == 0.0 && f.abs() < 1.0e38).then_some(f as i128)
        })
    };
    match int {
        Some(i) => {
            h.write_u8(0);
            h.write(&i.to_le_bytes());
        }
        None => {
            h.write_u8(1);
            let f = n.as_f64().unwrap_or(0.0);
            h.write_u64(f.to_bits());
        }
    }
}

/// Fingerprint of a tool output compared the guide's way: a string once
/// surrounding white space is trimmed, anything else as JSON.
pub fn hash_output(v: &Value) -> u64 {
    match v {
        Value::String(s) => {
            let mut h = FoldHasher::with_seed(7);
            let t = s.trim();
            h.write_usize(t.len());
            h.write(t.as_bytes());
            h.finish()
        }
        other => hash_value(other) ^ 0x5555_5555_5555_5555,
    }
}

/// Length of an output in characters (Unicode scalar values): a string as
/// given, any other value as compact JSON.
pub fn output_chars(v: &Value) -> usize {
    match v {
        Value::String(s) => s.chars().count(),
        other => json_chars(other, 0),
    }
}

/// Characters of the compact JSON serialization of `v` (as `serde_json`
/// writes it), computed without allocating the text.
fn json_chars(v: &Value, depth: usize) -> usize {
    if depth > MAX_DEPTH {
        return 0;
    }
    match v {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => n.to_string().len(),
        Value::String(s) => string_chars(s),
        Value::Array(items) => {
            2 + items.len().saturating_sub(1)
                + items
                    .iter()
                    .map(|i| json_chars(i, depth + 1))
                    .sum::<usize>()
        }
        Value::Object(map) => {
            2 + map.len().saturating_sub(1)
                + map
                    .iter()
                    .map(|(k, i)| string_chars(k) + 1 + json_chars(i, depth + 1))
                    .sum::<usize>()
        }
    }
}

fn string_chars(s: &str) -> usize {
    2 + s
        .chars()
        .map(|c| match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if (c as u32) < 0x20 => 6,
            _ => 1,
        })
        .sum::<usize>()
}

/// A `fmt::Write` sink that keeps at most `limit` characters and then
/// reports an error so that serialization stops early.
pub(crate) struct Bounded {
    pub(crate) out: String,
    left: usize,
    pub(crate) truncated: bool,
}

impl Bounded {
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            out: String::new(),
            left: limit,
            truncated: false,
        }
    }

    /// The text kept, with `…` when it was cut.
    pub(crate) fn finish(mut self) -> String {
        if self.truncated {
            self.out.push('…');
        }
        self.out
    }
}

impl std::fmt::Write for Bounded {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        // Fast path: the whole piece fits (bytes bound characters).
        if s.len() <= self.left {
            self.out.push_str(s);
            self.left -= s.chars().count();
            return Ok(());
        }
        for c in s.chars() {
            if self.left == 0 {
                self.truncated = true;
                return Err(std::fmt::Error);
            }
            self.out.push(c);
            self.left -= 1;
        }
        Ok(())
    }
}

/// Writes `v` as compact JSON into `w`, stopping quietly when `w` refuses
/// more text; keys in the order the map holds them.
pub(crate) fn write_json(w: &mut Bounded, v: &Value, depth: usize) -> std::fmt::Result {
    use std::fmt::Write;
    if depth > MAX_DEPTH {
        return w.write_str("…");
    }
    match v {
        Value::Null => w.write_str("null"),
        Value::Bool(b) => write!(w, "{b}"),
        Value::Number(n) => write!(w, "{n}"),
        Value::String(s) => write_json_str(w, s),
        Value::Array(items) => {
            w.write_char('[')?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    w.write_char(',')?;
                }
                write_json(w, item, depth + 1)?;
            }
            w.write_char(']')
        }
        Value::Object(map) => {
            w.write_char('{')?;
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    w.write_char(',')?;
                }
                write_json_str(w, k)?;
                w.write_char(':')?;
                write_json(w, item, depth + 1)?;
            }
            w.write_char('}')
        }
    }
}

/// Writes `s` as a JSON string literal, copying runs of plain characters
/// at once.
fn write_json_str(w: &mut Bounded, s: &str) -> std::fmt::Result {
    use std::fmt::Write;
    w.write_char('"')?;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let esc = match c {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\n' => "\\n",
            '\r' => "\\r",
            '\t' => "\\t",
            '\u{8}' => "\\b",
            '\u{c}' => "\\f",
            c if (c as u32) < 0x20 => "\\u00",
            _ => continue,
        };
        w.write_str(&s[start..i])?;
        w.write_str(esc)?;
        if esc == "\\u00" {
            write!(w, "{:02x}", c as u32)?;
        }
        start = i + c.len_utf8();
    }
    w.write_str(&s[start..])?;
    w.write_char('"')
}

/// A short, human-readable `name {params}` summary of a call, at most
/// `limit` characters of params.
pub fn call_summary(name: &str, params: &Value, limit: usize) -> String {
    let mut w = Bounded::new(limit);
    let empty = matches!(params, Value::Object(m) if m.is_empty());
    if !empty {
        let _ = write_json(&mut w, params, 0);
    }
    let p = w.finish();
    if p.is_empty() {
        name.to_owned()
    } else {
        format!("{name} {p}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_compare_in_any_order_and_numbers_by_value() {
        assert_eq!(
            hash_value(&json!({"a": 1, "b": [1, 2]})),
            hash_value(&json!({"b": [1.0, 2], "a": 1.0}))
        );
        assert_ne!(hash_value(&json!({"a": 1})), hash_value(&json!({"a": 2})));
        assert_ne!(hash_value(&json!({"a": 1})), hash_value(&json!({"b": 1})));
        assert_ne!(hash_value(&json!([1, 2])), hash_value(&json!([2, 1])));
        assert_ne!(hash_value(&json!("1")), hash_value(&json!(1)));
        assert_ne!(
            hash_value(&json!({"a": 1, "b": 2})),
            hash_value(&json!({"a": 2, "b": 1}))
        );
        assert_eq!(hash_value(&json!(0.0)), hash_value(&json!(-0.0)));
        assert_ne!(hash_value(&json!(0.5)), hash_value(&json!(1)));
        assert_eq!(hash_value(&json!(u64::MAX)), hash_value(&json!(u64::MAX)));
        assert_ne!(
            hash_value(&json!(9_007_199_254_740_993u64)),
            hash_value(&json!(9_007_199_254_740_992u64))
        );
    }

    #[test]
    fn outputs_trim_strings_only() {
        assert_eq!(hash_output(&json!(" ok\n")), hash_output(&json!("ok")));
        assert_ne!(hash_output(&json!("ok")), hash_output(&json!("o k")));
        assert_eq!(
            hash_output(&json!({"x": 1})),
            hash_output(&json!({"x": 1.0}))
        );
    }

    #[test]
    fn output_chars_match_serde_json() {
        for v in [
            json!("é😀字"),
            json!({"a": "x\"y\n\u{1}", "b": [1, 2.5, null, true, false], "c": {}}),
            json!([]),
            json!(-12),
        ] {
            let expected = match &v {
                Value::String(s) => s.chars().count(),
                other => serde_json::to_string(other).unwrap().chars().count(),
            };
            assert_eq!(output_chars(&v), expected, "{v}");
        }
    }

    #[test]
    fn summaries_are_bounded() {
        assert_eq!(call_summary("ls", &json!({}), 10), "ls");
        assert_eq!(
            call_summary("read", &json!({"path": "a.rs"}), 80),
            "read {\"path\":\"a.rs\"}"
        );
        let s = call_summary("w", &json!({"content": "x".repeat(500)}), 20);
        assert!(s.chars().count() <= 2 + 20 + 1, "{s}");
        assert!(s.ends_with('…'));
    }

    #[test]
    fn deep_values_do_not_overflow() {
        let mut v = json!(1);
        for _ in 0..10_000 {
            v = Value::Array(vec![v]);
        }
        let _ = hash_value(&v);
        let _ = output_chars(&v);
        let _ = call_summary("x", &v, 50);
        // Dropping a deeply nested Value recurses inside serde_json; leak it
        // in the test instead of relying on the default stack size.
        std::mem::forget(v);
    }
}
