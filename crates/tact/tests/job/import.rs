//! Agents' own logs: every sample of `fixtures/logs` detected by its
//! content and imported (an insta snapshot of each imported session),
//! forced formats, the failures SWE-agent's observations report, and
//! property tests: any bytes in any format give an error naming the file
//! and line or a session, never a panic; a half-written last line of a
//! live log is waited for.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use tact::import::{Follower, Format, ImportDefaults, import_text};
use tact::types::trajectory::Event;

use super::repo;

/// Every sample log, sorted, with its detected format.
pub(crate) fn samples() -> Vec<(PathBuf, Format)> {
    let mut out = Vec::new();
    for dir in ["claude-code", "codex", "openhands", "swe-agent", "aider"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(repo("fixtures/logs").join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap() != "SOURCES.md")
            .collect();
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let format =
                Format::detect(&f, &text).unwrap_or_else(|| panic!("{} not detected", f.display()));
            assert_eq!(format.name(), dir, "{}", f.display());
            out.push((f, format));
        }
    }
    assert!(out.len() >= 10, "{out:?}");
    out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(repo("")).unwrap_or(p).display().to_string()
}

/// A readable digest of an imported log: meta, then each turn's prompt,
/// events and response, texts cut at 160 characters.
fn digest(path: &Path, format: Format) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let log = import_text(format, &text, &rel(path)).unwrap();
    let session = log.session(path, &ImportDefaults::default());
    let cut = |s: &str| {
        let one = s.replace('\n', " ⏎ ");
        let mut c: String = one.chars().take(160).collect();
        if one.chars().count() > 160 {
            c.push('…');
        }
        c
    };
    let mut out = format!(
        "meta: {}\nsession: spec={:?} agent={:?} run={:?}\n",
        serde_json::to_string(&log.meta).unwrap(),
        session.spec_id,
        session.agent,
        session.run_id
    );
    for (i, t) in log.turns.iter().enumerate() {
        out.push_str(&format!("turn {i}\n  prompt: {}\n", cut(&t.prompt)));
        for e in &t.events {
            match e {
                Event::Tool(c) => out.push_str(&format!(
                    "  tool {} step={:?} ok={} params={} output={}\n",
                    c.name,
                    c.step,
                    c.ok,
                    cut(&c.params.to_string()),
                    cut(c.output.as_str().unwrap_or(""))
                )),
                Event::Assistant { text } => out.push_str(&format!("  assistant: {}\n", cut(text))),
                other => out.push_str(&format!("  {}\n", other.type_name())),
            }
        }
        out.push_str(&format!("  response: {}\n", cut(&t.response)));
    }
    out
}

#[test]
fn every_sample_is_detected_and_imported() {
    for (path, format) in samples() {
        let name = path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace('.', "_");
        insta::assert_snapshot!(
            format!("import_{}_{name}", format.name()),
            digest(&path, format)
        );
    }
}
