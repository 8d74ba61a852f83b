"""Other trafilatura re-implementations from PyPI, measured (``reports/ports.md``).

``python -m harness ports --install --python /path/python3.11 --python /path/python3.12``
    makes one venv per interpreter under ``--venv-root`` (default ``../venv-ports`` beside the
    checkout: ``py3.11``, ``py3.12``), installs trafilatura 2.3.1 with the oracle's pins in each,
    then tries ``pip install`` of every port (harness/ports_adapters.py) in each venv in turn
    until one takes it; what pip said when none does is kept (``install.json`` in the venv root)
    and goes into the report word for word.

``python -m harness ports [--every 10] [--set default ...] [--port NAME]``
    runs each installed port against trafilatura in one process of its venv
    (harness/ports_worker.py) on the same pages -- the embedded corpus and every ``--every``-th
    page of the shared corpora, read in place -- and writes ``reports/ports.{md,json}``: per
    option set, how many pages give trafilatura's exact text, and the port's speed as a ratio to
    trafilatura's in that run. The report names page counts only, never page text.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

from .provenance import portable_command, portable_path, utc_now, write_report_json, write_report_text
from .corpora import ROOT

REPORTS_DIR = ROOT / "reports"
DEFAULT_VENV_ROOT = ROOT.parent / "venv-ports"
#: what each venv gets besides the port: trafilatura 2.3.1 with the oracle's pins (tox.ini [oracle231])
ORACLE_PINS = ("trafilatura==2.3.1", "lxml==6.1.3", "justext==3.0.2", "lxml_html_clean==0.4.6",
               "charset_normalizer==3.5.3")
#: the 2.3.1 option sets a port may offer (txt extraction without deduplication)
DEFAULT_SETS = ("default", "recall", "datatrove-nodedup", "no-comments-tables", "links", "markdown", "fast")


def _python_tag(python: str) -> str:
    out = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def _venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


_PIP_NOISE = ("WARNING: Location 'file:", "Collecting ", "Downloading ", "Using cached ", "Requirement already",
              "Looking in ", "Obtaining ", "Installing build dependencies", "Getting requirements", "Preparing ")


def _pip_tail(output: str, n: int = 20) -> List[str]:
    """The last lines pip printed, without its progress lines and its notes on local index folders."""
    lines = [ln.rstrip() for ln in output.splitlines()
             if ln.strip() and not ln.strip().startswith(_PIP_NOISE) and not ln.strip().startswith("━")]
    return lines[-n:]


def install(pythons: List[str], venv_root: Path, ports: List[str], log=print) -> dict:
    """Create the venvs and install the ports; returns (and saves) ``install.json``'s records."""
    from .ports_adapters import ADAPTERS

    venv_root.mkdir(parents=True, exist_ok=True)
    records: Dict[str, Any] = {"venvs": {}, "ports": {}}
    venvs = []
    for python in pythons:
        tag = _python_tag(python)
        venv = venv_root / f"py{tag}"
        if not _venv_python(venv).exists():
            log(f"creating {venv} with {python}")
            subprocess.run([python, "-m", "venv", str(venv)], check=True)
        log(f"{venv}: pip install {' '.join(ORACLE_PINS)}")
        res = subprocess.run([str(_venv_python(venv)), "-m", "pip", "install", "--quiet", *ORACLE_PINS],
                             capture_output=True, text=True)
        records["venvs"][tag] = {"path": str(venv), "python": python, "oracle_installed": res.returncode == 0,
                                 "error": None if res.returncode == 0 else _pip_tail(res.stdout + res.stderr)}
        if res.returncode == 0:
            venvs.append((tag, venv))
    for name in ports:
        req = ADAPTERS[name].requirement
        attempts = []
        for tag, venv in venvs:
            log(f"{venv}: pip install {req}")
            res = subprocess.run([str(_venv_python(venv)), "-m", "pip", "install", req],
                                 capture_output=True, text=True)
            attempts.append({"python": tag, "command": f"pip install {req}", "exit": res.returncode,
                             "output": None if res.returncode == 0 else _pip_tail(res.stdout + res.stderr)})
            if res.returncode == 0:
                break
        ok = next((a["python"] for a in attempts if a["exit"] == 0), None)
        records["ports"][name] = {"requirement": req, "installed_in": ok, "attempts": attempts}
        log(f"  {name}: " + (f"installed (python {ok})" if ok else "could not be installed"))
    records["date"] = utc_now()
    (venv_root / "install.json").write_text(json.dumps(records, indent=1) + "\n")
    return records


def run_port(name: str, record: dict, venv_root: Path, sets: List[str], every: int, bundles: Optional[List[str]],
             embedded: bool, form: str, log=print) -> dict:
    venv = venv_root / f"py{record['installed_in']}"
    cmd = [str(_venv_python(venv)), "-m", "harness.ports_worker", "--port", name, "--every", str(every),
           "--form", form]
    for s in sets:
        cmd += ["--set", s]
    for b in bundles or ():
        cmd += ["--bundle", b]
    if embedded:
        cmd.append("--embedded")
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="0")
    log(f"{name}: {' '.join(cmd[1:])} (python {record['installed_in']})")
    t0 = time.time()
    res = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        return {"port": name, "failed": _pip_tail(res.stderr, 15)}
    out = json.loads(res.stdout.strip().splitlines()[-1])
    out["wall_seconds"] = round(time.time() - t0, 1)
    return out


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if a and b else "-"


def render(data: dict) -> str:
    from .ports_adapters import ADAPTERS

    lines = ["# Other ports of trafilatura, measured", "",
             "Written by `python -m harness ports` (never by hand). Each port that installs from PyPI runs beside "
             "trafilatura 2.3.1 (the oracle's pins) in one process of its own venv, on the same pages, through the "
             "adapter in `harness/ports_adapters.py`: per option set of the harness's matrix that the port offers, "
             "**exact** counts the pages whose text is trafilatura's `extract(...)` txt output character for character "
             "(None for None); **same normalised** the pages equal after collapsing white space; **token F1** the "
             "mean word overlap. **speed-up** is trafilatura's time over the port's on those calls in that run (a "
             "ratio, > 1: the port is faster). Page counts only; no page text.", "",
             f"- run: {data['date']}, commit {data['commit']}, `{data['command']}`; the machine was shared with "
             "other jobs, so compare the ratios within a row, not the seconds across rows",
             f"- pages: {data['pages_note']}", ""]
    for name, rec in data["install"]["ports"].items():
        lines += [f"## {name}", ""]
        res = data["results"].get(name)
        lines.append(f"- PyPI requirement `{rec['requirement']}`: " +
                     (f"installed in the Python {rec['installed_in']} venv" if rec["installed_in"] else
                      "**could not be installed** in any venv tried"))
        for a in rec["attempts"]:
            if a["exit"]:
                lines += [f"- Python {a['python']}: `{a['command']}` exited {a['exit']}; pip's last lines:", "",
                          "```"] + a["output"] + ["```", ""]
        if res is None:
            lines.append("")
            continue
        if "failed" in res:
            lines += ["- the worker failed:", "", "```"] + res["failed"] + ["```", ""]
            continue
        lines += [f"- version {res['version']}, against trafilatura {res['trafilatura']} on Python {res['python']}; "
                  f"{res['pages']} pages ({res['form']} form) from {len(res['bundles'])} bundle(s)",
                  f"- adapter: {ADAPTERS[name].note if name in ADAPTERS else res.get('note', '')}", "",
                  "| option set | pages | exact | same normalised | both None | port None, trafilatura text "
                  "| port text, trafilatura None | port failed | token F1 | speed-up |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for set_name, row in res["sets"].items():
            if not row.get("offered"):
                lines.append(f"| {set_name} | not offered by the port | | | | | | | | |")
                continue
            c = row["counts"]
            pages = c.get("pages", 0)
            pct = f" ({100 * c.get('exact', 0) / pages:.1f}%)" if pages else ""
            kinds = ", ".join(f"{k.split(':', 1)[1]} {v}" for k, v in sorted(c.items()) if k.startswith("port_failed:"))
            failed = f"{c.get('port_failed', 0)}" + (f" ({kinds})" if kinds else "")
            lines.append(f"| {set_name} | {pages} | {c.get('exact', 0)}{pct} | {c.get('same_normalised', 0)} "
                         f"| {c.get('both_none', 0)} | {c.get('port_none_trafilatura_text', 0)} "
                         f"| {c.get('port_text_trafilatura_none', 0)} | {failed} "
                         f"| {row['mean_token_f1']:.3f} | {_ratio(row['trafilatura_seconds'], row['port_seconds'])} |")
        lines.append("")
    bad = {k: v for k, v in data["install"].get("venvs", {}).items() if not v.get("oracle_installed")}
    for tag, v in bad.items():
        lines += [f"- venv Python {tag}: the oracle's pins did not install:", "", "```"] + (v["error"] or []) + ["```", ""]
    return "\n".join(lines) + "\n"


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--install", action="store_true", help="create the venvs and pip install the ports first")
    ap.add_argument("--python", action="append", dest="pythons",
                    help="an interpreter to make a venv with (repeatable; default: this one)")
    ap.add_argument("--venv-root", type=Path, default=DEFAULT_VENV_ROOT)
    ap.add_argument("--port", action="append", dest="ports", help="default: every adapter")
    ap.add_argument("--set", action="append", dest="sets", help=f"default: {', '.join(DEFAULT_SETS)}")
    ap.add_argument("--every", type=int, default=10, help="every Nth page of each bundle (default 10)")
    ap.add_argument("--bundle", action="append", dest="bundles")
    ap.add_argument("--embedded", action="store_true", help="the embedded corpus only")
    ap.add_argument("--form", default="str", choices=("str", "bytes"))
    ap.add_argument("--no-report", dest="report", action="store_false")
    ap.add_argument("--render", action="store_true",
                    help="only write ports.md again from the ports.json of the last run, both without this "
                         "machine's paths (no run; --venv-root: the run's, shown as <ports-venvs>)")
    ap.add_argument("--report-dir", type=Path, default=REPORTS_DIR)


def _portable_install(records: dict, ports: List[str], venv_root: Path) -> dict:
    """install.json's records of ``ports`` as the report shows them: the venvs' and interpreters'
    paths by portable_path, and the venv root in pip's words as portable_path gives it."""
    root = str(venv_root.resolve())
    shown = portable_path(root)

    def lines(out: Optional[List[str]]) -> Optional[List[str]]:
        return None if out is None else [line.replace(root, shown) for line in out]

    venvs = {tag: dict(v, path=portable_path(v["path"]), python=portable_path(v["python"]),
                       error=lines(v.get("error")))
             for tag, v in records.get("venvs", {}).items()}
    chosen = {}
    for name in ports:
        if name in records["ports"]:
            rec = records["ports"][name]
            chosen[name] = dict(rec, attempts=[dict(a, output=lines(a.get("output"))) for a in rec["attempts"]])
    return {"ports": chosen, "venvs": venvs, "date": records.get("date")}


def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    from .parity import _git_commit
    from .ports_adapters import ADAPTERS

    places = {args.venv_root: "<ports-venvs>"}
    if args.render:
        data = json.loads((args.report_dir / "ports.json").read_text())
        write_report_json(args.report_dir / "ports.json", data, places, ensure_ascii=False)
        write_report_text(args.report_dir / "ports.md", render(data), places)
        print(f"ports: wrote {args.report_dir / 'ports.md'} (and ports.json, without machine paths) from "
              f"{args.report_dir / 'ports.json'}")
        return 0
    commit = _git_commit()
    ports = args.ports or list(ADAPTERS)
    venv_root: Path = args.venv_root
    if args.install:
        records = install(args.pythons or [sys.executable], venv_root, ports)
    else:
        path = venv_root / "install.json"
        if not path.exists():
            print(f"ports: no {path}; run with --install first")
            return 2
        records = json.loads(path.read_text())
    sets = args.sets or list(DEFAULT_SETS)
    results = {}
    for name in ports:
        rec = records["ports"].get(name)
        if rec and rec.get("installed_in"):
            results[name] = run_port(name, rec, venv_root, sets, args.every, args.bundles, args.embedded, args.form)
            for set_name, row in results[name].get("sets", {}).items():
                if row.get("offered"):
                    c = row["counts"]
                    print(f"  {name} {set_name}: {c.get('exact', 0)}/{c.get('pages', 0)} exact, speed-up "
                          f"{_ratio(row['trafilatura_seconds'], row['port_seconds'])}")
    from .corpora import corpora_path

    where = "the embedded corpus" if args.embedded else (
        f"the embedded corpus and every {args.every}th page of the shared bundles at $TRAFILA_CORPORA, "
        "read in place" if corpora_path().is_dir()
        else "the embedded corpus (no shared corpora here)")
    data = {"date": utc_now(), "commit": commit,
            "command": "python -m harness ports " + portable_command(argv or []), "pages_note": where,
            "install": _portable_install(records, ports, venv_root), "results": results}
    if args.report:
        args.report_dir.mkdir(parents=True, exist_ok=True)
        write_report_json(args.report_dir / "ports.json", data, places, ensure_ascii=False)
        write_report_text(args.report_dir / "ports.md", render(data), places)
        print(f"ports: wrote {args.report_dir / 'ports.md'}")
    return 0
