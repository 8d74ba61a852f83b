"""The twin map (docs/TWINS.md) is current, and every GIL-free C stage names its upstream function.

A fix to an upstream function is found through the map: the reference function and each C twin
of it. A ``ng_*`` stage that neither carries an ``# upstream:`` tag nor is named after exactly one
upstream function would be missed by that search, so it fails here.
"""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _tool():
    spec = importlib.util.spec_from_file_location("gen_twins", ROOT / "tools" / "gen_twins.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_twins"] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


def test_every_nogil_stage_names_its_upstream_function():
    _, untagged = _tool().build()
    assert untagged == []


def test_twins_map_is_current():
    tool = _tool()
    upstream, _ = tool.build()
    assert (ROOT / "docs" / "TWINS.md").read_text(encoding="utf-8") == tool.render(upstream), \
        "docs/TWINS.md is out of date: python tools/gen_twins.py"


def test_a_tag_naming_no_ported_function_is_refused(tmp_path, monkeypatch):
    tool = _tool()
    (tmp_path / "nogil_x.pxi").write_text(
        "# upstream: trafilatura.main_extractor.no_such_function\n"
        "cdef int ng_handle_paragraphs(NgCtx* c) noexcept nogil:\n    return 0\n"
        "cdef int ng_unknown_stage(NgCtx* c) noexcept nogil:\n    return 0\n"
        "# upstream: none\ncdef int ng_machinery(NgCtx* c) noexcept nogil:\n    return 0\n", encoding="utf-8")
    monkeypatch.setattr(tool, "CORE", tmp_path)
    monkeypatch.setattr(tool, "ROOT", tmp_path.parent)
    upstream, untagged = tool.build()
    assert len(untagged) == 2
    assert "no_such_function" in untagged[0] and "ng_unknown_stage" in untagged[1]
    assert upstream["trafilatura.main_extractor.handle_paragraphs"].c == []


def test_a_stage_named_after_its_function_is_mapped(tmp_path, monkeypatch):
    tool = _tool()
    (tmp_path / "nogil_x.pxi").write_text(
        "cdef int ng_handle_lists(NgCtx* c) noexcept nogil:\n    return 0\n", encoding="utf-8")
    monkeypatch.setattr(tool, "CORE", tmp_path)
    monkeypatch.setattr(tool, "ROOT", tmp_path.parent)
    upstream, untagged = tool.build()
    assert untagged == []
    assert upstream["trafilatura.main_extractor.handle_lists"].c == ["`ng_handle_lists` (nogil_x.pxi; parity only)"]
