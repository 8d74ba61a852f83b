"""Settings of trafilatura 1.11.0 (settings.py + settings.cfg): the config
object, the Extractor options, the Document result and the tag tables."""

from __future__ import annotations

from configparser import ConfigParser
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

from .._config import read_defaults

# trafilatura 1.11.0's settings.cfg, as values (the file itself is not shipped)
_DEFAULT_SETTINGS = {
    "DOWNLOAD_TIMEOUT": "30",
    "MAX_FILE_SIZE": "20000000",
    "MIN_FILE_SIZE": "10",
    "SLEEP_TIME": "5",
    "USER_AGENTS": "",
    "COOKIE": "",
    "MAX_REDIRECTS": "2",
    "MIN_EXTRACTED_SIZE": "250",
    "MIN_EXTRACTED_COMM_SIZE": "1",
    "MIN_OUTPUT_SIZE": "1",
    "MIN_OUTPUT_COMM_SIZE": "1",
    "EXTRACTION_TIMEOUT": "30",
    "MIN_DUPLCHECK_SIZE": "100",
    "MAX_REPETITIONS": "2",
    "EXTENSIVE_DATE_SEARCH": "on",
    "EXTERNAL_URLS": "off",
}


def use_config(filename: Optional[str] = None, config: Optional[ConfigParser] = None) -> ConfigParser:
    """A config object always wins. Without one, the named file is read ALONE
    (1.11.0 does not layer it over the defaults: a partial file later raises
    NoOptionError); with neither, the shipped defaults."""
    if config is not None:
        return config
    config = ConfigParser()
    if filename is None:
        config.read_dict({"DEFAULT": _DEFAULT_SETTINGS})
        return config
    if not Path(filename).is_file():
        raise FileNotFoundError("The given config file does not exist")
    config.read(filename)
    return config


DEFAULT_CONFIG = use_config()

# option attribute -> settings.cfg key
CONFIG_MAPPING = {
    "min_extracted_size": "MIN_EXTRACTED_SIZE",
    "min_output_size": "MIN_OUTPUT_SIZE",
    "min_output_comm_size": "MIN_OUTPUT_COMM_SIZE",
    "min_extracted_comm_size": "MIN_EXTRACTED_COMM_SIZE",
    "min_duplcheck_size": "MIN_DUPLCHECK_SIZE",
    "max_repetitions": "MAX_REPETITIONS",
    "max_file_size": "MAX_FILE_SIZE",
    "min_file_size": "MIN_FILE_SIZE",
}

_CONFIG_READS = tuple(("int", option) for option in CONFIG_MAPPING.values())
_DATE_READS = (("bool", "EXTENSIVE_DATE_SEARCH"),)


#: (from, until, date): the local date of datetime.now() for the times from <= t < until
_TODAY: Tuple[float, float, str] = (0.0, 0.0, "")


def _today() -> str:
    """``datetime.now().strftime("%Y-%m-%d")``, formatted once per local day (every call
    makes an Extractor, and the time zone lookup of each format costs more than the rest of
    the options); after a time zone change (time.tzset()) the old zone's date holds until its
    day ends."""
    global _TODAY
    now = time.time()
    start, until, text = _TODAY
    if start <= now < until:
        return text
    today = datetime.fromtimestamp(now)
    midnight = today.replace(hour=0, minute=0, second=0, microsecond=0)
    text = today.strftime("%Y-%m-%d")
    _TODAY = (midnight.timestamp(), (midnight + timedelta(days=1)).timestamp(), text)  # one assignment
    return text


def set_date_params(extensive: bool = True) -> Dict[str, Any]:
    "htmldate's parameters (only carried along on the text path)."
    return {"original_date": True, "extensive_search": extensive, "max_date": _today()}


class Extractor:
    "All extraction options (trafilatura 1.11.0 settings.Extractor)."

    __slots__ = [
        "config", "format", "fast", "focus", "comments", "formatting", "links", "images",
        "tables", "dedup", "lang", "min_extracted_size", "min_output_size", "min_output_comm_size",
        "min_extracted_comm_size", "min_duplcheck_size", "max_repetitions", "max_file_size",
        "min_file_size", "max_tree_size", "source", "url", "with_metadata", "only_with_metadata",
        "tei_validation", "date_params", "author_blacklist", "url_blacklist",
    ]

    def __init__(self, *, config: ConfigParser = DEFAULT_CONFIG, output_format: str = "txt",
                 fast: bool = False, precision: bool = False, recall: bool = False,
                 comments: bool = True, formatting: bool = False, links: bool = False, images: bool = False,
                 tables: bool = True, dedup: bool = False, lang: Optional[str] = None, max_tree_size: Any = None,
                 url: Optional[str] = None, source: Optional[str] = None, with_metadata: bool = False,
                 only_with_metadata: bool = False, tei_validation: bool = False,
                 author_blacklist: Any = None, url_blacklist: Any = None, date_params: Any = None) -> None:
        for key, value in zip(CONFIG_MAPPING, read_defaults(config, _CONFIG_READS)):
            setattr(self, key, value)
        self.config = config
        self.format = output_format
        self.fast = fast
        # recall wins over precision
        self.focus = "recall" if recall else "precision" if precision else "balanced"
        self.comments = comments
        self.formatting = formatting or output_format == "markdown"
        self.links = links
        self.images = images
        self.tables = tables
        self.dedup = dedup
        self.lang = lang
        self.max_tree_size = max_tree_size
        self.url = url
        self.source = url or source
        self.only_with_metadata = only_with_metadata
        self.tei_validation = tei_validation
        self.author_blacklist = author_blacklist or set()
        self.url_blacklist = url_blacklist or set()
        # not a bool: the last truthy operand (e.g. the url_blacklist set itself)
        self.with_metadata = with_metadata or only_with_metadata or url_blacklist or output_format == "xmltei"
        self.date_params = date_params or set_date_params(read_defaults(config, _DATE_READS)[0])


class Document:
    "The extraction result (trafilatura 1.11.0 settings.Document): every field None at first."

    __slots__ = [
        "title", "author", "url", "hostname", "description", "sitename", "date", "categories",
        "tags", "fingerprint", "id", "license", "body", "comments", "commentsbody", "raw_text",
        "text", "language", "image", "pagetype", "filedate",
    ]

    def __init__(self) -> None:
        for slot in self.__slots__:
            object.__setattr__(self, slot, None)

    def __setattr__(self, name: str, value: Any) -> None:
        # unknown attribute names are silently ignored, as upstream
        if name in self.__slots__:
            object.__setattr__(self, name, value)

    def as_dict(self) -> Dict[str, Any]:
        return {attr: getattr(self, attr, None) for attr in self.__slots__}


LRU_SIZE = 4096

CUT_EMPTY_ELEMS = {
    "article", "b", "blockquote", "dd", "div", "dt", "em", "h1", "h2", "h3", "h4", "h5", "h6",
    "i", "li", "main", "p", "pre", "q", "section", "span", "strong",
}

# lists: the order is the cleaning order
MANUALLY_CLEANED = [
    "aside", "embed", "footer", "form", "head", "iframe", "menu", "object", "script",
    "applet", "audio", "canvas", "figure", "map", "picture", "svg", "video",
    "area", "blink", "button", "datalist", "dialog",
    "frame", "frameset", "fieldset", "link", "input", "ins", "label", "legend",
    "marquee", "math", "menuitem", "nav", "noscript", "optgroup", "option",
    "output", "param", "progress", "rp", "rt", "rtc", "select", "source",
    "style", "track", "textarea", "time", "use",
]

MANUALLY_STRIPPED = [
    "abbr", "acronym", "address", "bdi", "bdo", "big", "cite", "data", "dfn",
    "font", "hgroup", "img", "ins", "mark", "meta", "ruby", "small", "tbody",
    "template", "tfoot", "thead",
]

TAG_CATALOG = frozenset(["blockquote", "code", "del", "head", "hi", "lb", "list", "p", "pre", "quote"])

# py3langid code -> jusText stoplist (note 'cz', and 'no' -> Nynorsk)
JUSTEXT_LANGUAGES = {
    "ar": "Arabic", "bg": "Bulgarian", "cz": "Czech", "da": "Danish",
    "de": "German", "en": "English", "el": "Greek", "es": "Spanish",
    "fa": "Persian", "fi": "Finnish", "fr": "French", "hr": "Croatian",
    "hu": "Hungarian", "ko": "Korean", "id": "Indonesian", "it": "Italian",
    "no": "Norwegian_Nynorsk", "nl": "Dutch", "pl": "Polish", "pt": "Portuguese",
    "ro": "Romanian", "ru": "Russian", "sk": "Slovak", "sl": "Slovenian",
    "sr": "Serbian", "sv": "Swedish", "tr": "Turkish", "uk": "Ukrainian",
    "ur": "Urdu", "vi": "Vietnamese",
}
