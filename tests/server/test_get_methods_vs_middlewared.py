"""core.get_methods of `tengig serve` against TrueNAS's real middlewared 25.10.6 (tests/realmw: built from
the vendor snapshot, tengig's plugin installed by tengig's installer): for every tengig method, the same
per-method fields, the same argument list (names, required, order), the same result entry."""
from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest

from tests.realmw.conftest import truenas_with_tengig

from .harness import open_raw, running_server

pytestmark = pytest.mark.realmw  # starts middlewared (shared with tests/realmw in the same session)


@pytest.fixture(scope="module")
def real_methods(tmp_path_factory):
    methods = truenas_with_tengig("25.10.6", tmp_path_factory).methods()
    return {name: info for name, info in methods.items() if name.startswith("tengig.")}


@pytest.fixture(scope="module")
def our_methods(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("get-methods")) as srv:
        async def get():
            async with aiohttp.ClientSession() as session:
                conn = await open_raw(srv.url, session)
                await conn.login(srv.api_key)
                return await conn.result("core.get_methods")
        return asyncio.run(get())


def _arguments(schemas: list) -> list:
    return [(a.get("_name_"), a.get("_required_"), a.get("title")) for a in schemas]


def test_every_tengig_method_has_middlewareds_fields(real_methods, our_methods):
    assert real_methods, "middlewared listed no tengig method"
    for name, real in real_methods.items():
        ours = our_methods[name]
        assert set(ours) == set(real), (name, set(ours) ^ set(real))
        for field in ("job", "no_auth_required", "filterable", "downloadable", "uploadable", "item_method"):
            assert ours[field] == real[field], (name, field, ours[field], real[field])


def test_arguments_and_results_are_listed_as_middlewared_lists_them(real_methods, our_methods):
    for name, real in real_methods.items():
        ours = our_methods[name]
        assert isinstance(ours["accepts"], list) and isinstance(ours["returns"], list)
        assert _arguments(ours["accepts"]) == _arguments(real["accepts"]), name
        assert _arguments(ours["returns"]) == _arguments(real["returns"]), name
        for mine, theirs in zip(ours["accepts"], real["accepts"]):
            # the plugin's models are middlewared BaseModels of the same fields: the same JSON types
            assert mine.get("type") == theirs.get("type") and ("anyOf" in mine) == ("anyOf" in theirs), name
    json.dumps(our_methods)  # plain JSON throughout
