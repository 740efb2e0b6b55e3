"""Whole Hermes agent turns (`hermes chat -q`) in an isolated home, for tests.

Reusable harness (stdlib + PyYAML, which every Hermes venv has; no pytest needed):

    from model_server import ScriptedModel, tool_call, text
    from agent_turn import AgentHome

    with ScriptedModel([[tool_call("terminal", {"command": "ls"})], text("done")]) as model:
        agent = AgentHome(tmp_path / "a")               # fresh HERMES_HOME, HOME and work dir
        agent.configure(model)                          # config.yaml: custom provider -> model.base_url
        agent.install_warden(warden_bin)                # `warden install hermes --hermes-home … --accept`
        turn = agent.chat("list the files")             # one real `hermes chat -q … -Q` turn
        turn.check()                                    # raises unless rc 0 and the model was reached
        model.tool_results()                            # what the model saw (see model_server.py)

In pytest (tests/hermes/conftest.py): ``scripted_model(script)`` starts a ScriptedModel stopped at
teardown; ``agent_home(name, model, warden_bin=None, *install_args, **env)`` makes a configured
AgentHome under tmp_path (and installs warden when ``warden_bin`` is given).

AgentHome(root, *, hermes_bin=None, env=None)
    root/hermes-home, root/home, root/work are created. ``hermes_bin`` defaults to the
    `hermes` beside the running interpreter (the venv the tests run in). ``env`` adds or
    overrides environment variables (e.g. WARDEN_CACHE_DIR, WARDEN_AUDIT). The environment
    is scrubbed of HERMES_*/TERMINAL_*/WARDEN_*/OPENAI* and proxy variables; the venv's
    bin/ is put first on PATH so `warden install` finds the Hermes it configures.
  .hermes_home .home .work .env        paths and the environment every command here uses
  .configure(model, extra=None)        write config.yaml (QUIET_CONFIG + model section; ``extra`` is
                                       deep-merged over it) and point HTTP(S)_PROXY at the model
                                       server's refusing proxy, so nothing leaves 127.0.0.1
  .install_warden(warden_bin, *args, warm=True)
                                       run the real installer (``--accept`` is added); returns the
                                       CompletedProcess, raises AssertionError if it fails; then warm_warden()
  .warm_warden(warden_bin, *hook_args) compile the policy into the cache once, in this home's environment,
                                       with a long --deadline (see below)
  .config()                            config.yaml parsed (after install, to see what it wrote)
  .chat(query, *, args=(), timeout=…)  run one turn; returns Turn(returncode, stdout, stderr, seconds)
  .run(argv, **kw)                     run any other command in this home's environment

Choices that keep a turn deterministic, local and quick (QUIET_CONFIG): the model is reached
only through ``model: {provider: custom, base_url, default, api_key}`` (0.19.0 ignores
OPENAI_BASE_URL); title generation is off (an auxiliary call that would eat a scripted reply
and send the user's text again); Hermes's own command approval is off (``approvals.mode: off``:
otherwise "smart" mode asks the model and "manual" mode waits 60 s for a TTY that never
answers), so any command that does not run was stopped by a hook and nothing else; the
tirith scanner (which downloads a binary) is off; `agent.max_turns` bounds a runaway loop.

Why warm: the hook's 1000 ms internal deadline covers compiling the policy on a cache miss.
A debug build compiling the shipped packs on a loaded machine can miss it, and then every call
fails closed (blocked) and no snapshot is ever written. Warming with the same policy arguments
and this home's HOME / WARDEN_CACHE_DIR writes the very snapshot the hook then loads, so a
turn's outcome depends on the policy, not on the machine's load.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import yaml

QUIET_CONFIG: dict = {
    "approvals": {"mode": "off"},
    "security": {"tirith_enabled": False},
    "auxiliary": {"title_generation": {"enabled": False}},
    "agent": {"max_turns": 8},
    "terminal": {"backend": "local"},
}

TURN_TIMEOUT = 180
_SCRUB_PREFIXES = ("HERMES_", "TERMINAL_", "WARDEN_", "SUDO_", "OPENAI", "OPENROUTER", "ANTHROPIC")
_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


def deep_merge(base: dict, over: dict) -> dict:
    """``over`` merged into a copy of ``base``, recursively for nested dicts."""
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def warm_payloads(cwd: str) -> list[dict]:
    """A harmless pre_tool_call and pre_llm_call, each compiling its event's snapshot."""
    base = {"session_id": "warm", "cwd": cwd}
    return [
        {"hook_event_name": "pre_tool_call", "tool_name": "terminal", "tool_input": {"command": "true"}, **base,
         "extra": {"task_id": "", "tool_call_id": "warm"}},
        {"hook_event_name": "pre_llm_call", "tool_name": None, "tool_input": None, **base,
         "extra": {"user_message": "hello", "conversation_history": [], "is_first_turn": True,
                   "model": "warden-scripted", "platform": "cli", "sender_id": ""}},
    ]


@dataclass
class Turn:
    """One finished `hermes chat -q` run."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def check(self) -> "Turn":
        assert self.returncode == 0, f"hermes chat exited {self.returncode}\nstdout:\n{self.stdout[-3000:]}\nstderr:\n{self.stderr[-3000:]}"
        return self


class AgentHome:
    """An isolated Hermes installation state (HERMES_HOME, HOME, work dir, environment)."""

    def __init__(self, root: Path, *, hermes_bin: str | os.PathLike | None = None, env: dict | None = None) -> None:
        self.root = Path(root)
        self.hermes_home = self.root / "hermes-home"
        self.home = self.root / "home"
        self.work = self.root / "work"
        for d in (self.hermes_home, self.home, self.work):
            d.mkdir(parents=True, exist_ok=True)
        self.hermes_bin = Path(hermes_bin) if hermes_bin else Path(sys.executable).parent / "hermes"
        assert self.hermes_bin.is_file(), f"no hermes executable at {self.hermes_bin}"
        base = {k: v for k, v in os.environ.items()
                if not k.startswith(_SCRUB_PREFIXES) and k.upper() not in _PROXY_VARS}
        base.update(
            HERMES_HOME=str(self.hermes_home),
            HOME=str(self.home),
            TERMINAL_ENV="local",
            TERMINAL_CWD=str(self.work),
            PYTHONDONTWRITEBYTECODE="1",
            GIT_CEILING_DIRECTORIES=str(self.root),
            PATH=f"{self.hermes_bin.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        )
        base.update(env or {})
        self.env = base

    # -- setup ---------------------------------------------------------------
    def configure(self, model: Any, extra: dict | None = None) -> Path:
        """Write config.yaml for ``model`` (a started ScriptedModel) and route all other traffic to its refusing proxy."""
        cfg = deep_merge(QUIET_CONFIG, {"model": {"provider": "custom", "base_url": model.base_url,
                                                  "default": "warden-scripted", "api_key": "test-key"},
                                        "terminal": {"cwd": str(self.work)}})
        cfg = deep_merge(cfg, extra or {})
        path = self.hermes_home / "config.yaml"
        path.write_text("# written by tests/hermes/agent_turn.py\n" + yaml.safe_dump(cfg, sort_keys=False))
        for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
            self.env[var] = self.env[var.lower()] = model.proxy_url
        self.env["NO_PROXY"] = self.env["no_proxy"] = "127.0.0.1,localhost"
        return path

    def install_warden(self, warden_bin: str, *args: str, warm: bool = True) -> subprocess.CompletedProcess:
        """Run the real `warden install hermes --accept` into this home (``args``: more install flags)."""
        proc = self.run([warden_bin, "install", "hermes", "--hermes-home", str(self.hermes_home), "--accept", *args],
                        timeout=60)
        assert proc.returncode == 0, f"warden install failed (rc={proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
        if warm:
            policy: list[str] = []
            for i, a in enumerate(args):
                if a in ("--policy", "-p") and i + 1 < len(args):
                    policy += ["--policy", args[i + 1]]
                elif a.startswith("--policy="):
                    policy.append(a)
            self.warm_warden(warden_bin, *policy)
        return proc

    def warm_warden(self, warden_bin: str, *hook_args: str) -> None:
        """Compile ``hook_args``' policy into this home's cache for both hooked events (harmless
        calls, generous deadline)."""
        for payload in warm_payloads(str(self.work)):
            proc = subprocess.run(
                [warden_bin, "hook", "--deadline", "120000", *hook_args], input=json.dumps(payload), env=self.env,
                cwd=str(self.work), capture_output=True, text=True, timeout=180)
            assert proc.returncode == 0 and proc.stdout.strip() == "{}", \
                f"warming warden's cache failed (rc={proc.returncode}): {proc.stdout!r} {proc.stderr[-1000:]!r}"

    def config(self) -> dict:
        return yaml.safe_load((self.hermes_home / "config.yaml").read_text()) or {}

    # -- running -------------------------------------------------------------
    def run(self, argv: Sequence[str], *, timeout: float = 60, **kw: Any) -> subprocess.CompletedProcess:
        """Run ``argv`` in this home's environment and work dir, stdin closed."""
        return subprocess.run(list(argv), env=self.env, cwd=str(self.work), stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=timeout, **kw)

    def chat(self, query: str, *, args: Sequence[str] = (), timeout: float = TURN_TIMEOUT) -> Turn:
        """One non-interactive turn: `hermes chat -q QUERY -Q` (quiet: only the final answer on stdout)."""
        t0 = time.monotonic()
        try:
            proc = self.run([str(self.hermes_bin), "chat", "-q", query, "-Q", *args], timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise AssertionError(f"hermes chat did not finish within {timeout}s; stderr tail: {str(exc.stderr)[-2000:]}")
        return Turn(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - t0)
