"""Users, the server and sign-in answers in Jellyfin's shapes (UserDto, PublicSystemInfo, AuthenticationResult)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from reelhouse.media.member_policy import allow_download, sees_all_libraries
from reelhouse.storage.members import MemberView
from reelhouse.timefmt import rfc3339_ms

from . import ids

JELLYFIN_VERSION = "10.10.7"
"""The Jellyfin API version this surface answers as: clients refuse a server older than
their minimum (10.10.0 for @jellyfin/sdk 1.0)."""
PRODUCT_NAME = "Jellyfin Server"


def public_system_info(server_id: str, server_name: str, local_address: str) -> dict[str, Any]:
    return {
        "LocalAddress": local_address,
        "ServerName": server_name,
        "Version": JELLYFIN_VERSION,
        "ProductName": PRODUCT_NAME,
        "OperatingSystem": "",
        "Id": ids.plain_guid(server_id),
        "StartupWizardCompleted": True,
    }


def system_info(server_id: str, server_name: str, local_address: str) -> dict[str, Any]:
    info = public_system_info(server_id, server_name, local_address)
    info.update({
        "OperatingSystemDisplayName": "", "HasPendingRestart": False, "IsShuttingDown": False,
        "SupportsLibraryMonitor": True, "WebSocketPortNumber": 0, "CompletedInstallations": [],
        "CanSelfRestart": False, "CanLaunchWebBrowser": False, "HasUpdateAvailable": False,
        "TranscodingTempPath": "", "CastReceiverApplications": [],
    })  # fmt: skip
    return info


def user_dto(member: MemberView, server_id: str, library_ids: Iterable[str]) -> dict[str, Any]:
    """A UserDto; the policy says which libraries the member sees, never a secret."""
    user, facts = member.user, member.facts
    all_folders = sees_all_libraries(facts)
    dto: dict[str, Any] = {
        "Name": user.name,
        "ServerId": ids.plain_guid(server_id),
        "Id": ids.plain_guid(user.id),
        "HasPassword": user.has_password or user.has_pin,
        "HasConfiguredPassword": user.has_password,
        "HasConfiguredEasyPassword": False,
        "EnableAutoLogin": False,
        "LastLoginDate": rfc3339_ms(user.last_login_at_ms) if user.last_login_at_ms else None,
        "LastActivityDate": rfc3339_ms(user.last_login_at_ms) if user.last_login_at_ms else None,
        "Configuration": _configuration(),
        "Policy": _policy(member, all_folders, library_ids),
    }
    return {key: value for key, value in dto.items() if value is not None}


PUBLIC_USER_FIELDS = ("Name", "ServerId", "Id", "HasPassword", "HasConfiguredPassword", "HasConfiguredEasyPassword",
                      "EnableAutoLogin")  # fmt: skip


def public_user_dto(member: MemberView, server_id: str) -> dict[str, Any]:
    """A UserDto for the sign-in screen, to anyone: who can sign in and whether a password is asked,
    not who administers, which libraries each member sees, or when they last signed in."""
    dto = user_dto(member, server_id, ())
    return {key: dto[key] for key in PUBLIC_USER_FIELDS if key in dto}


def _configuration() -> dict[str, Any]:
    return {
        "PlayDefaultAudioTrack": True, "SubtitleLanguagePreference": "", "DisplayMissingEpisodes": False,
        "GroupedFolders": [], "SubtitleMode": "Default", "DisplayCollectionsView": False,
        "EnableLocalPassword": False, "OrderedViews": [], "LatestItemsExcludes": [], "MyMediaExcludes": [],
        "HidePlayedInLatest": True, "RememberAudioSelections": True, "RememberSubtitleSelections": True,
        "EnableNextEpisodeAutoPlay": True, "CastReceiverId": "",
    }  # fmt: skip


def _policy(member: MemberView, all_folders: bool, library_ids: Iterable[str]) -> dict[str, Any]:
    user = member.user
    folders = [] if all_folders else [ids.plain_guid(i) for i in member.granted_libraries if i in set(library_ids)]
    return {
        "IsAdministrator": user.is_admin, "IsHidden": user.hidden, "IsDisabled": user.disabled,
        "EnableCollectionManagement": False, "EnableSubtitleManagement": False, "EnableLyricManagement": False,
        "EnableUserPreferenceAccess": True, "AccessSchedules": [], "BlockUnratedItems": [],
        "EnableRemoteControlOfOtherUsers": False, "EnableSharedDeviceControl": False, "EnableRemoteAccess": True,
        "EnableLiveTvManagement": False, "EnableLiveTvAccess": False, "EnableMediaPlayback": True,
        "EnableAudioPlaybackTranscoding": False, "EnableVideoPlaybackTranscoding": False,
        "EnablePlaybackRemuxing": False, "ForceRemoteSourceTranscoding": False,
        "EnableContentDeletion": False, "EnableContentDeletionFromFolders": [],
        "EnableContentDownloading": allow_download(member.facts), "EnableSyncTranscoding": False,
        "EnableMediaConversion": False, "EnabledDevices": [], "EnableAllDevices": True, "EnabledChannels": [],
        "EnableAllChannels": True, "EnabledFolders": folders, "EnableAllFolders": all_folders,
        "InvalidLoginAttemptCount": 0, "LoginAttemptsBeforeLockout": -1, "MaxActiveSessions": 0,
        "EnablePublicSharing": False, "BlockedMediaFolders": [], "BlockedChannels": [],
        "RemoteClientBitrateLimit": 0, "AuthenticationProviderId": "Reelhouse", "PasswordResetProviderId": "Reelhouse",
        "SyncPlayAccess": "None",
    }  # fmt: skip


def session_info(session_id: str, user: dict[str, Any], client: str, device: str, device_id: str,
                 version: str, server_id: str) -> dict[str, Any]:  # fmt: skip
    """A SessionInfoDto of a signed-in device (no item playing)."""
    return {
        "Id": session_id, "UserId": user["Id"], "UserName": user["Name"], "Client": client,
        "DeviceName": device, "DeviceId": device_id, "ApplicationVersion": version, "ServerId": server_id,
        "IsActive": True, "SupportsMediaControl": False, "SupportsRemoteControl": False,
        "PlayableMediaTypes": ["Video"], "SupportedCommands": [], "PlayState": play_state(),
        "AdditionalUsers": [], "NowPlayingQueue": [], "NowPlayingQueueFullItems": [],
        "HasCustomDeviceName": False,
    }  # fmt: skip


def play_state(position_ticks: int | None = None, paused: bool = False) -> dict[str, Any]:
    """A PlayerStateInfo: where a session is (no position: nothing playing)."""
    state: dict[str, Any] = {"CanSeek": True, "IsPaused": paused, "IsMuted": False, "RepeatMode": "RepeatNone",
                             "PlaybackOrder": "Default"}  # fmt: skip
    if position_ticks is not None:
        state["PositionTicks"] = position_ticks
        state["PlayMethod"] = "DirectPlay"
    return state
