"""smb.conf's [global] as text (pure): one option set the way a person edits it at the NAS, every other line
kept as it was."""
from __future__ import annotations


def with_global_option(conf_text: str, name: str, value: str) -> str:
    """smb.conf's text with ``name = value`` in [global] (an earlier line of that name replaced); ``name`` in
    lower case, as Samba compares option names."""
    out, in_global = [], False
    for line in conf_text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            in_global = stripped.lower() == "[global]"
            out.append(line)
            if in_global:
                out.append(f"    {name} = {value}")
            continue
        if in_global and stripped.split("=", 1)[0].strip().lower() == name:
            continue
        out.append(line)
    return "\n".join(out) + "\n"
