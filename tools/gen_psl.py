"""Generate trafila's Public Suffix List rules from the installed tld 0.13.2.

    PYTHONPATH=reference:. python tools/gen_psl.py [--check]

courlan 1.4.0's ``extract_domain`` falls back on ``tld.get_tld``, which looks hosts up
in the Public Suffix List that tld ships (``tld/res/effective_tld_names.dat.txt``,
public and private sections). This writes the rules as tld reads them (comment and
empty lines dropped, a ``// xn--...`` comment line replaced by its punycode name, each
rule stripped) to ``reference/trafila/data/tld-psl.txt.gz``, read by
``trafila.courlan._tld``.

Format (UTF-8, ``\\n``): line 1 ``trafila-tld-psl 1``; ``# `` comment lines (source,
licence); then one rule per line, in the file's order, with a line ``#private`` where
the private section begins. gzip with mtime 0 (reproducible); ``--check`` fails if the
committed file differs.
"""

from __future__ import annotations

import argparse
import gzip
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "reference" / "trafila" / "data" / "tld-psl.txt.gz"
MAGIC = "trafila-tld-psl 1"


def build() -> bytes:
    import tld  # noqa: PLC0415
    from importlib.metadata import version  # noqa: PLC0415

    source = Path(tld.__file__).parent / "res" / "effective_tld_names.dat.txt"
    out = [
        MAGIC,
        f"# Public Suffix List as shipped by tld {version('tld')} (res/effective_tld_names.dat.txt)",
        "# https://publicsuffix.org/ -- Mozilla Public License 2.0 (https://mozilla.org/MPL/2.0/)",
    ]
    private = False
    with open(source, encoding="utf-8") as handle:
        for line in handle:
            if "===BEGIN PRIVATE DOMAINS===" in line and not private:
                private = True
                out.append("#private")
            if "// xn--" in line:
                line = line.split()[1]
            if line[0] in ("/", "\n"):
                continue
            out.append(line.strip())
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as gz:
        gz.write(("\n".join(out) + "\n").encode("utf-8"))
    return buf.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    data = build()
    if args.check:
        if not OUTPUT.exists() or OUTPUT.read_bytes() != data:
            print(f"{OUTPUT} is out of date", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_bytes(data)
    print(f"wrote {OUTPUT} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
