//! What a host's *plugin* interface honours, per host version: the mechanism the
//! warden plugin uses for each kind of decision. The plugin asks `warden serve`
//! for this table in its `hello`, from the version of the host it runs in.
//!
//! Hermes (checked against the real 0.19.0 code, `hermes_cli/middleware.py`,
//! `hermes_cli/plugins.py`, `model_tools.py`, `agent/conversation_loop.py`):
//! middleware (`tool_request`, `tool_execution`, `llm_request`, `llm_execution`)
//! exists from 0.19.0 on; before it a plugin has hooks only.

use serde_json::{json, Value};

/// The plugin capabilities of `host` at `version` (unknown version: the newest known).
pub fn capabilities(host: &str, version: Option<&str>) -> Value {
    if host != "hermes" {
        return json!({"known": false});
    }
    let v = version.and_then(|v| semver::Version::parse(v.split('+').next().unwrap_or(v)).ok());
    let middleware = v
        .as_ref()
        .is_none_or(|v| *v >= semver::Version::new(0, 19, 0));
    // 0.19.0 takes the first block-or-approve of pre_tool_call in registration order;
    // newer hosts let a block beat an approve whatever the order.
    let first_directive_wins = v
        .as_ref()
        .is_some_and(|v| *v < semver::Version::new(0, 21, 0));
    json!({
        "known": true,
        "block": if middleware { "tool_execution" } else { "pre_tool_call" },
        "approve": "pre_tool_call",
        "modify": if middleware { "tool_request" } else { "none" },
        "tool_result": if middleware { "tool_execution" } else { "transform_tool_result" },
        "terminal_output": "transform_terminal_output",
        "llm_output": "transform_llm_output",
        "turn_block": if middleware { "llm_execution" } else { "none" },
        "provider_payload": if middleware { "llm_request" } else { "none" },
        "gateway": "pre_gateway_dispatch",
        "first_directive_wins": first_directive_wins,
        // auxiliary model calls (title generation, context compression) go around
        // llm_request / llm_execution on 0.19.0
        "auxiliary_bypasses_middleware": middleware,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hermes_019_has_middleware_and_first_directive_wins() {
        let c = capabilities("hermes", Some("0.19.0"));
        assert_eq!(c["block"], "tool_execution");
        assert_eq!(c["turn_block"], "llm_execution");
        assert_eq!(c["first_directive_wins"], true);
        let c = capabilities("hermes", Some("0.22.2.post1"));
        assert_eq!(c["block"], "tool_execution");
        let c = capabilities("hermes", Some("0.18.2"));
        assert_eq!(c["block"], "pre_tool_call");
        assert_eq!(c["turn_block"], "none");
        assert_eq!(capabilities("other", None)["known"], false);
    }
}
