//! Agents' own logs: every sample of `fixtures/logs` detected by its
//! content and imported (an insta snapshot of each imported session),
//! forced formats, the failures SWE-agent's observations report, and
//! property tests: any bytes in any format give an error naming the file
//! and line or a session, never a panic; a half-written last line of a
//! live log is waited for. A file of many sessions (OpenHands'
//! `output.jsonl`) is read a line, a session, at a time: each session
//! snapshotted, any bytes never panic, time linear.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use tact::import::{
    Follower, Format, ImportDefaults, ImportedLog, SessionLines, holds_sessions, import_text,
};
use tact::types::trajectory::Event;

use super::repo;

/// Every sample log of one session, sorted, with its detected format.
fn samples() -> Vec<(PathBuf, Format)> {
    all_samples()
        .into_iter()
        .filter(|(p, f)| !holds_sessions(*f, &std::fs::read_to_string(p).unwrap()))
        .collect()
}

/// Every sample file that holds many sessions, one a line.
fn session_samples() -> Vec<(PathBuf, Format)> {
    let out: Vec<_> = all_samples()
        .into_iter()
        .filter(|(p, f)| holds_sessions(*f, &std::fs::read_to_string(p).unwrap()))
        .collect();
    assert!(!out.is_empty());
    out
}

/// The sessions of a file that holds many, each imported.
fn sessions_of(path: &Path, format: Format, text: &str) -> Vec<ImportedLog> {
    SessionLines::new(text.as_bytes(), &rel(path), 1 << 26)
        .map(|l| l.and_then(|l| l.import(format, &rel(path), 1 << 26)))
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Every sample log, sorted, with its detected format.
fn all_samples() -> Vec<(PathBuf, Format)> {
    let mut out = Vec::new();
    for dir in [
        "claude-code",
        "codex",
        "openhands",
        "swe-agent",
        "aider",
        "openhands-v1",
        "mini-swe-agent",
        "specstory",
        "cline",
        "gemini-cli",
    ] {
        // Cline's samples are task folders: both of their files.
        let mut files: Vec<PathBuf> = std::fs::read_dir(repo("fixtures/logs").join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .flat_map(|p| match p.is_dir() {
                true => vec![
                    p.join("api_conversation_history.json"),
                    p.join("ui_messages.json"),
                ],
                false => vec![p],
            })
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
    assert!(out.len() >= 35, "{out:?}");
    out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(repo("")).unwrap_or(p).display().to_string()
}

/// A readable digest of an imported log: meta, then each turn's prompt,
/// events and response, texts cut at 160 characters.
fn digest(path: &Path, format: Format) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    digest_of(path, &import_text(format, &text, &rel(path)).unwrap())
}

/// As [`digest`], of a log already imported.
fn digest_of(path: &Path, log: &ImportedLog) -> String {
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
        // The file's path in its format's folder (a Cline task's folder
        // and file).
        let name = path
            .strip_prefix(repo("fixtures/logs").join(format.name()))
            .unwrap()
            .to_string_lossy()
            .replace(['.', '/'], "_");
        insta::assert_snapshot!(
            format!("import_{}_{name}", format.name()),
            digest(&path, format)
        );
    }
    // A file of many sessions: each line's session, with its line.
    for (path, format) in session_samples() {
        let name = path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace('.', "_");
        let text = std::fs::read_to_string(&path).unwrap();
        let logs = sessions_of(&path, format, &text);
        assert!(logs.len() >= 2, "{}", path.display());
        for log in logs {
            let line = log.line.unwrap();
            insta::assert_snapshot!(
                format!("import_{}_{name}_line_{line}", format.name()),
                digest_of(&path, &log)
            );
        }
    }
}

/// OpenHands' resolver output, read by hand: "Add MIT license" (4 calls,
/// all succeeding) and "Add a toggle for dark mode", whose agent saw the
/// editor refuse eight edits in a row for syntax errors, then three that
/// matched nothing (`[No exact match found in`); both tasks succeeded.
#[test]
fn openhands_resolver_output_holds_two_tasks_read_as_the_harness_wrote_them() {
    let (path, format) = session_samples().remove(0);
    let text = std::fs::read_to_string(&path).unwrap();
    let logs = sessions_of(&path, format, &text);
    let ids: Vec<_> = logs
        .iter()
        .map(|l| l.meta.session_id.clone().unwrap())
        .collect();
    assert_eq!(ids, ["neubig/pr-viewer#5", "neubig/pr-viewer#1"]);
    let failed = |log: &ImportedLog| -> Vec<bool> {
        log.turns[0]
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Tool(c) => Some(c.ok),
                _ => None,
            })
            .collect()
    };
    assert_eq!(failed(&logs[0]), [true; 3]);
    let dark = failed(&logs[1]);
    assert_eq!(dark.len(), 21);
    assert_eq!(&dark[4..12], [false; 8]);
    assert_eq!(dark.iter().filter(|ok| !**ok).count(), 11);
    for log in &logs {
        assert_eq!(log.turns.len(), 1);
        assert!(
            log.turns[0]
                .prompt
                .starts_with("Please fix the following issue")
        );
        assert_eq!(
            log.meta.outcome,
            Some(tact::scoring::TaskOutcome::Build { success: true })
        );
    }
    assert!(
        logs[1].turns[0]
            .response
            .starts_with("The App.css file already contains")
    );
}

#[test]
fn forced_formats_name_the_file_and_line_of_what_they_cannot_read() {
    let e = import_text(
        Format::Codex,
        "{\"type\":\"session_meta\",\"payload\":{}}\nnot json\n",
        "r.jsonl",
    )
    .unwrap_err();
    assert_eq!((e.source_name.as_str(), e.line), ("r.jsonl", 2), "{e}");
    assert!(
        e.to_string().starts_with("r.jsonl:2: not a JSON record"),
        "{e}"
    );
    let e = import_text(Format::OpenHands, "{\n  \"trajectory\": []\n}", "o.json").unwrap_err();
    assert_eq!(e.line, 1, "{e}");
    let e = import_text(Format::SweAgent, "[\n1,\n", "t.traj").unwrap_err();
    assert!(e.to_string().starts_with("t.traj:3: not valid JSON"), "{e}");
    let e = import_text(Format::ClaudeCode, "{\"type\":\"x\"}\n", "c.jsonl").unwrap_err();
    assert_eq!(e.to_string(), "c.jsonl:1: no claude-code record found");
    let e = import_text(Format::Aider, "", "a.md").unwrap_err();
    assert_eq!(e.to_string(), "a.md:1: no aider record found");
}

/// Aider's real report of SEARCH/REPLACE blocks that failed to match:
/// each a failed `edit` whose output is the whole report, none of it read
/// as the agent's reply (so its "Did you mean …?" is no question).
#[test]
fn aider_s_rejected_edits_are_failed_calls_carrying_its_report() {
    let path = repo("fixtures/logs/aider/monochromatic.aider.chat.history.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let log = import_text(Format::Aider, &text, "m.md").unwrap();
    let mut failed = Vec::new();
    let mut said = Vec::new();
    for t in &log.turns {
        said.push(t.response.clone());
        for e in &t.events {
            match e {
                Event::Tool(c) if !c.ok => failed.push(c.clone()),
                Event::Assistant { text } => said.push(text.clone()),
                _ => {}
            }
        }
    }
    assert_eq!(failed.len(), 3, "{failed:?}");
    for c in &failed {
        assert_eq!(c.name, "edit");
        let out = c.output.as_str().unwrap();
        assert!(out.starts_with("The LLM did not conform to the edit format.\n# 1 SEARCH/REPLACE block failed to match!"), "{out}");
        assert!(
            out.contains("The SEARCH section must exactly match"),
            "{out}"
        );
    }
    assert_eq!(failed[0].params["path"], "CONVENTIONS.md");
    assert!(
        failed[0]
            .output
            .as_str()
            .unwrap()
            .ends_with("that failed to match.")
    );
    assert!(failed[2].output.as_str().unwrap().contains(
        "Did you mean to match some of these actual lines from packages\\module\\es\\src\\iterables.intersection.ts?"
    ));
    assert!(
        !said
            .iter()
            .any(|s| s.contains("Did you mean") || s.contains("SearchReplaceNoExactMatch")),
        "{said:?}"
    );
    // The reply after the second failure is the agent's, not the report's.
    assert!(
        said.iter().any(|s| s.starts_with("It appears the section")),
        "{said:?}"
    );
}

#[test]
fn a_sample_followed_in_any_chunks_gives_the_events_of_a_whole_read() {
    for (path, format) in samples() {
        let text = std::fs::read(&path).unwrap();
        let whole = import_text(format, std::str::from_utf8(&text).unwrap(), "f")
            .unwrap()
            .events();
        for chunk in [1usize, 7, 4096] {
            let mut f = Follower::new(format, "f");
            let mut got = Vec::new();
            for piece in text.chunks(chunk) {
                let (events, errors) = f.push(piece);
                assert!(errors.is_empty(), "{}: {errors:?}", path.display());
                got.extend(events);
            }
            let (events, errors) = f.finish();
            assert!(errors.is_empty(), "{}: {errors:?}", path.display());
            got.extend(events);
            assert_eq!(
                got.len(),
                whole.len(),
                "{} in chunks of {chunk}",
                path.display()
            );
        }
    }
}

/// A log of `format` built from `k` repetitions of what its reader finds
/// hardest: tags and blocks never closed, fences never ended, calls never
/// answered, rewinds to messages that do not exist.
fn adversarial(format: Format, k: usize) -> String {
    let json = |v: serde_json::Value| v.to_string();
    match format {
        Format::Cline => {
            let text = "<read_file>\n<path>a\n<br>\n".repeat(k);
            let results = "[read_file for 'a'] Result:\n<feedback>\n".repeat(k);
            json(serde_json::json!([
                {"role": "user", "content": "<task>\ngo\n</task>"},
                {"role": "assistant", "content": [{"type": "text", "text": text}]},
                {"role": "user", "content": [{"type": "text", "text": results}]},
                {"role": "assistant", "content": "<execute_command>".to_owned() + &"<command>x".repeat(k) + "</execute_command>"}
            ]))
        }
        Format::GeminiCli => {
            let mut lines = vec![json(serde_json::json!({"sessionId": "s", "projectHash": "h"}))];
            for i in 0..k {
                lines.push(json(serde_json::json!({"id": format!("m{i}"), "type": "gemini", "content": "x"})));
                lines.push(json(serde_json::json!({"$rewindTo": format!("none{i}")})));
            }
            lines.join("\n")
        }
        Format::SpecStory => format!(
            "_**User**_\n\ngo\n\n_**Assistant**_\n\n{}{}",
            "<details>\n<summary>Searched \"q\"</summary>\n---\n".repeat(k),
            "```\n---\n".repeat(k)
        ),
        Format::MiniSweAgent => {
            let mut messages = vec![serde_json::json!({"role": "user", "content": "go"})];
            for _ in 0..k {
                messages.push(serde_json::json!({"role": "assistant", "content": "```bash\n".repeat(8)}));
                messages.push(serde_json::json!({"role": "user", "content": "<returncode>1"}));
            }
            json(serde_json::json!({"info": {"mini_version": "1"}, "messages": messages}))
        }
        Format::OpenHandsV1 => (0..k)
            .map(|i| {
                json(serde_json::json!({"kind": "ActionEvent", "source": "agent", "tool_name": "terminal",
                    "tool_call_id": format!("t{i}"), "llm_response_id": "r", "action": {"command": "ls"},
                    "thought": [{"type": "text", "text": "<think>x"}]}))
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => {
            let (path, _) = samples()
                .into_iter()
                .find(|(_, f)| *f == format)
                .unwrap();
            let text = std::fs::read_to_string(path).unwrap();
            let one: String = text.chars().take(20_000).collect();
            let one = &one[..one.rfind('\n').map_or(one.len(), |i| i + 1)];
            one.repeat(k / 40 + 1)
        }
    }
}

/// Import time grows linearly with the log: 16 times the adversarial input
/// takes well under 16 squared times as long (best of five runs each, the
/// lowest of three ratios; under 160 times: a quadratic reader takes about
/// 220 to 256 times as long, a linear one 16 to 30 on a loaded machine).
#[test]
fn import_time_is_linear_in_the_log_s_size() {
    // A file of many sessions: its sample's lines repeated.
    let (path, format) = session_samples().remove(0);
    let text = std::fs::read_to_string(&path).unwrap();
    let sessions = |t: &str| {
        let at = std::time::Instant::now();
        for l in SessionLines::new(t.as_bytes(), "big", 1 << 26) {
            let _ = l.and_then(|l| l.import(format, "big", 1 << 26));
        }
        at.elapsed().as_secs_f64()
    };
    let (small, large) = (text.repeat(2), text.repeat(32));
    let ratio = (0..3)
        .map(|_| sessions(&large) / sessions(&small).max(1e-6))
        .fold(f64::MAX, f64::min);
    assert!(
        ratio < 160.0,
        "16 times the sessions took {ratio:.1} times as long"
    );

    let time = |format: Format, text: &str| {
        (0..5)
            .map(|_| {
                let at = std::time::Instant::now();
                let _ = import_text(format, text, "big");
                at.elapsed().as_secs_f64()
            })
            .fold(f64::MAX, f64::min)
    };
    for format in Format::ALL {
        let small = adversarial(format, 200);
        let large = adversarial(format, 3200);
        let size = large.len() as f64 / small.len() as f64;
        // Other tests share the machine: a ratio measured while they ran
        // is measured again, the lowest kept (a quadratic reader fails
        // all three).
        let ratio = (0..3)
            .map(|_| time(format, &large) / time(format, &small).max(1e-6))
            .fold(f64::MAX, f64::min);
        assert!(
            ratio < size * 10.0,
            "{format}: {} bytes took {ratio:.1} times as long as {} bytes",
            large.len(),
            small.len()
        );
    }
}

fn any_format() -> impl Strategy<Value = Format> {
    prop::sample::select(Format::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any bytes, read as any format: a log or an error naming the file
    /// and a line within it; never a panic.
    #[test]
    fn any_bytes_in_any_format_give_a_log_or_an_error_naming_file_and_line(
        format in any_format(),
        bytes in prop::collection::vec(any::<u8>(), 0..600),
    ) {
        let text = String::from_utf8_lossy(&bytes);
        if let Err(e) = import_text(format, &text, "any.log") {
            prop_assert_eq!(e.source_name.as_str(), "any.log");
            prop_assert!(e.line >= 1 && e.line <= text.lines().count().max(1), "{}", e);
            let prefix = format!("any.log:{}: ", e.line);
            prop_assert!(e.to_string().starts_with(&prefix), "{}", e);
        }
        let mut f = Follower::new(format, "any.log");
        let (_, errors) = f.push(&bytes);
        for e in errors {
            prop_assert!(e.to_string().starts_with("any.log:"), "{}", e);
        }
        let _ = f.finish();
        // As a file of many sessions: every line's error names a line of it.
        for l in SessionLines::new(&bytes[..], "any.log", 300) {
            match l.and_then(|l| l.import(format, "any.log", 300)) {
                Ok(log) => prop_assert!(log.line.is_some()),
                Err(e) => {
                    prop_assert!(e.line >= 1 && e.line <= text.lines().count().max(1), "{}", e);
                    prop_assert_eq!(e.source_name.as_str(), "any.log");
                }
            }
        }
    }

    /// A real file of many sessions mutated (cut, spliced with noise):
    /// each line a session or an error naming its line, never a panic.
    #[test]
    fn mutated_session_lines_never_panic(
        cut in 0usize..90_000,
        noise in "[\\[\\]{}\":,0-9a-z\\\\ \n]{0,40}",
    ) {
        let (path, format) = session_samples().remove(0);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut at = cut.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let mutated = format!("{}{noise}{}", &text[..at], &text[at..]);
        for l in SessionLines::new(mutated.as_bytes(), "m", 1 << 20) {
            match l.and_then(|l| l.import(format, "m", 1 << 20)) {
                Ok(log) => { let _ = log.session(&path, &ImportDefaults::default()); }
                Err(e) => prop_assert!(e.line >= 1 && e.line <= mutated.lines().count(), "{}", e),
            }
        }
    }

    /// Lines of a real log mutated (cut, spliced with noise): an error
    /// names a line, never a panic.
    #[test]
    fn mutated_sample_lines_never_panic(
        pick in 0usize..64,
        cut in 0usize..4000,
        noise in "[\\[\\]{}\":,0-9a-z\\\\ ]{0,40}",
    ) {
        let samples = samples();
        let (path, format) = &samples[pick % samples.len()];
        let text = std::fs::read_to_string(path).unwrap();
        let mut at = cut.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let mutated = format!("{}{noise}{}", &text[..at], &text[at..]);
        match import_text(*format, &mutated, "m") {
            Ok(log) => { let _ = log.session(path, &ImportDefaults::default()); }
            Err(e) => prop_assert!(e.line >= 1, "{}", e),
        }
    }

    /// A live log's half-written last line is waited for: no error until
    /// its end arrives, whatever the split.
    #[test]
    fn a_truncated_last_line_is_waited_for(pick in 0usize..64, cut in 1usize..3000) {
        let samples = samples();
        let (path, format) = &samples[pick % samples.len()];
        prop_assume!(format.is_line_based());
        let text = std::fs::read(path).unwrap();
        let at = cut.min(text.len() - 1);
        let mut f = Follower::new(*format, "live");
        let (_, errors) = f.push(&text[..at]);
        prop_assert!(errors.is_empty(), "{:?}", errors);
        let (_, errors) = f.push(&text[at..]);
        prop_assert!(errors.is_empty(), "{:?}", errors);
    }
}

/// A resumed Claude Code session replays its earlier chain under a second
/// root: imported once, it gives the turns, calls and questions of the
/// session it resumes, nothing twice.
#[test]
fn claude_resumed_session_is_not_imported_twice() {
    let read = |name: &str| {
        let path = repo("fixtures/logs/claude-code").join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        import_text(Format::ClaudeCode, &text, name).unwrap()
    };
    let original = read("ask-user-question.jsonl");
    let resumed = read("resumed.jsonl");
    assert_eq!(resumed.turns, original.turns);
    let calls = |log: &tact::import::ImportedLog| {
        log.events()
            .iter()
            .filter(|e| matches!(e, Event::Tool(_)))
            .count()
    };
    assert!(calls(&original) > 5);
    assert_eq!(calls(&resumed), calls(&original));
    assert!(resumed.meta.skipped > original.meta.skipped + 20);
}
