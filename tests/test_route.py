"""The router (trafila._route) is the one place that decides a call's path; each route it gives
is checked against what the call then does: a "trafilatura" route is handed over (counted), a
"c-sequence" route is answered by the core's C sequence (its page count rises), a URL the C
leaves to Python is not routed to it, on every built engine."""

import pytest

import trafila
from trafila import _batch, _delegation, _route

PAGE = ("<html><body><article><h1>Title</h1>"
        + "".join(f"<p>Paragraph {i} of the article, with enough words in it to be kept as text.</p>"
                  for i in range(12))
        + "</article></body></html>")


def _core_stats(mode):
    from trafila._engine import core_module

    stats = core_module().sequence_stats(mode=mode)
    return stats["done"]


def _run(engine, compat, **kwargs):
    "The route of extract(PAGE, **kwargs) on engine, then the call itself: (route, handed over, C pages)."
    route = _route.route("extract", compat, dict(kwargs, filecontent=PAGE), engine.name)
    before_delegated = _delegation.delegated_calls
    before_c = _core_stats(compat) if engine.name == "core" else 0
    engine.extract(PAGE, compat=compat, **kwargs)
    c_pages = (_core_stats(compat) - before_c) if engine.name == "core" else 0
    return route, _delegation.delegated_calls - before_delegated, c_pages


@pytest.mark.parametrize("compat", ["2.3.1", "1.11.0"])
def test_the_default_call_takes_the_route_it_is_given(engine, compat):
    route, handed, c_pages = _run(engine, compat)
    assert route.engine == engine.name and handed == 0
    if engine.name == "core":
        assert (route.path, route.releases_gil) == ("c-sequence", True)
        assert c_pages == 1
    else:
        assert (route.path, route.releases_gil) == ("reference", False)


@pytest.mark.parametrize("compat", ["2.3.1", "1.11.0"])
def test_an_output_made_in_python_holds_the_gil(engine, compat):
    route, handed, c_pages = _run(engine, compat, output_format="xml")
    assert handed == 0 and route.releases_gil is False
    if engine.name == "core":
        # the sequence itself still runs in C; the xml output is Python's
        assert route.path == "core-with-gil" and c_pages == 1
    else:
        assert route.path == "reference"


@pytest.mark.parametrize("options", [{"include_images": True}, {"include_links": True}])
def test_a_url_the_c_sequence_leaves_to_python_is_not_routed_to_it(engine, options):
    url = "https://example.org/news/a.html"
    route, handed, c_pages = _run(engine, "2.3.1", url=url, **options)
    if engine.name == "core":
        assert (route.path, c_pages) == ("core-with-gil", 0)
        without_url = _route.route("extract", "2.3.1", dict(options, filecontent=PAGE), "core")
        assert without_url.path == "c-sequence"
    assert handed == 0


@pytest.mark.filterwarnings("ignore::trafila.FallbackWarning")  # said once per reason: not this test's subject
def test_a_call_past_the_boundary_is_handed_to_trafilatura(engine):
    pytest.importorskip("trafilatura")
    route, handed, _ = _run(engine, "2.3.1", target_language="de")
    assert (route.path, route.reason) == ("trafilatura", "target_language")
    assert handed == 1
    # 1.11.0 has no front-end boundary: its engine decides
    assert _route.handover_reason("extract", "1.11.0", {"filecontent": PAGE, "target_language": "de"}) is None


def test_extract_batch_asks_the_router(monkeypatch):
    calls = []
    real = _route.route

    def spy(*args, **kwargs):
        calls.append(args[:2])
        return real(*args, **kwargs)

    monkeypatch.setattr(_route, "route", spy)
    _batch.plan([PAGE, PAGE], 2, compat="1.11.0")
    assert calls == [("extract", "1.11.0")]


def test_an_unknown_mode_raises_as_extract_does():
    with pytest.raises(ValueError):
        _route.route("extract", "9.9", {"filecontent": PAGE})
