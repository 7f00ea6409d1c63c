"""POST /auth/login and /auth/logout: players sign in (api-decisions.md, "Outside the reference").

The order of a sign-in is chosen so that nothing is learned cheaply:

1. the sign-in limits are checked first (``storage/signin_limits.py``):
   past a limit every attempt, right or wrong, is 429 with Retry-After and
   no hash is computed;
2. every attempt that gets past the limits costs exactly one password
   hash: an unknown name, a disabled member and a sign-in by the name
   alone check against a dummy hash, so the time taken does not tell which
   names exist;
3. hashes are compared in constant time (``members.verify_password``); a
   hash of an earlier format or parameters is replaced on success;
4. an attempt is counted as a failure before it is verified, in one
   database transaction that checks the limits (``claim_attempt``), and
   settled after: so a burst of parallel guesses, or guesses spread over
   the nodes of a cluster, is limited exactly like the same guesses in a
   row, with no lock or counter in this process.

Every attempt is recorded in the activity log (``user.login`` or
``user.login_failed``, category security) with the method and the reason,
never a secret.  Refusals the limits do not bound (429, a locked PIN) are
counted on one entry per minute, member and address, so a client that
keeps trying cannot grow the log without limit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from pydantic import Field
from quart import Blueprint, Response, request
from quart_schema import document_request, document_response, validate_request

from reelhouse import errors
from reelhouse.storage import devices, members, now_ms, signin_limits
from reelhouse.storage.devices import DeviceSignIn

from .context import app_context
from .device_auth import signed_in_member, verified_devices
from .member_activity import record_sign_in
from .openapi import may_answer, raw_response
from .schema import ApiModel

blueprint = Blueprint("auth_routes", __name__)


class LoginRequest(ApiModel):
    name: str = Field(max_length=256)
    password: str | None = Field(None, max_length=1024)
    pin: str | None = Field(None, max_length=64)
    device_id: str | None = Field(None, max_length=256, description="The player's own device identifier.")
    device_name: str = Field(max_length=256)
    client: str = Field(max_length=256)
    version: str | None = Field(None, max_length=256)


class LoginResponse(ApiModel):
    token: str = Field(description="The device token: send it as Authorization: Bearer <token>.")
    user_id: str
    device_id: str = Field(description="The id of the Device row this sign-in joined.")


@dataclass(frozen=True, slots=True)
class _Verdict:
    method: str  # password, pin or name
    failure: errors.DomainError | None = None
    counts: bool = True  # whether a failure counts toward the limits and the PIN lock


@blueprint.post("/auth/login")
@validate_request(LoginRequest)
@document_request(LoginRequest)
@document_response(LoginResponse, 200)
@may_answer(
    (401, "invalid_credentials, wrong_pin or password_required."),
    (403, "pin_locked: 20 PIN failures within 24 hours."),
    (429, "too_many_requests: past a sign-in limit; wait the Retry-After seconds."),
)
async def login(data: LoginRequest) -> Any:
    """Sign a member in from a player with a password, a PIN, or the name alone.

    401 invalid_credentials (wrong password, unknown or disabled member),
    wrong_pin, password_required (the member has a password and sent
    neither); 403 pin_locked after 20 PIN failures within 24 hours; 429
    too_many_requests with Retry-After past 5 failures a minute for one name
    from one address or 30 in 10 minutes from one address.
    """
    attempt = SignInAttempt(data.name, data.password, data.pin, data.device_id, data.device_name, data.client,
                            data.version)  # fmt: skip
    signed_in = await sign_in(attempt, request.remote_addr or "")
    return LoginResponse(token=signed_in.token, user_id=signed_in.user_id, device_id=signed_in.device_id).to_json()


@dataclass(frozen=True, slots=True)
class SignInAttempt:
    """What a player sent to sign in, whichever surface it came by (native or Jellyfin's)."""

    name: str
    password: str | None
    pin: str | None
    device_id: str | None
    device_name: str
    client: str
    version: str | None
    password_or_pin: bool = False  # the password field may hold the PIN of a member who has only a PIN
    kind: str = devices.PLAYER  # the Device row's kind: web for the web console's cookie sign-in


@dataclass(frozen=True, slots=True)
class SignedIn:
    token: str
    user_id: str
    device_id: str


async def sign_in(attempt: SignInAttempt, address: str) -> SignedIn:
    """The one sign-in of every surface: limits, one hash check, device row, activity entry.

    Raises the failures as domain errors: Unauthorized, Forbidden
    (pin_locked), TooManyRequests (with retryAfterSeconds).
    """
    # No lock here: the limits are claimed in the database (claim_attempt), so parallel
    # guesses, on this node or spread over several, get no more tries than in a row.
    return await _sign_in(attempt, address)


async def _sign_in(data: SignInAttempt, address: str) -> SignedIn:
    store = _store()
    now = now_ms()
    attempt = await signin_limits.claim_attempt(store, data.name, address, now)
    if attempt is None:
        wait = await signin_limits.retry_after_seconds(store, data.name, address, now) or 1
        creds = await members.credentials_by_name(store, data.name)
        user = None if creds is None else creds.user
        await record_sign_in(user, ok=False, reason="tooManyRequests", repeated=True)
        raise errors.TooManyRequests("Too many failed sign-ins: try again later.", params={"retryAfterSeconds": wait})
    creds = await members.credentials_by_name(store, data.name)
    data = _as_pin_when_only_pin(creds, data)
    verdict = await _verify(creds, data, now)
    user = None if creds is None else creds.user
    if verdict.failure is not None:
        if verdict.counts:
            await signin_limits.settle_failure(store, attempt, verdict.method, None if user is None else user.id)
        else:
            await signin_limits.release_attempt(store, attempt)
        reason, method = verdict.failure.code, verdict.method
        await record_sign_in(user, ok=False, reason=reason, method=method, repeated=not verdict.counts)
        raise verdict.failure
    assert user is not None and creds is not None
    await signin_limits.release_attempt(store, attempt)
    if verdict.method == "password":
        await signin_limits.clear_pin_lock(store, user.id)
    await _rehash(store, creds, verdict.method, data)
    request_row = devices.SignInRequest(user.id, data.device_id, data.device_name, data.client, data.version, data.kind)
    token, device_id = await devices.sign_in(store, request_row, now)
    await members.note_login(store, user.id, now)
    await record_sign_in(user, ok=True, method=verdict.method, device_id=device_id)
    return SignedIn(token, user.id, device_id)


def _as_pin_when_only_pin(creds: members.Credentials | None, data: SignInAttempt) -> SignInAttempt:
    """A surface with one secret field (Jellyfin's ``Pw``): for a member with a PIN and no password it is the PIN."""
    if not data.password_or_pin or creds is None or creds.password_hash is not None or creds.pin_hash is None:
        return data
    if not data.password:
        return data
    return replace(data, password=None, pin=data.password, password_or_pin=False)


@blueprint.post("/auth/logout")
@raw_response(204, None, "Signed out.")
@may_answer((403, "Only a device token signs out."))
async def logout() -> Response:
    """End this device token's sign-in (204); the token is refused from then on.

    Only a device token may sign out: with an API key this is 403.
    """
    member = signed_in_member()
    if member is None:
        raise errors.Forbidden("Only a device token signs out.")
    await sign_out(member)
    return Response(b"", status=204)


async def sign_out(member: DeviceSignIn) -> None:
    """End this sign-in: its token is refused from the next request on, on every surface."""
    await devices.sign_out(_store(), member.token_hash)
    verified_devices().forget([member.token_hash])


async def _verify(creds: members.Credentials | None, data: SignInAttempt, now: int) -> _Verdict:
    method = "pin" if data.pin is not None and data.password is None else "password"
    if data.password is None and data.pin is None:
        method = "name"
    invalid = errors.Unauthorized("The name or the password is wrong.", code="invalid_credentials")
    if creds is None or creds.user.disabled:
        await _check(None, data.password or data.pin or "")  # the same cost as a real check
        return _Verdict(method, invalid)
    if method == "pin":
        return await _verify_pin(creds, data.pin or "", now)
    if method == "password" and creds.password_hash is not None:
        if not await _check(creds.password_hash, data.password or ""):
            return _Verdict(method, invalid)
        return _Verdict(method)
    # Nothing to compare, yet the same cost as an unknown name's check.
    await _check(None, data.password or "")
    return _verdict_without_hash(creds, method, invalid)


def _verdict_without_hash(creds: members.Credentials, method: str, invalid: errors.DomainError) -> _Verdict:
    """A sign-in by the name alone, or with a password the member does not have."""
    if creds.password_hash is None and creds.pin_hash is None:
        return _Verdict("name")  # a member without password or PIN signs in with the name alone
    if method == "password":
        return _Verdict(method, invalid)  # a member with a PIN only
    if creds.password_hash is not None:
        return _Verdict(method, errors.Unauthorized("A password is required.", code="password_required"))
    return _Verdict(method, errors.Unauthorized("A PIN is required.", code="wrong_pin"))


async def _verify_pin(creds: members.Credentials, pin: str, now: int) -> _Verdict:
    if await signin_limits.pin_locked(_store(), creds.user.id, now):
        locked = errors.Forbidden("PIN sign-in is locked: sign in with the password.", code="pin_locked")
        return _Verdict("pin", locked, counts=False)
    if not await _check(creds.pin_hash, pin):
        return _Verdict("pin", errors.Unauthorized("The PIN is wrong.", code="wrong_pin"))
    return _Verdict("pin")


async def _check(stored: str | None, secret: str) -> bool:
    """Compare ``secret`` with ``stored`` in a worker thread; without a hash, spend the same time and fail."""
    if stored is None:
        await members.verify_dummy(secret)
        return False
    return await members.verify_password(stored, secret)


async def _rehash(store: Any, creds: members.Credentials, method: str, data: SignInAttempt) -> None:
    """A secret that verified against an outdated hash is stored hashed anew."""
    if method == "password" and creds.password_hash is not None:
        await members.rehash_if_needed(store, creds.user.id, "password", creds.password_hash, data.password or "")
    elif method == "pin" and creds.pin_hash is not None:
        await members.rehash_if_needed(store, creds.user.id, "pin", creds.pin_hash, data.pin or "")


def _store() -> Any:
    return app_context().store
