//! The batch runner every text command shares (`tact effort --file`,
//! `tact granularity --file`, `tact route --file`): one input per line
//! (plain text, or a JSON object of the task's input), one result per line
//! out, as text or as JSON that always names the tier. With the model tier
//! on, up to its `max_in_flight` lines are classified at once (their
//! results written in input order).

use std::io::{BufRead, Write};
use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;
use tact_classifiers::TextClassifier;

/// The options every text command (`effort`, `granularity`, `route`)
/// shares.
#[derive(clap::Args, Debug)]
pub struct TextOptions {
    /// Strategy: heuristic, seed, learned or hybrid (default: the
    /// library's default, hybrid).
    #[arg(long)]
    pub strategy: Option<String>,
    /// Print JSON (one object per line in batch mode).
    #[arg(long)]
    pub json: bool,
}

/// A JSON object's fields.
pub type Fields = serde_json::Map<String, serde_json::Value>;

/// What adds fields to an input's JSON result.
type Extra<'a, I> = &'a dyn Fn(&I, &mut Fields);

/// How a command writes one result: as a text line, and what a JSON line
/// adds to the decision's fields.
pub struct Render<'a, C: TextClassifier> {
    text: &'a dyn Fn(&C::Input, &C::Decision) -> String,
    json_extra: Option<Extra<'a, C::Input>>,
    parallel: usize,
}

impl<'a, C: TextClassifier> Render<'a, C> {
    /// Results written as `text` makes them, JSON as the decision's fields.
    pub fn new(text: &'a dyn Fn(&C::Input, &C::Decision) -> String) -> Self {
        Self {
            text,
            json_extra: None,
            parallel: 1,
        }
    }

    /// Classifies up to `n` lines at once (the model tier's
    /// `max_in_flight`: a slow model call no longer waits for the one
    /// before it).
    #[must_use]
    pub fn parallel(mut self, n: usize) -> Self {
        self.parallel = n.max(1);
        self
    }

    /// Adds fields to each JSON result (e.g. a scoring choice).
    #[must_use]
    pub fn json_extra(mut self, extra: Extra<'a, C::Input>) -> Self {
        self.json_extra = Some(extra);
        self
    }
}

/// Running a batch: the classifier is shared by the threads that classify
/// a batch's lines at once.
impl<C> Render<'_, C>
where
    C: TextClassifier + Sync,
    C::Input: Sync,
    C::Decision: Send,
{
    /// Classifies every line of the file at `path`, or of stdin for `-`
    /// (see [`Render::run`]): a regular file, a FIFO or a device being
    /// refused by its type (`tact_core::input`).
    pub fn run_file(&self, c: &C, path: &Path, json: bool, out: &mut impl Write) -> Result<()> {
        if path.as_os_str() == "-" {
            let stdin = std::io::stdin();
            return self.run(c, stdin.lock(), "stdin", json, out);
        }
        let file = tact_core::input::open(path)
            .map_err(|e| anyhow::anyhow!("{e} (give - to read stdin)"))?;
        let source = path.display().to_string();
        self.run(c, std::io::BufReader::new(file), &source, json, out)
    }

    /// Streams one result per input line of `reader`. A JSON line
    /// (starting with `{`) is the task's input; any other line is bare
    /// text; blank lines are skipped. A line that does not parse is an
    /// error naming `source` and the line. A JSON result is the decision's
    /// fields plus `line`, `id` and `text`.
    pub fn run(
        &self,
        c: &C,
        reader: impl BufRead,
        source: &str,
        json: bool,
        out: &mut impl Write,
    ) -> Result<()> {
        let mut batch = Vec::with_capacity(self.parallel);
        let mut reader = reader;
        let mut bytes = Vec::new();
        let limit = tact_core::input::MAX_LINE_BYTES;
        for i in 0.. {
            bytes.clear();
            let read = tact_core::input::next_line(&mut reader, &mut bytes, limit)
                .with_context(|| format!("{source}:{}: cannot read", i + 1))?;
            match read {
                tact_core::input::Line::End => break,
                // Said with its line and skipped; the lines after it are read.
                tact_core::input::Line::TooLong(len) => {
                    crate::redact::warn(&format!(
                        "{source}:{}: a line of {len} bytes, over the limit of {limit} (skipped)",
                        i + 1
                    ));
                    continue;
                }
                tact_core::input::Line::Read => {}
            }
            let line = std::str::from_utf8(&bytes)
                .with_context(|| format!("{source}:{}: invalid UTF-8", i + 1))?;
            let trimmed = line.trim();
            if trimmed.is_empty() {
                continue;
            }
            let input = if trimmed.starts_with('{') {
                serde_json::from_str::<C::Input>(trimmed)
                    .with_context(|| format!("{source}:{}: invalid JSON line", i + 1))?
            } else {
                C::input(trimmed.to_owned())
            };
            batch.push((i + 1, input));
            if batch.len() >= self.parallel {
                self.write_batch(c, &mut batch, json, out)?;
            }
        }
        self.write_batch(c, &mut batch, json, out)
    }

    /// Classifies the lines of `batch` (at once when there are several)
    /// and writes their results in order.
    fn write_batch(
        &self,
        c: &C,
        batch: &mut Vec<(usize, C::Input)>,
        json: bool,
        out: &mut impl Write,
    ) -> Result<()> {
        let decisions: Vec<C::Decision> = if batch.len() > 1 {
            std::thread::scope(|s| {
                let handles: Vec<_> = batch
                    .iter()
                    .map(|(_, input)| s.spawn(move || c.decide(input)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join())
                    .collect::<std::result::Result<Vec<_>, _>>()
            })
            .map_err(|_| anyhow::anyhow!("a classification failed unexpectedly"))?
        } else {
            batch.iter().map(|(_, input)| c.decide(input)).collect()
        };
        for ((line, input), d) in batch.drain(..).zip(decisions) {
            if json {
                let mut v = serde_json::to_value(&d)?;
                if let Some(obj) = v.as_object_mut() {
                    if let Some(extra) = self.json_extra {
                        extra(&input, obj);
                    }
                    obj.insert("line".into(), line.into());
                    obj.insert("id".into(), C::id(&input).into());
                    obj.insert("text".into(), C::text(&input).into());
                }
                writeln!(out, "{v}")?;
            } else {
                writeln!(out, "{}", (self.text)(&input, &d))?;
            }
        }
        out.flush()?;
        Ok(())
    }
}

/// Writes one result of a single-input command: `value` as JSON, or the
/// text line `text` makes.
pub fn write_one<T: Serialize>(
    out: &mut impl Write,
    json: bool,
    value: &T,
    text: impl FnOnce() -> String,
) -> Result<()> {
    let line = if json {
        serde_json::to_string(value)?
    } else {
        text()
    };
    writeln!(out, "{line}")?;
    Ok(())
}
