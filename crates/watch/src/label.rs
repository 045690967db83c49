//! Classifying a step before the view ingests it: a user message's route,
//! an agent message's questions with their effort.
//!
//! [`App::apply`](crate::App::apply) classifies a step inline when it comes
//! without labels. `tact watch` labels every step on the thread that reads
//! the session instead ([`Labeler`]), as it parses each line: the UI thread
//! then only observes the event, keeps its rows and scores the turn. Both
//! paths run the same code on the same classifiers, so the view is the
//! same either way.

use tact::effort::{EffortClassifier, InMessage};
use tact::route::Router;
use tact::types::{EffortLevel, Event, QueryType, Tier};

use crate::Error;
use crate::read::Step;

/// A question an agent message asks the user, classified.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Found {
    /// The question's text.
    pub(crate) text: String,
    /// Its effort.
    pub(crate) effort: EffortLevel,
    /// The tier that decided.
    pub(crate) tier: Option<Tier>,
    /// The decision's confidence (the model tier asks about unsure ones).
    pub(crate) confidence: f32,
}

/// What the classifiers said of one step: the route of its user message,
/// or the questions of its agent message with their effort. Made by a
/// [`Labeler`]; read by [`App::apply`](crate::App::apply).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Labels {
    /// A user message's route and the tier that decided.
    pub(crate) route: Option<(QueryType, Option<Tier>)>,
    /// An agent message's questions (when the host supplied none).
    pub(crate) questions: Option<Vec<Found>>,
}

/// The router and the effort classifier, as the view uses them.
#[derive(Debug, Clone)]
pub(crate) struct Classifiers {
    effort: EffortClassifier,
    router: Router,
}

impl Classifiers {
    /// The default classifiers (the `hybrid` strategy).
    pub(crate) fn new() -> Result<Self, Error> {
        Ok(Self {
            effort: EffortClassifier::builder()
                .build()
                .map_err(tact::Error::from)?,
            router: Router::builder().build().map_err(tact::Error::from)?,
        })
    }

    /// The labels of `step`, its session's context being `context`:
    /// empty for a step no classifier reads.
    pub(crate) fn labels(&self, step: &Step, context: Option<&str>) -> Labels {
        let mut labels = Labels::default();
        match step {
            Step::Turn { prompt } if !prompt.is_empty() => labels.route = Some(self.route(prompt)),
            Step::Event(Event::User { text }) | Step::TurnEvent(Event::User { text }) => {
                labels.route = Some(self.route(text));
            }
            // A bare stream's agent message answers its turn; inside a
            // session's turn, only the response asks.
            Step::Event(Event::Assistant { text }) => {
                labels.questions = Some(self.questions(text, context));
            }
            Step::Respond {
                response,
                questions: None,
            }
            | Step::Draft { response }
                if !response.is_empty() =>
            {
                labels.questions = Some(self.questions(response, context));
            }
            _ => {}
        }
        labels
    }

    /// A user message's route and the tier that decided.
    pub(crate) fn route(&self, text: &str) -> (QueryType, Option<Tier>) {
        let r = self.router.route(text, &[]);
        (r.classification.label, r.classification.tier)
    }

    /// The questions of an agent message, each classified in its message.
    pub(crate) fn questions(&self, text: &str, context: Option<&str>) -> Vec<Found> {
        let asked_in = InMessage::new(text);
        tact::text::extract_questions(text)
            .into_iter()
            .map(|seg| {
                let q = seg.text(text);
                let r = self.effort.classify_in(q, &asked_in, seg.start, context);
                Found {
                    text: q.to_owned(),
                    effort: r.label,
                    tier: r.tier,
                    confidence: r.confidence,
                }
            })
            .collect()
    }
}

/// Labels steps ahead of the view, where they are read: each user
/// message routed, each agent message's questions found and classified,
/// in the context of the session the steps belong to.
///
/// `tact watch` runs one on the thread that reads the session, so the
/// classifiers never run on the UI thread; a host that reads its events
/// on a thread of its own can do the same:
///
/// ```
/// use tact_watch::{App, Options, label::Labeler, read::{Step, parse_line, steps}};
///
/// // On the reading thread.
/// let mut labeler = Labeler::new()?;
/// let mut read = Vec::new();
/// let line = r#"{"type":"assistant","text":"Should I keep the old flag?"}"#;
/// if let Some(record) = parse_line(line.as_bytes())? {
///     steps(record, &mut read);
/// }
/// let labeled: Vec<Step> = read.into_iter().map(|s| labeler.label(s)).collect();
///
/// // On the UI thread: no classifier runs here.
/// let mut app = App::new(Options::default().color(false))?;
/// for step in labeled {
///     app.apply(step);
/// }
/// assert_eq!(app.score().questions(), [1, 0, 0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Labeler {
    classifiers: Classifiers,
    /// The current session's context (set by its header).
    context: Option<String>,
}

impl Labeler {
    /// Builds the classifiers the view uses (the `hybrid` strategy).
    pub fn new() -> Result<Self, Error> {
        Ok(Self::with(Classifiers::new()?))
    }

    /// A labeler over classifiers already built.
    pub(crate) fn with(classifiers: Classifiers) -> Self {
        Self {
            classifiers,
            context: None,
        }
    }

    /// `step` with its labels ([`Step::Labeled`]) when a classifier reads
    /// it, else `step` unchanged. A session's header (or a later
    /// [`Step::Context`]) sets the context its questions are classified
    /// in, as the view does.
    pub fn label(&mut self, step: Step) -> Step {
        match &step {
            Step::Begin(header) => {
                self.context.clone_from(&header.context);
                return step;
            }
            Step::Context(context) => {
                self.context = Some(context.clone());
                return step;
            }
            _ => {}
        }
        let labels = self.classifiers.labels(&step, self.context.as_deref());
        if labels == Labels::default() {
            step
        } else {
            Step::Labeled {
                step: Box::new(step),
                labels,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tact::scoring::{Session, TaskOutcome};
    use tact::types::ToolCall;

    #[test]
    fn user_and_agent_messages_are_labelled_and_the_rest_left_as_it_is() {
        let mut l = Labeler::new().unwrap();
        let user = l.label(Step::Event(Event::user("How do I configure retries?")));
        let Step::Labeled { labels, .. } = user else {
            panic!("a user message is labelled: {user:?}");
        };
        assert!(labels.route.is_some() && labels.questions.is_none());
        let agent = l.label(Step::Event(Event::assistant(
            "Done. Should I also bump the version? Which registry do you publish to?",
        )));
        let Step::Labeled { labels, .. } = agent else {
            panic!("an agent message is labelled: {agent:?}");
        };
        let questions = labels.questions.unwrap();
        assert_eq!(questions.len(), 2);
        assert_eq!(questions[0].text, "Should I also bump the version?");
        let tool = Step::Event(Event::Tool(ToolCall::new("ls")));
        assert_eq!(l.label(tool.clone()), tool);
        // The host's own questions are not classified again.
        let respond = Step::Respond {
            response: String::from("Ship it?"),
            questions: Some(Vec::new()),
        };
        assert_eq!(l.label(respond.clone()), respond);
        // Inside a session's turn only the response asks.
        let in_turn = Step::TurnEvent(Event::assistant("Ship it?"));
        assert_eq!(l.label(in_turn.clone()), in_turn);
    }

    #[test]
    fn a_views_labeler_labels_as_a_new_one() {
        let app = crate::App::new(crate::Options::default()).unwrap();
        let mut shared = app.labeler();
        let mut own = Labeler::new().unwrap();
        for step in [
            Step::Event(Event::user("please sync this with my github")),
            Step::Event(Event::assistant(
                "Which port should it listen on? Or shall I keep 8080?",
            )),
        ] {
            assert_eq!(shared.label(step.clone()), own.label(step));
        }
    }

    #[test]
    fn a_session_header_sets_the_context_of_its_questions() {
        let mut l = Labeler::new().unwrap();
        let mut header = Session::new("a", TaskOutcome::Score { value: 1.0 });
        header.context = Some(String::from("Task: add retries."));
        l.label(Step::Begin(Box::new(header.clone())));
        assert_eq!(l.context.as_deref(), Some("Task: add retries."));
        header.context = None;
        l.label(Step::Begin(Box::new(header)));
        assert_eq!(l.context, None);
    }
}
