"""Candidates for the harness's own tests (importable as tests._candidates:…)."""

import time

from harness.candidates import TrafilaturaCandidate

_inner = None


def _oracle():
    global _inner
    if _inner is None:
        _inner = TrafilaturaCandidate()
    return _inner


def hangs_on_short_pages(request):
    """Sleeps on pages under 2,000 characters, answers like trafilatura otherwise."""
    if request.get("op") == "reset_dedup":
        return _oracle().reset_dedup(request["mode"])
    html = request.get("html") or ""
    if request.get("form") == "str" and len(html) < 2000:
        time.sleep(30)
    from harness.candidates import decode_request

    return _oracle().call(request["function"], decode_request(request), request["options"], request["mode"])


def raises_on_bom(request):
    """Raises RuntimeError on pages that start with a BOM."""
    if request.get("op") == "reset_dedup":
        return None
    from harness.candidates import decode_request

    html = decode_request(request)
    if (html[:1] == "\ufeff") if isinstance(html, str) else html.startswith(b"\xef\xbb\xbf"):
        raise RuntimeError("BOM")
    return _oracle().call(request["function"], html, request["options"], request["mode"])
