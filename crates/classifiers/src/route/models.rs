//! Model slots (RC-05) read through an injectable environment lookup, the
//! trait a host implements to let a model answer the cases the heuristics
//! leave ambiguous, and a tolerant parser of that model's answer.

use tact_types::{Label, ModelSlot, QueryType};

/// The two model slots of ADR-0008: `OLLAMA_MODEL_NAME` serves retrieval
/// and code generation, `OLLAMA_MODEL_NAME_CONVERSATIONAL` conversational
/// and platform queries, falling back to the first when unset (RC-05).
///
/// ```
/// use tact_classifiers::route::ModelSlots;
/// use tact_types::QueryType;
///
/// let env = |k: &str| (k == "OLLAMA_MODEL_NAME").then(|| "qwen3:1.7b".to_owned());
/// let slots = ModelSlots::from_lookup(env);
/// assert_eq!(slots.model_for(QueryType::Platform), Some("qwen3:1.7b"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelSlots {
    main: Option<String>,
    conversational: Option<String>,
}

impl ModelSlots {
    /// Slots with explicit model names (blank names count as unset).
    pub fn new(main: Option<String>, conversational: Option<String>) -> Self {
        let keep = |s: Option<String>| s.filter(|v| !v.trim().is_empty());
        Self {
            main: keep(main),
            conversational: keep(conversational),
        }
    }

    /// Slots from the process environment.
    pub fn from_env() -> Self {
        Self::from_lookup(|k| std::env::var(k).ok())
    }

    /// Slots from `lookup` (a map in tests, the environment in hosts):
    /// `OLLAMA_MODEL_NAME` and `OLLAMA_MODEL_NAME_CONVERSATIONAL`.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        Self::new(
            lookup(ModelSlot::Main.env_var()),
            lookup(ModelSlot::Conversational.env_var()),
        )
    }

    /// The model of a slot: the conversational slot falls back to the main
    /// slot's model; `None` when neither is configured.
    pub fn model(&self, slot: ModelSlot) -> Option<&str> {
        match slot {
            ModelSlot::Main => self.main.as_deref(),
            ModelSlot::Conversational => self.conversational.as_deref().or(self.main.as_deref()),
        }
    }

    /// The model serving a query type (RC-05).
    pub fn model_for(&self, kind: QueryType) -> Option<&str> {
        self.model(kind.model_slot())
    }
}

/// A model that classifies a message from the classifier prompt, for the
/// cases the heuristics leave ambiguous. The router never calls it for a
/// platform prefix (RC-01) or a platform data signal (RC-02).
pub trait RouteModel: Send + Sync {
    /// Completes `prompt` with `model` (the main slot's model, when
    /// configured) and returns the raw answer; `None` when the call failed.
    fn complete(&self, model: Option<&str>, prompt: &str) -> Option<String>;
}

impl<F> RouteModel for F
where
    F: Fn(Option<&str>, &str) -> Option<String> + Send + Sync,
{
    fn complete(&self, model: Option<&str>, prompt: &str) -> Option<String> {
        self(model, prompt)
    }
}

/// Reads a query type from a model's answer: a `<think>...</think>` block
/// is skipped, then the first label named (case-insensitive, `_`, `-` or a
/// space between words) wins. `None` when the answer names no label.
///
/// ```
/// use tact_classifiers::route::parse_model_output;
/// use tact_types::QueryType;
///
/// assert_eq!(parse_model_output("<think>hmm</think>\nCode generation."), Some(QueryType::CodeGeneration));
/// assert_eq!(parse_model_output("I cannot tell"), None);
/// ```
pub fn parse_model_output(text: &str) -> Option<QueryType> {
    let body = match text.rfind("</think>") {
        Some(i) => &text[i + "</think>".len()..],
        None if text.contains("<think>") => "",
        None => text,
    };
    let upper: String = body
        .chars()
        .map(|c| match c {
            '-' | ' ' | '\t' | '\n' => '_',
            c => c.to_ascii_uppercase(),
        })
        .collect();
    QueryType::ALL
        .iter()
        .filter_map(|&t| {
            let name = t.as_str();
            let short = match t {
                QueryType::CodeGeneration => "CODE",
                _ => name,
            };
            // The first occurrence of the full name, else of the short one,
            // on word boundaries.
            let at = find_word(&upper, name).or_else(|| find_word(&upper, short))?;
            Some((at, t))
        })
        .min_by_key(|(at, _)| *at)
        .map(|(_, t)| t)
}

fn find_word(haystack: &str, word: &str) -> Option<usize> {
    haystack.match_indices(word).map(|(at, _)| at).find(|&at| {
        let before = haystack[..at].chars().next_back();
        let after = haystack[at + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_parsed_tolerantly() {
        assert_eq!(parse_model_output("PLATFORM"), Some(QueryType::Platform));
        assert_eq!(
            parse_model_output("Type: code-generation"),
            Some(QueryType::CodeGeneration)
        );
        assert_eq!(
            parse_model_output("retrieval, not CONVERSATIONAL"),
            Some(QueryType::Retrieval)
        );
        assert_eq!(
            parse_model_output("<think>PLATFORM?</think> conversational"),
            Some(QueryType::Conversational)
        );
        assert_eq!(parse_model_output("<think>unfinished PLATFORM"), None);
        assert_eq!(parse_model_output("RETRIEVALS"), None);
        assert_eq!(parse_model_output("écode"), None);
        assert_eq!(parse_model_output(""), None);
    }

    #[test]
    fn conversational_slot_falls_back_to_main() {
        let s = ModelSlots::new(Some("big".into()), None);
        assert_eq!(s.model(ModelSlot::Conversational), Some("big"));
        let s = ModelSlots::new(Some("big".into()), Some("small".into()));
        assert_eq!(s.model_for(QueryType::Conversational), Some("small"));
        assert_eq!(s.model_for(QueryType::Retrieval), Some("big"));
        let s = ModelSlots::new(None, Some(" ".into()));
        assert_eq!(s.model(ModelSlot::Conversational), None);
    }
}
