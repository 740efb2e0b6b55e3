#!/usr/bin/env bash
# Validate `warden check --format sarif` against the SARIF 2.1.0 JSON schema.
#
# The schema comes from the npm registry (no other network is needed):
#   * @microsoft/sarif-multitool-linux ships `sarif-2.1.0.json`, the SARIF SDK's
#     copy of the OASIS SARIF 2.1.0 schema (JSON Schema draft 2020-12);
#   * @microsoft/jest-sarif ships `sarif-2.1.0-rtm.5.json` (draft-04), the
#     schemastore.org schema GitHub code scanning documents.
# Both are cached under ~/.cache/warden/sarif; Python `jsonschema` is
# installed into a venv under ~/.cache/warden/venv.
#
# Usage: tests/sarif/validate.sh [path/to/warden]   (default: builds target/debug/warden)
set -euo pipefail
cd "$(dirname "$0")/../.."
CACHE="${WARDEN_CACHE:-$HOME/.cache/warden}"
SCHEMAS="$CACHE/sarif"
VENV="$CACHE/venv"
mkdir -p "$SCHEMAS"

WARDEN="${1:-}"
if [ -z "$WARDEN" ]; then
  cargo build --quiet --bin warden
  WARDEN=target/debug/warden
fi

fetch() { # fetch PACKAGE@VERSION PATH-IN-TARBALL OUT
  local pkg="$1" inner="$2" out="$3"
  [ -s "$out" ] && return 0
  local tmp; tmp="$(mktemp -d)"
  ( cd "$tmp" && npm pack --silent "$pkg" >/dev/null )
  tar -xzf "$tmp"/*.tgz -C "$tmp" "package/$inner"
  mv "$tmp/package/$inner" "$out"
  rm -rf "$tmp"
}
fetch @microsoft/jest-sarif@1.0.0-beta.0 lib/schemas/sarif-2.1.0-rtm.5.json "$SCHEMAS/sarif-2.1.0-rtm.5.json"
fetch @microsoft/sarif-multitool-linux@5.7.0 sarif-2.1.0.json "$SCHEMAS/sarif-2.1.0.json"

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -c 'import jsonschema' 2>/dev/null || "$VENV/bin/pip" install --quiet 'jsonschema>=4.18'

OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
status=0
for fixture in broken lints demo; do
  set +e
  "$WARDEN" check --format sarif "tests/fixtures/tooling/$fixture" >"$OUT/$fixture.sarif"
  rc=$?
  set -e
  case "$fixture" in broken) want=1 ;; *) want=0 ;; esac
  if [ "$rc" != "$want" ]; then echo "FAIL: warden check $fixture exited $rc, want $want"; status=1; fi
done

"$VENV/bin/python" - "$SCHEMAS" "$OUT" <<'PY' || status=1
import json, sys, pathlib
import jsonschema
schemas, out = map(pathlib.Path, sys.argv[1:3])
validators = []
for name in ["sarif-2.1.0.json", "sarif-2.1.0-rtm.5.json"]:
    schema = json.loads((schemas / name).read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validators.append((name, cls(schema, format_checker=cls.FORMAT_CHECKER)))
failed = passed = 0
for f in sorted(out.glob("*.sarif")):
    log = json.loads(f.read_text())
    for name, v in validators:
        errors = sorted(v.iter_errors(log), key=lambda e: list(e.path))
        if errors:
            failed += 1
            print(f"FAIL {f.name} against {name}:")
            for e in errors[:10]:
                print(f"  at /{'/'.join(map(str, e.path))}: {e.message}")
        else:
            passed += 1
    # What GitHub code scanning needs to place a finding on a line.
    run = log["runs"][0]
    ids = {r["id"] for r in run["tool"]["driver"]["rules"]}
    for r in run["results"]:
        ok = r["ruleId"] in ids and r["level"] in ("error", "warning")
        loc = r.get("locations", [{}])[0].get("physicalLocation", {})
        reg = loc.get("region", {})
        uri = loc.get("artifactLocation", {}).get("uri", "")
        ok = ok and uri.startswith("tests/fixtures/tooling/") and all(k in reg for k in ("startLine", "startColumn", "endLine", "endColumn"))
        if not ok:
            failed += 1
            print(f"FAIL {f.name}: result without a usable location or rule: {r}")
    if f.name == "broken.sarif" and not any(r["level"] == "error" for r in run["results"]):
        failed += 1
        print("FAIL broken.sarif has no error result")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
exit $status
