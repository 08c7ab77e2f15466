"""stable-baselines3 / sb3-contrib models as agents: ours (``train.py``) and anyone's trained on our environments.

A model file is read by :mod:`yacht_agents.sb3_zip`, which never unpickles anything from it; the policy acts through
:func:`action_scores` and :func:`greedy_actions` here (torch and SB3 imported when they are called). A model saved by
``train.py`` carries ``yacht_env_meta`` (rules, observation layout, action count, unique_keeps) in its zip, checked
against the rules asked for; any other SB3 model (MaskablePPO, PPO, A2C, DQN) is checked by its observation and
action spaces instead. The agent plays the model's best legal action: the most likely one of the policy's masked
distribution, or the best legal Q-value (DQN): deterministic, batched.

Observation layout versions (:data:`yacht_env.observation.LAYOUT_VERSION`): ``train.py`` records the version as
``obs_layout`` in the metadata; a model without it was saved with layout 1 (so were the shipped PPO models). Each
version only appends columns, so a model of an older layout plays on the first ``size(rules, version)`` columns of
today's observations (:class:`SB3Agent`'s ``obs_layout``); a model without metadata is told by its observation
width. Anything else is refused with the layouts accepted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from yacht_agents.base import Agent
from yacht_env import dice as D
from yacht_env import multiplayer as MP
from yacht_env import observation as O
from yacht_env.actions import KEEP_ALL, NUM_KEEP_ACTIONS, num_actions
from yacht_env.rules import RuleSet, get_rules
from yacht_env.state import GameState

META_KEY = "yacht_env_meta"
META_VERSION = 1


def model_meta(rules: str | RuleSet, unique_keeps: bool = True, players: int = 1) -> dict[str, Any]:
    """The metadata a model needs to be used safely: what it was trained on (``obs_layout``: the observation layout
    version, :data:`yacht_env.observation.LAYOUT_VERSION`; ``players``: 2 for a heads-up model, which reads the
    observation of :mod:`yacht_env.multiplayer`)."""
    rs = get_rules(rules)
    meta = {
        "version": META_VERSION,
        "rules": rs.name,
        "obs_layout": O.LAYOUT_VERSION,
        "observation_layout": {k: [s.start, s.stop] for k, s in _layout(rs, players).items()},
        "num_actions": num_actions(rs),
        "unique_keeps": bool(unique_keeps),
    }
    if players != 1:  # only then: the metadata of one-player models stays as it was
        meta["players"] = players
    return meta


def _layout(rules: RuleSet, players: int) -> dict[str, slice]:
    """The observation layout a model of ``players`` reads: the single-player one, or the multiplayer one."""
    return O.layout(rules) if players == 1 else MP.layout(rules, players)


def model_players(meta: dict[str, Any] | None, source: str) -> int:
    """The seats a model plays at: its metadata's ``players`` (1 where absent), 1 or 2, else ``ValueError``."""
    players = (meta or {}).get("players", 1)
    if type(players) is not int or players not in (1, 2):
        raise ValueError(f"{source} says it plays in games of {players!r} players; this version of yacht-env reads "
                         "models of 1 or 2")
    return players


def check_meta(meta: dict[str, Any] | None, rules: RuleSet, source: str) -> int:
    """The observation layout version of a model (``obs_layout`` of its metadata; where absent, saved before the
    version was recorded, the version whose slices its ``observation_layout`` lists), after checking that the
    metadata fits ``rules`` and that layout; ``ValueError`` otherwise."""
    if not meta:
        raise ValueError(f"{source} has no {META_KEY}: it was not saved by train.py, so its rules and observation "
                         "layout are unknown")
    if meta.get("rules") != rules.name:
        raise ValueError(f"{source} was trained for rules {meta.get('rules')!r}, not {rules.name!r}")
    listed = meta.get("observation_layout")
    players = model_players(meta, source)
    if players != 1:
        want = {k: [s.start, s.stop] for k, s in _layout(rules, players).items()}
        if listed != want or meta.get("num_actions") != num_actions(rules):
            raise ValueError(f"{source} was trained with another observation layout or action space than the "
                             f"{players}-player game of yacht-env ({listed} vs {want})")
        return O.LAYOUT_VERSION
    version = meta.get("obs_layout", next(
        (v for v in O.LAYOUT_VERSIONS if listed == {k: [s.start, s.stop] for k, s in O.layout(rules, v).items()}), 1))
    if type(version) is not int or version not in O.LAYOUT_VERSIONS:
        raise ValueError(f"{source} has observation layout version (obs_layout) {version!r}; this version of "
                         f"yacht-env reads {', '.join(map(str, O.LAYOUT_VERSIONS))}")
    want = {k: [s.start, s.stop] for k, s in O.layout(rules, version).items()}
    if listed != want or meta.get("num_actions") != num_actions(rules):
        raise ValueError(f"{source} was trained with another observation layout or action space than layout "
                         f"version {version} of yacht-env ({meta.get('observation_layout')} vs {want})")
    return version


def layout_of_width(width: int, rules: RuleSet) -> int | None:
    """The newest observation layout version of ``rules`` whose observation has ``width`` columns (None if none
    has): how a model without metadata says which layout it was trained on."""
    return next((v for v in sorted(O.LAYOUT_VERSIONS, reverse=True) if O.size(rules, v) == width), None)


def check_spaces(observation_space: Any, action_space: Any, rules: RuleSet, source: str) -> int:
    """The observation layout version a model's spaces fit (its observation is that many first columns of the
    environment's; :func:`layout_of_width`); ``ValueError`` unless they are those of the environment of ``rules``
    in some layout version."""
    want_act = num_actions(rules)
    got_obs = tuple(getattr(observation_space, "shape", ()) or ())
    got_act = getattr(action_space, "n", None)
    version = layout_of_width(got_obs[0], rules) if len(got_obs) == 1 else None
    if version is None:
        widths = sorted({(O.size(rules, v),) for v in O.LAYOUT_VERSIONS})
        raise ValueError(f"{source} expects observations of shape {got_obs}; the {rules.name} environment gives "
                         f"{(O.size(rules),)} (layout {O.LAYOUT_VERSION}; accepted: "
                         f"{', '.join(map(str, widths))}, one per layout version)")
    if got_act is None or int(got_act) != want_act:
        raise ValueError(f"{source} has the action space {action_space}; the {rules.name} environment has "
                         f"Discrete({want_act})")
    return version


def model_observation_space(env_space: Any, rules: RuleSet, version: int = O.LAYOUT_VERSION) -> Any:
    """The environment's observation space ``env_space`` as a model of layout ``version`` sees it: its first
    ``size(rules, version)`` columns (the space itself for the newest layout)."""
    from gymnasium import spaces

    n = O.size(rules, version)
    if n == env_space.shape[0]:
        return env_space
    return spaces.Box(env_space.low[:n], env_space.high[:n], dtype=env_space.dtype)


# ==== acting ==========================================================================================================


def _batch(policy: Any, obs: np.ndarray, masks: np.ndarray | None) -> tuple[Any, np.ndarray | None]:
    import torch as th

    obs = np.asarray(obs, dtype=np.float32)
    shape = tuple(policy.observation_space.shape)
    if obs.ndim != 1 + len(shape) or obs.shape[1:] != shape:
        raise ValueError(f"observations must have shape (N, {', '.join(map(str, shape))}), got {obs.shape}")
    if masks is not None:
        masks = np.asarray(masks, dtype=bool)
        n = int(policy.action_space.n)
        if masks.shape != (len(obs), n):
            raise ValueError(f"masks must have shape ({len(obs)}, {n}), got {masks.shape}")
        empty = np.flatnonzero(~masks.any(axis=1))
        if empty.size:
            raise ValueError(f"mask row {int(empty[0])} allows no action")
    return th.as_tensor(obs, device=policy.device), masks


def _where_legal(scores: Any, masks: np.ndarray | None) -> Any:
    import torch as th

    if masks is None:
        return scores
    return th.where(th.as_tensor(masks, device=scores.device), scores, th.full_like(scores, -math.inf))


def _kind(policy: Any) -> str:
    """``dqn``, ``maskable`` or ``actor_critic``: how a policy gives its action preferences."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.policies import ActorCriticPolicy
    from stable_baselines3.dqn.policies import DQNPolicy

    for cls, kind in ((DQNPolicy, "dqn"), (MaskableActorCriticPolicy, "maskable"), (ActorCriticPolicy, "actor_critic")):
        if isinstance(policy, cls):
            return kind
    raise ValueError(f"an actor-critic or DQN policy is needed, not {type(policy).__name__}")


def action_scores(policy: Any, obs: np.ndarray, masks: np.ndarray | None = None) -> np.ndarray:
    """(N, A) float32 action preferences: the policy's logits (log-probabilities) for actor-critic policies, the
    Q-values for DQN; ``-inf`` where ``masks`` (N, A bool) forbids. Argmax over a row is the greedy legal action
    (:func:`greedy_actions` breaks near-ties exactly as SB3's ``predict`` does)."""
    import torch as th

    kind = _kind(policy)
    with th.no_grad():
        x, masks = _batch(policy, obs, masks)
        if kind == "dqn":
            scores = policy.q_net(x)
        else:
            scores = (policy.get_distribution(x, None) if kind == "maskable" else policy.get_distribution(x)
                      ).distribution.logits
        return _where_legal(scores, masks).cpu().numpy().astype(np.float32)


def greedy_actions(policy: Any, obs: np.ndarray, masks: np.ndarray | None = None) -> np.ndarray:
    """(N,) int64 deterministic actions among the legal ones: for MaskablePPO policies exactly
    ``predict(obs, action_masks=masks, deterministic=True)`` (the mode of the masked distribution); for PPO/A2C and
    DQN without masks exactly their ``predict(deterministic=True)``, with masks the best legal logit / Q-value."""
    import torch as th

    kind = _kind(policy)
    with th.no_grad():
        x, masks = _batch(policy, obs, masks)
        if kind == "dqn":
            actions = _where_legal(policy.q_net(x), masks).argmax(dim=1)
        elif kind == "maskable":
            actions = policy.get_distribution(x, masks).mode()
        else:
            dist = policy.get_distribution(x)
            actions = dist.mode() if masks is None else _where_legal(dist.distribution.logits, masks).argmax(dim=1)
        return actions.cpu().numpy().astype(np.int64)


class SafePolicyModel:
    """A loaded policy with the ``predict`` of an SB3 model, so that code written for ``MaskablePPO.load`` can use
    it: ``predict(obs, action_masks=masks, deterministic=True) -> (actions, None)``."""

    def __init__(self, policy: Any, info: Any) -> None:
        self.policy = policy
        self.info = info
        if info.yacht_env_meta is not None:
            self.yacht_env_meta = info.yacht_env_meta

    @classmethod
    def load(cls, path: str | Path, observation_space: Any, action_space: Any, *, strict: bool = True
             ) -> SafePolicyModel:
        """:func:`yacht_agents.sb3_zip.load_sb3_policy` wrapped."""
        from yacht_agents.sb3_zip import load_sb3_policy

        return cls(*load_sb3_policy(path, observation_space, action_space, strict=strict))

    def predict(self, observation: np.ndarray, state: Any = None, episode_start: Any = None,
                deterministic: bool = True, action_masks: np.ndarray | None = None) -> tuple[np.ndarray, None]:
        obs = np.asarray(observation, dtype=np.float32)
        single = obs.ndim == len(self.policy.observation_space.shape)
        if single:
            obs = obs[None]
            action_masks = None if action_masks is None else np.asarray(action_masks).reshape(1, -1)
        if deterministic:
            actions = greedy_actions(self.policy, obs, action_masks)
        elif _kind(self.policy) == "dqn":
            raise ValueError("a DQN policy has no action distribution to sample: use deterministic=True")
        else:
            import torch as th

            with th.no_grad():
                logits = th.as_tensor(action_scores(self.policy, obs, action_masks))
                actions = th.distributions.Categorical(logits=logits).sample().numpy().astype(np.int64)
        return (actions[0] if single else actions), None


class SB3Agent(Agent):
    """An SB3 policy (``policy``: a loaded policy module, or the ``.policy`` of a model object) as an agent.

    A model trained with every keep pattern legal (``unique_keeps=False``) still plays under the default mask of
    one pattern per kept multiset: it chooses among every pattern, and its choice is mapped to the pattern that
    the mask allows for the same dice. A model of an older observation layout (``obs_layout``) is fed the first
    ``size(rules, obs_layout)`` columns of each observation: each layout version only appends columns.
    """

    batched = True

    def __init__(self, policy: Any, rules: str | RuleSet, name: str = "sb3", unique_keeps: bool = True,
                 obs_layout: int = O.LAYOUT_VERSION, players: int = 1) -> None:
        super().__init__(rules)
        self.policy = policy
        self.name = name
        self.unique_keeps = unique_keeps
        self.obs_layout = obs_layout
        self.players = players
        if players == 1:
            self.obs_columns = O.size(self.rules, obs_layout)
        else:  # a heads-up model: it reads the multiplayer observation and plays only in a game of its size
            self.obs_columns = MP.size(self.rules, players)
            self.multiplayer_obs = True
            self.max_players = players

    def act(self, obs: np.ndarray, mask: np.ndarray, state: GameState | None = None) -> int:
        return int(self.act_batch(np.asarray(obs)[None], np.asarray(mask)[None])[0])

    def choose(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's best legal action of each row (:func:`greedy_actions`)."""
        return greedy_actions(self.policy, obs, masks)

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, states: Sequence[GameState] | None = None
                  ) -> np.ndarray:
        obs = np.asarray(obs, dtype=np.float32)
        masks = np.asarray(masks, dtype=bool)
        if self.players != 1 and obs.shape[-1] != self.obs_columns:
            raise ValueError(f"{self.name} plays in games of {self.players} players (it reads the multiplayer "
                             f"observation, {self.obs_columns} columns), not a game alone: put it in a tournament "
                             "or yacht bench evaluate --tasks yacht-heads-up")
        if not self.unique_keeps:  # the model knows every pattern: offer them all, then map back
            masks = masks.copy()
            rolling = masks[:, :KEEP_ALL].any(axis=1)
            masks[rolling, :KEEP_ALL] = True
        actions = np.asarray(self.choose(obs[:, : self.obs_columns], masks), dtype=np.int64).reshape(len(masks))
        if not self.unique_keeps:
            keep = actions < NUM_KEEP_ACTIONS
            hands = O.decode_batch(obs[keep], self.rules).hand
            actions[keep] = D.CANONICAL_PATTERN[hands, actions[keep]]
        return actions


def load_sb3_agent(path: str | Path, rules: str | RuleSet, seed: int | None = None) -> SB3Agent:
    """An SB3 model file (a ``.zip``) as an agent for ``rules``, read without running anything from it: checked by
    its ``yacht_env_meta`` where ``train.py`` saved one, else by its observation and action spaces."""
    from yacht_agents import model_free, turn_policy  # noqa: F401 - register the project's own policy classes
    from yacht_agents.sb3_zip import inspect_sb3_zip, load_sb3_policy
    from yacht_env.env import YachtEnv

    rs, path = get_rules(rules), Path(path)
    source = repr(str(path))
    try:
        info = inspect_sb3_zip(path)
    except ValueError as e:
        raise ValueError(f"cannot load {source} as a stable-baselines3 model: {str(e).removeprefix(source + ': ')}") \
            from None
    players = model_players(info.yacht_env_meta, source)
    if info.yacht_env_meta is not None:
        version = check_meta(info.yacht_env_meta, rs, source)
    else:  # anyone's model: its observation width says the layout
        version = layout_of_width(info.observation_shape[0], rs) if len(info.observation_shape) == 1 else None
        version = O.LAYOUT_VERSION if version is None else version  # the space check below then says what is wrong
    env = YachtEnv(rs.name)
    if players == 1:
        space = model_observation_space(env.observation_space, rs, version)
    else:  # the multiplayer observation, as the PettingZoo env and the heads-up trainer give it
        from gymnasium import spaces

        space = spaces.Box(*MP.bounds(rs, players), dtype=np.float32)
    try:
        policy, _ = load_sb3_policy(path, space, env.action_space)
    except ValueError as e:
        raise ValueError(f"cannot load {source} as a stable-baselines3 model for rules {rs.name!r}: "
                         f"{str(e).removeprefix(source + ': ')}") from None
    unique = bool((info.yacht_env_meta or {}).get("unique_keeps", True))
    agent = SB3Agent(policy, rs, name=path.stem, unique_keeps=unique, obs_layout=version, players=players)
    agent.seed(seed)  # the agent acts deterministically (the policy's best legal action): no global RNG to seed
    return agent
