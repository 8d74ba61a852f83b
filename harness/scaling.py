"""Pathological inputs: the parser's time must grow linearly with the input.

``python -m harness scaling`` parses each pathological input at three sizes
(n/100, n/10, n), with trafila's parser and with lxml, checks that both give
the same outcome (equal trees or the same exception class) and that trafila's
time grows about linearly (each 10x step costs at most ``MAX_STEP`` times
more), and writes ``reports/parser-scaling.md`` / ``.json``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Callable, Dict, List

from .corpora import ROOT
from .provenance import write_report_json, write_report_text

REPORTS_DIR = ROOT / "reports"
#: a 10x larger input may cost at most this many times more (linear, with slack for noise)
MAX_STEP = 20.0


def _page(n: int) -> str:
    unit = ("<div class=\"post\"><h2>Title &amp; more</h2><p>Some <b>text</b> with a <a href=\"/x?a=1&b=2\">link</a>"
            " and &copy; entities &#233; and <br> breaks.</p><ul><li>one<li>two</ul><table><tr><td>c</table></div>\n")
    return "<html><head><title>t</title></head><body>" + unit * max(1, n // len(unit)) + "</body></html>"


CASES: Dict[str, Callable[[int], str]] = {
    "page of 10 MB": _page,
    "100,000 nested tags": lambda n: "<div>" * (n // 5),
    "only <": lambda n: "<" * n,
    "only &": lambda n: "&" * n,
    "NULs": lambda n: "<p>" + "\x00" * n,
    "unclosed comment": lambda n: "<p>a<!--" + "x" * n,
    "unterminated attribute": lambda n: '<p a="' + "x" * n,
}
SIZES = {"page of 10 MB": 10_000_000, "100,000 nested tags": 500_000}
DEFAULT_SIZE = 1_000_000


def _time(fn: Callable[[], object]):
    t0 = time.process_time()
    try:
        out = ("ok", fn())
    except Exception as exc:
        out = ("raise", type(exc).__name__)
    return time.process_time() - t0, out


def run(log=print, engine: str = "reference") -> dict:
    from lxml import etree

    from trafila import _engine

    thtml = _engine.parser(engine)  # the core's parse_document gives its C document (with the Document API)

    from .tree import EXCEPTION_MAP, lxml_side
    from . import treedump

    _, lhtml, parser = lxml_side()
    rows: List[dict] = []
    for name, make in CASES.items():
        n = SIZES.get(name, DEFAULT_SIZE)
        times, ltimes, same = [], [], True
        for size in (n // 100, n // 10, n):
            src = make(size)
            t, ours = _time(lambda: thtml.parse_document(src))
            lt, theirs = _time(lambda: etree.fromstring(src, parser))
            if ours[0] == "ok" and theirs[0] == "ok":
                a = treedump.dump_trafila_document(ours[1]) if ours[1].getroot() is not None else None
                b = treedump.dump_lxml_document(theirs[1]) if theirs[1] is not None else None
                if a is not None and b is not None:
                    same &= a["nodes"] == b["nodes"]
                else:
                    same &= (a is None) == (b is None)
            else:
                same &= ours[0] == theirs[0] and EXCEPTION_MAP.get(theirs[1], theirs[1]) == ours[1]
            times.append(t)
            ltimes.append(lt)
        steps = [times[i + 1] / max(times[i], 1e-4) for i in range(2)]
        row = {"input": name, "sizes": [n // 100, n // 10, n], "trafila_seconds": [round(x, 4) for x in times],
               "lxml_seconds": [round(x, 4) for x in ltimes], "growth_per_10x": [round(s, 1) for s in steps],
               "linear": all(s <= MAX_STEP for s in steps), "same_as_lxml": same}
        rows.append(row)
        log(f"{name}: {row['trafila_seconds']} s (lxml {row['lxml_seconds']}), growth {row['growth_per_10x']}, "
            f"linear {row['linear']}, same as lxml {same}")
    return {"rows": rows, "max_step": MAX_STEP, "engine": engine}


def write_report(result: dict, command: str, out_dir: Path = REPORTS_DIR) -> None:
    from .provenance import stamped

    result = stamped(result, command)
    out_dir.mkdir(parents=True, exist_ok=True)
    engine = result.get("engine", "reference")
    stem = "parser-scaling" if engine == "reference" else f"parser-scaling-{engine}"
    write_report_json(out_dir / f"{stem}.json", result)
    lines = [f"# Parser on pathological inputs ({engine} engine): linear time, lxml's outcome", "",
             "Written by `python -m harness scaling` (never by hand). CPU seconds at three sizes; "
             f"'linear' means each 10x larger input cost at most {result['max_step']:g}x more.", "",
             f"- run: {result['date']}, commit {result['commit']}, `{command}`", "",
             "| input | sizes (chars) | trafila s | lxml s | growth per 10x | linear | same outcome as lxml |",
             "|---|---|---|---|---|---|---|"]
    for r in result["rows"]:
        lines.append(f"| {r['input']} | {' / '.join(map(str, r['sizes']))} | {' / '.join(map(str, r['trafila_seconds']))} | "
                     f"{' / '.join(map(str, r['lxml_seconds']))} | {' / '.join(map(str, r['growth_per_10x']))} | "
                     f"{'yes' if r['linear'] else 'NO'} | {'yes' if r['same_as_lxml'] else 'NO'} |")
    write_report_text(out_dir / f"{stem}.md", "\n".join(lines) + "\n")
