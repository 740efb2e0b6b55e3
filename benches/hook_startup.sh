#!/usr/bin/env bash
# Hook start-up cost, side by side: `true`, `warden hook` (shipped packs, embedded) and the
# seed jq+grep shell hook from the Hermes hooks reference (block-rm-rf.sh), each fed the same
# pre_tool_call payload on stdin. Prints a markdown table of medians and ratios.
#   WARDEN_BIN   (default: the binary the README's `cargo install --path .` produces, installed
#                into a temporary root; cargo reuses target/release, so this builds only if
#                that is stale)
#   COMPARE_BIN  optional: another build to time beside it, as COMPARE_NAME (default
#                "warden hook (compare)"), e.g. the dynamic link: WARDEN_LINK=dynamic
#                cargo build --release --target-dir target/dynamic
#   RUNS        (default 200)   WARMUP (default 20)
#   ROUNDS      optional: N interleaved rounds of true / hook / COMPARE_BIN (see the end)
# Needs hyperfine (apt-get install -y hyperfine) and jq.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
WARDEN_BIN="${WARDEN_BIN:-}"
if [[ -z "$WARDEN_BIN" ]]; then
  echo "hook_startup.sh: cargo install --path $REPO --locked --root <tmp>" >&2
  cargo install --path "$REPO" --locked --quiet --root "$T/inst" >&2
  WARDEN_BIN="$T/inst/bin/warden"
fi
[[ -x "$WARDEN_BIN" ]] || { echo "hook_startup.sh: no warden binary at $WARDEN_BIN" >&2; exit 1; }
command -v jq >/dev/null || { echo "hook_startup.sh: needs jq" >&2; exit 1; }
# hyperfine >= 1.16 feeds stdin itself (--input) and runs without a shell (-N), so only the
# process is measured. Debian 12 ships 1.15; then build 1.18 from crates.io once, into the cache.
HYPERFINE="${HYPERFINE:-hyperfine}"
if ! "$HYPERFINE" --help 2>/dev/null | grep -q -- '--input'; then
  HYPERFINE="$HOME/.cache/warden/hyperfine/bin/hyperfine"
  if [[ ! -x "$HYPERFINE" ]]; then
    echo "hook_startup.sh: installing hyperfine 1.18 (cargo) into ~/.cache/warden/hyperfine" >&2
    cargo install hyperfine@1.18.0 --locked --quiet --root "$HOME/.cache/warden/hyperfine" >&2
  fi
fi
RUNS="${RUNS:-200}"; WARMUP="${WARMUP:-20}"

# Time installed copies, as Hermes runs them (e.g. /usr/local/bin/warden): here a binary
# just written by the linker starts ~0.07 ms slower than a copy of the same file.
install -m 755 "$WARDEN_BIN" "$T/warden"; WARDEN_BIN="$T/warden"
COMPARE_NAME="${COMPARE_NAME:-warden hook (compare)}"
if [[ -n "${COMPARE_BIN:-}" ]]; then install -m 755 "$COMPARE_BIN" "$T/warden-compare"; COMPARE_BIN="$T/warden-compare"; fi
echo "hook_startup.sh: timing $(file -b "$WARDEN_BIN" | cut -d, -f1-2,4)" >&2
# A pre_tool_call payload exactly as Hermes 0.19.0 serialises it (no top-level profile).
cat > "$T/payload.json" <<'JSON'
{"hook_event_name": "pre_tool_call", "tool_name": "terminal", "tool_input": {"command": "git status --short && cargo test --quiet"}, "session_id": "sess_bench", "cwd": "/home/user/project", "extra": {"task_id": "task-1", "tool_call_id": "call-1", "turn_id": "turn-1", "api_request_id": "req-1", "middleware_trace": [], "telemetry_schema_version": "hermes.observer.v1"}}
JSON
# The seed script from hermes-hooks-reference.en.txt ("Block destructive terminal commands").
cat > "$T/block-rm-rf.sh" <<'SH'
#!/usr/bin/env bash
cmd=$(jq -r '.tool_input.command // empty')
if echo "$cmd" | grep -qE 'rm[[:space:]]+-rf?[[:space:]]+/|git[[:space:]]+push.*--force'; then
  printf '{"decision": "block", "reason": "blocked by hook: destructive command"}\n'
else
  printf '{}\n'
fi
SH
chmod +x "$T/block-rm-rf.sh"

# Sanity: both hooks must answer the payload with an allow before we time them.
for h in "$WARDEN_BIN hook" "$T/block-rm-rf.sh"; do
  out="$(env -u WARDEN_POLICY $h < "$T/payload.json")" || { echo "hook_startup.sh: '$h' failed (rc=$?): $out" >&2; exit 1; }
  [[ "$(jq -c . <<<"$out")" == "{}" ]] || { echo "hook_startup.sh: '$h' did not allow: $out" >&2; exit 1; }
done

# hyperfine >= 1.16 can feed stdin itself (--input) and run without a shell (-N): that measures
# only the process. Older hyperfine (Debian 12 ships 1.15) has no --input; then the commands run
# under `sh -c '... < payload'` and hyperfine subtracts its measured shell-spawn time.
names=(true "warden hook" "warden hook --no-cache" "block-rm-rf.sh (jq+grep)")
export WARDEN_CACHE_DIR="$T/cache"   # a cache of its own; the warm-up runs fill it
if "$HYPERFINE" --help 2>/dev/null | grep -q -- '--input'; then
  mode="--input + --shell=none"
  extra=()
  [[ -n "${COMPARE_BIN:-}" ]] && extra=(-n "$COMPARE_NAME" "$COMPARE_BIN hook")
  "$HYPERFINE" -N --input "$T/payload.json" --warmup "$WARMUP" --runs "$RUNS" --style basic \
    --export-json "$T/r.json" "${extra[@]}" \
    -n "${names[0]}" "true" -n "${names[1]}" "$WARDEN_BIN hook" -n "${names[2]}" "$WARDEN_BIN hook --no-cache" \
    -n "${names[3]}" "$T/block-rm-rf.sh" >&2
else
  mode="sh -c with '< payload' (shell spawn time subtracted by hyperfine $(hyperfine --version | awk '{print $2}'))"
  extra=()
  [[ -n "${COMPARE_BIN:-}" ]] && extra=(-n "$COMPARE_NAME" "env -u WARDEN_POLICY '$COMPARE_BIN' hook < '$T/payload.json'")
  "$HYPERFINE" --shell sh --warmup "$WARMUP" --runs "$RUNS" --style basic --export-json "$T/r.json" "${extra[@]}" \
    -n "${names[0]}" "true < '$T/payload.json'" \
    -n "${names[1]}" "env -u WARDEN_POLICY '$WARDEN_BIN' hook < '$T/payload.json'" \
    -n "${names[2]}" "env -u WARDEN_POLICY '$WARDEN_BIN' hook --no-cache < '$T/payload.json'" \
    -n "${names[3]}" "'$T/block-rm-rf.sh' < '$T/payload.json'" >&2
fi

echo
echo "Hook start-up, one pre_tool_call payload on stdin ($RUNS runs, $WARMUP warm-up; $mode; $(nproc) cores)"
echo
jq -r '
  .results as $r
  | ($r[] | select(.command == "warden hook") | .median) as $w
  | "| command | median | mean ± σ | × warden |",
    "|---|---:|---:|---:|",
    ($r[] | "| \(.command) | \(.median * 1000 * 1000 | round / 1000) ms | \(.mean * 1000 * 1000 | round / 1000) ± \(.stddev * 1000 * 1000 | round / 1000) ms | \(if $w > 0 then (.median / $w * 100 | round / 100) else "n/a" end) |")
' "$T/r.json"

# On a shared, loaded machine one long hyperfine run times each command at a different
# moment. ROUNDS=N (N > 1) then also runs N interleaved rounds of ROUND_RUNS (default 60)
# runs each of `true`, the hook and COMPARE_BIN, and prints per command the median over the
# rounds of its median wall time and of its CPU time (user + sys), and the median of the
# per-round ratios to `true`.
if [[ "${ROUNDS:-1}" -gt 1 ]] && "$HYPERFINE" --help 2>/dev/null | grep -q -- '--input'; then
  extra=()
  [[ -n "${COMPARE_BIN:-}" ]] && extra=(-n "$COMPARE_NAME" "$COMPARE_BIN hook")
  for r in $(seq "$ROUNDS"); do
    "$HYPERFINE" -N --input "$T/payload.json" --warmup 5 --runs "${ROUND_RUNS:-60}" --style none \
      --export-json "$T/round-$r.json" -n true true -n "warden hook" "$WARDEN_BIN hook" "${extra[@]}" >/dev/null
  done
  echo
  echo "Interleaved: $ROUNDS rounds × ${ROUND_RUNS:-60} runs (medians over the rounds)"
  echo
  jq -rs '
    def med: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    def ms: . * 1e6 | round / 1000;
    def x: . * 100 | round / 100;
    (map(.results | map({key: .command, value: {w: .median, c: (.user + .system)}}) | from_entries)) as $rs
    | "| command | wall | × true | CPU (user+sys) | × true |", "|---|---:|---:|---:|---:|",
      (($rs[0] | keys_unsorted)[] as $n
       | "| \($n) | \([$rs[][$n].w] | med | ms) ms | \([$rs[] | .[$n].w / .["true"].w] | med | x) | \([$rs[][$n].c] | med | ms) ms | \([$rs[] | .[$n].c / .["true"].c] | med | x) |")
  ' "$T"/round-*.json
fi
