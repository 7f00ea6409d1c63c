"""A list's BaseItemDto built straight from a summary is the one built from its native JSON (both backends)."""

from __future__ import annotations

import trio

from reelhouse.http.jellyfin.dto_items import item_dto, summary_dto, user_data_dto
from reelhouse.http.jellyfin.image_tags import TagSigner
from reelhouse.storage import Store
from reelhouse.storage.cursor import CursorCodec
from reelhouse.storage.item_query import list_items, parse_item_query
from tests.storage.item_samples import sample_catalog

LIMIT_S = 20
SERVER = "0123456789abcdef0123456789abcdef"
TAGS = TagSigner(b"summary-dto-tests-key")


async def test_a_summary_renders_as_its_native_json_renders(store: Store) -> None:
    with trio.fail_after(LIMIT_S):  # a small catalogue written and read once
        samples = await sample_catalog(store)
        query = parse_item_query({"recursive": ["true"], "limit": ["200"]})
        page = await list_items(store, query, CursorCodec(b"summary-dto-tests"), with_names=True)
    assert {item.type for item in page.items} >= {"Movie", "Series", "Season", "Episode"}
    names = {**page.names, samples["Dark"]: ""}  # an empty name is still a name
    for n, item in enumerate(page.items):
        user_data = user_data_dto(item.id, played=n % 2 == 0) if n % 3 else None
        expected = item_dto(item.to_json(), SERVER, user_data, names if n % 4 else None, tags=TAGS)
        built = summary_dto(item, SERVER, user_data, names if n % 4 else None, tags=TAGS)
        assert built == expected and list(built) == list(expected), item.name
