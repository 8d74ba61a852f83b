"""repair_faulty_html's DOCTYPE step searches the first line in place: the same string as
upstream's partition, substitute and re-join, in both releases."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from trafila.v1_11_0 import utils as u111
from trafila.v2_3_1 import utils as u231

PIECES = ["<!DOCTYPE html>", "<!doctype html PUBLIC '-//W3C//DTD XHTML 1.0//EN' '/x.dtd'>", "< ! DOCTYPE a/b>",
          "<!DOCTYPE html/>", "<!DOCTYPE / >", "/", ">", "<", "\n", "\r\n", "\r", " ", "x", "é", "<html/>", "\u2028"]


def _upstream(module, htmlstring):
    firstline, _, rest = htmlstring.partition("\n")
    return module.DOCTYPE_TAG.sub("", firstline, count=1) + "\n" + rest


@pytest.mark.parametrize("module", [u231, u111], ids=["2.3.1", "1.11.0"])
@settings(max_examples=400, deadline=None)
@given(parts=st.lists(st.sampled_from(PIECES), max_size=12))
def test_repair_doctype_is_upstreams(module, parts):
    htmlstring = "".join(parts)
    assert module._repair_doctype(htmlstring) == _upstream(module, htmlstring)


@pytest.mark.parametrize("module", [u231, u111], ids=["2.3.1", "1.11.0"])
def test_repair_doctype_cases(module):
    for htmlstring in ["<!DOCTYPE html>\n<p>a</p>", "<!DOCTYPE html/>\n<p>a</p>", "<!DOCTYPE html/>", "", "\n",
                       "<!DOCTYPE html>", "<!DOCTYPE html>\n", "<!DOCTYPE a>\n<!DOCTYPE b/>"]:
        assert module._repair_doctype(htmlstring) == _upstream(module, htmlstring)
