#!/usr/bin/env python3
"""Recall / false-redaction of warden's packs vs Hermes 0.19.0 redact_sensitive_text on the
public corpora in ../shared/corpora (read in place, never copied).

usage: redaction_recall.py WARDEN_JSONL_CMD HERMES_VENV_PYTHON
  WARDEN_JSONL_CMD: a command reading {"text"} JSON lines on stdin and writing {"out"} lines
  (scratch: `target/release/examples/redact_jsonl secrets pii`; later: `warden redact --format jsonl`).
A secret sample counts as recalled if none of its secret substrings survives in the output; a
clean sample counts as falsely redacted if the output differs from the input.
"""
import json, subprocess, sys, os, shlex
CORP = os.environ.get('CORPORA', '/work/shared/corpora')
HERMES = r'''
import sys, json
from agent.redact import redact_sensitive_text
for line in sys.stdin:
    t = json.loads(line)["text"]
    print(json.dumps({"out": redact_sensitive_text(t, force=True)}))
'''
def run(cmd, rows):
    inp = ''.join(json.dumps({"text": r["text"]}) + '\n' for r in rows)
    out = subprocess.run(cmd, input=inp, capture_output=True, text=True, check=True).stdout.splitlines()
    return [json.loads(l)["out"] for l in out]
def pii_spans(r):
    return [r["text"][a:b] for a, b in r.get("spans", [])]
def score(rows, outs, kind, secret_of):
    pos = [(r, o) for r, o in zip(rows, outs) if r["expect"] == kind]
    neg = [(r, o) for r, o in zip(rows, outs) if r["expect"] == "clean"]
    rec = sum(1 for r, o in pos if all(s not in o for s in secret_of(r) if s)) / max(1, len(pos))
    fr = sum(1 for r, o in neg if o != r["text"]) / max(1, len(neg))
    return rec, fr, len(pos), len(neg)
def main():
    warden = shlex.split(sys.argv[1]); hermes = [sys.argv[2], '-c', HERMES]
    gl = [json.loads(l) for l in open(f'{CORP}/gitleaks-samples.jsonl')]
    pr = [json.loads(l) for l in open(f'{CORP}/presidio-samples.jsonl')]
    core = {'credit_card', 'email_address', 'iban_code', 'us_ssn', 'phone_number'}
    prc = [r for r in pr if r['rule'].lower() in core]
    templ = lambda r: r.get('origin', '').startswith('code')  # name = value templates
    for name, cmd in [('warden', warden), ('hermes-0.19.0', hermes)]:
        go = run(cmd, gl)
        rec, fr, n, m = score(gl, go, 'secret', lambda r: r['secrets'])
        sub = [(r, o) for r, o in zip(gl, go) if not templ(r)]
        rec2, _, n2, _ = score([r for r, _ in sub], [o for _, o in sub], 'secret', lambda r: r['secrets'])
        po = run(cmd, prc)
        prec, pfr, pn, pm = score(prc, po, 'pii', pii_spans)
        print(f'{name:14} gitleaks recall {rec:6.1%} (n={n}; non-template {rec2:6.1%} n={n2})  false-redaction {fr:6.1%} (n={m}) | '
              f'presidio core-PII recall {prec:6.1%} (n={pn})  false-redaction {pfr:6.1%} (n={pm})')
        for ent in sorted(core):
            rows = [(r, o) for r, o in zip(prc, po) if r['rule'].lower() == ent]
            if rows:
                rr, _, k, _ = score([r for r, _ in rows], [o for _, o in rows], 'pii', pii_spans)
                print(f'{"":14}   {ent:12} recall {rr:6.1%} (n={k})')
main()
