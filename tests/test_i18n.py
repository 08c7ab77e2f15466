"""Languages: every language names every category of both rule sets and has every message; names from the documents."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from yacht_env.env import YachtEnv
from yacht_env.i18n import (
    CATEGORY_NAMES,
    ENV_TEXT,
    LANGUAGES,
    MESSAGES,
    Catalogue,
    category_name,
    check_lang,
    display_width,
    fmt,
    pad,
    text,
)
from yacht_env.render import render_scorecard
from yacht_env.rules import RULESETS
from yacht_env.state import parse
from yacht_tools.messages import MESSAGES as TOOL_MESSAGES
from yacht_tools.messages import TOOL_TEXT
from yacht_tools.messages import fmt as tool_fmt
from yacht_tools.messages import text as tool_text

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"
LANGS = list(LANGUAGES)


def test_languages_of_the_rule_documents() -> None:
    assert set(LANGUAGES) == {"en", "ms", "el", "et", "te"}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("rules", list(RULESETS))
def test_every_language_renders_every_category(lang: str, rules: str) -> None:
    rs = RULESETS[rules]
    names = [category_name(c, lang, rules) for c in rs.category_ids]
    assert all(n.strip() for n in names)
    assert len(set(names)) == len(names), f"two categories share a name in {lang}/{rules}: {names}"
    filled = ",".join(rs.category_ids[:-1])  # each box at its least score (Choice 5: 0 is no score it holds)
    card = render_scorecard(parse(f"{rules} | dice 1 2 3 4 5 | rolls 0 | filled {filled}"), lang)
    for n in names:
        assert n in card
    assert text("total", lang) in card


@pytest.mark.parametrize("messages", [MESSAGES, TOOL_MESSAGES], ids=["environments", "tools"])
@pytest.mark.parametrize("lang", LANGS)
def test_every_message_in_every_language(lang: str, messages: dict[str, dict[str, str]]) -> None:
    assert set(messages[lang]) == set(messages["en"])
    assert set(CATEGORY_NAMES[lang]) == set(CATEGORY_NAMES["en"])
    fields = string.Formatter()
    for key, en in messages["en"].items():
        want = {f for _, f, _, _ in fields.parse(en) if f}
        got = {f for _, f, _, _ in fields.parse(messages[lang][key]) if f}
        assert got == want, f"{lang}:{key} placeholders {got} != {want}"
        assert messages[lang][key].strip()


def test_tool_text_lives_with_the_tools() -> None:
    """Each message has one home: the environments' catalogue holds what they render, the tools' the rest; the
    tools' catalogue answers both through the one lookup."""
    assert not set(MESSAGES["en"]) & set(TOOL_MESSAGES["en"])
    assert TOOL_TEXT.keys() == set(MESSAGES["en"]) | set(TOOL_MESSAGES["en"])
    assert tool_text("total", "et") == text("total", "et") == "Kokku"  # the base catalogue's word
    assert tool_fmt("hint", "ms", action="simpan 5", value="1.00") == "Petunjuk: simpan 5 (jangkaan skor akhir 1.00)"
    assert tool_text("bye", "te") == TOOL_MESSAGES["te"]["bye"]
    with pytest.raises(KeyError, match="no interface message 'hint'"):
        text("hint", "en")  # the tools' text is not the environments'
    with pytest.raises(ValueError, match="unknown language"):
        tool_text("bye", "xx")
    thin = Catalogue({"en": {"a": "A {x}"}, "et": {}}, base=ENV_TEXT)
    assert thin.fmt("a", "et", x=1) == "A 1" and thin.text("dice", "et") == "Täringud"  # English, then the base


def _keys_used(package: str) -> set[str]:
    """The message keys a package asks for: the first argument of its ``text(...)`` and ``fmt(...)`` calls."""
    used = set()
    for path in (Path(__file__).resolve().parents[1] / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("text", "fmt")
                    and node.args and isinstance(node.args[0], ast.Constant)):
                used.add(node.args[0].value)
    return used


def test_each_message_where_it_is_used() -> None:
    """The environments' catalogue holds exactly what the environment package renders; every tool message is used
    by the tools."""
    assert _keys_used("yacht_env") == set(MESSAGES["en"])
    tools = _keys_used("yacht_tools")
    assert set(TOOL_MESSAGES["en"]) <= tools <= TOOL_TEXT.keys()


def test_fmt_and_fallback() -> None:
    assert fmt("winner", "en", who="You", total=200) == "Winner: You with 200."
    assert fmt("act_keep", "el", dice="5 5") == "κράτα 5 5"
    assert category_name("ones", "en", "yahtzee") == "Aces"
    assert category_name("ones", "en", "yacht") == "Ones"
    assert category_name("ones", "el", "yahtzee") == "Άσσοι"  # the English "Aces" override is not Greek


@pytest.mark.parametrize("bad", ["xx", "EN", "", None])
def test_unknown_language_fails_clearly(bad: object) -> None:
    with pytest.raises(ValueError, match="accepted: en, ms, el, et, te"):
        check_lang(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown language"):
        YachtEnv("yacht", lang=bad)  # type: ignore[arg-type]


def test_unknown_category_fails_clearly() -> None:
    with pytest.raises(ValueError, match="unknown category"):
        category_name("bogus", "en")


@pytest.mark.parametrize("lang", LANGS)
def test_env_renders_in_every_language(lang: str) -> None:
    env = YachtEnv("yahtzee", render_mode="ansi", lang=lang)
    env.reset(seed=1)
    out = env.render()
    assert out is not None and text("dice", lang) in out and category_name("chance", lang, "yahtzee") in out


def test_display_width_and_alignment() -> None:
    assert display_width("Ones") == 4
    assert display_width("నాలుగు") < len("నాలుగు")  # vowel signs take no column
    assert display_width("中") == 2
    assert pad("ab", 5) == "ab   " and pad("ab", 5, ">") == "   ab"
    card = render_scorecard(parse("yacht | dice 1 2 3 4 5 | rolls 0 | filled ones=3"), "te").splitlines()
    ends = {display_width(line) for line in card}
    assert len(ends) == 1, "scorecard lines must end in the same display column"


# ---- the names come from the rule documents ---------------------------------------------------------------------

# (file, language, rules, category ids whose name the document gives verbatim)
DOCUMENTED = [
    ("000_9ae856751577550b.txt", "ms", "yacht", RULESETS["yacht"].category_ids),
    ("001_4af775792b370035.txt", "el", "yacht", RULESETS["yacht"].category_ids),
    ("002_3f0231e4fe9a9f78.txt", "et", "yacht", RULESETS["yacht"].category_ids),
    ("003_508bfb8b49186afa.txt", "te", "yacht", RULESETS["yacht"].category_ids),
    ("004_dd62afbc7f486379.txt", "ms", "yahtzee", RULESETS["yahtzee"].category_ids),
]


@pytest.mark.parametrize(("file", "lang", "rules", "ids"), DOCUMENTED)
def test_names_appear_in_the_rule_documents(file: str, lang: str, rules: str, ids: tuple[str, ...]) -> None:
    path = SEEDS / file
    if not path.is_file():
        pytest.skip(f"rule document {path} not available")
    doc = path.read_text(encoding="utf-8")
    for cid in ids:
        name = category_name(cid, lang, rules)
        assert name in doc, f"{lang} {rules} {cid}: {name!r} is not in {file}"


def test_names_of_the_documents() -> None:
    assert [category_name(c, "ms") for c in RULESETS["yacht"].category_ids[:6]] == \
        ["Satu", "Dua", "Tiga", "Empat", "Lima", "Enam"]
    assert category_name("four_of_a_kind", "el") == "Καρέ"
    assert category_name("little_straight", "el") == "Μικρή κέντα"
    assert category_name("choice", "et") == "Valik"
    assert category_name("four_of_a_kind", "et") == "Neli ühesugust"
    assert category_name("sixes", "te") == "ఆరు"
    assert category_name("small_straight", "ms", "yahtzee") == "Lurus Kecil"
    assert category_name("chance", "ms", "yahtzee") == "Peluang"
    assert category_name("four_of_a_kind", "ms", "yahtzee") == "4 Jenis"
    assert category_name("four_of_a_kind", "ms", "yacht") == "Four of a Kind"
