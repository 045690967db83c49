//! Normalization for matching: [`normalize`], with its fast paths (ASCII,
//! and common Latin letters and signs folded by table) beside the general
//! one (NFKD, combining marks dropped).

use unicode_normalization::UnicodeNormalization;

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

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
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
    fn normalize_folds_case_accents_quotes_and_space() {
        assert_eq!(normalize("  ¿Cuál   prefieres?\n"), "¿cual prefieres?");
        assert_eq!(normalize("Größe “Über”"), "grosse \"uber\"");
        assert_eq!(normalize("It’s FINE"), "it's fine");
        assert_eq!(normalize(""), "");
    }
}
