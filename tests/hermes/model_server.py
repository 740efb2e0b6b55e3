"""A scripted OpenAI-compatible model server on 127.0.0.1, for whole agent turns.

Reusable by any test (stdlib only; no pytest needed). API:

    from model_server import ScriptedModel, tool_call, text

    with ScriptedModel([
        [tool_call("terminal", {"command": "ls"}, id="c1")],   # 1st model reply: tool calls
        text("done"),                                          # 2nd model reply: final text
    ]) as model:
        model.base_url        # "http://127.0.0.1:PORT/v1" -> Hermes config.yaml model.base_url
        ...run the agent...
        model.requests        # every /v1/chat/completions request body (parsed JSON), in order
        model.messages(i)     # the `messages` list of request i (default: the last one)
        model.tool_results()  # {tool_call_id: content} of every role=tool message the model was sent
        model.user_texts()    # the text of every role=user message the model was sent (last request)
        model.unexpected      # requests that arrived after the script ran out (a test should assert [])
        model.log             # every HTTP request as (method, path, body-or-None)
        model.proxy_url       # "http://127.0.0.1:PORT": set as HTTP(S)_PROXY so nothing leaves the machine
        model.outbound        # requests that tried to go elsewhere through that proxy (all refused, 403)

A script entry is one model reply:
  - ``text("...")``                 -> an assistant message with that content (ends the turn);
  - a list of ``tool_call(...)``    -> one assistant message with those parallel tool calls;
  - a callable ``f(body) -> entry`` -> decided from the request body when it arrives.
When the script is exhausted the server answers ``text(EXHAUSTED)`` and records the
request in ``unexpected``, so a runaway agent loop ends and is visible.

Both ``stream: false`` (one JSON body) and ``stream: true`` (OpenAI SSE chunks, tool-call
arguments split over several deltas, a final usage chunk, ``data: [DONE]``) are served.
``GET /v1/models`` lists one model (``MODEL_ID``) so probing clients are happy. Any other
path answers 404 and is recorded in ``log``. The same port is also a refusing HTTP proxy:
``CONNECT host:port`` and absolute-URL requests are answered 403 and recorded in ``outbound``
(with ``NO_PROXY=127.0.0.1,localhost`` the agent still reaches the model directly).
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Union

MODEL_ID = "warden-scripted"
EXHAUSTED = "[scripted model: script exhausted]"

ToolCall = dict
Entry = Union[dict, list, Callable[[dict], Any]]


def tool_call(name: str, arguments: dict | str, *, id: str | None = None) -> ToolCall:
    """One tool call of a model reply. ``arguments`` is a dict (JSON-encoded for the wire) or a raw string."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": id, "type": "function", "function": {"name": name, "arguments": args}}


def text(content: str) -> dict:
    """A final assistant text reply."""
    return {"content": content}


def _normalise(entry: Any, index: int) -> dict:
    if isinstance(entry, list):
        calls = []
        for k, c in enumerate(entry):
            c = json.loads(json.dumps(c))
            c["id"] = c.get("id") or f"call_{index}_{k}"
            calls.append(c)
        return {"content": None, "tool_calls": calls}
    if isinstance(entry, dict) and "content" in entry:
        return {"content": entry["content"]}
    raise TypeError(f"script entry {index} is neither text(...) nor a list of tool_call(...): {entry!r}")


class ScriptedModel:
    """An OpenAI-compatible chat-completions server that plays ``script`` and logs every request."""

    def __init__(self, script: list[Entry], *, host: str = "127.0.0.1") -> None:
        self.script = list(script)
        self.requests: list[dict] = []
        self.unexpected: list[dict] = []
        self.log: list[tuple[str, str, Any]] = []
        self.outbound: list[str] = []
        self._lock = threading.Lock()
        self._host = host
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------
    def start(self) -> "ScriptedModel":
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def _send_json(self, code: int, obj: Any) -> None:
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _refuse_proxy(self) -> bool:
                if self.command == "CONNECT" or "://" in self.path:
                    with owner._lock:
                        owner.outbound.append(f"{self.command} {self.path}")
                    self._send_json(403, {"error": {"message": "tests talk only to 127.0.0.1"}})
                    self.close_connection = True
                    return True
                return False

            def do_CONNECT(self) -> None:  # noqa: N802
                self._refuse_proxy()

            def do_GET(self) -> None:  # noqa: N802
                if self._refuse_proxy():
                    return
                owner._record("GET", self.path, None)
                if self.path.rstrip("/").endswith("/models"):
                    self._send_json(200, {"object": "list", "data": [
                        {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "warden-tests"}]})
                else:
                    self._send_json(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                if self._refuse_proxy():
                    return
                try:
                    body = json.loads(raw or b"null")
                except json.JSONDecodeError:
                    body = raw.decode("utf-8", "replace")
                owner._record("POST", self.path, body)
                if not self.path.rstrip("/").endswith("/chat/completions") or not isinstance(body, dict):
                    self._send_json(404, {"error": {"message": f"no route {self.path}"}})
                    return
                reply = owner._next_reply(body)
                if body.get("stream"):
                    self._stream(reply, body)
                else:
                    self._send_json(200, owner._completion(reply, body))

            def _stream(self, reply: dict, body: dict) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for chunk in owner._chunks(reply, body):
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

        self._server = ThreadingHTTPServer((self._host, 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="scripted-model", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "ScriptedModel":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://{self._host}:{self.port}/v1"

    @property
    def proxy_url(self) -> str:
        return f"http://{self._host}:{self.port}"

    # -- what the model saw --------------------------------------------------
    def messages(self, i: int = -1) -> list[dict]:
        """The ``messages`` of request ``i`` (default: the last one)."""
        return self.requests[i]["messages"]

    def tool_results(self, i: int = -1) -> dict[str, str]:
        """``{tool_call_id: content}`` of every role=tool message in request ``i``."""
        return {m.get("tool_call_id"): _content_text(m.get("content"))
                for m in self.messages(i) if m.get("role") == "tool"}

    def user_texts(self, i: int = -1) -> list[str]:
        """The text of every role=user message in request ``i``."""
        return [_content_text(m.get("content")) for m in self.messages(i) if m.get("role") == "user"]

    def all_text(self) -> str:
        """Every request body this server received, as one JSON string (to assert something never arrived)."""
        return "\n".join(json.dumps(b, ensure_ascii=False) for _, _, b in self.log if b is not None)

    # -- internals -----------------------------------------------------------
    def _record(self, method: str, path: str, body: Any) -> None:
        with self._lock:
            self.log.append((method, path, body))

    def _next_reply(self, body: dict) -> dict:
        with self._lock:
            index = len(self.requests)
            self.requests.append(body)
            if index < len(self.script):
                entry = self.script[index]
            else:
                self.unexpected.append(body)
                entry = text(EXHAUSTED)
        if callable(entry):
            entry = entry(body)
        return _normalise(entry, index)

    @staticmethod
    def _completion(reply: dict, body: dict) -> dict:
        message: dict = {"role": "assistant", "content": reply["content"]}
        if reply.get("tool_calls"):
            message["tool_calls"] = reply["tool_calls"]
        return {
            "id": f"chatcmpl-{time.monotonic_ns()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or MODEL_ID,
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if reply.get("tool_calls") else "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }

    @staticmethod
    def _chunks(reply: dict, body: dict) -> list[dict]:
        base = {"id": f"chatcmpl-{time.monotonic_ns()}", "object": "chat.completion.chunk",
                "created": int(time.time()), "model": body.get("model") or MODEL_ID}

        def chunk(delta: dict, finish: str | None = None) -> dict:
            return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        out = [chunk({"role": "assistant", "content": ""})]
        if reply.get("tool_calls"):
            for k, c in enumerate(reply["tool_calls"]):
                args = c["function"]["arguments"]
                half = len(args) // 2
                out.append(chunk({"tool_calls": [{"index": k, "id": c["id"], "type": "function",
                                                  "function": {"name": c["function"]["name"], "arguments": args[:half]}}]}))
                out.append(chunk({"tool_calls": [{"index": k, "function": {"arguments": args[half:]}}]}))
            out.append(chunk({}, "tool_calls"))
        else:
            content = reply["content"] or ""
            for piece in (content[: len(content) // 2], content[len(content) // 2:]):
                if piece:
                    out.append(chunk({"content": piece}))
            out.append(chunk({}, "stop"))
        out.append({**base, "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
        return out


def _content_text(content: Any) -> str:
    """Message content as text (OpenAI content may be a string or a list of parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return str(content)
