"""Library option updates, rules 1-4: remoteAllowedHosts and kept fields, zero
as omitted, followStorage, storage and real-time monitoring."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from reelhouse.errors import Invalid
from reelhouse.media.library_options import (
    CAMEL_NAMES,
    LibraryOptions,
    apply_update,
    effective,
)

from .library_options_cases import FULL, PLUGINS, PRESET_CAMEL, create, rejected, update

# --- rule 1: remoteAllowedHosts required, other fields kept ---------------


@pytest.mark.parametrize("creating", [False, True])
@pytest.mark.parametrize("body", [{}, {"remoteAllowedHosts": None}, {"useNfo": False}])
def test_options_without_remote_allowed_hosts_are_field_required(body: dict[str, Any], creating: bool) -> None:
    with pytest.raises(Invalid) as info:
        apply_update(
            LibraryOptions(), body, creating=creating, collection_type="movies",
            installed_plugins=PLUGINS, entitled=lambda f: True,
        )
    assert info.value.code == "field_required"
    assert info.value.params["field"] == "remoteAllowedHosts"


def test_creation_without_options_takes_the_defaults() -> None:
    assert create(None).remote_allowed_hosts == ()
    assert create(None, roots_have_strm=True).storage == "cloud"
    assert create(None, realtime_monitor_flag=False).realtime_monitor is False


def test_remote_allowed_hosts_replaces_the_whole_list() -> None:
    current = LibraryOptions(remote_allowed_hosts=("a.example", "b.example"))
    outcome = update({"remoteAllowedHosts": ["c.example"]}, current)
    assert outcome.options.remote_allowed_hosts == ("c.example",)


def test_omitted_fields_keep_their_current_values() -> None:
    outcome = update({"remoteAllowedHosts": list(FULL.remote_allowed_hosts)}, FULL, licensed=True)
    assert outcome.options == FULL


def test_null_fields_count_as_omitted() -> None:
    body = {camel: None for camel in CAMEL_NAMES.values() if camel != "remoteAllowedHosts"}
    assert update(body, FULL).options == replace(FULL, remote_allowed_hosts=())


def test_unknown_keys_are_ignored() -> None:
    body = effective(FULL, global_probe_limit=4)
    body["somethingNew"] = {"nested": True}
    assert update(body, FULL, licensed=True).options == FULL


def test_every_field_is_settable() -> None:
    body = FULL.to_document()
    assert update(body, licensed=True).options == FULL


def test_body_that_is_not_an_object_is_a_bad_request() -> None:
    with pytest.raises(Invalid) as info:
        apply_update(
            None, ["x"], creating=True, collection_type="movies",  # type: ignore[arg-type]
            installed_plugins=PLUGINS, entitled=lambda f: True,
        )
    assert info.value.code == "bad_request"


def test_hosts_are_lowercased_and_deduplicated() -> None:
    outcome = update({"remoteAllowedHosts": ["CDN.Example.com", "cdn.example.com", "x:81"]})
    assert outcome.options.remote_allowed_hosts == ("cdn.example.com", "x:81")


@pytest.mark.parametrize(
    "host",
    [
        "example.com",
        "example.com:8080",
        "192.168.1.10",
        "192.168.1.10:32400",
        "media_box.lan",
        "[::1]:8096",
        "[fe80::1]",
        "2001:db8::1",
        "nas",
    ],
)
def test_valid_hosts_are_accepted(host: str) -> None:
    assert update({"remoteAllowedHosts": [host]}).options.remote_allowed_hosts == (host,)


@pytest.mark.parametrize(
    "host",
    [
        "http://example.com",
        "example.com/path",
        "example.com?x=1",
        "example.com#frag",
        "user@example.com",
        "exa mple.com",
        " example.com",
        "example.com\t",
        "",
        "example.com:",
        "example.com:0",
        "example.com:65536",
        "example.com:http",
        "-bad-.com",
        "a..b",
        "[::1",
        "[nothost]:80",
        "[::1]8080",
        "ex\\ample",
    ],
)
def test_invalid_hosts_are_host_invalid(host: str) -> None:
    error = rejected({"remoteAllowedHosts": [host]})
    assert error.code == "host_invalid"
    assert error.params["field"] == "remoteAllowedHosts"


@pytest.mark.parametrize("value", ["example.com", [1], {"a": 1}])
def test_remote_allowed_hosts_must_be_an_array_of_strings(value: object) -> None:
    error = rejected({"remoteAllowedHosts": value})
    assert (error.code, error.params["field"]) == ("field_invalid", "remoteAllowedHosts")


# --- rule 2: zero means omitted -------------------------------------------


@pytest.mark.parametrize(
    ("camel", "zero"),
    [("missingGraceHours", 0), ("massMissingThreshold", 0), ("massMissingThreshold", 0.0)],
)
def test_zero_grace_hours_and_threshold_are_treated_as_omitted(camel: str, zero: float) -> None:
    current = LibraryOptions(missing_grace_hours=12, mass_missing_threshold=0.7)
    assert update({camel: zero}, current).options == current


# --- rule 3: followStorage -------------------------------------------------


def test_follow_storage_resets_each_listed_setting_to_null() -> None:
    outcome = update({"followStorage": list(PRESET_CAMEL)}, FULL, licensed=True)
    assert outcome.options == replace(
        FULL,
        remote_allowed_hosts=(),
        read_concurrency=None,
        media_info_timing=None,
        embedded_subtitles=None,
        video_capture=None,
        subtitle_full_read_limit_bytes=None,
        intro_detection=None,
    )


def test_follow_storage_leaves_unlisted_presets_alone() -> None:
    outcome = update({"followStorage": ["readConcurrency"]}, FULL)
    assert outcome.options.read_concurrency is None
    assert outcome.options.video_capture is True


@pytest.mark.parametrize(
    ("camel", "value"),
    [
        ("readConcurrency", 2),
        ("mediaInfoTiming", "scan"),
        ("embeddedSubtitles", True),
        ("videoCapture", False),
        ("subtitleFullReadLimitBytes", 0),
        ("introDetection", True),
    ],
)
def test_value_and_follow_storage_for_one_setting_is_field_invalid(
    camel: str, value: object
) -> None:
    error = rejected({camel: value, "followStorage": [camel]})
    assert (error.code, error.params["field"]) == ("field_invalid", camel)


@pytest.mark.parametrize("value", [["storage"], ["writeBack"], "readConcurrency", [3]])
def test_follow_storage_entries_must_be_preset_fields(value: object) -> None:
    error = rejected({"followStorage": value})
    assert (error.code, error.params["field"]) == ("field_invalid", "followStorage")


# --- rule 4: storage and real-time monitoring ------------------------------


@pytest.mark.parametrize("value", ["nas", "LOCAL", "", 1, True])
def test_invalid_storage_is_field_invalid(value: object) -> None:
    error = rejected({"storage": value})
    assert (error.code, error.params["field"]) == ("field_invalid", "storage")


def test_storage_is_kept_when_omitted_and_changed_when_given() -> None:
    cloud = LibraryOptions(storage="cloud")
    assert update({}, cloud).options.storage == "cloud"
    assert update({"storage": "local"}, cloud).options.storage == "local"


def test_creating_without_storage_over_strm_roots_picks_cloud() -> None:
    assert create({}, roots_have_strm=True).storage == "cloud"
    assert create({}, roots_have_strm=False).storage == "local"


def test_explicit_storage_wins_over_strm_detection() -> None:
    assert create({"storage": "local"}, roots_have_strm=True).storage == "local"


def test_strm_roots_do_not_change_storage_on_update() -> None:
    assert update({}, roots_have_strm=True).options.storage == "local"


def test_creating_a_cloud_library_turns_monitoring_off() -> None:
    assert create({"storage": "cloud"}).realtime_monitor is False
    assert create({}, roots_have_strm=True).realtime_monitor is False


def test_creating_a_local_library_keeps_monitoring_on() -> None:
    assert create({}).realtime_monitor is True


@pytest.mark.parametrize(
    ("in_options", "flag", "expected"),
    [
        (True, None, True),
        (None, True, True),
        (None, False, False),
        (True, False, True),
        (False, True, False),
    ],
)
def test_explicit_monitoring_wins_and_options_beat_the_top_level_flag(
    in_options: bool | None, flag: bool | None, expected: bool
) -> None:
    body = {"storage": "cloud", "realtimeMonitor": in_options}
    assert create(body, realtime_monitor_flag=flag).realtime_monitor is expected


def test_top_level_monitoring_flag_must_be_a_boolean() -> None:
    with pytest.raises(Invalid) as info:
        create({}, realtime_monitor_flag="yes")
    assert info.value.params["field"] == "realtimeMonitor"


def test_switching_an_existing_library_to_cloud_keeps_monitoring() -> None:
    assert update({"storage": "cloud"}).options.realtime_monitor is True
