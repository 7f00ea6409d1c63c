"""A metadata provider plugin for the tests: it answers from ``catalogue.json``.

The file (in the plugin's directory, its working directory) is read anew
for every request, so a test changes the provider's behaviour while it
runs. Keys:

- ``search``: ``{"movie|Name": [Candidate...]}`` (kind, ``|``, the name sent);
- ``details``: ``{"movie|603": ProviderItem}``;
- ``seasons``: ``{"1399|1": {"item": ..., "episodes": [...]}}``;
- ``recognize``: ``{"Name": {"name": ..., "year": ...}}`` (recognizer plugins);
- ``down``: a ProviderErrorCode every call answers with (``unreachable``...);
- ``downAfter``: ``down`` applies only after this many searches;
- ``rateLimitOnce``: seconds; the first search answers ``rate_limited``
  with them as ``retryAfterSeconds`` (noted in ``rate-limited.mark``);
- ``rateLimit``: every search answers ``rate_limited`` with this as
  ``retryAfterSeconds``;
- ``crashOnce``: a name whose first search kills the process (noted in
  ``crashed.mark``).

Every request's method and params are appended to ``calls.log``.
"""

import json
import os
import sys
import threading

LOCK = threading.Lock()


def write(message):
    with LOCK:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def error(request_id, code, message, **data):
    write({"jsonrpc": "2.0", "id": request_id,
           "error": {"code": -32000, "message": message, "data": {"code": code, **data}}})


def load():
    with open("catalogue.json", encoding="utf-8") as handle:
        return json.load(handle)


def note(name):
    """True the first time ``name`` is noted."""
    with LOCK:
        if os.path.exists(name):
            return False
        with open(name, "w", encoding="utf-8") as handle:
            handle.write("1")
        return True


def count_search():
    with LOCK:
        count = int(open("searches.count").read()) if os.path.exists("searches.count") else 0
        with open("searches.count", "w") as handle:
            handle.write(str(count + 1))
        return count + 1


def answer(method, params):
    catalogue = load()
    if method == "metadata.search":
        number = count_search()
        down = catalogue.get("down")
        if down and number > catalogue.get("downAfter", 0):
            return ("error", down)
        if "rateLimit" in catalogue:
            return ("error", "rate_limited", {"retryAfterSeconds": catalogue["rateLimit"]})
        if catalogue.get("rateLimitOnce") and note("rate-limited.mark"):
            return ("error", "rate_limited", {"retryAfterSeconds": catalogue["rateLimitOnce"]})
        if params.get("name") == catalogue.get("crashOnce") and note("crashed.mark"):
            os._exit(3)
        return {"candidates": catalogue.get("search", {}).get(f"{params['kind']}|{params['name']}", [])}
    if catalogue.get("down") and catalogue.get("downAfter", 0) == 0:
        return ("error", catalogue["down"])
    if method == "metadata.details":
        return {"item": catalogue["details"][f"{params['kind']}|{params['providerItemId']}"]}
    if method == "metadata.season":
        return catalogue["seasons"][f"{params['seriesProviderItemId']}|{params['seasonNumber']}"]
    if method == "media.recognize":
        return catalogue.get("recognize", {}).get(params.get("name"))
    return ("unknown method",)


def handle(message):
    method, request_id, params = message.get("method"), message.get("id"), message.get("params") or {}
    with LOCK, open("calls.log", "a", encoding="utf-8") as log:
        log.write(json.dumps({"method": method, "params": params}) + "\n")
    if method == "initialize":
        write({"jsonrpc": "2.0", "id": request_id, "result": {"protocol": 2}})
        return
    result = answer(method, params)
    if isinstance(result, tuple) and result == ("unknown method",):
        write({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "unknown method"}})
    elif isinstance(result, tuple):
        error(request_id, result[1], f"upstream says {result[1]}", **(result[2] if len(result) > 2 else {}))
    else:
        write({"jsonrpc": "2.0", "id": request_id, "result": result})


def main():
    threads = []
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue  # $/cancel
        thread = threading.Thread(target=handle, args=(message,), daemon=True)
        thread.start()
        threads.append(thread)


main()
