//! Content-based guidance classifiers: a large last output, and pending
//! calls that carry credentials (detected by [`tact_secrets`]).

use serde_json::json;
use tact_secrets::CredentialScanner;

use crate::Result;
use crate::framework::{ClassificationResult, ClassifyError, GuidanceClassifier, GuidanceContext};

/// Fires when the last call's output is longer than `size_threshold`
/// (10,000) characters (Unicode scalar values; non-string outputs as
/// compact JSON).
#[derive(Debug, Clone, PartialEq)]
pub struct LargeOutputClassifier {
    /// Characters an output may have without firing.
    pub size_threshold: usize,
}

impl Default for LargeOutputClassifier {
    fn default() -> Self {
        Self {
            size_threshold: 10_000,
        }
    }
}

impl GuidanceClassifier for LargeOutputClassifier {
    fn name(&self) -> &str {
        "large_output"
    }

    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        let Some(last) = ctx.analysis.last_call() else {
            return Ok(ClassificationResult::no());
        };
        if last.output_chars <= self.size_threshold {
            return Ok(ClassificationResult::no());
        }
        Ok(ClassificationResult::yes(
            0.7,
            format!(
                "Large tool output ({} characters from {}) may overwhelm context",
                last.output_chars, last.name
            ),
        )
        .with_metadata("characters", last.output_chars)
        .with_metadata("tool", &*last.name))
    }
}

/// Fires when a pending call's params name or carry a credential: a key
/// naming a password, secret, API key, access or auth token, private key or
/// credentials that holds a non-empty string, or any string value shaped
/// like a cloud access key id, a PEM private key block, a bearer token, a
/// JWT, a known vendor token or a credential assignment.
///
/// The reason and metadata name the call, the location (`params.a.b[2]`)
/// and the kind of credential, never the value.
///
/// ```
/// use tact_guidance::{GuidanceClassifier, GuidanceContext, SensitiveContentClassifier, TrajectoryAnalysis};
/// use tact_types::{Mode, PendingCall};
///
/// let analysis = TrajectoryAnalysis::new(Mode::Headless);
/// let pending = [PendingCall::new("db_connect", serde_json::json!({"host": "db", "password": "hunter2"}))];
/// let r = SensitiveContentClassifier::default()
///     .classify(&GuidanceContext::new(&analysis, &pending))
///     .unwrap();
/// assert!(r.relevant);
/// assert!(!r.reason.unwrap().contains("hunter2"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct SensitiveContentClassifier {
    scanner: CredentialScanner,
}

impl SensitiveContentClassifier {
    /// The default classifier plus extra value shapes (`(name, regex)`,
    /// `regex` crate syntax) and extra credential key words (matched as
    /// whole words of a key, separators and case ignored). Fails when a
    /// shape does not compile.
    pub fn with_extra(shapes: &[(&str, &str)], key_words: &[&str]) -> Result<Self> {
        Ok(Self {
            scanner: CredentialScanner::with_extra(shapes, key_words)?,
        })
    }
}

impl GuidanceClassifier for SensitiveContentClassifier {
    fn name(&self) -> &str {
        "sensitive_content"
    }

    fn classify(&self, ctx: &GuidanceContext<'_>) -> Result<ClassificationResult, ClassifyError> {
        for (index, call) in ctx.pending.iter().enumerate() {
            if let Some(found) = self.scanner.scan(&call.params)? {
                return Ok(ClassificationResult::yes(
                    0.9,
                    format!(
                        "pending call `{}` carries a credential: {} at `{}`",
                        call.name,
                        found.kind.describe(),
                        found.path
                    ),
                )
                .with_metadata("call", call.name.as_str())
                .with_metadata("call_index", index)
                .with_metadata("path", found.path)
                .with_metadata("kind", json!(found.kind.as_str())));
            }
        }
        Ok(ClassificationResult::no())
    }
}
