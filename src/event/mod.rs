//! The events warden evaluates, independent of any host's wire format, and
//! the per-event field schema the checker enforces.
//!
//! A host adapter (`host::hermes`) turns a payload into an [`Event`]; a Rust
//! agent can build one directly with [`Event::tool_call`] or
//! [`Event::llm_call`].
//!
//! [`values`] reads a field's values out of an event; [`memo::EventMemo`] holds what is
//! derived from one event once (its command line parsed, its paths normalised) for the
//! prefilter's search and the evaluator to share.

pub mod memo;
pub mod values;

use serde_json::Value;

macro_rules! hooks {
    ($($variant:ident => $name:literal,)*) => {
        /// A hook event, named as Hermes names it (all 23 of `hermes_cli.plugins.VALID_HOOKS`, 0.19.0).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Hook { $(#[doc = $name] $variant,)* }

        impl Hook {
            /// Every hook, in declaration order.
            pub const ALL: &'static [Hook] = &[$(Hook::$variant,)*];

            /// The wire name, e.g. `pre_tool_call`.
            pub fn name(self) -> &'static str {
                match self { $(Hook::$variant => $name,)* }
            }

            /// Look a hook up by its wire name.
            pub fn from_name(name: &str) -> Option<Hook> {
                match name { $($name => Some(Hook::$variant),)* _ => None }
            }
        }
    };
}

hooks! {
    PreToolCall => "pre_tool_call",
    PostToolCall => "post_tool_call",
    TransformTerminalOutput => "transform_terminal_output",
    TransformToolResult => "transform_tool_result",
    TransformLlmOutput => "transform_llm_output",
    PreLlmCall => "pre_llm_call",
    PostLlmCall => "post_llm_call",
    PreVerify => "pre_verify",
    PreApiRequest => "pre_api_request",
    PostApiRequest => "post_api_request",
    ApiRequestError => "api_request_error",
    OnSessionStart => "on_session_start",
    OnSessionEnd => "on_session_end",
    OnSessionFinalize => "on_session_finalize",
    OnSessionReset => "on_session_reset",
    SubagentStart => "subagent_start",
    SubagentStop => "subagent_stop",
    PreGatewayDispatch => "pre_gateway_dispatch",
    PreApprovalRequest => "pre_approval_request",
    PostApprovalResponse => "post_approval_response",
    KanbanTaskBlocked => "kanban_task_blocked",
    KanbanTaskClaimed => "kanban_task_claimed",
    KanbanTaskCompleted => "kanban_task_completed",
}

impl serde::Serialize for Hook {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Hook {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Hook::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown hook `{name}`")))
    }
}

impl Hook {
    /// The three events whose text a redaction rule rewrites.
    pub const TRANSFORMS: [Hook; 3] = [
        Hook::TransformToolResult,
        Hook::TransformTerminalOutput,
        Hook::TransformLlmOutput,
    ];

    /// Bit for event sets.
    pub fn bit(self) -> u32 {
        1 << (self as u32)
    }

    /// True for the `transform_*` events.
    pub fn is_transform(self) -> bool {
        Hook::TRANSFORMS.contains(&self)
    }

    /// The field holding the text a transform rewrites.
    pub fn transform_field(self) -> Option<Field> {
        match self {
            Hook::TransformToolResult => Some(Field::Result),
            Hook::TransformTerminalOutput => Some(Field::Output),
            Hook::TransformLlmOutput => Some(Field::ResponseText),
            _ => None,
        }
    }
}

/// One segment of a path into JSON.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum PathSeg {
    /// An object key.
    Key(Box<str>),
    /// An array index.
    Index(usize),
}

/// A field a condition can read, resolved and checked.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Field {
    /// The hook name.
    Event,
    /// The tool name.
    Tool,
    /// A path into the tool arguments (`args` alone: the whole object).
    Args(Vec<PathSeg>),
    /// The host's working directory.
    Cwd,
    /// Session id.
    SessionId,
    /// Host profile name.
    Profile,
    /// A path into the host's `extra` object.
    Extra(Vec<PathSeg>),
    /// pre_llm_call: the user's message.
    UserMessage,
    /// pre_llm_call: the content of every message in the history.
    History,
    /// Model name.
    Model,
    /// Platform (cli, telegram, …).
    Platform,
    /// pre_llm_call: first turn of the session.
    IsFirstTurn,
    /// pre_llm_call: who sent the message.
    SenderId,
    /// transform_tool_result: the result text.
    Result,
    /// transform_terminal_output: the command that ran.
    Command,
    /// transform_terminal_output: its output.
    Output,
    /// transform_terminal_output: its exit code.
    ExitCode,
    /// transform_llm_output: the reply text.
    ResponseText,
    /// Internal (never written in a policy): the program names of the
    /// parsed command line, which the prefilter of shell predicates reads.
    ShellPrograms,
    /// Internal: the normalised path in a field, which the prefilter of
    /// `path(F) under "/literal"` tests looks up by its ancestors.
    PathIn(Box<Field>),
}

/// Top-level field names and the hooks that carry them (`None` = every hook).
const FIELD_NAMES: &[(&str, Option<&[Hook]>)] = &[
    ("event", None),
    ("session_id", None),
    ("cwd", None),
    ("profile", None),
    ("extra", None),
    (
        "tool",
        Some(&[
            Hook::PreToolCall,
            Hook::PostToolCall,
            Hook::TransformToolResult,
        ]),
    ),
    (
        "args",
        Some(&[
            Hook::PreToolCall,
            Hook::PostToolCall,
            Hook::TransformToolResult,
        ]),
    ),
    ("user_message", Some(&[Hook::PreLlmCall])),
    ("history", Some(&[Hook::PreLlmCall])),
    ("model", Some(&[Hook::PreLlmCall, Hook::TransformLlmOutput])),
    ("platform", Some(&[Hook::PreLlmCall])),
    ("is_first_turn", Some(&[Hook::PreLlmCall])),
    ("sender_id", Some(&[Hook::PreLlmCall])),
    (
        "result",
        Some(&[Hook::TransformToolResult, Hook::PostToolCall]),
    ),
    ("command", Some(&[Hook::TransformTerminalOutput])),
    ("output", Some(&[Hook::TransformTerminalOutput])),
    ("exit_code", Some(&[Hook::TransformTerminalOutput])),
    ("response_text", Some(&[Hook::TransformLlmOutput])),
];

impl Field {
    /// Resolve a root name and the path after it; `Err` says why not.
    pub fn resolve(root: &str, path: Vec<PathSeg>) -> Result<Field, FieldError> {
        let f = match root {
            "args" => return Ok(Field::Args(path)),
            "extra" => return Ok(Field::Extra(path)),
            "event" => Field::Event,
            "tool" => Field::Tool,
            "cwd" => Field::Cwd,
            "session_id" => Field::SessionId,
            "profile" => Field::Profile,
            "user_message" => Field::UserMessage,
            "history" => Field::History,
            "model" => Field::Model,
            "platform" => Field::Platform,
            "is_first_turn" => Field::IsFirstTurn,
            "sender_id" => Field::SenderId,
            "result" => Field::Result,
            "command" => Field::Command,
            "output" => Field::Output,
            "exit_code" => Field::ExitCode,
            "response_text" => Field::ResponseText,
            _ => return Err(FieldError::Unknown),
        };
        if path.is_empty() {
            Ok(f)
        } else {
            Err(FieldError::NotAnObject)
        }
    }

    /// The root name as written in a policy.
    pub fn root_name(&self) -> &'static str {
        match self {
            Field::Event => "event",
            Field::Tool => "tool",
            Field::Args(_) => "args",
            Field::Cwd => "cwd",
            Field::SessionId => "session_id",
            Field::Profile => "profile",
            Field::Extra(_) => "extra",
            Field::UserMessage => "user_message",
            Field::History => "history",
            Field::Model => "model",
            Field::Platform => "platform",
            Field::IsFirstTurn => "is_first_turn",
            Field::SenderId => "sender_id",
            Field::Result => "result",
            Field::Command => "command",
            Field::Output => "output",
            Field::ExitCode => "exit_code",
            Field::ResponseText => "response_text",
            Field::ShellPrograms => "<programs>",
            Field::PathIn(_) => "<path>",
        }
    }

    /// True if `hook` carries this field.
    pub fn available_on(&self, hook: Hook) -> bool {
        let name = self.root_name();
        FIELD_NAMES
            .iter()
            .any(|(n, hooks)| *n == name && hooks.is_none_or(|h| h.contains(&hook)))
    }

    /// Field names (roots) that `hook` carries, for "did you mean".
    pub fn names_for(hook: Hook) -> impl Iterator<Item = &'static str> {
        FIELD_NAMES
            .iter()
            .filter(move |(_, h)| h.is_none_or(|h| h.contains(&hook)))
            .map(|(n, _)| *n)
    }
}

impl std::fmt::Display for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.root_name())?;
        if let Field::Args(p) | Field::Extra(p) = self {
            for s in p {
                match s {
                    PathSeg::Key(k) => write!(f, ".{k}")?,
                    PathSeg::Index(i) => write!(f, "[{i}]")?,
                }
            }
        }
        Ok(())
    }
}

/// Why a field name does not resolve.
#[derive(Debug, PartialEq, Eq)]
pub enum FieldError {
    /// No such field.
    Unknown,
    /// The field is a scalar and cannot take `.key`.
    NotAnObject,
}

/// An agent event, ready to evaluate.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Which hook fired.
    pub hook: Hook,
    /// Tool name (tool events).
    pub tool: Option<String>,
    /// Tool arguments (tool events), normally an object.
    pub args: Value,
    /// Session id.
    pub session_id: Option<String>,
    /// Host working directory.
    pub cwd: Option<String>,
    /// Host profile (newer Hermes only).
    pub profile: Option<String>,
    /// Everything else the host sent.
    pub extra: Value,
    /// pre_llm_call: the user's message.
    pub user_message: Option<String>,
    /// pre_llm_call: the contents of the conversation so far.
    pub history: Vec<String>,
    /// Model name.
    pub model: Option<String>,
    /// Platform.
    pub platform: Option<String>,
    /// pre_llm_call: first turn.
    pub is_first_turn: Option<bool>,
    /// pre_llm_call: sender.
    pub sender_id: Option<String>,
    /// transform_tool_result: result text.
    pub result: Option<String>,
    /// transform_terminal_output: the command.
    pub command: Option<String>,
    /// transform_terminal_output: the output.
    pub output: Option<String>,
    /// transform_terminal_output: the exit code.
    pub exit_code: Option<i64>,
    /// transform_llm_output: the reply.
    pub response_text: Option<String>,
    /// The environment of the process deciding, as far as policies read it: the values of
    /// [`crate::paths::LOCATION_VARS`] (`$HERMES_HOME`, `$WARDEN_CACHE_DIR`, …) that `under`
    /// targets such as `"$HERMES_HOME/config.yaml"` name, expanded per event (like `cwd`).
    /// A name may appear more than once (`$WARDEN_POLICY` holds a list of paths). The hook
    /// fills it from its own environment ([`crate::paths::location_env`]); empty: such targets
    /// match nothing.
    pub env: Vec<(String, String)>,
}

impl Event {
    /// An empty event of the given hook.
    pub fn new(hook: Hook) -> Event {
        Event {
            hook,
            tool: None,
            args: Value::Null,
            session_id: None,
            cwd: None,
            profile: None,
            extra: Value::Null,
            user_message: None,
            history: Vec::new(),
            model: None,
            platform: None,
            is_first_turn: None,
            sender_id: None,
            result: None,
            command: None,
            output: None,
            exit_code: None,
            response_text: None,
            env: Vec::new(),
        }
    }

    /// The values of the environment variable `name` in [`Event::env`].
    pub fn env_values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.env
            .iter()
            .filter(move |(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| v.as_str())
    }

    /// A `pre_tool_call` for `tool` with `args`.
    pub fn tool_call(tool: &str, args: Value) -> Event {
        Event {
            tool: Some(tool.to_string()),
            args,
            ..Event::new(Hook::PreToolCall)
        }
    }

    /// A `pre_llm_call` carrying `message`.
    pub fn llm_call(message: &str) -> Event {
        Event {
            user_message: Some(message.to_string()),
            ..Event::new(Hook::PreLlmCall)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_names_round_trip() {
        for h in Hook::ALL {
            assert_eq!(Hook::from_name(h.name()), Some(*h));
        }
        assert_eq!(Hook::ALL.len(), 23);
    }

    #[test]
    fn schema_is_per_event() {
        assert!(Field::Tool.available_on(Hook::PreToolCall));
        assert!(!Field::UserMessage.available_on(Hook::PreToolCall));
        assert!(Field::Cwd.available_on(Hook::PreLlmCall));
        assert_eq!(
            Field::resolve("cwd", vec![PathSeg::Index(0)]),
            Err(FieldError::NotAnObject)
        );
    }
}
