//! Unicode-aware normalization, word counting, sentence splitting and
//! question extraction.
//!
//! Offsets are byte offsets into the original text and always fall on
//! character boundaries, so `&text[seg.start..seg.end]` never panics.

use std::borrow::Cow;
use std::sync::LazyLock;

use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

use crate::WordSet;

/// Normalizes text for matching: compatibility decomposition with accents
/// removed (`é` → `e`, `ß` → `ss`), lower case, typographic quotes and
/// dashes mapped to ASCII, and runs of white space collapsed to one space.
///
/// Cue patterns are written against this form.
pub fn normalize(text: &str) -> String {
    if text.is_ascii() {
        // Fast path: vectorized lower case, then fold white space only when
        // there is something to fold.
        // White space as `char::is_whitespace` has it on ASCII (vertical
        // tab included, unlike `u8::is_ascii_whitespace`).
        let is_space = |c: u8| matches!(c, b' ' | b'\t'..=b'\r');
        let bytes = text.as_bytes();
        let start = bytes
            .iter()
            .position(|&c| !is_space(c))
            .unwrap_or(bytes.len());
        let end = bytes
            .iter()
            .rposition(|&c| !is_space(c))
            .map_or(start, |e| e + 1);
        let trimmed = text.get(start..end).unwrap_or_default();
        // Folding is needed for white space other than a single space
        // (the trim left none at either end).
        let b = trimmed.as_bytes();
        // Branch-free folds, so the compiler vectorizes them: a control
        // byte (all of `\t \n \r \x0c` are) or two spaces in a row.
        let control = b.iter().fold(false, |a, &c| a | (c < b' '));
        let double_space = b
            .iter()
            .zip(b.iter().skip(1))
            .fold(false, |a, (&x, &y)| a | ((x == b' ') & (y == b' ')));
        let needs_folding = control || double_space;
        let lower = trimmed.to_ascii_lowercase();
        if !needs_folding {
            return lower;
        }
        let mut out = String::with_capacity(text.len());
        let mut pending_space = false;
        for b in lower.bytes() {
            if is_space(b) {
                pending_space = !out.is_empty();
                continue;
            }
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(char::from(b));
        }
        return out;
    }
    normalize_latin(text, String::with_capacity(text.len()))
        .unwrap_or_else(|| normalize_general(text, String::with_capacity(text.len())))
}

/// What NFKD, accent removal and lower-casing make of the common accented
/// Latin letters, inverted punctuation, typographic quotes and dashes, the
/// ellipsis and common signs, looked up directly (`None` for any other
/// non-ASCII character).
fn fold_latin(c: char) -> Option<&'static str> {
    Some(match c {
        'À'..='Å' | 'à'..='å' => "a",
        'Ç' | 'ç' => "c",
        'È'..='Ë' | 'è'..='ë' => "e",
        'Ì'..='Ï' | 'ì'..='ï' => "i",
        'Ñ' | 'ñ' => "n",
        'Ò'..='Ö' | 'ò'..='ö' => "o",
        'Ù'..='Ü' | 'ù'..='ü' => "u",
        'Ý' | 'ý' | 'ÿ' => "y",
        'ß' => "ss",
        '¿' => "¿",
        '¡' => "¡",
        '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{2032}' => "'",
        '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{00ab}' | '\u{00bb}' => "\"",
        '\u{2013}' | '\u{2014}' | '\u{2212}' => "-",
        '\u{2026}' => "...",
        // Signs that NFKD and lower-casing leave as they are.
        '§' => "§",
        '°' => "°",
        '¶' => "¶",
        '×' => "×",
        '÷' => "÷",
        '±' => "±",
        '¢' => "¢",
        '£' => "£",
        '¥' => "¥",
        '€' => "€",
        '©' => "©",
        '®' => "®",
        '•' => "•",
        '←' => "←",
        '→' => "→",
        '≤' => "≤",
        '≥' => "≥",
        _ => return None,
    })
}

/// [`normalize`] for text of ASCII and [`fold_latin`] characters only:
/// the same output as the general path, without decomposing; `None` at
/// the first other character. Runs of ASCII are handled byte by byte,
/// without decoding.
fn normalize_latin(text: &str, mut out: String) -> Option<String> {
    let mut pending_space = false;
    let mut rest = text;
    while !rest.is_empty() {
        let ascii = rest
            .as_bytes()
            .iter()
            .position(|b| !b.is_ascii())
            .unwrap_or(rest.len());
        for &b in rest.as_bytes().get(..ascii).unwrap_or_default() {
            // `char::is_whitespace` on ASCII.
            if matches!(b, b' ' | b'\t'..=b'\r') {
                pending_space = !out.is_empty();
                continue;
            }
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(char::from(b.to_ascii_lowercase()));
        }
        rest = rest.get(ascii..).unwrap_or_default();
        let Some(c) = rest.chars().next() else {
            break;
        };
        rest = rest.get(c.len_utf8()..).unwrap_or_default();
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        let f = fold_latin(c)?;
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push_str(f);
    }
    Some(out)
}

/// [`normalize`] for any text: NFKD, combining marks dropped, lower case.
fn normalize_general(text: &str, mut out: String) -> String {
    let mut pending_space = false;
    let mut push = |c: char, out: &mut String| {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            return;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            out.extend(c.to_lowercase());
        }
    };
    let mut one = [0u8; 4];
    for ch in text.chars() {
        if ch.is_ascii() {
            push(ch, &mut out);
            continue;
        }
        if let Some(folded) = fold_common(ch) {
            for c in folded.chars() {
                push(c, &mut out);
            }
            continue;
        }
        // Rare characters: full compatibility decomposition, marks dropped.
        for c in ch.encode_utf8(&mut one).nfkd() {
            match c {
                '\u{0300}'..='\u{036f}' => {}
                _ => push(c, &mut out),
            }
        }
    }
    out
}

/// The folded form of common non-ASCII characters (accented Latin letters,
/// typographic quotes and dashes), without running NFKD.
fn fold_common(c: char) -> Option<&'static str> {
    Some(match c {
        'á' | 'à' | 'â' | 'ä' | 'ã' | 'å' | 'ā' => "a",
        'Á' | 'À' | 'Â' | 'Ä' | 'Ã' | 'Å' | 'Ā' => "a",
        'é' | 'è' | 'ê' | 'ë' | 'ē' | 'ę' | 'ě' => "e",
        'É' | 'È' | 'Ê' | 'Ë' | 'Ē' | 'Ę' | 'Ě' => "e",
        'í' | 'ì' | 'î' | 'ï' | 'ī' => "i",
        'Í' | 'Ì' | 'Î' | 'Ï' | 'Ī' => "i",
        'ó' | 'ò' | 'ô' | 'ö' | 'õ' | 'ō' => "o",
        'Ó' | 'Ò' | 'Ô' | 'Ö' | 'Õ' | 'Ō' => "o",
        'ú' | 'ù' | 'û' | 'ü' | 'ū' | 'ů' => "u",
        'Ú' | 'Ù' | 'Û' | 'Ü' | 'Ū' | 'Ů' => "u",
        'ñ' | 'Ñ' | 'ń' | 'ň' => "n",
        'ç' | 'Ç' | 'č' | 'Č' | 'ć' => "c",
        'ý' | 'ÿ' | 'Ý' => "y",
        'š' | 'Š' | 'ś' => "s",
        'ž' | 'Ž' | 'ź' | 'ż' => "z",
        'ř' | 'Ř' => "r",
        'ß' => "ss",
        '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{2032}' => "'",
        '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{00ab}' | '\u{00bb}' => "\"",
        '\u{2013}' | '\u{2014}' | '\u{2212}' => "-",
        '\u{00a0}' | '\u{2009}' | '\u{202f}' => " ",
        _ => return None,
    })
}

/// The words of a text by Unicode word boundaries (UAX #29): `e.g.` and
/// `3.11` are one word each, punctuation is not a word. Text of ASCII and
/// common signs (`¿`, `§`, `°`, `€`, typographic quotes and dashes) is
/// split on its bytes; any other text by `unicode-segmentation`, with the
/// same result.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    if text.is_ascii() || text.chars().all(|c| c.is_ascii() || breaks_words(c)) {
        Words::Ascii(AsciiWords { text, at: 0 })
    } else {
        Words::Unicode(text.unicode_words())
    }
}

/// Non-ASCII signs that UAX #29 gives no word-break property ("Other":
/// a boundary on both sides) and that are no letter or digit: text of
/// ASCII and these splits into words on its ASCII bytes alone.
fn breaks_words(c: char) -> bool {
    matches!(
        c,
        '¡' | '¿'
            | '§'
            | '°'
            | '¶'
            | '×'
            | '÷'
            | '±'
            | '¢'
            | '£'
            | '¥'
            | '€'
            | '©'
            | '®'
            | '«'
            | '»'
            | '\u{201c}'
            | '\u{201d}'
            | '\u{201e}'
            | '\u{2013}'
            | '\u{2014}'
            | '•'
            | '…'
            | '←'
            | '→'
            | '≤'
            | '≥'
    )
}

/// The iterator of [`words`]: ASCII text (and ASCII with the signs of
/// [`breaks_words`]) is split on bytes.
enum Words<'a> {
    Ascii(AsciiWords<'a>),
    Unicode(unicode_segmentation::UnicodeWords<'a>),
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        match self {
            Words::Ascii(w) => w.next(),
            Words::Unicode(w) => w.next(),
        }
    }
}

/// The UAX #29 words of ASCII text, without character decoding. A word is
/// a run of letters, digits and `_` (rules WB5, WB8-10, WB13a-b), which a
/// single `:`, `.` or `'` continues between two letters (WB6-7), and a
/// single `.`, `,`, `;` or `'` between two digits (WB11-12). Runs of `_`
/// alone hold no letter or digit and are no word.
struct AsciiWords<'a> {
    text: &'a str,
    at: usize,
}

/// Byte class of [`AsciiWords`]: continues a run (letter, digit, `_`).
const RUN: u8 = 1;
/// Byte class of [`AsciiWords`]: an ASCII letter or digit.
const ALNUM: u8 = 2;
/// Byte class of [`AsciiWords`]: an ASCII letter.
const ALPHA: u8 = 4;
/// Byte class of [`AsciiWords`]: an ASCII digit.
const DIGIT: u8 = 8;
/// Byte class of [`AsciiWords`]: joins two letters (`:`, `.`, `'`).
const MID_LETTER: u8 = 16;
/// Byte class of [`AsciiWords`]: joins two digits (`.`, `,`, `;`, `'`).
const MID_NUM: u8 = 32;

/// The [`AsciiWords`] class of every byte (non-ASCII bytes have none).
static WORD_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0usize;
    while b < 128 {
        let c = b as u8;
        let mut k = 0;
        if c.is_ascii_alphabetic() {
            k |= RUN | ALNUM | ALPHA;
        } else if c.is_ascii_digit() {
            k |= RUN | ALNUM | DIGIT;
        } else if c == b'_' {
            k |= RUN;
        }
        if matches!(c, b':' | b'.' | b'\'') {
            k |= MID_LETTER;
        }
        if matches!(c, b'.' | b',' | b';' | b'\'') {
            k |= MID_NUM;
        }
        t[b] = k;
        b += 1;
    }
    t
};

impl<'a> Iterator for AsciiWords<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let b = self.text.as_bytes();
        let class = |i: usize| b.get(i).map_or(0, |&c| WORD_CLASS[usize::from(c)]);
        let mut i = self.at;
        loop {
            while i < b.len() && class(i) & RUN == 0 {
                i += 1;
            }
            if i >= b.len() {
                self.at = i;
                return None;
            }
            let start = i;
            let mut seen = 0u8;
            loop {
                let mut k = class(i);
                while k & RUN != 0 {
                    seen |= k;
                    i += 1;
                    k = class(i);
                }
                // One joining byte between two letters or two digits.
                let (prev, next) = (class(i - 1), class(i + 1));
                let letters = prev & next & ALPHA != 0 && k & MID_LETTER != 0;
                let digits = prev & next & DIGIT != 0 && k & MID_NUM != 0;
                if !(letters || digits) {
                    break;
                }
                i += 1;
            }
            self.at = i;
            if seen & ALNUM != 0 {
                return self.text.get(start..i);
            }
        }
    }
}

/// Number of words in a text (see [`words`]).
pub fn word_count(text: &str) -> usize {
    words(text).count()
}

/// The words of a text as a reader counts them: white-space-separated
/// tokens holding at least one letter or digit. A timestamp (`14:32:05`), a
/// URL, a version (`v2.3.1`), a path or `numpy==1.26.4` is one word; a lone
/// dash or bullet is none. The labelling guide's word limits
/// (`concise_question`, `detail_question`) are counted this way; [`words`]
/// (UAX #29) splits such tokens into several words.
pub fn reader_words(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace()
        .filter(|t| t.chars().any(char::is_alphanumeric))
}

/// Number of words in a text as a reader counts them (see
/// [`reader_words`]).
pub fn reader_word_count(text: &str) -> usize {
    reader_words(text).count()
}

/// A span of a text: a sentence, a question or a code block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset one past the last character.
    pub end: usize,
    /// Whether the span is a fenced code block rather than prose.
    pub is_code: bool,
}

impl Segment {
    /// The segment's text within `source` (empty if the offsets do not fit).
    pub fn text<'a>(&self, source: &'a str) -> &'a str {
        source.get(self.start..self.end).unwrap_or("")
    }
}

/// Abbreviations (lower case, without their final dot) after which a dot
/// does not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "eg", "ie", "vs", "cf", "approx", "dr", "mr", "mrs", "ms", "prof", "fig", "figs",
    "eq", "eqs", "no", "nr", "sec", "st", "resp", "incl", "excl", "min", "max", "ca", "z.b", "d.h",
    "u.a", "bzw", "vgl", "evtl", "ggf", "usw", "p.ej", "ej", "aprox", "pag", "p", "pp", "vol",
    "ver", "al", "et al", "etc",
];

/// Weekday and month abbreviations (lower case, without their dot): like
/// "etc." they end a sentence only before a capital ("on 14 Oct. The
/// webinar ..."), not before a date or a comma ("Mon. 14 Oct., i.e.").
const DATE_ABBREVIATIONS: &[&str] = &[
    "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "jan", "feb", "mar",
    "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
];

fn is_terminator(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '…')
}

fn is_closer(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | ')' | ']' | '}' | '»' | '”' | '’' | '*' | '_'
    )
}

/// Whether the line starting at `rest` begins with a list marker
/// (`- `, `* `, `+ `, `• `, `1. `, `1) `, `a) `).
fn starts_list_item(rest: &str) -> bool {
    let t = rest.trim_start_matches([' ', '\t']);
    let mut chars = t.chars();
    match chars.next() {
        Some('-' | '*' | '+' | '•') => chars.next().is_some_and(char::is_whitespace),
        Some(c) if c.is_ascii_digit() || c.is_ascii_lowercase() => {
            let mut n = 1;
            let mut c2 = chars.next();
            while let Some(d) = c2 {
                if d.is_ascii_digit() && c.is_ascii_digit() && n < 3 {
                    n += 1;
                    c2 = chars.next();
                } else {
                    break;
                }
            }
            if c.is_ascii_lowercase() {
                return c2 == Some(')') && chars.next().is_some_and(char::is_whitespace);
            }
            matches!(c2, Some('.' | ')')) && chars.next().is_some_and(char::is_whitespace)
        }
        _ => false,
    }
}

/// [`ABBREVIATIONS`] and [`DATE_ABBREVIATIONS`] as sets, built once.
static ABBREVIATION_SET: LazyLock<WordSet> = LazyLock::new(|| WordSet::new(ABBREVIATIONS));
static DATE_ABBREVIATION_SET: LazyLock<WordSet> =
    LazyLock::new(|| WordSet::new(DATE_ABBREVIATIONS));

/// The word just before byte `dot` (exclusive), lower-cased, for the
/// abbreviation check (borrowed when it is lower case already).
fn word_before(text: &str, dot: usize) -> Cow<'_, str> {
    let head = &text[..dot];
    let start = head
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace() || matches!(c, '(' | '"' | '\'' | '[' | '`'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let word = &head[start..];
    if word
        .bytes()
        .any(|b| b.is_ascii_uppercase() || !b.is_ascii())
    {
        Cow::Owned(word.to_lowercase())
    } else {
        Cow::Borrowed(word)
    }
}

/// Unit abbreviations (lower case, without their dot) that are also
/// abbreviations or single letters: after a number they are units and their
/// dot may end a sentence ("takes 3.5 s.", "900 ms.", "5 min.").
const UNITS_AFTER_NUMBER: &[&str] = &["s", "ms", "min", "sec", "h", "m", "d", "g"];

/// Whether `word` (just before the dot at `dot`) is a unit after a number
/// ("takes 900 ms.", "3.5 s.", "5 min."), not an abbreviation such as "Ms.",
/// "min. 3 replicas" or an initial ("J. Smith").
fn is_unit_after_number(text: &str, dot: usize, word: &str) -> bool {
    if !UNITS_AFTER_NUMBER.contains(&word) {
        return false;
    }
    let Some(before) = text.get(..dot.saturating_sub(word.len())) else {
        return false;
    };
    let head = before.trim_end();
    head.len() < before.len()
        && head.rsplit(char::is_whitespace).next().is_some_and(|w| {
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
        })
}

/// Words that open a sentence and are no surname.
const SENTENCE_OPENERS: &[&str] = &[
    "the", "i", "we", "you", "it", "this", "that", "these", "those", "should", "shall", "can",
    "could", "would", "do", "does", "is", "are", "will", "may", "please", "let", "then", "also",
    "if", "when", "what", "which", "how", "why", "there", "here", "our", "my", "your", "they",
    "he", "she", "all", "both", "each", "want", "after", "before", "next",
];

/// Whether the dot after a capital letter that labels a thing ("gate B",
/// "plan B", "Appendix C") ends the sentence: the letter follows a
/// lower-case word and a sentence opener follows it ("... from gate B.
/// Should I ..."); "ask J. Smith" goes on.
fn letter_label_ends(text: &str, dot: usize) -> bool {
    let head = &text[..dot];
    let Some(letter) = head.chars().next_back() else {
        return false;
    };
    if !letter.is_uppercase() {
        return false;
    }
    let before = head[..head.len() - letter.len_utf8()].trim_end();
    if before.len() == head.len() - letter.len_utf8() {
        return false;
    }
    let labelled = before
        .rsplit(char::is_whitespace)
        .next()
        .is_some_and(|w| !w.is_empty() && w.chars().all(|c| c.is_lowercase()));
    let next = text[dot + 1..]
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric());
    labelled
        && next.starts_with(char::is_uppercase)
        && SENTENCE_OPENERS
            .iter()
            .any(|w| w.eq_ignore_ascii_case(next))
}

fn dot_ends_sentence(text: &str, dot: usize, next: Option<char>) -> bool {
    let word = word_before(text, dot);
    if word.is_empty() {
        return true;
    }
    // "1." opening a numbered list item.
    let head = text.as_bytes().get(..dot).unwrap_or_default();
    let line_start = memchr::memrchr(b'\n', head).map_or(0, |p| p + 1);
    let line = text.get(line_start..dot).unwrap_or("").trim();
    if !line.is_empty() && line.len() <= 3 && line.chars().all(|c| c.is_ascii_digit()) {
        return false;
    }
    // A unit after a number ("3.5 s.", "900 ms.") is no abbreviation.
    let unit = is_unit_after_number(text, dot, &word);
    // A single letter is an initial ("J. Smith") or an enumerator, unless
    // it labels a thing ("from gate B. Should I ...").
    let mut chars = word.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        if c.is_alphabetic() && !unit {
            return letter_label_ends(text, dot);
        }
    }
    // "2:30 p.m. UTC" goes on; "at 5 p.m. The next run" ends.
    if matches!(&*word, "a.m" | "p.m") {
        let next_word = text[dot + 1..]
            .trim_start()
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("");
        let all_caps = next_word.chars().count() >= 2 && next_word.chars().all(char::is_uppercase);
        return next.is_some_and(char::is_uppercase) && !all_caps;
    }
    if ABBREVIATION_SET.contains(&word) && !unit {
        return word == "etc" && next.is_some_and(char::is_uppercase);
    }
    if DATE_ABBREVIATION_SET.contains(&word) {
        return next.is_some_and(char::is_uppercase);
    }
    // The dot before a lower-case word is rarely a sentence end, unless a
    // whole word ends there ("on the payload. orjson was faster"): the
    // short unknown abbreviations ("approx.", "Inc.") are what it guards.
    !next.is_some_and(char::is_lowercase)
        || (word.chars().count() >= 5 && word.chars().all(char::is_alphabetic))
}

/// The double quotation open at the scanner's position, if it closes on
/// the same line: a quote mark without its closing mark on its line (an
/// inch mark, a typo) opens nothing.
#[derive(Debug, Default)]
struct Quotes {
    /// The closing mark of the open quotation.
    open: Option<char>,
    /// Per opening mark (`"`, `“`, `«`): the byte offset up to which a
    /// search for its closing mark already failed (the end of that line),
    /// so that a long line is searched once.
    failed: [usize; 3],
}

impl Quotes {
    /// Takes the character `c` that ends at byte `after` into account:
    /// returns whether it was a quotation mark.
    fn update(&mut self, text: &str, after: usize, c: char) -> bool {
        let (kind, closer) = match c {
            '"' => (0, '"'),
            '\u{201c}' => (1, '\u{201d}'),
            '\u{ab}' => (2, '\u{bb}'),
            '\u{201d}' | '\u{bb}' => {
                if self.open == Some(c) {
                    self.open = None;
                }
                return true;
            }
            _ => return false,
        };
        if self.open == Some(c) {
            self.open = None;
            return true;
        }
        if self.open.is_some() || after < self.failed[kind] {
            return true;
        }
        let rest = text.get(after..).unwrap_or("");
        match rest.find([closer, '\n']) {
            Some(at) if rest[at..].starts_with(closer) => self.open = Some(closer),
            Some(at) => self.failed[kind] = after + at,
            None => self.failed[kind] = text.len(),
        }
        true
    }
}

/// Splits a text into sentences.
///
/// A sentence ends at `.`, `!`, `?` (and their full-width forms, `…`)
/// followed by white space or the end of the text, after any closing quotes
/// or brackets. Dots after abbreviations (`e.g.`, `z.B.`), inside version
/// numbers (`3.11`), URLs and file names, any terminator inside inline
/// code (`` `a.b?` ``) and any terminator inside a double quotation that
/// closes later on its line (`"Continue? [y/N]"`) do not end a sentence; a
/// quotation closed right after its terminator ends one unless a lower-case
/// word follows (`asks "Sure?" before deleting`). After a number, `s`,
/// `ms`, `min`, `sec`, `h`, `m`, `d`, `g` are units and may end a sentence
/// (`takes 3.5 s.`). A blank line or a list item
/// starts a new sentence; a fenced code block (```` ``` ````) is returned as
/// one segment with `is_code` set.
pub fn split_sentences(text: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    // Fast path: one line with no inner terminator or code is one sentence.
    let body = text
        .trim_end()
        .trim_end_matches(|c: char| is_terminator(c) || is_closer(c));
    let bb = body.as_bytes();
    let inner_break = memchr::memchr3(b'.', b'!', b'?', bb).is_some()
        || memchr::memchr2(b'\n', b'`', bb).is_some()
        // Their UTF-8 lead bytes first: accented letters have none of them.
        || (memchr::memchr3(0xE2, 0xE3, 0xEF, bb).is_some()
            && body.contains(['。', '！', '？', '…']));
    if !inner_break {
        let start = text.len() - text.trim_start().len();
        let end = text.trim_end().len();
        if end > start {
            out.push(Segment {
                start,
                end,
                is_code: false,
            });
        }
        return out;
    }
    let mut start = 0usize;
    let mut in_code = false;
    let bytes_len = text.len();
    let push = |out: &mut Vec<Segment>, s: usize, e: usize, is_code: bool| {
        let seg = &text[s..e];
        let trimmed_start = s + (seg.len() - seg.trim_start().len());
        let trimmed_end = e - (seg.len() - seg.trim_end().len());
        if trimmed_end > trimmed_start {
            out.push(Segment {
                start: trimmed_start,
                end: trimmed_end,
                is_code,
            });
        }
    };
    let bytes = text.as_bytes();
    let mut i = 0usize;
    let mut line_start = true;
    let mut quotes = Quotes::default();
    while i < bytes_len {
        if line_start {
            line_start = false;
            let rest = &text[i..];
            let trimmed = rest.trim_start_matches([' ', '\t']);
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                // Fenced code block: runs to the closing fence line.
                push(&mut out, start, i, false);
                let fence = &trimmed[..3];
                let after_open = rest.find('\n').map_or(bytes_len, |n| i + n + 1);
                let mut end = bytes_len;
                let mut pos = after_open;
                while pos < bytes_len {
                    let line_end = text[pos..].find('\n').map_or(bytes_len, |n| pos + n);
                    if text[pos..line_end].trim_start().starts_with(fence) {
                        end = line_end;
                        break;
                    }
                    pos = line_end + 1;
                }
                push(&mut out, i, end, true);
                start = end;
                i = end;
                in_code = false;
                continue;
            }
            if i > start && starts_list_item(rest) && !in_code {
                push(&mut out, start, i, false);
                start = i;
            }
        }
        // Jump to the next byte that can matter: ASCII terminators, new
        // lines, backticks, or the lead byte of a non-ASCII terminator
        // (lead bytes are always character boundaries).
        let Some(off) = bytes[i..].iter().position(|b| {
            matches!(
                b,
                b'.' | b'!' | b'?' | b'\n' | b'`' | b'"' | 0xC2 | 0xE2 | 0xE3 | 0xEF
            )
        }) else {
            break;
        };
        let pos = i + off;
        let Some(c) = text[pos..].chars().next() else {
            break;
        };
        i = pos + c.len_utf8();
        if c == '`' {
            in_code = !in_code;
            continue;
        }
        if !in_code && quotes.update(text, i, c) {
            continue;
        }
        if c == '\n' {
            quotes.open = None;
            line_start = true;
            // A blank line ends the sentence (and any unclosed inline code).
            let rest = &text[i..];
            let blank = rest
                .split('\n')
                .next()
                .is_some_and(|l| l.trim().is_empty() && rest.contains('\n'));
            if blank {
                push(&mut out, start, pos, false);
                start = i;
                in_code = false;
            }
            continue;
        }
        if in_code || !is_terminator(c) {
            continue;
        }
        // Swallow runs of terminators and closers ("?!", ".)", "?\"").
        while let Some(d) = text[i..].chars().next() {
            if is_terminator(d) || is_closer(d) {
                i += d.len_utf8();
            } else {
                break;
            }
        }
        let end = i;
        // Inside a quotation that closes later on the line ("Continue?
        // [y/N]"), a terminator ends nothing; where the quotation closes
        // right after it, the sentence goes on before a lower-case word
        // (`asks "Are you sure?" before deleting`).
        let mut closed_quote = false;
        if let Some(closer) = quotes.open {
            if !text[pos..end].contains(closer) {
                continue;
            }
            quotes.open = None;
            closed_quote = true;
        }
        let next = text[end..].chars().next();
        if !next.is_none_or(char::is_whitespace) {
            continue;
        }
        let next_word = text[end..].trim_start().chars().next();
        if closed_quote && next_word.is_some_and(char::is_lowercase) {
            continue;
        }
        if c == '.' || c == '…' {
            let ends = if c == '.' && text[pos..end].starts_with("...") {
                // "2019, 2020, ... 2024": a list goes on.
                !next_word.is_some_and(|w| w.is_lowercase() || w.is_ascii_digit())
            } else if c == '.' {
                dot_ends_sentence(text, pos, next_word)
            } else {
                !next_word.is_some_and(|w| w.is_lowercase() || w.is_ascii_digit())
            };
            if !ends {
                continue;
            }
        }
        push(&mut out, start, end, false);
        start = end;
    }
    push(&mut out, start, bytes_len, false);
    out
}

/// Starts of direct requests that count as questions without a `?`
/// (already normalized: lower case, no accents).
const REQUEST_STARTS: &[&str] = &[
    "please confirm",
    "please let me know",
    "please tell me",
    "please advise",
    "please choose",
    "please select",
    "please pick",
    "please specify",
    "please clarify",
    "please provide",
    "please share",
    "please send",
    "please paste",
    "please check",
    "please decide",
    "please review",
    "let me know",
    "tell me which",
    "tell me what",
    "tell me whether",
    "tell me if",
    "confirm whether",
    "confirm that",
    "i need you to",
    "i'd need you to",
    "i would need you to",
    "could you please",
    "can you please",
    "por favor confirma",
    "por favor, confirma",
    "por favor indica",
    "por favor, indica",
    "por favor dime",
    "por favor, dime",
    "confirmame",
    "avisame",
    "dime si",
    "dime que",
    "dime cual",
    "indicame",
    "hazme saber",
    "bitte bestatige",
    "bitte bestatigen",
    "bitte gib",
    "bitte sag",
    "bitte teile",
    "bitte schick",
    "bitte prufe",
    "lass mich wissen",
    "sag mir",
    "gib mir bescheid",
    "teile mir mit",
];

/// Whether a sentence reads as a question: it ends in `?`/`？` (before
/// closing quotes or brackets), opens with `¿`, or is a direct request such
/// as "please confirm ...", "let me know which ...", "avísame ...", "bitte
/// bestätige ...". A `?` that closes a double quotation ending the
/// sentence (`The installer asks "Overwrite?"`) belongs to the quotation:
/// the sentence is a question only if the text before the quotation opens
/// with an interrogative word ("Should I answer ...") or is a request.
pub fn is_question(sentence: &str) -> bool {
    let t = sentence.trim();
    let core = t.trim_end_matches(|c: char| is_closer(c) || c == '.' || c == '!' || c == ':');
    if t.starts_with('¿') {
        return true;
    }
    if core.ends_with('?') || core.ends_with('？') {
        // `The installer asks "Overwrite?"`: the mark belongs to the
        // quotation; the sentence around it must ask by itself.
        return match quotation_before(core, &t[core.len()..]) {
            Some(outside) => opens_interrogative(outside) || is_request(outside),
            None => true,
        };
    }
    is_request(t)
}

/// When `tail` (what follows a final `?`) starts with a closing double
/// quotation mark whose opening mark is in `core`: the text before that
/// opening mark.
fn quotation_before<'a>(core: &'a str, tail: &str) -> Option<&'a str> {
    let opener = match tail.chars().next()? {
        '"' => '"',
        '\u{201d}' => '\u{201c}',
        '\u{bb}' => '\u{ab}',
        _ => return None,
    };
    core.rfind(opener).map(|at| &core[..at])
}

/// Words that open a direct question (lower case).
const INTERROGATIVE_OPENERS: &[&str] = &[
    "what", "which", "who", "whom", "whose", "where", "when", "why", "how", "should", "shall",
    "do", "does", "did", "is", "are", "was", "were", "am", "can", "could", "would", "will", "may",
    "might", "must", "have", "has",
];

/// Whether `text` opens with an interrogative word ("Should I answer ...").
fn opens_interrogative(text: &str) -> bool {
    let first = text
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("");
    INTERROGATIVE_OPENERS
        .iter()
        .any(|w| w.eq_ignore_ascii_case(first))
}

/// Whether a sentence is a direct request ("please confirm ...", "let me
/// know ...", "avísame ...") that counts as a question without a `?`.
fn is_request(t: &str) -> bool {
    let head_end = t.char_indices().nth(40).map_or(t.len(), |(i, _)| i);
    let raw = t[..head_end].trim_start_matches(['-', '*', '+', '•', ' ', '>']);
    let starts = |head: &str| {
        let head = head.trim_start_matches(|c: char| !c.is_alphanumeric());
        let head = ["ok, ", "also, ", "and "]
            .iter()
            .find_map(|lead| strip_prefix_ignore_ascii_case(head, lead))
            .unwrap_or(head);
        // Only the starts sharing the first letter can match (they are
        // all lower-case ASCII).
        let Some(first) = head.bytes().next().map(|b| b.to_ascii_lowercase()) else {
            return false;
        };
        REQUEST_STARTS.iter().any(|p| {
            p.as_bytes().first() == Some(&first)
                && strip_prefix_ignore_ascii_case(head, p).is_some()
        })
    };
    if raw.is_ascii() {
        // No allocation on the common path.
        starts(raw)
    } else {
        starts(&normalize(raw))
    }
}

/// `s` without `prefix`, compared ignoring ASCII case.
fn strip_prefix_ignore_ascii_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// Extracts the questions of a whole agent message.
///
/// Questions are the prose sentences that [`is_question`] accepts. When a
/// question is followed directly by a list (the options it offers), the list
/// is kept with the question so that a classifier sees the options. Code
/// blocks are never questions.
pub fn extract_questions(message: &str) -> Vec<Segment> {
    // The questions are compacted into the sentences' own vector: the
    // write index never passes the read index.
    let mut sentences = split_sentences(message);
    let mut written = 0usize;
    let mut i = 0;
    while i < sentences.len() {
        let s = sentences[i];
        i += 1;
        if s.is_code || !is_question(s.text(message)) {
            continue;
        }
        let mut q = s;
        let own_text = s.text(message);
        let opens_list = !starts_list_item(own_text);
        if opens_list {
            while i < sentences.len()
                && !sentences[i].is_code
                && starts_list_item(sentences[i].text(message))
                && !is_question(sentences[i].text(message))
            {
                q.end = sentences[i].end;
                i += 1;
            }
        }
        // "Ship it? Or wait for QA?": an alternative continues the question.
        let continues = written > 0 && {
            let head = q.text(message).trim_start().as_bytes();
            let starts = |w: &[u8]| head.len() > w.len() && head[..w.len()].eq_ignore_ascii_case(w);
            starts(b"or ") || starts(b"o ") || starts(b"oder ")
        };
        match written.checked_sub(1).and_then(|p| sentences.get_mut(p)) {
            Some(prev)
                if continues
                    && message
                        .get(prev.end..q.start)
                        .is_some_and(|gap| gap.trim().is_empty()) =>
            {
                prev.end = q.end;
            }
            _ => {
                if let Some(slot) = sentences.get_mut(written) {
                    *slot = q;
                }
                written += 1;
            }
        }
    }
    sentences.truncate(written);
    sentences
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_words_follow_uax29() {
        for t in [
            "e.g. 3.11, don't a:b a.b.c a..b 1,000.5 x1.y 1.a a.1 __init__ _ __ a_.b",
            "foo_bar _x x_ 1;2 1'2 a'b a;b a,b 1:2 .5 5. 'a' \"q\" a-b",
            "",
            "...",
            "  v2.3.1 numpy==1.26.4 14:32:05 https://x.io/a_b?c=1",
        ] {
            let fast: Vec<&str> = words(t).collect();
            let uax: Vec<&str> = t.unicode_words().collect();
            assert_eq!(fast, uax, "{t:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn ascii_words_agree_with_unicode_words(t in "[abZ19_.,;:'\" \n\t!?()/=-]{0,40}") {
            let fast: Vec<&str> = words(&t).collect();
            let uax: Vec<&str> = t.unicode_words().collect();
            proptest::prop_assert_eq!(fast, uax);
        }

        #[test]
        fn the_latin_path_agrees_with_the_general_one(
            t in "[aZ9 .?\t\n\u{b}\u{c}\r\u{85}\u{a0}\u{2028}\u{3000}ÀéÑßü¿§…—“’µ²ŁΩ\u{301}]{0,30}"
        ) {
            let general = normalize_general(&t, String::new());
            if let Some(latin) = normalize_latin(&t, String::new()) {
                proptest::prop_assert_eq!(&latin, &general);
            }
            proptest::prop_assert_eq!(normalize(&t), general);
        }

        #[test]
        fn the_ascii_path_agrees_with_the_general_one(t in "[aZ9 .?\t\n\u{1}\u{b}\u{c}\r]{0,20}") {
            proptest::prop_assert_eq!(normalize(&t), normalize_general(&t, String::new()));
        }

        #[test]
        fn words_with_signs_agree_with_unicode_words(
            t in "[ab19_.,:' ¡¿§°¶×÷±¢£¥€©®«»“”„–—•…←→≤≥]{0,30}"
        ) {
            proptest::prop_assume!(t.chars().all(|c| c.is_ascii() || breaks_words(c)));
            let fast: Vec<&str> = words(&t).collect();
            let uax: Vec<&str> = t.unicode_words().collect();
            proptest::prop_assert_eq!(fast, uax);
        }
    }

    #[test]
    fn signs_split_words_as_unicode_does() {
        let mut checked = 0;
        for c in (0x80u32..0x2300).filter_map(char::from_u32) {
            if !breaks_words(c) {
                continue;
            }
            checked += 1;
            assert!(!c.is_alphanumeric(), "{c:?}");
            for t in [
                format!("a{c}b"),
                format!("1{c}2"),
                format!("a.{c}b a:{c} 1,{c}2 x'{c}"),
                format!("{c}Ab_{c} {c}{c}"),
                format!("a{c}.b 1{c},2 a_{c}_b"),
            ] {
                let fast: Vec<&str> = words(&t).collect();
                let uax: Vec<&str> = t.unicode_words().collect();
                assert_eq!(fast, uax, "{c:?} in {t:?}");
            }
        }
        assert_eq!(checked, 27);
    }

    #[test]
    fn the_latin_fast_path_matches_the_general_one() {
        let mut checked = 0;
        for c in (0x80u32..0x2300).filter_map(char::from_u32) {
            if fold_latin(c).is_none() {
                continue;
            }
            checked += 1;
            for t in [
                format!("{c}"),
                format!("Ab {c}Cd  x\u{a0}{c}?"),
                format!(" {c} "),
            ] {
                assert_eq!(
                    normalize_latin(&t, String::new()),
                    Some(normalize_general(&t, String::new())),
                    "{c:?} in {t:?}"
                );
            }
        }
        assert!(checked > 60);
        assert_eq!(normalize("¿Qué Tamaño?  Straße"), "¿que tamano? strasse");
    }

    #[test]
    fn times_full_words_and_elided_lists() {
        assert_eq!(
            sents("Is 2:30 p.m. UTC fine? Yes."),
            ["Is 2:30 p.m. UTC fine?", "Yes."]
        );
        assert_eq!(
            sents("We meet at 5 p.m. The room is booked."),
            ["We meet at 5 p.m.", "The room is booked."]
        );
        assert_eq!(
            sents("I timed the payload. orjson was faster."),
            ["I timed the payload.", "orjson was faster."]
        );
        assert_eq!(
            sents("It reads 2019, 2020, ... 2024 in order."),
            ["It reads 2019, 2020, ... 2024 in order."]
        );
    }

    fn sents(t: &str) -> Vec<&str> {
        split_sentences(t).iter().map(|s| s.text(t)).collect()
    }

    #[test]
    fn normalize_folds_case_accents_quotes_and_space() {
        assert_eq!(normalize("  ¿Cuál   prefieres?\n"), "¿cual prefieres?");
        assert_eq!(normalize("Größe “Über”"), "grosse \"uber\"");
        assert_eq!(normalize("It’s FINE"), "it's fine");
        assert_eq!(normalize(""), "");
    }

    #[test]
    fn words_keep_abbreviations_and_versions_whole() {
        assert_eq!(word_count("Use Python 3.11, e.g. with uv?"), 6);
        assert_eq!(word_count("   "), 0);
        assert_eq!(word_count("¿Qué versión de Node usas?"), 5);
    }

    #[test]
    fn sentences_survive_abbreviations_versions_urls_and_code() {
        assert_eq!(
            sents("Use a tool, e.g. ruff. Then run it."),
            ["Use a tool, e.g. ruff.", "Then run it."]
        );
        assert_eq!(
            sents("We need Python 3.11 here. Is that ok?"),
            ["We need Python 3.11 here.", "Is that ok?"]
        );
        assert_eq!(
            sents("See https://example.com/a.b?x=1 for details. Done!"),
            ["See https://example.com/a.b?x=1 for details.", "Done!"]
        );
        assert_eq!(
            sents("Call `foo. bar?` now. Ok?"),
            ["Call `foo. bar?` now.", "Ok?"]
        );
        assert_eq!(
            sents("Wie z.B. hier. Und dann?"),
            ["Wie z.B. hier.", "Und dann?"]
        );
        assert_eq!(
            sents("It takes 900 ms. Want the PR? Ask Ms. Lee."),
            ["It takes 900 ms.", "Want the PR?", "Ask Ms. Lee."]
        );
        assert_eq!(
            sents("He said \"stop.\" Then left."),
            ["He said \"stop.\"", "Then left."]
        );
        assert_eq!(
            sents("Send it Mon. 14 Oct., i.e. tomorrow? It ships on 3 Dec. The rest waits."),
            [
                "Send it Mon. 14 Oct., i.e. tomorrow?",
                "It ships on 3 Dec.",
                "The rest waits."
            ]
        );
        assert_eq!(
            sents("Park at gate B. Should I book it? Ask J. Smith first."),
            [
                "Park at gate B.",
                "Should I book it?",
                "Ask J. Smith first."
            ]
        );
    }

    #[test]
    fn reader_words_are_white_space_tokens() {
        let t = "Did the 14:32:05 run pull v2.3.1 from https://x.io/a/b?q=1 — yes?";
        assert_eq!(reader_word_count(t), 9);
        assert!(word_count(t) > reader_word_count(t));
        assert_eq!(reader_word_count("e.g. numpy==1.26.4 - * src/api/v2/"), 3);
        assert_eq!(reader_word_count("  \n\t "), 0);
        assert_eq!(reader_word_count("¿Qué versión de Node usas?"), 5);
    }

    #[test]
    fn units_after_numbers_end_sentences() {
        assert_eq!(
            sents("The cold start takes 3.5 s. That is slow. Cache it?"),
            ["The cold start takes 3.5 s.", "That is slow.", "Cache it?"]
        );
        assert_eq!(
            sents("Each retry waits 2 h. Shorten it?"),
            ["Each retry waits 2 h.", "Shorten it?"]
        );
        // Not a unit: an initial, an abbreviation before a number, a unit
        // before a lower-case word.
        assert_eq!(
            sents("Ask J. Smith. Use min. 3 replicas. A 5 s. timeout is fine."),
            [
                "Ask J. Smith.",
                "Use min. 3 replicas.",
                "A 5 s. timeout is fine."
            ]
        );
        assert_eq!(sents("Ask Mr. S. Lee now."), ["Ask Mr. S. Lee now."]);
    }

    #[test]
    fn terminators_inside_quotations_do_not_end_sentences() {
        assert_eq!(
            sents("The CLI prints \"Continue? [y/N]\" and waits. Pass --yes?"),
            [
                "The CLI prints \"Continue? [y/N]\" and waits.",
                "Pass --yes?"
            ]
        );
        assert_eq!(
            sents("It asks \u{201c}Are you sure?\u{201d} before deleting. Ok?"),
            [
                "It asks \u{201c}Are you sure?\u{201d} before deleting.",
                "Ok?"
            ]
        );
        assert_eq!(
            sents("It asks \"Tag this commit?\" Do you want a tag?"),
            ["It asks \"Tag this commit?\"", "Do you want a tag?"]
        );
        // An inch mark opens no quotation: the sentence still ends.
        assert_eq!(
            sents("The screen is 13\" wide. Is that enough? Yes."),
            ["The screen is 13\" wide.", "Is that enough?", "Yes."]
        );
        // A quotation stops at the end of its line.
        assert_eq!(
            sents("He said \"wait.\nStop. Ok."),
            ["He said \"wait.", "Stop.", "Ok."]
        );
    }

    #[test]
    fn a_quoted_question_mark_is_not_the_sentences() {
        assert!(!is_question(
            "The installer asks \"Overwrite existing config?\""
        ));
        assert!(!is_question("It prints \u{ab}Continuer ?\u{bb}"));
        assert!(is_question("Should I answer yes to \"Overwrite?\""));
        assert!(is_question("Did you see the \"Continue?\" prompt?"));
        assert!(is_question("Should I answer \"yes\" or \"no\"?"));
        assert!(is_question("Continue?\""));
        let m = "The installer asks \"Overwrite?\" on every run. Should I answer it?";
        assert_eq!(extract_questions(m).len(), 1);
    }

    #[test]
    fn fenced_code_is_one_segment() {
        let t = "Here:\n```rust\nfn a() { b(); }\n// why? no.\n```\nShould I keep it?";
        let segs = split_sentences(t);
        assert_eq!(segs.len(), 3);
        assert!(segs[1].is_code);
        assert_eq!(segs[2].text(t), "Should I keep it?");
    }

    #[test]
    fn blank_lines_and_list_items_split() {
        assert_eq!(
            sents("Intro line\n\nNext part"),
            ["Intro line", "Next part"]
        );
        assert_eq!(sents("Options:\n- A\n- B"), ["Options:", "- A", "- B"]);
    }

    #[test]
    fn questions_include_requests_and_trailing_option_lists() {
        let m = "I looked at the repo. Which approach do you prefer?\n1. Rewrite\n2. Patch\n\nLet me know if the port is 8080.";
        let qs: Vec<&str> = extract_questions(m).iter().map(|q| q.text(m)).collect();
        assert_eq!(
            qs,
            [
                "Which approach do you prefer?\n1. Rewrite\n2. Patch",
                "Let me know if the port is 8080."
            ]
        );
        let alt = "Done. Ship it? Or wait for QA?";
        let qs: Vec<&str> = extract_questions(alt).iter().map(|q| q.text(alt)).collect();
        assert_eq!(qs, ["Ship it? Or wait for QA?"]);
        let es = "Revisé el código. ¿Quieres que lo borre? Avísame cuando puedas.";
        assert_eq!(extract_questions(es).len(), 2);
        let de = "Bitte bestätige den Pfad. Danke.";
        assert_eq!(extract_questions(de).len(), 1);
        assert!(extract_questions("No questions here. None at all.").is_empty());
        assert!(extract_questions("```\nwhat?\n```").is_empty());
    }

    #[test]
    fn offsets_are_char_boundaries_for_odd_input() {
        for t in [
            "",
            "?",
            "...",
            "é?é.",
            "`",
            "```",
            "a\n\n\n?",
            "1.\n2.",
            "¿",
            "🙂? 🙂.",
            "\"",
            "\u{201c}?",
            "\u{ab}a? \u{bb}\u{201d}\"?\"\n\"",
            "«»“”\"?",
        ] {
            for s in split_sentences(t) {
                assert!(t.is_char_boundary(s.start) && t.is_char_boundary(s.end));
                let _ = s.text(t);
            }
            let _ = extract_questions(t);
        }
    }
}
