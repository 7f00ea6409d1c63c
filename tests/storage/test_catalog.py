"""storage.catalog: the scanner's index, batch writes, missing marks, purge, probe results (both backends)."""

from __future__ import annotations

from dataclasses import replace

import trio

from reelhouse.media.assembly import (
    FileStat,
    ImageRecord,
    ItemRecord,
    Listing,
    ScanRules,
    assemble_directory,
    external_streams,
    metadata_from_nfo,
)
from reelhouse.media.nfo import NfoData, NfoPerson, PersonKind
from reelhouse.media.probe import MediaStreamInfo, ProbeFailure, ProbeResult, StreamType
from reelhouse.storage import Store
from reelhouse.storage.catalog import (
    PendingSource,
    ProbeOutcomeRow,
    ScanErrorRow,
    count_probe_pending,
    load_local_images,
    load_scan_index,
    mark_missing,
    pending_probe_sources,
    purge_missing,
    relist_directories,
    save_probe_results,
    save_scan_dirs,
    source_id,
    write_batch,
)

LIB = "lib"
ROOT = "/m"
LIMIT_S = 20


async def library(store: Store) -> None:
    await store.execute(
        "INSERT INTO libraries (id, name, collection_type, created_at, updated_at) VALUES (?, 'L', 'movies', 0, 0)", (LIB,)
    )


def records(*names: str, rel: str = "", meta: NfoData | None = None, new: bool = True, changed: bool = True) -> list[ItemRecord]:
    listing = Listing(ROOT, rel, tuple(FileStat(n, 100, 5) for n in sorted(names)))
    out = []
    for draft in assemble_directory(listing, ScanRules(LIB, "movies")).items:
        out.append(
            ItemRecord(
                draft=draft, fingerprint="fp", is_new=new, meta=metadata_from_nfo(draft, meta) if meta else None,
                streams=external_streams(draft), container="mkv", file_changed=changed, probe=changed,
            )
        )
    return out


async def test_written_records_come_back_in_the_index(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        await library(store)
        batch = records("A (2001).mkv", "A (2001)-trailer.mkv", "A (2001).en.srt")
        image = ImageRecord(f"{ROOT}/A (2001)-poster.jpg", "primary", 0, "tag1", 2, 3, 10, 7)
        batch[0] = replace(batch[0], images=(image,))
        await write_batch(store, LIB, batch, [ScanErrorRow("/m/x.nfo", "bad")], now_ms=1000)
        await save_scan_dirs(store, LIB, [(ROOT, None, 42)], [])
        index = await load_scan_index(store, LIB)
        images = await load_local_images(store, LIB)
    movie, trailer = batch[0].draft, batch[1].draft
    assert set(index.items) == {movie.id, trailer.id}
    stored = index.items[movie.id]
    assert (stored.type, stored.path, stored.dir_path, stored.missing, stored.scan_hash) == ("Movie", movie.path, ROOT, False, "fp")
    assert (stored.file_size, stored.file_mtime) == (100, 5)
    assert index.items[trailer.id].type == "Video"
    assert images[image.path].tag == "tag1" and index.images == {}
    assert index.dirs[ROOT].mtime_ns == 42
    assert index.present_count() == 2
    streams = await store.fetch_all("SELECT codec, language, is_external FROM media_streams")
    assert [tuple(s) for s in streams] == [("subrip", "eng", 1)]
    assert await store.fetch_value("SELECT error FROM scan_errors") == "bad"
    assert await store.fetch_value("SELECT probe_pending FROM items WHERE id = ?", (movie.id,)) == 1


async def test_a_disc_stub_is_stored_as_an_item_without_a_media_source(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        await library(store)
        stub, movie = (replace(r, probe=False) if r.draft.offline else r for r in records("A (2001).disc", "B (2002).mkv"))
        assert stub.draft.offline and not movie.draft.offline
        await write_batch(store, LIB, [stub, movie], now_ms=1000)
        index = await load_scan_index(store, LIB)
        sources = await store.fetch_all("SELECT item_id FROM media_sources")
    assert set(index.items) == {stub.draft.id, movie.draft.id}
    assert [row[0] for row in sources] == [movie.draft.id]


async def test_a_rewrite_without_nfo_data_keeps_stored_metadata(store: Store) -> None:
    nfo = NfoData(kind="movie", title="Titled", plot="Plot", genres=("Drama",), people=(NfoPerson("Ann", PersonKind.ACTOR, "X", 0),))
    with trio.fail_after(LIMIT_S):
        await library(store)
        await write_batch(store, LIB, records("A (2001).mkv", meta=nfo), now_ms=1000)
        (plain,) = records("A (2001).mkv", new=False, changed=False)
        await write_batch(store, LIB, [plain], now_ms=2000)
        row = await store.fetch_one("SELECT name, overview, has_nfo, date_created, date_modified FROM items")
        values = await store.fetch_value("SELECT COUNT(*) FROM item_values")
        credits = await store.fetch_value("SELECT COUNT(*) FROM credits")
        await write_batch(store, LIB, records("A (2001).mkv", meta=NfoData(kind="movie", title="New"), new=False), now_ms=3000)
        renamed = await store.fetch_one("SELECT name, overview FROM items")
        assert await store.fetch_value("SELECT COUNT(*) FROM credits") == 0
    assert tuple(row) == ("Titled", "Plot", 1, 1000, 2000)
    assert (values, credits) == (1, 1)
    assert tuple(renamed) == ("New", None)


async def test_a_changed_file_loses_its_media_info_but_keeps_external_streams(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        await library(store)
        (record,) = records("A (2001).mkv", "A (2001).en.srt")
        await write_batch(store, LIB, [record], now_ms=1000)
        source = PendingSource(source_id(LIB, record.draft.path), record.draft.id, record.draft.path)
        assert await pending_probe_sources(store, LIB) == [source]
        result = ProbeResult("mkv", "matroska,webm", 100, 8000, 50_000_000, (MediaStreamInfo(0, StreamType.VIDEO, "h264", width=640),))
        await save_probe_results(store, [ProbeOutcomeRow(source, 1500, result=result)])
        probed = await store.fetch_one("SELECT container, bitrate, runtime_ticks, probed_at FROM media_sources")
        assert tuple(probed) == ("mkv", 8000, 50_000_000, 1500)
        assert await store.fetch_value("SELECT runtime_ticks FROM items") == 50_000_000
        assert await count_probe_pending(store, LIB) == 0
        (again,) = records("A (2001).mkv", "A (2001).en.srt", new=False)
        await write_batch(store, LIB, [again], now_ms=2000)
        reset = await store.fetch_one("SELECT bitrate, runtime_ticks, probed_at FROM media_sources")
        streams = await store.fetch_all("SELECT is_external FROM media_streams")
        assert tuple(reset) == (0, None, None)
        assert [s["is_external"] for s in streams] == [1]
        assert await count_probe_pending(store, LIB) == 1
        await save_probe_results(store, [ProbeOutcomeRow(source, 2500, failure=ProbeFailure.NOT_MEDIA)])
        failed = await store.fetch_one("SELECT probe_failure, runtime_ticks FROM media_sources")
        assert tuple(failed) == ("not_media", 0)
        assert await count_probe_pending(store, LIB) == 0


async def test_missing_items_are_marked_then_purged_with_what_hangs_below_them(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        await library(store)
        batch = records("A (2001) - cd1.mkv", "A (2001) - cd2.mkv", "B (2002).mkv", rel="x")
        await write_batch(store, LIB, batch, now_ms=1000)
        await save_scan_dirs(store, LIB, [(f"{ROOT}/x", ROOT, 5), (f"{ROOT}/y", ROOT, 6)], [f"{ROOT}/y"])
        first = batch[0].draft
        await mark_missing(store, [first.id], now_ms=5000)
        await mark_missing(store, [first.id], now_ms=9000)  # already missing: keeps its time
        row = await store.fetch_one("SELECT missing, missing_since FROM items WHERE id = ?", (first.id,))
        assert tuple(row) == (1, 5000)
        assert await store.fetch_value("SELECT missing FROM media_sources WHERE item_id = ?", (first.id,)) == 1
        assert await purge_missing(store, LIB, missing_before_ms=5000) == []
        assert await purge_missing(store, LIB, missing_before_ms=5001) == [f"{ROOT}/x"]
        left = await store.fetch_all("SELECT path FROM items")
        await relist_directories(store, LIB, [f"{ROOT}/x", f"{ROOT}/x"])
        dirs = await store.fetch_all("SELECT path, mtime_ns FROM scan_dirs")
    assert [r["path"] for r in left] == [f"{ROOT}/x/B (2002).mkv"]  # the stack's later part went with it
    assert [tuple(r) for r in dirs] == [(f"{ROOT}/x", -1)]
