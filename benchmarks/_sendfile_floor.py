"""The floor of stream_load.py: the least an HTTP server can do to serve a file's byte ranges.

    python benchmarks/_sendfile_floor.py FILE

Listens on 127.0.0.1 (a free port, printed as one line on stdout), one
blocking thread per connection: reads a request head, answers
``206`` with ``Content-Range`` for its ``Range: bytes=A-B`` and sends the
bytes with ``socket.sendfile`` (``os.sendfile`` underneath), keep-alive.
No parsing beyond that, no checks: a floor, not a server.  Runs until
killed.
"""

from __future__ import annotations

import os
import re
import socket
import sys
import threading

RANGE = re.compile(rb"range: bytes=(\d+)-(\d+)", re.IGNORECASE)


def serve(conn: socket.socket, path: str) -> None:
    try:
        _serve(conn, path)
    except OSError:
        pass  # the client left mid-body (the window closed)


def _serve(conn: socket.socket, path: str) -> None:
    size = os.path.getsize(path)
    with conn, open(path, "rb") as film:
        buffered = b""
        while True:
            while b"\r\n\r\n" not in buffered:
                data = conn.recv(65536)
                if not data:
                    return
                buffered += data
            head, _, buffered = buffered.partition(b"\r\n\r\n")
            match = RANGE.search(head)
            start, end = (int(match.group(1)), int(match.group(2))) if match else (0, size - 1)
            length = end - start + 1
            conn.sendall(f"HTTP/1.1 206 Partial Content\r\ncontent-length: {length}\r\n"
                         f"content-range: bytes {start}-{end}/{size}\r\n\r\n".encode())  # fmt: skip
            conn.sendfile(film, start, length)


def main() -> int:
    path = sys.argv[1]
    listener = socket.create_server(("127.0.0.1", 0))
    print(listener.getsockname()[1], flush=True)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, path), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
