"""The documents a newcomer reads stay readable and connected: README.md fits in 200 lines, no paragraph
of README.md, CONTRIBUTING.md, ui/README.md or docs/ passes 1,200 characters (a paragraph is the text
between blank lines; a table row and a line of a fenced code block count alone), and every relative link
in them points to a file that exists and, with a #anchor, to a heading there (GitHub's anchor for it)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[1]
README_MAX_LINES = 200
PARAGRAPH_MAX_CHARS = 1200
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # https:, mailto:, ...


def documents() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "ui" / "README.md",
            *sorted((ROOT / "docs").glob("*.md"))]


def paragraphs(text: str) -> list[tuple[int, str]]:
    """(first line number, text) of every paragraph; a fenced code block's lines and table rows one each."""
    out: list[tuple[int, str]] = []
    block: list[str] = []
    start = 0
    in_fence = False

    def flush() -> None:
        if block:
            out.append((start, "\n".join(block)))
            block.clear()

    for n, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            flush()
            in_fence = not in_fence
            continue
        if in_fence or line.lstrip().startswith("|"):
            flush()
            out.append((n, line))
        elif not line.strip():
            flush()
        else:
            if not block:
                start = n
            block.append(line)
    flush()
    return out


def outside_code(text: str) -> str:
    """The text with fenced code blocks and inline code blanked (links there are examples, not links)."""
    lines, in_fence = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
            lines.append("")
        else:
            lines.append("" if in_fence else re.sub(r"`[^`]*`", "", line))
    return "\n".join(lines)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but - and _ dropped, spaces to -."""
    text = re.sub(r"`|\*|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading)
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in outside_code(path.read_text()).splitlines():
        m = HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    problems = []
    name = path.relative_to(root)
    for n, line in enumerate(outside_code(path.read_text()).splitlines(), 1):
        for m in LINK.finditer(line):
            target = m.group(1)
            if EXTERNAL.match(target):
                continue
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path
            if not dest.exists():
                problems.append(f"{name}:{n}: {target}: no such file")
            elif anchor and (dest.is_dir() or dest.suffix != ".md"):
                problems.append(f"{name}:{n}: {target}: an anchor in a file that is not Markdown")
            elif anchor and anchor not in anchors(dest):
                problems.append(f"{name}:{n}: {target}: no heading with the anchor #{anchor}")
    return problems


def test_the_documents_exist():
    missing = [str(p.relative_to(ROOT)) for p in documents() if not p.is_file()]
    assert not missing, f"missing: {missing}"
    assert len(documents()) > 4, "docs/ has no page"


def test_readme_fits_in_200_lines():
    lines = (ROOT / "README.md").read_text().count("\n")
    assert lines <= README_MAX_LINES, (f"README.md has {lines} lines (at most {README_MAX_LINES}): "
                                       "move a section to docs/ and link it")


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_paragraph_over_1200_characters(path):
    long = [f"{path.relative_to(ROOT)}:{n}: {len(p)} characters: {p[:60]!r}..."
            for n, p in paragraphs(path.read_text()) if len(p) > PARAGRAPH_MAX_CHARS]
    assert not long, "paragraphs to split or tighten:\n" + "\n".join(long)


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_reaches_its_file_and_heading(path):
    problems = broken_links(path)
    assert not problems, "\n".join(problems)


def test_every_docs_page_is_reachable_from_the_readme():
    """README links each page of docs/ (and CONTRIBUTING.md, ui/README.md), directly or through a page it links."""
    reached, todo = set(), [ROOT / "README.md"]
    while todo:
        page = todo.pop()
        if page in reached:
            continue
        reached.add(page)
        for m in LINK.finditer(outside_code(page.read_text())):
            file_part = m.group(1).partition("#")[0]
            if file_part and not EXTERNAL.match(m.group(1)):
                dest = (page.parent / file_part).resolve()
                if dest.suffix == ".md" and dest.is_file():
                    todo.append(dest)
    unreached = [str(p.relative_to(ROOT)) for p in documents() if p.resolve() not in reached]
    assert not unreached, f"no link leads from README.md to {unreached}"


# -- the checks themselves ------------------------------------------------------------------------------
def test_paragraphs_split_at_blank_lines_and_count_code_and_table_rows_alone():
    text = "a\nb\n\nc\n```sh\nx\ny\n```\n| h |\n| - |\nd\n"
    assert paragraphs(text) == [(1, "a\nb"), (4, "c"), (6, "x"), (7, "y"), (9, "| h |"), (10, "| - |"), (11, "d")]


def test_a_long_paragraph_is_one_paragraph_however_many_lines():
    text = "\n".join(["word " * 20] * 13)  # 13 lines of 100 characters, no blank line
    assert [len(p) for _, p in paragraphs(text)] == [13 * 100 + 12]


@pytest.mark.parametrize("heading, anchor", [
    ("The panel", "the-panel"),
    ("1. Goodput per line rate and MTU", "1-goodput-per-line-rate-and-mtu"),
    ("`tengig client join`: a desktop", "tengig-client-join-a-desktop"),
    ("Mesh, NICs and link aggregation", "mesh-nics-and-link-aggregation"),
])
def test_slug_is_githubs_anchor(heading, anchor):
    assert slug(heading) == anchor


def test_broken_links_are_found(tmp_path):
    (tmp_path / "other.md").write_text("# Other\n\n## Part two\n\n## Part two\n")
    page = tmp_path / "page.md"
    page.write_text("[ok](other.md#part-two) [ok](other.md#part-two-1) [ok](#here) [web](https://x.org/a.md)\n"
                    "# Here\n[bad](gone.md) [bad](other.md#nowhere) `[code](gone.md)`\n"
                    "```\n[code](gone.md)\n```\n")
    assert broken_links(page, tmp_path) == ["page.md:3: gone.md: no such file",
                                  "page.md:3: other.md#nowhere: no heading with the anchor #nowhere"]
