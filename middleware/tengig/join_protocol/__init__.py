"""The join protocol: the contract between the NAS's run (bench/join/) and a desktop that joins it (desk/, and
the Windows kit desk/kit.py renders), in one place both sides import.

- messages.py: the three methods a desktop calls, what it says when it joins, the instruction kinds, and what
  it answers (each field with its bounds);
- limits.py: the bounds of every value an instruction carries (sizes, counts, seconds, ops), and tengig's
  iperf3 ports;
- naming.py: the shapes of names: join tokens, a desktop's name, its directories in the share and on its disk;
- lines.py: the lines a desktop prints for what it timed itself (tengig-copy, tengig-small), which the NAS reads;
- parts.py: the rule for a long answer: in parts that each fit one message of a connection that never logs in.

It sits low (only tengig's core below it: errors, units), so either side may import it and neither imports the
other: the desktop's client imports nothing of the NAS's benchmark."""
