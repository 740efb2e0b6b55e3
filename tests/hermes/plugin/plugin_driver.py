"""Run one plugin scenario inside a fresh real Hermes 0.19.0 process.

Usage: python plugin_driver.py SCENARIO ARGS.json RESULT.json

The caller has installed the plugin with `warden install hermes --plugin` into
$HERMES_HOME; Hermes's own plugin manager discovers and loads it here. Each
scenario drives real Hermes code paths (model_tools.handle_function_call, the
middleware runners, the approval gate) and records what happened.
"""

from __future__ import annotations

import json
import os
import sys
import time


def _load():
    from hermes_cli import plugins

    plugins.discover_plugins()
    mgr = plugins.get_plugin_manager()
    info = {k: {"enabled": v.enabled, "error": v.error, "middleware": v.middleware_registered,
                "hooks": v.hooks_registered}
            for k, v in mgr._plugins.items() if v.manifest.source == "user"}
    return mgr, info


def _warden(mgr):
    mod = sys.modules.get("hermes_plugins.warden")
    return mod._STATE["warden"] if mod else None


def call(tool, args, n=[0]):
    import model_tools

    n[0] += 1
    return model_tools.handle_function_call(tool, args, task_id="t", session_id="s",
                                            tool_call_id="c%d" % n[0])


def scenario_tools(a):
    mgr, info = _load()
    out = {"plugins": info, "calls": []}
    for step in a["calls"]:
        t0 = time.perf_counter()
        r = call(step["tool"], step["args"])
        out["calls"].append({"result": r, "ms": (time.perf_counter() - t0) * 1000})
    return out


def scenario_approve(a):
    mgr, info = _load()
    import tools.approval as approval

    seen = []

    def fake(tool_name, reason, *, rule_key="", approval_callback=None):
        seen.append({"tool": tool_name, "reason": reason, "rule_key": rule_key})
        return {"approved": a["approve"], "message": None if a["approve"] else "denied by the test"}

    approval.request_tool_approval = fake
    r = call("terminal", {"command": a["command"]})
    return {"plugins": info, "result": r, "asked": seen}


def scenario_kill(a):
    mgr, info = _load()
    w = _warden(mgr)
    out = {"plugins": info, "steps": []}
    for step in a["steps"]:
        if step == "kill":
            p = w.client.proc
            out["steps"].append({"killed": p.pid if p else None})
            if p:
                p.kill()
                p.wait()
        elif step == "llm":
            out["steps"].append({"llm": _llm_turn("hello there")})
        else:
            out["steps"].append({"result": call("terminal", {"command": step})})
    return out


def _llm_turn(text, history=None, api_mode="chat_completions"):
    """One provider call through the real middleware runners; records what the provider got."""
    from hermes_cli.middleware import apply_llm_request_middleware, run_llm_execution_middleware

    sent = []
    messages = list(history or []) + [{"role": "user", "content": text}]
    request = {"model": "m", "messages": messages}
    mw = apply_llm_request_middleware(request, task_id="t", turn_id="u", api_request_id="r",
                                      session_id="s", platform="cli", model="m", provider="p",
                                      base_url="http://127.0.0.1:9", api_mode=api_mode, api_call_count=1)

    def provider(req):
        sent.append(req)
        return {"provider": "called"}

    resp = run_llm_execution_middleware(mw.payload, provider, original_request=mw.original_payload,
                                        task_id="t", turn_id="u", api_request_id="r", session_id="s",
                                        platform="cli", model="m", provider="p", base_url="http://127.0.0.1:9",
                                        api_mode=api_mode, api_call_count=1, middleware_trace=[])
    if isinstance(resp, dict):
        reply = resp
    else:
        try:
            reply = {"content": resp.choices[0].message.content, "finish": resp.choices[0].finish_reason}
        except Exception as e:  # noqa: BLE001
            reply = {"unreadable": repr(resp), "error": str(e)}
    return {"sent": sent, "reply": reply}


def scenario_llm(a):
    mgr, info = _load()
    return {"plugins": info, "turn": _llm_turn(a["text"], a.get("history"))}


def _serve_state(w):
    r = w.client.request({"op": "status"})
    return (r.get("policy_hash"), r.get("status"))


def scenario_reload(a):
    mgr, info = _load()
    w = _warden(mgr)
    policy = a["policy_file"]
    out = {"plugins": info, "steps": []}
    for step in a["steps"]:
        if "write" in step:
            # the co-process's view (policy hash, status) changes once it has looked at the
            # edit (reloaded it, or refused it: stale): wait for that, not a fixed time, which a
            # loaded machine (a debug build compiling the policy) can overrun
            before = _serve_state(w)
            with open(policy, "w", encoding="utf-8") as f:
                f.write(step["write"])
            deadline = time.monotonic() + step.get("wait", 30)
            while _serve_state(w) == before and time.monotonic() < deadline:
                time.sleep(0.05)
            out["steps"].append({"wrote": True})
        else:
            r = call("terminal", {"command": step["command"]})
            out["steps"].append({"result": r, "status": w.client.status})
    return out


def scenario_coexist(a):
    # another plugin (loaded first: "aaa" sorts before "warden") approves every terminal call
    mgr, info = _load()
    import tools.approval as approval

    seen = []

    def fake(tool_name, reason, *, rule_key="", approval_callback=None):
        seen.append(rule_key)
        return {"approved": True, "message": None}

    approval.request_tool_approval = fake
    r = call("terminal", {"command": a["command"]})
    order = [getattr(cb, "__module__", "?") for cb in mgr._hooks.get("pre_tool_call", [])]
    return {"plugins": info, "result": r, "asked": seen, "order": order}


def scenario_aux(a):
    # what an auxiliary model call (title generation) sends goes through warden too
    import agent.auxiliary_client as aux

    sent = []

    def fake_call_llm(task=None, **kw):
        sent.append({"task": task, "messages": kw.get("messages")})
        raise RuntimeError("no provider in this test")

    aux.call_llm = fake_call_llm
    mgr, info = _load()
    from agent import title_generator

    try:
        title_generator.generate_title(a["user"], a["assistant"])
    except Exception as e:  # noqa: BLE001
        sent.append({"raised": str(e)})
    return {"plugins": info, "sent": sent}


def scenario_gateway(a):
    """Inbound gateway messages through the host's own code that invokes the
    pre_gateway_dispatch hooks and applies skip / rewrite:
      - 0.19.0: GatewayRunner._handle_message (the hook block is inline). The runner is a
        stand-in object (the method is the real one); it stops at the first step after the
        hook (the session lookup), recording the event dispatch would continue with;
      - newer hosts: GatewayRunner._hm_pre_gateway_dispatch_hook, which returns the event to
        dispatch (rewritten) or None (dropped); _handle_message calls it first thing."""
    mgr, info = _load()
    import asyncio

    from gateway.config import Platform
    from gateway.platforms.base import MessageEvent
    from gateway.run import GatewayRunner
    from gateway.session import SessionSource

    class Dispatched(Exception):
        pass

    class Runner:
        session_store = None

        def __init__(self):
            self.reached = []

        def _scale_to_zero_note_real_inbound(self):
            pass

        def _is_user_authorized(self, source):
            return True

        def _session_key_for_source(self, source):
            # the caller's frame holds the event as the hook left it
            ev = sys._getframe(1).f_locals.get("event")
            self.reached.append(getattr(ev, "text", None))
            raise Dispatched()

    if a.get("kill"):
        w = _warden(mgr)
        w.ready()
        w.client.dead = "warden serve was killed by the test"
    split = getattr(GatewayRunner, "_hm_pre_gateway_dispatch_hook", None)
    out = {"plugins": info, "messages": [],
           "path": "GatewayRunner._hm_pre_gateway_dispatch_hook" if split else "GatewayRunner._handle_message"}
    for text in a["texts"]:
        source = SessionSource(platform=Platform.TELEGRAM, chat_id="c1", user_id="u1", user_name="dana")
        ev = MessageEvent(text=text, source=source)
        if split:
            runner = object.__new__(GatewayRunner)
            got = asyncio.run(split(runner, ev, source))
            outcome = {"returned": None} if got is None else {"dispatched": got.text}
        else:
            r = Runner()
            try:
                outcome = {"returned": asyncio.run(GatewayRunner._handle_message(r, ev))}
            except Dispatched:
                outcome = {"dispatched": r.reached[-1]}
        if "dispatched" in outcome and a.get("then_turn"):
            outcome["turn"] = _llm_turn(outcome["dispatched"])
        out["messages"].append(outcome)
    return out


def main():
    name, args_path, result_path = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(args_path, encoding="utf-8") as f:
        a = json.load(f)
    result = globals()["scenario_" + name](a)
    with open(result_path, "w", encoding="utf-8") as f:
        json.dump(result, f, ensure_ascii=True, default=str)
    mod = sys.modules.get("hermes_plugins.warden")
    if mod and mod._STATE.get("warden"):
        mod._STATE["warden"].client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
