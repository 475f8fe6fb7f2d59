"""tengig.fix where tengig runs on a TrueNAS (the seams say so): its middlewared owns the ports, so the MTU fix
names TrueNAS's calls and reads the port's MTU from interface.query, whatever the run's environment recorded;
the SMB and dataset settings keep going through the system's own seam."""
from __future__ import annotations

import contextlib
import shutil
from dataclasses import replace

from tengig.systems.seams import DEFAULT_SEAMS

from .recorded import FIXTURE, altered
from .test_api import ThisNas
from .test_settings import NasHosts


class PortsOnly:
    """What the MTU fix reads of a TrueNAS backend: interface.query's entry of a port."""

    def __init__(self, mtu: int):
        self.mtu, self.asked = mtu, []

    def interface(self, name):
        self.asked.append(name)
        return {"name": name, "mtu": self.mtu, "state": {"mtu": self.mtu}}


def test_on_a_truenas_the_mtu_fix_names_truenas_calls_and_reads_interface_query(tmp_path, monkeypatch, api_with):
    db = tmp_path / "results.sqlite3"
    shutil.copy(FIXTURE, db)
    monkeypatch.setenv("TENGIG_DB", str(db))
    conf = tmp_path / "smb.conf"
    conf.write_text("[global]\n[share]\n    path = /tmp\n")
    ports = PortsOnly(9000)
    api = api_with(replace(DEFAULT_SEAMS, bench_system=lambda system, pool: ThisNas(NasHosts(conf)),
                           truenas_here=lambda: "this machine is TrueNAS (a test's)",
                           truenas=lambda session=None: contextlib.nullcontext(ports)))
    from tengig.results import ResultStore

    store = ResultStore(db)
    run = altered(store.get(2), nas_mtu=9000, smb_scale=0.4)
    run_id = store.start_run(run.kind, run.inputs, run.environment)
    store.finish_run(run_id, "success", results=run.results)

    plan = api.call("tengig.fix.plan", run_id)
    [fix] = [f for f in plan["fixes"] if f["name"] == "mtu"]
    assert fix["setting"] == {"platform": "truenas", "kind": "interface", "object": "eth-desk", "key": "mtu"}
    assert (fix["from_value"], fix["to_value"]) == ("9000", "1500") and ports.asked == ["eth-desk"]
    assert fix["call"].startswith("midclt call interface.update eth-desk '{\"mtu\": 1500}'")
    assert "interface.commit with rollback and interface.checkin" in fix["call"]
