"""A share of the bench's pages in a process of its own: the machine's ceiling for a batch.

``python -m harness.bench_share SPEC`` (SPEC: JSON with engine, mode, option set,
bundles, every, form, and ``fd``: the read end of a pipe it inherits) loads the bench's
sample (:func:`harness.corpora.sample_pages`), extracts every page once to warm up (so that
no share's tables are built in the timing), says ``ready``, and for each line it reads takes
page indexes from the pipe (4 bytes each, read one at a time, so that the shares of a run
balance themselves as extract_batch's workers do) and extracts those pages, until it reads the end mark; it
then answers ``done N`` (N: the results that are not None).

:func:`harness.bench.run_batches` starts ``threads`` of these and times them together:
N processes that share the pages out and send nothing else, nor any results back, is
what N cores of this machine give on these pages at best, whatever extract_batch does.
"""

from __future__ import annotations

import json
import os
import struct
import sys

END = 0xFFFFFFFF  # the end mark: one per share, after the page indexes of a run


def main(spec_text: str) -> None:
    import trafila

    from .corpora import sample_pages
    from .matrix import option_sets

    spec = json.loads(spec_text)
    pages = sample_pages(spec["bundles"], spec["every"], spec["form"])
    opt = next(o for o in option_sets(spec["mode"], [spec["set"]]) if o.name == spec["set"])
    options = dict(opt.options, compat=spec["mode"])
    extract = trafila.engine(spec["engine"]).extract
    [extract(page, **options) for page in pages]
    print("ready", flush=True)
    while sys.stdin.readline():
        found = 0
        while True:
            (index,) = struct.unpack("<I", os.read(spec["fd"], 4))  # a pipe read of <= PIPE_BUF bytes is whole
            if index == END:
                break
            found += extract(pages[index], **options) is not None
        print(f"done {found}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
