"""Documentation models of bodies the routes render themselves: libraries, scans, jobs.

The routes build these bodies as plain dicts (``_library_json``,
``ScanStatusView.to_json``, the JobRegistry's ``_render``); these models
only describe them in the OpenAPI document, field for field, so that a
schema-driven client or fuzzer can check every answer. Omitted fields are
optional here; nothing is ever null unless said so.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from .schema import ApiModel


class LibraryCovers(ApiModel):
    """A library's cover images; a kind without a cover is omitted."""

    custom_primary: bool
    custom_thumb: bool
    primary: str | None = None
    thumb: str | None = None
    primary_source: Literal["custom", "scanned", "auto"] | None = None
    thumb_source: Literal["custom", "scanned", "auto"] | None = None
    primary_final: bool | None = None
    thumb_final: bool | None = None
    primary_generated_at: str | None = None
    thumb_generated_at: str | None = None


class Library(ApiModel):
    """A library with its effective settings."""

    id: str
    name: str
    paths: list[str]
    collection_type: Literal["movies", "tvshows", "mixed"]
    options: dict[str, Any] = Field(description="LibraryOptions: every setting, effective values added.")
    covers: LibraryCovers
    strm_plugin_enabled: bool
    item_count: int | None = Field(None, description="Omitted while it cannot be counted.")
    has_strm_sources: bool | None = None
    scrape_pending: int | None = Field(None, description="GET /libraries and GET /libraries/{id} only.")
    last_scanned_at: str | None = None


class CreateLibraryBody(ApiModel):
    """CreateLibraryRequest."""

    name: str
    paths: list[str] = Field(description="Absolute directories that exist and overlap no other library.")
    collection_type: Literal["movies", "tvshows", "mixed"]
    options: dict[str, Any] | None = Field(None, description="LibraryOptionsUpdate, complete.")
    realtime_monitor: bool | None = None
    access_user_ids: list[str] = Field([], description="Members given access; empty: administrators only.")


class ScanRequest(ApiModel):
    """The optional body of a scan start."""

    mode: Literal["quick", "full"] = "quick"
    rewrite: bool = Field(False, description="Rewrite directories before scanning (after externalAudio changed).")


class RootStatus(ApiModel):
    path: str
    online: bool
    checked_at: str | None = None
    last_online: str | None = None
    reason_code: str | None = None
    message: str | None = None


class ScanStatus(ApiModel):
    """A library's scan state and progress."""

    library_id: str
    state: Literal["idle", "running", "cancelling", "completed", "failed", "cancelled"]
    processed: int
    errors: int
    added: int | None = None
    changed: int | None = None
    missing: int | None = None
    total: int | None = None
    phase: str | None = None
    current_dir: str | None = None
    current_path: str | None = None
    message: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    mass_missing_paused: bool | None = None
    roots: list[RootStatus] | None = None
    watch: str | None = None
    watch_reason_code: str | None = None
    watch_message: str | None = None


class ScanErrorsQuery(ApiModel):
    library_id: str | None = Field(None, description="Only this library's errors (404 when unknown).")


class ScanError(ApiModel):
    id: str
    library_id: str
    path: str
    error: str
    occurred_at: str


class Job(ApiModel):
    """A running or recently finished background job."""

    id: str
    title: str
    cancellable: bool
    state: str
    kind: str
    library_id: str | None = None
    subject: str | None = None
    current: str | None = None
    phase: str | None = None
    processed: int | None = None
    total: int | None = None
    errors: int | None = None
    changed: int | None = None
    message: str | None = None
    trigger: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    mass_missing_paused: bool | None = None
    per_minute: int | None = None
    eta_seconds: int | None = None


class ScanEventsQuery(ApiModel):
    last_event_id: str | None = Field(
        None, description="For clients that cannot set Last-Event-ID: the same, as a query parameter."
    )


class ScanEventsHeaders(BaseModel):
    # Not an ApiModel: header names are not camelCase.
    last_event_id: str | None = Field(None, alias="Last-Event-ID", description="Resume after this event id (decimal).")


class PersonCreditOfPerson(ApiModel):
    """One credit on a person's page: the item and the part."""

    item_id: str
    name: str
    type: str
    kind: str
    role: str | None = None
    production_year: int | None = None


class Person(ApiModel):
    """A person (GET /people/{id}): details from the provider, picture and credits."""

    id: str
    name: str
    sort_name: str
    image_tag: str | None = None
    overview: str | None = None
    birth_date: str | None = None
    death_date: str | None = None
    birth_place: str | None = None
    homepage: str | None = None
    provider_ids: dict[str, str]
    details_state: str
    credits: list[PersonCreditOfPerson]


class JobStarted(ApiModel):
    """A metadata job started (or already running): follow it in GET /jobs."""

    job_id: str
    kind: str
