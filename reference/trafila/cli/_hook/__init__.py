"""The startup hook ``trafila run`` puts on ``PYTHONPATH`` for the Python processes a program starts (see sitecustomize.py)."""
