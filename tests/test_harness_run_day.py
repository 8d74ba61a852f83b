"""A cached oracle result with metadata carries the day trafilatura made it (filedate, the
local date of datetime.now()); harness.results.day_of_entry compares a candidate's result made
on a later day as of the oracle's day, and forgives nothing else."""

from harness.results import as_of, day_of_entry, earlier_days, mentions, result_entry

TODAY = "2026-12-08"
ORACLE_DAY = "2026-12-07"


def _json(day, title="A title"):
    return '{"title": "%s", "filedate": "%s", "text": "Body text."}' % (title, day)


def test_a_text_made_today_equals_the_oracle_entry_as_of_its_day():
    expected = result_entry(_json(ORACLE_DAY))
    assert result_entry(_json(TODAY)) != expected
    assert day_of_entry(expected, _json(TODAY), TODAY) == ORACLE_DAY
    # the day found first is tried first (one hash per entry after the first)
    assert day_of_entry(expected, _json(TODAY), TODAY, hint=ORACLE_DAY) == ORACLE_DAY


def test_any_other_difference_still_differs():
    expected = result_entry(_json(ORACLE_DAY))
    assert day_of_entry(expected, _json(TODAY, title="Another title"), TODAY) is None
    # a result without the run day is not rewritten
    assert day_of_entry(expected, _json("2026-12-06"), TODAY) is None
    # a later oracle day is never looked for
    assert day_of_entry(result_entry(_json("2026-12-09")), _json(TODAY), TODAY) is None


def test_fields_are_rewritten_one_by_one():
    fields = {"filedate": TODAY, "title": "T", "text": None}
    assert as_of(fields, TODAY, ORACLE_DAY) == {"filedate": ORACLE_DAY, "title": "T", "text": None}
    assert mentions(fields, TODAY) and not mentions({"title": "T"}, TODAY)
    assert day_of_entry(result_entry({"filedate": ORACLE_DAY, "title": "T", "text": None}), fields, TODAY) == ORACLE_DAY


def test_the_window_runs_back_from_the_day_before():
    days = list(earlier_days(TODAY, window=3))
    assert days == ["2026-12-07", "2026-12-06", "2026-12-05"]
