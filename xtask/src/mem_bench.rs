//! `cargo xtask mem-bench`: the peak memory of `tact run` and `tact guide`
//! on agents' logs of 10, 50 and 100 MB (`--sizes`) of every format, and
//! on a log of one large record per format (issue 41's reproducers: a
//! 48 MB SWE-agent observation, a 15 MB Aider reply, a 75 MB OpenHands
//! log), against the log's largest record.
//!
//! The logs are generated (streamed to files under `--dir`): exchanges of
//! a prompt, a short reply and a tool call whose output is 8 KiB, every
//! 50th 256 KiB, so the largest record stays the same as the file grows.
//! Aider records no tool output: its bulk is the output of the commands it
//! runs, which it quotes with `> `. Peak memory is the resident set's
//! high-water mark read by GNU time (`/usr/bin/time -f %M`), which must be
//! installed (`apt-get install time`).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

/// Arguments of `cargo xtask mem-bench`.
#[derive(clap::Args)]
pub struct MemBenchArgs {
    /// The `tact` binary measured (default: target/release/tact).
    #[arg(long)]
    tact: Option<PathBuf>,
    /// Log sizes, in MB.
    #[arg(long, value_delimiter = ',', default_value = "10,50,100")]
    sizes: Vec<u64>,
    /// Only these formats (default: all).
    #[arg(long, value_delimiter = ',')]
    formats: Vec<String>,
    /// Where the logs are written (default: a folder under the system's
    /// temporary folder, removed at the end).
    #[arg(long)]
    dir: Option<PathBuf>,
}

/// The formats, with the file name each log gets.
const FORMATS: [(&str, &str); 5] = [
    ("claude-code", "log.jsonl"),
    ("codex", "rollout.jsonl"),
    ("openhands", "events.json"),
    ("swe-agent", "task.traj"),
    ("aider", "log.aider.chat.history.md"),
];

/// Output bytes of exchange `i`: 8 KiB, every 50th 256 KiB.
fn output_bytes(i: usize) -> usize {
    if i % 50 == 49 { 256 << 10 } else { 8 << 10 }
}

/// A tool output of `n` bytes: lines of a file listing.
fn output(i: usize, n: usize) -> String {
    let line = format!("src/module_{i}.rs:{i}: fn value() -> u32 {{ 42 }}\n");
    let mut s = line.repeat(n / line.len() + 1);
    s.truncate(n);
    s
}

/// Writes a log of `format` to `path`: exchanges until `bytes` are written
/// (or `one` exchange whose output is `bytes`). Returns the largest
/// record's size in bytes (a line, or an event or step of a one-document
/// log).
fn write_log(path: &Path, format: &str, bytes: u64, one: bool) -> Result<u64> {
    let mut w = Out {
        w: BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?,
        ),
        written: 0,
        largest: 0,
    };
    let put = |w: &mut Out, text: &str, record: bool| w.put(text, record);
    match format {
        "openhands" => put(&mut w, "[", false)?,
        "swe-agent" => put(&mut w, "{\"trajectory\": [", false)?,
        "aider" => put(
            &mut w,
            "# aider chat started at 2026-01-01 10:00:00\n\n> Aider v0.86.2\n> Model: gpt-x with diff edit format\n\n",
            false,
        )?,
        _ => {}
    }
    let mut i = 0usize;
    loop {
        let done = if one { i == 1 } else { w.written >= bytes };
        if done {
            break;
        }
        let n = if one {
            usize::try_from(bytes).unwrap_or(usize::MAX)
        } else {
            output_bytes(i)
        };
        let out = output(i, n);
        let out_json = serde_json::to_string(&out)?;
        let prompt = format!("Please fix test {i} of the parser.");
        let said = format!("I will read module {i} first. Should I also run the linter?");
        let sep = if i == 0 { "" } else { "," };
        match format {
            "claude-code" => {
                for record in [
                    serde_json::json!({"type": "user", "uuid": format!("u{i}"), "sessionId": "s", "message": {"role": "user", "content": prompt}}),
                    serde_json::json!({"type": "assistant", "uuid": format!("a{i}"), "sessionId": "s", "message": {"id": format!("m{i}"), "model": "claude-x", "content": [{"type": "text", "text": said}, {"type": "tool_use", "id": format!("t{i}"), "name": "Bash", "input": {"command": format!("cat src/module_{i}.rs")}}]}}),
                ] {
                    put(&mut w, &format!("{record}\n"), true)?;
                }
                put(
                    &mut w,
                    &format!(
                        "{{\"type\":\"user\",\"uuid\":\"r{i}\",\"sessionId\":\"s\",\"message\":{{\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"t{i}\",\"content\":{out_json}}}]}}}}\n"
                    ),
                    true,
                )?;
            }
            "codex" => {
                for record in [
                    serde_json::json!({"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}}),
                    serde_json::json!({"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": said}]}}),
                    serde_json::json!({"type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": format!("{{\"command\":[\"cat\",\"src/module_{i}.rs\"]}}"), "call_id": format!("c{i}")}}),
                ] {
                    put(&mut w, &format!("{record}\n"), true)?;
                }
                put(
                    &mut w,
                    &format!(
                        "{{\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call_output\",\"call_id\":\"c{i}\",\"output\":{out_json}}}}}\n"
                    ),
                    true,
                )?;
            }
            "openhands" => {
                let a = serde_json::json!({"id": 3 * i, "source": "user", "action": "message", "args": {"content": prompt}});
                let b = serde_json::json!({"id": 3 * i + 1, "source": "agent", "action": "run", "args": {"command": format!("cat src/module_{i}.rs"), "thought": said}});
                put(&mut w, &format!("{sep}{a}"), true)?;
                put(&mut w, &format!(",{b}"), true)?;
                put(
                    &mut w,
                    &format!(
                        ",{{\"id\":{},\"cause\":{},\"source\":\"agent\",\"observation\":\"run\",\"content\":{out_json},\"extras\":{{\"exit_code\":0}}}}",
                        3 * i + 2,
                        3 * i + 1
                    ),
                    true,
                )?;
            }
            "swe-agent" => put(
                &mut w,
                &format!(
                    "{sep}{{\"thought\":{},\"action\":\"cat src/module_{i}.rs\",\"observation\":{out_json}}}",
                    serde_json::to_string(&said)?
                ),
                true,
            )?,
            // One record: a reply of that size (the agent's words, which
            // the store keeps whole).
            _ if one => {
                put(&mut w, &format!("#### {prompt}\n\n"), true)?;
                put(&mut w, &format!("{said}\n\n{out}\n"), true)?;
            }
            _ => {
                put(&mut w, &format!("#### {prompt}\n\n{said}\n\n"), true)?;
                put(&mut w, &format!("> Running cat src/module_{i}.rs\n"), true)?;
                // Aider quotes a command's output line by line.
                for line in out.lines() {
                    put(&mut w, &format!("> {line}\n"), true)?;
                }
                put(&mut w, "\n", false)?;
            }
        }
        i += 1;
    }
    match format {
        "openhands" => put(&mut w, "]", false)?,
        "swe-agent" => put(
            &mut w,
            "], \"history\": [{\"role\": \"user\", \"content\": \"go\"}], \"info\": {\"exit_status\": \"submitted\"}}",
            false,
        )?,
        _ => {}
    }
    w.w.flush()?;
    Ok(w.largest)
}

/// A log being written: the bytes so far and the largest record's.
struct Out {
    w: BufWriter<std::fs::File>,
    written: u64,
    largest: u64,
}

impl Out {
    /// Writes `text`, a record (or part of the structure around them).
    fn put(&mut self, text: &str, record: bool) -> Result<()> {
        self.w.write_all(text.as_bytes())?;
        self.written += text.len() as u64;
        if record {
            self.largest = self.largest.max(text.len() as u64);
        }
        Ok(())
    }
}

/// Peak resident memory of `tact ARGS`, in KiB (GNU time's `%M`).
fn peak_kib(tact: &Path, args: &[&std::ffi::OsStr]) -> Result<u64> {
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M", "--"])
        .arg(tact)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .context("cannot run /usr/bin/time (apt-get install time)")?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        bail!("tact {args:?} failed: {stderr}");
    }
    stderr
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .with_context(|| format!("no peak memory in {stderr:?}"))
}

/// One measured log.
struct Row {
    format: &'static str,
    log: String,
    file: u64,
    largest: u64,
    run: u64,
    guide: u64,
}

fn mb(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1e6)
}

/// Measures one log: `tact run` into a fresh database, then `tact guide`.
fn measure(tact: &Path, dir: &Path, path: &Path) -> Result<(u64, u64)> {
    let db = dir.join("bench.db");
    let _ = std::fs::remove_file(&db);
    let run = peak_kib(
        tact,
        &[
            "run".as_ref(),
            "--db".as_ref(),
            db.as_os_str(),
            path.as_os_str(),
        ],
    )?;
    let guide = peak_kib(tact, &["guide".as_ref(), path.as_os_str()])?;
    let _ = std::fs::remove_file(&db);
    Ok((run, guide))
}

/// Runs `cargo xtask mem-bench`: prints the Markdown table.
pub fn run(args: &MemBenchArgs, root: &Path) -> Result<String> {
    let tact = args
        .tact
        .clone()
        .unwrap_or_else(|| root.join("target/release/tact"));
    if !tact.exists() {
        bail!(
            "{} not found: cargo build --release -p tact-cli",
            tact.display()
        );
    }
    if !Path::new("/usr/bin/time").exists() {
        bail!("GNU time is needed: apt-get install time");
    }
    let (dir, temporary) = match &args.dir {
        Some(d) => (d.clone(), false),
        None => (
            std::env::temp_dir().join(format!("tact-mem-bench-{}", std::process::id())),
            true,
        ),
    };
    std::fs::create_dir_all(&dir)?;
    let mut rows = Vec::new();
    for (format, name) in FORMATS {
        if !args.formats.is_empty() && !args.formats.iter().any(|f| f == format) {
            continue;
        }
        let mut logs: Vec<(String, u64, bool)> = args
            .sizes
            .iter()
            .map(|mb| (format!("{mb} MB"), mb * 1_000_000, false))
            .collect();
        // Issue 41's reproducers: one record of this size.
        let one = match format {
            "swe-agent" => 48 << 20,
            "aider" => 15 << 20,
            _ => 32 << 20,
        };
        logs.push((format!("one {} MB record", one >> 20), one, true));
        for (label, bytes, single) in logs {
            let path = dir.join(format!("{}-{name}", label.replace(' ', "-")));
            let largest = write_log(&path, format, bytes, single)?;
            let file = std::fs::metadata(&path)?.len();
            let (run, guide) = measure(&tact, &dir, &path)?;
            eprintln!("{format} {label}: run {run} KiB, guide {guide} KiB");
            rows.push(Row {
                format,
                log: label,
                file,
                largest,
                run,
                guide,
            });
            let _ = std::fs::remove_file(&path);
        }
    }
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let mut table = String::from(
        "| format | log | file (MB) | largest record (MB) | `tact run` peak (MB) | `tact guide` peak (MB) | run peak / largest record |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for r in rows {
        let (run, guide) = (r.run * 1024, r.guide * 1024);
        // The ratio says something of a log of one large record only.
        let ratio = if r.log.starts_with("one ") {
            format!("{:.1}", run as f64 / r.largest.max(1) as f64)
        } else {
            "-".to_owned()
        };
        table.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {ratio} |\n",
            r.format,
            r.log,
            mb(r.file),
            mb(r.largest),
            mb(run),
            mb(guide),
        ));
    }
    Ok(table)
}
