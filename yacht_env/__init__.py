"""yacht-env: Yacht and Yahtzee as Gymnasium environments, with exact rules and tools around them.

``import yacht_env`` registers a Gymnasium id for every rule set (:data:`ENV_IDS`): ``Yacht-v0``, ``Yahtzee-v1``,
``YahtzeeFreeJoker-v1``, ... (:mod:`yacht_env.registration`).
"""

from __future__ import annotations

from yacht_env.registration import ENV_IDS, register_ids
from yacht_env.rules import RULESETS, get_rules, score
from yacht_env.state import GameState, new_game, parse, reroll, score_category

__version__ = "0.2.0"

register_ids()

__all__ = ["ENV_IDS", "RULESETS", "GameState", "get_rules", "new_game", "parse", "reroll", "score",
           "score_category", "__version__"]
