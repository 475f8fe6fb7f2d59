"""tengig's lines in files and lists it shares with the user: replace ours, never touch theirs.

Text files (/etc/hosts, rc.conf, Windows hosts, TrueNAS CORE's hosts string) get one marked
block. TrueNAS SCALE 23.10+ keeps hosts as a list of lines (network.configuration `hosts`),
written verbatim into /etc/hosts: there each of our entries carries a trailing tag comment,
which /etc/hosts allows, so we can find our entries again without markers.

Both merges are idempotent: merging the same entries twice gives what merging once gave.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field

class HostsEntry(BaseModel):
    model_config = ConfigDict(frozen=True)

    address: str = Field(description="The peer's address on the direct cable.")
    name: str = Field(description="Name that resolves to it: the peer name plus options.name_suffix.")
    peer: str = Field(description="The peer host.")
    cable: str = Field(description="Cable id the address is reached over.")


BEGIN_MARK = "# BEGIN tengig mesh (managed by tengig: edits inside are replaced)"
END_MARK = "# END tengig mesh"
ENTRY_TAG = "# tengig-mesh"
BEGIN_PREFIX = "# BEGIN tengig mesh"


def hosts_lines(entries: Iterable[HostsEntry]) -> list[str]:
    """'10.250.0.2\tdesk' per peer: the peer's name on this host resolves to the direct cable."""
    return [f"{e.address}\t{e.name}" for e in entries]


def _is_begin(line: str) -> bool:
    return line.strip().startswith(BEGIN_PREFIX)


def _is_end(line: str) -> bool:
    return line.strip() == END_MARK


def merge_marked_block(existing_text: str, lines: Sequence[str]) -> str:
    """Put `lines` between tengig's markers in `existing_text`.

    Our block is replaced where it stands (so its position relative to the user's lines stays
    put), or appended at the end. Every line outside it is kept as it was, including the user's
    comments and blank lines (only a missing final newline is added, and CRLF files stay CRLF).
    An empty `lines` removes the block. A block whose END marker was deleted by hand is taken to
    run to the end of the file: we never guess more.
    """
    newline = "\r\n" if "\r\n" in existing_text else "\n"  # Windows hosts files use CRLF
    text_lines = existing_text.splitlines()
    begin = next((i for i, line in enumerate(text_lines) if _is_begin(line)), None)
    block = [BEGIN_MARK, *lines, END_MARK] if lines else []
    if begin is None:
        before, after = text_lines, []
    else:
        end = next((i for i in range(begin + 1, len(text_lines)) if _is_end(text_lines[i])), len(text_lines) - 1)
        before, after = text_lines[:begin], text_lines[end + 1:]
        # Drop the other stale blocks too (a file merged by an older copy twice): one block, ours.
        after = _without_blocks(after)
    # No blank line of our own around the block: removing it later must give the user's file back.
    merged = before + block + after
    return newline.join(merged) + newline if merged else ""


def merge_hosts_block(existing_text: str, entries: Iterable[HostsEntry]) -> str:
    """A hosts file (or TrueNAS CORE's hosts string) with tengig's block set to `entries`."""
    return merge_marked_block(existing_text, hosts_lines(entries))


def _without_blocks(lines: list[str]) -> list[str]:
    kept, inside = [], False
    for line in lines:
        if _is_begin(line):
            inside = True
        elif inside and _is_end(line):
            inside = False
        elif not inside:
            kept.append(line)
    return kept


def tagged_entry(entry: HostsEntry) -> str:
    return f"{entry.address} {entry.name} {ENTRY_TAG}"


def is_ours(item: str) -> bool:
    return item.rstrip().endswith(ENTRY_TAG)


def merge_hosts_list(existing: Sequence[str], entries: Iterable[HostsEntry]) -> list[str]:
    """TrueNAS SCALE's `hosts` list with our tagged entries replaced; the user's items kept in order."""
    return [item for item in existing if not is_ours(item)] + [tagged_entry(e) for e in entries]


def user_lines_naming(existing: str | Sequence[str], names: Iterable[str]) -> list[str]:
    """The user's own lines that already map one of `names`.

    The resolver takes the first match in /etc/hosts, so such a line, above our block, would
    win over the direct-link address: worth a warning, never an edit.
    """
    wanted = set(names)
    lines = existing.splitlines() if isinstance(existing, str) else list(existing)
    found, inside = [], False
    for line in lines:
        if _is_begin(line):
            inside = True
            continue
        if inside:
            inside = not _is_end(line)
            continue
        if is_ours(line):
            continue
        fields = line.split("#", 1)[0].split()
        if len(fields) >= 2 and wanted & set(fields[1:]):
            found.append(line)
    return found
