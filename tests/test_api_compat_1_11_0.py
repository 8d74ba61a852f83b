"""The public API under compat="1.11.0": the 2.3.1-shaped signature mapped onto 1.11.0's."""

from __future__ import annotations

import pytest

import trafila

PAGE = "<html><body><article><p>" + "A sentence long enough to be kept by the extractor. " * 12 + "</p></article></body></html>"


def test_bare_extraction_returns_a_dict_by_default(engine_111):
    out = engine_111.bare_extraction(PAGE, compat="1.11.0")
    assert isinstance(out, dict) and out["text"].startswith("A sentence")


def test_bare_extraction_as_dict_false_gives_a_document(engine_111):
    out = engine_111.bare_extraction(PAGE, as_dict=False, compat="1.11.0")
    assert not isinstance(out, dict) and out.text.startswith("A sentence")


@pytest.mark.parametrize("value", [True, False])
def test_bare_extraction_has_no_fast_in_1_11_0(engine_111, value):
    with pytest.raises(TypeError, match="fast"):
        engine_111.bare_extraction(PAGE, fast=value, compat="1.11.0")


def test_extract_ignores_fast_in_1_11_0(engine_111):
    assert engine_111.extract(PAGE, fast=True, compat="1.11.0") == engine_111.extract(PAGE, compat="1.11.0")


def test_extract_with_metadata_does_not_exist_in_1_11_0(engine_111):
    with pytest.raises(ValueError, match="1.11.0"):
        engine_111.extract_with_metadata(PAGE, compat="1.11.0")


def test_default_false_sentinel_equals_false():
    import inspect

    params = inspect.signature(trafila.bare_extraction).parameters
    assert params["fast"].default == False and not params["fast"].default  # noqa: E712
    assert params["as_dict"].default == False and repr(params["as_dict"].default) == "False"  # noqa: E712
