"""POST /web/login and /web/logout: a member signs in to the web console with a cookie.

The sign-in is the native one (``auth_routes.sign_in``): the same limits,
one hash check, activity entries and a Device row, here of kind ``web``.
The device token it creates is put in the cookie and never in a body, so
page scripts cannot read it.  A form post answers with pages (303 to the
home page, or the sign-in page with the error's sentence); a JSON post
answers JSON, errors in the reference's body.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from quart import Response, redirect, render_template, request
from quart_schema import hide

from reelhouse import errors
from reelhouse.storage import devices

from ..auth_routes import SignInAttempt, sign_in, sign_out
from ..device_auth import find_device_sign_in, signed_in_member
from ..errors import status_of
from ..jsonbody import json_response
from .blueprint import blueprint
from .cookies import clear_sign_in_cookie, set_sign_in_cookie

WEB_CLIENT = "Reelhouse Web"
HOME = "/web/"
SIGN_IN_PAGE = "/web/login"


class WebLogin(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str = Field(min_length=1, max_length=256)
    password: str | None = Field(None, max_length=1024)
    pin: str | None = Field(None, max_length=64)


@blueprint.get("/login")
@hide  # the console, not the API: kept out of the OpenAPI document
async def login_page() -> Any:
    if signed_in_member() is not None:
        return redirect(HOME)
    return await render_template("login.html", error=None, name="")


@blueprint.post("/login")
@hide  # the console, not the API: kept out of the OpenAPI document
async def login() -> Any:
    """Sign in with ``{name, password}`` or ``{name, pin}`` (JSON or a form); sets the cookie."""
    as_form = not request.is_json
    fields = await _fields(as_form)
    try:
        data = _parse(fields)
        attempt = SignInAttempt(
            data.name,
            data.password or None,
            data.pin or None,
            None,
            _browser_name(),
            WEB_CLIENT,
            None,
            kind=devices.WEB,
        )
        signed = await sign_in(attempt, request.remote_addr or "")
    except errors.DomainError as failure:
        if not as_form:
            raise
        page = await render_template("login.html", error=failure.message, name=str(fields.get("name", "")))
        return Response(page, status=status_of(failure), mimetype="text/html")
    member = await find_device_sign_in(signed.token)
    session_only = bool(member is not None and member.policy.get("sessionOnlyLogin"))
    response: Response
    if as_form:
        response = redirect(HOME, 303)  # type: ignore[assignment]
    else:
        response = json_response({"userId": signed.user_id, "deviceId": signed.device_id})
    set_sign_in_cookie(response, signed.token, session_only=session_only)
    return response


@blueprint.post("/logout")
@hide  # the console, not the API: kept out of the OpenAPI document
async def logout() -> Any:
    """End this browser's sign-in (its token is refused from now on) and clear the cookie."""
    member = signed_in_member()
    if member is not None:
        await sign_out(member)
    response: Response = redirect(SIGN_IN_PAGE, 303) if not request.is_json else Response(b"", status=204)  # type: ignore[assignment]
    clear_sign_in_cookie(response)
    return response


async def _fields(as_form: bool) -> dict[str, Any]:
    if as_form:
        return dict((await request.form).items())
    body = await request.get_json(silent=True)
    if not isinstance(body, dict):
        raise errors.Invalid("The body must be a JSON object with name and password or pin.")
    return body


def _parse(fields: dict[str, Any]) -> WebLogin:
    try:
        return WebLogin.model_validate(fields)
    except ValidationError as invalid:
        first = invalid.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "name"
        raise errors.Invalid(f"{field}: {first['msg']}", field=field) from None


# (User-Agent token, name), the first match wins: Edge and Opera say Chrome too, Chrome says Safari.
_BROWSERS = (("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Safari/", "Safari"))
_SYSTEMS = (("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"), ("Windows", "Windows"),
            ("Mac OS X", "macOS"), ("CrOS", "ChromeOS"), ("Linux", "Linux"))  # fmt: skip


def _browser_name() -> str:
    """The Device row's name, as the devices list shows it: "Firefox on Android" from the User-Agent."""
    agent = request.headers.get("User-Agent", "")
    browser = next((name for token, name in _BROWSERS if token in agent), "Web browser")
    system = next((name for token, name in _SYSTEMS if token in agent), None)
    return browser if system is None else f"{browser} on {system}"
