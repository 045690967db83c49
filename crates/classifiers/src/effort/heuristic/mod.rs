//! The default effort strategy: weighted cues (English, Spanish, German, Italian)
//! scored per question part, the highest part deciding.
//!
//! Each part gets three scores. Low gathers offered options and yes/no
//! confirmations of a concrete proposal; medium gathers open preference or
//! decision elicitation and requests to describe what the user knows; high
//! gathers investigation, running or measuring things, fetching data the
//! user does not have at hand, asking other people, and blocking
//! architecture or strategy decisions. When the agent proposes to do the
//! work itself ("Should I investigate ...?") the investigation is the
//! agent's, so those cues count little. Data the user already has in front
//! of them ("the error you just saw") moves a fetch request to medium.
//!
//! The cue tables are in `cues`, the matching against the user's
//! `context` in `context`; this module scores the parts.

mod context;
mod cues;

use std::sync::OnceLock;

use smallvec::SmallVec;
use tact_core::{CueHit, CueSet, extract_questions, normalize};
use tact_types::{Classification, EffortLevel, Reason};

use crate::Error;

use context::{Context, context_answers};
use cues::{
    BARE_VERB_SET, ES_NOT_VERB_SET, build_cues, build_italian_cues, build_rare_cues, part_splitter,
    tag,
};

/// Whether the part opens with a bare verb: an English imperative
/// ("Ship it?"), a Spanish first-person present ("¿Borro la rama?") or an
/// Italian one ("Procedo con il merge?").
fn bare_verb_start(part: &str) -> bool {
    match ascii_lead_word(part) {
        Some(first) => bare_verb_word(part, first),
        None => {
            let mut words = tact_core::words(part);
            let first = skip_lead_ins(words.next(), &mut words);
            first.is_some_and(|w| bare_verb_word(part, w))
        }
    }
}

/// The first word of `part` after the lead-ins of [`is_lead_in`], found
/// without UAX #29 segmentation when the text makes that safe: ASCII
/// letters and digits up to a space or punctuation that never joins words.
/// `None` when a UAX #29 rule could apply (non-ASCII, `_`, or `.`, `'`,
/// `:`, `,`, `;` between word characters): the caller then segments.
fn ascii_lead_word(part: &str) -> Option<&str> {
    let bytes = part.as_bytes();
    let mut pos = 0usize;
    loop {
        // Skip to the next word character.
        while let Some(&b) = bytes.get(pos) {
            if b.is_ascii_alphanumeric() {
                break;
            }
            if !b.is_ascii() || b == b'_' {
                return None;
            }
            pos += 1;
        }
        if pos >= bytes.len() {
            return Some("");
        }
        let start = pos;
        while bytes.get(pos).is_some_and(u8::is_ascii_alphanumeric) {
            pos += 1;
        }
        match bytes.get(pos) {
            None => {}
            Some(&b) if !b.is_ascii() || b == b'_' => return None,
            Some(b'.' | b'\'' | b':' | b',' | b';')
                if bytes
                    .get(pos + 1)
                    .is_some_and(|n| n.is_ascii_alphanumeric() || !n.is_ascii() || *n == b'_') =>
            {
                return None;
            }
            Some(_) => {}
        }
        let word = part.get(start..pos)?;
        if !is_lead_in(word) {
            return Some(word);
        }
    }
}

/// Longest piece of text around a question that may be a greeting or
/// thanks alone ("Thanks in advance for your help!" is 32 bytes).
const COURTESY_BYTES: usize = 48;

/// Whether a normalized text opens as a question does, with or without its
/// mark: after "and" or "also", an English interrogative word or auxiliary
/// ([`tact_core::text::opens_interrogative`]) or one of the other
/// languages the cues read.
fn opens_question(n: &str) -> bool {
    let mut words = n
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty());
    let mut first = words.next().unwrap_or("");
    while matches!(first, "and" | "also" | "or" | "then" | "plus") {
        first = words.next().unwrap_or("");
    }
    tact_core::text::opens_interrogative(first)
        || matches!(
            first,
            // Spanish, German, Portuguese and Polish (normalized: no accents).
            "que"
                | "cual"
                | "cuales"
                | "como"
                | "donde"
                | "cuando"
                | "quien"
                | "quieres"
                | "debo"
                | "puedo"
                | "prefieres"
                | "soll"
                | "sollen"
                | "kann"
                | "konnen"
                | "mochtest"
                | "willst"
                | "wie"
                | "welche"
                | "welcher"
                | "welches"
                | "wo"
                | "wann"
                | "warum"
                | "quer"
                | "posso"
                | "devo"
                | "qual"
                | "quais"
                | "czy"
                | "jak"
                | "jaki"
                | "jaka"
                | "ktory"
                | "ktora"
                // Italian.
                | "cosa"
                | "che"
                | "quale"
                | "quali"
                | "come"
                | "dove"
                | "quando"
                | "chi"
                | "perche"
                | "quanto"
                | "quanti"
                | "quante"
                | "vuoi"
                | "preferisci"
                | "puoi"
                | "potresti"
                | "procedo"
        )
}

/// Whether the part asks whether something exists ("is there ...", "are
/// there ...", after decoration such as `**` or emoji).
fn asks_what_exists(part: &str) -> bool {
    let rest = part.trim_start_matches(|c: char| !c.is_alphanumeric());
    rest.starts_with("is there ") || rest.starts_with("are there ")
}

/// Skips the lead-in words of [`is_lead_in`] (an exhausted iterator gives
/// `Some("")`, as the segmenting path always did).
fn skip_lead_ins<'a>(
    first: Option<&'a str>,
    words: &mut impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut first = first?;
    while is_lead_in(first) {
        first = words.next().unwrap_or("");
    }
    Some(first)
}

/// Whether `first` (the first word after the lead-ins) makes `part` a
/// terse proposal.
fn bare_verb_word(part: &str, first: &str) -> bool {
    if BARE_VERB_SET.contains(first) || gerund_of_bare_verb(first) {
        return true;
    }
    first.chars().count() >= 4
        && first.ends_with('o')
        && part.trim_start().starts_with('¿')
        && !ES_NOT_VERB_SET.contains(first)
}

/// Whether `word` is the -ing form of a verb of [`BARE_VERB_SET`]: a
/// terse option offered as a gerund ("Updating the callers too?",
/// "Adding tests first?"). The stem as it is ("adding"), with its doubled
/// last letter dropped ("running"), or with an `e` ("updating").
fn gerund_of_bare_verb(word: &str) -> bool {
    let Some(stem) = word.strip_suffix("ing").filter(|s| s.len() >= 2) else {
        return false;
    };
    if BARE_VERB_SET.contains(stem) {
        return true;
    }
    let b = stem.as_bytes();
    if b.len() >= 3 && b[b.len() - 1] == b[b.len() - 2] {
        if let Some(single) = stem.get(..stem.len() - 1) {
            if BARE_VERB_SET.contains(single) {
                return true;
            }
        }
    }
    // "updat" + "e": a few bytes on the stack, no allocation.
    let mut buf = [0u8; 24];
    if stem.len() < buf.len() {
        buf[..stem.len()].copy_from_slice(b);
        buf[stem.len()] = b'e';
        if let Ok(with_e) = std::str::from_utf8(&buf[..=stem.len()]) {
            return BARE_VERB_SET.contains(with_e);
        }
    }
    false
}

/// Words skipped before the verb of a terse proposal ("ok, so merge it").
fn is_lead_in(first: &str) -> bool {
    matches!(
        first,
        "ok" | "okay"
            | "so"
            | "also"
            | "and"
            | "then"
            | "y"
            | "und"
            | "la"
            | "lo"
            | "le"
            | "las"
            | "los"
            | "les"
            | "me"
            | "te"
            | "se"
            | "nos"
            | "ya"
            | "entonces"
            | "allora"
            | "quindi"
            | "perfetto"
            | "ottimo"
            | "bene"
            | "li"
            | "ne"
            | "gli"
            | "ci"
    )
}

/// Whether a normalized question may hold several parts: a space, then
/// `and`, `y`, `und`, `e`, `also` or `plus`, then a space (one scan of the
/// spaces instead of six substring searches).
fn has_part_connective(n: &str) -> bool {
    let b = n.as_bytes();
    (0..b.len()).any(|i| {
        b[i] == b' '
            && matches!(
                b.get(i + 1..).unwrap_or_default(),
                [b'a', b'n', b'd', b' ', ..]
                    | [b'y', b' ', ..]
                    | [b'e', b' ', ..]
                    | [b'u', b'n', b'd', b' ', ..]
                    | [b'a', b'l', b's', b'o', b' ', ..]
                    | [b'p', b'l', b'u', b's', b' ', ..]
            )
    })
}

/// The names of the cues and markers that fired (the learned model's extra
/// features), inline for the usual few.
pub(crate) type Extras = SmallVec<[&'static str; 24]>;

#[derive(Debug, Clone)]
pub(crate) struct Heuristic {
    /// The process's effort cues (built once, shared by every classifier).
    cues: &'static CueSet,
}

/// The splitter between the parts of a question, compiled the first time
/// a question has a part connective (a tenth of a `tact effort` call went
/// to compiling it up front).
static SPLITTER: OnceLock<Option<regex::Regex>> = OnceLock::new();

/// The part splitter, or `None` (after one logged error) if it failed to
/// compile: questions are then not split.
fn splitter() -> Option<&'static regex::Regex> {
    SPLITTER
        .get_or_init(|| {
            part_splitter()
                .map_err(|e| tracing::error!(error = %e, "the part splitter failed to compile"))
                .ok()
        })
        .as_ref()
}

/// The effort cues of the process.
static CUES: OnceLock<Result<CueSet, String>> = OnceLock::new();
/// The rare cues, run only where a trigger word fires: built on first use.
static RARE: OnceLock<Result<CueSet, String>> = OnceLock::new();
/// The Italian cues, run only where an Italian word fires: built on first
/// use, so a process that reads no Italian never builds them.
static ITALIAN: OnceLock<Result<CueSet, String>> = OnceLock::new();

#[derive(Default, Clone, Copy)]
struct Scores {
    low: f32,
    medium: f32,
    high: f32,
}

impl Heuristic {
    pub(crate) fn new() -> Result<Self, Error> {
        Ok(Self {
            cues: crate::once::shared(&CUES, build_cues)?,
        })
    }

    pub(crate) fn classify(
        &self,
        question: &str,
        context: Option<&str>,
    ) -> Classification<EffortLevel> {
        self.classify_traced(question, context, None).0
    }

    /// Classifies, and returns the gap between the deciding part's top two
    /// scores; with `trace`, also pushes the names of the cues and markers
    /// that fired (the learned model's extra features) and returns
    /// `normalize(question)` when it was computed on the way (a question
    /// that is one sentence, or none).
    pub(crate) fn classify_traced(
        &self,
        question: &str,
        context: Option<&str>,
        mut trace: Option<&mut Extras>,
    ) -> (Classification<EffortLevel>, f32, Option<String>) {
        let ctx_text = context.map(normalize).filter(|c| !c.is_empty());
        // The parts: each question sentence (with its option list), split
        // again at "and what/which/should ...". No question sentence: the
        // whole text. The other sentences (the preamble) lend their
        // evidence to every part.
        let mut segments = extract_questions(question);
        if segments.is_empty() {
            // No sentence reads as a question by its mark: those that open
            // as one are the questions ("I found eleven. Shall I remove
            // them"), else the whole text (a bold line) is, split into
            // parts all the same.
            segments = tact_core::split_sentences(question)
                .into_iter()
                .filter(|s| !s.is_code && opens_question(&normalize(s.text(question))))
                .collect();
            if segments.is_empty() && !question.trim().is_empty() {
                segments.push(tact_core::Segment {
                    start: 0,
                    end: question.len(),
                    is_code: false,
                });
            }
        }
        // Most questions have one or two parts: kept inline.
        let mut parts: SmallVec<[String; 2]> = SmallVec::new();
        // `normalize(question)`: the only part, or the split segment.
        let mut whole_is_part = false;
        let mut whole: Option<String> = None;
        let mut preamble = String::new();
        let mut add_preamble = |piece: &str| {
            // "Hi!" or "Thanks!" around the question lend it nothing.
            // (A courtesy is short: a longer piece is not normalized twice.)
            let courtesy =
                piece.len() <= COURTESY_BYTES && crate::opening::is_courtesy(&normalize(piece));
            if !piece.trim().is_empty() && !courtesy {
                preamble.push_str(piece);
                preamble.push(' ');
            }
        };
        if segments.is_empty() {
            parts.push(normalize(question));
            whole_is_part = true;
        } else {
            let mut last_end = 0;
            for s in &segments {
                if let Some(between) = question.get(last_end..s.start) {
                    add_preamble(between);
                }
                last_end = s.end;
                let n = normalize(s.text(question));
                let is_whole = s.start == 0 && s.end == question.len();
                let may_split = has_part_connective(&n);
                if !may_split {
                    whole_is_part = is_whole;
                    parts.push(n);
                    continue;
                }
                let mut last = 0;
                for m in splitter().into_iter().flat_map(|s| s.find_iter(&n)) {
                    let piece = n[last..m.start()].trim();
                    if !piece.is_empty() {
                        parts.push(piece.to_owned());
                    }
                    last = m.start();
                }
                let piece = n[last..].trim_start_matches([',', ';', ' ', '-']);
                let piece = piece
                    .strip_prefix("and ")
                    .or_else(|| piece.strip_prefix("also "))
                    .unwrap_or(piece);
                // "... and when?" continues the part before it.
                match parts.last_mut() {
                    Some(prev) if last > 0 && tact_core::word_count(piece) < 3 => {
                        prev.push(' ');
                        prev.push_str(piece);
                    }
                    _ => parts.push(piece.to_owned()),
                }
                if is_whole {
                    whole = Some(n);
                }
            }
            if let Some(rest) = question.get(last_end..) {
                // "Should I add the index? And what should the column be
                // called": a last question without its mark is a part.
                let n = normalize(rest);
                if opens_question(&n) {
                    parts.push(n);
                } else {
                    add_preamble(rest);
                }
            }
        }
        let preamble = normalize(&preamble);
        let pre_hits = if preamble.is_empty() {
            Vec::new()
        } else {
            self.cues.hits_unlocated(&preamble)
        };
        let extra = Extra::from_preamble(&pre_hits);
        if let Some(t) = trace.as_deref_mut() {
            t.extend(extra.taken.iter().map(|h| h.cue.name));
            if extra.at_hand {
                t.push("preamble_at_hand");
            }
            if !preamble.is_empty() {
                t.push("has_preamble");
            }
            if ctx_text.is_some() {
                t.push("has_context");
            }
            if parts.len() > 1 {
                t.push("multi_part");
            }
        }
        let norm_ctx = ctx_text.as_deref().map(|c| Context::new(c, parts.len()));
        // Reasons are written for the deciding part only.
        let mut best: Option<(&str, PartDecision<'_>)> = None;
        for part in &parts {
            // "1. Would you like ...?", "> **Should I ...?**": the list
            // marker or decoration before a question is not part of it.
            let part = crate::opening::unframed(part);
            let d = self.classify_part(part, norm_ctx.as_ref(), &extra, trace.as_deref_mut());
            let better = match &best {
                None => true,
                Some((_, b)) => d.label > b.label || (d.label == b.label && d.conf > b.conf),
            };
            if better {
                best = Some((part, d));
            }
        }
        let (label, conf, gap, mut reasons) = match best {
            Some((part, d)) => (d.label, d.conf, d.gap, d.reasons(part, &extra, &preamble)),
            None => (EffortLevel::Medium, 0.34, 0.0, Vec::new()),
        };
        if parts.len() > 1 {
            let mut detail = String::with_capacity(32);
            crate::detail::push_count(&mut detail, parts.len() as u64);
            detail.push_str(" parts; the highest decides");
            reasons.push(Reason::new("multi_part", detail, 0.0));
        }
        let normalized = match trace {
            Some(_) if whole_is_part && parts.len() == 1 => parts.pop(),
            Some(_) => whole,
            None => None,
        };
        (
            Classification::new(label, conf).with_reasons(reasons),
            gap,
            normalized,
        )
    }

    fn classify_part<'c>(
        &'c self,
        part: &str,
        ctx: Option<&Context<'_>>,
        extra: &Extra<'_>,
        mut trace: Option<&mut Extras>,
    ) -> PartDecision<'c> {
        let mut hits = self.cues.hits_unlocated(part);
        if hits.iter().any(|h| h.cue.tag == tag::TRIGGER) {
            if let Some(rare) = crate::once::lazy(&RARE, build_rare_cues) {
                hits.extend(rare.hits_unlocated(part));
            }
        }
        if hits.iter().any(|h| h.cue.tag == tag::ITALIAN) {
            if let Some(italian) = crate::once::lazy(&ITALIAN, build_italian_cues) {
                hits.extend(italian.hits_unlocated(part));
            }
        }
        let bare = bare_verb_start(part);
        if let Some(t) = trace.as_deref_mut() {
            t.extend(hits.iter().map(|h| h.cue.name));
            if bare {
                t.push("bare_verb");
            }
        }
        // Per-tag weight sums and counts, in one pass.
        let mut sums = [0.0f32; 32];
        let mut counts = [0u8; 32];
        for h in &hits {
            let t = usize::from(h.cue.tag) & 31;
            sums[t] += h.cue.weight;
            counts[t] = counts[t].saturating_add(1);
        }
        let has = |t: u16| counts[usize::from(t) & 31] > 0;
        let sum = |t: u16| sums[usize::from(t) & 31];
        if let Some(ctx) = ctx {
            // An answer in the context counts, unless the question asks for
            // the live state of things ("today", "in production").
            if !has(tag::LIVE) {
                if let Some(reason) = context_answers(part, ctx) {
                    if let Some(t) = trace {
                        t.push("context_answers");
                    }
                    return PartDecision {
                        label: EffortLevel::Low,
                        conf: 0.8,
                        gap: CONTEXT_GAP,
                        hits: Vec::new(),
                        bare,
                        proposal: false,
                        at_hand: false,
                        fact_lookup: false,
                        context: Some(reason),
                    };
                }
            }
        }
        let proposal = has(tag::PROPOSAL) || bare;
        let at_hand = has(tag::AT_HAND) || extra.at_hand;
        let modal = has(tag::MODAL) || has(tag::ELICIT);
        let describe = has(tag::DESCRIBE);
        let about_you = has(tag::YOU);
        let mut s = Scores {
            medium: 0.4,
            ..Scores::default()
        };
        // Low evidence.
        // "Is there a specific function or system ...?", "Are there any
        // constraints or requirements ...?": the `or` joins two nouns of
        // an open question about what exists, it offers nothing to pick.
        let options = if asks_what_exists(part) {
            sum(tag::OPTIONS)
                - hits
                    .iter()
                    .filter(|h| h.cue.name == "explicit_options")
                    .map(|h| h.cue.weight)
                    .sum::<f32>()
        } else {
            sum(tag::OPTIONS)
        };
        s.low += sum(tag::PROPOSAL) + sum(tag::CONFIRM) + options + sum(tag::YESNO);

        s.low += extra.options;
        if bare {
            s.low += 2.0;
        }
        // Medium evidence.
        // In a yes/no on the user's wishes ("Would you like a patch to
        // ...?") the modal is the yes/no's own words, no second preference.
        let modal_weight = if has(tag::YESNO) {
            0.0
        } else {
            sum(tag::MODAL)
        };
        s.medium += sum(tag::ELICIT) + sum(tag::OPEN) + modal_weight + sum(tag::DESCRIBE);
        // High evidence. The agent's own proposed work costs the user little,
        // and "what should X be" asks for a wish, not for data.
        let agent_work = if proposal { 0.25 } else { 1.0 };
        let wish = if modal { 0.3 } else { 1.0 };
        s.high += sum(tag::INVESTIGATE) * agent_work;
        s.high += sum(tag::STRATEGY) * if proposal { 0.3 } else { 1.0 };
        s.high += sum(tag::USER_ACTION) + sum(tag::YOU_NEED) + sum(tag::OTHERS) * agent_work;
        s.high += sum(tag::DIAG) * agent_work;
        let data = (sum(tag::DATA) + sum(tag::QUANT) + sum(tag::FACT) + sum(tag::LIVE))
            * wish
            * agent_work;
        if at_hand {
            s.medium += data;
        } else {
            s.high += data;
        }
        // An open question about things, not about the user's wishes or
        // knowledge, asks for a fact the user must look up.
        let asks_person = has(tag::WHO);
        let fact_lookup =
            has(tag::OPEN) && !modal && !describe && !about_you && !proposal && !asks_person;
        if fact_lookup && at_hand {
            s.medium += FACT_LOOKUP;
        } else if fact_lookup {
            s.high += FACT_LOOKUP;
        }
        if has(tag::DECIDE) && (has(tag::STRATEGY) || extra.strategy > 0.0) {
            s.high += sum(tag::DECIDE);
        } else {
            s.medium += sum(tag::DECIDE);
        }
        s.high += extra.high;
        let label = if s.high >= s.low.max(s.medium) && s.high > 0.0 {
            EffortLevel::High
        } else if s.low >= s.medium {
            EffortLevel::Low
        } else {
            EffortLevel::Medium
        };
        PartDecision {
            label,
            conf: softmax_winner(s, label),
            gap: top_two_gap(s),
            hits,
            bare,
            proposal,
            at_hand,
            fact_lookup,
            context: None,
        }
    }
}

/// One part's decision, with what its reasons are written from (only the
/// deciding part's are).
struct PartDecision<'c> {
    label: EffortLevel,
    conf: f32,
    gap: f32,
    hits: Vec<CueHit<'c>>,
    bare: bool,
    proposal: bool,
    at_hand: bool,
    fact_lookup: bool,
    /// Set when the context answers the part (its only reason).
    context: Option<Reason>,
}

impl PartDecision<'_> {
    /// The reasons for the decision: the supporting cues by weight, then
    /// the markers and the surrounding text's evidence; `default` when
    /// there is none.
    fn reasons(self, part: &str, extra: &Extra<'_>, preamble: &str) -> Vec<Reason> {
        if let Some(reason) = self.context {
            return vec![reason];
        }
        let label = self.label;
        let mut reasons = reasons_for(
            self.hits,
            part,
            label,
            self.proposal,
            self.at_hand,
            label == EffortLevel::Low && self.bare,
        );
        if label == EffortLevel::High && self.fact_lookup {
            reasons.push(Reason::new(
                "fact_lookup",
                "asks for a fact about systems or data, not a wish",
                FACT_LOOKUP,
            ));
        }
        // The surrounding text's evidence for a low or high label.
        reasons.extend(
            extra
                .taken
                .iter()
                .filter(|h| {
                    let option = h.cue.name.starts_with("explicit_options")
                        || h.cue.name.starts_with("option_");
                    match label {
                        EffortLevel::Low => option,
                        EffortLevel::High => !option,
                        EffortLevel::Medium => false,
                    }
                })
                .map(|h| preamble_reason(h, preamble)),
        );
        if reasons.is_empty() {
            reasons.push(Reason::new("default", "no strong cue; open request", 0.0));
        }
        reasons
    }
}

/// The gap reported when the context answers the question (a decided
/// case, as strong as a clear cue).
const CONTEXT_GAP: f32 = 2.0;

/// The top score minus the runner-up's.
fn top_two_gap(s: Scores) -> f32 {
    let mut v = [s.low, s.medium, s.high];
    v.sort_by(|a, b| b.total_cmp(a));
    v[0] - v[1]
}

/// Weight of an open question about facts rather than wishes.
const FACT_LOOKUP: f32 = 1.3;

/// Evidence from the sentences around the questions: "You'd have to run
/// the stress test", "I couldn't find it", "I can do A or B", "This affects
/// isolation and cost".
#[derive(Debug, Default)]
struct Extra<'c> {
    high: f32,
    strategy: f32,
    options: f32,
    at_hand: bool,
    /// The hits that lend evidence (their reasons are written only for
    /// the decision they support).
    taken: SmallVec<[CueHit<'c>; 4]>,
}

impl<'c> Extra<'c> {
    fn from_preamble(hits: &[CueHit<'c>]) -> Self {
        let mut e = Extra::default();
        for h in hits {
            let take = match h.cue.tag {
                tag::YOU_NEED => {
                    e.high += h.cue.weight;
                    true
                }
                tag::DATA if h.cue.name == "not_at_hand" => {
                    e.high += h.cue.weight;
                    true
                }
                tag::STRATEGY => {
                    e.strategy += h.cue.weight;
                    e.high += h.cue.weight * 0.7;
                    true
                }
                tag::OPTIONS => {
                    e.options = e.options.max(1.5);
                    true
                }
                tag::AT_HAND => {
                    e.at_hand = true;
                    false
                }
                _ => false,
            };
            if take {
                e.taken.push(*h);
            }
        }
        e
    }
}

/// The reason of a hit in the surrounding text (`text`, the normalized
/// preamble it was found in).
fn preamble_reason(h: &CueHit<'_>, text: &str) -> Reason {
    const WHERE: &str = " (in the surrounding text)";
    let m = span_text(h, text);
    let mut detail = String::with_capacity(h.cue.explanation.len() + WHERE.len() + m.len() + 4);
    detail.push_str(h.cue.explanation);
    detail.push_str(WHERE);
    if !m.is_empty() {
        detail.push_str(": `");
        detail.push_str(m);
        detail.push('`');
    }
    Reason::new(h.cue.name, detail, h.cue.weight)
}

fn softmax_winner(s: Scores, label: EffortLevel) -> f32 {
    let t = 1.5;
    let (l, m, h) = ((s.low * t).exp(), (s.medium * t).exp(), (s.high * t).exp());
    let total = l + m + h;
    let w = match label {
        EffortLevel::Low => l,
        EffortLevel::Medium => m,
        EffortLevel::High => h,
    };
    if total.is_finite() && total > 0.0 {
        w / total
    } else {
        0.34
    }
}

fn supports(tag: u16, label: EffortLevel, proposal: bool, at_hand: bool) -> bool {
    use tag::*;
    match label {
        EffortLevel::Low => matches!(tag, PROPOSAL | CONFIRM | OPTIONS | YESNO),
        EffortLevel::Medium => {
            matches!(tag, ELICIT | OPEN | DECIDE | MODAL | DESCRIBE) || (tag == DATA && at_hand)
        }
        EffortLevel::High => {
            matches!(tag, USER_ACTION | STRATEGY | DECIDE | YOU_NEED)
                || (matches!(tag, INVESTIGATE | OTHERS | DIAG | QUANT | FACT) && !proposal)
                || (tag == DATA && !at_hand)
        }
    }
}

/// The matched text of a literal hit; regex hits are not located (that
/// would cost a second search per cue), so they give "".
fn span_text<'t>(hit: &CueHit<'_>, text: &'t str) -> &'t str {
    text.get(hit.start..hit.end).unwrap_or("").trim()
}

/// The reasons of the hits supporting `label`, heaviest first (ties in
/// text order), after a leading `bare_proposal` when `bare`.
fn reasons_for(
    mut hits: Vec<CueHit<'_>>,
    part: &str,
    label: EffortLevel,
    proposal: bool,
    at_hand: bool,
    bare: bool,
) -> Vec<Reason> {
    hits.retain(|h| supports(h.cue.tag, label, proposal, at_hand));
    // A stable sort of the small hits rather than of the reasons built
    // from them.
    hits.sort_by(|a, b| b.cue.weight.total_cmp(&a.cue.weight));
    let mut out: Vec<Reason> = Vec::with_capacity(hits.len() + 3);
    if bare {
        out.push(Reason::new(
            "bare_proposal",
            "opens with a verb: a terse proposal",
            2.0,
        ));
    }
    out.extend(hits.iter().map(|h| {
        let matched = span_text(h, part);
        // At most 48 characters quoted (bytes bound characters).
        let detail: std::borrow::Cow<'static, str> =
            if matched.is_empty() || (matched.len() > 48 && matched.chars().count() > 48) {
                h.cue.explanation.into()
            } else {
                [h.cue.explanation, ": `", matched, "`"].concat().into()
            };
        Reason::new(h.cue.name, detail, h.cue.weight)
    }));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The segmenting path alone, as `bare_verb_start` was before its
    /// ASCII fast path.
    fn bare_verb_start_segmented(part: &str) -> bool {
        let mut words = tact_core::words(part);
        let first = skip_lead_ins(words.next(), &mut words);
        first.is_some_and(|w| bare_verb_word(part, w))
    }

    #[test]
    fn the_ascii_fast_path_agrees_with_segmentation_on_tricky_words() {
        for part in [
            "",
            "ok",
            "ok, so merge it?",
            "merge it?",
            "e.g. merge",
            "don't merge",
            "re-run the job?",
            "run_all now",
            "3.5 merge",
            "1,000 rows",
            "so: merge",
            "¿borro la rama?",
            "and then deploy",
            "  ...  ship it",
            "ship.it",
            "ship: it",
        ] {
            assert_eq!(
                bare_verb_start(part),
                bare_verb_start_segmented(part),
                "{part:?}"
            );
        }
    }

    #[test]
    fn gerunds_of_the_bare_verbs() {
        for w in [
            "adding",
            "running",
            "updating",
            "reviewing",
            "using",
            "mocking",
        ] {
            assert!(gerund_of_bare_verb(w), "{w}");
        }
        for w in [
            "something",
            "ing",
            "king",
            "string",
            "bring",
            "recording",
            "",
        ] {
            assert!(!gerund_of_bare_verb(w), "{w}");
        }
        assert!(!gerund_of_bare_verb(&format!("{}ing", "a".repeat(40))));
    }

    #[test]
    fn the_traced_normalization_is_the_question_normalized() {
        let h = Heuristic::new().expect("cues compile");
        let mut returned = 0;
        for q in [
            "Should I use Postgres or SQLite?",
            "Should I ship it and what should the changelog say?",
            "deploy now",
            "  Padded question?  ",
            "\u{b}Should I?",
            "The build failed. Should I retry?",
            "¿Quieres que lo despliegue y cuándo?",
            "",
        ] {
            let mut trace = Extras::new();
            let (_, _, n) = h.classify_traced(q, None, Some(&mut trace));
            if let Some(n) = n {
                assert_eq!(n, normalize(q), "{q:?}");
                returned += 1;
            }
            assert!(h.classify_traced(q, None, None).2.is_none());
        }
        assert!(returned >= 4, "{returned}");
    }

    proptest! {
        #[test]
        fn the_traced_normalization_is_the_question_normalized_for_any_text(
            q in "(?s).{0,80}",
        ) {
            static H: std::sync::LazyLock<Heuristic> =
                std::sync::LazyLock::new(|| Heuristic::new().expect("cues compile"));
            let mut trace = Extras::new();
            if let Some(n) = H.classify_traced(&q, None, Some(&mut trace)).2 {
                prop_assert_eq!(n, normalize(&q));
            }
        }


        #[test]
        fn part_connective_scan_agrees_with_substring_search(
            n in "( |and|also|plus|und|y|e|x|a|nd|lso){0,12}",
        ) {
            let naive = [" and ", " y ", " und ", " e ", " also ", " plus "]
                .iter()
                .any(|w| n.contains(w));
            prop_assert_eq!(has_part_connective(&n), naive);
        }
    }

    proptest! {
        #[test]
        fn the_ascii_fast_path_agrees_with_segmentation(
            part in "[a-z0-9 .,:;'_?!()-]{0,24}|(ok|so|also|and|then) (merge|ship|run|deploy|keep)[ .,:'a-z]{0,8}"
        ) {
            prop_assert_eq!(bare_verb_start(&part), bare_verb_start_segmented(&part));
        }
    }
}
