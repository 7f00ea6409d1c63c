"""writeBack on both backends: NFO and images next to the media, only where nothing exists."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reelhouse.actors.scrape.apply import SeriesMatch
from reelhouse.media.nfo import parse_nfo
from reelhouse.media.provider_metadata import ProviderItem

from .conftest import POSTER, World, movie_answer


async def _movie_file(world: World, *, write_back: bool = True, folder: str = "Arrival (2016)") -> tuple[Path, str]:
    directory = world.media / folder
    directory.mkdir(exist_ok=True)
    video = directory / "Arrival (2016).mkv"
    video.write_bytes(b"not really a video")
    library = world.cat.library("Films", "movies")
    movie = world.cat.movie(library, "Arrival", path=str(video), dir_path=str(directory))
    await world.cat.flush()
    await world.library_at(library, world.media, writeBack=write_back)
    return directory, movie


async def test_write_back_writes_an_nfo_and_a_poster_when_none_exists(world: World) -> None:
    directory, movie = await _movie_file(world)
    result = await world.apply(movie, movie_answer(world.files))
    nfo, poster = directory / "Arrival (2016).nfo", directory / "Arrival (2016)-poster.jpg"
    assert result.write_back == "written" and result.write_back_warning is None
    assert set(result.write_back_files) == {str(nfo), str(poster)}
    parsed = parse_nfo(nfo.read_bytes(), "movie")
    assert (parsed.title, parsed.plot, parsed.genres) == ("Arrival", "Aliens arrive.", ("Drama", "Science Fiction"))
    assert parsed.provider_ids == {"imdb": "tt2543164", "tmdb": "329865"}
    assert poster.read_bytes() == POSTER
    assert not [p.name for p in directory.iterdir() if p.name.endswith(".tmp")]


async def test_write_back_never_touches_existing_files(world: World) -> None:
    directory, movie = await _movie_file(world)
    nfo, poster = directory / "movie.nfo", directory / "Arrival (2016)-poster.jpg"
    nfo.write_bytes(b"<movie><title>Mine</title></movie>")
    poster.write_bytes(b"my own poster bytes")
    os.utime(nfo, ns=(1_000_000_000, 1_000_000_000))
    os.utime(poster, ns=(2_000_000_000, 2_000_000_000))
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in directory.iterdir()}
    result = await world.apply(movie, movie_answer(world.files), mode="replaceAll", replace_images=True)
    after = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in directory.iterdir()}
    assert after == before  # movie.nfo stops <stem>.nfo; the poster name is taken
    assert result.write_back == "skipped" and result.write_back_warning == "conflict"


async def test_write_back_off_writes_nothing(world: World) -> None:
    directory, movie = await _movie_file(world, write_back=False)
    result = await world.apply(movie, movie_answer(world.files))
    assert result.write_back == "off" and sorted(p.name for p in directory.iterdir()) == ["Arrival (2016).mkv"]


async def test_a_folder_leading_out_of_the_library_is_a_reported_failure(world: World, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (world.media / "Linked").symlink_to(outside)
    _directory, movie = await _movie_file(world, folder="Linked")
    result = await world.apply(movie, movie_answer(world.files))
    assert result.write_back == "failed" and result.write_back_warning == "failed" and result.write_back_error
    assert list(outside.iterdir()) == [outside / "Arrival (2016).mkv"]
    assert result.applied and result.images_added == 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
async def test_a_read_only_folder_is_a_reported_failure(world: World) -> None:
    directory, movie = await _movie_file(world)
    directory.chmod(0o555)
    try:
        result = await world.apply(movie, movie_answer(world.files))
    finally:
        directory.chmod(0o755)
    assert result.write_back == "failed" and result.applied


async def test_write_back_of_a_series_writes_tvshow_and_episode_nfos(world: World) -> None:
    show = world.media / "Breaking Bad"
    season_dir = show / "Season 1"
    season_dir.mkdir(parents=True)
    video = season_dir / "Breaking Bad S01E01.mkv"
    video.write_bytes(b"x")
    library = world.cat.library("Shows", "tvshows")
    series = world.cat.series(library, "Breaking Bad", path=str(show))
    season = world.cat.season(series, 1, path=str(season_dir))
    world.cat.episode(season, 1, path=str(video), dir_path=str(season_dir))
    await world.cat.flush()
    await world.library_at(library, world.media, writeBack=True)
    match = SeriesMatch(
        ProviderItem("1396", name="Breaking Bad", overview="A teacher turns."),
        {1: (ProviderItem("s1", name="Season 1", index_number=1), [ProviderItem("e1", name="Pilot", index_number=1)])},
    )
    result = await world.apply(series, match)
    assert result.write_back == "written"
    assert parse_nfo((show / "tvshow.nfo").read_bytes(), "tvshow").plot == "A teacher turns."
    assert parse_nfo((season_dir / "season.nfo").read_bytes(), "season").season_number == 1
    episode = parse_nfo((season_dir / "Breaking Bad S01E01.nfo").read_bytes(), "episode")
    assert (episode.title, episode.season_number, episode.episode_number) == ("Pilot", 1, 1)
