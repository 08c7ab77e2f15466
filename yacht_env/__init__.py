"""yacht-env: Yacht and Yahtzee as Gymnasium environments, with exact rules and tools around them.

``import yacht_env`` registers a Gymnasium id for every rule set (:data:`ENV_IDS`): ``Yacht-v0``, ``Yahtzee-v1``,
``YahtzeeFreeJoker-v1``, ...
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from yacht_env.rules import RULESETS, get_rules, score
from yacht_env.state import GameState, new_game, parse, reroll, score_category

__version__ = "0.2.0"

ENV_IDS: dict[str, str] = {name: rs.env_id for name, rs in RULESETS.items() if rs.env_id}
"""Rule-set name -> Gymnasium id, from the definitions (:attr:`RuleSet.env_id`)."""

for _rules, _id in ENV_IDS.items():
    if _id not in registry:
        register(id=_id, entry_point="yacht_env.env:YachtEnv",
                 vector_entry_point="yacht_env.vector.env:YachtVectorEnv", kwargs={"rules": _rules})

__all__ = ["ENV_IDS", "RULESETS", "GameState", "get_rules", "new_game", "parse", "reroll", "score",
           "score_category", "__version__"]
