"""What the front end decides before an engine runs: the calls that cannot
reach an engine at all (trafilatura's own objects, lxml trees, responses,
changed int-digit limits or settings lists, negative size settings) go to the
installed trafilatura. Bytes in any charset, compressed or not, reach the
engine (trafila._decoding decodes them as each release does). What the engine
itself does not implement, it says by raising ``NotNative``."""

from __future__ import annotations

import sys
from typing import Any, Dict, Optional

from ._delegation import _installed_version
from ._trees import _is_lxml

_SIZE_SETTINGS = (
    "MIN_EXTRACTED_SIZE", "MIN_OUTPUT_SIZE", "MIN_OUTPUT_COMM_SIZE", "MIN_DUPLCHECK_SIZE",
    "MAX_REPETITIONS", "MAX_FILE_SIZE", "MIN_FILE_SIZE",
)
CPYTHON_INT_DIGITS = 4300


def _input_reason(filecontent: Any) -> Optional[str]:
    if isinstance(filecontent, str):
        return None
    if isinstance(filecontent, bytes):
        # every charset and compression: the engine decodes (trafila._decoding) or raises NotNative
        return None
    if _is_lxml(filecontent) and hasattr(filecontent, "tag"):
        return "lxml tree input"
    if hasattr(filecontent, "data"):
        return "HTTP response input"
    # anything else: the engine's load_html refuses it and the call gives None, as upstream
    return None


def _config_reason(config: Any) -> Optional[str]:
    if config is None or not hasattr(config, "get"):
        return None
    for key in _SIZE_SETTINGS:
        try:
            value = int(config.get("DEFAULT", key, fallback="0"))
        except (ValueError, TypeError):
            return None  # the engine raises what upstream raises
        if value < 0:
            return f"negative {key}"
    return None


def input_reason(filecontent: Any) -> Optional[str]:
    """Why an input alone must be delegated (lxml trees, responses, another
    int-digits limit), or None."""
    limit = getattr(sys, "get_int_max_str_digits", None)
    if limit is not None and limit() != CPYTHON_INT_DIGITS:
        return f"sys.set_int_max_str_digits({limit()})"
    return _input_reason(filecontent)


#: trafilatura.settings' element lists, which trafilatura documents as changeable in place (its issue #746)
_SETTINGS_LISTS = ("MANUALLY_CLEANED", "MANUALLY_STRIPPED", "CUT_EMPTY_ELEMS")


def _settings_reason() -> Optional[str]:
    """A user changed the installed trafilatura 2.3.1's element lists in place:
    its extraction changes with them, so the call goes to it."""
    theirs = sys.modules.get("trafilatura.settings")
    if theirs is None or _installed_version() != "2.3.1":
        return None
    from .v2_3_1 import settings as ours  # noqa: PLC0415

    for name in _SETTINGS_LISTS:
        value = getattr(theirs, name, None)
        if value is not None and value != getattr(ours, name):
            return f"trafilatura.settings.{name} changed in place"
    return None


#: options the 2.3.1 engine implements (its unit tests compare them with trafilatura on
#: synthetic pages) that the harness matrix does not hold yet: delegated until it does
_NOT_YET_PROVEN = (("target_language", "target_language"),)


def boundary_reason(function: str, args: Dict[str, Any], default_config: Any) -> Optional[str]:
    """Why this 2.3.1-mode call cannot reach an engine and must go to the
    installed trafilatura, or None. Options an engine does not implement are
    not decided here: the engine raises ``NotNative`` for them."""
    limit = getattr(sys, "get_int_max_str_digits", None)
    if limit is not None and limit() != CPYTHON_INT_DIGITS:
        return f"sys.set_int_max_str_digits({limit()})"
    options = args.get("options")
    if options is not None and type(options).__module__.startswith("trafilatura"):
        return "options= a trafilatura Extractor"
    for name, label in _NOT_YET_PROVEN:
        if args.get(name):
            return label
    dedup = args.get("deduplicate")
    if dedup is not None and type(dedup).__module__.startswith("trafilatura"):
        return "deduplicate= trafilatura's own LRUCache"
    reason = _input_reason(args.get("filecontent")) or _settings_reason()
    if reason:
        return reason
    config = args.get("config")
    if config is default_config:
        config = None
    if args.get("settingsfile"):
        try:
            from .v2_3_1.settings import use_config  # noqa: PLC0415

            config = use_config(args["settingsfile"])
        except Exception:  # noqa: BLE001 - the engine raises it
            config = None
    return _config_reason(config)
