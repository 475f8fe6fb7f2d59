"""The Windows kit's C# helpers through a real C# compiler, here on Linux (Mono's mcs and runtime, installed by
scripts/setup.sh): the whole of them compiles as C# 5 (what Windows PowerShell 5.1's Add-Type compiles), which
catches what a parse cannot (types, definite assignment, a method that does not exist); and the small-file
test's batches that need no kernel32 (write: FileStream; stat: FileInfo) run on this machine's disk under a
German culture, their lines read by the NAS's parser. The read and the delete call kernel32 (CreateFile with
FILE_FLAG_NO_BUFFERING, ReadFile, DeleteFile) on Windows only; the whole kit runs under pwsh in
test_kit_pester.py and test_kit_pwsh.py."""
from __future__ import annotations

import ipaddress
import shutil
import subprocess

import pytest

from tengig.bench.parse.smallfiles_parse import parse_smallfiles
from tengig.join_protocol.lines import OWN_TIMER
from tengig.desk.kit import render_kit

from .powershell import csharp_of
from .replay_cases import PEER_CASES  # (the address asked for, this desktop's IPv4 addresses with their prefixes)

TOKEN = "tgb-" + "0123456789abcdef" * 3
# Runs SmallSet's write then stat on 20 files of 4 KiB in args[0], args[1] ms per Run, as Invoke-SmallBatches
# does (a start line, Run until every file is done, an end line), in a culture whose decimal mark is a comma.
DRIVER = """
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Threading;
using TengigKit;

public static class Driver
{
    public static void Main(string[] args)
    {
        Thread.CurrentThread.CurrentCulture = new CultureInfo("de-DE");
        SmallSet files = new SmallSet(4096, 20);
        Stopwatch clock = Stopwatch.StartNew();
        List<string> lines = new List<string>();
        foreach (string op in new string[] { "write", "stat" })
        {
            lines.Add(SmallSet.Stamp(clock, "TIMER: start " + op));
            int next = 0;
            int runs = 0;
            while (next < files.Count)
            {
                next = files.Run("TIMER", op, args[0], next, long.Parse(args[1]), clock, lines);
                runs++;
            }
            lines.Add(SmallSet.Stamp(clock, "TIMER: end " + op));
            Console.Error.WriteLine(op + " runs " + runs);
        }
        Console.Write(string.Join("\\n", lines) + "\\n");
    }
}
""".replace("TIMER", OWN_TIMER)


def _tools() -> tuple[str, str]:
    mcs, mono = shutil.which("mcs"), shutil.which("mono")
    assert mcs and mono, "Mono's mcs and mono are not installed: run make setup (scripts/setup.sh installs mono-mcs)"
    return mcs, mono


@pytest.fixture(scope="module")
def helpers(tmp_path_factory):
    """The kit's C# compiled as C# 5 into a library."""
    mcs, _ = _tools()
    tmp = tmp_path_factory.mktemp("kit-csharp")
    script = render_kit(os_name="windows", nas="ws://nas.example.lan:8610", token=TOKEN, share="media")
    (tmp / "helpers.cs").write_text(csharp_of(script))
    done = subprocess.run([mcs, "-langversion:5", "-target:library", "-r:System.dll", "-warnaserror+",
                           f"-out:{tmp / 'helpers.dll'}", str(tmp / "helpers.cs")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return tmp


def _driver(helpers, tmp_path, name: str, source: str):
    """A driver program compiled as C# 5 against the kit's helpers, beside a copy of them: its .exe."""
    mcs, _ = _tools()
    (tmp_path / f"{name}.cs").write_text(source)
    built = subprocess.run([mcs, "-langversion:5", f"-r:{helpers / 'helpers.dll'}", f"-out:{tmp_path / f'{name}.exe'}",
                            str(tmp_path / f"{name}.cs")], capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stdout + built.stderr
    shutil.copy(helpers / "helpers.dll", tmp_path / "helpers.dll")
    return tmp_path / f"{name}.exe"


def test_the_kits_csharp_compiles_as_csharp_5_with_no_warning(helpers):
    assert (helpers / "helpers.dll").stat().st_size > 0


@pytest.mark.parametrize("budget_ms", [600_000, 0])
def test_small_file_batches_run_and_print_what_the_nas_reads_whatever_the_culture(helpers, tmp_path, budget_ms):
    mono, driver = _tools()[1], _driver(helpers, tmp_path, "driver", DRIVER)
    files = tmp_path / "small-4096"
    files.mkdir()
    done = subprocess.run([mono, str(driver), str(files), str(budget_ms)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    for op in ("write", "stat"):
        timing = parse_smallfiles(OWN_TIMER, done.stdout, op, expected=20)  # '.' for the point, under de-DE
        assert len(timing.opens) == len(timing.closes) == 20 and timing.seconds >= sum(timing.per_file)
    # every file there, of its size, each with bytes of its own (random, nothing to shrink)
    made = sorted(files.iterdir())
    assert [p.name for p in made] == [f"f{i:05d}.bin" for i in range(20)]
    assert {p.stat().st_size for p in made} == {4096} and len({p.read_bytes() for p in made}) == 20
    # a Run stops once its budget is spent and the next goes on where it stopped: with none, one file per Run
    runs = dict(line.split(" runs ") for line in done.stderr.split("\n") if " runs " in line)
    assert runs == ({"write": "20", "stat": "20"} if budget_ms == 0 else {"write": "1", "stat": "1"})


# Runs TengigKit.PeerRule.Refusal on each case of stdin ("address attached,attached,..." a line), one answer a
# line ("OK" or the refusal), as Get-PeerConnectArgv calls it.
PEER_DRIVER = """
using System;
using TengigKit;

public static class PeerDriver
{
    public static void Main(string[] args)
    {
        string line;
        while ((line = Console.ReadLine()) != null)
        {
            string[] parts = line.Split(' ');
            string[] attached = parts[1].Length > 0 ? parts[1].Split(',') : new string[0];
            string why = PeerRule.Refusal(parts[0], attached, int.Parse(args[0]));
            Console.WriteLine(why ?? "OK");
        }
    }
}
"""


def test_the_kits_peer_rule_refuses_what_tengig_client_join_refuses_in_the_same_words(helpers, tmp_path):
    """TengigKit.PeerRule run under Mono against desk/peer_rule.py (the rule tengig client join applies) on
    the same cases: the same answer, and for a refusal the same message."""
    from tengig.desk.peer_rule import NARROWEST_PREFIX, _on_own_cable
    from tengig.errors import ValidationError

    mono, driver = _tools()[1], _driver(helpers, tmp_path, "peer", PEER_DRIVER)
    stdin = "".join(f"{address} {','.join(attached)}\n" for address, attached in PEER_CASES)
    done = subprocess.run([mono, str(driver), str(NARROWEST_PREFIX)], input=stdin,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    answers = done.stdout.splitlines()
    assert len(answers) == len(PEER_CASES)
    for (address, attached), answer in zip(PEER_CASES, answers):
        # what tengig client join reads: the subnets its interfaces are attached to (a /32 attaches none)
        subnets = [ipaddress.IPv4Interface(a).network for a in attached if not a.endswith("/32")]
        try:
            _on_own_cable({"server": address}, "server", subnets)
            expected = "OK"
        except ValidationError as exc:
            [(field, expected)] = exc.errors
            assert field == "instruction.server"
        assert answer == expected, (address, attached)
    assert answers[:2] == ["OK", "OK"] and answers[4] == "OK" and answers.count("OK") == 3
