"""Measure ``trafila extract`` on a WARC file of dev pages (``python -m harness cli-bench``).

Builds a gzipped WARC file (one request and one response record per page, each
record its own gzip member, as crawlers write them) from the first ``--pages``
pages of the dev corpora (``$TRAFILA_CORPORA``, default ``../shared/corpora``),
then measures, on that file:

* **reading**: every WARC library installed, through the reader ``trafila
  extract`` uses (pages per second, MB of payload per second; best of
  ``--read-rounds``), so the choice of library rests on a figure;
* **throughput**: ``trafila extract FILE -o OUT --quiet`` (in process) against
  ``trafila.extract_batch`` on the same payloads, alternately, ``--rounds``
  times each (best of each); the texts written are checked equal to
  extract_batch's.

``--report PATH`` writes PATH.md and PATH.json (the command, the commit, the
versions and the figures). :func:`write_warc` is the WARC writer the
measurement uses.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import io
import json
import os
import platform
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import IO, Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from .provenance import git_commit, write_report_json, write_report_text

__all__ = ["write_warc", "dev_pages", "main"]


def _warc_record(record_type: str, url: str, block: bytes, content_type: str, record_id: str,
                 date: str = "2024-01-01T00:00:00Z", extra: Sequence[Tuple[str, str]] = ()) -> bytes:
    headers = [
        ("WARC-Type", record_type), ("WARC-Record-ID", record_id), ("WARC-Date", date),
        ("WARC-Target-URI", url), *extra, ("Content-Type", content_type), ("Content-Length", str(len(block))),
    ]
    head = "WARC/1.0\r\n" + "".join(f"{name}: {value}\r\n" for name, value in headers) + "\r\n"
    return head.encode("utf-8") + block + b"\r\n\r\n"


def write_warc(out: IO[bytes], pages: Iterable[Tuple[str, bytes]], compress: bool = True,
               content_type: str = "text/html; charset=utf-8") -> List[str]:
    """Write ``pages`` ((url, HTML bytes) pairs) as a WARC: a warcinfo record, then
    a request and a response (HTTP 200) record per page; each record a gzip
    member when ``compress``. Returns the response records' WARC-Record-IDs."""
    def emit(record: bytes) -> None:
        out.write(gzip.compress(record, compresslevel=6) if compress else record)

    emit(_warc_record("warcinfo", "", b"software: trafila.cli.bench\r\n", "application/warc-fields",
                      f"<urn:uuid:{uuid.uuid4()}>"))
    ids: List[str] = []
    for url, html in pages:
        request = f"GET / HTTP/1.1\r\nHost: {url.split('/')[2] if url.count('/') >= 2 else 'example.org'}\r\n\r\n"
        request_id = f"<urn:uuid:{uuid.uuid4()}>"
        emit(_warc_record("request", url, request.encode("latin-1", "replace"), "application/http; msgtype=request",
                          request_id))
        http = (f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {len(html)}\r\n\r\n").encode("ascii")
        record_id = f"<urn:uuid:{uuid.uuid4()}>"
        emit(_warc_record("response", url, http + html, "application/http; msgtype=response", record_id,
                          extra=[("WARC-Concurrent-To", request_id)]))
        ids.append(record_id)
    return ids


def corpora_folder() -> Path:
    """``$TRAFILA_CORPORA``, else ``../shared/corpora`` beside the checkout."""
    configured = os.environ.get("TRAFILA_CORPORA")
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[3].parent / "shared" / "corpora"


def dev_pages(folder: Path, count: int) -> Iterator[Tuple[str, str, bytes]]:
    """(id, url, raw bytes) of the first ``count`` pages of the bundles, in name order."""
    given = 0
    for bundle in sorted(folder.glob("*.jsonl.gz")):
        with gzip.open(bundle, "rt", encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                raw = record["html"].encode("utf-8") if record.get("html") is not None \
                    else base64.b64decode(record["html_b64"])
                yield record["id"], record.get("url") or f"http://example.org/{record['id']}", raw
                given += 1
                if given >= count:
                    return


def _git_commit() -> Optional[str]:
    "HEAD in full, noting uncommitted changes to tracked files."
    return git_commit(short=False, mark_dirty=True)


def _version(module: str) -> Optional[str]:
    try:
        from importlib.metadata import version  # noqa: PLC0415

        return version(module)
    except Exception:  # noqa: BLE001 - not installed
        return None


def measure_reading(path: str, library: str, rounds: int) -> Dict[str, Any]:
    """The best of ``rounds`` passes of trafila extract's WARC reader over ``path``."""
    from trafila.cli.inputs import Page, ReadConfig, read_input  # noqa: PLC0415

    best = None
    pages = payload = 0
    for _ in range(rounds):
        started = time.perf_counter()
        pages = payload = 0
        for item in read_input(path, ReadConfig(warc_library=library)):
            if isinstance(item, Page):
                pages += 1
                payload += len(item.content or b"")
        elapsed = time.perf_counter() - started
        best = elapsed if best is None else min(best, elapsed)
    assert best is not None
    return {"library": library, "version": _version(library), "pages": pages, "payload_mb": payload / 1e6,
            "seconds": best, "pages_per_s": pages / best, "mb_per_s": payload / 1e6 / best}


def measure_throughput(path: str, payloads: List[bytes], rounds: int, threads: Optional[int]) -> Dict[str, Any]:
    """``trafila extract`` against ``extract_batch`` on the same pages, alternately."""
    import trafila  # noqa: PLC0415

    from trafila.cli import main as cli_main  # noqa: PLC0415

    batch_times: List[float] = []
    cli_times: List[float] = []
    expected: List[Optional[str]] = []
    written: List[Optional[str]] = []
    with tempfile.TemporaryDirectory(prefix="trafila-bench-") as tmp:
        out = os.path.join(tmp, "out.jsonl")
        cli_args = ["extract", path, "-o", out, "--quiet"] + (["--threads", str(threads)] if threads else [])
        trafila.extract_batch(payloads[:50], threads=threads)  # warm up: imports, caches, stoplists
        for _ in range(rounds):
            started = time.perf_counter()
            expected = trafila.extract_batch(payloads, threads=threads)
            batch_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            status = cli_main(cli_args)
            cli_times.append(time.perf_counter() - started)
            if status != 0:
                raise SystemExit(f"trafila extract exited {status}")
            with open(out, encoding="utf-8") as handle:
                written = [json.loads(line)["text"] for line in handle]
    batch, cli = min(batch_times), min(cli_times)
    return {
        "pages": len(payloads), "rounds": rounds, "threads": threads,
        "engine": trafila._engine.default_engine("2.3.1"),
        "extract_batch_s": batch, "cli_s": cli, "extract_batch_pages_per_s": len(payloads) / batch,
        "cli_pages_per_s": len(payloads) / cli, "cli_over_batch": cli / batch,
        "all_batch_s": batch_times, "all_cli_s": cli_times,
        "texts_equal": written == expected, "texts": sum(t is not None for t in expected),
    }


def _markdown(result: Dict[str, Any]) -> str:
    lines = [
        "# trafila extract on a WARC file of dev pages", "",
        f"Written by `{result['command']}` at commit `{result['commit']}`"
        f" (Python {result['python']}, {result['machine']}).", "",
        f"The WARC file: the first {result['warc']['pages']:,} dev pages, gzipped per record "
        f"(a request and a response record per page), {result['warc']['mb']:.1f} MB on disk, "
        f"{result['warc']['payload_mb']:.1f} MB of HTML.", "",
        "## Reading (the reader trafila extract uses; best of "
        f"{result['read_rounds']})", "",
        "| library | version | pages | seconds | pages/s | MB/s |", "|---|---|---:|---:|---:|---:|",
    ]
    for row in result["reading"]:
        lines.append(f"| {row['library']} | {row['version']} | {row['pages']:,} | {row['seconds']:.3f} | "
                     f"{row['pages_per_s']:,.0f} | {row['mb_per_s']:,.1f} |")
    t = result.get("throughput")
    if t:
        lines += [
            "", f"## Throughput (engine `{t['engine']}`, default options, threads {t['threads'] or 'default'}; "
            f"best of {t['rounds']}, run alternately)", "",
            "| what | seconds | pages/s |", "|---|---:|---:|",
            f"| `trafila.extract_batch(payloads)` | {t['extract_batch_s']:.1f} | {t['extract_batch_pages_per_s']:.1f} |",
            f"| `trafila extract FILE.warc.gz -o OUT.jsonl` | {t['cli_s']:.1f} | {t['cli_pages_per_s']:.1f} |",
            "", f"CLI time / extract_batch time: **{t['cli_over_batch']:.3f}** "
            f"({'within' if t['cli_over_batch'] <= 1.15 else 'NOT within'} 15 %); texts written equal to "
            f"extract_batch's: **{t['texts_equal']}** ({t['texts']:,} texts).",
        ]
    return "\n".join(lines) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness cli-bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=1, help="throughput rounds (each: extract_batch, then the CLI)")
    parser.add_argument("--read-rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--no-throughput", action="store_true", help="measure reading only")
    parser.add_argument("--report", metavar="PATH", help="write PATH.md and PATH.json")
    args = parser.parse_args(argv)
    from trafila.cli.inputs import WARC_LIBRARIES, warc_library  # noqa: PLC0415

    folder = corpora_folder()
    records = list(dev_pages(folder, args.pages))
    if len(records) < args.pages:
        print(f"only {len(records)} pages in {folder}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="trafila-bench-warc-") as tmp:
        path = os.path.join(tmp, "dev.warc.gz")
        with open(path, "wb") as out:
            write_warc(out, ((url, raw) for _id, url, raw in records))
        payloads = [raw for _id, _url, raw in records]
        result: Dict[str, Any] = {
            "command": "python -m harness cli-bench " + " ".join(argv if argv is not None else sys.argv[1:]),
            "commit": _git_commit(), "python": platform.python_version(), "machine": f"{os.cpu_count()} CPUs",
            "warc": {"pages": len(records), "mb": os.path.getsize(path) / 1e6,
                     "payload_mb": sum(map(len, payloads)) / 1e6},
            "read_rounds": args.read_rounds, "reading": [],
        }
        for library in WARC_LIBRARIES:
            if warc_library(library) is None:
                print(f"{library}: not installed", file=sys.stderr)
                continue
            row = measure_reading(path, library, args.read_rounds)
            print(f"reading with {library}: {row['pages_per_s']:,.0f} pages/s, {row['mb_per_s']:,.1f} MB/s", file=sys.stderr)
            result["reading"].append(row)
        if not args.no_throughput:
            result["throughput"] = measure_throughput(path, payloads, args.rounds, args.threads)
            t = result["throughput"]
            print(f"extract_batch {t['extract_batch_s']:.1f} s, CLI {t['cli_s']:.1f} s, ratio {t['cli_over_batch']:.3f}, "
                  f"texts equal {t['texts_equal']}", file=sys.stderr)
    if args.report:
        write_report_json(Path(args.report + ".json"), result)
        write_report_text(Path(args.report + ".md"), _markdown(result))
    else:
        print(_markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())


# -- as a harness command (python -m harness cli-bench ...) ---------------------------

def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("rest", nargs=argparse.REMAINDER, help="the options above (--pages, --rounds, --report ...)")


def run(args: argparse.Namespace, argv: List[str]) -> int:
    return main(list(args.rest))
