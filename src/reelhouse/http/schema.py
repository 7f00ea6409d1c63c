"""Pydantic models at the HTTP edge: camelCase JSON, omitted fields absent."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel
from quart_schema import PydanticDumpOptions

# How every response model is rendered: camelCase names, and a field that is
# None is left out (the reference's "omitted" means absent, not null).
DUMP_OPTIONS: PydanticDumpOptions = {"by_alias": True, "exclude_none": True}


class ApiModel(BaseModel):
    """Base of every request and response body."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", **DUMP_OPTIONS)


class ErrorBody(ApiModel):
    """The reference's error body, used for every error response."""

    code: str
    message: str
    params: dict[str, Any] | None = None


class SimpleSuccess(ApiModel):
    success: bool
    message: str | None = None
