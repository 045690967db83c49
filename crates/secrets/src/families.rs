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
//! `npm_...`) match anywhere a word starts (`\b`); those whose prefix is
//! distinctive (`ghp_`, `github_pat_`, `glpat-`, `xoxb-`, `AKIA...`,
//! `sk-ant-`...) are written `\g` instead of `\b`, the scanner's own mark
//! for "whatever precedes": a token glued to a word (`xghp_...`,
//! `tok_ghp_...`) is still found. A short or generic prefix (`sk-`,
//! `npm_`, `hf_`, `eyJ`) keeps `\b`, since it occurs inside ordinary words
//! (`task-...`, `pnpm_...`); the scanner's tests check that no `\g` finds
//! anything on the repository's fixtures that its `\b` form does not; gitleaks' keyword-context rules (a vendor
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
    /// Group 1 must be base64 of a `user:password` pair (a Basic auth
    /// header's credentials, not "Basic TypeScript"), or a random run of
    /// 16 or more characters with a digit.
    UserPass,
}

/// The patterns of a shape, each keyed on its keywords: ASCII literals of
/// which every match of the pattern contains at least one, in any case
/// when the keyword is written in lower case, in the case written when it
/// has an upper-case letter (its pattern matches that case only, as
/// `env_credential`'s `TOKEN`: the common word "token" then runs
/// nothing). The scanner runs a pattern only on a text where one of its
/// keywords occurs, and only around the occurrences (see `window`), and
/// compiles it the first time that happens, as gitleaks keys each rule on
/// its keywords.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Form {
    /// One pattern and its keywords.
    One(&'static str, &'static [&'static str]),
    /// Alternatives of one shape, compiled and run apart: pattern and
    /// keywords.
    Any(&'static [(&'static str, &'static [&'static str])]),
    /// Vendor assignments (a vendor's word followed by an assignment of a
    /// value, group 1; see [`assignment`]): the keyword, the word (a regex
    /// whose every match contains the keyword) and the value's regex.
    Assign(&'static [(&'static str, &'static str, &'static str)]),
}

/// A built-in credential shape.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    /// Stable id (a finding's kind).
    pub(crate) id: &'static str,
    /// Description.
    pub(crate) label: &'static str,
    /// The patterns and their keywords.
    pub(crate) form: Form,
    /// How a match is confirmed.
    pub(crate) check: Check,
}

const fn shape(id: &'static str, label: &'static str, form: Form, check: Check) -> Shape {
    Shape {
        id,
        label,
        form,
        check,
    }
}

/// A vendor keyword followed by an assignment of a value (group 1):
/// gitleaks' keyword-context rules (`word`, then up to 20 name
/// characters, an assignment operator, the value).
pub(crate) fn assignment(word: &str, value: &str) -> String {
    format!(r#"(?i)(?:{word})[\w.-]{{0,20}}["'`]?[ \t]*(?:=|:=|:|=>|,)[ \t]*\\?["'`]?({value})"#)
}

/// The value of a generic vendor assignment.
const VENDOR_VALUE: &str = r"[A-Za-z0-9_=+/.%~|:-]{12,}";

/// A generic vendor assignment: the word is its own keyword.
macro_rules! vendors {
    ($($w:literal),* $(,)?) => {
        &[$(($w, $w, VENDOR_VALUE)),*]
    };
}

/// Built-in value shapes, in the order a finding names them.
pub(crate) const SHAPES: &[Shape] = &[
    shape(
        "cloud_access_key_id",
        "a cloud access key id",
        Form::One(
            r"\g(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b|\gABSK[A-Za-z0-9+/]{109,}={0,2}|\gbedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=]*",
            &[
                "A3T",
                "AKIA",
                "ASIA",
                "ABIA",
                "ACCA",
                "ABSK",
                "bedrock-api-key-",
            ],
        ),
        Check::Always,
    ),
    shape(
        "aws_secret_access_key",
        "an AWS secret access key",
        Form::One(
            r#"(?i)(?:aws_?secret_?access_?key|aws_?secret_?key|secretaccesskey)["'`]?[ \t]*(?:=|:|=>|[ \t])[ \t]*["'`]?([A-Za-z0-9/+]{40})|\g(?:AKIA|ASIA)[A-Z0-9]{16}["'`]?[\s,;:=|]{1,10}["'`]?([A-Za-z0-9/+]{40})\b"#,
            &["aws", "secretaccesskey", "akia", "asia"],
        ),
        Check::Always,
    ),
    shape(
        "private_key_block",
        "a PEM private key block",
        Form::One(
            r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:(?s:.*?)-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,.-]*)",
            &["private key"],
        ),
        Check::Always,
    ),
    shape(
        "gcp_private_key_id",
        "a service account private key id",
        Form::One(
            r#"\\?"private_key_id\\?"\s*:\s*\\?"([A-Za-z0-9]{16,})"#,
            &["private_key_id"],
        ),
        Check::Always,
    ),
    shape(
        "bearer_token",
        "a bearer token",
        Form::One(
            r#"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{12,}=*|(?i)authorization:?\s*["']?(?:token|api-token)\s+[A-Za-z0-9._~+/-]{12,}=*"#,
            &["bearer", "authorization"],
        ),
        Check::HasDigit,
    ),
    shape(
        "basic_auth",
        "a Basic auth header",
        Form::One(r"(?i)\bbasic\s+([A-Za-z0-9+/]{6,}={0,2})", &["basic"]),
        Check::UserPass,
    ),
    shape(
        "curl_user",
        "a curl user and password",
        Form::One(
            r#"\bcurl\b[^\n]*?\s(?:-u|--user)(?:=|[ \t]+)["']?([^\s"':$][^\s"':]*:[^\s"'$<{\[][^\s"']{2,})"#,
            &["curl"],
        ),
        Check::Always,
    ),
    shape(
        "jwt",
        "a JWT",
        Form::One(
            r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*|\bZXlK[A-Za-z0-9/_+-]{40,}={0,2}",
            &["eyJ", "ZXlK"],
        ),
        Check::Always,
    ),
    shape(
        "github_token",
        "a GitHub token",
        Form::One(
            r"\g(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})",
            &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        ),
        Check::Always,
    ),
    shape(
        "gitlab_token",
        "a GitLab token",
        Form::One(
            r"\ggl(?:pat|dt|ffct|ft|imt|agent|oas|ptt|rt|soat|cbt)-[0-9A-Za-z_.-]{20,}|\gGR1348941[\w-]{20,}|_gitlab_session=[0-9a-z]{32}",
            &[
                "glpat-",
                "gldt-",
                "glffct-",
                "glft-",
                "glimt-",
                "glagent-",
                "gloas-",
                "glptt-",
                "glrt-",
                "glsoat-",
                "glcbt-",
                "gr1348941",
                "_gitlab_session=",
            ],
        ),
        Check::Always,
    ),
    shape(
        "slack_token",
        "a Slack token or webhook",
        Form::One(
            r"\gxox[a-z](?:\.xox[a-z])?-[A-Za-z0-9.-]{10,}|\gxapp-[0-9]-[A-Za-z0-9-]{10,}|hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{20,}",
            &["xox", "xapp-", "hooks.slack.com/"],
        ),
        Check::Always,
    ),
    shape(
        "google_api_key",
        "a Google API key",
        Form::One(r"\gAIza[0-9A-Za-z_-]{35}", &["aiza"]),
        Check::Always,
    ),
    shape(
        "secret_api_key",
        "a secret API key",
        Form::One(
            r"\gsk-(?:proj|ant|svcacct|admin)-[A-Za-z0-9_-]{20,}|\b(?:sk-[A-Za-z0-9_-]{20,}|[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,})",
            &["sk-", "k_live_", "k_test_", "k_prod_"],
        ),
        Check::Always,
    ),
    shape(
        "azure_secret",
        "an Azure key or client secret",
        Form::One(
            r"(?i)\b(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{20,}={0,2})|(?:^|[^A-Za-z0-9_~.])([A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})",
            &["accountkey=", "sharedaccesskey=", "q~"],
        ),
        Check::Always,
    ),
    shape(
        "npm_token",
        "an npm token",
        Form::One(r"(?i)\bnpm_[a-z0-9]{36}", &["npm_"]),
        Check::Always,
    ),
    shape(
        "pypi_token",
        "a PyPI token",
        Form::One(r"\gpypi-AgEIcHlwaS5vcmc[\w-]{50,}", &["pypi-"]),
        Check::Always,
    ),
    shape(
        "twilio_key",
        "a Twilio API key",
        Form::One(r"\bSK[0-9a-fA-F]{32}\b", &["SK"]),
        Check::Always,
    ),
    shape(
        "sendgrid_key",
        "a SendGrid API key",
        Form::One(r"\bSG\.[A-Za-z0-9_=-]{16,}\.[A-Za-z0-9_=-]{16,}", &["sg."]),
        Check::Always,
    ),
    shape(
        "heroku_key",
        "a Heroku API key",
        Form::One(r"\gHRKU-[0-9A-Za-z_-]{30,}", &["hrku-"]),
        Check::Always,
    ),
    shape(
        "docker_auth",
        "a Docker registry auth",
        Form::One(
            r#"\\?"auth\\?"\s*:\s*\\?"([A-Za-z0-9+/]{8,}={0,2})"#,
            &["\"auth"],
        ),
        Check::Always,
    ),
    shape(
        "kubernetes_secret",
        "Kubernetes secret data",
        Form::One(
            r#"(?is)\bkind:[ \t]*["']?secret\b.*?\b(?:data|stringData):((?:[ \t]*\n[ \t]+[\w.-]+:[ \t]*[^\n]*)+)|(?is)\b(?:data|stringData):((?:[ \t]*\n[ \t]+[\w.-]+:[ \t]*[^\n]*)+).*?\bkind:[ \t]*["']?secret\b"#,
            &["kind:"],
        ),
        Check::Always,
    ),
    shape(
        "nuget_password",
        "a NuGet config password",
        Form::One(
            r#"(?i)<add key=\\?"(?:ClearText)?Password\\?"\s*value=\\?"([^"\\]{8,})"#,
            &["<add key="],
        ),
        Check::Always,
    ),
    shape(
        "vendor_token",
        "a vendor token",
        Form::Any(&[
            (
                r"\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b",
                &["a3-"],
            ),
            (r"\gops_eyJ[A-Za-z0-9+/]{250,}={0,3}", &["ops_eyj"]),
            (
                r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
                &["age-secret-key-1"],
            ),
            (r"\gp8e-[A-Za-z0-9]{32}", &["p8e-"]),
            (r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}", &["pat"]),
            (r"\bLTAI[A-Za-z0-9]{20}", &["ltai"]),
            (r"\bAKCp[A-Za-z0-9]{69}", &["akcp"]),
            (r"\bcmVmd[A-Za-z0-9]{59}", &["cmvmd"]),
            (
                r"\b(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}",
                &[".acc_", ".acc-"],
            ),
            (r"\b4b1d[A-Za-z0-9]{38}\b", &["4b1d"]),
            (r"(?i:\gCLOJARS_[a-z0-9]{60})", &["clojars_"]),
            (r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}", &["v1.0-"]),
            (r"\bdapi[a-f0-9]{32}(?:-[0-9])?", &["dapi"]),
            (r"\gdo[opr]_v1_[a-f0-9]{64}", &["_v1_"]),
            (
                r"\gdnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}",
                &["dnkey-"],
            ),
            (r"\gdp\.pt\.[A-Za-z0-9]{43}", &["dp.pt."]),
            (r"\gduffel_(?:test|live)_[A-Za-z0-9_=-]{43}", &["duffel_"]),
            (r"\gdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}", &["dt0c01."]),
            (r"\bEZ[AT]K[A-Za-z0-9]{54}", &["ezak", "eztk"]),
            (r"\bEAA[MC][A-Za-z0-9]{100,}", &["eaam", "eaac"]),
            (
                r"\gFLW(?:SECK|PUBK)_TEST-[A-Za-z0-9]{12,}(?:-X)?",
                &["_test-"],
            ),
            (
                r"\b(?:fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3})",
                &["fo1_", "fm1", "fm2"],
            ),
            (r"\gfio-u-[A-Za-z0-9_=-]{64}", &["fio-u-"]),
            (
                r#"(?i:\\?["']secret_key\\?["']\s*=>\s*\\?["']sk_[^\s"'\\]{29})"#,
                &["secret_key"],
            ),
            (r"\geyJrIjoi[A-Za-z0-9]{70,}={0,3}", &["eyjrijoi"]),
            (r"\gglc_[A-Za-z0-9+/]{32,}={0,3}", &["glc_"]),
            (r"\gglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}", &["glsa_"]),
            (
                r"\b(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}",
                &["pat.", "sat."],
            ),
            (
                r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}",
                &[".atlasv1."],
            ),
            (r"\b(?:hf_|api_org_)[A-Za-z]{34}\b", &["hf_", "api_org_"]),
            (r"\bico-[A-Za-z0-9]{32}", &["ico-"]),
            (r"\gs-s4t2(?:ud|af)-[a-fA-F0-9]{64}", &["s-s4t2"]),
            (r"\glin_api_[A-Za-z0-9]{40}", &["lin_api_"]),
            (r"\b[a-f0-9]{32}-us[0-9]{1,2}\b", &["-us"]),
            (
                r"\b[ps]k\.[A-Za-z0-9]{60,}\.[A-Za-z0-9_-]{22,}",
                &["pk.", "sk."],
            ),
            (r"\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b", &["_mmk"]),
            (
                r#"(?i:https://[a-z0-9-]+\.webhook\.office\.com/webhookb2/[^\s\x22'<>]+)"#,
                &[".webhook.office.com/webhookb2/"],
            ),
            (
                r"\gNR(?:JS|II|AK)-[A-Za-z0-9-]{19,}",
                &["nrjs-", "nrii-", "nrak-"],
            ),
            (r"\bntn_[0-9]{11}[A-Za-z0-9]{35}", &["ntn_"]),
            (r"\bAPI-[A-Z0-9]{26}\b", &["api-"]),
            (r"\gsha256~[A-Za-z0-9_-]{43}", &["sha256~"]),
            (r"\gpplx-[A-Za-z0-9]{48}", &["pplx-"]),
            (
                r"\gpscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}",
                &["pscale_"],
            ),
            (r"\gPMAK-[A-Fa-f0-9]{24}-[A-Fa-f0-9]{34}", &["pmak-"]),
            (r"\bpnu_[A-Za-z0-9]{36}", &["pnu_"]),
            (r"\bpul-[a-f0-9]{40}", &["pul-"]),
            (r"\grdme_[a-z0-9]{70}", &["rdme_"]),
            (r"\grubygems_[a-f0-9]{48}", &["rubygems_"]),
            (r"\gtk-us-[A-Za-z0-9_-]{48}", &["tk-us-"]),
            (r"\gxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}", &["xkeysib-"]),
            (r"\gsntry[us]_[A-Za-z0-9+/=_]{40,}", &["sntry"]),
            (r"\bsm_[aps]at_[A-Za-z0-9]{16}", &["sm_"]),
            (r"\gshippo_(?:live|test)_[a-fA-F0-9]{40}", &["shippo_"]),
            (
                r"\gshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
                &["shpat_", "shpca_", "shppa_", "shpss_"],
            ),
            (r"\bsq[upa]_[a-f0-9]{40}", &["squ_", "sqp_", "sqa_"]),
            (
                r"\bsgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}",
                &["sgp_"],
            ),
            (
                r"\b(?:EAAA|sq0atp-|sq0csp-)[A-Za-z0-9_-]{22,60}",
                &["eaaa", "sq0atp-", "sq0csp-"],
            ),
            (r"\btfp_[A-Za-z0-9_.=-]{59}", &["tfp_"]),
            (r"\bhv[sb]\.[A-Za-z0-9_-]{90,}", &["hvs.", "hvb."]),
            (r"\bAQVN[A-Za-z0-9_-]{35,38}", &["aqvn"]),
        ]),
        Check::Always,
    ),
    shape(
        "vendor_assignment",
        "a vendor credential assignment",
        Form::Assign(&[
            ("linked", "linked[_-]?in", VENDOR_VALUE),
            ("message", "message[_-]?bird", VENDOR_VALUE),
            ("relic", "new[_-]?relic", VENDOR_VALUE),
            ("private", "private[_-]?ai", VENDOR_VALUE),
            ("telegr", "telegr", r"[0-9]{5,16}:A[A-Za-z0-9_-]{34}"),
            ("lob", "lob", r"(?:live|test)_(?:pub_)?[a-f0-9]{31,}"),
        ]),
        Check::SecretLike,
    ),
    shape(
        "vendor_assignment",
        "a vendor credential assignment",
        Form::Assign(vendors![
            "adafruit",
            "adobe",
            "airtable",
            "algolia",
            "alibaba",
            "asana",
            "atlassian",
            "confluence",
            "confluent",
            "jira",
            "beamer",
            "bitbucket",
            "bittrex",
            "meraki",
            "cloudflare",
            "codecov",
            "cohere",
            "co_api_key",
            "coinbase",
            "contentful",
            "datadog",
            "dnkey",
            "discord",
            "droneci",
            "dropbox",
            "etsy",
            "facebook",
            "fastly",
            "finicity",
            "finnhub",
            "flickr",
            "freshbooks",
            "gitter",
            "gocardless",
            "heroku",
            "hubspot",
            "intercom",
            "jfrog",
            "artifactory",
            "bintray",
            "xray",
            "kraken",
            "kucoin",
            "launchdarkly",
            "linear",
            "looker",
            "mailchimp",
            "mailgun",
            "mapbox",
            "mattermost",
            "netlify",
            "nytimes",
            "new-york-times",
            "newyorktimes",
            "okta",
            "plaid",
            "rapidapi",
            "sendbird",
            "sentry",
            "snyk",
            "sonar",
            "squarespace",
            "sumo",
            "travis",
            "twitch",
            "twitter",
            "typeform",
            "yandex",
            "zendesk",
            "contribsys__com",
        ]),
        Check::SecretLike,
    ),
    shape(
        "url_credentials",
        "a URL with a password",
        Form::One(
            r"\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:[^/\s:@$<{*][^/\s@]*@",
            &["://"],
        ),
        Check::Always,
    ),
    shape(
        "env_credential",
        "a credential environment variable",
        Form::One(
            r#"\b[A-Z0-9_]*(?:PASS|PASSWORD|PASSWD|SECRET|TOKEN|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?|AUTH)[ \t]*=[ \t]*\\?["']?([^\s"'$<{*\[\\][^\s"',;\\]{3,})"#,
            &[
                "PASS",
                "SECRET",
                "TOKEN",
                "API_KEY",
                "APIKEY",
                "ACCESS_KEY",
                "PRIVATE_KEY",
                "CREDENTIAL",
                "AUTH",
            ],
        ),
        Check::SecretLike,
    ),
    shape(
        "credential_assignment",
        "a credential assignment",
        Form::One(
            r#"(?i)(?:password|passwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|private[_-]?key)["']?\s*[=:]\s*\\?["']?([^\s"'$<{*\[\\][^\s"',;\\]{5,})"#,
            &[
                "passw",
                "secret",
                "api_key",
                "api-key",
                "apikey",
                "access_token",
                "access-token",
                "accesstoken",
                "auth_token",
                "auth-token",
                "authtoken",
                "private_key",
                "private-key",
                "privatekey",
            ],
        ),
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
