//! Word splitting: [`words`] by Unicode word boundaries (UAX #29, with a
//! byte-level path for ASCII text) and [`reader_words`] as a reader counts
//! them, with their counts.

use unicode_segmentation::UnicodeSegmentation;

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
    fn words_keep_abbreviations_and_versions_whole() {
        assert_eq!(word_count("Use Python 3.11, e.g. with uv?"), 6);
        assert_eq!(word_count("   "), 0);
        assert_eq!(word_count("¿Qué versión de Node usas?"), 5);
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
}
