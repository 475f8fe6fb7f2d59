"""`python -m tengig`: the same as the `tengig` command (the lab starts tengig on its hosts this way)."""
import sys

from .cli.main import main

sys.exit(main())
