//! `tact watch` driven for real: the binary in a pseudo-terminal, its
//! screen parsed (vt100) after each read. On a file that grows, the events
//! show, the doom loop's nudge appears when the looping calls are
//! appended, and `q` quits with the terminal restored; stdin (`-`) and
//! `--replay` are read the same way.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};

const ROWS: u16 = 30;
const COLS: u16 = 110;
/// Generous: a debug build on a loaded 2-core machine.
const WAIT: Duration = Duration::from_secs(30);

/// `tact watch` in a pseudo-terminal.
struct Tui {
    child: Box<dyn Child + Send + Sync>,
    keys: Box<dyn Write + Send>,
    parser: vt100::Parser,
    bytes: mpsc::Receiver<Vec<u8>>,
    _master: Box<dyn MasterPty + Send>,
}

impl Tui {
    /// Starts `program args` (`tact watch ...`, or a shell around it).
    fn start(program: &str, args: &[&str]) -> Tui {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut cmd = CommandBuilder::new(program);
        cmd.args(args);
        cmd.env("TERM", "xterm-256color");
        cmd.env("NO_COLOR", "1");
        let child = pty.slave.spawn_command(cmd).unwrap();
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().unwrap();
        let keys = pty.master.take_writer().unwrap();
        let (tx, bytes) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Tui {
            child,
            keys,
            parser: vt100::Parser::new(ROWS, COLS, 0),
            bytes,
            _master: pty.master,
        }
    }

    /// Reads the terminal until `done` holds for its text, or panics with
    /// the screen after [`WAIT`].
    fn until(&mut self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let text = self.parser.screen().contents();
            if done(&text) {
                return text;
            }
            if start.elapsed() > WAIT {
                let _ = self.child.kill();
                panic!("waited {WAIT:?} for {what}; the screen:\n{text}");
            }
            if let Ok(chunk) = self.bytes.recv_timeout(Duration::from_millis(100)) {
                self.parser.process(&chunk);
            }
        }
    }

    /// Presses `q`; the process must end on its own, successfully, and
    /// print its summary on the restored screen, which is returned.
    fn quit(mut self) -> String {
        self.keys.write_all(b"q").unwrap();
        self.keys.flush().unwrap();
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > WAIT {
                let _ = self.child.kill();
                panic!("tact watch did not quit on q");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(status.success(), "{status:?}");
        self.until("the summary", |s| s.contains("tact watch: "))
    }
}

fn append(path: &Path, lines: &[&str]) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
    f.flush().unwrap();
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tact-watch-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const TACT: &str = env!("CARGO_BIN_EXE_tact");
const LOOPING: &str = r#"{"type":"tool","name":"shell","params":{"command":"curl -sf https://pricing.internal/healthz"},"ok":false,"output":"curl: (7) Failed to connect"}"#;

#[test]
fn watch_follows_a_growing_file_shows_the_nudge_and_quits_on_q() {
    let dir = temp_dir("grow");
    let path = dir.join("live.jsonl");
    std::fs::write(
        &path,
        "{\"type\":\"user\",\"text\":\"Make the health check pass.\"}\n\
         {\"type\":\"assistant\",\"text\":\"Should I retry the health check, or can you check whether the pricing service is deployed in production?\"}\n",
    )
    .unwrap();
    let mut tui = Tui::start(TACT, &["watch", path.to_str().unwrap()]);
    let first = tui.until("the first events", |s| {
        s.contains("2 events") && s.contains("score · spec")
    });
    assert!(first.contains("transcript"), "{first}");
    assert!(
        first.contains("  ?   ["),
        "a question tagged by effort: {first}"
    );
    assert!(
        first.contains("user  ["),
        "a user message tagged by route: {first}"
    );
    assert!(first.contains("live · "), "{first}");
    assert!(!first.contains("nudge doom_loop"), "{first}");

    // The agent loops on a failing call: appended, as an agent's log grows.
    append(&path, &[LOOPING, LOOPING, LOOPING, LOOPING, LOOPING]);
    let looped = tui.until("the doom loop's nudge", |s| {
        s.contains("nudge doom_loop") && s.contains("7 events")
    });
    assert!(looped.contains("doom_loop_breaker"), "{looped}");

    let end = tui.quit();
    assert!(
        end.contains("tact watch: 7 events, 3 nudges, 0 lines skipped"),
        "{end}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn watch_reads_stdin_and_the_keys_from_the_terminal() {
    let dir = temp_dir("stdin");
    let path = dir.join("log.jsonl");
    let mut lines = vec![
        r#"{"type":"user","text":"Make the health check pass."}"#,
        "npm WARN not an event",
    ];
    lines.extend([LOOPING; 4]);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    // stdin is the log (a pipe's end); the keys come from the terminal.
    let script = format!("'{TACT}' watch - < '{}'", path.display());
    let mut tui = Tui::start("sh", &["-c", &script]);
    let screen = tui.until("the whole log, ended", |s| {
        s.contains("ended · 5 events") && s.contains("nudge doom_loop")
    });
    assert!(
        screen.contains("1 skipped: stdin:2: not valid JSON"),
        "{screen}"
    );
    // Space pauses.
    tui.keys.write_all(b" ").unwrap();
    tui.keys.flush().unwrap();
    tui.until("the pause", |s| s.contains("PAUSED"));
    let end = tui.quit();
    assert!(end.contains("tact watch: 5 events"), "{end}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn watch_replays_the_demo_step_by_step() {
    let cedar =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/sessions/demo/cache/cedar.json");
    let mut tui = Tui::start(TACT, &["watch", "--replay", "20", cedar.to_str().unwrap()]);
    let early = tui.until("the replay's start", |s| s.contains("replay 20/s"));
    // Stepping: the loop's nudge comes a dozen steps later, not at once.
    assert!(!early.contains("nudge doom_loop"), "{early}");
    let screen = tui.until("the doom loop", |s| s.contains("nudge doom_loop"));
    assert!(!screen.contains("FIXTURE"), "a credential shown: {screen}");
    tui.until("the replay's end", |s| {
        s.contains("0 queued") && s.contains("score · spec · turn 1")
    });
    tui.quit();
}

#[test]
fn watch_follows_a_growing_claude_code_log() {
    let dir = temp_dir("claude");
    let path = dir.join("session.jsonl");
    std::fs::write(
        &path,
        concat!(
            r#"{"type":"user","sessionId":"s","message":{"role":"user","content":"Add a cache to the pricing client."}}"#,
            "\n",
            r#"{"type":"assistant","sessionId":"s","message":{"id":"m1","model":"claude-x","role":"assistant","content":[{"type":"text","text":"Let me look at the client."},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"src/pricing.rs"}}]}}"#,
            "\n",
            r#"{"type":"summary","summary":"Pricing cache","leafUuid":"x"}"#,
            "\n",
        ),
    )
    .unwrap();
    let mut tui = Tui::start(TACT, &["watch", path.to_str().unwrap()]);
    let first = tui.until("the prompt", |s| s.contains("Add a cache to the pricing"));
    assert!(!first.contains("skipped"), "no line skipped: {first}");
    // The call's result arrives: the call shows, with the message before it.
    append(
        &path,
        &[
            r#"{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"pub struct Client;"}]}}"#,
        ],
    );
    tui.until("the call", |s| {
        s.contains("Read file_path=src/pricing.rs") && s.contains("Let me look at the client.")
    });
    // The agent asks and waits: its question shows before the user
    // replies (a draft, `agent…`, not scored yet).
    append(
        &path,
        &[
            r#"{"type":"assistant","sessionId":"s","message":{"id":"m2","model":"claude-x","role":"assistant","content":[{"type":"text","text":"Should the cache live in Redis or in process?"}]}}"#,
        ],
    );
    let waiting = tui.until("the question, before the answer", |s| {
        s.contains("agent…Should the cache live in Redis or in process?") && s.contains("  ?   [")
    });
    assert!(!waiting.contains("In process."), "{waiting}");
    // The user answers: the question is the turn's response, the turn scored.
    append(
        &path,
        &[r#"{"type":"user","sessionId":"s","message":{"role":"user","content":"In process."}}"#],
    );
    let asked = tui.until("the question and the answer", |s| {
        s.contains("  ?   [") && s.contains("In process.") && s.contains("turn 1")
    });
    assert!(!asked.contains("agent…"), "the draft is gone: {asked}");
    assert!(
        asked.contains("agent Should the cache live in Redis or in process?"),
        "{asked}"
    );
    assert!(!asked.contains("│prog"), "no progress rows: {asked}");
    let end = tui.quit();
    assert!(end.contains("0 lines skipped"), "{end}");
    let _ = std::fs::remove_dir_all(&dir);
}
