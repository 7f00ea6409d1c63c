"""ScanStatusView renders the reference's ScanStatus: omitted fields absent."""

from __future__ import annotations

from reelhouse.actors.scan.status import RootView, ScanStatusView, WatchView


def test_a_library_that_never_scanned_is_idle_with_required_fields_only() -> None:
    assert ScanStatusView("lib").to_json() == {"libraryId": "lib", "state": "idle", "processed": 0, "errors": 0}


def test_a_running_scan_shows_phase_and_path_but_no_finish_time() -> None:
    view = ScanStatusView(
        "lib", state="running", processed=3, total=10, phase="walk", current_dir="/m/a",
        current_path="/m/a/x.mkv", started_at_ms=0, finished_at_ms=5,
    )
    data = view.to_json()
    assert data["phase"] == "walk" and data["currentDir"] == "/m/a" and data["total"] == 10
    assert data["startedAt"] == "1970-01-01T00:00:00.000Z"
    assert "finishedAt" not in data


def test_a_finished_scan_hides_phase_and_shows_finish_and_pause() -> None:
    view = ScanStatusView(
        "lib", state="completed", phase="write", current_path="/x", started_at_ms=0, finished_at_ms=1500,
        missing=7, mass_missing_paused=True,
    )
    data = view.to_json()
    assert "phase" not in data and "currentPath" not in data
    assert data["finishedAt"] == "1970-01-01T00:00:01.500Z"
    assert data["massMissingPaused"] is True and data["missing"] == 7


def test_roots_and_watch_are_rendered_with_their_codes() -> None:
    view = ScanStatusView("lib", roots=(RootView("/m", False, 1000, None, "not_found", "gone"),),
                          watch=WatchView("unsupported", "network_fs", "nfs"))
    data = view.to_json()
    assert data["roots"] == [{"path": "/m", "online": False, "checkedAt": "1970-01-01T00:00:01.000Z",
                              "reasonCode": "not_found", "message": "gone"}]
    assert (data["watch"], data["watchReasonCode"], data["watchMessage"]) == ("unsupported", "network_fs", "nfs")
