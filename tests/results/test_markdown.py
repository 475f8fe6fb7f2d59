"""The Markdown report's environment: what results/environment.py recorded, as a table a Markdown parser reads."""
from __future__ import annotations

from markdown_it import MarkdownIt

from tengig.results.markdown import environment_section, md
from tengig.results.models import Environment, Nic


def test_environment_table_names_truenas_the_pool_layout_nics_and_tool_versions():
    env = Environment(truenas_version="25.04.2.6", pool_layout="mirror-0 (sda, sdb); logs: nvme0n1",
                      os="Debian GNU/Linux 12 (bookworm)", tools={"fio": "fio-3.33", "smbd": None},
                      nics=[Nic(name="enp1s0|x", speed_bps=10**10, mtu=9000, driver="ixgbe")])
    html = MarkdownIt("commonmark").enable("table").render("\n".join(environment_section(env)))
    assert "<td>TrueNAS</td>\n<td>25.04.2.6</td>" in html
    assert "<td>pool layout</td>\n<td>mirror-0 (sda, sdb); logs: nvme0n1</td>" in html
    assert "<td>enp1s0|x</td>\n<td>10 Gb/s</td>\n<td>9000 bytes</td>\n<td>ixgbe</td>" in html  # '|' stays in its cell
    assert "<td>smbd</td>\n<td>not found</td>" in html


def test_md_escapes_what_markdown_would_read_as_markup():
    assert md("a|b *c* [d](e) <f> `g`\nh") == "a\\|b \\*c\\* \\[d\\](e) \\<f\\> \\`g\\` h"
    assert md("read_bytes_per_s _x_") == "read_bytes_per_s \\_x\\_"
