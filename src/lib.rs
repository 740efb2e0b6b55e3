//! # warden
//!
//! A policy-as-data rules engine for AI-agent hooks. Policies written in a
//! small declarative language are parsed, checked, compiled into one
//! immutable [`MatcherSet`], and evaluated per agent event in microseconds.
//!
//! The flow, one module per stage:
//!
//! ```text
//! text ─► syntax (AST) ─► check (CheckedPolicy) ─► compile (MatcherSet) ─► eval (Verdict)
//! host payload ─► host (wire in, capabilities) ─► runtime::decide ─► host (wire out) + audit
//! ```
//!
//! ```
//! use warden::{Event, Policy, Decision};
//! let policy = Policy::from_sources(vec![("p.warden".into(), r#"
//!     rule fs.no_root {
//!       on pre_tool_call
//!       when tool == "terminal" and args.command matches /\brm\s+-rf\s+\/(\s|$)/
//!       block "Refusing to delete the root directory"
//!     }"#.into())]).unwrap();
//! let set = policy.compile().unwrap();
//! let v = set.evaluate(&Event::tool_call("terminal", serde_json::json!({"command": "rm -rf /"})));
//! assert!(matches!(v.decision, Decision::Block { .. }));
//! ```

#![warn(missing_docs)]

pub mod audit;
pub mod check;
pub mod compile;
pub mod date;
pub mod diag;
pub mod eval;
pub mod event;
pub mod host;
pub mod lint;
pub mod paths;
pub mod policy;
pub mod redact;
pub mod runtime;
pub mod serve;
pub mod shell;
pub mod syntax;
pub mod testing;

pub use compile::{CompileOptions, MatcherSet};
pub use diag::{Diagnostic, Severity};
pub use eval::{Decision, RuleMatch, Verdict};
pub use event::{Event, Field, Hook};
pub use policy::{LoadError, Policy};
