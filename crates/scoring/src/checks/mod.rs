//! The ten text-level preference checkers of the labelling guide
//! (`preferences` task), each a deterministic rule on one agent message.
//!
//! | name | violated when |
//! | --- | --- |
//! | `concise_question` | more than one sentence (a code block counts as one; an unpunctuated list item or heading line and an emoji alone do not), or more than 20 words |
//! | `detail_question` | under 25 words, or no sentence besides the question(s) |
//! | `do_selection` | no options are offered: a list or table of 2+ items counts when the line before it asks or selects ("Which one?", "Options:", "Pick one:") or the question after it selects ("Which row ...?"), a code block of 2+ lines when a choice request or a which-question precedes it; a list followed by "let me know your pick"; `(a) (b)` / `Option 1 Option 2`; `X or Y` in a question or choice request (not `or so`, `or not`, `or later`..., not examples after "such as"/"e.g."/"like"/"something like", not an alternative in a statement clause before the question ("due on the 1st or the next business day, so which account ...?"), not a hedged or stated quantity such as "10 or 11 minutes"), or in a statement followed by a selection question ("Which do you prefer?"); `A/B/C` or `A / B / C` in the prose, `A/B` closing or opening a question (paths such as `src/api/v2/`, URLs and inline code are not options); `X vs Y` between things, not figures; "choose between" |
//! | `one_question` | two or more questions: question sentences, plus questions joined inside one by `and`/`also` + an interrogative, also elliptical ones (`..., and which ...?`, `... and whether ...`, `..., and in what format?`, `..., and if so ...`); a `?` in inline code, a URL or a quoted prompt (`"Continue? [y/N]"`, `'Can we ship?'`) asks nothing, nor does a question the agent answers itself (`...? Because ...`, a why-question followed by a statement) or a rhetorical one ("Who doesn't ...", "Ever wondered ..."); asks without `?` count ("What's the audience.", "Tell me X and whether Y", "Send me ...", "I also need to know ...", "Please also tell me ...", "Let me know X and the Y"), and so does a full `...? Or would you ...?` |
//! | `lang_ita` | the prose (code and URLs left out) is not identified as Italian by `whatlang` (an unsure verdict asked again among the Romance languages, then Western European ones), or one of its sentences of 3+ words (double quotations left out) reads as English with confidence 0.5 or more between Italian and English, or one of its clauses is an English greeting or opener ("Hi", "Quick question") or has two English function words and no Italian one; a message of 4 words or fewer with a word only Italian writes ("Procedo?") is Italian |
//! | `capital` | any lowercase letter (code included), or capitals in another language than English (whatlang when reliable, else function words) |
//! | `commas` | any comma: `,` `，` `﹐` `﹑` `、` `،` |
//! | `json` | the whole message (surrounding white space allowed) is not one JSON value |
//! | `snippet` | fewer than 3 quoted lines (fenced code, indented code after a blank line or a line ending in `:`, `>` quotes, lines that are one inline code span) or no file path (a line range such as `:40-52` or `#L10` allowed) or URL named; a list or quotation right after a line naming a source that says, states or reads it counts as quoted |
//! | `length` | not exactly 3 sentences (code blocks, unpunctuated list items and headings, and emoji alone are not sentences) |
//!
//! Sentences come from `tact-core` (`split_sentences`): abbreviations
//! (`e.g.`, `Dr.`), version numbers (`3.11`), URLs, inline code and
//! terminators inside a quotation do not end a sentence; a unit after a
//! number (`3.5 s.`) may. Words are counted as a reader counts them
//! (`reader_word_count`: white-space-separated tokens with a letter or
//! digit), so a timestamp, a URL or a version is one word.
//!
//! The guide's `one_question` reads "ask exactly one question": a compound
//! question in one sentence ("Which columns should I include, and in what
//! format?") asks two things and violates it, as the train split labels
//! every `..., and which ...?` (while `concise_question` sees one sentence).
//! Alternatives joined by `or` ("by region or by product line?") are one
//! question offering options.

mod format;
mod language;
mod paths;
mod questions;
mod selection;
mod snippet;

use std::sync::OnceLock;

use regex::Regex;

use crate::Error;
use crate::preference::{CheckKind, Preference};
use crate::violation::Violation;
use format::{commas, json, length};
use paths::is_path;

/// Compiled patterns of the text-level checkers. Build once, share: checks
/// take `&self`.
#[derive(Debug, Clone)]
pub struct TextChecker {
    url: Regex,
    extra_question: Regex,
    alternative: Regex,
    romance_or: Regex,
    list_item: Regex,
    enumerator: Regex,
    option_label: Regex,
    slash_list: Regex,
    versus: Regex,
    path_comment: Regex,
    ita_eng: whatlang::Detector,
    romance: whatlang::Detector,
    nearby: whatlang::Detector,
}

/// The languages asked again when a first identification is unreliable
/// and not English: Italian and the Romance languages it is mistaken for.
const ROMANCE_LANGUAGES: &[whatlang::Lang] = &[
    whatlang::Lang::Ita,
    whatlang::Lang::Spa,
    whatlang::Lang::Por,
    whatlang::Lang::Fra,
    whatlang::Lang::Cat,
    whatlang::Lang::Ron,
];

/// The last resort when Italian and its Romance neighbours leave the
/// verdict unsure: the languages of Western Europe.
const NEARBY_LANGUAGES: &[whatlang::Lang] = &[
    whatlang::Lang::Ita,
    whatlang::Lang::Eng,
    whatlang::Lang::Spa,
    whatlang::Lang::Por,
    whatlang::Lang::Fra,
    whatlang::Lang::Deu,
    whatlang::Lang::Nld,
    whatlang::Lang::Cat,
    whatlang::Lang::Ron,
];

/// Compiles a built-in pattern with `\b` in its ASCII sense: a Unicode
/// word boundary sends the regex crate to its slowest engine on any text
/// with a non-ASCII character, about a thousand times slower.
fn compile(pattern: &str) -> Result<Regex, Error> {
    let ascii = tact_core::cues::ascii_word_boundaries(pattern);
    Regex::new(&ascii).map_err(|e| Error::Pattern(format!("{pattern}: {e}")))
}

impl TextChecker {
    /// Compiles the checkers' patterns.
    pub fn new() -> Result<Self, Error> {
        Ok(TextChecker {
            url: compile(
                r"(?i)\b(?:https?|ftp|file|ssh|git|s3|gs)://[^\s<>`]*[^\s<>`?.,;:!)\]]|\bwww\.[^\s<>`]*[^\s<>`?.,;:!)\]]",
            )?,
            extra_question: compile(concat!(
                r"(?i)",
                // "... and tell me which ...": a second request.
                r"(?:,\s*|\s)(?:and|also)(?:\s+also)?\s+(?:tell|let)\s+me\s+(?:know\s+)?",
                r"(?:which|what|who|whom|whose|where|when|why|how|whether|if)\b",
                // "... and which ...", "...? Or would you ...": a second question.
                r"|(?:(?:,\s*|\s)(?:and|also)|\?\s+or)\s+(?:",
                r"(?:(?:in|on|at|by|for|from|to|with|under|into|until|of)\s+)?",
                r"(?:which|what|who|whom|whose|where|when|why|how|whether)\b",
                r"|if\s+(?:so|not)\b",
                r"|(?:is|are|was|were|do|does|did|can|could|should|shall|will|would|may|might|must|have|has)\s+",
                r"(?:i|we|you|they|it|he|she|this|that|these|those|the|a|an|there|my|your|our|their|its",
                r"|any|some|all|each|every|both|either|neither|none|one|anything|anyone|someone|something",
                r"|everything|everyone)\b)",
            ))?,
            alternative: compile(r"(?i)\b(?:or|oppure|oder|o\s+bien)\b")?,
            romance_or: compile(r"[\p{L}\d]\s(?:o|ou)\s[\p{L}\d]")?,
            list_item: compile(
                r"(?m)^[ \t]*(?:[-*+•]|\d{1,3}[.)]|[a-zA-Z][.)]|\([a-zA-Z0-9]\))[ \t]+\S",
            )?,
            enumerator: compile(r"(?i)\([a-z1-9]\)|(?:^|\s)[a-z1-9]\)\s")?,
            option_label: compile(
                r"(?i)\b(?:option|choice|alternative|approach)\s+(?:[a-z]|\d{1,2})\b",
            )?,
            slash_list: compile(r"[\p{L}\d][\p{L}\d+#_-]*(?:/[\p{L}\d][\p{L}\d+#_-]*)+")?,
            versus: compile(
                r"(?i)\b(?:vs\.?|versus)\s|\b(?:choose|pick|select|decide|prefer)\s+between\b|[(\[]y/n[)\]]",
            )?,
            ita_eng: whatlang::Detector::with_allowlist(vec![
                whatlang::Lang::Ita,
                whatlang::Lang::Eng,
            ]),
            romance: whatlang::Detector::with_allowlist(ROMANCE_LANGUAGES.to_vec()),
            nearby: whatlang::Detector::with_allowlist(NEARBY_LANGUAGES.to_vec()),
            path_comment: compile(r"^\s*(?:#|//|--|;|/\*)\s*(?:file:\s*)?(\S+)\s*(?:\*/)?\s*$")?,
        })
    }

    /// A shared checker, compiled on first use.
    pub fn shared() -> Result<&'static TextChecker, Error> {
        static SHARED: OnceLock<Result<TextChecker, String>> = OnceLock::new();
        SHARED
            .get_or_init(|| TextChecker::new().map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| Error::Pattern(e.clone()))
    }

    /// Checks one agent message against a text-level preference: `Ok(None)`
    /// when it is respected, the violation otherwise. Session-level and
    /// judged preferences are an error: they need a session or a judge.
    pub fn check(&self, preference: Preference, message: &str) -> Result<Option<Violation>, Error> {
        let violation = match preference {
            Preference::ConciseQuestion => self.concise_question(message),
            Preference::DetailQuestion => self.detail_question(message),
            Preference::DoSelection => self.do_selection(message),
            Preference::OneQuestion => self.one_question(message),
            Preference::LangIta => self.lang_ita(message),
            Preference::Capital => self.capital(message),
            Preference::Commas => commas(message),
            Preference::Json => json(message),
            Preference::Snippet => self.snippet(message),
            Preference::Length => length(message),
            other => {
                return Err(Error::NotTextLevel {
                    preference: other.as_str(),
                    kind: match other.check_kind() {
                        CheckKind::Session => "scored on whole sessions",
                        _ => "judged",
                    },
                });
            }
        };
        Ok(violation)
    }

    /// The message with code (fenced and indented blocks, and inline code
    /// when `inline` is set) and URLs replaced by spaces: same length, same
    /// offsets, prose only.
    pub fn mask(&self, message: &str, inline: bool) -> String {
        let mut bytes = message.as_bytes().to_vec();
        let mut blank = |start: usize, end: usize| {
            for b in bytes.iter_mut().take(end).skip(start) {
                *b = b' ';
            }
        };
        let scan = scan_quotes(message);
        for &(s, e) in &scan.code_ranges {
            blank(s, e);
        }
        if inline {
            for (s, e) in inline_code(message) {
                blank(s, e);
            }
        }
        for m in self.url.find_iter(message) {
            blank(m.start(), m.end());
        }
        // Whole multi-byte characters were replaced byte for byte by ASCII
        // spaces, so the result is valid UTF-8; fall back to the input.
        String::from_utf8(bytes).unwrap_or_else(|_| message.to_owned())
    }
}

/// Whether `text` holds one of `words` (lower case) bounded by non-letters.
fn contains_any_word(text: &str, words: &[&str]) -> bool {
    let lower = text.to_lowercase();
    words.iter().any(|w| {
        lower.match_indices(w).any(|(i, _)| {
            let before = lower[..i].chars().next_back();
            let after = lower[i + w.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        })
    })
}

/// Quoted material found line by line.
#[derive(Debug, Default)]
struct QuoteScan {
    /// Lines of code or docs quoted: non-blank lines of fenced and indented
    /// code blocks, `>` quote lines, and lines that are one inline code span.
    quoted: usize,
    /// For each line of the message, whether it is quoted material (or a fence).
    line_is_quote: Vec<bool>,
    /// Byte ranges of fenced and indented code blocks.
    code_ranges: Vec<(usize, usize)>,
    /// The first content line of each fenced block (may name the file).
    first_code_lines: Vec<String>,
}

fn scan_quotes(message: &str) -> QuoteScan {
    let mut scan = QuoteScan::default();
    let mut offset = 0usize;
    let mut fence: Option<(String, usize, bool)> = None; // (marker, start, seen first line)
    let mut prev_blank = true;
    let mut in_indented: Option<usize> = None;
    let mut prev_list = false;
    let mut prev_colon = false;
    // "From the runbook at https://...:" + a list: the list quotes it.
    let mut list_quote = false;
    // Inside a quotation that spans lines, opened right after such a lead.
    let mut in_quotation = false;
    for raw in message.split_inclusive('\n') {
        let line = raw.trim_end_matches(['\n', '\r']);
        let trimmed = line.trim_start();
        let start = offset;
        offset += raw.len();
        if let Some((marker, block_start, seen)) = &mut fence {
            scan.line_is_quote.push(true);
            if trimmed.starts_with(marker.as_str()) {
                scan.code_ranges.push((*block_start, offset));
                fence = None;
                prev_blank = false;
                continue;
            }
            if !line.trim().is_empty() {
                scan.quoted += 1;
                if !*seen {
                    scan.first_code_lines.push(line.to_owned());
                    *seen = true;
                }
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            let marker = trimmed[..3].to_owned();
            if let Some(s) = in_indented.take() {
                scan.code_ranges.push((s, start));
            }
            fence = Some((marker, start, false));
            scan.line_is_quote.push(true);
            continue;
        }
        let indented = (line.starts_with("    ") || line.starts_with('\t')) && !trimmed.is_empty();
        // An indented block opens after a blank line, or right after a
        // line of prose that introduces it ("the dependency list is:").
        if indented && (in_indented.is_some() || (prev_blank && !prev_list) || prev_colon) {
            in_indented.get_or_insert(start);
            scan.quoted += 1;
            scan.line_is_quote.push(true);
            prev_blank = false;
            continue;
        }
        if let Some(s) = in_indented {
            if !line.trim().is_empty() {
                scan.code_ranges.push((s, start));
                in_indented = None;
            }
        }
        let is_quote =
            trimmed.starts_with('>') && !trimmed.trim_start_matches('>').trim().is_empty();
        // A line that is one inline code span quotes code, unless the span
        // only names a file or URL (`` `src/config.rs` `` above a block).
        let is_inline_line = trimmed.len() > 2
            && trimmed.starts_with('`')
            && trimmed.trim_end().ends_with('`')
            && !trimmed.starts_with("```")
            && !names_file_or_url(trimmed.trim_end());
        let opens_quotation = list_quote && trimmed.starts_with(['"', '\u{201c}']);
        let is_list_quote = (list_quote && starts_list(trimmed)) || in_quotation || opens_quotation;
        if opens_quotation || in_quotation {
            let body = if opens_quotation {
                trimmed.trim_start_matches(['"', '\u{201c}'])
            } else {
                trimmed
            };
            in_quotation = !body.trim_end().ends_with(['"', '\u{201d}']);
        }
        if is_quote || is_inline_line || is_list_quote {
            scan.quoted += 1;
        }
        scan.line_is_quote
            .push(is_quote || is_inline_line || is_list_quote);
        if !line.trim().is_empty() && !is_list_quote {
            list_quote = quotes_a_source(line);
        } else if opens_quotation {
            list_quote = false;
        }
        prev_blank = line.trim().is_empty();
        if !prev_blank {
            prev_list = starts_list(trimmed);
        }
        prev_colon = !prev_list && line.trim_end().ends_with(':');
    }
    if let Some((_, s, _)) = fence {
        scan.code_ranges.push((s, message.len()));
    }
    if let Some(s) = in_indented {
        scan.code_ranges.push((s, message.len()));
    }
    scan
}

/// Whether a prose line introduces a quotation from a named source: it ends
/// with `:`, names a URL or file path, and says it quotes ("From the
/// runbook at https://...:", "`docs/setup.md` says:").
fn quotes_a_source(line: &str) -> bool {
    let t = line.trim();
    if !t.ends_with(':') {
        return false;
    }
    let names = t.contains("://")
        || t.split_whitespace()
            .any(|w| is_path(w.trim_end_matches(':').trim_matches('`')));
    let lower = t.to_lowercase();
    names
        && (lower.starts_with("from ")
            || contains_any_word(
                &lower,
                &[
                    "say",
                    "says",
                    "state",
                    "states",
                    "reads",
                    "according to",
                    "excerpt",
                    "quoting",
                    "quote",
                ],
            ))
}

/// Whether an inline code span (with its backticks) holds only a file path
/// or a URL.
fn names_file_or_url(span: &str) -> bool {
    let inner = span.trim_matches('`').trim();
    !inner.is_empty()
        && !inner.contains(char::is_whitespace)
        && (is_path(inner) || inner.contains("://"))
}

fn starts_list(trimmed: &str) -> bool {
    let mut chars = trimmed.chars();
    match chars.next() {
        Some('-' | '*' | '+' | '•') => chars.next().is_some_and(char::is_whitespace),
        Some(c) if c.is_ascii_digit() => {
            let rest = trimmed.trim_start_matches(|c: char| c.is_ascii_digit());
            rest.starts_with(". ") || rest.starts_with(") ")
        }
        _ => false,
    }
}

/// Byte ranges of inline code spans (`` `...` `` on one line, closed).
fn inline_code(message: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut offset = 0;
    for raw in message.split_inclusive('\n') {
        let mut open: Option<usize> = None;
        for (i, c) in raw.char_indices() {
            if c == '`' {
                match open {
                    Some(s) => {
                        out.push((offset + s, offset + i + 1));
                        open = None;
                    }
                    None => open = Some(i),
                }
            }
        }
        offset += raw.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn violated(p: Preference, m: &str) -> bool {
        let c = TextChecker::shared().unwrap();
        c.check(p, m).unwrap().is_some()
    }

    #[test]
    fn masking_keeps_offsets_and_hides_code_and_urls() {
        let c = TextChecker::new().unwrap();
        let m = "Use `a, b` or see https://x.io/a,b — ok?";
        let masked = c.mask(m, true);
        assert_eq!(masked.len(), m.len());
        assert!(!masked.contains('`') && !masked.contains("https"));
        assert!(masked.contains(" or see "));
    }
}
