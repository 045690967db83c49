//! Text engine of tact: normalization, sentence and question extraction,
//! and weighted cue sets compiled once (aho-corasick + multi-pattern regex sets).
//!
//! ```
//! use tact_core::{Cue, CueSet, extract_questions, normalize};
//!
//! let message = "I found two configs, e.g. dev.yaml and prod.yaml. Which one should I edit? \
//!                Please confirm the port too";
//! let questions: Vec<&str> = extract_questions(message).iter().map(|q| q.text(message)).collect();
//! assert_eq!(questions, ["Which one should I edit?", "Please confirm the port too"]);
//!
//! let cues = CueSet::builder()
//!     .literal("investigat*", Cue::new("investigate", 2.0, "asks to investigate"))
//!     .regex(r"\bor\b", Cue::new("options", 1.0, "offers alternatives"))
//!     .build()
//!     .unwrap();
//! let text = normalize("Should we INVESTIGATE it first?");
//! let hits = cues.hits(&text);
//! assert_eq!(hits[0].cue.name, "investigate");
//! ```
//!
//! # Features
//!
//! This crate has no optional features; everything is always compiled.
#![deny(missing_docs)]

pub mod cues;
pub mod dataset;
mod error;
pub mod guidance;
pub mod learn;
pub mod text;
pub mod trajectory;
mod wordset;

pub use cues::{Cue, CueHit, CueSet, CueSetBuilder};
pub use error::Error;

/// `Result` with this crate's [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
pub use text::{
    Segment, extract_questions, normalize, reader_word_count, reader_words, split_sentences,
    word_count, words,
};
pub use wordset::WordSet;
