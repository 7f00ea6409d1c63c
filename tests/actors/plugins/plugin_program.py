"""A plugin for the tests; its behaviour is its first argument.

good      answers initialize, echo, pid, wait (until $/cancel; creates params' ``started`` first), notify, task.run
crash     exits with code 3 on echo
hang      never answers echo
old       answers initialize with protocol 1
flood     on echo, writes 1,000 notifications at once
garbage   on echo, writes a line that is not JSON
badtask   good, but task.run fails (auth_failed, with a secret in its message)
slowtask  good, but task.run notes its start in task-runs.log, waits until $/cancel, notes that
deaf      good, but ignores the end of stdin (must be killed)
stubborn  deaf, and ignores SIGTERM too
slowstart good, but answers initialize after a second
dead      exits at once, before the handshake
noisy     on echo, writes 500 long lines to stderr first

Methods besides: ``limited`` answers rate_limited with params' ``retryAfterSeconds``
(60 when absent), after a ``rateLimited`` notification of it when ``notify``;
``say`` writes params' ``message`` as a ``log`` notification and a line on stderr;
``orphan`` starts a grandchild that leaves for a session of its own (setsid),
ignores SIGTERM and is orphaned at once, and answers its pid (its command
line names this file, so the tests' ``processes_under`` finds it): this
program run as ``--middle`` starts itself as ``--grandchild`` and exits.
``freeze_parent`` stops its parent process (SIGSTOP) and answers.
Every process notes its pid in ``pids.log`` (in its directory) at start.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"
LOCK = threading.Lock()
CANCELLED = {}
HERE = os.path.abspath(__file__)


def write(message):
    with LOCK:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def answer(request_id, result):
    write({"jsonrpc": "2.0", "id": request_id, "result": result})


def handle(message):
    method, request_id, params = message.get("method"), message.get("id"), message.get("params") or {}
    if method == "initialize":
        if MODE == "slowstart":
            time.sleep(1)
        answer(request_id, {"protocol": 1 if MODE == "old" else 2, "settings": params.get("settings")})
    elif method == "echo":
        if MODE == "crash":
            os._exit(3)
        if MODE == "hang":
            return
        if MODE == "flood":
            for i in range(1000):
                write({"jsonrpc": "2.0", "method": "log", "params": {"message": f"spam {i}"}})
        if MODE == "noisy":
            sys.stderr.write("".join(f"noise {i} {'x' * 5000}\n" for i in range(500)))
            sys.stderr.flush()
        if MODE == "garbage":
            with LOCK:
                sys.stdout.write("this is not json\n")
                sys.stdout.flush()
            return
        answer(request_id, params)
    elif method == "pid":
        answer(request_id, os.getpid())
    elif method == "wait":
        event = CANCELLED.setdefault(request_id, threading.Event())
        if params.get("started"):
            open(params["started"], "w").close()
        event.wait(60)
        with open(params["marker"], "a") as marker:
            marker.write(f"cancelled {request_id}\n")
    elif method == "limited":
        seconds = params.get("retryAfterSeconds", 60)
        if params.get("notify"):
            write({"jsonrpc": "2.0", "method": "rateLimited", "params": {"retryAfterSeconds": seconds}})
        write({"jsonrpc": "2.0", "id": request_id,
               "error": {"code": -32000, "message": "slow down", "data": {"code": "rate_limited", "retryAfterSeconds": seconds}}})
    elif method == "say":
        write({"jsonrpc": "2.0", "method": "log", "params": {"level": "info", "message": params["message"]}})
        sys.stderr.write(params["message"] + "\n")
        sys.stderr.flush()
        answer(request_id, None)
    elif method == "freeze_parent":
        os.kill(os.getppid(), signal.SIGSTOP)
        answer(request_id, None)
    elif method == "orphan":
        middle = subprocess.run([sys.executable, HERE, "--middle"], stdin=subprocess.DEVNULL,
                                capture_output=True, check=True, timeout=30)
        answer(request_id, int(middle.stdout))
    elif method == "stat":
        write({"jsonrpc": "2.0", "method": "stat", "params": {"code": "quota", "value": 42, "unit": "count"}})
        answer(request_id, None)
    elif method == "task.run" and MODE == "badtask":
        write({"jsonrpc": "2.0", "id": request_id,
               "error": {"code": -32000, "message": "token s3cret-t0ken rejected", "data": {"code": "auth_failed"}}})
    elif method == "task.run" and MODE == "slowtask":
        with open("task-runs.log", "a") as runs:
            runs.write(f"started {params.get('task')}\n")
        CANCELLED.setdefault(request_id, threading.Event()).wait(60)
        with open("task-runs.log", "a") as runs:
            runs.write(f"cancelled {params.get('task')}\n")
    elif method == "task.run":
        with open("task-runs.log", "a") as runs:  # in the plugin's directory: what the tests check
            runs.write(f"{params.get('task')}\n")
        answer(request_id, {"message": "ok"})
    else:
        write({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "unknown method"}})


def middle():
    grandchild = subprocess.Popen([sys.executable, HERE, "--grandchild"], start_new_session=True,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    grandchild.stdout.readline()  # it ignores SIGTERM from now on
    print(grandchild.pid, flush=True)


def grandchild():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    print("ready", flush=True)
    while True:
        time.sleep(3600)


def main():
    with open("pids.log", "a") as pids:
        pids.write(f"{os.getpid()}\n")
    if MODE == "--middle":
        return middle()
    if MODE == "--grandchild":
        return grandchild()
    if MODE == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if MODE == "dead":
        sys.exit(1)
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("method") == "$/cancel":
            CANCELLED.setdefault(message["params"]["id"], threading.Event()).set()
            continue
        threading.Thread(target=handle, args=(message,), daemon=True).start()
    if MODE in ("deaf", "stubborn"):
        time.sleep(3600)


if __name__ == "__main__":
    main()
