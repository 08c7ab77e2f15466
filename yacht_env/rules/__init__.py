"""The rules of Yacht and its relatives, as data and pure functions (no gymnasium, no numba).

- :mod:`.categories`: the boxes of a scorecard and how each kind scores a hand;
- :mod:`.ruleset`: :class:`RuleSet`, a rule set as data, and the arrays every engine reads (:class:`ScoringConstants`);
- :mod:`.scoring`: the turn logic on plain integers (legal boxes, Joker, bonuses), the one source of every rule that
  the compiled engine compiles;
- :mod:`.turnstart`: turn-start states (what the rest of the game depends on) and how a box changes them;
- :mod:`.definitions`: the rule sets themselves (:data:`RULESETS`).
"""

from __future__ import annotations

from yacht_env.rules.categories import Category
from yacht_env.rules.definitions import (
    CLUBHOUSE,
    KNIZIA,
    MAX_ACTION_POINTS,
    MAX_CATEGORIES,
    RULESETS,
    YACHT,
    YAHTZEE,
    YAHTZEE_FREE_JOKER,
    YATZY,
    get_rules,
    register_rules,
    score,
    validate_rules,
)
from yacht_env.rules.ruleset import (
    FIVE_KIND_FACE,
    JOKER_FORCED,
    JOKER_FREE,
    JOKER_NONE,
    NUM_UPPER,
    P_FIVE_BONUS,
    P_FIVE_CAT,
    P_JOKER,
    P_NUM_CAT,
    P_UPPER_BONUS,
    P_UPPER_THRESHOLD,
    HandRules,
    RuleSet,
    ScoringConstants,
)
from yacht_env.rules.scoring import TURN_LOGIC, box_score, joker_applies, legal_bits, points_for
from yacht_env.rules.turnstart import TURNSTART_LOGIC, TurnStartLayout, next_turn_start

__all__ = ["CLUBHOUSE", "Category", "FIVE_KIND_FACE", "HandRules", "JOKER_FORCED", "JOKER_FREE", "JOKER_NONE", "KNIZIA",
           "MAX_ACTION_POINTS", "MAX_CATEGORIES",
           "NUM_UPPER", "P_FIVE_BONUS", "P_FIVE_CAT", "P_JOKER", "P_NUM_CAT", "P_UPPER_BONUS", "P_UPPER_THRESHOLD",
           "RULESETS", "RuleSet", "ScoringConstants", "TURNSTART_LOGIC", "TURN_LOGIC", "TurnStartLayout", "YACHT",
           "YAHTZEE", "YAHTZEE_FREE_JOKER", "YATZY", "box_score", "get_rules", "joker_applies", "legal_bits",
           "next_turn_start", "points_for", "register_rules", "score", "validate_rules"]
