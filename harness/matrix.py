"""The option matrix: which calls are compared, per mode.

Each option set names a function (``extract`` or ``bare_extraction``) and its
keyword arguments. ``deduplicate=True`` sets are run in page order through one
fresh cache per bundle and input form (the module cache, cleared first).
"""

from __future__ import annotations

import hashlib
import json
from typing import Dict, List, NamedTuple

MODES = ("2.3.1", "1.11.0")

#: bare_extraction fields compared one by one (body/commentsbody serialised as XML)
BARE_FIELDS = ("text", "comments", "raw_text", "body", "commentsbody")
#: what extract_with_metadata's result is compared on: the text fields and the metadata
METADATA_FIELDS = BARE_FIELDS + ("title", "author", "url", "hostname", "description", "sitename", "date",
                                 "categories", "tags", "fingerprint", "id", "license", "language", "image",
                                 "pagetype", "filedate")


def compared_fields(function: str, options: Dict[str, object]) -> tuple:
    """The fields a bare_extraction / extract_with_metadata result is compared on: the
    metadata fields too when the call extracts them."""
    if function == "extract_with_metadata" or options.get("with_metadata"):
        return METADATA_FIELDS
    return BARE_FIELDS


class OptionSet(NamedTuple):
    name: str
    function: str  # "extract" | "bare_extraction"
    options: Dict[str, object]

    @property
    def dedup(self) -> bool:
        return bool(self.options.get("deduplicate"))

    def key(self) -> str:
        """A digest of the definition: a cache made for another definition is stale."""
        blob = json.dumps([self.function, self.options], sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


_DATATROVE = {"favor_precision": True, "include_comments": False, "deduplicate": True}
_NO_CT = {"include_comments": False, "include_tables": False}
#: the metadata header and the TEI output (issue 42): the extraction under them is proven by the
#: sets above, so these run the cheaper fast (no_fallback) extraction. Markdown with metadata and
#: xmltei without links/formatting/images take the same code paths (compared with trafilatura in
#: tests/test_output_formats.py); json with metadata, the record most users ask for, has its own set
_LFI = {"include_links": True, "include_formatting": True, "include_images": True}

MATRIX: Dict[str, List[OptionSet]] = {
    "2.3.1": [
        OptionSet("default", "extract", {}),
        OptionSet("datatrove", "extract", dict(_DATATROVE)),
        OptionSet("datatrove-nodedup", "extract", {"favor_precision": True, "include_comments": False}),
        OptionSet("fast", "extract", {"fast": True}),
        OptionSet("fast-dedup", "extract", {"fast": True, "deduplicate": True}),
        OptionSet("fast-precision", "extract", {"fast": True, "favor_precision": True}),
        OptionSet("fast-recall", "extract", {"fast": True, "favor_recall": True}),
        OptionSet("fast-no-comments-tables", "extract", {"fast": True, **_NO_CT}),
        OptionSet("recall", "extract", {"favor_recall": True}),
        OptionSet("no-comments-tables", "extract", dict(_NO_CT)),
        OptionSet("bare", "bare_extraction", {}),
        OptionSet("bare-fast", "bare_extraction", {"fast": True}),
        OptionSet("links", "extract", {"include_links": True}),
        OptionSet("formatting", "extract", {"include_formatting": True}),
        OptionSet("markdown", "extract", {"output_format": "markdown"}),
        OptionSet("bare-links", "bare_extraction", {"include_links": True}),
        OptionSet("bare-formatting", "bare_extraction", {"include_formatting": True}),
        OptionSet("bare-markdown", "bare_extraction", {"output_format": "markdown"}),
        OptionSet("images", "extract", {"include_images": True}),
        OptionSet("bare-images", "bare_extraction", {"include_images": True}),
        OptionSet("json", "extract", {"output_format": "json"}),
        OptionSet("xml", "extract", {"output_format": "xml"}),
        OptionSet("csv", "extract", {"output_format": "csv"}),
        OptionSet("html", "extract", {"output_format": "html"}),
        OptionSet("xml-links-formatting", "extract", {"output_format": "xml", "include_links": True,
                                                      "include_formatting": True}),
        OptionSet("txt-metadata", "extract", {"with_metadata": True, "fast": True}),
        OptionSet("xmltei-metadata", "extract", {"output_format": "xmltei", "with_metadata": True,
                                                 "tei_validation": True, "fast": True, **_LFI}),
        OptionSet("bare-metadata", "bare_extraction", {"with_metadata": True, "fast": True}),
        OptionSet("json-metadata", "extract", {"output_format": "json", "with_metadata": True, "fast": True}),
        OptionSet("with-metadata-xml", "extract_with_metadata", {"output_format": "xml", "fast": True}),
    ],
    "1.11.0": [
        OptionSet("default", "extract", {}),
        OptionSet("datatrove", "extract", dict(_DATATROVE)),
        OptionSet("datatrove-nodedup", "extract", {"favor_precision": True, "include_comments": False}),
        OptionSet("no_fallback", "extract", {"no_fallback": True}),
        OptionSet("no_fallback-dedup", "extract", {"no_fallback": True, "deduplicate": True}),
        OptionSet("recall", "extract", {"favor_recall": True}),
        OptionSet("no-comments-tables", "extract", dict(_NO_CT)),
        OptionSet("bare", "bare_extraction", {}),
        OptionSet("links", "extract", {"include_links": True}),
        OptionSet("formatting", "extract", {"include_formatting": True}),
        OptionSet("markdown", "extract", {"output_format": "markdown"}),
        OptionSet("images", "extract", {"include_images": True}),
        OptionSet("json", "extract", {"output_format": "json"}),
        OptionSet("xml", "extract", {"output_format": "xml"}),
        OptionSet("csv", "extract", {"output_format": "csv"}),
        OptionSet("html", "extract", {"output_format": "html"}),
        OptionSet("xml-links-formatting-images", "extract", {"output_format": "xml", "include_links": True,
                                                             "include_formatting": True, "include_images": True}),
        OptionSet("txt-metadata", "extract", {"with_metadata": True, "no_fallback": True}),
        OptionSet("xmltei-metadata", "extract", {"output_format": "xmltei", "with_metadata": True,
                                                 "tei_validation": True, "no_fallback": True, **_LFI}),
        OptionSet("bare-metadata", "bare_extraction", {"with_metadata": True, "no_fallback": True}),
        OptionSet("json-metadata", "extract", {"output_format": "json", "with_metadata": True,
                                               "no_fallback": True}),
    ],
}

#: the fast-path subset (what the 2.3.1 fast-path issue measures)
FAST_SETS = ("fast", "fast-dedup", "fast-precision", "fast-recall", "fast-no-comments-tables", "bare-fast")


def option_sets(mode: str, names: List[str] | None = None) -> List[OptionSet]:
    if mode not in MATRIX:
        raise ValueError(f"unknown mode {mode!r}; modes: {', '.join(MODES)}")
    sets = MATRIX[mode]
    if names:
        known = {s.name for s in sets}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError(f"unknown option set(s) for {mode}: {', '.join(unknown)}")
        sets = [s for s in sets if s.name in names]
    return sets
