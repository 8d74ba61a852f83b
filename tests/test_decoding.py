"""trafilatura's decoding of bytes (trafila._decoding), against trafilatura itself.

Generated pages encoded in the charsets the corpora hold (cp1252, latin-1,
shift_jis, euc-kr, gb2312, koi8-r, windows-1251, UTF-16 with and without a
BOM), plain, gzip- and zlib-compressed, and bad bytes (truncated multi-byte
sequences, lying BOMs, a charset naming no codec, truncated or oversized
compressed streams): the decoded text, the parsed tree and the extraction
equal trafilatura 2.3.1's (in process) and 1.11.0's (in process when it is
the installed release, else in its own interpreter: ``$TRAFILA_PYTHON_1_11_0``
or ``.tox/oracle-1.11``), or raise the same exception type. Without
charset_normalizer the call is handed over as before.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import random
import subprocess
import sys
import warnings
import zlib
from configparser import ConfigParser
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

import trafila
from trafila import _decoding, _delegation

from .conftest import ROOT, trafilatura_version

# --- generated pages -------------------------------------------------------------------------

#: words per script, each encodable in the charsets that use it
WORDS = {
    "latin": ["café", "crème", "brûlée", "naïve", "façade", "déjà", "über", "Straße", "año", "niño", "garçon",
              "coöperate", "résumé", "el", "la", "und", "the", "of", "with", "words", "plain", "text"],
    "cp1252": ["“quoted”", "‘single’", "—dash", "…", "€uro", "œuvre", "Šárka", "™", "naïve", "café", "text"],
    "japanese": ["日本語", "東京", "ひらがな", "カタカナ", "漢字", "記事", "本文", "です", "ます", "テスト"],
    "korean": ["한국어", "서울", "기사", "본문", "입니다", "테스트", "문장", "단어"],
    "chinese": ["中文", "北京", "新闻", "文章", "内容", "测试", "句子", "汉字"],
    "cyrillic": ["Москва", "статья", "текст", "русский", "язык", "новости", "слово", "пример"],
}

#: (codec name for Python, script, the charset a page may declare)
CHARSETS = [
    ("cp1252", "cp1252", "windows-1252"),
    ("latin-1", "latin", "iso-8859-1"),
    ("shift_jis", "japanese", "Shift_JIS"),
    ("euc-kr", "korean", "euc-kr"),
    ("gb2312", "chinese", "gb2312"),
    ("koi8-r", "cyrillic", "koi8-r"),
    ("windows-1251", "cyrillic", "windows-1251"),
    ("utf-16", "cyrillic", "utf-16"),      # with a BOM (Python's utf-16 writes one)
    ("utf-16-le", "japanese", "utf-16"),   # without
    ("utf-16-be", "latin", "utf-16"),      # without
]

DECLARATIONS = ("none", "meta", "http-equiv", "wrong", "bogus", "xml")


def _sentence(rng: random.Random, script: str) -> str:
    words = WORDS[script] + (WORDS["latin"][-8:] if script != "latin" else [])
    return " ".join(rng.choice(words) for _ in range(rng.randint(12, 30))).capitalize() + "."


def page_text(rng: random.Random, script: str, declared: str, declaration: str) -> str:
    """A small article page in ``script`` whose head declares ``declared`` in one of DECLARATIONS' ways."""
    head = {
        "none": "",
        "meta": f'<meta charset="{declared}">',
        "http-equiv": f'<meta http-equiv="Content-Type" content="text/html; charset={declared}">',
        "wrong": '<meta charset="utf-8">',
        "bogus": '<meta charset="x-no-such-charset">',
        "xml": "",
    }[declaration]
    paragraphs = "".join(f"<p>{_sentence(rng, script)}</p>" for _ in range(rng.randint(3, 8)))
    title = _sentence(rng, script)[:40]
    doc = (f"<!DOCTYPE html>\n<html><head>{head}<title>{title}</title></head><body>"
           f"<div class='nav'><a href='/'>Home</a></div><article><h1>{title}</h1>{paragraphs}</article>"
           f"<div class='comments'><p>{_sentence(rng, script)}</p></div></body></html>")
    if declaration == "xml":
        # a str with an XML encoding declaration: lxml refuses it, load_html re-parses UTF-8 bytes
        doc = f'<?xml version="1.0" encoding="{declared}"?>\n' + doc
    return doc


def _optional_compressors() -> Dict[str, Callable[[bytes], bytes]]:
    """brotli and zstd, where a module that writes them is installed (the
    releases read them only then: see _decoding.compression_modules)."""
    found: Dict[str, Callable[[bytes], bytes]] = {}
    try:
        import brotli  # type: ignore[import-not-found]

        found["brotli"] = brotli.compress
    except ImportError:
        pass
    for name in ("backports.zstd", "zstandard"):
        try:
            module = __import__(name, fromlist=["compress"])
        except ImportError:
            continue
        found["zstd"] = module.compress  # a frame with its content size: both releases' readers take it
        break
    return found


COMPRESSIONS: Dict[str, Callable[[bytes], bytes]] = {
    "plain": lambda raw: raw,
    "gzip": lambda raw: gzip.compress(raw, mtime=0),
    "zlib": zlib.compress,
    **_optional_compressors(),
}


def generated_pages(seed: int = 20) -> Iterator[Tuple[str, bytes]]:
    """(id, bytes): every charset x compression, with a declaration drawn per page."""
    rng = random.Random(seed)
    for codec, script, declared in CHARSETS:
        for declaration in DECLARATIONS:
            raw = page_text(rng, script, declared, declaration).encode(codec)
            for cname, compress in COMPRESSIONS.items():
                if cname != "plain" and declaration not in ("none", "meta"):
                    continue  # the compressions over the two plainest declarations
                yield f"{codec}-{declaration}-{cname}", compress(raw)


def _cut_inside_last_char(text: str, codec: str) -> bytes:
    "The page encoded, cut after the first byte of its last multi-byte character."
    raw = text.encode(codec)
    last = next(ch for ch in reversed(text) if len(ch.encode(codec)) > 1)
    return raw[: raw.rindex(last.encode(codec)) + 1]


def bad_pages() -> Iterator[Tuple[str, bytes]]:
    """(id, bytes) that trafilatura's decoding has to survive."""
    rng = random.Random(7)
    latin = page_text(rng, "latin", "iso-8859-1", "meta")
    japanese = page_text(rng, "japanese", "Shift_JIS", "meta")
    korean = page_text(rng, "korean", "euc-kr", "none")
    cyrillic = page_text(rng, "cyrillic", "utf-8", "meta")
    utf8 = cyrillic.encode("utf-8")
    # truncated multi-byte sequences: cut in the middle of a character
    yield "utf8-cut-mid-char", _cut_inside_last_char(cyrillic, "utf-8")
    yield "sjis-cut-mid-char", _cut_inside_last_char(japanese, "shift_jis")
    yield "euckr-cut-mid-char", _cut_inside_last_char(korean, "euc-kr")
    yield "utf16-cut-odd", cyrillic.encode("utf-16")[:-1]
    yield "utf8-with-latin1-bytes", utf8.replace(b"</article>", "</article><p>café</p>".encode("latin-1"))
    # byte order marks that lie
    yield "utf8-bom-latin1-body", b"\xef\xbb\xbf" + latin.encode("latin-1")
    yield "utf16le-bom-ascii-odd", b"\xff\xfe" + b"<html><body><p>plain text</p></body></html>x"
    yield "utf16be-bom-latin1", b"\xfe\xff" + latin.encode("latin-1")
    yield "utf32-bom-cp1252", b"\xff\xfe\x00\x00" + latin.encode("cp1252")
    yield "lone-utf16-bom", b"\xff\xfe"
    yield "lone-utf8-bom", b"\xef\xbb\xbf"
    # charsets that name no codec
    yield "meta-bogus-charset", latin.replace("iso-8859-1", "x-no-such").encode("latin-1")
    yield "xml-decl-bogus", ('<?xml version="1.0" encoding="bogus-enc"?>' + latin).encode("latin-1")
    yield "xml-decl-utf16-ascii", b'<?xml version="1.0" encoding="UTF-16"?><html><body><p>' + b"x" * 300 + b"</p></body></html>"
    # compressed streams cut short or followed by garbage
    glatin = gzip.compress(latin.encode("latin-1"), mtime=0)
    zlatin = zlib.compress(latin.encode("latin-1"))
    yield "gzip-cut", glatin[: len(glatin) // 2]
    yield "gzip-header-only", glatin[:10]
    yield "gzip-magic-only", b"\x1f\x8b\x08"
    yield "gzip-trailing-garbage", glatin + b"garbage\xff"
    yield "gzip-nul-padding", glatin + b"\0" * 16
    yield "gzip-two-members", gzip.compress(utf8[:300], mtime=0) + gzip.compress(utf8[300:], mtime=0)
    yield "gzip-of-gzip", gzip.compress(glatin, mtime=0)
    yield "zlib-cut", zlatin[: len(zlatin) // 2]
    yield "zlib-trailing-garbage", zlatin + b"\xff\xfegarbage"
    yield "zlib-header-latin1", b"x\x9c" + latin.encode("latin-1")
    for name, compress in COMPRESSIONS.items():
        if name in ("brotli", "zstd"):
            packed = compress(latin.encode("latin-1"))
            yield f"{name}-cut", packed[: len(packed) // 2]
            yield f"{name}-trailing-garbage", packed + b"garbage"
            yield f"{name}-two-streams", packed + compress(b"<p>more</p>")
    yield "empty", b""
    yield "nul-bytes", b"\0" * 64
    yield "binary-noise", bytes(rng.randrange(256) for _ in range(2000))
    yield "big-latin1", (latin * 20).encode("latin-1")  # over 10,000 bytes: head and tail detection
    # ASCII head and tail, windows-1251 only in the middle: the head and tail alone guess ASCII
    ascii_pad = "<p>" + "plain ascii words here " * 300 + "</p>"
    middle = "<p>" + _sentence(rng, "cyrillic") * 5 + "</p>"
    yield "big-charset-in-middle", ("<html><body><article>" + ascii_pad + middle + ascii_pad
                                    + "</article></body></html>").encode("windows-1251")


def _sample_cases() -> List[Tuple[str, bytes]]:
    return list(generated_pages()) + list(bad_pages())


CASES = _sample_cases()
CASE_IDS = [c[0] for c in CASES]

#: a config whose MAX_FILE_SIZE the pages' decompressed size exceeds (2.3.1 keeps the stream as it is then)
SMALL_MAX = {"max_file_size": "2000"}


# --- outcomes -------------------------------------------------------------------------------------

def outcome(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """What a call gives: its result (a Document reduced to its text fields), or ("raises", type name)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn(*args, **kwargs)
    except Exception as err:  # noqa: BLE001 - the exception type is the outcome
        return ["raises", type(err).__name__]
    if isinstance(result, dict):
        return {k: result[k] for k in ("text", "comments", "raw_text")}
    if result is not None and not isinstance(result, (str, bytes, list, tuple)):
        return {k: getattr(result, k) for k in ("text", "comments", "raw_text")}
    if isinstance(result, tuple):  # baseline: (body, text, length)
        return list(result[1:])
    return result


@pytest.fixture(autouse=True)
def fresh_state():
    trafila.reset_caches()
    _delegation._warned.clear()
    yield
    trafila.reset_caches()
    _delegation._warned.clear()


# --- trafilatura 2.3.1, in process ----------------------------------------------------------------

needs_231 = pytest.mark.skipif(trafilatura_version() != "2.3.1", reason="needs trafilatura 2.3.1 (tox -e tests)")


@needs_231
@pytest.mark.parametrize("case", range(len(CASES)), ids=CASE_IDS)
def test_decoding_steps_match_trafilatura_231(case):
    "handle_compressed_file, detect_encoding and decode_file give 2.3.1's bytes, guesses and str."
    from trafilatura import utils as T

    _, raw = CASES[case]
    assert _decoding.handle_compressed_file(raw, "2.3.1") == T.handle_compressed_file(raw)
    assert _decoding.handle_compressed_file(raw, "2.3.1", 2000) == T.handle_compressed_file(raw, 2000)
    inflated = T.handle_compressed_file(raw)
    assert _decoding.detect_encoding(inflated, "2.3.1") == T.detect_encoding(inflated)
    assert outcome(_decoding.decode_file, raw, "2.3.1") == outcome(T.decode_file, raw)
    assert outcome(_decoding.decode_file, raw, "2.3.1", 2000) == outcome(T.decode_file, raw, 2000)


@needs_231
@pytest.mark.parametrize("case", range(len(CASES)), ids=CASE_IDS)
def test_loaded_tree_matches_trafilatura_231(html_parser, case):
    "load_html on each engine's parser gives the tree trafilatura 2.3.1's load_html gives (lxml)."
    from trafilatura.utils import load_html as T_load_html

    from trafila.html._debug import dump_element
    from trafila.v2_3_1 import utils

    def tree(load: Callable[..., Any], **kwargs: Any) -> Any:
        try:
            root = load(raw, **kwargs)
        except Exception as err:  # noqa: BLE001 - the exception type is the outcome
            return ["raises", type(err).__name__]
        return None if root is None else dump_element(root)

    _, raw = CASES[case]
    assert tree(utils.load_html, parse=html_parser.fromstring) == tree(T_load_html)


def _small_config(mode_config: ConfigParser) -> ConfigParser:
    config = ConfigParser()
    config.read_dict({"DEFAULT": dict(mode_config["DEFAULT"], **SMALL_MAX)})
    return config


@needs_231
@pytest.mark.parametrize("case", range(len(CASES)), ids=CASE_IDS)
def test_extraction_matches_trafilatura_231(engine_231, case):
    "extract, bare_extraction, baseline and html2txt natively (no FallbackWarning), as trafilatura 2.3.1."
    import trafilatura

    _, raw = CASES[case]
    small = _small_config(trafilatura.settings.DEFAULT_CONFIG)
    before = trafila.delegated_calls
    calls = [
        ("extract", {}), ("extract", {"fast": True}), ("extract", {"favor_recall": True, "include_formatting": True}),
        ("bare_extraction", {"fast": True}), ("extract", {"config": small}),
        ("baseline", {}), ("html2txt", {}),
    ]
    for function, kwargs in calls:
        ours = outcome(getattr(engine_231, function), raw, **kwargs)
        theirs = outcome(getattr(trafilatura, function), raw, **kwargs)
        assert ours == theirs, (function, kwargs)
    assert trafila.delegated_calls == before, "a bytes page was handed to trafilatura"


# --- trafilatura 1.11.0: in process, or in its own interpreter -------------------------------------

_ORACLE_111_SCRIPT = r"""
import base64, json, sys, warnings
warnings.simplefilter("ignore")
import trafilatura
from trafilatura import utils
assert trafilatura.__version__ == "1.11.0", trafilatura.__version__

def outcome(fn, *args, **kwargs):
    try:
        result = fn(*args, **kwargs)
    except Exception as err:
        return ["raises", type(err).__name__]
    if isinstance(result, dict):
        return {k: result[k] for k in ("text", "comments", "raw_text")}
    if isinstance(result, bytes):
        return base64.b64encode(result).decode()
    if isinstance(result, tuple):
        return list(result[1:])
    return result

out = []
for line in sys.stdin:
    raw = base64.b64decode(line)
    inflated = utils.handle_compressed_file(raw)
    out.append({
        "handle": outcome(utils.handle_compressed_file, raw),
        "detect": outcome(utils.detect_encoding, inflated),
        "decode": outcome(utils.decode_file, raw),
        "extract": outcome(trafilatura.extract, raw),
        "extract_no_fallback": outcome(trafilatura.extract, raw, no_fallback=True),
        "bare": outcome(trafilatura.bare_extraction, raw, no_fallback=True),
    })
json.dump(out, sys.stdout)
"""


def _oracle_111_python() -> Optional[str]:
    env = os.environ.get("TRAFILA_PYTHON_1_11_0")
    if env:
        return env
    for name in ("oracle-1.11", "parity-1.11", "parity-quick-1.11"):
        candidate = Path(ROOT) / ".tox" / name / "bin" / "python"
        if candidate.exists():
            return str(candidate)
    return None


@pytest.fixture(scope="module")
def trafilatura_111_results() -> List[Dict[str, Any]]:
    """trafilatura 1.11.0's outcomes for every case, computed once (in process when installed)."""
    lines = "".join(base64.b64encode(raw).decode() + "\n" for _, raw in CASES)
    python = sys.executable if trafilatura_version() == "1.11.0" else _oracle_111_python()
    if python is None:
        pytest.skip("needs trafilatura 1.11.0 (installed, or an interpreter that has it: set TRAFILA_PYTHON_1_11_0, or tox -e oracle-1.11 makes .tox/oracle-1.11)")
    command = [python, "-c", _ORACLE_111_SCRIPT]
    env = dict(os.environ, PYTHONHASHSEED="0")
    done = subprocess.run(command, input=lines, capture_output=True, text=True, env=env, timeout=1800, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def _b64(value: Any) -> Any:
    return base64.b64encode(value).decode() if isinstance(value, bytes) else value


@pytest.mark.parametrize("case", range(len(CASES)), ids=CASE_IDS)
def test_decoding_steps_match_trafilatura_111(trafilatura_111_results, case):
    "1.11.0's handle_compressed_file, detect_encoding and decode_file (uncapped, no zlib-after-gzip stop)."
    _, raw = CASES[case]
    expected = trafilatura_111_results[case]
    assert _b64(_decoding.handle_compressed_file(raw, "1.11.0")) == expected["handle"]
    inflated = _decoding.handle_compressed_file(raw, "1.11.0")
    assert outcome(_decoding.detect_encoding, inflated, "1.11.0") == expected["detect"]
    assert outcome(_decoding.decode_file, raw, "1.11.0") == expected["decode"]


@pytest.mark.parametrize("case", range(len(CASES)), ids=CASE_IDS)
def test_extraction_matches_trafilatura_111(engine_111, trafilatura_111_results, case):
    "extract and bare_extraction natively under compat='1.11.0', as trafilatura 1.11.0."
    _, raw = CASES[case]
    expected = trafilatura_111_results[case]
    before = trafila.delegated_calls
    assert outcome(engine_111.extract, raw, compat="1.11.0") == expected["extract"]
    assert outcome(engine_111.extract, raw, no_fallback=True, compat="1.11.0") == expected["extract_no_fallback"]
    assert outcome(engine_111.bare_extraction, raw, no_fallback=True, compat="1.11.0") == expected["bare"]
    assert trafila.delegated_calls == before, "a bytes page was handed to trafilatura"


# --- the releases' differences, pinned --------------------------------------------------------

LATIN = "<html><body><article><p>" + "Caf\u00e9 cr\u00e8me, na\u00efve fa\u00e7ade. " * 12 + "</p></article></body></html>"


def test_lone_bom_differs_between_releases(monkeypatch):
    "A lone UTF-16 BOM decodes to '' as utf_16: 2.3.1 keeps it, 1.11.0 takes the destructive fallback."
    if not _decoding.charset_detection_available():
        pytest.skip("needs charset_normalizer (trafila[charset])")
    monkeypatch.setattr(_decoding, "_cchardet_detect", lambda: None)  # cchardet, when installed, guesses first
    guesses = _decoding.detect_encoding(b"\xff\xfe")
    assert guesses and b"\xff\xfe".decode(guesses[0]) == ""
    assert _decoding.decode_file(b"\xff\xfe", "2.3.1") == ""
    assert _decoding.decode_file(b"\xff\xfe", "1.11.0") == "\ufffd\ufffd"


def test_size_cap_only_in_2_3_1():
    "2.3.1 keeps a stream whose output passes MAX_FILE_SIZE as it is; 1.11.0 inflates it whatever its size."
    raw = LATIN.encode("latin-1") * 4
    big = gzip.compress(raw, mtime=0)
    assert _decoding.handle_compressed_file(big, "2.3.1", 100) is big
    assert _decoding.handle_compressed_file(big, "2.3.1", len(raw)) == raw
    assert _decoding.handle_compressed_file(big, "1.11.0") == raw
    # a broken gzip stream is kept as it is by both (2.3.1 tries nothing after it)
    broken = b"\x1f\x8b\x08" + zlib.compress(raw)
    assert _decoding.handle_compressed_file(broken, "2.3.1") is broken
    assert _decoding.handle_compressed_file(broken, "1.11.0") is broken


def test_str_input_is_untouched():
    for release in _decoding.RELEASES:
        assert _decoding.decode_file("caf\u00e9", release) == "caf\u00e9"
    with pytest.raises(ValueError, match="unsupported release"):
        _decoding.decode_file(b"x", "9.9")


def test_needs_decoding_selects_compressed_and_non_utf8():
    assert not _decoding.needs_decoding(LATIN.encode("utf-8"))
    assert _decoding.needs_decoding(LATIN.encode("latin-1"))
    assert _decoding.needs_decoding(gzip.compress(LATIN.encode("utf-8")), "1.11.0")
    assert _decoding.needs_decoding(zlib.compress(LATIN.encode("utf-8")))


# --- without the charset extra ---------------------------------------------------------------

@pytest.fixture
def without_charset_normalizer(monkeypatch):
    "charset_normalizer as if not installed (trafila[charset] missing)."
    monkeypatch.setattr(_decoding, "_from_bytes", lambda: None)
    assert not _decoding.charset_detection_available()


def test_without_extra_utf8_and_compressed_utf8_stay_native(without_charset_normalizer, engine_231):
    raw = LATIN.encode("utf-8")
    before = trafila.delegated_calls
    with warnings.catch_warnings():
        warnings.simplefilter("error", trafila.FallbackWarning)
        plain = engine_231.extract(raw)
        assert plain and "Caf\u00e9" in plain
        assert engine_231.extract(gzip.compress(raw)) == plain
        assert engine_231.extract(zlib.compress(raw)) == plain
    assert trafila.delegated_calls == before


def test_without_extra_charset_detection_raises_not_native(without_charset_normalizer):
    for release in _decoding.RELEASES:
        with pytest.raises(trafila.NotNative, match=r"non-UTF-8 bytes \(charset detection\)"):
            _decoding.decode_file(LATIN.encode("latin-1"), release)


@needs_231
def test_without_extra_non_utf8_is_handed_over_once(without_charset_normalizer, engine_231):
    "One FallbackWarning naming charset detection, then trafilatura 2.3.1's own result."
    import trafilatura

    raw = LATIN.encode("latin-1")
    before = trafila.delegated_calls
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = [engine_231.extract(raw), engine_231.extract(raw), engine_231.html2txt(raw)]
    fallback = [str(w.message) for w in caught if issubclass(w.category, trafila.FallbackWarning)]
    assert fallback == ["trafila: extract handed to trafilatura 2.3.1: non-UTF-8 bytes (charset detection)",
                        "trafila: html2txt handed to trafilatura 2.3.1: non-UTF-8 bytes (charset detection)"]
    assert trafila.delegated_calls == before + 3
    assert ours == [trafilatura.extract(raw), trafilatura.extract(raw), trafilatura.html2txt(raw)]


def test_without_extra_or_trafilatura_raises_the_clear_error(without_charset_normalizer, monkeypatch, engine_231):
    def missing():
        raise ModuleNotFoundError("No module named 'trafilatura'", name="trafilatura")

    monkeypatch.setattr(_delegation, "real_trafilatura", missing)
    # one line naming the extra that decodes the bytes natively, then the release to hand them to
    with pytest.raises(trafila.TrafilaError,
                       match=r"^extract: non-UTF-8 bytes \(charset detection\) needs the \[charset\] extra "
                             r"\(pip install 'trafila\[charset\]'\) to be decoded natively, "
                             r"or trafilatura==2\.3\.1 installed \(pip install 'trafila\[trafilatura\]'\)$"):
        engine_231.extract(LATIN.encode("latin-1"))


def test_reproduced_versions_pin_charset_normalizer():
    "REPRODUCED_VERSIONS names the charset_normalizer the oracles resolve, and the extra pins that one."
    import re

    pinned = {pins["charset_normalizer"] for pins in trafila.REPRODUCED_VERSIONS.values()}
    assert pinned == {"3.5.3"}
    pyproject = (Path(ROOT) / "pyproject.toml").read_text()
    extra = re.search(r"^charset = \[(.*)\]$", pyproject, re.M)
    assert extra is not None and extra.group(1) == '"charset_normalizer==3.5.3"'
    tox = (Path(ROOT) / "tox.ini").read_text()
    assert "charset_normalizer==3.5.3" in tox


# --- the harness's --only-non-utf8 subset ---------------------------------------------------------

def test_harness_looks_compressed_is_candidate_independent():
    from harness.corpora import looks_compressed

    raw = LATIN.encode("utf-8")
    assert not looks_compressed(raw)
    assert looks_compressed(gzip.compress(raw)) and looks_compressed(zlib.compress(raw))
    assert looks_compressed(b"\x1f\x8b\x08 cut short")


@needs_231
def test_harness_only_non_utf8_runs_the_decoded_bytes_pages(tmp_path):
    """Only the bytes form of decoded pages is compared; a dedup set first runs the
    pages before them (uncompared), as the oracle's run did; the report has its own section."""
    from harness import parity
    from harness.candidates import TrafilaturaCandidate
    from harness.corpora import bundle_paths, load_pages
    from harness.oracle import cache_path

    if not cache_path("2.3.1", "synthetic").exists():
        pytest.skip("no oracle cache for the embedded corpus")
    pages = load_pages(bundle_paths(["synthetic"])[0])
    decoded = [p for p in pages if p.decoded_by_trafilatura()]
    assert decoded and all(p.html is None for p in decoded)

    class Counting(TrafilaturaCandidate):
        calls = 0

        def call(self, function, html, options, mode):  # type: ignore[no-untyped-def]
            Counting.calls += 1
            return super().call(function, html, options, mode)

    res = parity.run(Counting(), "2.3.1", ["synthetic"], sets=["fast", "fast-dedup"], only_non_utf8=True,
                     log=lambda m: None)
    assert res.subset == parity.NON_UTF8 and not res.stale and res.differences == []
    assert {k: c.comparisons for k, c in res.cells.items()} == {("synthetic", "fast"): len(decoded),
                                                                ("synthetic", "fast-dedup"): len(decoded)}
    assert res.compared == {(p.id, "bytes") for p in decoded}
    last = max(p.index for p in decoded)
    assert Counting.calls == len(decoded) + (last + 1)  # fast: the decoded pages; fast-dedup: every page up to the last
    section = parity.section_json(res, [], [], [], ["parity", "--only-non-utf8"], "abc1234")
    parity.write_reports(section, tmp_path)
    assert list(json.loads((tmp_path / "parity.json").read_text())["runs"]) == ["trafilatura / 2.3.1 / non-utf8"]
