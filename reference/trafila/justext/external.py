"""What trafilatura's ``external.py`` does with jusText (``try_justext``).

2.3.1 (T2/external.py ``try_justext``, ``jt_stoplist_init``) and 1.11.0
(T1/external.py ``try_justext``, ``custom_justext``) differ in their
parameters, their language tables and their error handling, so both are here.
``basic_cleaning`` (the 2.3.1 caller's pre-cleaning) belongs to the baseline
port and is not repeated.
"""

from __future__ import annotations

import logging
from typing import Any, List, Optional

from ..dom import Element, check_xml_text
from .core import ParagraphMaker, classify_paragraphs, revise_paragraph_classification
from .paragraph import Paragraph
from .stoplists import all_stoplists, get_stoplist

LOGGER = logging.getLogger(__name__)

# trafilatura 2.3.1 settings.JUSTEXT_LANGUAGES: py3langid code -> jusText stoplist
# ('ja' and 'zh' have no stoplist; 'no' and 'nb' are Bokmal)
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

# trafilatura 1.11.0 settings.JUSTEXT_LANGUAGES (note 'cz', and 'no' -> Nynorsk)
JUSTEXT_LANGUAGES_1_11_0 = {
    "ar": "Arabic", "bg": "Bulgarian", "cz": "Czech", "da": "Danish",
    "de": "German", "en": "English", "el": "Greek", "es": "Spanish",
    "fa": "Persian", "fi": "Finnish", "fr": "French", "hr": "Croatian",
    "hu": "Hungarian", "ko": "Korean", "id": "Indonesian", "it": "Italian",
    "no": "Norwegian_Nynorsk", "nl": "Dutch", "pl": "Polish", "pt": "Portuguese",
    "ro": "Romanian", "ru": "Russian", "sk": "Slovak", "sl": "Slovenian",
    "sr": "Serbian", "sv": "Swedish", "tr": "Turkish", "uk": "Ukrainian",
    "ur": "Urdu", "vi": "Vietnamese",
}


def choose_stoplist(target_language: Optional[str], languages: dict = JUSTEXT_LANGUAGES):
    """The language's list when mapped, else the union of all lists."""
    if target_language in languages:
        return get_stoplist(languages[target_language])
    return all_stoplists()


def justext_paragraphs(tree: Any, stoplist: Any) -> List[Paragraph]:
    """trafilatura 2.3.1's jusText run: (50, 150, 0.1, 0.2, 0.25, no headings) then 150."""
    paragraphs = ParagraphMaker.make_paragraphs(tree)
    classify_paragraphs(paragraphs, stoplist, 50, 150, 0.1, 0.2, 0.25, True)
    revise_paragraph_classification(paragraphs, 150)
    return paragraphs


def _paragraphs_body(paragraphs: List[Paragraph]) -> Element:
    body = Element("body")
    for paragraph in paragraphs:
        if not paragraph.is_boilerplate:
            p = Element("p")
            # upstream assigns outside its try: lxml's ValueError for U+FFFE,
            # C0 controls or surrogates in a paragraph reaches bare_extraction
            p.text = check_xml_text(paragraph.text)
            body.append(p)
    return body


def try_justext(tree: Any, url: Optional[str], target_language: Optional[str]) -> Element:
    """trafilatura 2.3.1 ``try_justext``: a ``<body>`` of the good paragraphs' ``<p>``.

    Any exception is logged and gives an empty ``<body>``, as upstream.
    """
    stoplist = choose_stoplist(target_language)
    try:
        paragraphs = justext_paragraphs(tree, stoplist)
    except Exception as err:  # upstream catches everything here
        LOGGER.error("justext %s %s", err, url)
        return Element("body")
    return _paragraphs_body(paragraphs)


# trafilatura 1.11.0: custom_justext
def custom_justext_1_11_0(tree: Any, stoplist: Any) -> List[Paragraph]:
    """trafilatura 1.11.0's jusText run: (50, 200, 0.1, 0.2, 0.2, no headings) then 200."""
    paragraphs = ParagraphMaker.make_paragraphs(tree)
    classify_paragraphs(paragraphs, stoplist, 50, 200, 0.1, 0.2, 0.2, True)
    revise_paragraph_classification(paragraphs, 200)
    return paragraphs


def try_justext_1_11_0(tree: Any, url: Optional[str], target_language: Optional[str]) -> Optional[Element]:
    """trafilatura 1.11.0 ``try_justext``: ValueError gives None, other errors propagate."""
    stoplist = choose_stoplist(target_language, JUSTEXT_LANGUAGES_1_11_0)
    try:
        paragraphs = custom_justext_1_11_0(tree, stoplist)
    except ValueError as err:
        LOGGER.error("justext %s %s", err, url)
        return None
    return _paragraphs_body(paragraphs)
