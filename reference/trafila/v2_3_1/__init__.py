"""trafilatura 2.3.1's text path (fast mode), ported onto trafila's element model.

One module per upstream module. Entry points: :func:`trafila.v2_3_1.core.extract`
and :func:`trafila.v2_3_1.core.bare_extraction`.
"""
