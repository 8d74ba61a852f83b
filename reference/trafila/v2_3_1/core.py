"""trafilatura 2.3.1's extraction sequence (core.py): ``extract``,
``bare_extraction``, ``trafilatura_sequence`` and the txt output.

Native: output_format txt/markdown/python/json/csv/xml/html, include_formatting, fast=True (or
no_fallback), favor_precision, favor_recall, include_comments, include_tables,
deduplicate (bool or LRUCache), target_language's HTML meta check; fast=False
too when the readability and jusText ports import (see external.py). Everything else raises
``NotNative(reason)``.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import warnings
from configparser import ConfigParser
from copy import copy
from typing import TYPE_CHECKING, Any, Optional, Tuple

from ._tree import Element, copy_tree, iter_live, strip_tags
from .baseline import baseline, html2txt
from .._backend import core_of
from .._engine import NotNative
from ..xpathlib import select_tags
from .deduplication import cache_of, duplicate_test
from .external import compare_extraction, justext_rescue
from .htmlprocessing import convert_tags, prune_unwanted_nodes, tree_cleaning
from .main_extractor import _elem_text, extract_comments, extract_content
from .metadata import extract_metadata, set_date_params
from .settings import DEFAULT_CONFIG, Document, Extractor, use_config
from .utils import check_html_lang, load_html, normalize_unicode
from .xml import build_html_output, build_json_output, control_xml_output, delete_element, keeps_empty, xmltocsv, xmltotxt
from ..simhash import page_fingerprint
from ..userxpath import compile_prune_xpath
from .xpaths import RAW_TREE_PRUNE_XPATH, REMOVE_COMMENTS_AND_LISTS_XPATH, REMOVE_COMMENTS_XPATH

if TYPE_CHECKING:
    from trafila.dom import Element as _Element  # the class (._tree's Element is the factory)

LOGGER = logging.getLogger(__name__)

ESCALATION_MAX_LENGTH = 3000
ESCALATION_PAGE_SHARE = 0.2
ESCALATION_ACCEPT_RATIO = 1.5
ESCALATION_JUSTEXT_RATIO = 2.0

_DISCUSSION_FORUM_POSTING_RE = re.compile(
    r'"@type"\s*:\s*"DiscussionForumPosting"|"@type"\s*:\s*\[[^\]]*"DiscussionForumPosting"'
)


_SCRIPT = frozenset(["script"])


def _forum_thread_page(tree: _Element) -> bool:
    "A JSON-LD script declaring a DiscussionForumPosting."
    return any(
        script.text and _DISCUSSION_FORUM_POSTING_RE.search(script.text)
        for script in select_tags(tree, _SCRIPT)
        if script.get("type") == "application/ld+json"
    )


def _prepare_tree(tree: _Element, options: Extractor, url: Optional[str], need_backup: bool = True) -> Tuple[Any, Any]:
    """Clean and convert a copy of the raw tree: (converted, pre-conversion backup). The
    backup is only read by the fallbacks and the forum branch: without ``need_backup`` it
    is None (the copy would be thrown away unread)."""
    cleaned = tree_cleaning(copy_tree(tree), options)
    backup = copy_tree(cleaned) if need_backup else None
    cleaned = convert_tags(cleaned, options, url)
    return cleaned, backup


def _extract_and_compare(cleaned_tree: _Element, cleaned_tree_backup: _Element, tree: _Element, options: Extractor) -> Tuple[Any, str]:
    postbody, temp_text = extract_content(cleaned_tree, options)
    if not options.fast:
        postbody, temp_text = compare_extraction(cleaned_tree_backup, copy_tree(tree), postbody, temp_text, options)
    return postbody, temp_text


def _recall_retry(esc_tree: _Element, r_options: Extractor, url: Optional[str]) -> Tuple[Any, str]:
    return _extract_and_compare(*_prepare_tree(esc_tree, r_options, url, not r_options.fast), esc_tree, r_options)


#: trafilatura_sequence runs in the compiled core, without the GIL, for the option sets it has a C
#: sequence for (_native_sequence); False: always the sequence below (tests compare them)
NATIVE_SEQUENCE = True


def sequence_url_reason(links: bool, images: bool, url: Optional[str]) -> Optional[str]:
    """Why the C sequence leaves a call with this URL to the Python stages, or None: handle_image
    joins a relative source to the URL (urllib's urljoin) and convert_link resolves relative
    targets against the URL's base (courlan), both Python's. sequence_231 hands such a page back
    on this answer and the router (trafila._route) promises no GIL-free run for it."""
    if images and url is not None:
        return "images with a URL"
    if links and url:
        from .utils import safe_base_url  # noqa: PLC0415

        if safe_base_url(url):
            return "links with a base URL"
    return None


def _native_sequence(tree: _Element, options: Extractor) -> Any:
    """The core's C sequence (cython_core/nogil_sequence.pxi) on a core tree: the sequence's
    result, or NotImplemented (the C gave the page back untouched, or there is no C sequence
    for these options: sequence_231 decides, given the cache duplicate_test would count in)."""
    core = core_of(tree) if NATIVE_SEQUENCE else None
    if core is None or not hasattr(core, "sequence_231"):
        return NotImplemented
    want = getattr(_OUTPUT, "wanted", False) and not options.max_tree_size
    native = core.sequence_231(tree, options, want, cache_of(options) if options.dedup else None)
    if native is NotImplemented or not want:
        return native
    # extract()'s txt output, made in the same GIL-free run: handed to extract() alone, for
    # these very bodies (bare_extraction changes neither without max_tree_size; its duplicate
    # test may discard the page, not change it)
    _OUTPUT.made = (native[0], native[2], native[4])
    return native[:4]


#: per thread: extract() asks the C sequence for its txt output (``wanted``) and takes it
#: (``made``: postbody, commentsbody, text or None) right after bare_extraction
_OUTPUT = threading.local()


def trafilatura_sequence(tree: _Element, options: Extractor, url: Optional[str] = None) -> Tuple[Any, str, Any, str]:
    "Prepare the raw tree, then the cascade: main extractor, baseline rescue, recall escalation."
    # the C sequence resolves links against options.url: with metadata the base may be the
    # page's own URL (document.url), which only the Python conversion is given
    native = _native_sequence(tree, options) if url == options.url or not options.links else NotImplemented
    if native is not NotImplemented:
        return native  # type: ignore[no-any-return]
    is_forum = _forum_thread_page(tree)
    # pruned on the raw tree so that the fallbacks inherit it: readability would
    # otherwise pick the longest appended article over the real one
    tree = prune_unwanted_nodes(tree, RAW_TREE_PRUNE_XPATH)
    # comments off: pruned before conversion, while lists are still ol/ul
    if not options.comments and (options.focus == "precision" or not is_forum):
        tree = prune_unwanted_nodes(tree, REMOVE_COMMENTS_AND_LISTS_XPATH)
    # the backup feeds compare_extraction (not in fast mode) and the forum branch below
    cleaned_tree, cleaned_tree_backup = _prepare_tree(
        tree, options, url, not options.fast or (options.comments and is_forum)
    )

    commentsbody, temp_comments = Element("body"), ""
    forum_posts = None
    if options.comments:
        commentsbody, temp_comments, cleaned_tree = extract_comments(cleaned_tree, options)
        if temp_comments and is_forum:
            # thread forum: the "comments" are the posts, so they go to the body (the
            # backup predates the capture); kept aside to be salvaged if the cascade drops them
            forum_posts = commentsbody
            commentsbody, temp_comments = Element("body"), ""
            cleaned_tree = convert_tags(copy_tree(cleaned_tree_backup), options, url)
    if options.focus == "precision" and not is_forum:
        # not redundant with the raw-tree prune: after conversion lists are <list>, which
        # this XPath's self::list matches (dl lists, disqus ids, every list with comments on)
        cleaned_tree = prune_unwanted_nodes(cleaned_tree, REMOVE_COMMENTS_XPATH)

    postbody, temp_text = _extract_and_compare(cleaned_tree, cleaned_tree_backup, tree, options)

    # baseline rescue on the raw tree, accepted only if it adds text (#896); the dump saw
    # the whole page, so forum posts it lacks are boilerplate, not lost
    if len(temp_text) < options.min_extracted_size and options.focus != "precision":
        b_body, b_text, b_len = baseline(tree)
        if b_len > len(temp_text):
            postbody, temp_text = b_body, b_text
            forum_posts = None

    # recall escalation: a short result covering little of the page suggests a non-article
    # layout the balanced pass under-extracts; retried in recall mode, kept if clearly bigger.
    # The page measure html2txt depends on settings.BASIC_CLEAN_XPATH.
    if (
        options.focus == "balanced"
        and 0 < len(temp_text) < ESCALATION_MAX_LENGTH
        and len(temp_text) < ESCALATION_PAGE_SHARE * len(html2txt(tree))
    ):
        # a copy: a shared Extractor must not leak the recall focus back to the caller
        r_options = copy(options)
        r_options.focus = "recall"
        # comment containers out of the retry's input (duplicates if captured, reader comments
        # if not), ol/ul comment lists only if captured (#881); not on a thread forum, where the
        # retry is what rescues the posts; comments off: pruned already
        esc_tree = (
            tree
            if is_forum or not options.comments
            else prune_unwanted_nodes(
                copy_tree(tree), REMOVE_COMMENTS_AND_LISTS_XPATH if temp_comments else REMOVE_COMMENTS_XPATH
            )
        )
        r_text = ""
        r_body = None
        try:
            r_body, r_text = _recall_retry(esc_tree, r_options, url)
        except NotNative:
            raise
        except Exception as err:  # noqa: BLE001 # pragma: no cover - as upstream
            LOGGER.warning("recall retry failed: %s %s", err, url)
        j_text = ""
        j_body = None
        # jusText reaches div-buried content the rule-based retry misses; gated, as an ungated
        # candidate regressed upstream's own fallback
        if not options.fast:
            try:
                j_body, j_text = justext_rescue(copy_tree(esc_tree), options)
            except NotNative:
                raise
            except Exception as err:  # noqa: BLE001 # pragma: no cover
                LOGGER.warning("justext candidate failed: %s %s", err, url)
        # a retry below the pipeline's own minimum is noise; an accepted candidate saw the
        # whole page, so what it leaves out is deliberate: no forum-post salvage then
        len_text, r_len, j_len = len(temp_text), len(r_text), len(j_text)
        if j_len > r_len and j_len > ESCALATION_JUSTEXT_RATIO * len_text:
            postbody, temp_text, forum_posts = j_body, j_text, None
        elif r_len >= options.min_extracted_size and r_len > ESCALATION_ACCEPT_RATIO * len_text:
            postbody, temp_text, forum_posts = r_body, r_text, None

    if forum_posts is not None:
        # a gate (escalation length, precision) kept the cascade from restoring the posts:
        # append the ones missing from the body
        existing = "\n".join(filter(None, (_elem_text(el) for el in postbody[:])))
        salvaged = [el for el in forum_posts[:] if (t := _elem_text(el)) and t not in existing]
        if salvaged:
            for el in salvaged:
                postbody.append(el)
            temp_text = " ".join(postbody.itertext()).strip()

    return postbody, temp_text, commentsbody, temp_comments


def _check_deprecation(fast: bool = False, *, no_fallback: bool = False, as_dict: bool = False,
                       max_tree_size: Optional[int] = None, stacklevel: int = 2) -> bool:
    if no_fallback:
        warnings.warn('"no_fallback" will be removed, use "fast" instead', DeprecationWarning, stacklevel=stacklevel)
    if as_dict:
        warnings.warn('"as_dict" will be removed, use the .as_dict() method instead', DeprecationWarning,
                      stacklevel=stacklevel)
    if max_tree_size:
        raise ValueError('"max_tree_size" will be removed, use settings.cfg instead')
    return fast or no_fallback


def _check_native(options: Extractor, prune_xpath: Any) -> Optional[list]:
    """Raise NotNative for the options this port does not run natively (the call is
    delegated); the prune_xpath selectors (trafila.userxpath's subset) or None."""
    if options.format not in NATIVE_FORMATS:
        raise NotNative(f"output format {options.format}")
    return None if prune_xpath is None else compile_prune_xpath(prune_xpath)


def bare_extraction(
    filecontent: Any,
    url: Optional[str] = None,
    fast: bool = False,
    no_fallback: bool = False,
    favor_precision: bool = False,
    favor_recall: bool = False,
    include_comments: bool = True,
    output_format: str = "python",
    target_language: Optional[str] = None,
    include_tables: bool = True,
    include_images: bool = False,
    include_formatting: Optional[bool] = None,
    include_links: bool = False,
    deduplicate: Any = False,
    date_extraction_params: Optional[dict] = None,
    with_metadata: bool = False,
    only_with_metadata: bool = False,
    max_tree_size: Optional[int] = None,
    url_blacklist: Optional[set] = None,
    author_blacklist: Optional[set] = None,
    as_dict: bool = False,
    prune_xpath: Any = None,
    config: ConfigParser = DEFAULT_CONFIG,
    options: Optional[Extractor] = None,
) -> Any:
    "trafilatura.bare_extraction: a Document (python format) or None."
    fast = _check_deprecation(fast, no_fallback=no_fallback, as_dict=as_dict, max_tree_size=max_tree_size, stacklevel=3)
    if not options or not isinstance(options, Extractor):
        options = Extractor(
            config=config,
            output_format=output_format,
            fast=fast,
            precision=favor_precision,
            recall=favor_recall,
            comments=include_comments,
            formatting=include_formatting,
            links=include_links,
            images=include_images,
            tables=include_tables,
            dedup=deduplicate,
            lang=target_language,
            url=url,
            with_metadata=with_metadata,
            only_with_metadata=only_with_metadata,
            author_blacklist=author_blacklist,
            url_blacklist=url_blacklist,
            date_params=date_extraction_params,
        )
    prune_selectors = _check_native(options, prune_xpath)
    # upstream's Extractor always holds htmldate's parameters; this port's only when given
    date_params = options.date_params or (
        set_date_params(options.config.getboolean("DEFAULT", "EXTENSIVE_DATE_SEARCH")) if options.with_metadata else None
    )

    try:
        tree = load_html(filecontent, options.max_file_size)
        if tree is None:
            raise ValueError
        if tree is filecontent:
            tree = copy_tree(tree)

        # no py3langid in the reproduced environment: the HTML meta check runs
        if options.lang:
            if check_html_lang(tree, options.lang) is False:
                raise ValueError

        if options.with_metadata:
            document = extract_metadata(tree, options.url, date_params, options.fast, options.author_blacklist)
            if document.url in options.url_blacklist:
                raise ValueError
            if options.only_with_metadata and not (document.date and document.title and document.url):
                raise ValueError
        else:
            document = Document()

        if prune_selectors is not None:
            # the user's XPaths, on the whole page, no guard
            tree = prune_unwanted_nodes(tree, prune_selectors)

        postbody, temp_text, commentsbody, temp_comments = trafilatura_sequence(tree, options, options.url or document.url)
        len_text, len_comments = len(temp_text), len(temp_comments)

        if options.max_tree_size:
            if len(postbody) > options.max_tree_size:
                strip_tags(postbody, "hi")
            if len(postbody) > options.max_tree_size:
                raise ValueError
        if len_text < options.min_output_size and len_comments < options.min_output_comm_size:
            raise ValueError

        if options.dedup and duplicate_test(postbody, options) is True:
            raise ValueError
        # language_filter: without a language detector it never rejects

    except (TypeError, ValueError):
        LOGGER.warning("discarding data: %s", options.source)
        return None

    if options.format == "python":
        document.text = xmltotxt(postbody, options.formatting)
        if options.comments:
            document.comments = xmltotxt(commentsbody, options.formatting)
            document.commentsbody = commentsbody
        document.raw_text = document.text
    else:
        document.raw_text, document.commentsbody = temp_text, commentsbody
    document.body = postbody

    return document if not as_dict else document.as_dict()


#: the output formats run natively, with metadata or without
NATIVE_FORMATS = ("txt", "python", "markdown", "json", "csv", "xml", "xmltei", "html")
TXT_FORMATS = {"markdown", "txt"}


def determine_returnstring(document: Document, options: Extractor, keep_body: bool = False) -> str:
    """The output string of the chosen format (txt: body text, newline, comments text, stripped),
    NFC. ``keep_body``: see control_xml_output."""
    if "xml" in options.format:
        # last cleaning; upstream's iter() hands out the next element before this one goes
        for element in iter_live(document.body, "*"):
            if len(element) == 0 and not element.text and not element.tail and not keeps_empty(element):
                delete_element(element, keep_tail=False)
        returnstring = control_xml_output(document, options, keep_body)
    elif options.format == "csv":
        returnstring = xmltocsv(document, options.formatting)
    elif options.format == "json":
        returnstring = build_json_output(document, options.with_metadata)
    elif options.format == "html":
        returnstring = build_html_output(document, options.with_metadata)
    else:
        header = metadata_header(document) if options.with_metadata else ""
        returnstring = f"{header}{xmltotxt(document.body, options.formatting)}"
        if document.commentsbody is not None:
            returnstring = f"{returnstring}\n{xmltotxt(document.commentsbody, options.formatting)}".strip()
    return normalize_unicode(returnstring)


#: the Document fields of the txt/markdown metadata header, in its order
HEADER_FIELDS = ("title", "author", "url", "hostname", "description", "sitename", "date", "categories", "tags",
                 "fingerprint", "id", "license")
#: plain YAML scalars that would read as booleans or null: quoted
_YAML_RESERVED = frozenset(["true", "false", "yes", "no", "on", "off", "y", "n", "null", "none", "~"])


def yaml_scalar(value: str) -> str:
    """A metadata string as the header writes it: plain when YAML reads it back as that
    same string, else as a JSON string (a valid double-quoted YAML scalar)."""
    plain = (
        value != ""
        and value.strip() == value
        and value[0].isalpha()
        and ": " not in value
        and " #" not in value
        and not value.endswith(":")
        and value.lower() not in _YAML_RESERVED
        and not any(ch < " " or ch == "\x7f" for ch in value)
    )
    return value if plain else json.dumps(value, ensure_ascii=False)


def metadata_header(document: Document) -> str:
    """The YAML-like block extract() puts before the txt/markdown text with metadata: one
    ``name: value`` line per truthy field between ``---`` lines; strings through
    :func:`yaml_scalar`, lists and other values as Python formats them."""
    lines = []
    for name in HEADER_FIELDS:
        value = getattr(document, name)
        if value:
            lines.append(f"{name}: {yaml_scalar(value) if isinstance(value, str) else value}\n")
    return "---\n" + "".join(lines) + "---\n"


def _internal_extraction(
    filecontent: Any,
    url: Optional[str] = None,
    record_id: Optional[str] = None,
    fast: bool = False,
    no_fallback: bool = False,
    favor_precision: bool = False,
    favor_recall: bool = False,
    include_comments: bool = True,
    output_format: str = "txt",
    tei_validation: bool = False,
    target_language: Optional[str] = None,
    include_tables: bool = True,
    include_images: bool = False,
    include_formatting: Optional[bool] = None,
    include_links: bool = False,
    deduplicate: Any = False,
    date_extraction_params: Optional[dict] = None,
    with_metadata: bool = False,
    only_with_metadata: bool = False,
    max_tree_size: Optional[int] = None,
    url_blacklist: Optional[set] = None,
    author_blacklist: Optional[set] = None,
    settingsfile: Optional[str] = None,
    prune_xpath: Any = None,
    config: ConfigParser = DEFAULT_CONFIG,
    options: Optional[Extractor] = None,
    keep_body: bool = False,
) -> Optional[Document]:
    """extract() and extract_with_metadata(): the Document, its ``text`` the output string.
    ``keep_body``: the Document is handed out, so the xml outputs' last re-read must leave its
    trees as upstream's does (it re-reads a copy)."""
    fast = _check_deprecation(fast, no_fallback=no_fallback, as_dict=False, max_tree_size=max_tree_size, stacklevel=4)
    if not options or not isinstance(options, Extractor):
        options = Extractor(
            config=use_config(settingsfile) if settingsfile else config,
            output_format=output_format,
            fast=fast,
            precision=favor_precision,
            recall=favor_recall,
            comments=include_comments,
            formatting=include_formatting,
            links=include_links,
            images=include_images,
            tables=include_tables,
            dedup=deduplicate,
            lang=target_language,
            url=url,
            with_metadata=with_metadata,
            only_with_metadata=only_with_metadata,
            tei_validation=tei_validation,
            author_blacklist=author_blacklist,
            url_blacklist=url_blacklist,
            date_params=date_extraction_params,
        )
    # with metadata the text gets a header the C output does not write
    _OUTPUT.wanted = options.format in ("txt", "markdown") and not options.with_metadata
    _OUTPUT.made = None
    try:
        document = bare_extraction(filecontent, options=options, as_dict=False, prune_xpath=prune_xpath)
    finally:
        made, _OUTPUT.made, _OUTPUT.wanted = _OUTPUT.made, None, False
    if document is None:
        return None
    if options.format == "python":
        raise ValueError("'python' format only usable in bare_extraction() function")
    if made is not None and made[2] is not None and made[0] is document.body and made[1] is document.commentsbody:
        document.text = made[2]
        return document
    if options.format not in TXT_FORMATS or options.with_metadata:
        document.id = record_id
        if document.raw_text is not None:
            document.fingerprint = page_fingerprint(str(document.title) + " " + str(document.raw_text),
                                                    core_of(document.body))
    document.text = determine_returnstring(document, options, keep_body)
    return document


def extract(
    filecontent: Any,
    url: Optional[str] = None,
    record_id: Optional[str] = None,
    fast: bool = False,
    no_fallback: bool = False,
    favor_precision: bool = False,
    favor_recall: bool = False,
    include_comments: bool = True,
    output_format: str = "txt",
    tei_validation: bool = False,
    target_language: Optional[str] = None,
    include_tables: bool = True,
    include_images: bool = False,
    include_formatting: Optional[bool] = None,
    include_links: bool = False,
    deduplicate: Any = False,
    date_extraction_params: Optional[dict] = None,
    with_metadata: bool = False,
    only_with_metadata: bool = False,
    max_tree_size: Optional[int] = None,
    url_blacklist: Optional[set] = None,
    author_blacklist: Optional[set] = None,
    settingsfile: Optional[str] = None,
    prune_xpath: Any = None,
    config: ConfigParser = DEFAULT_CONFIG,
    options: Optional[Extractor] = None,
) -> Optional[str]:
    "trafilatura.extract: the extracted text, or None."
    document = _internal_extraction(**locals())
    return document.text if document is not None else None


def extract_with_metadata(
    filecontent: Any,
    url: Optional[str] = None,
    record_id: Optional[str] = None,
    fast: bool = False,
    favor_precision: bool = False,
    favor_recall: bool = False,
    include_comments: bool = True,
    output_format: str = "txt",
    tei_validation: bool = False,
    target_language: Optional[str] = None,
    include_tables: bool = True,
    include_images: bool = False,
    include_formatting: Optional[bool] = None,
    include_links: bool = False,
    deduplicate: Any = False,
    date_extraction_params: Optional[dict] = None,
    url_blacklist: Optional[set] = None,
    author_blacklist: Optional[set] = None,
    settingsfile: Optional[str] = None,
    prune_xpath: Any = None,
    config: ConfigParser = DEFAULT_CONFIG,
    options: Optional[Extractor] = None,
) -> Optional[Document]:
    """trafilatura.extract_with_metadata: the Document (metadata, trees, ``text`` the output
    string of the chosen format), or None."""
    return _internal_extraction(**locals(), with_metadata=True, keep_body=True)
