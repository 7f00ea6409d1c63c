"""Streaming players for playback_load.py: blocking range requests, one thread each, in their own process.

    python benchmarks/_stream_clients.py SPEC.json

SPEC: ``host``, ``port``, ``path``, ``tokens`` (one player per token),
``size`` (the file's bytes), ``span`` (bytes per range request),
``seconds``.  Each player holds one keep-alive connection and asks
``Range: bytes=START-END`` at random offsets back to back, reading every
body into one reused buffer (``recv_into``: the GIL is released while the
kernel copies, and nothing is allocated per byte), so the players cost the
machine as little as a player can.  Prints one JSON object: ``bytes``
(body bytes received), ``requests`` (complete 206 answers), ``errors`` (by
status or exception), ``seconds`` (the measured window).
"""

from __future__ import annotations

import json
import random
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

BUFFER = 1024 * 1024
HEAD_END = b"\r\n\r\n"
TIMEOUT_S = 10.0


class Player(threading.Thread):
    def __init__(self, spec: dict[str, Any], token: str, stop_at: float) -> None:
        super().__init__(daemon=True)
        self.spec, self.token, self.stop_at = spec, token, stop_at
        self.bytes = self.requests = 0
        self.errors: dict[str, int] = {}
        self.rng = random.Random(token)
        self.buffer = bytearray(BUFFER)

    def run(self) -> None:
        sock: socket.socket | None = None
        while time.perf_counter() < self.stop_at:
            try:
                if sock is None:
                    sock = socket.create_connection((self.spec["host"], self.spec["port"]), timeout=TIMEOUT_S)
                if not self._one(sock):
                    sock.close()
                    sock = None
            except OSError as exc:
                self.errors[type(exc).__name__] = self.errors.get(type(exc).__name__, 0) + 1
                if sock is not None:
                    sock.close()
                sock = None
        if sock is not None:
            sock.close()

    def _one(self, sock: socket.socket) -> bool:
        """One range request; False when the connection must be replaced."""
        size, span = self.spec["size"], self.spec["span"]
        start = self.rng.randrange(0, size - span + 1)
        request = (f"GET {self.spec['path']} HTTP/1.1\r\nHost: {self.spec['host']}\r\n"
                   f"Authorization: Bearer {self.token}\r\nRange: bytes={start}-{start + span - 1}\r\n\r\n")  # fmt: skip
        sock.sendall(request.encode())
        head = b""
        while HEAD_END not in head:
            data = sock.recv(4096)
            if not data:
                return False
            head += data
        head, _, rest = head.partition(HEAD_END)
        status = int(head[9:12])
        length = next(int(line.split(b":", 1)[1]) for line in head.lower().split(b"\r\n")
                      if line.startswith(b"content-length:"))  # fmt: skip
        received = len(rest)
        view = memoryview(self.buffer)
        while received < length and time.perf_counter() < self.stop_at:
            n = sock.recv_into(view, min(BUFFER, length - received))
            if n == 0:
                return False
            received += n
        self.bytes += received
        if received < length:
            return False  # the window closed mid-body
        if status == 206:
            self.requests += 1
        else:
            self.errors[str(status)] = self.errors.get(str(status), 0) + 1
        return b"connection: close" not in head.lower()


def main() -> int:
    spec = json.loads(Path(sys.argv[1]).read_text())
    started = time.perf_counter()
    players = [Player(spec, token, started + spec["seconds"]) for token in spec["tokens"]]
    for player in players:
        player.start()
    for player in players:
        player.join(spec["seconds"] + 2 * TIMEOUT_S)
    time.sleep(max(0.0, started + spec["seconds"] - time.perf_counter()))  # the window, even without players
    elapsed = time.perf_counter() - started
    errors: dict[str, int] = {}
    for player in players:
        for kind, count in player.errors.items():
            errors[kind] = errors.get(kind, 0) + count
    print(json.dumps({"bytes": sum(p.bytes for p in players), "requests": sum(p.requests for p in players),
                      "errors": errors, "seconds": round(elapsed, 2)}))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
