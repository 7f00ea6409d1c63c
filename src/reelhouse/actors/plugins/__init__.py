"""Plugins run out of process: the host, one actor per plugin, the protocol."""

from .connection import PluginCallError, PluginConnection, PluginNotRunning
from .host import (
    GetPlugin,
    ListPlugins,
    ListTasks,
    PluginHost,
    PluginInfos,
    PluginTaskInfo,
    ReadCatalog,
    call_plugin,
    run_task,
)
from .plugin_actor import HostConfig, PluginView

__all__ = [
    "GetPlugin", "HostConfig", "ListPlugins", "ListTasks", "PluginCallError", "PluginConnection",
    "PluginHost", "PluginInfos", "PluginNotRunning", "PluginTaskInfo", "PluginView", "ReadCatalog",
    "call_plugin", "run_task",
]
