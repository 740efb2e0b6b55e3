"""Fixtures for the Hermes Agent 0.19.0 conformance suite.

Every scenario runs the real Hermes code (``agent.shell_hooks``,
``hermes_cli.plugins``, ``model_tools``) in a *fresh* Python process
(``hermes_driver.py``) with its own HERMES_HOME, HOME and TERMINAL_CWD, because
Hermes reads its environment at import time and keeps global hook state.
Nothing here is ever skipped: a missing binary or a wrong Hermes version fails.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
DRIVER = HERE / "hermes_driver.py"
EXPECTED_HERMES = "0.19.0"
DEFAULT_BIN = "/work/main/target/debug/warden"

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
            f"(cargo build) or point WARDEN_BIN at it; conformance tests are never skipped.",
            pytrace=False,
        )
    return path


@pytest.fixture(scope="session", autouse=True)
def hermes_version() -> str:
    try:
        version = importlib.metadata.version("hermes-agent")
    except importlib.metadata.PackageNotFoundError:
        pytest.fail(
            f"hermes-agent is not installed in {sys.executable}; run tests/hermes/run.sh",
            pytrace=False,
        )
    if version != EXPECTED_HERMES:
        pytest.fail(f"expected hermes-agent=={EXPECTED_HERMES}, found {version}", pytrace=False)
    return version


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
    """Runs one scenario in a fresh Hermes 0.19.0 process."""

    def __init__(self, sandbox: dict) -> None:
        self.sandbox = sandbox
        self.runs = 0

    def run(self, hooks: dict, steps: list, *, accept_hooks: bool = True, extra_config: dict | None = None) -> dict:
        self.runs += 1
        tmp: Path = self.sandbox["tmp"]
        spec_path = tmp / f"spec-{self.runs}.json"
        result_path = tmp / f"result-{self.runs}.json"
        config = {"hooks": hooks, **(extra_config or {})}
        spec_path.write_text(json.dumps({"config": config, "accept_hooks": accept_hooks, "steps": steps}))
        try:
            proc = subprocess.run(
                [sys.executable, str(DRIVER), str(spec_path), str(result_path)],
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
def hermes(sandbox: dict) -> Hermes:
    return Hermes(sandbox)


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
