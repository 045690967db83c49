//! Sentence splitting: [`Segment`] and [`split_sentences`] (abbreviations,
//! units after numbers, quotations, inline and fenced code, list items).

use std::borrow::Cow;
use std::sync::LazyLock;

use crate::WordSet;

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

pub(super) fn is_closer(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | ')' | ']' | '}' | '»' | '”' | '’' | '*' | '_'
    )
}

/// Whether the line starting at `rest` is a heading: a Markdown ATX
/// heading (`# ` to `###### `) or a line that is bold as a whole
/// (`**Next steps**`, `__Questions__`).
pub(super) fn starts_heading(rest: &str) -> bool {
    let t = rest.trim_start_matches([' ', '\t']);
    let hashes = t.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&hashes) && t[hashes..].starts_with([' ', '\t']) {
        return true;
    }
    let line = t.split('\n').next().unwrap_or("").trim_end();
    ["**", "__"].iter().any(|m| {
        line.len() > 2 * m.len()
            && line.starts_with(m)
            && line.ends_with(m)
            && !line[m.len()..line.len() - m.len()].contains(m)
    })
}

/// Whether the line starting at `rest` begins with a list marker
/// (`- `, `* `, `+ `, `• `, `1. `, `1) `, `a) `).
pub(super) fn starts_list_item(rest: &str) -> bool {
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

/// Where the unfenced code starting at the line `text[at..]` ends (the
/// end of its last line), or `None` when the line is prose: a `<source>`
/// block (to its `</source>`, or the end of the text), the model's
/// reasoning in `<think>`, `<thinking>` or `<thinking-content-…>` (to its
/// closing tag), a diff (from a
/// `diff --git`, `--- a/` or `@@ -` line to the first line that is no
/// diff line), a file tree (`├──`, `└──`, `│` lines) or a run of lines
/// that read as code ([`is_code_line`]). Each line is read once.
fn unfenced_code_end(text: &str, at: usize) -> Option<usize> {
    let line_end = |pos: usize| text[pos..].find('\n').map_or(text.len(), |n| pos + n);
    let first = text[at..line_end(at)].trim_start_matches([' ', '\t']);
    // A run of lines each passing `keep`, from `at`: the end of the last.
    let run = |keep: &dyn Fn(&str) -> bool| {
        let mut end = line_end(at);
        while end < text.len() {
            let next = end + 1;
            let next_end = line_end(next);
            if !keep(&text[next..next_end]) {
                break;
            }
            end = next_end;
        }
        end
    };
    // The model's reasoning (`<think>`, `<thinking>`, Aider's
    // `<thinking-content-…>`) is not addressed to the user: read as code.
    for (open, close) in [
        ("<thinking-content", "</thinking-content"),
        ("<thinking>", "</thinking>"),
        ("<think>", "</think>"),
    ] {
        if first.starts_with(open) {
            return Some(
                text[at..]
                    .find(close)
                    .map_or(text.len(), |n| line_end(at + n)),
            );
        }
    }
    if first.starts_with("<source") {
        return Some(
            text[at..]
                .find("</source>")
                .map_or(text.len(), |n| line_end(at + n)),
        );
    }
    if first.starts_with("diff --git ") || first.starts_with("--- a/") || first.starts_with("@@ -")
    {
        return Some(run(&|l: &str| {
            let l = l.trim_start_matches([' ', '\t']);
            !l.is_empty()
                && (l.starts_with(['+', '-', ' ', '@', '\\'])
                    || l.starts_with("diff ")
                    || l.starts_with("index "))
        }));
    }
    // A Markdown table's rows are cells, not sentences.
    let row = |l: &str| l.starts_with('|') && l[1..].contains('|');
    if row(first) {
        return Some(run(&|l: &str| row(l.trim_start_matches([' ', '\t']))));
    }
    let tree = |l: &str| l.contains("├──") || l.contains("└──") || l.starts_with('│');
    if tree(first) {
        return Some(run(&|l: &str| {
            let l = l.trim_start_matches([' ', '\t']);
            tree(l) || is_path_line(l)
        }));
    }
    // Code goes on over its indented lines (`  a : b;` after `const p =
    // c ?`).
    is_code_line(first).then(|| {
        run(&|l: &str| {
            let t = l.trim_start_matches([' ', '\t']);
            is_code_line(t) || is_path_line(t) || (t.len() < l.len() && !t.trim().is_empty())
        })
    })
}

/// Whether a line (without its indentation) is a file path alone
/// (`src/app/page.tsx`, `./run.sh`): no space, a `/`, and no `?`.
fn is_path_line(l: &str) -> bool {
    let l = l.trim_end();
    !l.is_empty() && l.contains('/') && !l.contains([' ', '\t', '?']) && !l.contains("://")
}

/// Whether a line (without its indentation) reads as source code rather
/// than prose: a declaration (`const p = ...`, `let x: u8 = 1;`, `def
/// f(`, `fn f(`, `function f(`), an import (`import x from "y";`, `from x
/// import y`, `use a::b;`, `#include <x>`), a control statement (`if (`,
/// `for (`, `} else {`), a line of closing brackets (`});`), or a line
/// ending in `{`, or in `;` after a call or an assignment. Prose never
/// opens with a lower-case keyword followed by an identifier and `=` or
/// `(`, so a wrapped sentence ("let the user choose") stays prose.
pub(super) fn is_code_line(l: &str) -> bool {
    let l = l.trim_end();
    let Some(&first) = l.as_bytes().first() else {
        return false;
    };
    // Most prose lines open with a capital, a digit or a list marker.
    if first.is_ascii_uppercase() {
        return l.ends_with(" {") && l.contains('(');
    }
    if l.bytes().all(|b| b"{}()[];,".contains(&b)) {
        return true;
    }
    // What follows the identifier (letters, digits, `_`, `$`) `s` opens
    // with, if it opens with one.
    fn after_ident(s: &str) -> Option<&str> {
        let n = s
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$')
            .count();
        (n > 0).then(|| &s[n..])
    }
    for kw in ["const ", "let ", "var ", "let mut "] {
        if let Some(rest) = l.strip_prefix(kw) {
            let rest = rest.strip_prefix("mut ").unwrap_or(rest);
            if let Some(after) = after_ident(rest) {
                let after = after.trim_start();
                if after.starts_with(['=', ':', ';']) {
                    return true;
                }
            }
        }
    }
    for kw in [
        "def ",
        "fn ",
        "pub fn ",
        "func ",
        "function ",
        "async function ",
        "async def ",
    ] {
        if let Some(rest) = l.strip_prefix(kw) {
            if after_ident(rest).is_some_and(|a| a.starts_with(['(', '<'])) {
                return true;
            }
        }
    }
    if let Some(rest) = l.strip_prefix("from ") {
        // `from a.b import c`: a dotted module name, then `import`.
        let module =
            rest.trim_start_matches(|c: char| c == '.' || c == '_' || c.is_ascii_alphanumeric());
        if module.len() < rest.len() && module.starts_with(" import ") {
            return true;
        }
    }
    if (l.starts_with("import ")
        && (l.ends_with(';') || l.contains(" from \"") || l.contains(" from '")))
        || (l.starts_with("use ") && l.contains("::") && l.ends_with(';'))
        || l.starts_with("#include <")
        || l.starts_with("#include \"")
    {
        return true;
    }
    for kw in [
        "if (", "for (", "while (", "switch (", "} else", "catch (", "try {", "} catch",
    ] {
        if l.starts_with(kw) {
            return true;
        }
    }
    if l.ends_with('{') && (l.contains('(') || l.contains('=')) {
        return true;
    }
    if l.ends_with(';') {
        // A call (`foo(` with no space before its bracket) or an assignment.
        let call = l
            .match_indices('(')
            .any(|(at, _)| l[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_'));
        return call || l.contains(" = ");
    }
    false
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

/// Whether the dot at byte `dot` ends a sentence; `line_start` is the byte
/// offset where the dot's line starts (tracked by the scanner: searching
/// back for it at every dot made one long line quadratic).
fn dot_ends_sentence(text: &str, dot: usize, line_start: usize, next: Option<char>) -> bool {
    let word = word_before(text, dot);
    if word.is_empty() {
        return true;
    }
    // "1." opening a numbered list item: at most 3 digits after white
    // space alone on the line (only the word is read, then the white space
    // before it, never the whole line).
    if word.len() <= 3 && word.bytes().all(|b| b.is_ascii_digit()) {
        let head = text.get(line_start..dot - word.len()).unwrap_or("");
        if head.trim().is_empty() {
            return false;
        }
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
    // The byte offset where the scanner's current line starts.
    let mut line_begin = 0usize;
    // Whether the scanner's line is a heading (its own segment).
    let mut in_heading = false;
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
            // Unfenced code: a `<source>` block, a diff, a file tree or
            // lines that read as code are code, not prose.
            if !in_code {
                if let Some(end) = unfenced_code_end(text, i) {
                    push(&mut out, start, i, false);
                    push(&mut out, i, end, true);
                    start = end;
                    i = end;
                    line_begin = end;
                    continue;
                }
            }
            let heading = !in_code && starts_heading(rest);
            if i > start && (heading || starts_list_item(rest)) && !in_code {
                push(&mut out, start, i, false);
                start = i;
            }
            in_heading = heading;
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
            // A heading line, and a line ending in a colon ("Questions for
            // you:"), end the sentence at the line's end.
            let line = text.get(line_begin..pos).unwrap_or("");
            line_begin = i;
            if (in_heading || line.trim_end().ends_with(':')) && !in_code {
                push(&mut out, start, pos, false);
                start = i;
                in_heading = false;
                continue;
            }
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
                dot_ends_sentence(text, pos, line_begin, next_word)
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn fenced_code_is_one_segment() {
        let t = "Here:\n```rust\nfn a() { b(); }\n// why? no.\n```\nShould I keep it?";
        let segs = split_sentences(t);
        assert_eq!(segs.len(), 3);
        assert!(segs[1].is_code);
        assert_eq!(segs[2].text(t), "Should I keep it?");
    }

    #[test]
    fn unfenced_code_is_code() {
        let code = |t: &str| {
            split_sentences(t)
                .into_iter()
                .filter(|s| s.is_code)
                .map(|s| s.text(t).to_owned())
                .collect::<Vec<_>>()
        };
        // A ternary's `?` in unfenced code, a `<source>` block, a diff
        // and a file tree are code.
        let t = "Change it:\nconst p = path.startsWith(\"/\") ?\n  a : b;\nShould I?";
        assert_eq!(code(t), ["const p = path.startsWith(\"/\") ?\n  a : b;"]);
        let t = "Here:\n<source lang=\"js\">\nwhy? x\n</source>\nOk?";
        assert_eq!(code(t), ["<source lang=\"js\">\nwhy? x\n</source>"]);
        let t = "The patch:\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n\nApply it?";
        assert_eq!(code(t).len(), 1);
        assert_eq!(sents(t).last().copied(), Some("Apply it?"));
        let t = "Layout:\nsrc/\n├── main.rs\n└── lib.rs\nKeep it?";
        assert_eq!(code(t), ["├── main.rs\n└── lib.rs"]);
        // Wrapped prose that opens with a keyword stays prose.
        for prose in [
            "I can\nlet the user choose (a or b).",
            "Fetched it\nfrom the API import step.",
            "We\nreturn early; then stop.",
            "Then\nif (you agree) I go on.",
        ] {
            assert!(code(prose).is_empty() || prose.contains("if ("), "{prose}");
        }
        for line in [
            "let x: u8 = 1;",
            "def f(a):",
            "fn main() {",
            "from a.b import c",
            "import x from \"y\";",
            "use std::io;",
            "});",
            "foo(bar);",
            "#include <stdio.h>",
        ] {
            assert!(is_code_line(line), "{line}");
        }
        for line in [
            "let me check it",
            "from here on",
            "Done.",
            "return it to me",
            "x",
        ] {
            assert!(!is_code_line(line), "{line}");
        }
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
    fn headings_and_lines_ending_in_a_colon_end_sentences() {
        assert_eq!(
            sents("## Next steps\nWhich port should I use?"),
            ["## Next steps", "Which port should I use?"]
        );
        assert_eq!(
            sents("Done.\n**Questions**\nWhich port?"),
            ["Done.", "**Questions**", "Which port?"]
        );
        assert_eq!(
            sents("Questions for you:\nWhich port should I use?"),
            ["Questions for you:", "Which port should I use?"]
        );
        // `#` without a space, and bold inside a line, are prose.
        assert_eq!(sents("#1 is done\nnext"), ["#1 is done\nnext"]);
        assert_eq!(
            sents("**Note** the port\nis fixed."),
            ["**Note** the port\nis fixed."]
        );
    }
}
