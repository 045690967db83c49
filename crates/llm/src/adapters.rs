//! The client behind the traits tact's other crates own: a scoring
//! [`Judge`] for the judged preferences (PPP's judge), a guidance
//! [`LlmClassifier`], and a routing [`RouteModel`].

use std::time::Duration;

use tact_classifiers::escalation::LabelRequest;
use tact_classifiers::route::RouteModel;
use tact_guidance::{ClassificationResult, ClassifyError, GuidanceContext, LlmClassifier};
use tact_scoring::{Judge, JudgeRequest, Verdict};
use tact_types::{Label, QueryType};

use crate::blocking::Llm;

/// The judge's labels.
const VERDICTS: &[&str] = &["respected", "violated"];

/// Most characters of an agent message a judge prompt quotes.
const MAX_MESSAGE_CHARS: usize = 4000;

/// A [`Judge`] backed by the model: asked, for one agent message and one
/// preference, whether the message respects it (following the PPP paper's
/// judge: the user's preference, the message, a verdict). A failed call is
/// an error, so the preference is reported "not judged".
#[derive(Debug, Clone)]
pub struct LlmJudge {
    llm: Llm,
    name: String,
}

impl LlmJudge {
    /// A judge asking the main slot's model of `llm`.
    pub fn new(llm: Llm) -> Self {
        let name = format!("llm({})", llm.config().model.as_deref().unwrap_or("none"));
        Self { llm, name }
    }

    /// The judge's prompt for `request`.
    pub fn prompt(request: &JudgeRequest<'_>) -> String {
        let message: String = request.message.chars().take(MAX_MESSAGE_CHARS).collect();
        let user: String = request.prompt.chars().take(MAX_MESSAGE_CHARS).collect();
        format!(
            "You judge whether an AI agent's message respects one preference its user stated.\n\
             The user's preference: {} ({}).\n\n<user_message>\n{user}\n</user_message>\n\n\
             <agent_message>\n{message}\n</agent_message>\n\n\
             Does the agent's message respect the preference? Answer with a JSON object: \
             {{\"label\": respected or violated, \"reason\": what the agent did, in a few words}}.",
            request.preference.requirement(),
            request.preference.as_str(),
        )
    }
}

impl Judge for LlmJudge {
    fn name(&self) -> &str {
        &self.name
    }

    fn judge(&self, request: &JudgeRequest<'_>) -> tact_scoring::Result<Verdict> {
        let prompt = Self::prompt(request);
        let r = LabelRequest::new("judge", VERDICTS, &prompt);
        let a = self
            .llm
            .classify(&r)
            .map_err(|e| tact_scoring::Error::Judge(e.to_string()))?;
        Ok(if a.label == 0 {
            Verdict::Respected
        } else {
            Verdict::Violated {
                actual: a
                    .reason
                    .unwrap_or_else(|| format!("judged violated by {}", a.model)),
                span: None,
            }
        })
    }
}

/// A guidance [`LlmClassifier`] backed by the model: a yes/no `question`
/// about the trajectory's summary (what the guidance spec's
/// `LLMClassifier` asks). Wrap it in [`tact_guidance::LlmGuidance`] to run
/// it like any other classifier (fail-open, cooldowns).
#[derive(Debug, Clone)]
pub struct LlmGuidanceClassifier {
    llm: Llm,
    model: String,
    question: String,
}

impl LlmGuidanceClassifier {
    /// A classifier asking `question` (say "Is the agent going in circles
    /// instead of making progress?") of the main slot's model.
    pub fn new(llm: Llm, question: impl Into<String>) -> Self {
        let model = llm.config().model.clone().unwrap_or_else(|| "none".into());
        Self {
            llm,
            model,
            question: question.into(),
        }
    }
}

impl LlmClassifier for LlmGuidanceClassifier {
    fn model(&self) -> &str {
        &self.model
    }

    fn timeout(&self) -> Duration {
        // The client's own timeout, plus the margin the helper thread needs.
        self.llm.config().timeout() + Duration::from_millis(50)
    }

    fn prompt(&self, ctx: &GuidanceContext<'_>) -> String {
        format!(
            "You watch an AI agent's trajectory.\n{}\nQuestion: {}\nAnswer with a JSON object: {{\"label\": yes or no, \"reason\": a few words}}.",
            tact_guidance::llm_summary(ctx),
            self.question
        )
    }

    fn complete(&self, prompt: &str) -> Result<ClassificationResult, ClassifyError> {
        let r = LabelRequest::new("guidance", &["yes", "no"], prompt);
        let a = self
            .llm
            .classify(&r)
            .map_err(|e| -> ClassifyError { Box::new(e) })?;
        Ok(if a.label == 0 {
            ClassificationResult::yes(0.7, a.reason.unwrap_or_else(|| self.question.clone()))
        } else {
            ClassificationResult::no()
        })
    }
}

impl RouteModel for Llm {
    /// Asks for one of the four types (JSON-schema constrained) and returns
    /// its name, which [`tact_classifiers::route::parse_model_output`]
    /// reads; `None` on any failure.
    fn complete(&self, model: Option<&str>, prompt: &str) -> Option<String> {
        let labels: Vec<&'static str> = QueryType::ALL.iter().map(|t| t.as_str()).collect();
        let mut r = LabelRequest::new("route", &labels, prompt);
        r.model = model;
        let a = self.classify(&r).ok()?;
        labels.get(a.label).map(|l| (*l).to_owned())
    }
}
