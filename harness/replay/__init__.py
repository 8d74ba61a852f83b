"""Replay of trafilatura's own test suite through a candidate.

``python -m harness.replay record --mode 2.3.1 [--cache DIR]`` downloads the
pinned trafilatura sdist into the cache (``.cache/replay/`` by default), runs
its ``tests/`` with pytest and the recorder plugin (:mod:`.recorder`), and
writes every outermost ``extract`` / ``bare_extraction`` /
``extract_with_metadata`` call to ``<cache>/<mode>/calls.jsonl`` (inputs and
result texts in the sha256 blob store ``<cache>/blobs``). Nothing of
trafilatura's tests is committed.

``python -m harness.replay run --candidate reference --mode 2.3.1`` replays the
recorded calls in order through a candidate (dedup cache reset once at the
start) and writes ``reports/replay-<mode>.md`` and ``.json``.
"""
