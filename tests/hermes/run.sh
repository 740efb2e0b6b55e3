#!/usr/bin/env bash
# Run the Hermes Agent 0.19.0 conformance suite against a built warden binary.
#   WARDEN_BIN          binary under test (default: <repo>/target/debug/warden)
#   WARDEN_HERMES_VENV  venv to create/reuse (default: ~/.cache/warden/hermes-venv-0.19.0)
#   PYTHON              interpreter used to create the venv (default: python3; Hermes needs 3.11-3.13)
# Extra arguments are passed to pytest. Exits non-zero on any failure.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
VENV="${WARDEN_HERMES_VENV:-$HOME/.cache/warden/hermes-venv-0.19.0}"
HERMES_VERSION="0.19.0"
export PYTHONDONTWRITEBYTECODE=1
export WARDEN_BIN="${WARDEN_BIN:-$REPO/target/debug/warden}"

if [[ ! -x "$WARDEN_BIN" ]]; then
  echo "run.sh: warden binary not found at $WARDEN_BIN (run cargo build or set WARDEN_BIN)" >&2
  exit 1
fi

if [[ ! -x "$VENV/bin/python" ]]; then
  echo "run.sh: creating venv $VENV" >&2
  mkdir -p "$(dirname "$VENV")"
  "${PYTHON:-python3}" -m venv "$VENV"
fi
PY="$VENV/bin/python"

need_install=()
have="$("$PY" -c 'import importlib.metadata as m
try: print(m.version("hermes-agent"))
except Exception: print("")')"
[[ "$have" == "$HERMES_VERSION" ]] || need_install+=("hermes-agent==$HERMES_VERSION")
"$PY" -c 'import pytest' 2>/dev/null || need_install+=("pytest")
"$PY" -c 'import pytest_timeout' 2>/dev/null || need_install+=("pytest-timeout")
if (( ${#need_install[@]} )); then
  echo "run.sh: installing ${need_install[*]} into $VENV" >&2
  "$PY" -m pip install --quiet --disable-pip-version-check "${need_install[@]}"
fi

cd "$HERE"
exec "$PY" -m pytest -p no:cacheprovider -q --timeout=300 "$@" "$HERE"
