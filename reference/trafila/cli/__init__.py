"""The ``trafila`` command (also ``python -m trafila``).

``trafila extract INPUT... [-o OUTPUT | --output-dir DIR] [options]`` extracts the
text of HTML files, folders, JSON Lines and WARC files (docs/CLI.md);
``trafila run [-p trafilatura] (SCRIPT | -m MODULE) [ARGS...]`` runs a Python
program with ``trafila.patch`` applied first; ``trafila fineweb WARC... -o DIR`` runs
datatrove's FineWeb pipeline with trafila's steps (:mod:`trafila.cli.fineweb`).

:func:`main` takes the arguments (without the program name) and returns the exit
status: 0 when everything was read and extracted, 1 when something failed, 2 for
a wrong command line, 130 after Ctrl-C. Bad input never gives a traceback.
"""

from __future__ import annotations

import argparse
import configparser
import os
import sys
from typing import List, NoReturn, Optional, Sequence

from . import fineweb as fineweb_command
from . import run as run_command
from .extract import ExtractSettings, extract_kwargs, run_extract
from .inputs import KINDS, WARC_LIBRARIES, ReadConfig

__all__ = ["main", "build_parser"]

_EXTRACT_HELP = """\
Extract the main text of web pages. INPUT is an HTML file, a folder (its files,
recursively: HTML pages, JSON Lines and WARC files by their names, and files
without a suffix), a JSON Lines file (.jsonl, .ndjson; the page in --field), a
WARC file (.warc; 2xx HTML response records, through warcio or fastwarc:
pip install 'trafila[warc]'), any of them gzipped (.gz), or - for standard input
(its kind found from its first bytes). Each page's text is exactly
trafila.extract(page, **options) for the options below.
"""

_EXTRACT_EPILOG = """\
output: JSON Lines, one object per page in input order: {"id": ..., "url": ...,
"text": ... or null}, where id is the record's id field (JSON Lines), its
WARC-Record-ID (WARC) or the file's path (HTML files). Pages that could not be
read or extracted are reported on standard error (file and position) and left
out. With --output-dir, one NAME.txt per page that has a text.

exit status: 0 all read and extracted, 1 something could not be read or
extracted (or --strict stopped), 2 a wrong command line, 130 interrupted.
"""

_RUN_HELP = f"""\
usage: {run_command.USAGE}

Run a Python program (as `python SCRIPT ARGS` or `python -m MODULE ARGS` would)
with trafila.patch("trafilatura") applied first, so code that imports
trafilatura -- datatrove's Trafilatura step, scripts that cannot be edited --
gets trafila's extraction.

options (before SCRIPT or -m; everything after them is the program's):
  -p, --patch trafilatura  the module to replace (only trafilatura)
  --compat VERSION         the release the shims reproduce: 2.3.1 or 1.11.0
                           (default: the installed trafilatura's, else 2.3.1)
  --no-children            patch this process only (see below)
  -h, --help               show this help

child processes: a child the program forks (multiprocessing's "fork" start
method, os.fork) is a copy of the patched process: it is patched. A new
interpreter (multiprocessing's "spawn" and "forkserver", the default on macOS,
Windows and Python 3.14+, or subprocess running python) would start unpatched;
trafila run therefore puts a startup hook (a sitecustomize module that also runs
the one it shadows) first on PYTHONPATH and sets TRAFILA_RUN_PATCH, so every
Python started with this environment patches itself at startup. With
--no-children it does neither, and spawned children get the real trafilatura.
A child started with python -I, -E or -S ignores the hook.
"""


class _Parser(argparse.ArgumentParser):
    """argparse, with the exit status of a usage error kept (2) but no SystemExit escaping main()."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise _UsageExit(f"{self.prog}: error: {message}")


class _UsageExit(Exception):
    pass


class _VersionAction(argparse.Action):
    """``--version``: trafila.about(), its lines as they are (argparse's own would re-wrap them)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: Optional[str] = None) -> None:  # noqa: A002 - argparse's name
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: Optional[str] = None) -> None:
        import trafila  # noqa: PLC0415

        print(trafila.about())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``trafila`` and ``trafila extract`` (``trafila run`` parses its own line)."""
    import trafila  # noqa: PLC0415

    parser = _Parser(prog="trafila", description="trafila: trafilatura's text extraction, byte for byte, faster.")
    parser.add_argument("--version", action=_VersionAction,
                        help="show the version, the engines built here, the modes and the releases they reproduce")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    extract = commands.add_parser(
        "extract", help="extract the text of HTML, JSON Lines and WARC files", description=_EXTRACT_HELP,
        epilog=_EXTRACT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands.add_parser("run", help="run a Python program with trafila.patch applied first", add_help=False)
    fineweb_command.add_arguments(commands.add_parser(
        "fineweb", help="datatrove's FineWeb pipeline over WARC files, every step trafila's",
        description=fineweb_command.HELP, formatter_class=argparse.RawDescriptionHelpFormatter))

    extract.add_argument("inputs", nargs="+", metavar="INPUT", help="files, folders, or - for standard input")
    where = extract.add_argument_group("output")
    out = where.add_mutually_exclusive_group()
    out.add_argument("-o", "--output", metavar="FILE", help="JSON Lines file (gzip when it ends in .gz; default: standard output)")
    out.add_argument("--output-dir", metavar="DIR", help="one .txt file per page instead (named after the page's id)")

    reading = extract.add_argument_group("reading")
    reading.add_argument("--input-format", choices=("auto", *KINDS), default="auto",
                         help="the kind of every input (default: by its name, else by its first bytes)")
    reading.add_argument("--field", default="html", metavar="NAME",
                         help="JSON Lines: the field holding the page (default: html; NAME_b64, base64 of the "
                              "raw bytes, is read when it is null)")
    reading.add_argument("--id-field", default="id", metavar="NAME", help="JSON Lines: the id carried through (default: id)")
    reading.add_argument("--url-field", default="url", metavar="NAME", help="JSON Lines: the url carried through (default: url)")
    reading.add_argument("--warc-library", choices=("auto", *WARC_LIBRARIES), default="auto",
                         help="the WARC reader (default: warcio when installed, else fastwarc)")

    options = extract.add_argument_group("extraction (named as trafilatura's command line names them)")
    options.add_argument("--fast", action="store_true", help="fast=True: no fallback extractors")
    options.add_argument("--precision", action="store_true", help="favor_precision=True")
    options.add_argument("--recall", action="store_true", help="favor_recall=True")
    options.add_argument("--no-comments", action="store_true", help="include_comments=False")
    options.add_argument("--no-tables", action="store_true", help="include_tables=False")
    options.add_argument("--deduplicate", action="store_true",
                         help="deduplicate=True (the module cache; the pages go through it one by one, in order)")
    options.add_argument("--formatting", action="store_true", help="include_formatting=True")
    options.add_argument("--links", action="store_true",
                         help="include_links=True (each page's url is passed, so pages are extracted one by one)")
    options.add_argument("--images", action="store_true", help="include_images=True")
    options.add_argument("--output-format", choices=("txt", "markdown"), default="txt", help="txt (default) or markdown")
    options.add_argument("--markdown", action="store_const", const="markdown", dest="output_format",
                         help="--output-format markdown")
    options.add_argument("--target-language", metavar="ISO639", help="target_language=ISO639 (a two-letter code)")
    options.add_argument("--config-file", metavar="FILE", help="settingsfile=FILE (trafilatura's settings.cfg format)")
    options.add_argument("--compat", choices=trafila.TRAFILATURA_VERSIONS, default=None,
                         help="the trafilatura release reproduced (default: 2.3.1)")

    running = extract.add_argument_group("running")
    running.add_argument("--threads", type=_positive_int, default=None, metavar="N",
                         help="extract_batch's threads (default: the CPUs this process may use)")
    running.add_argument("--strict", action="store_true", help="stop at the first file, record or page that fails")
    running.add_argument("--progress", choices=("auto", "bar", "plain", "none"), default="auto",
                         help="a bar (tqdm or rich, when installed) on a terminal, else a line every "
                              "--progress-interval seconds (default: auto)")
    running.add_argument("--progress-interval", type=_positive_float, default=10.0, metavar="SECONDS",
                         help="plain progress lines this often (default: 10)")
    running.add_argument("-q", "--quiet", action="store_true", help="no progress and no summary (errors are still shown)")
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return value


def _check_config_file(path: str) -> Optional[str]:
    """Why a --config-file cannot be used, or None."""
    if not os.path.isfile(path):
        return f"--config-file {path}: no such file"
    parser = configparser.ConfigParser()
    try:
        with open(path, encoding="utf-8") as handle:
            parser.read_file(handle)
    except (OSError, UnicodeDecodeError, configparser.Error) as error:
        return f"--config-file {path}: cannot be read ({str(error).splitlines()[0] if str(error) else type(error).__name__})"
    if not parser.defaults():
        return f"--config-file {path}: no settings in a [DEFAULT] section"
    return None


def _extract(args: argparse.Namespace) -> int:
    if args.config_file is not None:
        problem = _check_config_file(args.config_file)
        if problem is not None:
            print(f"trafila extract: error: {problem}", file=sys.stderr)
            return 2
    if args.inputs.count("-") > 1:
        print("trafila extract: error: - (standard input) can be given once", file=sys.stderr)
        return 2
    kwargs = extract_kwargs(
        fast=args.fast, precision=args.precision, recall=args.recall, no_comments=args.no_comments,
        no_tables=args.no_tables, deduplicate=args.deduplicate, formatting=args.formatting, links=args.links,
        images=args.images, output_format=args.output_format, target_language=args.target_language,
        config_file=args.config_file, compat=args.compat,
    )
    settings = ExtractSettings(
        inputs=args.inputs,
        read=ReadConfig(input_format=args.input_format, field=args.field, id_field=args.id_field,
                        url_field=args.url_field, warc_library=args.warc_library),
        kwargs=kwargs, output=args.output, output_dir=args.output_dir, threads=args.threads, strict=args.strict,
        progress=args.progress, progress_interval=args.progress_interval, quiet=args.quiet,
    )
    try:
        status, _stats = run_extract(settings)
    except OSError as error:  # the output file or folder cannot be created
        target = args.output_dir or args.output
        print(f"trafila extract: error: cannot write {target}: {error.strerror or error}", file=sys.stderr)
        return 2
    return status


def _run(argv: Sequence[str]) -> int:
    try:
        request = run_command.parse_run_args(argv)
    except run_command.UsageError as error:
        print(f"usage: {run_command.USAGE}\ntrafila run: error: {error}", file=sys.stderr)
        return 2
    if request.help:
        print(_RUN_HELP, end="")
        return 0
    return run_command.run_program(request)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``trafila`` with ``argv`` (default: ``sys.argv[1:]``); returns the exit status."""
    args: List[str] = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "run":
        return _run(args[1:])
    parser = build_parser()
    try:
        namespace = parser.parse_args(args)
    except _UsageExit as error:
        print(error, file=sys.stderr)
        return 2
    except SystemExit as exit_:  # --help, --version
        return exit_.code if isinstance(exit_.code, int) else 0
    if namespace.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        if namespace.command == "fineweb":
            return fineweb_command.main(namespace)
        return _extract(namespace)
    except KeyboardInterrupt:
        print("trafila: interrupted", file=sys.stderr)
        return 130


def console_main() -> None:
    """The console script's entry point."""
    sys.exit(main())
