"""Put on PYTHONPATH by ``harness.replay record``: in a Python process started by a
test (e.g. the trafilatura CLI run through subprocess), record its calls too.

Active only when the recorder plugin has set ``TRAFILA_REPLAY_SUBPROCESS=1``
in the environment of the pytest process (so pytest itself is unaffected).
"""

import os
import sys

if os.environ.get("TRAFILA_REPLAY_SUBPROCESS") == "1":
    try:
        from harness.replay.recorder import start_child

        start_child()
    except Exception as err:  # never break the program under test
        sys.stderr.write(f"harness.replay: cannot record this subprocess: {type(err).__name__}: {err}\n")
