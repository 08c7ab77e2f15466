"""A registered rule set with a box of its own (an id no built-in rule set has) renders, replays and plays like the
built-in ones: the box's name comes from the rule set, in every language, in every renderer."""

from __future__ import annotations

import numpy as np
import pytest

from yacht_env.env import YachtEnv
from yacht_env.i18n import LANGUAGES, category_name
from yacht_env.rules import RULESETS, YACHT, Category, RuleSet, register_rules, validate_rules
from yacht_env.state import parse

NAME = "house-double"
BOX = "Double Chance"


@pytest.fixture(scope="module")
def house() -> RuleSet:
    """Yacht's upper boxes and a box of its own (twice the dice: the sum of the dice, 60 points of five of a kind
    are not needed for the test), registered once for the module."""
    rs = RULESETS.get(NAME) or register_rules(RuleSet(
        NAME, "Upper boxes and a double chance",
        (*YACHT.categories[:6], Category("double_chance", BOX, "sum"), Category("big_one", "Big One", "five_kind",
                                                                            param=80))))
    return rs


def _played(env: YachtEnv, seed: int) -> None:
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done = False
    while not done:
        _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        done = term or trunc


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_box_keeps_the_rule_sets_name_in_every_language(house: RuleSet, lang: str) -> None:
    assert category_name("double_chance", lang, house) == BOX
    assert category_name("ones", lang, house) == category_name("ones", lang, "yacht")  # a built-in box: translated


def test_the_text_and_picture_renders_name_it(house: RuleSet) -> None:
    env = YachtEnv(NAME, render_mode="ansi")
    _played(env, 3)
    assert BOX in env.render() and "Big One" in env.render()
    frame = YachtEnv(NAME, render_mode="rgb_array")
    frame.reset(seed=1)
    picture = frame.render()
    assert picture.ndim == 3 and picture.shape[2] == 3 and picture.std() > 0


def test_the_replays_name_it(house: RuleSet) -> None:
    from yacht_tools.replay import replay_game
    from yacht_tools.replay_page import page_html

    record = replay_game("greedy", NAME, seed=4, lang="ms")
    assert {t["category_name"] for t in record["turns"]} == {category_name(c, "ms", house) for c in house.category_ids}
    assert BOX in page_html(record)


def test_the_terminal_game_takes_its_name(house: RuleSet) -> None:
    from yacht_tools.play import resolve_category

    state = parse(f"{NAME} | dice 2 2 3 5 6 | rolls 0 | filled -")
    assert resolve_category("double chance", state) == 6
    assert resolve_category("Big", state) == 7


def test_pettingzoo_renders_it(house: RuleSet) -> None:
    pytest.importorskip("pettingzoo")
    from yacht_env.multiplayer.env import env as aec_env

    game = aec_env(num_players=2, rules=NAME, render_mode="ansi")
    game.reset(seed=0)
    assert BOX in game.render()


@pytest.mark.parametrize("name", ["", "   ", "x" * 41, "tab\there"])
def test_a_box_name_nothing_can_show_is_refused(name: str) -> None:
    rs = RuleSet("house-badname", "t", (*YACHT.categories[:6], Category("double_chance", name, "sum")))
    with pytest.raises(ValueError, match="name .* must be 1-40 printable characters"):
        validate_rules(rs)


@pytest.mark.parametrize("title", ["\x1b[2J\x1b[31mRed", "Yacht\x1b]0;pwned\x07", "two\nlines", "nul\x00",
                                   "carriage\rreturn", "tab\there", "del\x7f", "csi\x9b31m", "rtl\u202eetats",
                                   "line\u2028sep", "", "   ", "x" * 81, "y" * 100_000, None, 5, b"Bytes"])
def test_a_title_nothing_can_show_safely_is_refused(title: object) -> None:
    """The ansi scorecard prints the title as it is (the HTML page escapes it): raw escapes cleared the terminal or
    set its title."""
    rs = RuleSet("house-badtitle", title, YACHT.categories)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^rule set 'house-badtitle': title .{1,60} must be 1-80 printable "
                                         r"characters, no control characters such as escapes or newlines") as e:
        validate_rules(rs)
    assert str(e.value).isprintable() and len(str(e.value)) < 300
    with pytest.raises(ValueError, match="title"):
        register_rules(rs)
    assert "house-badtitle" not in RULESETS


@pytest.mark.parametrize("title", ["x" * 80, "Y", "Yacht (Knizia) — 2 Spieler", "ヨット", "Ünïcödé  spaced  out"])
def test_a_printable_title_up_to_80_characters_is_taken(title: str) -> None:
    validate_rules(RuleSet("house-goodtitle", title, YACHT.categories))


def test_every_built_in_title_passes() -> None:
    for rs in RULESETS.values():
        assert validate_rules(rs) is rs


def test_the_legal_boxes_by_id_and_by_name(house: RuleSet) -> None:
    state = parse("yahtzee | dice 4 4 4 4 4 | rolls 0 | filled fours=12,yahtzee=50")
    assert state.legal_category_ids() == tuple(state.ruleset.category_ids[k] for k in state.legal_categories())
    assert state.legal_category_names()[:3] == ("Three of a Kind", "Four of a Kind", "Full House")
    assert state.legal_category_names("ms")[0] == "3 Jenis"
    own = parse(f"{NAME} | dice 2 2 3 5 6 | rolls 0 | filled -")
    assert own.legal_category_names("el")[-2:] == (BOX, "Big One")


@pytest.mark.parametrize("lang", ["en", "el"])
def test_the_text_says_the_last_move(lang: str) -> None:
    """The ``ansi`` text names the move that led to it: the dice a keep kept, a score's box and points, an ignored
    illegal action; nothing after a reset."""
    from yacht_env.i18n import text

    env = YachtEnv("yacht", render_mode="ansi", lang=lang)
    env.reset(seed=1)
    said = text("last_move", lang)
    assert said not in env.render()
    dice = env.state.dice
    env.step(0b00011)  # keep the two lowest dice
    assert f"{said}: " in env.render() and " ".join(map(str, dice[:2])) in env.render().splitlines()[1]
    box = 32 + 11  # the Yacht box, legal on any dice
    env.step(box)
    line = env.render().splitlines()[1]
    assert category_name("yacht", lang, "yacht") in line and line.endswith(f"(+{env.state.total})")
    env.step(box)  # filled: illegal, ignored
    assert env.render().splitlines()[1].endswith(f"({text('ignored', lang)})")
    env.reset(seed=2)
    assert said not in env.render()
