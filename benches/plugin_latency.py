"""Latency of the warden Hermes plugin, measured inside a real Hermes process.

    WARDEN_BIN=target/release/warden ~/.cache/warden/hermes-venv-0.19.0/bin/python benches/plugin_latency.py [N]

Side by side (the machine is shared: compare two builds under the same load):

    ~/.cache/warden/hermes-venv-0.19.0/bin/python benches/plugin_latency.py N --compare BASE_BIN NEW_BIN [--rounds R]

runs R rounds (default 3), each measuring BASE then NEW in fresh processes, and prints every
round's medians, the median of the rounds per build, and NEW/BASE ratios. Each build brings
its own plugin (`warden install hermes --plugin` writes the files embedded in the binary).

Installs the plugin with `warden install hermes --plugin` into a temporary HERMES_HOME,
lets Hermes's own plugin manager load it, and times (perf_counter_ns, N iterations each,
after a warm-up):

  decision   a pre_tool_call decision: callback -> warden serve -> answer, through
             Hermes's own `invoke_hook("pre_tool_call", ...)`; every call has new
             arguments, so the plugin's per-call memo never answers
  direct     the same decision through the plugin's decision function alone (no Hermes dispatch)
  redact4k   redaction of a 4 KiB tool result (a build log with two secrets) through the
             plugin's result path (the tool_execution middleware's redaction step)
  clean4k    the same for a 4 KiB result with nothing to redact
  decision_after_pause
             the decision again, N/20 times with 20 ms of sleep before each: an isolated
             call, which pays the wake-up of halted vCPUs that back-to-back calls avoid
             (both sides poll briefly before blocking; see integrations/hermes/warden/client.py)

Prints one JSON object with median / p90 / p99 in microseconds per measurement.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

N = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
WARDEN = os.environ.get("WARDEN_BIN", os.path.join(os.path.dirname(__file__), "..", "target", "release", "warden"))


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))]


def summary(ns):
    us = [x / 1000 for x in ns]
    return {"median_us": round(statistics.median(us), 1), "p90_us": round(pct(us, 0.9), 1),
            "p99_us": round(pct(us, 0.99), 1), "n": len(us)}


def main():
    home = tempfile.mkdtemp(prefix="warden-bench-")
    os.environ["HERMES_HOME"] = home
    r = subprocess.run([WARDEN, "install", "hermes", "--plugin", "--hermes-home", home],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("install failed: " + r.stdout + r.stderr)
    from hermes_cli import plugins

    plugins.discover_plugins()
    mod = sys.modules["hermes_plugins.warden"]
    w = mod._STATE["warden"]
    cause = w.ready()
    if cause:
        sys.exit("warden not ready: " + cause)

    def decision(i):
        res = plugins.invoke_hook("pre_tool_call", tool_name="terminal",
                                  args={"command": "ls -la /srv/build/%d" % i}, task_id="b", session_id="b",
                                  tool_call_id="c%d" % i)
        assert not res, res

    def direct(i):
        d = w.decide_tool("terminal", {"command": "git status --short %d" % i})
        assert d["action"] == "allow", d

    line = "2026-12-03T05:00:00Z builder[4242]: step %04d compiled module core::engine in 12.5ms ok\n"
    body = "".join(line % i for i in range(60))
    dirty = ("export AWS_SECRET_ACCESS_KEY=q7Rb4XvT0pLm2Ns9Kd8Yc1Hf6Wj3Ez5Ga0Ui4OoP\n" + body +
             "notify ops: dana.whitfield@northwind-mail.example.com\n")[:4096]
    clean = body[:4096]
    dirty_json = json.dumps({"output": dirty, "exit_code": 0, "error": None})[:4096]
    assert "q7Rb4" not in mod._redact_result(w, dirty)

    def redact(text):
        def f(i):
            out = mod._redact_result(w, text)
            assert out is not None
        return f

    results = {"hermes": mod.hermes_version(), "warden": WARDEN, "python": sys.version.split()[0],
               "result_bytes": len(dirty.encode()), "cpus": os.cpu_count(),
               "loadavg_1m": os.getloadavg()[0]}
    for name, fn in (("decision", decision), ("direct", direct), ("redact4k", redact(dirty)),
                     ("redact4k_json", redact(dirty_json)), ("clean4k", redact(clean))):
        for i in range(200):
            fn(10_000_000 + i)
        ns = []
        for i in range(N):
            t0 = time.perf_counter_ns()
            fn(i)
            ns.append(time.perf_counter_ns() - t0)
        results[name] = summary(ns)
    # Isolated calls: a pause before each lets both processes block and their vCPUs halt, so
    # every call pays the wake-ups that back-to-back calls avoid by polling briefly.
    ns = []
    for i in range(max(20, N // 20)):
        time.sleep(0.02)
        t0 = time.perf_counter_ns()
        decision(20_000_000 + i)
        ns.append(time.perf_counter_ns() - t0)
    results["decision_after_pause"] = summary(ns)
    w.client.close()
    print(json.dumps(results, indent=2))


KEYS = ("decision", "direct", "redact4k", "redact4k_json", "clean4k", "decision_after_pause")


def compare(base, new, rounds):
    runs = {base: [], new: []}
    for r in range(rounds):
        for b in (base, new):
            out = subprocess.run([sys.executable, os.path.abspath(__file__), str(N)],
                                 env=dict(os.environ, WARDEN_BIN=b), capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit("%s failed: %s" % (b, out.stderr[-2000:]))
            res = json.loads(out.stdout)
            runs[b].append(res)
            print("round %d %-40s load %.1f  %s" % (r + 1, b, res["loadavg_1m"], "  ".join(
                "%s %.1f" % (k, res[k]["median_us"]) for k in KEYS)), file=sys.stderr)
    med = {b: {k: round(statistics.median(x[k]["median_us"] for x in runs[b]), 1) for k in KEYS}
           for b in runs}
    print(json.dumps({"n": N, "rounds": rounds, "base": base, "new": new,
                      "median_of_round_medians_us": med,
                      "ratio_new_over_base": {k: round(med[new][k] / med[base][k], 2) for k in KEYS}},
                     indent=2))


if __name__ == "__main__":
    if "--compare" in sys.argv:
        i = sys.argv.index("--compare")
        rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
        compare(sys.argv[i + 1], sys.argv[i + 2], rounds)
    else:
        main()
