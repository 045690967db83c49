//! `cargo xtask deps`: checks the workspace's dependency rules, the
//! ```` ```deps ```` block of `docs/architecture.md`, against the
//! dependencies `cargo metadata` reports for every workspace package.
//!
//! A rule is one line, `package: allowed allowed ...`, naming the
//! workspace packages `package` may depend on. Every workspace package
//! needs a rule, and a rule may name only workspace packages. The rule
//! applies to normal, build and dev dependencies alike; a dev-dependency
//! of a package on itself (to turn on a feature in tests) is always
//! allowed. Dependencies outside the workspace are not checked.
//!
//! [`violations`] is the pure check (metadata JSON and document text in,
//! broken rules out); [`run`] runs `cargo metadata`, reads the document
//! and reports.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, anyhow, bail};
use serde_json::Value;

/// Where the rules live, relative to the workspace root.
pub const RULES_DOC: &str = "docs/architecture.md";

/// The info string of the fenced block that holds the rules.
const FENCE: &str = "```deps";

/// The kind of a dependency, as `cargo metadata` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DepKind {
    /// A `[dependencies]` entry.
    Normal,
    /// A `[build-dependencies]` entry.
    Build,
    /// A `[dev-dependencies]` entry.
    Dev,
}

impl DepKind {
    /// Reads `kind` of a metadata dependency: `null`, `"build"` or `"dev"`.
    fn from_metadata(kind: &Value) -> Result<DepKind> {
        match kind {
            Value::Null => Ok(DepKind::Normal),
            Value::String(s) if s == "build" => Ok(DepKind::Build),
            Value::String(s) if s == "dev" => Ok(DepKind::Dev),
            other => bail!("unknown dependency kind {other} in cargo metadata"),
        }
    }
}

impl fmt::Display for DepKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DepKind::Normal => "normal dependency",
            DepKind::Build => "build dependency",
            DepKind::Dev => "dev-dependency",
        })
    }
}

/// One broken dependency rule.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Violation {
    /// A workspace package depends on a workspace package its rule does
    /// not allow.
    Forbidden {
        /// The package whose manifest declares the dependency.
        package: String,
        /// The workspace package it depends on.
        dependency: String,
        /// Which table of the manifest declares it.
        kind: DepKind,
        /// What the package's rule allows.
        allowed: Vec<String>,
    },
    /// A workspace package has no rule.
    MissingRule {
        /// The package without a rule.
        package: String,
    },
    /// A rule names a package that is not in the workspace.
    UnknownPackage {
        /// The package the rule is for (the name left of the colon).
        rule: String,
        /// The unknown name (the rule's own name, or one it allows).
        name: String,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::Forbidden {
                package,
                dependency,
                kind,
                allowed,
            } => {
                let allowed = if allowed.is_empty() {
                    "no workspace package".to_owned()
                } else {
                    allowed.join(", ")
                };
                write!(
                    f,
                    "{package} has a {kind} on {dependency}, which its rule forbids \
                     (rule `{package}:` allows {allowed})"
                )
            }
            Violation::MissingRule { package } => write!(
                f,
                "workspace package {package} has no rule (add a line `{package}: ...`)"
            ),
            Violation::UnknownPackage { rule, name } if rule == name => write!(
                f,
                "the rule `{rule}:` is for a package that is not in the workspace"
            ),
            Violation::UnknownPackage { rule, name } => write!(
                f,
                "the rule `{rule}:` allows {name}, which is not a workspace package"
            ),
        }
    }
}

/// The rules of the ```` ```deps ```` block: each package and the
/// workspace packages it may depend on.
pub type Rules = BTreeMap<String, BTreeSet<String>>;

/// Parses the first ```` ```deps ```` block of a Markdown document. Each
/// non-blank line inside is `package: allowed allowed ...` (names
/// separated by white space, possibly none); lines starting with `#` are
/// comments. A missing or unclosed block, a line without a colon and a
/// package ruled twice are errors naming the line.
pub fn parse_rules(doc: &str) -> Result<Rules> {
    let mut lines = doc.lines().enumerate();
    if !lines.any(|(_, l)| l.trim_end() == FENCE) {
        bail!("no {FENCE} block");
    }
    let mut rules = Rules::new();
    for (i, line) in lines {
        let line = line.trim();
        if line == "```" {
            return Ok(rules);
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (package, allowed) = line
            .split_once(':')
            .ok_or_else(|| anyhow!("line {}: expected `package: allowed ...`", i + 1))?;
        let package = package.trim();
        if package.is_empty() || package.contains(char::is_whitespace) {
            bail!("line {}: expected one package name before `:`", i + 1);
        }
        let allowed = allowed.split_whitespace().map(str::to_owned).collect();
        if rules.insert(package.to_owned(), allowed).is_some() {
            bail!("line {}: a second rule for {package}", i + 1);
        }
    }
    bail!("the {FENCE} block is not closed")
}

/// A workspace package and its dependencies on workspace packages.
struct Package {
    name: String,
    deps: Vec<(String, DepKind)>,
}

/// Reads the workspace packages and their dependencies on one another
/// from `cargo metadata --format-version 1` output. A dependency is on a
/// workspace package when it names one and has no registry or git source.
fn workspace_packages(metadata: &str) -> Result<Vec<Package>> {
    let meta: Value = serde_json::from_str(metadata).context("cargo metadata: not JSON")?;
    let members: BTreeSet<&str> = meta["workspace_members"]
        .as_array()
        .context("cargo metadata: no `workspace_members`")?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let packages = meta["packages"]
        .as_array()
        .context("cargo metadata: no `packages`")?;
    let mut names = BTreeSet::new();
    let mut raw = Vec::new();
    for p in packages {
        let id = p["id"]
            .as_str()
            .context("cargo metadata: a package without `id`")?;
        if !members.contains(id) {
            continue;
        }
        let name = p["name"]
            .as_str()
            .with_context(|| format!("cargo metadata: package {id} without `name`"))?;
        names.insert(name.to_owned());
        raw.push((name.to_owned(), p));
    }
    let mut out = Vec::new();
    for (name, p) in raw {
        let mut deps = Vec::new();
        let listed = p["dependencies"]
            .as_array()
            .with_context(|| format!("cargo metadata: {name} without `dependencies`"))?;
        for d in listed {
            let dep = d["name"].as_str().with_context(|| {
                format!("cargo metadata: a dependency of {name} without `name`")
            })?;
            if !names.contains(dep) || !d["source"].is_null() {
                continue;
            }
            deps.push((dep.to_owned(), DepKind::from_metadata(&d["kind"])?));
        }
        out.push(Package { name, deps });
    }
    Ok(out)
}

/// The pure check: every broken rule, given the JSON of `cargo metadata
/// --format-version 1` and a Markdown document holding the ```` ```deps ````
/// block. Sorted and without duplicates. Errors: metadata that is not
/// cargo's, or a malformed rules block.
pub fn violations(metadata: &str, doc: &str) -> Result<Vec<Violation>> {
    let rules = parse_rules(doc).with_context(|| format!("{RULES_DOC}, dependency rules"))?;
    let packages = workspace_packages(metadata)?;
    let known: BTreeSet<&str> = packages.iter().map(|p| p.name.as_str()).collect();
    let mut found = BTreeSet::new();
    for (rule, allowed) in &rules {
        for name in std::iter::once(rule).chain(allowed) {
            if !known.contains(name.as_str()) {
                found.insert(Violation::UnknownPackage {
                    rule: rule.clone(),
                    name: name.clone(),
                });
            }
        }
    }
    for p in &packages {
        let Some(allowed) = rules.get(&p.name) else {
            found.insert(Violation::MissingRule {
                package: p.name.clone(),
            });
            continue;
        };
        for (dep, kind) in &p.deps {
            let own_dev = *kind == DepKind::Dev && *dep == p.name;
            if !allowed.contains(dep) && !own_dev {
                found.insert(Violation::Forbidden {
                    package: p.name.clone(),
                    dependency: dep.clone(),
                    kind: *kind,
                    allowed: allowed.iter().cloned().collect(),
                });
            }
        }
    }
    Ok(found.into_iter().collect())
}

/// Runs `cargo metadata --format-version 1 --no-deps` on the workspace at
/// `root` (with the cargo of `$CARGO`, else `cargo` on the path) and
/// returns its JSON.
pub fn metadata(root: &Path) -> Result<String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(&cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--manifest-path",
        ])
        .arg(root.join("Cargo.toml"))
        .output()
        .with_context(|| format!("running {} metadata", cargo.to_string_lossy()))?;
    if !output.status.success() {
        bail!(
            "cargo metadata failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    String::from_utf8(output.stdout).context("cargo metadata: output is not UTF-8")
}

/// `cargo xtask deps`: checks the workspace at `root` against the rules
/// of its `docs/architecture.md`. Prints one line on stdout when every
/// rule holds and returns `true`; otherwise prints each violation on
/// stderr and returns `false`.
pub fn run(root: &Path) -> Result<bool> {
    let doc_path = root.join(RULES_DOC);
    let doc = std::fs::read_to_string(&doc_path)
        .with_context(|| format!("reading {}", doc_path.display()))?;
    let metadata = metadata(root)?;
    let found = violations(&metadata, &doc)?;
    if found.is_empty() {
        let rules = parse_rules(&doc)?;
        println!(
            "dependency rules hold: {} workspace packages, rules in {RULES_DOC}",
            rules.len()
        );
        return Ok(true);
    }
    for v in &found {
        eprintln!("error: {v}");
    }
    eprintln!(
        "{} dependency rule violation(s); the rules are the ```deps block of {RULES_DOC} \
         (section \"Dependency rules\")",
        found.len()
    );
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dependencies of a fake package: (name, kind, source).
    type Deps = Vec<(&'static str, Option<&'static str>, Option<&'static str>)>;

    /// A fake `cargo metadata` document: each package with its dependencies.
    fn metadata(packages: &[(&str, Deps)]) -> String {
        let packages: Vec<Value> = packages
            .iter()
            .map(|(name, deps)| {
                let deps: Vec<Value> = deps
                    .iter()
                    .map(|(dep, kind, source)| {
                        serde_json::json!({"name": dep, "kind": kind, "source": source})
                    })
                    .collect();
                serde_json::json!({
                    "name": name,
                    "id": format!("path+file:///ws/{name}#0.1.0"),
                    "dependencies": deps,
                })
            })
            .collect();
        let members: Vec<String> = packages
            .iter()
            .map(|p| p["id"].as_str().unwrap().to_owned())
            .collect();
        serde_json::json!({"packages": packages, "workspace_members": members}).to_string()
    }

    fn doc(rules: &str) -> String {
        format!("# Architecture\n\n## Dependency rules\n\n```deps\n{rules}```\n\nMore prose.\n")
    }

    const RULES: &str = "a:\nb: a\nc: a b\n";

    #[test]
    fn allowed_dependencies_pass() {
        let meta = metadata(&[
            ("a", vec![("serde", None, Some("registry+https://x"))]),
            ("b", vec![("a", None, None), ("a", Some("dev"), None)]),
            ("c", vec![("b", None, None), ("a", Some("build"), None)]),
        ]);
        assert_eq!(violations(&meta, &doc(RULES)).unwrap(), vec![]);
    }

    #[test]
    fn a_forbidden_dependency_of_any_kind_is_caught() {
        for kind in [None, Some("build"), Some("dev")] {
            let meta = metadata(&[
                ("a", vec![("c", kind, None)]),
                ("b", vec![("a", None, None)]),
                ("c", vec![]),
            ]);
            let found = violations(&meta, &doc(RULES)).unwrap();
            let expected = Violation::Forbidden {
                package: "a".into(),
                dependency: "c".into(),
                kind: DepKind::from_metadata(&serde_json::json!(kind)).unwrap(),
                allowed: vec![],
            };
            assert_eq!(found, vec![expected.clone()], "{kind:?}");
            let message = expected.to_string();
            for part in ["a has a", "on c", "rule `a:`", "no workspace package"] {
                assert!(message.contains(part), "{message}");
            }
        }
    }

    #[test]
    fn the_message_names_what_the_rule_allows() {
        let meta = metadata(&[("a", vec![]), ("b", vec![("c", None, None)]), ("c", vec![])]);
        let found = violations(&meta, &doc(RULES)).unwrap();
        assert_eq!(
            found.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["b has a normal dependency on c, which its rule forbids (rule `b:` allows a)"]
        );
    }

    #[test]
    fn a_dev_dependency_on_itself_is_allowed_but_not_a_normal_one() {
        let meta = metadata(&[
            ("a", vec![("a", Some("dev"), None)]),
            ("b", vec![]),
            ("c", vec![]),
        ]);
        assert_eq!(violations(&meta, &doc(RULES)).unwrap(), vec![]);
        let meta = metadata(&[("a", vec![("a", None, None)]), ("b", vec![]), ("c", vec![])]);
        assert_eq!(violations(&meta, &doc(RULES)).unwrap().len(), 1);
    }

    #[test]
    fn a_registry_crate_of_the_same_name_is_not_a_workspace_dependency() {
        let meta = metadata(&[
            ("a", vec![("c", None, Some("registry+https://x"))]),
            ("b", vec![]),
            ("c", vec![]),
        ]);
        assert_eq!(violations(&meta, &doc(RULES)).unwrap(), vec![]);
    }

    #[test]
    fn a_missing_rule_is_caught() {
        let meta = metadata(&[("a", vec![]), ("b", vec![]), ("c", vec![]), ("d", vec![])]);
        let found = violations(&meta, &doc(RULES)).unwrap();
        assert_eq!(
            found,
            vec![Violation::MissingRule {
                package: "d".into()
            }]
        );
        assert!(found[0].to_string().contains("d has no rule"));
    }

    #[test]
    fn an_unknown_package_in_a_rule_is_caught() {
        let meta = metadata(&[("a", vec![]), ("b", vec![]), ("c", vec![])]);
        let found = violations(&meta, &doc("a:\nb: a x\nc: a b\nz:\n")).unwrap();
        assert_eq!(
            found,
            vec![
                Violation::UnknownPackage {
                    rule: "b".into(),
                    name: "x".into()
                },
                Violation::UnknownPackage {
                    rule: "z".into(),
                    name: "z".into()
                },
            ]
        );
        assert!(found[0].to_string().contains("allows x"));
        assert!(found[1].to_string().contains("`z:` is for a package"));
    }

    #[test]
    fn malformed_rules_are_errors() {
        let meta = metadata(&[("a", vec![])]);
        for (text, part) in [
            ("# no block\n".to_owned(), "no ```deps block"),
            ("```deps\na:\n".to_owned(), "not closed"),
            (doc("a:\nb a\n"), "line 7"),
            (doc("a:\na: b\n"), "a second rule for a"),
            (doc("a b: c\n"), "one package name"),
        ] {
            let err = format!("{:#}", violations(&meta, &text).unwrap_err());
            assert!(err.contains(part), "{err}");
        }
    }

    #[test]
    fn comments_and_blank_lines_are_skipped() {
        let rules = parse_rules(&doc("# the bottom\na:\n\nb: a  \n")).unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules["b"], BTreeSet::from(["a".to_owned()]));
        assert!(rules["a"].is_empty());
    }

    #[test]
    fn the_repository_follows_its_rules() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let meta = super::metadata(root).unwrap();
        let doc = std::fs::read_to_string(root.join(RULES_DOC)).unwrap();
        let found = violations(&meta, &doc).unwrap();
        assert!(
            found.is_empty(),
            "{}",
            found
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        );
        // The real metadata has dependencies between workspace packages:
        // the check above is not vacuous.
        let packages = workspace_packages(&meta).unwrap();
        assert!(packages.len() >= 8);
        assert!(
            packages
                .iter()
                .any(|p| p.name == "tact-cli" && p.deps.len() >= 6)
        );
    }
}
