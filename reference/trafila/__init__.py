"""trafila: trafilatura's text extraction, byte for byte, faster.

``import trafila as trafilatura`` gives the text trafilatura 2.3.1 gives
(default) or, with ``compat="1.11.0"``, what trafilatura 1.11.0 gives. The
three extraction functions keep trafilatura's parameters, in the same order
and with the same defaults, plus one keyword-only ``compat``.

What trafila does not run natively (other output formats, metadata, links,
images, formatting …) is handed to the installed trafilatura of the same
release, with one :class:`FallbackWarning` per function and reason; without it
a :class:`TrafilaError` names what is needed.
"""

from __future__ import annotations

import inspect
import logging
import warnings
from configparser import ConfigParser
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Set, Tuple, Union

from . import _document, _engine, _gate, _route, _trees
from ._delegation import FallbackWarning, TrafilaError, delegate, user_stacklevel
from ._batch import extract_batch
from ._engine import CoreMissingWarning, EngineUnavailable, NotNative
from .patch import PatchWarning, patch, unpatch
from .simhash import Simhash, content_fingerprint

__version__ = "0.1.0"

# as trafilatura does for its logger: nothing printed unless the application configures logging
logging.getLogger(__name__).addHandler(logging.NullHandler())

#: the trafilatura releases trafila reproduces, default first
TRAFILATURA_VERSIONS = _engine.MODES

#: the releases behind each mode (charset_normalizer: the charset detection of bytes input,
#: trafila's ``charset`` extra)
REPRODUCED_VERSIONS: Dict[str, Dict[str, str]] = {
    "2.3.1": {"trafilatura": "2.3.1", "lxml": "6.1.3", "libxml2": "2.14.6", "justext": "3.0.2",
              "charset_normalizer": "3.5.3"},
    "1.11.0": {"trafilatura": "1.11.0", "lxml": "6.1.3", "libxml2": "2.14.6", "justext": "3.0.2",
               "charset_normalizer": "3.5.3"},
}

DEFAULT_MODE = "2.3.1"

if TYPE_CHECKING:  # at run time these are looked up on first use (module __getattr__ below)
    from ._document import _PlainDocument as Document
    from .v2_3_1.deduplication import LRU_TEST, LRUCache, duplicate_test
    from .v2_3_1.utils import sanitize, trim

    DEFAULT_CONFIGS: Dict[str, ConfigParser]
    delegated_calls: int

__all__ = [
    "extract", "extract_batch", "bare_extraction", "extract_with_metadata", "baseline", "html2txt",
    "load_html", "extract_metadata", "fetch_url", "fetch_response", "reset_caches", "patch", "unpatch",
    "Document", "LRUCache", "LRU_TEST", "DEFAULT_CONFIG", "DEFAULT_CONFIGS",
    "sanitize", "trim", "duplicate_test", "Simhash", "content_fingerprint",
    "TrafilaError", "FallbackWarning", "PatchWarning", "TRAFILATURA_VERSIONS", "REPRODUCED_VERSIONS",
    "Engine", "engine", "engines_built", "EngineUnavailable", "NotNative", "CoreMissingWarning", "about",
    "__version__",
]

#: the engine a call runs on: set only for the duration of a call made through an Engine
_CALL_ENGINE: ContextVar[Optional[str]] = ContextVar("trafila_call_engine", default=None)


def _impl(mode: str) -> _engine.Implementation:
    return _engine.implementation(mode, _CALL_ENGINE.get())


class _DefaultConfig:
    """Stands for trafilatura's DEFAULT_CONFIG in signatures (the mode's own is used)."""

    def __repr__(self) -> str:
        return "DEFAULT_CONFIG"


DEFAULT_CONFIG: Any = _DefaultConfig()


def _delegate(function: str, reason: str, mode: str, args: Dict[str, Any]) -> Any:
    impl = _impl(mode)
    if isinstance(args.get("config"), _DefaultConfig):
        args["config"] = impl.DEFAULT_CONFIG
    return delegate(function, reason, mode, args, impl)


def _native_deprecations(function: str, args: Dict[str, Any]) -> bool:
    """trafilatura's DeprecationWarnings for no_fallback/as_dict, pointing at the
    caller's line as upstream's do; the engine then gets the modern spelling.
    Returns whether a dict was asked for."""
    if args.get("no_fallback"):
        warnings.warn('"no_fallback" will be removed, use "fast" instead', DeprecationWarning, stacklevel=user_stacklevel())
        args["fast"], args["no_fallback"] = args.get("fast") or args["no_fallback"], False
    if function == "bare_extraction" and args.get("as_dict"):
        warnings.warn('"as_dict" will be removed, use the .as_dict() method instead', DeprecationWarning, stacklevel=user_stacklevel())
        args["as_dict"] = False
        return True
    return False


class _FalseDefault(int):
    """``False`` as a default that can be told apart from an explicit ``False``.

    It equals False (so the signatures equal trafilatura 2.3.1's) and is falsy;
    the 1.11.0 mode needs to know whether ``fast``/``as_dict`` were passed,
    because 1.11.0's bare_extraction has no ``fast`` and defaults ``as_dict`` to True.
    """

    def __repr__(self) -> str:
        return "False"


_DEFAULT_FALSE: Any = _FalseDefault(0)


def _args_for_1_11_0(function: str, args: Dict[str, Any]) -> Dict[str, Any]:
    """The 2.3.1-shaped public arguments as trafilatura 1.11.0 takes them."""
    if function == "bare_extraction":
        if args.pop("fast") is not _DEFAULT_FALSE:
            raise TypeError("bare_extraction() got an unexpected keyword argument 'fast'")
        if args["as_dict"] is _DEFAULT_FALSE:
            args["as_dict"] = True  # 1.11.0's default
    else:
        args["fast"] = bool(args["fast"])  # extract swallows it (**kwargs) and ignores it
        args.update(args.pop("kwargs", None) or {})
    if args.get("include_formatting") is None:
        args["include_formatting"] = False  # 1.11.0's default
    return args


def _run(function: str, compat: str, args: Dict[str, Any]) -> Any:
    _engine.check_mode(compat)
    impl = _impl(compat)
    want_dict = False
    if compat == "1.11.0":
        args = _args_for_1_11_0(function, args)
    reason = _route.handover_reason(function, compat, args)
    if reason is not None:
        return _delegate(function, reason, compat, args)
    if compat == "2.3.1":
        want_dict = _native_deprecations(function, args)
    if isinstance(args.get("config"), _DefaultConfig):
        args["config"] = impl.DEFAULT_CONFIG
    try:
        run = getattr(impl, function, None)
        if run is None:
            raise NotNative("metadata extraction")  # an engine without extract_with_metadata
        result = run(**args)
    except NotNative as err:
        result = _delegate(function, err.reason, compat, args)
        return result.as_dict() if want_dict and result is not None else result
    if compat == "2.3.1" and function in ("bare_extraction", "extract_with_metadata") and result is not None:
        doc = _document.wrap_document(result)
        return doc.as_dict() if want_dict else doc
    return result


def extract(
    filecontent: Any,
    url: Optional[str] = None,
    record_id: Optional[str] = None,
    fast: bool = False,
    no_fallback: bool = False,
    favor_precision: bool = False,
    favor_recall: bool = False,
    include_comments: bool = True,
    output_format: str = "txt",
    tei_validation: bool = False,
    target_language: Optional[str] = None,
    include_tables: bool = True,
    include_images: bool = False,
    include_formatting: Optional[bool] = None,
    include_links: bool = False,
    deduplicate: Union[bool, Any] = False,
    date_extraction_params: Optional[Dict[str, Any]] = None,
    with_metadata: bool = False,
    only_with_metadata: bool = False,
    max_tree_size: Optional[int] = None,
    url_blacklist: Optional[Set[str]] = None,
    author_blacklist: Optional[Set[str]] = None,
    settingsfile: Optional[str] = None,
    prune_xpath: Optional[Union[str, list]] = None,
    config: ConfigParser = DEFAULT_CONFIG,
    options: Optional[Any] = None,
    *,
    compat: str = DEFAULT_MODE,
    **kwargs: Any,
) -> Optional[str]:
    """Extract the main text of a page, as trafilatura's ``extract`` does.

    Same parameters as trafilatura 2.3.1's ``extract``; ``compat`` selects the
    release reproduced ("2.3.1" or "1.11.0"). Returns the text or None.
    Other keywords: a TypeError in 2.3.1 mode; ignored in 1.11.0 mode, as
    1.11.0's ``extract(**kwargs)`` does (its old ``*_output`` names raise NameError).
    """
    args = dict(locals())
    del args["compat"]
    extra = args.pop("kwargs")
    if extra:
        if compat != "1.11.0":
            raise TypeError(f"extract() got an unexpected keyword argument '{next(iter(extra))}'")
        args["kwargs"] = extra
    return _run("extract", compat, args)


#: the genuine extract: extract_batch's worker processes are used only while trafila.extract is this one
_EXTRACT = extract

# the public signature is trafilatura 2.3.1's (plus compat): **kwargs exists only for 1.11.0 mode
extract.__signature__ = inspect.signature(extract).replace(  # type: ignore[attr-defined]
    parameters=[p for p in inspect.signature(extract).parameters.values() if p.kind is not p.VAR_KEYWORD]
)


def bare_extraction(
    filecontent: Any,
    url: Optional[str] = None,
    fast: bool = _DEFAULT_FALSE,
    no_fallback: bool = False,
    favor_precision: bool = False,
    favor_recall: bool = False,
    include_comments: bool = True,
    output_format: str = "python",
    target_language: Optional[str] = None,
    include_tables: bool = True,
    include_images: bool = False,
    include_formatting: Optional[bool] = None,
    include_links: bool = False,
    deduplicate: Union[bool, Any] = False,
    date_extraction_params: Optional[Dict[str, Any]] = None,
    with_metadata: bool = False,
    only_with_metadata: bool = False,
    max_tree_size: Optional[int] = None,
    url_blacklist: Optional[Set[str]] = None,
    author_blacklist: Optional[Set[str]] = None,
    as_dict: bool = _DEFAULT_FALSE,
    prune_xpath: Optional[Union[str, list]] = None,
    config: ConfigParser = DEFAULT_CONFIG,
    options: Optional[Any] = None,
    *,
    compat: str = DEFAULT_MODE,
) -> Any:
    """Extract text and the extracted trees, as trafilatura's ``bare_extraction`` does.

    Returns a Document (fields text, comments, raw_text, body, commentsbody),
    a dict with ``as_dict=True``, or None.
    """
    args = dict(locals())
    del args["compat"]
    return _run("bare_extraction", compat, args)


def extract_with_metadata(
    filecontent: Any,
    url: Optional[str] = None,
    record_id: Optional[str] = None,
    fast: bool = False,
    favor_precision: bool = False,
    favor_recall: bool = False,
    include_comments: bool = True,
    output_format: str = "txt",
    tei_validation: bool = False,
    target_language: Optional[str] = None,
    include_tables: bool = True,
    include_images: bool = False,
    include_formatting: Optional[bool] = None,
    include_links: bool = False,
    deduplicate: Union[bool, Any] = False,
    date_extraction_params: Optional[Dict[str, Any]] = None,
    url_blacklist: Optional[Set[str]] = None,
    author_blacklist: Optional[Set[str]] = None,
    settingsfile: Optional[str] = None,
    prune_xpath: Optional[Union[str, list]] = None,
    config: ConfigParser = DEFAULT_CONFIG,
    options: Optional[Any] = None,
    *,
    compat: str = DEFAULT_MODE,
) -> Any:
    """trafilatura 2.3.1's ``extract_with_metadata``: a Document with the metadata and, in
    ``text``, the output of the chosen format (or None). trafilatura 1.11.0 has no such function."""
    args = dict(locals())
    del args["compat"]
    if compat != "2.3.1":
        raise ValueError(f"extract_with_metadata does not exist in trafilatura {compat}")
    return _run("extract_with_metadata", compat, args)


# --- the rest of trafilatura's top-level API ------------------------------------

def baseline(filecontent: Any) -> Tuple[Any, str, int]:
    """trafilatura 2.3.1's ``baseline``: (body, text, text length) from embedded
    JSON, article tags, paragraphs or the whole body. ``body`` as in Document."""
    reason = _gate.input_reason(filecontent)
    if reason is None:
        try:
            body, text, length = _impl(DEFAULT_MODE).baseline(filecontent)
        except NotNative as err:
            reason = err.reason
        else:
            return _trees._public_tree(body), text, length
    return _delegate("baseline", reason, DEFAULT_MODE, {"filecontent": filecontent})


def html2txt(content: Any, clean: bool = True) -> str:
    """trafilatura 2.3.1's ``html2txt``: all the text of the page body ('' when unparsable)."""
    reason = _gate.input_reason(content)
    if reason is None:
        try:
            return _impl(DEFAULT_MODE).html2txt(content, clean)
        except NotNative as err:
            reason = err.reason
    return _delegate("html2txt", reason, DEFAULT_MODE, {"content": content, "clean": clean})


def load_html(htmlobject: Any, max_size: Optional[int] = None) -> Any:
    """trafilatura's ``load_html`` (an lxml tree): always delegated."""
    return _delegate("load_html", "lxml tree output", DEFAULT_MODE, {"htmlobject": htmlobject, "max_size": max_size})


def extract_metadata(
    filecontent: Any,
    default_url: Optional[str] = None,
    date_config: Optional[Dict[str, Any]] = None,
    extensive: bool = True,
    author_blacklist: Optional[Set[str]] = None,
) -> Any:
    """trafilatura 2.3.1's ``extract_metadata``: the page's metadata in a trafila Document
    (run by the engine; delegated for the inputs only trafilatura takes, such as lxml
    trees, and while the date search is not ported)."""
    args = dict(locals())
    reason = _gate.input_reason(filecontent)
    function = getattr(_impl(DEFAULT_MODE), "extract_metadata", None)
    if reason is None and function is None:
        reason = "metadata extraction"
    if reason is None:
        try:
            return _document.wrap_document(function(**args))
        except NotNative as err:
            reason = err.reason
    return _delegate("extract_metadata", reason, DEFAULT_MODE, args)


def fetch_url(url: str, no_ssl: bool = False, config: ConfigParser = DEFAULT_CONFIG, options: Optional[Any] = None) -> Optional[str]:
    """trafilatura's ``fetch_url``: downloads are always delegated."""
    return _delegate("fetch_url", "download", DEFAULT_MODE, dict(locals()))


def fetch_response(
    url: str,
    *,
    decode: bool = False,
    no_ssl: bool = False,
    with_headers: bool = False,
    config: ConfigParser = DEFAULT_CONFIG,
) -> Any:
    """trafilatura's ``fetch_response``: downloads are always delegated."""
    return _delegate("fetch_response", "download", DEFAULT_MODE, dict(locals()))


def reset_caches() -> None:
    """Empty trafila's caches: the module deduplication caches of every mode and
    engine in use (trafilatura's LRU_TEST), the text helpers' memo caches."""
    for impl in _engine.loaded_implementations():
        impl.reset_caches()
    from . import simhash

    simhash.reset_caches()


# --- one engine, explicitly ------------------------------------------------------------

class Engine:
    """trafila's public functions bound to one engine (``"reference"`` or ``"core"``).

    ``trafila.engine("reference").extract(html)`` runs the reference whatever
    the default is; the functions keep the module-level ones' signatures.
    Both engines can be used side by side in one process.
    """

    def __init__(self, name: str) -> None:
        _engine.check_engine(name)
        if name not in _engine.engines_built():
            raise EngineUnavailable(f"engine {name!r} is not built here")
        self.name = name

    @property
    def modes(self) -> Tuple[str, ...]:
        """The release modes whose extraction this engine runs."""
        return _engine.modes_of(self.name)

    def implementation(self, mode: str = DEFAULT_MODE) -> _engine.Implementation:
        """The engine's Implementation of ``mode`` (EngineUnavailable when it does not run it)."""
        return _engine.implementation(mode, self.name)

    @property
    def parser(self) -> Any:
        """The engine's HTML parser (parse_document, document_fromstring, fromstring)."""
        return _engine.parser(self.name)

    @property
    def dom(self) -> Any:
        """The engine's element model (trafila.dom's names; the core's are proxies over its C document)."""
        return _engine.dom(self.name)

    def LRUCache(self, maxsize: int = 4096, mode: str = DEFAULT_MODE) -> Any:  # noqa: N802 - trafilatura's name
        """A fresh deduplication cache of this engine."""
        return self.implementation(mode).LRUCache(maxsize=maxsize)

    def __repr__(self) -> str:
        return f"trafila.Engine({self.name!r})"


def _bind(function: Callable[..., Any]) -> Callable[..., Any]:
    def method(self: Engine, *args: Any, **kwargs: Any) -> Any:
        token = _CALL_ENGINE.set(self.name)
        try:
            return function(*args, **kwargs)
        finally:
            _CALL_ENGINE.reset(token)

    method.__name__ = method.__qualname__ = function.__name__
    method.__doc__ = function.__doc__
    signature = inspect.signature(function)
    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    # bound, the method shows exactly the function's signature
    method.__signature__ = signature.replace(parameters=[self_param, *signature.parameters.values()])  # type: ignore[attr-defined]
    return method


for _name in ("extract", "extract_batch", "bare_extraction", "extract_with_metadata", "extract_metadata", "baseline",
              "html2txt"):
    setattr(Engine, _name, _bind(globals()[_name]))
del _name

_ENGINES: Dict[str, Engine] = {}


def engine(name: Optional[str] = None, mode: str = DEFAULT_MODE) -> Engine:
    """The :class:`Engine` called ``name`` (default: the one ``mode`` runs on by default)."""
    if name is None:
        name = _engine.default_engine(mode)
    if name not in _ENGINES:
        _ENGINES[name] = Engine(name)
    return _ENGINES[name]


def engines_built() -> Tuple[str, ...]:
    """The engines built here, reference first (``core`` only when compiled)."""
    return _engine.engines_built()


def about() -> str:
    """What ``trafila --version`` prints: the version, the engines built here and each
    mode's default engine (with why the core is missing, if it is), and the releases
    each mode reproduces."""
    import platform  # noqa: PLC0415
    import sys  # noqa: PLC0415

    built = engines_built()
    lines = [f"trafila {__version__} (Python {platform.python_version()}, {platform.python_implementation()}, "
             f"{sys.platform} {platform.machine()})"]
    problem = _engine.core_problem()
    lines.append(f"engines built: {', '.join(built)}" + ("" if problem is None else f" (no core: {problem})"))
    for mode in TRAFILATURA_VERSIONS:
        pins = REPRODUCED_VERSIONS[mode]
        default = " (default)" if mode == DEFAULT_MODE else ""
        try:
            runs_on = _engine.default_engine(mode) if problem is None else "reference"
        except EngineUnavailable as err:  # TRAFILA_ENGINE names an engine that cannot run it
            runs_on = f"unavailable ({err})"
        releases = ", ".join(f"{name} {version}" for name, version in pins.items())
        lines.append(f"mode {mode}{default}: engine {runs_on}; reproduces {releases}")
    if problem is not None:
        lines.append(f"to get the core: {_engine.CORE_HOWTO}")
    return "\n".join(lines)


#: module attributes that are the default 2.3.1 implementation's (looked up on use)
_IMPLEMENTATION_EXPORTS = ("LRUCache", "LRU_TEST", "duplicate_test", "trim", "sanitize")


def __getattr__(name: str) -> Any:
    # Document and DEFAULT_CONFIGS are built on first use (Document may subclass the installed trafilatura's)
    if name == "Document":
        return _document.document_class()
    if name in _IMPLEMENTATION_EXPORTS:
        return getattr(_engine.implementation(DEFAULT_MODE), name)
    if name == "delegated_calls":
        from . import _delegation

        return _delegation.delegated_calls
    if name == "DEFAULT_CONFIGS":
        return {mode: _engine.implementation(mode).DEFAULT_CONFIG for mode in TRAFILATURA_VERSIONS}
    raise AttributeError(f"module 'trafila' has no attribute {name!r}")
