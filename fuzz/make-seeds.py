#!/usr/bin/env python3
"""Regenerate the seed corpora (fuzz/seeds/<target>/) and check the dictionaries exist.

Seeds come from the project's own material: the shipped packs (policy), the packs' tests
(hook payloads, shell commands, redaction samples) and examples/. Small on purpose: libFuzzer
grows its own corpus (fuzz/corpus/<target>/, not committed) from these.
"""
import hashlib, json, pathlib, random, shutil, yaml

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent
SEEDS = HERE / "seeds"
random.seed(15)


def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = SEEDS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


for t in ("policy", "hook", "shell", "redact"):
    shutil.rmtree(SEEDS / t, ignore_errors=True)

# policy: every shipped pack, plus a small hand-written one touching each kind of item.
for f in sorted(REPO.glob("policies/**/*.warden")):
    if f.stat().st_size <= 16384:  # the big generated secrets pack would set max_len
        put("policy", f.read_text())
put("policy", '''pack demo.x version 1.0.0 requires warden >=0.1
list hosts = ["a.example", "b.example"]
define risky = tool == "terminal" and (args.command matches /curl\\s/i or not args.path starts_with "/tmp")
rule demo.block { on pre_tool_call severity high tags ["x"] when risky unless args.command contains "ok" block "no {args.command}" }
rule demo.ask { on pre_tool_call when tool == "write_file" and args.path under "~/.ssh" approve "ask" key "ssh" }
rule demo.mod { on pre_tool_call when tool == "terminal" modify args.timeout = 5 }
rule demo.ctx { on pre_llm_call when user_message contains "deploy" context "be careful" }
rule demo.red { on transform_tool_result redact /AKIA[0-9A-Z]{16}/ with "[aws]" keywords ["AKIA"] }
exempt demo.* when cwd under "/srv" because "ops box" until 2030-01-01
''')

tests = []
for f in sorted(REPO.glob("policies/**/*.test.yaml")):
    tests += (yaml.safe_load(f.read_text()) or {}).get("tests", [])

commands, payloads, texts = [], [], []
for t in tests:
    ev = t.get("event", "pre_tool_call")
    if ev == "pre_tool_call" and "tool" in t:
        p = {"hook_event_name": "pre_tool_call", "tool_name": t["tool"],
             "tool_input": t.get("args") or {}, "session_id": "s1",
             "cwd": t.get("cwd", "/home/u/project"), "extra": {"task_id": "t1"}}
        payloads.append(p)
        cmd = (t.get("args") or {}).get("command")
        if isinstance(cmd, str):
            commands.append(cmd)
    elif ev == "pre_llm_call":
        payloads.append({"hook_event_name": "pre_llm_call", "session_id": "s1",
                         "extra": {"user_message": t.get("message", ""), "is_first_turn": True,
                                   "conversation_history": [{"role": "user", "content": "hi"}]}})
    elif ev.startswith("transform_") and isinstance(t.get("result"), str):
        texts.append((ev, t["result"]))

for line in (REPO / "tests/corpora/commands.tsv").read_text().splitlines()[1:]:
    parts = line.split("\t", 2)
    if len(parts) == 3:
        commands.append(parts[2])

for c in random.sample(commands, min(150, len(commands))):
    put("shell", c)
for p in random.sample(payloads, min(80, len(payloads))):
    put("hook", json.dumps(p))
put("hook", (REPO / "examples/rm-rf.json").read_text())
put("hook", '{"hook_event_name":"pre_tool_call","tool_name":"terminal","tool_input":"rm -rf /"}')
put("hook", '{"hook_event_name":"PreToolUse","tool_name":"terminal","tool_input":{"command":"ls"},"profile":"default"}')
put("hook", '{"hook_event_name":"transform_tool_result","tool_name":"terminal","tool_input":{},"extra":{"result":"AKIAQ3EGPLVZ5XKJRM7T"}}')

# redact: first byte picks the event (byte % 3) and the stream chunk size (byte / 3 % 6).
evs = ["transform_tool_result", "transform_terminal_output", "transform_llm_output"]
sample = random.sample(texts, min(120, len(texts)))
for i, (ev, text) in enumerate(sample):
    sel = bytes([evs.index(ev) + 3 * (i % 6)])
    put("redact", sel + text.encode())
for i in range(0, len(sample), 6):
    group = [t for _, t in sample[i:i + 6]]
    doc = {"output": "\n".join(group[:3]), "exit_code": 0, "items": group[3:], "meta": {"n": i}}
    put("redact", bytes([i % 18]) + json.dumps(doc).encode())
print({t: len(list((SEEDS / t).iterdir())) for t in ("policy", "hook", "shell", "redact")})
