//! The host boundary: a closed set of hosts, what each host version honours
//! from a hook ([`Capabilities`], one table per host), and the response type
//! that records what was actually sent.
//!
//! Everything specific to one host lives in its folder (`hermes/`: wire
//! format, capabilities per version, config editing, consent, version
//! detection, doctor checks). A second host is one new folder beside it.
//! Code outside `host/` asks a [`HostSpec`]'s capabilities, never a version
//! string.

pub mod hermes;

use serde_json::Value;

/// The hosts warden answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Host {
    /// Hermes Agent (shell hooks, Python plugins).
    Hermes,
}

impl Host {
    /// The name used in `--host` and logs.
    pub fn name(self) -> &'static str {
        match self {
            Host::Hermes => "hermes",
        }
    }
}

/// What one host version honours from a hook's answer.
///
/// A `false` means "not honoured, or not proven": warden then answers in a
/// dialect that cannot turn a safety rule into an allow (an approve or a
/// modify becomes a block that says what a human must do).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Capabilities {
    /// A `pre_tool_call` block stops the call.
    pub block: bool,
    /// `approve` reaches the host's human approval prompt.
    pub approve: bool,
    /// `modify` is applied, shallow-merged per key over the running arguments.
    pub modify: bool,
    /// Exit code 2 alone blocks a `pre_tool_call`.
    pub exit2_blocks: bool,
    /// A `pre_llm_call` block ends the turn before the model sees the message.
    pub llm_block: bool,
    /// `transform_*` answers change what the model reads.
    pub transforms: bool,
    /// The hook entry's `fail_closed: true` is read (errors and timeouts block).
    pub fail_closed: bool,
    /// The payload carries a top-level `profile` (informational only: it never
    /// decides capabilities).
    pub payload_has_profile: bool,
}

impl Capabilities {
    /// The safe dialect: only what every known host version honours (a block).
    pub const SAFE: Capabilities = Capabilities {
        block: true,
        approve: false,
        modify: false,
        exit2_blocks: false,
        llm_block: false,
        transforms: false,
        fail_closed: false,
        payload_has_profile: false,
    };

    /// The names of what this host drops (for doctor and the README).
    pub fn dropped(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        let facts = [
            (self.block, "block"),
            (self.approve, "approve"),
            (self.modify, "modify"),
            (self.exit2_blocks, "exit code 2"),
            (self.llm_block, "pre_llm_call block"),
            (self.transforms, "transforms"),
            (self.fail_closed, "fail_closed"),
        ];
        for (honoured, name) in facts {
            if !honoured {
                out.push(name);
            }
        }
        out
    }
}

/// A host, the version warden was told it answers, and that version's
/// capabilities.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostSpec {
    /// Which host.
    pub host: Host,
    /// The distribution and version, when known (e.g. `hermes-agent@0.19.0`).
    pub version: Option<hermes::Version>,
    /// What it honours.
    pub caps: Capabilities,
}

impl HostSpec {
    /// Hermes of unknown version: the safe dialect.
    pub fn hermes_unknown() -> HostSpec {
        HostSpec {
            host: Host::Hermes,
            version: None,
            caps: Capabilities::SAFE,
        }
    }

    /// Parse a `--host` value; see [`hermes::parse_host`] for the syntax.
    pub fn parse(s: &str) -> Result<HostSpec, String> {
        hermes::parse_host(s)
    }

    /// The name written in logs and in `--host` (`hermes`, `hermes-agent@0.19.0`).
    pub fn name(&self) -> String {
        match &self.version {
            Some(v) => v.to_string(),
            None => self.host.name().to_string(),
        }
    }
}

/// What the host will do with the answer, given its capabilities.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// Nothing to say: the call or turn goes ahead.
    Allow,
    /// A block the host honours.
    Block,
    /// An approve the host sends to a human.
    Approve,
    /// An approve this host drops, sent as a block saying what a human must do.
    BlockInsteadOfApprove,
    /// Changed arguments the host applies (only the changed keys).
    Modify,
    /// A modify this host drops, sent as a block saying what to run instead.
    BlockInsteadOfModify,
    /// Context added to the user's message.
    Context,
    /// A `pre_llm_call` block this host cannot honour: a context notice
    /// telling the model the message reached it and not to act on it.
    Notice,
    /// A transform the host ignores from this channel (nothing changes).
    Ignored,
}

impl Effect {
    /// The keyword written in the audit log's `sent` field.
    pub fn name(self) -> &'static str {
        match self {
            Effect::Allow => "allow",
            Effect::Block => "block",
            Effect::Approve => "approve",
            Effect::BlockInsteadOfApprove => "block (approve not honoured)",
            Effect::Modify => "modify",
            Effect::BlockInsteadOfModify => "block (modify not honoured)",
            Effect::Context => "context",
            Effect::Notice => "notice (pre_llm_call block not honoured)",
            Effect::Ignored => "ignored",
        }
    }
}

/// What a hook answers: one JSON object for stdout, an exit code, notes for
/// stderr, and what the host will make of it.
#[derive(Clone, Debug, PartialEq)]
pub struct HostResponse {
    /// The one JSON object for stdout.
    pub json: Value,
    /// The process exit code (2 = block on pre_tool_call).
    pub exit_code: i32,
    /// Lines for stderr.
    pub notes: Vec<String>,
    /// What the host does with it.
    pub effect: Effect,
}

impl HostResponse {
    /// The allow answer: `{}`.
    pub fn allow() -> HostResponse {
        HostResponse {
            json: serde_json::json!({}),
            exit_code: 0,
            notes: Vec::new(),
            effect: Effect::Allow,
        }
    }

    /// True if the host stops the call or withholds the turn.
    pub fn blocks(&self) -> bool {
        matches!(
            self.effect,
            Effect::Block | Effect::BlockInsteadOfApprove | Effect::BlockInsteadOfModify
        )
    }
}
