//! An importer's memory is bounded by its largest record, not its file
//! (issue 41): a 15 MB Aider log took 2.5 GB, a 48 MB SWE-agent `.traj`
//! 2.7 GB, a 75 MB OpenHands log 2.2 GB, each read whole and parsed
//! whole. Measured here as the growth of the peak resident set (Linux's
//! `VmHWM`) over the resident set before the import, in a child process
//! of this test binary per import: for each format, a log of many records
//! costs a fraction of its file, and a log of one large record at most 4
//! times that record.

use std::io::Write;
use std::path::Path;
use std::process::Command;

use tact::import::{Format, MAX_RECORD_BYTES, import_reader};

/// Writes a log of `format` to `path`: `exchanges` of a prompt, a reply
/// and a tool call whose output is `output` bytes.
fn write_log(path: &Path, format: Format, exchanges: usize, output: usize) {
    write_log_with(path, format, exchanges, output, 0);
}

/// [`write_log`], each prompt (`fix N`) followed by about `prompt` bytes
/// of a task's description (one line, nothing to escape).
fn write_log_with(path: &Path, format: Format, exchanges: usize, output: usize, prompt: usize) {
    let said = " - the parser drops the closing bracket of a nested list when a comment follows it";
    let filler = said.repeat(prompt.div_ceil(said.len()));
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let out = "ok: line of tool output\n".repeat(output / 24 + 1)[..output].to_owned();
    let out_json = serde_json::to_string(&out).unwrap();
    match format {
        Format::OpenHands => write!(w, "[").unwrap(),
        Format::SweAgent => write!(w, "{{\"trajectory\": [").unwrap(),
        Format::Aider => writeln!(w, "# aider chat started at 2026-01-01 10:00:00\n").unwrap(),
        Format::MiniSweAgent => writeln!(
            w,
            "{{\"trajectory_format\": \"mini-swe-agent-1.1\", \"info\": {{\"mini_version\": \"1.15.0\"}}, \"messages\": [\n{{\"role\":\"user\",\"content\":\"fix 0\"}}"
        )
        .unwrap(),
        Format::Cline => writeln!(
            w,
            "[{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"<task>\\nfix 0\\n</task>\"}}]}}"
        )
        .unwrap(),
        Format::GeminiCli => writeln!(
            w,
            "{{\"sessionId\": \"s\", \"projectHash\": \"h\", \"messages\": ["
        )
        .unwrap(),
        Format::SpecStory => writeln!(w, "# Fix (2026-01-01 10:00Z)\n").unwrap(),
        _ => {}
    }
    for i in 0..exchanges {
        let sep = if i == 0 { "" } else { "," };
        let fix = format!("fix {i}{filler}");
        match format {
            Format::ClaudeCode => writeln!(
                w,
                "{{\"type\":\"user\",\"uuid\":\"u{i}\",\"sessionId\":\"s\",\"message\":{{\"role\":\"user\",\"content\":\"{fix}\"}}}}\n\
                 {{\"type\":\"assistant\",\"uuid\":\"a{i}\",\"sessionId\":\"s\",\"message\":{{\"id\":\"m{i}\",\"content\":[{{\"type\":\"text\",\"text\":\"Looking.\"}},{{\"type\":\"tool_use\",\"id\":\"t{i}\",\"name\":\"Bash\",\"input\":{{\"command\":\"ls\"}}}}]}}}}\n\
                 {{\"type\":\"user\",\"uuid\":\"r{i}\",\"sessionId\":\"s\",\"message\":{{\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"t{i}\",\"content\":{out_json}}}]}}}}"
            ),
            Format::Codex => writeln!(
                w,
                "{{\"type\":\"response_item\",\"payload\":{{\"type\":\"message\",\"role\":\"user\",\"content\":[{{\"type\":\"input_text\",\"text\":\"{fix}\"}}]}}}}\n\
                 {{\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\"{{}}\",\"call_id\":\"c{i}\"}}}}\n\
                 {{\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call_output\",\"call_id\":\"c{i}\",\"output\":{out_json}}}}}"
            ),
            Format::OpenHands => write!(
                w,
                "{sep}{{\"id\":{},\"source\":\"user\",\"action\":\"message\",\"args\":{{\"content\":\"{fix}\"}}}},\
                 {{\"id\":{},\"source\":\"agent\",\"action\":\"run\",\"args\":{{\"command\":\"ls\",\"thought\":\"Looking.\"}}}},\
                 {{\"id\":{},\"cause\":{},\"source\":\"agent\",\"observation\":\"run\",\"content\":{out_json}}}",
                3 * i,
                3 * i + 1,
                3 * i + 2,
                3 * i + 1
            ),
            Format::SweAgent => write!(
                w,
                "{sep}{{\"thought\":\"Looking.\",\"action\":\"ls\",\"observation\":{out_json}}}"
            ),
            Format::OpenHandsV1 => writeln!(
                w,
                "{{\"kind\":\"MessageEvent\",\"source\":\"user\",\"llm_message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"{fix}\"}}]}}}}\n\
                 {{\"kind\":\"ActionEvent\",\"source\":\"agent\",\"thought\":[{{\"type\":\"text\",\"text\":\"Looking.\"}}],\"tool_name\":\"terminal\",\"tool_call_id\":\"t{i}\",\"action\":{{\"kind\":\"ExecuteBashAction\",\"command\":\"ls\"}}}}\n\
                 {{\"kind\":\"ObservationEvent\",\"source\":\"environment\",\"tool_call_id\":\"t{i}\",\"observation\":{{\"content\":[{{\"type\":\"text\",\"text\":{out_json}}}],\"exit_code\":0}}}}"
            ),
            // One task: each exchange a call and its result.
            Format::MiniSweAgent => writeln!(
                w,
                ",{{\"role\":\"assistant\",\"content\":\"Looking.\",\"tool_calls\":[{{\"id\":\"t{i}\",\"function\":{{\"name\":\"bash\",\"arguments\":\"{{}}\"}}}}]}}\n\
                 ,{{\"role\":\"tool\",\"tool_call_id\":\"t{i}\",\"content\":{out_json}}}"
            ),
            Format::Cline => writeln!(
                w,
                ",{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"Looking.\\n<read_file>\\n<path>f{i}</path>\\n</read_file>\"}}]}}\n\
                 ,{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"[read_file for 'f{i}'] Result:\"}},{{\"type\":\"text\",\"text\":{out_json}}}]}}"
            ),
            Format::GeminiCli => writeln!(
                w,
                "{sep}{{\"id\":\"u{i}\",\"type\":\"user\",\"content\":\"{fix}\"}}\n\
                 ,{{\"id\":\"g{i}\",\"type\":\"gemini\",\"content\":\"Looking.\",\"toolCalls\":[{{\"id\":\"t{i}\",\"name\":\"run_shell_command\",\"args\":{{\"command\":\"ls\"}},\"resultDisplay\":{out_json},\"status\":\"success\"}}]}}"
            ),
            Format::SpecStory => write!(
                w,
                "_**User**_\n\n{fix}\n\n---\n\n_**Assistant**_\n\nLooking.\n\n<tool-use data-tool-name=\"run_terminal_cmd\">\n<details><summary>Ran ls</summary>\n\n```\n{out}\n```\n</details>\n</tool-use>\n\n---\n\n"
            ),
            // Aider quotes what it runs and prints with `> `.
            _ => write!(
                w,
                "#### {fix}\n\nLooking.\n\n> Running ls\n> {}\n",
                out.replace('\n', "\n> ")
            ),
        }
        .unwrap();
    }
    match format {
        Format::OpenHands | Format::Cline => write!(w, "]").unwrap(),
        Format::MiniSweAgent | Format::GeminiCli => write!(w, "]}}").unwrap(),
        Format::SweAgent => write!(
            w,
            "], \"history\": [{{\"role\":\"user\",\"content\":\"go\"}}], \"info\": {{}}}}"
        )
        .unwrap(),
        _ => {}
    }
    w.flush().unwrap();
}

/// A field of `/proc/self/status`, in bytes.
fn status_bytes(field: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with(field)).unwrap();
    let kib: usize = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap();
    kib << 10
}

/// The body of `importer_memory_bounded`: one import, run alone in a
/// child process, its peak resident set's growth printed.
#[test]
#[ignore = "run by importer_memory_bounded in a child process"]
fn child_measures_import_memory() {
    let (Ok(path), Ok(format)) = (
        std::env::var("TACT_MEMORY_CHILD_FILE"),
        std::env::var("TACT_MEMORY_CHILD_FORMAT"),
    ) else {
        return;
    };
    let format: Format = format.parse().unwrap();
    if std::env::var("TACT_MEMORY_CHILD_GUIDE").is_ok() {
        // `tact guide FILE`'s path: each turn replayed as it is read.
        let file = std::fs::File::open(&path).unwrap();
        let before = status_bytes("VmRSS:");
        let guide = std::rc::Rc::new(std::cell::RefCell::new((
            tact::guidance::Guide::new(tact::import::LOG_MODE),
            0usize,
        )));
        let fed = std::rc::Rc::clone(&guide);
        let log = tact::import::import_file_replayed(
            format,
            Path::new(&path),
            std::io::BufReader::new(file),
            "log",
            MAX_RECORD_BYTES,
            move |event| {
                let mut g = fed.borrow_mut();
                let fired = g.0.replay(&event).len();
                g.1 += 1 + fired;
            },
        )
        .unwrap();
        assert!(log.exchanges > 0 && log.turns.is_empty());
        assert!(guide.borrow().1 > 0);
        let peak = status_bytes("VmHWM:").saturating_sub(before);
        println!("peak {peak} ");
        return;
    }
    if let Ok(db) = std::env::var("TACT_MEMORY_CHILD_DB") {
        // The whole job: import, score, replay, store.
        let mut job = tact::job::Job::builder().db(&db).build().unwrap();
        let before = status_bytes("VmRSS:");
        let report = job.run_path(&path, |_| {}).unwrap();
        assert_eq!(report.stored, 1, "{format}: {:?}", report.errors);
        let peak = status_bytes("VmHWM:").saturating_sub(before);
        println!("peak {peak} ");
        return;
    }
    let file = std::fs::File::open(&path).unwrap();
    let before = status_bytes("VmRSS:");
    let log = import_reader(
        format,
        std::io::BufReader::new(file),
        "log",
        MAX_RECORD_BYTES,
    )
    .unwrap();
    assert!(!log.turns.is_empty());
    let peak = status_bytes("VmHWM:").saturating_sub(before);
    drop(log);
    println!("peak {peak} ");
}

/// What a child measures: an import, the job (into a database), or
/// `tact guide`'s replay while reading.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Import,
    Job,
    Guide,
}

/// The growth of the peak resident set of a child importing `path`.
fn import_peak(path: &Path, format: Format) -> usize {
    child_peak(path, format, Kind::Import, Path::new(""))
}

/// The growth of the peak resident set of a child importing `path`,
/// running the job on it (into the database `db`), or replaying it as
/// `tact guide` does.
fn child_peak(path: &Path, format: Format, what: Kind, db: &Path) -> usize {
    let mut child = Command::new(std::env::current_exe().unwrap());
    match what {
        Kind::Import => {}
        Kind::Job => {
            child.env("TACT_MEMORY_CHILD_DB", db);
        }
        Kind::Guide => {
            child.env("TACT_MEMORY_CHILD_GUIDE", "1");
        }
    }
    let o = child
        .args([
            "--exact",
            "memory::child_measures_import_memory",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TACT_MEMORY_CHILD_FILE", path)
        .env("TACT_MEMORY_CHILD_FORMAT", format.name())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // The harness writes the test's name on the same line.
    stdout
        .split("peak ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap()
}

/// Two logs of a format: their exchanges, each tool output's bytes, each
/// prompt's bytes past `fix N`.
#[derive(Clone, Copy)]
struct Logs {
    exchanges: [usize; 2],
    output: usize,
    prompt: usize,
}

/// The importer's logs: 250, then 1,000 exchanges of 16 KiB outputs
/// (about 4 and 16 MB).
const IMPORTED: Logs = Logs {
    exchanges: [250, 1000],
    output: 16 << 10,
    prompt: 0,
};

/// `tact run`'s and `tact guide`'s: 1,000, then 2,000 exchanges of 8 KiB
/// outputs and 2 KiB prompts (about 10 and 20 MB). From 1,000 exchanges
/// on, the database is past the 2 MB SQLite caches at most (its default
/// `cache_size`), so what the job keeps of the log is all that grows; a
/// job that kept each prompt would grow by 2 MB more.
const STREAMED: Logs = Logs {
    exchanges: [1000, 2000],
    output: 8 << 10,
    prompt: 2 << 10,
};

/// `logs` (named `name` in `many-N-FORMAT` in `dir`), imported (or run
/// through the job, or replayed as `tact guide` does) each in a child:
/// how much the file grew and how much the peak did, and both measures
/// (file bytes, peak bytes).
fn growth(
    dir: &Path,
    format: Format,
    name: &str,
    what: Kind,
    logs: Logs,
) -> ((usize, usize), Vec<(usize, usize)>) {
    let mut measured = Vec::new();
    for exchanges in logs.exchanges {
        let folder = dir.join(format!("many-{exchanges}-{}", format.name()));
        std::fs::create_dir_all(&folder).unwrap();
        let path = folder.join(name);
        if !path.exists() {
            write_log_with(&path, format, exchanges, logs.output, logs.prompt);
        }
        let size = std::fs::metadata(&path).unwrap().len() as usize;
        let db = dir.join(format!("run-{exchanges}-{}.db", format.name()));
        let _ = std::fs::remove_file(&db);
        measured.push((size, child_peak(&path, format, what, &db)));
    }
    let grown = measured[1].0 - measured[0].0;
    let cost = measured[1].1.saturating_sub(measured[0].1);
    ((grown, cost), measured)
}

#[test]
#[cfg(target_os = "linux")]
fn importer_memory_bounded() {
    let _turn = super::heavy();
    let dir = std::env::temp_dir().join(format!("tact-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for format in Format::ALL {
        // Many records: 250, then 1,000 exchanges of 16 KiB outputs
        // (about 4 and 16 MB). What is kept of each exchange (its texts,
        // a call, 1 KiB of output) grows with them, the outputs do not:
        // the 750 more exchanges cost under a quarter of their bytes (it
        // was several times the file).
        let ((grown, cost), measured) = growth(&dir, format, "log", Kind::Import, IMPORTED);
        assert!(
            cost < grown / 4,
            "{format}: {measured:?} (file bytes, peak bytes) for 250 and 1,000 exchanges"
        );
        // One large record (an 8 MiB output): at most 4 times it, plus
        // what a first import costs (lazy statics, buffers: 4 MiB).
        let one = dir.join(format!("one-{}", format.name()));
        write_log(&one, format, 1, 8 << 20);
        let record = 8 << 20;
        let peak = import_peak(&one, format);
        assert!(
            peak <= 4 * record + (4 << 20),
            "{format}: {peak} bytes to import a record of {record}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A log's file name `tact run` knows its format by (as `cargo xtask
/// mem-bench` names them).
fn file_name(format: Format) -> &'static str {
    match format {
        Format::ClaudeCode => "log.jsonl",
        Format::Codex => "rollout.jsonl",
        Format::OpenHands => "events.json",
        Format::SweAgent => "task.traj",
        Format::Aider => "log.aider.chat.history.md",
        Format::OpenHandsV1 => "events.jsonl",
        Format::MiniSweAgent => "task.traj.json",
        Format::Cline => "api_conversation_history.json",
        Format::GeminiCli => "session-bench.json",
        _ => "history.md",
    }
}

/// `tact run` on a log replays each turn as it is read (a one-task log's
/// calls as they complete), writes its calls into the store at once, in
/// pieces inside the session's transaction, then scores the turn and
/// writes it, its text dropped: 1,000 more exchanges with 2 KiB prompts
/// (10 MB, [`STREAMED`]) cost the job under 0.75 MiB (0 to 0.26 MB
/// measured). A job that keeps each turn's prompt to the end (as it did
/// to score the session whole) grows by 2.0 to 3.1 MB on the formats of
/// many turns, so this fails on it. SWE-agent's task, which its log
/// gives after its steps, is read ahead.
#[test]
#[cfg(target_os = "linux")]
fn run_memory_is_flat_as_the_log_grows() {
    assert_flat(Kind::Job, "run", 3 << 18);
}

/// For each format, the peak's growth between the two [`STREAMED`] logs
/// under `limit` bytes.
#[cfg(target_os = "linux")]
fn assert_flat(kind: Kind, name: &str, limit: usize) {
    let _turn = super::heavy();
    let dir = std::env::temp_dir().join(format!("tact-{name}-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut costs = Vec::new();
    for format in Format::ALL {
        let ((_, cost), measured) = growth(&dir, format, file_name(format), kind, STREAMED);
        costs.push((format, cost, measured));
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        costs.iter().all(|&(_, cost, _)| cost < limit),
        "{name}: peak growth from 1,000 to 2,000 exchanges (bytes; then file and peak bytes of each) {costs:?}, limit {limit}"
    );
}

/// `tact guide FILE` replays each turn as it is read and keeps only its
/// nudges, not even the ended turn: 1,000 more exchanges with 2 KiB
/// prompts (10 MB, [`STREAMED`]) cost it under 1 MiB (0 to 0.5 MB
/// measured; a replay that kept each prompt grows by 1.6 to 2.4 MB on the
/// formats of many turns).
#[test]
#[cfg(target_os = "linux")]
fn guide_memory_is_flat_as_the_log_grows() {
    assert_flat(Kind::Guide, "guide", 1 << 20);
}

/// A log replayed while it is read gives the events of the log read
/// whole, in the same order, for every format (a one-task log's calls
/// handed over in parts as they complete).
#[test]
fn a_log_replayed_while_read_gives_the_events_read_whole() {
    let dir = std::env::temp_dir().join(format!("tact-replayed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for format in Format::ALL {
        let path = dir.join(format!("log-{}", format.name()));
        write_log(&path, format, 60, 100);
        let open = || std::io::BufReader::new(std::fs::File::open(&path).unwrap());
        let whole = import_reader(format, open(), "log", MAX_RECORD_BYTES).unwrap();
        let turns = whole.turns.len();
        let whole = whole.into_events();
        let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let fed = std::rc::Rc::clone(&seen);
        let log = tact::import::import_file_replayed(
            format,
            &path,
            open(),
            "log",
            MAX_RECORD_BYTES,
            move |e| fed.borrow_mut().push(e),
        )
        .unwrap();
        assert_eq!((log.exchanges, log.turns.len()), (turns, 0), "{format}");
        assert!(whole.len() > 60, "{format}: {}", whole.len());
        assert!(*seen.borrow() == whole, "{format}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A record over the limit (a line, an event, a step) is skipped and
/// reported with its file and line; the records after it are read.
#[test]
fn a_record_over_the_limit_is_reported_with_its_line_and_the_rest_read() {
    let dir = std::env::temp_dir().join(format!("tact-limit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for format in Format::ALL {
        let small = dir.join(format!("small-{}", format.name()));
        write_log(&small, format, 3, 100);
        let whole = import_reader(
            format,
            std::io::BufReader::new(std::fs::File::open(&small).unwrap()),
            "log",
            MAX_RECORD_BYTES,
        )
        .unwrap();
        assert!(whole.problems.is_empty(), "{:?}", whole.problems);
        // The same log with the second exchange's output over the limit.
        let path = dir.join(format!("big-{}", format.name()));
        let text = std::fs::read_to_string(&small).unwrap();
        let out = "ok: line of tool output\n".repeat(100 / 24 + 1)[..100].to_owned();
        let (json, big) = if format == Format::Aider {
            (out.replace('\n', "\n> "), "x".repeat(70 << 10))
        } else if format == Format::SpecStory {
            (out.clone(), "x".repeat(70 << 10))
        } else {
            (
                serde_json::to_string(&out).unwrap(),
                serde_json::to_string(&"x".repeat(70 << 10)).unwrap(),
            )
        };
        let first = text.find(&json).unwrap();
        let second = first + json.len() + text[first + json.len()..].find(&json).unwrap();
        let cut = format!("{}{big}{}", &text[..second], &text[second + json.len()..]);
        std::fs::write(&path, &cut).unwrap();
        let line = cut[..second].matches('\n').count() + 1;
        let log = import_reader(
            format,
            std::io::BufReader::new(std::fs::File::open(&path).unwrap()),
            &path.display().to_string(),
            64 << 10,
        )
        .unwrap();
        assert_eq!(log.problems.len(), 1, "{format}: {:?}", log.problems);
        let p = &log.problems[0];
        assert_eq!(p.source_name, path.display().to_string());
        assert_eq!(p.line, line, "{format}: {p}");
        assert!(p.message.contains("over the limit of 65536 bytes"), "{p}");
        // The third exchange is read (SWE-agent's steps are one turn's,
        // as are mini-swe-agent's and this Cline task's).
        if matches!(
            format,
            Format::SweAgent | Format::MiniSweAgent | Format::Cline
        ) {
            use tact::types::trajectory::Event;
            let calls: Vec<_> = log.turns[0]
                .events
                .iter()
                .filter_map(|e| match e {
                    Event::Tool(c) => Some(c),
                    _ => None,
                })
                .collect();
            // A SWE-agent step is skipped whole; a call's result message
            // alone in the others (the call stays, unanswered).
            let expected = if format == Format::SweAgent { 2 } else { 3 };
            assert_eq!(calls.len(), expected, "{format}: {:?}", log.turns);
            // The third result is read (Cline answers the oldest open call
            // of its tool, and trims outputs).
            let answered = calls
                .iter()
                .filter(|c| c.output.as_str().map(str::trim) == Some(out.trim()))
                .count();
            assert_eq!(answered, 2, "{format}: {:?}", log.turns);
        } else {
            let prompts: Vec<&str> = log.turns.iter().map(|t| t.prompt.as_str()).collect();
            assert!(prompts.contains(&"fix 2"), "{format}: {prompts:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
