"""The ``trafila`` command: ``trafila extract`` end to end on generated HTML, JSON
Lines and WARC files (in process and through ``python -m trafila``), and
``trafila run`` with forked and spawned children.

Every text the command writes is checked against ``trafila.extract`` called on
the same page with the same options.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import random
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pytest

import trafila
from .conftest import needs_trafilatura_231
from trafila import cli
from trafila.cli import inputs as cli_inputs

PACKAGE_ROOT = Path(trafila.__file__).resolve().parent.parent  # the folder trafila is imported from
REPO = Path(__file__).resolve().parent.parent
WARC_LIBS = [name for name in cli_inputs.WARC_LIBRARIES if cli_inputs.warc_library(name) is not None]
needs_warc = pytest.mark.skipif(not WARC_LIBS, reason="neither warcio nor fastwarc is installed (pip install 'trafila[warc]')")

WORDS = ("river stone market paper winter garden signal morning harbour lantern village quiet engine orchard "
         "letter copper window meadow thunder basket candle silver forest ladder").split()


# --- generated inputs ----------------------------------------------------------------


def make_page(seed: int, paragraphs: int = 4) -> str:
    """An article page with a navigation bar, a table, a comment section: text for trafila to find."""
    rng = random.Random(seed)

    def sentence(n: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."

    body = "".join(f"<p>{' '.join(sentence(rng.randint(8, 16)) for _ in range(3))}</p>" for _ in range(paragraphs))
    table = "<table><tr><td>" + sentence(5) + "</td><td>" + sentence(4) + "</td></tr></table>"
    comments = f'<div class="comments"><p>{sentence(12)}</p></div>'
    return (f"<html><head><title>{sentence(4)}</title></head><body><nav><a href='/'>Home</a> <a href='/a'>About</a></nav>"
            f"<article><h1>{sentence(5)}</h1>{body}{table}<a href='/more/{seed}'>{sentence(3)}</a></article>"
            f"{comments}<footer>{sentence(4)}</footer></body></html>")


EMPTY_PAGE = "<html><body></body></html>"  # extract gives None


def warc_record(record_type: str, url: str, block: bytes, content_type: str) -> Tuple[str, bytes]:
    record_id = f"<urn:uuid:{uuid.uuid4()}>"
    head = (f"WARC/1.1\r\nWARC-Type: {record_type}\r\nWARC-Record-ID: {record_id}\r\nWARC-Date: 2024-05-01T12:00:00Z\r\n"
            f"WARC-Target-URI: {url}\r\nContent-Type: {content_type}\r\nContent-Length: {len(block)}\r\n\r\n")
    return record_id, head.encode("ascii") + block + b"\r\n\r\n"


def http_response(body: bytes, status: str = "200 OK", content_type: Optional[str] = "text/html; charset=utf-8",
                  headers: Sequence[str] = ()) -> bytes:
    lines = [f"HTTP/1.1 {status}"] + ([f"Content-Type: {content_type}"] if content_type else []) + list(headers)
    if not any(h.lower().startswith("transfer-encoding") for h in headers):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + body


def chunked(data: bytes, size: int = 700) -> bytes:
    parts = [f"{len(data[i:i + size]):x}\r\n".encode() + data[i:i + size] + b"\r\n" for i in range(0, len(data), size)]
    return b"".join(parts) + b"0\r\n\r\n"


class WarcFile:
    """A gzipped WARC built record by record (each record a gzip member); remembers the HTML responses."""

    def __init__(self) -> None:
        self.members: List[bytes] = []
        self.pages: List[Tuple[str, str, bytes]] = []  # (record id, url, the decoded payload)
        _, info = warc_record("warcinfo", "", b"software: tests\r\n", "application/warc-fields")
        self.members.append(gzip.compress(info))

    def add(self, url: str, http: bytes, payload: Optional[bytes]) -> None:
        _, request = warc_record("request", url, b"GET / HTTP/1.1\r\nHost: example.org\r\n\r\n",
                                 "application/http; msgtype=request")
        self.members.append(gzip.compress(request))
        record_id, response = warc_record("response", url, http, "application/http; msgtype=response")
        self.members.append(gzip.compress(response))
        if payload is not None:
            self.pages.append((record_id, url, payload))

    def write(self, path: Path) -> Path:
        path.write_bytes(b"".join(self.members))
        return path


def standard_warc(n: int = 6) -> WarcFile:
    """HTML responses (plain, chunked and gzip-encoded, one empty page) and records to skip (404, an image)."""
    warc = WarcFile()
    for i in range(n):
        html = (make_page(100 + i) if i != 2 else EMPTY_PAGE).encode("utf-8")
        if i == 3:
            warc.add(f"http://example.org/{i}", http_response(chunked(gzip.compress(html)),
                     headers=["Transfer-Encoding: chunked", "Content-Encoding: gzip"]), html)
        else:
            warc.add(f"http://example.org/{i}", http_response(html), html)
    warc.add("http://example.org/missing", http_response(b"<html><body>not here</body></html>", "404 Not Found"), None)
    warc.add("http://example.org/logo.png", http_response(b"\x89PNG....", content_type="image/png"), None)
    return warc


def read_jsonl(path: Path) -> List[Dict[str, Any]]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:  # type: ignore[operator]
        return [json.loads(line) for line in handle]


def run_main(args: Sequence[str], capsys: Any) -> Tuple[int, str, str]:
    status = cli.main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def expected(content: Any, **kwargs: Any) -> Optional[str]:
    return trafila.extract(content, **kwargs)


# --- HTML files and folders ---------------------------------------------------------------


def test_html_files_and_folders(tmp_path: Path, capsys: Any) -> None:
    site = tmp_path / "site"
    (site / "blog" / "2024").mkdir(parents=True)
    (site / ".hidden").mkdir()
    files = {
        site / "index.html": make_page(1),
        site / "blog" / "post.htm": make_page(2),
        site / "blog" / "2024" / "deep.xhtml": make_page(3),
        site / "blog" / "noext": make_page(4),
        site / "empty.html": EMPTY_PAGE,
        site / ".hidden" / "secret.html": make_page(5),
    }
    for path, html in files.items():
        path.write_text(html, encoding="utf-8")
    (site / "style.css").write_text("body { color: red }")
    zipped = tmp_path / "single.html.gz"
    zipped.write_bytes(gzip.compress(make_page(6).encode("utf-8")))
    out = tmp_path / "out.jsonl"
    status, _, err = run_main(["extract", str(site), str(zipped), "-o", str(out)], capsys)
    assert status == 0, err
    rows = read_jsonl(out)
    taken = sorted(p for p in files if ".hidden" not in str(p))
    # a folder's files in name order, then its subfolders in name order
    order = [str(site / "empty.html"), str(site / "index.html"), str(site / "blog" / "noext"),
             str(site / "blog" / "post.htm"), str(site / "blog" / "2024" / "deep.xhtml"), str(zipped)]
    assert [r["id"] for r in rows] == order
    for row in rows:
        path = Path(row["id"])
        raw = gzip.decompress(path.read_bytes()) if path.name.endswith(".gz") else path.read_bytes()
        assert row["text"] == expected(raw)
        assert row["url"] is None
    assert rows[0]["text"] is None and all(r["text"] for r in rows[1:])
    assert len(taken) == 5
    assert "6 pages read, 5 texts extracted, 1 None, 0 errors" in err
    assert "1 skipped" in err  # style.css


def test_output_inside_an_input_folder_is_not_read(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "a.html").write_text(make_page(1), encoding="utf-8")
    out = tmp_path / "texts.jsonl"
    for _ in range(2):  # the second run finds the first run's output in the folder
        status, _, err = run_main(["extract", str(tmp_path), "-o", str(out)], capsys)
        assert status == 0, err
        assert [r["id"] for r in read_jsonl(out)] == [str(tmp_path / "a.html")]
        assert "1 page read, 1 text extracted, 0 None, 0 errors, 0 delegated calls" in err


# --- JSON Lines ------------------------------------------------------------------------------


def jsonl_bundle(path: Path) -> List[Dict[str, Any]]:
    """A gzipped bundle in the dev corpora's format, with the damage a real one can have."""
    latin = make_page(13).replace("river", "rivi\u00e8re").encode("latin-1", "replace")
    records: List[Any] = [
        {"id": "a/1", "url": "http://example.org/1", "html": make_page(11)},
        {"id": "a/2", "url": None, "html": make_page(12)},
        "not json at all",
        {"id": "a/3", "url": "http://example.org/3", "html": None, "html_b64": base64.b64encode(latin).decode()},
        [1, 2, 3],
        {"id": "a/4", "html": None},
        {"id": "a/5", "url": "http://example.org/5"},
        {"id": "a/6", "html": 42},
        {"id": 7, "url": "http://example.org/7", "html": EMPTY_PAGE},
        {"url": "http://example.org/8", "html": make_page(18)},
    ]
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    lines.insert(4, "")  # blank lines are skipped
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    return records


@needs_trafilatura_231
@pytest.mark.filterwarnings("ignore::trafila.FallbackWarning")  # the latin-1 page, without charset_normalizer
def test_jsonl_fields_and_broken_records(tmp_path: Path, capsys: Any) -> None:
    bundle = tmp_path / "bundle.jsonl.gz"
    records = jsonl_bundle(bundle)
    out = tmp_path / "out.jsonl.gz"
    status, _, err = run_main(["extract", str(bundle), "-o", str(out), "--progress", "none"], capsys)
    assert status == 1  # broken records
    rows = read_jsonl(out)
    assert [r["id"] for r in rows] == ["a/1", "a/2", "a/3", "a/4", 7, None]
    assert [r["url"] for r in rows] == ["http://example.org/1", None, "http://example.org/3", None,
                                        "http://example.org/7", "http://example.org/8"]
    pages = {0: records[0]["html"], 1: records[1]["html"], 2: base64.b64decode(records[3]["html_b64"]),
             4: EMPTY_PAGE, 5: records[9]["html"]}
    for i, page in pages.items():
        assert rows[i]["text"] == expected(page)
    assert rows[3]["text"] is None and rows[4]["text"] is None and all(rows[i]["text"] for i in (0, 1, 2, 5))
    # each broken record named with its file and line
    for line, what in ((3, "not JSON"), (6, "a JSON list, not an object"), (8, "no field 'html'"),
                       (9, "field 'html' is a JSON int, not a string")):
        assert f"{bundle}: line {line}: {what}" in err
    # the latin-1 page is not UTF-8: decoded natively with charset_normalizer (the [charset] extra),
    # handed to trafilatura (counted) without it
    import importlib.util

    delegated = 0 if importlib.util.find_spec("charset_normalizer") is not None else 1
    assert f"6 pages read, 4 texts extracted, 2 None, 4 errors (4 reading, 0 extracting), {delegated} delegated call{'' if delegated == 1 else 's'}" in err
    assert "Traceback" not in err


def test_jsonl_custom_fields(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "custom.ndjson"
    path.write_text("\n".join(json.dumps({"key": f"k{i}", "link": f"http://e.org/{i}", "content": make_page(i)})
                              for i in range(3)) + "\n", encoding="utf-8")
    status, out, err = run_main(["extract", str(path), "--field", "content", "--id-field", "key", "--url-field", "link"], capsys)
    assert status == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(r["id"], r["url"]) for r in rows] == [(f"k{i}", f"http://e.org/{i}") for i in range(3)]
    assert [r["text"] for r in rows] == [expected(make_page(i)) for i in range(3)]


def test_truncated_gzip_is_reported_and_the_run_goes_on(tmp_path: Path, capsys: Any) -> None:
    full = gzip.compress("".join(json.dumps({"id": i, "html": make_page(i)}) + "\n" for i in range(40)).encode())
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(full[: len(full) // 2])
    bad_html = tmp_path / "bad.html.gz"
    bad_html.write_bytes(b"\x1f\x8b\x08\x00garbage that is not deflate")
    good = tmp_path / "good.html"
    good.write_text(make_page(99), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    status, _, err = run_main(["extract", str(broken), str(bad_html), str(good), str(tmp_path / "missing.html"),
                               "-o", str(out)], capsys)
    assert status == 1
    rows = read_jsonl(out)
    assert rows[-1]["id"] == str(good) and rows[-1]["text"] == expected(good.read_bytes())
    read_before = len(rows) - 1
    assert 0 < read_before < 40
    assert f"{broken}: line {read_before + 1}: cannot read further" in err
    assert f"{bad_html}: cannot read" in err
    assert f"{tmp_path / 'missing.html'}: no such file or folder" in err
    assert "3 errors" in err and "Traceback" not in err


def test_strict_stops_at_the_first_error(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join([json.dumps({"id": 1, "html": make_page(1)}), "{broken",
                               json.dumps({"id": 3, "html": make_page(3)})]) + "\n", encoding="utf-8")
    status, out, err = run_main(["extract", str(path), "--strict"], capsys)
    assert status == 1
    assert [json.loads(line)["id"] for line in out.splitlines()] == [1]
    assert f"{path}: line 2: not JSON" in err and "1 page read, 1 text extracted, 0 None, 1 error (1 reading" in err


# --- WARC ----------------------------------------------------------------------------------


@needs_warc
@pytest.mark.parametrize("library", WARC_LIBS)
def test_warc_html_responses(tmp_path: Path, capsys: Any, library: str) -> None:
    warc = standard_warc()
    path = warc.write(tmp_path / "crawl.warc.gz")
    out = tmp_path / "out.jsonl"
    status, _, err = run_main(["extract", str(path), "-o", str(out), "--warc-library", library], capsys)
    assert status == 0, err
    rows = read_jsonl(out)
    assert [(r["id"], r["url"]) for r in rows] == [(rid, url) for rid, url, _ in warc.pages]
    for row, (_, _, payload) in zip(rows, warc.pages):
        assert row["text"] == expected(payload)  # the chunked, gzip-encoded one decoded to the same bytes
    assert rows[2]["text"] is None and rows[3]["text"] == expected(warc.pages[3][2]) and rows[3]["text"]
    assert "6 pages read, 5 texts extracted, 1 None, 0 errors" in err and "2 skipped" in err


@needs_warc
@pytest.mark.parametrize("library", WARC_LIBS)
def test_truncated_warc(tmp_path: Path, capsys: Any, library: str) -> None:
    warc = standard_warc(8)
    data = b"".join(warc.members)
    cut = sum(len(m) for m in warc.members[:9]) + len(warc.members[9]) // 2  # inside the 5th response
    path = tmp_path / "cut.warc.gz"
    path.write_bytes(data[:cut])
    after = tmp_path / "after.html"
    after.write_text(make_page(7), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    status, _, err = run_main(["extract", str(path), str(after), "-o", str(out), "--warc-library", library], capsys)
    assert status == 1
    rows = read_jsonl(out)
    assert [r["id"] for r in rows] == [rid for rid, _, _ in warc.pages[:4]] + [str(after)]
    assert f"{path}: " in err and "cannot read further" in err and "Traceback" not in err


@needs_warc
@pytest.mark.parametrize("library", WARC_LIBS)
def test_uncompressed_warc_cut_inside_a_payload(tmp_path: Path, capsys: Any, library: str) -> None:
    warc = standard_warc(3)
    plain = b"".join(gzip.decompress(m) for m in warc.members)
    path = tmp_path / "cut.warc"
    cut = plain.index(warc.pages[1][2]) + 200  # inside the second page's HTML
    path.write_bytes(plain[:cut])
    status, out, err = run_main(["extract", str(path), "--warc-library", library], capsys)
    assert status == 1
    assert [json.loads(line)["id"] for line in out.splitlines()] == [warc.pages[0][0]]
    assert f"{path}: " in err and "Traceback" not in err


def test_warc_without_a_library(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(cli_inputs, "_installed", lambda name: False)
    path = standard_warc(2).write(tmp_path / "crawl.warc.gz")
    status, out, err = run_main(["extract", str(path)], capsys)
    assert status == 1 and out == ""
    assert f"{path}: a WARC file, and warcio or fastwarc is not installed (pip install 'trafila[warc]')" in err


# --- options: the texts are extract's for the same options ------------------------------------

OPTION_SETS = [
    ([], {}),
    (["--fast"], {"fast": True}),
    (["--precision"], {"favor_precision": True}),
    (["--recall"], {"favor_recall": True}),
    (["--no-comments", "--no-tables"], {"include_comments": False, "include_tables": False}),
    (["--fast", "--formatting", "--markdown"], {"fast": True, "include_formatting": True, "output_format": "markdown"}),
    (["--links"], {"include_links": True}),
    (["--compat", "1.11.0"], {"compat": "1.11.0"}),
    (["--compat", "1.11.0", "--fast", "--no-tables"], {"compat": "1.11.0", "fast": True, "include_tables": False}),
    (["--deduplicate", "--fast"], {"deduplicate": True, "fast": True}),
    (["--threads", "2"], {}),
]


@pytest.mark.parametrize("flags,kwargs", OPTION_SETS, ids=[" ".join(f) or "default" for f, _ in OPTION_SETS])
def test_options_give_extracts_texts(tmp_path: Path, capsys: Any, flags: List[str], kwargs: Dict[str, Any]) -> None:
    # repeated pages, so deduplication has something to drop
    pages = [make_page(i % 3, paragraphs=2 + i % 3) for i in range(12)]
    path = tmp_path / "pages.jsonl"
    path.write_text("".join(json.dumps({"id": i, "url": f"http://example.org/d/{i}/", "html": p}) + "\n"
                            for i, p in enumerate(pages)), encoding="utf-8")
    trafila.reset_caches()
    status, out, err = run_main(["extract", str(path), *flags], capsys)
    assert status == 0, err
    got = [json.loads(line)["text"] for line in out.splitlines()]
    trafila.reset_caches()
    url = kwargs.get("include_links")
    want = [trafila.extract(p, url=f"http://example.org/d/{i}/" if url else None, **kwargs) for i, p in enumerate(pages)]
    trafila.reset_caches()
    assert got == want
    if "deduplicate" in kwargs:  # the fourth copies of a page are dropped, as in the loop
        assert got[9:] == [None] * 3 and all(got[:9])


def test_extract_kwargs_leave_defaults_out() -> None:
    from trafila.cli.extract import extract_kwargs

    assert extract_kwargs() == {}
    assert extract_kwargs(no_comments=True, compat="1.11.0", config_file="x.cfg") == {
        "include_comments": False, "compat": "1.11.0", "settingsfile": "x.cfg"}


def test_config_file(tmp_path: Path, capsys: Any) -> None:
    cfg = tmp_path / "settings.cfg"
    text = trafila.DEFAULT_CONFIGS["2.3.1"]
    lines = ["[DEFAULT]"] + [f"{k} = {v}" for k, v in text["DEFAULT"].items()]
    cfg.write_text("\n".join(lines).replace("MIN_OUTPUT_SIZE = 1", "MIN_OUTPUT_SIZE = 5000") + "\n")
    page = tmp_path / "p.html"
    page.write_text(make_page(3), encoding="utf-8")
    status, out, err = run_main(["extract", str(page), "--config-file", str(cfg)], capsys)
    assert status == 0, err
    assert json.loads(out)["text"] == trafila.extract(page.read_bytes(), settingsfile=str(cfg))
    status, _, err = run_main(["extract", str(page), "--config-file", str(tmp_path / "nope.cfg")], capsys)
    assert status == 2 and "no such file" in err


# --- extraction errors ---------------------------------------------------------------------


def test_a_page_that_raises_is_counted_and_the_rest_extracted(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    real = trafila.extract_batch
    calls: List[int] = []

    def flaky(pages: List[Any], **kwargs: Any) -> List[Optional[str]]:
        calls.append(len(pages))
        for i, page in enumerate(pages):
            if "BOOM" in page:
                error = RuntimeError("boom")
                error.__notes__ = [f"trafila.extract_batch: raised by page {i} of {len(pages)}"]  # type: ignore[attr-defined]
                raise error
        return real(pages, **kwargs)

    monkeypatch.setattr(trafila, "extract_batch", flaky)
    pages = [make_page(i) for i in range(6)]
    pages[2] = pages[2].replace("<body>", "<body><!-- BOOM -->")
    pages[4] = pages[4].replace("<body>", "<body><!-- BOOM -->")
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps({"id": i, "html": p}) + "\n" for i, p in enumerate(pages)), encoding="utf-8")
    status, out, err = run_main(["extract", str(path)], capsys)
    assert status == 1
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["id"] for r in rows] == [0, 1, 3, 5]
    assert [r["text"] for r in rows] == [real([pages[i]])[0] for i in (0, 1, 3, 5)]
    assert f"{path}: line 3: extraction failed: RuntimeError: boom" in err
    assert f"{path}: line 5: extraction failed: RuntimeError: boom" in err
    assert "6 pages read, 4 texts extracted, 0 None, 2 errors (0 reading, 2 extracting)" in err
    # all; the two before page 2 again; the rest (raising at its 2nd); the one before it again; the last
    assert calls == [6, 2, 3, 1, 1]


# --- output -------------------------------------------------------------------------------


def test_output_dir(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "p.jsonl"
    ids = ["doc/1", "doc/1", "Doc?1", None, "empty"]
    pages = [make_page(1), make_page(2), make_page(3), make_page(4), EMPTY_PAGE]
    path.write_text("".join(json.dumps({"id": i, "html": p}) + "\n" for i, p in zip(ids, pages)), encoding="utf-8")
    folder = tmp_path / "texts"
    status, out, err = run_main(["extract", str(path), "--output-dir", str(folder)], capsys)
    assert status == 0 and out == "", err
    names = sorted(p.name for p in folder.iterdir())
    # Doc_1 is doc_1 on a case-insensitive file system; no file for the None page
    assert names == ["Doc_1-3.txt", "doc_1-2.txt", "doc_1.txt", "page-4.txt"]
    assert (folder / "doc_1.txt").read_text(encoding="utf-8") == expected(pages[0])
    assert (folder / "doc_1-2.txt").read_text(encoding="utf-8") == expected(pages[1])
    assert (folder / "Doc_1-3.txt").read_text(encoding="utf-8") == expected(pages[2])


def test_unwritable_output(tmp_path: Path, capsys: Any) -> None:
    page = tmp_path / "p.html"
    page.write_text(make_page(1))
    status, _, err = run_main(["extract", str(page), "-o", str(tmp_path / "no" / "such" / "dir" / "out.jsonl")], capsys)
    assert status == 2 and "cannot write" in err and "Traceback" not in err


def test_plain_progress_lines(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps({"id": i, "html": make_page(i)}) + "\n" for i in range(3)), encoding="utf-8")
    status, _, err = run_main(["extract", str(path), "--progress", "plain", "--progress-interval", "0.000001"], capsys)
    assert status == 0
    assert "trafila: 3 pages, " in err and "pages/s" in err
    assert "delegated calls" in err
    status, _, err = run_main(["extract", str(path), "--quiet"], capsys)
    assert status == 0 and err == ""


def test_progress_bar(tmp_path: Path, capsys: Any) -> None:
    pytest.importorskip("tqdm")
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps({"id": i, "html": make_page(i)}) + "\n" for i in range(3)) + "{bad\n",
                    encoding="utf-8")
    status, out, err = run_main(["extract", str(path), "--progress", "bar"], capsys)
    assert status == 1 and len(out.splitlines()) == 3
    assert "3 pages" in err and "pages/s" in err  # tqdm's count and rate
    assert f"{path}: line 4: not JSON" in err  # written above the bar


@pytest.mark.parametrize("args,message", [
    (["extract"], "the following arguments are required"),
    (["extract", "x.html", "--threads", "0"], "must be at least 1"),
    (["extract", "x.html", "--compat", "9.9"], "invalid choice"),
    (["extract", "x.html", "--bogus"], "unrecognized arguments"),
    (["extract", "-", "-"], "can be given once"),
    (["frobnicate"], "invalid choice"),
    (["run"], "a SCRIPT or -m MODULE is needed"),
    (["run", "-p", "requests", "x.py"], "only 'trafilatura'"),
    (["run", "--compat", "3.0", "x.py"], "--compat must be one of"),
    (["run", "--what", "x.py"], "unknown option --what"),
])
def test_usage_errors(capsys: Any, args: List[str], message: str) -> None:
    status, _, err = run_main(args, capsys)
    assert status == 2
    assert message in err and "Traceback" not in err


def test_help(capsys: Any) -> None:
    for args in (["--help"], ["extract", "--help"], ["run", "--help"]):
        status, out, _ = run_main(args, capsys)
        assert status == 0 and "usage:" in out
    _, out, _ = run_main(["run", "--help"], capsys)
    assert "spawn" in out and "fork" in out and "PYTHONPATH" in out


def test_console_script_declared() -> None:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'trafila = "trafila.cli:console_main"' in text
    from trafila.cli import console_main

    assert callable(console_main)


def test_installed_console_script(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / ("trafila.exe" if os.name == "nt" else "trafila")
    if not script.exists():
        pytest.skip("the trafila console script is not installed beside this Python (pip install .)")
    page = tmp_path / "p.html"
    page.write_text(make_page(5), encoding="utf-8")
    done = subprocess.run([str(script), "extract", str(page), "-q"], capture_output=True, env=subprocess_env(),
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout)["text"] == expected(page.read_bytes())


# --- end to end, as a separate process -----------------------------------------------------


def subprocess_env(**extra: str) -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT), str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("TRAFILA_RUN_PATCH", None)
    env.update(extra)
    return env


def trafila_process(args: Sequence[str], stdin: Optional[bytes] = None, cwd: Optional[Path] = None,
                    **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "trafila", *args], input=stdin, capture_output=True,
                          env=subprocess_env(**env), cwd=cwd, timeout=300, check=False)


def test_end_to_end_process(tmp_path: Path) -> None:
    html = tmp_path / "a.html"
    html.write_text(make_page(21), encoding="utf-8")
    bundle = tmp_path / "b.jsonl.gz"
    with gzip.open(bundle, "wt", encoding="utf-8") as handle:
        for i in range(3):
            handle.write(json.dumps({"id": f"b{i}", "url": f"http://e.org/{i}", "html": make_page(30 + i)}) + "\n")
    inputs = [str(html), str(bundle)]
    warc: Optional[WarcFile] = None
    if WARC_LIBS:
        warc = standard_warc(4)
        inputs.append(str(warc.write(tmp_path / "c.warc.gz")))
    out = tmp_path / "out.jsonl.gz"
    done = trafila_process(["extract", *inputs, "-o", str(out), "--threads", "2"])
    assert done.returncode == 0, done.stderr.decode()
    rows = read_jsonl(out)
    want = [expected(html.read_bytes())] + [expected(make_page(30 + i)) for i in range(3)]
    if warc is not None:
        want += [expected(payload) for _, _, payload in warc.pages]
    assert [r["text"] for r in rows] == want
    err = done.stderr.decode()
    assert f"{len(want)} pages read" in err and "Traceback" not in err


def test_stdin(tmp_path: Path) -> None:
    page = make_page(41).encode("utf-8")
    done = trafila_process(["extract", "-"], stdin=page)
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout) == {"id": None, "url": None, "text": expected(page)}
    lines = "".join(json.dumps({"id": i, "html": make_page(i)}) + "\n" for i in range(2)).encode()
    done = trafila_process(["extract", "-"], stdin=gzip.compress(lines))
    assert done.returncode == 0, done.stderr.decode()
    assert [json.loads(line)["text"] for line in done.stdout.splitlines()] == [expected(make_page(i)) for i in range(2)]
    if WARC_LIBS:
        warc = standard_warc(3)
        done = trafila_process(["extract", "-"], stdin=b"".join(warc.members))
        assert done.returncode == 0, done.stderr.decode()
        assert [json.loads(line)["id"] for line in done.stdout.splitlines()] == [rid for rid, _, _ in warc.pages]


def test_bad_input_never_gives_a_traceback(tmp_path: Path) -> None:
    junk = tmp_path / "junk.warc"
    junk.write_bytes(os.urandom(3000))
    jl = tmp_path / "junk.jsonl"
    jl.write_bytes(b"\xff\xfe\x00garbage\n{\"html\": \"\\ud800<p>x</p>\"}\n" + os.urandom(200))
    done = trafila_process(["extract", str(junk), str(jl), str(tmp_path)])
    err = done.stderr.decode()
    assert "Traceback" not in err and done.returncode == 1, err


# --- trafila run ------------------------------------------------------------------------------

PROBE = """\
import sys, multiprocessing as mp

def patched():
    try:
        import trafilatura
    except ImportError:  # the real one, not installed
        return False
    return hasattr(trafilatura.extract, "__wrapped_trafila__")

def report(queue):
    queue.put(patched())

def child(method):
    ctx = mp.get_context(method)
    queue = ctx.Queue()
    proc = ctx.Process(target=report, args=(queue,))
    proc.start()
    value = queue.get(timeout=120)
    proc.join()
    return value

if __name__ == "__main__":
    print("args", sys.argv[1:])
    print("main", patched())
    for method in sys.argv[1:]:
        print(method, child(method))
    sys.exit(3)
"""


def test_run_script_with_fork_and_spawn_children(tmp_path: Path) -> None:
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    done = trafila_process(["run", "-p", "trafilatura", str(script), "fork", "spawn"])
    out = done.stdout.decode()
    assert done.returncode == 3, done.stderr.decode()  # the program's own exit status
    assert "args ['fork', 'spawn']" in out
    assert "main True" in out and "fork True" in out and "spawn True" in out
    done = trafila_process(["run", "--no-children", str(script), "spawn"])
    out = done.stdout.decode()
    assert "main True" in out and "spawn False" in out
    plain = subprocess.run([sys.executable, str(script)], capture_output=True, env=subprocess_env(), timeout=120, check=False)
    assert "main False" in plain.stdout.decode()


def test_run_module_and_shadowed_sitecustomize(tmp_path: Path) -> None:
    (tmp_path / "probe_mod.py").write_text(PROBE)
    custom = tmp_path / "custom"
    custom.mkdir()
    (custom / "sitecustomize.py").write_text("import os\nos.environ['SHADOWED_RAN'] = 'yes'\n")
    (tmp_path / "show.py").write_text("import os, sys\nprint('shadowed', os.environ.get('SHADOWED_RAN'))\n"
                                      "import trafilatura\nprint('patched', hasattr(trafilatura.extract, '__wrapped_trafila__'))\n")
    env = subprocess_env()
    env["PYTHONPATH"] = os.pathsep.join([str(custom), env["PYTHONPATH"]])
    done = subprocess.run([sys.executable, "-m", "trafila", "run", "-m", "probe_mod", "spawn"], capture_output=True,
                          env=env, cwd=tmp_path, timeout=300, check=False)
    assert done.returncode == 3, done.stderr.decode()
    assert "main True" in done.stdout.decode() and "spawn True" in done.stdout.decode()
    # a Python started by the program runs the hook, and the sitecustomize it shadows
    (tmp_path / "runner.py").write_text(
        "import subprocess, sys\nsys.stdout.write(subprocess.run([sys.executable, 'show.py'], capture_output=True, text=True).stdout)\n")
    done = subprocess.run([sys.executable, "-m", "trafila", "run", "runner.py"], capture_output=True, env=env,
                          cwd=tmp_path, timeout=300, check=False)
    assert done.returncode == 0, done.stderr.decode()
    assert "shadowed yes" in done.stdout.decode() and "patched True" in done.stdout.decode()


def test_run_in_process(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    script = tmp_path / "inproc.py"
    script.write_text("import sys, trafilatura\nprint('patched', hasattr(trafilatura.extract, '__wrapped_trafila__'),"
                      " sys.argv[1:], __name__)\n")
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH", ""))
    monkeypatch.delenv("TRAFILA_RUN_PATCH", raising=False)
    monkeypatch.delenv("TRAFILA_RUN_COMPAT", raising=False)
    try:
        status, out, _ = run_main(["run", "--compat", "2.3.1", str(script), "a", "--b"], capsys)
    finally:
        trafila.unpatch()
    assert status == 0
    assert "patched True ['a', '--b'] __main__" in out
    status, _, err = run_main(["run", str(tmp_path / "missing.py")], capsys)
    assert status == 2 and "can't open file" in err
    status, _, err = run_main(["run", "-m", "no_such_module_here"], capsys)
    assert status == 1 and "No module named no_such_module_here" in err
    trafila.unpatch()


def test_fineweb_datatrove_chain_without_datatrove_names_the_extra(tmp_path: Path, capsys: Any,
                                                                   monkeypatch: Any) -> None:
    """``trafila fineweb --datatrove`` where datatrove cannot be imported: exit 2 and one line
    naming the extra to install, no traceback (datatrove hidden, so this holds whether it is
    installed or not; without ``--datatrove`` the native chain runs, tests/test_fineweb_native.py)."""
    warc = tmp_path / "pages.warc.gz"
    warc.write_bytes(b"")
    monkeypatch.setitem(sys.modules, "datatrove.executor", None)  # import of it raises ImportError
    status, _, err = run_main(["fineweb", "--datatrove", str(warc), "-o", str(tmp_path / "out")], capsys)
    assert status == 2
    assert "pip install 'trafila[fineweb]'" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_fineweb_lists_warc_files_once_sorted(tmp_path: Path) -> None:
    from trafila.cli.fineweb import input_files

    (tmp_path / "b").mkdir()
    for name in ("b/2.warc.gz", "1.warc", "notes.txt", "b/3.arc.gz"):
        (tmp_path / name).write_bytes(b"")
    files = input_files([str(tmp_path), str(tmp_path / "1.warc")])
    assert [f.relative_to(tmp_path.resolve()).as_posix() for f in files] == ["1.warc", "b/2.warc.gz", "b/3.arc.gz"]
