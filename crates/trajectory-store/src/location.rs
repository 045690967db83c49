//! Where a store lives, read from one string (`--db`, `TACT_DB`,
//! `[store] url`): a SQLite file or a PostgreSQL server.
//!
//! - `postgres://...` or `postgresql://...` (libpq's URL form), or libpq's
//!   key=value form (`host=db.example dbname=tact user=ci`, recognised when
//!   its first word is a libpq keyword followed by `=`): PostgreSQL.
//! - `sqlite://PATH` or `sqlite:PATH`, or anything else: a SQLite file at
//!   that path.
//! - Any other `scheme://` is refused, so a URL never becomes folders.
//!
//! A location's `Display` never shows a password: `postgresql://USER@HOST:PORT/DB`.

// Without the `postgres` feature a server location is still recognised
// (and refused with a clear error), but the parts only a connection reads
// are never read.
#![cfg_attr(not(feature = "postgres"), allow(dead_code))]

use std::fmt;
use std::path::PathBuf;

use crate::Error;

/// Where a store lives: a SQLite file or a PostgreSQL database.
#[derive(Clone)]
#[non_exhaustive]
pub enum Location {
    /// A SQLite database file (created on first write).
    Sqlite(PathBuf),
    /// A PostgreSQL database (never a file, never a folder).
    Postgres(Box<PgLocation>),
}

/// A PostgreSQL connection target, parsed; its password is kept only to
/// connect and is never printed.
#[derive(Clone)]
pub struct PgLocation {
    /// `postgresql://USER@HOST:PORT/DB`, no password.
    pub(crate) display: String,
    /// The password as the user wrote it (URL or `password=`), to scrub it
    /// from any message that might quote it.
    pub(crate) secret: Option<String>,
    /// How the server's certificate is checked (libpq's `sslmode`).
    pub(crate) verify: Verify,
    /// `sslrootcert`: the certificate authorities to trust (PEM).
    pub(crate) root_cert: Option<PathBuf>,
    /// `passfile`: the password file in place of `~/.pgpass`.
    pub(crate) passfile: Option<PathBuf>,
    #[cfg(feature = "postgres")]
    pub(crate) config: tokio_postgres::Config,
}

/// How a TLS connection checks the server, as libpq's `sslmode` says:
/// `prefer` and `require` encrypt without checking the certificate,
/// `verify-ca` checks its chain, `verify-full` its chain and host name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verify {
    /// `disable`, `allow`, `prefer`, `require`: no certificate check.
    None,
    /// `verify-ca`: the chain up to a trusted authority.
    Chain,
    /// `verify-full`: the chain and the host name.
    Full,
}

impl fmt::Debug for PgLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("PgLocation").field(&self.display).finish()
    }
}

impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(p) => f.debug_tuple("Sqlite").field(p).finish(),
            Location::Postgres(p) => f.debug_tuple("Postgres").field(&p.display).finish(),
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(p) => write!(f, "{}", p.display()),
            Location::Postgres(p) => f.write_str(&p.display),
        }
    }
}

impl From<PathBuf> for Location {
    fn from(path: PathBuf) -> Self {
        Location::Sqlite(path)
    }
}

impl From<&std::path::Path> for Location {
    fn from(path: &std::path::Path) -> Self {
        Location::Sqlite(path.to_owned())
    }
}

/// libpq's connection keywords (the key=value form is recognised by its
/// first word being one of them).
const KEYWORDS: &[&str] = &[
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "passfile",
    "connect_timeout",
    "options",
    "application_name",
    "sslmode",
    "sslnegotiation",
    "keepalives",
    "keepalives_idle",
    "target_session_attrs",
    "channel_binding",
    "load_balance_hosts",
];

impl Location {
    /// Reads a location. Fails on an unknown URL scheme (`mysql://...`),
    /// on a PostgreSQL string libpq's rules reject, or on a PostgreSQL
    /// location when the `postgres` feature is off; the error never quotes
    /// the password.
    pub fn parse(text: &str) -> Result<Self, Error> {
        let trimmed = text.trim();
        if let Some(rest) = trimmed
            .strip_prefix("sqlite://")
            .or_else(|| trimmed.strip_prefix("sqlite:"))
        {
            if rest.is_empty() {
                return Err(Error::Location {
                    reason: "`sqlite:` needs a path (sqlite://tact.db)".into(),
                });
            }
            return Ok(Location::Sqlite(PathBuf::from(rest)));
        }
        let lower = trimmed.to_ascii_lowercase();
        if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
            return pg(trimmed, url_password(trimmed), true);
        }
        if let Some(scheme) = url_scheme(trimmed) {
            return Err(Error::Location {
                reason: format!(
                    "unsupported database URL scheme `{}` (use a path, sqlite://, postgres:// or postgresql://)",
                    tact_types::excerpt::excerpt(scheme)
                ),
            });
        }
        if is_key_value(trimmed) {
            return pg(trimmed, kv_password(trimmed), false);
        }
        Ok(Location::Sqlite(PathBuf::from(text)))
    }

    /// Whether this is a PostgreSQL location.
    pub fn is_postgres(&self) -> bool {
        matches!(self, Location::Postgres(_))
    }
}

/// `scheme` of `scheme://...` (RFC 3986 characters), if the text starts so.
fn url_scheme(text: &str) -> Option<&str> {
    let (scheme, _) = text.split_once("://")?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

fn is_key_value(text: &str) -> bool {
    text.split_once('=')
        .is_some_and(|(key, _)| KEYWORDS.contains(&key.trim()))
}

/// The password of a `postgres://user:password@host` URL, percent-decoded
/// and as written (both are scrubbed from messages).
fn url_password(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?']).next()?;
    let (userinfo, _) = authority.rsplit_once('@')?;
    let (_, password) = userinfo.split_once(':')?;
    (!password.is_empty()).then(|| password.to_owned())
}

/// The value of `password=` in the key=value form (quotes kept off).
fn kv_password(text: &str) -> Option<String> {
    let at = text.find("password")?;
    let rest = text[at + "password".len()..]
        .trim_start()
        .strip_prefix('=')?;
    let rest = rest.trim_start();
    let value = if let Some(quoted) = rest.strip_prefix('\'') {
        quoted.split('\'').next().unwrap_or_default()
    } else {
        rest.split_whitespace().next().unwrap_or_default()
    };
    (!value.is_empty()).then(|| value.to_owned())
}

/// Replaces every occurrence of the secret (and its percent-decoded form)
/// in a message.
pub(crate) fn scrub(message: &str, secret: Option<&str>) -> String {
    let Some(secret) = secret.filter(|s| !s.is_empty()) else {
        return message.to_owned();
    };
    let mut out = message.replace(secret, "***");
    let decoded = percent_decode(secret);
    if !decoded.is_empty() && decoded != secret {
        out = out.replace(&decoded, "***");
    }
    out
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = s.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Takes `key=value` out of a URL's query or a key=value string (the
/// parameters libpq knows and tokio-postgres does not), returning the rest
/// and the value.
fn take_param(text: &str, key: &str, url: bool) -> (String, Option<String>) {
    let prefix = format!("{key}=");
    if url {
        let Some((base, query)) = text.split_once('?') else {
            return (text.to_owned(), None);
        };
        let mut value = None;
        let kept: Vec<&str> = query
            .split('&')
            .filter(|p| match p.strip_prefix(&prefix) {
                Some(v) => {
                    value = Some(percent_decode(v));
                    false
                }
                None => true,
            })
            .collect();
        let rest = if kept.is_empty() {
            base.to_owned()
        } else {
            format!("{base}?{}", kept.join("&"))
        };
        (rest, value)
    } else {
        let mut value = None;
        let kept: Vec<&str> = text
            .split_whitespace()
            .filter(|w| match w.strip_prefix(&prefix) {
                Some(v) => {
                    value = Some(v.trim_matches('\'').to_owned());
                    false
                }
                None => true,
            })
            .collect();
        (kept.join(" "), value)
    }
}

#[cfg(feature = "postgres")]
fn pg(text: &str, secret: Option<String>, url: bool) -> Result<Location, Error> {
    let bad = |reason: String| Error::Location {
        reason: scrub(&reason, secret.as_deref()),
    };
    let (text, root_cert) = take_param(text, "sslrootcert", url);
    let (text, passfile) = take_param(&text, "passfile", url);
    let (mut text, mode) = take_param(&text, "sslmode", url);
    // tokio-postgres knows disable, prefer and require: the checks of the
    // verify modes are ours (the TLS connector's verifier).
    let (verify, mode) = match mode.as_deref() {
        None => (Verify::None, None),
        Some("disable" | "allow") => (Verify::None, Some("disable")),
        Some("prefer") => (Verify::None, Some("prefer")),
        Some("require") => (Verify::None, Some("require")),
        Some("verify-ca") => (Verify::Chain, Some("require")),
        Some("verify-full") => (Verify::Full, Some("require")),
        Some(other) => {
            return Err(bad(format!(
                "sslmode `{}` is not one of disable, allow, prefer, require, verify-ca, verify-full",
                tact_types::excerpt::excerpt(other)
            )));
        }
    };
    if let Some(mode) = mode {
        if url {
            text.push(if text.contains('?') { '&' } else { '?' });
        } else {
            text.push(' ');
        }
        text.push_str("sslmode=");
        text.push_str(mode);
    }
    let config: tokio_postgres::Config = text.parse().map_err(|e: tokio_postgres::Error| {
        bad(format!("not a PostgreSQL connection string: {e}"))
    })?;
    let display = display_of(&config);
    Ok(Location::Postgres(Box::new(PgLocation {
        display,
        secret,
        verify,
        root_cert: root_cert.map(PathBuf::from),
        passfile: passfile.map(PathBuf::from),
        config,
    })))
}

#[cfg(not(feature = "postgres"))]
fn pg(_text: &str, _secret: Option<String>, _url: bool) -> Result<Location, Error> {
    Err(Error::Location {
        reason: "this build of tact has no PostgreSQL backend (the `postgres` feature of tact-trajectory-store)".into(),
    })
}

/// `postgresql://USER@HOST:PORT/DB` from a parsed configuration: built
/// from its parts, never from the text, so no password can slip through.
#[cfg(feature = "postgres")]
fn display_of(config: &tokio_postgres::Config) -> String {
    use tokio_postgres::config::Host;
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let host = match h {
                Host::Tcp(name) => name.clone(),
                #[cfg(unix)]
                Host::Unix(path) => path.display().to_string(),
            };
            match config.get_ports().get(i).or(config.get_ports().first()) {
                Some(port) => format!("{host}:{port}"),
                None => host,
            }
        })
        .collect();
    let hosts = if hosts.is_empty() {
        "localhost".to_owned()
    } else {
        hosts.join(",")
    };
    let user = config
        .get_user()
        .map(|u| format!("{u}@"))
        .unwrap_or_default();
    let db = config.get_dbname().unwrap_or_default();
    format!("postgresql://{user}{hosts}/{db}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_sqlite_urls_are_files() {
        for (text, path) in [
            ("tact.db", "tact.db"),
            ("./data/tact.db", "./data/tact.db"),
            ("sqlite://tact.db", "tact.db"),
            ("sqlite:///var/lib/tact.db", "/var/lib/tact.db"),
            ("sqlite:x.db", "x.db"),
            ("a=b.db", "a=b.db"),
        ] {
            match Location::parse(text).unwrap() {
                Location::Sqlite(p) => assert_eq!(p, PathBuf::from(path), "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    #[test]
    fn unknown_schemes_are_refused_not_made_folders() {
        for text in ["mysql://u:pw@h/db", "http://x", "sqlite:"] {
            let e = Location::parse(text).unwrap_err().to_string();
            assert!(!e.contains("pw@"), "{e}");
            assert!(matches!(Location::parse(text), Err(Error::Location { .. })));
        }
    }

    #[cfg(feature = "postgres")]
    #[test]
    fn postgres_urls_and_key_values_are_servers_shown_without_password() {
        for (text, shown) in [
            (
                "postgres://ci:s3cret-pw@db.example:5433/tact",
                "postgresql://ci@db.example:5433/tact",
            ),
            (
                "postgresql://ci:s3cret-pw@localhost/tact?sslmode=require",
                "postgresql://ci@localhost:5432/tact",
            ),
            (
                "host=db.example port=5433 user=ci password=s3cret-pw dbname=tact",
                "postgresql://ci@db.example:5433/tact",
            ),
            (
                "host=db.example user=ci password='s3cret-pw' dbname=tact",
                "postgresql://ci@db.example/tact",
            ),
        ] {
            let loc = Location::parse(text).unwrap();
            assert!(loc.is_postgres());
            assert_eq!(loc.to_string(), shown);
            assert!(!format!("{loc:?}").contains("s3cret"));
            let Location::Postgres(pg) = &loc else {
                unreachable!()
            };
            assert_eq!(pg.secret.as_deref(), Some("s3cret-pw"), "{text}");
        }
    }

    #[cfg(feature = "postgres")]
    #[test]
    fn a_bad_postgres_string_is_an_error_without_the_password() {
        for text in [
            "postgres://ci:s3cret-pw@db.example:notaport/tact",
            "postgres://ci:s3cret-pw@db.example/tact?sslmode=s3cret-pw",
            "host=h password=s3cret-pw bogus=s3cret-pw",
        ] {
            let e = Location::parse(text).unwrap_err().to_string();
            assert!(!e.contains("s3cret"), "{e}");
        }
    }

    #[cfg(feature = "postgres")]
    #[test]
    fn sslmode_and_the_parameters_libpq_adds_are_read() {
        let Location::Postgres(pg) = Location::parse(
            "postgresql://u@h/db?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&connect_timeout=3",
        )
        .unwrap() else {
            unreachable!()
        };
        assert_eq!(pg.verify, Verify::Full);
        assert_eq!(pg.root_cert, Some(PathBuf::from("/etc/ca.pem")));
        assert_eq!(
            pg.config.get_ssl_mode(),
            tokio_postgres::config::SslMode::Require
        );
        assert_eq!(
            pg.config.get_connect_timeout(),
            Some(&std::time::Duration::from_secs(3))
        );
        let Location::Postgres(pg) =
            Location::parse("host=h dbname=d sslmode=verify-ca passfile=/tmp/pgpass").unwrap()
        else {
            unreachable!()
        };
        assert_eq!(pg.verify, Verify::Chain);
        assert_eq!(pg.passfile, Some(PathBuf::from("/tmp/pgpass")));
        let Location::Postgres(pg) = Location::parse("host=h sslmode=disable").unwrap() else {
            unreachable!()
        };
        assert_eq!(
            pg.config.get_ssl_mode(),
            tokio_postgres::config::SslMode::Disable
        );
        assert!(Location::parse("postgres://h/d?sslmode=bogus").is_err());
    }

    #[test]
    fn scrub_hides_raw_and_decoded_forms() {
        assert_eq!(scrub("a p%40ss b p@ss", Some("p%40ss")), "a *** b ***");
        assert_eq!(scrub("nothing", None), "nothing");
    }
}
