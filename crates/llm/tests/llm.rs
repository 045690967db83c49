//! The integration-test binary of tact-llm: a real HTTP server on
//! 127.0.0.1, scripted per test, speaking Ollama's `/api/chat` and the
//! OpenAI-compatible `/v1/chat/completions` as their documentation shows
//! them; the client and the classifiers' tier are driven against it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "llm/adapters.rs"]
mod adapters;
#[path = "llm/calls.rs"]
mod calls;
#[path = "llm/dialects.rs"]
mod dialects;
#[path = "llm/faults.rs"]
mod faults;
#[path = "llm/server.rs"]
mod server;
