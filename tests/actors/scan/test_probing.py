"""Media info: probe workers on real small videos per mediaInfoTiming; failures
that hang or crash a worker; the remote-target rule."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
import trio

from reelhouse.actors.scan import ScanDeps, probe_pending_sources
from reelhouse.media.library_options import LibraryOptions
from reelhouse.media.remote_targets import remote_target_allowed
from reelhouse.storage.confined_files import confinement_for

from .conftest import LIBRARY_ID, Library, Tree
from .probe_workers import mp4_head, probe_worker_pids, worker_command

FFMPEG_LIMIT_S = 60
pytestmark = pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not installed")


@pytest.fixture(scope="session")
def sample_video(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """One second of 640x360 H.264 with German AAC audio and an English subtitle track."""
    folder = tmp_path_factory.mktemp("video")
    subtitles = folder / "s.srt"
    subtitles.write_text("1\n00:00:00,000 --> 00:00:00,800\nHallo\n")
    out = folder / "out.mkv"
    subprocess.run(
        [
            "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=640x360:rate=10",
            "-f", "lavfi", "-i", "sine", "-i", str(subtitles), "-t", "1",
            "-map", "0:v", "-map", "1:a", "-map", "2:s", "-c:v", "libx264", "-preset", "ultrafast",
            "-c:a", "aac", "-c:s", "srt", "-metadata:s:a:0", "language=ger", "-metadata:s:s:0", "language=eng",
            str(out),
        ],
        check=True,
        timeout=FFMPEG_LIMIT_S,
    )  # fmt: skip
    return out.read_bytes()


def timing(value: str) -> LibraryOptions:
    return LibraryOptions(media_info_timing=value)  # type: ignore[arg-type]


async def sources(library: Library) -> dict[str, dict]:
    rows = await library.store.fetch_all(
        "SELECT s.*, i.probe_pending, i.runtime_ticks AS item_runtime FROM media_sources s JOIN items i ON i.id = s.item_id"
    )
    return {Path(row["path"]).name: dict(row) for row in rows}


async def test_scan_timing_probes_new_files_during_the_scan(tree: Tree, library: Library, sample_video: bytes) -> None:
    tree.add("A (2001)/A (2001).mkv", sample_video)
    tree.add("B (2002).mkv", b"this is not a video at all")
    tree.add("C (2003).strm", "https://example.com/c.mkv")
    outcome = await library.scan(options=timing("scan"))
    assert outcome.probe_pending == 0
    found = await sources(library)
    good = found["A (2001).mkv"]
    assert (good["container"], good["probe_failure"], good["probe_pending"]) == ("mkv", None, 0)
    assert good["runtime_ticks"] == pytest.approx(10_000_000, rel=0.2)
    assert good["item_runtime"] == good["runtime_ticks"] and good["bitrate"] > 0 and good["probed_at"] > 0
    streams = await library.store.fetch_all(
        "SELECT idx, type, codec, width, height, language, channels, sample_rate FROM media_streams"
        " WHERE source_id = ? AND is_external = 0 ORDER BY idx",
        (good["id"],),
    )
    assert [(s["type"], s["codec"]) for s in streams] == [("Video", "h264"), ("Audio", "aac"), ("Subtitle", "subrip")]
    assert (streams[0]["width"], streams[0]["height"]) == (640, 360)
    assert (streams[1]["language"], streams[2]["language"]) == ("ger", "eng")
    assert streams[1]["channels"] >= 1 and streams[1]["sample_rate"] > 0
    hdr = await library.store.fetch_value("SELECT hdr_format FROM media_streams WHERE source_id = ? AND idx = 0", (good["id"],))
    assert hdr == "sdr"
    bad = found["B (2002).mkv"]
    assert (bad["probe_failure"], bad["probe_pending"], bad["runtime_ticks"]) == ("not_media", 0, 0)
    remote = found["c.mkv"]  # keyed by the URL it points to
    assert (remote["probed_at"], remote["probe_failure"], remote["container"]) == (None, None, "strm")


async def test_background_timing_leaves_files_pending_for_the_media_info_job(tree: Tree, library: Library, sample_video: bytes) -> None:
    tree.add("A (2001).mkv", sample_video)
    tree.add("B (2002).mkv", sample_video)
    outcome = await library.scan(options=timing("background"))
    assert outcome.probe_pending == 2
    assert all(s["probed_at"] is None and s["probe_pending"] == 1 for s in (await sources(library)).values())
    seen: list[tuple[int, int]] = []
    with trio.fail_after(30):
        count = await probe_pending_sources(
            library.store, LIBRARY_ID, library.deps, read_concurrency=2, on_progress=lambda d, t: seen.append((d, t))
        )
    assert count == 2 and seen[-1] == (2, 2)
    assert all(s["probed_at"] and s["probe_pending"] == 0 and s["container"] == "mkv" for s in (await sources(library)).values())
    assert (await library.scan(options=timing("background"))).probe_pending == 0


async def test_playback_timing_neither_probes_nor_marks_pending(tree: Tree, library: Library, sample_video: bytes) -> None:
    tree.add("A (2001).mkv", sample_video)
    outcome = await library.scan(options=timing("playback"))
    (source,) = (await sources(library)).values()
    assert outcome.probe_pending == 0
    assert (source["probed_at"], source["probe_pending"], source["container"]) == (None, 0, "mkv")


async def test_a_changed_file_is_probed_again(tree: Tree, library: Library, sample_video: bytes) -> None:
    video = tree.add("A (2001).mkv", b"garbage")
    await library.scan(options=timing("scan"))
    assert (await sources(library))["A (2001).mkv"]["probe_failure"] == "not_media"
    video.write_bytes(sample_video)
    await library.scan(options=timing("scan"))
    source = (await sources(library))["A (2001).mkv"]
    assert (source["probe_failure"], source["container"]) == (None, "mkv")


async def test_a_probe_that_overruns_its_timeout_is_a_timeout_failure_and_the_scan_goes_on(
    tree: Tree, library: Library, sample_video: bytes
) -> None:
    tree.add("A (2001).mkv", sample_video)
    tree.add("Hang (2002).mkv", sample_video)
    tree.add("C (2003).mkv", sample_video)
    library.deps = ScanDeps(trio.CapacityLimiter(1), probe_command=worker_command(hang_on="Hang"), probe_timeout=0.5)
    await library.scan(options=timing("scan"))
    found = await sources(library)
    assert (found["Hang (2002).mkv"]["probe_failure"], found["Hang (2002).mkv"]["probe_pending"]) == ("timeout", 0)
    assert found["A (2001).mkv"]["container"] == found["C (2003).mkv"]["container"] == "mkv"
    assert found["A (2001).mkv"]["probe_failure"] is None and found["C (2003).mkv"]["probe_failure"] is None
    assert probe_worker_pids() == []


async def test_a_file_that_crashes_its_worker_is_invalid_and_the_scan_goes_on(
    tree: Tree, library: Library, sample_video: bytes
) -> None:
    for name in ("A (2001).mkv", "Crash (2002).mkv", "C (2003).mkv", "Crash (2004).mkv", "E (2005).mkv"):
        tree.add(name, sample_video)
    library.deps = ScanDeps(trio.CapacityLimiter(2), probe_command=worker_command(abort_on="Crash"))
    outcome = await library.scan(options=timing("scan"))
    found = await sources(library)
    assert outcome.probe_pending == 0
    assert {name: row["probe_failure"] for name, row in found.items()} == {
        "A (2001).mkv": None, "Crash (2002).mkv": "invalid", "C (2003).mkv": None,
        "Crash (2004).mkv": "invalid", "E (2005).mkv": None,
    }  # fmt: skip
    assert probe_worker_pids() == []


async def test_truncated_random_and_empty_files_get_their_failure_and_the_rest_is_probed(
    tree: Tree, library: Library, sample_video: bytes
) -> None:
    tree.add("A (2001).mkv", sample_video)
    tree.add("Cut (2002).mp4", mp4_head())
    tree.add("Noise (2003).mkv", random.Random(3).randbytes(50_000))
    tree.add("Empty (2004).mkv", b"")
    await library.scan(options=timing("scan"))
    found = {name: row["probe_failure"] for name, row in (await sources(library)).items()}
    assert found == {
        "A (2001).mkv": None, "Cut (2002).mp4": "invalid", "Noise (2003).mkv": "not_media", "Empty (2004).mkv": "not_media",
    }  # fmt: skip


async def test_a_worker_that_cannot_start_is_an_unknown_failure(tree: Tree, library: Library, tmp_path: Path) -> None:
    tree.add("A (2001).mkv")
    library.deps = replace(library.deps, probe_command=(os.fspath(tmp_path / "no-such-worker"),))
    await library.scan(options=timing("scan"))
    assert (await sources(library))["A (2001).mkv"]["probe_failure"] == "unknown"


@pytest.mark.parametrize(
    ("url", "ips", "allowed", "expected"),
    [
        ("https://media.example.com/v.mkv", ["93.184.216.34"], [], True),
        ("http://media.example.com:8096/v", ["2606:2800:220:1::1"], [], True),
        ("http://localhost/v", ["127.0.0.1"], [], False),
        ("http://127.0.0.1/v", [], [], False),
        ("http://[::1]:8080/v", [], [], False),
        ("http://metadata/v", ["169.254.169.254"], [], False),
        ("http://h/v", ["fe80::1"], [], False),
        ("http://h/v", ["0.0.0.0"], [], False),
        ("http://h/v", ["::ffff:127.0.0.1"], [], False),
        ("http://h/v", ["224.0.0.251"], [], False),  # multicast: the rule provider images share
        ("http://h/v", ["240.0.0.1"], [], False),  # reserved
        ("http://h/v", ["93.184.216.34", "127.0.0.1"], [], False),  # any bad address refuses
        ("http://h/v", [], [], False),  # nothing resolved
        ("http://h/v", ["not-an-ip"], [], False),
        ("ftp://h/v", ["93.184.216.34"], [], False),
        ("file:///etc/passwd", [], [], False),
        ("http:///nohost", [], [], False),
        # a non-empty list allows only its hosts, and exempts them from the address rules
        ("http://localhost:8096/v", ["127.0.0.1"], ["localhost:8096"], True),
        ("http://LOCALHOST:8096/v", ["127.0.0.1"], ["localhost"], True),
        ("http://localhost:9000/v", ["127.0.0.1"], ["localhost:8096"], False),
        ("https://media.example.com/v", ["93.184.216.34"], ["other.example.com"], False),
        ("https://media.example.com/v", ["93.184.216.34"], ["media.example.com:443"], True),
        ("http://[::1]:8096/v", [], ["[::1]:8096"], True),
        ("http://[::1]:8096/v", [], ["[::1"], False),
        ("http://media.example.com./v", ["93.184.216.34"], ["media.example.com"], True),
    ],
)
def test_remote_target_allowed(url: str, ips: list[str], allowed: list[str], expected: bool) -> None:
    assert remote_target_allowed(url, ips, allowed) is expected


async def test_a_file_swapped_for_a_link_out_before_its_probe_is_not_probed(
    tree: Tree, library: Library, sample_video: bytes, tmp_path: Path
) -> None:
    """The background job probes what the scan left: a link out by then is refused, not read."""
    private = tmp_path / "private.mkv"
    private.write_bytes(sample_video)
    video = tree.add("A (2001).mkv", sample_video)
    await library.scan(options=timing("background"))
    video.unlink()
    video.symlink_to(private)
    with trio.fail_after(30):
        count = await probe_pending_sources(
            library.store, LIBRARY_ID, library.deps, read_concurrency=1, within=confinement_for([tree.path()], None)
        )
    source = (await sources(library))["A (2001).mkv"]
    assert count == 1 and (source["probe_failure"], source["container"]) == ("permission_denied", "mkv")
    assert source["runtime_ticks"] in (None, 0)
async def test_the_probe_phase_reports_progress_file_by_file(
        tree: Tree, library: Library, sample_video: bytes, tmp_path: Path) -> None:
    """Regression (issue 12, item 20): ``processed`` stayed at the directory count for the whole probe phase."""
    names = [f"Film {chr(65 + i)} ({2000 + i}).mkv" for i in range(20)]
    for name in names:
        tree.add(name, sample_video)
    tree.add("Zz Hang (2030).mkv", sample_video)  # probed last (by path), and hangs until released
    release = tmp_path / "release"
    # The hang ends when the test has read the progress (not at a probe timeout it would wait out).
    library.deps = ScanDeps(trio.CapacityLimiter(1), probe_command=worker_command(hang_on="Hang", release=release),
                            probe_timeout=60)
    outcome = None

    async def scan() -> None:
        nonlocal outcome
        outcome = await library.scan(options=timing("scan"))

    with trio.fail_after(30):  # the 20 probes, then the released one: a scan stuck past this fails here
        async with trio.open_nursery() as nursery:
            nursery.start_soon(scan)
            with trio.fail_after(15):
                while library.progress.phase != "write" or library.progress.processed < 1 + len(names):
                    await trio.sleep(0.02)
            during = (library.progress.processed, library.progress.total)
            release.touch()
    assert during == (1 + len(names), 1 + len(names) + 1)  # one directory, 20 files probed, one hanging
    assert outcome is not None and outcome.processed == library.progress.total == 1 + len(names) + 1
