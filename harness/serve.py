"""Serve a candidate over the JSON Lines protocol (harness/PROTOCOL.md).

``python -m harness.serve --candidate trafilatura`` reads one request per line
on stdin and answers one result per line on stdout. It is the reference
implementation of the protocol's server side: ports in other languages answer
the same way, and the tests diff it (as ``cmd:python -m harness.serve …``).
"""

from __future__ import annotations

import argparse
import json
import sys

from .candidates import decode_request, make_candidate


def answer(cand, req: dict) -> dict:
    rid = req.get("id")
    if req.get("op") == "reset_dedup":
        cand.reset_dedup(req["mode"])
        return {"id": rid, "ok": True}
    try:
        html = decode_request(req)
        result = cand.call(req["function"], html, req.get("options", {}), req["mode"])
    except Exception as exc:
        return {"id": rid, "raise": type(exc).__name__, "message": str(exc)[:500]}
    return {"id": rid, "result": result}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m harness.serve")
    ap.add_argument("--candidate", default="trafilatura")
    args = ap.parse_args(argv)
    cand = make_candidate(args.candidate)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except ValueError as err:
            out = {"id": None, "error": f"bad request line: {err}"}
        else:
            out = answer(cand, req)
        sys.stdout.write(json.dumps(out, ensure_ascii=True) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
