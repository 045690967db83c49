//! The classifier prompt of ADR-0008, for hosts that still ask an LLM about
//! the cases the heuristics leave ambiguous: an inline role instruction
//! (each message is classified on its own), the `<history_rule>`, the
//! `<platform_priority_rule>`, and the intent history rendered as
//! `[TYPE] "snippet"` lines (the last 6 entries at most).

use tact_types::{IntentEntry, Label};

use super::history::{snippet, window};

/// The `<history_rule>` block (RC-03).
pub const HISTORY_RULE: &str = "<history_rule>\nThe history lists earlier turns of this session as [TYPE] \"snippet\". Use it ONLY to resolve ambiguous references in the new message (\"this\", \"that function\", \"the other one\", \"esto\", \"eso\", \"lo anterior\"). Do NOT use it to predict the type: how often a type appears in the history says nothing about the new message.\n</history_rule>";

/// The `<platform_priority_rule>` block (RC-02).
pub const PLATFORM_PRIORITY_RULE: &str = "<platform_priority_rule>\nIf the new message contains usage percentages, account metrics or consumption figures, quota, limit, plan, subscription, invoice or billing data of the user's own account, answer PLATFORM, whatever the history says. A limit, quota or invoice that the user wants implemented in code is not account data.\n</platform_priority_rule>";

/// The role instruction and the four types (for the default product).
pub const ROLE: &str = "You classify ONE new user message of an assistant for the AVAP language and platform. Evaluate the message independently and answer with exactly one word:\nRETRIEVAL - a question about the language, library or documentation that needs documentation context.\nCODE_GENERATION - a request to write, complete, fix or convert code.\nCONVERSATIONAL - continues or reformulates an earlier answer (shorter, in another language, again), greetings, thanks, small talk.\nPLATFORM - about the user's own account: usage, quota, limits, plan, subscription, invoices, billing.";

/// The model-backed tier's role instruction after its product sentence:
/// what follows "You classify ONE new user message of an assistant for
/// PRODUCT" (the four types, the answer being asked as JSON at the end).
const ROLE_TYPES: &str = ". Evaluate the message independently. The four types:\nRETRIEVAL - a question about the language, library or documentation that needs documentation context.\nCODE_GENERATION - a request to write, complete, fix or convert code.\nCONVERSATIONAL - continues or reformulates an earlier answer (shorter, in another language, again), greetings, thanks, small talk.\nPLATFORM - about the user's own account: usage, quota, limits, plan, subscription, invoices, billing.";

/// Renders history entries for a model: the last 6 at most, one
/// `[TYPE] "snippet"` line each (snippets cut to 60 characters, quotes and
/// line breaks escaped). Empty history renders as `(none)`.
///
/// ```
/// use tact_classifiers::route::render_history;
/// use tact_types::{IntentEntry, QueryType};
///
/// let h = [IntentEntry { kind: QueryType::Retrieval, snippet: "What is addVar in AVAP?".into() }];
/// assert_eq!(render_history(&h), "[RETRIEVAL] \"What is addVar in AVAP?\"");
/// ```
pub fn render_history(history: &[IntentEntry]) -> String {
    let recent = window(history);
    if recent.is_empty() {
        return "(none)".to_owned();
    }
    let mut out = String::new();
    for (i, e) in recent.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push('[');
        out.push_str(e.kind.as_str());
        out.push_str("] \"");
        for c in snippet(&e.snippet).chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' | '\r' | '\t' => out.push(' '),
                c => out.push(c),
            }
        }
        out.push('"');
    }
    out
}

/// Builds the full classifier prompt for `message` with its `history`.
///
/// ```
/// use tact_classifiers::route::build_prompt;
///
/// let p = build_prompt("And last month?", &[]);
/// assert!(p.contains("<history_rule>") && p.contains("<platform_priority_rule>"));
/// assert!(p.ends_with("Type:"));
/// ```
pub fn build_prompt(message: &str, history: &[IntentEntry]) -> String {
    prompt_for(None, message, history, "\n</message>\n\nType:")
}

/// The classifier prompt of the model-backed tier: [`build_prompt`]'s
/// blocks (`<history_rule>`, `<platform_priority_rule>`, the last 6
/// history entries), the product sentence naming `product` (what the
/// assistant serves), and an answer asked as a JSON object.
///
/// ```
/// use tact_classifiers::route::build_model_prompt;
///
/// let p = build_model_prompt("the Acme billing API", "And last month?", &[]);
/// assert!(p.contains("assistant for the Acme billing API."));
/// assert!(p.contains("<history_rule>") && p.contains("\"label\""));
/// ```
pub fn build_model_prompt(product: &str, message: &str, history: &[IntentEntry]) -> String {
    prompt_for(
        Some(product),
        message,
        history,
        "\n</message>\n\nAnswer with a JSON object: {\"label\": one of RETRIEVAL, CODE_GENERATION, CONVERSATIONAL, PLATFORM, \"reason\": a few words}.",
    )
}

fn prompt_for(product: Option<&str>, message: &str, history: &[IntentEntry], end: &str) -> String {
    let rendered = render_history(history);
    let product_len = product.map_or(0, |p| p.len() + ROLE_TYPES.len() + 64);
    let mut out = String::with_capacity(
        ROLE.len()
            + product_len
            + HISTORY_RULE.len()
            + PLATFORM_PRIORITY_RULE.len()
            + rendered.len()
            + message.len()
            + end.len()
            + 96,
    );
    match product {
        None => out.push_str(ROLE),
        Some(p) => {
            out.push_str("You classify ONE new user message of an assistant for ");
            // One line: the product sentence cannot open a block of its own.
            out.extend(p.chars().map(|c| if c.is_control() { ' ' } else { c }));
            out.push_str(ROLE_TYPES);
        }
    }
    out.push_str("\n\n");
    out.push_str(HISTORY_RULE);
    out.push_str("\n\n");
    out.push_str(PLATFORM_PRIORITY_RULE);
    out.push_str("\n\n<history>\n");
    out.push_str(&rendered);
    out.push_str("\n</history>\n\n<message>\n");
    out.push_str(message);
    out.push_str(end);
    out
}
