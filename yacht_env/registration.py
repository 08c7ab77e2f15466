"""The Gymnasium ids of the rule sets: each id makes the game of its one rule set.

:func:`register_ids` registers, for every rule set with an :attr:`~yacht_env.rules.RuleSet.env_id`, the single
environment and the vector engine under that id, with ``max_episode_steps`` the length of the longest legal game
(:func:`yacht_env.state.longest_game`): ``gym.make(id)`` adds Gymnasium's ``TimeLimit`` at that length, which a game
of legal actions never passes, so ``TimeAwareObservation`` applies as it does to any registered id. An id's rules
are fixed: a ``rules`` argument naming other rules is refused, naming the id that plays them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gymnasium.envs.registration import register, registry

from yacht_env.rules import RULESETS, RuleSet, get_rules
from yacht_env.state import longest_game

if TYPE_CHECKING:
    from yacht_env.env import YachtEnv
    from yacht_env.vector.env import YachtVectorEnv

ENV_IDS: dict[str, str] = {name: rs.env_id for name, rs in RULESETS.items() if rs.env_id}
"""Rule-set name -> Gymnasium id, from the definitions (:attr:`RuleSet.env_id`)."""
_ID_RULES = {env_id: name for name, env_id in ENV_IDS.items()}


def rules_of_id(env_id: str, rules: str | RuleSet | None = None) -> RuleSet:
    """The rule set of ``env_id``; ``rules`` (what a caller of ``gym.make(env_id, rules=...)`` passed) must be that
    rule set, else ``ValueError`` naming the id that plays it (or, for rules without an id, the class to make)."""
    own = RULESETS[_ID_RULES[env_id]]
    if rules is None:
        return own
    asked = get_rules(rules)
    if asked == own:
        return own
    use = (f"gym.make({asked.env_id!r})" if asked.env_id else
           "yacht_env.env.YachtEnv(rules=...) or yacht_env.vector.YachtVectorEnv(n, rules=...), which have no id")
    raise ValueError(f"{env_id} plays the {own.name!r} rules, its rules are fixed; for rules={asked.name!r} "
                     f"use {use}")


def make_env(env_id: str, rules: str | RuleSet | None = None, **kwargs: Any) -> YachtEnv:
    """``gym.make(env_id, **kwargs)``: the single environment of the id's rules (see :func:`rules_of_id`)."""
    from yacht_env.env import YachtEnv  # on the first make: ``import yacht_env`` stays light

    return YachtEnv(rules=rules_of_id(env_id, rules).name, **kwargs)


def make_vector_env(env_id: str, num_envs: int = 1, rules: str | RuleSet | None = None,
                    **kwargs: Any) -> YachtVectorEnv:
    """``gym.make_vec(env_id, num_envs, vectorization_mode="vector_entry_point", **kwargs)``: the vector engine of
    the id's rules (see :func:`rules_of_id`)."""
    from yacht_env.vector.env import YachtVectorEnv

    return YachtVectorEnv(num_envs, rules=rules_of_id(env_id, rules).name, **kwargs)


def register_ids() -> None:
    """Register every id of :data:`ENV_IDS` not yet registered (``import yacht_env`` does)."""
    for name, env_id in ENV_IDS.items():
        if env_id not in registry:
            # entry points as strings, so that a spec round-trips through EnvSpec.to_json / from_json
            register(id=env_id, entry_point=f"{__name__}:make_env", vector_entry_point=f"{__name__}:make_vector_env",
                     kwargs={"env_id": env_id, "rules": name}, max_episode_steps=longest_game(name))


__all__ = ["ENV_IDS", "make_env", "make_vector_env", "register_ids", "rules_of_id"]
