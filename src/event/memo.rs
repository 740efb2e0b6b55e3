//! What is derived from one event, computed once: its command line parsed and its paths
//! normalised. The prefilter's search (`compile::prefilter`) reads it first, to find
//! program names and path ancestors; the evaluator (`eval`) then reads the same memo, so
//! one evaluation parses the command line at most once.

use super::{Event, Hook};
use crate::shell;
use serde_json::Value;

/// One event with its derived facts, each computed on first need.
pub(crate) struct EventMemo<'a> {
    /// The event.
    pub(crate) event: &'a Event,
    /// Home directory for `~` / `$HOME` (the matcher set's).
    home: Option<&'a str>,
    /// The command line parsed once, on first need.
    shell: std::cell::OnceCell<Option<shell::Analysis>>,
    /// Paths already normalised in this run (many rules test the same `args.path`).
    normalized: std::cell::RefCell<Vec<(String, Option<String>)>>,
}

impl<'a> EventMemo<'a> {
    /// An empty memo of `event`, resolving `~` against `home`.
    pub(crate) fn new(event: &'a Event, home: Option<&'a str>) -> EventMemo<'a> {
        EventMemo {
            event,
            home,
            shell: std::cell::OnceCell::new(),
            normalized: Default::default(),
        }
    }

    /// The parsed command line of the event (`args.command`, or `command`
    /// on transform_terminal_output), if it has one.
    pub(crate) fn shell(&self) -> Option<&shell::Analysis> {
        self.shell
            .get_or_init(|| {
                let opts = shell::Options {
                    cwd: self.event.cwd.as_deref(),
                    home: self.home,
                    ..Default::default()
                };
                // Hermes's execute_code runs `args.code` as Python
                if self.event.hook == Hook::PreToolCall
                    && self.event.tool.as_deref() == Some("execute_code")
                {
                    if let Some(code) = self.event.args.get("code").and_then(Value::as_str) {
                        return Some(shell::analyze_python(code, &opts));
                    }
                }
                let text = match self.event.hook {
                    Hook::TransformTerminalOutput => self.event.command.as_deref(),
                    _ => self.event.args.get("command").and_then(Value::as_str),
                }?;
                Some(shell::analyze(text, &opts))
            })
            .as_ref()
    }

    /// `text` as a path normalised against the event's cwd and home, once per run.
    pub(crate) fn normalized(&self, text: &str) -> Option<String> {
        if let Some((_, n)) = self.normalized.borrow().iter().find(|(t, _)| t == text) {
            return n.clone();
        }
        let n = crate::paths::normalize(text, self.event.cwd.as_deref(), self.home);
        self.normalized
            .borrow_mut()
            .push((text.to_string(), n.clone()));
        n
    }
}
