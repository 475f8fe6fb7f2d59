"""tengig cites only what ships with tengig: every Markdown document a file names exists in the checkout,
and every section (§N) it cites of a docs/ page is a `## N.` heading there.

Scanned: what users and contributors read (code, docstrings, messages, the panel and its fixtures,
READMEs, docs/). A citation is a `NAME.md` with an upper-case name (with any path before it), a
`docs/<page>.md` (with the sections after it: `§1`, `§3, §4`, `§3/§4`, `§2-§4`), a bare `§N` inside a
docs/ page (its own sections), and any `../shared/` path (design notes outside the repository).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("middleware", "ui/src", "ui/e2e", "ui/README.md", "plugin", "README.md", "CONTRIBUTING.md", "docs")
SKIPPED_DIRS = {"__pycache__", "node_modules", ".pytest_cache", ".hypothesis"}

# Citations tolerated while they are being replaced (none today). An entry that is gone must leave
# this list too (test_known_citations_are_still_there says so).
KNOWN: set[tuple[str, str]] = set()

UPPER_MD = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[A-Z][A-Z0-9_-]*\.md)\b")
SECTIONS = r"((?:§\d+)(?:\s*(?:-|–|/|,|and)\s*§\d+)*)"
DOCS_MD = re.compile(r"(?<![\w/.-])(?:[\w.-]+/)*docs/([a-z-]+\.md)\b[)\]]?(?:\s*" + SECTIONS + ")?")
BARE_SECTION = re.compile(r"§(\d+)")
SHARED = re.compile(r"\.\./shared/")
HEADING = re.compile(r"^## (\d+)\. ", re.MULTILINE)


def scanned_files() -> list[Path]:
    out = []
    for name in SCANNED:
        top = ROOT / name
        if top.is_file():
            out.append(top)
            continue
        for path in sorted(top.rglob("*")):
            if path.is_file() and not SKIPPED_DIRS.intersection(path.relative_to(ROOT).parts):
                out.append(path)
    return out


def headings(page: str) -> set[int]:
    path = ROOT / "docs" / page
    return {int(n) for n in HEADING.findall(path.read_text())} if path.is_file() else set()


def cited_sections(text: str) -> list[int]:
    """'§3, §4' -> [3, 4]; '§2-§4' -> [2, 3, 4]."""
    numbers = [int(n) for n in re.findall(r"§(\d+)", text)]
    out = list(numbers)
    for a, b in re.findall(r"§(\d+)\s*[-–]\s*§(\d+)", text):
        out += range(int(a) + 1, int(b))
    return sorted(set(out))


def _exists(ref: str, citing: Path) -> bool:
    return any((base / ref).is_file() for base in (ROOT, ROOT / "docs", citing.parent))


def problems_in(text: str, citing: Path) -> list[tuple[int, str, str]]:
    """(line, citation, what is wrong) for every citation in ``text`` of a file at ``citing``."""
    found: list[tuple[int, str, str]] = []

    def line(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    for m in UPPER_MD.finditer(text):
        if not _exists(m.group(1), citing):
            found.append((line(m.start()), m.group(1), "no such file in the repository"))
    own_sections: list[tuple[int, int]] = []
    for m in DOCS_MD.finditer(text):
        page = m.group(1)
        if not (ROOT / "docs" / page).is_file():
            found.append((line(m.start()), f"docs/{page}", "no such page in docs/"))
            continue
        if m.group(2):
            own_sections.append(m.span(2))
            have = headings(page)
            for n in cited_sections(m.group(2)):
                if n not in have:
                    found.append((line(m.start()), f"docs/{page} §{n}", f"docs/{page} has no '## {n}.' heading"))
    for m in SHARED.finditer(text):
        found.append((line(m.start()), m.group(0), "outside the repository"))
    if citing.parent == ROOT / "docs":
        have = headings(citing.name)
        for m in BARE_SECTION.finditer(text):
            if not any(a <= m.start() < b for a, b in own_sections) and int(m.group(1)) not in have:
                found.append((line(m.start()), m.group(0), f"docs/{citing.name} has no '## {m.group(1)}.' heading"))
    return found


def all_problems() -> dict[tuple[str, str], list[str]]:
    """(file, citation) -> ['file:line: citation: why', ...]"""
    out: dict[tuple[str, str], list[str]] = {}
    for path in scanned_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # images, fonts: nothing cites from there
        rel = path.relative_to(ROOT).as_posix()
        for n, citation, why in problems_in(text, path):
            out.setdefault((rel, citation), []).append(f"{rel}:{n}: {citation}: {why}")
    return out


def test_every_citation_ships_with_tengig():
    problems = [msg for key, msgs in sorted(all_problems().items()) if key not in KNOWN for msg in msgs]
    assert not problems, "citations of documents tengig does not ship:\n" + "\n".join(problems)


def test_known_citations_are_still_there():
    gone = sorted(KNOWN - set(all_problems()))
    assert not gone, f"fixed, so remove from KNOWN in {Path(__file__).name}: {gone}"


def test_docs_pages_number_their_sections_in_order():
    for page in sorted((ROOT / "docs").glob("*.md")):
        numbers = [int(n) for n in HEADING.findall(page.read_text())]
        assert numbers == list(range(1, len(numbers) + 1)), f"{page.name}: sections {numbers}"


@pytest.mark.parametrize(
    "text, wrong",
    [
        ("see MEASURE.md §1", ["MEASURE.md"]),
        ("(shared/TRUENAS.md §2-§4)", ["shared/TRUENAS.md"]),
        ("in ../shared/vendor", ["../shared/"]),
        ("docs/physics.md §99", ["docs/physics.md §99"]),
        ("docs/nowhere.md", ["docs/nowhere.md"]),
        ("docs/truenas-api.md §2-§9", ["docs/truenas-api.md §5", "docs/truenas-api.md §6", "docs/truenas-api.md §7",
                                       "docs/truenas-api.md §8", "docs/truenas-api.md §9"]),
        ("docs/physics.md §1, docs/lab.md §3/§4 and README.md", []),
        ("[docs/lab.md](../../docs/lab.md) §3 and §99", ["docs/lab.md §99"]),
        ("https://github.com/truenas/middleware/blob/master/README.md", []),
    ],
)
def test_the_scanner(text, wrong):
    assert [citation for _, citation, _ in problems_in(text, ROOT / "middleware" / "x.py")] == wrong
