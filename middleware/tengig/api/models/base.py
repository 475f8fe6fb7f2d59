"""The two bases every API model derives from (the same settings as middlewared's BaseModel)."""
from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

# The largest integer SQLite stores: a bigger id or offset can name no row, and would otherwise reach
# the database as an OverflowError instead of a validation error with its field path.
SQLITE_INT_MAX = 2**63 - 1
RowId = Annotated[int, Field(ge=1, le=SQLITE_INT_MAX)]


def default_of(model: type[BaseModel], field: str) -> Any:
    """A field's default, for another face of the same option (a CLI flag) that must not write it again."""
    return model.model_fields[field].get_default(call_default_factory=True)


class ApiInput(BaseModel):
    """Method arguments and everything nested in them: unknown keys and type coercion are refused,
    strings are capped like middlewared's (1024 characters)."""

    model_config = ConfigDict(extra="forbid", strict=True, str_max_length=1024)


class ApiOutput(BaseModel):
    """Results. Built from tengig's own models (RunRecord, Target, ...): keys the API does not
    publish are dropped, and tests check that the API and the source models keep the same fields."""

    model_config = ConfigDict(extra="ignore")
