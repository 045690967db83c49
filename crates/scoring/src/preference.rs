//! The PPP user preferences: names, how each is checked (a rule on one
//! message, a rule on the whole session, or a judge), their category for
//! the `spec` profile's penalties and their severity.

use serde::{Deserialize, Serialize};

use crate::Error;

/// A user preference of the PPP paper (Sun et al. 2025), by its dataset
/// name. `no_preference` is not a variant: it is the empty set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Preference {
    /// Ask in one short sentence (at most 20 words).
    ConciseQuestion,
    /// Give context with the question (at least 25 words and a sentence
    /// besides the question).
    DetailQuestion,
    /// Offer explicit options to pick from.
    DoSelection,
    /// Ask exactly one question.
    OneQuestion,
    /// Write in Italian.
    LangIta,
    /// Write in English capital letters only.
    Capital,
    /// Use no comma at all (`no_commas` is accepted as an alias).
    #[serde(alias = "no_commas")]
    Commas,
    /// Send one valid JSON value and nothing around it.
    Json,
    /// Quote at least 3 lines of code or docs and name their path or URL.
    Snippet,
    /// Write exactly 3 sentences.
    Length,
    /// Ask no question at all (session level).
    NoAsk,
    /// Ask every question in one turn (session level).
    AskMany,
    /// Ask at least 3 questions (session level).
    AnswerMore,
    /// Ask questions only at the start: in the first response (session level).
    OnlyBegin,
    /// Include a joke (judged).
    Joke,
    /// Address the user as an amateur: plain words, no jargon (judged).
    Amateur,
    /// Address the user as a professional (judged; no penalty in the paper).
    Professional,
    /// Try first; ask only about real blockers (judged).
    FirstTry,
    /// Mix several languages (judged).
    LangMulti,
}

/// How a preference is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    /// A deterministic rule on one agent message (the labelling guide's table).
    Text,
    /// A deterministic rule on the session's turns and questions.
    Session,
    /// Only a [`Judge`](crate::Judge) can tell; "not judged" without one.
    Judged,
}

/// Which penalty of the `spec` profile a violation takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// The message's form: sentences, questions, case, commas, JSON.
    Format,
    /// The message's language.
    Language,
    /// What the message contains: context, options, quoted code, style.
    Content,
    /// How the agent asks over the session (charged as content in `spec`).
    Interaction,
}

impl Category {
    /// The category's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Format => "format",
            Category::Language => "language",
            Category::Content => "content",
            Category::Interaction => "interaction",
        }
    }
}

/// How strongly a violation breaks what the user asked for, following the
/// paper's judge: a hard constraint (format, language, asking behaviour;
/// -0.5 or more per violation there) or a style preference (-0.1 there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// A style preference (`concise_question`, `detail_question`,
    /// `amateur`, `professional`, `first_try`).
    Minor,
    /// A hard constraint: every other preference.
    Major,
}

/// How many preferences there are (the length of [`Preference::ALL`]).
pub(crate) const COUNT: usize = Preference::ALL.len();

impl Category {
    /// The category's 0-based position: format, language, content,
    /// interaction.
    pub(crate) fn index(self) -> usize {
        match self {
            Category::Format => 0,
            Category::Language => 1,
            Category::Content => 2,
            Category::Interaction => 3,
        }
    }
}

impl Preference {
    /// The preference's 0-based position in [`Preference::ALL`] (its
    /// declaration order, which `ALL` follows).
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// Every preference: the ten text-level ones in the labelling guide's
    /// order, then the session-level ones, then the judged ones.
    pub const ALL: &'static [Preference] = &[
        Preference::ConciseQuestion,
        Preference::DetailQuestion,
        Preference::DoSelection,
        Preference::OneQuestion,
        Preference::LangIta,
        Preference::Capital,
        Preference::Commas,
        Preference::Json,
        Preference::Snippet,
        Preference::Length,
        Preference::NoAsk,
        Preference::AskMany,
        Preference::AnswerMore,
        Preference::OnlyBegin,
        Preference::Joke,
        Preference::Amateur,
        Preference::Professional,
        Preference::FirstTry,
        Preference::LangMulti,
    ];

    /// The ten preferences a rule checks on one message (the `preferences`
    /// task of the labelling guide), in its table order.
    pub const TEXT: &'static [Preference] = &[
        Preference::ConciseQuestion,
        Preference::DetailQuestion,
        Preference::DoSelection,
        Preference::OneQuestion,
        Preference::LangIta,
        Preference::Capital,
        Preference::Commas,
        Preference::Json,
        Preference::Snippet,
        Preference::Length,
    ];

    /// The preference's name as in datasets, TOML and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Preference::ConciseQuestion => "concise_question",
            Preference::DetailQuestion => "detail_question",
            Preference::DoSelection => "do_selection",
            Preference::OneQuestion => "one_question",
            Preference::LangIta => "lang_ita",
            Preference::Capital => "capital",
            Preference::Commas => "commas",
            Preference::Json => "json",
            Preference::Snippet => "snippet",
            Preference::Length => "length",
            Preference::NoAsk => "no_ask",
            Preference::AskMany => "ask_many",
            Preference::AnswerMore => "answer_more",
            Preference::OnlyBegin => "only_begin",
            Preference::Joke => "joke",
            Preference::Amateur => "amateur",
            Preference::Professional => "professional",
            Preference::FirstTry => "first_try",
            Preference::LangMulti => "lang_multi",
        }
    }

    /// How the preference is checked.
    pub fn check_kind(self) -> CheckKind {
        match self {
            Preference::NoAsk
            | Preference::AskMany
            | Preference::AnswerMore
            | Preference::OnlyBegin => CheckKind::Session,
            Preference::Joke
            | Preference::Amateur
            | Preference::Professional
            | Preference::FirstTry
            | Preference::LangMulti => CheckKind::Judged,
            _ => CheckKind::Text,
        }
    }

    /// Whether a judge is also asked about this preference: every judged
    /// preference, and `detail_question` beyond its word-and-sentence rule
    /// (whether the context given is the context needed).
    pub fn needs_judge(self) -> bool {
        self.check_kind() == CheckKind::Judged || self == Preference::DetailQuestion
    }

    /// The category that sets the `spec` profile's penalty.
    pub fn category(self) -> Category {
        match self {
            Preference::ConciseQuestion
            | Preference::OneQuestion
            | Preference::Capital
            | Preference::Commas
            | Preference::Json
            | Preference::Length => Category::Format,
            Preference::LangIta | Preference::LangMulti => Category::Language,
            Preference::NoAsk
            | Preference::AskMany
            | Preference::AnswerMore
            | Preference::OnlyBegin => Category::Interaction,
            Preference::DetailQuestion
            | Preference::DoSelection
            | Preference::Snippet
            | Preference::Joke
            | Preference::Amateur
            | Preference::Professional
            | Preference::FirstTry => Category::Content,
        }
    }

    /// The severity of a violation of this preference.
    pub fn severity(self) -> Severity {
        match self {
            Preference::ConciseQuestion
            | Preference::DetailQuestion
            | Preference::Amateur
            | Preference::Professional
            | Preference::FirstTry => Severity::Minor,
            _ => Severity::Major,
        }
    }

    /// What the preference asks of the agent, in the guide's words.
    pub fn requirement(self) -> &'static str {
        match self {
            Preference::ConciseQuestion => "ask in one short sentence (at most 20 words)",
            Preference::DetailQuestion => {
                "give context with the question (at least 25 words and a sentence besides the question)"
            }
            Preference::DoSelection => "offer explicit options to pick from",
            Preference::OneQuestion => "ask exactly one question",
            Preference::LangIta => "be written in Italian",
            Preference::Capital => "be in English and in capital letters only",
            Preference::Commas => "contain no comma at all",
            Preference::Json => "be one valid JSON value, nothing around it",
            Preference::Snippet => {
                "quote at least 3 lines of code or docs and name their file path or URL"
            }
            Preference::Length => "have exactly 3 sentences",
            Preference::NoAsk => "ask no question",
            Preference::AskMany => "ask all questions in one turn",
            Preference::AnswerMore => "ask at least 3 questions",
            Preference::OnlyBegin => "ask questions only in the first response",
            Preference::Joke => "include a joke",
            Preference::Amateur => "speak to an amateur: plain words, no jargon",
            Preference::Professional => "speak to a professional",
            Preference::FirstTry => "try first and ask only about real blockers",
            Preference::LangMulti => "mix several languages",
        }
    }
}

impl std::fmt::Display for Preference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Preference {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "no_commas" {
            return Ok(Preference::Commas);
        }
        Preference::ALL
            .iter()
            .copied()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| Error::UnknownPreference {
                found: s.to_owned(),
                expected: names(Preference::ALL),
            })
    }
}

/// The names of `prefs`, comma separated.
pub(crate) fn names(prefs: &[Preference]) -> String {
    prefs
        .iter()
        .map(|p| p.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_text_and_json() {
        for &p in Preference::ALL {
            assert_eq!(p.as_str().parse::<Preference>().ok(), Some(p));
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(json, format!("\"{}\"", p.as_str()));
        }
        assert_eq!(
            "no_commas".parse::<Preference>().ok(),
            Some(Preference::Commas)
        );
        let alias: Preference = serde_json::from_str("\"no_commas\"").unwrap();
        assert_eq!(alias, Preference::Commas);
        let err = "tone".parse::<Preference>().unwrap_err().to_string();
        assert!(err.contains("unknown preference `tone`"), "{err}");
    }

    #[test]
    fn kinds_partition_the_twenty_paper_preferences() {
        // 20 in the paper, minus `no_preference` (the empty set).
        assert_eq!(Preference::ALL.len(), 19);
        let count = |k| {
            Preference::ALL
                .iter()
                .filter(|p| p.check_kind() == k)
                .count()
        };
        assert_eq!(count(CheckKind::Text), 10);
        assert_eq!(count(CheckKind::Session), 4);
        assert_eq!(count(CheckKind::Judged), 5);
        assert!(
            Preference::TEXT
                .iter()
                .all(|p| p.check_kind() == CheckKind::Text)
        );
        assert!(Preference::DetailQuestion.needs_judge());
        assert!(!Preference::Commas.needs_judge());
    }
}
