//! Dates and times in UTC, with no time-zone database: the one home for
//! turning a Unix time into the strings warden writes (exemption expiry
//! dates, audit timestamps, Hermes's consent file).

use std::time::{SystemTime, UNIX_EPOCH};

/// Today's UTC date as `YYYY-MM-DD`.
pub fn today() -> String {
    today_from_secs(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    )
}

/// The UTC date of a Unix time, `YYYY-MM-DD`.
pub fn today_from_secs(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `YYYY-MM-DDTHH:MM:SS` of a Unix time, and its microseconds.
fn parts(t: SystemTime) -> (String, u32) {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let rem = secs % 86_400;
    (
        format!(
            "{}T{:02}:{:02}:{:02}",
            today_from_secs(secs),
            rem / 3600,
            rem % 3600 / 60,
            rem % 60
        ),
        d.subsec_micros(),
    )
}

/// RFC 3339 UTC with microseconds, e.g. `2026-12-03T04:38:13.000123Z` (audit lines).
pub fn rfc3339_micros(t: SystemTime) -> String {
    let (s, micros) = parts(t);
    format!("{s}.{micros:06}Z")
}

/// Python's `datetime.fromtimestamp(t, tz=utc).isoformat()` with `Z`
/// (microseconds only when non-zero), as Hermes writes its consent file.
pub fn iso_utc(t: SystemTime) -> String {
    let (mut s, micros) = parts(t);
    if micros != 0 {
        s.push_str(&format!(".{micros:06}"));
    }
    s.push('Z');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_times() {
        let t = UNIX_EPOCH + std::time::Duration::from_micros(1_700_000_000_123_456);
        assert_eq!(iso_utc(t), "2023-11-14T22:13:20.123456Z");
        let t = UNIX_EPOCH + std::time::Duration::from_secs(951_782_400);
        assert_eq!(iso_utc(t), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_micros(t), "2000-02-29T00:00:00.000000Z");
        assert_eq!(today_from_secs(0), "1970-01-01");
    }
}
