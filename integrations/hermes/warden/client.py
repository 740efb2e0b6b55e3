"""The `warden serve` co-process client: one process per Hermes process,
started lazily, restarted once if it dies or hangs, JSON lines with request
ids and a deadline per request. Pure standard library.

The hot path is built for speed: a request is pre-encoded bytes plus its id
(one `os.write`), the answer is read with a poll registered once, and large
texts to redact travel raw (length-prefixed UTF-8 after the line, both ways)
so neither side JSON-escapes them.

Every failure comes back as a `WardenUnavailable` carrying the cause; the
plugin turns it into a refusal (it never lets a call through on an error).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import threading
import time

PROTOCOL = 1
# Longest busy wait for an answer before blocking (see Client._fill).
SPIN_S = 0.0005


class WardenUnavailable(Exception):
    """warden could not answer; `str(exc)` names the cause for the user."""


class Client:
    """A `warden serve` co-process and the line protocol to it."""

    def __init__(self, argv, timeout_s=2.0, stderr_path=None, hello_fields=None, max_restarts=1,
                 start_timeout_s=30.0):
        self.argv = list(argv)
        self.timeout_s = float(timeout_s)
        self.start_timeout_s = float(start_timeout_s)
        self.stderr_path = stderr_path
        self.hello_fields = dict(hello_fields or {})
        self.max_restarts = max_restarts
        self.lock = threading.Lock()
        self.proc = None
        self.starts = 0
        self.dead = None  # cause, once the co-process is given up on
        self.hello = None
        self.status = "ok"
        self._id = 0
        self._buf = b""
        self._poll = None
        self.on_status_change = None

    # -- lifecycle ---------------------------------------------------------

    def _spawn(self):
        err = subprocess.DEVNULL
        if self.stderr_path:
            try:
                os.makedirs(os.path.dirname(self.stderr_path), exist_ok=True)
                err = open(self.stderr_path, "ab", buffering=0)
            except OSError:
                err = subprocess.DEVNULL
        self.starts += 1
        try:
            self.proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                bufsize=0,
                close_fds=True,
            )
        finally:
            if err is not subprocess.DEVNULL:
                err.close()
        self._buf = b""
        self._poll = select.poll()
        self._poll.register(self.proc.stdout.fileno(), select.POLLIN)
        fields = {"op": "hello", "host": "hermes"}
        fields.update(self.hello_fields)
        # the first answer waits for the whole policy to compile
        self.hello = self._roundtrip(fields, self.start_timeout_s)
        if self.hello.get("protocol") != PROTOCOL:
            raise WardenUnavailable(
                "warden serve speaks protocol %r, this plugin %d" % (self.hello.get("protocol"), PROTOCOL)
            )

    def _kill(self):
        p, self.proc = self.proc, None
        self._buf = b""
        self._poll = None
        if p is None:
            return
        try:
            p.kill()
        except OSError:
            pass
        try:
            p.wait(timeout=1)
        except Exception:
            pass

    def ensure(self):
        """Start the co-process (and say hello) if it is not running. Lock held."""
        if self.dead:
            raise WardenUnavailable(self.dead)
        if self.proc is not None and self.hello is not None:
            # a co-process that died since shows on the next write or read, and is restarted there
            return
        cause = None
        if self.proc is not None and self.proc.poll() is not None:
            cause = "warden serve exited (status %s)" % self.proc.poll()
        while self.starts <= self.max_restarts:
            self._kill()
            try:
                self._spawn()
                return
            except (OSError, WardenUnavailable, ValueError) as e:
                cause = "warden serve could not start (%s)" % e
        self._kill()
        self.dead = "%s; it was already restarted once, so warden refuses everything until Hermes restarts" % (
            cause or "warden serve died")
        raise WardenUnavailable(self.dead)

    def close(self):
        with self.lock:
            p, self.proc = self.proc, None
            if p is not None:
                try:
                    p.stdin.close()
                    p.wait(timeout=2)
                except Exception:
                    try:
                        p.kill()
                    except OSError:
                        pass

    # -- requests ----------------------------------------------------------

    def request(self, fields):
        """Send one request (a dict) and return the response object (`ok` true), or raise
        `WardenUnavailable`. A dead or hung co-process is restarted once."""
        return self.request_bytes(_encode_fields(fields))

    def request_bytes(self, rest, body=b""):
        """`request` for a pre-encoded request: `rest` is the UTF-8 JSON object without its
        opening brace and id (b'"op":"status"}'); `body` the raw bytes that follow the line."""
        with self.lock:
            for attempt in (0, 1):
                self.ensure()
                try:
                    r = self._send(rest, body, self.timeout_s)
                except _Refused:
                    raise
                except WardenUnavailable as e:
                    self._kill()
                    self.hello = None
                    if self.starts > self.max_restarts or attempt == 1:
                        self.dead = "%s (after %d restart(s))" % (e, self.starts - 1)
                        raise WardenUnavailable(self.dead)
                    continue
                return r
            raise WardenUnavailable("unreachable")

    def redact(self, texts, event):
        """Redacted texts (None where nothing was found), sent and answered raw."""
        try:
            blobs = [t.encode("utf-8") for t in texts]
        except UnicodeEncodeError:
            raise _Refused("the text holds a lone surrogate (not valid Unicode), so warden cannot check it")
        rest = ('"op":"redact","event":"%s","raw":[%s]}' % (
            event, ",".join(str(len(b)) for b in blobs))).encode("ascii")
        r = self.request_bytes(rest, b"".join(blobs))
        lens = r.get("raw")
        raw = r.get("_body", b"")
        if not isinstance(lens, list) or len(lens) != len(texts):
            raise WardenUnavailable("warden answered a redaction of the wrong shape")
        out, at = [], 0
        for n in lens:
            if n is None:
                out.append(None)
                continue
            out.append(raw[at:at + n].decode("utf-8", "strict"))
            at += n
        return out

    def _roundtrip(self, fields, timeout_s=None):
        return self._send(_encode_fields(fields), b"", self.timeout_s if timeout_s is None else timeout_s)

    def _send(self, rest, body, timeout_s):
        p = self.proc
        if p is None:
            raise WardenUnavailable("warden serve is not running")
        self._id += 1
        rid = self._id
        try:
            os.write(p.stdin.fileno(), b'{"id":%d,%s\n%s' % (rid, rest, body))
        except OSError as e:
            raise WardenUnavailable("warden serve is gone (%s; exit status %s)" % (e, p.poll()))
        raw = self._read_line(p, timeout_s)
        try:
            r = json.loads(raw)
        except ValueError:
            raise WardenUnavailable("warden serve answered something that is not JSON")
        if not isinstance(r, dict) or r.get("id") != rid:
            raise WardenUnavailable("warden serve answered out of turn (id %r, expected %r)" % (
                r.get("id") if isinstance(r, dict) else None, rid))
        lens = r.get("raw")
        if isinstance(lens, list):
            try:
                n = sum(x for x in lens if x is not None)
            except TypeError:
                raise WardenUnavailable("warden serve answered raw lengths that are not numbers")
            r["_body"] = self._read_exact(p, n, timeout_s)
        status = r.get("status")
        if status != self.status and isinstance(status, str):
            self.status = status
            cb = self.on_status_change
            if cb is not None:
                try:
                    cb(status)
                except Exception:
                    pass
        if r.get("ok") is not True:
            raise _Refused(str(r.get("error") or "warden serve refused the request"))
        return r

    def _fill(self, p, deadline, timeout_s):
        """Read what the co-process has written into the buffer, waiting until `deadline`.

        It polls without blocking for up to SPIN_S first: an answer takes tens of
        microseconds, and on a virtual machine a vCPU that blocks halts, and waking it
        costs the hypervisor 100-200 us, several times the answer.
        """
        poll = self._poll.poll
        now = time.monotonic()
        # checked even when data is ready: a co-process that writes without end is hung too
        if now >= deadline:
            raise _hung(timeout_s)
        spin_end = now + SPIN_S
        while not poll(0):
            # yield: the co-process, woken by the request, may be queued on this very CPU
            os.sched_yield()
            now = time.monotonic()
            if now >= spin_end:
                left = deadline - now
                if left <= 0 or not poll(left * 1000.0):
                    raise _hung(timeout_s)
                break
        chunk = os.read(p.stdout.fileno(), 1 << 16)
        if not chunk:
            raise WardenUnavailable("warden serve exited (status %s)" % p.poll())
        self._buf += chunk

    def _read_line(self, p, timeout_s):
        deadline = time.monotonic() + timeout_s
        while True:
            i = self._buf.find(b"\n")
            if i >= 0:
                line, self._buf = self._buf[:i], self._buf[i + 1:]
                return line
            self._fill(p, deadline, timeout_s)

    def _read_exact(self, p, n, timeout_s):
        deadline = time.monotonic() + timeout_s
        while len(self._buf) < n:
            self._fill(p, deadline, timeout_s)
        out, self._buf = self._buf[:n], self._buf[n:]
        return out


def _hung(timeout_s):
    """The error for a co-process that did not answer in time."""
    return WardenUnavailable("warden serve did not answer within %.1f s (hung)" % timeout_s)


def _encode_fields(fields):
    """A request dict as the bytes after `{"id":N,` (protocol version included)."""
    try:
        line = json.dumps(fields, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:
        # a lone surrogate ("\udcff") cannot go to warden as UTF-8: never allow what
        # could not be checked
        raise _Refused("the call holds text that is not valid Unicode (a lone surrogate), so warden cannot check it")
    except (TypeError, ValueError) as e:
        raise _Refused("the call holds a value warden cannot read (%s)" % e)
    if line == b"{}":
        return b'"v":%d}' % PROTOCOL
    return b'"v":%d,%s' % (PROTOCOL, line[1:])


class _Refused(WardenUnavailable):
    """warden answered but refused this one request (malformed, too large, deadline):
    the call is refused; the co-process itself is healthy."""


Refused = _Refused
