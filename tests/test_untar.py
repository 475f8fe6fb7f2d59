"""tests/untar.py: the vendored archives unpack on a Python with tarfile's filters and on one without (Debian
12's 3.11.2), and an archive reaching outside its folder is refused on both."""
from __future__ import annotations

import io
import tarfile

import pytest

from .untar import UnsafeArchive, unpack_into


def _archive(path, members):
    with tarfile.open(path, "w:gz") as tar:
        for name, kind, target in members:
            info = tarfile.TarInfo(name)
            if kind == "file":
                info.size = len(target)
                tar.addfile(info, io.BytesIO(target))
            else:
                info.type = tarfile.SYMTYPE if kind == "sym" else tarfile.LNKTYPE
                info.linkname = target
                tar.addfile(info)
    return path


@pytest.fixture(params=["filters", "no-filters"])
def python(request, monkeypatch):
    if request.param == "no-filters":
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    elif not hasattr(tarfile, "data_filter"):
        pytest.skip("this Python has no tarfile filters: the other case covers it")
    return request.param


def test_a_plain_archive_unpacks_with_its_links(python, tmp_path):
    archive = _archive(tmp_path / "ok.tar.gz", [("top/a.txt", "file", b"hello"), ("top/lib/b", "sym", "../a.txt"),
                                                ("top/c", "hard", "top/a.txt")])
    unpack_into(archive, tmp_path / "out")
    assert (tmp_path / "out/top/a.txt").read_bytes() == b"hello"
    assert (tmp_path / "out/top/lib/b").read_bytes() == b"hello" and (tmp_path / "out/top/c").read_bytes() == b"hello"


@pytest.mark.parametrize("member", [("../escape.txt", "file", b"x"), ("top/out", "sym", "../../etc/passwd"),
                                    ("top/abs", "sym", "/etc/passwd")])
def test_a_member_outside_the_folder_is_refused_and_nothing_unpacked(python, tmp_path, member):
    archive = _archive(tmp_path / "bad.tar.gz", [member])
    with pytest.raises((UnsafeArchive, tarfile.FilterError) if hasattr(tarfile, "FilterError") else UnsafeArchive):
        unpack_into(archive, tmp_path / "out")
    assert not (tmp_path / "escape.txt").exists() and not list((tmp_path / "out").rglob("*"))


def test_an_absolute_member_never_lands_where_it_names(python, tmp_path):
    """tarfile's filters strip the leading / (the member lands inside the folder); without them it is refused."""
    target = tmp_path / "absolute.txt"
    archive = _archive(tmp_path / "abs.tar.gz", [(str(target), "file", b"x")])
    try:
        unpack_into(archive, tmp_path / "out")
    except UnsafeArchive:
        assert python == "no-filters"
    else:
        assert (tmp_path / "out" / str(target).lstrip("/")).read_bytes() == b"x"
    assert not target.exists()
