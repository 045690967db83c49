//! `tact watch` on agents' own logs: on every sample log it shows the
//! turns, questions, score and nudges that `tact run` stores and ranks,
//! `tact guide --follow` prints and `tact guide FILE` reports (all read the
//! log through `tact::import` and replay it through one `Guide::replay`); `--snapshot` pins a Claude Code session's real turn
//! and question counts; `--latest` opens the newest session of Claude Code
//! or Codex under a temporary home (their own variables honoured). A file
//! of many sessions (OpenHands' `output.jsonl`) is compared session by
//! session: `watch --session ID`, `run`'s ranking of that spec, `guide`'s
//! report under that id and `guide --follow`'s nudges of that session.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::{out, tact};

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// Every sample log of every format folder (relative to the repository).
fn samples() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(repo("fixtures/logs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let format = dir.file_name().unwrap().to_string_lossy().into_owned();
        // Every log file of the folder, and both files of each Cline task
        // folder in it; its notes (`SOURCES.md`, `README.md`) aside.
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .flat_map(|p| match p.is_dir() {
                true => vec![
                    p.join("api_conversation_history.json"),
                    p.join("ui_messages.json"),
                ],
                false => vec![p],
            })
            .map(|p| p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned())
            .filter(|n| n != "SOURCES.md" && n != "README.md")
            .map(|n| format!("fixtures/logs/{format}/{n}"))
            .collect();
        files.sort();
        out.extend(files.into_iter().map(|f| (format.clone(), f)));
    }
    out
}

/// What a frame of `tact watch` says of the session.
#[derive(Debug, PartialEq)]
struct Seen {
    turns: usize,
    /// Questions low, medium, high.
    questions: [usize; 3],
    interaction: f64,
    /// Nudges: event position and classifier.
    nudges: Vec<(usize, String)>,
}

fn number_after<T: std::str::FromStr>(text: &str, label: &str) -> Option<T> {
    let at = text.find(label)? + label.len();
    let rest = text[at..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '+' | '-')))
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// Reads the score pane and the guidance pane of a snapshot.
fn seen(frame: &str) -> Seen {
    let at = frame.find("questions low").expect("a questions line");
    let line = frame[at..].lines().next().unwrap_or_default();
    let questions = ["low ", "medium ", "high "].map(|l| number_after(line, l).unwrap_or(0));
    let mut nudges = Vec::new();
    for line in frame.lines() {
        // The guidance pane's entries: `event N   classifier 0.80 provider`.
        if let Some(at) = line.find("│event ") {
            let words: Vec<&str> = line[at + "│event ".len()..].split_whitespace().collect();
            nudges.push((words[0].parse().unwrap(), words[1].to_owned()));
        }
    }
    let count: usize = number_after(frame, "guidance · ").unwrap_or(0);
    assert_eq!(count, nudges.len(), "every nudge shown: {frame}");
    Seen {
        turns: number_after(frame, " · turn ").unwrap_or(0),
        questions,
        interaction: number_after(frame, "│interaction ").unwrap_or(f64::NAN),
        nudges,
    }
}

/// `tact watch --snapshot` on `file`, named relative to this crate (tests
/// run in its folder), so the status line reads the same on any machine;
/// with `session`, that session of a file of many.
fn snapshot(file: &str, size: &str) -> String {
    snapshot_of(file, size, None)
}

fn snapshot_of(file: &str, size: &str, session: Option<&str>) -> String {
    let relative = format!("../../{file}");
    assert!(Path::new(&relative).is_file(), "run from crates/cli");
    let mut args = vec!["watch", "--snapshot", "--size", size, &relative];
    if let Some(id) = session {
        args.extend(["--session", id]);
    }
    out(&tact(&args, None))
}

/// The ids of the sessions of `file` when it holds many, one a line
/// (`None` for a log of one session).
fn sessions(file: &str) -> Vec<Option<String>> {
    let path = repo(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let format = tact::import::Format::detect(&path, &text).expect("a known log");
    if !tact::import::holds_sessions(format, &text) {
        return vec![None];
    }
    tact::import::SessionLines::new(text.as_bytes(), file, 1 << 26)
        .map(|l| {
            let log = l.unwrap().import(format, file, 1 << 26).unwrap();
            log.meta.session_id
        })
        .collect()
}

/// `tact run FILE`: the ranking row's interaction, questions and the
/// guidance that fired (in order of first fire); with `spec`, the row of
/// that spec's ranking.
fn run_row(file: &str, db: &Path, spec: Option<&str>) -> (f64, [usize; 3], Vec<String>) {
    let _ = std::fs::remove_file(db);
    let o = tact(
        &[
            "run",
            repo(file).to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
        ],
        None,
    );
    let stdout = out(&o);
    let lines: Vec<&str> = stdout.lines().collect();
    let from = spec.map_or(0, |s| {
        let at = format!("{s}, stage");
        lines
            .iter()
            .position(|l| l.starts_with(&at))
            .expect("the spec's ranking")
    });
    let header = from
        + lines[from..]
            .iter()
            .position(|l| l.trim_start().starts_with("rank agent"))
            .expect("a ranking");
    let words: Vec<&str> = lines[header + 1].split_whitespace().collect();
    let q: Vec<usize> = words[5].split('/').map(|n| n.parse().unwrap()).collect();
    assert_eq!(words[6], "-", "no sample states preferences: {stdout}");
    let guidance = words[7..].join(" ");
    let guidance = if guidance == "-" {
        Vec::new()
    } else {
        guidance.split(", ").map(str::to_owned).collect()
    };
    (words[3].parse().unwrap(), [q[0], q[1], q[2]], guidance)
}

/// `tact guide --follow --format F --json -`: every nudge's event and
/// classifier (of `session` only, in a file of many).
fn guide_nudges(format: &str, file: &str, session: Option<&str>) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(repo(file)).unwrap();
    let o = tact(
        &["guide", "--follow", "--format", format, "--json", "-"],
        Some(&text),
    );
    out(&o)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["session"].as_str() == session)
        .map(|v| {
            (
                v["event"].as_u64().unwrap() as usize,
                v["classifier"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// `tact guide --json FILE` (the whole log replayed): every nudge's event
/// and classifier, and each classifier's count agreeing with them (of the
/// report of `session`, in a file of many: one report a line).
fn guide_batch_nudges(file: &str, session: Option<&str>) -> Vec<(usize, String)> {
    let o = tact(&["guide", "--json", repo(file).to_str().unwrap()], None);
    let reports: Vec<serde_json::Value> = out(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let v = match session {
        Some(id) => reports
            .into_iter()
            .find(|r| r["id"] == id)
            .expect("its report"),
        None => {
            assert_eq!(reports.len(), 1, "{file}");
            reports.into_iter().next().unwrap()
        }
    };
    let nudges: Vec<(usize, String)> = v["nudges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["event"].as_u64().unwrap() as usize,
                n["classifier"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    for (classifier, count) in v["fires"].as_object().unwrap() {
        let seen = nudges.iter().filter(|(_, c)| c == classifier).count();
        assert_eq!(count.as_u64(), Some(seen as u64), "{file}: {classifier}");
    }
    nudges
}

/// The turns `tact run` stores for a log (through the same import), or
/// for the session `session` of a file of many.
fn imported_turns(file: &str, session: Option<&str>) -> usize {
    let path = repo(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let format = tact::import::Format::detect(&path, &text).expect("a known log");
    if let Some(id) = session {
        return tact::import::SessionLines::new(text.as_bytes(), file, 1 << 26)
            .map(|l| l.unwrap().import(format, file, 1 << 26).unwrap())
            .find(|log| log.meta.session_id.as_deref() == Some(id))
            .expect("the session")
            .turns
            .len();
    }
    tact::import::import_text(format, &text, file)
        .unwrap()
        .turns
        .len()
}

#[test]
fn watch_run_and_guide_whole_or_followed_agree_on_every_sample_log() {
    let dir = std::env::temp_dir().join(format!("tact-cli-watch-logs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("run.db");
    let samples = samples();
    assert!(samples.len() >= 13, "{samples:?}");
    let mut many = 0;
    for (format, file) in samples {
        for session in sessions(&file) {
            many += usize::from(session.is_some());
            agree(&format, &file, session.as_deref(), &db);
        }
    }
    assert!(
        many >= 2,
        "a file of many sessions compared session by session"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `watch`, `run`, `guide --follow` and `guide FILE` agree on `file` (on
/// its session `session`, in a file of many).
fn agree(format: &str, file: &str, session: Option<&str>, db: &Path) {
    let file = file.to_owned();
    {
        let frame = snapshot_of(&file, "200x150", session);
        let watch = seen(&frame);
        let (interaction, questions, guidance) = run_row(&file, db, session);
        assert_eq!(
            watch.turns,
            imported_turns(&file, session),
            "{file}: turns\n{frame}"
        );
        assert_eq!(watch.questions, questions, "{file}: questions\n{frame}");
        assert!(
            (watch.interaction - interaction).abs() < 0.006,
            "{file}: interaction {} against {interaction}\n{frame}",
            watch.interaction
        );
        let mut first_fired: Vec<String> = Vec::new();
        for (_, c) in &watch.nudges {
            if !first_fired.contains(c) {
                first_fired.push(c.clone());
            }
        }
        assert_eq!(first_fired, guidance, "{file}: guidance\n{frame}");
        assert_eq!(
            watch.nudges,
            guide_nudges(format, &file, session),
            "{file}: nudges\n{frame}"
        );
        assert_eq!(
            watch.nudges,
            guide_batch_nudges(&file, session),
            "{file}: batch guide's nudges"
        );
    }
}

/// Read by hand, `ask-user-question.jsonl` has 4 turns (the user runs
/// `/create-beads`, answers the agent's questions, interrupts it, and asks
/// it to create the beads) and 2 questions to the user, both in one
/// `AskUserQuestion` call: "Which rig do these beads belong to?" and
/// "Which tools should we set up?". The parenthesis after the first
/// ("should I use 'spotter'?") restates it, with the same answer (the
/// user picked "No rig"): an aside, not a third question, as an
/// independent annotator read it (`fixtures/questions/samples.jsonl`).
#[test]
fn watch_snapshot_of_a_claude_code_session() {
    let frame = snapshot(
        "fixtures/logs/claude-code/ask-user-question.jsonl",
        "120x40",
    );
    assert!(!frame.contains('\u{1b}'), "no escape sequence");
    let s = seen(&frame);
    assert_eq!(s.turns, 4, "{frame}");
    assert_eq!(s.questions.iter().sum::<usize>(), 2, "{frame}");
    assert!(!frame.contains("│prog"), "no progress rows: {frame}");
    insta::assert_snapshot!(frame);
}

fn watch_latest(home: &Path, env: &[(&str, &Path)], args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tact"));
    cmd.args(["watch", "--snapshot", "--size", "160x24"])
        .args(args)
        .env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn put(path: &Path, from: &str, age_secs: u64) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::copy(repo(from), path).unwrap();
    let t = std::time::SystemTime::now() - std::time::Duration::from_secs(age_secs);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

#[test]
fn watch_latest_opens_the_newest_session_under_a_temporary_home() {
    let home = std::env::temp_dir().join(format!("tact-cli-latest-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let claude = "fixtures/logs/claude-code/rejected-tool-calls.jsonl";
    let codex = "fixtures/logs/codex/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl";
    let old_claude = home.join(".claude/projects/-home-u-a/old.jsonl");
    let new_claude = home.join(".claude/projects/-home-u-b/new.jsonl");
    let rollout = home.join(".codex/sessions/2026/05/11/rollout-x.jsonl");
    put(&old_claude, claude, 300);
    put(&new_claude, claude, 200);
    put(&rollout, codex, 100);
    // An empty newer file is no session.
    put(
        &home.join(".claude/projects/-home-u-b/empty.jsonl"),
        claude,
        10,
    );
    std::fs::write(home.join(".claude/projects/-home-u-b/empty.jsonl"), "").unwrap();

    let shown = |o: &Output| {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    // The newest of all is Codex's rollout, read as Codex.
    let all = shown(&watch_latest(&home, &[], &["--latest"]));
    assert!(all.contains("rollout-x.jsonl"), "{all}");
    assert!(
        all.contains("Bash") || all.contains("exec_command"),
        "{all}"
    );
    let c = shown(&watch_latest(&home, &[], &["--latest", "claude-code"]));
    assert!(
        c.contains("new.jsonl") && c.contains("mix phx.server"),
        "{c}"
    );
    let x = shown(&watch_latest(&home, &[], &["--latest", "codex"]));
    assert!(x.contains("rollout-x.jsonl"), "{x}");

    // Their own variables point elsewhere.
    let other = home.join("elsewhere");
    let moved = other.join("claude/projects/p/moved.jsonl");
    put(&moved, claude, 400);
    let c = shown(&watch_latest(
        &home,
        &[("CLAUDE_CONFIG_DIR", &other.join("claude"))],
        &["--latest", "claude-code"],
    ));
    assert!(c.contains("moved.jsonl"), "{c}");
    let none = watch_latest(
        &home,
        &[("CODEX_HOME", &other.join("codex"))],
        &["--latest", "codex"],
    );
    assert!(!none.status.success());
    let err = String::from_utf8_lossy(&none.stderr);
    assert!(err.contains("no session log found in"), "{err}");
    let bad = watch_latest(&home, &[], &["--latest", "aider"]);
    assert!(!bad.status.success());
    let _ = std::fs::remove_dir_all(&home);
}

/// `--session` on a file of many sessions: the last by default, the one
/// named otherwise, each named in the status line with its line and the
/// count; an id no line has is an error naming those read, and
/// `--session` on a log of one session is an error.
#[test]
fn watch_picks_a_session_of_a_file_of_many() {
    let file = "fixtures/logs/openhands/openhands-resolver-output.jsonl";
    let last = snapshot_of(file, "300x40", None);
    assert!(
        last.contains("session neubig/pr-viewer#1 (line 2, last of 2)"),
        "{last}"
    );
    let first = snapshot_of(file, "300x40", Some("neubig/pr-viewer#5"));
    assert!(
        first.contains("session neubig/pr-viewer#5 (line 1, chosen of 2)"),
        "{first}"
    );
    assert!(first.contains("MIT"), "{first}");
    let relative = format!("../../{file}");
    let o = tact(
        &["watch", "--snapshot", "--session", "nope", &relative],
        None,
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no session `nope` (sessions: neubig/pr-viewer#5, neubig/pr-viewer#1)"),
        "{err}"
    );
    let o = tact(
        &[
            "watch",
            "--snapshot",
            "--session",
            "x",
            "../../fixtures/logs/claude-code/ask-user-question.jsonl",
        ],
        None,
    );
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--session picks a session"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
