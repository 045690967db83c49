//! Criterion bench of agent-log import in MB/s per format: each sample of
//! `fixtures/logs` (the largest of each format) repeated to about 4 MB and
//! imported whole (`import_text`), as `tact run` reads a log. Cline's and
//! Gemini CLI's logs are built here (the bench predates their samples in
//! `fixtures/logs`) from a task of a question, a file read, an edit and a
//! command in each format's shape, repeated to the same size. OpenHands'
//! resolver output (`output.jsonl`, one task a line, each a session) is
//! read line by line as `tact run` reads it (`SessionLines`, each line
//! imported), its sample's lines repeated to about 4 MB (`openhands-tasks`).

use std::hint::black_box;
use std::path::Path;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use tact::import::{Format, SessionLines, import_text};

/// A log of `format` of about 4 MB: the sample's records repeated (JSON
/// Lines and Markdown), or its event list / trajectory steps repeated (one
/// JSON document).
fn four_mb(rel: &str, format: Format) -> String {
    let text = sample(rel);
    let target = 4 << 20;
    match format {
        Format::OpenHands => {
            let events: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap_or_default();
            let mut all = Vec::new();
            while serde_json::to_string(&all).map_or(0, |s| s.len()) < target && !events.is_empty()
            {
                all.extend(events.iter().cloned());
            }
            serde_json::to_string(&all).unwrap_or_default()
        }
        Format::MiniSweAgent => repeat_list(&text, "messages", target),
        Format::SweAgent => {
            let mut v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            let steps = v["trajectory"].as_array().cloned().unwrap_or_default();
            let mut all = Vec::new();
            while all.len() * (text.len() / steps.len().max(1)) < target && !steps.is_empty() {
                all.extend(steps.iter().cloned());
            }
            v["trajectory"] = serde_json::Value::Array(all);
            v.to_string()
        }
        _ => repeat_lines(&text, target),
    }
}

/// The sample at `rel` (from the repository's root).
fn sample(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel);
    std::fs::read_to_string(path).unwrap_or_default()
}

/// `text`'s lines repeated to about `target` bytes.
fn repeat_lines(text: &str, target: usize) -> String {
    let mut s = String::with_capacity(target + text.len());
    while s.len() < target && !text.is_empty() {
        s.push_str(text);
        if !s.ends_with('\n') {
            s.push('\n');
        }
    }
    s
}

/// A document whose list at `key` is repeated to about `target` bytes.
fn repeat_list(text: &str, key: &str, target: usize) -> String {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    let items = v[key].as_array().cloned().unwrap_or_default();
    let mut all = Vec::new();
    while all.len() * (text.len() / items.len().max(1)) < target && !items.is_empty() {
        all.extend(items.iter().cloned());
    }
    v[key] = serde_json::Value::Array(all);
    v.to_string()
}

/// A Cline `api_conversation_history.json` of about `target` bytes: a
/// task, an XML `read_file`, `replace_in_file` and `execute_command` with
/// their results, a follow-up question and its answer, repeated.
fn cline(target: usize) -> String {
    let file = "export function add(a: number, b: number) {\n  return a + b;\n}\n".repeat(12);
    let round = serde_json::json!([
        {"role": "user", "content": [{"type": "text", "text": "<task>\nAdd a subtract function to src/math.ts and test it.\n</task>"}, {"type": "text", "text": "<environment_details>\n# VSCode Visible Files\nsrc/math.ts\n</environment_details>"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "<thinking>Read the file first.</thinking>\nI'll read the module.\n<read_file>\n<path>src/math.ts</path>\n</read_file>"}]},
        {"role": "user", "content": [{"type": "text", "text": "[read_file for 'src/math.ts'] Result:"}, {"type": "text", "text": file}]},
        {"role": "assistant", "content": [{"type": "text", "text": "<replace_in_file>\n<path>src/math.ts</path>\n<diff>\n------- SEARCH\nexport function add\n=======\nexport function subtract(a: number, b: number) { return a - b; }\nexport function add\n+++++++ REPLACE\n</diff>\n</replace_in_file>"}]},
        {"role": "user", "content": [{"type": "text", "text": "[replace_in_file for 'src/math.ts'] Result:"}, {"type": "text", "text": "The content was successfully saved to src/math.ts."}]},
        {"role": "assistant", "content": [{"type": "text", "text": "<execute_command>\n<command>npm test</command>\n<requires_approval>false</requires_approval>\n</execute_command>"}]},
        {"role": "user", "content": [{"type": "text", "text": "[execute_command for 'npm test'] Result:"}, {"type": "text", "text": "Command executed.\nOutput:\n12 passing"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "<ask_followup_question>\n<question>Should subtract also accept bigints?</question>\n<options>[\"Yes\", \"No\"]</options>\n</ask_followup_question>"}]},
        {"role": "user", "content": [{"type": "text", "text": "[ask_followup_question for 'Should subtract also accept bigints?'] Result:"}, {"type": "text", "text": "<answer>\nNo\n</answer>"}]}
    ]);
    let items = round.as_array().cloned().unwrap_or_default();
    let size = round.to_string().len().max(1);
    let mut all = Vec::new();
    while all.len() / items.len().max(1) * size < target {
        all.extend(items.iter().cloned());
    }
    serde_json::Value::Array(all).to_string()
}

/// A Gemini CLI recorded session of about `target` bytes: a prompt, a
/// reply with a `read_file` and a `run_shell_command` call and their
/// results, and the answer, repeated.
fn gemini(target: usize) -> String {
    let file = "def add(a, b):\n    return a + b\n".repeat(24);
    let mut messages = Vec::new();
    let mut size = 0;
    let mut k = 0;
    while size < target {
        let round = serde_json::json!([
            {"id": format!("u{k}"), "timestamp": "2025-10-18T14:57:28.974Z", "type": "user", "content": "Add a subtract function to math.py and run the tests."},
            {"id": format!("g{k}"), "timestamp": "2025-10-18T14:57:31.000Z", "type": "gemini", "content": "I'll read math.py first.", "model": "gemini-2.5-pro",
             "toolCalls": [
                {"id": format!("read-{k}"), "name": "read_file", "args": {"absolute_path": "/work/math.py"}, "status": "success", "timestamp": "2025-10-18T14:57:32.000Z",
                 "result": [{"functionResponse": {"id": format!("read-{k}"), "name": "read_file", "response": {"output": file}}}], "resultDisplay": ""},
                {"id": format!("shell-{k}"), "name": "run_shell_command", "args": {"command": "pytest -q"}, "status": "error", "timestamp": "2025-10-18T14:57:35.000Z",
                 "result": [{"functionResponse": {"id": format!("shell-{k}"), "name": "run_shell_command", "response": {"error": "1 failed"}}}], "resultDisplay": "1 failed"}]},
            {"id": format!("a{k}"), "timestamp": "2025-10-18T14:57:40.000Z", "type": "gemini", "content": "One test fails. Should subtract round floats?", "model": "gemini-2.5-pro"}
        ]);
        size += round.to_string().len();
        messages.extend(round.as_array().cloned().unwrap_or_default());
        k += 1;
    }
    serde_json::json!({"sessionId": "s", "projectHash": "h", "startTime": "2025-10-18T14:57:28.974Z", "messages": messages}).to_string()
}

fn import(c: &mut Criterion) {
    let inputs = [
        (
            Format::ClaudeCode,
            "fixtures/logs/claude-code/ask-user-question.jsonl",
        ),
        (
            Format::Codex,
            "fixtures/logs/codex/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
        ),
        (
            Format::OpenHands,
            "fixtures/logs/openhands/basic_gui_mode.json",
        ),
        (
            Format::SweAgent,
            "fixtures/logs/swe-agent/pydicom__pydicom-1458.traj",
        ),
        (
            Format::Aider,
            "fixtures/logs/aider/mozgoslav.aider.chat.history.md",
        ),
        (
            Format::OpenHandsV1,
            "fixtures/logs/openhands-v1/cli447_hi_followup_iterative_case_a.jsonl",
        ),
        (
            Format::MiniSweAgent,
            "fixtures/logs/mini-swe-agent/django__django-16255.traj.json",
        ),
        (
            Format::SpecStory,
            "fixtures/logs/specstory/2026-02-27_18-12-11Z-i-want-to-be.md",
        ),
        (Format::Cline, ""),
        (Format::GeminiCli, ""),
    ];
    let mut group = c.benchmark_group("import");
    group.sample_size(20);
    for (format, rel) in inputs {
        let text = match format {
            Format::Cline => cline(4 << 20),
            Format::GeminiCli => gemini(4 << 20),
            _ => four_mb(rel, format),
        };
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("import_text", format.name()),
            &text,
            |b, t| {
                b.iter(|| import_text(format, black_box(t), "bench").map(|l| l.turns.len()));
            },
        );
    }
    // A file of many sessions, one a line: each imported as its own.
    let text = repeat_lines(
        &sample("fixtures/logs/openhands/openhands-resolver-output.jsonl"),
        4 << 20,
    );
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_with_input(
        BenchmarkId::new("session_lines", "openhands-tasks"),
        &text,
        |b, t| {
            b.iter(|| {
                SessionLines::new(black_box(t).as_bytes(), "bench", 64 << 20)
                    .filter_map(|l| {
                        l.and_then(|l| l.import(Format::OpenHands, "bench", 64 << 20))
                            .ok()
                    })
                    .map(|l| l.turns.len())
                    .sum::<usize>()
            });
        },
    );
    group.finish();
}

criterion_group!(benches, import);
criterion_main!(benches);
