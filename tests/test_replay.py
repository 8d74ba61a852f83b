"""harness.replay: the recorder plugin and the replayer, end to end on a small synthetic suite."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from harness.candidates import make_candidate
from harness.replay.record import blobs_path, calls_path, run_recorder
from harness.replay.recorder import decode_value, encode_value
from harness.replay.run import build_config, load_recording, replay, write_report

SUITE = textwrap.dedent('''
    import trafilatura
    from lxml import html as lh
    from trafilatura import bare_extraction, extract
    from trafilatura.settings import Extractor, use_config

    DOC = "<html><body><article><h1>Title</h1><p>" + "Some words of an article here. " * 20 + "</p><p>Second line.</p></article></body></html>"
    ZERO = use_config()
    ZERO["DEFAULT"]["MIN_OUTPUT_SIZE"] = "0"
    ZERO["DEFAULT"]["MIN_EXTRACTED_SIZE"] = "0"


    def test_plain_calls():
        assert extract(DOC, fast=True)
        assert bare_extraction(DOC) is not None
        assert trafilatura.extract(DOC.encode("utf-8"), output_format="markdown")


    def test_config_and_sets():
        assert extract("<html><body><p>short one</p></body></html>", config=ZERO)
        extract(DOC, url="https://example.org/a", url_blacklist={"https://example.org/b"})


    def test_extractor_and_element():
        opts = Extractor(output_format="txt", fast=True, comments=False)
        assert extract(DOC, options=opts)
        assert extract(lh.fromstring(DOC)) is not None


    def test_dedup_in_order():
        first = extract(DOC, deduplicate=True)
        extract(DOC, deduplicate=True)
        extract(DOC, deduplicate=True)
        assert first


    def test_in_a_subprocess():
        import subprocess, sys
        code = "import trafilatura; print(len(trafilatura.extract(%r) or ''))" % DOC
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert int(out.stdout) > 250


    def test_scoped_cache_and_reset():
        from trafilatura.deduplication import LRUCache
        from trafilatura.meta import reset_caches
        shared = LRUCache(maxsize=64)
        results = [extract(DOC, deduplicate=shared) for _ in range(4)]
        assert results[0] and results[-1] is None
        reset_caches()
        assert extract(DOC, deduplicate=True)


    def test_settings_lists_in_place():
        from trafilatura.settings import MANUALLY_CLEANED
        MANUALLY_CLEANED.append("h1")
        try:
            assert "Title" not in extract(DOC, fast=True)
        finally:
            MANUALLY_CLEANED.remove("h1")


    def test_none_and_metadata():
        assert extract(None) is None
        from trafilatura import extract_with_metadata
        assert extract_with_metadata(DOC).text
''')


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    base = tmp_path_factory.mktemp("replay")
    suite = base / "suite"
    suite.mkdir()
    (suite / "synthetic_tests.py").write_text(SUITE)
    cache = base / "cache"
    rc, summary, log = run_recorder(suite, ["synthetic_tests.py"], calls_path(cache, "2.3.1"), blobs_path(cache),
                                    sys.executable, timeout=300, log=lambda m: None)
    assert rc == 0, log.read_text()
    return cache


def test_value_encoding_round_trips():
    for value in ({"a", "b"}, ("x", 1), {"k": [1, None]}, ["//div", "//p"], None, True, 2.5):
        assert decode_value(json.loads(json.dumps(encode_value(value)))) == value


def test_recorder_writes_outermost_calls_in_order(recording):
    header, calls = load_recording(calls_path(recording, "2.3.1"))
    assert header["trafilatura"] == "2.3.1"
    assert "site-packages" in header["trafilatura_file"]
    # 11 calls in the suite; the nested bare_extraction inside extract is not a call of its own
    assert [c["function"] for c in calls] == (["extract", "bare_extraction"] + ["extract"] * 16
                                              + ["extract_with_metadata"])
    # the subprocess's call counts in its own process
    assert [c["seq"] for c in calls] == list(range(1, 11)) + [1] + list(range(11, 19))
    assert [c["order"] for c in calls] == list(range(1, 20))
    assert "subprocess" in calls[10] and calls[10]["test"].endswith("::test_in_a_subprocess")
    assert calls[0]["test"].endswith("::test_plain_calls")
    assert calls[2]["input"]["form"] == "bytes" and calls[0]["input"]["form"] == "str"
    assert calls[3]["config"]["changed"] == {"MIN_EXTRACTED_SIZE": "0", "MIN_OUTPUT_SIZE": "0"}
    assert calls[4]["options"]["url_blacklist"] == {"__set__": ["https://example.org/b"]}
    assert calls[5]["options_from"] == "Extractor" and calls[5]["options"]["include_comments"] is False
    # an element: its whole document as XML and its path
    assert calls[6]["replayable"] is True and calls[6]["input"]["form"] == "element"
    assert calls[6]["input"]["path"] == "/html" and calls[6]["input"]["html_element"] is True
    # a scoped cache: one label per object; the module cache emptied by reset_caches() before a call
    assert [c["options"]["deduplicate"] for c in calls[11:15]] == [{"__lru__": "lru1", "maxsize": 64}] * 4
    assert "reset_before" not in calls[7] and calls[15]["reset_before"] is True
    assert calls[16]["settings_lists"]["MANUALLY_CLEANED"][-1] == "h1"
    assert "settings_lists" not in calls[17] and calls[17]["input"]["form"] == "none"
    assert (blobs_path(recording) / calls[0]["result_blobs"]["text"][:2] / calls[0]["result_blobs"]["text"]).exists()


def test_trafilatura_reproduces_its_own_recording(recording, tmp_path):
    cand = make_candidate("trafilatura")
    summary = replay(cand, "2.3.1", recording, log=lambda m: None)
    c = summary["counts"]
    assert c == {"recorded": 19, "replayed": 19, "equal": 19, "native": 19, "equal:native": 19, "skipped": 0}
    assert summary["skipped"] == {}
    md, js = write_report(summary, tmp_path / "replay-2.3.1")
    assert md.name == "replay-2.3.1.md" and "| 19 | 19 | 19 | 0 | 0 |" in md.read_text()


def test_reference_replays_every_call_native_or_delegated(recording):
    import trafila

    cand = make_candidate("reference")
    from trafila import _delegation

    _delegation._warned.clear()
    summary = replay(cand, "2.3.1", recording, log=lambda m: None)
    c = summary["counts"]
    # delegated: the element input, the changed settings list (markdown output, url_blacklist's
    # metadata and extract_with_metadata are native since the harness matrix holds them)
    assert (c["replayed"], c["equal"], c["delegated"], c["native"]) == (19, 19, 2, 17), summary["differences"]


def test_replay_sees_a_wrong_candidate(recording):
    summary = replay(make_candidate("mutant:drop-last-line"), "2.3.1", recording, log=lambda m: None)
    assert summary["counts"]["different"] >= 5
    assert summary["differences"][0]["test"].endswith("::test_plain_calls")


def test_custom_config_is_rebuilt():
    cp = build_config({"MIN_EXTRACTED_SIZE": "250", "MIN_OUTPUT_SIZE": "1"}, {"MIN_OUTPUT_SIZE": "0"})
    assert cp.getint("DEFAULT", "MIN_EXTRACTED_SIZE") == 250 and cp.getint("DEFAULT", "MIN_OUTPUT_SIZE") == 0


def test_only_a_refused_option_we_passed_counts_as_unsupported():
    from harness.replay.run import _unsupported

    err = TypeError("extract() got an unexpected keyword argument 'prune_xpath'")
    assert _unsupported(err, {"prune_xpath": "//div"}) == "option not supported by the candidate: prune_xpath"
    # raised deeper inside the candidate: a difference, not a skip
    assert _unsupported(TypeError("f() got an unexpected keyword argument 'fast'"), {"no_fallback": True}) is None


def test_deep_element_trees_round_trip_as_node_lists():
    "Trees deeper than libxml2 reads back as XML are recorded as node lists; they rebuild exactly."
    from lxml import etree
    from lxml import html as lh

    from harness.replay.recorder import element_nodes, rebuild_from_nodes

    tree = lh.fromstring("<html><body><p>root <b>text</b> tail</p><!-- c --></body></html>")
    node = tree.find("body")
    for i in range(3000):
        node = etree.SubElement(node, "div", {"class": f"d{i % 7}"})
    node.text = "Deep text"
    node.append(etree.ProcessingInstruction("pi", "x"))
    info = tree.getroottree().docinfo
    doctype = [info.public_id, info.system_url]
    nodes = element_nodes(tree)
    again = rebuild_from_nodes(json.loads(json.dumps(nodes)), True, doctype)
    assert element_nodes(again) == nodes and type(again) is type(tree)
    assert again.getroottree().docinfo.doctype == info.doctype
    assert etree.tostring(again) == etree.tostring(tree)
