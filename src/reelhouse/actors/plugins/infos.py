"""What library settings need from the PluginHost: the installed plugins."""

from __future__ import annotations

from reelhouse.media.library_options import PluginInfo
from reelhouse.runtime import ActorRef

from .host import ASK_TIMEOUT_S, PluginInfos


async def installed_plugin_infos(host: ActorRef | None) -> tuple[PluginInfo, ...]:
    """Every plugin with a readable manifest (installed or not, enabled or not); none without a host."""
    if host is None:
        return ()
    infos: list[PluginInfo] = await host.ask(PluginInfos(), timeout=ASK_TIMEOUT_S)
    return tuple(infos)
