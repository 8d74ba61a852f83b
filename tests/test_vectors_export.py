"""The committed vectors (vectors/, issue 18): their shape, that they are made of generated
documents only, and a sample of them replayed on each engine; the protocol's handshake and its
fallback to version-1 programs; port-check on a corpus folder of its own.

The full replay is ``python -m harness vectors check --candidate reference|core``; here about
2,000 cases per engine run (whole deduplication groups).
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from collections import Counter

import pytest

from harness import vectors as V
from harness.candidates import SubprocessCandidate, TrafilaCandidate, UnsupportedFunction
from harness.matrix import MATRIX, option_sets
from tests.conftest import needs_trafilatura_231

VDIR = V.DEFAULT_DIR
DOCS = V.load_documents(VDIR)
BY_ID = {d["id"]: d for d in DOCS}
PARSER = V.read_json_gz(VDIR / V.PARSER)
EXTRACT = {mode: V.read_json_gz(VDIR / V.extract_file(mode)) for mode in MATRIX}
#: where a document may come from: the project's own generators, nothing else
SOURCES = ("harness/embedded.py", "strategies.random_html(", "strategies.random_bytes(", "strategies.random_article(",
           "mutate.mutations(generated articles")


def test_files_are_small_and_in_the_documented_format():
    total = sum(p.stat().st_size for p in VDIR.glob("*.json.gz"))
    assert total < 5_000_000  # 4.1 MB with issue 42's metadata sets
    for path in VDIR.glob("*.json.gz"):
        with gzip.open(path, "rb") as fh:
            raw = fh.read()
        assert raw[:1] == b"{" and raw.isascii()
        # strict JSON: no escaped lone surrogate (a JSON parser outside Python may refuse one)
        lone = (rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"
                rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")
        assert not re.search(lone, raw), path.name
        assert V.read_json_gz(path)["format"] == V.FORMAT


def test_documents_are_generated_by_the_project_only():
    ids = [d["id"] for d in DOCS]
    assert len(ids) == len(set(ids))
    for d in DOCS:
        assert d["source"].startswith(SOURCES), d["id"]
        assert ("html" in d) != ("html_b64" in d)
        if d.get("lone_surrogates"):
            assert V.document_forms(d) == ["str", "bytes"]
            assert re.search("[\ud800-\udfff]", V.document_input(d, "str"))
    kinds = Counter(d["id"].split("/")[0] for d in DOCS)
    assert set(kinds) == {"minimised", "smallest", "embedded", "stress", "bytes", "article", "mutant"}


def test_documents_regenerate_identically():
    assert V.generate_documents(log=lambda m: None) == DOCS


def test_oracle_versions_are_the_pins():
    assert PARSER["oracle"] == {"lxml": "6.1.3", "libxml2": "2.14.6"}
    for mode, data in EXTRACT.items():
        assert data["mode"] == mode
        assert data["oracle"]["trafilatura"] == mode
        assert (data["oracle"]["lxml"], data["oracle"]["libxml2"], data["oracle"]["justext"]) == ("6.1.3", "2.14.6", "3.0.2")


def test_every_option_set_of_both_modes_is_covered():
    for mode, data in EXTRACT.items():
        sets = Counter(c["option_set"] for c in data["cases"])
        assert set(sets) == {o.name for o in V.vector_option_sets(mode)}
        assert {o.name for o in option_sets(mode)} - set(sets) <= {"with-metadata-xml"}  # extract_with_metadata
        assert min(sets.values()) >= 90
        for o in V.vector_option_sets(mode):
            assert data["option_sets"][o.name] == {"function": o.function, "options": o.options}
        for c in data["cases"]:
            assert c["document"] in BY_ID and c["form"] in V.document_forms(BY_ID[c["document"]])
            assert set(c["expected"]) in ({"result"}, {"raise"})
    # the outcomes are varied: texts, Nones and (1.11.0) exceptions
    outcomes = Counter("raise" if "raise" in c["expected"] else type(c["expected"]["result"]).__name__
                       for data in EXTRACT.values() for c in data["cases"])
    assert outcomes["str"] > 3000 and outcomes["NoneType"] > 500 and outcomes["dict"] > 500 and outcomes["raise"]


def test_dedup_groups_are_contiguous_and_start_with_a_fresh_cache():
    for mode, data in EXTRACT.items():
        seen, last = set(), None
        for c in data["cases"]:
            g = c.get("group")
            assert bool(g) == bool(c["options"].get("deduplicate"))
            if g is None:
                last = None
                continue
            if g["name"] != last:
                assert g["name"] not in seen and g["index"] == 0
                seen.add(g["name"])
                last = g["name"]
        assert len(seen) == 2 * V.DEDUP_GROUPS
    # the dedup cache changes some answers: a document repeated in a group loses text
    datatrove = [c for c in EXTRACT["2.3.1"]["cases"] if c["option_set"] == "datatrove"]
    by_doc: dict = {}
    for c in datatrove:
        by_doc.setdefault((c["group"]["name"], c["document"], c["form"]), []).append(json.dumps(c["expected"]))
    assert any(len(set(v)) > 1 for v in by_doc.values())


def test_parser_cases_cover_both_forms_and_the_quirks():
    forms = Counter(c["form"] for c in PARSER["cases"])
    assert forms["str"] > 400 and forms["bytes"] > 400
    from harness.strategies import STRESS_FEATURES

    minimised = {d["id"].rsplit("/", 1)[1] for d in DOCS if d["id"].startswith("minimised/stress/")}
    assert minimised == set(STRESS_FEATURES)
    raised = Counter(part["raise"] for c in PARSER["cases"] for part in c["expected"].values() if "raise" in part)
    assert raised  # lxml raises on some inputs (empty documents, ...)


# --------------------------------------------------------------------------- replay on each engine


def _diffs(res: dict) -> list:
    return res["differences"]


def _all_equal_or_handed_over(res: dict, mode: str) -> None:
    """Every case equal; where trafilatura ``mode`` is not installed, the few cases the engine hands
    over (NotNative: an XML name the xml output refuses) raise TrafilaError instead, and only they."""
    t = res["totals"]
    try:
        import trafilatura

        installed = trafilatura.__version__ == mode
    except ImportError:
        installed = False
    if installed:
        assert t.get("equal") == t["cases"], _diffs(res)
        return
    handed = t.get("handed_over", 0)
    assert not res["differences"] and t.get("errors", 0) == 0, _diffs(res)
    assert t.get("equal") + handed == t["cases"] and handed * 200 <= t["cases"], t


def test_parser_vectors_on_each_engine(engine):
    res = V.check(engine.name, VDIR, [], ["parser"], sample=600, log=lambda m: None)
    t = res["totals"]
    assert t["cases"] >= 600 and t.get("equal") == t["cases"], _diffs(res)


@needs_trafilatura_231
def test_lxml_side_is_lxml_itself_in_the_treedump_form():
    """The trafila-free lxml dump (what the installed harness answers) is trafila.treedump's form."""
    from lxml import etree, html

    from harness.treedump import dump_element, dump_lxml_document

    parser = html.HTMLParser(**V.PARSER_OPTIONS)
    res = V.check("trafilatura", VDIR, [], ["parser"], sample=600, log=lambda m: None)
    assert res["totals"].get("equal") == res["totals"]["cases"] >= 600, _diffs(res)
    for case in V.sample_cases(PARSER["cases"], 150, seed=1):
        src = V.document_input(BY_ID[case["document"]], case["form"])
        try:
            root = etree.fromstring(src, parser)
        except Exception:  # noqa: BLE001 - covered by the check above
            continue
        if root is not None:
            assert V.lxml_document_form(root) == V.document_form(dump_lxml_document(root))
            assert V.lxml_node_form(root) == V.node_form(dump_element(root, with_tail=False))


def test_extract_vectors_2_3_1_on_each_engine(engine_231):
    res = V.check(engine_231.name, VDIR, ["2.3.1"], ["extract"], sample=900, log=lambda m: None,
                  candidate=TrafilaCandidate(engine_231.name))
    t = res["totals"]
    by_set = res["files"][V.extract_file("2.3.1")]["by_set"]
    assert len(by_set) >= 15  # the sample reaches (nearly) every option set
    assert t["cases"] >= 900
    _all_equal_or_handed_over(res, "2.3.1")


def test_extract_vectors_1_11_0_on_each_engine(engine_111):
    res = V.check(engine_111.name, VDIR, ["1.11.0"], ["extract"], sample=500, log=lambda m: None,
                  candidate=TrafilaCandidate(engine_111.name))
    t = res["totals"]
    assert t["cases"] >= 500
    _all_equal_or_handed_over(res, "1.11.0")


@needs_trafilatura_231
def test_check_catches_a_wrong_candidate():
    from harness.mutants import make_mutant

    res = V.check("mutant:drop-last-line", VDIR, ["2.3.1"], ["extract"], sample=300, log=lambda m: None,
                  candidate=make_mutant("drop-last-line"))
    assert res["totals"].get("different", 0) > 100
    assert all(d["difference"] for d in res["differences"])


def test_sampling_keeps_whole_groups_and_file_order():
    cases = EXTRACT["2.3.1"]["cases"]
    picked = V.sample_cases(cases, 400)
    assert 400 <= len(picked) < 400 + V.DEDUP_GROUP * V.DEDUP_REPEATS
    order = {c["id"]: i for i, c in enumerate(cases)}
    assert [order[c["id"]] for c in picked] == sorted(order[c["id"]] for c in picked)
    groups = Counter(c["group"]["name"] for c in picked if c.get("group"))
    assert all(n == V.DEDUP_GROUP * V.DEDUP_REPEATS for n in groups.values())


# --------------------------------------------------------------------------- the protocol's handshake


def _serve(*extra: str) -> SubprocessCandidate:
    return SubprocessCandidate(f"{sys.executable} -m harness.serve --candidate reference " + " ".join(extra))


def test_handshake_protocol_2_announces_the_parse_op():
    cand = _serve()
    try:
        assert "parse" in cand.ops and cand.protocol == 2
        assert cand.hello["functions"] == ["extract", "bare_extraction"]
        res = V.check("cmd:serve", VDIR, ["2.3.1"], ["parser", "extract"], sample=120, log=lambda m: None, candidate=cand)
    finally:
        cand.close()
    t = res["totals"]
    assert t["cases"] >= 240 and t.get("equal") == t["cases"], _diffs(res)


def test_a_protocol_1_program_still_works_without_parse():
    cand = _serve("--protocol", "1")
    try:
        assert cand.ops == () and cand.protocol == 1
        res = V.check("cmd:serve-v1", VDIR, ["2.3.1"], ["parser", "extract"], sample=120, log=lambda m: None,
                      candidate=cand)
    finally:
        cand.close()
    t = res["totals"]
    assert t.get("unsupported") == res["files"][V.PARSER]["totals"]["cases"]
    assert t.get("different", 0) == 0 and t.get("equal") == res["files"][V.extract_file("2.3.1")]["totals"]["cases"]


def test_a_program_that_exits_on_hello_is_restarted_as_protocol_1(tmp_path):
    script = tmp_path / "strict_v1.py"
    script.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    req = json.loads(line)\n"
        "    if 'function' not in req and req.get('op') != 'reset_dedup':\n"
        "        sys.exit(4)\n"
        "    out = {'id': req['id'], 'ok': True} if req.get('op') else {'id': req['id'], 'result': req['html'][:5]}\n"
        "    sys.stdout.write(json.dumps(out) + '\\n'); sys.stdout.flush()\n")
    cand = SubprocessCandidate(f"{sys.executable} {script}", timeout=20)
    try:
        assert cand.call("extract", "<p>hello</p>", {}, "2.3.1") == "<p>he"
        assert cand.protocol == 1
        cand.reset_dedup("2.3.1")
        assert cand.call("extract", "abcdefg", {}, "2.3.1") == "abcde"
    finally:
        cand.close()


def test_extract_with_metadata_is_refused_on_both_sides():
    cand = _serve()
    try:
        with pytest.raises(UnsupportedFunction, match="not part of the JSON Lines protocol"):
            cand.call("extract_with_metadata", "<p>x</p>", {}, "2.3.1")
    finally:
        cand.close()
    from harness.serve import answer

    out = answer(None, {"id": 3, "function": "extract_with_metadata", "form": "str", "html": "<p>x</p>",
                        "mode": "2.3.1", "options": {}}, "reference")
    assert out["id"] == 3 and "not part of the JSON Lines protocol" in out["error"]


# --------------------------------------------------------------------------- port-check


@needs_trafilatura_231
def test_port_check_on_a_corpus_folder_of_its_own(tmp_path, monkeypatch):
    from harness import corpora, oracle, parity
    from harness.cli import main

    for mod, name in ((corpora, "PINS_FILE"), (corpora, "EMBEDDED_DIR"), (oracle, "ORACLE_DIR"),
                      (oracle, "LOCAL_ORACLE_DIR"), (parity, "LEDGER_FILE")):
        monkeypatch.setattr(mod, name, getattr(mod, name))  # port-check points them elsewhere: restored after
    monkeypatch.setenv("TRAFILA_CORPORA", str(tmp_path))
    folder = tmp_path / "mine"
    folder.mkdir()
    with gzip.open(corpora.EMBEDDED_DIR / "synthetic.jsonl.gz", "rt", encoding="utf-8") as fh:
        lines = fh.readlines()[:6]
    with gzip.GzipFile(folder / "six.jsonl.gz", "wb", mtime=0) as fh:
        fh.write("".join(lines).encode("utf-8"))
    work, pins = tmp_path / "work", tmp_path / "pins.json"
    args = ["port-check", "--candidate", "reference", "--corpora", str(folder), "--workdir", str(work),
            "--pins", str(pins), "--write-pins", "--set", "fast", "--set", "default"]
    assert main(args) == 0
    assert json.loads(pins.read_text())["bundles"]["six"]["pages"] == 6
    made = oracle.read_cache(work / "oracle" / "2.3.1" / "six.json.gz")
    assert sorted(made["option_sets"]) == ["default", "fast"]  # only the sets asked for are made
    report = json.loads((work / "reports" / "parity.json").read_text())
    (section,) = report["runs"].values()
    assert section["totals"]["comparisons"] == 6 * 2 * 2 and section["totals"]["differences"] == 0
    # a wrong candidate fails, and its differences pass once the author's ledger lists them
    wrong = ["port-check", "--candidate", "mutant:drop-last-line", "--corpora", str(folder), "--workdir", str(work),
             "--set", "fast", "--forms", "str"]
    assert main(wrong) == 1
    diffs = json.loads((work / "reports" / "parity.json").read_text())["runs"]["mutant:drop-last-line / 2.3.1"]
    ledger = tmp_path / "ledger.json"
    ledger.write_text(json.dumps({"entries": [
        {"bundle": "six", "page": d["page"], "form": d["form"], "option_set": d["option_set"], "mode": "2.3.1",
         "reason": "test"} for d in diffs["first_differences"]]}))
    assert diffs["totals"]["differences"] == len(diffs["first_differences"]) > 0
    assert main(wrong + ["--ledger", str(ledger)]) == 0
    # another set is added to the cache, the ones it has are kept
    assert main(wrong[:-4] + ["--set", "recall", "--forms", "str"]) == 1
    made = oracle.read_cache(work / "oracle" / "2.3.1" / "six.json.gz")
    assert sorted(made["option_sets"]) == ["default", "fast", "recall"]
    # a pinned bundle that changed stops the run
    with gzip.GzipFile(folder / "six.jsonl.gz", "wb", mtime=0) as fh:
        fh.write("".join(lines[:5]).encode("utf-8"))
    assert main(args[:-5] + ["--pins", str(pins), "--set", "fast"]) == 3


def test_ports_report_names_install_errors_word_for_word():
    from harness.ports import render

    data = {"date": "d", "commit": "c", "command": "python -m harness ports", "pages_note": "p",
            "install": {"ports": {"rs-trafilatura": {"requirement": "rs-trafilatura", "installed_in": None, "attempts": [
                {"python": "3.11", "command": "pip install rs-trafilatura", "exit": 1,
                 "output": ["error: metadata-generation-failed"]}]}}, "venvs": {}},
            "results": {}}
    text = render(data)
    assert "**could not be installed**" in text and "error: metadata-generation-failed" in text


def test_readme_counts_are_the_files_counts():
    import re

    text = (VDIR / "README.md").read_text()
    rows = dict(re.findall(r"^\| `([\w.-]+)` \|.*?\| ([\d,—]+) \|$", text, re.M))
    assert rows[V.PARSER] == f"{len(PARSER['cases']):,}"
    for mode, data in EXTRACT.items():
        assert rows[V.extract_file(mode)] == f"{len(data['cases']):,}"
    assert f"({len(DOCS)} documents)" in text


@needs_trafilatura_231
def test_ports_worker_counts_exact_texts_per_option_set(monkeypatch):
    """The worker's counting, with two stand-in ports: trafilatura itself (every page exact) and one
    that drops the last line (exact only where trafilatura gives None or one line)."""
    import trafilatura

    from harness import ports_adapters, ports_worker

    class Itself(ports_adapters.Adapter):
        name, requirement, module = "itself", "trafilatura", "trafilatura"
        sets = {"default": {}, "fast": {"fast": True}}

        def extract(self, html, set_name):
            return trafilatura.extract(html, **self.sets[set_name])

    class DropsLastLine(Itself):
        name = "drops"

        def extract(self, html, set_name):
            text = super().extract(html, set_name)
            return text.rsplit("\n", 1)[0] if text and "\n" in text else text

    monkeypatch.setitem(ports_adapters.ADAPTERS, "itself", Itself)
    monkeypatch.setitem(ports_adapters.ADAPTERS, "drops", DropsLastLine)
    res = ports_worker.run("itself", ["default", "fast", "markdown"], None, True, 8, "str", None, 60.0)
    n = res["pages"]  # every 8th embedded page that has a str form
    assert n >= 6 and res["sets"]["markdown"] == {"offered": False}
    for name in ("default", "fast"):
        c = res["sets"][name]["counts"]
        assert c["pages"] == c["exact"] == c["same_normalised"] == n and res["sets"][name]["mean_token_f1"] == 1.0
        assert res["sets"][name]["trafilatura_seconds"] > 0 and res["sets"][name]["port_seconds"] > 0
    drops = ports_worker.run("drops", ["default"], None, True, 8, "str", None, 60.0)["sets"]["default"]["counts"]
    multi = sum(1 for _, html in ports_worker.load_inputs(None, True, 8, "str", None)
                if "\n" in (trafilatura.extract(html) or ""))
    assert multi and drops["pages"] == n and drops.get("exact", 0) == n - multi


@needs_trafilatura_231
def test_the_harness_runs_without_trafila(tmp_path):
    """What the installed harness (harness/pyproject.toml) gives a port author needs no trafila: the
    command line starts, and a protocol-2 program (harness.serve over trafilatura and lxml) has its
    parser and extraction vectors checked, both processes with every import of trafila failing."""
    import os
    import subprocess

    block = "import sys\nsys.modules['trafila'] = None  # any import of trafila now fails\n"
    server = tmp_path / "server.py"
    server.write_text(block + "from harness.serve import main\nsys.exit(main(['--candidate', 'trafilatura']))\n")
    checker = tmp_path / "check.py"
    checker.write_text(block + "from harness.cli import main\n"
                       f"sys.exit(main(['vectors', 'check', '--candidate', 'cmd:{sys.executable} {server}', "
                       "'--mode', '2.3.1', '--sample', '150']))\n")
    env = dict(os.environ, PYTHONPATH=str(VDIR.parent))
    res = subprocess.run([sys.executable, str(checker)], capture_output=True, text=True, cwd=str(tmp_path), env=env,
                         timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    # about 150 per file, whole deduplication groups kept: the count the sampling gives
    n = len(V.sample_cases(PARSER["cases"], 150)) + len(V.sample_cases(EXTRACT["2.3.1"]["cases"], 150))
    assert n >= 300
    assert f"{n} cases, {n} equal, 0 different, 0 errors, 0 not answered" in res.stdout, res.stdout
