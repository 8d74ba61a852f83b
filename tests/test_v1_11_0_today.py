"""1.11.0's Extractor.date_params["max_date"]: datetime.now()'s local date, formatted once per
local day (settings._today) — equal to the format of the moment at every time tried, across
local midnights, backwards clock steps included."""

from __future__ import annotations

from datetime import datetime, timedelta

from trafila.v1_11_0 import settings


def test_today_is_now_formatted(monkeypatch):
    assert settings._today() == datetime.now().strftime("%Y-%m-%d")
    assert settings.Extractor().date_params["max_date"] == datetime.now().strftime("%Y-%m-%d")
    midnight = datetime.now().replace(hour=0, minute=0, second=0, microsecond=0)
    moments = []
    for days in (0, 1, 2, -1, 40, 200):
        edge = (midnight + timedelta(days=days)).timestamp()
        moments += [edge - 1e-3, edge, edge + 1e-3, edge + 43200]
    # forwards, then backwards: each answer is the format of its own moment
    for t in moments + moments[::-1]:
        monkeypatch.setattr(settings.time, "time", lambda t=t: t)
        assert settings._today() == datetime.fromtimestamp(t).strftime("%Y-%m-%d"), t
