"""yacht-env: Yacht and Yahtzee as Gymnasium environments, with exact rules and tools around them.

``import yacht_env`` registers ``Yacht-v0``, ``Yahtzee-v0`` and ``YahtzeeFreeJoker-v0``.
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from yacht_env.rules import RULESETS, get_rules, score
from yacht_env.state import GameState, new_game, parse, reroll, score_category

__version__ = "0.1.0"

ENV_IDS: dict[str, str] = {"yacht": "Yacht-v0", "yahtzee": "Yahtzee-v0", "yahtzee-free-joker": "YahtzeeFreeJoker-v0"}

for _rules, _id in ENV_IDS.items():
    if _id not in registry:
        register(id=_id, entry_point="yacht_env.env:YachtEnv",
                 vector_entry_point="yacht_env.vector.env:YachtVectorEnv", kwargs={"rules": _rules})

__all__ = ["ENV_IDS", "RULESETS", "GameState", "get_rules", "new_game", "parse", "reroll", "score",
           "score_category", "__version__"]
