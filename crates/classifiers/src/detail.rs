//! Reason details written with plain string pushes: `format!` costs more
//! than the rest of a reason, and classifiers write a few per call.

/// `"{explanation}: `{matched}`"`, as `format!` would write it.
pub(crate) fn cue_match(explanation: &str, matched: &str) -> String {
    let mut out = String::with_capacity(explanation.len() + matched.len() + 4);
    out.push_str(explanation);
    out.push_str(": `");
    out.push_str(matched);
    out.push('`');
    out
}

/// Appends `n` in decimal, as `format!("{n}")` would.
pub(crate) fn push_count(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        out.push(char::from(d));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_extreme_counts() {
        for n in [0, 1, 9, 10, 99, 100, u64::MAX] {
            let mut out = String::new();
            push_count(&mut out, n);
            assert_eq!(out, n.to_string());
        }
    }

    proptest::proptest! {
        #[test]
        fn cue_match_writes_what_format_writes(e in "(?s).{0,20}", m in "(?s).{0,20}") {
            proptest::prop_assert_eq!(cue_match(&e, &m), format!("{e}: `{m}`"));
        }

        #[test]
        fn counts_are_written_as_format_writes_them(n in proptest::num::u64::ANY) {
            let mut out = String::from("x");
            push_count(&mut out, n);
            proptest::prop_assert_eq!(out, format!("x{n}"));
        }
    }
}
