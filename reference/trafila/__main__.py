"""``python -m trafila``: the ``trafila`` command (see :mod:`trafila.cli`)."""

from trafila.cli import console_main

if __name__ == "__main__":
    console_main()
