"""docs/physics.md §1's table, computed."""
import pytest

from tengig.verdict.ceilings import tbf_rate_for_ethernet, tcp_goodput_bps

G = 10**9


@pytest.mark.parametrize(
    "line, mtu, goodput",
    [
        (100e6, 1500, 94.1e6),
        (1 * G, 1500, 941e6),
        (2.5 * G, 1500, 2.354 * G),
        (10 * G, 1500, 9.415 * G),
        (25 * G, 1500, 23.54 * G),
        (100e6, 9000, 99.0e6),
        (1 * G, 9000, 990e6),
        (2.5 * G, 9000, 2.475 * G),
        (10 * G, 9000, 9.900 * G),
        (25 * G, 9000, 24.75 * G),
    ],
)
def test_goodput_table(line, mtu, goodput):
    assert tcp_goodput_bps(line, mtu) == pytest.approx(goodput, rel=6e-4)


def test_goodput_in_megabytes():
    assert tcp_goodput_bps(10 * G) / 8 / 1e6 == pytest.approx(1176.9, abs=0.1)
    assert tcp_goodput_bps(1 * G) / 8 / 1e6 == pytest.approx(117.7, abs=0.05)
    assert tcp_goodput_bps(100e6) / 8 / 1e6 == pytest.approx(11.77, abs=0.01)


def test_without_timestamps_and_ipv6():
    assert tcp_goodput_bps(10 * G, 1500, timestamps=False) == pytest.approx(9.493 * G, rel=5e-4)
    assert tcp_goodput_bps(10 * G, 1500, ipv6=True) < tcp_goodput_bps(10 * G, 1500)


def test_tbf_rate_gives_ethernet_goodput_through_tbf_accounting():
    # tbf charges MTU + 14 per packet; goodput through it = tbf_rate x (MTU-52)/(MTU+14)
    tbf = tbf_rate_for_ethernet(1 * G)
    assert tbf * (1500 - 52) / (1500 + 14) == pytest.approx(tcp_goodput_bps(1 * G), rel=1e-9)


def test_bad_inputs():
    with pytest.raises(ValueError):
        tcp_goodput_bps(0)
    with pytest.raises(ValueError):
        tcp_goodput_bps(G, 100)
