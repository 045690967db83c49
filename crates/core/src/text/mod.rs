//! Unicode-aware normalization, word counting, sentence splitting,
//! question extraction and list items.
//!
//! Offsets are byte offsets into the original text and always fall on
//! character boundaries, so `&text[seg.start..seg.end]` never panics.

mod lists;
mod normalize;
mod questions;
mod sentences;
mod words;

pub use lists::list_item_lines;
pub use normalize::normalize;
pub use questions::{
    Dropped, DroppedSentence, Kept, Question, Questions, extract_questions, find_questions,
    is_question, opens_interrogative,
};
pub use sentences::{Segment, split_sentences};
pub use words::{reader_word_count, reader_words, word_count, words};
