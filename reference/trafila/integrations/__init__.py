"""Steps that put trafila into data-processing frameworks.

- :mod:`trafila.integrations.datatrove`: ``Trafilatura``, a drop-in for
  datatrove 0.10.1's ``datatrove.pipeline.extractors.Trafilatura``
  (``pip install 'trafila[datatrove]'``).

Nothing here is imported by ``import trafila``; each module needs its framework.
"""
