"""The fake TMDB's in-memory catalogue: a few hand-written titles and a generator.

The records hold what TMDB knows once; ``tmdb_shapes`` renders them in the
v3 API's JSON shapes for one language. Texts are per language tag (``en``,
``zh-CN``, the original language): a field missing from a language's
texts is what TMDB answers for an untranslated field (an empty overview,
the original title), so a provider's fallback can be tested.

Hand-written fixtures (ids as on TMDB, data trimmed):

- 603 *The Matrix* (1999): cast, crew, images in en / zh-CN / none,
  ratings, certifications US R and CN; zh-CN lacks the tagline.
- 593 *Solaris* (1972, original Russian) and 2103 *Solaris* (2002): the
  ambiguous title; 593's zh-CN lacks the overview (fallback to Russian),
  2103 has no zh-CN text at all.
- 949 *Heat* (1995): English only.
- series 1396 *Breaking Bad*: 2 seasons of 3 episodes with stills, guest
  stars and crew; zh-CN lacks some episode names and overviews.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

Texts = dict[str, dict[str, str]]  # language tag -> {"title"/"name", "overview", "tagline"}


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    profile_path: str | None
    department: str = "Acting"
    biography: Texts = field(default_factory=dict)  # language tag -> {"biography": ...}
    birthday: str | None = None
    place_of_birth: str | None = None


@dataclass(frozen=True)
class Collection:
    """A TMDB collection (``belongs_to_collection`` of its movies)."""

    id: int
    texts: Texts  # language tag -> {"name", "overview"}
    poster_path: str | None = None
    backdrop_path: str | None = None


@dataclass(frozen=True)
class Image:
    file_path: str
    language: str | None  # iso_639_1; None: no text on it
    width: int
    height: int
    vote_average: float = 5.0


@dataclass(frozen=True)
class Credit:
    person_id: int
    character: str = ""  # cast
    job: str = ""  # crew: Director, Screenplay, Producer, Original Music Composer...
    department: str = ""


@dataclass(frozen=True)
class Movie:
    id: int
    original_title: str
    original_language: str
    release_date: str
    runtime: int
    popularity: float
    vote_average: float
    vote_count: int
    genre_ids: tuple[int, ...]
    companies: tuple[str, ...]
    imdb_id: str | None
    texts: Texts
    cast: tuple[Credit, ...] = ()
    crew: tuple[Credit, ...] = ()
    posters: tuple[Image, ...] = ()
    backdrops: tuple[Image, ...] = ()
    logos: tuple[Image, ...] = ()
    certifications: dict[str, str] = field(default_factory=dict)  # region -> certification
    collection_id: int | None = None


@dataclass(frozen=True)
class Episode:
    number: int
    air_date: str
    runtime: int
    still_path: str | None
    vote_average: float
    texts: Texts
    guest_stars: tuple[Credit, ...] = ()
    crew: tuple[Credit, ...] = ()


@dataclass(frozen=True)
class Season:
    number: int
    air_date: str
    poster_path: str | None
    texts: Texts
    episodes: tuple[Episode, ...]


@dataclass(frozen=True)
class Series:
    id: int
    original_name: str
    original_language: str
    first_air_date: str
    last_air_date: str
    episode_run_time: int
    popularity: float
    vote_average: float
    vote_count: int
    genre_ids: tuple[int, ...]
    networks: tuple[str, ...]
    imdb_id: str | None
    tvdb_id: int | None
    texts: Texts
    seasons: tuple[Season, ...]
    cast: tuple[Credit, ...] = ()
    crew: tuple[Credit, ...] = ()
    posters: tuple[Image, ...] = ()
    backdrops: tuple[Image, ...] = ()
    logos: tuple[Image, ...] = ()
    certifications: dict[str, str] = field(default_factory=dict)


@dataclass
class Catalogue:
    movies: dict[int, Movie]
    series: dict[int, Series]
    people: dict[int, Person]
    genres: dict[int, dict[str, str]]  # id -> language tag -> name
    search_index: dict[str, list[tuple[Movie | Series, str]]] = field(default_factory=dict, repr=False)  # tmdb_shapes'
    collections: dict[int, Collection] = field(default_factory=dict)

    def image_sizes(self) -> dict[str, tuple[int, int]]:
        """Every image file the fake serves, with its original size."""
        sizes: dict[str, tuple[int, int]] = {}
        for record in [*self.movies.values(), *self.series.values()]:
            for image in (*record.posters, *record.backdrops, *record.logos):
                sizes[image.file_path] = (image.width, image.height)
        for show in self.series.values():
            for season in show.seasons:
                if season.poster_path:
                    sizes[season.poster_path] = (400, 600)
                for episode in season.episodes:
                    if episode.still_path:
                        sizes[episode.still_path] = (320, 180)
        for person in self.people.values():
            if person.profile_path:
                sizes[person.profile_path] = (120, 180)
        for collection in self.collections.values():
            for path in (collection.poster_path, collection.backdrop_path):
                if path:
                    sizes[path] = (300, 450)
        return sizes


GENRES: dict[int, dict[str, str]] = {
    28: {"en": "Action", "zh-CN": "动作"},
    80: {"en": "Crime", "zh-CN": "犯罪"},
    18: {"en": "Drama", "zh-CN": "剧情"},
    878: {"en": "Science Fiction", "zh-CN": "科幻"},
    9648: {"en": "Mystery", "zh-CN": "悬疑"},
    53: {"en": "Thriller"},  # no zh-CN name: TMDB answers the English one
}

PEOPLE: dict[int, Person] = {p.id: p for p in (
    Person(6384, "Keanu Reeves", "/keanu-reeves.jpg",
           biography={"en": {"biography": "Keanu Charles Reeves is a Canadian actor."}},
           birthday="1964-09-02", place_of_birth="Beirut, Lebanon"),
    Person(2975, "Laurence Fishburne", "/laurence-fishburne.jpg"),
    Person(530, "Carrie-Anne Moss", None),
    Person(9340, "Lana Wachowski", "/lana-wachowski.jpg", "Directing"),
    Person(9339, "Lilly Wachowski", None, "Directing"),
    Person(1091, "Joel Silver", None, "Production"),
    Person(2949, "Don Davis", None, "Sound"),
    Person(8452, "Andrei Tarkovsky", "/andrei-tarkovsky.jpg", "Directing"),
    Person(27637, "Natalya Bondarchuk", None),
    Person(1900, "Donatas Banionis", None),
    Person(1884, "Steven Soderbergh", None, "Directing"),
    Person(1461, "George Clooney", "/george-clooney.jpg"),
    Person(1242, "Al Pacino", None),
    Person(380, "Robert De Niro", "/robert-de-niro.jpg"),
    Person(638, "Michael Mann", None, "Directing"),
    Person(17419, "Bryan Cranston", "/bryan-cranston.jpg"),
    Person(84497, "Aaron Paul", "/aaron-paul.jpg"),
    Person(66633, "Vince Gilligan", None, "Writing"),
    Person(1223197, "Raymond Cruz", None),
    Person(1216132, "Max Arciniega", None),
    Person(17483, "Adam Bernstein", None, "Directing"),
)}


def _matrix() -> Movie:
    return Movie(
        id=603, original_title="The Matrix", original_language="en", release_date="1999-03-30", runtime=136,
        popularity=85.2, vote_average=8.2, vote_count=24500, genre_ids=(28, 878),
        companies=("Warner Bros. Pictures", "Village Roadshow Pictures"), imdb_id="tt0133093",
        texts={
            "en": {"title": "The Matrix", "overview": "A hacker learns the world he lives in is a simulation.",
                   "tagline": "Welcome to the Real World."},
            "zh-CN": {"title": "黑客帝国", "overview": "一名黑客发现他所生活的世界是一个模拟。"},  # no tagline
        },
        cast=(Credit(6384, "Neo"), Credit(2975, "Morpheus"), Credit(530, "Trinity")),
        crew=(Credit(9340, job="Director", department="Directing"), Credit(9339, job="Director", department="Directing"),
              Credit(9340, job="Writer", department="Writing"), Credit(1091, job="Producer", department="Production"),
              Credit(2949, job="Original Music Composer", department="Sound"),
              Credit(1091, job="Catering", department="Crew")),  # a job the provider does not map
        posters=(Image("/matrix-poster-en.jpg", "en", 300, 450, 5.6), Image("/matrix-poster-zh.jpg", "zh", 300, 450, 5.2),
                 Image("/matrix-poster-plain.jpg", None, 300, 450, 4.0)),
        backdrops=(Image("/matrix-backdrop.jpg", None, 480, 270, 5.5), Image("/matrix-backdrop-en.jpg", "en", 480, 270)),
        logos=(Image("/matrix-logo.png", "en", 240, 100),),
        certifications={"US": "R", "CN": "PG-13"},
    )


def _solaris_1972() -> Movie:
    return Movie(
        id=593, original_title="Солярис", original_language="ru", release_date="1972-03-20", runtime=167,
        popularity=21.0, vote_average=7.7, vote_count=1900, genre_ids=(18, 878, 9648),
        companies=("Mosfilm",), imdb_id="tt0069293",
        texts={
            "ru": {"title": "Солярис", "overview": "Психолог Крис Кельвин отправляется на станцию над Солярисом."},
            "en": {"title": "Solaris", "overview": "A psychologist is sent to a station orbiting the planet Solaris."},
            "zh-CN": {"title": "飞向太空"},  # no overview: the fallback is the original (Russian) text
        },
        cast=(Credit(1900, "Kris Kelvin"), Credit(27637, "Hari")),
        crew=(Credit(8452, job="Director", department="Directing"),
              Credit(8452, job="Screenplay", department="Writing")),
        posters=(Image("/solaris-1972-poster.jpg", "ru", 300, 450),),
        backdrops=(Image("/solaris-1972-backdrop.jpg", None, 480, 270),),
        certifications={"US": "PG"},
    )


def _solaris_2002() -> Movie:
    return Movie(
        id=2103, original_title="Solaris", original_language="en", release_date="2002-11-27", runtime=99,
        popularity=18.5, vote_average=6.2, vote_count=2100, genre_ids=(18, 878, 9648),
        companies=("Lightstorm Entertainment",), imdb_id="tt0307479",
        texts={"en": {"title": "Solaris", "overview": "A troubled psychologist is sent to investigate a space station.",
                      "tagline": "How far will you go to see the one you love again?"}},
        cast=(Credit(1461, "Chris Kelvin"),),
        crew=(Credit(1884, job="Director", department="Directing"), Credit(1884, job="Screenplay", department="Writing")),
        posters=(Image("/solaris-2002-poster.jpg", "en", 300, 450),),
        certifications={"US": "PG-13"},
    )


def _heat() -> Movie:
    return Movie(
        id=949, original_title="Heat", original_language="en", release_date="1995-12-15", runtime=170,
        popularity=40.0, vote_average=7.9, vote_count=7000, genre_ids=(28, 80, 53),
        companies=("Regency Enterprises",), imdb_id="tt0113277",
        texts={"en": {"title": "Heat", "overview": "A group of professional bank robbers feel the heat from police.",
                      "tagline": "A Los Angeles crime saga."}},
        cast=(Credit(1242, "Lt. Vincent Hanna"), Credit(380, "Neil McCauley")),
        crew=(Credit(638, job="Director", department="Directing"), Credit(638, job="Writer", department="Writing")),
        posters=(Image("/heat-poster.jpg", "en", 300, 450),),
        backdrops=(Image("/heat-backdrop.jpg", None, 480, 270),),
        certifications={"US": "R"},
    )


def _episode(season: int, number: int, en_name: str, zh_name: str | None, guests: tuple[Credit, ...] = ()) -> Episode:
    zh: dict[str, str] = {"name": zh_name} if zh_name else {}
    if number == 1:
        zh["overview"] = f"第{season}季第{number}集。"
    return Episode(
        number=number, air_date=f"{2007 + season}-0{number}-2{season}", runtime=47 + number,
        still_path=f"/bb-s{season}e{number}.jpg", vote_average=8.0 + number / 10,
        texts={"en": {"name": en_name, "overview": f"Season {season}, episode {number}: {en_name}."}, "zh-CN": zh},
        guest_stars=guests,
        crew=(Credit(17483, job="Director", department="Directing"), Credit(66633, job="Writer", department="Writing")),
    )


def _breaking_bad() -> Series:
    first = Season(1, "2008-01-20", "/bb-season-1.jpg",
                   {"en": {"name": "Season 1", "overview": "High school chemistry teacher Walter White..."},
                    "zh-CN": {"name": "第 1 季"}},
                   (_episode(1, 1, "Pilot", "试播集", (Credit(1216132, "Krazy-8"),)),
                    _episode(1, 2, "Cat's in the Bag...", None),
                    _episode(1, 3, "...And the Bag's in the River", "袋子在河里")))
    second = Season(2, "2009-03-08", None,
                    {"en": {"name": "Season 2", "overview": "Walt must deal with the chain reaction of his choice."}},
                    (_episode(2, 1, "Seven Thirty-Seven", None, (Credit(1223197, "Tuco Salamanca"),)),
                     _episode(2, 2, "Grilled", "烧烤"),
                     _episode(2, 3, "Bit by a Dead Bee", None)))
    return Series(
        id=1396, original_name="Breaking Bad", original_language="en", first_air_date="2008-01-20",
        last_air_date="2013-09-29", episode_run_time=47, popularity=120.0, vote_average=8.9, vote_count=12000,
        genre_ids=(18, 80), networks=("AMC",), imdb_id="tt0903747", tvdb_id=81189,
        texts={"en": {"name": "Breaking Bad", "overview": "A chemistry teacher turns to manufacturing methamphetamine.",
                      "tagline": "Remember my name."},
               "zh-CN": {"name": "绝命毒师", "overview": "一位化学老师开始制毒。"}},
        seasons=(first, second),
        cast=(Credit(17419, "Walter White"), Credit(84497, "Jesse Pinkman")),
        crew=(Credit(66633, job="Executive Producer", department="Production"),),
        posters=(Image("/bb-poster-en.jpg", "en", 300, 450), Image("/bb-poster-zh.jpg", "zh", 300, 450)),
        backdrops=(Image("/bb-backdrop.jpg", None, 480, 270),),
        logos=(Image("/bb-logo.png", "en", 240, 100),),
        certifications={"US": "TV-MA", "DE": "16"},
    )


def fixture_catalogue() -> Catalogue:
    """The hand-written titles (see the module's doc)."""
    movies = [_matrix(), _solaris_1972(), _solaris_2002(), _heat()]
    show = _breaking_bad()
    return Catalogue(movies={m.id: m for m in movies}, series={show.id: show}, people=dict(PEOPLE),
                     genres=dict(GENRES))


def synthetic_title(index: int) -> tuple[str, int]:
    """The title and year of synthetic movie ``index`` (what a benchmark names its files)."""
    return f"Synthetic Feature {index:05d}", 1950 + index % 70


def synthetic_movies(count: int, *, first_id: int = 900_000) -> list[Movie]:
    """``count`` distinct movies with one poster and backdrop each, for load tests."""
    movies = []
    for index in range(count):
        title, year = synthetic_title(index)
        movie_id = first_id + index
        movies.append(Movie(
            id=movie_id, original_title=title, original_language="en", release_date=f"{year}-06-15", runtime=90,
            popularity=10.0 + index % 50, vote_average=6.5, vote_count=100 + index, genre_ids=(18,),
            companies=("Synthetic Studios",), imdb_id=f"tt{9_000_000 + index}",
            texts={"en": {"title": title, "overview": f"The synthetic feature number {index}."}},
            cast=(Credit(6384, f"Role {index}"),), crew=(Credit(638, job="Director", department="Directing"),),
            posters=(Image(f"/syn-{movie_id}-poster.jpg", "en", 200, 300),),
            backdrops=(Image(f"/syn-{movie_id}-backdrop.jpg", None, 320, 180),),
            certifications={"US": "PG"},
        ))
    return movies


def with_movies(catalogue: Catalogue, movies: list[Movie]) -> Catalogue:
    """``catalogue`` with ``movies`` added (by id)."""
    return Catalogue(movies={**catalogue.movies, **{m.id: m for m in movies}}, series=dict(catalogue.series),
                     people=dict(catalogue.people), genres=dict(catalogue.genres),
                     collections=dict(catalogue.collections))


def with_collection(catalogue: Catalogue, collection: Collection, movie_ids: list[int]) -> Catalogue:
    """``catalogue`` where the movies ``movie_ids`` belong to ``collection``."""
    movies = dict(catalogue.movies)
    for movie_id in movie_ids:
        movies[movie_id] = replace(movies[movie_id], collection_id=collection.id)
    return Catalogue(movies=movies, series=dict(catalogue.series), people=dict(catalogue.people),
                     genres=dict(catalogue.genres), collections={**catalogue.collections, collection.id: collection})
