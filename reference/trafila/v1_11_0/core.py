"""Entry points of trafilatura 1.11.0 (core.py): ``bare_extraction`` and
``extract`` with 1.11.0's signatures and semantics.

Natively: output ``txt`` and ``markdown`` (extract; in 1.11.0 markdown is txt
with formatting), ``json``, ``csv``, ``xml``, ``html`` / ``python`` (bare_extraction), include_formatting,
include_images, include_links (targets resolved as courlan 1.4.0 does),
target_language (as without py3langid: the HTML meta
check and the jusText stoplist), no_fallback,
favor_precision, favor_recall, include_comments, include_tables, deduplicate
(the global cache :data:`trafila.v1_11_0.deduplication.LRU_TEST`),
max_tree_size, config/settingsfile. Anything else raises
``NotNative(reason)``.

1.11.0 behaviours kept: unknown keywords to ``extract`` are ignored (only the
old ``*_output`` names raise NameError); ``settingsfile`` is read only when
``config=None``, and then alone; ``bare_extraction`` has no ``fast`` and returns
a dict unless ``as_dict=False``; an element given as input is mutated.
"""

from __future__ import annotations

import logging
import threading
from copy import copy, deepcopy
from typing import Any, Optional

from trafila._backend import core_of, strip_tags

from .baseline import baseline
from . import deduplication as _dedup
from .deduplication import LRU_TEST, duplicate_test  # noqa: F401 - LRU_TEST re-exported
from .external import compare_extraction
from .htmlprocessing import convert_tags, prune_unwanted_nodes, tree_cleaning
from .main_extractor import extract_comments, extract_content
from .metadata import extract_metadata
from .settings import DEFAULT_CONFIG, Document, Extractor, use_config
from .utils import check_html_lang, load_html, normalize_unicode

LANGID_FLAG = False
from .xml import build_html_output, build_json_output, control_xml_output, xmltocsv, xmltotxt
from ..simhash import content_fingerprint_1_11_0 as content_fingerprint
from ..userxpath import compile_prune_xpath
from .xpaths import REMOVE_COMMENTS_XPATH
from .._engine import NotNative

LOGGER = logging.getLogger(__name__)

__all__ = ["extract", "bare_extraction", "DEFAULT_CONFIG", "LRU_TEST"]


def _check_supported(options: Extractor, prune_xpath: Any) -> Optional[list]:
    """The options this port does not run natively (NotNative); the prune_xpath selectors
    (trafila.userxpath's subset) or None."""
    if options.format not in NATIVE_FORMATS:
        raise NotNative(f"output format {options.format}")
    return None if prune_xpath is None else compile_prune_xpath(prune_xpath)


#: the output formats run natively, with metadata or without
NATIVE_FORMATS = ("txt", "markdown", "python", "json", "csv", "xml", "xmltei", "html")


def determine_returnstring(document: Document, options: Extractor) -> str:
    "The output string of the chosen format (txt/markdown: the body's text, then the comments' text); NFC."
    if "xml" in options.format:
        # last cleaning; upstream's iter() hands out the next element before this one goes
        for element in document.body.iter("*"):
            if element.tag != "graphic" and len(element) == 0 and not element.text and not element.tail:
                parent = element.getparent()
                if parent is not None and parent.tag != "code":
                    parent.remove(element)
        returnstring = control_xml_output(document, options)
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


def metadata_header(document: Document) -> str:
    """The block extract() puts before the txt/markdown text with metadata: one
    ``name: str(value)`` line per truthy field between ``---`` lines (1.11.0 quotes nothing)."""
    lines = [f"{name}: {str(getattr(document, name))}\n" for name in HEADER_FIELDS if getattr(document, name)]
    return "---\n" + "".join(lines) + "---\n"


#: the sequence inside bare_extraction runs in the compiled core, without the GIL, for the option
#: sets it has a C sequence for (_native_sequence); False: always the Python below (tests compare them)
NATIVE_SEQUENCE = True


def _native_sequence(tree: Any, options: Extractor, filecontent: Any, url: Optional[str] = None) -> Any:
    """The core's C sequence (cython_core/nogil_sequence_1_11_0.pxi) on a core tree load_html
    made: (postbody, temp_text, len_text, commentsbody, temp_comments, len_comments), or
    NotImplemented (no core tree, an element given by the caller, which 1.11.0 cleans in place,
    or the C handed the page back untouched: sequence_1_11_0 decides). ``url``: what convert_tags
    resolves links against."""
    core = core_of(tree) if NATIVE_SEQUENCE and tree is not filecontent else None
    if core is None or not hasattr(core, "sequence_1_11_0"):
        return NotImplemented
    want = getattr(_OUTPUT, "wanted", False) and not options.max_tree_size
    # duplicate_test counts in the module cache (a core.CLRUCache once the core's Implementation
    # is made; another cache keeps the Python stages)
    native = core.sequence_1_11_0(tree, options, want, _dedup.LRU_TEST if options.dedup else None, url)
    if native is NotImplemented:
        return native
    postbody, temp_text, commentsbody, temp_comments = native[:4]
    if want:
        # extract()'s txt output, made in the same GIL-free run: taken by extract() alone, for
        # these very bodies (bare_extraction changes neither without max_tree_size)
        _OUTPUT.made = (postbody, commentsbody, native[4])
    return postbody, temp_text, len(temp_text), commentsbody, temp_comments, len(temp_comments)


#: per thread: extract() asks the C sequence for its txt output (``wanted``) and takes it
#: (``made``: postbody, commentsbody, text or None) right after bare_extraction
_OUTPUT = threading.local()


def bare_extraction(filecontent: Any, url: Optional[str] = None, no_fallback: bool = False,
                    favor_precision: bool = False, favor_recall: bool = False,
                    include_comments: bool = True, output_format: str = "python", target_language: Optional[str] = None,
                    include_tables: bool = True, include_images: bool = False, include_formatting: bool = False,
                    include_links: bool = False, deduplicate: bool = False,
                    date_extraction_params: Any = None,
                    with_metadata: bool = False, only_with_metadata: bool = False,
                    max_tree_size: Any = None, url_blacklist: Any = None, author_blacklist: Any = None,
                    as_dict: bool = True, prune_xpath: Any = None,
                    config: Any = DEFAULT_CONFIG, options: Extractor = None) -> Any:
    """trafilatura 1.11.0 ``bare_extraction``: a dict (or a Document with
    ``as_dict=False``), None when the document is discarded."""
    try:
        tree = load_html(filecontent)
        if tree is None:
            LOGGER.error("empty HTML tree: %s", url)
            raise ValueError
        if not options or not isinstance(options, Extractor):
            options = Extractor(
                config=config, output_format=output_format,
                fast=no_fallback, precision=favor_precision, recall=favor_recall,
                comments=include_comments, formatting=include_formatting, links=include_links,
                images=include_images, tables=include_tables,
                dedup=deduplicate, lang=target_language, max_tree_size=max_tree_size,
                url=url, with_metadata=with_metadata, only_with_metadata=only_with_metadata,
                author_blacklist=author_blacklist, url_blacklist=url_blacklist,
                date_params=date_extraction_params,
            )
        prune_selectors = _check_supported(options, prune_xpath)
        # LANGID_FLAG is False (py3langid absent in the reference environment):
        # the meta-language check always runs, language_filter never rejects
        if options.lang and (options.fast or not LANGID_FLAG):
            if check_html_lang(tree, options.lang) is False:
                LOGGER.error("wrong HTML meta language: %s", options.source)
                raise ValueError
        if options.with_metadata:
            document = extract_metadata(tree, options.url, options.date_params, options.fast, options.author_blacklist)
            if document.url in options.url_blacklist:
                raise ValueError
            if options.only_with_metadata and not (document.date and document.title and document.url):
                raise ValueError
        else:
            document = Document()
        if prune_selectors is not None:
            # the user's XPaths, on the whole page, no backup
            tree = prune_unwanted_nodes(tree, prune_selectors)
        native = _native_sequence(tree, options, filecontent, options.url or document.url)
        if native is not NotImplemented:
            postbody, temp_text, len_text, commentsbody, temp_comments, len_comments = native
        else:
            postbody, temp_text, len_text, commentsbody, temp_comments, len_comments = _sequence(
                tree, options, options.url or document.url)
        if options.max_tree_size:
            # flattening formatting is the cheap way under the limit; still too big: discarded
            if len(postbody) > options.max_tree_size:
                strip_tags(postbody, "hi")
            if len(postbody) > options.max_tree_size:
                raise ValueError
        if len_text < options.min_output_size and len_comments < options.min_output_comm_size:
            raise ValueError
        if options.dedup and duplicate_test(postbody, options) is True:
            raise ValueError
    except (TypeError, ValueError):
        # ValueError is upstream's "discard this document" signal (size, duplicate, language)
        # with no options yet (bad input to a direct call) this raises AttributeError, as upstream
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


def _sequence(tree: Any, options: Extractor, url: Optional[str]) -> Any:
    "The sequence inside bare_extraction: cleaning, conversion, comments, extraction, fallbacks, baseline."
    # the raw tree is kept for the fallbacks and the baseline, which work on uncleaned HTML
    tree_backup = copy(tree)
    cleaned_tree = tree_cleaning(tree, options)
    # read only by compare_extraction: not made in fast mode, where it would go unread
    cleaned_tree_backup = copy(cleaned_tree) if not options.fast else None
    # the extractors only know the converted (TEI-like) tags
    cleaned_tree = convert_tags(cleaned_tree, options, url)
    # comments first: extract_comments removes what it takes, so it stays out of the body
    if options.comments:
        commentsbody, temp_comments, len_comments, cleaned_tree = extract_comments(cleaned_tree, options)
    else:
        commentsbody, temp_comments, len_comments = None, "", 0
    if options.focus == "precision":
        cleaned_tree = prune_unwanted_nodes(cleaned_tree, REMOVE_COMMENTS_XPATH)
    postbody, temp_text, len_text = extract_content(cleaned_tree, options)
    if not options.fast:
        postbody, temp_text, len_text = compare_extraction(
            cleaned_tree_backup, deepcopy(tree_backup), postbody, temp_text, len_text, options
        )
    # 1.11.0: the baseline replaces any short result, even with a shorter text
    if len_text < options.min_extracted_size:
        # the backup's last use: upstream's deepcopy of it would be thrown away after
        postbody, temp_text, len_text = baseline(tree_backup)
    return postbody, temp_text, len_text, commentsbody, temp_comments, len_comments


def extract(filecontent: Any, url: Optional[str] = None, record_id: Any = None, no_fallback: bool = False,
            favor_precision: bool = False, favor_recall: bool = False,
            include_comments: bool = True, output_format: str = "txt",
            tei_validation: bool = False, target_language: Optional[str] = None,
            include_tables: bool = True, include_images: bool = False, include_formatting: bool = False,
            include_links: bool = False, deduplicate: bool = False,
            date_extraction_params: Any = None,
            with_metadata: bool = False, only_with_metadata: bool = False,
            max_tree_size: Any = None, url_blacklist: Any = None, author_blacklist: Any = None,
            settingsfile: Optional[str] = None, prune_xpath: Any = None,
            config: Any = DEFAULT_CONFIG, options: Extractor = None,
            **kwargs: Any) -> Optional[str]:
    """trafilatura 1.11.0 ``extract``: the text, or None."""
    if kwargs and any(name in kwargs for name in ("csv_output", "json_output", "tei_output", "xml_output")):
        raise NameError('Deprecated argument: use output_format instead, e.g. output_format="xml"')
    if not options or not isinstance(options, Extractor):
        options = Extractor(
            config=use_config(settingsfile, config), output_format=output_format,
            fast=no_fallback, precision=favor_precision, recall=favor_recall,
            comments=include_comments, formatting=include_formatting, links=include_links,
            images=include_images, tables=include_tables,
            dedup=deduplicate, lang=target_language, max_tree_size=max_tree_size,
            url=url, with_metadata=with_metadata, only_with_metadata=only_with_metadata,
            tei_validation=tei_validation,
            author_blacklist=author_blacklist, url_blacklist=url_blacklist,
            date_params=date_extraction_params,
        )
    _check_supported(options, prune_xpath)
    # with metadata the text gets a header the C output does not write
    _OUTPUT.wanted = options.format in ("txt", "markdown") and not options.with_metadata
    _OUTPUT.made = None
    try:
        document = bare_extraction(filecontent, options=options, as_dict=False, prune_xpath=prune_xpath)
    except NotNative:
        # a RuntimeError subclass: the delegation signal must not become None
        raise
    except RuntimeError:
        document = None
    finally:
        made, _OUTPUT.made, _OUTPUT.wanted = _OUTPUT.made, None, False
    if document is None:
        return None
    if made is not None and made[2] is not None and made[0] is document.body and made[1] is document.commentsbody:
        return made[2]
    if options.format not in ("markdown", "txt"):
        document.id = record_id
        if document.raw_text is not None:
            document.fingerprint = content_fingerprint(str(document.title) + " " + str(document.raw_text),
                                                      core_of(document.body))
    return determine_returnstring(document, options)
