//! National identity, tax and licence numbers, one check per issuing scheme (`validate pesel`,
//! `validate hetu`, …): the number's shape, the birth date it encodes where it has one, and its
//! check digit or letter where the scheme defines one.
//!
//! The pii pack's rules find these numbers only after their label (`PESEL:`, `Henkilötunnus`,
//! `Codice fiscale`), so a check here tells a real number from a look-alike of the same shape
//! (an order number after the label's words, a `0000000000` placeholder). Schemes without a
//! check digit (Danish CPR since 2007, US ITIN, Indian PAN, US MBI, driving licences) and the
//! Korean RRN (issued without one since 2020, so none is verified) are checked by structure
//! only and rely on their label ([`IdScheme::has_check`]).
//!
//! Separators people write inside a number (space, tab, `-`, `.`, `/`) are ignored, except
//! by the schemes that read them: the Finnish century sign, the Swedish `+` (the only other
//! separators a personnummer may hold are space and `-`), and an MRZ's line break.

/// One issuing scheme's number (the `validate` name in brackets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IdScheme {
    /// Polish PESEL (`pesel`): 11 digits, a birth date whose month carries the century
    /// (+20 for the 2000s …), weights 1-3-7-9.
    Pesel,
    /// Finnish personal identity code (`hetu`): `DDMMYY`, a century sign (`+ - A`–`F`,
    /// `U`–`Y`), three digits and the mod-31 check character.
    Hetu,
    /// Swedish personnummer / samordningsnummer (`personnummer`): `[YY]YYMMDD-NNNC`, the day
    /// +60 for a coordination number, Luhn over the last ten digits.
    Personnummer,
    /// Danish CPR number (`cpr`): `DDMMYY-NNNN`, a valid date (no check digit since 2007).
    Cpr,
    /// Norwegian fødselsnummer / D-number (`fodselsnummer`): 11 digits, two mod-11 check digits.
    Fodselsnummer,
    /// Italian codice fiscale (`codice_fiscale`): 16 characters (digits may be replaced by
    /// `LMNPQRSTUV`), a month letter, and the odd/even check letter.
    CodiceFiscale,
    /// Mexican CURP (`curp`): 18 characters, a birth date, sex `H`/`M`/`X`, one of the 33
    /// state codes, three consonants, and the check digit (weights 18 … 2 over the alphabet
    /// `0-9 A-N Ñ O-Z`).
    Curp,
    /// Australian tax file number (`tfn`): 8 or 9 digits, weighted sum divisible by 11.
    Tfn,
    /// Chilean RUT / RUN (`rut`): 7–8 digits and the mod-11 check (`0`–`9` or `K`).
    Rut,
    /// UK NHS number (`nhs`): 10 digits, mod-11 check digit.
    Nhs,
    /// US individual taxpayer identification number (`itin`): 9 digits, starting 9, the
    /// group 50–65, 70–88, 90–92 or 94–99.
    Itin,
    /// Korean resident registration number (`rrn`): `YYMMDD-SNNNNNN`, a valid date and a
    /// sex / century digit (the check digit is not kept since 2020).
    Rrn,
    /// Singapore NRIC / FIN (`nric`): `S`/`T`/`F`/`G`/`M`, seven digits, the check letter.
    Nric,
    /// German tax ID, Steuer-IdNr (`steuer_id`): 11 digits, not starting 0, one digit of the
    /// first ten repeated (twice or three times), the ISO 7064 MOD 11,10 check digit.
    SteuerId,
    /// Belgian national register number (`be_national_number`): 11 digits, the 97 check over
    /// the first nine (with a leading 2 for births from 2000).
    BeNationalNumber,
    /// Chinese resident identity card number (`cn_resident_id`): 17 digits with a birth date
    /// `YYYYMMDD` at 7–14, then the ISO 7064 MOD 11-2 check (`0`–`9` or `X`).
    CnResidentId,
    /// South African ID number (`za_id`): 13 digits, a birth date `YYMMDD`, citizenship 0–2,
    /// Luhn.
    ZaId,
    /// Irish PPS number (`ppsn`): seven digits, the mod-23 check letter, an optional second
    /// letter.
    Ppsn,
    /// Portuguese NIF (`pt_nif`): 9 digits, the first 1–3 or 5–9 (or `45`), mod-11 check
    /// digit.
    PtNif,
    /// Turkish identity number, T.C. Kimlik No (`tckn`): 11 digits, not starting 0, the two
    /// check digits of the odd / even sums.
    Tckn,
    /// Indian PAN (`pan`): five letters (the fourth names the holder: `P` a person, `C` a
    /// company, …), four digits, a letter.
    Pan,
    /// US Medicare Beneficiary Identifier (`mbi`): 11 characters, digits and letters at fixed
    /// places, never `S L O I B Z`.
    Mbi,
    /// A travel document's machine-readable zone (`mrz`): the two lines of a passport (TD3,
    /// 44 characters) or of an ID card or visa in the TD2 format (36), the second line's document-number, birth-date and expiry check
    /// digits (weights 7-3-1) right.
    Mrz,
    /// A driving licence number (`driving_licence`): 5–20 letters and digits, at least four of
    /// them digits, not one repeated digit (the formats of the issuers differ too much for more).
    DrivingLicence,
}

/// Every scheme with its `validate` name.
pub const SCHEMES: [(&str, IdScheme); 24] = [
    ("pesel", IdScheme::Pesel),
    ("hetu", IdScheme::Hetu),
    ("personnummer", IdScheme::Personnummer),
    ("cpr", IdScheme::Cpr),
    ("fodselsnummer", IdScheme::Fodselsnummer),
    ("codice_fiscale", IdScheme::CodiceFiscale),
    ("curp", IdScheme::Curp),
    ("tfn", IdScheme::Tfn),
    ("rut", IdScheme::Rut),
    ("nhs", IdScheme::Nhs),
    ("itin", IdScheme::Itin),
    ("rrn", IdScheme::Rrn),
    ("nric", IdScheme::Nric),
    ("steuer_id", IdScheme::SteuerId),
    ("be_national_number", IdScheme::BeNationalNumber),
    ("cn_resident_id", IdScheme::CnResidentId),
    ("za_id", IdScheme::ZaId),
    ("ppsn", IdScheme::Ppsn),
    ("pt_nif", IdScheme::PtNif),
    ("tckn", IdScheme::Tckn),
    ("pan", IdScheme::Pan),
    ("mbi", IdScheme::Mbi),
    ("mrz", IdScheme::Mrz),
    ("driving_licence", IdScheme::DrivingLicence),
];

impl IdScheme {
    /// The scheme a `validate` name picks.
    pub fn from_name(name: &str) -> Option<IdScheme> {
        SCHEMES.iter().find(|(n, _)| *n == name).map(|&(_, s)| s)
    }

    /// The scheme's `validate` name.
    pub fn name(self) -> &'static str {
        SCHEMES
            .iter()
            .find(|(_, s)| *s == self)
            .map(|(n, _)| *n)
            .expect("every scheme is in SCHEMES")
    }

    /// True for the schemes whose numbers carry a check digit or letter, so that one which
    /// passes certifies itself; the others (CPR, ITIN, RRN, PAN, MBI, a driving licence) are
    /// checked by structure only and still go through the placeholder filters.
    pub fn has_check(self) -> bool {
        !matches!(
            self,
            IdScheme::Cpr
                | IdScheme::Itin
                | IdScheme::Rrn
                | IdScheme::Pan
                | IdScheme::Mbi
                | IdScheme::DrivingLicence
        )
    }

    /// True if `s` (separators allowed, see the module docs) is a number of this scheme.
    pub fn check(self, s: &[u8]) -> bool {
        let c: Vec<u8> = s
            .iter()
            .filter(|&&b| !matches!(b, b' ' | b'-' | b'.' | b'/' | b'\t'))
            .map(u8::to_ascii_uppercase)
            .collect();
        let all_digits = !c.is_empty() && c.iter().all(u8::is_ascii_digit);
        let d: Vec<u32> = c.iter().map(|&b| u32::from(b.wrapping_sub(b'0'))).collect();
        match self {
            IdScheme::Pesel => {
                all_digits
                    && c.len() == 11
                    && date_ok(d[4] * 10 + d[5], (d[2] * 10 + d[3]) % 20)
                    && (10 - weighted(&d[..10], &[1, 3, 7, 9]) % 10) % 10 == d[10]
            }
            IdScheme::Hetu => hetu_ok(s),
            IdScheme::Personnummer => personnummer_ok(s),
            IdScheme::Cpr => all_digits && c.len() == 10 && date_ok(num(&d[..2]), num(&d[2..4])),
            IdScheme::Fodselsnummer => all_digits && c.len() == 11 && fodselsnummer_ok(&d),
            IdScheme::CodiceFiscale => codice_fiscale_ok(&c),
            IdScheme::Curp => curp_ok(&c),
            IdScheme::Tfn => {
                all_digits
                    && match c.len() {
                        9 => weighted(&d, &[1, 4, 3, 7, 5, 8, 6, 9, 10]) % 11 == 0,
                        8 => weighted(&d, &[10, 7, 8, 4, 6, 3, 5, 1]) % 11 == 0,
                        _ => false,
                    }
                    && !one_digit(&d)
            }
            IdScheme::Rut => rut_ok(&c),
            IdScheme::Nhs => {
                all_digits
                    && c.len() == 10
                    && !one_digit(&d)
                    && match 11 - weighted(&d[..9], &[10, 9, 8, 7, 6, 5, 4, 3, 2]) % 11 {
                        11 => d[9] == 0,
                        10 => false,
                        k => d[9] == k,
                    }
            }
            IdScheme::Itin => {
                all_digits
                    && c.len() == 9
                    && d[0] == 9
                    && matches!(num(&d[3..5]), 50..=65 | 70..=88 | 90..=92 | 94..=99)
            }
            IdScheme::Rrn => {
                all_digits
                    && c.len() == 13
                    && date_ok(num(&d[4..6]), num(&d[2..4]))
                    && (1..=8).contains(&d[6])
            }
            IdScheme::Nric => nric_ok(&c),
            IdScheme::SteuerId => all_digits && c.len() == 11 && steuer_id_ok(&d),
            IdScheme::BeNationalNumber => {
                all_digits && c.len() == 11 && {
                    let n = u64::from(num(&d[..9]));
                    let key = u64::from(num(&d[9..]));
                    97 - n % 97 == key || 97 - (2_000_000_000 + n) % 97 == key
                }
            }
            IdScheme::CnResidentId => cn_resident_id_ok(&c, &d),
            IdScheme::ZaId => {
                all_digits
                    && c.len() == 13
                    && date_ok(num(&d[4..6]), num(&d[2..4]))
                    && d[10] <= 2
                    && luhn_digits_ok(&c.iter().map(|b| b - b'0').collect::<Vec<_>>())
            }
            IdScheme::Ppsn => ppsn_ok(&c),
            IdScheme::PtNif => {
                all_digits
                    && c.len() == 9
                    && (matches!(d[0], 1..=3 | 5..=9) || (d[0] == 4 && d[1] == 5))
                    && match 11 - weighted(&d[..8], &[9, 8, 7, 6, 5, 4, 3, 2]) % 11 {
                        10 | 11 => d[8] == 0,
                        k => d[8] == k,
                    }
            }
            IdScheme::Tckn => {
                all_digits && c.len() == 11 && d[0] != 0 && {
                    let odd = d[0] + d[2] + d[4] + d[6] + d[8];
                    let even = d[1] + d[3] + d[5] + d[7];
                    (odd * 7 + 10 * even - even) % 10 == d[9]
                        && d[..10].iter().sum::<u32>() % 10 == d[10]
                }
            }
            IdScheme::Pan => {
                c.len() == 10
                    && c[..5].iter().all(u8::is_ascii_uppercase)
                    && b"ABCFGHJLPT".contains(&c[3])
                    && c[5..9].iter().all(u8::is_ascii_digit)
                    && c[9].is_ascii_uppercase()
            }
            IdScheme::Mbi => mbi_ok(&c),
            IdScheme::Mrz => mrz_ok(s),
            IdScheme::DrivingLicence => {
                (5..=20).contains(&c.len())
                    && c.iter().all(u8::is_ascii_alphanumeric)
                    && d.iter().filter(|&&x| x < 10).count() >= 4
                    && !one_digit(&d)
            }
        }
    }
}

/// The Luhn check over digit values (0–9): every second digit from the right doubled.
pub(super) fn luhn_digits_ok(digits: &[u8]) -> bool {
    let mut sum = 0u32;
    for (i, &d) in digits.iter().rev().enumerate() {
        let mut v = d as u32;
        if i % 2 == 1 {
            v *= 2;
            if v > 9 {
                v -= 9;
            }
        }
        sum += v;
    }
    sum % 10 == 0
}

/// The decimal number the digits `d` spell.
fn num(d: &[u32]) -> u32 {
    d.iter().fold(0, |n, &x| n * 10 + x)
}

/// `d` weighted by `w`, the weights repeated when `d` is longer.
fn weighted(d: &[u32], w: &[u32]) -> u32 {
    d.iter().zip(w.iter().cycle()).map(|(a, b)| a * b).sum()
}

/// All digits the same (`1111111111`): a placeholder, whatever its check says.
fn one_digit(d: &[u32]) -> bool {
    d.iter().all(|&x| x == d[0])
}

/// A plausible day of a month (29 February allowed, the year is not always known).
pub(super) fn date_ok(day: u32, month: u32) -> bool {
    let last = match month {
        2 => 29,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => return false,
    };
    (1..=last).contains(&day)
}

/// See [`IdScheme::Hetu`]: written with its century sign, not separator-stripped.
fn hetu_ok(s: &[u8]) -> bool {
    let s: Vec<u8> = s.iter().map(u8::to_ascii_uppercase).collect();
    if s.len() != 11
        || !s[..6].iter().chain(&s[7..10]).all(u8::is_ascii_digit)
        || !b"+-ABCDEFUVWXY".contains(&s[6])
    {
        return false;
    }
    let d: Vec<u32> = s.iter().map(|&b| u32::from(b.wrapping_sub(b'0'))).collect();
    let n = num(&d[..6]) * 1000 + num(&d[7..10]);
    date_ok(num(&d[..2]), num(&d[2..4]))
        && b"0123456789ABCDEFHJKLMNPRSTUVWXY"[(n % 31) as usize] == s[10]
}

/// See [`IdScheme::Mbi`].
fn mbi_ok(c: &[u8]) -> bool {
    let letter = |b: &u8| b.is_ascii_uppercase() && !b"SLOIBZ".contains(b);
    c.len() == 11
        && c.iter().enumerate().all(|(i, b)| match i {
            0 => (b'1'..=b'9').contains(b),
            3 | 6 | 9 | 10 => b.is_ascii_digit(),
            1 | 4 | 7 | 8 => letter(b),
            _ => letter(b) || b.is_ascii_digit(),
        })
}

/// See [`IdScheme::Mrz`].
fn mrz_ok(s: &[u8]) -> bool {
    let Some(line) = s.split(|&b| b == b'\n').nth(1) else {
        return false;
    };
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.len() != 44 && line.len() != 36 {
        return false;
    }
    // the check digit over `f`: characters worth 0–35 (`<` 0), weights 7-3-1
    let digit = |f: &[u8], c: u8| {
        let sum: u32 = f
            .iter()
            .zip([7, 3, 1].iter().cycle())
            .map(|(&b, w)| {
                w * match b {
                    b'0'..=b'9' => u32::from(b - b'0'),
                    b'A'..=b'Z' => u32::from(b - b'A') + 10,
                    _ => 0,
                }
            })
            .sum();
        c.is_ascii_digit() && sum % 10 == u32::from(c - b'0')
    };
    digit(&line[..9], line[9]) && digit(&line[13..19], line[19]) && digit(&line[21..27], line[27])
}

/// See [`IdScheme::Personnummer`]: the Swedish `+` (aged 100 or more) is a separator too.
fn personnummer_ok(s: &[u8]) -> bool {
    let d: Vec<u8> = s
        .iter()
        .filter(|&&b| !matches!(b, b' ' | b'-' | b'+'))
        .map(|&b| b.wrapping_sub(b'0'))
        .collect();
    if d.iter().any(|&x| x > 9) {
        return false;
    }
    let d = match d.len() {
        10 => &d[..],
        12 if matches!(d[..2], [1, 8] | [1, 9] | [2, 0]) => &d[2..],
        _ => return false,
    };
    let (month, day) = (
        u32::from(d[2] * 10 + d[3]),
        u32::from(d[4] * 10 + d[5]) % 60,
    );
    date_ok(day, month) && luhn_digits_ok(d)
}

/// See [`IdScheme::Fodselsnummer`].
fn fodselsnummer_ok(d: &[u32]) -> bool {
    // a D-number adds 40 to the day; an H-number 40, a test number 80, to the month
    let day = num(&d[..2]) % 40;
    let month = num(&d[2..4]) % 40;
    let check = |w: &[u32], n: usize| match 11 - weighted(&d[..n], w) % 11 {
        11 => d[n] == 0,
        10 => false,
        k => d[n] == k,
    };
    date_ok(day, month)
        && check(&[3, 7, 6, 1, 8, 9, 4, 5, 2], 9)
        && check(&[5, 4, 3, 2, 7, 6, 5, 4, 3, 2], 10)
}

/// See [`IdScheme::CodiceFiscale`].
fn codice_fiscale_ok(c: &[u8]) -> bool {
    // values of the characters in odd positions (1st, 3rd, …), digits and letters alike
    const ODD: [u32; 26] = [
        1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24,
        23,
    ];
    const OMOCODIA: &[u8] = b"LMNPQRSTUV";
    if c.len() != 16 {
        return false;
    }
    let shape = c.iter().enumerate().all(|(i, b)| match i {
        6 | 7 | 9 | 10 | 12..=14 => b.is_ascii_digit() || OMOCODIA.contains(b),
        8 => b"ABCDEHLMPRST".contains(b),
        _ => b.is_ascii_uppercase(),
    });
    if !shape {
        return false;
    }
    let sum: u32 = c[..15]
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            let v = if b.is_ascii_digit() {
                b - b'0'
            } else {
                b - b'A'
            } as usize;
            if i % 2 == 0 {
                ODD[v]
            } else {
                v as u32
            }
        })
        .sum();
    c[15] == b'A' + (sum % 26) as u8
}

/// See [`IdScheme::Curp`].
fn curp_ok(c: &[u8]) -> bool {
    const STATES: &[&[u8]] = &[
        b"AS", b"BC", b"BS", b"CC", b"CS", b"CH", b"CL", b"CM", b"DF", b"DG", b"GT", b"GR", b"HG",
        b"JC", b"MC", b"MN", b"MS", b"NT", b"NL", b"OC", b"PL", b"QT", b"QR", b"SP", b"SL", b"SR",
        b"TC", b"TS", b"TL", b"VZ", b"YN", b"ZS", b"NE",
    ];
    let consonant = |b: &u8| b.is_ascii_uppercase() && !b"AEIOU".contains(b);
    if c.len() != 18
        || !c[..4].iter().all(u8::is_ascii_uppercase)
        || !c[4..10].iter().all(u8::is_ascii_digit)
        || !b"HMX".contains(&c[10])
        || !STATES.contains(&&c[11..13])
        || !c[13..16].iter().all(consonant)
        || !c[16].is_ascii_alphanumeric()
        || !c[17].is_ascii_digit()
    {
        return false;
    }
    let d: Vec<u32> = c[4..10].iter().map(|&b| u32::from(b - b'0')).collect();
    // the alphabet counts Ñ after N, so O … Z are one higher than their ASCII distance
    let value = |b: u8| match b {
        b'0'..=b'9' => u32::from(b - b'0'),
        b'A'..=b'N' => u32::from(b - b'A') + 10,
        _ => u32::from(b - b'A') + 11,
    };
    let sum: u32 = c[..17]
        .iter()
        .zip((2..=18).rev())
        .map(|(&b, w)| value(b) * w)
        .sum();
    date_ok(num(&d[4..6]), num(&d[2..4])) && (10 - sum % 10) % 10 == u32::from(c[17] - b'0')
}

/// See [`IdScheme::Rut`].
fn rut_ok(c: &[u8]) -> bool {
    let Some((&check, body)) = c.split_last() else {
        return false;
    };
    if !(7..=8).contains(&body.len()) || !body.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let sum: u32 = body
        .iter()
        .rev()
        .zip([2, 3, 4, 5, 6, 7].iter().cycle())
        .map(|(&b, w)| u32::from(b - b'0') * w)
        .sum();
    let want = match 11 - sum % 11 {
        11 => b'0',
        10 => b'K',
        k => b'0' + k as u8,
    };
    check == want
}

/// See [`IdScheme::Nric`].
fn nric_ok(c: &[u8]) -> bool {
    if c.len() != 9 || !c[1..8].iter().all(u8::is_ascii_digit) {
        return false;
    }
    let sum = c[1..8]
        .iter()
        .zip([2, 7, 6, 5, 4, 3, 2])
        .map(|(&b, w)| u32::from(b - b'0') * w)
        .sum::<u32>();
    let (offset, letters): (u32, &[u8; 11]) = match c[0] {
        b'S' => (0, b"JZIHGFEDCBA"),
        b'T' => (4, b"JZIHGFEDCBA"),
        b'F' => (0, b"XWUTRQPNMLK"),
        b'G' => (4, b"XWUTRQPNMLK"),
        b'M' => (3, b"XWUTRQPNJLK"),
        _ => return false,
    };
    letters[((sum + offset) % 11) as usize] == c[8]
}

/// See [`IdScheme::SteuerId`].
fn steuer_id_ok(d: &[u32]) -> bool {
    let mut counts = [0u8; 10];
    for &x in &d[..10] {
        counts[x as usize] += 1;
    }
    let repeated: Vec<u8> = counts.iter().copied().filter(|&n| n > 1).collect();
    if d[0] == 0 || !matches!(repeated[..], [2] | [3]) {
        return false;
    }
    let mut product = 10;
    for &x in &d[..10] {
        let mut sum = (x + product) % 10;
        if sum == 0 {
            sum = 10;
        }
        product = sum * 2 % 11;
    }
    (11 - product) % 10 == d[10]
}

/// See [`IdScheme::CnResidentId`].
fn cn_resident_id_ok(c: &[u8], d: &[u32]) -> bool {
    const W: [u32; 17] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
    if c.len() != 18 || !c[..17].iter().all(u8::is_ascii_digit) {
        return false;
    }
    let year = num(&d[6..10]);
    let sum: u32 = d[..17].iter().zip(W).map(|(a, w)| a * w).sum();
    (1900..=2099).contains(&year)
        && date_ok(num(&d[12..14]), num(&d[10..12]))
        && b"10X98765432"[(sum % 11) as usize] == c[17]
}

/// See [`IdScheme::Ppsn`].
fn ppsn_ok(c: &[u8]) -> bool {
    if !(8..=9).contains(&c.len()) || !c[..7].iter().all(u8::is_ascii_digit) {
        return false;
    }
    let second = match c.get(8) {
        Some(&b @ b'A'..=b'W') => u32::from(b - b'A' + 1),
        Some(_) => return false,
        None => 0,
    };
    let sum = c[..7]
        .iter()
        .zip([8, 7, 6, 5, 4, 3, 2])
        .map(|(&b, w)| u32::from(b - b'0') * w)
        .sum::<u32>()
        + second * 9;
    let want = match sum % 23 {
        0 => b'W',
        r => b'A' + r as u8 - 1,
    };
    c[7] == want
}

#[cfg(test)]
mod tests {
    use super::IdScheme::{self, *};

    /// (scheme, a valid number as people write it, the same number with its check broken)
    const CASES: &[(IdScheme, &str, &str)] = &[
        (Pesel, "44051401359", "44051401358"),
        (Pesel, "02270803624", "02270803625"),
        (Hetu, "131052-308T", "131052-308U"),
        (Hetu, "010594Y9032", "010594Y9033"),
        (Personnummer, "811218-9876", "811218-9875"),
        (Personnummer, "19811218-9876", "19811218-9877"),
        (Fodselsnummer, "01010750160", "01010750161"),
        (CodiceFiscale, "RSSMRA85T10A562S", "RSSMRA85T10A562T"),
        (Curp, "HEGG560427MVZRRL04", "HEGG560427MVZRRL05"),
        (Tfn, "123 456 782", "123 456 783"),
        (Rut, "12.345.678-5", "12.345.678-6"),
        (Rut, "6.557.702-K", "6.557.702-1"),
        (Nhs, "943 476 5919", "943 476 5918"),
        (Nric, "S1234567D", "S1234567E"),
        (Nric, "M1234567K", "M1234567X"),
        (SteuerId, "86095742719", "86095742718"),
        (BeNationalNumber, "85.07.30-033.28", "85.07.30-033.29"),
        (CnResidentId, "11010519491231002X", "110105194912310021"),
        (ZaId, "8001015009087", "8001015009088"),
        (Ppsn, "1234567T", "1234567A"),
        (Ppsn, "1234567FA", "1234567TA"),
        (PtNif, "123456789", "123456788"),
        (PtNif, "451234561", "451234562"),
        (Tckn, "10000000146", "10000000147"),
        (Pan, "ABCPD1234Z", "ABCDE1234Z"),
        (Mbi, "1EG4-TE5-MK73", "1EG4-TS5-MK73"),
    ];

    #[test]
    fn valid_numbers_pass_and_broken_checks_fail() {
        let wrong: Vec<_> = CASES
            .iter()
            .filter(|(s, good, bad)| !s.check(good.as_bytes()) || s.check(bad.as_bytes()))
            .collect();
        assert!(wrong.is_empty(), "{wrong:?}");
    }

    /// A passport's machine-readable zone (ICAO 9303's specimen, TD3).
    #[test]
    fn mrz_check_digits() {
        let good = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10";
        assert!(Mrz.check(good.as_bytes()));
        assert!(!Mrz.check(good.replace("C36", "C35").as_bytes()));
        assert!(!Mrz.check(good.replace("7408122", "7408123").as_bytes()));
    }

    /// Structure-only schemes: the date or the ranges they encode.
    #[test]
    fn structure_only_schemes_check_their_fields() {
        assert!(Cpr.check(b"171294-0561"));
        assert!(!Cpr.check(b"321294-0561"));
        assert!(Itin.check(b"900-85-4592"));
        assert!(!Itin.check(b"900-69-4592"));
        assert!(!Itin.check(b"123-85-4592"));
        assert!(Rrn.check(b"970307-2084444"));
        assert!(!Rrn.check(b"971307-2084444"));
        assert!(!Rrn.check(b"970307-9084444"));
        assert!(!Curp.check(b"HEGG560427MXXRRL04"));
        assert!(!Curp.check(b"HEGG561327MVZRRL04"));
        assert!(DrivingLicence.check(b"W9937-90540-55493"));
        assert!(DrivingLicence.check(b"TAKAH951207LU9HX"));
        assert!(!DrivingLicence.check(b"CLASS-B"));
        assert!(!DrivingLicence.check(b"0000000"));
    }

    #[test]
    fn placeholders_and_wrong_lengths_fail() {
        for (_, s) in super::SCHEMES {
            for v in [
                "",
                "0",
                "00000000000",
                "99999999999",
                "1234",
                "ABCDEFGHIJKLMNOP",
            ] {
                assert!(!s.check(v.as_bytes()), "{s:?} {v:?}");
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for (n, s) in super::SCHEMES {
            assert_eq!(IdScheme::from_name(n), Some(s));
            assert_eq!(s.name(), n);
        }
    }
}
