//! Where a built-in credential pattern can match around the keyword
//! occurrences the scanner's keyword pass found, so that the pattern runs
//! there only, not over the whole text, and finds exactly what a run over
//! the whole text finds.
//!
//! A pattern's every match contains one of its keywords (the families'
//! rule), so:
//! - a pattern whose every match starts with one of its keywords ([`Reach::Led`])
//!   is tried anchored at each keyword occurrence, in order, from the end
//!   of the last match on: the matches a whole-text search finds one after
//!   another, since each starts at the leftmost place one can;
//! - a pattern whose matches are at most `n` bytes long ([`Reach::Within`])
//!   runs in the windows of `n` bytes either side of each occurrence,
//!   merged where they touch: every whole-text match lies whole in one
//!   window, and a window's search sees the text outside it for `\b`;
//! - a pattern none of whose matches holds some bytes (a URL's, no
//!   whitespace: [`Reach::Between`]) runs in the run of other bytes
//!   around each occurrence, for the same reason;
//! - any other pattern runs over the whole text ([`Reach::Whole`]).
//!
//! All are read off the pattern's syntax tree when it is compiled. The
//! keyword pass folds ASCII case only, as this analysis does: a pattern's
//! `(?i)` also matches the Kelvin sign for `k` and the long `ſ` for `s`,
//! which no keyword pass finds, in a window or not.

use regex_automata::meta::Regex;
use regex_automata::util::captures::Captures;
use regex_automata::{Anchored, Input, Span};
use regex_syntax::hir::{Class, Hir, HirKind};

/// How far from its keyword occurrences a pattern can match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Anywhere: run over the whole text.
    Whole,
    /// Every match starts with one of the pattern's keywords.
    Led,
    /// Every match is at most this many bytes long.
    Within(usize),
    /// No match holds any of these bytes (by value): a match lies in the
    /// run of other bytes around its keyword.
    Between(Box<[bool; 256]>),
}

/// The most leading strings followed through a pattern's alternatives.
const MAX_LEADS: usize = 256;

/// Leading strings longer than this are not extended further.
const MAX_LEAD_LEN: usize = 32;

/// `pattern` compiled (the `regex` crate's syntax and defaults), with its
/// reach around `keywords`; the error's message when it does not compile.
pub(crate) fn compile(pattern: &str, keywords: &[&str]) -> Result<(Regex, Reach), String> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .map_err(|e| e.to_string())?;
    let regex = Regex::builder()
        .build_from_hir(&hir)
        .map_err(|e| e.to_string())?;
    Ok((regex, Reach::of(&hir, keywords)))
}

impl Reach {
    /// The reach of a pattern (its syntax tree) keyed on `keywords`
    /// (ASCII, compared in lower case); [`Reach::Whole`] when it has no
    /// keyword.
    fn of(hir: &Hir, keywords: &[&str]) -> Self {
        if keywords.is_empty() {
            return Self::Whole;
        }
        let keywords: Vec<Vec<u8>> = keywords
            .iter()
            .map(|k| k.to_ascii_lowercase().into_bytes())
            .collect();
        let led = leads(hir).is_some_and(|leads| {
            !leads.is_empty()
                && leads
                    .iter()
                    .all(|(lead, _)| keywords.iter().any(|k| lead.starts_with(k)))
        });
        if led {
            return Self::Led;
        }
        if let Some(n) = hir.properties().maximum_len() {
            return Self::Within(n);
        }
        let mut stops = Box::new([true; 256]);
        may_hold(hir, &mut stops);
        if stops.iter().any(|&stop| stop) {
            Self::Between(stops)
        } else {
            Self::Whole
        }
    }
}

/// Clears in `stops` each byte a match of `hir` may hold.
fn may_hold(hir: &Hir, stops: &mut [bool; 256]) {
    let mut clear = |from: u32, to: u32| {
        // Any non-ASCII character: every byte of its encoding.
        let to = if to >= 0x80 { 0xFF } else { to };
        let from = if from >= 0x80 { 0x80 } else { from };
        for b in from..=to {
            if let Some(stop) = usize::try_from(b).ok().and_then(|b| stops.get_mut(b)) {
                *stop = false;
            }
        }
    };
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(lit) => lit.0.iter().for_each(|&b| clear(b.into(), b.into())),
        HirKind::Class(Class::Unicode(cls)) => cls
            .iter()
            .for_each(|r| clear(r.start().into(), r.end().into())),
        HirKind::Class(Class::Bytes(cls)) => cls
            .iter()
            .for_each(|r| clear(r.start().into(), r.end().into())),
        HirKind::Repetition(rep) => may_hold(&rep.sub, stops),
        HirKind::Capture(cap) => may_hold(&cap.sub, stops),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => {
            subs.iter().for_each(|sub| may_hold(sub, stops));
        }
    }
}

/// The strings (ASCII lower case) one of which every match of `hir`
/// starts with, each with whether it is the whole match; `None` when there
/// are too many to follow.
fn leads(hir: &Hir) -> Option<Vec<(Vec<u8>, bool)>> {
    let open = || Some(vec![(Vec::new(), false)]);
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(vec![(Vec::new(), true)]),
        HirKind::Literal(lit) => Some(vec![(lit.0.to_ascii_lowercase(), true)]),
        HirKind::Class(class) => match folded_bytes(class) {
            Some(bytes) => Some(bytes.into_iter().map(|b| (vec![b], true)).collect()),
            None => open(),
        },
        HirKind::Capture(cap) => leads(&cap.sub),
        HirKind::Repetition(rep) => {
            if rep.min == 0 && rep.max == Some(1) {
                let mut inner = leads(&rep.sub)?;
                inner.push((Vec::new(), true));
                (inner.len() <= MAX_LEADS).then_some(inner)
            } else if rep.min == 0 {
                open()
            } else {
                let whole = rep.min == 1 && rep.max == Some(1);
                let inner = leads(&rep.sub)?;
                Some(inner.into_iter().map(|(s, c)| (s, c && whole)).collect())
            }
        }
        HirKind::Concat(subs) => {
            let mut acc: Vec<(Vec<u8>, bool)> = vec![(Vec::new(), true)];
            for sub in subs {
                if !acc.iter().any(|(s, c)| *c && s.len() < MAX_LEAD_LEN) {
                    break;
                }
                let next = leads(sub)?;
                let grown = acc.iter().filter(|(_, c)| *c).count() * next.len();
                if acc.len() + grown > MAX_LEADS {
                    // Too many to follow: what is known so far still leads.
                    return Some(acc.into_iter().map(|(s, _)| (s, false)).collect());
                }
                let mut out = Vec::with_capacity(acc.len() + grown);
                for (s, complete) in acc {
                    if !complete || s.len() >= MAX_LEAD_LEN {
                        out.push((s, false));
                        continue;
                    }
                    for (t, c) in &next {
                        let mut st = s.clone();
                        st.extend_from_slice(t);
                        out.push((st, *c));
                    }
                }
                acc = out;
            }
            Some(acc)
        }
        HirKind::Alternation(subs) => {
            let mut out = Vec::new();
            for sub in subs {
                out.extend(leads(sub)?);
                if out.len() > MAX_LEADS {
                    return None;
                }
            }
            Some(out)
        }
    }
}

/// The bytes a class matches, in ASCII lower case, when it matches only
/// ASCII characters (and the two non-ASCII case-fold companions of `k`
/// and `s`, which the keyword pass does not fold either) and folds to at
/// most eight of them.
fn folded_bytes(class: &Class) -> Option<Vec<u8>> {
    let mut out: Vec<u8> = Vec::new();
    let mut add = |c: u32| -> Option<()> {
        if c == 0x212A || c == 0x17F {
            return Some(());
        }
        let b = u8::try_from(c)
            .ok()
            .filter(u8::is_ascii)?
            .to_ascii_lowercase();
        if !out.contains(&b) {
            out.push(b);
        }
        (out.len() <= 8).then_some(())
    };
    match class {
        Class::Unicode(cls) => {
            for r in cls.iter() {
                if u32::from(r.end()) - u32::from(r.start()) > 64 {
                    return None;
                }
                for c in u32::from(r.start())..=u32::from(r.end()) {
                    add(c)?;
                }
            }
        }
        Class::Bytes(cls) => {
            for r in cls.iter() {
                for c in r.start()..=r.end() {
                    add(u32::from(c))?;
                }
            }
        }
    }
    Some(out)
}

/// The spans of the matches of `re` in `text` (the whole match and its
/// first capture group that took part, else the whole match again), where
/// the pattern's keywords occur at `hits` (pattern, start and length,
/// ascending; `None`: anywhere): exactly those of a search over the whole
/// text.
pub(crate) fn matches(
    re: &Regex,
    reach: &Reach,
    text: &str,
    hits: Option<&[(u16, usize, usize)]>,
) -> Vec<(Span, Span)> {
    let (reach, hits) = match hits {
        Some(hits) => (reach, hits),
        None => (&Reach::Whole, &[][..]),
    };
    let mut out = Vec::new();
    if hits.is_empty() && !matches!(reach, Reach::Whole) {
        return out;
    }
    let spans = |caps: &Captures| -> Option<(Span, Span)> {
        let whole = caps.get_match()?.span();
        let part = (1..caps.group_len())
            .find_map(|g| caps.get_group(g))
            .unwrap_or(whole);
        Some((whole, part))
    };
    if let Reach::Whole = reach {
        out.extend(re.captures_iter(text).filter_map(|c| spans(&c)));
        return out;
    }
    // The match at `input`'s leftmost place, if any, its spans kept; most
    // searches find none, and are made without captures.
    let mut caps: Option<Captures> = None;
    let mut find = |input: &Input<'_>| -> Option<Span> {
        re.search_half(input)?;
        let caps = caps.get_or_insert_with(|| re.create_captures());
        re.search_captures(input, caps);
        let (whole, part) = spans(caps)?;
        out.push((whole, part));
        Some(whole)
    };
    match reach {
        Reach::Whole => {}
        Reach::Led => {
            let mut from = 0;
            for &(_, at, _) in hits {
                if at < from {
                    continue;
                }
                let input = Input::new(text).range(at..).anchored(Anchored::Yes);
                if let Some(m) = find(&input) {
                    from = m.end.max(at + 1);
                }
            }
        }
        Reach::Within(_) | Reach::Between(_) => {
            let bytes = text.as_bytes();
            let stop = |b: &u8| match reach {
                Reach::Between(stops) => stops.get(usize::from(*b)).copied().unwrap_or(false),
                _ => false,
            };
            let mut windows: Vec<(usize, usize)> = Vec::new();
            for &(_, at, len) in hits {
                let (mut start, mut end) = match *reach {
                    Reach::Within(n) => ((at + len).saturating_sub(n), at.saturating_add(n)),
                    _ => {
                        let before = bytes.get(..at).unwrap_or_default();
                        let after = bytes.get(at..).unwrap_or_default();
                        (
                            before.iter().rposition(stop).map_or(0, |i| i + 1),
                            after.iter().position(stop).map_or(text.len(), |i| at + i),
                        )
                    }
                };
                end = end.min(text.len());
                while !text.is_char_boundary(start) {
                    start -= 1;
                }
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                windows.push((start, end));
            }
            windows.sort_unstable();
            let mut merged: Vec<(usize, usize)> = Vec::with_capacity(windows.len());
            for (start, end) in windows {
                match merged.last_mut() {
                    Some(last) if start <= last.1 => last.1 = last.1.max(end),
                    _ => merged.push((start, end)),
                }
            }
            for (start, end) in merged {
                let mut input = Input::new(text).range(start..end);
                while let Some(m) = find(&input) {
                    if m.end >= end || m.is_empty() {
                        break;
                    }
                    input.set_start(m.end);
                }
            }
        }
    }
    out
}
