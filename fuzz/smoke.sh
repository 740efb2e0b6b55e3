#!/usr/bin/env bash
# Fuzz smoke: run each cargo-fuzz target for a short while (FUZZ_SECONDS, default 30) from the
# committed seeds plus the corpus grown so far, and fail on any finding (panic, invariant
# violation, timeout, out-of-memory). Called by tests/run-all.sh; see fuzz/README.md.
#
#   FUZZ_SECONDS=30  seconds per target      FUZZ_TARGETS="policy hook shell redact"
#   FUZZ_SKIP=1      skip the smoke entirely (say why in the log)
#
# Needs only the stable toolchain: RUSTC_BOOTSTRAP=1 lets stable rustc accept the -Z flags
# cargo-fuzz passes; `-s none` builds without AddressSanitizer (the code under test is safe
# Rust; ASan would only slow it down, and its runtime needs nightly's build-std for some
# targets). cargo-fuzz is installed from crates.io into ~/.cache/warden/cargo-fuzz once.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
if [[ "${FUZZ_SKIP:-}" == 1 ]]; then
  echo "fuzz smoke: skipped (FUZZ_SKIP=1)"
  exit 0
fi
SECS="${FUZZ_SECONDS:-30}"
TARGETS="${FUZZ_TARGETS:-policy hook shell redact}"
CARGO_FUZZ_VERSION=0.13.2
ROOT="$HOME/.cache/warden/cargo-fuzz"
CARGO_FUZZ="$ROOT/bin/cargo-fuzz"
if ! "$CARGO_FUZZ" --version 2>/dev/null | grep -q "$CARGO_FUZZ_VERSION"; then
  echo "fuzz smoke: installing cargo-fuzz $CARGO_FUZZ_VERSION into $ROOT" >&2
  cargo install "cargo-fuzz@$CARGO_FUZZ_VERSION" --locked --quiet --root "$ROOT" >&2
fi
export RUSTC_BOOTSTRAP=1
# cargo-fuzz is a cargo subcommand: call it through cargo so it finds the toolchain.
export PATH="$ROOT/bin:$PATH"
cargo fuzz build -s none >&2
fail=0
for t in $TARGETS; do
  mkdir -p "corpus/$t" "artifacts/$t"
  echo "== fuzz smoke: $t (${SECS}s)"
  log="$(mktemp)"
  if cargo fuzz run -s none "$t" "corpus/$t" "seeds/$t" -- \
      -dict="dict/$t.dict" -max_total_time="$SECS" -max_len=4096 \
      -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1; then
    grep -E '^stat::number_of_executed_units|^#[0-9]+ +DONE' "$log" | tail -2
  else
    fail=1
    grep -A4 -E 'panicked at|ERROR: libFuzzer' "$log" | cut -c1-400 | head -30
    grep -A1 -E '^Failing input:' "$log" || true
    echo "fuzz smoke: $t FOUND A FAILURE; the input is in fuzz/artifacts/$t/" >&2
  fi
  rm -f "$log"
done
exit "$fail"
