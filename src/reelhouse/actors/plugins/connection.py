"""The server's end of one plugin process: JSON-RPC 2.0, one message per line.

Requests go to the child's stdin, answers and notifications come from its
stdout (docs/plugins.md is the public description). :meth:`call` is what a
caller awaits: it holds one of the plugin's concurrency slots, sends the
request and waits for the answer until its deadline. A caller that is
cancelled sends ``$/cancel`` for its request and leaves at once.

A plugin that misbehaves is *faulted* and killed: a call not answered in
its time (``timeout``: the plugin hangs), a line that is not a JSON-RPC
message or longer than :data:`MAX_LINE_BYTES` (``garbage``), more than
:data:`MAX_NOTIFICATIONS_PER_SECOND` notifications in a second (``flood``).
The session that owns the process (``session.py``) counts the fault as a
crash. Every pending call then fails with :class:`PluginCallError`.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import orjson
import trio

from reelhouse import errors
from reelhouse.media.durations import wait_seconds
from reelhouse.media.log_text import loggable

from .stats import PluginStats

MAX_LINE_BYTES: Final = 1 << 20
MAX_NOTIFICATIONS_PER_SECOND: Final = 200
CANCEL_SEND_TIMEOUT_S: Final = 1.0  # bounded shield: a cancelled caller's `$/cancel`
READ_CHUNK: Final = 64 * 1024
# The reference's ProviderErrorCode; garbage and floods are `crashed`.
PROVIDER_ERROR_CODES: Final = frozenset(
    {"crashed", "needs_configuration", "auth_failed", "rate_limited", "unreachable", "timeout", "unknown"}
)

_log = logging.getLogger("reelhouse.plugins")


class PluginCallError(errors.DomainError):
    """A call failed; ``params.reason`` is the ProviderErrorCode."""

    code = "provider_error"

    def __init__(self, plugin_id: str, reason: str, message: str, **params: Any) -> None:
        super().__init__(message, params={"pluginId": plugin_id, "reason": reason, **params})
        self.reason = reason


class PluginNotRunning(errors.Unavailable):
    """The plugin cannot take calls now (disabled, not configured, restarting...)."""

    code = "plugin_not_running"

    def __init__(self, plugin_id: str, status: str, *, retry_after: float | None = None) -> None:
        params: dict[str, Any] = {"pluginId": plugin_id, "reason": status}
        if retry_after is not None:
            params["retryAfterSeconds"] = max(1, round(retry_after))
        super().__init__(f"Plugin {plugin_id} is {status}.", params=params)
        self.status = status


class ConnectionClosed(PluginNotRunning):
    """The process ended (stopped for idleness or crashed) before the request was sent."""

    def __init__(self, plugin_id: str) -> None:
        super().__init__(plugin_id, "stopped")


@dataclass(frozen=True, slots=True)
class Fault:
    kind: str  # timeout, garbage, flood
    detail: str


class _Pending:
    __slots__ = ("done", "error", "result")

    def __init__(self) -> None:
        self.done = trio.Event()
        self.result: Any = None
        self.error: dict[str, Any] | None = None


class PluginConnection:
    """One running plugin process, as its callers see it."""

    def __init__(
        self,
        plugin_id: str,
        send_stream: trio.abc.SendStream,
        *,
        concurrency: int,
        stats: PluginStats,
        on_fault: Callable[[Fault], None],
        default_timeout: float = 30.0,
    ) -> None:
        self.default_timeout = default_timeout
        self.plugin_id = plugin_id
        self._send_stream = send_stream
        self._send_lock = trio.Lock()  # one line at a time on stdin
        self._slots = trio.CapacityLimiter(concurrency)
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._stats = stats
        self._on_fault = on_fault
        self.closed = False
        self.in_flight = 0
        self.last_activity = trio.current_time()
        self._notify_window = (0.0, 0)

    # -- callers ---------------------------------------------------------------

    async def call(self, method: str, params: Any = None, *, timeout: float | None = None,
                   counted: bool = True) -> Any:
        """The plugin's answer to ``method``; raises PluginCallError or ConnectionClosed.

        ``timeout`` (default: the manifest's ``timeout_seconds``) covers
        waiting for a slot and the answer. A plugin that took a request and
        does not answer within its own ``timeout_seconds`` hangs: it is
        killed. A caller's shorter deadline only cancels the request.
        """
        timeout = self.default_timeout if timeout is None else timeout
        deadline = trio.current_time() + timeout
        self.in_flight += 1
        try:
            with trio.move_on_at(deadline) as waiting:
                await self._slots.acquire()
            if waiting.cancelled_caught:
                busy = f"plugin {self.plugin_id} is busy; no slot in {timeout}s"
                raise PluginCallError(self.plugin_id, "timeout", busy)
            try:
                return await self._call_in_slot(method, params, deadline, self._stats if counted else None,
                                                hung=timeout >= self.default_timeout)
            finally:
                self._slots.release()
        finally:
            self.in_flight -= 1
            self.last_activity = trio.current_time()

    async def _call_in_slot(
        self, method: str, params: Any, deadline: float, stats: PluginStats | None, *, hung: bool
    ) -> Any:
        """One request; ``hung``: silence until ``deadline`` means the plugin hangs (it is killed)."""
        if self.closed:
            raise ConnectionClosed(self.plugin_id)
        call_id = next(self._ids)
        pending = self._pending[call_id] = _Pending()
        message = {"jsonrpc": "2.0", "id": call_id, "method": method}
        if params is not None:
            message["params"] = params
        try:
            await self._send(message)
            with trio.move_on_at(deadline):
                await pending.done.wait()
        except trio.Cancelled:
            if not pending.done.is_set():
                await self._send_cancel(call_id)
            raise
        finally:
            del self._pending[call_id]
        if not pending.done.is_set():
            if stats is not None:
                stats.record_call(ok=False, error_code="timeout" if hung else None)  # a hurried caller: no fault
            if hung:
                self.fault(Fault("timeout", f"no answer to {method} in time"))
            else:  # the caller's own, shorter deadline: the plugin is not at fault
                await self._send_cancel(call_id)
            raise PluginCallError(self.plugin_id, "timeout", f"plugin {self.plugin_id} did not answer {method} in time")
        return self._outcome(method, pending, stats)

    def _outcome(self, method: str, pending: _Pending, stats: PluginStats | None) -> Any:
        if pending.error is None:
            if stats is not None:
                stats.record_call(ok=True)
            return pending.result
        raw_data = pending.error.get("data")
        data: dict[str, Any] = raw_data if isinstance(raw_data, dict) else {}
        reason = data.get("code") or ("crashed" if pending.error.get("code") == -32099 else "unknown")
        if reason not in PROVIDER_ERROR_CODES:  # a process killed for garbage or a flood has crashed
            reason = "crashed" if pending.error.get("code") == -32099 else "unknown"
        if stats is not None:
            stats.record_call(ok=False, error_code=reason)
        extra = {}
        if reason == "rate_limited" and (seconds := wait_seconds(data.get("retryAfterSeconds"))) is not None:
            extra["retryAfterSeconds"] = seconds
            self._stats.pause(seconds)
        message = str(pending.error.get("message") or "the plugin reported an error")[:500]
        raise PluginCallError(self.plugin_id, reason, f"plugin {self.plugin_id}: {method}: {message}", **extra)

    async def _send(self, message: dict[str, Any]) -> None:
        line = orjson.dumps(message) + b"\n"
        async with self._send_lock:
            if self.closed:
                raise ConnectionClosed(self.plugin_id)
            try:
                await self._send_stream.send_all(line)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                raise ConnectionClosed(self.plugin_id) from None

    async def _send_cancel(self, call_id: int) -> None:
        # The caller is cancelled; telling the plugin is worth a short, bounded wait.
        with trio.CancelScope(shield=True), trio.move_on_after(CANCEL_SEND_TIMEOUT_S):
            try:
                await self._send({"jsonrpc": "2.0", "method": "$/cancel", "params": {"id": call_id}})
            except PluginNotRunning:
                pass

    # -- the session's side ------------------------------------------------------

    def fault(self, fault: Fault) -> None:
        """Report misbehaviour once; the session kills the process."""
        if not self.closed:
            self._on_fault(fault)

    def close(self, reason: str, detail: str) -> None:
        """The process is gone: every pending call fails with ``reason``."""
        self.closed = True
        for pending in self._pending.values():
            if not pending.done.is_set():
                pending.error = {"code": -32099, "message": detail, "data": {"code": reason}}
                pending.done.set()

    async def read_answers(self, stream: trio.abc.ReceiveStream) -> None:
        """Dispatch the lines the plugin writes until its stdout closes or it misbehaves."""
        buffer = bytearray()
        while not self.closed:
            chunk = await stream.receive_some(READ_CHUNK)
            if not chunk:
                return
            buffer += chunk
            while (newline := buffer.find(b"\n")) >= 0:
                line = bytes(buffer[:newline])
                del buffer[: newline + 1]
                if line.strip() and not self._dispatch(line):
                    return
            if len(buffer) > MAX_LINE_BYTES:
                self.fault(Fault("garbage", f"a line longer than {MAX_LINE_BYTES} bytes"))
                return

    def _dispatch(self, line: bytes) -> bool:
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError:
            message = None
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            # Not quoted: the line may hold anything, a setting's secret value included.
            self.fault(Fault("garbage", f"a line of {len(line)} bytes that is not a JSON-RPC 2.0 message"))
            return False
        if "method" in message:
            return self._notification(message)
        pending = self._pending.get(message.get("id"))  # type: ignore[arg-type]
        if pending is None or pending.done.is_set():
            return True  # a late answer to a call given up on
        if isinstance(message.get("error"), dict):
            pending.error = message["error"]
        else:
            pending.result = message.get("result")
        pending.done.set()
        return True

    def _notification(self, message: dict[str, Any]) -> bool:
        now = trio.current_time()
        start, count = self._notify_window
        if now - start >= 1.0:
            start, count = now, 0
        self._notify_window = (start, count + 1)
        if count + 1 > MAX_NOTIFICATIONS_PER_SECOND:
            self.fault(Fault("flood", f"more than {MAX_NOTIFICATIONS_PER_SECOND} notifications in a second"))
            return False
        raw_params = message.get("params")
        params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
        match message["method"]:
            case "log":
                _log.info("plugin %s: %s", self.plugin_id, loggable(str(params.get("message", ""))[:1000]))
            case "rateLimited":
                if (seconds := wait_seconds(params.get("retryAfterSeconds"))) is not None:
                    self._stats.pause(seconds)
            case "stat":
                self._stats.report(params)
        return True
