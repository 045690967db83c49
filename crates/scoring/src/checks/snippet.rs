//! The `snippet` rule: three or more quoted lines, and a file path or URL
//! named.

use super::paths::is_path;
use super::{QuoteScan, TextChecker, scan_quotes};
use crate::preference::Preference;
use crate::violation::{Span, Violation};

impl TextChecker {
    pub(super) fn snippet(&self, message: &str) -> Option<Violation> {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::tests::violated;

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
}
