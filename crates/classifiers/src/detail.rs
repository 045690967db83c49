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

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn cue_match_writes_what_format_writes(e in "(?s).{0,20}", m in "(?s).{0,20}") {
            proptest::prop_assert_eq!(cue_match(&e, &m), format!("{e}: `{m}`"));
        }
    }
}
