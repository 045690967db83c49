//! The user's preferences, as a host's TOML configuration states them
//! (`[user_preferences]`) or as a session file carries them (JSON).
//!
//! ```toml
//! [user_preferences]
//! language = "it"                        # it -> lang_ita, multi -> lang_multi, en -> none
//! format = ["commas", "capital"]         # concise_question, one_question, capital, commas, json, length
//! content = ["snippet", "do_selection"]  # detail_question, do_selection, snippet, joke, amateur, professional, first_try
//! interaction = ["ask_many"]             # no_ask, ask_many, answer_more, only_begin
//! ```
//!
//! Unknown keys and names are errors (a typo would silently turn a
//! preference off); other tables of the same file are ignored.

use serde::{Deserialize, Serialize};

use crate::Error;
use crate::preference::{Category, Preference};

/// The language the user wants to be addressed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Language {
    /// English, the default: nothing to check.
    #[default]
    English,
    /// Italian (`lang_ita`): `it`, `ita`, `italian`, `italiano`.
    Italian,
    /// Several languages mixed (`lang_multi`, judged): `multi`, `multilingual`.
    Multi,
}

impl TryFrom<String> for Language {
    type Error = Error;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        match s.trim().to_lowercase().as_str() {
            "en" | "eng" | "english" => Ok(Language::English),
            "it" | "ita" | "italian" | "italiano" => Ok(Language::Italian),
            "multi" | "multilingual" | "mixed" => Ok(Language::Multi),
            _ => Err(Error::UnsupportedLanguage(s)),
        }
    }
}

impl From<Language> for String {
    fn from(l: Language) -> String {
        match l {
            Language::English => "en",
            Language::Italian => "it",
            Language::Multi => "multi",
        }
        .to_owned()
    }
}

/// What the user asked of the agent: a language, format constraints,
/// content requirements and how questions may be asked.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserPreferences {
    /// The language to write in.
    #[serde(default)]
    pub language: Language,
    /// Format constraints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub format: Vec<Preference>,
    /// Content requirements (rule-checked and judged).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<Preference>,
    /// How questions may be asked over the session.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interaction: Vec<Preference>,
}

#[derive(Deserialize)]
struct Document {
    #[serde(default)]
    user_preferences: Option<UserPreferences>,
}

impl UserPreferences {
    /// No preference (the paper's `no_preference`).
    pub fn none() -> Self {
        Self::default()
    }

    /// Preferences from a list of names, each filed under its category's
    /// key (`lang_ita` sets the language).
    pub fn from_preferences(prefs: impl IntoIterator<Item = Preference>) -> Self {
        let mut out = Self::default();
        for p in prefs {
            out.add(p);
        }
        out
    }

    /// Adds one preference under its category's key (builder style).
    #[must_use]
    pub fn with(mut self, preference: Preference) -> Self {
        self.add(preference);
        self
    }

    fn add(&mut self, p: Preference) {
        let list = match p {
            Preference::LangIta => {
                self.language = Language::Italian;
                return;
            }
            Preference::LangMulti => {
                self.language = Language::Multi;
                return;
            }
            _ => match p.category() {
                Category::Format => &mut self.format,
                Category::Interaction => &mut self.interaction,
                Category::Content | Category::Language => &mut self.content,
            },
        };
        if !list.contains(&p) {
            list.push(p);
        }
    }

    /// Reads the `[user_preferences]` table of a TOML document (absent:
    /// no preference) and validates it. `source` names the file in errors.
    pub fn from_toml(text: &str, source: Option<&str>) -> Result<Self, Error> {
        let doc: Document = toml::from_str(text).map_err(|e| Error::Toml {
            source_name: source.map(str::to_owned),
            // The parser quotes the offending line: an excerpt of it.
            message: tact_types::excerpt::excerpt(&e.to_string()).into_owned(),
        })?;
        let prefs = doc.user_preferences.unwrap_or_default();
        prefs.validate()?;
        Ok(prefs)
    }

    /// Checks that every preference is listed under its category's key.
    pub fn validate(&self) -> Result<(), Error> {
        let lists: [(&'static str, &[Preference], &[Category]); 3] = [
            ("format", &self.format, &[Category::Format]),
            ("content", &self.content, &[Category::Content]),
            ("interaction", &self.interaction, &[Category::Interaction]),
        ];
        for (key, list, allowed) in lists {
            for p in list {
                if !allowed.contains(&p.category()) {
                    return Err(Error::MisplacedPreference {
                        preference: p.as_str().to_owned(),
                        category: p.category().as_str(),
                        key,
                        expected_key: match p.category() {
                            Category::Format => "format",
                            Category::Content => "content",
                            Category::Interaction => "interaction",
                            Category::Language => "language",
                        },
                    });
                }
            }
        }
        Ok(())
    }

    /// Every preference stated, in [`Preference::ALL`] order, without
    /// duplicates.
    pub fn all(&self) -> Vec<Preference> {
        let mut out: Vec<Preference> = self
            .format
            .iter()
            .chain(&self.content)
            .chain(&self.interaction)
            .copied()
            .collect();
        match self.language {
            Language::English => {}
            Language::Italian => out.push(Preference::LangIta),
            Language::Multi => out.push(Preference::LangMulti),
        }
        out.sort();
        out.dedup();
        out
    }

    /// Whether the user stated no preference at all.
    pub fn is_empty(&self) -> bool {
        self.all().is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_with_every_key_and_other_tables() {
        let text = r#"
            [ppp]
            enabled = true

            [user_preferences]
            language = "Italian"
            format = ["no_commas", "capital"]
            content = ["snippet", "joke"]
            interaction = ["ask_many"]
        "#;
        let p = UserPreferences::from_toml(text, Some("tact.toml")).unwrap();
        assert_eq!(p.language, Language::Italian);
        assert_eq!(
            p.all(),
            [
                Preference::LangIta,
                Preference::Capital,
                Preference::Commas,
                Preference::Snippet,
                Preference::AskMany,
                Preference::Joke
            ]
        );
        assert!(
            UserPreferences::from_toml("[ppp]\nenabled = false\n", None)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn toml_errors_are_clear() {
        let cases = [
            (
                "[user_preferences]\nformat = [\"tone\"]\n",
                "unknown variant `tone`",
            ),
            (
                "[user_preferences]\nformat = [\"snippet\"]\n",
                "`snippet` is a content preference: list it under `content`",
            ),
            (
                "[user_preferences]\nlanguage = \"fr\"\n",
                "unsupported language `fr`",
            ),
            ("[user_preferences]\nstyle = []\n", "unknown field `style`"),
            ("[user_preferences\n", "invalid TOML in f.toml"),
        ];
        for (text, needle) in cases {
            let msg = UserPreferences::from_toml(text, Some("f.toml"))
                .unwrap_err()
                .to_string();
            assert!(msg.contains(needle), "{msg}");
        }
    }

    #[test]
    fn json_round_trip_and_builder() {
        let p = UserPreferences::from_preferences([
            Preference::Json,
            Preference::LangIta,
            Preference::NoAsk,
        ]);
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(
            json,
            r#"{"language":"it","format":["json"],"interaction":["no_ask"]}"#
        );
        let back: UserPreferences = serde_json::from_str(&json).unwrap();
        assert_eq!(back, p);
        assert_eq!(
            UserPreferences::none().with(Preference::Json).all(),
            [Preference::Json]
        );
    }
}
