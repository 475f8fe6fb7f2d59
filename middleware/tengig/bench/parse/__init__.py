"""The tool-output parsers: fio's, iperf3's, smbclient's, robocopy's, zpool iostat's, /proc/diskstats and
tengig's own copy lines, read into models. Pure, and nothing else of bench: a tool's new output changes only
these."""
