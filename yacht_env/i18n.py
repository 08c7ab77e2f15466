"""Category names and interface messages by language.

Languages: English (the reference) and the languages of the original rule documents in ``shared/seeds/``: Malay
(``ms``, 000 Yacht and 004 Yahtzee), Greek (``el``, 001), Estonian (``et``, 002) and Telugu (``te``, 003).

Category names come from those documents wherever they name the category; every such choice, and every name made
up where a document is silent, is noted beside it. Interface messages are our own translations, held by a
:class:`Catalogue`: this module's :data:`MESSAGES` are the environments' (scorecards, moves in words); the tools'
texts (``yacht replay``, ``yacht play``) live with the tools, in :mod:`yacht_tools.messages`, a catalogue that
extends this one. A language may leave a key out; :func:`text` then falls back to English. Messages with
``{placeholders}`` are filled by :func:`fmt`.

:func:`display_width` and :func:`pad` measure text as a terminal shows it (combining marks take no column, wide
characters two), so scorecards in Telugu line up.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from yacht_env.rules import RuleSet, get_rules

LANGUAGES: dict[str, str] = {
    "en": "English",
    "ms": "Bahasa Melayu",
    "el": "Ελληνικά",
    "et": "Eesti",
    "te": "తెలుగు",
}

# Names of every category id. The six upper boxes and the categories Yacht shares with Yahtzee and Yatzy
# (full_house, four_of_a_kind) carry their Yacht name here; RULES_OVERRIDES replaces those that a rule set names
# differently. Knizia's Yacht has Yacht's ids and takes Yacht's names (no document in these languages names its
# boxes; OpenSpiel's English labels "Chance", "Small/Large Straight" are for the same boxes as Yacht's "Choice",
# "Little/Big Straight", and we keep one name per id).
# Yatzy has no document in any of these languages: its names are our choice, noted per language. Its boxes shared
# with Yahtzee (three/four of a kind, straights, full house, chance) take the Yahtzee names, its own boxes are
# One Pair, Two Pairs and Yatzy (the English names of the Scandinavian scorecard; "Yatzy" is kept in every
# language, as "Yacht" and "Yahtzee" are).
CATEGORY_NAMES: dict[str, dict[str, str]] = {
    "en": {
        "ones": "Ones", "twos": "Twos", "threes": "Threes", "fours": "Fours", "fives": "Fives", "sixes": "Sixes",
        "full_house": "Full House", "four_of_a_kind": "Four of a Kind", "little_straight": "Little Straight",
        "big_straight": "Big Straight", "choice": "Choice", "yacht": "Yacht",
        "three_of_a_kind": "Three of a Kind", "small_straight": "Small Straight",
        "large_straight": "Large Straight", "yahtzee": "Yahtzee", "chance": "Chance",
        "one_pair": "One Pair", "two_pairs": "Two Pairs", "yatzy": "Yatzy",
    },
    # Malay. Yacht (000): the document names the number boxes in Malay ("Satu, Dua, Tiga, Empat, Lima dan Enam")
    # and keeps the English names of the six combination boxes ("Full House", "Four of a Kind", "Little Straight",
    # "Big Straight", "Choice", "Yacht"); we use its terms as written. Yahtzee (004) names all its boxes in Malay:
    # "Aces (Satu)", "Dua" .. "Enam", "3 Jenis", "4 Jenis", "Full House" (its body text also says "Rumah Penuh",
    # accepted as an alias), "Lurus Kecil", "Lurus Besar", "Yahtzee!" (written here without the "!", accepted with
    # it), "Peluang". Yatzy (our choice): "Satu Pasang" and "Dua Pasang" ("pasang": a pair), the Yahtzee
    # document's terms for the shared boxes ("4 Jenis" through RULES_OVERRIDES).
    "ms": {
        "ones": "Satu", "twos": "Dua", "threes": "Tiga", "fours": "Empat", "fives": "Lima", "sixes": "Enam",
        "full_house": "Full House", "four_of_a_kind": "Four of a Kind", "little_straight": "Little Straight",
        "big_straight": "Big Straight", "choice": "Choice", "yacht": "Yacht",
        "three_of_a_kind": "3 Jenis", "small_straight": "Lurus Kecil", "large_straight": "Lurus Besar",
        "yahtzee": "Yahtzee", "chance": "Peluang",
        "one_pair": "Satu Pasang", "two_pairs": "Dua Pasang", "yatzy": "Yatzy",
    },
    # Greek. Yacht (001): "Άσσοι, Δυάρια, Τριάρια, Τεσσάρια, Πεντάρια, Εξάρια", "Full House" (kept in English by
    # the document), "Καρέ", "Μικρή κέντα", "Μεγάλη κέντα", "Επιλογή", "Yacht". There is no Greek Yahtzee document:
    # the boxes Yahtzee shares with Yacht keep the Yacht document's terms (its straights are "Μικρή/Μεγάλη κέντα"
    # too, the poker word for a straight); Three of a Kind is "Τριάδα" (the Greek poker term, beside "Καρέ" for
    # four), Chance is "Τύχη" (a literal translation: "Επιλογή" is Yacht's Choice), Yahtzee keeps its name.
    # Yatzy (our choice): "Ζευγάρι" and "Δύο ζευγάρια", the Greek poker terms for one pair and two pairs.
    "el": {
        "ones": "Άσσοι", "twos": "Δυάρια", "threes": "Τριάρια", "fours": "Τεσσάρια", "fives": "Πεντάρια",
        "sixes": "Εξάρια", "full_house": "Full House", "four_of_a_kind": "Καρέ", "little_straight": "Μικρή κέντα",
        "big_straight": "Μεγάλη κέντα", "choice": "Επιλογή", "yacht": "Yacht",
        "three_of_a_kind": "Τριάδα", "small_straight": "Μικρή κέντα", "large_straight": "Μεγάλη κέντα",
        "yahtzee": "Yahtzee", "chance": "Τύχη",
        "one_pair": "Ζευγάρι", "two_pairs": "Δύο ζευγάρια", "yatzy": "Yatzy",
    },
    # Estonian. Yacht (002): "Ühed, Kahed, Kolmed, Neljad, Viied, Kuued", "Full House" (kept in English by the
    # document), "Neli ühesugust", "Väike rida", "Suur rida", "Valik", "Yacht". No Estonian Yahtzee document:
    # shared boxes keep the Yacht terms, the straights are "Väike rida" / "Suur rida" as in Yacht, Three of a Kind
    # is "Kolm ühesugust" (formed like the document's "Neli ühesugust"), Chance is "Juhus" (the usual Estonian
    # word for the chance box; "Valik" is Yacht's Choice), Yahtzee keeps its name. Yatzy (our choice): "Paar" and
    # "Kaks paari" (a pair, two pairs).
    "et": {
        "ones": "Ühed", "twos": "Kahed", "threes": "Kolmed", "fours": "Neljad", "fives": "Viied", "sixes": "Kuued",
        "full_house": "Full House", "four_of_a_kind": "Neli ühesugust", "little_straight": "Väike rida",
        "big_straight": "Suur rida", "choice": "Valik", "yacht": "Yacht",
        "three_of_a_kind": "Kolm ühesugust", "small_straight": "Väike rida", "large_straight": "Suur rida",
        "yahtzee": "Yahtzee", "chance": "Juhus",
        "one_pair": "Paar", "two_pairs": "Kaks paari", "yatzy": "Yatzy",
    },
    # Telugu. Yacht (003): the number boxes are "ఒకటి, రెండు, మూడు, నాలుగు, ఐదు మరియు ఆరు"; the document keeps
    # every combination box in English ("Full House", "Four of a Kind", "Little Straight", "Big Straight",
    # "Choice", "Yacht"), and so do we. No Telugu Yahtzee document: following the Yacht document's practice the
    # Yahtzee-only and Yatzy-only boxes keep their English names too (for Yatzy, our choice).
    "te": {
        "ones": "ఒకటి", "twos": "రెండు", "threes": "మూడు", "fours": "నాలుగు", "fives": "ఐదు", "sixes": "ఆరు",
        "full_house": "Full House", "four_of_a_kind": "Four of a Kind", "little_straight": "Little Straight",
        "big_straight": "Big Straight", "choice": "Choice", "yacht": "Yacht",
        "three_of_a_kind": "Three of a Kind", "small_straight": "Small Straight", "large_straight": "Large Straight",
        "yahtzee": "Yahtzee", "chance": "Chance",
        "one_pair": "One Pair", "two_pairs": "Two Pairs", "yatzy": "Yatzy",
    },
}
# Yahtzee names that differ from the Yacht name of the same id.
YAHTZEE_OVERRIDES: dict[str, dict[str, str]] = {
    "en": {"ones": "Aces"},
    # 004 heads the box "Aces (Satu)" and the four-of-a-kind box "4 Jenis"
    "ms": {"ones": "Aces (Satu)", "four_of_a_kind": "4 Jenis"},
}
# Yatzy names that differ from the Yacht name of the same id (our choice: the Yahtzee document's "4 Jenis", beside
# its "3 Jenis"; the number boxes keep the Yacht document's "Satu".."Enam").
YATZY_OVERRIDES: dict[str, dict[str, str]] = {
    "ms": {"four_of_a_kind": "4 Jenis"},
}
# Per rule-set family: the names that replace the Yacht name of an id. A rule set takes the overrides of its name,
# or of the part of its name before the first "-" ("yahtzee-free-joker" takes those of "yahtzee").
RULES_OVERRIDES: dict[str, dict[str, dict[str, str]]] = {"yahtzee": YAHTZEE_OVERRIDES, "yatzy": YATZY_OVERRIDES}
# Further names a player may type for a category (matched by play's command parser, never displayed).
CATEGORY_ALIASES: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {"ones": ("Aces",), "yahtzee": ("Yahtzee!",)},
    "ms": {"ones": ("Aces", "Satu"), "full_house": ("Rumah Penuh",), "yahtzee": ("Yahtzee!",),
           "three_of_a_kind": ("3 of a Kind",)},
}

# Messages of the environments' own text rendering (render_mode "ansi"/"human" and yacht_env.render). The tools'
# texts (replay, play) are in yacht_tools.messages, looked up through the same Catalogue.
MESSAGES: dict[str, dict[str, str]] = {
    "en": {
        "dice": "Dice", "rolls_left": "Rolls left", "turn": "Turn", "total": "Total", "upper_total": "Upper total",
        "upper_bonus": "Upper bonus", "yahtzee_bonus": "Yahtzee bonus", "game_over": "Game over",
        "category": "Category", "score": "Score", "now": "Now", "players": "{n} players",
        "winner": "Winner: {who} with {total}.", "tie": "Tie at {total}: {who}.", "act_keep": "keep {dice}",
        "act_reroll_all": "reroll all", "act_score": "score {category}",
        "last_move": "Last move", "ignored": "illegal, ignored",
    },
    "ms": {
        "dice": "Dadu", "rolls_left": "Baki balingan", "turn": "Giliran", "total": "Jumlah",
        "upper_total": "Jumlah Bahagian Atas", "upper_bonus": "Bonus Bahagian Atas", "yahtzee_bonus": "Bonus Yahtzee",
        "game_over": "Permainan tamat", "category": "Kategori", "score": "Skor", "now": "Kini", "players": "{n} pemain",
        "winner": "Pemenang: {who} dengan {total}.", "tie": "Seri pada {total}: {who}.", "act_keep": "simpan {dice}",
        "act_reroll_all": "baling semula semua", "act_score": "skor {category}",
        "last_move": "Langkah terakhir", "ignored": "tidak sah, diabaikan",
    },
    "el": {
        "dice": "Ζάρια", "rolls_left": "Υπόλοιπες ρίψεις", "turn": "Γύρος", "total": "Σύνολο",
        "upper_total": "Σύνολο Άνω Τμήματος", "upper_bonus": "Μπόνους Άνω Τμήματος", "yahtzee_bonus": "Μπόνους Yahtzee",
        "game_over": "Τέλος παιχνιδιού", "category": "Κατηγορία", "score": "Πόντοι", "now": "Τώρα",
        "players": "{n} παίκτες", "winner": "Νικητής: {who} με {total}.", "tie": "Ισοπαλία με {total}: {who}.",
        "act_keep": "κράτα {dice}", "act_reroll_all": "ξαναρίξε όλα", "act_score": "γράψε {category}",
        "last_move": "Τελευταία κίνηση", "ignored": "μη έγκυρη, αγνοήθηκε",
    },
    "et": {
        "dice": "Täringud", "rolls_left": "Veeretusi jäänud", "turn": "Käik", "total": "Kokku",
        "upper_total": "Ülemine osa kokku", "upper_bonus": "Ülemise osa boonus", "yahtzee_bonus": "Yahtzee boonus",
        "game_over": "Mängu lõpp", "category": "Kategooria", "score": "Punktid", "now": "Nüüd",
        "players": "{n} mängijat", "winner": "Võitja: {who}, {total} punkti.", "tie": "Viik, {total} punkti: {who}.",
        "act_keep": "hoia {dice}", "act_reroll_all": "veereta kõik uuesti", "act_score": "vali {category}",
        "last_move": "Viimane käik", "ignored": "reeglitevastane, eiratud",
    },
    "te": {
        "dice": "డైస్", "rolls_left": "మిగిలిన రోల్స్", "turn": "టర్న్", "total": "మొత్తం",
        "upper_total": "Upper Section మొత్తం", "upper_bonus": "Upper Section బోనస్", "yahtzee_bonus": "Yahtzee బోనస్",
        "game_over": "ఆట ముగిసింది", "category": "విభాగం", "score": "స్కోర్", "now": "ఇప్పుడు",
        "players": "{n} ఆటగాళ్లు", "winner": "విజేత: {who}, {total} పాయింట్లతో.", "tie": "{total} వద్ద టై: {who}.",
        "act_keep": "{dice} ఉంచుకో", "act_reroll_all": "అన్నీ మళ్లీ వేయి", "act_score": "{category} ఎంచుకో",
        "last_move": "చివరి కదలిక", "ignored": "చెల్లదు, విస్మరించబడింది",
    },
}


def check_lang(lang: str) -> str:
    """Return ``lang`` if it is a language of :data:`LANGUAGES`, else ``ValueError`` naming those accepted."""
    if not isinstance(lang, str) or lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; accepted: {', '.join(LANGUAGES)}")
    return lang


def _translated_name(category: str, lang: str, rules: str) -> str | None:
    """The name this module gives a built-in box id in ``lang`` under the rule set named ``rules`` (Yahtzee and
    Yatzy name some boxes differently: :data:`RULES_OVERRIDES`); None for an id no built-in rule set has."""
    if category not in CATEGORY_NAMES["en"]:
        return None
    overrides = RULES_OVERRIDES.get(rules) or RULES_OVERRIDES.get(rules.split("-", 1)[0])
    if overrides:
        for lg in (lang, "en"):
            if category in overrides.get(lg, {}):
                return overrides[lg][category]
            if category in CATEGORY_NAMES.get(lg, {}):
                break  # the language names it and has no Yahtzee override: its Yacht name stands
    return CATEGORY_NAMES.get(lang, {}).get(category) or CATEGORY_NAMES["en"][category]


def category_name(category: str, lang: str = "en", rules: str | RuleSet = "yacht") -> str:
    """Display name of box ``category`` of ``rules`` in ``lang``. The rule set holds each box's (English) name
    (:attr:`Category.name <yacht_env.rules.Category.name>`); a box this module translates under that same name is
    shown translated, any other (a registered rule set's box of its own, or a built-in id renamed) by the rule
    set's name for it in every language. ``ValueError`` names the rule set's ids for an id it does not have."""
    check_lang(lang)
    rs = get_rules(rules)
    own = rs.categories[rs.category_index(category)].name
    if lang == "en":
        return own
    translated = _translated_name(category, lang, rs.name)
    return translated if translated is not None and _translated_name(category, "en", rs.name) == own else own


def category_aliases(category: str, lang: str = "en") -> tuple[str, ...]:
    """Extra names a player may type for ``category`` in ``lang`` (English aliases always count)."""
    out = list(CATEGORY_ALIASES["en"].get(category, ()))
    if lang != "en":
        out += CATEGORY_ALIASES.get(lang, {}).get(category, ())
    return tuple(out)


@dataclass(frozen=True)
class Catalogue:
    """Interface messages by language, ``messages[lang][key]``; English is the reference and the fallback of a
    language that leaves a key out. A key this catalogue lacks is looked up in ``base``: the tools' catalogue
    (:mod:`yacht_tools.messages`) extends this module's :data:`ENV_TEXT`, one mechanism for both."""

    messages: Mapping[str, Mapping[str, str]]
    base: Catalogue | None = None

    def keys(self) -> set[str]:
        """Every key this catalogue and its base answer."""
        return set(self.messages["en"]) | (self.base.keys() if self.base is not None else set())

    def text(self, key: str, lang: str = "en") -> str:
        """Message ``key`` in ``lang`` (English if that language lacks it)."""
        check_lang(lang)
        if key not in self.messages["en"]:
            if self.base is None:
                raise KeyError(f"no interface message {key!r}")
            return self.base.text(key, lang)
        return self.messages.get(lang, {}).get(key) or self.messages["en"][key]

    def fmt(self, key: str, lang: str = "en", **values: object) -> str:
        """Message ``key`` in ``lang`` with its ``{placeholders}`` filled from ``values``."""
        return self.text(key, lang).format(**values)


ENV_TEXT = Catalogue(MESSAGES)
"""The environments' messages."""


def text(key: str, lang: str = "en") -> str:
    """The environments' message ``key`` in ``lang`` (English if that language lacks it)."""
    return ENV_TEXT.text(key, lang)


def fmt(key: str, lang: str = "en", **values: object) -> str:
    """The environments' message ``key`` in ``lang`` with its ``{placeholders}`` filled from ``values``."""
    return ENV_TEXT.fmt(key, lang, **values)


def display_width(s: str) -> int:
    """Columns ``s`` takes in a terminal: combining marks and format characters 0, wide characters 2, others 1."""
    w = 0
    for ch in s:
        cat = unicodedata.category(ch)
        if cat in ("Mn", "Me", "Cf"):
            continue
        w += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return w


def pad(s: str, width: int, align: str = "<") -> str:
    """``s`` padded with spaces to ``width`` display columns (``align`` ``<`` left, ``>`` right)."""
    fill = " " * max(0, width - display_width(s))
    return fill + s if align == ">" else s + fill
