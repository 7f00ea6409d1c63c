"""Database URLs: which backend, which file or DSN, which schema."""

from __future__ import annotations

import pytest

from reelhouse.storage import parse_database_url


def test_a_sqlite_url_names_an_absolute_file() -> None:
    target = parse_database_url("sqlite:///var/lib/reelhouse/reelhouse.db")
    assert (target.backend, target.location, target.schema) == ("sqlite", "/var/lib/reelhouse/reelhouse.db", None)


def test_a_sqlite_url_with_an_absolute_path_after_its_three_slashes_names_that_path() -> None:
    assert parse_database_url("sqlite:////srv/reelhouse/reelhouse.db").location == "/srv/reelhouse/reelhouse.db"


def test_a_plain_path_is_a_sqlite_file() -> None:
    assert parse_database_url("data/reelhouse.db").location == "data/reelhouse.db"


def test_a_postgres_url_keeps_its_dsn_and_takes_out_the_schema() -> None:
    target = parse_database_url("postgresql://root@127.0.0.1:5432/test?schema=t_1&sslmode=disable")
    assert target.backend == "postgresql"
    assert target.location == "postgresql://root@127.0.0.1:5432/test?sslmode=disable"
    assert target.schema == "t_1"


def test_a_postgres_url_without_a_host_keeps_its_double_slash() -> None:
    target = parse_database_url("postgresql:///reelhouse?host=/var/run/postgresql&schema=t_1")
    assert target.location == "postgresql:///reelhouse?host=/var/run/postgresql"
    assert target.schema == "t_1"


def test_the_schema_may_be_given_as_an_argument() -> None:
    target = parse_database_url("postgres://db/reelhouse", schema="tenant_a")
    assert (target.location, target.schema) == ("postgresql://db/reelhouse", "tenant_a")


@pytest.mark.parametrize(
    ("url", "schema"),
    [
        ("mysql://db/x", None),
        ("sqlite://host/file.db", None),
        (":memory:", None),
        ("postgresql://db/x?schema=Bad-Name", None),
        ("postgresql://db/x?schema=a", "b"),
        ("sqlite:///tmp/x.db", "a"),
    ],
)
def test_unsupported_or_malformed_urls_raise_value_error(url: str, schema: str | None) -> None:
    with pytest.raises(ValueError):
        parse_database_url(url, schema)


def test_a_postgres_url_sizes_its_connections_and_keeps_the_sizes_out_of_the_dsn() -> None:
    target = parse_database_url("postgresql://root@127.0.0.1:5432/test?schema=t_1&writers=3&readers=2&sslmode=disable")
    assert (target.location, target.schema) == ("postgresql://root@127.0.0.1:5432/test?sslmode=disable", "t_1")
    assert (target.writers, target.readers) == (3, 2)
    assert parse_database_url("postgresql://db/x").writers is None


@pytest.mark.parametrize("query", ["writers=0", "readers=101", "writers=two", "readers=1&readers=2"])
def test_a_connection_count_out_of_range_or_given_twice_is_refused(query: str) -> None:
    with pytest.raises(ValueError, match="number of connections"):
        parse_database_url(f"postgresql://db/x?{query}")
