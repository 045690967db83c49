//! The integration-test binary of tact-classifiers: one module per classifier family.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod effort;
mod escalation;
mod frames;
mod granularity;
mod learned;
mod route;
