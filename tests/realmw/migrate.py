"""Build TrueNAS's configuration database as TrueNAS's own build does (debian/rules: ``initial.sql``,
then ``alembic upgrade head`` with middlewared's migrations), for a test TrueNAS whose ``datastore``
plugin runs for real. Run by a test TrueNAS's interpreter (its .pth puts the source and stubs.py on
the path), never imported by tengig:

    python -P migrate.py SOURCE_DIR DB_PATH      (SOURCE_DIR holds the `middlewared` package)

Stand-ins, each for something that cannot run here:
- alembic's env.py imports every plugin so that ``autogenerate`` sees all models; ``upgrade`` uses
  none of them, and most plugins need TrueNAS's native modules: ``load_modules`` yields nothing.
- the migrations import a few modules no package registry has (stubs.py, MIGRATION_STUBS).
- one migration asks ``setserial`` (not installed here) for the machine's serial ports: there are none.
"""
from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

import stubs

MIGRATION_STUBS = ("truenas_verify", "aws_requests_auth", "boto3", "botocore", "aiorwlock", "truenas_connect_utils")


def main() -> None:
    source, db = Path(sys.argv[1]), Path(sys.argv[2])
    package = source / "middlewared"
    stubs.ROOTS.update(MIGRATION_STUBS)
    with sqlite3.connect(db) as connection:
        connection.executescript((package / "alembic" / "initial.sql").read_text())
    os.environ["FREENAS_DATABASE"] = str(db)

    import middlewared.utils.plugins as plugins
    import middlewared.utils.serial as serial

    plugins.load_modules = lambda *args, **kwargs: iter(())
    serial.serial_port_choices = lambda: []

    from alembic import command
    from alembic.config import Config

    os.chdir(package)  # alembic.ini names its script and version directories relative to it
    command.upgrade(Config("alembic.ini"), "head")


if __name__ == "__main__":
    main()
