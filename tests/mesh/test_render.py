"""Rendered configs for seed 000's layout, compared with golden files (tests/fixtures/mesh/golden/)."""
from importlib import resources

import jinja2
import pytest

from tengig.mesh import FLAVOURS_BY_KIND, merge_marked_block, plan_mesh, render_all, render_host
from tengig.hostsblock import BEGIN_MARK, END_MARK
from tengig.mesh.render import _environment

from .golden import assert_golden, dump
from .layouts import lab_hosts, seed000_core, seed000_scale

SCALE_HOSTS_NOW = ["192.168.1.20 printer", "10.0.0.9 backup  # offsite box"]
CORE_HOSTS_NOW = "192.168.1.20 printer\n10.0.0.9 backup\n"


@pytest.mark.parametrize(
    "host, flavour",
    [("desk", "powershell"), ("lab", "netplan"), ("lab", "networkd"), ("lab", "ifupdown"), ("nas", "truenas-api")],
)
def test_seed000_scale_golden(host, flavour):
    plan = plan_mesh(seed000_scale())
    existing = SCALE_HOSTS_NOW if flavour == "truenas-api" else None
    assert_golden(f"seed000-scale/{host}.{flavour}.txt", dump(render_host(plan, host, flavour, existing_hosts=existing)))


@pytest.mark.parametrize("host, flavour", [("desk", "powershell"), ("lab", "freebsd-rc"), ("nas", "truenas-api")])
def test_seed000_core_golden(host, flavour):
    plan = plan_mesh(seed000_core())
    existing = CORE_HOSTS_NOW if flavour == "truenas-api" else None
    assert_golden(f"seed000-core/{host}.{flavour}.txt", dump(render_host(plan, host, flavour, existing_hosts=existing)))


def test_seed000_labels_golden():
    plan = plan_mesh(seed000_scale())
    assert_golden("seed000-scale/labels.txt", plan.labels_text)
    assert_golden("seed000-scale/labels.csv", plan.labels_csv)


def test_seed000_plan_golden():
    # The whole plan as JSON: a change anywhere (addresses, ids, notes, costs) shows up in review.
    assert_golden("seed000-scale/plan.json", plan_mesh(seed000_scale()).model_dump_json(indent=2) + "\n")


def test_lab_hosts_netplan_golden():
    assert_golden("lab/nas.netplan.txt", dump(render_host(plan_mesh(lab_hosts()), "nas", "netplan")))


def test_render_all_gives_every_flavour_of_every_host():
    rendered = render_all(plan_mesh(seed000_scale()))
    assert {host: [c.flavour for c in configs] for host, configs in rendered.items()} == {
        "desk": ["powershell"], "lab": ["netplan", "networkd", "ifupdown"], "nas": ["truenas-api"],
    }


def test_truenas_hosts_keep_the_users_entries():
    plan = plan_mesh(seed000_scale())
    calls = render_host(plan, "nas", existing_hosts=SCALE_HOSTS_NOW).api_calls
    hosts = calls[-1].params[0]["hosts"]
    assert hosts[:2] == SCALE_HOSTS_NOW
    again = render_host(plan, "nas", existing_hosts=hosts).api_calls[-1].params[0]["hosts"]
    assert again == hosts  # applying the plan twice changes nothing
    core = plan_mesh(seed000_core())
    text = render_host(core, "nas", existing_hosts=CORE_HOSTS_NOW).api_calls[-1].params[0]["hosts"]
    assert text.startswith(CORE_HOSTS_NOW) and text.endswith(f"{END_MARK}\n")
    # No existing value given: the form follows the kind (SCALE 23.10+ list, CORE string).
    assert isinstance(render_host(plan, "nas").api_calls[-1].params[0]["hosts"], list)
    assert isinstance(render_host(core, "nas").api_calls[-1].params[0]["hosts"], str)


def test_truenas_interface_updates_match_the_plan():
    plan = plan_mesh(seed000_scale())
    updates = [c for c in render_host(plan, "nas").api_calls if c.method == "interface.update"]
    assert len(updates) == 2
    for call in updates:
        name, body = call.params
        port = next(p for p in plan.host("nas").ports if p.port == name)
        address, prefix = port.address.split("/")
        assert body["aliases"] == [{"type": "INET", "address": address, "netmask": int(prefix)}]
        assert body["mtu"] == 9000 and body["ipv4_dhcp"] is False


def test_rc_conf_block_merges_idempotently():
    plan = plan_mesh(seed000_core())
    (rc_conf, hosts) = render_host(plan, "lab", "freebsd-rc").files
    assert (rc_conf.path, rc_conf.how, hosts.path) == ("/etc/rc.conf", "marked-block", "/etc/hosts")
    current = 'hostname="lab"\nifconfig_em0="DHCP"\nzfs_enable="YES"\n'
    once = merge_marked_block(current, rc_conf.content.splitlines())
    assert once.startswith(current) and BEGIN_MARK in once
    assert merge_marked_block(once, rc_conf.content.splitlines()) == once


def test_powershell_jumbo_only_above_1500():
    assert "*JumboPacket" in render_host(plan_mesh(seed000_scale()), "desk").files[0].content
    assert "*JumboPacket" not in render_host(plan_mesh(seed000_core()), "desk").files[0].content


def test_templates_are_package_resources_and_all_used():
    shipped = {p.name for p in (resources.files("tengig.mesh") / "templates").iterdir() if p.name.endswith(".j2")}
    assert shipped == {"netplan.yaml.j2", "networkd.network.j2", "ifupdown.j2", "freebsd-rc.conf.j2", "windows.ps1.j2"}
    flavours = {f for fl in FLAVOURS_BY_KIND.values() for f in fl}
    assert flavours == {"truenas-api", "netplan", "networkd", "ifupdown", "freebsd-rc", "powershell"}


def test_missing_template_values_are_errors_not_blanks():
    env = _environment()
    assert env.undefined is jinja2.StrictUndefined and env.autoescape is False
    with pytest.raises(jinja2.UndefinedError):
        env.get_template("ifupdown.j2").render(host="nas", mtu=1500)  # no links given


def test_truenas_warns_about_user_entries_that_would_win():
    plan = plan_mesh(seed000_scale())
    config = render_host(plan, "nas", existing_hosts=["10.0.0.7 desk desk.lan", "192.168.1.20 printer"])
    assert config.warnings == [
        "nas: the existing hosts entry '10.0.0.7 desk desk.lan' comes before tengig's and would win; "
        "remove it so the name resolves to the direct cable"
    ]
    assert config.api_calls[-1].params[0]["hosts"][0] == "10.0.0.7 desk desk.lan"  # warned about, not edited
    assert render_host(plan, "nas", existing_hosts=SCALE_HOSTS_NOW).warnings == []
