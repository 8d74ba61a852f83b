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

from .candidates import PROTOCOL_FUNCTIONS, PROTOCOL_VERSION, UnsupportedFunction, decode_request, make_candidate


def hello(cand, spec: str) -> dict:
    """The answer to the protocol-2 handshake: what this server offers."""
    from .matrix import MODES
    from .vectors import Parsers

    modes = list(MODES)
    if spec == "trafilatura":
        modes = [getattr(cand, "version", "")]
    ops = ["reset_dedup"] + (["parse"] if Parsers.for_candidate(spec, cand) is not None else [])
    return {"protocol": PROTOCOL_VERSION, "name": f"harness.serve --candidate {spec}", "modes": modes,
            "functions": list(PROTOCOL_FUNCTIONS), "ops": ops}


def answer(cand, req: dict, spec: str = "trafilatura") -> dict:
    rid = req.get("id")
    op = req.get("op")
    if op == "hello":
        return {"id": rid, **hello(cand, spec)}
    if op == "reset_dedup":
        cand.reset_dedup(req["mode"])
        return {"id": rid, "ok": True}
    if op == "parse":
        from .vectors import Parsers

        parse = Parsers.for_candidate(spec, cand)
        if parse is None:
            return {"id": rid, "error": f"candidate {spec} has no parser"}
        return {"id": rid, "result": parse(decode_request(req))}
    if op is not None:
        return {"id": rid, "error": f"unknown op {op!r}"}
    if req.get("function") not in PROTOCOL_FUNCTIONS:
        return {"id": rid, "error": str(UnsupportedFunction(str(req.get("function"))))}
    try:
        html = decode_request(req)
        result = cand.call(req["function"], html, req.get("options", {}), req["mode"])
    except Exception as exc:
        return {"id": rid, "raise": type(exc).__name__, "message": str(exc)[:500]}
    return {"id": rid, "result": result}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m harness.serve")
    ap.add_argument("--candidate", default="trafilatura")
    ap.add_argument("--protocol", type=int, default=PROTOCOL_VERSION, choices=(1, 2),
                    help="1: behave as a program written before the handshake (tests the fallback)")
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
            if args.protocol == 1 and req.get("op") in ("hello", "parse"):
                out = {"id": req.get("id"), "raise": "KeyError", "message": "'function'"}  # what a v1 server did
            else:
                out = answer(cand, req, args.candidate)
        sys.stdout.write(json.dumps(out, ensure_ascii=True) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
