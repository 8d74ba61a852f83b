"""trafila.courlan (courlan 1.4.0's URL helpers that trafilatura's metadata calls)
against the installed courlan, on hand-picked and generated URLs."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

courlan = pytest.importorskip("courlan")
pytest.importorskip("tld")

from trafila import courlan as ours  # noqa: E402
from trafila.courlan import _tld  # noqa: E402

pytestmark = pytest.mark.skipif(
    getattr(courlan, "__version__", None) not in (None, "1.4.0"), reason="needs courlan 1.4.0"
)

FIXED = [
    "https://www.bbc.co.uk/news/x?utm_source=a&b=2#frag", "http://cnn.com:80/a//b/../c", "https://xn--bcher-kva.example/",
    "http://a.b", "https://192.168.0.1:8080/x", "ftp://foo.bar", "https://www.example.com", "https://github.com........./x",
    "https://s3.amazonaws.com/x", "http://city.kawasaki.jp/", "http://www.ck/", "http://foo.kawasaki.jp",
    "https://user@abcd.com:99/", " https://x.org", "https://[::1]/", "https://pippo.blogspot.com/a?lang=de&page=2#a=b&utm_x=1",
    "https://WWW.Example.COM:443/A%20b/?Z=1&a=2&fbclid=3", "http://localhost/", "https://co.uk/", "https://uk/",
    "https://www.w3.org/", "http://ab.cd", "https://a..b.com/", "https://例え.テスト/パス", "//example.com/x", "",
    "https://www.kawasaki.jp/x", "https://foo.bar.city.kawasaki.jp", "https://x.y.z.ck/p", "https://abc.def.ghi.jkl/",
]

_LABEL = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-ÄéΩ", min_size=1, max_size=12)
_SUFFIX = st.sampled_from(["com", "org", "co.uk", "de", "blogspot.com", "kawasaki.jp", "city.kawasaki.jp", "ck",
                           "www.ck", "s3.amazonaws.com", "xn--p1ai", "jp", "gov.uk", "invalid", "1", ""])
_SCHEME = st.sampled_from(["http://", "https://", "HTTPS://", "ftp://", "ftps://", "//", "", "mailto:"])
_PREFIX = st.sampled_from(["", "www.", "w3.", "www2.", "user@", "user:pw@"])
_PORT = st.sampled_from(["", ":80", ":443", ":8080", ":x", ":99999"])
_PATH = st.lists(st.text(alphabet="abc/.%20_-~!é?&=#;", max_size=8), max_size=4).map(lambda parts: "/".join(parts))
_QUERY = st.lists(
    st.tuples(st.sampled_from(["utm_source", "fbclid", "id", "lang", "page", "Ref", "q", "session_id", "a b", ""]),
              st.text(alphabet="ab1=é ", max_size=4)),
    max_size=4,
).map(lambda pairs: ("?" + "&".join(f"{k}={v}" for k, v in pairs)) if pairs else "")
_FRAGMENT = st.sampled_from(["", "#top", "#a=b", "#utm_x=1", "#a=1&utm_b=2", "#é"])

URLS = st.builds(
    lambda scheme, prefix, labels, suffix, port, path, query, fragment:
        f"{scheme}{prefix}{'.'.join(labels)}{'.' if suffix else ''}{suffix}{port}/{path}{query}{fragment}",
    _SCHEME, _PREFIX, st.lists(_LABEL, min_size=1, max_size=3), _SUFFIX, _PORT, _PATH, _QUERY, _FRAGMENT,
) | st.text(max_size=40)


def _outcome(function, *args, **kwargs):
    "The result, or the exception's type (both sides must raise the same)."
    try:
        return function(*args, **kwargs)
    except Exception as err:  # noqa: BLE001 - compared, not hidden
        return type(err)


def _check(url: str) -> None:
    assert _outcome(ours.validate_url, url) == _outcome(courlan.validate_url, url)
    assert ours.is_valid_url(url) == courlan.is_valid_url(url)
    for fast in (False, True):
        assert _outcome(ours.extract_domain, url, fast=fast) == _outcome(courlan.extract_domain, url, fast=fast), fast
    assert _outcome(ours.get_base_url, url) == _outcome(courlan.get_base_url, url)
    assert _outcome(ours.normalize_url, url) == _outcome(courlan.normalize_url, url)
    valid, parsed = courlan.validate_url(url)
    if valid:
        assert ours.normalize_url(parsed) == courlan.normalize_url(parsed)
        for strict in (False, True):
            for language in (None, "de", "en"):
                assert (_outcome(ours.normalize_url, parsed, strict, language)
                        == _outcome(courlan.normalize_url, parsed, strict, language)), (strict, language)


@pytest.mark.parametrize("url", FIXED)
def test_fixed_urls(url):
    _check(url)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(URLS)
def test_generated_urls(url):
    _check(url)


def test_suffix_rules_are_tlds():
    "The generated rule file is what the installed tld reads (same rule count, a sample of rules found)."
    rules = [r for r in _tld.load_rules() if r != _tld.PRIVATE_MARK]
    from tld.utils import get_tld

    assert len(rules) > 9000
    for rule in rules[::97]:
        host = "example." + rule.lstrip("!*.")
        want = get_tld("https://" + host, as_object=True, fail_silently=True)
        got = _tld.get_tld_parts("https://" + host)
        assert (got is None) == (want is None), rule
        if want is not None:
            assert got == (want.domain, want.fld), rule
