//! A scripted HTTP/1.1 server on loopback: each request (method, path,
//! JSON body) is recorded and answered by the test's script after its
//! delay, one request per connection; a client that closes its connection
//! during the delay is counted (a call cancelled). It stops when dropped.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub body: serde_json::Value,
}

/// The server's answer to one request.
pub struct Reply {
    pub delay: Duration,
    pub status: u16,
    pub body: String,
    pub headers: Vec<(String, String)>,
}

impl Reply {
    pub fn ok(body: serde_json::Value) -> Self {
        Self::raw(200, &body.to_string())
    }

    pub fn raw(status: u16, body: &str) -> Self {
        Self {
            delay: Duration::ZERO,
            status,
            body: body.to_owned(),
            headers: Vec::new(),
        }
    }

    /// An answer that never comes (the connection is held open).
    pub fn stall() -> Self {
        Self::raw(200, "{}").after(Duration::from_secs(3600))
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// Ollama's `/api/chat` answer (stream false) with `content`.
pub fn ollama(content: &str) -> Reply {
    Reply::ok(serde_json::json!({
        "model": "qwen2.5:3b",
        "created_at": "2025-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": content},
        "done_reason": "stop",
        "done": true,
        "total_duration": 1_000_000,
        "eval_count": 7
    }))
}

/// An OpenAI-compatible chat completion with `content`, as JSON.
pub fn completion_json(content: &str) -> serde_json::Value {
    serde_json::json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_735_689_600,
        "model": "qwen2.5-3b-instruct",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": "stop"
        }],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    })
}

/// An OpenAI-compatible chat completion with `content`.
pub fn openai(content: &str) -> Reply {
    Reply::ok(completion_json(content))
}

type Script = dyn Fn(&Seen) -> Reply + Send + Sync;

pub struct Server {
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    open: Arc<AtomicUsize>,
    max_open: Arc<AtomicUsize>,
    closed: Arc<AtomicUsize>,
    _rt: tokio::runtime::Runtime,
}

impl Server {
    pub fn start(script: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Self {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let listener = rt.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let open = Arc::new(AtomicUsize::new(0));
        let max_open = Arc::new(AtomicUsize::new(0));
        let closed = Arc::new(AtomicUsize::new(0));
        let script: Arc<Script> = Arc::new(script);
        let (s, o, m, c) = (seen.clone(), open.clone(), max_open.clone(), closed.clone());
        rt.spawn(async move {
            loop {
                let Ok((mut stream, _)) = listener.accept().await else {
                    return;
                };
                let (script, seen, open, max_open, closed) =
                    (script.clone(), s.clone(), o.clone(), m.clone(), c.clone());
                tokio::spawn(async move {
                    let Some(req) = read_request(&mut stream).await else {
                        return;
                    };
                    let now = open.fetch_add(1, Ordering::SeqCst) + 1;
                    max_open.fetch_max(now, Ordering::SeqCst);
                    seen.lock().unwrap().push(req.clone());
                    let reply = script(&req);
                    let mut probe = [0u8; 1];
                    tokio::select! {
                        () = tokio::time::sleep(reply.delay) => {}
                        // The client closed its connection: the call was
                        // cancelled.
                        _ = stream.read(&mut probe) => {
                            open.fetch_sub(1, Ordering::SeqCst);
                            closed.fetch_add(1, Ordering::SeqCst);
                            return;
                        }
                    }
                    // Done before the answer is written: the client may
                    // send its next request as soon as it reads it.
                    open.fetch_sub(1, Ordering::SeqCst);
                    let mut head = format!(
                        "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
                        reply.status,
                        if reply.status == 200 { "OK" } else { "Error" },
                        reply.body.len()
                    );
                    for (k, v) in &reply.headers {
                        head.push_str(&format!("{k}: {v}\r\n"));
                    }
                    head.push_str("\r\n");
                    let _ = stream.write_all(head.as_bytes()).await;
                    let _ = stream.write_all(reply.body.as_bytes()).await;
                    let _ = stream.shutdown().await;
                });
            }
        });
        Self {
            url,
            seen,
            open,
            max_open,
            closed,
            _rt: rt,
        }
    }

    /// Calls whose client closed the connection before the answer.
    pub fn closed(&self) -> usize {
        self.closed.load(Ordering::SeqCst)
    }

    /// The POST requests seen (the chat calls).
    pub fn posts(&self) -> Vec<Seen> {
        self.seen()
            .into_iter()
            .filter(|s| s.method == "POST")
            .collect()
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    pub fn max_open(&self) -> usize {
        let _ = self.open.load(Ordering::SeqCst);
        self.max_open.load(Ordering::SeqCst)
    }
}

/// Reads one request: the head up to a blank line, then `Content-Length`
/// bytes of body.
async fn read_request(stream: &mut tokio::net::TcpStream) -> Option<Seen> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > 1 << 20 {
            return None;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.lines();
    let mut first = lines.next()?.split(' ');
    let (method, path) = (first.next()?.to_owned(), first.next()?.to_owned());
    let length: usize = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&buf[head_end..head_end + length]).unwrap_or_default();
    Some(Seen { method, path, body })
}
