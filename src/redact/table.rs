//! Tables whose header names a credential column (or a date-of-birth column): the cells
//! under it are secrets (or personal data).
//!
//! A database client, a secret store's CLI or a CSV export prints values in a grid, and the
//! only thing that says a cell is a credential is its column's name, lines away:
//!
//! ```text
//!  id |  name  |                 api_key                  
//! ----+--------+------------------------------------------
//!  26 | ios    | ak_live_m5717kqNc4mkj8JeRf9KPlnsSNDPw7Oe
//! ```
//!
//! A rule with `validate table_columns` finds header *cells* (its regex); [`cells`] reads the
//! header's line, splits it into cells, and picks the credential columns: a name holding a
//! credential word that [`validate::key_name_ok`] accepts (`api_key`, `refresh_token`; not
//! `token_type`, `password_hash`), or a `value` column whose row's `name` / `key` cell is
//! such a name (`doppler secrets`, `vault kv get -format=table`). Then it walks the rows
//! below: psql's aligned output and Markdown (`|`), mysql's bordered tables (`|` with `+---+`
//! borders), box drawing (`│`, `├─┼`), CSV (quotes honoured), tab-separated values, and a
//! SQL `INSERT INTO t (cols) VALUES (…), (…)` with its tuples. The table ends at the first
//! line that is not a row (fewer cells than the header: `(4 rows)`, a blank line, a prompt),
//! after [`MAX_ROWS`] rows, or at the end of the text's piece; a row with more cells (a
//! separator inside a value) is skipped. Header lines are at most [`MAX_HEADER`] bytes.
//!
//! Each cell is then judged by the rule's validator ([`Validator::TableColumns`],
//! [`validate::table_cell_ok`]: eight or more ASCII characters, no blank, no lower-case path,
//! and [`validate::secret_value_ok`]), so `NULL`, `true`, `read,write` and placeholders stay.
//! A rule with `validate table_birth_dates` picks date-of-birth columns instead (`dob`,
//! `date_of_birth`, `Birthday`, `patient_dob`, `Geburtsdatum`), and each cell must be a date
//! ([`validate::birth_date_cell_ok`]); one with `validate table_id_numbers` picks columns of
//! personal id numbers (`ssn`, `passport_no`, `tax_id`, `ni_number`), and each cell must
//! read as one ([`validate::id_number_cell_ok`]).
//! A stream carries an open table's header line into its next round ([`open_header`]).
//!
//! [`Validator::TableColumns`]: super::validate::Validator::TableColumns

use super::validate;

/// Most rows read below one header.
pub const MAX_ROWS: usize = 100_000;

/// Longest header cell taken for a column name.
const MAX_NAME: usize = 64;

/// Longest header line: a longer line is no table's header (and is not split, so a
/// megabyte-long line of `|token|` costs one bounded look per search, not one split each).
pub const MAX_HEADER: usize = 4096;

/// How a table separates its cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sep {
    /// `|` (psql, mysql, Markdown).
    Pipe,
    /// `│` (box drawing).
    Box,
    /// `,` with `"…"` quoting (CSV).
    Comma,
    /// A tab.
    Tab,
    /// `,` inside the parenthesised tuples of a SQL `INSERT … VALUES`.
    Tuple,
}

const BOX: &[u8] = "│".as_bytes();

/// Credential words a column name holds (whole words of the name, or its end).
const CREDENTIAL_WORDS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "credential",
    "credentials",
];

/// Does a column (or a row's name cell) name a credential?
fn credential_name(name: &[u8]) -> bool {
    if name.is_empty() || name.len() > MAX_NAME {
        return false;
    }
    let lower = name.to_ascii_lowercase();
    let words: Vec<&[u8]> = lower
        .split(|b| !b.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    // `api_key`, `private key`, `access-key`, `AccessKey` (one word: `accesskey`)
    let keyed = words.windows(2).any(|p| {
        p[1] == b"key" && matches!(p[0], b"api" | b"private" | b"access" | b"secret" | b"auth")
    }) || words.iter().any(|w| {
        matches!(
            *w,
            b"apikey" | b"privatekey" | b"accesskey" | b"secretkey" | b"authkey"
        )
    });
    let worded = words.iter().any(|w| {
        CREDENTIAL_WORDS.iter().any(|c| {
            let c = c.as_bytes();
            *w == c || (w.len() > c.len() && w.ends_with(c))
        })
    });
    (keyed || worded) && validate::key_name_ok(b"", name)
}

/// What a table rule's columns hold, told by their names (see [`cells`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// Credentials (`api_key`, `password`, a `value` beside a credential-named row).
    Credential,
    /// Dates of birth (`dob`, `date_of_birth`, `Birthday`, `Geburtsdatum`).
    BirthDate,
    /// Personal id numbers (`ssn`, `passport_number`, `tax_id`, `ni_number`).
    IdNumber,
}

impl Column {
    /// Every kind.
    const ALL: [Column; 3] = [Column::Credential, Column::BirthDate, Column::IdNumber];

    /// The columns a table rule reads, by its validator (`table_columns`,
    /// `table_birth_dates`, `table_id_numbers`); `None` for a rule that is no table rule.
    pub fn of(v: validate::Validator) -> Option<Column> {
        match v {
            validate::Validator::TableColumns => Some(Column::Credential),
            validate::Validator::TableBirthDates => Some(Column::BirthDate),
            validate::Validator::TableIdNumbers => Some(Column::IdNumber),
            _ => None,
        }
    }

    /// Does a column named `name` hold this kind's values?
    fn names(self, name: &[u8]) -> bool {
        match self {
            Column::Credential => credential_name(name),
            Column::BirthDate => birth_date_name(name),
            Column::IdNumber => id_number_name(name),
        }
    }
}

/// Names of a date-of-birth column, lower case with only letters and digits kept
/// (`date_of_birth` → `dateofbirth`); also the end of a longer name (`patient_dob`).
const BIRTH_DATE_NAMES: &[&str] = &[
    "dob",
    "dateofbirth",
    "birthdate",
    "birthday",
    "birthdt",
    "bday",
    "geburtsdatum",
    "fechanacimiento",
    "fechadenacimiento",
    "datenaissance",
    "datedenaissance",
    "datanascita",
    "datadinascita",
    "datanascimento",
    "datadenascimento",
    "geboortedatum",
];

/// A column name in lower case with only its letters and digits (`date_of_birth` →
/// `dateofbirth`); `None` if empty or longer than [`MAX_NAME`].
fn squashed(name: &[u8]) -> Option<Vec<u8>> {
    (!name.is_empty() && name.len() <= MAX_NAME).then(|| {
        name.iter()
            .filter(|b| b.is_ascii_alphanumeric())
            .map(u8::to_ascii_lowercase)
            .collect()
    })
}

/// Does a column name a date of birth?
fn birth_date_name(name: &[u8]) -> bool {
    squashed(name).is_some_and(|s| BIRTH_DATE_NAMES.iter().any(|n| s.ends_with(n.as_bytes())))
}

/// Names of a personal id-number column, squashed as [`BIRTH_DATE_NAMES`] are, with up to
/// two trailing `number`, `nummer`, `num`, `no`, `nr` or `id` taken off or not
/// (`passport_no` → `passport`, `NationalIDNumber` → `national`); also the end of a longer
/// name (`patient_ssn`, `employee_passport_number`).
const ID_NUMBER_NAMES: &[&str] = &[
    "ssn",
    "socialsecurity",
    "nationalinsurance",
    "nationalidentity",
    "nationalidentifier",
    "nationalidentification",
    "personalidentity",
    "passport",
    "driverslicense",
    "driverlicense",
    "driverslicence",
    "driverlicence",
    "drivinglicense",
    "drivinglicence",
    "aadhaar",
    "pesel",
    "burgerservice",
    "personnummer",
    "curp",
    "socialinsurance",
];

/// Names taken only whole: short words as the end of a longer name (`cosin`) say nothing.
const ID_NUMBER_WORDS: &[&str] = &["bsn", "cpf", "tfn"];

/// Names taken only with a suffix taken off: alone (`national`, `nhs`) they name anything.
/// Also the end of a longer name (`patient_nhs_number`).
const ID_NUMBER_STEMS: &[&str] = &[
    "national",
    "taxpayer",
    "taxidentification",
    "steuer",
    "nhs",
    "medicare",
    "idcard",
];

/// [`ID_NUMBER_STEMS`] taken only whole: as the end of a longer name they say nothing
/// (`omni_no`, `syntax_no`; so `customer_tax_id` is not read either).
const ID_NUMBER_WHOLE_STEMS: &[&str] = &["ni", "dl", "tax"];

/// A column name without one trailing `number`, `nummer`, `num`, `no`, `nr` or `id`.
fn without_number_suffix(n: &[u8]) -> Option<&[u8]> {
    ["number", "nummer", "num", "no", "nr", "id"]
        .iter()
        .find_map(|x| n.strip_suffix(x.as_bytes()))
        .filter(|b| !b.is_empty())
}

/// Does a column name a personal id number?
fn id_number_name(name: &[u8]) -> bool {
    let Some(squashed) = squashed(name) else {
        return false;
    };
    let named = |n: &[u8]| {
        ID_NUMBER_NAMES.iter().any(|w| n.ends_with(w.as_bytes()))
            || ID_NUMBER_WORDS.iter().any(|w| n == w.as_bytes())
    };
    let stem = |b: &[u8]| {
        named(b)
            || ID_NUMBER_STEMS.iter().any(|w| b.ends_with(w.as_bytes()))
            || ID_NUMBER_WHOLE_STEMS.iter().any(|w| b == w.as_bytes())
    };
    let once = without_number_suffix(&squashed);
    let twice = once.and_then(without_number_suffix);
    named(&squashed) || once.is_some_and(stem) || twice.is_some_and(stem)
}

/// Header names of the column that holds a row's name in a name / value listing.
const NAME_COLUMNS: &[&str] = &["name", "key", "variable", "parameter", "setting", "field"];

/// A cell's text without its padding and quotes.
fn trim(hay: &[u8], (mut s, mut e): (usize, usize)) -> (usize, usize) {
    while s < e && matches!(hay[s], b' ' | b'\t' | b'\r') {
        s += 1;
    }
    while e > s && matches!(hay[e - 1], b' ' | b'\t' | b'\r') {
        e -= 1;
    }
    if e - s >= 2 && matches!(hay[s], b'"' | b'\'' | b'`') && hay[e - 1] == hay[s] {
        s += 1;
        e -= 1;
    }
    (s, e)
}

/// The cells of the line `[s, e)` (spans, untrimmed), split on `sep`.
fn split(hay: &[u8], (s, e): (usize, usize), sep: Sep) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = s;
    let mut i = s;
    let mut quote: Option<u8> = None;
    while i < e {
        let b = hay[i];
        let quoting = matches!(sep, Sep::Comma | Sep::Tuple);
        // the width of a separator starting here (0: none)
        let width = match quote {
            Some(q) if b == q => {
                // a doubled quote is one quote character inside the cell
                if i + 1 < e && hay[i + 1] == q {
                    i += 1;
                } else {
                    quote = None;
                }
                0
            }
            // mysqldump escapes a quote inside a string as `\'`
            Some(_) if b == b'\\' && sep == Sep::Tuple => {
                i += 1;
                0
            }
            Some(_) => 0,
            None if quoting && (b == b'"' || (b == b'\'' && sep == Sep::Tuple)) => {
                quote = Some(b);
                0
            }
            None => match sep {
                Sep::Comma | Sep::Tuple => usize::from(b == b','),
                Sep::Pipe => usize::from(b == b'|'),
                Sep::Tab => usize::from(b == b'\t'),
                Sep::Box if hay[i..e].starts_with(BOX) => BOX.len(),
                Sep::Box => 0,
            },
        };
        if width > 0 {
            out.push((from, i));
            from = i + width;
        }
        i += width.max(1);
    }
    out.push((from, e));
    out
}

/// A border line (`----+----`, `+------+`, `|---|:--:|`, `├────┼────┤`): no cells, only
/// rules.
fn border(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(line);
    let t = text.trim();
    !t.is_empty()
        && t.chars()
            .any(|c| c == '-' || c == '─' || c == '=' || c == '═')
        && t.chars().all(|c| {
            matches!(c, '-' | '+' | '|' | ':' | '=' | ' ' | '\t')
                || ('\u{2500}'..='\u{257f}').contains(&c)
        })
}

/// The end of the line that starts at `s` (before its `\n`), at most `end`.
fn line_end(hay: &[u8], s: usize, end: usize) -> usize {
    memchr::memchr(b'\n', &hay[s..end]).map_or(end, |k| s + k)
}

/// The line holding `at` (to `end`), if it is short enough to be a header.
fn header_line(hay: &[u8], at: usize, end: usize) -> Option<(usize, usize)> {
    let lo = at.saturating_sub(MAX_HEADER);
    let ls = match memchr::memrchr(b'\n', &hay[lo..at]) {
        Some(k) => lo + k + 1,
        None if lo == 0 => 0,
        None => return None,
    };
    let hi = (ls + MAX_HEADER).min(end);
    let le = match memchr::memchr(b'\n', &hay[at..hi]) {
        Some(k) => at + k,
        None if hi == end => end,
        None => return None,
    };
    Some((ls, le))
}

/// The separator of a header line.
fn separator(line: &[u8]) -> Option<Sep> {
    let lower = line.to_ascii_lowercase();
    let has = |word: &[u8]| lower.windows(word.len()).any(|w| w == word);
    if has(b"insert") && has(b"into") && has(b"values") {
        Some(Sep::Tuple)
    } else if line.windows(BOX.len()).any(|w| w == BOX) {
        Some(Sep::Box)
    } else if line.contains(&b'|') {
        Some(Sep::Pipe)
    } else if line.contains(&b'\t') {
        Some(Sep::Tab)
    } else if line.contains(&b',') {
        Some(Sep::Comma)
    } else {
        None
    }
}

/// The columns of a table that hold secrets.
struct Columns {
    /// Credential-named columns.
    secret: Vec<usize>,
    /// A `value` column: (the column naming its rows, the value column).
    value: Option<(usize, usize)>,
}

/// Which columns hold secrets: those named for `kind`, and for credentials a `value` column
/// (with the index of the column naming its rows). `None` when the line is no header of
/// names.
fn columns(hay: &[u8], cells: &[(usize, usize)], kind: Column) -> Option<Columns> {
    let names: Vec<&[u8]> = cells
        .iter()
        .map(|&c| {
            let (s, e) = trim(hay, c);
            &hay[s..e]
        })
        .collect();
    // a header is a row of names: short, of word characters
    let named = names.iter().all(|n| {
        n.len() <= MAX_NAME
            && n.iter()
                .all(|&b| b.is_ascii_alphanumeric() || b >= 0x80 || b" _.-#/()".contains(&b))
    });
    if !named || names.iter().filter(|n| !n.is_empty()).count() < 2 {
        return None;
    }
    let secret: Vec<usize> = (0..names.len()).filter(|&i| kind.names(names[i])).collect();
    if kind != Column::Credential {
        return (!secret.is_empty()).then_some(Columns {
            secret,
            value: None,
        });
    }
    let value = names
        .iter()
        .position(|n| n.eq_ignore_ascii_case(b"value"))
        .and_then(|v| {
            let n = names
                .iter()
                .position(|n| {
                    NAME_COLUMNS
                        .iter()
                        .any(|c| n.eq_ignore_ascii_case(c.as_bytes()))
                })
                .or_else(|| names.iter().position(|n| !n.is_empty()))?;
            (n != v).then_some((n, v))
        });
    (!secret.is_empty() || value.is_some()).then_some(Columns { secret, value })
}

/// The cells (trimmed spans) under the columns of `kind` of the table whose header holds
/// the match starting at `at`, reading rows up to `end`, for the rule's validator to judge;
/// also where the table ends (the search goes on from there: a row is read once, not again
/// as a header of the rows below it). No cells when the line is no table header.
pub fn cells(hay: &[u8], at: usize, end: usize, kind: Column) -> (Vec<(usize, usize)>, usize) {
    let mut out = Vec::new();
    let Some((ls, le)) = header_line(hay, at, end) else {
        return (out, at);
    };
    let Some(sep) = separator(&hay[ls..le]) else {
        return (out, le);
    };
    if sep == Sep::Tuple {
        tuples(hay, (ls, le), end, kind, &mut out);
        return (out, le);
    }
    let header = split(hay, (ls, le), sep);
    let Some(cols) = columns(hay, &header, kind) else {
        return (out, le);
    };
    let mut s = le + 1;
    let mut last = le;
    let mut rows = 0;
    while s < end && rows < MAX_ROWS {
        let e = line_end(hay, s, end);
        let line = &hay[s..e];
        if !border(line) {
            let row = split(hay, (s, e), sep);
            if row.len() < header.len() || line.iter().all(u8::is_ascii_whitespace) {
                break;
            }
            rows += 1;
            // more cells: a separator inside a value (psql does not escape `|`), so this
            // row's cells cannot be told apart; the rows after it can
            if row.len() == header.len() {
                take(hay, &row, &cols, &mut out);
            }
        }
        (s, last) = (e + 1, e);
    }
    (out, last)
}

/// In a stream: where the header of a table that is still open at `at` starts (its rows
/// and borders run, of one shape, from there to the line holding `at`), at most `cap`
/// bytes back; the topmost header-like line of that run, so a row that reads like a header
/// (`│ JWT_SECRET │ … │`) does not stand in for the real one. The stream keeps that line in
/// front of the next round's context, so the next round reads the rows with their header.
pub fn open_header(hay: &[u8], at: usize, cap: usize) -> Option<usize> {
    let floor = at.saturating_sub(cap);
    let mut s =
        memchr::memrchr(b'\n', &hay[floor..at.min(hay.len())]).map_or(floor, |k| floor + k + 1);
    let mut e = line_end(hay, s, hay.len());
    let mut shape: Option<(Sep, usize)> = None;
    let mut header = None;
    loop {
        let line = &hay[s..e];
        if !border(line) {
            let (sep, n) = match shape {
                Some(x) => x,
                None => {
                    let sep = separator(line).filter(|&p| p != Sep::Tuple)?;
                    (sep, split(hay, (s, e), sep).len())
                }
            };
            let cells = split(hay, (s, e), sep);
            if cells.len() != n || n < 2 {
                break;
            }
            shape = Some((sep, n));
            if e - s <= MAX_HEADER
                && Column::ALL
                    .into_iter()
                    .any(|kind| columns(hay, &cells, kind).is_some())
            {
                header = Some(s);
            }
        }
        if s <= floor {
            break;
        }
        e = s - 1;
        s = memchr::memrchr(b'\n', &hay[floor..e]).map_or(floor, |k| floor + k + 1);
    }
    header
}

/// Keep the cells of one row under the credential columns.
fn take(hay: &[u8], row: &[(usize, usize)], cols: &Columns, out: &mut Vec<(usize, usize)>) {
    // a cell that names a credential (`JWT_SIGNING_SECRET`, no digits) is a name (a row read
    // as a header), not a value
    let mut keep = |c: (usize, usize)| {
        let (s, e) = trim(hay, c);
        let cell = &hay[s..e];
        let name = credential_name(cell) && !cell.iter().any(u8::is_ascii_digit);
        if e > s && !name {
            out.push((s, e));
        }
    };
    for &i in &cols.secret {
        keep(row[i]);
    }
    if let Some((n, v)) = cols.value {
        let (s, e) = trim(hay, row[n]);
        if credential_name(&hay[s..e]) {
            keep(row[v]);
        }
    }
}

/// `INSERT INTO t (a, secret, …) VALUES (…), (…);`: the column list is the header, each
/// parenthesised tuple after `VALUES` a row.
fn tuples(
    hay: &[u8],
    (ls, le): (usize, usize),
    end: usize,
    kind: Column,
    out: &mut Vec<(usize, usize)>,
) {
    let lower = hay[ls..le].to_ascii_lowercase();
    // the `VALUES` that follows a `)` (a table may be named `app_values`)
    let Some(v) = (0..lower.len().saturating_sub(5)).find(|&k| {
        lower[k..].starts_with(b"values") && lower[..k].trim_ascii_end().ends_with(b")")
    }) else {
        return;
    };
    let Some(open) = lower[..v].iter().position(|&b| b == b'(') else {
        return;
    };
    let Some(close) = lower[..v].iter().rposition(|&b| b == b')') else {
        return;
    };
    if close <= open {
        return;
    }
    let header = split(hay, (ls + open + 1, ls + close), Sep::Tuple);
    let Some(cols) = columns(hay, &header, kind).filter(|c| !c.secret.is_empty()) else {
        return;
    };
    let mut i = ls + v + 6;
    let mut rows = 0;
    while rows < MAX_ROWS {
        // to the next tuple: blanks, line breaks and the `,` between tuples only
        while i < end && matches!(hay[i], b' ' | b'\t' | b'\r' | b'\n' | b',') {
            i += 1;
        }
        if i >= end || hay[i] != b'(' {
            return;
        }
        let Some(close) = tuple_end(hay, i + 1, end) else {
            return;
        };
        let row = split(hay, (i + 1, close), Sep::Tuple);
        if row.len() != header.len() {
            return;
        }
        rows += 1;
        take(hay, &row, &cols, out);
        i = close + 1;
    }
}

/// Where the tuple whose body starts at `i` closes (its `)` outside quotes and nested
/// parentheses).
fn tuple_end(hay: &[u8], mut i: usize, end: usize) -> Option<usize> {
    let mut quote: Option<u8> = None;
    let mut depth = 0usize;
    while i < end {
        let b = hay[i];
        match quote {
            Some(q) if b == q => {
                if hay.get(i + 1) == Some(&q) {
                    i += 1;
                } else {
                    quote = None;
                }
            }
            Some(_) if b == b'\\' => i += 1,
            Some(_) => {}
            None => match b {
                b'\'' | b'"' => quote = Some(b),
                b'(' => depth += 1,
                b')' if depth == 0 => return Some(i),
                b')' => depth -= 1,
                b'\n' => return None,
                _ => {}
            },
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The secret cells of `text`'s table whose header holds `word`: its cells that the
    /// rule's validator accepts, as the engine judges them.
    fn found(text: &str, word: &str) -> Vec<String> {
        let at = text.find(word).expect("the header word");
        cells(text.as_bytes(), at, text.len(), Column::Credential)
            .0
            .into_iter()
            .map(|(s, e)| text[s..e].to_string())
            .filter(|c| validate::table_cell_ok(c.as_bytes()))
            .collect()
    }

    #[test]
    fn column_names() {
        for (name, want) in [
            ("api_key", true),
            ("refresh_token", true),
            ("AccessKey", true),
            ("password", true),
            ("db_passwd", true),
            ("client secret", true),
            ("token_type", false),
            ("password_hash", false),
            ("key", false),
            ("name", false),
            ("tokens_used", false),
        ] {
            assert_eq!(credential_name(name.as_bytes()), want, "{name}");
        }
    }

    #[test]
    fn psql_mysql_box_csv_tsv_insert() {
        let psql = " id | name | api_key\n----+------+--------------------------\n 1 | ios | ak_live_m5717kqNc4mkj8JeRf9K\n 2 | web | NULL\n(2 rows)\n 3 | x | ak_live_zvYRXCtEQtGyF0FwfyBx\n";
        assert_eq!(found(psql, "api_key"), ["ak_live_m5717kqNc4mkj8JeRf9K"]);
        let mysql = "+----+--------------------------+\n| id | access_token             |\n+----+--------------------------+\n|  1 | 0fRvWUttTnjCIbjv42Nzz4W8 |\n+----+--------------------------+\n";
        assert_eq!(found(mysql, "access_token"), ["0fRvWUttTnjCIbjv42Nzz4W8"]);
        let boxed = "│ NAME        │ VALUE                    │\n├─────────────┼──────────────────────────┤\n│ DOPPLER_ENV │ dev                      │\n│ JWT_SECRET  │ yjDUGccfsG84odceJ7avmj8W │\n";
        assert_eq!(found(boxed, "VALUE"), ["yjDUGccfsG84odceJ7avmj8W"]);
        let csv = "url,username,password\nhttps://a.example,me,\"TPsSFG0N,D85l-CCk\"\nhttps://b.example,you,QHX*Zn9VR*K7j19B\n\nx,y,zzzzzzzzzzzzzzzz\n";
        assert_eq!(
            found(csv, "password"),
            ["TPsSFG0N,D85l-CCk", "QHX*Zn9VR*K7j19B"]
        );
        let tsv = "name\tsecret\nci\t9f2kQ7wLx0Vb3nR8\n";
        assert_eq!(found(tsv, "secret"), ["9f2kQ7wLx0Vb3nR8"]);
        let sql = "INSERT IGNORE INTO `c` (`id`, `name`, `secret`) VALUES\n(1, 'Personal, Client', '1Or3Kb9G8SxmZyNF'),\n(2, 'it''s', 'uFo23f7ADpWwlmeQ');\n";
        assert_eq!(
            found(sql, "secret"),
            ["1Or3Kb9G8SxmZyNF", "uFo23f7ADpWwlmeQ"]
        );
    }

    #[test]
    fn open_tables_in_a_stream() {
        let t = "log\n id | api_key\n----+----\n 1 | Zq8xV2mK9pL4nB7w\n 2 | Lp0dK7vQ2sXw9RmT\n";
        let at = t.find(" 2 |").unwrap() + 3;
        assert_eq!(open_header(t.as_bytes(), at, 1 << 20), Some(4));
        // too far back, or no table
        assert_eq!(open_header(t.as_bytes(), at, 20), None);
        assert_eq!(open_header(b"just text\nmore text\n", 15, 1 << 20), None);
        // the topmost header-like line of a name / value table
        let nv = "│ NAME │ VALUE │\n│ DB_SECRET │ x │\n│ API_TOKEN │ y │\n";
        assert_eq!(open_header(nv.as_bytes(), nv.len() - 2, 1 << 20), Some(0));
    }

    /// A date-of-birth column: its cells that are dates, in every table shape; a column
    /// named otherwise, or a cell that is no date, is left.
    #[test]
    fn birth_date_columns_give_their_dates() {
        let dates = |text: &str, word: &str| -> Vec<String> {
            let at = text.find(word).expect("the header word");
            cells(text.as_bytes(), at, text.len(), Column::BirthDate)
                .0
                .into_iter()
                .map(|(s, e)| text[s..e].to_string())
                .filter(|c| validate::birth_date_cell_ok(c.as_bytes()))
                .collect()
        };
        let csv = "id,name,dob,plan\n1,Ana,10/21/1997,basic\n2,Bo,unknown,pro\n";
        assert_eq!(dates(csv, "dob"), ["10/21/1997"]);
        let psql = " id | patient_birth_date\n----+----\n  7 | 2002-09-28\n(1 row)\n";
        assert_eq!(dates(psql, "patient_birth_date"), ["2002-09-28"]);
        let sql = "INSERT INTO m (id, birth_dt) VALUES (1, '1965-02-10'), (2, NULL);";
        assert_eq!(dates(sql, "birth_dt"), ["1965-02-10"]);
        let tsv = "Name\tGeburtsdatum\nAna\t17.10.2002\n";
        assert_eq!(dates(tsv, "Geburtsdatum"), ["17.10.2002"]);
        // a credential rule's columns are not a birth-date rule's, nor the reverse
        assert!(dates("id,birthday_reminder\n1,2024-01-01\n", "birthday").is_empty());
        assert!(found("id,dob\n1,Zq8xV2mK9pL4nB7w\n", "dob").is_empty());
    }

    /// Id-number columns by name: the scheme's word, with or without a number suffix, at the
    /// end of a longer name; short or common words only whole and with a suffix.
    #[test]
    fn id_number_column_names() {
        for (name, want) in [
            ("ssn", true),
            ("patient_ssn", true),
            ("SocialSecurityNumber", true),
            ("passport_no", true),
            ("Passport Number", true),
            ("tax_id", true),
            ("TaxNumber", true),
            ("ni_number", true),
            ("NINO", true),
            ("national_id", true),
            ("nhs_number", true),
            ("driver_license", true),
            ("bsn", true),
            ("Steuernummer", true),
            ("personnummer", true),
            ("NationalIDNumber", true),
            ("tax_id_number", true),
            ("patient_nhs_number", true),
            ("tax", false),
            ("tax_rate", false),
            ("national", false),
            ("syntax_no", false),
            ("omni_no", false),
            ("ssn_verified", false),
            ("session_id", false),
            ("id", false),
        ] {
            assert_eq!(id_number_name(name.as_bytes()), want, "{name}");
        }
        let ids = |text: &str, word: &str| -> Vec<String> {
            let at = text.find(word).expect("the header word");
            cells(text.as_bytes(), at, text.len(), Column::IdNumber)
                .0
                .into_iter()
                .map(|(s, e)| text[s..e].to_string())
                .filter(|c| validate::id_number_cell_ok(c.as_bytes()))
                .collect()
        };
        let psql = " id | ssn       | ssn_verified\n----+-----------+----\n 1 | 536227194 | t\n 2 | XXX-XX-1234 | f\n";
        assert_eq!(ids(psql, "ssn"), ["536227194"]);
        assert!(ids("id,tax,note\n1,1234.50,x\n", "tax").is_empty());
    }

    #[test]
    fn no_table_no_cells() {
        // a sentence, a data row, a documentation table of option names
        assert!(found("the token | is | here\n", "token").is_empty());
        assert!(found("a | b | token\nx | y | secret sauce here\n", "token").is_empty());
        let doc = "| option | description |\n|---|---|\n| password | The user's password |\n";
        assert!(found(doc, "password").is_empty());
        // rows with another number of cells end the table
        let short = "id | token\n1 | Zq8xV2mK9pL4nB7w | extra\n";
        assert!(found(short, "token").is_empty());
        // values that are no secrets
        let t = "id | password\n1 | NULL\n2 | changeme\n3 | ********\n";
        assert!(found(t, "password").is_empty());
    }
}
