//! A scripted model server on loopback for the `--llm` tests: `GET`
//! (Ollama's `/api/version`, `/v1/models`) answers a version; each `POST`
//! is counted and answered with the script's content as Ollama does (or
//! as an OpenAI-compatible server does, for `/v1/chat/completions`), or
//! never (a stalled server: the connection is held open). It
//! serves at most `max` connections, then its thread ends; the process's
//! end closes what is left. Shared by the `cli` and `run` test binaries
//! (each uses part of it).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What each chat call gets.
#[derive(Clone, Copy)]
pub enum Chat {
    /// An Ollama answer whose message content is this.
    Answer(&'static str),
    /// No answer at all.
    Stall,
}

pub struct ModelServer {
    pub url: String,
    posts: Arc<AtomicUsize>,
}

impl ModelServer {
    pub fn start(max: usize, chat: Chat) -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let posts = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&posts);
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for _ in 0..max {
                let Ok((stream, _)) = listener.accept() else {
                    return;
                };
                let Some((first, stream)) = read_request(stream) else {
                    continue;
                };
                let answer = if first.starts_with("GET") {
                    serde_json::json!({"version": "0.12.6"})
                } else {
                    counted.fetch_add(1, Ordering::SeqCst);
                    match chat {
                        Chat::Stall => {
                            held.push(stream);
                            continue;
                        }
                        // An OpenAI-compatible server's chat completion.
                        Chat::Answer(content) if first.contains("/v1/") => serde_json::json!({
                            "object": "chat.completion",
                            "choices": [{"index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant", "content": content}}]
                        }),
                        Chat::Answer(content) => serde_json::json!({
                            "model": "qwen2.5:3b",
                            "message": {"role": "assistant", "content": content},
                            "done": true
                        }),
                    }
                }
                .to_string();
                let mut stream = stream;
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                    answer.len()
                );
            }
        });
        Self { url, posts }
    }

    /// The chat calls that reached the server.
    pub fn posts(&self) -> usize {
        self.posts.load(Ordering::SeqCst)
    }
}

/// Reads one request's head and body; returns its first line.
fn read_request(stream: TcpStream) -> Option<(String, TcpStream)> {
    let mut reader = BufReader::new(stream);
    let (mut first, mut length) = (String::new(), 0usize);
    reader.read_line(&mut first).ok()?;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                length = v.trim().parse().ok()?;
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((first, reader.into_inner()))
}
