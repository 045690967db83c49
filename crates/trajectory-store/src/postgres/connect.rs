//! Connecting to PostgreSQL as libpq does: the password from the
//! environment or the password file, TLS by rustls as `sslmode` says, and
//! the server's refusals mapped to this crate's errors with the password
//! scrubbed from every message.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio_postgres::error::SqlState;

use crate::Error;
use crate::location::{Verify, scrub};

/// Maps a tokio-postgres error to this crate's: the server's refusals by
/// SQLSTATE, a connection that could not be made (`connecting`) as
/// unreachable, and the password scrubbed from every message.
pub(super) fn classify(
    location: &str,
    secret: Option<&str>,
    e: &tokio_postgres::Error,
    connecting: bool,
) -> Error {
    let location = location.to_owned();
    if let Some(db) = e.as_db_error() {
        let detail = scrub(db.message(), secret);
        let code = db.code();
        return if *code == SqlState::INVALID_PASSWORD
            || *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION
        {
            Error::Authentication { location, detail }
        } else if *code == SqlState::UNDEFINED_DATABASE {
            Error::NoSuchDatabase { location, detail }
        } else if *code == SqlState::INSUFFICIENT_PRIVILEGE
            || *code == SqlState::READ_ONLY_SQL_TRANSACTION
        {
            Error::PermissionDenied { location, detail }
        } else {
            Error::Postgres { location, detail }
        };
    }
    // The error and its causes (a TLS failure says why only in its source).
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        let more = c.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        cause = c.source();
    }
    let detail = scrub(&text, secret);
    if detail.contains("password missing") {
        return Error::Authentication {
            location,
            detail: "the server asks for a password and none was given (in the URL, PGPASSWORD or ~/.pgpass)".into(),
        };
    }
    if connecting && (detail.contains("TLS") || detail.contains("certificate")) {
        return Error::Tls { location, detail };
    }
    let io = std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>());
    if connecting && io {
        Error::Unreachable { location, detail }
    } else {
        Error::Postgres { location, detail }
    }
}

/// `PGPASSWORD`, else the matching line of the password file (`passfile`,
/// `PGPASSFILE` or `~/.pgpass`), as libpq reads them.
pub(super) fn password_from_env(
    config: &tokio_postgres::Config,
    passfile: Option<&Path>,
) -> Option<String> {
    if let Some(p) = std::env::var("PGPASSWORD").ok().filter(|p| !p.is_empty()) {
        return Some(p);
    }
    let file = passfile
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("PGPASSFILE").map(PathBuf::from))
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pgpass")))?;
    let meta = std::fs::metadata(&file).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o077 != 0 {
            tracing::warn!(file = %file.display(), "password file ignored: readable by group or others (chmod 0600)");
            return None;
        }
    }
    if !meta.is_file() || meta.len() > 1 << 20 {
        return None;
    }
    let text = std::fs::read_to_string(&file).ok()?;
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
        #[cfg(unix)]
        Some(tokio_postgres::config::Host::Unix(_)) => "localhost".to_owned(),
        None => "localhost".to_owned(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let user = config.get_user().map(str::to_owned).unwrap_or_default();
    let db = config
        .get_dbname()
        .map(str::to_owned)
        .unwrap_or_else(|| user.clone());
    pgpass_lookup(&text, [&host, &port, &db, &user])
}

/// The password of the first line of a `.pgpass` text matching (host,
/// port, database, user); `*` matches anything, `\:` and `\\` escape.
pub(crate) fn pgpass_lookup(text: &str, want: [&str; 4]) -> Option<String> {
    for line in text.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut fields: Vec<String> = vec![String::new()];
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    if let Some(n) = chars.next() {
                        fields.last_mut()?.push(n);
                    }
                }
                ':' if fields.len() < 5 => fields.push(String::new()),
                c => fields.last_mut()?.push(c),
            }
        }
        if fields.len() != 5 {
            continue;
        }
        if fields[..4]
            .iter()
            .zip(want)
            .all(|(f, w)| f == "*" || f == w)
        {
            return fields.pop();
        }
    }
    None
}

/// The TLS connector `sslmode` asks for: certificate checks off
/// (`prefer`, `require`: encryption only, as libpq), the chain
/// (`verify-ca`) or the chain and host name (`verify-full`) against
/// `sslrootcert`, else `~/.postgresql/root.crt`, else the webpki roots.
pub(super) fn tls(
    verify: Verify,
    root_cert: Option<&Path>,
) -> Result<tokio_postgres_rustls::MakeRustlsConnect, String> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?;
    let config = match verify {
        Verify::None => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(NoCheck(provider)))
            .with_no_client_auth(),
        Verify::Chain | Verify::Full => {
            let mut roots = rustls::RootCertStore::empty();
            let file = root_cert.map(Path::to_path_buf).or_else(|| {
                std::env::var_os("HOME")
                    .map(|h| PathBuf::from(h).join(".postgresql/root.crt"))
                    .filter(|p| p.is_file())
            });
            if let Some(file) = file {
                let certs = CertificateDer::pem_file_iter(&file)
                    .map_err(|e| format!("sslrootcert {}: {e}", file.display()))?;
                for cert in certs {
                    let cert = cert.map_err(|e| format!("sslrootcert {}: {e}", file.display()))?;
                    roots
                        .add(cert)
                        .map_err(|e| format!("sslrootcert {}: {e}", file.display()))?;
                }
            } else {
                roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
            }
            let webpki = rustls::client::WebPkiServerVerifier::builder_with_provider(
                Arc::new(roots),
                Arc::clone(&provider),
            )
            .build()
            .map_err(|e| format!("TLS: {e}"))?;
            let verifier: Arc<dyn rustls::client::danger::ServerCertVerifier> =
                if verify == Verify::Full {
                    webpki
                } else {
                    Arc::new(ChainOnly(webpki))
                };
            builder
                .dangerous()
                .with_custom_certificate_verifier(verifier)
                .with_no_client_auth()
        }
    };
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

/// `prefer` / `require`: any certificate (signatures still checked).
#[derive(Debug)]
struct NoCheck(Arc<rustls::crypto::CryptoProvider>);

impl rustls::client::danger::ServerCertVerifier for NoCheck {
    fn verify_server_cert(
        &self,
        _end_entity: &rustls::pki_types::CertificateDer<'_>,
        _intermediates: &[rustls::pki_types::CertificateDer<'_>],
        _server_name: &rustls::pki_types::ServerName<'_>,
        _ocsp_response: &[u8],
        _now: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: the chain, whatever name the certificate carries.
#[derive(Debug)]
struct ChainOnly(Arc<rustls::client::WebPkiServerVerifier>);

impl rustls::client::danger::ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &rustls::pki_types::CertificateDer<'_>,
        intermediates: &[rustls::pki_types::CertificateDer<'_>],
        server_name: &rustls::pki_types::ServerName<'_>,
        ocsp_response: &[u8],
        now: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForName))
            | Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::NotValidForNameContext { .. },
            )) => Ok(rustls::client::danger::ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgpass_lines_match_as_libpq_reads_them() {
        let text = "# comment\n\
                    other:5432:tact:ci:nope\n\
                    db.example:*:tact:ci:pa\\:ss\\\\word\n\
                    *:*:*:*:fallback\n";
        assert_eq!(
            pgpass_lookup(text, ["db.example", "5433", "tact", "ci"]).as_deref(),
            Some("pa:ss\\word")
        );
        assert_eq!(
            pgpass_lookup(text, ["elsewhere", "5432", "x", "y"]).as_deref(),
            Some("fallback")
        );
        assert_eq!(pgpass_lookup("h:1:d:u\n", ["h", "1", "d", "u"]), None);
    }
}
