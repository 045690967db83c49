//! Credential detection in JSON values (tool params): keys that name a
//! credential, and string values (at any depth) shaped like one; and their
//! redaction, in JSON values and in free text. Findings carry the kind and
//! the location only, never the secret itself.

use crate::first_bytes::FirstBytes;
use crate::lanes::Keywords;
use std::sync::{Arc, LazyLock};

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex_automata::Span;
use regex_automata::meta::Regex;
use serde_json::Value;

use crate::window::{self, Reach};
use crate::{Error, Result, reference};

/// Deepest nesting walked; deeper values are not inspected.
const MAX_DEPTH: usize = 128;

/// Single words that name a credential when they appear in a key.
const CREDENTIAL_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "secrets",
    "credential",
    "credentials",
    "apikey",
    "accesstoken",
    "authtoken",
    "privatekey",
    "authorization",
];

/// Word pairs that name a credential (`api_key`, `accessToken`...).
const CREDENTIAL_PAIRS: &[(&str, &str)] = &[
    ("api", "key"),
    ("access", "token"),
    ("auth", "token"),
    ("private", "key"),
];

/// A last word that makes the key describe a credential rather than hold
/// one (`secret_name`, `password_file`, `api_key_env`...).
const QUALIFIERS: &[&str] = &[
    "name",
    "names",
    "id",
    "ids",
    "type",
    "kind",
    "count",
    "length",
    "len",
    "path",
    "file",
    "filename",
    "ref",
    "hint",
    "policy",
    "prompt",
    "required",
    "expiry",
    "expires",
    "expiration",
    "ttl",
    "pattern",
    "regex",
    "field",
    "env",
    "var",
    "variable",
    "label",
    "description",
    "set",
];

use crate::families::{Check, Form, SHAPES, assignment};

/// What kind of credential was found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CredentialKind {
    /// A key that names a credential holds a non-empty string.
    KeyName,
    /// A string value has a credential's shape: the shape's id and
    /// description.
    Shape {
        /// Stable id, e.g. `cloud_access_key_id`.
        id: String,
        /// Description, e.g. "a cloud access key id".
        label: String,
    },
}

impl CredentialKind {
    /// Stable id: `key_name` or the shape's id.
    pub fn as_str(&self) -> &str {
        match self {
            Self::KeyName => "key_name",
            Self::Shape { id, .. } => id,
        }
    }

    /// Human description for reasons.
    pub fn describe(&self) -> String {
        match self {
            Self::KeyName => "a key naming a credential".to_owned(),
            Self::Shape { label, .. } => format!("a value shaped like {label}"),
        }
    }
}

/// A credential found in params: its kind and where (`params.a.b[2]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What was found.
    pub kind: CredentialKind,
    /// Where: `params` followed by `.key` and `[index]` steps.
    pub path: String,
}

/// One compiled-on-demand pattern of a shape.
#[derive(Debug)]
struct Entry {
    id: String,
    label: String,
    check: Check,
    /// The pattern as compiled (ASCII word boundaries).
    pattern: String,
    /// The keywords every match contains one of (ASCII, compared in lower
    /// case); none for a host's own shapes.
    keywords: &'static [&'static str],
    /// Compiled the first time a text needs it, with where it can match
    /// around its keywords; `None` if it failed to compile (then every
    /// text that needs it is taken as holding it).
    regex: OnceLock<Option<(Regex, Reach)>>,
}

/// A span of a text.
type Range = std::ops::Range<usize>;

impl Entry {
    fn new(id: &str, label: &str, check: Check, pattern: &str) -> Self {
        Self {
            id: id.to_owned(),
            label: label.to_owned(),
            check,
            pattern: ascii_boundaries(pattern),
            keywords: &[],
            regex: OnceLock::new(),
        }
    }

    fn regex(&self) -> Option<&(Regex, Reach)> {
        self.regex
            .get_or_init(|| match window::compile(&self.pattern, self.keywords) {
                Ok(compiled) => Some(compiled),
                Err(e) => {
                    tracing::error!(shape = %self.id, error = %e, "a credential shape failed to compile");
                    None
                }
            })
            .as_ref()
    }

    /// Whether the pattern matches `s` at all (before confirmation), its
    /// keywords occurring at `hits` (`None`: anywhere).
    fn is_match(&self, s: &str, hits: Option<&[Spot]>) -> bool {
        self.regex()
            .is_none_or(|(re, reach)| !window::matches(re, reach, s, hits).is_empty())
    }

    /// The confirmed spans of the pattern in `s`, its keywords occurring
    /// at `hits` (`None`: anywhere): the credential part of each match (its first capture
    /// group that took part, else the whole match), when the shape's check
    /// accepts it. A pattern that failed to compile confirms the whole
    /// text (nothing unchecked is let through).
    fn confirmed(&self, s: &str, hits: Option<&[Spot]>) -> Vec<Range> {
        let Some((re, reach)) = self.regex() else {
            return std::iter::once(0..s.len()).collect();
        };
        let text = |span: Span| s.get(span.range()).unwrap_or_default();
        window::matches(re, reach, s, hits)
            .into_iter()
            .filter_map(|(whole, part)| {
                let part_text = text(part);
                // What redaction left is no credential.
                if part_text == REDACTED {
                    return None;
                }
                let ok = match self.check {
                    Check::Always => true,
                    Check::HasDigit => text(whole).bytes().any(|b| b.is_ascii_digit()),
                    // A reference to a credential is none.
                    Check::SecretLike => {
                        secret_like(part_text) && !reference::is_reference(part_text)
                    }
                    Check::UserPass => {
                        reference::is_basic_credential(part_text)
                            || (part_text.len() >= 16
                                && part_text.bytes().any(|b| b.is_ascii_digit())
                                && token_like(part_text))
                    }
                };
                ok.then(|| part.range())
            })
            .collect()
    }
}

/// The longest keyword the keyword pass looks for; a family's longer
/// keyword is looked for by its first bytes (the four parts of a text the
/// DFA scans at once overlap by this less one).
const KEYWORD_LEN: usize = 8;

/// The most built-in patterns the keyword pass can select among.
const MAX_BUILTIN: usize = 256;

/// Where a text's keywords occur, by the built-in pattern they key: the
/// pattern, the start and the length of each occurrence, sorted (the
/// patterns in the scanner's order, each one's occurrences ascending).
type Spot = (u16, usize, usize);

/// A text's keyword occurrences; `every` when the keyword pass failed
/// (every pattern then runs over the whole text).
#[derive(Debug, Default)]
struct Hits {
    /// The occurrences, sorted.
    spots: Vec<Spot>,
    /// The keyword pass failed: every pattern runs.
    every: bool,
}

/// The built-in patterns, each keyed on its keywords, and the keyword pass
/// over every keyword (by first byte, then an NFA, then a DFA, as a process
/// scans more): built once per process, no pattern compiled until a text
/// needs it.
#[derive(Debug)]
struct Builtins {
    entries: Vec<Entry>,
    /// The keywords by first byte, for the texts of a process's first
    /// [`NFA_AFTER`] bytes: no automaton to build.
    first: FirstBytes,
    /// One automaton over every keyword, built once a process has scanned
    /// [`NFA_AFTER`] bytes (`None` if it failed to build: the keywords are
    /// then compared by first byte).
    keywords: OnceLock<Option<AhoCorasick>>,
    /// The same keywords as a DFA, run over four parts of a text at once:
    /// several times as fast a scan, but its build costs what a
    /// one-question command spends on everything else, so it is built only
    /// once a process has scanned [`DFA_AFTER`] bytes.
    fast: OnceLock<Option<Keywords>>,
    /// Bytes scanned by the keyword pass so far.
    scanned: AtomicUsize,
    /// The keywords (each once, whatever its case), for the DFA's build.
    words: Vec<&'static str>,
    /// For each keyword (the automaton's pattern id): the entries it keys,
    /// each with the keyword in the case it must have in the text when a
    /// family gives it with an upper-case letter (its pattern matches that
    /// case only).
    keyed: Vec<Vec<(u16, Option<&'static str>)>>,
}

impl Builtins {
    fn build() -> Result<Self> {
        let mut entries: Vec<Entry> = Vec::new();
        let mut words: Vec<&'static str> = Vec::new();
        let mut keyed: Vec<Vec<(u16, Option<&'static str>)>> = Vec::new();
        let mut key = |entry: &mut Entry, at: usize, kws: &'static [&'static str]| {
            let id = u16::try_from(at).unwrap_or(u16::MAX);
            entry.keywords = kws;
            for &kw in kws {
                // The automaton's keywords are at most KEYWORD_LEN bytes
                // long: their first bytes occur wherever they do.
                let kw = kw.get(..KEYWORD_LEN).unwrap_or(kw);
                let exact = kw.bytes().any(|b| b.is_ascii_uppercase()).then_some(kw);
                match words.iter().position(|w| w.eq_ignore_ascii_case(kw)) {
                    Some(k) => keyed
                        .get_mut(k)
                        .into_iter()
                        .for_each(|v| v.push((id, exact))),
                    None => {
                        words.push(kw);
                        keyed.push(vec![(id, exact)]);
                    }
                }
            }
        };
        for s in SHAPES {
            let mut add = |pattern: &str, kws: &'static [&'static str]| {
                let mut entry = Entry::new(s.id, s.label, s.check, pattern);
                key(&mut entry, entries.len(), kws);
                entries.push(entry);
            };
            match s.form {
                Form::One(pattern, kws) => add(pattern, kws),
                Form::Any(alternatives) => {
                    for (pattern, kws) in alternatives {
                        add(pattern, kws);
                    }
                }
                Form::Assign(vendors) => {
                    for (kw, word, value) in vendors {
                        add(&assignment(word, value), std::slice::from_ref(kw));
                    }
                }
            }
        }
        if entries.len() > MAX_BUILTIN {
            return Err(Error::Pattern {
                pattern: "<built-in shapes>".to_owned(),
                message: format!("{} patterns, at most {MAX_BUILTIN}", entries.len()),
            });
        }
        Ok(Self {
            entries,
            first: FirstBytes::new(&words),
            keywords: OnceLock::new(),
            fast: OnceLock::new(),
            scanned: AtomicUsize::new(0),
            words,
            keyed,
        })
    }

    /// Where the keywords of `s` occur, by the patterns they key.
    fn hits(&self, s: &str) -> Hits {
        let mut found: Vec<(u16, usize, usize)> = Vec::new();
        let mut hit = |keyword: usize, at: usize| {
            for &(e, exact) in self.keyed.get(keyword).into_iter().flatten() {
                let len = self.words.get(keyword).map_or(0, |w| w.len());
                if exact.is_none_or(|x| s.as_bytes().get(at..at + x.len()) == Some(x.as_bytes())) {
                    found.push((e, at, len));
                }
            }
        };
        // Once the DFA is built, bytes are no longer counted.
        let seen = match self.fast.get() {
            Some(_) => usize::MAX,
            None => self.scanned.fetch_add(s.len(), Ordering::Relaxed) + s.len(),
        };
        let fast = match self.fast.get() {
            Some(fast) => fast.as_ref(),
            None if seen < DFA_AFTER => None,
            None => self
                .fast
                .get_or_init(|| Keywords::new(&self.words))
                .as_ref(),
        };
        let nfa = match fast {
            Some(_) => None,
            None if seen < NFA_AFTER => self.keywords.get().and_then(Option::as_ref),
            None => self
                .keywords
                .get_or_init(|| keyword_automaton(&self.words, AhoCorasickKind::ContiguousNFA).ok())
                .as_ref(),
        };
        match (fast, nfa) {
            (Some(fast), _) => fast.find(s, hit),
            (None, Some(automaton)) => {
                let Ok(iter) = automaton.try_find_overlapping_iter(s) else {
                    // Cannot happen with a standard automaton; fail closed.
                    return Hits {
                        every: true,
                        ..Hits::default()
                    };
                };
                for m in iter {
                    hit(m.pattern().as_usize(), m.start());
                }
            }
            (None, None) => self.first.find(s, hit),
        }
        found.sort_unstable();
        found.dedup();
        Hits {
            spots: found,
            every: false,
        }
    }
}

/// Bytes a process scans comparing keywords by first byte before it builds
/// their NFA: a one-question command scans a line or two, and building the
/// NFA cost more than everything else its redaction did (2.7 M
/// instructions); by first byte, a text costs about ten times what the
/// NFA's scan does.
const NFA_AFTER: usize = 16 << 10;

/// Bytes a process scans with the keywords' NFA before it builds their DFA.
const DFA_AFTER: usize = 256 << 10;

/// One automaton over every keyword, ASCII case-insensitive, reporting
/// overlapping matches (a keyword inside another is still seen).
fn keyword_automaton(words: &[&str], kind: AhoCorasickKind) -> Result<AhoCorasick> {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .kind(Some(kind))
        .build(words)
        .map_err(|e| Error::Pattern {
            pattern: "<keywords>".to_owned(),
            message: e.to_string(),
        })
}

/// A scanner's shapes: the built-in ones and a host's own (compiled at
/// once, run on every text).
#[derive(Debug)]
struct Shapes {
    builtin: Arc<Builtins>,
    extra: Vec<Entry>,
}

impl Shapes {
    fn with_extra(builtin: Arc<Builtins>, extra: &[(&str, &str)]) -> Result<Self> {
        let mut entries = Vec::with_capacity(extra.len());
        for (name, pat) in extra {
            let entry = Entry::new(name, &format!("`{name}`"), Check::Always, pat);
            let compiled = Regex::new(&entry.pattern).map_err(|e| Error::Pattern {
                pattern: entry.pattern.clone(),
                message: e.to_string(),
            })?;
            let _ = entry.regex.set(Some((compiled, Reach::Whole)));
            entries.push(entry);
        }
        Ok(Self {
            builtin,
            extra: entries,
        })
    }

    /// The keyword occurrences of `s`.
    fn hits(&self, s: &str) -> Hits {
        if s.is_empty() {
            Hits::default()
        } else {
            self.builtin.hits(s)
        }
    }

    /// The patterns `s` needs, in the scanner's order, each with where its
    /// keywords occur (`None`: run over the whole text).
    fn candidates<'a: 'h, 'h>(
        &'a self,
        hits: &'h Hits,
    ) -> impl Iterator<Item = (&'a Entry, Option<&'h [Spot]>)> + 'h {
        let every = hits
            .every
            .then(|| self.builtin.entries.iter().map(|e| (e, None)));
        let keyed = hits.spots.chunk_by(|a, b| a.0 == b.0).filter_map(|spots| {
            let &(e, ..) = spots.first()?;
            Some((self.builtin.entries.get(usize::from(e))?, Some(spots)))
        });
        every
            .into_iter()
            .flatten()
            .chain(keyed.filter(|_| !hits.every))
            .chain(self.extra.iter().map(|e| (e, None)))
    }

    /// The first confirmed shape in `s`.
    fn find(&self, s: &str) -> Option<&Entry> {
        let hits = self.hits(s);
        self.candidates(&hits)
            .find(|(e, h)| !e.confirmed(s, *h).is_empty())
            .map(|(e, _)| e)
    }

    /// Whether any shape matches `s`, confirmed or not.
    fn any_match(&self, s: &str) -> bool {
        let hits = self.hits(s);
        self.candidates(&hits).any(|(e, h)| e.is_match(s, h))
    }

    /// Every confirmed credential span of `s` (possibly overlapping).
    fn spans(&self, s: &str) -> Vec<Range> {
        let hits = self.hits(s);
        if hits.spots.is_empty() && !hits.every && self.extra.is_empty() {
            return Vec::new();
        }
        self.candidates(&hits)
            .flat_map(|(e, h)| e.confirmed(s, h))
            .collect()
    }

    /// The ids of the confirmed shapes of `s`, in order, each once.
    fn ids(&self, s: &str) -> Vec<String> {
        let hits = self.hits(s);
        let mut ids: Vec<String> = Vec::new();
        for (e, h) in self.candidates(&hits) {
            if !ids.contains(&e.id) && !e.confirmed(s, h).is_empty() {
                ids.push(e.id.clone());
            }
        }
        ids
    }
}

/// `pattern` with each `\b` taken in its ASCII sense, `(?-u:\b)`. A
/// Unicode word boundary sends the regex crate's DFA engines back to its
/// slowest one as soon as the text holds a non-ASCII character (an arrow,
/// an accent): a line of 80 characters then took about 200 µs instead of
/// 0.2 µs. Credentials are ASCII, so the ASCII boundary finds the same
/// ones. An escaped backslash (`\\b`) is left alone.
pub(crate) fn ascii_boundaries(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('b') => out.push_str(r"(?-u:\b)"),
            // The built-in shapes' mark for a distinctive prefix found
            // whatever precedes it (see `families`): no boundary.
            Some('g') => {}
            Some(next) => {
                out.push('\\');
                out.push(next);
            }
            None => out.push('\\'),
        }
    }
    out
}

fn secret_like(v: &str) -> bool {
    v.chars().count() >= 16
        || (v
            .bytes()
            .any(|b| b.is_ascii_digit() || (b.is_ascii_punctuation() && b != b'.'))
            && !v.bytes().all(|b| b.is_ascii_digit()))
}

fn token_like(v: &str) -> bool {
    let b = v.as_bytes();
    b.iter()
        .any(|c| c.is_ascii_digit() || matches!(c, b'+' | b'/' | b'='))
        || (b.iter().skip(1).any(u8::is_ascii_uppercase) && b.iter().any(u8::is_ascii_lowercase))
}

static BUILTINS: LazyLock<Option<Arc<Builtins>>> = LazyLock::new(|| match Builtins::build() {
    Ok(b) => Some(Arc::new(b)),
    Err(e) => {
        tracing::error!(error = %e, "built-in credential shapes failed to compile");
        None
    }
});

/// Finds credentials in JSON params (see the module docs).
#[derive(Debug, Clone)]
pub struct CredentialScanner {
    shapes: Option<Arc<Shapes>>,
    extra_words: Vec<String>,
}

impl Default for CredentialScanner {
    fn default() -> Self {
        Self {
            shapes: BUILTINS.as_ref().map(|b| {
                Arc::new(Shapes {
                    builtin: Arc::clone(b),
                    extra: Vec::new(),
                })
            }),
            extra_words: Vec::new(),
        }
    }
}

impl CredentialScanner {
    /// The built-in shapes and key words plus `shapes` (`(name, regex)`,
    /// `regex` crate syntax) and `key_words` (whole key words, any case).
    /// Fails with [`Error::Pattern`] when a shape does not compile.
    pub fn with_extra(shapes: &[(&str, &str)], key_words: &[&str]) -> Result<Self> {
        Ok(Self {
            shapes: Some(Arc::new(Shapes::with_extra(
                BUILTINS.clone().ok_or(Error::Unavailable)?,
                shapes,
            )?)),
            extra_words: key_words
                .iter()
                .map(|w| w.to_lowercase().replace(['_', '-', ' '], ""))
                .collect(),
        })
    }

    /// The first credential in `params`, depth first in document order.
    /// Fails only if the built-in patterns could not be compiled.
    pub fn scan(&self, params: &Value) -> Result<Option<Finding>> {
        let Some(shapes) = &self.shapes else {
            return Err(Error::Unavailable);
        };
        let mut path = String::from("params");
        Ok(self.walk(shapes, params, &mut path, 0))
    }

    fn walk(&self, shapes: &Shapes, v: &Value, path: &mut String, depth: usize) -> Option<Finding> {
        if depth > MAX_DEPTH {
            return None;
        }
        match v {
            Value::String(s) => shapes.find(s).map(|e| Finding {
                kind: CredentialKind::Shape {
                    id: e.id.clone(),
                    label: e.label.clone(),
                },
                path: path.clone(),
            }),
            Value::Array(items) => items.iter().enumerate().find_map(|(i, item)| {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                let found = self.walk(shapes, item, path, depth + 1);
                path.truncate(len);
                found
            }),
            Value::Object(map) => map.iter().find_map(|(k, item)| {
                let len = path.len();
                path.push('.');
                // A key is shown unless it itself looks like a secret.
                if shapes.find(k).is_some() {
                    path.push_str("<redacted>");
                } else {
                    path.push_str(k);
                }
                // A placeholder (`$TOKEN`, `process.env.API_KEY`) is no value.
                let found = if matches!(item, Value::String(s) if !reference::is_placeholder(s))
                    && self.names_credential(k)
                {
                    Some(Finding {
                        kind: CredentialKind::KeyName,
                        path: path.clone(),
                    })
                } else {
                    self.walk(shapes, item, path, depth + 1)
                };
                path.truncate(len);
                found
            }),
            _ => None,
        }
    }

    /// A copy of `value` with every credential replaced by `[REDACTED]`:
    /// string values under credential-named keys, strings shaped like a
    /// credential (the whole string), keys that look like secrets, and
    /// anything nested deeper than the scanner looks (it cannot vouch for
    /// it). Fails only if the built-in patterns could not be compiled.
    pub fn redact(&self, value: &Value) -> Result<Value> {
        let Some(shapes) = &self.shapes else {
            return Err(Error::Unavailable);
        };
        Ok(self.redact_walk(shapes, value, 0))
    }

    /// `text` with every credential-shaped span replaced by `[REDACTED]`,
    /// for free text such as prompts and responses. Fails only if the
    /// built-in patterns could not be compiled.
    pub fn redact_text<'t>(&self, text: &'t str) -> Result<std::borrow::Cow<'t, str>> {
        let spans = self.spans(text)?;
        Ok(replace_spans(text, spans))
    }

    /// `part`, a piece of the larger text `whole` (a question taken from
    /// an agent's message), with every credential redacted that the
    /// scanner finds in `part` itself or in `whole` where `part` lies: a
    /// credential recognised only by what surrounds it (a Kubernetes
    /// `Secret`'s `data:` values) stays redacted in the piece. When `part`
    /// is not found in `whole`, only its own credentials are. Fails only if
    /// the built-in patterns could not be compiled.
    pub fn redact_part<'t>(&self, part: &'t str, whole: &str) -> Result<std::borrow::Cow<'t, str>> {
        let mut spans = self.spans(part)?;
        if let Some(at) = whole.find(part).filter(|_| !part.is_empty()) {
            let end = at + part.len();
            spans.extend(
                self.spans(whole)?
                    .into_iter()
                    .filter(|r| r.start < end && r.end > at)
                    .map(|r| r.start.max(at) - at..r.end.min(end) - at),
            );
        }
        Ok(replace_spans(part, spans))
    }

    /// Every confirmed credential span of `text` (possibly overlapping).
    fn spans(&self, text: &str) -> Result<Vec<std::ops::Range<usize>>> {
        let Some(shapes) = &self.shapes else {
            return Err(Error::Unavailable);
        };
        Ok(shapes.spans(text))
    }

    /// The ids of every credential shape found in `text` (free text), in
    /// the scanner's order; empty when none. Fails only if the built-in
    /// patterns could not be compiled.
    pub fn kinds_in_text(&self, text: &str) -> Result<Vec<String>> {
        let Some(shapes) = &self.shapes else {
            return Err(Error::Unavailable);
        };
        Ok(shapes.ids(text))
    }

    fn redact_walk(&self, shapes: &Shapes, v: &Value, depth: usize) -> Value {
        if depth > MAX_DEPTH {
            return Value::String(REDACTED.into());
        }
        match v {
            Value::String(s) if shapes.find(s).is_some() => Value::String(REDACTED.into()),
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|item| self.redact_walk(shapes, item, depth + 1))
                    .collect(),
            ),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, item)| {
                        let key = if shapes.any_match(k) {
                            REDACTED.to_owned()
                        } else {
                            k.clone()
                        };
                        let value = match item {
                            Value::String(s) if !s.is_empty() && self.names_credential(k) => {
                                Value::String(REDACTED.into())
                            }
                            _ => self.redact_walk(shapes, item, depth + 1),
                        };
                        (key, value)
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// Whether a key names a credential: one of the credential words or
    /// word pairs, unless its last word only qualifies it (`secret_name`).
    pub fn names_credential(&self, key: &str) -> bool {
        if self.extra_words.is_empty() && !mentions_credential_stem(key) {
            return false;
        }
        if key.eq_ignore_ascii_case("private_key_id") || key.eq_ignore_ascii_case("privateKeyId") {
            return true;
        }
        let words = key_words(key);
        let Some(last) = words.last() else {
            return false;
        };
        if words.len() > 1 && QUALIFIERS.contains(&last.as_str()) {
            return false;
        }
        let joined: String = words.concat();
        words.iter().any(|w| CREDENTIAL_WORDS.contains(&w.as_str()))
            || words.windows(2).any(|p| {
                CREDENTIAL_PAIRS
                    .iter()
                    .any(|(a, b)| p[0] == *a && p[1] == *b)
            })
            || self
                .extra_words
                .iter()
                .any(|w| !w.is_empty() && (words.contains(w) || joined == *w))
    }
}

/// What a redacted credential becomes.
pub const REDACTED: &str = "[REDACTED]";

/// Cheap prefilter: whether `key` contains (ASCII, any case) a stem every
/// built-in credential word or pair contains.
fn mentions_credential_stem(key: &str) -> bool {
    const STEMS: [&[u8]; 5] = [b"pass", b"secret", b"key", b"token", b"credential"];
    let b = key.as_bytes();
    let authz = b"authorization";
    STEMS
        .iter()
        .chain(std::iter::once(&&authz[..]))
        .any(|stem| b.windows(stem.len()).any(|w| w.eq_ignore_ascii_case(stem)))
}

/// Splits a key into lowercase words at `_`, `-`, `.`, spaces and camel-case
/// boundaries (`APIKey` gives `api`, `key`).
fn key_words(key: &str) -> Vec<String> {
    let chars: Vec<char> = key.chars().collect();
    let mut words = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if c.is_uppercase() && !cur.is_empty() {
            let prev = chars.get(i.wrapping_sub(1)).copied().unwrap_or(' ');
            let next = chars.get(i + 1).copied().unwrap_or(' ');
            if prev.is_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_uppercase() && next.is_lowercase())
            {
                words.push(std::mem::take(&mut cur));
            }
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// `text` with each span replaced by `[REDACTED]`, overlapping spans
/// merged (borrowed when there is none).
fn replace_spans(text: &str, mut spans: Vec<std::ops::Range<usize>>) -> std::borrow::Cow<'_, str> {
    if spans.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    spans.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for r in spans {
        if r.end <= last {
            continue;
        }
        let start = r.start.max(last);
        if start == last && last > 0 && out.ends_with(REDACTED) {
            // Overlapping the previous span: extend it.
        } else {
            out.push_str(text.get(last..start).unwrap_or_default());
            out.push_str(REDACTED);
        }
        last = r.end;
    }
    out.push_str(text.get(last..).unwrap_or_default());
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scan(v: Value) -> Option<Finding> {
        CredentialScanner::default().scan(&v).unwrap()
    }

    #[test]
    fn word_boundaries_are_ascii_and_escapes_kept() {
        assert_eq!(ascii_boundaries(r"\bAKIA\b"), r"(?-u:\b)AKIA(?-u:\b)");
        assert_eq!(ascii_boundaries(r"a\\b\d"), r"a\\b\d");
        assert_eq!(ascii_boundaries("trailing\\"), "trailing\\");
    }

    #[test]
    fn credentials_next_to_non_ascii_text_are_redacted() {
        let s = CredentialScanner::default();
        let t = "résumé → token ghp_aBcD1234EfGh5678IjKl9012MnOp3456QrSt → ok";
        let clean = s.redact_text(t).unwrap();
        assert!(!clean.contains("ghp_"), "{clean}");
        assert!(clean.starts_with("résumé → token "), "{clean}");
    }

    #[test]
    fn key_words_split_case_and_separators() {
        assert_eq!(key_words("APIKey"), ["api", "key"]);
        assert_eq!(key_words("x-api-key"), ["x", "api", "key"]);
        assert_eq!(key_words("accessToken"), ["access", "token"]);
        assert_eq!(
            key_words("AWS_SECRET_ACCESS_KEY"),
            ["aws", "secret", "access", "key"]
        );
        assert_eq!(key_words("token2fa"), ["token2fa"]);
    }

    #[test]
    fn key_names() {
        let s = CredentialScanner::default();
        for k in [
            "password",
            "passwd",
            "PASSWORD",
            "db_password",
            "api_key",
            "API-Key",
            "apiKey",
            "APIKEY",
            "access_token",
            "ACCESS_TOKEN",
            "authToken",
            "client_secret",
            "secret",
            "private_key",
            "privateKeyPem",
            "credentials",
            "Authorization",
            "aws_secret_access_key",
        ] {
            assert!(s.names_credential(k), "{k}");
        }
        for k in [
            "max_tokens",
            "token_count",
            "public_key_pem",
            "pattern",
            "path",
            "secret_name",
            "password_file",
            "api_key_env",
            "secretary",
            "keyboard",
            "author",
            "token",
        ] {
            assert!(!s.names_credential(k), "{k}");
        }
    }

    #[test]
    fn shapes_without_echoing_values() {
        let cases = [
            (
                json!({"a": {"b": ["x", "AKIAZ3XQ7T4M9P2LWK5D"]}}),
                "cloud_access_key_id",
                "params.a.b[1]",
            ),
            (
                json!({"k": "-----BEGIN OPENSSH PRIVATE KEY-----\nabc"}),
                "private_key_block",
                "params.k",
            ),
            (
                json!({"h": {"Auth": "Bearer 9f8e7d6c5b4a3928"}}),
                "bearer_token",
                "params.h.Auth",
            ),
            (
                json!(["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"]),
                "jwt",
                "params[0]",
            ),
            (
                json!({"c": "DB_PASSWORD=s3cr3t-Value ./run"}),
                "env_credential",
                "params.c",
            ),
            (
                json!({"u": "postgres://app:pw1234@db:5432/x"}),
                "url_credentials",
                "params.u",
            ),
            (
                json!({"t": "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}),
                "github_token",
                "params.t",
            ),
        ];
        for (v, kind, path) in cases {
            let f = scan(v.clone()).unwrap_or_else(|| panic!("{v}"));
            assert_eq!((f.kind.as_str(), f.path.as_str()), (kind, path), "{v}");
        }
    }

    #[test]
    fn benign_values() {
        for v in [
            json!({"pattern": "password"}),
            json!({"pattern": "AKIA[0-9A-Z]{16}"}),
            json!({"content": "-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----"}),
            json!({"content": "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ dev@laptop"}),
            json!({"max_tokens": 512, "token_count": 18234}),
            json!({"password": ""}),
            json!({"password": 1234}),
            json!({"doc": "Use bearer authentication with your token"}),
            json!({"doc": "password: required"}),
            json!({"u": "postgres://app:${DB_PASSWORD}@db/x"}),
            json!({"q": "grep -r 'password\\s*=' src"}),
        ] {
            assert_eq!(scan(v.clone()), None, "{v}");
        }
    }

    #[test]
    fn secret_looking_keys_are_redacted_and_extras_work() {
        let f = scan(json!({"AKIAZ3XQ7T4M9P2LWK5D": {"secret": "x"}})).unwrap();
        assert_eq!(f.path, "params.<redacted>.secret");
        let s = CredentialScanner::with_extra(&[("internal", r"\bINT-[0-9]{6}\b")], &["pin_code"])
            .unwrap();
        assert_eq!(
            s.scan(&json!({"x": "INT-123456"}))
                .unwrap()
                .unwrap()
                .kind
                .as_str(),
            "internal"
        );
        assert!(s.names_credential("pinCode"));
        assert!(CredentialScanner::with_extra(&[("bad", "(?=x)")], &[]).is_err());
    }
}

#[cfg(test)]
mod redact_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_piece_keeps_the_redactions_its_whole_text_calls_for() {
        let s = CredentialScanner::default();
        let whole = "Should I rotate apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ndata:\n  db-url: EHGml98ecRp9aYwMFTCL4r6ULmj5lUaEDpZhsEjQ\n?";
        let part = "db-url: EHGml98ecRp9aYwMFTCL4r6ULmj5lUaEDpZhsEjQ\n?";
        assert!(
            s.redact_text(part).unwrap().contains("EHGml98"),
            "the piece alone is not recognised"
        );
        let r = s.redact_part(part, whole).unwrap();
        assert!(!r.contains("EHGml98"), "{r}");
        assert!(r.ends_with("\n?"), "{r}");
        // Not a piece of the whole: its own credentials only.
        assert_eq!(s.redact_part("plain", whole).unwrap(), "plain");
    }

    #[test]
    fn redact_removes_every_credential_and_keeps_the_rest() {
        let scanner = CredentialScanner::default();
        let params = json!({
            "url": "https://api.example.com",
            "headers": {"Authorization": "Bearer abcdef1234567890abcdef"},
            "db_password": "hunter2-secret",
            "nested": [{"aws": "AKIAABCDEFGHIJKLMNOP"}],
            "max_tokens": 256,
        });
        let red = scanner.redact(&params).unwrap();
        let text = red.to_string();
        for secret in [
            "abcdef1234567890abcdef",
            "hunter2-secret",
            "AKIAABCDEFGHIJKLMNOP",
        ] {
            assert!(!text.contains(secret), "{text}");
        }
        assert_eq!(red["url"], "https://api.example.com");
        assert_eq!(red["max_tokens"], 256);
        assert_eq!(red["db_password"], REDACTED);
        assert_eq!(red["headers"]["Authorization"], REDACTED);
        assert_eq!(red["nested"][0]["aws"], REDACTED);
        let t = scanner
            .redact_text("use Bearer abcdef1234567890abcdef please")
            .unwrap();
        assert!(!t.contains("abcdef1234567890abcdef"), "{t}");
        assert!(matches!(
            scanner.redact_text("nothing here").unwrap(),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
#[cfg(test)]
#[path = "keyword_tests.rs"]
mod keyword_tests;
