"""Reading a console request's JSON body into a pydantic model, errors as the reference's body."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ValidationError
from quart import request

from reelhouse import errors

Model = TypeVar("Model", bound=BaseModel)


async def parse_body(model: type[Model]) -> Model:
    """The JSON object body as ``model``; 400 ``field_invalid`` naming the first bad field."""
    body = await request.get_json(silent=True)
    if not isinstance(body, dict):
        raise errors.Invalid("The body must be a JSON object.")
    try:
        return model.model_validate(body)
    except ValidationError as invalid:
        first = invalid.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "body"
        raise errors.Invalid(f"{field}: {first['msg']}", field=field) from None
