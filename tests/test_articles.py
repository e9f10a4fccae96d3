"""Numbers in sentences: ``a`` or ``an`` as the number is read out, and a count's noun singular for one."""

from __future__ import annotations

import pytest

from tuiperf.common.units import article, counted
from tuiperf.results.model import loop_words


@pytest.mark.parametrize(
    "n",
    [8, 11, 18, 80, 83, 89, 800, 850, 899, 8_000, 8_500, 11_000, 11_999, 18_000, 80_000, 800_000, 8_000_000],
)
def test_numbers_read_with_a_vowel_sound_take_an(n: int) -> None:
    assert article(n) == "an"


@pytest.mark.parametrize("n", [0, 1, 2, 7, 9, 10, 12, 16, 17, 19, 28, 64, 100, 108, 110, 118, 180, 1_100, 1_800, 9_000])
def test_other_numbers_take_a(n: int) -> None:
    assert article(n) == "a"


def test_a_loop_is_named_with_the_article_of_its_steps() -> None:
    assert loop_words([8]) == "an 8-step loop"
    assert loop_words([18]) == "an 18-step loop"
    assert loop_words([64]) == "a 64-step loop"
    assert loop_words([None]) == "a loop"
    assert loop_words([8, None]) == "2 loops (8 and ? steps)"


def test_a_count_of_one_is_singular() -> None:
    assert counted(1, "commit") == "1 commit"
    assert counted(5, "commit") == "5 commits"
    assert counted(1_200, "commit") == "1,200 commits"
