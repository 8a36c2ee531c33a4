"""Sizes, rates and durations as users write them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from topocoll.errors import InputError
from topocoll.units import parse_bytes, parse_duration, parse_rate


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("32", 32),
        ("32B", 32),
        ("1K", 1024),
        ("128M", 128 * 1024**2),
        ("1G", 1024**3),
        ("1KB", 1000),
        ("2MB", 2_000_000),
        ("1GB", 10**9),
        ("4KiB", 4096),
        ("512MiB", 512 * 1024**2),
        ("1GiB", 1024**3),
        ("1.5KiB", 1536),
        ("1k", 1024),
        (" 8 MiB ", 8 * 1024**2),
    ],
)
def test_sizes_bare_suffixes_are_powers_of_two_and_kb_powers_of_ten(text, value):
    assert parse_bytes(text) == value


@pytest.mark.parametrize("text", ["", "KiB", "1.3B", "-4KiB", "4 parsecs", "1e3", "2PiB", "0x10"])
def test_bad_sizes_name_the_accepted_units(text):
    with pytest.raises(InputError):
        parse_bytes(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("400Gbps", 50e9),
        ("100Mbps", 12.5e6),
        ("50GBps", 50e9),
        ("1Tbps", 125e9),
        ("8bps", 1.0),
        ("25 GB/s", 25e9),
    ],
)
def test_rates_in_bytes_per_second(text, value):
    assert parse_rate(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["400G", "400", "0Gbps", "fast", "400gbps", "-1Gbps"])
def test_bad_rates_are_input_errors(text):
    with pytest.raises(InputError):
        parse_rate(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [("100ns", 1e-7), ("1.5us", 1.5e-6), ("2ms", 2e-3), ("1s", 1.0), ("0s", 0.0)],
)
def test_durations_in_seconds(text, value):
    assert parse_duration(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["100", "1h", "-1us", "us", "1.5.2us"])
def test_bad_durations_are_input_errors(text):
    with pytest.raises(InputError):
        parse_duration(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=20))
def test_any_text_is_a_value_or_an_input_error(text):
    for parse in (parse_bytes, parse_rate, parse_duration):
        try:
            value = parse(text)
        except InputError as error:
            assert "\n" not in str(error)
        else:
            assert value >= 0
