"""``python -m harness`` -- the differential harness's command line."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
