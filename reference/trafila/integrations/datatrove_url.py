"""datatrove's ``URLFilter`` with its block lists mapped from trafila's cache: ``trafila.integrations.datatrove_url.URLFilter``.

``from trafila.integrations.datatrove_url import URLFilter`` replaces
``from datatrove.pipeline.filters import URLFilter`` (datatrove 0.10.1): same arguments and
defaults, same ``name``, same decisions and reasons (``domain``, ``subdomain``, ``url``,
``hard_blacklisted``, ``soft_blacklisted``, ``blacklisted_subword``), same statistics and
exclusion-writer documents (datatrove's ``BaseFilter.run``). What differs is the load of the
lists: the first document of a task maps a table file built once per machine
(:mod:`trafila.fineweb.url_filter`) instead of reading 4.5 million lines into a set.

The step pickles (pickle, dill, cloudpickle) before and after its lists are loaded; the
tables are never pickled: a worker maps them again on its first document. Once loaded,
``block_listed_domains`` and ``block_listed_url`` answer ``in`` as datatrove's sets do (the
``extra_*`` strings and the table), without being sets; the word lists are datatrove's sets.
"""

from typing import Any, Dict, Iterable

from trafila.integrations import needs_datatrove

with needs_datatrove(__name__, "fineweb"):
    from datatrove.data import Document
    from datatrove.pipeline.filters.base_filter import BaseFilter
    from datatrove.pipeline.writers.disk_base import DiskWriter

from trafila.fineweb.url_filter import (
    ASSET_LISTS, BlockList, get_list, load_block_lists, parse_list, url_filter_decision,
)

__all__ = ["URLFilter"]


class URLFilter(BaseFilter):
    """Drops documents whose URL is listed or has banned words (datatrove's ``URLFilter``).

    Dropped when: the URL's registered domain or its FQDN is a listed domain, the URL itself is a
    listed URL, one of its words is a banned word, at least ``soft_word_threshold`` of its words are
    soft banned words, or a banned subword is a substring of the normalized URL.
    """

    name = "😈 Url-filter"
    _requires_dependencies = ["tldextract", "fasteners", ("ahocorasick", "pyahocorasick")]

    def __init__(
        self,
        soft_word_threshold: int = 2,
        extra_domains: Iterable = None,
        extra_urls: Iterable = None,
        banned_words: Iterable = None,
        banned_subwords: Iterable = None,
        soft_banned_words: Iterable = None,
        use_integrated_lists: bool = True,
        exclusion_writer: DiskWriter = None,
    ):
        from tldextract import TLDExtract

        super().__init__(exclusion_writer)
        self.soft_word_threshold = soft_word_threshold
        self.block_listed_domains = parse_list(extra_domains, do_normalize=False) if extra_domains else set()
        self.block_listed_url = parse_list(extra_urls, do_normalize=False) if extra_urls else set()
        self.banned_words = parse_list(banned_words) if banned_words else set()
        self.banned_subwords = parse_list(banned_subwords) if banned_subwords else set()
        self.soft_banned_words = parse_list(soft_banned_words) if soft_banned_words else set()
        self.use_integrated_lists = use_integrated_lists
        self._downloaded = False
        self.tldextractor = TLDExtract()
        self.banned_subwords_automaton = None

    # ------------------------------------------------------------------ loading

    def _make_automaton(self) -> Any:
        import ahocorasick

        automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
        for index, word in enumerate(self.banned_subwords):
            automaton.add_word(word, index)
        automaton.make_automaton()
        return automaton

    def download_data(self) -> None:
        """Loads the lists datatrove's filter would read (once per process: a mapped table file)."""
        if self._downloaded:
            return
        if not self.use_integrated_lists:
            if self.banned_subwords_automaton is None:
                self.banned_subwords_automaton = self._make_automaton()
            return
        from datatrove.utils._import_utils import ASSETS_PATH

        lists = load_block_lists()
        self._extras = (self.block_listed_domains, self.block_listed_url, self.banned_words,
                        self.banned_subwords, self.soft_banned_words)
        self.block_listed_domains = BlockList(self.block_listed_domains, lists.domains)
        self.block_listed_url = BlockList(self.block_listed_url, lists.urls)
        words, subwords, soft = ASSET_LISTS
        self.banned_words = get_list(ASSETS_PATH, words, self.banned_words)
        self.banned_subwords = get_list(ASSETS_PATH, subwords, self.banned_subwords)
        self.soft_banned_words = get_list(ASSETS_PATH, soft, self.soft_banned_words)
        self.banned_subwords_automaton = self._make_automaton()
        self._downloaded = True

    def __getstate__(self) -> Dict[str, Any]:
        # the mapped tables and the automaton stay in this process: a worker loads them again
        state = self.__dict__.copy()
        extras = state.pop("_extras", None)
        if extras is not None:
            (state["block_listed_domains"], state["block_listed_url"], state["banned_words"],
             state["banned_subwords"], state["soft_banned_words"]) = extras
            state["_downloaded"] = False
        state["banned_subwords_automaton"] = None
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)

    # ------------------------------------------------------------------ the decision

    def filter(self, document: Document) -> bool | tuple[bool, str]:
        """True to keep the document, else (False, reason): datatrove's decision."""
        self.download_data()
        url = document.metadata.get("url")

        assert url, "Document does not have url in its metadata"
        return url_filter_decision(
            url, self.tldextractor(url), self.block_listed_domains, self.block_listed_url, self.banned_words,
            self.soft_banned_words, self.soft_word_threshold, self.banned_subwords, self.banned_subwords_automaton)
