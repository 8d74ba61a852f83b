"""trafila's URLFilter and WarcReader against datatrove 0.10.1's, on the same inputs.

URLFilter: the decision and reason on every corpus URL and on generated URLs (listed domains and
their subdomains, listed URLs, banned words, subwords and soft words from the lists, IPs, ports,
userinfo, punycode and unicode hosts, odd schemes and paths), with the ``extra_*`` arguments and
``use_integrated_lists=False``. WarcReader: the documents, the exception and the statistics
(timings aside) of both readers' ``run()`` on WARC files written here (warcio's writer and a raw
record builder: gzip and plain files, chunked and gzip/deflate/br payloads, every record type,
missing headers, non-UTF-8 and undecodable payloads, odd lengths and separators), and on the
corpus pages as the harness writes them. Both steps: signatures, names, pickling.

Skipped without datatrove and the dependencies of its two steps. ``TRAFILA_FINEWEB_EVERY``
(default 8) picks every K-th corpus page for the WARC corpus test (1: all of them).
"""

import functools
import gzip
import importlib
import inspect
import itertools
import io
import os
import random
import zlib
from pathlib import Path

import pytest

for _module in ("datatrove", "warcio", "cchardet", "magic", "tldextract", "ahocorasick", "fasteners"):
    pytest.importorskip(_module)

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from datatrove.data import Document  # noqa: E402
from datatrove.pipeline.filters import URLFilter as StockURLFilter  # noqa: E402
from datatrove.pipeline.filters import url_filter as stock_url_module  # noqa: E402
from datatrove.pipeline.readers import WarcReader as StockWarcReader  # noqa: E402

from trafila.fineweb import url_filter as url_module  # noqa: E402
from trafila.fineweb import warc as warc_module  # noqa: E402
from trafila.integrations.datatrove_url import URLFilter  # noqa: E402
from trafila.integrations.datatrove_warc import WarcReader  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


# =========================================================================== URLFilter


@pytest.fixture(scope="module", autouse=True)
def _cached_stock_lists():
    """datatrove's ``get_list`` with each file parsed once per test module (the union with the
    extras is still datatrove's): a stock filter per argument set would read 4.5 million lines each."""
    original = stock_url_module.get_list

    @functools.lru_cache(maxsize=None)
    def parsed(abs_path, file_name, do_normalize):
        return frozenset(original(abs_path, file_name, set(), do_normalize))

    def get_list(abs_path, file_name, extra, do_normalize=True):
        return set(parsed(abs_path, file_name, do_normalize)).union(extra)

    stock_url_module.get_list = get_list
    yield
    stock_url_module.get_list = original


@pytest.fixture(scope="module")
def cache_folder(tmp_path_factory):
    """trafila's lists cache: the user's (built once per machine), or a fresh one with TRAFILA_FRESH_CACHE=1."""
    if os.environ.get("TRAFILA_FRESH_CACHE") != "1":
        yield url_module.cache_dir()
        return
    before = os.environ.get("TRAFILA_CACHE_DIR")
    os.environ["TRAFILA_CACHE_DIR"] = str(tmp_path_factory.mktemp("trafila-cache"))
    url_module._loaded.clear()
    yield url_module.cache_dir()
    if before is None:
        del os.environ["TRAFILA_CACHE_DIR"]
    else:
        os.environ["TRAFILA_CACHE_DIR"] = before


EXTRAS = dict(
    soft_word_threshold=1,
    extra_domains=["pages.trafila.test", "# a comment", " www.example.com ", "bbc.co.uk"],
    extra_urls=["https://www.example.org/a", "http://x.test/"],
    banned_words=["Trafila", "news", "my-word", "#skip"],
    banned_subwords=["xample", "2 girls", "--"],
    soft_banned_words=["html", "www", "PHP"],
)


FULL = os.environ.get("TRAFILA_FINEWEB_FULL") == "1"


@pytest.fixture(scope="module")
def stock_default():
    import gc

    step = StockURLFilter()
    step.download_data()
    gc.freeze()  # millions of strings in the sets: keep the collector from walking them after every test
    yield step
    gc.unfreeze()  # collectable again once the module is done


@pytest.fixture(scope="module")
def stock_extras(stock_default):
    import gc

    step = StockURLFilter(**EXTRAS)
    step.download_data()
    gc.freeze()
    yield step
    gc.unfreeze()


@pytest.fixture(scope="module")
def mine_default(cache_folder):
    step = URLFilter()
    step.download_data()
    return step


def _doc(url, i=0):
    return Document(text="x", id=str(i), metadata={"url": url} if url is not None else {})


def _decision(step, url):
    try:
        return step.filter(_doc(url))
    except Exception as err:  # noqa: BLE001 - the exception's type is part of the decision
        return type(err).__name__


@pytest.fixture(scope="module")
def list_samples(stock_default, mine_default):
    rng = random.Random(43)
    table = mine_default.block_listed_domains.table  # its order is fixed: a sample the same in every run
    domains = [table.entry(i) for i in sorted(rng.sample(range(len(table)), 3000))]
    assert all(d in stock_default.block_listed_domains for d in domains)
    urls = sorted(rng.sample(sorted(stock_default.block_listed_url), 500))
    return {
        "domains": domains,
        "urls": urls,
        "banned": sorted(stock_default.banned_words),
        "subwords": sorted(stock_default.banned_subwords),
        "soft": sorted(stock_default.soft_banned_words),
    }


@functools.lru_cache(maxsize=None)
def _corpus_urls():
    from harness.corpora import bundle_paths, corpora_path, iter_pages

    if not corpora_path().is_dir():
        return None
    out = []
    for path in bundle_paths(embedded=False):
        if not path.exists():
            continue
        for page in iter_pages(path):
            out.append(page.url or f"https://pages.trafila.test/{page.id}")  # the harness's WARC URI
    return tuple(out)


def corpus_urls():
    urls = _corpus_urls()
    return None if urls is None else list(urls)


def test_signatures_and_names():
    for mine, stock in ((URLFilter, StockURLFilter), (WarcReader, StockWarcReader)):
        assert inspect.signature(mine.__init__) == inspect.signature(stock.__init__)
        assert mine.name == stock.name and mine.type == stock.type
        assert mine._requires_dependencies == stock._requires_dependencies


def test_lists_equal_datatrove_sets(stock_default, mine_default):
    """Each table holds exactly datatrove's set: every listed string is found, every entry is listed
    (TRAFILA_FINEWEB_FULL=1: all 4.5 million domains both ways; by default every 7th)."""
    domains = mine_default.block_listed_domains
    urls = mine_default.block_listed_url
    assert set(urls.table) == stock_default.block_listed_url
    assert all(u in urls for u in stock_default.block_listed_url)
    listed = stock_default.block_listed_domains
    step = 1 if FULL else 7
    assert all(d in domains for d in itertools.islice(listed, 0, None, step))
    table = domains.table
    assert all(table.entry(i) in listed for i in range(0, len(table), step))
    assert len(table) >= len(listed)
    assert table.largest_bucket() < 100
    for name in ("banned_words", "banned_subwords", "soft_banned_words"):
        assert getattr(mine_default, name) == getattr(stock_default, name)
    for probe in ("", "com", "0-1sex.co", "0-1sex.com.", "0-1SEX.com", " 0-1sex.com", "0-1sex.com\n", "\ud800"):
        assert (probe in domains) == (probe in stock_default.block_listed_domains)


def test_corpus_urls(stock_default, mine_default):
    urls = corpus_urls()
    if urls is None:
        pytest.skip("no corpora")
    stock = [_decision(stock_default, u) for u in urls]
    mine = [_decision(mine_default, u) for u in urls]
    assert mine == stock
    assert len(urls) > 1000




@pytest.mark.parametrize("kwargs", [EXTRAS, dict(EXTRAS, use_integrated_lists=False), dict(use_integrated_lists=False),
                                    dict(soft_word_threshold=0), dict(soft_word_threshold=5, use_integrated_lists=False,
                                                                      soft_banned_words=["a", "b"])],
                         ids=["extras", "extras-own-lists", "no-lists", "threshold-0", "threshold-own"])
def test_arguments(kwargs, list_samples, cache_folder, stock_extras):
    stock = stock_extras if kwargs is EXTRAS else StockURLFilter(**kwargs)
    mine = URLFilter(**kwargs)
    urls = (corpus_urls() or [])[::7] + [f"https://{d}/" for d in list_samples["domains"][:300]] + [
        "https://pages.trafila.test/1", "http://www.example.com/", "https://www.example.org/a", "http://x.test/",
        "https://a.test/Trafila/x", "https://a.test/trafila", "https://a.test/my-word", "https://a.test/x-ample.html",
        "https://www.a.test/x.php", "https://www.a.test/x.PHP?a=b", None, ""]
    assert [_decision(mine, u) for u in urls] == [_decision(stock, u) for u in urls]


def test_bad_extras_raise_as_datatrove():
    for kwargs in (dict(extra_domains=["a.test", ""]), dict(banned_words=[""]), dict(extra_urls=[None])):
        errors = []
        for cls in (StockURLFilter, URLFilter):
            try:
                cls(**kwargs)
                errors.append(None)
            except Exception as err:  # noqa: BLE001
                errors.append(type(err))
        assert errors[0] is not None and errors[0] == errors[1]


_label = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=10)
_unicode_label = st.sampled_from(["bücher", "münchen", "xn--bcher-kva", "例え", "xn--r8jz45g", "ΕΛ", "straße", "İstanbul"])
_suffix = st.sampled_from(["com", "org", "co.uk", "de", "fr", "blogspot.com", "github.io", "xn--p1ai", "рф", "local",
                           "", "COM", "com.", "s3.amazonaws.com"])


@st.composite
def _hosts(draw, samples):
    kind = draw(st.integers(0, 6))
    if kind == 0:
        return draw(st.sampled_from(samples["domains"]))
    if kind == 1:
        return draw(_label) + "." + draw(st.sampled_from(samples["domains"]))
    if kind == 2:
        return ".".join(str(draw(st.integers(0, 300))) for _ in range(4))
    if kind == 3:
        return draw(st.sampled_from(["[::1]", "[2001:db8::1]", "localhost", "127.0.0.1", "0x7f.1", ""]))
    labels = draw(st.lists(st.one_of(_label, _unicode_label), min_size=1, max_size=3))
    host = ".".join(labels) + ("." + draw(_suffix) if draw(st.booleans()) else "")
    return host.upper() if draw(st.integers(0, 9)) == 0 else host


@st.composite
def _urls(draw, samples):
    if draw(st.integers(0, 9)) == 0:
        listed = draw(st.sampled_from(samples["urls"]))
        return draw(st.sampled_from(["", "http://", "https://"])) + listed
    scheme = draw(st.sampled_from(["http://", "https://", "HTTP://", "ftp://", "", "//", "mailto:", "data:", "http:/"]))
    userinfo = draw(st.sampled_from(["", "user@", "user:pass@", "a@b@"]))
    host = draw(_hosts(samples))
    port = draw(st.sampled_from(["", ":80", ":8080", ":", ":99999"]))
    words = samples["banned"] + samples["subwords"] + samples["soft"]
    parts = draw(st.lists(st.one_of(st.sampled_from(words), _label, st.text(max_size=6)), max_size=5))
    seps = draw(st.lists(st.sampled_from(["/", "-", "_", ".", "?q=", "#", "%20", " ", "&", "="]),
                         min_size=len(parts), max_size=len(parts)))
    path = "".join(s + p for s, p in zip(seps, parts))
    return scheme + userinfo + host + port + path


@settings(max_examples=int(os.environ.get("TRAFILA_HYPOTHESIS_EXAMPLES", "400")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_generated_urls(data, stock_default, mine_default, list_samples):
    url = data.draw(_urls(list_samples))
    assert _decision(mine_default, url) == _decision(stock_default, url)


def test_missing_url_asserts(stock_default, mine_default):
    for url in (None, ""):
        assert _decision(mine_default, url) == _decision(stock_default, url) == "AssertionError"


@pytest.mark.parametrize("dumper", ["pickle", "dill", "cloudpickle"])
def test_url_filter_pickles(dumper, stock_extras, cache_folder):
    dumps = importlib.import_module(dumper).dumps
    loads = importlib.import_module(dumper).loads
    fresh = URLFilter(**EXTRAS)
    loaded = URLFilter(**EXTRAS)
    loaded.filter(_doc("https://a.test/"))
    urls = ["https://pages.trafila.test/x", "https://0-1sex.com/", "https://www.a.test/x.php", "https://a.test/news"]
    stock = stock_extras
    for step in (fresh, loaded):
        blob = dumps(step)
        assert len(blob) < 5_000_000  # the tables are not in it (tldextract's suffix list is, as in datatrove's)
        copy = loads(blob)
        assert copy._downloaded is False
        assert [_decision(copy, u) for u in urls] == [_decision(stock, u) for u in urls]
        assert [_decision(loads(dumps(copy)), u) for u in urls] == [_decision(stock, u) for u in urls]


def test_cache_reused_and_keyed(tmp_path, monkeypatch, mine_default):
    """A second load in a fresh state maps the same file; the key names the sources' sha256."""
    lists = url_module.load_block_lists()
    if lists.path is None:
        pytest.skip("the cache folder is not writable here")
    url_module._loaded.clear()
    again = url_module.load_block_lists()
    assert again.path == lists.path and again.built is False
    kind, paths = url_module.lists_source()
    memo = (Path(url_module.cache_dir()) / "fingerprints.json").read_text()
    assert all(p in memo for p in paths.values())


@pytest.mark.skipif(not FULL, reason="builds the lists' table three times over (TRAFILA_FINEWEB_FULL=1)")
def test_concurrent_first_use(tmp_path):
    """Three processes meeting an empty cache: one builds (under the lock), the others map its file."""
    import subprocess
    import sys

    code = ("from trafila.fineweb import url_filter as U; L = U.load_block_lists(); "
            "print('built' if L.built else 'mapped', '0-1sex.com' in L.domains, 'a.test' in L.domains, L.path)")
    env = dict(os.environ, TRAFILA_CACHE_DIR=str(tmp_path))
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True) for _ in range(3)]
    outs = sorted(p.communicate()[0].split() for p in procs)
    assert [o[0] for o in outs] == ["built", "mapped", "mapped"]
    assert all(o[1:3] == ["True", "False"] for o in outs) and len({o[3] for o in outs}) == 1
    assert len(list(tmp_path.glob("url-lists-*.bin"))) == 1


def test_table_exact_on_lookalikes():
    strings = ["a", "", "ab", "ba", "é", "\ud800x", "a" * 1000] + [f"k{i}" for i in range(5000)]
    table = url_module.StringTable(url_module.build_table(set(strings)))
    assert len(table) == len(set(strings))
    with pytest.raises(ValueError):
        url_module.build_table(["a\nb"])
    lines = url_module.StringTable(url_module.build_table_from_lines(b"x\n\nyy\nx\n"))
    assert len(lines) == 4 and "" in lines and "x" in lines and "yy" in lines and "y" not in lines
    for s in strings:
        assert s in table
    for s in ["b", "a ", " a", "A", "e", "\ud801x", "a" * 999, "k5000", "k-1", None, b"a", 1]:
        assert s not in table
    for s in strings:
        kb = s.encode("utf-8", "surrogatepass")
        arr = url_module.build_table_from_lines(kb + b"\n")
        assert url_module.StringTable(arr).largest_bucket() == 1


def test_bucket_hash_vectorized_equals_python():
    import numpy as np

    rng = random.Random(5)
    entries = [bytes(rng.randrange(256) for _ in range(rng.randint(0, 40))).replace(b"\n", b"") for _ in range(3000)]
    blob = b"".join(e + b"\n" for e in entries)
    starts = np.zeros(len(entries) + 1, dtype=np.uint32)
    starts[1:] = np.cumsum([len(e) + 1 for e in entries])
    assert [int(h) for h in url_module._bucket_hashes(blob, starts)] == [url_module.bucket_hash(e) for e in entries]


# =========================================================================== WarcReader


def _outcome(cls, folder, **kwargs):
    reader = cls(str(folder), **kwargs)
    docs, error = [], None
    try:
        for doc in reader.run():
            docs.append((doc.id, doc.text, doc.metadata))
    except Exception as err:  # noqa: BLE001 - the exception's type is compared
        error = type(err).__name__
    stats = (reader.stats.name, reader.stats.stats.to_dict(), reader.stats.time_stats.n)
    return docs, error, stats, getattr(reader, "fallback_counts", None)


def _same(folder, **kwargs):
    stock = _outcome(StockWarcReader, folder, **kwargs)
    mine = _outcome(WarcReader, folder, **kwargs)
    assert mine[:3] == stock[:3]
    return stock, mine[3]


def _warc_record(rec_type, headers, block, length=None, sep=b"\r\n\r\n"):
    head = [f"WARC/1.0\r\n".encode()]
    if rec_type is not None:
        head.append(f"WARC-Type: {rec_type}\r\n".encode())
    for name, value in headers:
        head.append(name.encode("utf-8", "surrogateescape") + b": " + value.encode("utf-8", "surrogateescape") + b"\r\n")
    declared = str(len(block)) if length is None else length
    if declared is not False:
        head.append(b"Content-Length: " + str(declared).encode() + b"\r\n")
    return b"".join(head) + b"\r\n" + block + sep


def _chunked(data, rng, corrupt=0):
    out, pos = [], 0
    while pos < len(data):
        n = rng.randint(1, max(40, len(data) // 30))
        out.append(b"%x" % n + (b";ext=1" if rng.random() < 0.1 else b"") + b"\r\n" + data[pos:pos + n] + b"\r\n")
        pos += n
    out.append(b"0\r\n\r\n")
    body = b"".join(out)
    if corrupt == 1:
        body = body[: len(body) // 2]
    elif corrupt == 2:
        i = body.find(b"\r\n", 10)
        body = body[:i] + b"XX" + body[i + 2:] if i > 0 else body
    elif corrupt == 3:
        body = b"zz\r\n" + body
    return body


def _encode(data, kind):
    if kind == "gzip":
        return gzip.compress(data)
    if kind == "deflate":
        return zlib.compress(data)
    if kind == "deflate-raw":
        c = zlib.compressobj(wbits=-15)
        return c.compress(data) + c.flush()
    if kind == "br":
        try:
            import brotli
        except ImportError:
            return data + b"(not brotli)"
        return brotli.compress(data)
    if kind == "corrupt-gzip":
        g = gzip.compress(data * 50)
        return g[:30] + bytes(b ^ 0x55 for b in g[30:60]) + g[60:]
    if kind == "two-members":
        return gzip.compress(data) + gzip.compress(b"second")
    return data


_TEXTS = [
    "<html><body><p>Hello, world</p></body></html>".encode(),
    "<html><p>Grüße, Ærø, naïve café</p></html>".encode("latin-1"),
    "<html><p>日本語のテキストです。これはテストです。</p></html>".encode("shift_jis"),
    "<html><p>Привет, мир! Это проверка кодировки.</p></html>".encode("cp1251"),
    bytes(range(256)) * 3,
    b"",
    b"\x89PNG\r\n\x1a\n" + bytes(40),
    b"plain text line\r\nand another\r\n",
]


@st.composite
def _records(draw):
    rng = random.Random(draw(st.integers(0, 2**32)))
    rec_type = draw(st.sampled_from(["response", "response", "response", "request", "metadata", "resource",
                                     "conversion", "conversion", "revisit", "warcinfo", None]))
    headers = []
    uri = draw(st.sampled_from(["http://a.test/x", "https://b.test/y z", "<http://c.test/p>", "dns:example.test",
                                "ftp://d.test/", "", None, "HTTP://E.test/"]))
    if uri is None and draw(st.integers(0, 2)):
        uri = "http://a.test/z"
    if uri is not None:
        headers.append(("WARC-Target-URI", uri))
    if draw(st.integers(0, 9)):
        headers.append(("WARC-Date", "2024-01-01T00:00:00Z"))
    if draw(st.integers(0, 9)):
        headers.append(("WARC-Record-ID", f"<urn:uuid:{rng.getrandbits(64):x}>"))
    payload_type = draw(st.sampled_from(["text/html", "application/xhtml+xml", "text/plain", "image/png", None, None]))
    if payload_type is not None:
        headers.append(("WARC-Identified-Payload-Type", payload_type))
    if draw(st.integers(0, 12)) == 0:
        headers.append(("X-Odd", "first\r\n  continued"))
    if draw(st.integers(0, 12)) == 0:
        headers.append(("warc-target-uri", "http://second.test/"))
    if draw(st.integers(0, 20)) == 0:
        headers.append(("X-Latin", "caf\udce9"))
    body = draw(st.sampled_from(_TEXTS))
    if rec_type in ("response", "request", "revisit") and draw(st.integers(0, 5)):
        encoding = draw(st.sampled_from(["", "gzip", "deflate", "deflate-raw", "br", "corrupt-gzip", "two-members",
                                         "identity"]))
        payload = _encode(body, encoding)
        http = [draw(st.sampled_from(["HTTP/1.1 200 OK", "HTTP/1.0 404", "", "garbage", "HTTP/1.1"]))]
        names = {"deflate-raw": "deflate", "corrupt-gzip": "gzip", "two-members": "gzip"}
        if encoding:
            http.append("Content-Encoding: " + draw(st.sampled_from([names.get(encoding, encoding),
                                                                        names.get(encoding, encoding).upper()])))
        chunked = draw(st.integers(0, 3))
        if chunked:
            http.append("Transfer-Encoding: " + draw(st.sampled_from(["chunked", "chunked", "Chunked"])))
            payload = _chunked(payload, rng, corrupt=draw(st.integers(0, 4)) if chunked == 3 else 0)
        if draw(st.integers(0, 9)) == 0:
            http.append("NoColonHere")
        http.append("Content-Type: text/html")
        block = ("\r\n".join(http) + "\r\n\r\n").encode() + payload
    else:
        block = body
    # mostly right lengths: a wrong one breaks the rest of the file, which warcio then reads itself
    length = draw(st.sampled_from([None] * 14 + ["+3", "-1", "abc", " 5 ", False, "7"]))
    if length == "+3":
        length = len(block) + 3
    sep = draw(st.sampled_from([b"\r\n\r\n", b"\r\n\r\n", b"", b"\n", b"garbage\r\n\r\n", b"  \r\n\t\r\n"]))
    return rec_type, headers, block, length, sep


def _write(folder, records, how):
    folder.mkdir(parents=True, exist_ok=True)
    raws = [_warc_record(*r) for r in records]
    if how == "plain":
        (folder / "a.warc").write_bytes(b"".join(raws))
    elif how == "gzip-members":
        (folder / "a.warc.gz").write_bytes(b"".join(gzip.compress(r) for r in raws))
    elif how == "gzip-raw":  # compression=None: warcio decompresses the members itself
        (folder / "a.warc.gz").write_bytes(b"".join(gzip.compress(r) for r in raws))
    elif how == "gzip-one-member":
        (folder / "a.warc.gz").write_bytes(gzip.compress(b"".join(raws)))


@settings(max_examples=int(os.environ.get("TRAFILA_HYPOTHESIS_EXAMPLES", "400")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(records=st.lists(_records(), min_size=0, max_size=6),
       how=st.sampled_from(["plain", "plain", "gzip-members", "gzip-raw", "gzip-raw", "gzip-one-member"]),
       limit=st.sampled_from([-1, -1, -1, 1, 2]), skip=st.sampled_from([0, 0, 0, 1, 3]))
def test_generated_warcs(records, how, limit, skip, tmp_path_factory):
    folder = tmp_path_factory.mktemp("warc")
    _write(folder, records, how)
    compression = None if how == "gzip-raw" else "infer"
    _same(folder, compression=compression, limit=limit, skip=skip)


def _warcio_file(path, use_gzip):
    """Records written by warcio's writer: every type, encodings, chunked payloads, missing types."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    rng = random.Random(7)
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=use_gzip)
        writer.write_record(writer.create_warcinfo_record("a.warc", {"software": "test"}))
        n = 0
        for text in _TEXTS:
            for encoding in ("", "gzip", "deflate", "br"):
                for chunked in (False, True):
                    for payload_type in ("text/html", None):
                        payload = _encode(text, encoding)
                        if chunked:
                            payload = _chunked(payload, rng)
                        headers = [("Content-Type", "text/html")]
                        if encoding:
                            headers.append(("Content-Encoding", encoding))
                        if chunked:
                            headers.append(("Transfer-Encoding", "chunked"))
                        http = StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1")
                        warc_headers = {"WARC-Record-ID": f"<urn:test:{n}>", "WARC-Date": "2024-01-01T00:00:00Z"}
                        if payload_type:
                            warc_headers["WARC-Identified-Payload-Type"] = payload_type
                        n += 1
                        writer.write_record(writer.create_warc_record(
                            f"https://w.test/{n}", "response", payload=io.BytesIO(payload), http_headers=http,
                            warc_headers_dict=warc_headers))
            for rec_type in ("request", "metadata", "resource", "conversion"):
                n += 1
                block = b"GET /x HTTP/1.1\r\nHost: w.test\r\n\r\n" if rec_type == "request" else text
                writer.write_record(writer.create_warc_record(
                    f"https://w.test/{n}", rec_type, payload=io.BytesIO(block),
                    warc_headers_dict={"WARC-Record-ID": f"<urn:test:{n}>",
                                       "WARC-Identified-Payload-Type": "text/plain"}))


@pytest.mark.parametrize("use_gzip", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("limit,skip", [(-1, 0), (5, 0), (-1, 7), (3, 4)])
def test_warcio_written_files(tmp_path, use_gzip, limit, skip):
    _warcio_file(tmp_path / ("a.warc.gz" if use_gzip else "a.warc"), use_gzip)
    (stock_docs, error, _, _), counts = _same(tmp_path, limit=limit, skip=skip)
    assert error is None and stock_docs
    if use_gzip:
        (stock_docs, error, _, _), counts = _same(tmp_path, compression=None, limit=limit, skip=skip)
        assert error is None and stock_docs
    assert counts["files"] == 0


def test_missing_uri_and_date_raise_as_datatrove(tmp_path):
    cases = [
        [("conversion", [("WARC-Date", "d"), ("WARC-Identified-Payload-Type", "text/plain")], b"text")],
        [("conversion", [("WARC-Target-URI", "http://a.test/"), ("WARC-Identified-Payload-Type", "text/plain")],
          b"text")],
        [("response", [("WARC-Date", "d")], b"HTTP/1.1 200 OK\r\n\r\n<html></html>")],
        [("response", [("WARC-Target-URI", "http://a.test/"), ("WARC-Date", "d")], b"HTTP/1.1 200 OK\r\n\r\n<p>x")],
    ]
    for i, records in enumerate(cases):
        folder = tmp_path / str(i)
        _write(folder, [(t, h, b, None, b"\r\n\r\n") for t, h, b in records], "plain")
        _same(folder)


def test_broken_files(tmp_path):
    record = _warc_record("response", [("WARC-Target-URI", "http://a.test/"), ("WARC-Date", "d")],
                          b"HTTP/1.1 200 OK\r\n\r\n<html>" + b"x" * 5000 + b"</html>")
    cases = {
        "truncated.warc.gz": gzip.compress(record * 30)[:-200],
        "truncated-early.warc.gz": gzip.compress(record * 30)[:40],
        "bad-header.warc.gz": b"\x1f\x8b\x09" + gzip.compress(record)[3:],
        "members-truncated.warc.gz": b"".join(gzip.compress(record) for _ in range(5))[:-100],
        "garbage.warc.gz": gzip.compress(record) + b"not gzip at all",
        "notwarc.warc": b"hello\r\nworld\r\n",
        "short.warc": b"W",
        "empty.warc": b"",
        "cut.warc": (record * 3)[:-300],
        "arc.arc": b"filedesc://a.arc 0.0.0.0 20240101000000 text/plain 10\n1 0 x\nURL IP-address\n\n",
    }
    for name, data in cases.items():
        folder = tmp_path / name.replace(".", "_")
        folder.mkdir()
        (folder / name).write_bytes(data)
        _same(folder)
        if name.endswith(".gz"):
            _same(folder, compression=None)


def test_corpus_warcs(tmp_path):
    from harness.corpora import corpora_path
    from harness.datatrove_run import write_warcs

    if not corpora_path().is_dir():
        pytest.skip("no corpora")
    every = int(os.environ.get("TRAFILA_FINEWEB_EVERY", "8"))
    info = write_warcs(tmp_path, None, every, None, False, 2)
    (docs, error, stats, _), counts = _same(tmp_path)
    assert error is None and len(docs) > info["pages"] * 0.9
    assert counts == {"records": 0, "payloads": 0, "files": 0}


def test_pipeline_executor(tmp_path):
    """Through datatrove's LocalPipelineExecutor: the same output files and task statistics."""
    import json

    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.writers import JsonlWriter

    (tmp_path / "in").mkdir()
    _warcio_file(tmp_path / "in" / "a.warc.gz", True)
    outputs = {}
    for label, reader, url_filter in (("stock", StockWarcReader, StockURLFilter), ("mine", WarcReader, URLFilter)):
        out = tmp_path / label
        LocalPipelineExecutor(
            pipeline=[reader(str(tmp_path / "in")),
                      url_filter(extra_domains=["w.test"], exclusion_writer=JsonlWriter(str(out / "excluded"))),
                      JsonlWriter(str(out / "kept"))],
            tasks=1, logging_dir=str(out / "logs")).run()
        files = {p.relative_to(out).as_posix(): gzip.decompress(p.read_bytes())
                 for p in sorted(out.glob("*/*.jsonl.gz"))}
        stats = [(s["name"], s["stats"]) for s in json.loads((out / "logs" / "stats" / "00000.json").read_text())]
        outputs[label] = (files, stats)
    assert outputs["mine"] == outputs["stock"]
    assert outputs["stock"][0]


@pytest.mark.parametrize("dumper", ["pickle", "dill", "cloudpickle"])
def test_warc_reader_pickles(dumper, tmp_path):
    dumps = importlib.import_module(dumper).dumps
    loads = importlib.import_module(dumper).loads
    _warcio_file(tmp_path / "a.warc", False)
    reader = WarcReader(str(tmp_path), limit=4)
    before = loads(dumps(reader))
    list(reader.run())
    after = loads(dumps(reader))
    expected = [(d.id, d.text) for d in StockWarcReader(str(tmp_path), limit=4).run()]
    for copy in (before, after):
        assert [(d.id, d.text) for d in copy.run()] == expected


def test_content_stream_read_matches_warcio():
    """The payload decoder against warcio's own readers, on encodings and chunkings with faults."""
    rng = random.Random(11)
    for trial in range(600):
        body = rng.choice(_TEXTS) * rng.randint(1, 60)
        encoding = rng.choice(["", "gzip", "deflate", "deflate-raw", "corrupt-gzip", "two-members"])
        payload = _encode(body, encoding)
        headers = []
        if encoding:
            headers.append(("Content-Encoding", {"deflate-raw": "deflate", "corrupt-gzip": "gzip",
                                                 "two-members": "gzip"}.get(encoding, encoding)))
        if rng.random() < 0.6:
            headers.append(("Transfer-Encoding", "chunked"))
            payload = _chunked(payload, rng, corrupt=rng.randint(0, 4))
        if rng.random() < 0.05:
            payload = payload[: rng.randint(0, len(payload))]
        mine = warc_module.content_stream_read(headers, payload)
        assert mine == warc_module._warcio_content(headers, payload), (trial, headers)


@settings(max_examples=int(os.environ.get("TRAFILA_HYPOTHESIS_EXAMPLES", "400")), deadline=None)
@given(lines=st.lists(st.text(alphabet="ab#. \t\r\n\x0b\x0c\x1c\x1f\x85\xa0é", max_size=6), max_size=8),
       encoding=st.sampled_from(["utf-8", "latin-1", "ascii", "utf-16"]))
def test_parse_list_bytes_equals_text_mode(lines, encoding):
    """The bytes shortcut of the large lists' parse gives datatrove's strings, or declines."""
    text = "".join(lines)
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        return
    fast = url_module.parse_list_bytes(data, encoding)
    with io.TextIOWrapper(io.BytesIO(data), encoding=encoding) as fh:
        try:
            slow = url_module.parse_list(fh, do_normalize=False)
        except UnicodeDecodeError:
            assert fast is None
            return
    if fast is not None:
        assert {x.decode("ascii") for x in fast} == slow
        assert slow == stock_url_module.parse_list(io.TextIOWrapper(io.BytesIO(data), encoding=encoding), False)


def _mutate(data, rng):
    d = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op, i = rng.randrange(6), rng.randrange(len(d))
        if op == 0:
            d[i] = rng.randrange(256)
        elif op == 1:
            del d[i:i + rng.randint(1, 30)]
        elif op == 2:
            d[i:i] = rng.choice([b"\r\n", b"\n", b" ", b"\r\n\r\n", b"X-A: b\r\n", b"0\r\n", b"\t", b":", b"WARC/1.0\r\n"])
        elif op == 3:
            j = d.find(b"Content-Length: ", i)
            if j >= 0:
                d[j + 16] = rng.choice(b"0123456789-+ a")
        elif op == 4:
            del d[i:]
        else:
            j = d.find(b"\r\n\r\n", i)
            if j >= 0:
                d[j:j + 4] = b"\r\n"
    return bytes(d)


def test_mutated_warcs(tmp_path):
    """warcio-written records with bytes flipped, cut, inserted; lengths and separators broken;
    as a plain file, as gzip members (decompressed by fsspec, or by warcio: compression=None)."""
    _warcio_file(tmp_path / "a.warc", False)
    data = (tmp_path / "a.warc").read_bytes()
    cut = 0
    for _ in range(40):
        cut = data.find(b"WARC/1.0\r\n", cut + 1)
    data = data[:cut]
    rng = random.Random(2026)
    for trial in range(int(os.environ.get("TRAFILA_MUTATIONS", "150"))):
        mutated = _mutate(data, rng)
        how = rng.choice(["plain", "gz", "raw"])
        folder = tmp_path / f"m{trial}"
        folder.mkdir()
        if how == "plain":
            (folder / "a.warc").write_bytes(mutated)
        else:
            starts = [i for i in range(len(mutated)) if mutated.startswith(b"WARC/1.0\r\n", i)]
            bounds = [0] + starts[1:] + [len(mutated)] if starts else [0, len(mutated)]
            members = [mutated[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]
            (folder / "a.warc.gz").write_bytes(b"".join(gzip.compress(m) for m in members))
        _same(folder, **({"compression": None} if how == "raw" else {}))


def test_target_uri_fixups(tmp_path):
    """warcio's WARC-Target-URI fix-ups (<> removed, spaces as %20) change the LAST header of the
    name while datatrove reads the FIRST; a header continued on the next line; a Latin-1 header."""
    cases = [
        [("WARC-Target-URI", "<http://a.test/x y>"), ("WARC-Target-URI", "http://b.test/")],
        [("WARC-Target-URI", "http://a.test/x y"), ("warc-target-uri", "<http://b.test/>")],
        [("WARC-Target-URI", "<http://a.test/x>")],
        [("WARC-Target-URI", "http://a.test/\r\n continued"), ("WARC-Date", "caf\udce9")],
    ]
    for i, headers in enumerate(cases):
        folder = tmp_path / str(i)
        headers = headers + [("WARC-Identified-Payload-Type", "text/plain"), ("WARC-Record-ID", f"<urn:{i}>")]
        if not any(name == "WARC-Date" for name, _ in headers):
            headers.append(("WARC-Date", "2024-01-01T00:00:00Z"))
        _write(folder, [("conversion", headers, b"some text", None, b"\r\n\r\n")], "plain")
        (docs, error, _, _), _ = _same(folder)
        assert error is None and len(docs) == 1
