#!/usr/bin/env python3
"""Redaction recall and false-redaction rate of warden's packs, side by side with Hermes 0.19.0's
`agent.redact.redact_sensitive_text`, on the public labelled corpora in ../shared/corpora (read in
place, never copied into the project).

usage: benches/redaction_recall.py [WARDEN_BIN] [HERMES_PYTHON]
  WARDEN_BIN     default target/release/warden
  HERMES_PYTHON  a python with hermes-agent==0.19.0 (default ~/.cache/warden/hermes-venv-0.19.0/bin/python)
  CORPORA=DIR    where the corpora are (default ../shared/corpora next to the repository)

A secret sample is recalled when none of its secret substrings survives in the output; a PII
sample when none of its labelled spans survives; a clean sample is falsely redacted when the
output differs from the input. Both tools see exactly the same texts.
"""
import json
import os
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORP = os.environ.get("CORPORA", os.path.join(os.path.dirname(REPO), "shared", "corpora"))
WARDEN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "target/release/warden")
HERMES_PY = sys.argv[2] if len(sys.argv) > 2 else os.path.expanduser("~/.cache/warden/hermes-venv-0.19.0/bin/python")
HERMES = r"""
import sys, json
from agent.redact import redact_sensitive_text
for line in sys.stdin:
    print(json.dumps({"text": redact_sensitive_text(json.loads(line)["text"], force=True)}))
"""
CORE_PII = {"CREDIT_CARD": "card", "EMAIL_ADDRESS": "email", "IBAN_CODE": "iban", "US_SSN": "ssn", "PHONE": "phone"}


def run(cmd, rows):
    """Redact every row's text with `cmd` (JSON lines in, JSON lines out); (outputs, seconds)."""
    inp = "".join(json.dumps({"text": r["text"]}) + "\n" for r in rows)
    t = time.perf_counter()
    out = subprocess.run(cmd, input=inp, capture_output=True, text=True, check=True).stdout.splitlines()
    dt = time.perf_counter() - t
    assert len(out) == len(rows), f"{cmd[0]}: {len(out)} lines for {len(rows)} inputs"
    # A withheld line comes back as a bare JSON string (the placeholder).
    docs = [json.loads(line) for line in out]
    return [d["text"] if isinstance(d, dict) else d for d in docs], dt


def rate(pairs, hit):
    return sum(1 for r, o in pairs if hit(r, o)) / max(1, len(pairs)), len(pairs)


def recalled(secrets):
    return lambda r, o: all(s not in o for s in secrets(r) if s)


def changed(r, o):
    return o != r["text"]


def spans(r):
    return [r["text"][a:b] for a, b in r.get("spans", [])]


def main():
    gl = [json.loads(line) for line in open(os.path.join(CORP, "gitleaks-samples.jsonl"))]
    pr = [json.loads(line) for line in open(os.path.join(CORP, "presidio-samples.jsonl"))]
    pr = [r for r in pr if r["rule"] in CORE_PII]
    tools = {
        "warden secrets pack": ([WARDEN, "redact", "--format", "jsonl", "--policy", os.path.join(REPO, "policies/secrets.warden")], gl),
        "warden pii pack": ([WARDEN, "redact", "--format", "jsonl", "--policy", os.path.join(REPO, "policies/pii.warden")], pr),
        "warden (both, default)": ([WARDEN, "redact", "--format", "jsonl"], None),
        "hermes 0.19.0": ([HERMES_PY, "-c", HERMES], None),
    }
    print("| tool | gitleaks recall (secret, n) | recall w/o `name = value` templates | gitleaks false redaction (clean, n) "
          "| presidio core-PII recall (n) | presidio false redaction (n) | per entity recall | throughput (whole run, one process) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, (cmd, only) in tools.items():
        cells = []
        nbytes, secs = 0, 0.0
        if only is not pr:
            go, t1 = run(cmd, gl)
            nbytes, secs = nbytes + sum(len(r["text"].encode()) for r in gl), secs + t1
            pairs = list(zip(gl, go))
            pos = [(r, o) for r, o in pairs if r["expect"] == "secret"]
            neg = [(r, o) for r, o in pairs if r["expect"] == "clean"]
            nontempl = [(r, o) for r, o in pos if not r.get("origin", "").startswith("code")]
            rec, n = rate(pos, recalled(lambda r: r["secrets"]))
            rec2, n2 = rate(nontempl, recalled(lambda r: r["secrets"]))
            fr, m = rate(neg, changed)
            cells += [f"{rec:.1%} ({n})", f"{rec2:.1%} ({n2})", f"{fr:.1%} ({m})"]
        else:
            cells += ["–", "–", "–"]
        if only is not gl:
            po, t2 = run(cmd, pr)
            nbytes, secs = nbytes + sum(len(r["text"].encode()) for r in pr), secs + t2
            pairs = list(zip(pr, po))
            pos = [(r, o) for r, o in pairs if r["expect"] == "pii"]
            neg = [(r, o) for r, o in pairs if r["expect"] == "clean"]
            rec, n = rate(pos, recalled(spans))
            fr, m = rate(neg, changed)
            ents = []
            for ent, short in CORE_PII.items():
                rows = [(r, o) for r, o in pos if r["rule"] == ent]
                if rows:
                    er, k = rate(rows, recalled(spans))
                    ents.append(f"{short} {er:.0%} ({k})")
            cells += [f"{rec:.1%} ({n})", f"{fr:.1%} ({m})", ", ".join(ents)]
        else:
            cells += ["–", "–", "–"]
        cells.append(f"{nbytes / secs / 1e6:.2f} MB/s ({nbytes / 1e3:.0f} kB in {secs:.2f} s)")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
