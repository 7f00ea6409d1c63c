"""Media info: ffprobe subprocesses, bounded per library and server-wide.

A probe runs ``ffprobe`` (``media.probe.ffprobe_args``, environment
``FFPROBE_ENV``) under ``trio.fail_after(probe_timeout)``; a probe that
overruns is killed (trio.run_process terminates its child when cancelled)
and recorded as ``timeout``. Concurrency is bounded twice: by the library's
read concurrency (the number of workers) and by the server-wide probe
limiter every library shares (``ScanDeps.probe_limiter``). A file ffprobe
cannot read keeps its item with a ProbeFailure and no media info; so does
a file that resolves outside the library's roots by the time it is probed
(``within``: :mod:`reelhouse.media.containment`; ``permission_denied``).

Results are written in batches of :data:`FLUSH_EVERY` (one transaction
each), so a cancelled probe run keeps what it finished and the rest stays
pending. Remote sources (``.strm``) are never probed here; whoever reads
them later must check every hop with :func:`remote_target_allowed`.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

import trio

from reelhouse.media.file_names import to_fs
from reelhouse.media.probe import (
    FFPROBE_ENV,
    ProbeError,
    ProbeFailure,
    ProbeResult,
    classify_probe_failure,
    ffprobe_args,
    parse_probe,
)
from reelhouse.media.containment import Confinement
from reelhouse.storage import Store, now_ms
from reelhouse.storage.confined_files import resolves_inside
from reelhouse.storage.catalog import PendingSource, ProbeOutcomeRow, pending_probe_sources, save_probe_results

FLUSH_EVERY = 32  # probe results per write transaction
MAX_STDOUT_BYTES = 16 * 1024 * 1024
DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class ScanDeps:
    """What a scan needs from the server.

    ``probe_limiter`` is the server-wide probe limit (config
    ``scan.probe_concurrency``); ``thread_limiter`` bounds the worker
    threads that walk and parse (None: each scan uses one thread);
    ``parse_processes`` the child processes big scans may parse in (see
    ``parser_process``; None: every scan parses in threads).
    """

    probe_limiter: trio.CapacityLimiter
    ffprobe_path: str = "ffprobe"
    probe_timeout: float = 30.0
    thread_limiter: trio.CapacityLimiter | None = None
    parse_processes: trio.CapacityLimiter | None = None


@dataclass(frozen=True, slots=True)
class Probed:
    """One probe: media info, or why there is none."""

    result: ProbeResult | None = None
    failure: ProbeFailure | None = None
    message: str = ""


async def probe_file(path: str, deps: ScanDeps) -> Probed:
    """Run ffprobe on one local file (the caller holds the limiters).

    Never raises for a failed probe; cancellation kills ffprobe and raises.
    """
    env = {**os.environ, **FFPROBE_ENV}
    argv = ffprobe_args(to_fs(path), executable=deps.ffprobe_path)  # path text -> the name on disk
    try:
        with trio.fail_after(deps.probe_timeout):
            done = await trio.run_process(argv, capture_stdout=True, capture_stderr=True, check=False, env=env)
    except trio.TooSlowError:
        return Probed(failure=ProbeFailure.TIMEOUT, message=f"ffprobe took longer than {deps.probe_timeout:g} s")
    except OSError as exc:  # ffprobe missing or not executable
        return Probed(failure=ProbeFailure.UNKNOWN, message=f"ffprobe could not run: {exc}")
    stderr = done.stderr.decode("utf-8", errors="replace")
    if done.returncode != 0:
        exists = await trio.to_thread.run_sync(os.path.exists, to_fs(path))
        failure = classify_probe_failure(done.returncode, stderr, timed_out=False, exists=exists, permission=False)
        return Probed(failure=failure, message=stderr.strip()[:500])
    try:
        return Probed(result=parse_probe(done.stdout[:MAX_STDOUT_BYTES], path_container_hint=path))
    except ProbeError as exc:
        return Probed(failure=exc.failure, message=exc.message)


async def _probe_inside(path: str, deps: ScanDeps, within: Confinement | None) -> Probed:
    """ffprobe reads a file only inside the library (it opens the path itself, after this check)."""
    if within is not None and not await trio.to_thread.run_sync(resolves_inside, path, within):
        return Probed(failure=ProbeFailure.PERMISSION_DENIED, message="The file resolves outside the library's folders.")
    return await probe_file(path, deps)


async def probe_sources(
    store: Store,
    sources: Sequence[PendingSource],
    deps: ScanDeps,
    *,
    read_concurrency: int,
    on_progress: Callable[[int, int], None] | None = None,
    within: Confinement | None = None,
) -> int:
    """Probe ``sources`` with ``read_concurrency`` workers; returns how many were probed.

    Raises StoreError when results cannot be written.
    """
    total = len(sources)
    pending: Iterator[PendingSource] = iter(sources)
    done: list[ProbeOutcomeRow] = []
    count = 0

    async def flush() -> None:
        batch = done[:]
        done.clear()
        if batch:
            await save_probe_results(store, batch)

    async def worker() -> None:
        nonlocal count
        for source in pending:
            async with deps.probe_limiter:
                probed = await _probe_inside(source.path, deps, within)
            done.append(ProbeOutcomeRow(source, now_ms(), probed.result, probed.failure))
            count += 1
            if on_progress is not None:
                on_progress(count, total)
            if len(done) >= FLUSH_EVERY:
                await flush()

    async with trio.open_nursery() as nursery:
        for _ in range(max(1, min(read_concurrency, total))):
            nursery.start_soon(worker)
    await flush()
    return count


async def probe_pending_sources(
    store: Store,
    library_id: str,
    deps: ScanDeps,
    *,
    read_concurrency: int,
    on_progress: Callable[[int, int], None] | None = None,
    within: Confinement | None = None,
) -> int:
    """The background mediaInfoRead job: probe every source a scan left pending.

    Returns how many sources were probed (failures included). Cancellation
    keeps the results already written; the rest stays pending. Raises
    StoreError.
    """
    sources = await pending_probe_sources(store, library_id)
    return await probe_sources(
        store, sources, deps, read_concurrency=read_concurrency, on_progress=on_progress, within=within
    )


# -- remote sources ----------------------------------------------------------------


def remote_target_allowed(url: str, resolved_ips: Iterable[str], allowed_hosts: Iterable[str]) -> bool:
    """Whether a remote source may fetch ``url`` (call it again for every redirect hop).

    Only ``http``/``https`` URLs with a host. With ``allowed_hosts`` (the
    library's ``remoteAllowedHosts``: ``host`` or ``host:port``, IPv6 in
    brackets) only those hosts are allowed, whatever they resolve to. Without
    it, any host is allowed unless the URL's address or any of
    ``resolved_ips`` is loopback, link-local (including the cloud metadata
    address 169.254.169.254) or unspecified; an address that cannot be
    parsed, or no address at all, is refused. Pure: the caller resolves.
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return False
    scheme = parts.scheme.lower()
    host = _normal_host(parts.hostname or "")
    if scheme not in DEFAULT_PORTS or not host:
        return False
    port = port if port is not None else DEFAULT_PORTS[scheme]
    allowed = [entry for entry in (_host_entry(e) for e in allowed_hosts) if entry is not None]
    if allowed:
        return any(entry_host == host and entry_port in (None, port) for entry_host, entry_port in allowed)
    addresses = list(resolved_ips)
    if _ip(host) is not None:
        addresses.append(host)
    return bool(addresses) and not any(_forbidden(address) for address in addresses)


def _normal_host(host: str) -> str:
    host = host.strip().lower().rstrip(".")
    address = _ip(host)
    return str(address) if address is not None else host


def _host_entry(entry: str) -> tuple[str, int | None] | None:
    text = entry.strip().lower()
    if not text:
        return None
    if text.startswith("["):
        inside, bracket, rest = text[1:].partition("]")
        if not bracket:
            return None
        host, port_text = inside, rest.removeprefix(":") if rest.startswith(":") else None
        if rest and port_text is None:
            return None
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    else:
        host, port_text = text, None
    if port_text is not None and not port_text.isdigit():
        return None
    return _normal_host(host), int(port_text) if port_text is not None else None


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None


def _forbidden(address_text: str) -> bool:
    address = _ip(address_text.strip().strip("[]"))
    if address is None:
        return True
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_link_local or address.is_unspecified
