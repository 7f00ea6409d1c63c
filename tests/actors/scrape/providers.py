"""Provider plugin directories for the scrape tests (``provider_program.py``)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

PROGRAM = Path(__file__).with_name("provider_program.py")


def make_provider(plugins_dir: Path, plugin_id: str, catalogue: Mapping[str, Any], *,
                  capabilities: Iterable[str] = ("metadata.movie", "metadata.series"),
                  concurrency: int = 2, timeout: float = 10) -> Path:
    """A provider plugin answering from ``catalogue`` (see provider_program.py)."""
    directory = plugins_dir / plugin_id
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copy(PROGRAM, directory / "main.py")
    caps = ", ".join(f'"{c}"' for c in capabilities)
    (directory / "plugin.toml").write_text(
        f'id = "{plugin_id}"\nname = "Test {plugin_id}"\nversion = "1.0.0"\nprotocol = 2\n'
        f'entry = ["python3", "main.py"]\ntimeout_seconds = {timeout}\nconcurrency = {concurrency}\n'
        f"capabilities = [{caps}]\n",
        encoding="utf-8",
    )
    set_catalogue(directory, catalogue)
    return directory


def set_catalogue(directory: Path, catalogue: Mapping[str, Any]) -> None:
    """Replace the provider's answers at once (the plugin reads them per request)."""
    temporary = directory / "catalogue.json.tmp"
    temporary.write_text(json.dumps(catalogue), encoding="utf-8")
    os.replace(temporary, directory / "catalogue.json")


def calls(directory: Path) -> list[dict[str, Any]]:
    """The requests the plugin received, in order."""
    log = directory / "calls.log"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


def movie(provider_item_id: str, name: str, year: int, **fields: Any) -> dict[str, Any]:
    """A ProviderItem for a movie, with an overview, people and a rating."""
    return {
        "providerItemId": provider_item_id, "name": name, "productionYear": year,
        "overview": f"The story of {name}.", "communityRating": 7.9, "genres": ["Drama"],
        "providerIds": {"test": provider_item_id},
        "people": [{"name": "Ann Actor", "kind": "Actor", "role": "Lead", "order": 0}],
        "ratings": [{"source": "test", "value": 7.9, "votes": 1200}],
        **fields,
    }


def candidate(provider_item_id: str, name: str, score: float, year: int | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"providerItemId": provider_item_id, "name": name, "score": score}
    if year is not None:
        entry["year"] = year
    return entry
