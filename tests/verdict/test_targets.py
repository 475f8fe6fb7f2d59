"""The target catalogue (docs/physics.md §5) and the user's own targets."""
import pytest

from tengig.errors import ValidationError
from tengig.verdict.models import Target
from tengig.verdict.targets import DEFAULT_TARGET, builtin_targets, find_target, validate_user_target

MB = 10**6


def _by_name():
    return {t.name: t for t in builtin_targets()}


def test_catalogue_figures_match_measure_md_in_decimal_megabytes():
    t = _by_name()
    assert t["hdd-15k-best"].read_bytes_per_s == pytest.approx(223.4e6)
    assert t["hdd-15k-best"].write_bytes_per_s is None  # the review gives no write figure
    assert t["hdd-15k-outer"].read_bytes_per_s == 204 * MB
    assert t["hdd-15k-inner"].read_bytes_per_s == 122 * MB
    assert "122" in t["hdd-15k-outer"].title and "204" in t["hdd-15k-inner"].title
    assert t["hdd-7200-exos-x18"].read_bytes_per_s == 270 * MB
    assert (t["ssd-sata-870-evo"].read_bytes_per_s, t["ssd-sata-870-evo"].write_bytes_per_s) == (560 * MB, 530 * MB)
    assert (t["nvme-pcie4-990-pro"].read_bytes_per_s, t["nvme-pcie4-990-pro"].write_bytes_per_s) == (7450 * MB, 6900 * MB)


def test_every_builtin_has_a_source_and_a_unique_name():
    targets = builtin_targets()
    assert len({t.name for t in targets}) == len(targets) == 6
    for t in targets:
        assert t.builtin is True
        assert len(t.source) > 20, t.name
    assert "Tom's Hardware" in _by_name()["hdd-15k-best"].source
    assert "Seagate" in _by_name()["hdd-7200-exos-x18"].source


def test_default_target_is_the_15k_hdd_and_first():
    assert DEFAULT_TARGET == "hdd-15k-best"
    assert builtin_targets()[0].name == DEFAULT_TARGET
    assert find_target(DEFAULT_TARGET).read_bytes_per_s == pytest.approx(223.4 * MB)


def test_callers_cannot_change_the_catalogue():
    first = builtin_targets()[0]
    first.read_bytes_per_s = 1.0
    find_target(DEFAULT_TARGET).read_bytes_per_s = 2.0
    assert find_target(DEFAULT_TARGET).read_bytes_per_s == pytest.approx(223.4 * MB)


def test_unknown_target_names_the_field_and_the_known_ones():
    mine = validate_user_target({"name": "my-raid", "title": "My old RAID", "read_bytes_per_s": 3e8, "source": "me"})
    with pytest.raises(ValidationError) as exc:
        find_target("hdd-15k-bset", [mine])
    assert exc.value.errors[0][0] == "target"
    message = exc.value.errors[0][1]
    assert message.startswith("unknown target 'hdd-15k-bset'; known: ")
    assert "hdd-15k-best" in message and "nvme-pcie4-990-pro" in message and "my-raid" in message


def test_user_target_found_after_builtins():
    mine = validate_user_target(
        {"name": "my-raid", "title": "My old RAID", "read_bytes_per_s": 3e8, "write_bytes_per_s": 2e8, "source": "me"}
    )
    assert isinstance(mine, Target) and mine.builtin is False
    assert find_target("my-raid", [mine]) == mine
    assert find_target("hdd-15k-best", [mine]).builtin is True


def test_user_target_errors_carry_field_paths():
    with pytest.raises(ValidationError) as exc:
        validate_user_target({"name": "Bad Name!", "title": "x", "read_bytes_per_s": -5, "source": "s", "colour": "red"})
    fields = {field for field, _ in exc.value.errors}
    assert fields == {"target.name", "target.read_bytes_per_s", "target.colour"}


def test_user_target_missing_fields_are_named():
    with pytest.raises(ValidationError) as exc:
        validate_user_target({"name": "ok-name"})
    assert {f for f, _ in exc.value.errors} == {"target.title", "target.read_bytes_per_s", "target.source"}


def test_user_target_may_not_shadow_a_builtin_or_another_user_target():
    with pytest.raises(ValidationError) as exc:
        validate_user_target({"name": "hdd-15k-best", "title": "fake", "read_bytes_per_s": 1e9, "source": "s"})
    assert exc.value.errors[0][0] == "target.name" and "built-in" in exc.value.errors[0][1]
    first = validate_user_target({"name": "mine", "title": "a", "read_bytes_per_s": 1e8, "source": "s"})
    with pytest.raises(ValidationError) as exc:
        validate_user_target({"name": "mine", "title": "b", "read_bytes_per_s": 2e8, "source": "s"}, existing=[first])
    assert exc.value.errors[0][0] == "target.name" and "already exists" in exc.value.errors[0][1]


def test_user_target_cannot_claim_to_be_builtin():
    with pytest.raises(ValidationError) as exc:
        validate_user_target({"name": "x1", "title": "x", "read_bytes_per_s": 1e8, "source": "s", "builtin": True})
    assert exc.value.errors[0][0] == "target.builtin"
    assert validate_user_target({"name": "x1", "title": "x", "read_bytes_per_s": 1e8, "source": "s", "builtin": False}).builtin is False


def test_user_target_must_be_an_object():
    with pytest.raises(ValidationError) as exc:
        validate_user_target(["not", "a", "dict"])  # type: ignore[arg-type]
    assert exc.value.errors[0][0] == "target"
