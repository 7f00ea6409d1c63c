"""plugin.toml: what is accepted and what is refused, by key."""

from __future__ import annotations

import pytest

from reelhouse.media.plugin_manifest import ManifestError, parse_manifest

MINIMAL = 'id = "demo"\nname = "Demo"\nversion = "1.0"\nprotocol = 2\nentry = "run.sh"\n'


def test_a_minimal_manifest_takes_the_defaults() -> None:
    manifest = parse_manifest(MINIMAL)
    assert (manifest.id, manifest.entry, manifest.concurrency, manifest.capabilities) == ("demo", ("run.sh",), 1, ())
    assert manifest.names == {"en": "Demo"} and manifest.description is None


def test_every_key_is_read() -> None:
    manifest = parse_manifest(MINIMAL + '''
description = "Does it"
author = "Me"
homepage = "https://example.org"
capabilities = ["metadata.movie", "recognizer"]
permissions = ["network.lan"]
features = ["b", "a"]
paid = true
concurrency = 4
timeout_seconds = 2.5
idle_seconds = 60
[names]
fr = "Démo"
[descriptions]
fr = "Le fait"
[[settings]]
key = "apiKey"
required = true
secret = true
[[settings]]
key = "baseUrl"
default = "https://api"
[[tasks]]
name = "sync"
names = { en = "Sync" }
''')
    assert manifest.features == ("a", "b") and manifest.paid and manifest.concurrency == 4
    assert manifest.descriptions == {"en": "Does it", "fr": "Le fait"}
    assert manifest.missing_required({}) == ["apiKey"]
    assert manifest.missing_required({"apiKey": "k"}) == []
    assert manifest.effective_settings({"apiKey": "k"}) == {"apiKey": "k", "baseUrl": "https://api"}
    assert manifest.secret_keys == {"apiKey"}
    assert manifest.tasks[0].names == {"en": "Sync"}


@pytest.mark.parametrize(("text", "key"), [
    ("id = ", "TOML"),
    (MINIMAL.replace('"demo"', '"Bad Id"'), "id"),
    (MINIMAL.replace('protocol = 2', 'protocol = "2"'), "protocol"),
    (MINIMAL.replace('entry = "run.sh"', 'entry = []'), "entry"),
    (MINIMAL + 'capabilities = ["teleport"]', "capabilities"),
    (MINIMAL + 'permissions = ["root"]', "permissions"),
    (MINIMAL + 'concurrency = 0', "concurrency"),
    (MINIMAL + 'homepage = "http://x"', "homepage"),
    (MINIMAL + '[[settings]]\nkey = "a"\n[[settings]]\nkey = "a"', "settings"),
    (MINIMAL + '[[tasks]]\nname = "t"\nnames = { fr = "x" }', "tasks"),
])
def test_an_invalid_manifest_names_the_key(text: str, key: str) -> None:
    with pytest.raises(ManifestError, match=key):
        parse_manifest(text)
