"""The FineWeb pipeline around the extraction: datatrove 0.10.1's steps, reproduced.

datatrove's FineWeb example runs ``WarcReader -> URLFilter -> Trafilatura ->
GopherRepetitionFilter -> GopherQualityFilter -> C4QualityFilter -> FineWebQualityFilter``.
This package holds what those steps decide, as readable Python that defines the semantics
(the compiled twins live in ``cython_core/fineweb/`` and are held to these modules by the
harness, ``python -m harness filters``):

- ``tokenizer``: the English word and sentence splitting datatrove uses (spaCy's
  ``blank("en")`` tokenizer with the ``sentencizer``), generated data in ``data/``;
- ``text``: datatrove's text utilities (punctuation tables, ``split_into_words`` and
  ``split_into_sentences`` with their per-text cache);
- ``quality``: the Gopher repetition and quality, C4 quality and FineWeb quality decisions;
- ``url_filter``: the URL filter's block lists (datatrove's, or the packaged copy in ``data/``) and decision;
- ``warc``: WARC records to documents, as datatrove's reader makes them;
- ``pipeline``: the whole example without datatrove (``trafila fineweb --native``): the steps
  as a chain of generators, one process per task, writing the files and statistics datatrove's
  executor writes.

The datatrove steps built on them are in :mod:`trafila.integrations.datatrove`.
"""
