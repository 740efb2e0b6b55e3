#!/usr/bin/env bash
# Redaction speed of two commits, side by side in one session: builds
# examples/redact_profile at BASE (a temporary worktree, its own target directory) and in
# this tree, then alternates them ROUNDS times on the clean and the secret-dense corpus of
# benches/redact.rs and prints each one's median time per run. Alternating keeps slow
# phases of a shared, noisy machine from landing on one side only.
#
# usage: benches/redact_side_by_side.sh [BASE=HEAD] [ROUNDS=7]
set -euo pipefail
base=${1:-HEAD}
rounds=${2:-7}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'git -C "$here" worktree remove --force "$work/tree" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$here" worktree add -q --detach "$work/tree" "$base"
# the driver may be newer than BASE: use this tree's copy on both sides
mkdir -p "$work/tree/examples" "$work/tree/benches/support"
cp "$here/examples/redact_profile.rs" "$work/tree/examples/"
cp "$here/benches/support/redact_corpus.rs" "$work/tree/benches/support/"
(cd "$work/tree" && CARGO_TARGET_DIR="$work/target" cargo build -q --release --example redact_profile)
(cd "$here" && cargo build -q --release --example redact_profile)
for ((i = 0; i < rounds; i++)); do
  for side in base this; do
    if [ $side = base ]; then dir=$work/tree bin=$work/target/release/examples/redact_profile
    else dir=$here bin=$here/target/release/examples/redact_profile; fi
    for corpus in clean dense; do
      n=$([ $corpus = clean ] && echo 30 || echo 6)
      (cd "$dir" && "$bin" $corpus $n) | sed "s/^/$side /"
    done
  done
done | tee "$work/runs.txt" >&2
echo "median ms per run (rounds: $rounds; base $base = $(git -C "$here" rev-parse --short "$base"))"
for side in base this; do
  for corpus in clean dense; do
    grep "^$side $corpus:" "$work/runs.txt" | awk '{print $3}' | sort -n |
      awk -v s="$side" -v c="$corpus" '{a[NR]=$1} END {m=a[int((NR+1)/2)]; printf "%-5s %-6s %8.2f ms\n", s, c, m}'
  done
done
