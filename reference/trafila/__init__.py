"""trafila: trafilatura's text extraction, byte for byte, faster.

``import trafila as trafilatura`` is meant to give the same text as
trafilatura 2.3.1 (default) or 1.11.0 (``compat="1.11.0"``).
"""

__version__ = "0.1.0.dev0"

TRAFILATURA_VERSIONS = ("2.3.1", "1.11.0")

REPRODUCED_VERSIONS = {
    "2.3.1": {"trafilatura": "2.3.1", "lxml": "6.1.3", "libxml2": "2.14.6", "justext": "3.0.2"},
    "1.11.0": {"trafilatura": "1.11.0", "lxml": "6.1.3", "libxml2": "2.14.6", "justext": "3.0.2"},
}
