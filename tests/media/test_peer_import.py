"""Reading another server's answers, matching its items to ours, and planning an import (pure)."""

from __future__ import annotations

from reelhouse.media.peer_import import (
    ItemMatcher,
    OurItem,
    OurWatch,
    PeerItem,
    PeerUserData,
    parse_item,
    plan_ids,
    plan_watch,
)


def _ours(item_id: str, path: str | None, kind: str = "Movie", **fields: object) -> OurItem:
    return OurItem(item_id, kind, item_id, path, **fields)  # type: ignore[arg-type]


def _theirs(path: str | None, kind: str = "Movie", **ids: str) -> PeerItem:
    return PeerItem("x", "x", kind, path, ids)


def test_a_base_item_dto_is_read_with_its_user_data_and_the_media_source_s_path() -> None:
    dto = {"Id": "abc", "Name": "Heat", "Type": "Movie", "ProviderIds": {"Tmdb": "949", "Imdb": ""},
           "MediaSources": [{"Path": "D:\\Films\\Heat (1995)\\Heat (1995).mkv"}],
           "UserData": {"Played": True, "PlayCount": 3, "PlaybackPositionTicks": 12_000_0000, "IsFavorite": True,
                        "LastPlayedDate": "2026-11-01T20:00:00.0000000Z"}}
    item = parse_item(dto)
    assert item is not None and item.provider_ids == {"tmdb": "949"}
    assert item.path == "D:/Films/Heat (1995)/Heat (1995).mkv"
    assert item.user_data == PeerUserData(True, 3, 12_000, True, 1_793_563_200_000)
    assert parse_item({"Id": "b", "Type": "MusicAlbum"}) is None
    remote = parse_item({"Id": "c", "Type": "Movie", "Path": "https://user:secret@host/film.mkv"})
    assert remote is not None and remote.path is None


def test_a_provider_id_wins_over_a_path_and_a_path_over_the_folder_and_file() -> None:
    matcher = ItemMatcher([
        _ours("a", "/media/films/Heat (1995)/Heat (1995).mkv"),
        _ours("b", "/media/films/Ronin (1998)/Ronin (1998).mkv", provider_ids={"tmdb": "8195"}),
        _ours("c", "/srv/Heat (1995)/Heat (1995).mkv", kind="Episode"),
    ])
    assert matcher.match(_theirs("/elsewhere/x.mkv", tmdb="8195")).id == "b"  # type: ignore[union-attr]
    assert matcher.match(_theirs("/media/films/Heat (1995)/Heat (1995).mkv")).id == "a"  # type: ignore[union-attr]
    assert matcher.match(_theirs("/mnt/nas/Heat (1995)/Heat (1995).mkv")).id == "a"  # type: ignore[union-attr]
    assert matcher.match(_theirs("/mnt/nas/Other/Heat (1995).mkv")) is None
    assert matcher.match(_theirs(None, tmdb="1")) is None


def test_a_folder_and_file_found_twice_matches_nothing() -> None:
    matcher = ItemMatcher([_ours("a", "/one/Heat/Heat.mkv"), _ours("b", "/two/Heat/Heat.mkv")])
    assert matcher.match(_theirs("/three/Heat/Heat.mkv")) is None


def test_their_play_is_taken_only_when_later_than_ours_or_ours_is_untouched() -> None:
    movie = _ours("a", None)
    later = PeerUserData(played=True, play_count=2, last_played_ms=2_000)
    change = plan_watch(movie, OurWatch(), later)
    assert change is not None and change.take_watch and change.played and change.play_count == 2
    assert plan_watch(movie, OurWatch(played=True, play_count=5, last_played_ms=3_000), later) is None
    newer = plan_watch(movie, OurWatch(played=True, play_count=5, last_played_ms=1_000), later)
    assert newer is not None and newer.play_count == 5  # a count only grows
    undated = PeerUserData(played=True)
    assert plan_watch(movie, OurWatch(position_ms=10, last_played_ms=1_000), undated) is None


def test_a_favourite_is_only_added_and_a_series_takes_nothing_but_it() -> None:
    series = _ours("s", None, kind="Series")
    change = plan_watch(series, OurWatch(), PeerUserData(played=True, favorite=True, last_played_ms=5))
    assert change is not None and change.add_favorite and not change.take_watch
    assert plan_watch(_ours("a", None), OurWatch(favorite=True), PeerUserData(favorite=False)) is None


def test_provider_ids_go_only_to_unmatched_unlocked_works_and_only_those_missing() -> None:
    theirs = _theirs(None, tmdb="949", imdb="tt0113277")
    assert plan_ids(_ours("a", None, scrape_state="needsIdentify", provider_ids={"imdb": "tt1"}), theirs) == {
        "tmdb": "949"}
    assert plan_ids(_ours("a", None, scrape_state="scraped"), theirs) is None
    assert plan_ids(_ours("a", None, scrape_state="failed", locked=True), theirs) is None
    assert plan_ids(_ours("e", None, kind="Episode"), theirs) is None
