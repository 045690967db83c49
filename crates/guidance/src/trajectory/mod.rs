//! Trajectory analysis for guidance: an incremental, bounded-memory
//! summary of an agent's run (counts, recent calls and errors, frequencies,
//! repeated cycles, progress, message runs, condensations and detected
//! patterns), plus the fingerprints and error normalization it rests on.
//!
//! Events and trajectories are the serde types of
//! [`tact_types::trajectory`].

mod action;
mod analysis;
mod errors;
mod fingerprint;

pub use action::{ActionKind, CallView, FILE_KEYS, RANGE_KEYS, finds_nothing, is_commit};
pub use analysis::{
    AnalysisConfig, CallRecord, Counts, Cycle, DetectedPattern, ErrorRecord, PatternKind,
    StepRecord, TrajectoryAnalysis,
};
pub use errors::{ERROR_PREFIX_BYTES, error_text, normalize_error};
pub use fingerprint::{
    FoldBuildHasher, FoldHasher, call_summary, hash_output, hash_str, hash_value, output_chars,
};
