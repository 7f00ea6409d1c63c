"""Library options naming plugins (rules 10-12) and the parental-controls license (rule 14)."""

from __future__ import annotations

import pytest

from reelhouse.errors import Forbidden, Invalid
from reelhouse.media.library_options import (
    CAMEL_NAMES,
    PARENTAL_CONTROLS_FEATURE,
    LibraryOptions,
    apply_update,
)

from .library_options_cases import FULL, create, rejected, update

# --- rules 10 and 11: plugin lists that must be installed ------------------

PLUGIN_LISTS = [
    ("imageSources", "fanart", "image_source_not_installed"),
    ("segmentProviders", "introdb", "segment_provider_not_installed"),
    ("recognizers", "namer", "recognizer_not_installed"),
]


@pytest.mark.parametrize(("camel", "plugin", "code"), PLUGIN_LISTS)
def test_plugin_lists_keep_installed_plugins_in_order(
    camel: str, plugin: str, code: str
) -> None:
    attr = {v: k for k, v in CAMEL_NAMES.items()}[camel]
    assert getattr(update({camel: [plugin, plugin]}).options, attr) == (plugin,)
    assert getattr(update({camel: []}, FULL).options, attr) == ()


@pytest.mark.parametrize(("camel", "plugin", "code"), PLUGIN_LISTS)
@pytest.mark.parametrize("missing", ["nope", "tvdb"])  # not installed / wrong capability
def test_plugin_lists_reject_plugins_without_the_capability(
    camel: str, plugin: str, code: str, missing: str
) -> None:
    error = rejected({camel: [plugin, missing]})
    assert error.code == code
    assert error.params == {"field": camel, "provider": missing}


def test_image_sources_accept_a_plugin_among_several_capabilities() -> None:
    assert update({"imageSources": ["tmdb", "fanart"]}).options.image_sources == (
        "tmdb",
        "fanart",
    )


def test_recognizers_may_be_disabled_but_must_be_installed() -> None:
    assert update({"recognizers": ["namer-off"]}).options.recognizers == ("namer-off",)


@pytest.mark.parametrize("camel", ["imageSources", "segmentProviders", "recognizers"])
def test_plugin_lists_must_be_arrays_of_strings(camel: str) -> None:
    error = rejected({camel: "fanart"})
    assert (error.code, error.params["field"]) == ("field_invalid", camel)


def test_background_plugins_must_be_installed() -> None:
    assert update({"backgroundPlugins": ["trailers"]}).options.background_plugins == (
        "trailers",
    )
    error = rejected({"backgroundPlugins": ["trailers", "ghost"]})
    assert (error.code, error.params["field"]) == ("field_invalid", "backgroundPlugins")


# --- rule 12: metadata providers -------------------------------------------


def test_metadata_providers_not_installed_disabled_or_of_the_wrong_kind_are_dropped() -> None:
    body = {"metadataProviders": ["ghost", "omdb", "tvdb", "tmdb", "fanart"]}
    assert update(body).options.metadata_providers == ("tmdb",)
    tv = update(body, collection_type="tvshows").options.metadata_providers
    assert tv == ("tvdb", "tmdb")


def test_empty_metadata_providers_means_no_provider() -> None:
    assert update({"metadataProviders": []}, FULL).options.metadata_providers == ()
    assert create({"metadataProviders": []}).metadata_providers == ()


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("movies", ("tmdb",)), ("tvshows", ("tmdb", "tvdb")), ("mixed", ("tmdb", "tvdb"))],
)
def test_creation_without_providers_selects_every_available_one(
    kind: str, expected: tuple[str, ...]
) -> None:
    assert create({}, collection_type=kind).metadata_providers == expected


def test_creation_without_recognizers_selects_every_enabled_one() -> None:
    assert create({}).recognizers == ("namer",)
    assert create({"recognizers": []}).recognizers == ()


def test_update_never_adds_providers_or_recognizers_installed_later() -> None:
    current = LibraryOptions(metadata_providers=(), recognizers=())
    options = update({}, current).options
    assert (options.metadata_providers, options.recognizers) == ((), ())


def test_metadata_providers_must_be_an_array_of_strings() -> None:
    error = rejected({"metadataProviders": "tmdb"})
    assert (error.code, error.params["field"]) == ("field_invalid", "metadataProviders")


# --- rule 14: unratedAge needs the parental-controls license ---------------


def test_changing_unrated_age_without_license_is_license_required() -> None:
    with pytest.raises(Forbidden) as info:
        update({"unratedAge": 18})
    assert info.value.code == "license_required"
    assert info.value.params == {"feature": PARENTAL_CONTROLS_FEATURE}
    assert info.value.message


def test_unchanged_unrated_age_is_not_checked() -> None:
    current = LibraryOptions(unrated_age=12)
    assert update({"unratedAge": 12}, current).options.unrated_age == 12


def test_license_is_asked_for_the_parental_controls_feature() -> None:
    asked: list[str] = []

    def entitled(feature: str) -> bool:
        asked.append(feature)
        return True

    apply_update(
        LibraryOptions(), {"remoteAllowedHosts": [], "unratedAge": 7}, creating=False,
        collection_type="movies", installed_plugins=(), entitled=entitled,
    )
    assert asked == [PARENTAL_CONTROLS_FEATURE]


def test_creating_with_a_non_default_unrated_age_needs_the_license() -> None:
    with pytest.raises(Forbidden):
        create({"unratedAge": 16})
    assert create({"unratedAge": 16}, licensed=True).unrated_age == 16


def test_invalid_fields_are_reported_before_the_license() -> None:
    with pytest.raises(Invalid):
        update({"unratedAge": 18, "readConcurrency": 99})
