"""The access log (``access_log = true``): one line per request on the logger ``reelhouse.access``.

``GET /api/v1/items/<item_id> 200 4.1 ms 1834 B``: method, route template,
status, duration and body bytes sent, and in the JSON log format the same
as an ``http`` object. Never the query string, a header, a token or a key:
the route is the rule's template, so even an id in the path stays out.
The line's origin is the request (``request:<X-Request-Id>``), the id the
client got in its response.
"""

from __future__ import annotations

import logging

from .observe import RequestRecord

log = logging.getLogger("reelhouse.access")


def log_request(record: RequestRecord) -> None:
    milliseconds = round(record.seconds * 1000, 1)
    fields = {
        "method": record.method,
        "route": record.route,
        "status": record.status,
        "durationMs": milliseconds,
        "bytes": record.bytes_sent,
        "requestId": record.request_id,
    }
    origin = f"request:{record.request_id}" if record.request_id else "server"
    log.info("%s %s %d %.1f ms %d B", record.method, record.route, record.status, milliseconds,
             record.bytes_sent, extra={"origin": origin, "http": fields})
