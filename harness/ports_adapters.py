"""Adapters: other trafilatura re-implementations from PyPI, called as the harness calls trafilatura.

Each adapter names the PyPI requirement it installs, and for each option set of the harness's
2.3.1 matrix (harness/matrix.py) the port's own keyword arguments that ask for the same thing, or
nothing when the port offers no such call (the set is then reported as not offered). The
adapter's ``extract(html, set_name)`` gives the port's text for trafilatura's txt output: a str,
or None where the port returns no text (an empty string), so that it compares with trafilatura's
None. Options are spelled out, never left to the port's defaults, where a port's default differs
from trafilatura's (e.g. include_comments).

These run in the worker process (harness/ports_worker.py), in a venv where the port is installed
beside trafilatura 2.3.1; nothing here is imported by the rest of the harness.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Union

Html = Union[str, bytes]

#: trafilatura's defaults for the options the ports share with it
_TRAF_DEFAULTS = {"include_comments": True, "include_tables": True, "include_links": False,
                  "favor_precision": False, "favor_recall": False}


def _empty_is_none(text: Optional[str]) -> Optional[str]:
    return text if text else None


class Adapter:
    name = "port"
    #: the requirement pip installs
    requirement = ""
    module = ""
    #: option set -> the port's keyword arguments (absent: the port offers no such call)
    sets: Dict[str, Dict[str, Any]] = {}
    #: what the adapter compares, for the report
    note = ""

    def __init__(self) -> None:
        import importlib

        self.mod = importlib.import_module(self.module)

    def version(self) -> str:
        from importlib.metadata import version

        return version(self.requirement)

    def extract(self, html: Html, set_name: str) -> Optional[str]:
        raise NotImplementedError


class RsTrafilatura(Adapter):
    """rs-trafilatura (Rust, PyO3): ``extract(html, **kw).main_content`` / ``extract_bytes`` for bytes."""

    name = "rs-trafilatura"
    requirement = "rs-trafilatura"
    module = "rs_trafilatura"
    _base = {k: _TRAF_DEFAULTS[k] for k in ("include_comments", "include_tables", "include_links",
                                            "favor_precision", "favor_recall")}
    sets = {
        "default": dict(_base),
        "recall": dict(_base, favor_recall=True),
        "datatrove-nodedup": dict(_base, favor_precision=True, include_comments=False),
        "no-comments-tables": dict(_base, include_comments=False, include_tables=False),
        "links": dict(_base, include_links=True),
        "markdown": dict(_base, output_markdown=True),
    }
    note = ("`main_content` of `extract` (`extract_bytes` for the bytes form); markdown: `content_markdown` "
            "with `output_markdown=True`; include_comments/include_tables/include_links passed as trafilatura's "
            "defaults (the port's include_comments default is False); no `fast`, deduplication or bare_extraction")

    def extract(self, html: Html, set_name: str) -> Optional[str]:
        kw = self.sets[set_name]
        fn: Callable = self.mod.extract_bytes if isinstance(html, bytes) else self.mod.extract
        res = fn(html, **kw)
        return _empty_is_none(res.content_markdown if kw.get("output_markdown") else res.main_content)


class Trafipy(Adapter):
    """trafipy (bindings for the rs-trafilatura crate): ``extract(html, **kw).text``."""

    name = "trafipy"
    requirement = "trafipy"
    module = "trafipy"
    _base = {"include_comments": True, "include_tables": True, "include_links": False, "include_images": False,
             "favor_recall": False, "min_extracted_size": 250, "deduplicate": False}
    sets = {
        "default": dict(_base),
        "recall": dict(_base, favor_recall=True),
        "no-comments-tables": dict(_base, include_comments=False, include_tables=False),
        "links": dict(_base, include_links=True),
        "markdown": dict(_base),
    }
    note = ("`text` of `extract` (`markdown` for the markdown set); str input only (bytes pages decoded as UTF-8 "
            "with replacement by the adapter); options set to trafilatura's defaults (the port's own defaults are "
            "favor_recall=True, include_comments=False, include_links=True, min_extracted_size=100); no precision, "
            "`fast`, or bare_extraction")

    def extract(self, html: Html, set_name: str) -> Optional[str]:
        if isinstance(html, bytes):
            html = html.decode("utf-8", "replace")
        res = self.mod.extract(html, **self.sets[set_name])
        return _empty_is_none(res.markdown if set_name == "markdown" else res.text)


class TrafilaturaCore(Adapter):
    """trafilaturacore: ``clean(html, **kw).html``, cleaned main-content HTML. It gives no text: the
    adapter takes the text of that HTML (lxml's ``text_content()`` of the fragment), so only the
    'same after whitespace normalisation' column says much about it."""

    name = "trafilaturacore"
    requirement = "trafilaturacore"
    module = "trafilaturacore"
    _base = {"boilerplate": "balanced", "comment_handling": "include", "table_handling": "include",
             "link_handling": "include", "image_handling": "exclude"}
    sets = {
        "default": dict(_base),
        "recall": dict(_base, boilerplate="recall"),
        "datatrove-nodedup": dict(_base, boilerplate="precision", comment_handling="exclude"),
        "no-comments-tables": dict(_base, comment_handling="exclude", table_handling="exclude"),
    }
    note = ("`clean(...)` returns sanitised HTML, not text: compared is the adapter's `text_content()` of that "
            "HTML; favor_precision/favor_recall as `boilerplate=precision|recall`, comments and tables as "
            "`comment_handling`/`table_handling`")

    def extract(self, html: Html, set_name: str) -> Optional[str]:
        res = self.mod.clean(html, **self.sets[set_name])
        if not res.html or not res.html.strip():
            return None
        import lxml.html

        frag = lxml.html.fragment_fromstring(res.html, create_parent="div")
        return _empty_is_none(frag.text_content())


ADAPTERS = {a.name: a for a in (RsTrafilatura, Trafipy, TrafilaturaCore)}
