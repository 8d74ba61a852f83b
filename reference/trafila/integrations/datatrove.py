"""datatrove's Trafilatura step, run by trafila: ``trafila.integrations.datatrove.Trafilatura``.

``from trafila.integrations.datatrove import Trafilatura`` replaces
``from datatrove.pipeline.extractors import Trafilatura`` (datatrove 0.10.1) and
nothing else changes: same arguments and defaults, same documents out, same
statistics. What differs is how the pages are run:

- **in the task's process**, no extraction child: datatrove's step sends each
  page to a forked child and waits for it; here the pages go to
  :func:`trafila.extract_batch`, ``batch_size`` at a time (``threads`` of its
  own when the engine releases the GIL and the options allow it);
- **no wall-clock timeout**: ``timeout`` is accepted (so existing pipelines
  construct unchanged) and not needed -- with no child to kill, nothing is
  dropped because the machine was busy, so the documents kept never depend on
  load. For pathological pages, ``max_html_chars`` is an optional deterministic
  budget: a page longer than that (in characters) is not extracted, and counted
  as ``too_large`` (like datatrove's ``timeout``: neither forwarded nor dropped).

What stays datatrove's:

- statistics: ``total``, ``extracted`` (for every page whose extraction
  returned, None included), ``forwarded`` with ``doc_len`` (and
  ``doc_len_tokens`` when a document carries ``token_count``), ``dropped``
  (extracted to None or ""), ``broken_process`` for a page whose extraction
  raised; the time is tracked per batch (``unit="batch"``);
- deduplication (``deduplicate=True``): one state per ``run()`` -- datatrove's
  child starts with trafilatura's empty module cache in each task -- which
  restarts empty after a page whose extraction raised, as datatrove's next
  child would (its child dies on such a page; ``broken_process``);
- the extraction call: ``extract(text, favor_precision=favour_precision,
  include_comments=False, deduplicate=deduplicate, **kwargs)``.

``compat`` picks the trafilatura release reproduced. None (default): the
installed trafilatura's release when trafila reproduces it (a stock
``datatrove[processing]==0.10.1`` environment has 1.11.0), 2.3.1 when
trafilatura is not installed; with another release installed, datatrove's own
step runs the documents (its child and timeout included), after one
:class:`trafila.FallbackWarning`.
"""

from __future__ import annotations

import importlib.metadata
import warnings
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from trafila.integrations import needs_datatrove

with needs_datatrove(__name__, "datatrove"):
    from datatrove.data import Document, DocumentsPipeline
    from datatrove.pipeline.extractors.base import BaseExtractor
    from datatrove.utils.logging import logger
    from datatrove.utils.typeshelper import StatHints

import trafila
from trafila._child_batches import DedupState, batches, extract_pages, installed_trafilatura, resolve_compat

__all__ = ["Trafilatura", "TOO_LARGE", "installed_trafilatura", "resolve_compat", "substitute_datatrove_steps",
           "WarcReader", "URLFilter", "GopherRepetitionFilter", "GopherQualityFilter", "C4QualityFilter",
           "FineWebQualityFilter"]

#: the FineWeb example's other steps: trafila's drop-in (imported on first use: their packages --
#: spaCy's data, tldextract, warcio -- are the [fineweb] extra's, not needed for the extraction step)
#: -> (its module here, datatrove's modules that define or re-export datatrove's class)
FINEWEB_STEPS: Dict[str, Tuple[str, Tuple[str, ...]]] = {
    "WarcReader": ("datatrove_warc", ("datatrove.pipeline.readers", "datatrove.pipeline.readers.warc")),
    "URLFilter": ("datatrove_url", ("datatrove.pipeline.filters", "datatrove.pipeline.filters.url_filter")),
    "GopherRepetitionFilter": ("datatrove_quality", ("datatrove.pipeline.filters",
                                                     "datatrove.pipeline.filters.gopher_repetition_filter")),
    "GopherQualityFilter": ("datatrove_quality", ("datatrove.pipeline.filters",
                                                  "datatrove.pipeline.filters.gopher_quality_filter")),
    "C4QualityFilter": ("datatrove_quality", ("datatrove.pipeline.filters", "datatrove.pipeline.filters.c4_filters")),
    "FineWebQualityFilter": ("datatrove_quality", ("datatrove.pipeline.filters",
                                                   "datatrove.pipeline.filters.fineweb_quality_filter")),
}


def __getattr__(name: str) -> Any:
    if name in FINEWEB_STEPS:
        module = importlib.import_module(f"trafila.integrations.{FINEWEB_STEPS[name][0]}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def substitute_datatrove_steps() -> List[str]:
    """Put trafila's drop-ins in place of datatrove's classes in datatrove's own modules
    (the Trafilatura step and the FineWeb example's others), so code that imports them from
    datatrove afterwards gets trafila's. Returns the names replaced. For running datatrove's
    own tests against the drop-ins (``python -m harness datatrove-suite``); a pipeline just
    imports the classes from here."""
    targets = {name: modules for name, (_, modules) in FINEWEB_STEPS.items()}
    targets["Trafilatura"] = ("datatrove.pipeline.extractors", "datatrove.pipeline.extractors.trafilatura")
    done = []
    for name, modules in targets.items():
        ours = Trafilatura if name == "Trafilatura" else __getattr__(name)
        for module_name in modules:
            module = importlib.import_module(module_name)
            if hasattr(module, name):
                setattr(module, name, ours)
        done.append(name)
    return done

#: the statistic of a page skipped by the ``max_html_chars`` budget
TOO_LARGE = "too_large"
#: datatrove's statistic of a page whose extraction child died (here: whose extraction raised)
BROKEN = "broken_process"

#: extract's keywords the step sets itself (datatrove's call); passing one of them in ``**kwargs``
#: would make every page raise "got multiple values" in datatrove's child
_STEP_KEYWORDS = ("favor_precision", "include_comments", "deduplicate")


class Trafilatura(BaseExtractor):
    """datatrove's Trafilatura extractor, run by trafila in the task's process.

    Args:
        favour_precision: prefer less text but correct extraction (``favor_precision``).
        include_images: not implemented, as in datatrove: True raises NotImplementedError.
        timeout: accepted for compatibility and not needed: there is no child
            process and no wall-clock drop (see ``max_html_chars``). Used only when
            datatrove's own step runs the documents (see ``compat``).
        deduplicate: trafilatura's deduplicate option (one state per ``run()``).
        compat: the trafilatura release reproduced, "2.3.1" or "1.11.0"; None:
            the installed trafilatura's when trafila reproduces it, 2.3.1 without
            trafilatura, else datatrove's own step (one FallbackWarning).
        batch_size: documents extracted per :func:`trafila.extract_batch` call.
        threads: ``extract_batch``'s threads (1: the task's thread only; None: the
            CPUs this process may use). Threads are used only when the engine
            releases the GIL and deduplication is off.
        max_html_chars: optional budget: a document whose text (the HTML) is
            longer is not extracted and is counted as ``too_large``. None: no budget.
        engine: the trafila engine ("reference" or "core"); None: each mode's default.
        **kwargs: any other option, passed to ``extract`` (an unknown one makes
            each page raise in 2.3.1 mode, as trafilatura 2.3.1 does; 1.11.0 ignores it).
    """

    name = "⛏ Trafilatura"
    _requires_dependencies = ["trafila"]

    def __init__(
        self,
        favour_precision: bool = True,
        include_images: bool = False,
        timeout: float = 1,
        deduplicate: bool = True,
        *,
        compat: Optional[str] = None,
        batch_size: int = 64,
        threads: Optional[int] = 1,
        max_html_chars: Optional[int] = None,
        engine: Optional[str] = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(timeout)
        self.favour_precision = favour_precision
        self.include_images = include_images
        self.deduplicate = deduplicate
        self.kwargs = kwargs
        if self.include_images:
            raise NotImplementedError
        clash = [k for k in _STEP_KEYWORDS if k in kwargs]
        if clash:
            raise TypeError(f"Trafilatura() sets extract's {clash[0]!r} itself; it cannot be passed in **kwargs")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, not {batch_size!r}")
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise ValueError(f"threads must be None or a positive int, not {threads!r}")
        if max_html_chars is not None and (isinstance(max_html_chars, bool) or not isinstance(max_html_chars, int)
                                           or max_html_chars < 0):
            raise ValueError(f"max_html_chars must be None or a non-negative int, not {max_html_chars!r}")
        if engine is not None:
            trafila.engine(engine)  # EngineUnavailable / ValueError now, not in the task
        self.compat = compat
        self.batch_size = batch_size
        self.threads = threads
        self.max_html_chars = max_html_chars
        self.engine = engine
        #: the trafila mode run, or None: datatrove's own step runs the documents
        self.mode: Optional[str] = resolve_compat(compat)
        if self.mode is None:
            warnings.warn(
                f"trafila.integrations.datatrove.Trafilatura: trafilatura {installed_trafilatura()} is installed, "
                f"a release trafila does not reproduce ({', '.join(trafila.TRAFILATURA_VERSIONS)}): datatrove's own "
                "Trafilatura step runs the documents (pass compat='2.3.1' or compat='1.11.0' for trafila's)",
                trafila.FallbackWarning,
                stacklevel=2,
            )

    # --- one page, as BaseExtractor's API has it ------------------------------------------

    def extract(self, text: str) -> Optional[str]:
        """One page, as datatrove's ``Trafilatura.extract``: with ``deduplicate=True``
        it counts in the mode's module cache (as trafilatura's call in the calling process)."""
        if self.mode is None:
            return self._stock_step().extract(text)
        return self._extract_function("extract")(
            text, favor_precision=self.favour_precision, include_comments=False,
            deduplicate=self.deduplicate, compat=self.mode, **self.kwargs)

    # --- the step ---------------------------------------------------------------------------

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> DocumentsPipeline:
        """Extract the text of each document (lazily, ``batch_size`` documents at a time)
        and yield those with text, as datatrove's step does."""
        if self.mode is None:
            yield from self._stock_step().run(self._within_budget(data), rank, world_size)
            return
        if data is None:
            return
        state = DedupState(self.mode, self.deduplicate) if self.deduplicate else None
        for batch in batches(data, self.batch_size):
            yield from self._process(batch, state)

    def _within_budget(self, data: DocumentsPipeline) -> DocumentsPipeline:
        """The documents datatrove's own step is given: the budget applies there too."""
        if self.max_html_chars is None or data is None:
            return data
        return self._budget_filter(data)

    def _budget_filter(self, data: Iterator[Document]) -> Iterator[Document]:
        for doc in data:
            if self._over_budget(doc.text):
                self.stat_update(StatHints.total)
                self.stat_update(TOO_LARGE)
                continue
            yield doc

    def _over_budget(self, text: Any) -> bool:
        return self.max_html_chars is not None and isinstance(text, (str, bytes)) and len(text) > self.max_html_chars

    def _process(self, batch: Sequence[Document], state: Optional[DedupState]) -> Iterator[Document]:
        todo = [i for i, doc in enumerate(batch) if not self._over_budget(doc.text)]
        outcomes: Dict[int, Tuple[bool, Any]] = {}
        if todo:
            with self.track_time(unit="batch"):
                results = self._extract_pages([batch[i].text for i in todo], state)
            outcomes = dict(zip(todo, results))
        # the statistics are datatrove's, document by document in order, as each is reached
        for i, doc in enumerate(batch):
            self.stat_update(StatHints.total)
            if i not in outcomes:
                self.stat_update(TOO_LARGE)
                continue
            ok, value = outcomes[i]
            if not ok:
                self.stat_update(BROKEN)
                logger.warning(
                    f"trafila: extracting document {doc.id!r} raised {type(value).__name__}: {value}; skipped and "
                    "counted as broken_process (datatrove's extraction child dies there), deduplication restarts")
                continue
            doc.text = value
            self.stat_update("extracted")
            if doc.text:
                self.stat_update(StatHints.forwarded)
                self.update_doc_stats(doc)
                yield doc
            else:
                self.stat_update(StatHints.dropped)

    def _extract_pages(self, texts: List[Any], state: Optional[DedupState]) -> List[Tuple[bool, Any]]:
        """(True, text or None) or (False, the exception) for each page, in order (as datatrove's child)."""
        return extract_pages(texts, state, self._batch)

    def _batch(self, texts: List[Any], state: Optional[DedupState]) -> List[Optional[str]]:
        if not texts:
            return []
        kwargs = dict(favor_precision=self.favour_precision, include_comments=False, compat=self.mode, **self.kwargs)
        batch = self._extract_function("extract_batch")
        if state is None:
            return batch(texts, threads=self.threads, deduplicate=self.deduplicate, **kwargs)
        with state.lent() as dedup:
            return batch(texts, threads=self.threads, deduplicate=dedup, **kwargs)

    def _extract_function(self, name: str) -> Any:
        return getattr(trafila if self.engine is None else trafila.engine(self.engine), name)

    def _stock_step(self) -> BaseExtractor:
        """datatrove's own step with this step's arguments, counting in this step's statistics."""
        from datatrove.pipeline.extractors import Trafilatura as DatatroveTrafilatura  # noqa: PLC0415

        step = DatatroveTrafilatura(favour_precision=self.favour_precision, include_images=self.include_images,
                                    timeout=self.timeout, deduplicate=self.deduplicate, **self.kwargs)
        step.stats = self.stats
        return step
