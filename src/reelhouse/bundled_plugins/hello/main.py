"""The example plugin: JSON-RPC 2.0, one message per line on stdin/stdout."""

import json
import sys

PROTOCOL = 2


def answer(request_id, result=None, error=None):
    message = {"jsonrpc": "2.0", "id": request_id}
    if error is None:
        message["result"] = result
    else:
        message["error"] = error
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def notify(method, params):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "method": method, "params": params}) + "\n")
    sys.stdout.flush()


def main():
    for line in sys.stdin:  # ends when the server closes our stdin: then we exit
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if request_id is None:
            continue  # a notification, such as $/cancel: nothing to cancel here
        if method == "initialize":
            answer(request_id, {"protocol": PROTOCOL})
        elif method == "echo":
            answer(request_id, params)
        elif method == "task.run":
            notify("log", {"level": "info", "message": "hello from the hello plugin"})
            answer(request_id, {"message": "said hello"})
        else:
            answer(request_id, error={"code": -32601, "message": f"unknown method {method}"})


if __name__ == "__main__":
    main()
