"""Replay of trafilatura's own test suite through a candidate.

``python -m harness.replay record --mode 2.3.1 [--cache DIR] [--sdist TARBALL]``
extracts the pinned trafilatura sdist (``--sdist`` or ``$TRAFILA_REPLAY_SDIST``:
the output of ``pip download --no-deps --no-binary :all: trafilatura==2.3.1``;
downloaded when not given) into the cache (``--cache``, ``$TRAFILA_REPLAY_CACHE``
or ``.cache/replay/`` in the checkout), runs
its ``tests/`` with pytest and the recorder plugin (:mod:`.recorder`), and
writes every outermost ``extract`` / ``bare_extraction`` /
``extract_with_metadata`` call to ``<cache>/<mode>/calls.jsonl`` (inputs and
result texts in the sha256 blob store ``<cache>/blobs``). Processes the tests
start (the CLI tests run the ``trafilatura`` console script) are recorded into
the same file through ``site/sitecustomize.py``. Nothing of trafilatura's
tests is committed. For 1.11.0 pass ``--python`` an interpreter of an
environment with trafilatura 1.11.0 (pytest is installed into the cache for it
when that environment lacks it). The reports name the recording relative to
the cache (``<cache>/<mode>/calls.jsonl``), never by a machine path.

Calls that cannot be replayed are kept with a reason: element or Response
inputs, a scoped ``LRUCache`` as ``deduplicate``. An ``Extractor`` passed as
``options=`` is replayed as the keywords that rebuild it, and a changed
configuration as a ConfigParser with the recorded ``MIN_*``/``MAX_*`` values
(in-process candidates only: the JSON Lines protocol has no config field).

``python -m harness.replay run --candidate reference --mode 2.3.1`` replays the
recorded calls in order through a candidate (dedup cache reset once at the
start) and writes ``reports/replay-<mode>.md`` and ``.json`` (``replay-<mode>-<candidate>``
for another candidate).
"""
