#!/usr/bin/env python3
"""Baseline: Hermes Agent 0.19.0's own command guard vs. the labelled command corpus.

Reads tests/corpora/commands.tsv (or --corpus FILE; tab-separated `label<TAB>category<TAB>command`, label is
`dangerous` or `harmless`; blank lines, `#` comments and a `label` header line are skipped),
runs tools.approval.detect_hardline_command and detect_dangerous_command on every command
and prints, as markdown: recall on dangerous commands, false-alarm rate on harmless ones
(overall and per category) and the median time per command.

A command counts as flagged by Hermes if either function flags it (hard-line = refused
outright, dangerous = sent to the approval prompt).

With --warden BIN the same table is computed for warden, one process per command:
  --warden-mode eval (default): `warden eval [--policy P] --event -`, the verdict JSON's
                                action/decision is block or approve → flagged
  --warden-mode hook:           `warden hook --host hermes-latest [--policy P]`, the wire
                                protocol of SPEC.md (block/approve → flagged; modify/{} → not)
Warden's time is wall-clock per process (start-up included); Hermes's is in-process.

Run with the Hermes venv's python, e.g.
  ~/.cache/warden/hermes-venv-0.19.0/bin/python benches/hermes_baseline_commands.py [--warden target/release/warden]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LABELS = ("dangerous", "harmless")


def load_corpus(path: Path) -> list[tuple[str, str, str]]:
    rows = []
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            line = line.rstrip("\n").rstrip("\r")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = line.split("\t", 2)
            if len(parts) != 3:
                sys.exit(f"{path}:{n}: expected 3 tab-separated columns, got {len(parts)}")
            label, category, command = parts
            command = command.replace("\u23ce", "\n")  # `⏎` stands for a newline (heredocs)
            if label == "label" and not rows:
                continue  # header
            if label not in LABELS:
                sys.exit(f"{path}:{n}: label must be dangerous|harmless, got {label!r}")
            rows.append((label, category, command))
    if not rows:
        sys.exit(f"{path}: no commands")
    return rows


def hermes_detector():
    # Hermes reads its environment at import time; keep it away from the real ~/.hermes.
    os.environ.setdefault("HERMES_HOME", tempfile.mkdtemp(prefix="hermes-baseline-"))
    try:
        import importlib.metadata
        version = importlib.metadata.version("hermes-agent")
        from tools.approval import detect_dangerous_command, detect_hardline_command
    except Exception as exc:  # pragma: no cover
        sys.exit(f"cannot import Hermes ({exc}); run with the hermes-agent==0.19.0 venv's python")

    def detect(command: str) -> bool:
        hard, _desc = detect_hardline_command(command)
        danger, _key, _d = detect_dangerous_command(command)
        return bool(hard or danger)

    return version, detect


def _verdict_flagged(obj) -> bool:
    """block/approve (or deny/ask) anywhere at the top of a verdict → flagged."""
    if not isinstance(obj, dict):
        return False
    for key in ("action", "decision", "verdict", "outcome"):
        v = obj.get(key)
        if isinstance(v, str):
            return v.lower() in {"block", "approve", "deny", "ask"}
        if isinstance(v, dict) and _verdict_flagged(v):
            return True
    return False


def warden_detector(binary: str, mode: str, policy: str | None):
    def payload(command: str) -> str:
        return json.dumps({
            "hook_event_name": "pre_tool_call", "tool_name": "terminal",
            "tool_input": {"command": command}, "session_id": "baseline", "cwd": str(Path.cwd()),
            "profile": "default", "extra": {"task_id": "", "tool_call_id": "c1"},
        }, ensure_ascii=False)

    pol = ["--policy", policy] if policy else []
    argv = ([binary, "eval", *pol, "--event", "-"] if mode == "eval"
            else [binary, "hook", "--host", "hermes-latest", *pol])

    def detect(command: str) -> bool:
        p = subprocess.run(argv, input=payload(command), capture_output=True, text=True, timeout=30)
        out = p.stdout.strip()
        try:
            obj = json.loads(out) if out else {}
        except json.JSONDecodeError:
            sys.exit(f"warden printed non-JSON for {command!r}: {out[:300]!r} (stderr: {p.stderr[-300:]!r})")
        if mode == "eval" and p.returncode not in (0, 1, 2) :
            sys.exit(f"warden eval failed (rc={p.returncode}) for {command!r}: {p.stderr[-500:]}")
        return _verdict_flagged(obj)

    return detect


def measure(rows, detect, repeat: int):
    flagged, times = [], []
    for _label, _cat, cmd in rows:
        samples = []
        for _ in range(repeat):
            t0 = time.perf_counter_ns()
            hit = detect(cmd)
            samples.append(time.perf_counter_ns() - t0)
        flagged.append(hit)
        times.append(statistics.median(samples))
    return flagged, times


def pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.1f}% ({a}/{b})" if b else "n/a"


def table(rows, results: dict[str, tuple[list[bool], list[float]]]) -> str:
    names = list(results)
    out = []
    head = "| | " + " | ".join(names) + " |"
    out += [head, "|---|" + "---:|" * len(names)]

    def line(title, idx, want):
        cells = []
        for n in names:
            flags = results[n][0]
            hits = sum(1 for i in idx if flags[i] == want)
            cells.append(pct(hits, len(idx)))
        out.append(f"| {title} | " + " | ".join(cells) + " |")

    dangerous = [i for i, r in enumerate(rows) if r[0] == "dangerous"]
    harmless = [i for i, r in enumerate(rows) if r[0] == "harmless"]
    line("**recall on dangerous** (flagged)", dangerous, True)
    line("**false alarms on harmless** (flagged)", harmless, True)
    evasion = [i for i in dangerous if rows[i][1].startswith("ev-")]
    if evasion:
        # red-team/dev corpora: `ev-` categories use an evasion technique
        line("recall on dangerous rows with an evasion technique (ev-*)", evasion, True)
        line("recall on plain dangerous rows", [i for i in dangerous if i not in evasion], True)
    cats = defaultdict(list)
    for i, (label, cat, _c) in enumerate(rows):
        cats[(label, cat)].append(i)
    for (label, cat), idx in sorted(cats.items()):
        kind = "recall" if label == "dangerous" else "false alarms"
        line(f"{label} / {cat} ({kind})", idx, True)
    cells = []
    for n in names:
        med = statistics.median(results[n][1])
        cells.append(f"{med / 1e6:.3f} ms" if med >= 1e5 else f"{med / 1e3:.1f} µs")
    out.append("| median time per command | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=REPO / "tests" / "corpora" / "commands.tsv")
    ap.add_argument("--warden", metavar="BIN", help="also evaluate this warden binary")
    ap.add_argument("--warden-mode", choices=("eval", "hook"), default="eval")
    ap.add_argument("--policy", help="policy for warden (default: its embedded packs)")
    ap.add_argument("--repeat", type=int, default=5, help="timing samples per command for Hermes (default 5)")
    ap.add_argument("--misses", action="store_true", help="also list every misclassified command")
    args = ap.parse_args()

    rows = load_corpus(args.corpus)
    version, hermes = hermes_detector()
    results = {f"Hermes {version} guard": measure(rows, hermes, args.repeat)}
    if args.warden:
        results[f"warden ({args.warden_mode})"] = measure(rows, warden_detector(args.warden, args.warden_mode, args.policy), 1)

    n_d = sum(1 for r in rows if r[0] == "dangerous")
    print(f"Corpus {args.corpus} — {len(rows)} commands ({n_d} dangerous, {len(rows) - n_d} harmless)\n")
    print(table(rows, results))
    if args.misses:
        for name, (flags, _t) in results.items():
            print(f"\n### {name}: misclassified")
            for (label, cat, cmd), hit in zip(rows, flags):
                if hit != (label == "dangerous"):
                    print(f"- {'missed' if label == 'dangerous' else 'false alarm'} [{cat}] `{cmd}`")
    return 0


if __name__ == "__main__":
    sys.exit(main())
