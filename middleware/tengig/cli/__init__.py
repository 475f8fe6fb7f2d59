"""tengig's command line (click). Errors become exit codes in one place: main.py."""
