//! `tact watch --latest [AGENT]`: the newest session log where an agent
//! keeps them, so a user types one command beside their running agent.
//! Claude Code keeps its transcripts in `~/.claude/projects/*/*.jsonl`
//! (`$CLAUDE_CONFIG_DIR/projects` when set), Codex its rollouts in
//! `~/.codex/sessions/**/rollout-*.jsonl` (`$CODEX_HOME/sessions`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use tact::import::Format;

use crate::Error;

/// The agents whose sessions `--latest` finds.
pub const AGENTS: [Format; 2] = [Format::ClaudeCode, Format::Codex];

/// Deepest folder level searched under Codex's sessions folder
/// (`YYYY/MM/DD` is three).
const MAX_DEPTH: usize = 6;

/// Where `agent` keeps its session logs, by the environment `env`
/// (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, else `HOME`); `None` for an agent
/// `--latest` does not know, or without a home.
pub fn sessions_dir(agent: Format, env: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let home = || {
        env("HOME")
            .or_else(|| env("USERPROFILE"))
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
    };
    let set = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    match agent {
        Format::ClaudeCode => Some(
            set("CLAUDE_CONFIG_DIR")
                .or_else(|| home().map(|h| h.join(".claude")))?
                .join("projects"),
        ),
        Format::Codex => Some(
            set("CODEX_HOME")
                .or_else(|| home().map(|h| h.join(".codex")))?
                .join("sessions"),
        ),
        _ => None,
    }
}

/// The newest non-empty session log of `agent` (of every agent in
/// [`AGENTS`] with `None`), by modification time, and its format; an
/// error says where it looked.
pub fn newest(
    agent: Option<Format>,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Result<(PathBuf, Format), Error> {
    let agents: Vec<Format> = match agent {
        Some(a) if AGENTS.contains(&a) => vec![a],
        Some(a) => {
            return Err(Error::NotFound(format!(
                "--latest knows where claude-code and codex keep their sessions, not {a}"
            )));
        }
        None => AGENTS.to_vec(),
    };
    let mut best: Option<(SystemTime, PathBuf, Format)> = None;
    let mut looked = Vec::new();
    for a in agents {
        let Some(dir) = sessions_dir(a, env) else {
            continue;
        };
        let mut found = Vec::new();
        match a {
            Format::ClaudeCode => {
                for project in entries(&dir) {
                    if project.is_dir() {
                        found.extend(entries(&project).into_iter().filter(|p| ext_is(p, "jsonl")));
                    }
                }
            }
            _ => walk(&dir, 0, &mut found),
        }
        looked.push(dir.display().to_string());
        for path in found {
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            if !meta.is_file() || meta.len() == 0 {
                continue;
            }
            let time = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            let newer = best
                .as_ref()
                .is_none_or(|(t, p, _)| (time, &path) > (*t, p));
            if newer {
                best = Some((time, path, a));
            }
        }
    }
    match best {
        Some((_, path, format)) => Ok((path, format)),
        None if looked.is_empty() => Err(Error::NotFound(String::from(
            "no session folder: set HOME, CLAUDE_CONFIG_DIR or CODEX_HOME",
        ))),
        None => Err(Error::NotFound(format!(
            "no session log found in {}",
            looked.join(", ")
        ))),
    }
}

/// The entries of `dir`, sorted (none when it cannot be read).
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    out.sort();
    out
}

fn ext_is(path: &Path, ext: &str) -> bool {
    path.extension().is_some_and(|e| e == ext)
}

/// Codex's `rollout-*.jsonl` files under `dir`, at most [`MAX_DEPTH`]
/// levels down (symbolic links to folders are not followed).
fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if depth > MAX_DEPTH {
        return;
    }
    for path in entries(dir) {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            walk(&path, depth + 1, out);
        } else if ext_is(&path, "jsonl")
            && path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("rollout-"))
        {
            out.push(path);
        }
    }
}
