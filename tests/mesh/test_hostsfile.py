"""tengig's hosts block and TrueNAS hosts list: ours replaced, the user's lines never touched.

Property-style: many generated hosts files (comments, blanks, CRLF, look-alike markers, old
blocks in odd places) against the same few properties.
"""
import random

import pytest

from tengig.mesh import merge_hosts_block, merge_hosts_list, plan_mesh
from tengig.hostsblock import BEGIN_MARK, END_MARK, ENTRY_TAG, merge_marked_block, user_lines_naming
from tengig.mesh.models import HostsEntry

from .layouts import seed000_scale

USER_LINES = [
    "127.0.0.1\tlocalhost",
    "127.0.1.1\tnas.local nas",
    "::1\tlocalhost ip6-localhost ip6-loopback",
    "# my printer",
    "",
    "   ",
    "192.168.1.20 printer # office",
    "10.0.0.5\tnas-old",
    "# BEGIN something else",   # not ours: another tool's marker
    "# END tengig meshes",      # not our END marker
    "#BEGIN tengig mesh",       # no space: not our marker either
]


def entries(*pairs) -> list[HostsEntry]:
    return [HostsEntry(address=a, name=n, peer=n, cable=f"C{i:02d}") for i, (a, n) in enumerate(pairs, 1)]


E1 = entries(("10.250.0.2", "desk"), ("10.250.0.6", "lab"))
E2 = entries(("10.250.0.9", "lab"))


def user_file(rng: random.Random) -> str:
    lines = [rng.choice(USER_LINES) for _ in range(rng.randint(0, 8))]
    newline = rng.choice(["\n", "\r\n"])
    text = newline.join(lines)
    return text + newline if lines and rng.random() < 0.8 else text


def outside_block(text: str) -> list[str]:
    kept, inside = [], False
    for line in text.splitlines():
        if line.startswith("# BEGIN tengig mesh"):
            inside = True
        elif inside and line == END_MARK:
            inside = False
        elif not inside:
            kept.append(line)
    return kept


def block_of(text: str) -> list[str]:
    lines = text.splitlines()
    return lines[lines.index(BEGIN_MARK) + 1:lines.index(END_MARK)]


@pytest.mark.parametrize("seed", range(60))
def test_merge_properties(seed):
    rng = random.Random(seed)
    original = user_file(rng)
    once = merge_hosts_block(original, E1)
    assert merge_hosts_block(once, E1) == once                       # idempotent
    assert outside_block(once) == original.splitlines()              # user lines kept, in order
    assert block_of(once) == ["10.250.0.2\tdesk", "10.250.0.6\tlab"]
    assert merge_hosts_block(once, E2) == merge_hosts_block(original, E2)  # the last plan wins
    assert once.count(BEGIN_MARK) == 1
    if original.endswith(("\n", "\r\n")) or not original:
        assert merge_hosts_block(once, []) == original               # removing gives the file back
    if "\r\n" in original:
        assert "\n" not in once.replace("\r\n", "")                  # a CRLF file stays CRLF


@pytest.mark.parametrize("seed", range(30))
def test_block_in_the_middle_stays_where_it_is(seed):
    rng = random.Random(seed)
    head, tail = user_file(rng).replace("\r\n", "\n"), user_file(rng).replace("\r\n", "\n")
    head = head if head.endswith("\n") or not head else head + "\n"
    text = head + f"{BEGIN_MARK}\n10.9.9.9\told\n{END_MARK}\n" + tail
    merged = merge_hosts_block(text, E1)
    assert outside_block(merged) == outside_block(text)
    assert merged.splitlines().index(BEGIN_MARK) == len(head.splitlines())
    assert "10.9.9.9" not in merged


def test_stale_duplicate_blocks_collapse_into_one():
    text = f"a\n{BEGIN_MARK}\nx\n{END_MARK}\nb\n{BEGIN_MARK}\ny\n{END_MARK}\nc\n"
    merged = merge_hosts_block(text, E2)
    assert merged == f"a\n{BEGIN_MARK}\n10.250.0.9\tlab\n{END_MARK}\nb\nc\n"


def test_block_missing_its_end_marker_runs_to_the_end():
    text = f"a\n{BEGIN_MARK}\n10.9.9.9 old\n"
    assert merge_hosts_block(text, E2) == f"a\n{BEGIN_MARK}\n10.250.0.9\tlab\n{END_MARK}\n"


def test_empty_file_and_empty_entries():
    assert merge_hosts_block("", []) == ""
    assert merge_hosts_block("", E2) == f"{BEGIN_MARK}\n10.250.0.9\tlab\n{END_MARK}\n"
    assert merge_marked_block("x\n", ['ifconfig_ix0="inet 10.0.1.1/24"']).endswith(f'ix0="inet 10.0.1.1/24"\n{END_MARK}\n')


@pytest.mark.parametrize("seed", range(30))
def test_list_merge_properties(seed):
    rng = random.Random(seed)
    user = [line for line in (rng.choice(USER_LINES) for _ in range(rng.randint(0, 6))) if line.strip()]
    once = merge_hosts_list(user, E1)
    assert merge_hosts_list(once, E1) == once
    assert [item for item in once if not item.endswith(ENTRY_TAG)] == user
    assert once[len(user):] == ["10.250.0.2 desk # tengig-mesh", "10.250.0.6 lab # tengig-mesh"]
    assert merge_hosts_list(once, E2) == merge_hosts_list(user, E2)
    assert merge_hosts_list(once, []) == user


def test_user_lines_that_would_shadow_ours_are_found_not_edited():
    text = merge_hosts_block("127.0.0.1 localhost\n10.0.0.5 nas nas.lan # old\n# 10.0.0.6 lab\n", E1 + entries(("10.250.0.10", "nas")))
    assert user_lines_naming(text, ["nas", "lab", "desk"]) == ["10.0.0.5 nas nas.lan # old"]
    assert user_lines_naming(["10.0.0.7 desk", "10.250.0.2 desk # tengig-mesh"], ["desk"]) == ["10.0.0.7 desk"]


def test_plan_entries_merge_into_a_real_looking_hosts_file():
    plan = plan_mesh(seed000_scale())
    debian = "127.0.0.1\tlocalhost\n127.0.1.1\tlab\n\n# The following lines are desirable for IPv6\n::1\tlocalhost\n"
    merged = merge_hosts_block(debian, plan.host("lab").hosts_entries)
    assert merged.startswith(debian)
    assert merged.endswith(f"{BEGIN_MARK}\n10.250.0.1\tdesk\n10.250.0.10\tnas\n{END_MARK}\n")
