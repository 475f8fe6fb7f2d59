"""tengig.results: thin, over tengig.results.ResultStore ($TENGIG_DB)."""
from __future__ import annotations

from functools import cached_property
from typing import Any

from ...results import ResultStore
from ..decorators import api_method
from ..exceptions import ValidationErrors, api_errors
from ..models.results import (
    TenGigResultsCompareArgs, TenGigResultsCompareResult, TenGigResultsDeleteArgs, TenGigResultsDeleteResult,
    TenGigResultsExportArgs, TenGigResultsExportResult,
    TenGigResultsGetArgs, TenGigResultsGetResult, TenGigResultsQueryArgs, TenGigResultsQueryResult,
)
from ..service import Service


class TenGigResultsService(Service):
    """The history of benchmark runs."""

    class Config:
        namespace = "tengig.results"
        cli_namespace = "tengig.results"

    @cached_property
    def _store(self) -> ResultStore:
        with api_errors():
            return ResultStore()

    @api_method(TenGigResultsQueryArgs, TenGigResultsQueryResult, roles=["READONLY_ADMIN"])
    def query(self, options: dict[str, Any]) -> list[Any]:
        """Stored runs, newest first, optionally of one kind and/or status."""
        with api_errors(prefix="options"):
            return self._store.query(**options)

    @api_method(TenGigResultsGetArgs, TenGigResultsGetResult, roles=["READONLY_ADMIN"])
    def get(self, id: int) -> Any:
        """One run with every raw tool output (ENOENT if there is none)."""
        with api_errors():
            return self._store.get(id)

    @api_method(TenGigResultsCompareArgs, TenGigResultsCompareResult, roles=["READONLY_ADMIN"])
    def compare(self, a: int, b: int) -> dict[str, Any]:
        """Run b against run a: every metric in both with its delta, and what differs around them."""
        with api_errors():
            return self._store.compare(a, b)

    @api_method(TenGigResultsExportArgs, TenGigResultsExportResult, roles=["READONLY_ADMIN"])
    def export(self, format: str, ids: list[int] | None) -> str:
        """Runs as one JSON document (with raw outputs), as CSV (one row per run and metric), or one run as a
        Markdown report; secrets redacted."""
        if format == "md":
            if not ids or len(ids) != 1:
                got = "none" if not ids else f"{len(ids)} ({', '.join(map(str, ids))})"
                raise ValidationErrors.one("ids", f"format md is one run's report: give exactly one run id, got {got}")
            with api_errors():
                return self._store.export_markdown(ids[0])
        with api_errors():
            return self._store.export_json(ids) if format == "json" else self._store.export_csv(ids)

    @api_method(TenGigResultsDeleteArgs, TenGigResultsDeleteResult, roles=["FULL_ADMIN"])
    def delete(self, id: int) -> bool:
        """Remove a run and its raw tool outputs (ENOENT if there is none, EBUSY while it runs)."""
        with api_errors():
            self._store.delete(id)
        return True


SERVICE = TenGigResultsService
