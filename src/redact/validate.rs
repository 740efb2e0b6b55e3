//! Validators and the entropy floor: cheap checks that run on a confirmed regex match
//! (the secret span) before it becomes a finding.
//!
//! Semantics: a validator **filters**. A candidate whose secret fails its rule's validator is
//! dropped. That is what makes `luhn`, `iban` and `ssn` usable at all (a bare `\d{16}` is mostly
//! not a card). For `github_crc32` filtering means "only tokens GitHub could have issued": use it
//! in a rule that must be high-confidence (e.g. a `pre_llm_call` block). The shipped redaction
//! pack does *not* put it on its GitHub rules, because test tokens, truncated copies and
//! hand-made fixtures fail the checksum and a redactor should still remove them.

use super::national::{date_ok, luhn_digits_ok, IdScheme};
use aho_corasick::AhoCorasick;
use std::sync::LazyLock;

/// A structural check on the secret text of a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Validator {
    /// Payment card: 12–19 digits (spaces, dashes, `+` ignored) with a valid Luhn check digit.
    Luhn,
    /// IBAN: ISO 13616 — 2 letters, 2 check digits, 11–30 alphanumerics; mod-97 == 1.
    Iban,
    /// US SSN: 9 digits; area not 000, 666 or 9xx; group not 00; serial not 0000.
    Ssn,
    /// A national identifier told by its shape, with its own check: Canadian SIN (9 digits,
    /// Luhn, not starting 0 or 8), Brazilian CPF (11 digits, two mod-11 check digits, not one
    /// repeated digit), UK National Insurance number (2 letters of the allowed prefixes, 6
    /// digits, A–D), Spanish DNI / NIE (8 digits, or X / Y / Z and 7, then the mod-23 control
    /// letter), Indian Aadhaar (12 digits, not starting 0 or 1, Verhoeff), French NIR (13
    /// characters, `2A` / `2B` for Corsica, then the 97 key).
    NationalId,
    /// Dutch citizen service number (BSN): 9 digits passing the 11-test, not all zeros.
    Bsn,
    /// A national identity, tax or licence number of one issuing scheme (`pesel`, `hetu`,
    /// `codice_fiscale`, …): its shape, encoded date and check (see [`IdScheme`]).
    Scheme(IdScheme),
    /// GitHub `gh?_` / `github_pat_` style token: the last 6 characters are the base62
    /// (`0-9A-Za-z`, zero-padded) CRC-32 (IEEE) of the 30 random characters between the
    /// `prefix_` and the checksum (the prefix itself is **not** covered).
    GithubCrc32,
    /// JWT / JWS compact form: three base64url parts (third may be empty), the header
    /// decodes to a JSON object that has an `"alg"` member.
    Jwt,
    /// Value of a generic credential assignment (`password = …`, `*_secret: …`): rejected if
    /// it is a look-alike — a placeholder (`${VAR}`, `<your-key>`, `{{ … }}`, `XXXX`, `****`,
    /// `changeme`, `example`, `insert_key_here`, `sk-...`), a URL, a path or file name, a code
    /// expression (`X25519.secret_length`, `get_token(user)`, `os.environ[…]`), an
    /// identifier (`user_password_hash`, `tokenCount`), a bare word or small number, or text
    /// of very low entropy. Quoted pass-phrases with spaces pass.
    SecretValue,
    /// [`SecretValue`](Validator::SecretValue) and random-looking: at least 16 characters, at
    /// least two of lower / upper / digit, entropy ≥ 3.3 bits per character. For key names
    /// that are only weakly credential-like (`*_key`, `*_id`-free `key =`).
    HighEntropy,
    /// Base64 (standard or URL-safe) whose decoded text holds a JWT (`eyJ…` header that
    /// decodes to a JSON object, and a payload part) — a token wrapped once more.
    JwtBase64,
    /// Base64 (standard or URL-safe) of a JSON object with a credential-named member
    /// (`password`, `*_secret`, `token`, `auth`, `api_key`, …, at any depth) holding a string
    /// of four or more characters: a Docker `config.json` / `.dockerconfigjson`, a database
    /// credential blob printed with `| base64` — credentials wrapped once.
    JsonBase64,
    /// A vendor-style prefixed token (`apify_api_…`, `tgp_v1_…`, `llx-…`): after one to
    /// three lower-case prefix words, each ending in `_`, `-`, `.` or `~`, a random body —
    /// at least 28 letters and digits, upper case, lower case and at least two digits, not
    /// shaped like a camelCase identifier (`test_MyComponentRenders2Items`), entropy ≥ 3.3
    /// bits per character — and no hash-name prefix (`sha512-`, `md5_`) nor a prefix word
    /// that says public or id (`sb_publishable_`, `client-`, `sq0idp-`).
    PrefixedToken,
    /// A token after a vendor prefix the rule's regex fixes (`AIK_SECRET_…`, `BSA…`,
    /// `bkua_…`). The prefix (its leading words of one case or of up to three characters,
    /// each ending in `_`, `-`, `.` or `:`, within the first 25 bytes) is set aside; the body
    /// must look random: at least 16 letters and digits, entropy ≥ 3 bits per character, and
    /// either digits interleaved with letters (two or more digits, four or more letter/digit
    /// changes) or random mixed case (three or more of each case, not camelCase, the case
    /// changing at least every third letter). `BSA_CONFIG_FILE_PATH`,
    /// `rnd_generatorWithSeedAndCount` and `pina_AAAAAAAAAAAAAAAAAAAAAAAAAAAA` fail.
    RandomToken,
    /// A table whose header names a credential column (`api_key`, `refresh_token`, a
    /// `value` beside a credential-named `name`): the rule's regex finds header cells, and
    /// each cell below is judged ([`table_cell_ok`]: eight or more ASCII characters, no
    /// blank, no lower-case path, and [`SecretValue`](Validator::SecretValue)). See
    /// `table.rs`.
    TableColumns,
    /// Like [`TableColumns`](Validator::TableColumns) for date-of-birth columns (`dob`,
    /// `date_of_birth`, `Birthday`): each cell below must be a date ([`birth_date_cell_ok`]).
    TableBirthDates,
    /// A secret written as two or three quoted literals joined in code (`"b27f…" +\n "8678…"`,
    /// `'…' || '…'`, `("…" "…")`): the literals' contents, joined, must pass
    /// [`HighEntropy`](Validator::HighEntropy) and [`RandomToken`](Validator::RandomToken)
    /// ([`joined_literals_ok`]); the key name before is checked too.
    JoinedLiterals,
    /// Like [`TableColumns`](Validator::TableColumns) for columns of personal id numbers
    /// (`ssn`, `passport_number`, `tax_id`, `ni_number`, `national_id`, `nhs_number`):
    /// each cell below must read as an id number ([`id_number_cell_ok`]).
    TableIdNumbers,
}

impl Validator {
    /// Parse the policy-language spelling (`luhn`, `iban`, `ssn`, `github_crc32`, `jwt`).
    pub fn from_name(name: &str) -> Option<Validator> {
        Some(match name {
            "luhn" => Validator::Luhn,
            "iban" => Validator::Iban,
            "ssn" => Validator::Ssn,
            "national_id" => Validator::NationalId,
            "bsn" => Validator::Bsn,
            "github_crc32" | "github" | "crc32" => Validator::GithubCrc32,
            "jwt" => Validator::Jwt,
            "secret_value" => Validator::SecretValue,
            "high_entropy" => Validator::HighEntropy,
            "jwt_base64" => Validator::JwtBase64,
            "json_base64" => Validator::JsonBase64,
            "prefixed_token" => Validator::PrefixedToken,
            "random_token" => Validator::RandomToken,
            "table_columns" => Validator::TableColumns,
            "table_birth_dates" => Validator::TableBirthDates,
            "table_id_numbers" => Validator::TableIdNumbers,
            "joined_literals" => Validator::JoinedLiterals,
            _ => return IdScheme::from_name(name).map(Validator::Scheme),
        })
    }

    /// The name policies use (`validate luhn`).
    pub fn name(self) -> &'static str {
        match self {
            Validator::Luhn => "luhn",
            Validator::Iban => "iban",
            Validator::Ssn => "ssn",
            Validator::NationalId => "national_id",
            Validator::Bsn => "bsn",
            Validator::Scheme(scheme) => scheme.name(),
            Validator::GithubCrc32 => "github_crc32",
            Validator::Jwt => "jwt",
            Validator::SecretValue => "secret_value",
            Validator::HighEntropy => "high_entropy",
            Validator::JwtBase64 => "jwt_base64",
            Validator::JsonBase64 => "json_base64",
            Validator::PrefixedToken => "prefixed_token",
            Validator::RandomToken => "random_token",
            Validator::TableColumns => "table_columns",
            Validator::TableBirthDates => "table_birth_dates",
            Validator::TableIdNumbers => "table_id_numbers",
            Validator::JoinedLiterals => "joined_literals",
        }
    }

    /// True for the validators of generic assignments, which also look at the key name
    /// before the value ([`key_name_ok`]).
    pub fn checks_key_name(self) -> bool {
        matches!(
            self,
            Validator::SecretValue | Validator::HighEntropy | Validator::JoinedLiterals
        )
    }

    /// True for checksum validators (`luhn`, `iban`, `ssn`, `national_id`, `bsn`, a scheme
    /// with a check digit, `github_crc32`): a match that passes is self-certifying, one that
    /// fails is a look-alike.
    pub fn is_checksum(self) -> bool {
        matches!(
            self,
            Validator::Luhn
                | Validator::Iban
                | Validator::Ssn
                | Validator::NationalId
                | Validator::Bsn
                | Validator::GithubCrc32
        ) || matches!(self, Validator::Scheme(scheme) if scheme.has_check())
    }

    /// True for the structured numbers (`luhn`, `iban`, `ssn`) whose failed check vetoes the
    /// match's digits for every unchecked rule too (an IBAN with a wrong check is no phone
    /// number).
    pub fn vetoes_on_failure(self) -> bool {
        matches!(self, Validator::Luhn | Validator::Iban | Validator::Ssn)
    }

    /// True if `s` passes the format check.
    pub fn check(self, s: &[u8]) -> bool {
        match self {
            Validator::Luhn => luhn_ok(s),
            Validator::Iban => iban_ok(s),
            Validator::Ssn => ssn_ok(s),
            Validator::NationalId => national_id_ok(s),
            Validator::Bsn => bsn_ok(s),
            Validator::Scheme(scheme) => scheme.check(s),
            Validator::GithubCrc32 => github_crc32_ok(s),
            Validator::Jwt => jwt_ok(s),
            Validator::SecretValue => secret_value_ok(s),
            Validator::HighEntropy => high_entropy_ok(s),
            Validator::JwtBase64 => jwt_base64_ok(s),
            Validator::JsonBase64 => json_base64_ok(s),
            Validator::PrefixedToken => prefixed_token_ok(s),
            Validator::RandomToken => random_token_ok(s),
            Validator::TableColumns => table_cell_ok(s),
            Validator::TableBirthDates => birth_date_cell_ok(s),
            Validator::TableIdNumbers => id_number_cell_ok(s),
            Validator::JoinedLiterals => joined_literals_ok(s),
        }
    }
}

const PLACEHOLDER_WORDS: &[&str] = &[
    "example",
    "changeme",
    "change_me",
    "change-me",
    "placeholder",
    "your_",
    "your-",
    "yourkey",
    "yourtoken",
    "yoursecret",
    "yourpassword",
    "insert",
    "replace",
    "dummy",
    "redacted",
    "xxxx",
    "todo",
    "fixme",
    "${",
    "{{",
    "$(",
    "...",
    "…",
];
const BARE_WORDS: &[&str] = &[
    "password",
    "passwd",
    "secret",
    "token",
    "none",
    "null",
    "nil",
    "true",
    "false",
    "undefined",
    "string",
    "str",
    "int",
    "bool",
    "test",
    "testing",
    "required",
    "optional",
    "empty",
    "hidden",
    "masked",
    "default",
    "value",
    "bearer",
    "basic",
    "public",
    "private",
    "sample",
    "admin",
];
const FILE_EXT: &[&str] = &[
    "cer",
    "crt",
    "pem",
    "key",
    "json",
    "yaml",
    "yml",
    "txt",
    "p12",
    "pfx",
    "jks",
    "der",
    "csr",
    "pub",
    "env",
    "cfg",
    "conf",
    "ini",
    "xml",
    "properties",
    "toml",
    "log",
    "gpg",
    "asc",
    "keystore",
    "py",
    "js",
    "ts",
    "rb",
    "go",
    "rs",
    "java",
    "sh",
    "php",
];

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// See [`Validator::TableColumns`]: one cell of a credential column.
pub fn table_cell_ok(s: &[u8]) -> bool {
    // at least eight characters, ASCII (a tokenizer's `▁Hello` is no secret), and no
    // lower-case path (`projects/p/secrets/oidc/versions/3` names a secret, it is none)
    let path =
        s.iter().filter(|&&b| b == b'/').count() >= 2 && !s.iter().any(u8::is_ascii_uppercase);
    s.len() >= 8
        && s.is_ascii()
        && !path
        && !s.iter().any(u8::is_ascii_whitespace)
        && secret_value_ok(s)
}

/// See [`Validator::TableIdNumbers`]: one cell of an id-number column, 5 to 24 ASCII
/// letters, digits, blanks, `-`, `.` or `/`, at least four of them digits and at least a
/// third of its letters and digits, no lower-case word (`536-22-7194`, `536227194`,
/// `PM300476B`, `X47182953`, `943 476 5919`, a CURP, a UK licence `MORGA753116SM9IJ`; not
/// `see note 4521`), no decimal amount (`1234.50`), and no placeholder:
/// no mask (`XXX-XX-1234`, `***`), no one digit repeated (`000-00-0000`) nor counting
/// digits (`123456789`: see [`looks_placeholder`]).
pub fn id_number_cell_ok(s: &[u8]) -> bool {
    let digits = s.iter().filter(|b| b.is_ascii_digit()).count();
    let alnum = s.iter().filter(|b| b.is_ascii_alphanumeric()).count();
    let amount = s.iter().filter(|&&b| b == b'.').count() == 1
        && s.iter().all(|&b| b.is_ascii_digit() || b == b'.');
    let mut ds = s.iter().filter(|b| b.is_ascii_digit());
    let first = ds.next();
    let one_digit = ds.all(|d| Some(d) == first);
    let masked = s
        .windows(3)
        .any(|w| w.iter().all(|&b| matches!(b, b'X' | b'x' | b'*' | b'#')));
    (5..=24).contains(&s.len())
        && s.iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b' ' | b'-' | b'.' | b'/'))
        && digits >= 4
        && digits * 3 >= alnum
        && !s.windows(3).any(|w| w.iter().all(u8::is_ascii_lowercase))
        && !amount
        && !one_digit
        && !masked
        && !looks_placeholder(s)
}

/// See [`Validator::TableBirthDates`]: one cell of a date-of-birth column, a date with a
/// year from 1900 to 2099 — `1998-09-28` (a time may follow), `19960804`, `1996/08/04`,
/// `17.10.2002`, `10/21/1997` or `21/10/1997` — whose month and day are plausible (the
/// national numbers' [`date_ok`]: 31 February is no date).
pub fn birth_date_cell_ok(s: &[u8]) -> bool {
    // the date part: up to a time (`T…`, ` 00:00:00`)
    let end = s
        .iter()
        .position(|&b| b == b'T' || b == b' ')
        .unwrap_or(s.len());
    let parts: Vec<&[u8]> = s[..end]
        .split(|&b| matches!(b, b'-' | b'/' | b'.'))
        .collect();
    let n = |p: &[u8]| -> Option<u32> {
        (!p.is_empty() && p.len() <= 4 && p.iter().all(u8::is_ascii_digit))
            .then(|| p.iter().fold(0, |n, &b| n * 10 + u32::from(b - b'0')))
    };
    let year = |y: u32| (1900..=2099).contains(&y);
    match parts[..] {
        [c] if c.len() == 8 => {
            n(&c[..4]).is_some_and(year) && {
                let (m, d) = (n(&c[4..6]), n(&c[6..8]));
                matches!((m, d), (Some(m), Some(d)) if date_ok(d, m))
            }
        }
        [a, b, c] => match (n(a), n(b), n(c)) {
            (Some(y), Some(m), Some(d)) if a.len() == 4 => year(y) && date_ok(d, m),
            (Some(x), Some(y2), Some(y)) if c.len() == 4 => {
                year(y) && (date_ok(x, y2) || date_ok(y2, x))
            }
            _ => false,
        },
        _ => false,
    }
}

/// A `<…>` placeholder in a value (`<your-key>`, `<token`, `Bearer <TOKEN>`): a `<` that
/// opens it or is followed by a name and `>`. A `<` among random characters
/// (`x7gf+<~*5Q9a`) is no placeholder.
fn angle_placeholder(b: &[u8]) -> bool {
    b.first() == Some(&b'<')
        || b.iter().enumerate().any(|(i, &c)| {
            c == b'<' && {
                let name = b[i + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || b"_-. ".contains(c))
                    .count();
                name > 0 && b.get(i + 1 + name) == Some(&b'>')
            }
        })
}

/// An absolute path (`/run/secrets/db`, `/etc/app/key.pem`, `/certs/localhost+2-key.pem`),
/// not a base64 value that starts with `/` (one in 64 does): no `=` padding, and not
/// random-looking with few slashes.
fn path_like(b: &[u8]) -> bool {
    if b.first() != Some(&b'/') || b.ends_with(b"=") {
        return false;
    }
    // base64's first `/`-free run is long; a path's first directory is a short name
    let first = b[1..].iter().take_while(|&&c| c != b'/').count();
    let random = first >= 12
        && shannon_entropy(b) >= 4.2
        && b.iter().any(u8::is_ascii_lowercase)
        && b.iter().any(u8::is_ascii_uppercase)
        && b.iter().any(u8::is_ascii_digit);
    !random
}

/// A secret manager's reference, not a secret: a store's scheme, then a path
/// (`vault:secret/data/app#password`, `ref+vault:…`, `awssm:prod/db`, `sops:…`); a Vault KV
/// v2 path (`secret/data/prod/db`, a Vault agent's `agent-inject-secret-*` annotation); a
/// systemd credential's `ID:/absolute/path` (`LoadCredential=db-password:/etc/creds/db`).
fn store_reference(v: &str) -> bool {
    let path_bytes = |p: &str| p.bytes().all(|c| is_ident_byte(c) || b"/.-".contains(&c));
    let kv2 = v.split_once("/data/").is_some_and(|(mount, p)| {
        !mount.is_empty()
            && !p.is_empty()
            && path_bytes(mount)
            && !mount.contains('/')
            && path_bytes(p)
    });
    // (a credential's ID is lower case: `AKIA…:/wJal…` is a key pair, not a reference)
    let systemd = v.split_once(":/").is_some_and(|(id, p)| {
        !id.is_empty()
            && id
                .bytes()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || b"_.-".contains(&c))
            && p.contains('/')
            && path_bytes(p)
    });
    if kv2 || systemd {
        return true;
    }
    const SCHEMES: &[&str] = &[
        "vault",
        "ref+vault",
        "ref+awssm",
        "ref+gcpsecrets",
        "ref+azurekeyvault",
        "ref+sops",
        "awssm",
        "ssm",
        "secretsmanager",
        "gcpsm",
        "gcpsecrets",
        "sops",
        "azkv",
        "akv",
        "keyvault",
        "doppler",
        "infisical",
    ];
    v.split_once(':').is_some_and(|(scheme, path)| {
        SCHEMES.iter().any(|s| scheme.eq_ignore_ascii_case(s))
            && path.contains('/')
            && path
                .bytes()
                .all(|c| is_ident_byte(c) || b"/.#@:-".contains(&c))
    })
}

/// See [`Validator::SecretValue`].
pub fn secret_value_ok(s: &[u8]) -> bool {
    let v = match std::str::from_utf8(s) {
        Ok(v) => v.trim_matches(|c: char| c == '"' || c == '\'' || c == '`' || c.is_whitespace()),
        Err(_) => return true,
    };
    if v.len() < 4 {
        return false;
    }
    if PLACEHOLDER_AC.is_match(v)
        || ends_with_ignore_case(v.as_bytes(), b"here")
        || angle_placeholder(v.as_bytes())
    {
        return false;
    }
    if BARE_WORDS.iter().any(|w| v.eq_ignore_ascii_case(w)) {
        return false;
    }
    let b = v.as_bytes();
    // one repeated character, or only mask characters
    if b.iter().all(|&c| c == b[0]) || b.iter().all(|c| b"*#.-_xX0 ".contains(c)) {
        return false;
    }
    // $VAR, %VAR%, %(name)s, :name, @name
    if (b[0] == b'$' || b[0] == b'%' || b[0] == b':' || b[0] == b'@')
        && b[1..]
            .iter()
            .all(|&c| is_ident_byte(c) || c == b'%' || c == b'(' || c == b')')
    {
        return false;
    }
    if v.contains("://")
        || path_like(b)
        || v.starts_with("./")
        || v.starts_with("~/")
        || store_reference(v)
    {
        return false;
    }
    // publishable keys, public by design (Stripe / Paystack / Clerk `pk_live_…`), and host
    // names (`AUTH0_DOMAIN=acme.us.auth0.com`)
    if PUBLISHABLE_PREFIXES.iter().any(|p| v.starts_with(p)) || is_host_name(v) {
        return false;
    }
    // file names
    if let Some((stem, ext)) = v.rsplit_once('.') {
        if FILE_EXT.contains(&ext.to_ascii_lowercase().as_str())
            && !stem.is_empty()
            && stem
                .bytes()
                .all(|c| is_ident_byte(c) || c == b'-' || c == b'.' || c == b'/')
        {
            return false;
        }
    }
    // code: calls, indexing (`cfg[0]`, and `os.environ[` where an unquoted value stops at the
    // index's quote), dotted identifiers with short parts made of words
    // (`settings.SECRET_KEY`, `X25519.secret_length`; not `K0zkvujAg5Kf1U.zzEAdEN`)
    if v.contains('(')
        || v.ends_with(']')
        || v.strip_suffix('[').is_some_and(indexed_name)
        || v.contains("->")
        || v.contains("::")
    {
        return false;
    }
    let dotted: Vec<&str> = v.split('.').collect();
    if dotted.len() >= 2
        && dotted.iter().all(|p| {
            !p.is_empty()
                && p.len() < 24
                && p.bytes().all(is_ident_byte)
                && !p.as_bytes()[0].is_ascii_digit()
                && p.as_bytes().split(|&c| c == b'_').all(word_like)
        })
    {
        return false;
    }
    // a template (`{SumoAccessKey}`), an unclosed placeholder's tail (`password>`), an
    // assignment fragment (`token:`), a versioned artifact name (`jjwt-jackson-0.11.2`)
    if (b[0] == b'{'
        && b[b.len() - 1] == b'}'
        && b[1..b.len() - 1].iter().all(|&c| is_ident_byte(c)))
        || b[b.len() - 1] == b'>'
        || b[b.len() - 1] == b':'
        || versioned_name(b)
    {
        return false;
    }
    if yaml_reference(b) || decimal_or_date(b) || option_list(v) || digest(v) {
        return false;
    }
    // the tail of a template the match began inside (`{{resolve:secretsmanager:…}}`)
    if v.ends_with("}}") {
        return false;
    }
    let has_space = b.contains(&b' ');
    if !has_space {
        // identifiers: snake_case / kebab words, camelCase words, without digits
        let digits = b.iter().any(u8::is_ascii_digit);
        let words_only = b
            .iter()
            .all(|&c| c.is_ascii_alphabetic() || c == b'_' || c == b'-');
        // user_password_hash, tokenCount, MAX_TOKENS, Bearer: each word a word, not random
        // mixed case (`npg_dGyzjTcwEsrK`, a password with a prefix, is no identifier)
        if words_only && !digits && b.split(|&c| c == b'_' || c == b'-').all(word_like) {
            return false;
        }
        // small numbers
        if b.iter().all(u8::is_ascii_digit) && b.len() < 8 {
            return false;
        }
        shannon_entropy(b) >= 2.5
    } else {
        // code or a command line, not a pass-phrase: an assignment (`name = `), an option or
        // a path argument (`etcdctl get /app/secret`)
        let code = v.ends_with('=')
            || v.contains(" = ")
            || v.contains(" := ")
            || v.split(' ').any(|w| {
                let w = w.as_bytes();
                w.len() >= 2 && (w[0] == b'-' || w[0] == b'/') && w[1].is_ascii_alphabetic()
            });
        // a cookie list (`a=1; session=…`) has no length bound
        let cookies =
            v.contains("; ") && v.split("; ").all(|p| p.contains('=') && !p.contains(' '));
        // a quoted pass-phrase: several characters, some variety, not prose-length
        !code && v.len() >= 8 && (v.len() <= 200 || cookies) && shannon_entropy(b) >= 2.5
    }
}

/// A part of an identifier: lower case, upper case, or camelCase with about one capital a
/// word (`tokenCount`, `Bearer`, `MAX`), not random mixed case (`dGyzjTcwEsrK`).
fn word_like(w: &[u8]) -> bool {
    let lowers = w.iter().filter(|c| c.is_ascii_lowercase()).count();
    let uppers = w.iter().filter(|c| c.is_ascii_uppercase()).count();
    uppers <= 1 + lowers / 4 || lowers == 0
}

/// `prefix` without a call the value is the literal argument of, so the name is the
/// variable's, not the function's: `masterKey = Convert.FromHexString("` → `masterKey `.
fn without_call(prefix: &[u8]) -> &[u8] {
    let body = &prefix[..run_start(prefix, |c| matches!(c, b'"' | b'\'' | b' ' | b'\t'))];
    // a string literal's prefix: `b64decode(b"`, `fromhex(r'`
    let lit = run_start(body, |c| b"bBrRuU".contains(&c));
    let body = if body.len() - lit <= 2 {
        &body[..lit]
    } else {
        body
    };
    match body.strip_suffix(b"(") {
        Some(call) => call
            .iter()
            .rposition(|&c| c == b'=')
            .map_or(prefix, |eq| &prefix[..eq]),
        None => prefix,
    }
}

/// `prefix` up to the text of the element before the value's element, so the name is the
/// first element's text, not the second's tag: `<key>PasswordRules</key> <string>` →
/// `<key>PasswordRules`. Anything else (`<password>`, `password=`) is returned as it is.
fn without_next_tag(prefix: &[u8]) -> &[u8] {
    let tag_start = |t: &[u8]| {
        let t = t.trim_ascii_end().strip_suffix(b">")?;
        t.iter().rposition(|&c| c == b'<')
    };
    let Some(open) = tag_start(prefix) else {
        return prefix;
    };
    match tag_start(&prefix[..open]) {
        Some(close) if prefix.get(close + 1) == Some(&b'/') => &prefix[..close],
        _ => prefix,
    }
}

/// `prefix` without a typed declaration's type, so the name is the variable's, not the
/// type's: `const CACHE_KEY: &str = "` → `const CACHE_KEY`, `apiToken?: string | undefined
/// = '` → `apiToken`. Anything else (`api_key: "`, `a::b = "`) is returned as it is.
fn without_type(prefix: &[u8]) -> &[u8] {
    let body_end = run_start(prefix, |c| {
        matches!(c, b'"' | b'\'' | b'`' | b' ' | b'\t' | b'=')
    });
    if !prefix[body_end..].contains(&b'=') {
        return prefix;
    }
    let body = &prefix[..body_end];
    let Some(colon) = body.iter().rposition(|&c| c == b':') else {
        return prefix;
    };
    let ty = body[colon + 1..].trim_ascii();
    let typed = colon > 0
        && body[colon - 1] != b':'
        && ty
            .first()
            .is_some_and(|&c| c == b'&' || c.is_ascii_alphabetic())
        && ty
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || b"_.[]<>|&' ".contains(&c));
    if typed {
        body[..colon].strip_suffix(b"?").unwrap_or(&body[..colon])
    } else {
        prefix
    }
}

/// A YAML alias or tag in a value's place (`*default_pw`, `!vault |`): `*` or `!`, then a
/// lowercase name.
fn yaml_reference(b: &[u8]) -> bool {
    let name = b.split(|&c| c == b' ').next().unwrap_or(b);
    name.len() > 1
        && matches!(name[0], b'*' | b'!')
        && name[1].is_ascii_lowercase()
        && name[2..]
            .iter()
            .all(|&c| c.is_ascii_lowercase() || c == b'_' || c == b'-')
        && (name.len() == b.len() || b[name.len()..] == *b" |" || b[name.len()..] == *b" >")
}

/// A decimal number (`0.93452`, `-1.5`) or an ISO-8601 date / time
/// (`2024-05-01`, `2024-05-01T12:00:00Z`, `2024-05-01 12:00:00.123+02:00`).
fn decimal_or_date(b: &[u8]) -> bool {
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    let unsigned = b.strip_prefix(b"-").unwrap_or(b);
    if let Some(dot) = unsigned.iter().position(|&c| c == b'.') {
        if digits(&unsigned[..dot]) && digits(&unsigned[dot + 1..]) {
            return true;
        }
    }
    b.len() >= 10
        && digits(&b[..4])
        && b[4] == b'-'
        && digits(&b[5..7])
        && b[7] == b'-'
        && digits(&b[8..10])
        && b[10..]
            .iter()
            .all(|&c| c.is_ascii_digit() || b"T :.+-Z".contains(&c))
}

/// Options, not a secret: two or more comma-separated `name=value` parts with lowercase names
/// (`docker build --secret id=npmrc,src=$HOME/.npmrc`, `--mount type=secret,id=x`).
fn option_list(v: &str) -> bool {
    let mut parts = 0;
    for part in v.split(',') {
        let Some((name, _)) = part.split_once('=') else {
            return false;
        };
        let n = name.as_bytes();
        if n.is_empty()
            || !n[0].is_ascii_lowercase()
            || !n
                .iter()
                .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_' || c == b'-')
        {
            return false;
        }
        parts += 1;
    }
    parts >= 2
}

/// The name an unquoted value cut at an index's quote ends in (`os.environ[`, `settings[`,
/// `$_ENV[`): dotted identifiers of letters and `_` (a `$` first), no digits, which a random
/// value ending in `[` (`Qm7vX2pLk9wR[`) is not.
fn indexed_name(v: &str) -> bool {
    let v = v.strip_prefix('$').unwrap_or(v);
    !v.is_empty()
        && v.split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_alphabetic() || c == b'_'))
}

/// `name-1.2`, `jjwt-jackson-0.11.2`, `lib_v2.0.1-rc1`: letters first, then a separator and a
/// dotted version number (at least two numeric parts) at the end, with an optional short tag.
fn versioned_name(b: &[u8]) -> bool {
    if !b[0].is_ascii_alphabetic() {
        return false;
    }
    let Some(sep) = b
        .iter()
        .rposition(|&c| c == b'-' || c == b'_' || c == b':' || c == b'@')
    else {
        return false;
    };
    // `name-1.2` or `name-1.2-rc1`: the version is after the last separator, or before it
    let tail = &b[sep + 1..];
    let ver = |t: &[u8]| {
        let t = t.strip_prefix(b"v").unwrap_or(t);
        let parts: Vec<&[u8]> = t.split(|&c| c == b'.').collect();
        parts.len() >= 2
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.len() <= 4 && p.iter().all(u8::is_ascii_digit))
    };
    if ver(tail) {
        return true;
    }
    tail.len() <= 8
        && tail.iter().all(u8::is_ascii_alphanumeric)
        && b[..sep]
            .iter()
            .rposition(|&c| c == b'-' || c == b'_' || c == b':' || c == b'@')
            .is_some_and(|p| ver(&b[p + 1..sep]))
}

/// A content digest named by its algorithm (`sha1:cc80…`, `sha256-…`, `md5=…`): a hash of
/// data, not a credential.
fn digest(v: &str) -> bool {
    let Some(i) = v.find([':', '-', '=']) else {
        return false;
    };
    let (algo, hex) = (&v[..i], &v[i + 1..]);
    [
        "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b", "blake3", "xxh64",
    ]
    .iter()
    .any(|a| algo.eq_ignore_ascii_case(a))
        && hex.len() >= 16
        && hex.bytes().all(|c| c.is_ascii_hexdigit())
}

/// Last words of a key name that make it a non-secret field (`credentialsId`,
/// `LLM_SECRET_NAME`, `token_url`, `secret_length`, `password_file`).
const NON_SECRET_SUFFIXES: &[&str] = &[
    // `password_encryption = scram-sha-256` names a method
    "encryption",
    "id",
    "ids",
    "name",
    "names",
    "url",
    "uri",
    "urls",
    "path",
    "file",
    "filename",
    "dir",
    "length",
    "len",
    "size",
    "count",
    "type",
    "format",
    "enabled",
    "version",
    "endpoint",
    "expiry",
    "expires",
    "expiration",
    "ttl",
    "timeout",
    "field",
    "header",
    "param",
    "prefix",
    "suffix",
    "label",
    "policy",
    "provider",
    "method",
    "mode",
    "algorithm",
    "algo",
    "hint",
    "reset",
    "issuer",
    "audience",
    "scope",
    "scopes",
    "callback",
    "kind",
    "ref",
    "location",
    "arn",
    "env",
    "var",
    "required",
    "hash",
    "rule",
    "rules",
    "rotation",
    "store",
    "manager",
    "source",
];

/// Where the run of bytes `keep` accepts that ends `b` starts.
pub(crate) fn run_start(b: &[u8], keep: impl Fn(u8) -> bool) -> usize {
    b.iter().rposition(|&c| !keep(c)).map_or(0, |i| i + 1)
}

/// Does the key name at the end of `prefix` (the match text before the value) name a
/// secret? False for identifier / metadata fields and public tokens (`publicToken`). `lead`
/// is the text of the line before the match: a bare `key` whose word before it (in `lead`
/// or the match) says what it is (`public key:`, `cache key:`, `from key:`) is not a secret's
/// name.
pub fn key_name_ok(lead: &[u8], prefix: &[u8]) -> bool {
    let prefix = without_call(without_type(without_next_tag(without_copula(prefix))));
    let end = prefix
        .iter()
        .rposition(|b| b.is_ascii_alphanumeric())
        .map_or(0, |i| i + 1);
    let start = run_start(&prefix[..end], |b| {
        b.is_ascii_alphanumeric() || b"_.-".contains(&b)
    });
    let name = &prefix[start..end];
    if name.is_empty() {
        return true;
    }
    // anti-forgery tokens are public by design (`authenticity_token`, `csrf-token`), also
    // when a typed or attribute form puts another word last (`name="csrf_token" value=`)
    if NON_SECRET_AC.is_match(prefix) {
        return false;
    }
    // split into words: separators and lower->upper camelCase steps
    let mut words: Vec<String> = Vec::new();
    let mut cur = String::new();
    for (i, &b) in name.iter().enumerate() {
        let step = i > 0 && b.is_ascii_uppercase() && name[i - 1].is_ascii_lowercase();
        if b"_.-".contains(&b) || step {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            if b"_.-".contains(&b) {
                continue;
            }
        }
        cur.push(b.to_ascii_lowercase() as char);
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    let (Some(first), Some(last)) = (words.first(), words.last()) else {
        return true;
    };
    // the word before a bare `key` / `token` written with a space (`public key:`, `cache key
    // …`, `from key:`, `CSRF token …`, `next token …`) qualifies it as a word of the name would
    if words.len() == 1 && matches!(first.as_str(), "key" | "keys" | "token" | "tokens") {
        let mut text = lead.to_vec();
        text.extend_from_slice(&prefix[..start]);
        if let Some(p) = text.strip_suffix(b" ").filter(|p| !p.ends_with(b" ")) {
            // `gpg: key …`: the word before the colon
            let p = p.strip_suffix(b":").unwrap_or(p);
            let w = p[run_start(p, |b| b.is_ascii_alphanumeric())..].to_ascii_lowercase();
            let w = std::str::from_utf8(&w).unwrap_or("");
            // `Primary Key:` is the Azure portal's name of an account key and a PagerDuty
            // `Routing key` is a credential: only a data structure's other qualifiers make a
            // spaced `key` a lookup key
            let qualified = if first.starts_with("key") {
                (!matches!(w, "primary" | "routing") && KEY_QUALIFIERS.contains(&w))
                    || SPACED_KEY_QUALIFIERS.contains(&w)
            } else {
                TOKEN_QUALIFIERS.contains(&w)
            };
            if qualified || matches!(w, "public" | "publishable" | "from" | "to" | "for" | "of") {
                return false;
            }
        }
    }
    // public by design (`NEXT_PUBLIC_…`, `CLERK_PUBLISHABLE_KEY`, `data-sitekey`), unless a
    // word says private or secret too; a "public API" token is a token for one
    let public = words.iter().enumerate().any(|(i, w)| {
        matches!(w.as_str(), "publishable" | "sitekey")
            || (w == "public" && words.get(i + 1).is_none_or(|n| n != "api"))
    });
    let private = words
        .iter()
        .any(|w| matches!(w.as_str(), "private" | "secret" | "password" | "passwd"));
    // `hashed_secret` (a detect-secrets baseline) holds a digest of the secret, not the secret
    if NON_SECRET_SUFFIXES.contains(&last.as_str())
        || matches!(first.as_str(), "public" | "publishable" | "pub" | "hashed")
        || (public && !private)
    {
        return false;
    }
    // a name that is a phrase (`keyVaultToStoreSecrets`, `path_to_key`) describes something else
    if words[1..]
        .iter()
        .any(|w| matches!(w.as_str(), "to" | "for" | "from" | "of"))
    {
        return false;
    }
    // a data-structure key (`primaryKey`, `bucket_key`, `cacheKey`) unless a credential word
    // names it too (`bucket_secret_key`)
    let strong = words.iter().any(|w| CREDENTIAL_WORDS.contains(&w.as_str()));
    strong || !words.iter().any(|w| KEY_QUALIFIERS.contains(&w.as_str()))
}

/// Words that make any key name a non-secret field: anti-forgery tokens, sent to every
/// visitor of a page; pagination cursors and idempotency keys, which only name a position or
/// a request.
const NON_SECRET_WORDS: &[&str] = &[
    "csrf",
    "xsrf",
    "authenticity",
    // pagination cursors and idempotency keys (`nextPageToken`, `next_token`, `ContinuationToken`)
    "pagetoken",
    "page_token",
    "page-token",
    "nexttoken",
    "next_token",
    "next-token",
    "continuation",
    "idempotency",
];

/// Value prefixes of keys that are public by design (publishable keys).
const PUBLISHABLE_PREFIXES: &[&str] = &["pk_live_", "pk_test_"];

/// Top-level domains a host-name value ends with ([`is_host_name`]).
const HOST_TLDS: &[&str] = &[
    "com",
    "net",
    "org",
    "io",
    "dev",
    "app",
    "co",
    "ai",
    "cloud",
    "us",
    "eu",
    "uk",
    "de",
    "fr",
    "jp",
    "cn",
    "in",
    "br",
    "internal",
    "local",
    "localhost",
    "svc",
    "cluster",
    "test",
    "example",
    "invalid",
    "me",
    "info",
    "biz",
    "xyz",
    "tech",
    "sh",
];

/// Is `v` a lower-case host name (`api.example.com`, `acme-prod.us.auth0.com`): labels of
/// `a-z0-9-`, at least two, the last a common top-level domain?
fn is_host_name(v: &str) -> bool {
    let labels: Vec<&str> = v.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && !l.starts_with('-')
                && l.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
        && labels.last().is_some_and(|t| HOST_TLDS.contains(t))
}

/// Words that name a credential in a key name (`bucket_secret_key` is one).
const CREDENTIAL_WORDS: &[&str] = &[
    "secret",
    "secrets",
    "token",
    "password",
    "passwd",
    "pwd",
    "pass",
    "credential",
    "credentials",
    "auth",
    "api",
    "apikey",
    "access",
    "private",
    "passphrase",
    "signing",
    "encryption",
    "master",
    "client",
    "account",
    "storage",
    "license",
];

/// Words that make a bare `…key` name a data-structure key, not a credential.
const KEY_QUALIFIERS: &[&str] = &[
    "primary",
    "foreign",
    "sort",
    "partition",
    "range",
    "bucket",
    "cache",
    "row",
    "composite",
    "unique",
    "lookup",
    "index",
    "idempotency",
    "dedup",
    "routing",
    "shard",
    "object",
    "translation",
    "i18n",
    "locale",
    "map",
    "dict",
    "hotkey",
    "shortcut",
    "react",
];

/// Words that make a bare `key` written after them with a space a public key's or a lock's
/// name (`Host key AAAA…`, `ssh-ed25519 key …`, `gpg: key …`, `lock key …`).
const SPACED_KEY_QUALIFIERS: &[&str] = &[
    "host", "ssh", "rsa", "dsa", "ecdsa", "eddsa", "ed25519", "gpg", "pgp", "lock", "commit",
];

/// Words that make a bare `token` written after them a position or a form's field, not a
/// credential (`next token …`, `CSRF token …`, `cancellation token`).
const TOKEN_QUALIFIERS: &[&str] = &[
    "csrf",
    "xsrf",
    "next",
    "page",
    "pagination",
    "continuation",
    "sync",
    "cancellation",
    "authenticity",
    "commit",
];

/// `prefix` without a copula after the name, so the name is the credential's word: `api key
/// is ` → `api key `, `cache key is: ` → `cache key `. Anything else is returned as it is.
fn without_copula(prefix: &[u8]) -> &[u8] {
    let body = prefix.trim_ascii_end();
    let body = body.strip_suffix(b":").unwrap_or(body).trim_ascii_end();
    for word in [&b" is"[..], b" was"] {
        if body.len() > word.len() && body[body.len() - word.len()..].eq_ignore_ascii_case(word) {
            return &prefix[..body.len() - word.len() + 1];
        }
    }
    prefix
}

/// See [`Validator::HighEntropy`].
pub fn high_entropy_ok(s: &[u8]) -> bool {
    if !secret_value_ok(s) || s.len() < 16 || s.contains(&b' ') {
        return false;
    }
    let classes = [
        s.iter().any(u8::is_ascii_lowercase),
        s.iter().any(u8::is_ascii_uppercase),
        s.iter().any(u8::is_ascii_digit),
    ];
    classes.iter().filter(|&&c| c).count() >= 2 && shannon_entropy(s) >= 3.3
}

/// See [`Validator::JoinedLiterals`]: the contents of the quoted literals in `s` (each
/// closed by the quote that opened it), joined, pass [`high_entropy_ok`] and read as a
/// random token ([`random_token_ok`]: not `user_profile_` + `settings_v2`); at least two.
pub fn joined_literals_ok(s: &[u8]) -> bool {
    let mut joined = Vec::with_capacity(s.len());
    let mut parts = 0;
    let mut i = 0;
    while let Some(k) = s[i..].iter().position(|&b| b == b'"' || b == b'\'') {
        let q = s[i + k];
        let from = i + k + 1;
        let Some(len) = s[from..].iter().position(|&b| b == q) else {
            return false;
        };
        joined.extend_from_slice(&s[from..from + len]);
        parts += 1;
        i = from + len + 1;
    }
    parts >= 2 && high_entropy_ok(&joined) && random_token_ok(&joined)
}

/// See [`Validator::PrefixedToken`].
pub fn prefixed_token_ok(s: &[u8]) -> bool {
    let is_sep = |c: &u8| matches!(c, b'_' | b'-' | b'.' | b'~');
    // the prefix: up to three lower-case words, each ending in a separator
    let mut at = 0;
    for _ in 0..3 {
        let word = s[at..]
            .iter()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            .count();
        match s.get(at + word) {
            Some(c) if is_sep(c) && word >= 2 && s[at].is_ascii_lowercase() => at += word + 1,
            _ => break,
        }
    }
    const HASHES: [&[u8]; 5] = [b"sha", b"md5", b"blake", b"xxh", b"crc"];
    if at == 0
        || HASHES
            .iter()
            .any(|h| s.starts_with(h) && !s.starts_with(b"sha256~"))
    {
        return false;
    }
    // a public key or an id says so in its prefix (sb_publishable_, client-, sq0idp-)
    const PUBLIC: [&[u8]; 5] = [b"pub", b"public", b"publishable", b"pk", b"client"];
    if s[..at]
        .split(is_sep)
        .any(|w| PUBLIC.contains(&w) || w.ends_with(b"id"))
    {
        return false;
    }
    let body: Vec<u8> = s[at..]
        .iter()
        .copied()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    let digits = body.iter().filter(|c| c.is_ascii_digit()).count();
    body.len() >= 28
        && digits >= 2
        && body.iter().any(u8::is_ascii_uppercase)
        && body.iter().any(u8::is_ascii_lowercase)
        && !word_like(&body)
        && secret_value_ok(s)
        && shannon_entropy(&body) >= 3.3
}

/// See [`Validator::RandomToken`].
pub fn random_token_ok(s: &[u8]) -> bool {
    // prefix words: one case of letters (`AIK`, `sk`, `production`) or short (`1`, `v1`)
    let is_sep = |c: &u8| matches!(c, b'_' | b'-' | b'.' | b':');
    let mut prefix = 0;
    while let Some(len) = s[prefix..].iter().position(is_sep) {
        let w = &s[prefix..prefix + len];
        let word = w.iter().all(u8::is_ascii_lowercase) || w.iter().all(u8::is_ascii_uppercase);
        if prefix + len >= 25 || !(word || (1..=3).contains(&len)) {
            break;
        }
        prefix += len + 1;
    }
    let body: Vec<u8> = s[prefix..]
        .iter()
        .copied()
        .filter(u8::is_ascii_alphanumeric)
        .collect();
    if body.len() < 16 || !secret_value_ok(s) || shannon_entropy(&body) < 3.0 {
        return false;
    }
    let count = |f: fn(&u8) -> bool| body.iter().filter(|c| f(c)).count();
    let (upper, lower, digits) = (
        count(u8::is_ascii_uppercase),
        count(u8::is_ascii_lowercase),
        count(u8::is_ascii_digit),
    );
    // digits interleaved with letters: two or more digits, four or more letter/digit changes
    let mixes = body
        .windows(2)
        .filter(|w| w[0].is_ascii_digit() != w[1].is_ascii_digit())
        .count();
    if digits >= 2 && upper + lower >= 2 && mixes >= 4 {
        return true;
    }
    // else random mixed case: not camelCase (`HTTPServerConfigLoader2`), the case changing at
    // least every third letter
    let letters: Vec<u8> = body
        .iter()
        .copied()
        .filter(u8::is_ascii_alphabetic)
        .collect();
    let flips = letters
        .windows(2)
        .filter(|w| w[0].is_ascii_uppercase() != w[1].is_ascii_uppercase())
        .count();
    upper.min(lower) >= 3 && !word_like(&body) && flips * 3 >= letters.len()
}

/// Shannon entropy of the bytes of `s`, in bits per byte (0.0 for empty input).
pub fn shannon_entropy(s: &[u8]) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in s {
        counts[b as usize] += 1;
    }
    let n = s.len() as f64;
    let mut h = 0.0;
    for &c in counts.iter() {
        if c > 0 {
            let p = c as f64 / n;
            h -= p * p.log2();
        }
    }
    h
}

fn is_sep(b: u8) -> bool {
    b == b' ' || b == b'-' || b == b'.' || b == b'\t'
}

pub fn luhn_ok(s: &[u8]) -> bool {
    let mut digits = [0u8; 19];
    let mut n = 0;
    // a URL-encoded space (`%20`) separates groups like a space
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        i += 1;
        if b == b'%' && s[i..].starts_with(b"20") {
            i += 2;
        } else if b.is_ascii_digit() {
            if n == 19 {
                return false;
            }
            digits[n] = b - b'0';
            n += 1;
        } else if !is_sep(b) && b != b'+' {
            return false;
        }
    }
    if n < 12 {
        return false;
    }
    // all-same digits (0000 0000 0000 0000) pass Luhn but are never cards
    if digits[..n].iter().all(|&d| d == digits[0]) {
        return false;
    }
    luhn_digits_ok(&digits[..n])
}

pub fn iban_ok(s: &[u8]) -> bool {
    let mut buf = [0u8; 34];
    let mut n = 0;
    for &b in s {
        if b.is_ascii_alphanumeric() {
            if n == 34 {
                return false;
            }
            buf[n] = b.to_ascii_uppercase();
            n += 1;
        } else if !is_sep(b) {
            return false;
        }
    }
    if n < 15 {
        return false;
    }
    let c = &buf[..n];
    if !(c[0].is_ascii_uppercase()
        && c[1].is_ascii_uppercase()
        && c[2].is_ascii_digit()
        && c[3].is_ascii_digit())
    {
        return false;
    }
    // move the first four characters to the end, letters -> 10..35, mod 97 incrementally
    let mut rem: u32 = 0;
    for &b in c[4..].iter().chain(c[..4].iter()) {
        if b.is_ascii_digit() {
            rem = (rem * 10 + (b - b'0') as u32) % 97;
        } else {
            let v = (b - b'A') as u32 + 10;
            rem = (rem * 100 + v) % 97;
        }
    }
    rem == 1
}

/// See [`Validator::NationalId`].
pub fn national_id_ok(s: &[u8]) -> bool {
    // (a Corsican NIR's `2a` / `2b` as written in lower case too)
    let chars: Vec<u8> = s
        .iter()
        .filter(|&&b| !is_sep(b))
        .map(u8::to_ascii_uppercase)
        .collect();
    let digits = chars.iter().all(u8::is_ascii_digit);
    let d: Vec<u32> = chars
        .iter()
        .map(|&b| u32::from(b.wrapping_sub(b'0')))
        .collect();
    match chars.len() {
        // Canadian SIN: Luhn over nine digits; 0 and 8 are not issued
        9 if digits => {
            let v: Vec<u8> = chars.iter().map(|&b| b - b'0').collect();
            v[0] != 0 && v[0] != 8 && luhn_digits_ok(&v)
        }
        // Spanish DNI (8 digits) or NIE (X / Y / Z, 7 digits): the mod-23 control letter
        9 if chars[1..8].iter().all(u8::is_ascii_digit)
            && chars[8].is_ascii_uppercase()
            && (chars[0].is_ascii_digit() || b"XYZ".contains(&chars[0])) =>
        {
            let lead = match chars[0] {
                b'X' => 0,
                b'Y' => 1,
                b'Z' => 2,
                c => u32::from(c - b'0'),
            };
            let n = d[1..8].iter().fold(lead, |n, &x| n * 10 + x);
            b"TRWAGMYFPDXBNJZSQVHLCKE"[(n % 23) as usize] == chars[8]
        }
        // Indian Aadhaar: 12 digits, not starting 0 or 1, Verhoeff check digit
        12 if digits => d[0] > 1 && verhoeff_ok(&d),
        // French NIR: sex digit, 12 more characters (a Corsican department is 2A / 2B), key
        15 if (chars[0] == b'1' || chars[0] == b'2')
            && chars.iter().enumerate().all(|(i, b)| {
                b.is_ascii_digit() || (i == 6 && (*b == b'A' || *b == b'B') && chars[5] == b'2')
            }) =>
        {
            // Corsica: `2A` counts as 19, `2B` as 18 in the key
            let corsica = match chars[6] {
                b'A' => Some(9),
                b'B' => Some(8),
                _ => None,
            };
            let n = chars[..13].iter().enumerate().fold(0u64, |n, (i, &b)| {
                let v = match (i, corsica) {
                    (5, Some(_)) => 1,
                    (6, Some(v)) => v,
                    _ => u64::from(b - b'0'),
                };
                n * 10 + v
            });
            let key = u64::from(d[13]) * 10 + u64::from(d[14]);
            97 - n % 97 == key
        }
        // Brazilian CPF: two mod-11 check digits
        11 if digits => {
            if d.iter().all(|&x| x == d[0]) {
                return false;
            }
            let check = |n: usize| {
                let sum: u32 = (0..n).map(|i| d[i] * (n as u32 + 1 - i as u32)).sum();
                let r = sum * 10 % 11;
                if r == 10 {
                    0
                } else {
                    r
                }
            };
            check(9) == d[9] && check(10) == d[10]
        }
        // UK National Insurance number: AB123456C
        9 => {
            let (p, rest) = chars.split_at(2);
            let first_ok = p[0].is_ascii_uppercase() && !b"DFIQUV".contains(&p[0]);
            let second_ok = p[1].is_ascii_uppercase() && !b"DFIOQUV".contains(&p[1]);
            let prefix_ok = !matches!(p, b"BG" | b"GB" | b"NK" | b"KN" | b"TN" | b"NT" | b"ZZ");
            first_ok
                && second_ok
                && prefix_ok
                && rest[..6].iter().all(u8::is_ascii_digit)
                && (b'A'..=b'D').contains(&rest[6])
        }
        _ => false,
    }
}

/// See [`Validator::Bsn`].
pub fn bsn_ok(s: &[u8]) -> bool {
    let d: Vec<u32> = s
        .iter()
        .filter(|&&b| !is_sep(b))
        .map(|&b| u32::from(b.wrapping_sub(b'0')))
        .collect();
    d.len() == 9
        && d.iter().all(|&x| x < 10)
        && d[..8].iter().any(|&x| x != 0)
        && (0..8).map(|i| d[i] * (9 - i as u32)).sum::<u32>() % 11 == d[8]
}

/// The Verhoeff check over `d` (its last digit the check digit).
fn verhoeff_ok(d: &[u32]) -> bool {
    const MUL: [[u8; 10]; 10] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
        [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
        [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
        [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
        [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
        [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
        [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
        [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
        [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
    ];
    const PERM: [[u8; 10]; 8] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
        [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
        [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
        [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
        [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
        [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
        [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
    ];
    let c = d.iter().rev().enumerate().fold(0u8, |c, (i, &x)| {
        MUL[c as usize][PERM[i % 8][x as usize % 10] as usize]
    });
    c == 0
}

pub fn ssn_ok(s: &[u8]) -> bool {
    let mut d = [0u8; 9];
    let mut n = 0;
    for &b in s {
        if b.is_ascii_digit() {
            if n == 9 {
                return false;
            }
            d[n] = b - b'0';
            n += 1;
        } else if !is_sep(b) {
            return false;
        }
    }
    if n != 9 {
        return false;
    }
    let area = d[0] as u32 * 100 + d[1] as u32 * 10 + d[2] as u32;
    let group = d[3] as u32 * 10 + d[4] as u32;
    let serial = d[5] as u32 * 1000 + d[6] as u32 * 100 + d[7] as u32 * 10 + d[8] as u32;
    if area == 0 || area == 666 || area >= 900 || group == 0 || serial == 0 {
        return false;
    }
    // well-known advertising / test numbers
    !matches!(
        (area, group, serial),
        (78, 5, 1120) | (219, 9, 9999) | (123, 45, 6789)
    )
}

#[allow(dead_code)]
const B62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

fn b62_val(b: u8) -> Option<u64> {
    match b {
        b'0'..=b'9' => Some((b - b'0') as u64),
        b'A'..=b'Z' => Some((b - b'A') as u64 + 10),
        b'a'..=b'z' => Some((b - b'a') as u64 + 36),
        _ => None,
    }
}

/// Base62-encode `v` into exactly 6 characters, zero-padded (used by tests / generators).
#[allow(dead_code)]
pub fn base62_6(mut v: u32) -> String {
    let mut out = [b'0'; 6];
    for i in (0..6).rev() {
        out[i] = B62[(v % 62) as usize];
        v /= 62;
    }
    String::from_utf8(out.to_vec()).unwrap()
}

pub fn github_crc32_ok(s: &[u8]) -> bool {
    // `ghp_` + 30 body + 6 checksum (also gho_/ghu_/ghs_/ghr_); generic: the part after the
    // last '_' is body + checksum.
    let tail = match s.iter().rposition(|&b| b == b'_') {
        Some(i) => &s[i + 1..],
        None => return false,
    };
    if tail.len() <= 6 || !tail.iter().all(|b| b.is_ascii_alphanumeric()) {
        return false;
    }
    let (body, check) = tail.split_at(tail.len() - 6);
    let mut v: u64 = 0;
    for &b in check {
        v = v * 62 + b62_val(b).unwrap();
    }
    v == crc32fast::hash(body) as u64
}

fn b64url_val(b: u8) -> Option<u32> {
    match b {
        b'A'..=b'Z' => Some((b - b'A') as u32),
        b'a'..=b'z' => Some((b - b'a') as u32 + 26),
        b'0'..=b'9' => Some((b - b'0') as u32 + 52),
        b'-' | b'+' => Some(62),
        b'_' | b'/' => Some(63),
        _ => None,
    }
}

/// Decode unpadded (or `=`-padded) base64url / base64.
pub fn b64url_decode(s: &[u8]) -> Option<Vec<u8>> {
    let s = match s.iter().position(|&b| b == b'=') {
        Some(i) => &s[..i],
        None => s,
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4 + 2);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for &b in s {
        acc = (acc << 6) | b64url_val(b)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Decode base64 in either alphabet (standard `+/` or URL-safe `-_`), padding optional.
fn b64_decode(s: &[u8]) -> Option<Vec<u8>> {
    let norm: Vec<u8> = s
        .iter()
        .map(|&b| match b {
            b'+' => b'-',
            b'/' => b'_',
            b => b,
        })
        .collect();
    b64url_decode(&norm)
}

/// See [`Validator::JsonBase64`].
pub fn json_base64_ok(s: &[u8]) -> bool {
    /// A member name that names a credential (`password`, `db_secret`, `auth`, `apiKey`),
    /// judged as a generic assignment's name is (`token_type`, `tokenizer`, `secretName`,
    /// `passwordless` are none).
    fn credential_name(k: &str) -> bool {
        let l = k.to_ascii_lowercase();
        (l == "auth"
            || l == "pwd"
            || [
                "password",
                "passwd",
                "secret",
                "token",
                "apikey",
                "api_key",
                "api-key",
                "private_key",
                "privatekey",
                "access_key",
                "accesskey",
                "credential",
            ]
            .iter()
            .any(|w| l.contains(w)))
            && !l.contains("tokeniz")
            && !l.ends_with("less")
            && key_name_ok(b"", k.as_bytes())
    }
    fn holds(v: &serde_json::Value, depth: usize) -> bool {
        match v {
            serde_json::Value::Object(m) if depth < 8 => m.iter().any(|(k, v)| {
                (credential_name(k) && v.as_str().is_some_and(|s| secret_value_ok(s.as_bytes())))
                    || holds(v, depth + 1)
            }),
            serde_json::Value::Array(a) if depth < 8 => a.iter().any(|v| holds(v, depth + 1)),
            _ => false,
        }
    }
    b64_decode(s)
        .and_then(|d| serde_json::from_slice::<serde_json::Value>(&d).ok())
        .is_some_and(|v| v.is_object() && holds(&v, 0))
}

/// See [`Validator::JwtBase64`].
pub fn jwt_base64_ok(s: &[u8]) -> bool {
    let Some(d) = b64_decode(s) else {
        return false;
    };
    let Some(at) = memchr::memmem::find(&d, b"eyJ") else {
        return false;
    };
    let tok: Vec<u8> = d[at..]
        .iter()
        .copied()
        .take_while(|&b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        .collect();
    let mut parts = tok.split(|&b| b == b'.');
    let (Some(h), Some(p)) = (parts.next(), parts.next()) else {
        return false;
    };
    !p.is_empty()
        && matches!(
            b64url_decode(h).map(|v| serde_json::from_slice::<serde_json::Value>(&v)),
            Some(Ok(serde_json::Value::Object(_)))
        )
}

/// A secret that only a placeholder has: a run of one character making up a third of it
/// (`ghp_xxxx…`, `A3-XXXXXX-…`, `0000…`), or a stock filler (`example`, `abcdef`, `123456`,
/// `your_…`, `changeme`, …). Applied to every rule that is not self-certifying.
pub fn looks_placeholder(s: &[u8]) -> bool {
    // templates and references, not values: `${VAR}`, `$(cmd)`, `{{ x }}`, `<your token>`,
    // `{Name}`, a SOPS-encrypted `ENC[…]`
    if s.starts_with(b"${")
        || s.starts_with(b"$(")
        || s.starts_with(b"{{")
        || s.starts_with(b"%(")
        || s.starts_with(b"<")
        || s.starts_with(b"`")
        || s.starts_with(b"ENC[")
        || (s.len() > 2
            && s[0] == b'{'
            && s[s.len() - 1] == b'}'
            && s[1..s.len() - 1].iter().all(|&c| is_ident_byte(c)))
    {
        return true;
    }
    // an environment-variable name (`ACCESS_TOKEN`, `YOUR_API_KEY`)
    if s.contains(&b'_') && s.iter().all(|&c| c.is_ascii_uppercase() || c == b'_') {
        return true;
    }
    // a shell variable reference (`$CI_JOB_TOKEN`, `$env:TOKEN`): the value is elsewhere (an
    // upper-case name, or any name after `$env:`; `$ecretPa55` is a password)
    if let Some(name) = s.strip_prefix(b"$env:") {
        if !name.is_empty() && name.iter().all(|&c| is_ident_byte(c)) {
            return true;
        }
    } else if let Some(name) = s.strip_prefix(b"$") {
        if name
            .first()
            .is_some_and(|c| c.is_ascii_uppercase() || *c == b'_')
            && name
                .iter()
                .all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
        {
            return true;
        }
    }
    // a tool's mask in place of the value: `(redacted)`, `[MASKED]`, `<hidden>`, `***`
    let word = s.trim_ascii_start();
    let word = {
        let t = |c: &u8| matches!(c, b'(' | b')' | b'[' | b']' | b'<' | b'>' | b'*');
        let a = word.iter().position(|c| !t(c)).unwrap_or(word.len());
        let b = word.iter().rposition(|c| !t(c)).map_or(a, |i| i + 1);
        &word[a..b]
    };
    if [
        &b"redacted"[..],
        b"masked",
        b"hidden",
        b"removed",
        b"filtered",
        b"sensitive",
    ]
    .iter()
    .any(|w| word.eq_ignore_ascii_case(w))
    {
        return true;
    }
    // masked: a run of four mask characters anywhere (`xoxp-…-########`)
    if s.windows(4)
        .any(|w| w.iter().all(|&c| c == b'#' || c == b'*') && w[0] == w[3])
    {
        return true;
    }
    // `…TokenHere`, `RANDOMSTRINGHERE`
    if s.len() > 8 && ends_with_ignore_case(s, b"here") {
        return true;
    }
    let mut run = 1;
    let mut best = 1;
    for w in s.windows(2) {
        if w[0] == w[1] {
            run += 1;
            best = best.max(run);
        } else {
            run = 1;
        }
    }
    if best >= 6 && best * 3 >= s.len() {
        return true;
    }
    // several runs (`sgp_5555555dAAAAA7777777CcccCFaaaaaaaaaaaaaa`): runs of four or more
    // covering half of it
    let mut covered = 0;
    let mut i = 0;
    while i < s.len() {
        let j = s[i..]
            .iter()
            .position(|&c| c != s[i])
            .map_or(s.len(), |k| i + k);
        if j - i >= 4 {
            covered += j - i;
        }
        i = j;
    }
    if covered * 2 >= s.len() {
        return true;
    }
    // a stock sequence as typed (a random secret with mixed case is not one), or a stock
    // filler in any case
    SEQUENCE_AC.is_match(s) || FILLER_AC.is_match(s)
}

/// Stock sequences that make a value a placeholder, as typed.
const SEQUENCES: &[&str] = &["abcdef", "123456", "abc123", "qwerty"];
/// Stock fillers that make a value a placeholder, in any case.
const FILLERS: &[&str] = &[
    "xxxx",
    "example",
    "your_",
    "your-",
    "placeholder",
    "changeme",
    "dummy",
    "<your",
    "...",
];

/// [`SEQUENCES`] (as typed), and [`PLACEHOLDER_WORDS`], [`NON_SECRET_WORDS`] and [`FILLERS`]
/// (in any case), each one automaton.
static SEQUENCE_AC: LazyLock<AhoCorasick> =
    LazyLock::new(|| AhoCorasick::new(SEQUENCES).expect("a word list builds"));
static PLACEHOLDER_AC: LazyLock<AhoCorasick> = LazyLock::new(|| any_case(PLACEHOLDER_WORDS));
static NON_SECRET_AC: LazyLock<AhoCorasick> = LazyLock::new(|| any_case(NON_SECRET_WORDS));
static FILLER_AC: LazyLock<AhoCorasick> = LazyLock::new(|| any_case(FILLERS));

/// One automaton for a word list, matching ASCII case-insensitively: a value is checked
/// against the whole list in one pass, with no lowercased copy.
fn any_case(words: &[&str]) -> AhoCorasick {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(words)
        .expect("a word list builds")
}

/// Does `b` end with `suffix`, ignoring ASCII case?
fn ends_with_ignore_case(b: &[u8], suffix: &[u8]) -> bool {
    b.len() >= suffix.len() && b[b.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
}

pub fn jwt_ok(s: &[u8]) -> bool {
    let mut parts = s.split(|&b| b == b'.');
    let (h, p, sig) = match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(h), Some(p), Some(sig), None) => (h, p, sig),
        _ => return false,
    };
    if h.len() < 4 || p.is_empty() {
        return false;
    }
    for part in [h, p, sig] {
        if !part
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'=')
        {
            return false;
        }
    }
    let header = match b64url_decode(h) {
        Some(v) => v,
        None => return false,
    };
    match serde_json::from_slice::<serde_json::Value>(&header) {
        Ok(serde_json::Value::Object(m)) => m.contains_key("alg"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luhn() {
        assert!(luhn_ok(b"4539 1488 0343 6467"));
        assert!(luhn_ok(b"4539-1488-0343-6467"));
        assert!(luhn_ok(b"4539+1488+0343+6467"));
        assert!(luhn_ok(b"4539%201488%200343%206467"));
        assert!(!luhn_ok(b"4539%201488%200343%206468"));
        assert!(!luhn_ok(b"4539 1488 0343 6468"));
        assert!(!luhn_ok(b"0000000000000000"));
        assert!(!luhn_ok(b"12345"));
    }

    #[test]
    fn iban() {
        assert!(iban_ok(b"GB82WEST12345698765432"));
        assert!(iban_ok(b"DE89 3704 0044 0532 0130 00"));
        assert!(!iban_ok(b"GB82WEST12345698765433"));
        assert!(!iban_ok(b"XX00"));
    }

    #[test]
    fn national_id() {
        // Canadian SIN (Luhn), CPF (mod 11), UK NINO (prefixes, suffix A-D)
        assert!(national_id_ok(b"390 139 624"));
        assert!(national_id_ok(b"441-215-472"));
        assert!(!national_id_ok(b"390 139 625"));
        assert!(!national_id_ok(b"046 454 286"));
        assert!(national_id_ok(b"529.982.247-25"));
        assert!(!national_id_ok(b"529.982.247-26"));
        assert!(!national_id_ok(b"111.111.111-11"));
        assert!(national_id_ok(b"AB 12 34 56 C"));
        assert!(national_id_ok(b"PM300476B"));
        assert!(!national_id_ok(b"GB123456A"));
        assert!(!national_id_ok(b"AB123456E"));
        assert!(!national_id_ok(b"DA123456A"));
        // Dutch BSN (its own validator, the 11-test), Spanish DNI / NIE (control letter),
        // Aadhaar (Verhoeff), NIR (a Corsican 2A / 2b in either case)
        assert!(bsn_ok(b"111222333"));
        assert!(bsn_ok(b"1112.22.333"));
        assert!(!bsn_ok(b"111222334"));
        assert!(!national_id_ok(b"111222333"));
        assert!(national_id_ok(b"12345678Z"));
        assert!(!national_id_ok(b"12345678A"));
        assert!(national_id_ok(b"X1234567L"));
        assert!(!national_id_ok(b"X1234567A"));
        assert!(national_id_ok(b"2345 6789 0124"));
        assert!(!national_id_ok(b"2345 6789 0123"));
        assert!(!national_id_ok(b"1345 6789 0124"));
        assert!(national_id_ok(b"1 55 08 78 044 123 42"));
        assert!(!national_id_ok(b"1 55 08 78 044 123 43"));
        assert!(national_id_ok(b"2 69 05 2A 341 732 62"));
        assert!(national_id_ok(b"2 69 05 2a 341 732 62"));
        assert!(!national_id_ok(b"2 69 05 2B 341 732 62"));
    }

    #[test]
    fn birth_date_cells() {
        for ok in [
            "1998-09-28",
            "1998-09-28T00:00:00Z",
            "19960804",
            "1996/08/04",
            "17.10.2002",
            "10/21/1997",
            "21/10/1997",
        ] {
            assert!(birth_date_cell_ok(ok.as_bytes()), "{ok}");
        }
        for no in [
            "",
            "NULL",
            "1998-13-28",
            "1898-09-28",
            "19961304",
            "21/21/1997",
            "10/21/97",
            "2002",
            "v1.2.3",
            "1.2.2002.4",
        ] {
            assert!(!birth_date_cell_ok(no.as_bytes()), "{no}");
        }
    }

    #[test]
    fn joined_literals() {
        for ok in [
            "\"b27f239ffdef27d4ae4359e06e3\" \\\n  \"86784fbec1aeef89c4ddea\"",
            "'DQBnZulfJZRRLP/4fhs' ||\n  'uJMv8isKw38x/7EJDN6ol'",
            "\"p4wTbREJOC8RtVU7gDVTz\" +\n    \"6Ox37KLU64mDeKj6Lm11\"",
        ] {
            assert!(joined_literals_ok(ok.as_bytes()), "{ok}");
        }
        for no in [
            // one literal, an unclosed one, words, a path
            "\"b27f239ffdef27d4ae4359e06e3\"",
            "\"b27f239ffdef27d4ae4359e06e3\" + \"86784fbec1",
            "\"message_prefix_\" + \"production_value\"",
            "\"user_profile_\" + \"settings_v2\"",
            "\"/usr/local/share/\" + \"templates/email/\"",
        ] {
            assert!(!joined_literals_ok(no.as_bytes()), "{no}");
        }
    }

    #[test]
    fn id_number_cells() {
        for ok in [
            "536227194",
            "536-22-7194",
            "PM300476B",
            "PM 30 04 76 B",
            "X47182953",
            "943 476 5919",
            "12-3456789",
            "D1234-56789-01234",
            "BADD110313HCMLNS09",
            "MORGA753116SM9IJ",
        ] {
            assert!(id_number_cell_ok(ok.as_bytes()), "{ok}");
        }
        for no in [
            "NULL",
            "1234",
            "XXX-XX-1234",
            "***-**-6789",
            "000-00-0000",
            "123456789",
            "1234.50",
            "N/A",
            "see note 4521",
            "abc123def456ghi789jkl012mno",
        ] {
            assert!(!id_number_cell_ok(no.as_bytes()), "{no}");
        }
    }

    #[test]
    fn ssn() {
        assert!(ssn_ok(b"536-22-8411"));
        assert!(!ssn_ok(b"000-22-8411"));
        assert!(!ssn_ok(b"666-22-8411"));
        assert!(!ssn_ok(b"912-22-8411"));
        assert!(!ssn_ok(b"536-00-8411"));
        assert!(!ssn_ok(b"536-22-0000"));
        assert!(!ssn_ok(b"078-05-1120"));
    }

    #[test]
    fn github_crc() {
        let body = "Zq8T1mXv0LkP3sWn7RcYb2HdJf5GaE";
        assert_eq!(body.len(), 30);
        let tok = format!("ghp_{}{}", body, base62_6(crc32fast::hash(body.as_bytes())));
        assert!(github_crc32_ok(tok.as_bytes()));
        let mut bad = tok.clone().into_bytes();
        let last = bad.len() - 1;
        bad[last] = if bad[last] == b'a' { b'b' } else { b'a' };
        assert!(!github_crc32_ok(&bad));
        assert!(!github_crc32_ok(b"ghp_short"));
    }

    #[test]
    fn jwt() {
        // {"alg":"HS256","typ":"JWT"} . {"sub":"x"} . sig
        let t = b"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXNpZ25hdHVyZQ";
        assert!(jwt_ok(t));
        assert!(!jwt_ok(b"eyJzdWIiOiJ4In0.eyJzdWIiOiJ4In0.c2ln")); // header has no alg
        assert!(!jwt_ok(b"abc.def"));
    }

    /// `json_base64`: base64 (standard or URL-safe) of a JSON object holding a credential.
    #[test]
    fn json_base64() {
        for (text, want) in [
            ("eyJwYXNzd29yZCI6ICJodW50ZXIyMiJ9", true), // {"password": "hunter22"}: a credential member
            (
                "eyJhdXRocyI6IHsici5pbyI6IHsiYXV0aCI6ICJZMms2ZUE9PSJ9fX0=",
                true,
            ), // {"auths": {"r.io": {"auth": "Y2k6eA=="}}}: nested, `auth`
            ("W3siYXBpS2V5IjogImstMTIzNDUifV0=", false), // [{"apiKey": "k-12345"}]: an array, not an object
            ("eyJkYiI6IFt7ImNsaWVudF9zZWNyZXQiOiAiczNjcjN0ISJ9XX0=", true), // {"db": [{"client_secret": "s3cr3t!"}]}: inside an array member
            ("eyJwYXNzd29yZCI6ICIifQ==", false), // {"password": ""}: an empty value
            ("eyJwYXNzd29yZCI6IDEyMzQ1Njc4fQ==", false), // {"password": 12345678}: a number
            ("eyJ0b2tlbl9jb3VudCI6IDEyLCAidXNlciI6ICJ4In0=", false), // {"token_count": 12, "user": "x"}: no string under a credential name
            ("eyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9", false), // {"alg": "HS256", "typ": "JWT"}: a JWT header
            ("eyJ0b2tlbml6ZXIiOiAiYnBlLTMyay12b2NhYiJ9", false), // {"tokenizer": "bpe-32k-vocab"}: a tokenizer is no token
            ("eyJ0b2tlbl90eXBlIjogIkJlYXJlci1hYmMifQ==", false), // {"token_type": "Bearer-abc"}: a token's type
            ("eyJuZXh0UGFnZVRva2VuIjogIkNpQUtHakJwTlRkayJ9", false), // {"nextPageToken": "CiAKGjBpNTdk"}: a pagination cursor
            ("eyJhdXRoIjogIm5vbmUifQ==", false), // {"auth": "none"}: a placeholder value
            ("bm90IGpzb24=", false),             // "not json"
            ("eyJwYXNzd29yZCI6ICJodW50ZXIyMiJ9", true), // without padding
        ] {
            assert_eq!(json_base64_ok(text.as_bytes()), want, "{text}");
        }
        // URL-safe alphabet: {"secret": "k9?>Lm~~Qz81"} encodes with `-` / `_`
        assert!(json_base64_ok(b"eyJzZWNyZXQiOiAiazk_Pkxtfn5RejgxIn0"));
    }

    #[test]
    fn look_alike_values() {
        // templates, env-var names, masks, fillers, runs: placeholders for every rule
        for p in [
            &b"${API_TOKEN}"[..],
            b"$(gcloud auth print-access-token)",
            b"<Openverse",
            b"{SumoAccessKey}",
            b"ENC[AES256_GCM,data:Zm9v]",
            b"ACCESS_TOKEN",
            b"xoxp-5723-####",
            b"xoxe.xoxp-1-RandomStringHere",
            b"sgp_1111111bCCCCC2222222DdddEEbbbbbbbbbbbbbb",
        ] {
            assert!(looks_placeholder(p), "{}", String::from_utf8_lossy(p));
        }
        for s in [
            &b"xoxb-492755519920-5285365623324-ckquA3JDXq0VmrIeZMeoNGiI"[..],
            b"AKIAZQ3DRSQ5GLXKTPWB",
            b"fm1r_lJPECAAAAAAAAMqcxBBLMJKXYKJiT0CI58XmukX",
        ] {
            assert!(!looks_placeholder(s), "{}", String::from_utf8_lossy(s));
        }
        // generic values: versioned names, fragments, command lines are no secrets
        for v in [
            &b"SalesResults-1.2"[..],
            b"jjwt-jackson-0.11.2",
            b"lib_v2.0.1-rc1",
            b"token:",
            b"password>",
            b"telegram_api_token =",
            b"etcdctl get /app/secret",
            b"vault kv get -field=pw secret/db",
            b"os.environ[",
            b"$_ENV[",
            b"*default_pw",
            b"!vault |",
            b"0.93452",
            b"2024-05-01T12:00:00Z",
            b"2024-05-01 12:00:00.123+02:00",
            b"id=npmrc,src=$HOME/.npmrc",
            b"user_password_hash",
            b"MAX_TOKENS",
            b"access-tokenCount",
            b"X25519.secret_length",
            b"settings.SECRET_KEY",
            b"sha1:cc806e2c079eccc1aeda232b2c8f41f5e1968c9e",
            b"sha256-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            b"prod/rds/master:SecretString:password}}",
            b"<your-api-key>",
            b"Bearer<TOKEN>x",
            b"/run/secrets/db_password",
            b"/etc/ssl/private/server.key",
            b"/home/u/certs/localhost+2-key.pem",
            b"/home/u/.ssh/Keys/ID_25519_prod_Xq7",
        ] {
            assert!(!secret_value_ok(v), "{}", String::from_utf8_lossy(v));
        }
        for v in [
            &b"s3cUre7Tq-x9Lp2Kv"[..],
            b"my horse ate 7 carrots",
            b"correct horse battery staple",
            b"dGVzdC1zZWNyZXQtdmFsdWU=",
            b"Qm7vX2pLk9wR[",
            b"!Qm7vX2pLk9wR",
            b"*Hunter2Hunter2",
            b"2024-05-01Tz8rK2mWq5Ln",
            b"a=Qm7vX2pLk9wR",
            b"npg_dGyzjTcwEsrK",
            b"K0zkvujAg5Kf1U.zzEAdEN",
            b"uTb.vjX6oXF2t9Jej5ku",
            // random characters holding `<`, base64 starting with `/`
            b"x7gf12RH4=Xk5a8a2^23ez+<~*5Q9a",
            b"/fOHdMKxQ7S8gbl2U7xipWCiFbA6mbxJWEidr+HXxkJg7meLTDHAwhBzXhZ88kjfV9U0QQZlLlh+7dyLlXVYNg==",
            b"/fOHdMKxQ7S8gbl2U7xipWCiFbA6mbxJWEidrHXxkJg7meLTD",
            // a cookie list longer than a pass-phrase
            format!("{}_app_session=Qm7vX2pLk9wR", "_ga=GA1.2.98561; locale=en; ".repeat(8)).as_bytes(),
        ] {
            assert!(secret_value_ok(v), "{}", String::from_utf8_lossy(v));
        }
    }

    #[test]
    fn typed_declarations_and_calls_name_the_variable() {
        for (prefix, name) in [
            (&b"const CACHE_KEY: &str = \""[..], &b"const CACHE_KEY"[..]),
            (
                b"static API_SECRET: &'static str = \"",
                b"static API_SECRET",
            ),
            (b"apiToken?: string | undefined = '", b"apiToken"),
            (b"masterKey = Convert.FromHexString(\"", b"masterKey "),
            (b"api_key: \"", b"api_key: \""),
            (b"a::b = \"", b"a::b = \""),
            (b"token = \"", b"token = \""),
        ] {
            assert_eq!(
                without_call(without_type(prefix)),
                name,
                "{}",
                String::from_utf8_lossy(prefix)
            );
        }
    }

    #[test]
    fn key_names() {
        for n in [
            &b"csrf_token = "[..],
            b"name=\"authenticity_token\" value=",
            b"keyVaultToStoreSecrets: ",
            b"primaryKey=",
            b"\"bucket_key\": ",
            b"credentialsId = ",
            b"<key>PasswordRules</key>\n  <string>",
            b"<key>ApiKeyHint</key><string>",
            b"key_hint = base64.b64decode(b\"",
            b"\"hashed_secret\": \"",
            b"cache key is ",
            b"partition key ",
            b"next token ",
            b"CSRF token ",
            b"CSRF token is: ",
            b"using EDDSA key ",
        ] {
            assert!(!key_name_ok(b"", n), "{}", String::from_utf8_lossy(n));
        }
        for n in [
            &b"session_token = "[..],
            b"signingKey = ",
            b"bucket_secret_key = ",
            b"azure_search_key = ",
            b"asanaToken\" => ",
            b"<key>DbPassword</key>\n  <string>",
            b"<password>",
            b"masterKey = Convert.FromHexString(\"",
            b"signing_key = bytes.fromhex(b'",
            b"api key is ",
            b"calendarific token ",
            b"widgetco_secret ",
        ] {
            assert!(key_name_ok(b"", n), "{}", String::from_utf8_lossy(n));
        }
    }

    #[test]
    fn entropy() {
        assert_eq!(shannon_entropy(b"aaaa"), 0.0);
        assert!((shannon_entropy(b"abcd") - 2.0).abs() < 1e-9);
    }

    #[test]
    fn random_token_wants_a_random_body_after_its_prefix() {
        for (token, ok) in [
            (
                "AIK_SECRET_8sOfKH8oxFfysjyGoUWGZ7Z54vFb4pBXNTQb5igKY4oO8dIimwswmpCWl",
                true,
            ),
            ("BSAWfe55KfgPt7QGOy8Zgq-oDxsonGH", true),
            ("bkua_dzf9ivbn8a40velf2iy21h2uehw9hhzt9hng0u8i", true),
            ("rpa_KTK2EAA6LQFZBG5VI3Z3XVX8LPPLVL5A3S0517GHaI57Qt", true),
            ("PMAT-01HQ8V3XKD2N7M4P9R6T5W1Y0Z", true),
            ("sm_pat_19azdTvR7XW5pUPA", true),
            // identifiers, words and placeholders after the prefix
            ("BSA_CONFIG_FILE_PATH_NAME_2021", false),
            ("rnd_generatorWithSeedAndCount1", false),
            ("phx_liveViewComponentRenderer2", false),
            ("BSA_HTTPServerConfigLoader", false),
            ("BSA_HTTPServerConfigLoader2", false),
            ("tokenCountForTheWHOLEThing2", false),
            ("pina_AAAAAAAAAAAAAAAAAAAAAAAAAAAA", false),
            ("v2_build_2021_x86_64_release", false),
            ("unkey_XXXXXXXXXXXXXXXXXXXXXXXX", false),
            ("sm_pat_abc123", false),
        ] {
            assert_eq!(random_token_ok(token.as_bytes()), ok, "{token}");
        }
    }

    #[test]
    fn prefixed_token_wants_a_random_body_after_its_prefix() {
        for (token, ok) in [
            ("apify_api_Qv7Lm2Xk9Rz4Tn8Wp3Hc6Bd1Jf5Gs0Ya2Ue", true),
            ("tgp_v1_Hq4Zr8Lm2Wx7Tn5Kp9Vd3Bs6Cf1Gj0Ny-Ue_Ai2Ok", true),
            ("sha256~-gqv81RKMGHZEM9YpvujA_C5Q52ryFlwRlOEVHzc0X0", true),
            // no prefix word, or a hash name / public word as one
            ("Qv7Lm2Xk9Rz4Tn8Wp3Hc6Bd1Jf5Gs0Ya2Ue", false),
            ("sha512-Qv7Lm2Xk9Rz4Tn8Wp3Hc6Bd1Jf5Gs0Ya2Ue", false),
            ("sb_publishable_Qv7Lm2Xk9Rz4Tn8Wp3Hc6Bd1Jf5Gs0Ya2Ue", false),
            // short, one case, one digit, a camelCase identifier, a placeholder
            ("ion_Qv7Lm2Xk9Rz4Tn8W", false),
            ("ddp_abcdef0123456789abcdef0123456789abcd", false),
            ("ion_sessionRefreshTokenRotationHandler4Admins", false),
            ("db-migrate-AddUsersTableWithEmailIndex2024v2", false),
            ("apify_api_XXXXXXXXXXXXXXXXXXXXXXXXXXXX12", false),
        ] {
            assert_eq!(prefixed_token_ok(token.as_bytes()), ok, "{token}");
        }
    }
}
