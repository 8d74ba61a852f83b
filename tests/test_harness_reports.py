"""The committed reports carry no machine's paths, and the report writers scrub them
(harness/provenance.py: scrub_paths, write_report_text, write_report_json)."""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path

import pytest

from harness import provenance
from harness.provenance import scrub_paths, write_report_json, write_report_text

REPORTS = Path(__file__).resolve().parent.parent / "reports"

#: an absolute path into a home, the workspace, a temporary directory or a Windows profile: one
#: that starts a path (not ``.tox/x/tmp/y``, a relative path that happens to hold ``/tmp/``)
MACHINE_PATH = re.compile(r"(?<![\w.~$<>/-])/(?:root|home|work|tmp|Users)/|(?<![\w.-])[A-Za-z]:\\\\?")


def machine_paths(text: str) -> list:
    """The machine paths in ``text``, each with what follows it (for the failure message)."""
    return [text[m.start():m.start() + 60].split("\n")[0] for m in MACHINE_PATH.finditer(text)]


def test_the_pattern_finds_absolute_paths_only():
    found = machine_paths("a /root/x b /home/u/y (/work/z) '/tmp/q' /Users/me/r C:\\Users\\me")
    assert [f.split()[0].strip("()'") for f in found] == ["/root/x", "/home/u/y", "/work/z", "/tmp/q", "/Users/me/r",
                                                          "C:\\Users\\me"]
    assert machine_paths("--sdist .tox/upstream-suite/tmp/sdist, ~/x, <tmp>/y, reports/z.md, a/work/b") == []


def test_no_report_carries_a_machine_path():
    bad = {}
    for path in sorted(REPORTS.rglob("*")):
        if path.is_file() and path.suffix in (".md", ".json", ".txt", ".csv"):
            hits = machine_paths(path.read_text(encoding="utf-8", errors="replace"))
            if hits:
                bad[path.relative_to(REPORTS.parent).as_posix()] = hits[:3]
    assert not bad, "machine paths in reports/ (reports are written by the harness, whose writers scrub them):\n" + \
        "\n".join(f"  {name}: {hits}" for name, hits in bad.items())


def test_scrub_paths_names_the_places(monkeypatch):
    checkout = provenance._CHECKOUT
    monkeypatch.setenv("TRAFILA_CORPORA", "/srv/data/corpora")
    home = os.path.expanduser("~")
    text = (f"{checkout}/reports/x.md in {checkout}; pages at $TRAFILA_CORPORA (/srv/data/corpora), "
            f"/srv/data/corpora/a.jsonl.gz; {tempfile.gettempdir()}/pip-xyz/p; {home}/.pyenv/versions/3.11.7/bin/python; "
            f"{checkout.parent}/venv-ports; /tmp/a /root/b /home/someone/c /Users/me/d C:\\Users\\me\\e")
    out = scrub_paths(text)
    assert out == ("reports/x.md in .; pages at $TRAFILA_CORPORA, $TRAFILA_CORPORA/a.jsonl.gz; <tmp>/pip-xyz/p; "
                   "~/.pyenv/versions/3.11.7/bin/python; ../venv-ports; <tmp>/a ~/b ~/c ~/d ~\\e")
    # a place only at a path's boundary: a sibling whose name starts the same is not inside it
    assert scrub_paths(f"{checkout}x/y") == f"../{checkout.name}x/y"
    # the caller's places, and this interpreter's venv
    assert scrub_paths("--venv-root /srv/v/ports/py3.11", {"/srv/v/ports": "<ports-venvs>"}) == \
        "--venv-root <ports-venvs>/py3.11"
    if sys.prefix != sys.base_prefix:
        assert scrub_paths(f"{sys.prefix}/bin/python") == "<venv>/bin/python"
    # structures as a report's JSON holds them; numbers and None untouched
    assert scrub_paths({"a": [f"{checkout}/x", 1.5, None], f"{checkout}/k": True}) == {"a": ["x", 1.5, None], "k": True}


def test_the_writers_scrub(tmp_path):
    checkout = provenance._CHECKOUT
    md = write_report_text(tmp_path / "r.md", f"- command `python -m harness x --out {checkout}/reports`\n")
    js = write_report_json(tmp_path / "r.json", {"command": f"--py-spy /tmp/pyspy/bin/py-spy", "n": 3})
    assert md.read_text() == "- command `python -m harness x --out reports`\n"
    assert json.loads(js.read_text()) == {"command": "--py-spy <tmp>/pyspy/bin/py-spy", "n": 3}
    assert js.read_text().endswith("}\n")


@pytest.mark.parametrize("module", ["gil", "upstream_suite", "ports"])
def test_reports_with_a_json_render_again(module, tmp_path):
    """The writers that can render their Markdown from their committed JSON (``--render``) give
    the committed Markdown back: the reports they scrubbed were re-rendered, not edited."""
    import importlib

    mod = importlib.import_module(f"harness.{module}")
    stems = {"gil": ["gil", "gil-1.11.0"], "upstream_suite": ["upstream-suite-2.3.1", "upstream-suite-1.11.0"],
             "ports": ["ports"]}[module]
    for stem in stems:
        js = REPORTS / f"{stem}.json"
        if not js.exists():
            continue
        data = json.loads(js.read_text(encoding="utf-8"))
        text = mod.render(data)
        assert scrub_paths(text) == (REPORTS / f"{stem}.md").read_text(encoding="utf-8"), stem
