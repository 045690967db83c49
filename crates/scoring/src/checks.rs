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

use std::sync::OnceLock;

use regex::Regex;
use tact_core::text::is_question;
use tact_core::{extract_questions, reader_word_count, split_sentences};

use crate::Error;
use crate::preference::{CheckKind, Preference};
use crate::violation::{Span, Violation};

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

/// Words after `or` that make it an approximation or a qualifier, not a
/// choice between options ("or so", "or later", "or not").
const OR_NOT_A_CHOICE: &[&str] = &[
    "so",
    "not",
    "later",
    "newer",
    "higher",
    "above",
    "greater",
    "earlier",
    "older",
    "lower",
    "below",
    "less",
    "more",
    "fewer",
    "else",
    "something",
    "anything",
    "anyone",
    "anybody",
    "anywhere",
    "whatever",
    "whichever",
    "similar",
    "otherwise",
    "other",
    "another",
    "equivalent",
    "rather",
    "twice",
    "thereabouts",
    "nothing",
];

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

/// Sentences shorter than this many words are not judged on their own.
const MIN_SENTENCE_WORDS: usize = 3;

/// Confidence of an Italian-or-English identification above which a
/// sentence counts as English (chosen on the train split).
const ENGLISH_CONFIDENCE: f64 = 0.5;

/// Function words of the languages a message in capitals may be written in
/// instead of English (Italian, French, Spanish, German), none of them an
/// English word.
const FOREIGN_FUNCTION_WORDS: &[&str] = &[
    "il", "lo", "gli", "di", "che", "per", "con", "non", "è", "sono", "una", "del", "della",
    "delle", "alla", "alle", "nel", "nella", "vuoi", "que", "le", "les", "des", "du", "une",
    "vous", "je", "est", "pour", "avec", "ne", "pas", "el", "los", "las", "por", "para", "es",
    "puedo", "ich", "die", "der", "das", "und", "nicht", "ist", "ein", "eine", "mit", "für",
    "soll", "sie", "wir", "la", "de", "y", "o", "e", "tu", "su",
];

/// How many words of `lower` are in `first`, and how many in `second`.
fn count_words(lower: &str, first: &[&str], second: &[&str]) -> (usize, usize) {
    let mut counts = (0, 0);
    for word in lower.split(|c: char| !c.is_alphabetic()) {
        counts.0 += usize::from(first.contains(&word));
        counts.1 += usize::from(second.contains(&word));
    }
    counts
}

/// Whether `lower` (after leading white space) starts with one of
/// `prefixes`.
fn opens_with_any(lower: &str, prefixes: &[&str]) -> bool {
    let t = lower.trim_start();
    prefixes.iter().any(|p| t.starts_with(p))
}

/// Two-item slash words that name one thing, not two options.
const SLASH_COMPOUNDS: &[&str] = &[
    "ci/cd", "i/o", "tcp/ip", "and/or", "w/o", "n/a", "a/b", "km/h", "b/w", "udp/ip", "s/mime",
    "pl/sql", "os/2", "ui/ux", "ux/ui", "24/7",
];

/// File extensions that make a bare word (`main.rs`, `CONFIG.yaml`) a file
/// name.
const FILE_EXTENSIONS: &[&str] = &[
    "rs",
    "py",
    "pyi",
    "js",
    "mjs",
    "cjs",
    "ts",
    "tsx",
    "jsx",
    "go",
    "java",
    "kt",
    "kts",
    "c",
    "h",
    "cc",
    "cpp",
    "hpp",
    "cxx",
    "cs",
    "rb",
    "php",
    "swift",
    "scala",
    "sh",
    "bash",
    "zsh",
    "fish",
    "ps1",
    "bat",
    "yaml",
    "yml",
    "toml",
    "json",
    "jsonl",
    "ini",
    "cfg",
    "conf",
    "env",
    "md",
    "rst",
    "txt",
    "csv",
    "tsv",
    "sql",
    "html",
    "htm",
    "css",
    "scss",
    "less",
    "xml",
    "lock",
    "gradle",
    "mk",
    "proto",
    "graphql",
    "vue",
    "svelte",
    "tf",
    "hcl",
    "lua",
    "r",
    "pl",
    "ipynb",
    "dockerfile",
    "log",
    "cmake",
    "nix",
    "dart",
    "ex",
    "exs",
    "erl",
    "hs",
    "ml",
    "zig",
    "sol",
    "properties",
    "plist",
];

/// Well-known file names without an extension.
const FILE_NAMES: &[&str] = &[
    "dockerfile",
    "makefile",
    "justfile",
    "procfile",
    "gemfile",
    "rakefile",
    "jenkinsfile",
    "vagrantfile",
    "containerfile",
    "cmakelists.txt",
];

/// Framework names shaped like file names.
const NOT_FILES: &[&str] = &[
    "node.js",
    "next.js",
    "vue.js",
    "nuxt.js",
    "express.js",
    "three.js",
    "d3.js",
    "chart.js",
    "react.js",
    "angular.js",
    "ember.js",
    "backbone.js",
    "moment.js",
    "p5.js",
    "nest.js",
    "deno.js",
];

fn compile(pattern: &str) -> Result<Regex, Error> {
    Regex::new(pattern).map_err(|e| Error::Pattern(format!("{pattern}: {e}")))
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

    fn concise_question(&self, message: &str) -> Option<Violation> {
        let segments = counted_sentences(message);
        let words = reader_word_count(message);
        if segments.len() > 1 {
            let second = segments[1];
            return Some(Violation::rule(
                Preference::ConciseQuestion,
                format!("{} sentences, {words} words", segments.len()),
                Some(Span::of(message, second.start, second.end)),
            ));
        }
        (words > 20).then(|| {
            Violation::rule(
                Preference::ConciseQuestion,
                format!("one sentence of {words} words"),
                Some(Span::whole(message)),
            )
        })
    }

    fn detail_question(&self, message: &str) -> Option<Violation> {
        let words = reader_word_count(message);
        if words < 25 {
            return Some(Violation::rule(
                Preference::DetailQuestion,
                format!("{words} words"),
                Some(Span::whole(message)),
            ));
        }
        let questions = extract_questions(message);
        let besides = split_sentences(message).into_iter().any(|s| {
            !questions
                .iter()
                .any(|q| q.start <= s.start && s.end <= q.end)
        });
        (!besides).then(|| {
            Violation::rule(
                Preference::DetailQuestion,
                format!("{words} words, but no sentence besides the question"),
                Some(Span::whole(message)),
            )
        })
    }

    fn one_question(&self, message: &str) -> Option<Violation> {
        let masked = self.mask(message, true);
        // "Your manager asks, 'Can we cut the budget?'": a quoted question
        // is reported, not asked.
        let unquoted = blank_single_quoted_questions(message);
        let questions = extract_questions(&unquoted);
        let sentences = split_sentences(message);
        // What the message asks: its questions, less the rhetorical and the
        // self-answered ones, and the asks the shared extractor misses.
        let mut asks: Vec<(usize, usize)> = Vec::new();
        for q in &questions {
            let own = q.text(&unquoted).trim_start().to_lowercase();
            // Sentences are in order: a binary search keeps a huge message
            // linear.
            let from = sentences.partition_point(|s| s.start < q.end);
            let next = sentences[from..]
                .iter()
                .find(|s| !s.text(message).trim().is_empty())
                .map(|s| s.text(message));
            if !is_rhetorical(&own) && !answered_by(&own, next) {
                asks.push((q.start, q.end));
            }
        }
        for s in &sentences {
            // The first question ending after the sentence starts is the
            // only one that can overlap it (questions are in order).
            let at = questions.partition_point(|q| q.end <= s.start);
            let asked = questions.get(at).is_some_and(|q| q.start < s.end);
            if s.is_code || asked {
                continue;
            }
            let lower = s.text(message).to_lowercase();
            // "Also let me know ...", "Please also tell me ...": a request
            // behind a connective.
            let rest = ["also ", "and ", "plus ", "please also "]
                .iter()
                .find_map(|p| lower.trim_start().strip_prefix(p))
                .map(|r| r.trim_start_matches([',', ' ']));
            let head = rest.unwrap_or(&lower);
            // "What's the target audience." asks without its `?`; "Send me
            // the export." and "I also need to know ..." ask too.
            if rest.is_some_and(is_question)
                || asks_without_mark(head)
                || asks_to_send(head)
                || states_a_need(head)
            {
                asks.push((s.start, s.end));
            }
        }
        let mut starts: Vec<usize> = Vec::new();
        for &(start, end) in &asks {
            starts.push(start);
            let inside = masked.get(start..end).unwrap_or_default();
            // "Let me know the closing date and the price.": a request
            // without `?` that asks for two things asks twice.
            if !inside.trim_end().ends_with('?') {
                let lower = inside.to_lowercase();
                if let Some(at) = [" and the ", " and your "]
                    .iter()
                    .filter_map(|p| lower.find(p))
                    .min()
                {
                    starts.push(start + at + 1);
                }
            }
            starts.extend(self.extra_question.find_iter(inside).map(|m| {
                let lead = m.len()
                    - m.as_str()
                        .trim_start_matches(|c: char| c.is_whitespace() || c == '?')
                        .len();
                start + m.start() + lead
            }));
        }
        starts.sort_unstable();
        starts.dedup();
        if starts.len() < 2 {
            return None;
        }
        let second = starts[1];
        let end = asks
            .iter()
            .find(|(s, e)| *s <= second && second < *e)
            .map_or(message.len(), |(_, e)| *e);
        Some(Violation::rule(
            Preference::OneQuestion,
            format!("{} questions", starts.len()),
            Some(Span::of(message, second, end)),
        ))
    }

    fn do_selection(&self, message: &str) -> Option<Violation> {
        if self.offers_options(message) {
            return None;
        }
        Some(Violation::rule(
            Preference::DoSelection,
            "no options to pick from (no list, no `X or Y`, no A/B/C)",
            Some(Span::whole(message)),
        ))
    }

    /// Whether the message offers explicit options (see the module table).
    pub fn offers_options(&self, message: &str) -> bool {
        let masked = self.mask(message, false);
        if self.offered_list(message)
            || self.enumerator.find_iter(&masked).count() >= 2
            || self.option_label.find_iter(&masked).count() >= 2
            || self.versus.find_iter(&masked).any(|m| {
                // "(0.871 vs 0.874)" compares figures; it offers nothing.
                !numbers_around(&masked[..m.start()], &masked[m.end()..])
            })
            || self.romance_or.is_match(&masked)
        {
            return true;
        }
        let sentences = split_sentences(&masked);
        // The sentence holding byte `at` (sentences are in order).
        let segment_at = |at: usize| {
            sentences
                .get(sentences.partition_point(|seg| seg.end <= at))
                .filter(|seg| seg.start <= at)
                .copied()
        };
        // A selection question anywhere ("Which do you prefer?") makes the
        // alternatives of a statement before it options.
        let selection_asked = sentences.iter().any(|seg| {
            let t = seg.text(&masked);
            is_question(t) && asks_to_select(t)
        });
        for m in self.alternative.find_iter(&masked) {
            let (before, after) = (&masked[..m.start()], &masked[m.end()..]);
            if !is_choice(before, after) {
                continue;
            }
            let segment = segment_at(m.start());
            let sentence = segment.map_or("", |seg| seg.text(&masked));
            // "a clause, such as an exclusivity or non-compete clause":
            // examples, not options.
            let sentence_start = segment.map_or(0, |seg| seg.start);
            let in_sentence = &before[sentence_start.min(before.len())..];
            let clause_start = [", ", "; ", ": ", "("]
                .iter()
                .filter_map(|p| in_sentence.rfind(p).map(|i| i + p.len()))
                .max()
                .unwrap_or(0);
            let clause = &in_sentence[clause_start..];
            // "items, like lithium batteries or aerosols, that ...".
            if clause.trim_start().to_lowercase().starts_with("like ") {
                continue;
            }
            // "Rent is due on the 1st or the next business day, so which
            // account ...?": the question starts after the alternative, in
            // a sentence that opened as a statement.
            let sentence_end = segment.map_or(masked.len(), |seg| seg.end);
            let rest = &masked[m.end()..sentence_end.max(m.end())];
            if !opens_question(in_sentence)
                && [", so ", "; ", ", ", " — ", " - "].iter().any(|b| {
                    rest.match_indices(b).any(|(i, _)| {
                        let tail = &rest[i + b.len()..];
                        opens_question(tail) && !asks_to_select(tail)
                    })
                })
            {
                continue;
            }
            if contains_any_word(
                clause,
                &[
                    "such as",
                    "e.g",
                    "for example",
                    "for instance",
                    "including",
                    "something like",
                    "anything like",
                    "things like",
                ],
            ) {
                continue;
            }
            let asks = is_question(sentence) || has_choice_request(sentence);
            if numbers_around(before, after) {
                // "10 or 11 minutes" estimates; "2 or 3 seconds?" asks.
                if asks && !approximated(before) {
                    return true;
                }
                continue;
            }
            // "either the finance export or the CRM export lands ...": an
            // alternative in a statement offers nothing to pick, unless a
            // selection question follows.
            if asks || selection_asked {
                return true;
            }
        }
        // "Enable versioning / add a lifecycle rule / leave it: which?"
        if sentences.iter().any(|seg| {
            let t = seg.text(&masked);
            t.contains(" / ") && (is_question(t) || has_choice_request(t))
        }) {
            return true;
        }
        // Slash lists are read on the prose only: a path or URL inside
        // inline code is no list of options.
        let masked = self.mask(message, true);
        self.slash_list.find_iter(&masked).any(|m| {
            let token = m.as_str();
            let items: Vec<&str> = token.split('/').collect();
            if slash_token_is_path(&masked, m.start(), m.end()) {
                return false;
            }
            // The list ends the question ("... 2/4/8 spaces?", "...: CSV/JSON?")
            // or follows a colon.
            let rest = masked[m.end()..].trim_start_matches([' ', '"', '\'', ')']);
            let unit = rest.trim_start_matches(char::is_alphabetic);
            let closes = rest.starts_with('?')
                || rest.is_empty()
                || (unit.len() < rest.len() && unit.trim_start().starts_with('?'));
            let opens = masked[..m.start()].trim_end().ends_with(':');
            // "Metric/imperial units in the recipe cards?": the fragment
            // question opens with the alternatives.
            let head = &masked[..m.start()];
            let sentence_start = head.rfind(['\n', '.', '?', '!']).map_or(0, |i| i + 1);
            let line_rest = masked[m.end()..].split('\n').next().unwrap_or("");
            let leads_question = head[sentence_start..].trim().is_empty()
                && line_rest
                    .find('?')
                    .is_some_and(|q| !line_rest[..q].contains(['.', '!']));
            if !token.chars().any(char::is_alphabetic) {
                // Numbers: a choice only where a list of options stands,
                // never a date or a ratio in running text.
                let date = items
                    .iter()
                    .any(|i| i.len() == 4 || (i.len() == 2 && i.starts_with('0')));
                return (closes || opens) && !date;
            }
            if items.len() >= 3 {
                return true;
            }
            let lower = token.to_lowercase();
            !SLASH_COMPOUNDS.contains(&lower.as_str()) && (closes || opens || leads_question)
        })
    }

    fn lang_ita(&self, message: &str) -> Option<Violation> {
        let prose = self.mask(message, true);
        let violation = |actual: String| {
            Some(Violation::rule(
                Preference::LangIta,
                actual,
                Some(Span::whole(message)),
            ))
        };
        let written = |info: &whatlang::Info| {
            format!(
                "written in {} (whatlang, confidence {:.2})",
                info.lang().eng_name(),
                info.confidence()
            )
        };
        let Some(first) = whatlang::detect(&prose) else {
            return violation("no language identified in the prose".into());
        };
        if first.lang() != whatlang::Lang::Ita && first.is_reliable() {
            return violation(written(&first));
        }
        // English is what Italian prose is mixed with or mistaken for: any
        // sentence that reads as English rather than Italian (an Italian
        // sentence followed by an English question) breaks "written in
        // Italian". Loanwords (`il merge`, `la build`) leave the verdict
        // unsure, below the threshold.
        // Quotations (an English error message) are not the agent's prose.
        let unquoted = blank_quotations(&prose);
        let sentences = split_sentences(&unquoted);
        // "Ciao Marco, the numbers are ready: li mando ...": an English
        // clause inside an Italian sentence counts too.
        // The detector misreads short clauses, so a clause is judged by its
        // function words.
        for clause in sentences
            .iter()
            .flat_map(|seg| seg.text(&unquoted).split([',', ':', ';', '(', ')']))
        {
            if reads_as_english(clause) {
                return violation(format!("a clause in English: `{}`", clause.trim()));
            }
        }
        for sentence in sentences.iter().map(|seg| seg.text(&unquoted)) {
            if prose_words(sentence) < MIN_SENTENCE_WORDS {
                continue;
            }
            if let Some(info) = self.ita_eng.detect(sentence) {
                if info.lang() == whatlang::Lang::Eng && info.confidence() >= ENGLISH_CONFIDENCE {
                    return violation(format!(
                        "a sentence in English: `{}` (whatlang, confidence {:.2})",
                        sentence.trim(),
                        info.confidence()
                    ));
                }
            }
        }
        if first.lang() == whatlang::Lang::Ita {
            return None;
        }
        // "Procedo?", "Confermi?": too short for the detector, but a word of
        // its own that only Italian has.
        if prose_words(&prose) <= 4
            && prose
                .split(|c: char| !c.is_alphabetic())
                .any(|w| ITALIAN_SHORT_WORDS.contains(&w.to_lowercase().as_str()))
        {
            return None;
        }
        // Unsure and not Italian: short texts are often misread; ask again
        // among the Romance languages an Italian message is confused with.
        match self.romance.detect(&prose) {
            Some(again) if again.lang() == whatlang::Lang::Ita => None,
            Some(again) if again.is_reliable() => violation(written(&again)),
            // Still unsure: the widest set of neighbours decides.
            _ => match self.nearby.detect(&prose) {
                Some(last) if last.lang() == whatlang::Lang::Ita => None,
                Some(last) => violation(written(&last)),
                None => violation(written(&first)),
            },
        }
    }

    fn snippet(&self, message: &str) -> Option<Violation> {
        let scan = scan_quotes(message);
        let named = self.names_source(message, &scan);
        if scan.quoted >= 3 && named {
            return None;
        }
        let actual = match (scan.quoted >= 3, named) {
            (false, false) => format!("{} quoted line(s) and no file path or URL", scan.quoted),
            (false, true) => format!("only {} quoted line(s)", scan.quoted),
            _ => format!("{} quoted lines but no file path or URL", scan.quoted),
        };
        Some(Violation::rule(
            Preference::Snippet,
            actual,
            Some(Span::whole(message)),
        ))
    }

    /// Whether the prose (or a comment line naming a file at the top of a
    /// code block) names a file path or URL.
    fn names_source(&self, message: &str, scan: &QuoteScan) -> bool {
        if self.url.is_match(message) {
            return true;
        }
        let prose_has_path = message
            .lines()
            .zip(&scan.line_is_quote)
            .filter(|(_, quoted)| !**quoted)
            .flat_map(|(line, _)| line.split_whitespace())
            .any(is_path);
        prose_has_path
            || scan.first_code_lines.iter().any(|line| {
                self.path_comment
                    .captures(line)
                    .and_then(|c| c.get(1))
                    .is_some_and(|m| is_path(m.as_str()))
            })
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

/// Top-level directory names: a slash list starting with one of them
/// (`src/api/v2`, `tests/data/golden`) is a path, not options.
const DIRECTORY_NAMES: &[&str] = &[
    "src",
    "lib",
    "crates",
    "packages",
    "pkg",
    "cmd",
    "internal",
    "tests",
    "spec",
    "docs",
    "scripts",
    "config",
    "configs",
    "etc",
    "usr",
    "var",
    "opt",
    "home",
    "tmp",
    "node_modules",
    "vendor",
    "include",
    "assets",
    "static",
    "public",
    "migrations",
    "fixtures",
    "examples",
    "deploy",
    "bin",
];

/// Whether the slash list at `start..end` of `masked` is (part of) a path:
/// its white-space-delimited token starts with `/`, `./`, `~`, `@` or a
/// well-known directory name, ends with `/`, holds `://`, a backslash or a file
/// name (`src/db/pool.rs`), or the match sits inside a longer path.
fn slash_token_is_path(masked: &str, start: usize, end: usize) -> bool {
    let token_start = masked[..start]
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    let token_end = masked[end..]
        .find(char::is_whitespace)
        .map_or(masked.len(), |i| end + i);
    let raw = &masked[token_start..token_end];
    let token = raw
        .trim_start_matches(['(', '[', '<', '"', '\'', '*'])
        .trim_end_matches(['?', '!', ',', ';', ':', ')', ']', '>', '"', '\'', '*']);
    let token = token.strip_suffix('.').unwrap_or(token);
    if matches!(
        masked[..start].chars().next_back(),
        Some('/' | '.' | '~' | '@' | '\\')
    ) || masked[end..].starts_with(['.', '/', '\\'])
    {
        // Part of a path, a file name or a directory (`src/api/v2/`).
        return true;
    }
    if token.starts_with(['/', '~', '@', '.']) || token.contains("://") || token.contains('\\') {
        return true;
    }
    let first = token.split('/').next().unwrap_or("").to_lowercase();
    DIRECTORY_NAMES.contains(&first.as_str()) || is_path(token)
}

/// English function words that are not Italian words.
const ENGLISH_FUNCTION_WORDS: &[&str] = &[
    "the", "is", "are", "was", "were", "be", "been", "and", "of", "to", "with", "for", "before",
    "after", "i", "you", "we", "they", "it", "this", "that", "these", "those", "will", "would",
    "can", "could", "should", "have", "has", "my", "your", "our", "their", "what", "which", "how",
    "from", "at", "on", "by", "not", "do", "does", "did", "if", "or", "but", "about", "there",
    "here", "let", "me", "as",
];

/// Italian function words.
const ITALIAN_FUNCTION_WORDS: &[&str] = &[
    "il", "lo", "la", "le", "gli", "di", "che", "per", "con", "non", "è", "sono", "un", "una",
    "del", "della", "dei", "delle", "al", "alla", "alle", "ai", "nel", "nella", "su", "mi", "ti",
    "ci", "si", "ho", "hai", "ha", "questo", "questa", "o", "e", "da", "ma", "se",
];

/// Italian words of short replies and questions ("Procedo?", "Va bene
/// così?") that no nearby language writes the same way.
const ITALIAN_SHORT_WORDS: &[&str] = &[
    "procedo",
    "procediamo",
    "confermi",
    "confermo",
    "confermate",
    "continuo",
    "continuiamo",
    "vuoi",
    "volete",
    "posso",
    "possiamo",
    "devo",
    "dobbiamo",
    "faccio",
    "facciamo",
    "bene",
    "così",
    "giusto",
    "perfetto",
    "grazie",
    "allora",
    "quindi",
    "ecco",
    "adesso",
    "subito",
    "ancora",
    "quale",
    "quali",
    "perché",
    "cosa",
    "oppure",
    "aggiorno",
    "invio",
    "mando",
    "chiudo",
    "rilancio",
    "cancello",
    "elimino",
    "pubblico",
    "approvi",
    "preferisci",
    "aspetto",
    "domani",
    "stasera",
    "oggi",
];

/// English greetings, openers and sign-offs that make a clause of their own
/// ("Hi!", "Quick question: ...", "Thanks, Marco").
const ENGLISH_FORMULAS: &[&str] = &[
    "hi",
    "hello",
    "hey",
    "hi there",
    "hello there",
    "thanks",
    "thank you",
    "thanks a lot",
    "many thanks",
    "cheers",
    "best regards",
    "kind regards",
    "regards",
    "quick question",
    "quick note",
    "quick update",
    "heads up",
    "just a heads up",
    "sorry",
    "good morning",
    "good afternoon",
    "good evening",
    "by the way",
    "one more thing",
];

/// Whether a clause reads as English: an English greeting or opener of its
/// own, or two or more English function words ("the numbers are ready")
/// and no Italian one.
fn reads_as_english(clause: &str) -> bool {
    let formula = clause
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    if ENGLISH_FORMULAS.contains(&formula.as_str()) {
        return true;
    }
    let (english, italian) = count_words(
        &clause.to_lowercase(),
        ENGLISH_FUNCTION_WORDS,
        ITALIAN_FUNCTION_WORDS,
    );
    english >= 2 && italian == 0
}

/// Whether a sentence (lower case) is an imperative asking the user to hand
/// something over ("send me the export.", "please paste the log.").
fn asks_to_send(lower: &str) -> bool {
    let t = lower.trim_start();
    let t = t.strip_prefix("please ").unwrap_or(t);
    opens_with_any(
        t,
        &[
            "send me ",
            "send over ",
            "tell me ",
            "share ",
            "paste ",
            "upload ",
            "forward ",
            "attach ",
            "provide ",
            "give me ",
            "email me ",
            "drop me ",
        ],
    )
}

/// Whether `text` opens with a question word ("which account ...", "so
/// should I ...", "what should I highlight ...").
fn opens_question(text: &str) -> bool {
    let mut words = text
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase);
    let mut first = words.next().unwrap_or_default();
    if matches!(first.as_str(), "so" | "then" | "and" | "but") {
        first = words.next().unwrap_or_default();
    }
    matches!(
        first.as_str(),
        "what"
            | "which"
            | "who"
            | "where"
            | "when"
            | "why"
            | "how"
            | "should"
            | "shall"
            | "can"
            | "could"
            | "would"
            | "will"
            | "do"
            | "does"
            | "did"
            | "is"
            | "are"
    )
}

/// Whether the question `own` (lower case) is answered by the agent in the
/// `next` sentence: "...? Because ...", or a why-question followed by a
/// statement ("Why did the import fail? The file uses semicolons.").
fn answered_by(own: &str, next: Option<&str>) -> bool {
    let Some(next) = next else {
        return false;
    };
    let answer = next.trim_start().to_lowercase();
    let because = [
        "because ",
        "porque ",
        "perche ",
        "perché ",
        "weil ",
        "parce que ",
    ]
    .iter()
    .any(|w| answer.starts_with(w));
    let why = own.starts_with("why ")
        || own.starts_with("what's causing ")
        || own.starts_with("what is causing ")
        || own.starts_with("how come ");
    because || (why && !is_question(next) && !asks_to_send(&answer))
}

/// Whether a sentence (lower case) states that the agent needs something
/// from the user ("i also need to know which gpu ...").
fn states_a_need(lower: &str) -> bool {
    opens_with_any(
        lower,
        &[
            "i need to know ",
            "i also need to know ",
            "i'd like to know ",
            "i'd also like to know ",
            "i would like to know ",
            "i also need your ",
            "i need your ",
        ],
    )
}

/// Whether a question (lower case) is rhetorical: "Who doesn't love a long weekend,
/// right?", "Who wouldn't want faster builds?".
fn is_rhetorical(lower: &str) -> bool {
    opens_with_any(
        lower,
        &[
            "who doesn't ",
            "who does not ",
            "who wouldn't ",
            "who would not ",
            "who isn't ",
            "who hasn't ",
            "who didn't ",
            "who knew ",
            "who would have thought ",
            "who'd have thought ",
            "guess what",
            "ever wondered ",
            "have you ever wondered ",
            "ever notice ",
        ],
    )
}

/// Whether a sentence (lower case) without a `?` is still a direct
/// question: an interrogative word followed by an auxiliary ("what's the
/// target audience.", "and which version are you on"), not a clause such
/// as "what we need is ..." or "what's more, ...".
fn asks_without_mark(lower: &str) -> bool {
    let t = lower.trim();
    if t.ends_with('?') || t.starts_with("what's more") || t.starts_with("what is more") {
        return false;
    }
    let mut words = t.split(|c: char| c.is_whitespace() || c == '\'' || c == '’');
    let first = words.next().unwrap_or("");
    let second = words.next().unwrap_or("");
    let wh = matches!(
        first,
        "what" | "which" | "who" | "where" | "when" | "why" | "how"
    );
    // "which version are you on": wh + noun + auxiliary + subject.
    let aux = |w: &str| {
        matches!(
            w,
            "s" | "is"
                | "are"
                | "was"
                | "were"
                | "do"
                | "does"
                | "did"
                | "can"
                | "could"
                | "should"
                | "shall"
                | "will"
                | "would"
                | "re"
        )
    };
    if !wh {
        return false;
    }
    if aux(second) {
        return true;
    }
    // "which version are you on", "what word count are you aiming for".
    let next: Vec<&str> = words.take(3).collect();
    next.windows(2).any(|w| {
        aux(w[0])
            && matches!(
                w[1],
                "you" | "we" | "i" | "they" | "it" | "the" | "this" | "that"
            )
    })
}

/// Words of a question or request that ask to pick among options.
const SELECTION_CUES: &[&str] = &[
    "which",
    "choose",
    "pick",
    "select",
    "prefer",
    "preference",
    "one of",
    "option",
    "options",
    "go with",
    "between",
    "either",
    "cual",
    "quale",
    "quali",
    "welche",
    "welcher",
    "welches",
];

/// Whether a question asks to pick among alternatives already named:
/// "Which do you prefer?", "Which one?", "Should I pick one of them?" (a
/// "which" + noun question such as "Which directories should be
/// excluded?" asks for new items instead).
fn asks_to_select(question: &str) -> bool {
    let lower = question.to_lowercase();
    let which_selects = lower.match_indices("which").any(|(i, _)| {
        let next = lower[i + 5..]
            .split_whitespace()
            .next()
            .unwrap_or("")
            .trim_matches(|c: char| !c.is_alphanumeric());
        matches!(
            next,
            "" | "one"
                | "ones"
                | "of"
                | "do"
                | "would"
                | "should"
                | "is"
                | "option"
                | "options"
                | "approach"
                | "way"
                | "path"
                | "route"
                | "variant"
                | "version"
                | "alternative"
        )
    });
    which_selects
        || contains_any_word(
            question,
            &[
                "prefer", "choose", "pick", "select", "go with", "one of", "either", "option",
            ],
        )
}

/// Whether `text` contains one of [`SELECTION_CUES`] as whole words.
fn has_selection_cue(text: &str) -> bool {
    contains_any_word(text, SELECTION_CUES)
}

/// Whether a sentence that is not a question still asks to choose ("Pick
/// one: canary or blue-green", "reply `apply` or `hold`").
fn has_choice_request(text: &str) -> bool {
    contains_any_word(
        text,
        &[
            "pick",
            "choose",
            "select",
            "reply",
            "decide",
            "let me know",
            "tell me",
            "your call",
            "prefer",
            "up to you",
        ],
    )
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

/// Number words read as quantities in "one or two days".
const NUMBER_WORDS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "fifteen", "twenty", "thirty", "fifty", "hundred", "couple",
];

/// Whether `word` (trimmed) is a quantity: digits (`10`, `2.5`, `1,000`,
/// `15%`, `4.2k`, `$3M`) or a number word.
fn is_number(word: &str) -> bool {
    let w = word
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '%')
        .trim_end_matches('%')
        .to_lowercase();
    // A magnitude suffix: "4.2k", "3M", "1.5bn".
    let w = ["k", "m", "bn", "b"]
        .iter()
        .find_map(|s| {
            w.strip_suffix(s)
                .filter(|d| d.ends_with(|c: char| c.is_ascii_digit()))
        })
        .map_or(w.clone(), str::to_owned);
    (!w.is_empty()
        && w.starts_with(|c: char| c.is_ascii_digit())
        && w.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ','))
        || NUMBER_WORDS.contains(&w.as_str())
}

/// Whether the `or` (or `vs.`) between `before` and `after` joins two
/// quantities, a unit allowed after the first ("180 ms vs. 140 ms").
fn numbers_around(before: &str, after: &str) -> bool {
    let mut back = before.split_whitespace().rev();
    let last = back.next().unwrap_or("");
    let number_before = is_number(last)
        || (last.len() <= 3
            && last.chars().all(char::is_alphabetic)
            && back.next().is_some_and(is_number));
    number_before && after.split_whitespace().next().is_some_and(is_number)
}

/// Whether the quantity before `or` is hedged ("roughly 10 or 11").
fn approximated(before: &str) -> bool {
    before.split_whitespace().rev().skip(1).take(2).any(|w| {
        matches!(
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
                .as_str(),
            "roughly"
                | "about"
                | "around"
                | "approximately"
                | "approx"
                | "some"
                | "maybe"
                | "perhaps"
                | "nearly"
                | "almost"
                | "every"
                | "each"
                | "took"
                | "takes"
        ) || w.starts_with('~')
    })
}

/// Words made of letters only (apostrophes allowed): paths, numbers and
/// identifiers are not prose.
fn prose_words(text: &str) -> usize {
    text.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| {
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_alphabetic() || c == '\'' || c == '’')
        })
        .count()
}

/// `text` with each single-quoted question (`'Can we cut it?'`, opened
/// after a space or `(:,` and closed after its `?`) replaced by spaces of
/// the same byte length, so offsets hold.
fn blank_single_quoted_questions(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut prev: Option<char> = None;
    while let Some((i, c)) = rest.char_indices().next() {
        let opens = c == '\''
            && prev.is_none_or(|p| p.is_whitespace() || matches!(p, '(' | ':' | ','))
            && rest[i + 1..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric);
        if opens {
            let line_end = rest.find('\n').unwrap_or(rest.len());
            let close = rest[1..line_end]
                .match_indices("?'")
                .map(|(j, _)| j + 1)
                .find(|&j| {
                    rest[j + 2..]
                        .chars()
                        .next()
                        .is_none_or(|n| n.is_whitespace() || ",.;:)!".contains(n))
                });
            if let Some(j) = close {
                let span = &rest[..j + 2];
                out.extend(
                    span.chars()
                        .flat_map(|ch| std::iter::repeat_n(' ', ch.len_utf8())),
                );
                rest = &rest[j + 2..];
                prev = Some('\'');
                continue;
            }
        }
        out.push(c);
        prev = Some(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// `text` with the inside of each double quotation on one line (`"..."`,
/// `“...”`, `«...»`) replaced by spaces.
fn blank_quotations(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut closer: Option<char> = None;
    for c in text.chars() {
        match closer {
            Some(end) if c == end => {
                closer = None;
                out.push(c);
            }
            Some(_) if c == '\n' => {
                closer = None;
                out.push(c);
            }
            Some(_) => out.push(' '),
            None => {
                closer = match c {
                    '"' => Some('"'),
                    '\u{201c}' => Some('\u{201d}'),
                    '\u{ab}' => Some('\u{bb}'),
                    _ => None,
                };
                out.push(c);
            }
        }
    }
    out
}

/// Whether `line` is a list item or a table row (not a `|---|` rule).
fn is_list_line(list_item: &Regex, line: &str) -> bool {
    let t = line.trim();
    if t.starts_with('|') {
        return t.len() > 1 && !is_table_rule(t);
    }
    list_item.is_match(line)
}

/// Whether `line` is a table's `|---|:--:|` rule.
fn is_table_rule(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('|') && t.contains('-') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

impl TextChecker {
    /// Whether a list (or table) of two or more items is offered as
    /// options: the line before it asks ("Which one should I use?",
    /// "Options:", "Pick one:"), or the question after it selects among
    /// its items ("Which row ...?"). A list of findings followed by an
    /// open question ("What version should they be pinned to?") offers
    /// nothing to pick.
    fn offered_list(&self, message: &str) -> bool {
        let lines: Vec<&str> = message.lines().collect();
        // "Pick one of these schedules:" + a code block of two or more
        // lines: each line is an option.
        let mut fence_lead: Option<&str> = None;
        let mut fence_lines = 0usize;
        let mut fence_labels = 0usize;
        for (n, line) in lines.iter().enumerate() {
            let t = line.trim();
            if t.starts_with("```") || t.starts_with("~~~") {
                match fence_lead.take() {
                    Some(lead) => {
                        // "Which retry policy do you want?" + a block of
                        // candidates, or of `# Option A` / `# Option B`.
                        let lead_asks = has_choice_request(lead)
                            || asks_to_select(lead)
                            || (is_question(lead)
                                && (has_selection_cue(lead) || fence_labels >= 2));
                        if fence_lines >= 2 && lead_asks {
                            return true;
                        }
                    }
                    None => {
                        fence_lead = Some(
                            lines[..n]
                                .iter()
                                .rev()
                                .find(|l| !l.trim().is_empty())
                                .map_or("", |l| l.trim()),
                        );
                        fence_lines = 0;
                        fence_labels = 0;
                    }
                }
            } else if fence_lead.is_some() && !t.is_empty() {
                fence_lines += 1;
                fence_labels += self.option_label.find_iter(t).count();
            }
        }
        let mut i = 0;
        while i < lines.len() {
            if !is_list_line(&self.list_item, lines[i]) {
                i += 1;
                continue;
            }
            let start = i;
            let mut items = 0usize;
            while i < lines.len()
                && (is_list_line(&self.list_item, lines[i]) || is_table_rule(lines[i]))
            {
                items += usize::from(!is_table_rule(lines[i]));
                i += 1;
            }
            if items < 2 {
                continue;
            }
            let lead = lines[..start]
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .map_or("", |l| l.trim());
            let lead_asks = lead.ends_with('?')
                || is_question(lead)
                || (lead.ends_with(':')
                    && (has_selection_cue(lead)
                        || has_choice_request(lead)
                        || contains_any_word(
                            lead,
                            &[
                                "choices",
                                "alternatives",
                                "candidates",
                                "candidate",
                                "ways",
                                "any of these",
                                "one of these",
                                "either of these",
                            ],
                        )));
            let after = lines[i..].join(" ");
            let question = after.find('?').map_or(after.as_str(), |q| &after[..=q]);
            // "... Let me know your pick." after the list selects as well.
            let request = split_sentences(&after)
                .first()
                .map_or("", |seg| seg.text(&after));
            if lead_asks
                || (question.contains('?') && has_selection_cue(question))
                || (has_choice_request(request) && has_selection_cue(request))
            {
                return true;
            }
        }
        false
    }
}

/// Whether the `or` found between `before` and `after` joins two options.
fn is_choice(before: &str, after: &str) -> bool {
    if before.ends_with('/') || after.starts_with('/') {
        return false;
    }
    let Some(next_raw) = after.split_whitespace().next() else {
        return false;
    };
    let next = next_raw
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    if next.is_empty() && !next_raw.starts_with(['`', '"', '\'', '(', '[']) {
        return false;
    }
    if OR_NOT_A_CHOICE.contains(&next.as_str()) {
        return false;
    }
    let prev: Vec<String> = before
        .split_whitespace()
        .rev()
        .take(2)
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    // "a day or two", "an hour or two".
    if next == "two"
        && prev
            .get(1)
            .is_some_and(|w| matches!(w.as_str(), "a" | "an"))
    {
        return false;
    }
    // "give or take", "sooner or later", "whether or not".
    !(next == "take" && prev.first().is_some_and(|w| w == "give")
        || prev
            .first()
            .is_some_and(|w| w == "sooner" || w == "whether"))
}

impl TextChecker {
    fn capital(&self, message: &str) -> Option<Violation> {
        let Some((i, c)) = message.char_indices().find(|(_, c)| c.is_lowercase()) else {
            // All in capitals, but it must be English as well: "VUOI CHE
            // PRENOTI IL TRENO?" is not. The detector is unsure on short
            // texts; their function words decide then.
            let lower = self.mask(&message.to_lowercase(), true);
            let info = whatlang::detect(&lower)
                .filter(whatlang::Info::is_reliable)
                .or_else(|| {
                    let (english, foreign) =
                        count_words(&lower, ENGLISH_FUNCTION_WORDS, FOREIGN_FUNCTION_WORDS);
                    (foreign >= 2 && english < foreign)
                        .then(|| self.nearby.detect(&lower))
                        .flatten()
                });
            return info
                .filter(|info| info.lang() != whatlang::Lang::Eng)
                .map(|info| {
                    Violation::rule(
                        Preference::Capital,
                        format!(
                            "in capitals, but written in {} (whatlang, confidence {:.2})",
                            info.lang().eng_name(),
                            info.confidence()
                        ),
                        Some(Span::whole(message)),
                    )
                });
        };
        let start = message[..i]
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace())
            .map_or(0, |(j, w)| j + w.len_utf8());
        let end = message[i..]
            .char_indices()
            .find(|(_, c)| c.is_whitespace())
            .map_or(message.len(), |(j, _)| i + j);
        Some(Violation::rule(
            Preference::Capital,
            format!("lowercase letter `{c}`"),
            Some(Span::of(message, start, end)),
        ))
    }
}

/// The comma characters: ASCII, full-width, small, ideographic, Arabic.
const COMMAS: &[char] = &[',', '，', '﹐', '﹑', '、', '،'];

fn commas(message: &str) -> Option<Violation> {
    let count = message.chars().filter(|c| COMMAS.contains(c)).count();
    let (i, c) = message.char_indices().find(|(_, c)| COMMAS.contains(c))?;
    Some(Violation::rule(
        Preference::Commas,
        format!("{count} comma(s)"),
        Some(Span::of(message, i, i + c.len_utf8())),
    ))
}

fn json(message: &str) -> Option<Violation> {
    let err = serde_json::from_str::<serde::de::IgnoredAny>(message).err()?;
    // Byte offset of the error's line and column (both 1-based).
    let line_start = message
        .split_inclusive('\n')
        .take(err.line().saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    let at = line_start + err.column().saturating_sub(1);
    Some(Violation::rule(
        Preference::Json,
        format!("not one JSON value: {err}"),
        Some(Span::of(message, at, message.len())),
    ))
}

fn length(message: &str) -> Option<Violation> {
    let sentences: Vec<_> = counted_sentences(message)
        .into_iter()
        .filter(|s| !s.is_code)
        .collect();
    if sentences.len() == 3 {
        return None;
    }
    let span = sentences.get(3).map_or_else(
        || Span::whole(message),
        |s| Span::of(message, s.start, message.trim_end().len()),
    );
    Some(Violation::rule(
        Preference::Length,
        format!("{} sentence(s)", sentences.len()),
        Some(span),
    ))
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

/// The sentences a reader counts: [`split_sentences`] without segments
/// that hold no letter or digit (a trailing emoji), and without a list
/// item's or heading's first line when it has no final punctuation
/// ("- Acme: $1200 per month", "## Summary").
fn counted_sentences(message: &str) -> Vec<tact_core::text::Segment> {
    let mut out = Vec::new();
    for mut seg in split_sentences(message) {
        let text = seg.text(message);
        if seg.is_code {
            out.push(seg);
            continue;
        }
        let line_end = text.find('\n').unwrap_or(text.len());
        let first = text[..line_end].trim();
        if (first.starts_with('#') || starts_list(first))
            && !first.ends_with(['.', '?', '!', '…', '。', '？', '！'])
        {
            seg.start += (line_end + 1).min(text.len());
        }
        if seg.text(message).chars().any(char::is_alphanumeric) {
            out.push(seg);
        }
    }
    out
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

/// Whether a whitespace-separated token names a file: a path with a
/// separator and an extension (`src/db/pool.rs`), one starting with `/`,
/// `./`, `../` or `~/`, a Windows path, or a bare file name with a known
/// extension (`CONFIG.yaml`) or a well-known name (`Dockerfile`).
pub(crate) fn is_path(token: &str) -> bool {
    // Wrapping punctuation, in any order (`` `src/lib.rs`: ``, `(a.rs).`).
    let t = token
        .trim_start_matches(['(', '[', '<', '"', '\'', '`', '*'])
        .trim_end_matches([
            ')', ']', '>', '"', '\'', '`', ',', ';', '!', '?', '*', ':', '.',
        ]);
    // A line or range after the path (`src/app.py:40-52`, `a.rs:7:3`,
    // `setup.py#L10-L15`) is no part of it.
    let mut t = t;
    while let Some((head, tail)) = t.rsplit_once([':', '#']) {
        let tail = tail.trim_start_matches('L');
        if head.is_empty()
            || tail.is_empty()
            || !tail
                .chars()
                .all(|c| c.is_ascii_digit() || c == '-' || c == 'L')
        {
            break;
        }
        t = head;
    }
    if t.len() < 3 {
        return false;
    }
    let lower = t.to_lowercase();
    let bytes = t.as_bytes();
    if bytes.len() > 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && bytes[2] == b'\\' {
        return true;
    }
    let rooted = ["/", "./", "../", "~/"].iter().any(|p| t.starts_with(p))
        && t.len() > 2
        && t.chars().skip(1).any(char::is_alphanumeric);
    let last = lower.rsplit(['/', '\\']).next().unwrap_or(&lower);
    let extension = last
        .rsplit_once('.')
        .filter(|(stem, ext)| {
            !stem.is_empty()
                && ext.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
        })
        .map(|(_, ext)| ext);
    if t.contains('/') {
        if rooted && last.chars().any(char::is_alphanumeric) {
            return true;
        }
        let segments_ok = t.split('/').filter(|s| !s.is_empty()).all(|s| {
            s.chars()
                .all(|c| c.is_alphanumeric() || "._-@+".contains(c))
        });
        return segments_ok && (extension.is_some() || rooted || FILE_NAMES.contains(&last));
    }
    if NOT_FILES.contains(&lower.as_str()) {
        return false;
    }
    FILE_NAMES.contains(&last)
        || (last.starts_with('.')
            && last.len() > 2
            && last[1..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        || extension.is_some_and(|e| FILE_EXTENSIONS.contains(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_not_paths() {
        for p in [
            "deploy/k8s/worker.yaml:",
            ".github/workflows/ci.yml",
            "(src/db/pool.rs)",
            "CONFIG.yaml",
            "main.rs",
            "/etc/nginx/nginx.conf",
            "~/.bashrc",
            "C:\\data\\in.csv",
            "Dockerfile",
            ".gitignore",
        ] {
            assert!(is_path(p), "{p}");
        }
        for p in [
            "e.g.",
            "3.11",
            "v2.0.1",
            "CI/CD",
            "json.load(f)",
            "and/or",
            "70/20/10",
            "Node.js",
            "asyncio.timeout",
            "blue/green",
            "python:3.11-slim",
        ] {
            assert!(!is_path(p), "{p}");
        }
    }

    fn violated(p: Preference, m: &str) -> bool {
        let c = TextChecker::shared().unwrap();
        c.check(p, m).unwrap().is_some()
    }

    #[test]
    fn words_are_counted_as_a_reader_counts_them() {
        // 13 white-space tokens; UAX #29 counts more than 20 words here.
        let m = "Did the deploy at 14:32:05 on 2024-05-17 pull v2.3.1 from \
                 https://registry.example.com/v2/team/api/manifests/latest as expected?";
        assert!(tact_core::word_count(m) > 20);
        assert!(!violated(Preference::ConciseQuestion, m));
        let short = "The 03:00:00 backup failed at 03:12:47 with exit code 137 on \
                     db-01.prod.internal. Should I rerun it now or wait for tonight?";
        assert!(violated(Preference::DetailQuestion, short));
        let twenty_one = format!("{} ok?", "word ".repeat(20));
        assert!(violated(Preference::ConciseQuestion, &twenty_one));
        assert!(!violated(
            Preference::ConciseQuestion,
            &format!("{} — ok?", "word ".repeat(19))
        ));
    }

    #[test]
    fn findings_estimates_and_examples_are_not_options() {
        for m in [
            "I looked at the queues:\n- `ingest` holds 40 jobs\n- `mail` holds 2 jobs\nHow long should jobs wait before we page someone?",
            "The export took 12 or 13 minutes on every run. What timeout do you want?",
            "Does the lease contain a clause, such as a break or renewal option, I should flag?",
            "Latency was 180 ms vs. 140 ms last week; what changed on your side?",
            "Either the cache or the proxy drops the header. Can you send me the raw response?",
            "Which branch holds the fix (maybe something like `hotfix/x` or `fix-x`)?",
            "Signups were 1.8k vs. 2.1k in May; what do you make of the drop?",
            "Do you keep other records, e.g. paper receipts or bank PDFs, that I should scan?",
            "Do you own gear, like tents or stoves, that the trip could reuse?",
            "The invoice is due on Friday or on receipt, so which card should I charge?",
            "The plumber can come in three or four days; what should I tell him about the leak?",
        ] {
            assert!(violated(Preference::DoSelection, m), "{m}");
        }
        for m in [
            "Which of these should I deploy?\n- `v2.3.1`\n- `v2.4.0-rc1`",
            "Options:\n1. keep the cron job\n2. move it to the queue\nWhich one?",
            "Should the batch size be 2 or 3 thousand rows?",
            "I can retry the upload or skip the file. Which do you prefer?",
            "Pick one schedule:\n```\n0 6 * * 1\n0 18 * * 5\n```",
            "Rename / archive / delete the old bucket: which do you want?",
            "These are the plans I found; which one fits?\n\n| Plan | Price |\n|---|---|\n| Basic | $5 |\n| Pro | $12 |",
            "Which cache setting do you want?\n```toml\n# Option A\nttl = 60\n# Option B\nttl = 3600\n```",
            "Celsius/Fahrenheit on the dashboard tiles?",
            "I can book the 9:10 train, the 11:40 train, or a car — which should it be?",
            "I can host the docs on any of these:\n- Netlify\n- GitHub Pages\nTell me your choice.",
        ] {
            assert!(!violated(Preference::DoSelection, m), "{m}");
        }
    }

    #[test]
    fn mixed_italian_and_english_is_not_italian() {
        assert!(violated(
            Preference::LangIta,
            "Ho aggiornato il file di configurazione e riavviato il servizio. Should I also clear the cache on all of the production servers tonight?"
        ));
        for m in [
            "Buongiorno Luca, the draft is finished: lo invio al cliente adesso?",
            "Vuoi che rinomini la colonna `qty` in tutte le tabelle, as we agreed on Monday?",
            "Heads up: il backup di stanotte non è partito. Lo rilancio?",
            "Hi! Vuoi che aggiorni anche la documentazione?",
        ] {
            assert!(violated(Preference::LangIta, m), "{m}");
        }
        assert!(!violated(
            Preference::LangIta,
            "La pipeline fallisce con \"error: permission denied while reading the file\". Vuoi che controlli i permessi della cartella?"
        ));
    }

    #[test]
    fn quoted_and_self_answered_questions_are_not_asked() {
        assert!(!violated(
            Preference::OneQuestion,
            "The client wrote, 'Can we ship by Friday?' Should I promise Friday or Monday?"
        ));
        assert!(!violated(
            Preference::OneQuestion,
            "Why does the build take so long? Because every job reinstalls the toolchain. Should I cache it?"
        ));
        assert!(!violated(
            Preference::OneQuestion,
            "Who wouldn't want shorter standups? Anyway, should I move ours to 9:45?"
        ));
        assert!(!violated(
            Preference::OneQuestion,
            "Why is the dashboard slow? It's the unindexed join on `events`. Should I add the index?"
        ));
        for m in [
            "Why did the sync stop? Your token expired on Monday. Should I request a new one?",
            "Ever wondered why nobody opens the wiki? I think search is broken. Should I fix it?",
        ] {
            assert!(!violated(Preference::OneQuestion, m), "{m}");
        }
    }

    #[test]
    fn capitals_must_be_english_and_short_italian_is_italian() {
        assert!(violated(
            Preference::Capital,
            "POSSO SPOSTARE LA RIUNIONE ALLE 15?"
        ));
        assert!(violated(Preference::Capital, "DOIS-JE ENVOYER LE DEVIS ?"));
        assert!(violated(
            Preference::Capital,
            "¿RESERVO LA MESA PARA TU CENA?"
        ));
        assert!(!violated(
            Preference::Capital,
            "SHOULD THE CAFÉ MENU LIST PRICES IN EUR?"
        ));
        for m in ["Continuo?", "Va bene così?", "Lo mando domani?"] {
            assert!(!violated(Preference::LangIta, m), "{m}");
        }
    }

    #[test]
    fn lists_headings_and_emoji_are_not_sentences() {
        assert!(!violated(
            Preference::Length,
            "I checked both vendors.\n- Alpha: 3 days\n- Beta: 5 days\nBeta is cheaper. Which one should I book?"
        ));
        assert!(!violated(
            Preference::ConciseQuestion,
            "Should I water the tomatoes at 7 p.m. tonight? 🌱"
        ));
        assert!(!violated(
            Preference::Length,
            "Boarding starts at gate C. The flight is on time. Shall I check you in?"
        ));
    }

    #[test]
    fn questions_without_marks_and_full_alternatives_count() {
        for m in [
            "Which region are you deploying to. And what budget do you have",
            "Should I pause the campaign? Or would you rather lower the bid?",
            "Can you check the meter reading and tell me which tariff you are on?",
            "Paste the failing test output. Which Node version do you run?",
            "Let me know the venue and the headcount for the offsite.",
            "Tell me the invoice date and whether VAT applies.",
            "Can you send the crash log? I also need to know which phone model you use.",
            "Which bay gets the trailer? Please also tell me when the driver arrives.",
        ] {
            assert!(violated(Preference::OneQuestion, m), "{m}");
        }
        for m in [
            "What we need is one more reviewer. Can you add Dana?",
            "Should I pause the campaign? Or lower the bid?",
        ] {
            assert!(!violated(Preference::OneQuestion, m), "{m}");
        }
    }

    #[test]
    fn a_list_quoted_from_a_named_source_is_a_snippet() {
        assert!(!violated(
            Preference::Snippet,
            "From the setup guide at https://docs.example.org/setup:\n1. Install the CLI.\n2. Run `init`.\n3. Log in.\nShall I do this on the build box?"
        ));
        assert!(!violated(
            Preference::Snippet,
            "Clause 7 of the lease (Docs/lease_2026.pdf) reads:\n\u{201c}7.1 No pets.\n7.2 No smoking.\n7.3 Quiet after 10 p.m.\u{201d}\nShould I ask the landlord about a cat?"
        ));
        assert!(violated(
            Preference::Snippet,
            "I read `docs/setup.md` and it covers:\n- installing\n- configuring\n- running\nShould I add a testing section?"
        ));
        assert!(violated(
            Preference::Snippet,
            "I see three ways forward (details at https://example.org/plan):\n1. Retry.\n2. Skip.\n3. Abort.\nWhich one?"
        ));
    }

    #[test]
    fn paths_with_line_ranges_name_the_snippet() {
        assert!(is_path("src/app.py:40-52"));
        assert!(is_path("lib/auth/token.ts:7:3"));
        assert!(!is_path("12:30"));
        let m = "Looking at src/app.py:40-52, the loop is:\n    for row in rows:\n        total += row.amount\n    return total\nShould I vectorize it?";
        assert!(
            !violated(Preference::Snippet, m),
            "an indented block right after a colon is quoted"
        );
    }

    #[test]
    fn paths_urls_and_code_spans_are_not_options() {
        for m in [
            "Should the new handler go in src/api/v2/ as well?",
            "Is the handler you mean the one in src/api/v2?",
            "I found them under tests/data/golden/. Regenerate?",
            "Can you check whether `config/dev/app` still exists?",
            "Is it in ./deploy/k8s?",
            "Is it in ~/work/app?",
            "Did you mean docs.rs/tokio/latest?",
            "Can you open C:\\app\\v2/conf?",
        ] {
            assert!(violated(Preference::DoSelection, m), "{m}");
        }
        for m in [
            "Should I put the new route in src/api/v1/ or src/api/v2/?",
            "Which output format do you want: CSV/JSON/Parquet?",
            "Do you prefer red/green/blue?",
            "Indent with 2/4/8 spaces?",
        ] {
            assert!(!violated(Preference::DoSelection, m), "{m}");
        }
    }

    #[test]
    fn quoted_prompts_and_code_are_not_questions() {
        for m in [
            "The CLI prints \"Continue? [y/N]\" and waits. Should I pass --yes?",
            "The installer asks \"Overwrite existing config?\" on every run. Answer it?",
            "Should the setup script answer the \u{201c}Proceed?\u{201d} prompt with yes?",
            "The release tool asks \"Tag this commit?\" Do you want a tag?",
            "The helper is `valid?` and the other `empty?`. Should I rename both?",
        ] {
            assert!(!violated(Preference::OneQuestion, m), "{m}");
        }
        assert!(violated(
            Preference::OneQuestion,
            "It says \"Discard?\" today. Should it say \"Save?\" instead, and should the default change?"
        ));
    }

    #[test]
    fn elliptical_second_questions_count() {
        for m in [
            "Which columns should I include, and in what format?",
            "Should I pause the ingestion job, and for how long?",
            "Should I add a changelog entry, and if so under which version?",
        ] {
            assert!(violated(Preference::OneQuestion, m), "{m}");
            assert!(!violated(Preference::ConciseQuestion, m), "{m}");
        }
        for m in [
            "In what format should I export the selected columns?",
            "Do you want the report grouped by region and by product line?",
        ] {
            assert!(!violated(Preference::OneQuestion, m), "{m}");
        }
    }

    #[test]
    fn a_backticked_path_names_the_snippet_and_is_not_quoted() {
        let ok = "`src/config/loader.rs`\n```rust\nlet a = 1;\nlet b = 2;\nlet c = 3;\n```\nFine?";
        assert!(!violated(Preference::Snippet, ok));
        let two = "`crates/cli/src/main.rs`\n```rust\nlet a = 1;\nrun(a)?;\n```\nFine?";
        assert!(violated(Preference::Snippet, two));
        let prose = "From `web/users.py`:\n```python\na = 1\nb = 2\nc = 3\n```\nOk?";
        assert!(!violated(Preference::Snippet, prose));
        // A line that is one span of code (not a path) is still quoted.
        let spans = "In app.py:\n`a = 1`\n`b = 2`\n`c = 3`\nOk?";
        assert!(!violated(Preference::Snippet, spans));
        assert!(is_path("`web/users.py`:") && is_path("(src/a.rs)."));
    }

    #[test]
    fn a_number_with_a_unit_ends_a_sentence() {
        let three = "The cold start takes 3.5 s. That is above our 2 s budget. Cache it?";
        assert!(!violated(Preference::Length, three));
        assert!(violated(
            Preference::ConciseQuestion,
            "The p95 latency is 3.5 s. Is that acceptable?"
        ));
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
