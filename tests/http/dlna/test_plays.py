"""A renderer's plays: ffprobe plays a resource with a seek, and the renderer's requests make one
playback session of the DLNA member on a device of its address and user agent (both backends)."""

from __future__ import annotations

import httpx
import trio

from ...tls import shared_tls_context
from .served import CONTACT_SECONDS, Served
from .test_content_directory import DIDL, browse

FFPROBE_TIMEOUT_S = 60.0
SEEK_TO_S = 5


async def contact_url(served: Served) -> tuple[str, int]:
    films, _ = await browse(served, f"lib.{served.libraries['Films']}.title")
    res = films[2].find(f"{DIDL}res")
    assert res is not None and res.text
    return res.text, int(res.get("size") or 0)


async def sessions(served: Served) -> list[dict[str, object]]:
    async with served.server.client() as client:
        found: list[dict[str, object]] = (await client.get("/admin/playback/sessions")).json()
        return found


async def test_ffprobe_plays_the_resource_from_a_seek_point(served: Served) -> None:
    url, _ = await contact_url(served)
    command = ["ffprobe", "-v", "error", "-read_intervals", f"{SEEK_TO_S}%+#1", "-select_streams", "v",
               "-show_entries", "frame=pts_time", "-of", "csv=p=0", url]  # fmt: skip
    with trio.fail_after(FFPROBE_TIMEOUT_S):
        done = await trio.run_process(command, capture_stdout=True, capture_stderr=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    first_frame = float(done.stdout.decode().split()[0].strip(","))
    assert SEEK_TO_S - 1 <= first_frame < CONTACT_SECONDS


async def test_a_renderers_requests_are_one_playback_session_of_the_dlna_member(served: Served) -> None:
    url, size = await contact_url(served)
    tv = {"User-Agent": "SEC_HHP_[TV] Living Room/1.0 DLNADOC/1.50"}
    async with httpx.AsyncClient(verify=shared_tls_context(), timeout=15.0) as client:
        assert (await client.head(url, headers=tv)).status_code == 200
        assert await sessions(served) == []  # HEAD counts nothing
        assert (await client.get(url, headers={**tv, "Range": "bytes=0-1023"})).status_code == 206
        assert (await client.get(url, headers={**tv, "Range": f"bytes={size // 2}-"})).status_code == 206
        live = await sessions(served)
        assert len(live) == 1
        session = live[0]
        assert (session["member"], session["device"], session["player"]) == ("Ann", tv["User-Agent"], "DLNA")
        assert 0 < float(str(session["positionSec"])) < CONTACT_SECONDS  # the offset asked for, in time
        assert (await client.get(url, headers={"User-Agent": "VLC/3.0", "Range": "bytes=0-99"})).status_code == 206
    devices = sorted(str(s["device"]) for s in await sessions(served))
    assert devices == sorted([tv["User-Agent"], "VLC/3.0"])
