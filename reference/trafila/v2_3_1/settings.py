"""Settings of trafilatura 2.3.1 (settings.py + settings.cfg): config reading,
the Extractor options object, the Document result and the tag tables."""

from __future__ import annotations

import logging
from configparser import ConfigParser
from pathlib import Path
from typing import Any, Dict, Optional, Set

from .._config import read_defaults
from ._tree import Element

LOGGER = logging.getLogger(__name__)

SUPPORTED_FMT_CLI = ["csv", "json", "html", "markdown", "txt", "xml", "xmltei"]
SUPPORTED_FORMATS = set(SUPPORTED_FMT_CLI) | {"python"}

# trafilatura 2.3.1's settings.cfg, as values (the file itself is not shipped)
_DEFAULT_SETTINGS = {
    "DOWNLOAD_TIMEOUT": "30",
    "MAX_FILE_SIZE": "20000000",
    "MIN_FILE_SIZE": "10",
    "SLEEP_TIME": "5.0",
    "USER_AGENTS": "",
    "COOKIE": "",
    "MAX_REDIRECTS": "2",
    "SSRF_PROTECTION": "on",
    "INSECURE_SSL_FALLBACK": "on",
    "MIN_EXTRACTED_SIZE": "250",
    "MIN_OUTPUT_SIZE": "1",
    "MIN_OUTPUT_COMM_SIZE": "1",
    "MAX_TREE_SIZE": "",
    "EXTRACTION_TIMEOUT": "30",
    "MIN_DUPLCHECK_SIZE": "100",
    "MAX_REPETITIONS": "2",
    "EXTENSIVE_DATE_SEARCH": "on",
    "EXTERNAL_URLS": "off",
}


def _default_config() -> ConfigParser:
    config = ConfigParser()
    config.read_dict({"DEFAULT": _DEFAULT_SETTINGS})
    return config


def use_config(filename: Optional[str] = None, config: Optional[ConfigParser] = None) -> ConfigParser:
    """A given config object wins; otherwise the defaults, with ``filename``
    read over them (a partial file only overrides the keys it sets)."""
    if config is not None:
        return config
    config = _default_config()
    if filename is not None:
        if not Path(filename).is_file():
            raise FileNotFoundError("The given config file does not exist")
        config.read([filename])
    return config


DEFAULT_CONFIG = use_config()


# what __init__ reads from the config, in upstream's order (the first failing read raises)
_CONFIG_READS = (
    ("int", "MIN_EXTRACTED_SIZE"), ("int", "MIN_OUTPUT_SIZE"), ("int", "MIN_OUTPUT_COMM_SIZE"),
    ("int", "MIN_DUPLCHECK_SIZE"), ("int", "MAX_REPETITIONS"), ("int", "MAX_FILE_SIZE"),
    ("int", "MIN_FILE_SIZE"), ("optional_int", "MAX_TREE_SIZE"),
)


class Extractor:
    "All extraction options (trafilatura.settings.Extractor)."

    __slots__ = [
        "config", "format", "fast", "focus", "comments", "formatting", "links",
        "images", "tables", "dedup", "lang", "min_extracted_size", "min_output_size",
        "min_output_comm_size", "min_duplcheck_size", "max_repetitions", "max_file_size",
        "min_file_size", "max_tree_size", "source", "url", "with_metadata",
        "only_with_metadata", "tei_validation", "date_params", "author_blacklist",
        "url_blacklist",
    ]

    def __init__(
        self,
        *,
        config: ConfigParser = DEFAULT_CONFIG,
        output_format: str = "txt",
        fast: bool = False,
        precision: bool = False,
        recall: bool = False,
        comments: bool = True,
        formatting: Optional[bool] = None,
        links: bool = False,
        images: bool = False,
        tables: bool = True,
        dedup: Any = False,
        lang: Optional[str] = None,
        url: Optional[str] = None,
        source: Optional[str] = None,
        with_metadata: bool = False,
        only_with_metadata: bool = False,
        tei_validation: bool = False,
        author_blacklist: Optional[Set[str]] = None,
        url_blacklist: Optional[Set[str]] = None,
        date_params: Optional[Dict[str, Any]] = None,
    ) -> None:
        if output_format not in SUPPORTED_FORMATS:
            raise AttributeError(f"Cannot set format, must be one of: {', '.join(sorted(SUPPORTED_FORMATS))}")
        self.format = output_format
        source = url or source
        self.source = source and source.encode("utf-8", "replace").decode("utf-8")
        # an explicit config=None falls back to the defaults
        self.config = config or DEFAULT_CONFIG
        (
            self.min_extracted_size, self.min_output_size, self.min_output_comm_size,
            self.min_duplcheck_size, self.max_repetitions, self.max_file_size,
            self.min_file_size, self.max_tree_size,
        ) = read_defaults(self.config, _CONFIG_READS)
        self.fast = fast
        # recall wins over precision
        self.focus = "recall" if recall else "precision" if precision else "balanced"
        self.comments = comments
        self.formatting = (self.format == "markdown") if formatting is None else formatting
        self.links = links
        self.images = images
        self.tables = tables
        self.dedup = dedup
        self.lang = lang
        self.url = url
        self.only_with_metadata = only_with_metadata
        self.tei_validation = tei_validation
        self.author_blacklist = author_blacklist or set()
        self.url_blacklist = url_blacklist or set()
        self.with_metadata = (
            with_metadata or only_with_metadata or bool(url_blacklist) or bool(author_blacklist) or output_format == "xmltei"
        )
        # the date parameters only matter for metadata extraction (not ported)
        self.date_params = date_params or {}

    def __copy__(self) -> "Extractor":
        new = Extractor.__new__(Extractor)
        for slot in self.__slots__:
            setattr(new, slot, getattr(self, slot))
        return new


class Document:
    "Extracted data and metadata (trafilatura.settings.Document)."

    __slots__ = [
        "title", "author", "url", "hostname", "description", "sitename", "date",
        "categories", "tags", "fingerprint", "id", "license", "body", "comments",
        "commentsbody", "raw_text", "text", "language", "image", "pagetype", "filedate",
    ]

    def __init__(self) -> None:
        for slot in self.__slots__:
            setattr(self, slot, None)
        self.body = Element("body")
        self.commentsbody = Element("body")

    def as_dict(self) -> Dict[str, Any]:
        return {attr: getattr(self, attr, None) for attr in self.__slots__}


LRU_SIZE = 4096

CUT_EMPTY_ELEMS = {
    "article", "b", "blockquote", "dd", "div", "dt", "em", "h1", "h2", "h3", "h4",
    "h5", "h6", "i", "li", "main", "p", "pre", "q", "section", "span", "strong",
}

# order matters (deletion order), as upstream keeps lists
MANUALLY_CLEANED = [
    "aside", "embed", "fencedframe", "footer", "form", "head", "iframe", "menu", "object",
    "script", "applet", "audio", "canvas", "figure", "map", "picture", "svg", "video",
    "area", "blink", "button", "datalist", "dialog", "frame", "frameset", "fieldset",
    "link", "input", "label", "legend", "marquee", "math", "menuitem", "nav", "noindex",
    "noscript", "optgroup", "option", "output", "param", "progress", "rp", "rt", "rtc",
    "select", "source", "style", "track", "textarea", "time", "use",
]

MANUALLY_STRIPPED = [
    "abbr", "acronym", "address", "bdi", "bdo", "big", "cite", "data", "dfn", "font",
    "hgroup", "img", "ins", "mark", "meta", "nobr", "ruby", "small", "tbody", "template",
    "tfoot", "thead", "wbr",
]

TAG_CATALOG = frozenset(["code", "del", "head", "hi", "lb", "list", "p", "quote"])

MIN_DUPLICATE_LENGTH = 50
DEDUPE_SCAN_CAP = 200_000

INLINE_CONSUMING = {"hi", "ref", "del"}
INLINE_FORMATTABLE = INLINE_CONSUMING | {"code"}
INLINE_CARRIED = INLINE_FORMATTABLE | {"graphic"}

# py3langid code -> jusText stoplist ('ja' and 'zh' have no stoplist; 'no' and 'nb' are Bokmal)
JUSTEXT_LANGUAGES = {
    "af": "Afrikaans", "an": "Aragonese", "ar": "Arabic", "az": "Azerbaijani",
    "be": "Belarusian", "bg": "Bulgarian", "bn": "Bengali", "br": "Breton",
    "bs": "Bosnian", "ca": "Catalan", "cs": "Czech", "cy": "Welsh",
    "da": "Danish", "de": "German", "el": "Greek", "en": "English",
    "eo": "Esperanto", "es": "Spanish", "et": "Estonian", "eu": "Basque",
    "fa": "Persian", "fi": "Finnish", "fr": "French", "ga": "Irish",
    "gl": "Galician", "gu": "Gujarati", "he": "Hebrew", "hi": "Hindi",
    "hr": "Croatian", "ht": "Haitian", "hu": "Hungarian", "hy": "Armenian",
    "id": "Indonesian", "is": "Icelandic", "it": "Italian", "jv": "Javanese",
    "ka": "Georgian", "kk": "Kazakh", "kn": "Kannada", "ko": "Korean",
    "ku": "Kurdish", "ky": "Kyrgyz", "la": "Latin", "lb": "Luxembourgish",
    "lt": "Lithuanian", "lv": "Latvian", "mk": "Macedonian", "ml": "Malayalam",
    "mr": "Marathi", "ms": "Malay", "mt": "Maltese", "nb": "Norwegian_Bokmal",
    "ne": "Nepali", "nl": "Dutch", "nn": "Norwegian_Nynorsk", "no": "Norwegian_Bokmal",
    "oc": "Occitan", "pl": "Polish", "pt": "Portuguese", "qu": "Quechua",
    "ro": "Romanian", "ru": "Russian", "sk": "Slovak", "sl": "Slovenian",
    "sq": "Albanian", "sr": "Serbian", "sv": "Swedish", "sw": "Swahili",
    "ta": "Tamil", "te": "Telugu", "tl": "Tagalog", "tr": "Turkish",
    "uk": "Ukrainian", "ur": "Urdu", "vi": "Vietnamese", "vo": "Volapuk",
    "wa": "Walloon",
}
