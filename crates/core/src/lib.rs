//! What tact's text tasks share, and nothing task-specific: the text
//! engine, the learned models and the dataset line rules.
//!
//! - [`text`]: [`normalize`], [`words`] and [`reader_words`] (with their
//!   counts), [`split_sentences`], [`extract_questions`] and
//!   [`text::is_question`], total over any `&str` and linear in its length.
//! - [`cues`]: [`CueSet`], weighted cues compiled once, or frozen ahead
//!   of time and read in place ([`CueSetBuilder::freeze`],
//!   [`CueSetBuilder::thaw`]): literals in a byte trie, regexes in
//!   multi-pattern sets (no look-around).
//! - [`WordSet`]: a fixed word set with one hash per lookup.
//! - [`learn`]: the hashed features, the [`learn::LinearModel`] format and
//!   its deterministic [`learn::Trainer`], behind the classifiers' learned
//!   tier and `cargo xtask train`.
//! - [`dataset`]: [`dataset::parse_jsonl`] and [`dataset::read_jsonl`], the
//!   line rules of every labelled dataset, read through [`input`]: regular
//!   files only, every read bounded (the only file reading here).
//! - [`Error`] and [`Result`].
//!
//! It knows no classifier, no session and no trajectory: the classifiers
//! are `tact-classifiers`, guidance over agent trajectories is
//! `tact-guidance`, credential detection is `tact-secrets`.
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
pub mod input;
pub mod learn;
pub mod text;
mod trie;
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
