"""Category names and interface messages by language.

English is the reference; other languages may leave a key out, and :func:`text` falls back to English.
"""

from __future__ import annotations

LANGUAGES: dict[str, str] = {"en": "English"}

CATEGORY_NAMES: dict[str, dict[str, str]] = {
    "en": {
        "ones": "Ones", "twos": "Twos", "threes": "Threes", "fours": "Fours", "fives": "Fives", "sixes": "Sixes",
        "full_house": "Full House", "four_of_a_kind": "Four of a Kind", "little_straight": "Little Straight",
        "big_straight": "Big Straight", "choice": "Choice", "yacht": "Yacht",
        "three_of_a_kind": "Three of a Kind", "small_straight": "Small Straight",
        "large_straight": "Large Straight", "yahtzee": "Yahtzee", "chance": "Chance",
    },
}
# Yahtzee calls the ones box "Aces"
YAHTZEE_OVERRIDES: dict[str, dict[str, str]] = {"en": {"ones": "Aces"}}

MESSAGES: dict[str, dict[str, str]] = {
    "en": {
        "dice": "Dice", "rolls_left": "Rolls left", "turn": "Turn", "total": "Total", "upper_total": "Upper total",
        "upper_bonus": "Upper bonus", "yahtzee_bonus": "Yahtzee bonus", "game_over": "Game over",
        "category": "Category", "score": "Score",
    },
}


def check_lang(lang: str) -> str:
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; accepted: {', '.join(LANGUAGES)}")
    return lang


def category_name(category: str, lang: str = "en", rules: str = "yacht") -> str:
    """Display name of a category id in ``lang``."""
    check_lang(lang)
    if rules.startswith("yahtzee"):
        for lg in (lang, "en"):
            if category in YAHTZEE_OVERRIDES.get(lg, {}):
                return YAHTZEE_OVERRIDES[lg][category]
    return CATEGORY_NAMES.get(lang, {}).get(category) or CATEGORY_NAMES["en"][category]


def text(key: str, lang: str = "en") -> str:
    """Interface message ``key`` in ``lang`` (English if that language lacks it)."""
    check_lang(lang)
    return MESSAGES.get(lang, {}).get(key) or MESSAGES["en"][key]
