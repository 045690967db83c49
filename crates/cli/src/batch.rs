//! The batch runner every text command shares (`tact effort --file`,
//! `tact granularity --file`, `tact route --file`): one input per line
//! (plain text, or a JSON object of the task's input), one result per line
//! out, as text or as JSON that always names the tier.

use std::io::{BufRead, Write};

use anyhow::{Context, Result};
use tact_classifiers::TextClassifier;

/// A JSON object's fields.
pub type Fields = serde_json::Map<String, serde_json::Value>;

/// How one result is written: as a text line, and what a JSON line adds
/// to the decision's fields.
pub struct Render<'a, C: TextClassifier> {
    /// The text line of an input and its decision.
    pub text: &'a dyn Fn(&C::Input, &C::Decision) -> String,
    /// Extra JSON fields for an input and its decision (e.g. a scoring
    /// choice).
    pub json_extra: &'a dyn Fn(&C::Input, &mut Fields),
}

/// Streams one result per input line of `reader`. A JSON line (starting
/// with `{`) is the task's input; any other line is bare text; blank lines
/// are skipped. A line that does not parse is an error naming `source` and
/// the line. A JSON result is the decision's fields plus `line`, `id` and
/// `text`.
pub fn run<C: TextClassifier>(
    c: &C,
    reader: impl BufRead,
    source: &str,
    json: bool,
    render: &Render<'_, C>,
    out: &mut impl Write,
) -> Result<()> {
    for (i, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("{source}:{}: cannot read", i + 1))?;
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
        let d = c.decide(&input);
        if json {
            let mut v = serde_json::to_value(&d)?;
            if let Some(obj) = v.as_object_mut() {
                (render.json_extra)(&input, obj);
                obj.insert("line".into(), (i + 1).into());
                obj.insert("id".into(), C::id(&input).into());
                obj.insert("text".into(), C::text(&input).into());
            }
            writeln!(out, "{v}")?;
        } else {
            writeln!(out, "{}", (render.text)(&input, &d))?;
        }
        out.flush()?;
    }
    Ok(())
}

/// No extra JSON fields.
pub fn no_extra<I>(_: &I, _: &mut Fields) {}
