//! Credential detection and redaction for tact: keys that name a
//! credential (`password`, `api_key`, `accessToken`...) and values shaped
//! like one (cloud access key ids, PEM private key blocks, bearer tokens,
//! JWTs, vendor tokens, URLs with a password, credential assignments), in
//! JSON values at any depth and in free text. A finding names the kind and
//! the location of a credential, never its value.
//!
//! ```
//! use serde_json::json;
//! use tact_secrets::{CredentialScanner, REDACTED};
//!
//! let scanner = CredentialScanner::default();
//! let params = json!({"host": "db", "headers": {"Authorization": "Bearer 9f8e7d6c5b4a3928"}});
//! let found = scanner.scan(&params)?.expect("a credential");
//! assert_eq!((found.kind.as_str(), found.path.as_str()), ("key_name", "params.headers.Authorization"));
//!
//! let redacted = scanner.redact(&params)?;
//! assert_eq!(redacted["headers"]["Authorization"], REDACTED);
//! assert_eq!(redacted["host"], "db");
//!
//! let text = scanner.redact_text("connect with postgres://app:pw1234@db:5432/x")?;
//! assert!(!text.contains("pw1234"));
//! # Ok::<(), tact_secrets::Error>(())
//! ```
//!
//! A text pays only for the patterns it can match, as gitleaks keys each
//! rule on its keywords: every built-in pattern is keyed on a few
//! literals, one of which each of its matches contains (`ghp_`, `AKIA`,
//! `bearer`...); one Aho-Corasick automaton over every keyword (built once
//! per process, case-insensitive) picks the patterns a text needs, and
//! each pattern is compiled the first time a text needs it, in the `regex`
//! syntax: no look-around, linear time. A pattern then runs only around
//! its keywords' occurrences: anchored at each when every match starts
//! with a keyword, else in a window as long as its longest match, else in
//! the run of bytes its matches may hold (a URL's: no whitespace), and
//! finds what a run over the whole text finds. A text with no keyword
//! compiles and runs no regex. Key names are checked without regex.
//!
//! The shapes cover 129 of the 130 credential families of gitleaks'
//! default configuration (see [`FAMILY_EXAMPLES`], [`NOT_COVERED`] and
//! the `families` module); redaction replaces a credential whole (a PEM
//! block from BEGIN to END), or only the value of an assignment.
//!
//! # Features
//!
//! This crate has no optional features; everything is always compiled.
#![deny(missing_docs)]

mod error;
mod families;
mod first_bytes;
#[cfg(test)]
mod glued;
mod lanes;
mod reference;
mod scanner;
mod window;

pub use error::Error;
pub use families::{
    FAMILY_EXAMPLES, FamilyExample, GITLEAKS_FAMILY_COUNT, NOT_COVERED, expand_example,
};
pub use scanner::{CredentialKind, CredentialScanner, Finding, REDACTED};

/// `Result` with this crate's [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
