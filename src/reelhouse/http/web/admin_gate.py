"""Who may use the administrator pages: a signed-in member who is an administrator, from our own pages.

Every ``/web/admin`` route calls :func:`require_admin` first.  The cookie
itself is admitted (and a foreign state change refused, 403
``forbidden_origin``) by ``session.admit_web_request`` before any route
runs; here a member who is not an administrator is 403 ``forbidden`` and a
browser with no sign-in is 401 (a page: sent to the sign-in page).
"""

from __future__ import annotations

from typing import Any

from quart import Response, redirect, render_template

from reelhouse import errors
from reelhouse.storage.devices import DeviceSignIn

from ..device_auth import signed_in_member
from .login import SIGN_IN_PAGE

NOT_AN_ADMIN = "Only an administrator may do this."


def require_admin() -> DeviceSignIn:
    """The signed-in administrator; 401 without a sign-in, 403 for a member who is not one."""
    member = signed_in_member()
    if member is None:
        raise errors.Unauthorized("Sign in to the web console first.")
    if not member.is_admin:
        raise errors.Forbidden(NOT_AN_ADMIN)
    return member


async def admin_page(template: str, **values: Any) -> Any:
    """An administrator page's shell; the sign-in page for a browser that is not signed in."""
    member = signed_in_member()
    if member is None:
        return redirect(SIGN_IN_PAGE)
    if not member.is_admin:  # a page, so a sentence rather than an error body
        page = await render_template("forbidden.html", member_name=member.user_name, message=NOT_AN_ADMIN)
        return Response(page, status=403, mimetype="text/html")
    return await render_template(template, member_name=member.user_name, is_admin=True, **values)
