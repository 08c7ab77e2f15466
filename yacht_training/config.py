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
from typing import Any, Union

import pydantic
from pydantic import StrictBool, StrictFloat, StrictInt, StrictStr

from yacht_agents.nets import ACTIVATIONS, MAX_LAYERS, MAX_WIDTH
from yacht_agents.td_agent import check_value_scale
from yacht_env.observation import visible_columns
from yacht_env.rules import RULESETS
from yacht_tools.evaluation import MAX_EPISODES
from yacht_training.schedules import schedule_ends, schedule_value, short_value
from yacht_training.yaml_file import read_yaml

ALGOS = ("maskable_ppo", "td", "rllib_ppo")
AUTOCASTS = ("none", "bfloat16")
"""``ppo.autocast``: the precision of the network's matrix products on the CPU."""
_SCHEMA = pydantic.ConfigDict(extra="forbid")  # and strict types below: pydantic checks the types of a config
_ADAPTER: Any = None  # pydantic's validator of TrainConfig, built on first use
POLICY_KINDS = ("mlp", "turn_expectimax", "model_free")
KEEP_HEADS = ("pattern", "multiset")  # yacht_agents.model_free.KEEP_HEADS (torch-free here)
FINAL_MODELS = ("final", "best")


def check_widths(widths: list[int], key: str) -> None:
    """``ValueError`` naming config key ``key`` unless ``widths`` lists 1..16 layer widths of 1..4096 units (the
    network is built from them: a huge one would ask for more memory than there is)."""
    if not 1 <= len(widths) <= MAX_LAYERS or any(not 1 <= w <= MAX_WIDTH for w in widths):
        raise ValueError(f"config key {key!r} must list positive layer widths (1..{MAX_LAYERS} layers of at most "
                         f"{MAX_WIDTH:,} units), got {short_value(widths)}")


def check_choice(value: str, key: str, accepted: tuple[str, ...]) -> None:
    """``ValueError`` naming config key ``key`` and the accepted values unless ``value`` is one of them."""
    if value not in accepted:
        raise ValueError(f"config key {key!r}: {short_value(value)}; accepted: {', '.join(accepted)}")


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

    kind: StrictStr = "mlp"  # mlp (SB3's MLP), turn_expectimax (box utilities, expectimax turn) or model_free
    net_arch: list[StrictInt] = field(default_factory=lambda: [256, 256])  # widths of the hidden layers (the trunk)
    activation_fn: StrictStr = "tanh"  # activation of the hidden layers
    ortho_init: StrictBool = True  # orthogonal initialisation of the weights (not turn_expectimax)
    inverse_temperature: StrictFloat = 1.0  # turn_expectimax: initial logits per point of action value
    box_prior: StrictFloat = 0.0  # turn_expectimax: initial utility, in points, of each box left open
    keep_head: StrictStr = "pattern"  # model_free: pattern (a logit per keep pattern) or multiset (a net per kept dice)
    keep_hidden: StrictInt = 64  # model_free, keep_head multiset: units of the keep network
    vf_arch: list[StrictInt] = field(default_factory=list)  # model_free: the value's own trunk widths; []: shared trunk
    ignore_observation: list[StrictStr] = field(default_factory=list)  # model_free: slices read as zeros (ablations)


@pydantic.with_config(_SCHEMA)
@dataclass
class PPOConfig:
    learning_rate: Union[StrictFloat, StrictStr] = "lin_3e-4"  # noqa: UP007 - learning rate: a number, lin_<start> or lin_<start>_<end>
    n_steps: StrictInt = 128  # steps per environment per rollout (a rollout: n_steps x n_envs)
    batch_size: StrictInt = 2048  # minibatch size of the updates
    n_epochs: StrictInt = 4  # passes over each rollout
    gamma: StrictFloat = 1.0  # discount (1: the final score itself)
    gae_lambda: StrictFloat = 0.95  # GAE's lambda
    clip_range: Union[StrictFloat, StrictStr] = 0.2  # noqa: UP007 - PPO's clip range: a number or a lin_ schedule
    ent_coef: StrictFloat = 0.01  # entropy weight
    vf_coef: StrictFloat = 0.5  # weight of the value loss
    max_grad_norm: StrictFloat = 0.5  # gradient norm clip
    target_kl: Union[StrictFloat, None] = None  # noqa: UP007 - stop an update's epochs past this KL; null: never
    final_model: StrictStr = "final"  # model of eval.json and the one to ship: final (learning rate decayed) or best
    # entropy weight per decision type (policy.kind model_free only; both null: ent_coef on every row). A number or
    # a schedule lin_<start>[_<end>]; keep: rows with a roll left (keep or score), score: rows that must score
    ent_coef_keep: Union[StrictFloat, StrictStr, None] = None  # noqa: UP007 - entropy weight of rows with a roll left
    ent_coef_score: Union[StrictFloat, StrictStr, None] = None  # noqa: UP007 - entropy weight of rows that must score
    autocast: StrictStr = "none"  # the network's precision on the CPU, none (fp32) or bfloat16 (policy.kind model_free)

    def __post_init__(self) -> None:
        """Check values beyond their types, naming the key (runs when a config is read)."""
        check_choice(self.final_model, "ppo.final_model", FINAL_MODELS)
        check_choice(self.autocast, "ppo.autocast", AUTOCASTS)


@pydantic.with_config(_SCHEMA)
@dataclass
class TDConfig:
    """Settings of the model-based TD learner (agents/td_agent.py): a value network over turn-start states, exact
    expectimax within the turn, self-play with exact TD targets."""

    hidden: list[StrictInt] = field(default_factory=lambda: [128, 128])  # widths of the value network's hidden layers
    activation: StrictStr = "relu"  # activation of the hidden layers: relu, tanh, elu, gelu, silu
    learning_rate: Union[StrictFloat, StrictStr] = "lin_3e-3"  # noqa: UP007 - learning rate: a number or lin_<start>
    games_per_iteration: StrictInt = 256  # self-play games in lockstep between network updates
    td_lambda: StrictFloat = 0.0  # 0: exact TD(0) targets; up to 1: mixed with the realised points (lambda-return)
    epochs_per_iteration: StrictInt = 2  # passes over an iteration's turn-start states
    batch_size: StrictInt = 256  # minibatch size of the updates
    value_scale: StrictFloat = 100.0  # the network predicts points / value_scale
    explore: StrictFloat = 0.0  # fraction of turns that score a random legal category (states off the greedy path)
    final_model: StrictStr = "final"  # model of eval.json and the one to ship: final (learning rate decayed) or best

    def __post_init__(self) -> None:
        """Check values beyond their types, naming the key (runs when a config is read)."""
        check_choice(self.activation, "td.activation", ACTIVATIONS)
        check_widths(self.hidden, "td.hidden")
        for key in ("games_per_iteration", "epochs_per_iteration", "batch_size"):
            if not 1 <= getattr(self, key) <= _TD_MAX[key]:
                raise ValueError(f"config key 'td.{key}' must be a positive integer (at most {_TD_MAX[key]:,}), "
                                 f"got {short_value(getattr(self, key))}")
        if not 0.0 <= self.td_lambda <= 1.0:
            raise ValueError(f"config key 'td.td_lambda' must be in [0, 1], got {short_value(self.td_lambda)}")
        if not 0.0 <= self.explore < 1.0:
            raise ValueError(f"config key 'td.explore' must be in [0, 1), got {short_value(self.explore)}")
        check_choice(self.final_model, "td.final_model", FINAL_MODELS)
        check_value_scale(self.value_scale, "config key 'td.value_scale'")


@pydantic.with_config(_SCHEMA)
@dataclass
class RLlibConfig:
    """Settings of Ray RLlib's PPO (``algo: rllib_ppo``, :mod:`yacht_training.rllib_ppo`), new API stack. The
    names follow RLlib's ``PPOConfig`` (``lr``, ``lambda_``, ``clip_param``, ...); ``hidden``, ``activation`` and
    ``ortho_init`` shape the masked MLP module (:mod:`yacht_training.rllib_module`). ``vectorize``: ``engine`` (the
    project's vectorised engine in each env runner) or ``sync`` (gymnasium's SyncVectorEnv of single envs)."""

    num_env_runners: StrictInt = 2  # Ray actors sampling in parallel (0: sample in the driver)
    num_envs_per_env_runner: StrictInt = 64  # games each env runner steps together
    num_cpus_per_env_runner: StrictFloat = 1.0  # CPUs Ray reserves for each env runner
    vectorize: StrictStr = "engine"  # engine (the vector engine) or sync (SyncVectorEnv of single envs)
    train_batch_size: StrictInt = 8192  # environment steps per training iteration (over all env runners)
    minibatch_size: StrictInt = 1024  # minibatch size of the learner's SGD
    num_epochs: StrictInt = 4  # passes over each training batch
    lr: Union[StrictFloat, StrictStr] = "lin_3e-4"  # noqa: UP007 - learning rate: a number or lin_<start> (to 0 at the end)
    gamma: StrictFloat = 1.0  # discount (1: the final score itself)
    lambda_: StrictFloat = 0.95  # GAE's lambda
    clip_param: StrictFloat = 0.2  # PPO's clip range
    entropy_coeff: StrictFloat = 0.003  # entropy weight
    vf_loss_coeff: StrictFloat = 0.5  # weight of the value loss
    vf_clip_param: Union[StrictFloat, None] = None  # noqa: UP007 - clip of the value loss; null: none (as SB3)
    grad_clip: Union[StrictFloat, None] = 0.5  # noqa: UP007 - global gradient norm; null: none
    use_kl_loss: StrictBool = False  # RLlib's KL penalty (off: clipped objective only, as SB3)
    hidden: list[StrictInt] = field(default_factory=lambda: [256, 256])  # widths of the masked MLP's hidden layers
    activation: StrictStr = "tanh"  # activation of the hidden layers
    ortho_init: StrictBool = True  # orthogonal initialisation of the weights
    final_model: StrictStr = "final"  # model of eval.json and the one to ship: final (learning rate decayed) or best

    VECTORIZE: typing.ClassVar[tuple[str, ...]] = ("engine", "sync")

    def __post_init__(self) -> None:
        """Check values beyond their types, naming the key (runs when a config is read)."""
        check_choice(self.vectorize, "rllib.vectorize", self.VECTORIZE)
        check_choice(self.activation, "rllib.activation", ACTIVATIONS)
        check_choice(self.final_model, "rllib.final_model", FINAL_MODELS)
        check_widths(self.hidden, "rllib.hidden")


@pydantic.with_config(_SCHEMA)
@dataclass
class EvalConfig:
    freq: StrictInt = 100_000  # environment steps between evaluations
    episodes: StrictInt = 1000  # games of each periodic evaluation
    final_episodes: StrictInt = 10_000  # games of the final evaluation (eval.json)
    seed: StrictInt = 1_000_000_000  # evaluation seeds start here: never used by training envs


@pydantic.with_config(_SCHEMA)
@dataclass
class TrainConfig:
    rules: StrictStr = "yacht"  # rule set: yacht, yahtzee, yahtzee-free-joker, yatzy, knizia
    algo: StrictStr = "maskable_ppo"  # maskable_ppo (sb3-contrib), td (model-based TD) or rllib_ppo (Ray RLlib)
    total_timesteps: StrictInt = 1_000_000  # environment steps of training
    seed: StrictInt = 0  # seed of the training games and the networks (0..2**32-1)
    device: StrictStr = "cpu"  # torch device: cpu, cuda, cuda:N, auto, mps
    n_envs: StrictInt = 64  # games stepped together on the vector engine (maskable_ppo)
    reward_scale: StrictFloat = 0.02  # rewards (points) are multiplied by this for learning (maskable_ppo, rllib_ppo)
    unique_keeps: StrictBool = True  # one keep action per distinct kept multiset (the environment's option)
    checkpoint_freq: StrictInt = 250_000  # environment steps between checkpoints
    torch_threads: StrictInt = 2  # torch.set_num_threads for the run
    # maskable_ppo: stop learning once this many seconds went to learning (periodic evaluations not counted); the
    # final model is then the policy of that moment. null: learn all of total_timesteps
    max_learning_s: Union[StrictFloat, StrictInt, None] = None  # noqa: UP007 - a time budget or null
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    td: TDConfig = field(default_factory=TDConfig)
    rllib: RLlibConfig = field(default_factory=RLlibConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _type_name(tp: Any) -> str:
    if typing.get_origin(tp) in (Union, types.UnionType):
        return " or ".join(_type_name(a) for a in typing.get_args(tp))
    if typing.get_origin(tp) is list:
        return f"a list of {_type_name(typing.get_args(tp)[0])}"
    if dataclasses.is_dataclass(tp):
        return "a mapping"
    return {type(None): "null", float: "a number", int: "an integer", str: "a string", bool: "true/false"}.get(
        tp, getattr(tp, "__name__", str(tp)))


def _build(data: dict[str, Any]) -> TrainConfig:
    """``data`` as a :class:`TrainConfig`, its types checked by pydantic (strict: no "8" for 8, no 1 for true), each
    section's ``__post_init__`` run; ``ValueError`` naming the first wrong key and what it accepts."""
    global _ADAPTER
    if _ADAPTER is None:
        _ADAPTER = pydantic.TypeAdapter(TrainConfig)
    try:
        return _ADAPTER.validate_python(data)
    except pydantic.ValidationError as e:
        errors = e.errors()
        raise ValueError(_message(next((x for x in errors if x["type"] == "unexpected_keyword_argument"),
                                       errors[0]))) from None


def _message(error: Any) -> str:
    """One of pydantic's errors in the words of the schema: the dotted key, what it accepts, the value cut short."""
    if error["type"] == "value_error":  # a section's own check (__post_init__): its message as it is
        return str(error["ctx"]["error"])
    tp: Any = TrainConfig
    path: list[str] = []
    for part in error["loc"]:
        if isinstance(part, int) and typing.get_origin(tp) is list:
            tp, path[-1] = typing.get_args(tp)[0], f"{path[-1]}[{part}]"
            continue
        if not dataclasses.is_dataclass(tp):
            break  # the rest names a member of a union: the key is found
        hints = typing.get_type_hints(tp)
        if part not in hints:
            under = ".".join(path)
            return (f"unknown config key {short_value('.'.join([*path, str(part)]))}; accepted keys"
                    f"{' under ' + under if under else ''}: {', '.join(f.name for f in dataclasses.fields(tp))}")
        tp = hints[part]
        path.append(str(part))
    return f"config key {'.'.join(path)!r}: expected {_type_name(tp)}, got {short_value(error['input'])}"


_INT_MIN = {  # every integer key of the schema outside td (TDConfig checks its own) and its least value
    "total_timesteps": 1, "seed": 0, "n_envs": 1, "checkpoint_freq": 1, "torch_threads": 1,
    "ppo.n_steps": 1, "ppo.batch_size": 2, "ppo.n_epochs": 1,
    "policy.keep_hidden": 1, "eval.freq": 1, "eval.episodes": 1, "eval.final_episodes": 1, "eval.seed": 0,
    "rllib.num_env_runners": 0, "rllib.num_envs_per_env_runner": 1, "rllib.train_batch_size": 1,
    "rllib.minibatch_size": 1, "rllib.num_epochs": 1,
}
_INT_MAX = {  # limits checked before a run folder exists, so that no run fails at its end or asks for all memory
    "seed": 2**32 - 1,  # SB3 seeds numpy's legacy generator, which takes 32-bit seeds
    "eval.episodes": MAX_EPISODES, "eval.final_episodes": MAX_EPISODES,  # what yacht_tools.evaluation accepts
    "n_envs": 65_536, "rllib.num_envs_per_env_runner": 65_536, "rllib.num_env_runners": 1024,  # games in memory
    "torch_threads": 1024, "ppo.n_epochs": 10_000, "rllib.num_epochs": 10_000,
    "ppo.n_steps": 1 << 22, "ppo.batch_size": 1 << 22, "rllib.train_batch_size": 1 << 22,
    "rllib.minibatch_size": 1 << 22, "policy.keep_hidden": MAX_WIDTH, "total_timesteps": 10**13,
}
MAX_ROLLOUT = 1 << 22
"""The most steps of a PPO rollout (``ppo.n_steps`` x ``n_envs``): the buffer holds every observation of it."""
_TD_MAX = {"games_per_iteration": 65_536, "epochs_per_iteration": 10_000, "batch_size": 1 << 22}
_UNIT = ("ppo.gamma", "ppo.gae_lambda", "rllib.gamma", "rllib.lambda_")  # numbers in [0, 1]
_POSITIVE = ("reward_scale", "policy.inverse_temperature", "ppo.max_grad_norm", "rllib.num_cpus_per_env_runner",
             "rllib.clip_param")
_NON_NEGATIVE = ("policy.box_prior", "ppo.ent_coef", "ppo.vf_coef", "rllib.entropy_coeff", "rllib.vf_loss_coeff")
_POSITIVE_OR_NULL = ("ppo.target_kl", "rllib.vf_clip_param", "rllib.grad_clip")
DEVICES = ("cpu", "cuda", "auto", "mps")


def _get(cfg: TrainConfig, key: str) -> Any:
    obj: Any = cfg
    for part in key.split("."):
        obj = getattr(obj, part)
    return obj


def validate(cfg: TrainConfig) -> TrainConfig:
    """Check every value beyond its type, naming the key and what is accepted (also after command-line
    overrides)."""
    if cfg.rules not in RULESETS:
        raise ValueError(f"config key 'rules': unknown rules {short_value(cfg.rules)}; accepted: {', '.join(RULESETS)}")
    if cfg.algo not in ALGOS:
        raise ValueError(f"config key 'algo': unknown algorithm {short_value(cfg.algo)}; accepted: {', '.join(ALGOS)}")
    check_choice(cfg.policy.kind, "policy.kind", POLICY_KINDS)
    check_choice(cfg.policy.activation_fn, "policy.activation_fn", ACTIVATIONS)
    if not re.fullmatch(r"cpu|cuda|auto|mps|cuda:\d{1,3}", cfg.device):
        raise ValueError(f"config key 'device': {short_value(cfg.device)}; accepted: {', '.join(DEVICES)}, cuda:N")
    if cfg.algo == "td" and cfg.device not in ("cpu", "auto"):
        raise ValueError(f"config key 'device': {short_value(cfg.device)}; algo td trains on the CPU (its turn search "
                         "runs in the numba engine): use cpu")
    for key, least in _INT_MIN.items():
        v = _get(cfg, key)
        most = _INT_MAX.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or v < least or (most is not None and v > most):
            what = {0: "a non-negative integer", 1: "a positive integer"}.get(least, f"an integer >= {least}")
            if most is not None:
                what += f" (at most {most:,})"
            raise ValueError(f"config key {key!r} must be {what}, got {short_value(v)}")
    if cfg.algo == "maskable_ppo" and cfg.ppo.n_steps * cfg.n_envs > MAX_ROLLOUT:
        raise ValueError(f"config keys 'ppo.n_steps' x 'n_envs' must be at most {MAX_ROLLOUT:,} (the rollout buffer "
                         f"holds every step), got {cfg.ppo.n_steps:,} x {cfg.n_envs:,}")
    if cfg.algo == "maskable_ppo" and cfg.ppo.n_steps * cfg.n_envs < 2:
        raise ValueError(f"config keys 'ppo.n_steps' x 'n_envs' must be at least 2 (a rollout of one step cannot be "
                         f"trained on), got {cfg.ppo.n_steps} x {cfg.n_envs}")
    if cfg.max_learning_s is not None:
        v = cfg.max_learning_s  # an int of 400 digits has no float: compare before math.isfinite converts it
        if isinstance(v, bool) or not 0 < v <= 1e12 or not math.isfinite(v):
            raise ValueError(f"config key 'max_learning_s' must be a number of seconds in (0, 1e12] or null, got "
                             f"{short_value(cfg.max_learning_s)}")
        if cfg.algo != "maskable_ppo":
            raise ValueError(f"config key 'max_learning_s' applies to algo maskable_ppo only, not {cfg.algo!r}: "
                             "leave it out (null)")
    if cfg.rllib.minibatch_size > cfg.rllib.train_batch_size:
        raise ValueError(f"config key 'rllib.minibatch_size' ({cfg.rllib.minibatch_size}) must not exceed "
                         f"'rllib.train_batch_size' ({cfg.rllib.train_batch_size})")
    for key in (*_UNIT, *_POSITIVE, *_NON_NEGATIVE):
        v = _get(cfg, key)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
            raise ValueError(f"config key {key!r} must be a finite number, got {short_value(v)}")
        if key in _UNIT and not 0.0 <= v <= 1.0:
            raise ValueError(f"config key {key!r} must be in [0, 1], got {short_value(v)}")
        if key in _POSITIVE and v <= 0:
            raise ValueError(f"config key {key!r} must be > 0, got {short_value(v)}")
        if key in _NON_NEGATIVE and v < 0:
            raise ValueError(f"config key {key!r} must be >= 0, got {short_value(v)}")
    for key in _POSITIVE_OR_NULL:
        v = _get(cfg, key)
        if v is not None and not (math.isfinite(v) and v > 0):
            raise ValueError(f"config key {key!r} must be null or a finite number > 0, got {short_value(v)}")
    check_widths(cfg.policy.net_arch, "policy.net_arch")
    if cfg.policy.vf_arch:  # empty: the value reads the policy's trunk
        check_widths(cfg.policy.vf_arch, "policy.vf_arch")
    check_choice(cfg.policy.keep_head, "policy.keep_head", KEEP_HEADS)
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
    for key in ("td.learning_rate", "rllib.lr"):
        start = schedule_value(_get(cfg, key), key)
        if not math.isfinite(start) or start <= 0:
            raise ValueError(f"config key {key!r} must start above 0, got {short_value(_get(cfg, key))}")
    for key in ("ppo.learning_rate", "ppo.clip_range"):
        start, end = schedule_ends(_get(cfg, key), key)
        if start <= 0 or end < 0:
            raise ValueError(f"config key {key!r} must start above 0 and end at 0 or above, got "
                             f"{short_value(_get(cfg, key))}")
    return cfg


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
    return validate(_build(data or {}))


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
