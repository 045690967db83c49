//! The credential shapes the scanner knows, and the credential families of
//! gitleaks' default configuration they cover.
//!
//! The families follow gitleaks' default configuration
//! (`config/gitleaks.toml`, MIT licence, Copyright (c) 2019 Zachary Rice) at
//! commit `b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b`: 222 rules. A rule's
//! family is its id up to the first `-` (`aws-access-token` is `aws`,
//! `github-pat` is `github`, `new-relic-insert-key` is `new`,
//! `1password-secret-key` is `1password`), which gives
//! [`GITLEAKS_FAMILY_COUNT`] = 130 families.
//!
//! Gitleaks' regexes use Go syntax and look-around-like terminators; each
//! family's value shape is rewritten here for the `regex` crate (no
//! look-around, linear time). Prefix-anchored shapes (`glpat-...`,
//! `npm_...`) match anywhere; gitleaks' keyword-context rules (a vendor
//! name near `=`/`:` and a value) become `keyword... = value` assignments
//! whose value (group 1) is redacted.
//!
//! Covered: every family but those in [`NOT_COVERED`] (`pkcs12`, a rule on
//! file paths, not on content).

/// How a match of a shape is confirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// Any match counts.
    Always,
    /// The match must contain an ASCII digit (bearer tokens).
    HasDigit,
    /// The assigned value (group 1) must look random: a digit or a symbol
    /// (and not only digits), or 16+ characters (so prose like "password:
    /// required" and `MAX_TOKEN=4096` are not one).
    SecretLike,
    /// Group 1 must look like a token rather than a word: a digit, `+`,
    /// `/` or `=`, or a capital after its first character next to a
    /// lowercase letter ("Basic dXNlcjpw", not "Basic Authentication").
    TokenLike,
}

/// A vendor keyword followed by an assignment of a value (group 1).
macro_rules! kw {
    ($k:literal, $v:literal) => {
        concat!(
            r#"(?i)(?:"#,
            $k,
            r#")[\w.-]{0,20}["'`]?[ \t]*(?:=|:=|:|=>|,)[ \t]*\\?["'`]?("#,
            $v,
            ")"
        )
    };
}

/// Built-in value shapes: id, description, pattern, confirmation.
pub(crate) const SHAPES: &[(&str, &str, &str, Check)] = &[
    (
        "cloud_access_key_id",
        "a cloud access key id",
        r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b|\bABSK[A-Za-z0-9+/]{109,}={0,2}|\bbedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=]*",
        Check::Always,
    ),
    (
        "aws_secret_access_key",
        "an AWS secret access key",
        r#"(?i)(?:aws_?secret_?access_?key|aws_?secret_?key|secretaccesskey)["'`]?[ \t]*(?:=|:|=>|[ \t])[ \t]*["'`]?([A-Za-z0-9/+]{40})|\b(?:AKIA|ASIA)[A-Z0-9]{16}["'`]?[\s,;:=|]{1,10}["'`]?([A-Za-z0-9/+]{40})\b"#,
        Check::Always,
    ),
    (
        "private_key_block",
        "a PEM private key block",
        r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:(?s:.*?)-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,.-]*)",
        Check::Always,
    ),
    (
        "gcp_private_key_id",
        "a service account private key id",
        r#"\\?"private_key_id\\?"\s*:\s*\\?"([A-Za-z0-9]{16,})"#,
        Check::Always,
    ),
    (
        "bearer_token",
        "a bearer token",
        r#"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{12,}=*|(?i)authorization:?\s*["']?(?:token|api-token)\s+[A-Za-z0-9._~+/-]{12,}=*"#,
        Check::HasDigit,
    ),
    (
        "basic_auth",
        "a Basic auth header",
        r"(?i)\bbasic\s+([A-Za-z0-9+/]{6,}={0,2})",
        Check::TokenLike,
    ),
    (
        "curl_user",
        "a curl user and password",
        r#"\bcurl\b[^\n]*?\s(?:-u|--user)(?:=|[ \t]+)["']?([^\s"':$][^\s"':]*:[^\s"'$<{\[][^\s"']{2,})"#,
        Check::Always,
    ),
    (
        "jwt",
        "a JWT",
        r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*|\bZXlK[A-Za-z0-9/_+-]{40,}={0,2}",
        Check::Always,
    ),
    (
        "github_token",
        "a GitHub token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})",
        Check::Always,
    ),
    (
        "gitlab_token",
        "a GitLab token",
        r"\bgl(?:pat|dt|ffct|ft|imt|agent|oas|ptt|rt|soat|cbt)-[0-9A-Za-z_.-]{20,}|\bGR1348941[\w-]{20,}|_gitlab_session=[0-9a-z]{32}",
        Check::Always,
    ),
    (
        "slack_token",
        "a Slack token or webhook",
        r"\bxox[a-z](?:\.xox[a-z])?-[A-Za-z0-9.-]{10,}|\bxapp-[0-9]-[A-Za-z0-9-]{10,}|hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{20,}",
        Check::Always,
    ),
    (
        "google_api_key",
        "a Google API key",
        r"\bAIza[0-9A-Za-z_-]{35}",
        Check::Always,
    ),
    (
        "secret_api_key",
        "a secret API key",
        r"\b(?:sk-(?:proj-|ant-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}|[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,})",
        Check::Always,
    ),
    (
        "azure_secret",
        "an Azure key or client secret",
        r"(?i)\b(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{20,}={0,2})|(?:^|[^A-Za-z0-9_~.])([A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})",
        Check::Always,
    ),
    (
        "npm_token",
        "an npm token",
        r"(?i)\bnpm_[a-z0-9]{36}",
        Check::Always,
    ),
    (
        "pypi_token",
        "a PyPI token",
        r"\bpypi-AgEIcHlwaS5vcmc[\w-]{50,}",
        Check::Always,
    ),
    (
        "twilio_key",
        "a Twilio API key",
        r"\bSK[0-9a-fA-F]{32}\b",
        Check::Always,
    ),
    (
        "sendgrid_key",
        "a SendGrid API key",
        r"\bSG\.[A-Za-z0-9_=-]{16,}\.[A-Za-z0-9_=-]{16,}",
        Check::Always,
    ),
    (
        "heroku_key",
        "a Heroku API key",
        r"\bHRKU-[0-9A-Za-z_-]{30,}",
        Check::Always,
    ),
    (
        "docker_auth",
        "a Docker registry auth",
        r#"\\?"auth\\?"\s*:\s*\\?"([A-Za-z0-9+/]{8,}={0,2})"#,
        Check::Always,
    ),
    (
        "kubernetes_secret",
        "Kubernetes secret data",
        r#"(?is)\bkind:[ \t]*["']?secret\b.*?\b(?:data|stringData):((?:[ \t]*\n[ \t]+[\w.-]+:[ \t]*[^\n]*)+)|(?is)\b(?:data|stringData):((?:[ \t]*\n[ \t]+[\w.-]+:[ \t]*[^\n]*)+).*?\bkind:[ \t]*["']?secret\b"#,
        Check::Always,
    ),
    (
        "nuget_password",
        "a NuGet config password",
        r#"(?i)<add key=\\?"(?:ClearText)?Password\\?"\s*value=\\?"([^"\\]{8,})"#,
        Check::Always,
    ),
    (
        "vendor_token",
        "a vendor token",
        concat!(
            r"\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b|\bops_eyJ[A-Za-z0-9+/]{250,}={0,3}",
            r"|AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
            r"|\bp8e-[A-Za-z0-9]{32}|\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}|\bLTAI[A-Za-z0-9]{20}",
            r"|\bAKCp[A-Za-z0-9]{69}|\bcmVmd[A-Za-z0-9]{59}",
            r"|\b(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}",
            r"|\b4b1d[A-Za-z0-9]{38}\b|(?i:\bCLOJARS_[a-z0-9]{60})|\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}",
            r"|\bdapi[a-f0-9]{32}(?:-[0-9])?|\bdo[opr]_v1_[a-f0-9]{64}|\bdnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}",
            r"|\bdp\.pt\.[A-Za-z0-9]{43}|\bduffel_(?:test|live)_[A-Za-z0-9_=-]{43}|\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}",
            r"|\bEZ[AT]K[A-Za-z0-9]{54}|\bEAA[MC][A-Za-z0-9]{100,}|\bFLW(?:SECK|PUBK)_TEST-[A-Za-z0-9]{12,}(?:-X)?",
            r"|\b(?:fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3})|\bfio-u-[A-Za-z0-9_=-]{64}",
            r#"|(?i:\\?["']secret_key\\?["']\s*=>\s*\\?["']sk_[^\s"'\\]{29})"#,
            r"|\beyJrIjoi[A-Za-z0-9]{70,}={0,3}|\bglc_[A-Za-z0-9+/]{32,}={0,3}|\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}",
            r"|\b(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}|\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}",
            r"|\b(?:hf_|api_org_)[A-Za-z]{34}\b|\bico-[A-Za-z0-9]{32}|\bs-s4t2(?:ud|af)-[a-fA-F0-9]{64}",
            r"|\blin_api_[A-Za-z0-9]{40}|\b[a-f0-9]{32}-us[0-9]{1,2}\b|\b[ps]k\.[A-Za-z0-9]{60,}\.[A-Za-z0-9_-]{22,}",
            r"|\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b|(?i:https://[a-z0-9-]+\.webhook\.office\.com/webhookb2/[^\s\x22'<>]+)",
            r"|\bNR(?:JS|II|AK)-[A-Za-z0-9-]{19,}|\bntn_[0-9]{11}[A-Za-z0-9]{35}|\bAPI-[A-Z0-9]{26}\b",
            r"|\bsha256~[A-Za-z0-9_-]{43}|\bpplx-[A-Za-z0-9]{48}|\bpscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}",
            r"|\bPMAK-[A-Fa-f0-9]{24}-[A-Fa-f0-9]{34}|\bpnu_[A-Za-z0-9]{36}|\bpul-[a-f0-9]{40}",
            r"|\brdme_[a-z0-9]{70}|\brubygems_[a-f0-9]{48}|\btk-us-[A-Za-z0-9_-]{48}",
            r"|\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}|\bsntry[us]_[A-Za-z0-9+/=_]{40,}",
            r"|\bsm_[aps]at_[A-Za-z0-9]{16}|\bshippo_(?:live|test)_[a-fA-F0-9]{40}|\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
            r"|\bsq[upa]_[a-f0-9]{40}|\bsgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}",
            r"|\b(?:EAAA|sq0atp-|sq0csp-)[A-Za-z0-9_-]{22,60}|\btfp_[A-Za-z0-9_.=-]{59}|\bhv[sb]\.[A-Za-z0-9_-]{90,}",
            r"|\bAQVN[A-Za-z0-9_-]{35,38}",
        ),
        Check::Always,
    ),
    (
        "vendor_assignment",
        "a vendor credential assignment",
        concat!(
            kw!(
                "adafruit|adobe|airtable|algolia|alibaba|asana|atlassian|confluence|confluent|jira|beamer|bitbucket|bittrex|meraki|cloudflare|codecov|cohere|co_api_key|coinbase|contentful|datadog|dnkey|discord|droneci|dropbox|etsy|facebook|fastly|finicity|finnhub|flickr|freshbooks|gitter|gocardless|heroku|hubspot|intercom|jfrog|artifactory|bintray|xray|kraken|kucoin|launchdarkly|linear|linked[_-]?in|looker|mailchimp|mailgun|mapbox|mattermost|message[_-]?bird|netlify|new[_-]?relic|nytimes|new-york-times|newyorktimes|okta|plaid|private[_-]?ai|rapidapi|sendbird|sentry|snyk|sonar|squarespace|sumo|travis|twitch|twitter|typeform|yandex|zendesk|contribsys__com",
                r"[A-Za-z0-9_=+/.%~|:-]{12,}"
            ),
            "|",
            kw!("telegr", r"[0-9]{5,16}:A[A-Za-z0-9_-]{34}"),
            "|",
            kw!("lob", r"(?:live|test)_(?:pub_)?[a-f0-9]{31,}")
        ),
        Check::SecretLike,
    ),
    (
        "url_credentials",
        "a URL with a password",
        r"\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:[^/\s:@$<{*][^/\s@]*@",
        Check::Always,
    ),
    (
        "env_credential",
        "a credential environment variable",
        r#"\b[A-Z0-9_]*(?:PASS|PASSWORD|PASSWD|SECRET|TOKEN|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?|AUTH)[ \t]*=[ \t]*\\?["']?([^\s"'$<{*\[\\][^\s"',;\\]{3,})"#,
        Check::SecretLike,
    ),
    (
        "credential_assignment",
        "a credential assignment",
        r#"(?i)(?:password|passwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|private[_-]?key)["']?\s*[=:]\s*\\?["']?([^\s"'$<{*\[\\][^\s"',;\\]{5,})"#,
        Check::SecretLike,
    ),
];

/// How many credential families gitleaks' default configuration has (rule
/// ids grouped by their prefix before the first `-`).
pub const GITLEAKS_FAMILY_COUNT: usize = 130;

/// Gitleaks families deliberately not covered, and why.
pub const NOT_COVERED: &[(&str, &str)] = &[(
    "pkcs12",
    "`pkcs12-file` matches file names (`*.p12`, `*.pfx`), not content; a path is no credential",
)];

/// A covered gitleaks family: its name, the scanner's shape id that
/// detects it, and a template of a fake example (see [`expand_example`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FamilyExample {
    /// Gitleaks family (rule-id prefix).
    pub family: &'static str,
    /// The shape id that detects it.
    pub kind: &'static str,
    /// Template of a fake example: literal text with `{cN}` runs of N
    /// generated characters of class `c` (see [`expand_example`]).
    pub example: &'static str,
}

const fn fam(family: &'static str, kind: &'static str, example: &'static str) -> FamilyExample {
    FamilyExample {
        family,
        kind,
        example,
    }
}

/// One fake example per covered gitleaks family.
pub const FAMILY_EXAMPLES: &[FamilyExample] = &[
    fam("1password", "vendor_token", "A3-{U6}-{U11}-{U5}-{U5}-{U5}"),
    fam("adafruit", "vendor_assignment", "adafruit_key = {l32}"),
    fam("adobe", "vendor_token", "p8e-{m32}"),
    fam("age", "vendor_token", "AGE-SECRET-KEY-1{G58}"),
    fam("airtable", "vendor_token", "pat{m14}.{h64}"),
    fam("algolia", "vendor_assignment", "ALGOLIA_API_KEY: {l32}"),
    fam("alibaba", "vendor_token", "LTAI{m20}"),
    fam("anthropic", "secret_api_key", "sk-ant-api03-{m93}AA"),
    fam("artifactory", "vendor_token", "AKCp{m69}"),
    fam("asana", "vendor_assignment", "asana_secret={l32}"),
    fam("atlassian", "vendor_assignment", "jira_api_token = {l24}"),
    fam("authress", "vendor_token", "sc_{m10}.{m5}.acc_{m20}.{m40}"),
    fam("aws", "cloud_access_key_id", "AKIA{U16}"),
    fam("azure", "azure_secret", "client_secret {m3}8Q~{m32}"),
    fam("beamer", "vendor_assignment", "beamer_token = b_{l44}"),
    fam(
        "bitbucket",
        "vendor_assignment",
        "bitbucket_client_secret: {l64}",
    ),
    fam("bittrex", "vendor_assignment", "bittrex_key={l32}"),
    fam("cisco", "vendor_assignment", "MERAKI_API_KEY={h40}"),
    fam("clickhouse", "vendor_token", "4b1d{m38}"),
    fam("clojars", "vendor_token", "CLOJARS_{l60}"),
    fam(
        "cloudflare",
        "vendor_assignment",
        "cloudflare_api_key = {l40}",
    ),
    fam("codecov", "vendor_assignment", "CODECOV_TOKEN={l32}"),
    fam("cohere", "vendor_assignment", "CO_API_KEY={m40}"),
    fam("coinbase", "vendor_assignment", "coinbase_token: {l64}"),
    fam("confluent", "vendor_assignment", "confluent_secret = {l64}"),
    fam("contentful", "vendor_assignment", "contentful_token: {l43}"),
    fam(
        "curl",
        "curl_user",
        "curl -u admin:{m16} https://example.invalid/api",
    ),
    fam("databricks", "vendor_token", "dapi{h32}"),
    fam("datadog", "vendor_assignment", "DATADOG_ACCESS_TOKEN={l40}"),
    fam("defined", "vendor_token", "dnkey-{l26}-{l52}"),
    fam("digitalocean", "vendor_token", "dop_v1_{h64}"),
    fam("discord", "vendor_assignment", "discord_token = {h64}"),
    fam("doppler", "vendor_token", "dp.pt.{m43}"),
    fam("droneci", "vendor_assignment", "droneci_token={l32}"),
    fam("dropbox", "vendor_assignment", "dropbox_api_token: {l15}"),
    fam("duffel", "vendor_token", "duffel_test_{m43}"),
    fam("dynatrace", "vendor_token", "dt0c01.{m24}.{m64}"),
    fam("easypost", "vendor_token", "EZAK{m54}"),
    fam("etsy", "vendor_assignment", "ETSY_TOKEN={l24}"),
    fam("facebook", "vendor_assignment", "facebook_secret = {h32}"),
    fam("fastly", "vendor_assignment", "FASTLY_API_TOKEN={l32}"),
    fam(
        "finicity",
        "vendor_assignment",
        "finicity_client_secret: {l20}",
    ),
    fam("finnhub", "vendor_assignment", "finnhub_token={l20}"),
    fam("flickr", "vendor_assignment", "flickr_key = {l32}"),
    fam("flutterwave", "vendor_token", "FLWSECK_TEST-{h32}-X"),
    fam("flyio", "vendor_token", "fo1_{m43}"),
    fam("frameio", "vendor_token", "fio-u-{m64}"),
    fam("freemius", "vendor_token", "'secret_key' => 'sk_{m29}'"),
    fam(
        "freshbooks",
        "vendor_assignment",
        "freshbooks_token = {l64}",
    ),
    fam("gcp", "google_api_key", "AIza{m35}"),
    fam("generic", "credential_assignment", "api_key = \"{m24}\""),
    fam("github", "github_token", "ghp_{m36}"),
    fam("gitlab", "gitlab_token", "glpat-{m20}"),
    fam("gitter", "vendor_assignment", "gitter_token: {l40}"),
    fam(
        "gocardless",
        "vendor_assignment",
        "gocardless_token = live_{l40}",
    ),
    fam("grafana", "vendor_token", "glsa_{m32}_{h8}"),
    fam("harness", "vendor_token", "pat.{m22}.{m24}.{m20}"),
    fam("hashicorp", "vendor_token", "{m14}.atlasv1.{m64}"),
    fam("heroku", "heroku_key", "HRKU-AA{m58}"),
    fam(
        "hubspot",
        "vendor_assignment",
        "hubspot_api_key = {H8}-{H4}-{H4}-{H4}-{H12}",
    ),
    fam("huggingface", "vendor_token", "hf_{A34}"),
    fam("infracost", "vendor_token", "ico-{m32}"),
    fam("intercom", "vendor_assignment", "intercom_token: {l60}"),
    fam("intra42", "vendor_token", "s-s4t2ud-{h64}"),
    fam("jfrog", "vendor_assignment", "jfrog_token = {l64}"),
    fam("jwt", "jwt", "eyJ{m20}.eyJ{m30}.{m20}"),
    fam("kraken", "vendor_assignment", "kraken_secret = {m84}"),
    fam(
        "kubernetes",
        "kubernetes_secret",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ndata:\n  db-url: {m40}\n  token: {m24}\n",
    ),
    fam("kucoin", "vendor_assignment", "kucoin_key = {h24}"),
    fam(
        "launchdarkly",
        "vendor_assignment",
        "LAUNCHDARKLY_SDK_KEY={l40}",
    ),
    fam("linear", "vendor_token", "lin_api_{m40}"),
    fam(
        "linkedin",
        "vendor_assignment",
        "linkedin_client_secret = {l16}",
    ),
    fam("lob", "vendor_assignment", "lob_api_key = test_{h35}"),
    fam("looker", "vendor_assignment", "looker_client_secret: {l24}"),
    fam("mailchimp", "vendor_token", "{h32}-us12"),
    fam(
        "mailgun",
        "vendor_assignment",
        "mailgun_api_key = key-{h32}",
    ),
    fam("mapbox", "vendor_token", "pk.{m60}.{m22}"),
    fam(
        "mattermost",
        "vendor_assignment",
        "mattermost_token = {l26}",
    ),
    fam("maxmind", "vendor_token", "{m6}_{m29}_mmk"),
    fam(
        "messagebird",
        "vendor_assignment",
        "messagebird_api_key: {l25}",
    ),
    fam(
        "microsoft",
        "vendor_token",
        "https://acme.webhook.office.com/webhookb2/{h8}-{h4}-{h4}-{h4}-{h12}@{h8}-{h4}-{h4}-{h4}-{h12}/IncomingWebhook/{h32}/{h8}-{h4}-{h4}-{h4}-{h12}",
    ),
    fam("netlify", "vendor_assignment", "NETLIFY_AUTH_TOKEN={l43}"),
    fam("new", "vendor_token", "NRAK-{U27}"),
    fam("notion", "vendor_token", "ntn_{d11}{m35}"),
    fam("npm", "npm_token", "npm_{m36}"),
    fam(
        "nuget",
        "nuget_password",
        "<add key=\"ClearTextPassword\" value=\"{m16}\" />",
    ),
    fam("nytimes", "vendor_assignment", "nytimes_api_key = {l32}"),
    fam("octopus", "vendor_token", "API-{U26}"),
    fam("okta", "vendor_assignment", "okta_token = 00{m40}"),
    fam("openai", "secret_api_key", "sk-proj-{m74}T3BlbkFJ{m74}"),
    fam("openshift", "vendor_token", "sha256~{m43}"),
    fam("perplexity", "vendor_token", "pplx-{m48}"),
    fam("plaid", "vendor_assignment", "plaid_secret = {l30}"),
    fam("planetscale", "vendor_token", "pscale_tkn_{m40}"),
    fam("postman", "vendor_token", "PMAK-{h24}-{h34}"),
    fam("prefect", "vendor_token", "pnu_{m36}"),
    fam(
        "private",
        "private_key_block",
        "-----BEGIN RSA PRIVATE KEY-----\n{m64}\n{m64}\n-----END RSA PRIVATE KEY-----",
    ),
    fam("privateai", "vendor_assignment", "private_ai_key = {l32}"),
    fam("pulumi", "vendor_token", "pul-{h40}"),
    fam("pypi", "pypi_token", "pypi-AgEIcHlwaS5vcmc{m60}"),
    fam("rapidapi", "vendor_assignment", "rapidapi_key = {l50}"),
    fam("readme", "vendor_token", "rdme_{l70}"),
    fam("rubygems", "vendor_token", "rubygems_{h48}"),
    fam("scalingo", "vendor_token", "tk-us-{m48}"),
    fam("sendbird", "vendor_assignment", "sendbird_token = {h40}"),
    fam("sendgrid", "sendgrid_key", "SG.{m22}.{m43}"),
    fam("sendinblue", "vendor_token", "xkeysib-{h64}-{m16}"),
    fam("sentry", "vendor_token", "sntryu_{h64}"),
    fam("settlemint", "vendor_token", "sm_pat_{m16}"),
    fam("shippo", "vendor_token", "shippo_live_{h40}"),
    fam("shopify", "vendor_token", "shpat_{h32}"),
    fam(
        "sidekiq",
        "vendor_assignment",
        "BUNDLE_GEMS__CONTRIBSYS__COM={h8}:{h8}",
    ),
    fam(
        "slack",
        "slack_token",
        "https://hooks.slack.com/services/{m44}",
    ),
    fam(
        "snyk",
        "vendor_assignment",
        "SNYK_TOKEN={h8}-{h4}-{h4}-{h4}-{h12}",
    ),
    fam("sonar", "vendor_assignment", "sonar.token = {l40}"),
    fam("sourcegraph", "vendor_token", "sgp_{h16}_{h40}"),
    fam("square", "vendor_token", "sq0atp-{m22}"),
    fam(
        "squarespace",
        "vendor_assignment",
        "squarespace_token = {h8}-{h4}-{h4}-{h4}-{h12}",
    ),
    fam("stripe", "secret_api_key", "sk_test_{m24}"),
    fam("sumologic", "vendor_assignment", "SUMO_ACCESS_KEY={m64}"),
    fam(
        "telegram",
        "vendor_assignment",
        "telegram_bot_token = {d10}:A{m34}",
    ),
    fam("travisci", "vendor_assignment", "travis_token = {l22}"),
    fam("twilio", "twilio_key", "SK{h32}"),
    fam("twitch", "vendor_assignment", "twitch_api_token = {l30}"),
    fam("twitter", "vendor_assignment", "twitter_api_secret = {l50}"),
    fam("typeform", "vendor_token", "tfp_{m59}"),
    fam("vault", "vendor_token", "hvs.{m100}"),
    fam("yandex", "vendor_token", "AQVN{m36}"),
    fam("zendesk", "vendor_assignment", "zendesk_secret = {l40}"),
];

/// Expands a [`FamilyExample::example`] template: `{cN}` becomes N
/// characters of class `c` (`l` lowercase letters and digits, `m` mixed
/// case letters and digits, `U` uppercase letters and digits, `A` letters,
/// `h`/`H` lower/upper hex, `d` digits, `G` bech32), drawn from a fixed
/// generator seeded with `seed`, so every example is fake and repeatable.
/// Returns the text and the generated runs (the parts that are secret).
pub fn expand_example(template: &str, seed: u64) -> (String, Vec<String>) {
    let mut state = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    let mut out = String::new();
    let mut runs = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| c + open) else {
            break;
        };
        out.push_str(&rest[..open]);
        let spec = &rest[open + 1..close];
        let mut chars = spec.chars();
        let class = chars.next().unwrap_or('m');
        let n: usize = chars.as_str().parse().unwrap_or(0);
        let alphabet: &[u8] = match class {
            'l' => b"abcdefghijklmnopqrstuvwxyz0123456789",
            'U' => b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
            'A' => b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
            'h' => b"0123456789abcdef",
            'H' => b"0123456789ABCDEF",
            'd' => b"0123456789",
            'G' => b"QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
            _ => b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        };
        let mut run = String::with_capacity(n);
        for _ in 0..n {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let i = usize::try_from(state >> 33).unwrap_or(0) % alphabet.len();
            run.push(char::from(alphabet.get(i).copied().unwrap_or(b'x')));
        }
        out.push_str(&run);
        runs.push(run);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    (out, runs)
}
