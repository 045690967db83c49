//! File paths: [`is_path`] with the file extensions and names it knows,
//! and whether a slash list (`src/api/v2`) is a path rather than options.

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
pub(super) fn slash_token_is_path(masked: &str, start: usize, end: usize) -> bool {
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
}
