//! Language rules: `lang_ita` (the prose is Italian, with no English
//! sentence or clause) and `capital` (all in capitals, and English), with
//! the function words and formulas they judge by.

use tact_core::split_sentences;

use super::TextChecker;
use crate::preference::Preference;
use crate::violation::{Span, Violation};

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

impl TextChecker {
    pub(super) fn lang_ita(&self, message: &str) -> Option<Violation> {
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

    pub(super) fn capital(&self, message: &str) -> Option<Violation> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::tests::violated;

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
}
