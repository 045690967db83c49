//! The client against scripted servers that answer as each real server
//! does (from their documentation, and for llama-cpp-python from the
//! refusal a real one gave): Ollama, llama.cpp's `llama-server`,
//! llama-cpp-python, vLLM and LM Studio. Each test asserts the form of the
//! request the server takes, that a refused form is left once (not on
//! every call), and that the answer is used.

use std::sync::Arc;

use serde_json::{Value, json};
use tact_classifiers::effort::EffortClassifier;
use tact_classifiers::escalation::{Escalation, LabelRequest};
use tact_llm::{Backend, Dialect, Llm, LlmConfig, MAX_REASON_CHARS};
use tact_types::{EffortLevel, Tier};

use crate::server::{Reply, Seen, Server, completion_json};

const LABELS: &[&str] = &["low", "medium", "high"];
const QUESTION: &str = "What do you think about the retry policy?";
const ANSWER: &str = "{\"label\": \"high\", \"reason\": \"needs an investigation\"}";

fn config(url: &str, backend: Backend) -> LlmConfig {
    let mut c = LlmConfig::default();
    c.backend = backend;
    c.url = url.to_owned();
    c.model = Some("gemma-3-270m".into());
    c.timeout_ms = 2_000;
    c
}

/// The answer's shape every structured form asks for.
fn assert_schema(schema: &Value) {
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["label"]));
    assert_eq!(schema["properties"]["label"]["enum"], json!(LABELS));
    assert_eq!(
        schema["properties"]["reason"]["maxLength"],
        json!(MAX_REASON_CHARS)
    );
}

/// The effort classifier asks the model about `QUESTION` and takes its
/// answer; the prompt says the reason's limit.
fn answer_is_used(llm: &Llm, server: &Server) {
    let c = EffortClassifier::builder()
        .escalation(Escalation::new(Arc::new(llm.clone()), 2.0))
        .build()
        .unwrap();
    let r = c.classify(QUESTION, None);
    assert_eq!((r.label, r.tier), (EffortLevel::High, Some(Tier::Model)));
    assert!(r.reasons[0].detail.contains("needs an investigation"));
    let last = server.posts().pop().unwrap();
    let prompt = last.body["messages"][0]["content"].as_str().unwrap();
    assert!(prompt.contains(QUESTION) && prompt.contains("under 20 words"));
    assert_eq!(llm.stats().failures, 0, "{:?}", llm.stats());
}

/// An OpenAI-compatible chat completion with `content`, as `server`
/// writes it.
fn completion(server: &str, content: &str) -> Reply {
    let mut v = completion_json(content);
    v["model"] = json!("gemma-3-270m");
    match server {
        "llama-server" => {
            v["system_fingerprint"] = json!("b6000-a1b2c3d4");
            v["timings"] = json!({"prompt_n": 120, "predicted_n": 14, "predicted_ms": 210.5});
        }
        "llama-cpp-python" => v["choices"][0]["logprobs"] = Value::Null,
        "vllm" => v["choices"][0]["stop_reason"] = Value::Null,
        "lmstudio" => v["system_fingerprint"] = json!("gemma-3-270m"),
        _ => {}
    }
    Reply::ok(v)
}

/// `GET /v1/models` as `owner`'s server lists its model.
fn models(owner: &str) -> Reply {
    Reply::ok(json!({
        "object": "list",
        "data": [{"id": "gemma-3-270m", "object": "model", "created": 1, "owned_by": owner}]
    }))
}

fn response_type(req: &Seen) -> Option<&str> {
    req.body["response_format"]["type"].as_str()
}

#[test]
fn ollama_takes_its_format_schema_and_a_token_bound() {
    let server = Server::start(|req| match req.path.as_str() {
        "/api/version" => Reply::ok(json!({"version": "0.12.6"})),
        _ => Reply::ok(json!({
            "model": "gemma3:270m",
            "created_at": "2026-11-28T19:00:00.000000Z",
            "message": {"role": "assistant", "content": ANSWER},
            "done_reason": "stop",
            "done": true,
            "total_duration": 412_000_000u64,
            "load_duration": 12_000_000u64,
            "prompt_eval_count": 120,
            "eval_count": 14
        })),
    });
    let llm = Llm::new(config(&server.url, Backend::Ollama)).unwrap();
    llm.probe().unwrap();
    answer_is_used(&llm, &server);
    let req = &server.posts()[0];
    assert_eq!(req.path, "/api/chat");
    assert_schema(&req.body["format"]);
    assert_eq!(req.body["options"]["num_predict"], 128);
    assert_eq!(req.body["options"]["temperature"], 0);
    assert_eq!(req.body["stream"], false);
    assert_eq!(llm.dialect(), Dialect::OllamaSchema);
}

#[test]
fn llama_server_takes_json_schema() {
    // llama.cpp's server reads response_format json_schema (and refuses
    // a type it does not know, by name).
    let server = Server::start(|req| {
        match (req.method.as_str(), response_type(req)) {
        ("GET", _) => models("llamacpp"),
        (_, Some("json_schema" | "json_object") | None) => completion("llama-server", ANSWER),
        (_, Some(other)) => Reply::raw(
            400,
            &json!({"error": {"code": 400, "type": "invalid_request_error",
                "message": format!("response_format type must be one of \"text\" or \"json_object\", but got: {other}")}})
            .to_string(),
        ),
    }
    });
    let llm = Llm::new(config(&server.url, Backend::Openai)).unwrap();
    llm.probe().unwrap();
    answer_is_used(&llm, &server);
    let posts = server.posts();
    assert_eq!(posts.len(), 1);
    assert_eq!(posts[0].path, "/v1/chat/completions");
    assert_eq!(response_type(&posts[0]), Some("json_schema"));
    assert_schema(&posts[0].body["response_format"]["json_schema"]["schema"]);
    assert_eq!(posts[0].body["max_tokens"], 128);
    assert_eq!(posts[0].body["temperature"], 0);
    assert_eq!(llm.dialect(), Dialect::JsonSchema);
}

#[test]
fn llama_cpp_python_refuses_json_schema_once_then_takes_json_object_with_schema() {
    // The refusal a real llama-cpp-python 0.3 server gave, HTTP 500.
    let refusal = json!({"error": {
        "message": "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or 'json_object'\"}}]",
        "type": "internal_server_error", "param": null, "code": null
    }})
    .to_string();
    let server = Server::start(move |req| match (req.method.as_str(), response_type(req)) {
        ("GET", _) => models("me"),
        (_, Some("json_schema")) => Reply::raw(500, &refusal),
        (_, _) => completion("llama-cpp-python", ANSWER),
    });
    let llm = Llm::new(config(&server.url, Backend::Openai)).unwrap();
    llm.probe().unwrap();
    answer_is_used(&llm, &server);
    for prompt in ["a", "b", "c"] {
        let a = llm
            .classify(&LabelRequest::new("effort", LABELS, prompt))
            .unwrap();
        assert_eq!(a.label, 2);
    }
    let posts = server.posts();
    // One refused call, then every call in the form it takes.
    assert_eq!(posts.len(), 5);
    assert_eq!(response_type(&posts[0]), Some("json_schema"));
    for p in &posts[1..] {
        assert_eq!(response_type(p), Some("json_object"));
        assert_schema(&p.body["response_format"]["schema"]);
        assert!(p.body.get("guided_json").is_none());
    }
    let s = llm.stats();
    assert_eq!((s.refusals, s.answered, s.failures), (1, 4, 0));
    assert_eq!(llm.dialect(), Dialect::JsonObjectSchema);
}

#[test]
fn many_calls_at_once_leave_a_refused_form_once() {
    let server = Server::start(|req| match response_type(req) {
        Some("json_schema") => Reply::raw(
            500,
            r#"{"error":{"message":"Input should be 'text' or 'json_object' (response_format.type)"}}"#,
        ),
        _ => completion("llama-cpp-python", ANSWER),
    });
    let llm = Llm::new(config(&server.url, Backend::Openai)).unwrap();
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let llm = llm.clone();
            std::thread::spawn(move || {
                let p = format!("q{i}");
                llm.classify(&LabelRequest::new("effort", LABELS, &p))
                    .map(|a| a.label)
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap().unwrap(), 2);
    }
    let s = llm.stats();
    assert_eq!((s.refusals, s.answered), (1, 8), "{s:?}");
    assert_eq!(llm.dialect(), Dialect::JsonObjectSchema);
}

#[test]
fn vllm_refusing_json_schema_is_asked_with_guided_json() {
    // vLLM before 0.6 refused json_schema in its own error shape; it
    // takes guided_json (and would ignore json_object's schema).
    let server = Server::start(|req| {
        if req.method == "GET" {
            return models("vllm");
        }
        match response_type(req) {
            Some("json_schema") => Reply::raw(
                400,
                &json!({"object": "error", "type": "BadRequestError", "param": null, "code": 400,
                    "message": "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}]"})
                .to_string(),
            ),
            _ if req.body.get("guided_json").is_some() => completion("vllm", ANSWER),
            // Anything else: unconstrained prose from a small model.
            _ => completion("vllm", "The effort is high."),
        }
    });
    let llm = Llm::new(config(&server.url, Backend::Openai)).unwrap();
    answer_is_used(&llm, &server);
    let posts = server.posts();
    assert_eq!(posts.len(), 2);
    assert_eq!(response_type(&posts[0]), Some("json_schema"));
    assert!(posts[1].body.get("response_format").is_none());
    assert_schema(&posts[1].body["guided_json"]);
    assert_eq!(posts[1].body["max_tokens"], 128);
    assert_eq!(llm.dialect(), Dialect::GuidedJson);
}

#[test]
fn lm_studio_takes_json_schema_only() {
    let server = Server::start(|req| {
        if req.method == "GET" {
            return models("organization_owner");
        }
        match response_type(req) {
            Some("json_schema")
                if req.body["response_format"]["json_schema"]["schema"].is_object() =>
            {
                completion("lmstudio", ANSWER)
            }
            _ => Reply::raw(
                400,
                r#"{"error":"'response_format.type' must be 'json_schema'"}"#,
            ),
        }
    });
    let llm = Llm::new(config(&format!("{}/v1", server.url), Backend::Openai)).unwrap();
    llm.probe().unwrap();
    answer_is_used(&llm, &server);
    let posts = server.posts();
    assert_eq!(posts.len(), 1);
    assert_eq!(
        posts[0].body["response_format"]["json_schema"]["name"],
        "classification"
    );
    assert_eq!(llm.dialect(), Dialect::JsonSchema);
}

#[test]
fn a_llama_cpp_server_taking_no_response_format_gets_a_gbnf_grammar() {
    // A llama.cpp build without JSON-schema support refuses
    // response_format by name, and reads a GBNF grammar.
    let server = Server::start(|req| {
        if req.body.get("response_format").is_some() {
            return Reply::raw(
                400,
                r#"{"error":{"code":400,"type":"invalid_request_error","message":"\"response_format\" is not supported by this server"}}"#,
            );
        }
        match req.body["grammar"].as_str() {
            Some(g) if g.contains(r#"label ::= "\"low\"" | "\"medium\"" | "\"high\"""#) => {
                completion("llama-server", ANSWER)
            }
            _ => completion("llama-server", "High, I think."),
        }
    });
    let llm = Llm::new(config(&server.url, Backend::Openai)).unwrap();
    answer_is_used(&llm, &server);
    let posts = server.posts();
    let forms: Vec<_> = posts.iter().map(|p| response_type(p)).collect();
    assert_eq!(forms, [Some("json_schema"), Some("json_object"), None]);
    assert!(
        posts[2].body["grammar"]
            .as_str()
            .unwrap()
            .starts_with("root ::=")
    );
    assert!(posts[2].body.get("guided_json").is_none());
    assert_eq!(llm.dialect(), Dialect::Grammar);
    assert_eq!(llm.stats().refusals, 2);
}

#[test]
fn prose_is_the_last_form_and_unstructured_servers_are_read_too() {
    // Every structured field refused: JSON in prose, read leniently (a
    // raw newline in the reason, a trailing comma, a fenced block).
    let server = Server::start(|req| {
        let b = &req.body;
        if b.get("response_format").is_some() || b.get("grammar").is_some() {
            return Reply::raw(422, r#"{"detail":"unsupported: response_format, grammar"}"#);
        }
        completion(
            "other",
            "Sure!\n```json\n{\"Label\": \"HIGH\", \"reason\": \"needs an\ninvestigation\",}\n```",
        )
    });
    let llm = Llm::new(config(&server.url, Backend::Openai)).unwrap();
    answer_is_used(&llm, &server);
    assert_eq!(llm.dialect(), Dialect::Prose);
    // structured = false starts there.
    let mut c = config(&server.url, Backend::Openai);
    c.structured = false;
    let plain = Llm::new(c).unwrap();
    let before = server.posts().len();
    plain
        .classify(&LabelRequest::new("effort", LABELS, "x"))
        .unwrap();
    assert_eq!(server.posts().len(), before + 1);
    assert!(server.posts()[before].body.get("response_format").is_none());
}

#[test]
fn an_error_that_names_no_field_is_a_failure_not_a_step() {
    let server = Server::start(|_| Reply::raw(500, r#"{"error":"CUDA out of memory"}"#));
    let llm = Llm::new(config(&server.url, Backend::Openai)).unwrap();
    let e = llm
        .classify(&LabelRequest::new("effort", LABELS, "x"))
        .unwrap_err();
    assert!(e.to_string().contains("HTTP 500") && e.to_string().contains("out of memory"));
    assert_eq!(server.posts().len(), 1);
    assert_eq!(llm.dialect(), Dialect::JsonSchema);
}
