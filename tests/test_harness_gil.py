"""harness.gil's attribution of py-spy samples to stages (the sampling itself needs py-spy)."""

from pathlib import Path

import pytest

from harness.gil import ORCHESTRATION, amdahl_two_threads, attribute

LOOP = "_extract_loop (harness/gil.py:93)"
SEQ = "extract (trafila/v2_3_1/core.py:365);bare_extraction (trafila/v2_3_1/core.py:273)"


def test_the_innermost_stage_takes_the_sample():
    lines = [
        # readability called inside the fallback comparison: readability's
        f"<module> (x.py:1);{LOOP};{SEQ};compare_extraction (trafila/v2_3_1/external.py:20);"
        "try_readability (trafila/readability_2_3_1.py:525);get_article (trafila/readability_2_3_1.py:214) 7",
        f"<module> (x.py:1);{LOOP};{SEQ};compare_extraction (trafila/v2_3_1/external.py:20);trim (u.py:3) 2",
        f"<module> (x.py:1);{LOOP};{SEQ};load_html (trafila/v2_3_1/utils.py:90);fromstring (accel.pxi:3) 5",
        f"<module> (x.py:1);{LOOP};{SEQ} 4",
    ]
    assert attribute(lines, "2.3.1") == {"readability": 7, "fallback comparison": 2, "parse": 5, ORCHESTRATION: 4}


def test_samples_outside_the_loop_and_other_releases_files_do_not_count():
    lines = [
        "<module> (x.py:1);_sample (harness/bench.py:118);loads (json/__init__.py:346) 30",
        # the same function name in another release's module is not that release's stage
        f"<module> (x.py:1);{LOOP};load_html (trafila/v1_11_0/utils.py:50) 3",
        "garbage line",
        "",
    ]
    assert attribute(lines, "2.3.1") == {ORCHESTRATION: 3}
    assert attribute(lines[1:2], "1.11.0") == {"parse": 3}


@pytest.mark.parametrize("held, bound", [(0.0, 2.0), (1.0, 1.0), (0.5, 4 / 3), (0.1, 1 / 0.55)])
def test_amdahl_bound(held, bound):
    assert amdahl_two_threads(held) == pytest.approx(bound)


def test_the_command_line_carries_no_machine_path(tmp_path):
    import os
    import sys

    from harness.provenance import _CHECKOUT, portable_command

    tool = tmp_path / "py-spy"
    tool.write_text("#!/bin/sh\n")
    os.chmod(tool, 0o755)
    # not tmp_path: a checkout cloned into the temporary folder has it beside itself ("../")
    data = Path("/trafila-test-elsewhere/pages")
    line = portable_command(["--set", "fast", "--py-spy", str(tool), "--report-dir",
                             str(_CHECKOUT / "reports"), "--corpora", str(data)])
    # the executable by its name, the checkout's path relative to it, another folder by its name
    assert line == "--set fast --py-spy py-spy --report-dir reports --corpora <pages>"
    assert portable_command([str(_CHECKOUT.parent / "venv-ports")]) == "../venv-ports"
    assert sys.executable not in portable_command(["--set", "fast"])
