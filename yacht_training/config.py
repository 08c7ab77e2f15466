"""Training configuration: a typed schema for the YAML files in ``configs/``, validated strictly.

An unknown key or a value of the wrong type fails at once with a message naming the key and what is accepted.
Learning rates and clip ranges accept a number or a linear schedule written ``lin_<start>`` (decays to 0 over the
run), in the spirit of rl-baselines3-zoo; the model-free policy's entropy weights and learning rate also take
``lin_<start>_<end>`` (from start to end over the run).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import re
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, Optional, Union

import pydantic
from pydantic import AfterValidator, Field, StrictBool, StrictFloat, StrictInt, StrictStr

from yacht_agents.nets import ACTIVATIONS, MAX_LAYERS, MAX_NETWORK_NUMBERS, MAX_WIDTH, mlp_weights
from yacht_agents.td_agent import VALUE_SCALE_RANGE
from yacht_env.observation import visible_columns
from yacht_env.rules import RULESETS
from yacht_tools.evaluation import MAX_EPISODES
from yacht_training.learners import LEARNERS, on_register
from yacht_training.schedules import schedule_ends, schedule_value, short_value
from yacht_training.yaml_file import read_yaml

_SCHEMA = pydantic.ConfigDict(extra="forbid")  # and strict types below: pydantic checks the types of a config
_ADAPTER: Any = None  # pydantic's validator of TrainConfig, built on first use
DEVICES = ("cpu", "cuda", "auto", "mps")
MAX_ROLLOUT = 1 << 22
"""The most steps of a PPO rollout (``ppo.n_steps`` x ``n_envs``): the buffer holds every observation of it."""

# The value types of the schema: pydantic checks each range where it reads the value. The upper limits are checked
# before a run folder exists, so that no run fails at its end or asks for all the memory there is.
Count = Annotated[StrictInt, Field(ge=1)]
Steps = Annotated[StrictInt, Field(ge=1, le=1 << 22)]  # steps held in one buffer
Epochs = Annotated[StrictInt, Field(ge=1, le=10_000)]
Games = Annotated[StrictInt, Field(ge=1, le=65_536)]  # games stepped together, all in memory
Episodes = Annotated[StrictInt, Field(ge=1, le=MAX_EPISODES)]  # what yacht_tools.evaluation accepts
Seed = Annotated[StrictInt, Field(ge=0, le=2**32 - 1)]  # SB3 seeds numpy's legacy generator, which takes 32 bits
Share = Annotated[StrictFloat, Field(ge=0, le=1, allow_inf_nan=False)]  # a discount, a lambda
Positive = Annotated[StrictFloat, Field(gt=0, allow_inf_nan=False)]
NonNegative = Annotated[StrictFloat, Field(ge=0, allow_inf_nan=False)]
Width = Annotated[StrictInt, Field(ge=1, le=MAX_WIDTH)]


def _readable_network(widths: list[int]) -> list[int]:
    """Layer widths whose hidden layers alone hold at most :data:`~yacht_agents.nets.MAX_NETWORK_NUMBERS` numbers:
    a larger network could be trained but its model files not read back."""
    if mlp_weights(1, widths, 1) > MAX_NETWORK_NUMBERS:
        raise ValueError(f"hidden layers {widths} hold {mlp_weights(1, widths, 1):,} numbers or more; a model file "
                         f"may hold at most {MAX_NETWORK_NUMBERS:,} (MAX_NETWORK_NUMBERS), so its models could not "
                         "be read back")
    return widths


Widths = Annotated[list[Width], Field(min_length=1, max_length=MAX_LAYERS),  # the network is built from them
                   AfterValidator(_readable_network)]
Activation = Literal[ACTIVATIONS]
FinalModel = Literal["final", "best"]  # the model of eval.json and the one to ship
Schedule = Union[StrictFloat, StrictStr]  # noqa: UP007 - a number or lin_<start>[_<end>] (yacht_training.schedules)


@pydantic.with_config(_SCHEMA)
@dataclass
class PolicyConfig:
    """The MaskablePPO policy. ``kind: mlp`` is SB3's MLP over the observation; ``kind: turn_expectimax`` is
    :class:`agents.turn_policy.TurnExpectimaxPolicy` (an MLP of ``net_arch`` over the scorecard gives box
    utilities, the turn is played by exact expectimax over the dice; ``inverse_temperature`` is its initial
    logits per point, ``box_prior`` its initial points per box left open; ``ortho_init`` does not apply).
    ``kind: model_free`` is :class:`agents.model_free.ModelFreePolicy`: a trunk of ``net_arch`` blocks
    Linear -> activation -> LayerNorm, a keep head (``keep_head``: ``pattern``, one logit per keep pattern, or
    ``multiset``, each pattern described by the dice it keeps and scored by a network of ``keep_hidden`` units), a
    score head and a value (of the trunk, or of a trunk of its own when ``vf_arch`` lists widths);
    ``ignore_observation`` names observation slices the network reads as zeros (for ablations of the features)."""

    kind: Literal["mlp", "turn_expectimax", "model_free"] = "mlp"  # SB3's MLP, box utilities + expectimax, model_free
    net_arch: Widths = field(default_factory=lambda: [256, 256])  # widths of the hidden layers (the trunk)
    activation_fn: Activation = "tanh"  # activation of the hidden layers
    ortho_init: StrictBool = True  # orthogonal initialisation of the weights (not turn_expectimax)
    inverse_temperature: Positive = 1.0  # turn_expectimax: initial logits per point of action value
    box_prior: NonNegative = 0.0  # turn_expectimax: initial utility, in points, of each box left open
    keep_head: Literal["pattern", "multiset"] = "pattern"  # model_free: a logit per keep pattern, or a net per dice
    keep_hidden: Width = 64  # model_free, keep_head multiset: units of the keep network
    # model_free: the value's own trunk widths; []: the value reads the policy's trunk
    vf_arch: Annotated[list[Width], Field(max_length=MAX_LAYERS)] = field(default_factory=list)
    ignore_observation: list[StrictStr] = field(default_factory=list)  # model_free: slices read as zeros (ablations)


@pydantic.with_config(_SCHEMA)
@dataclass
class PPOConfig:
    """Settings of MaskablePPO (``algo: maskable_ppo``, :mod:`yacht_training.sb3_ppo`), the ``ppo:`` section."""

    learning_rate: Schedule = "lin_3e-4"  # learning rate: a number, lin_<start> or lin_<start>_<end>
    n_steps: Steps = 128  # steps per environment per rollout (a rollout: n_steps x n_envs)
    batch_size: Annotated[StrictInt, Field(ge=2, le=1 << 22)] = 2048  # minibatch size of the updates
    n_epochs: Epochs = 4  # passes over each rollout
    gamma: Share = 1.0  # discount (1: the final score itself)
    gae_lambda: Share = 0.95  # GAE's lambda
    clip_range: Schedule = 0.2  # PPO's clip range: a number or a lin_ schedule
    ent_coef: NonNegative = 0.01  # entropy weight
    vf_coef: NonNegative = 0.5  # weight of the value loss
    max_grad_norm: Positive = 0.5  # gradient norm clip
    target_kl: Optional[Positive] = None  # noqa: UP045 - stop an update's epochs past this KL; null: never
    final_model: FinalModel = "final"  # final (learning rate decayed) or best
    # entropy weight per decision type (policy.kind model_free only; both null: ent_coef on every row). A number or
    # a schedule lin_<start>[_<end>]; keep: rows with a roll left (keep or score), score: rows that must score
    ent_coef_keep: Optional[Schedule] = None  # noqa: UP045 - entropy weight of rows with a roll left
    ent_coef_score: Optional[Schedule] = None  # noqa: UP045 - entropy weight of rows that must score
    autocast: Literal["none", "bfloat16"] = "none"  # the network's precision on the CPU (policy.kind model_free)

    def __post_init__(self) -> None:
        _check_schedule(self.learning_rate, "ppo.learning_rate", end_at=True)
        _check_schedule(self.clip_range, "ppo.clip_range", end_at=True)


@pydantic.with_config(_SCHEMA)
@dataclass
class TDConfig:
    """Settings of the model-based TD learner (agents/td_agent.py): a value network over turn-start states, exact
    expectimax within the turn, self-play with exact TD targets. With ``players: 2`` the network values the chance to
    win (agents/td_win.py), a probability: ``value_scale`` then does not apply."""

    hidden: Widths = field(default_factory=lambda: [128, 128])  # widths of the value network's hidden layers
    activation: Activation = "relu"  # activation of the hidden layers
    learning_rate: Schedule = "lin_3e-3"  # learning rate: a number or lin_<start>
    games_per_iteration: Games = 256  # self-play games in lockstep between network updates
    td_lambda: Share = 0.0  # 0: exact TD(0) targets; up to 1: mixed with the realised points (lambda-return)
    epochs_per_iteration: Epochs = 2  # passes over an iteration's turn-start states
    batch_size: Steps = 256  # minibatch size of the updates
    # the network predicts points / value_scale, in float32 (one player)
    value_scale: Annotated[StrictFloat, Field(ge=VALUE_SCALE_RANGE[0], le=VALUE_SCALE_RANGE[1])] = 100.0
    explore: Annotated[StrictFloat, Field(ge=0, lt=1)] = 0.0  # fraction of turns scored at random (states off-path)
    final_model: FinalModel = "final"  # final (learning rate decayed) or best

    def __post_init__(self) -> None:
        _check_schedule(self.learning_rate, "td.learning_rate", end_at=False)


@pydantic.with_config(_SCHEMA)
@dataclass
class RLlibConfig:
    """Settings of Ray RLlib's PPO (``algo: rllib_ppo``, :mod:`yacht_training.rllib_ppo`), new API stack. The
    names follow RLlib's ``PPOConfig`` (``lr``, ``lambda_``, ``clip_param``, ...); ``hidden``, ``activation`` and
    ``ortho_init`` shape the masked MLP module (:mod:`yacht_training.rllib_module`). ``vectorize``: ``engine`` (the
    project's vectorised engine in each env runner) or ``sync`` (gymnasium's SyncVectorEnv of single envs)."""

    num_env_runners: Annotated[StrictInt, Field(ge=0, le=1024)] = 2  # Ray actors sampling (0: in the driver)
    num_envs_per_env_runner: Games = 64  # games each env runner steps together
    num_cpus_per_env_runner: Positive = 1.0  # CPUs Ray reserves for each env runner
    vectorize: Literal["engine", "sync"] = "engine"  # the vector engine, or SyncVectorEnv of single envs
    train_batch_size: Steps = 8192  # environment steps per training iteration (over all env runners)
    minibatch_size: Steps = 1024  # minibatch size of the learner's SGD
    num_epochs: Epochs = 4  # passes over each training batch
    lr: Schedule = "lin_3e-4"  # learning rate: a number or lin_<start> (to 0 at the end)
    gamma: Share = 1.0  # discount (1: the final score itself)
    lambda_: Share = 0.95  # GAE's lambda
    clip_param: Positive = 0.2  # PPO's clip range
    entropy_coeff: NonNegative = 0.003  # entropy weight
    vf_loss_coeff: NonNegative = 0.5  # weight of the value loss
    vf_clip_param: Optional[Positive] = None  # noqa: UP045 - clip of the value loss; null: none (as SB3)
    grad_clip: Optional[Positive] = 0.5  # noqa: UP045 - global gradient norm; null: none
    use_kl_loss: StrictBool = False  # RLlib's KL penalty (off: clipped objective only, as SB3)
    hidden: Widths = field(default_factory=lambda: [256, 256])  # widths of the masked MLP's hidden layers
    activation: Activation = "tanh"  # activation of the hidden layers
    ortho_init: StrictBool = True  # orthogonal initialisation of the weights
    final_model: FinalModel = "final"  # final (learning rate decayed) or best

    def __post_init__(self) -> None:
        if self.minibatch_size > self.train_batch_size:
            raise ValueError(f"config key 'rllib.minibatch_size' ({self.minibatch_size}) must not exceed "
                             f"'rllib.train_batch_size' ({self.train_batch_size})")
        _check_schedule(self.lr, "rllib.lr", end_at=False)


@pydantic.with_config(_SCHEMA)
@dataclass
class EvalConfig:
    freq: Count = 100_000  # environment steps between evaluations
    episodes: Episodes = 1000  # games of each periodic evaluation
    final_episodes: Episodes = 10_000  # games of the final evaluation (eval.json)
    seed: Annotated[StrictInt, Field(ge=0)] = 1_000_000_000  # evaluation seeds start here: never used in training


@pydantic.with_config(_SCHEMA)
@dataclass
class TrainConfig:
    """A training run's config: the keys of every run, then a section per learner of
    :mod:`yacht_training.learners` (``ppo``, ``td``, ``rllib`` and those registered since: each registration adds
    its section before ``eval``), then ``eval``."""

    # rule set: yacht, yahtzee, yahtzee-free-joker, yatzy, knizia, clubhouse or a registered one
    rules: StrictStr = "yacht"
    # its choices are the registered learners (yacht_training.learners), set by _add_sections
    algo: StrictStr = "maskable_ppo"  # maskable_ppo (sb3-contrib), td (model-based TD), rllib_ppo (Ray RLlib)
    total_timesteps: Annotated[StrictInt, Field(ge=1, le=10**13)] = 1_000_000  # environment steps of training
    seed: Seed = 0  # seed of the training games and the networks
    device: StrictStr = "cpu"  # torch device: cpu, cuda, cuda:N, auto, mps
    n_envs: Games = 64  # games stepped together on the vector engine (maskable_ppo)
    # 1: the game alone (maximise the score); 2: heads-up self-play (maximise the chance to win; maskable_ppo with
    # policy.kind mlp or model_free: the learner against a snapshot of itself, yacht_training.heads_up; td: a network
    # of the chance to win from both scorecards and the lead, yacht_training.td_heads_up)
    players: Literal[1, 2] = 1
    # rewards (points) are multiplied by this for learning (maskable_ppo, rllib_ppo); with players: 2 the shaping
    # potential per point of lead
    reward_scale: Positive = 0.02
    unique_keeps: StrictBool = True  # one keep action per distinct kept multiset (the environment's option)
    checkpoint_freq: Count = 250_000  # environment steps between checkpoints
    torch_threads: Annotated[StrictInt, Field(ge=1, le=1024)] = 2  # torch.set_num_threads for the run
    # maskable_ppo: stop learning once this many seconds went to learning (periodic evaluations not counted); the
    # final model is then the policy of that moment. null: learn all of total_timesteps
    max_learning_s: Union[StrictFloat, StrictInt, None] = None  # noqa: UP007 - a time budget or null
    # true: stop at total_timesteps, never past it (maskable_ppo cuts its last rollout short, td plays in its last
    # iterations only the games that fit; other learners refuse it); the benchmark protocol sets it. false: whole
    # rollouts / iterations until total_timesteps is reached, as SB3's learn() counts (the shipped models were so)
    exact_budget: StrictBool = False
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    if TYPE_CHECKING:  # the built-in learners' sections: their registration adds them (_add_sections)
        ppo: PPOConfig
        td: TDConfig
        rllib: RLlibConfig

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @pydantic.model_validator(mode="after")
    def _check_together(self) -> TrainConfig:
        """The checks that read more than one key, or a registry (pydantic runs them once every key holds)."""
        _check_setup(self)
        _check_policy(self)
        return self


def _check_setup(cfg: TrainConfig) -> None:
    """The rule set, the device and the budgets, then the learner's own checks (:mod:`yacht_training.learners`)."""
    if cfg.rules not in RULESETS:
        raise ValueError(f"config key 'rules': unknown rules {short_value(cfg.rules)}; accepted: {', '.join(RULESETS)}")
    if not re.fullmatch(r"cpu|cuda|auto|mps|cuda:\d{1,3}", cfg.device):
        raise ValueError(f"config key 'device': {short_value(cfg.device)}; accepted: {', '.join(DEVICES)}, cuda:N")
    learner = LEARNERS[cfg.algo]  # pydantic checked the name against the registered ones
    if cfg.max_learning_s is not None:
        v = cfg.max_learning_s  # an int of 400 digits has no float: compare before math.isfinite converts it
        if not 0 < v <= 1e12 or not math.isfinite(v):
            raise ValueError(f"config key 'max_learning_s' must be a number of seconds in (0, 1e12] or null, got "
                             f"{short_value(cfg.max_learning_s)}")
        if not learner.time_budget:
            takers = " or ".join(x.name for x in LEARNERS.values() if x.time_budget)
            raise ValueError(f"config key 'max_learning_s' applies to algo {takers} only, not {cfg.algo!r}: "
                             "leave it out (null)")
    if cfg.exact_budget and not learner.exact_budget:
        takers = " or ".join(x.name for x in LEARNERS.values() if x.exact_budget)
        raise ValueError(f"config key 'exact_budget' applies to algo {takers} only, not {cfg.algo!r}: its runs "
                         "may pass total_timesteps; leave it out (false)")
    if learner.check is not None:
        learner.check(cfg)


def check_ppo(cfg: TrainConfig) -> None:
    """MaskablePPO's checks (``algo: maskable_ppo``): a rollout of at least two steps that fits the buffer; with two
    players, undiscounted returns and a policy that reads the game's observation."""
    rollout = cfg.ppo.n_steps * cfg.n_envs
    if rollout > MAX_ROLLOUT:
        raise ValueError(f"config keys 'ppo.n_steps' x 'n_envs' must be at most {MAX_ROLLOUT:,} (the rollout buffer "
                         f"holds every step), got {cfg.ppo.n_steps:,} x {cfg.n_envs:,}")
    if rollout < 2:
        raise ValueError(f"config keys 'ppo.n_steps' x 'n_envs' must be at least 2 (a rollout of one step cannot be "
                         f"trained on), got {cfg.ppo.n_steps} x {cfg.n_envs}")
    if cfg.players == 2 and cfg.ppo.gamma != 1.0:
        raise ValueError(f"config key 'ppo.gamma' must be 1.0 with players: 2 (the shaping from the lead leaves the "
                         f"policy that wins most the best one only undiscounted), got {short_value(cfg.ppo.gamma)}")
    if cfg.players == 2 and (cfg.policy.kind == "turn_expectimax" or cfg.policy.ignore_observation):
        raise ValueError(f"config key 'players': 2 (heads-up self-play) needs algo {cfg.algo} with policy.kind mlp "
                         f"or model_free and no policy.ignore_observation (the policy reads the game's "
                         f"observation), got policy.kind {short_value(cfg.policy.kind)}")


def check_td(cfg: TrainConfig) -> None:
    """The TD learner's checks (``algo: td``): it trains on the CPU; with two players its network gives a chance to
    win, so a ``value_scale`` of its own would be ignored: refused instead."""
    if cfg.device not in ("cpu", "auto"):
        raise ValueError(f"config key 'device': {short_value(cfg.device)}; algo {cfg.algo} trains on the CPU (its "
                         "turn search runs in the numba engine): use cpu")
    default = TDConfig().value_scale
    if cfg.players == 2 and cfg.td.value_scale != default:
        raise ValueError(f"config key 'td.value_scale' does not apply with players: 2 (the network gives a chance to "
                         f"win, a probability); leave it at {default:g}, got {short_value(cfg.td.value_scale)}")


def _check_schedule(v: float | str, key: str, end_at: bool) -> None:
    """A learning rate or clip range of a section: it starts above 0 (and, ``end_at``, ends at 0 or above)."""
    start, end = schedule_ends(v, key) if end_at else (schedule_value(v, key), 0.0)
    if not math.isfinite(start) or start <= 0 or end < 0:
        raise ValueError(f"config key {key!r} must start above 0{' and end at 0 or above' if end_at else ''}, got "
                         f"{short_value(v)}")


def _check_policy(cfg: TrainConfig) -> None:
    """The keys that apply to one policy kind only."""
    if cfg.players > LEARNERS[cfg.algo].max_players:
        takers = " or ".join(x.name for x in LEARNERS.values() if x.max_players >= cfg.players)
        raise ValueError(f"config key 'players': {cfg.players} (the game of two) needs algo {takers}, got algo "
                         f"{short_value(cfg.algo)}")
    if cfg.ppo.autocast != "none" and cfg.policy.kind != "model_free":
        raise ValueError(f"config key 'ppo.autocast' needs policy.kind model_free (got {short_value(cfg.policy.kind)})")
    if cfg.policy.ignore_observation:
        if cfg.policy.kind != "model_free":
            raise ValueError(f"config key 'policy.ignore_observation' needs policy.kind model_free (got "
                             f"{short_value(cfg.policy.kind)})")
        try:
            visible_columns(cfg.rules, cfg.policy.ignore_observation)
        except ValueError as e:
            raise ValueError(f"config key 'policy.ignore_observation': {e}") from None
    for key in ("ppo.ent_coef_keep", "ppo.ent_coef_score"):
        v = _get(cfg, key)
        if v is None:
            continue
        if cfg.policy.kind != "model_free":
            raise ValueError(f"config key {key!r} needs policy.kind model_free (got "
                             f"{short_value(cfg.policy.kind)}); use ppo.ent_coef")
        if min(schedule_ends(v, key)) < 0:
            raise ValueError(f"config key {key!r} must stay >= 0, got {short_value(v)}")
    if (cfg.ppo.ent_coef_keep is None) != (cfg.ppo.ent_coef_score is None):
        raise ValueError("config keys 'ppo.ent_coef_keep' and 'ppo.ent_coef_score' go together: give both or neither")


def _get(cfg: TrainConfig, key: str) -> Any:
    obj: Any = cfg
    for part in key.split("."):
        obj = getattr(obj, part)
    return obj


# ---- the learners' sections ---------------------------------------------------------------------------------------

_OWN_FIELDS = dataclasses.fields(TrainConfig)  # TrainConfig's keys without a learner's section


def _add_sections() -> None:
    """Rebuild :class:`TrainConfig` in place from the registered learners (:mod:`yacht_training.learners`):
    ``algo`` one of their names, and a section of each, before ``eval``. In place, so that every module's
    ``TrainConfig`` is this one; pydantic's validator is built again on its next use."""
    global _ADAPTER
    fields: list[dataclasses.Field[Any]] = []
    for f in _OWN_FIELDS:
        if f.name == "eval":
            for learner in LEARNERS.values():
                section: dataclasses.Field[Any] = field(default_factory=learner.settings)
                section.name, section.type = learner.section, learner.settings
                fields.append(section)
        if f.name == "algo":
            f.type = Literal[tuple(LEARNERS)] if LEARNERS else StrictStr  # type: ignore[assignment]
        fields.append(f)
    cls: Any = TrainConfig
    for name in ("__init__", "__repr__", "__eq__", "__match_args__", "__dataclass_fields__", "__dataclass_params__"):
        if name in cls.__dict__:
            delattr(cls, name)
    cls.__annotations__ = {f.name: f.type for f in fields}
    for f in fields:
        setattr(cls, f.name, f)  # dataclass() reads each Field back from the class
    dataclasses.dataclass(cls)  # a section's class attribute goes: dataclass() keeps none for a default_factory
    _ADAPTER = None


on_register(_add_sections)
_add_sections()


# ---- pydantic's errors in the schema's words -------------------------------------------------------------------


def _bare(tp: Any) -> Any:
    """``tp`` without its ``Annotated`` metadata."""
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def field_bounds(tp: Any) -> dict[str, Any]:
    """The constraints (``ge``, ``lt``, ``max_length``, ...) that the ``Field`` metadata of ``tp`` declares."""
    out: dict[str, Any] = {}
    if typing.get_origin(tp) is Annotated:
        for meta in typing.get_args(tp)[1:]:
            for item in getattr(meta, "metadata", ()):
                out.update({k: v for k in ("ge", "gt", "le", "lt", "min_length", "max_length")
                            if (v := getattr(item, k, None)) is not None})
    return out


def _type_name(tp: Any, ranges: bool = True) -> str:
    """What a value of type ``tp`` is, in words; ``ranges``: with the range its ``Field`` allows."""
    base, b = _bare(tp), (field_bounds(tp) if ranges else {})
    if typing.get_origin(base) in (Union, types.UnionType):
        args = sorted(typing.get_args(base), key=lambda a: a is not type(None))  # "null or ..."
        return " or ".join(_type_name(a, ranges) for a in args)
    if typing.get_origin(base) is Literal:
        return "one of " + ", ".join(map(str, typing.get_args(base)))
    if typing.get_origin(base) is list:
        lo, hi = b.get("min_length", 0), b.get("max_length")
        count = f"{lo}..{hi} values, each " if hi is not None else ""
        return f"a list of {count}{_type_name(typing.get_args(base)[0], ranges)}"
    if dataclasses.is_dataclass(base):
        return "a mapping"
    if base is int:
        least = b.get("ge", b["gt"] + 1 if "gt" in b else None)
        what = {None: "an integer", 0: "a non-negative integer", 1: "a positive integer"}.get(least,
                                                                                              f"an integer >= {least}")
        return what + (f" (at most {b['le']:,})" if "le" in b else "")
    if base is float:
        low = f"[{b['ge']:g}" if "ge" in b else f"({b['gt']:g}" if "gt" in b else None
        high = f"{b['le']:g}]" if "le" in b else f"{b['lt']:g})" if "lt" in b else None
        if low and high:
            return f"a number in {low}, {high}"
        if not ranges:
            return "a number"
        return "a finite number" + (f" {'>=' if low[0] == '[' else '>'} {low[1:]}" if low else "")
    return {type(None): "null", str: "a string", bool: "true/false"}.get(base, getattr(base, "__name__", str(base)))


def _message(error: Any) -> str:
    """One of pydantic's errors in the words of the schema: the dotted key, what it accepts, the value cut short."""
    if error["type"] == "value_error":  # a check of one key (named here) or of several (_check_together: as it is)
        key = ".".join(str(p) for p in error["loc"])
        return f"config key {key!r}: {error['ctx']['error']}" if key else str(error["ctx"]["error"])
    tp: Any = TrainConfig
    path: list[str] = []
    item = ""
    for part in error["loc"]:
        base = _bare(tp)
        if isinstance(part, int) and typing.get_origin(base) is list:
            item = f"; item {part} is {short_value(error['input'])}"
            break  # the message describes the whole list
        if not dataclasses.is_dataclass(base):
            break  # the rest names a member of a union: the key is found
        hints = typing.get_type_hints(base, include_extras=True)
        if part not in hints:
            under = ".".join(path)
            return (f"unknown config key {short_value('.'.join([*path, str(part)]))}; accepted keys"
                    f"{' under ' + under if under else ''}: {', '.join(f.name for f in dataclasses.fields(base))}")
        tp = hints[part]
        path.append(str(part))
    key = ".".join(path)
    if error["type"] == "literal_error":
        choices, got = typing.get_args(_bare(tp)), error["input"]
        quoted = isinstance(got, str) and any(not isinstance(c, str) and str(c) == got for c in choices)
        return (f"config key {key!r}: {short_value(got)}; accepted: {', '.join(map(str, choices))}"
                + (" (numbers, without quotes)" if quoted else ""))
    if error["type"] in ("greater_than", "greater_than_equal", "less_than", "less_than_equal", "too_short",
                         "too_long", "finite_number"):
        got = item or f", got {short_value(error['input'])}"
        return f"config key {key!r} must be {_type_name(tp)}{got}"
    return f"config key {key!r}: expected {_type_name(tp, ranges=False)}, got {short_value(error['input'])}{item}"


def _build(data: dict[str, Any]) -> TrainConfig:
    """``data`` as a :class:`TrainConfig`, its types and ranges checked by pydantic (strict: no "8" for 8, no 1 for
    true), then the checks of several keys; ``ValueError`` naming the first wrong key and what it accepts."""
    global _ADAPTER
    if _ADAPTER is None:
        _ADAPTER = pydantic.TypeAdapter(TrainConfig)
    try:
        return _ADAPTER.validate_python(data)
    except pydantic.ValidationError as e:
        errors = e.errors()
        raise ValueError(_message(next((x for x in errors if x["type"] == "unexpected_keyword_argument"),
                                       errors[0]))) from None


def validate(cfg: TrainConfig) -> TrainConfig:
    """``cfg`` checked again, as a new config (after command-line overrides changed its fields)."""
    return _build(cfg.to_dict())


def merge(base: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """``base`` (a config as a mapping) with the keys of ``change`` replaced, nested mappings merged key by key;
    neither is modified (the benchmarks' variants of a config)."""
    out = copy.deepcopy(base)
    for key, value in change.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def from_dict(data: dict[str, Any] | None) -> TrainConfig:
    """``data`` (a config as a mapping, as YAML gives it) as a checked :class:`TrainConfig`."""
    return _build(data or {})


def load_config(path: str | Path, *, complete: bool = False) -> TrainConfig:
    """Read and validate a YAML config file. ``complete``: the file must give every key (a run folder's resolved
    ``config.yaml``, where a missing key means a torn or edited file, not "use the default")."""
    p = Path(path)
    data = read_yaml(p)
    if data is not None and not isinstance(data, dict):
        raise ValueError(f"config file {str(p)!r} must hold a mapping of keys, got {type(data).__name__}")
    if complete:
        missing = _missing_keys(TrainConfig, data or {})
        if missing:
            raise ValueError(f"config file {str(p)!r} lacks {', '.join(missing[:5])}"
                             f"{' ...' if len(missing) > 5 else ''}: it is torn or was edited; restore it from "
                             "command.txt and the config it names")
    try:
        return from_dict(data)
    except ValueError as e:
        raise ValueError(f"config file {str(p)!r}: {e}") from None


def _missing_keys(cls: type, data: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        key = prefix + f.name
        if f.name not in data:
            out.append(key)
        elif dataclasses.is_dataclass(hints[f.name]) and isinstance(data[f.name], dict):
            out += _missing_keys(hints[f.name], data[f.name], key + ".")
    return out
