"""trafilatura 1.11.0's text path, ported onto trafila's element model.

One module per upstream module (settings, utils, xpaths, htmlprocessing,
main_extractor, baseline, xml, deduplication, external, core); the readability
fork 1.11.0 vendors is :mod:`trafila.readability_1_11_0`. Entry points:
:func:`trafila.v1_11_0.core.extract` and :func:`trafila.v1_11_0.core.bare_extraction`.
"""
