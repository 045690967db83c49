//! The job's input limits: what one session may weigh in the job's time
//! and memory, whatever it holds.

/// The job's input limits ([`JobBuilder::limits`](super::JobBuilder::limits)).
///
/// A session larger than `max_session_bytes` (one line of a `.jsonl`
/// file, or a whole `.json` file) is skipped with a
/// [`SessionErrorKind::TooLarge`](super::SessionErrorKind::TooLarge)
/// error (an agent's log is one session: it is streamed, one record at a
/// time, and a record over this or
/// [`MAX_RECORD_BYTES`](crate::import::MAX_RECORD_BYTES) is skipped and
/// reported with its line); a response longer than `max_message_bytes` is analysed (its
/// questions extracted, its preferences checked) up to that many bytes;
/// at most `max_questions_per_message` questions of one response are kept
/// (stored and reported; the rewards count them all). Every cut is a
/// [`Truncation`](super::Truncation) of the report, never silent.
///
/// ```
/// use tact::job::Limits;
///
/// let limits = Limits::default().max_message_bytes(64 << 10);
/// assert_eq!(limits.max_message_bytes, 64 << 10);
/// assert_eq!(limits.max_session_bytes, Limits::DEFAULT_MAX_SESSION_BYTES);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The largest session read, in bytes (a `.jsonl` line or a `.json` file).
    pub max_session_bytes: usize,
    /// The largest part of one response analysed, in bytes.
    pub max_message_bytes: usize,
    /// The most questions of one response kept.
    pub max_questions_per_message: usize,
}

impl Limits {
    /// The default largest session read: 256 MiB.
    pub const DEFAULT_MAX_SESSION_BYTES: usize = 256 << 20;
    /// The default largest part of a response analysed: 1 MiB.
    pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 1 << 20;
    /// The default most questions kept per response: 200.
    pub const DEFAULT_MAX_QUESTIONS_PER_MESSAGE: usize = 200;

    /// Sets the largest session read, in bytes.
    #[must_use]
    pub fn max_session_bytes(mut self, bytes: usize) -> Self {
        self.max_session_bytes = bytes;
        self
    }

    /// Sets the largest part of one response analysed, in bytes.
    #[must_use]
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }

    /// Sets the most questions of one response kept.
    #[must_use]
    pub fn max_questions_per_message(mut self, questions: usize) -> Self {
        self.max_questions_per_message = questions;
        self
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_session_bytes: Self::DEFAULT_MAX_SESSION_BYTES,
            max_message_bytes: Self::DEFAULT_MAX_MESSAGE_BYTES,
            max_questions_per_message: Self::DEFAULT_MAX_QUESTIONS_PER_MESSAGE,
        }
    }
}
