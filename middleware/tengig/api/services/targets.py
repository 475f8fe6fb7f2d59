"""tengig.targets: the built-in catalogue (tengig.verdict.targets) plus the user's own (in the results DB)."""
from __future__ import annotations

from functools import cached_property
from typing import Any

from ...results import ResultStore
from ...verdict.models import Target
from ...verdict.targets import builtin_targets, validate_user_target
from ..decorators import api_method
from ..exceptions import ValidationErrors, api_errors
from ..models.targets import (
    TenGigTargetsCreateArgs, TenGigTargetsCreateResult, TenGigTargetsDeleteArgs, TenGigTargetsDeleteResult,
    TenGigTargetsQueryArgs, TenGigTargetsQueryResult,
)
from ..service import Service


class TenGigTargetsService(Service):
    """Reference disks to beat."""

    class Config:
        namespace = "tengig.targets"
        cli_namespace = "tengig.targets"

    @cached_property
    def _store(self) -> ResultStore:
        with api_errors():
            return ResultStore()

    @api_method(TenGigTargetsQueryArgs, TenGigTargetsQueryResult, roles=["READONLY_ADMIN"])
    def query(self) -> list[Target]:
        """Every target: the built-ins (default first), then the user's, by name."""
        return [*builtin_targets(), *self._user_targets()]

    @api_method(TenGigTargetsCreateArgs, TenGigTargetsCreateResult, roles=["FULL_ADMIN"])
    def create(self, target: dict[str, Any]) -> Target:
        """Add a user target; its name may not be a built-in's or another user target's."""
        with api_errors():  # validate_user_target already names fields 'target.*'
            created = validate_user_target(target, self._user_targets())
        with api_errors(prefix="target"):
            self._store.add_user_target(created.name, created.model_dump(exclude={"builtin"}))
        return created

    @api_method(TenGigTargetsDeleteArgs, TenGigTargetsDeleteResult, roles=["FULL_ADMIN"])
    def delete(self, name: str) -> bool:
        """Remove a user target (ENOENT if there is none by that name)."""
        if any(t.name == name for t in builtin_targets()):
            raise ValidationErrors.one("name", f"{name!r} is a built-in target; only user targets can be deleted")
        with api_errors():
            self._store.delete_user_target(name)
        return True

    def _user_targets(self) -> list[Target]:
        with api_errors():
            return [Target.model_validate({**doc, "builtin": False}) for doc in self._store.user_targets()]


SERVICE = TenGigTargetsService
