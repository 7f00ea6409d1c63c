"""GET /plugins/installed: the installed plugins, read from the PluginHost.

Install, enable, disable, configure and remove are not in the API (the
reference): they are the command line's (``reelhouse plugin ...``). Any
other method on a plugin path is 403 ``admin_only`` (a key may not do it)
and changes nothing.
"""

from __future__ import annotations

from typing import Any

from quart import Blueprint, request
from quart_schema import document_response, hide, validate_querystring

from reelhouse import errors
from reelhouse.actors.plugins import ListPlugins, PluginView
from reelhouse.media.plugin_text import accept_language, localized, parse_lang
from reelhouse.timefmt import rfc3339_ms

from .asks import ask
from .context import app_context
from .schema import ApiModel

blueprint = Blueprint("plugins", __name__)

# Shown as needing an administrator's attention.
ATTENTION = frozenset({"crash_disabled", "needs_configuration", "incompatible", "license_required",
                       "not_installed", "unknown"})


class PluginsQuery(ApiModel):
    lang: str | None = None


class PluginPaidFeature(ApiModel):
    feature: str
    entitled: bool


class PluginStat(ApiModel):
    code: str
    value: int
    unit: str
    at: str | None = None


class PluginTask(ApiModel):
    task: str  # pluginId.taskName, as the schedules endpoint runs it
    names: dict[str, str]
    descriptions: dict[str, str] | None = None
    paused: bool
    running: bool


class InstalledPlugin(ApiModel):
    id: str
    name: str
    version: str
    catalog: str
    enabled: bool
    configured: bool
    missing_required: list[str]
    needs_attention: bool
    official: bool
    bundled: bool
    extension: bool
    license_required: bool
    features: list[str]
    allowed_permissions: list[str]
    permissions: list[str]
    capabilities: list[str]
    concurrency: int
    protocol: int
    installed_at: str
    updated_at: str
    status: str
    paid_features: list[PluginPaidFeature]
    stats: list[PluginStat]
    author: str | None = None
    author_source: str | None = None
    homepage: str | None = None
    bundled_version: str | None = None
    previous_version: str | None = None
    concurrency_override: int | None = None
    description: str | None = None
    disable_reason: str | None = None
    last_error: str | None = None
    last_error_code: str | None = None
    paused_until: str | None = None
    tasks: list[PluginTask] | None = None


@blueprint.get("/plugins/installed")
@validate_querystring(PluginsQuery)
@document_response(list[InstalledPlugin], 200)
async def installed_plugins(query_args: PluginsQuery) -> Any:
    chain = [*parse_lang(query_args.lang), *accept_language(request.headers.get("Accept-Language")), "en"]
    host = app_context().actors.plugins
    if host is None:
        raise errors.Unavailable("Plugins are not available.", params={"retryAfterSeconds": 5})
    views: list[PluginView] = await ask(host, ListPlugins())
    return [plugin_json(view, chain) for view in views], 200


@blueprint.route("/plugins/<path:rest>", methods=["POST", "PUT", "PATCH", "DELETE"])
@hide  # not an operation: every write under /plugins is refused, whatever its path
async def plugins_not_in_api(rest: str) -> Any:
    raise errors.Forbidden(
        "Plugins are installed, enabled and configured by an administrator (reelhouse plugin ...).",
        code="admin_only",
    )


def plugin_json(view: PluginView, chain: list[str]) -> dict[str, Any]:
    entry, manifest, state = view.entry, view.entry.manifest, view.entry.state
    features = manifest.features if manifest else ()
    paid = [PluginPaidFeature(feature=f, entitled=f in view.entitled_features) for f in sorted(features)]
    license_required = any(not p.entitled for p in paid) or view.status == "license_required"
    installed_ms = state.installed_at_ms or state.updated_at_ms
    model = InstalledPlugin(
        id=entry.id,
        name=localized(manifest.names, chain) or entry.id if manifest else state.name or entry.id,
        version=manifest.version if manifest else state.version,
        catalog=manifest.catalog if manifest else "",
        enabled=view.enabled,
        configured=not view.missing_required,
        missing_required=list(view.missing_required),
        needs_attention=view.status in ATTENTION,
        official=entry.bundled,
        bundled=entry.bundled,
        extension=False,
        license_required=license_required,
        features=list(features),
        allowed_permissions=list(manifest.permissions) if manifest else [],
        permissions=list(manifest.permissions) if manifest else [],
        capabilities=list(manifest.capabilities) if manifest else [],
        concurrency=view.concurrency,
        protocol=manifest.protocol if manifest else 0,
        installed_at=rfc3339_ms(installed_ms),
        updated_at=rfc3339_ms(state.updated_at_ms or installed_ms),
        status=view.status,
        paid_features=paid,
        stats=[PluginStat(code=s.code, value=s.value, unit=s.unit, at=rfc3339_ms(s.at_ms) if s.at_ms else None)
               for s in view.stats],
        author=manifest.author if manifest else None,
        author_source="plugin" if manifest and manifest.author else None,
        homepage=manifest.homepage if manifest else None,
        bundled_version=entry.bundled_version,
        previous_version=state.previous_version,
        concurrency_override=state.concurrency_override,
        description=localized(manifest.descriptions, chain) if manifest else None,
        disable_reason=view.disable_reason,
        last_error=view.last_error,
        last_error_code=view.last_error_code,
        paused_until=rfc3339_ms(view.paused_until_ms) if view.paused_until_ms else None,
        tasks=_tasks(view) if view.enabled and manifest else None,
    )
    return model.to_json()


def _tasks(view: PluginView) -> list[PluginTask]:
    manifest = view.entry.manifest
    assert manifest is not None
    return [
        PluginTask(task=f"{view.entry.id}.{t.name}", names=dict(t.names), descriptions=dict(t.descriptions) or None,
                   paused=False, running=False)
        for t in manifest.tasks
    ]
