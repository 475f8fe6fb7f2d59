"""Every refusal names the input field to fix, in the request's own order (hosts.N, not sorted)."""
import pytest

from tengig.errors import ValidationError
from tengig.mesh import plan_mesh, render_host

from .layouts import full_mesh, port, seed000_scale


def _fields(request) -> list[str]:
    with pytest.raises(ValidationError) as info:
        plan_mesh(request)
    return [field for field, _ in info.value.errors]


def _message(request, field: str) -> str:
    with pytest.raises(ValidationError) as info:
        plan_mesh(request)
    return dict(info.value.errors)[field]


def _edit(edit) -> dict:
    request = seed000_scale()  # hosts: 0 desk (windows), 1 nas (truenas-scale), 2 lab (linux)
    edit(request)
    return request


def test_too_few_ports_names_the_host():
    request = _edit(lambda r: r["hosts"][2]["ports"].pop())
    assert _fields(request) == ["hosts.2.ports"]
    assert _message(request, "hosts.2.ports") == (
        "lab needs 2 ports (one per peer: desk, nas) but lists 1; add ports or leave hosts out"
    )


def test_duplicate_host_name():
    request = _edit(lambda r: r["hosts"][2].update(name="nas"))
    assert _fields(request) == ["hosts.2.name"]
    assert "already hosts.1" in _message(request, "hosts.2.name")


def test_duplicate_port_name_windows_is_case_insensitive():
    request = _edit(lambda r: r["hosts"][0]["ports"][1].update(name="ETHERNET 2"))
    assert _fields(request) == ["hosts.0.ports.1.name"]


@pytest.mark.parametrize(
    "host_index, port_name",
    [
        (2, "eth0; reboot"),        # Linux: no shell metacharacters
        (2, "a" * 16),              # Linux: IFNAMSIZ
        (0, "Ethernet 2'"),         # Windows: no quotes (single-quoted PowerShell strings)
        (0, " Ethernet"),           # Windows: no leading blank
    ],
)
def test_port_names_checked_against_the_hosts_os(host_index, port_name):
    request = _edit(lambda r: r["hosts"][host_index]["ports"][0].update(name=port_name))
    assert _fields(request) == [f"hosts.{host_index}.ports.0.name"]


def test_freebsd_port_names_must_fit_rc_conf_variables():
    request = _edit(lambda r: r["hosts"][2].update(kind="freebsd"))  # enp4s0f0 is fine ...
    plan_mesh(request)
    request["hosts"][2]["ports"][0]["name"] = "vlan.100"  # ... a dot is not (ifconfig_vlan.100=...)
    assert _fields(request) == ["hosts.2.ports.0.name"]


@pytest.mark.parametrize("name", ["NAS", "nas_1", "-nas", "nas.lan", ""])
def test_host_names_are_dns_labels(name):
    request = _edit(lambda r: r["hosts"][1].update(name=name))
    assert "hosts.1.name" in _fields(request)


def test_name_with_suffix_must_still_be_a_label():
    request = _edit(lambda r: r["hosts"][1].update(name="n" * 60))
    request["options"]["name_suffix"] = "-10g"
    assert _fields(request) == ["hosts.1.name"]


def test_pydantic_errors_keep_their_field_paths():
    request = _edit(lambda r: r["hosts"][1]["ports"][0].update(speed_bps="fast"))
    assert _fields(request) == ["hosts.1.ports.0.speed_bps"]
    assert _fields(_edit(lambda r: r["hosts"][1].update(kind="solaris"))) == ["hosts.1.kind"]
    assert _fields(_edit(lambda r: r["options"].update(prefix=29))) == ["options.prefix"]
    assert _fields(_edit(lambda r: r["options"].update(mtu=1400))) == ["options.mtu"]
    assert _fields(_edit(lambda r: r["options"].update(mtu=9217))) == ["options.mtu"]
    assert _fields(_edit(lambda r: r.update(colour="blue"))) == ["colour"]  # unknown keys are refused
    assert _fields(_edit(lambda r: r["hosts"][0]["ports"][0].update(card="X540\nifconfig_em0=dhcp"))) == [
        "hosts.0.ports.0.card"
    ]


def test_no_common_speed_names_the_pair():
    request = _edit(lambda r: [p.update(speed_bps="25g") for p in r["hosts"][2]["ports"]])
    with pytest.raises(ValidationError) as info:
        plan_mesh(request)
    # Both of lab's pairs, each blamed on lab (the host listed last, usually the one just added).
    assert info.value.errors == [
        ("hosts.2.ports", "desk and lab have no port speed in common (desk has 10 Gb/s; lab has 25 Gb/s); "
                          "a cable needs the same speed at both ends"),
        ("hosts.2.ports", "lab and nas have no port speed in common (lab has 25 Gb/s; nas has 10 Gb/s); "
                          "a cable needs the same speed at both ends"),
    ]


def test_speed_shortage_names_the_host_that_runs_out():
    request = {"hosts": [
        {"name": "nas", "kind": "linux", "ports": [port("p10", speed="10g"), port("p25", speed="25g")]},
        {"name": "desk", "kind": "linux", "ports": [port("q0"), port("q1")]},
        {"name": "lab", "kind": "linux", "ports": [port("r0"), port("r1")]},
    ]}
    assert _fields(request) == ["hosts.0.ports"]
    assert _message(request, "hosts.0.ports").startswith("nas needs 2 free 10 Gb/s ports")


def test_reserved_port_errors():
    unknown = _edit(lambda r: r["hosts"][1]["ports"][0].update(peer="printer"))
    assert _fields(unknown) == ["hosts.1.ports.0.peer"]
    itself = _edit(lambda r: r["hosts"][1]["ports"][0].update(peer="nas"))
    assert _fields(itself) == ["hosts.1.ports.0.peer"]
    twice = _edit(lambda r: [p.update(peer="desk") for p in r["hosts"][1]["ports"]])
    assert _fields(twice) == ["hosts.1.ports.1.peer"]


def test_reserved_ports_at_both_ends_must_agree_in_speed():
    def edit(r):
        r["hosts"][1]["ports"][0].update(peer="lab")
        r["hosts"][2]["ports"][0].update(peer="nas", speed_bps="25g")
    request = _edit(edit)
    assert _fields(request) == ["hosts.1.ports.0.peer"]  # once, at the host listed first


def test_existing_network_errors_point_at_the_entry():
    bad = _edit(lambda r: r["existing_networks"].append("192.168.1.300/24"))
    assert _fields(bad) == ["existing_networks.1"]
    covering = _edit(lambda r: r["existing_networks"].append("10.0.0.0/8"))
    assert _fields(covering) == ["existing_networks.1"]
    assert "covers the whole address pool 10.250.0.0/16" in _message(covering, "existing_networks.1")


def test_pool_errors():
    assert _fields(_edit(lambda r: r["options"].update(address_pool="10.250.0.1/16"))) == ["options.address_pool"]
    assert _fields(_edit(lambda r: r["options"].update(address_pool="fd00::/64"))) == ["options.address_pool"]
    # a /24 per link does not fit a /26 pool at all
    assert _fields(_edit(lambda r: r["options"].update(address_pool="10.250.0.0/26", prefix=24))) == ["options.prefix"]


def test_pool_too_small_for_the_links():
    request = full_mesh(8)  # 28 cables
    request["options"] = {"address_pool": "10.250.0.0/26", "prefix": 30}  # 16 /30s
    assert _message(request, "options.address_pool") == (
        "10.250.0.0/26 holds only 16 /30 subnets, and the mesh needs 28 (one per cable); "
        "use a larger pool or a longer prefix"
    )
    request["existing_networks"] = ["10.250.0.0/27"]  # the pool minus what is in use
    request["options"]["address_pool"] = "10.250.0.0/24"
    request["options"]["prefix"] = 31
    plan = plan_mesh(request)  # 128 /31s, 16 taken: enough
    assert plan.cables[0].subnet == "10.250.0.32/31"


def test_windows_refuses_slash31():
    request = _edit(lambda r: r["options"].update(prefix=31))
    assert _fields(request) == ["options.prefix"]
    assert "desk runs Windows" in _message(request, "options.prefix")


def test_errors_are_collected_not_one_at_a_time():
    def edit(r):
        r["hosts"][0]["ports"][0]["name"] = "bad'name"
        r["hosts"][2]["name"] = "LAB"
    assert sorted(_fields(_edit(edit))) == ["hosts.0.ports.0.name", "hosts.2.name"]


def test_render_refuses_a_flavour_the_host_cannot_take():
    plan = plan_mesh(seed000_scale())
    with pytest.raises(ValidationError) as info:
        render_host(plan, "desk", "netplan")
    assert info.value.errors == [("flavour", "desk is windows: it takes powershell, not 'netplan'")]
    with pytest.raises(ValidationError) as info:
        render_host(plan, "printer")
    assert info.value.errors[0][0] == "host"


def test_slash24_numbering_stops_at_254_hosts():
    request = full_mesh(255)
    request["options"] = {"address_pool": "10.0.0.0/8", "prefix": 24}
    for host in request["hosts"]:
        host["ports"] = host["ports"][:254]
    assert _fields(request) == ["options.prefix"]
