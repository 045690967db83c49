//! [`Dialect`]: the forms a server may take a structured answer in, and
//! the ladder a client walks down them. Each server speaks its own:
//! Ollama's `format` (a JSON schema, or `"json"` on old versions); the
//! OpenAI `response_format` of type `json_schema` (llama.cpp's
//! `llama-server`, LM Studio, current vLLM); llama-cpp-python's
//! `response_format` of type `json_object` with a `schema`; vLLM's
//! `guided_json`; a GBNF `grammar` (llama.cpp, when nothing else is
//! taken); and last, no constraint at all (JSON asked for in the prompt,
//! read out of the prose). A client starts at the top of its backend's
//! ladder and moves one step down when the server refuses a form by
//! naming its field in an HTTP 4xx or 5xx answer; the step is remembered,
//! so a refusal costs one extra request once, not one per call.

use serde_json::{Value, json};

use crate::config::Backend;

/// The most characters the schema and the prompt allow a `reason`.
pub const MAX_REASON_CHARS: usize = 160;

/// One form of asking for a structured answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// Ollama: `format` = the answer's JSON schema.
    OllamaSchema,
    /// Ollama before structured outputs: `format: "json"`.
    OllamaJson,
    /// OpenAI: `response_format: {"type": "json_schema", "json_schema":
    /// {"name", "schema"}}` (llama-server, LM Studio, vLLM 0.6 and later).
    JsonSchema,
    /// llama-cpp-python: `response_format: {"type": "json_object",
    /// "schema"}`.
    JsonObjectSchema,
    /// vLLM: `guided_json` = the schema.
    GuidedJson,
    /// llama.cpp: `grammar` = a GBNF grammar of the answer.
    Grammar,
    /// No constraint: the prompt asks for JSON, the prose is searched.
    Prose,
}

impl Dialect {
    /// The dialect's name, as `cargo xtask llm-check` and the logs say it.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::OllamaSchema => "ollama format schema",
            Dialect::OllamaJson => "ollama format json",
            Dialect::JsonSchema => "response_format json_schema",
            Dialect::JsonObjectSchema => "response_format json_object + schema",
            Dialect::GuidedJson => "guided_json",
            Dialect::Grammar => "gbnf grammar",
            Dialect::Prose => "json in prose",
        }
    }

    /// The request fields this dialect sets: a refusal naming one of
    /// them (or the dialect's own word) is a refusal of the dialect.
    fn fields(self) -> &'static [&'static str] {
        match self {
            Dialect::OllamaSchema => &["format", "schema"],
            Dialect::OllamaJson => &["format"],
            Dialect::JsonSchema => &["response_format", "json_schema"],
            Dialect::JsonObjectSchema => &["response_format", "json_object", "schema"],
            Dialect::GuidedJson => &["guided_json", "guided decoding", "extra inputs"],
            Dialect::Grammar => &["grammar"],
            Dialect::Prose => &[],
        }
    }

    /// Sets this dialect's fields on `body` for an answer of `schema`
    /// whose label is one of `labels`.
    pub(crate) fn apply(self, body: &mut Value, schema: &Value, labels: &[&str]) {
        match self {
            Dialect::OllamaSchema => body["format"] = schema.clone(),
            Dialect::OllamaJson => body["format"] = json!("json"),
            Dialect::JsonSchema => {
                body["response_format"] = json!({
                    "type": "json_schema",
                    "json_schema": {"name": "classification", "schema": schema},
                });
            }
            Dialect::JsonObjectSchema => {
                body["response_format"] = json!({"type": "json_object", "schema": schema});
            }
            Dialect::GuidedJson => body["guided_json"] = schema.clone(),
            Dialect::Grammar => body["grammar"] = json!(grammar(labels)),
            Dialect::Prose => {}
        }
    }
}

/// The ladder of a backend: the forms tried, in order (`structured`
/// false: JSON in prose only). An OpenAI-compatible server takes only
/// some of them ([`allowed`]).
pub(crate) fn ladder(backend: Backend, structured: bool) -> &'static [Dialect] {
    match (backend, structured) {
        (_, false) => &[Dialect::Prose],
        (Backend::Ollama, true) => &[Dialect::OllamaSchema, Dialect::OllamaJson, Dialect::Prose],
        (Backend::Openai, true) => &[
            Dialect::JsonSchema,
            Dialect::JsonObjectSchema,
            Dialect::GuidedJson,
            Dialect::Grammar,
            Dialect::Prose,
        ],
    }
}

/// Whether `dialect` is worth asking of a server (`vllm`: known to be
/// vLLM). vLLM takes `json_object` but ignores its `schema`, and ignores
/// a `grammar` field: it is asked with `guided_json`. The others (llama.cpp,
/// llama-cpp-python, LM Studio) ignore an unknown `guided_json`: they are
/// asked with `json_object` and `schema`, then a GBNF `grammar`.
pub(crate) fn allowed(dialect: Dialect, vllm: bool) -> bool {
    match dialect {
        Dialect::JsonObjectSchema | Dialect::Grammar => !vllm,
        Dialect::GuidedJson => vllm,
        _ => true,
    }
}

/// Whether an HTTP error answer (`status`, `body`) refuses `dialect`: a
/// 4xx or 5xx (but not 404, 401, 403, 408 or 429, which say nothing of
/// the form) whose body names one of the dialect's fields.
pub(crate) fn refuses(dialect: Dialect, status: u16, body: &str) -> bool {
    if !(400..600).contains(&status) || matches!(status, 401 | 403 | 404 | 408 | 429) {
        return false;
    }
    let body = body.to_ascii_lowercase();
    dialect.fields().iter().any(|f| body.contains(f))
}

/// Whether an error body has the shape of vLLM's (`{"object": "error",
/// ...}`), which tells a vLLM server (see [`allowed`]).
pub(crate) fn is_vllm_error(body: &str) -> bool {
    serde_json::from_str::<Value>(body)
        .ok()
        .is_some_and(|v| v.get("object").and_then(Value::as_str) == Some("error"))
}

/// The answer's JSON schema: a required `label` (one of `labels`) and an
/// optional `reason` of at most [`MAX_REASON_CHARS`] characters.
pub(crate) fn schema(labels: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": {
            "label": {"type": "string", "enum": labels},
            "reason": {"type": "string", "maxLength": MAX_REASON_CHARS},
        },
        "required": ["label"],
    })
}

/// A GBNF grammar (llama.cpp's) of the answer: `{"label": one of the
/// labels, "reason": a string}`, the reason optional, on one line. Only
/// basic GBNF (no repetition counts), which every llama.cpp server reads;
/// the reason's length is bounded by `max_tokens`.
pub(crate) fn grammar(labels: &[&str]) -> String {
    let quoted: Vec<String> = labels
        .iter()
        .map(|l| {
            let escaped: String = l
                .chars()
                .flat_map(|c| match c {
                    '"' | '\\' => vec!['\\', '\\', '\\', c],
                    c => vec![c],
                })
                .collect();
            format!("\"\\\"{escaped}\\\"\"")
        })
        .collect();
    format!(
        "root ::= \"{{\" ws \"\\\"label\\\"\" ws \":\" ws label (ws \",\" ws \"\\\"reason\\\"\" ws \":\" ws reason)? ws \"}}\"\n\
         label ::= {}\n\
         reason ::= \"\\\"\" char* \"\\\"\"\n\
         char ::= [^\"\\\\\\x00-\\x1f] | \"\\\\\" [\"\\\\/bfnrt]\n\
         ws ::= \" \"?\n",
        quoted.join(" | ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_field() {
        let llama_cpp_python = r#"{"error":{"message":"[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}]","type":"internal_server_error"}}"#;
        assert!(refuses(Dialect::JsonSchema, 500, llama_cpp_python));
        assert!(!refuses(
            Dialect::JsonSchema,
            500,
            r#"{"error":"model crashed"}"#
        ));
        assert!(!refuses(Dialect::JsonSchema, 404, llama_cpp_python));
        assert!(!refuses(Dialect::JsonSchema, 200, llama_cpp_python));
        assert!(refuses(Dialect::Grammar, 400, "bad grammar"));
        assert!(!refuses(Dialect::Prose, 400, "response_format grammar"));
        assert!(is_vllm_error(
            r#"{"object":"error","message":"x","code":400}"#
        ));
        assert!(!is_vllm_error(llama_cpp_python));
    }

    #[test]
    fn the_grammar_names_every_label_once() {
        let g = grammar(&["fine-grained", "holistic"]);
        assert!(
            g.contains(r#"label ::= "\"fine-grained\"" | "\"holistic\"""#),
            "{g}"
        );
        assert!(g.starts_with("root ::= \"{\" ws \"\\\"label\\\"\""), "{g}");
        assert_eq!(g.lines().count(), 5);
    }
}
