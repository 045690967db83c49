//! Follow mode is linear on stdin (issue 41): a one-document log (an
//! OpenHands event list, a SWE-agent trajectory) pushed in 64 KiB pieces,
//! as `tact guide --follow --format … -` reads a pipe, was parsed again
//! whole on every push that ended in `]` or `}` (a 48 MB trajectory took
//! 26 to 32 s; here 8 MiB took 24 times as long as 1 MiB, where linear is
//! 8). Now it is parsed once its top-level value closes.
//!
//! Timing on a loaded machine is noisy: each size keeps its best of three
//! runs, and 8 times the log may take at most 16 times as long (linear is
//! 8; re-parsing per push is about 64), plus an allowance for timer noise.

use std::time::{Duration, Instant};

use tact::import::{Follower, Format};

/// A SWE-agent trajectory of about `bytes` bytes: one step whose
/// observation is closing braces (so every push of the old reader ended
/// in `}` and parsed the whole document).
fn trajectory(bytes: usize) -> String {
    let observation = "}".repeat(bytes);
    serde_json::json!({
        "trajectory": [{"action": "ls", "observation": observation, "thought": "look"}],
        "history": [{"role": "user", "content": "go"}],
        "info": {}
    })
    .to_string()
}

/// An OpenHands event list of about `bytes` bytes: a prompt, then pairs
/// of a `run` action and its observation.
fn event_list(bytes: usize) -> String {
    let mut events = vec![
        serde_json::json!({"id": 0, "source": "user", "action": "message", "args": {"content": "go"}}),
    ];
    let out = "}".repeat(4000);
    let mut id = 1;
    let mut size = 0;
    while size < bytes {
        events.push(serde_json::json!({"id": id, "source": "agent", "action": "run", "args": {"command": "ls", "thought": ""}}));
        events.push(serde_json::json!({"id": id + 1, "cause": id, "source": "agent", "observation": "run", "content": out, "extras": {"exit_code": 0}}));
        id += 2;
        size += out.len() + 200;
    }
    serde_json::Value::Array(events).to_string()
}

/// Follows `doc` pushed in 64 KiB pieces: the events it gives.
fn follow(format: Format, doc: &str) -> usize {
    let mut f = Follower::new(format, "-");
    let mut n = 0;
    for piece in doc.as_bytes().chunks(64 << 10) {
        let (events, errors) = f.push(piece);
        assert!(errors.is_empty(), "{errors:?}");
        n += events.len();
    }
    let (events, errors) = f.finish();
    assert!(errors.is_empty(), "{errors:?}");
    n + events.len()
}

fn best_of_three(format: Format, doc: &str) -> Duration {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            assert!(std::hint::black_box(follow(format, doc)) >= 2);
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

#[test]
fn follow_stdin_is_linear() {
    let _turn = super::heavy();
    const BASE: usize = 1 << 20;
    for (format, make) in [
        (Format::SweAgent, trajectory as fn(usize) -> String),
        (Format::OpenHands, event_list),
    ] {
        let docs: Vec<String> = [1, 2, 4, 8].iter().map(|m| make(m * BASE)).collect();
        let times: Vec<Duration> = docs.iter().map(|d| best_of_three(format, d)).collect();
        let allowance = Duration::from_millis(100);
        for (k, t) in times.iter().enumerate().skip(1) {
            let factor = 2u32 << k;
            assert!(
                *t <= times[0] * factor + allowance,
                "{format} follow is superlinear: {times:?} for 1, 2, 4, 8 MiB"
            );
        }
    }
}
