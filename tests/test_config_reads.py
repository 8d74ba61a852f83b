"""Extractor's config reads (trafila._config.read_defaults): remembered for one config
object, yet every change that ConfigParser would see is seen, in both releases."""

from __future__ import annotations

import configparser
from copy import deepcopy

import pytest

from trafila import _config
from trafila.v1_11_0 import settings as s111
from trafila.v2_3_1 import settings as s231

RELEASES = [
    pytest.param(s231, ["min_extracted_size", "min_output_size", "min_output_comm_size", "min_duplcheck_size",
                        "max_repetitions", "max_file_size", "min_file_size"], id="2.3.1"),
    pytest.param(s111, list(s111.CONFIG_MAPPING), id="1.11.0"),
]


def _direct(config, attr):
    "What upstream reads: config.getint on the attribute's option name."
    return config.getint("DEFAULT", attr.upper())


def _fresh(settings):
    return deepcopy(settings.DEFAULT_CONFIG)


@pytest.mark.parametrize("settings, attrs", RELEASES)
def test_values_are_configparsers(settings, attrs):
    config = _fresh(settings)
    for _ in range(2):  # the second time from the memo
        ex = settings.Extractor(config=config)
        assert [getattr(ex, a) for a in attrs] == [_direct(config, a) for a in attrs]


@pytest.mark.parametrize("settings, attrs", RELEASES)
def test_a_changed_value_is_seen(settings, attrs):
    config = _fresh(settings)
    settings.Extractor(config=config)
    for value in ("7", "1234", "7"):
        config["DEFAULT"]["MIN_OUTPUT_SIZE"] = value
        assert settings.Extractor(config=config).min_output_size == int(value)


@pytest.mark.parametrize("settings, attrs", RELEASES)
def test_interpolated_value_follows_its_source(settings, attrs):
    config = _fresh(settings)
    config["DEFAULT"]["base"] = "40"
    config["DEFAULT"]["MIN_FILE_SIZE"] = "%(base)s"
    assert settings.Extractor(config=config).min_file_size == 40
    config["DEFAULT"]["base"] = "41"
    assert settings.Extractor(config=config).min_file_size == 41


@pytest.mark.parametrize("settings, attrs", RELEASES)
def test_a_bad_value_raises_every_time_then_recovers(settings, attrs):
    config = _fresh(settings)
    config["DEFAULT"]["MAX_REPETITIONS"] = "many"
    for _ in range(2):
        with pytest.raises(ValueError):
            settings.Extractor(config=config)
    config["DEFAULT"]["MAX_REPETITIONS"] = "3"
    assert settings.Extractor(config=config).max_repetitions == 3


@pytest.mark.parametrize("settings, attrs", RELEASES)
def test_optionxform_replaced_after_reading(settings, attrs):
    config = _fresh(settings)
    settings.Extractor(config=config)
    config.optionxform = str  # the stored keys are lower-case: upper-case lookups now miss
    with pytest.raises(configparser.NoOptionError):
        config.getint("DEFAULT", "MIN_OUTPUT_SIZE")
    with pytest.raises(configparser.NoOptionError):
        settings.Extractor(config=config)


@pytest.mark.parametrize("settings, attrs", RELEASES)
def test_subclass_and_instance_overrides_are_read_every_time(settings, attrs):
    calls = []

    class Counting(configparser.ConfigParser):
        def getint(self, section, option, **kwargs):
            calls.append(option)
            return super().getint(section, option, **kwargs)

    config = Counting()
    config.read_dict({"DEFAULT": dict(settings.DEFAULT_CONFIG["DEFAULT"])})
    settings.Extractor(config=config)
    settings.Extractor(config=config)
    assert len(calls) == 2 * len(attrs)
    assert _config._snapshot(config) is None

    plain = _fresh(settings)
    plain.getint = lambda section, option, **kw: 5  # type: ignore[method-assign]
    assert _config._snapshot(plain) is None
    assert settings.Extractor(config=plain).min_output_size == 5


def test_the_231_max_tree_size_reading():
    config = _fresh(s231)
    for raw, expected in (("", None), (" 12 ", 12), ("1e3", None), ("-4", None), ("500", 500)):
        config["DEFAULT"]["MAX_TREE_SIZE"] = raw
        assert s231.Extractor(config=config).max_tree_size == expected


def test_111_date_search_flag_is_read():
    config = _fresh(s111)
    config["DEFAULT"]["EXTENSIVE_DATE_SEARCH"] = "off"
    assert s111.Extractor(config=config).date_params["extensive_search"] is False
    config["DEFAULT"]["EXTENSIVE_DATE_SEARCH"] = "on"
    assert s111.Extractor(config=config).date_params["extensive_search"] is True
