"""The OpenAPI document's names: a tag per endpoint group and a stable operation id per route.

Client generators name their functions and modules after these
(``libraries.list_libraries``), so they are part of the contract: an id,
once published, keeps its name while the route keeps its meaning.  The
groups are the reference's (Endpoints), with sign-in apart.  Every route
the app serves has its entry: ``tests/http/test_openapi.py`` fails for one
without.
"""

from __future__ import annotations

from typing import NamedTuple


class Operation(NamedTuple):
    tag: str
    operation_id: str


TAGS: dict[str, str] = {
    "Libraries": "Libraries: create, read, delete, refresh, rescrape and their options.",
    "Items": "The catalogue: item pages, detail, refresh, identify, rescan.",
    "Search": "Full-text search across items and people.",
    "Scans": "Scans: start, cancel, status, errors and the live event stream.",
    "Schedules": "Scheduled maintenance tasks: list and run now.",
    "Playback": "Playback reports, live sessions, remote control, history and the video stream.",
    "Members": "Members (read only: they are managed from the command line).",
    "Devices": "Signed-in devices: list and revoke.",
    "Authentication": "Sign-in and sign-out of members' devices.",
    "Watch state": "The signed-in member's played and favourite marks, resume list and next up (device tokens).",
    "Media": "Item and person images, resized and cached.",
    "Plugins": "Installed plugins.",
    "System": "Status, updates, jobs and the activity log.",
}

# Keyed by the app's endpoint name: "blueprint.function".
OPERATIONS: dict[str, Operation] = {
    "libraries.list_all": Operation("Libraries", "listLibraries"),
    "libraries.create": Operation("Libraries", "createLibrary"),
    "libraries.get_one": Operation("Libraries", "getLibrary"),
    "libraries.delete": Operation("Libraries", "deleteLibrary"),
    "libraries.refresh": Operation("Libraries", "refreshLibrary"),
    "libraries.rescrape": Operation("Libraries", "rescrapeLibrary"),
    "libraries.scrape_requeue": Operation("Libraries", "requeueLibraryScrapes"),
    "libraries.update_options": Operation("Libraries", "updateLibraryOptions"),
    "libraries.confirm_missing": Operation("Libraries", "confirmLibraryMissing"),
    "items.get_items": Operation("Items", "listItems"),
    "items.get_item": Operation("Items", "getItem"),
    "item_actions.refresh_item": Operation("Items", "refreshItem"),
    "item_actions.identify": Operation("Items", "identifyItem"),
    "item_actions.rescan_item": Operation("Items", "rescanItem"),
    "search.search_catalogue": Operation("Search", "search"),
    "scans.start_scan": Operation("Scans", "startScan"),
    "scans.cancel_scan": Operation("Scans", "cancelScan"),
    "scans.scan_status": Operation("Scans", "listScanStatus"),
    "scans.scan_errors": Operation("Scans", "listScanErrors"),
    "events.scan_events": Operation("Scans", "streamScanEvents"),
    "schedules.list_schedules": Operation("Schedules", "listSchedules"),
    "schedules.run_schedule": Operation("Schedules", "runSchedule"),
    "playback_reports.playing": Operation("Playback", "reportPlaying"),
    "playback_reports.progress": Operation("Playback", "reportProgress"),
    "playback_reports.stopped": Operation("Playback", "reportStopped"),
    "playback_sessions.list_sessions": Operation("Playback", "listPlaybackSessions"),
    "playback_sessions.stop_session": Operation("Playback", "stopPlaybackSession"),
    "playback_history.get_playback_history": Operation("Playback", "listPlayHistory"),
    "remote_control.socket": Operation("Playback", "openRemoteControlSocket"),
    "stream.stream_video": Operation("Playback", "streamVideo"),
    "users.list_users": Operation("Members", "listUsers"),
    "users.get_user": Operation("Members", "getUser"),
    "devices.get_devices": Operation("Devices", "listDevices"),
    "devices.remove_device": Operation("Devices", "deleteDevice"),
    "auth_routes.login": Operation("Authentication", "signIn"),
    "auth_routes.logout": Operation("Authentication", "signOut"),
    "images.item_image": Operation("Media", "getItemImage"),
    "plugins.installed_plugins": Operation("Plugins", "listInstalledPlugins"),
    "system.system_status": Operation("System", "getSystemStatus"),
    "system.system_update": Operation("System", "getSystemUpdate"),
    "jobs.list_jobs": Operation("System", "listJobs"),
    "jobs.cancel_job": Operation("System", "cancelJob"),
    "activity_log.get_activity": Operation("System", "listActivity"),
    "watch_state.mark_played": Operation("Watch state", "markPlayed"),
    "watch_state.unmark_played": Operation("Watch state", "unmarkPlayed"),
    "watch_state.mark_favorite": Operation("Watch state", "markFavorite"),
    "watch_state.unmark_favorite": Operation("Watch state", "unmarkFavorite"),
    "watch_state.resume": Operation("Watch state", "listResumeItems"),
    "watch_state.next_up": Operation("Watch state", "listNextUp"),
    "upkeep.attention_action": Operation("Libraries", "startAttentionAction"),
    "upkeep.regenerate_covers": Operation("Libraries", "regenerateLibraryCovers"),
    "upkeep.clear_cache": Operation("System", "clearCache"),
    "people.get_person": Operation("Items", "getPerson"),
    "people.person_image": Operation("Media", "getPersonImage"),
    "people.people_details_fill": Operation("Items", "fillPeopleDetails"),
    "people.people_recheck": Operation("Items", "recheckPeople"),
    "people.people_source_refetch": Operation("Items", "refetchPeopleImages"),
    "metadata_jobs.collections_fill": Operation("Libraries", "fillCollections"),
    "metadata_jobs.nfo_sync": Operation("Libraries", "syncLibraryNfo"),
}
