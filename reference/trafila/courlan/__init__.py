"""The parts of courlan 1.4.0 that trafilatura's metadata extraction calls (both
releases pin courlan 1.4.0), one module per courlan module: ``clean``
(normalize_url), ``filters`` (validate_url, is_valid_url) and ``urlutils``
(extract_domain, get_base_url), with the Public Suffix List lookup of tld 0.13.2
that ``extract_domain`` falls back on in ``_tld``."""

from .clean import normalize_url
from .filters import is_valid_url, validate_url
from .urlutils import extract_domain, get_base_url

__all__ = ["extract_domain", "get_base_url", "is_valid_url", "normalize_url", "validate_url"]
