//! What a credential-shaped match holds when it holds no credential: a
//! reference to one (`process.env.DB_PASSWORD`, `os.getenv(`,
//! `settings.GITHUB_TOKEN`), a placeholder (`$GITHUB_TOKEN`, `${{
//! secrets.X }}`, `<your-key>`), or, after `Basic`, a word that is no
//! base64 of `user:password` ("add basic TypeScript types"). Findings are
//! values only: the scanner drops these.

/// Whether `v` names where a credential comes from instead of holding
/// one: a dotted path of identifier-like names (`process.env.API_KEY`,
/// `config.api_key`, `std::env::var(`), or a call (`getpass()`,
/// `os.getenv(`).
pub(crate) fn is_reference(v: &str) -> bool {
    let end = v.find(['(', '[']).unwrap_or(v.len());
    let (core, call) = (&v[..end], end < v.len());
    let segments: Vec<&str> = core.split(['.', ':']).filter(|s| !s.is_empty()).collect();
    if segments.is_empty() || !segments.iter().all(|s| is_name(s)) {
        return false;
    }
    let path_like = segments.len() >= 2 && !core.ends_with('.');
    (path_like || call) && core.len() >= 3
}

/// An identifier as code and environments spell names: `CONSTANT_CASE`,
/// `snake_case`, or `camelCase` / `PascalCase` of letters only; at most 40
/// characters (a token's random run is no name).
fn is_name(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() || b.len() > 40 || !b[0].is_ascii_alphabetic() && b[0] != b'_' {
        return false;
    }
    let constant = b
        .iter()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_');
    let snake = b
        .iter()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_');
    let camel = b.iter().all(u8::is_ascii_alphabetic);
    constant || snake || camel
}

/// Whether a credential-named key's value is a placeholder or reference
/// rather than the credential: `$VAR`, `${VAR}`, `${{ secrets.X }}`,
/// `%VAR%`, `<your-key>`, `{{ key }}`, a mask (`****`, `xxxx`), or a
/// [reference](is_reference).
pub(crate) fn is_placeholder(v: &str) -> bool {
    let t = v.trim();
    if t.is_empty() {
        return true;
    }
    let starts = |p: &str| t.starts_with(p);
    if starts("$") || starts("{{") || (starts("<") && t.ends_with('>')) {
        return true;
    }
    if t.len() > 2 && starts("%") && t.ends_with('%') {
        return true;
    }
    if t.chars().count() >= 3 && t.chars().all(|c| matches!(c, '*' | 'x' | 'X' | '•' | '.')) {
        return true;
    }
    is_reference(t)
}

/// Whether `v`, the word after `Basic`, is base64 of a `user:password`
/// pair (printable text with a colon), as a Basic auth header carries.
pub(crate) fn is_basic_credential(v: &str) -> bool {
    let Some(bytes) = decode_base64(v.trim_end_matches('=')) else {
        return false;
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return false;
    };
    text.len() >= 3
        && text.contains(':')
        && !text.starts_with(':')
        && text.chars().all(|c| !c.is_control())
}

/// Standard base64 without padding; `None` on any other character or a
/// length no encoding has.
fn decode_base64(s: &str) -> Option<Vec<u8>> {
    if s.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_names_and_calls() {
        for r in [
            "process.env.DB_PASSWORD",
            "os.getenv(",
            "os.environ.get(",
            "settings.GITHUB_TOKEN",
            "config.api_key",
            "getpass()",
            "getSecret()",
            "std::env::var(",
            "this.apiKey",
        ] {
            assert!(is_reference(r), "{r}");
        }
        for v in [
            "hunter2",
            "s3cr3t-p4ss",
            "hunter.Secret123",
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        ] {
            assert!(!is_reference(v), "{v}");
        }
    }

    #[test]
    fn placeholders() {
        for p in [
            "$GITHUB_TOKEN",
            "${DB_PASSWORD}",
            "${{ secrets.NPM_TOKEN }}",
            "%API_KEY%",
            "<your-api-key>",
            "{{ token }}",
            "****",
            "process.env.API_KEY",
        ] {
            assert!(is_placeholder(p), "{p}");
        }
        assert!(!is_placeholder("hunter2"));
        assert!(!is_placeholder("sk-live-4f9a8b7c6d5e"));
    }

    proptest::proptest! {
        #[test]
        fn any_text_is_read_without_a_panic(v in "\\PC{0,64}") {
            let _ = (is_reference(&v), is_placeholder(&v), is_basic_credential(&v));
        }
    }

    #[test]
    fn basic_credentials_decode_to_a_user_and_password() {
        assert!(is_basic_credential("dXNlcjpwYXNzd29yZDEyMw=="));
        assert!(is_basic_credential("YWxhZGRpbjpvcGVuc2VzYW1l"));
        assert!(!is_basic_credential("TypeScript"));
        assert!(!is_basic_credential("Authentication"));
        assert!(!is_basic_credential("QmFzaWNBdXRo"));
    }
}
