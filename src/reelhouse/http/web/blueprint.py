"""The web console's blueprint: pages, sign-in and local assets under /web."""

from __future__ import annotations

from typing import Any

from quart import Blueprint, redirect
from quart_schema import hide

from .session import admit_web_request

# Named "web...": http/auth.py leaves its authentication to admit_web_request.
blueprint = Blueprint("web", __name__, template_folder="templates", static_folder="static", static_url_path="/static")
blueprint.before_request(admit_web_request)

root = Blueprint("web_root", __name__)
root.before_request(admit_web_request)


@root.get("/")
@hide  # the console, not the API: kept out of the OpenAPI document
async def to_console() -> Any:
    """A browser pointed at the server lands on the console."""
    return redirect("/web/")
