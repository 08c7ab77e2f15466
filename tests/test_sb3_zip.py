"""The safe SB3 zip reader: same actions as SB3's own loader, hostile files refused, resume, atomic save.

SB3's ``load`` is used here only on files these tests made themselves or on the shipped models (trusted), as the
reference the safe path must agree with.
"""

from __future__ import annotations

import base64
import io
import json
import math
import os
import pickle
import re
import shlex
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
import torch as th
from conftest import env_batch

import yacht_agents
import yacht_env  # noqa: F401 - registers Yacht-v0
from yacht_agents import sb3_policies, sb3_zip
from yacht_agents.sb3_agent import (
    META_KEY,
    SafePolicyModel,
    SB3Agent,
    action_scores,
    check_meta,
    check_spaces,
    greedy_actions,
    load_sb3_agent,
    model_meta,
    model_observation_space,
)
from yacht_agents.sb3_policies import (
    ACTIVATIONS,
    ACTOR_CRITIC_KWARGS,
    OPTIMIZERS,
    POLICY_REGISTRY,
    PolicySpec,
    Ref,
    register_policy,
)
from yacht_agents.sb3_zip import ZipLimits, inspect_sb3_zip, load_sb3_policy
from yacht_agents.turn_policy import TurnExpectimaxPolicy
from yacht_env import observation as O
from yacht_env.env import YachtEnv
from yacht_env.rules import RULESETS, get_rules
from yacht_training import sb3_resume
from yacht_training.sb3_resume import restore_into, save_sb3_atomic

MODELS = Path(yacht_agents.__file__).resolve().parent / "models"
SHIPPED = {"yacht": MODELS / "ppo-expectimax-yacht.zip", "yahtzee": MODELS / "ppo-expectimax-yahtzee.zip"}


@pytest.fixture(scope="module", autouse=True)
def _sb3_logdir(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """SB3 models made without a TensorBoard folder open a logger folder: keep it in pytest's tmp."""
    with pytest.MonkeyPatch.context() as mp:
        if "SB3_LOGDIR" not in os.environ:
            mp.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3log")))
        yield


def yacht_spaces(rules: str = "yacht") -> tuple[gymnasium.Space, gymnasium.Space]:
    env = YachtEnv(rules)
    return env.observation_space, env.action_space


# ---- zips made by the tests ------------------------------------------------------------------------------------------


def _train(algo: str, path: Path, steps: int = 200) -> None:
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import A2C, DQN, PPO

    env = gymnasium.make("Yacht-v0")
    kw: dict[str, Any] = {
        "PPO": dict(n_steps=64, batch_size=32, n_epochs=1), "A2C": dict(n_steps=8),
        "DQN": dict(learning_starts=50, buffer_size=1000, train_freq=4),
        "MaskablePPO": dict(n_steps=64, batch_size=32, n_epochs=1)}[algo]
    cls = {"PPO": PPO, "A2C": A2C, "DQN": DQN, "MaskablePPO": MaskablePPO}[algo]
    model = cls("MlpPolicy", env, seed=0, device="cpu", policy_kwargs=dict(net_arch=[16]), **kw)
    model.learn(steps)
    model.save(path)


ALGOS = ["PPO", "A2C", "DQN", "MaskablePPO"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("trained")
    out = {}
    for algo in ALGOS:
        out[algo] = d / f"{algo}.zip"
        _train(algo, out[algo])
    return out


def rewrite_zip(src: Path, dst: Path, entries: dict[str, bytes | None] | None = None,
                data: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """A copy of ``src`` with entries replaced (``None``: dropped) and the data JSON edited in place by ``data``."""
    entries = dict(entries or {})
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            blob = zin.read(info)
            if info.filename == "data" and data is not None:
                d = json.loads(blob)
                data(d)
                blob = json.dumps(d).encode()
            if info.filename in entries:
                blob = entries.pop(info.filename)
                if blob is None:
                    continue
            zout.writestr(info.filename, blob)
        for name, blob in entries.items():
            if blob is not None:
                zout.writestr(name, blob)
    return dst


class _ShellPayload:
    """Unpickling this runs ``touch marker`` through os.system: what a crafted model file does to SB3's load."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return os.system, (f"touch {shlex.quote(str(self.marker))}",)


class _OpenPayload:
    """Unpickling this creates ``marker`` by calling open(): the same attack without a shell."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return open, (str(self.marker), "w")


def serialized(blob: bytes, type_name: str = "<class 'dict'>") -> dict[str, str]:
    return {":type:": type_name, ":serialized:": base64.b64encode(blob).decode()}


def global_pickle(module: str, name: str) -> bytes:
    """A protocol-2 pickle of a bare global reference, written by hand (pickle itself would import it)."""
    return b"\x80\x02c" + module.encode() + b"\n" + name.encode() + b"\n."


def class_entry(module: str, name: str) -> dict[str, str]:
    """A ``policy_class`` entry as SB3 writes one for class ``module.name``: its pickle (a reference, by hand) and the
    readable fields of its ``__dict__`` (``__module__``, its methods)."""
    return {**serialized(global_pickle(module, name), "<class 'abc.ABCMeta'>"), "__module__": module,
            "__init__": f"<function {name}.__init__ at 0x7f00c0ffee00>",
            "_build": f"<function {name}._build at 0x7f00c0ffee80>"}


def as_sb3_writes(key: str, value: Any) -> Any:
    """``value`` as SB3's ``data_to_json`` writes it under ``key`` (a pickle beside readable fields, if needed)."""
    from stable_baselines3.common.save_util import data_to_json

    return json.loads(data_to_json({key: value}))[key]


def test_the_payloads_are_live(tmp_path: Path) -> None:
    """The hostile fixtures are real: plain unpickling of either payload creates its marker."""
    marker = tmp_path / "live"
    pickle.loads(pickle.dumps(_OpenPayload(marker))).close()
    assert marker.exists()
    marker.unlink()
    pickle.loads(pickle.dumps(_ShellPayload(marker)))  # runs `touch marker` through os.system
    assert marker.exists()


def test_the_class_maps_name_the_real_classes() -> None:
    for ref, cls in {**ACTIVATIONS, **OPTIMIZERS}.items():
        assert (cls.__module__, cls.__qualname__) == tuple(ref)
    for ref, spec in POLICY_REGISTRY.items():
        cls = spec.load_class()
        assert cls.__qualname__ == ref.name
    assert Ref(TurnExpectimaxPolicy.__module__, "TurnExpectimaxPolicy") in POLICY_REGISTRY


# ---- the shipped models ----------------------------------------------------------------------------------------------


def layout_1_meta(rules: str) -> dict[str, Any]:
    """The ``yacht_env_meta`` of a model saved before observation layout 2: no ``obs_layout``, layout 1's slices."""
    meta = model_meta(rules)
    del meta["obs_layout"]
    meta["observation_layout"] = {k: [s.start, s.stop] for k, s in O.layout(rules, 1).items()}
    return meta


@pytest.mark.parametrize("rules", ["yacht", "yahtzee"])
def test_shipped_models_act_like_sb3(rules: str) -> None:
    """The shipped models were saved with observation layout 1: they load with the first columns of today's
    observation space and play, through SB3Agent, on today's full observations as SB3's own loader does on the
    first columns."""
    from sb3_contrib import MaskablePPO

    rs = get_rules(rules)
    env_obs_space, act_space = yacht_spaces(rules)
    info = inspect_sb3_zip(SHIPPED[rules])
    assert info.yacht_env_meta == layout_1_meta(rules) and info.num_timesteps and info.num_timesteps > 10**6
    assert check_meta(info.yacht_env_meta, rs, info.source) == 1
    obs_space = model_observation_space(env_obs_space, rs, 1)
    assert obs_space.shape == (O.size(rules, 1),) and info.observation_shape == obs_space.shape
    assert (obs_space is env_obs_space) == (rules == "yacht")  # Yacht's observation did not change
    policy, info = load_sb3_policy(SHIPPED[rules], obs_space, act_space)
    assert isinstance(policy, TurnExpectimaxPolicy) and not policy.training
    assert info.algorithm == "MaskablePPO" and info.policy == "TurnExpectimaxPolicy"
    assert info.policy_class == Ref("agents.turn_policy", "TurnExpectimaxPolicy")

    full, masks = env_batch(rules, 300, seed=1)
    obs = full[:, : O.size(rules, 1)]
    # trusted file: the unsafe loader as reference (policy_class given, as the recorded module path may be gone)
    reference = MaskablePPO.load(SHIPPED[rules], device="cpu", custom_objects={"policy_class": TurnExpectimaxPolicy})
    want, _ = reference.predict(obs, action_masks=masks, deterministic=True)
    got = greedy_actions(policy, obs, masks)
    np.testing.assert_array_equal(got, want)
    scores = action_scores(policy, obs, masks)
    assert np.all(np.isneginf(scores[~masks])) and np.all(np.isfinite(scores[masks]))
    np.testing.assert_array_equal(scores, action_scores(reference.policy, obs, masks))
    np.testing.assert_array_equal(scores.argmax(1), want)
    for a, b in zip(reference.policy.state_dict().values(), policy.state_dict().values()):
        assert th.equal(a, b)

    # as the project's SB3Agent, fed today's observations: the same actions as the SB3-loaded model on layout 1
    agent = SB3Agent(SafePolicyModel(policy, info).policy, rules, obs_layout=1)
    np.testing.assert_array_equal(agent.act_batch(full, masks), want)
    loaded = load_sb3_agent(SHIPPED[rules], rules)
    assert loaded.obs_layout == 1 and loaded.obs_columns == O.size(rules, 1)
    np.testing.assert_array_equal(loaded.act_batch(full, masks), want)
    if rules != "yacht":  # fed the whole layout-2 observation, a layout-1 model is refused, not misread
        with pytest.raises(ValueError, match=r"observations must have shape \(N, 71\), got \(300, 78\)"):
            greedy_actions(policy, full, masks)


def test_layout_2_only_appends() -> None:
    """Layout 1 is a prefix of layout 2 for every rule set: the same slices at the same columns (what feeding a
    layout-1 model the first columns relies on; the shipped models' actions above check the values)."""
    for rules in RULESETS:
        old, new = O.layout(rules, 1), O.layout(rules)
        assert all(new[k] == s for k, s in old.items()), rules
        assert set(new) - set(old) <= {"bonus_now", "joker"}
        assert min((s.start for k, s in new.items() if k not in old), default=O.size(rules)) == O.size(rules, 1)
        assert O.size(rules, 2) == O.size(rules) >= O.size(rules, 1)
    assert O.size("yahtzee", 1) == 71 and O.size("yahtzee") == 78 and O.size("yatzy", 1) == 72
    assert O.size("yacht", 1) == O.size("yacht") == 64
    with pytest.raises(ValueError, match=r"observation layout version 3; accepted: 1, 2"):
        O.layout("yacht", 3)


def test_layout_1_models_of_every_kind_read_the_first_columns(tmp_path: Path) -> None:
    """An RLlib policy file saved with layout 1's metadata and an in-memory SB3 policy of layout 1's width both
    play today's observations as their network does on the first columns."""
    from yacht_agents.loader import as_agent
    from yacht_agents.nets import mlp
    from yacht_agents.rllib_agent import load_rllib_agent, policy_meta, save_policy

    rules, n1 = "yahtzee", O.size("yahtzee", 1)
    full, masks = env_batch(rules, 200, seed=6)
    th.manual_seed(0)
    net = mlp(n1, [16], "tanh", 45)
    meta = {**policy_meta(rules, True, [16], "tanh"), **layout_1_meta(rules)}
    del meta["obs_layout"]  # a file saved before layout 2 does not name its layout
    save_policy(tmp_path / "old.pt", net.state_dict(), meta)
    agent = load_rllib_agent(tmp_path / "old.pt", rules)
    assert agent.obs_layout == 1
    with th.no_grad():
        logits = net(th.as_tensor(full[:, :n1])).masked_fill(~th.as_tensor(masks), -th.inf)
    np.testing.assert_array_equal(agent.act_batch(full, masks), logits.argmax(1).numpy())

    policy, _ = load_sb3_policy(SHIPPED[rules], model_observation_space(yacht_spaces(rules)[0], get_rules(rules), 1),
                                yacht_spaces(rules)[1])
    wrapped = as_agent(policy, rules)
    assert isinstance(wrapped, SB3Agent) and wrapped.obs_layout == 1
    np.testing.assert_array_equal(wrapped.act_batch(full, masks), greedy_actions(policy, full[:, :n1], masks))


def test_meta_and_spaces_say_the_layout() -> None:
    rs = get_rules("yahtzee")
    assert model_meta(rs)["obs_layout"] == O.LAYOUT_VERSION == 2
    assert check_meta(model_meta(rs), rs, "'m'") == 2 and check_meta(layout_1_meta("yahtzee"), rs, "'m'") == 1
    unnamed = {k: v for k, v in model_meta(rs).items() if k != "obs_layout"}  # layout 2's slices, version unsaid
    assert check_meta(unnamed, rs, "'m'") == 2
    with pytest.raises(ValueError, match="another observation layout or action space than layout version 1"):
        check_meta({**unnamed, "observation_layout": {"dice_counts": [0, 6]}}, rs, "'m'")
    with pytest.raises(ValueError, match=r"'m' has observation layout version \(obs_layout\) 7; this version of "
                                         r"yacht-env reads 1, 2"):
        check_meta({**model_meta(rs), "obs_layout": 7}, rs, "'m'")
    with pytest.raises(ValueError, match="another observation layout or action space than layout version 1"):
        check_meta({**model_meta(rs), "obs_layout": 1}, rs, "'m'")  # says 1 but lists layout 2's slices
    with pytest.raises(ValueError, match="another observation layout or action space than layout version 2"):
        check_meta({**layout_1_meta("yahtzee"), "obs_layout": 2}, rs, "'m'")
    box = gymnasium.spaces.Box
    act = gymnasium.spaces.Discrete(45)
    assert check_spaces(box(0, 1, (78,)), act, rs, "'m'") == 2 and check_spaces(box(0, 1, (71,)), act, rs, "'m'") == 1
    with pytest.raises(ValueError, match=r"'m' expects observations of shape \(72,\); the yahtzee environment gives "
                                         r"\(78,\) \(layout 2; accepted: \(71,\), \(78,\), one per layout"):
        check_spaces(box(0, 1, (72,)), act, rs, "'m'")


def test_the_restructured_module_path_is_accepted(tmp_path: Path) -> None:
    moved = rewrite_zip(SHIPPED["yacht"], tmp_path / "moved.zip", data=lambda d: d.update(policy_class={
        **d["policy_class"], **class_entry("yacht_agents.turn_policy", "TurnExpectimaxPolicy")}))
    obs, masks = env_batch("yacht", 100, seed=4)
    a, info = load_sb3_policy(moved, *yacht_spaces())
    b, _ = load_sb3_policy(SHIPPED["yacht"], *yacht_spaces())
    assert info.policy_class == Ref("yacht_agents.turn_policy", "TurnExpectimaxPolicy")
    np.testing.assert_array_equal(greedy_actions(a, obs, masks), greedy_actions(b, obs, masks))


def test_the_module_never_unpickles() -> None:
    """Source check: no pickle/cloudpickle load and no pickle disassembly, SB3's zip loader only with
    load_data=False, SB3's ``load`` only with ``custom_objects``, and every torch.load is weights_only=True."""
    import ast
    import inspect as inspect_module

    from yacht_agents import nets

    tree = ast.parse("\n".join(inspect_module.getsource(m) for m in (sb3_zip, sb3_policies, sb3_resume, nets)))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert not names & {"cloudpickle", "Unpickler", "json_to_data", "load_from_pkl", "pickletools", "genops"}
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    zip_loads = [n for n in calls if isinstance(n.func, ast.Name) and n.func.id == "load_from_zip_file"]
    assert zip_loads and all(any(k.arg == "load_data" and isinstance(k.value, ast.Constant) and k.value.value is False
                                 for k in n.keywords) for n in zip_loads)
    for node in calls:
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("load", "loads"):
            owner = node.func.value.id if isinstance(node.func.value, ast.Name) else None
            assert owner not in ("pickle", "marshal", "dill", "yaml"), ast.unparse(node)
            kw = {k.arg: k.value for k in node.keywords}
            if owner in ("th", "torch"):
                assert isinstance(kw.get("weights_only"), ast.Constant) and kw["weights_only"].value is True
            elif node.func.attr == "load" and owner not in ("json",):  # an SB3 algorithm's load
                assert "custom_objects" in kw, ast.unparse(node)
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom) for a in n.names} | {
        n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not imported & {"pickle", "pickletools", "cloudpickle", "dill", "marshal", "shelve", "joblib"}


def test_sb3_load_is_given_every_pickled_entry(trained: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """At run time: with cloudpickle's loads (what SB3's loader unpickles with) made to fail, every model still loads,
    so SB3's loader was given each pickled entry (``custom_objects``) and unpickled none."""
    import cloudpickle

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a model file was unpickled")

    monkeypatch.setattr(cloudpickle, "loads", refuse)
    for path in [*trained.values(), *SHIPPED.values()]:
        rules = "yahtzee" if path == SHIPPED["yahtzee"] else "yacht"
        obs_space = model_observation_space(yacht_spaces(rules)[0], get_rules(rules), 1)
        policy, info = load_sb3_policy(path, obs_space, yacht_spaces(rules)[1])
        assert type(policy) is POLICY_REGISTRY[info.policy_class].load_class()


def test_inspect_reads_without_building(tmp_path: Path) -> None:
    info = inspect_sb3_zip(SHIPPED["yahtzee"])
    assert info.observation_shape == (71,) and info.observation_dtype == "float32" and info.action_n == 45  # layout 1
    assert info.policy_kwargs["activation_fn"] == Ref("torch.nn.modules.activation", "Tanh")
    assert info.constructor_kwargs["activation_fn"] is th.nn.Tanh
    assert info.counters["_n_updates"] == 1468 and info.has_optimizer
    assert Ref("gymnasium.spaces.box", "Box") in info.serialized["observation_space"]


def test_loading_does_not_touch_the_global_rng() -> None:
    state = th.random.get_rng_state()
    load_sb3_policy(SHIPPED["yacht"], *yacht_spaces())
    assert th.equal(state, th.random.get_rng_state())


def test_a_model_for_other_spaces_is_refused(trained: dict[str, Path]) -> None:
    with pytest.raises(ValueError, match=r"model expects observations of shape \(71,\), the environment gives "
                                         r"\(64,\)"):
        load_sb3_policy(SHIPPED["yahtzee"], *yacht_spaces("yacht"))
    with pytest.raises(ValueError, match=r"model expects observations of shape \(71,\), the environment gives "
                                         r"\(78,\)"):  # layout 1 model, layout 2 space: the caller must slice
        load_sb3_policy(SHIPPED["yahtzee"], *yacht_spaces("yahtzee"))
    obs_space, _ = yacht_spaces("yacht")
    with pytest.raises(ValueError, match=r"model expects 44 actions .* the environment has 45"):
        load_sb3_policy(trained["PPO"], obs_space, gymnasium.spaces.Discrete(45))
    with pytest.raises(ValueError, match="model expects float32 observations, the environment gives float64"):
        load_sb3_policy(trained["PPO"], gymnasium.spaces.Box(0, 1, (64,), np.float64), yacht_spaces()[1])


# ---- models trained here with plain model.save() ---------------------------------------------------------------------


@pytest.mark.parametrize("algo", ALGOS)
def test_trained_models_act_like_sb3(algo: str, trained: dict[str, Path]) -> None:
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import A2C, DQN, PPO

    obs_space, act_space = yacht_spaces()
    policy, info = load_sb3_policy(trained[algo], obs_space, act_space)
    assert info.algorithm == algo
    reference = {"PPO": PPO, "A2C": A2C, "DQN": DQN, "MaskablePPO": MaskablePPO}[algo].load(trained[algo],
                                                                                          device="cpu")
    obs, masks = env_batch("yacht", 300, seed=2)
    want, _ = reference.predict(obs, deterministic=True)
    np.testing.assert_array_equal(greedy_actions(policy, obs), want)
    np.testing.assert_array_equal(action_scores(policy, obs, masks), action_scores(reference.policy, obs, masks))
    got = greedy_actions(policy, obs, masks)
    assert masks[np.arange(len(got)), got].all()
    np.testing.assert_array_equal(got, action_scores(policy, obs, masks).argmax(1))
    if algo == "MaskablePPO":
        np.testing.assert_array_equal(got, reference.predict(obs, action_masks=masks, deterministic=True)[0])
    if algo == "DQN":  # the scores are the Q-values
        with th.no_grad():
            q = reference.q_net(th.as_tensor(obs)).numpy()
        np.testing.assert_array_equal(action_scores(policy, obs), q)
    with pytest.raises(ValueError, match="allows no action"):
        greedy_actions(policy, obs[:2], np.zeros((2, 44), dtype=bool))
    model = SafePolicyModel(policy, info)
    if algo == "DQN":
        with pytest.raises(ValueError, match="deterministic=True"):
            model.predict(obs, action_masks=masks, deterministic=False)
    else:
        sampled, _ = model.predict(obs, action_masks=masks, deterministic=False)
        assert masks[np.arange(len(sampled)), sampled].all()


def test_a2c_optimizer_is_mapped(trained: dict[str, Path]) -> None:
    info = inspect_sb3_zip(trained["A2C"])
    assert info.constructor_kwargs["optimizer_class"] is th.optim.RMSprop
    policy, _ = load_sb3_policy(trained["A2C"], *yacht_spaces())
    assert isinstance(policy.optimizer, th.optim.RMSprop)


# ---- hostile files ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", [0, 2, 5])
@pytest.mark.parametrize("key", ["policy_kwargs", "policy_class", "observation_space", "_last_obs", "lr_schedule",
                                 "extra"])
def test_a_pickled_payload_loads_as_data_or_is_refused_and_never_runs(key: str, protocol: int,
                                                                     trained: dict[str, Path], tmp_path: Path) -> None:
    """A payload in place of SB3's pickle, its readable fields kept: the model loads with our own objects in place of
    every pickle and acts as the clean file does; an entry SB3 does not pickle is refused by a strict read, one line,
    and loads with strict=False. The payload never runs."""
    marker = tmp_path / "marker"

    def plant(d: dict[str, Any]) -> None:  # the readable fields stay: only the pickle is swapped
        readable = {k: v for k, v in d[key].items() if k != ":serialized:"} if isinstance(d.get(key), dict) else {}
        d[key] = {**serialized(pickle.dumps(_ShellPayload(marker), protocol=protocol)), **readable}

    bad = rewrite_zip(trained["MaskablePPO"], tmp_path / "bad.zip", data=plant)
    clean, _ = load_sb3_policy(trained["MaskablePPO"], *yacht_spaces())
    obs, masks = env_batch("yacht", 100, seed=8)
    if key == "extra":
        for call in (lambda: inspect_sb3_zip(bad), lambda: load_sb3_policy(bad, *yacht_spaces())):
            with pytest.raises(ValueError, match=r"data\['extra'\] is a pickled builtins.dict, which "
                                                 r"stable-baselines3 does not write there .*strict=False") as refused:
                call()
            assert "\n" not in str(refused.value)
    else:
        assert inspect_sb3_zip(bad).policy_class == Ref("sb3_contrib.common.maskable.policies",
                                                        "MaskableActorCriticPolicy")
    for strict in (True, False) if key != "extra" else (False,):
        policy, _ = load_sb3_policy(bad, *yacht_spaces(), strict=strict)
        np.testing.assert_array_equal(action_scores(policy, obs, masks), action_scores(clean, obs, masks))
    assert not marker.exists()


def test_the_refusal_names_the_entry_and_the_type(trained: dict[str, Path], tmp_path: Path) -> None:
    """A strict read names the pickled entry and the type it records when SB3 would not write that type there."""
    marker = tmp_path / "marker"
    bad = rewrite_zip(trained["PPO"], tmp_path / "bad.zip", data=lambda d: d.update(
        lr_schedule=as_sb3_writes("lr_schedule", _OpenPayload(marker))))
    with pytest.raises(ValueError, match=r"data\['lr_schedule'\] is a pickled \S*_OpenPayload, which "
                                         r"stable-baselines3 does not write there \(accepted: "
                                         r"stable_baselines3.common.utils.ConstantSchedule, .*strict=False"):
        load_sb3_policy(bad, *yacht_spaces())
    load_sb3_policy(bad, *yacht_spaces(), strict=False)  # not needed by the reader: replaced, never decoded
    assert not marker.exists()


def test_an_entry_sb3_would_call_is_never_taken_from_the_file(trained: dict[str, Path], tmp_path: Path) -> None:
    """What SB3's ``load`` would use from the plain JSON is ours: no environment made from an ``env`` id (gymnasium
    imports ``module:`` ids), no ``device``, no seeding of the global RNGs, one-step buffers whatever the file asks."""
    huge = {"n_steps": 10**9, "n_envs": 10**6, "batch_size": 10**9, "buffer_size": 10**12, "seed": 7,
            "env": "yacht_env_no_such_module:Nope-v0", "device": "meta", "rollout_buffer_kwargs": {"n_envs": 3},
            "replay_buffer_kwargs": {"n_envs": 3}, "learning_rate": "not a number", "train_freq": "x",
            "clip_range_vf": -1.0}
    for algo in ALGOS:
        bad = rewrite_zip(trained[algo], tmp_path / f"{algo}.zip", data=lambda d: d.update(huge))
        torch_state, np_state = th.random.get_rng_state(), np.random.get_state()[1].copy()
        policy, _ = load_sb3_policy(bad, *yacht_spaces())
        assert th.equal(torch_state, th.random.get_rng_state()) and (np.random.get_state()[1] == np_state).all()
        assert policy.device.type == "cpu"
        obs, masks = env_batch("yacht", 50, seed=9)
        np.testing.assert_array_equal(action_scores(policy, obs, masks),
                                      action_scores(load_sb3_policy(trained[algo], *yacht_spaces())[0], obs, masks))


def test_closure_schedules_of_older_sb3_need_strict_false(tmp_path: Path) -> None:
    """SB3 before 2.6.1 saved schedules as closures, which cloudpickle writes as code: a strict read refuses them;
    strict=False skips those entries (never decoded) and loads the policy."""
    import warnings

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import constant_fn

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # constant_fn is deprecated
        lr = constant_fn(3e-4)
    model = MaskablePPO("MlpPolicy", gymnasium.make("Yacht-v0"), learning_rate=lr, n_steps=64, seed=0,
                        device="cpu", policy_kwargs=dict(net_arch=[16]))
    path = save_sb3_atomic(model, tmp_path / "closure.zip")
    with pytest.raises(ValueError, match=r"data\['(learning_rate|lr_schedule)'\] is a pickled builtins.function, "
                                         r"which stable-baselines3 does not write there"):
        inspect_sb3_zip(path)
    policy, _ = load_sb3_policy(path, *yacht_spaces(), strict=False)
    obs, masks = env_batch("yacht", 50, seed=7)
    np.testing.assert_array_equal(greedy_actions(policy, obs, masks),
                                  model.predict(obs, action_masks=masks, deterministic=True)[0])


@pytest.mark.parametrize("entry", ["policy.pth", "policy.optimizer.pth"])
def test_a_torch_payload_is_refused_by_weights_only(entry: str, trained: dict[str, Path], tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    buf = io.BytesIO()
    th.save({"w": th.zeros(2), "evil": _ShellPayload(marker)}, buf)
    bad = rewrite_zip(trained["MaskablePPO"], tmp_path / "bad.zip", entries={entry: buf.getvalue()})
    with pytest.raises(ValueError, match="weights-only"):
        if entry == "policy.pth":
            load_sb3_policy(bad, *yacht_spaces())
        else:
            restore_into(_fresh_maskable(net_arch=[16]), bad)
    assert not marker.exists()


def test_a_legacy_pickle_as_weights_is_refused(trained: dict[str, Path], tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    bad = rewrite_zip(trained["PPO"], tmp_path / "bad.zip", entries={"policy.pth": pickle.dumps(
        _ShellPayload(marker))})
    with pytest.raises(ValueError, match="torch's zip format"):
        load_sb3_policy(bad, *yacht_spaces())
    assert not marker.exists()


def test_weights_sb3_would_set_as_attributes_are_refused(trained: dict[str, Path], tmp_path: Path) -> None:
    """SB3's ``load`` sets the attribute each ``.pth`` name and each ``pytorch_variables`` key names: only the files
    SB3 writes for these algorithms are accepted, its variables empty; without the optimizer state SB3's ``load``
    cannot load the policy."""
    buf = io.BytesIO()
    th.save({"policy.action_net.weight": th.full((44, 16), math.nan)}, buf)
    variables = rewrite_zip(trained["PPO"], tmp_path / "vars.zip", entries={"pytorch_variables.pth": buf.getvalue()})
    with pytest.raises(ValueError, match=r"pytorch_variables.pth holds .*; accepted: nothing"):
        load_sb3_policy(variables, *yacht_spaces())
    with zipfile.ZipFile(trained["PPO"]) as z:
        policy_pth = z.read("policy.pth")
    other = rewrite_zip(trained["PPO"], tmp_path / "other.zip", entries={"policy.mlp_extractor.pth": policy_pth})
    with pytest.raises(ValueError, match=r"has an entry 'policy.mlp_extractor.pth'; accepted weights: policy.pth, "):
        inspect_sb3_zip(other)
    no_optimizer = rewrite_zip(trained["PPO"], tmp_path / "noopt.zip", entries={"policy.optimizer.pth": None})
    assert not inspect_sb3_zip(no_optimizer).has_optimizer
    with pytest.raises(ValueError, match="has no 'policy.optimizer.pth' entry"):
        load_sb3_policy(no_optimizer, *yacht_spaces())


def _patch_declared_size(src: Path, dst: Path, name: str, size: int) -> Path:
    """Set the uncompressed size the central directory declares for ``name`` (the zip-bomb header)."""
    blob = bytearray(src.read_bytes())
    pos = 0
    while True:
        pos = blob.index(b"PK\x01\x02", pos)
        n = struct.unpack_from("<H", blob, pos + 28)[0]
        if bytes(blob[pos + 46: pos + 46 + n]) == name.encode():
            struct.pack_into("<I", blob, pos + 24, size)
            break
        pos += 4
    dst.write_bytes(bytes(blob))
    return dst


def test_zip_bombs_and_absurd_archives_are_refused(trained: dict[str, Path], tmp_path: Path) -> None:
    bomb = _patch_declared_size(trained["PPO"], tmp_path / "bomb.zip", "data", 0xFFFFFF00)
    with pytest.raises(ValueError, match=r"declares 4,294,967,040 bytes uncompressed"):
        inspect_sb3_zip(bomb)
    lie = _patch_declared_size(trained["PPO"], tmp_path / "lie.zip", "data", 100)
    with pytest.raises(ValueError, match="entry 'data' cannot be read"):
        inspect_sb3_zip(lie)

    real = tmp_path / "real-bomb.zip"
    with zipfile.ZipFile(real, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("data", b"\0" * (4 << 20))
    assert real.stat().st_size < 64 << 10
    with pytest.raises(ValueError, match="more than the limit"):
        inspect_sb3_zip(real, limits=ZipLimits(max_total_bytes=1 << 20, max_entry_bytes=1 << 20))

    many = tmp_path / "many.zip"
    with zipfile.ZipFile(many, "w") as z:
        for i in range(100):
            z.writestr(f"e{i}", b"x")
    with pytest.raises(ValueError, match="100 entries, more than the limit of 64"):
        inspect_sb3_zip(many)

    big = tmp_path / "big.zip"
    big.write_bytes(trained["PPO"].read_bytes())
    with pytest.raises(ValueError, match="more than the limit"):
        inspect_sb3_zip(big, limits=ZipLimits(max_file_bytes=1000))


def test_files_that_are_not_model_zips(trained: dict[str, Path], tmp_path: Path) -> None:
    text = tmp_path / "model.zip"
    text.write_text("not a zip")
    with pytest.raises(ValueError, match="not a zip file"):
        inspect_sb3_zip(text)
    cut = tmp_path / "cut.zip"
    blob = trained["PPO"].read_bytes()
    cut.write_bytes(blob[: len(blob) // 2])
    with pytest.raises(ValueError, match="truncated"):
        inspect_sb3_zip(cut)
    empty = tmp_path / "empty.zip"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="not a zip file"):
        inspect_sb3_zip(empty)
    with pytest.raises(ValueError, match="no model file"):
        inspect_sb3_zip(tmp_path / "missing.zip")
    with pytest.raises(ValueError, match="no model file"):
        inspect_sb3_zip(tmp_path)
    with pytest.raises(ValueError, match="no 'policy.pth' entry"):
        inspect_sb3_zip(rewrite_zip(trained["PPO"], tmp_path / "nop.zip", entries={"policy.pth": None}))
    with pytest.raises(ValueError, match="data entry is not JSON"):
        inspect_sb3_zip(rewrite_zip(trained["PPO"], tmp_path / "nojson.zip", entries={"data": b"{oops"}))
    with pytest.raises(ValueError, match="'1.8.0'; accepted: 2.x"):
        inspect_sb3_zip(rewrite_zip(trained["PPO"], tmp_path / "old.zip",
                                    entries={"_stable_baselines3_version": b"1.8.0"}))
    dup = tmp_path / "dup.zip"
    with zipfile.ZipFile(dup, "w") as z, pytest.warns(UserWarning):
        z.writestr("data", b"{}")
        z.writestr("data", b"{}")
    with pytest.raises(ValueError, match="two entries named 'data'"):
        inspect_sb3_zip(dup)


def test_unknown_policies_and_kwargs_are_refused(trained: dict[str, Path], tmp_path: Path) -> None:
    from stable_baselines3.sac.policies import SACPolicy

    def policy_class(entry: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
        return lambda d: d.update(policy_class=entry)

    other = rewrite_zip(trained["PPO"], tmp_path / "sac.zip", data=policy_class(as_sb3_writes("p", SACPolicy)))
    with pytest.raises(ValueError, match=r"policy_class is stable_baselines3.sac.policies.SACPolicy, not an accepted "
                                         r"policy; accepted: .*ActorCriticPolicy"):
        load_sb3_policy(other, *yacht_spaces(), strict=False)
    shell = rewrite_zip(trained["PPO"], tmp_path / "shell.zip", data=policy_class(class_entry("posix", "system")))
    for strict in (True, False):
        with pytest.raises(ValueError, match=r"policy_class is posix.system, not an accepted policy"):
            load_sb3_policy(shell, *yacht_spaces(), strict=strict)
    untold = {**serialized(pickle.dumps(_ShellPayload(tmp_path / "marker"))), ":type:": "<class 'abc.ABCMeta'>"}
    for name, entry in {"untold": untold, "two classes": {**class_entry("a.b", "C"), "_build": "<function D._build "
                                                                                              "at 0x7f0000000000>"},
                        "as text": "stable_baselines3.common.policies.ActorCriticPolicy"}.items():
        bad = rewrite_zip(trained["PPO"], tmp_path / f"{name}.zip", data=policy_class(entry))
        with pytest.raises(ValueError, match=r"policy_class is a class whose readable fields do not name it .*; "
                                             r"accepted: .*ActorCriticPolicy"):
            inspect_sb3_zip(bad)
    assert not (tmp_path / "marker").exists()
    counter = rewrite_zip(trained["PPO"], tmp_path / "counter.zip", data=lambda d: d.update(num_timesteps=-5))
    with pytest.raises(ValueError, match=r"data\['num_timesteps'\] must be a count"):
        inspect_sb3_zip(counter)

    def kwargs(value: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
        return lambda d: d.update(policy_kwargs=value)

    cases = {
        "unknown key": ({"net_arch": [16], "lstm_hidden_size": 8}, r"\['lstm_hidden_size'\], not accepted for "
                                                                   r"ActorCriticPolicy; accepted: \["),
        "activation": (as_sb3_writes("policy_kwargs", {"activation_fn": th.nn.Softmax}),
                       r"Softmax: not an accepted activation, optimizer or features extractor; accepted: "
                       r".*torch.nn.modules.activation.ELU"),
        "pickle only": (serialized(pickle.dumps({"activation_fn": th.nn.Tanh})), "pickled \"<class 'dict'>\" without "
                                                                                 "readable fields"),
        "activation as text": ({"activation_fn": "<class 'torch.nn.modules.activation.Tanh'>"}, "not an accepted"),
        "net_arch": ({"net_arch": [16, "x"]}, "must be a list of at most 16 layer widths"),
        "huge net_arch": ({"net_arch": [512, 512]}, "does not describe its own network"),
        "past the limit": ({"net_arch": [4096] * 3}, r"the limit is 4,194,304 \(MAX_NETWORK_NUMBERS"),
        "ortho_init": ({"net_arch": [16], "ortho_init": "yes"}, "must be True or False"),
    }
    for name, (value, message) in cases.items():
        bad = rewrite_zip(trained["PPO"], tmp_path / f"{name}.zip", data=kwargs(value))
        with pytest.raises(ValueError, match=message):
            load_sb3_policy(bad, *yacht_spaces(), strict=False)
    wrong = rewrite_zip(trained["PPO"], tmp_path / "wrong-arch.zip", data=kwargs({"net_arch": [17]}))
    with pytest.raises(ValueError, match="policy.pth does not fit a ActorCriticPolicy") as refused:
        load_sb3_policy(wrong, *yacht_spaces())
    assert "\n" not in str(refused.value)  # torch's multi-line report in one line


def test_the_registry_accepts_new_policies(trained: dict[str, Path], tmp_path: Path) -> None:
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    renamed = rewrite_zip(trained["MaskablePPO"], tmp_path / "renamed.zip", data=lambda d: d.update(
        policy_class=class_entry("old_project.policies", "MyPolicy")))
    with pytest.raises(ValueError, match="old_project.policies.MyPolicy"):
        inspect_sb3_zip(renamed)
    spec = PolicySpec("MyPolicy", "maskable", lambda: MaskableActorCriticPolicy, ACTOR_CRITIC_KWARGS)
    register_policy("old_project.policies", "MyPolicy", spec)
    try:
        _, info = load_sb3_policy(renamed, *yacht_spaces())
        assert info.policy == "MyPolicy" and info.algorithm == "MaskablePPO"
    finally:
        del POLICY_REGISTRY[Ref("old_project.policies", "MyPolicy")]


# ---- resuming training -----------------------------------------------------------------------------------------------


def _fresh_maskable(turn: bool = False, net_arch: list[int] | None = None, seed: int = 0) -> Any:
    from sb3_contrib import MaskablePPO

    env = gymnasium.make("Yacht-v0")
    if turn:
        return MaskablePPO(TurnExpectimaxPolicy, env, n_steps=64, batch_size=32, n_epochs=1, seed=seed, device="cpu",
                           policy_kwargs=dict(net_arch=net_arch or [8], activation_fn=th.nn.Tanh, rules="yacht",
                                              reward_scale=0.02, inverse_temperature=1.0, box_prior=12.0))
    return MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=seed, device="cpu",
                       policy_kwargs=dict(net_arch=net_arch or [16], activation_fn=th.nn.Tanh, ortho_init=True))


@pytest.mark.parametrize("turn", [False, True], ids=["mlp", "turn_expectimax"])
def test_restore_into_continues_a_run(turn: bool, tmp_path: Path) -> None:
    original = _fresh_maskable(turn)
    original.learn(64)
    setattr(original, META_KEY, model_meta("yacht"))
    path = save_sb3_atomic(original, tmp_path / "latest.zip", include=[META_KEY])

    resumed = _fresh_maskable(turn, seed=1)  # built by our code from the run's config; another seed on purpose
    report = restore_into(resumed, path, include=[META_KEY])
    obs, masks = env_batch("yacht", 200, seed=3)
    np.testing.assert_array_equal(resumed.predict(obs, action_masks=masks, deterministic=True)[0],
                                  original.predict(obs, action_masks=masks, deterministic=True)[0])
    np.testing.assert_array_equal(action_scores(resumed.policy, obs, masks), action_scores(original.policy, obs,
                                                                                           masks))
    for key in ("num_timesteps", "_n_updates", "_num_timesteps_at_start", "_current_progress_remaining",
                "_total_timesteps", "_episode_num"):
        assert getattr(resumed, key) == getattr(original, key), key
    assert getattr(resumed, META_KEY) == model_meta("yacht")
    want, got = original.policy.optimizer.state_dict(), resumed.policy.optimizer.state_dict()
    assert want["param_groups"] == got["param_groups"]
    for i, st in want["state"].items():
        for k, v in st.items():
            assert th.equal(th.as_tensor(v), th.as_tensor(got["state"][i][k]))
    assert "optimizer state (policy.optimizer.pth)" in report.restored
    assert "rollout buffer" in report.not_restored and "RNG states" in report.not_restored
    assert report.differences == {"seed": (0, 1)}

    resumed.learn(64, reset_num_timesteps=False)  # training goes on from the restored step count
    assert resumed.num_timesteps == original.num_timesteps + 64


@pytest.mark.parametrize("algo", ["PPO", "A2C", "DQN"])
def test_restore_into_other_algorithms(algo: str, trained: dict[str, Path], tmp_path: Path) -> None:
    from stable_baselines3 import A2C, DQN, PPO

    cls = {"PPO": PPO, "A2C": A2C, "DQN": DQN}[algo]
    kw: dict[str, Any] = {"PPO": dict(n_steps=64, batch_size=32, n_epochs=1), "A2C": dict(n_steps=8),
                          "DQN": dict(learning_starts=50, buffer_size=1000, train_freq=4)}[algo]
    fresh = cls("MlpPolicy", gymnasium.make("Yacht-v0"), seed=5, device="cpu", policy_kwargs=dict(net_arch=[16]), **kw)
    report = restore_into(fresh, trained[algo])
    reference = cls.load(trained[algo], device="cpu")
    obs, _ = env_batch("yacht", 100, seed=6)
    np.testing.assert_array_equal(fresh.predict(obs, deterministic=True)[0],
                                  reference.predict(obs, deterministic=True)[0])
    for key, value in report.info.counters.items():
        assert getattr(fresh, key) == value == getattr(reference, key), key
    assert ("replay buffer" in report.not_restored) == (algo == "DQN")


def test_restore_into_refuses_another_model(tmp_path: Path, trained: dict[str, Path]) -> None:
    original = _fresh_maskable()
    path = save_sb3_atomic(original, tmp_path / "m.zip")
    with pytest.raises(ValueError, match=r"policy_kwargs differ from the model's \(net_arch: file \[16\], model "
                                         r"\[32\]\)"):
        restore_into(_fresh_maskable(net_arch=[32]), path)
    with pytest.raises(ValueError, match="holds a MaskableActorCriticPolicy policy, the model has a "
                                         "TurnExpectimaxPolicy"):
        restore_into(_fresh_maskable(turn=True), path)
    with pytest.raises(ValueError, match="holds a PPO model; it cannot be restored into a MaskablePPO"):
        restore_into(original, trained["PPO"])


# ---- atomic save -----------------------------------------------------------------------------------------------------


def test_save_atomic_replaces_or_keeps_the_old_file(tmp_path: Path) -> None:
    model = _fresh_maskable()
    path = tmp_path / "ckpt" / "latest.zip"
    save_sb3_atomic(model, path)
    assert inspect_sb3_zip(path).algorithm == "MaskablePPO"
    path.chmod(0o640)
    good = path.read_bytes()

    class Killed:  # a model whose save dies half-way through writing
        def save(self, f: Any, include: Any = None, exclude: Any = None) -> None:
            f.write(b"PK\x03\x04 half a zip")
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        save_sb3_atomic(Killed(), path)
    assert path.read_bytes() == good
    assert sorted(p.name for p in path.parent.iterdir()) == ["latest.zip"]  # no temporary file left
    model.learn(64)
    save_sb3_atomic(model, path)
    assert path.read_bytes() != good and inspect_sb3_zip(path).num_timesteps == 64
    assert path.stat().st_mode & 0o777 == 0o640


# ---- model-file errors: the file and the reason in one line ----------------------------------------------------------


def _eval_error(agent: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """What ``yacht eval --agent <file>`` writes on stderr, after checking that it is one line and exit status 2."""
    from yacht_cli import main

    rc = main(["eval", "--agent", str(agent), "--rules", "yacht", "--episodes", "2", "--no-regret", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and err.startswith("yacht eval: error: cannot load "), err
    assert repr(str(agent)) in err and "weights_only" not in err and len(err) < 400, err
    return err


def test_a_zip_with_nan_weights_is_one_short_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No tensor of NaNs is printed: the first non-finite weight is named."""
    with zipfile.ZipFile(SHIPPED["yacht"]) as z:
        sd = th.load(io.BytesIO(z.read("policy.pth")), weights_only=True)
    for t in sd.values():
        t.fill_(math.nan) if t.is_floating_point() else None
    buf = io.BytesIO()
    th.save(sd, buf)
    bad = rewrite_zip(SHIPPED["yacht"], tmp_path / "broken.zip", entries={"policy.pth": buf.getvalue()})
    err = _eval_error(bad, capsys)
    assert "policy.pth: the network weights are not all finite (NaN or inf), first in " in err
    message = err.replace(str(bad), "")
    assert "tensor" not in message and "nan" not in message


def _weights_edited(edit: Callable[[str, th.Tensor], th.Tensor], tmp_path: Path) -> Path:
    """The shipped Yacht model with every tensor of policy.pth replaced by ``edit(name, tensor)``."""
    with zipfile.ZipFile(SHIPPED["yacht"]) as z:
        sd = th.load(io.BytesIO(z.read("policy.pth")), weights_only=True)
    buf = io.BytesIO()
    th.save({k: edit(k, t) for k, t in sd.items()}, buf)
    return rewrite_zip(SHIPPED["yacht"], tmp_path / "edited.zip", entries={"policy.pth": buf.getvalue()})


@pytest.mark.parametrize(("edit", "reason"), [
    (lambda t: (t * 100).to(th.int64), "holds int64 values, not real floating-point numbers"),
    (lambda t: th.full(t.shape, complex(math.nan, 0.0), dtype=th.complex64), "holds complex64 values"),
    (lambda t: t.to_sparse(), "is a sparse_coo tensor, not a dense one"),
    (lambda t: th.empty(t.shape, device="meta"), "is on the 'meta' device, not held in the file"),
], ids=["int64", "complex-nan", "sparse", "meta"])
def test_weights_that_are_not_dense_real_cpu_floats_are_refused(edit: Callable[[th.Tensor], th.Tensor],
                                                                reason: str, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Integer weights were truncated in silence, complex NaN passed the finite check, sparse and meta tensors
    crashed it: each is one line naming the file and the tensor."""
    bad = _weights_edited(lambda k, t: edit(t) if t.is_floating_point() else t, tmp_path)
    err = _eval_error(bad, capsys)
    assert "policy.pth: the network weight '" in err and reason in err, err


def test_a_huge_integer_in_the_data_json_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """5,000 digits gave Python's advice to call sys.set_int_max_str_digits()."""
    bad = tmp_path / "huge_int.zip"
    with zipfile.ZipFile(SHIPPED["yacht"]) as z:
        blob = z.read("data").decode()
    rewrite_zip(SHIPPED["yacht"], bad, entries={"data": blob.replace("{", '{"huge": ' + "7" * 5000 + ", ", 1).encode()})
    err = _eval_error(bad, capsys)
    assert "the data entry holds an integer of 5,000 digits; accepted: at most 40" in err
    assert "set_int_max_str_digits" not in err


@pytest.mark.parametrize(("content", "reason"), [
    (b"", r"the file is empty \(0 bytes\)"),
    (b"garbage bytes, not a model", "not a file written by torch.save"),
    (pickle.dumps({"w": [1.0]}), "not a file written by torch.save"),
    ("payload", "torch's weights-only loader refused it: Trying to load unsupported GLOBAL (posix|nt).system"),
    ("truncated", "torch's weights-only loader refused it: PytorchStreamReader failed reading zip archive"),
], ids=["empty", "garbage", "legacy-pickle", "payload", "truncated"])
def test_a_broken_pt_file_says_why_in_one_line(content: bytes | str, reason: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Never torch's advice to re-run with weights_only=False; an empty file says it is empty."""
    path, marker = tmp_path / "model.pt", tmp_path / "ran"
    if content == "payload":
        th.save({"meta": {"format": "x"}, "evil": _ShellPayload(marker)}, path)
    elif content == "truncated":
        th.save({"w": th.zeros(1000)}, path)
        path.write_bytes(path.read_bytes()[:2000])
    else:
        path.write_bytes(content)
    err = _eval_error(path, capsys)
    assert re.search(f"as a TD model: {reason}", err), err
    assert not marker.exists()


def _with_optimizer(src: Path, dst: Path, edit: Callable[[dict[str, Any]], None]) -> Path:
    with zipfile.ZipFile(src) as z:
        state = th.load(io.BytesIO(z.read("policy.optimizer.pth")), weights_only=True)
    edit(state)
    buf = io.BytesIO()
    th.save(state, buf)
    return rewrite_zip(src, dst, entries={"policy.optimizer.pth": buf.getvalue()})


def test_restore_into_keeps_the_configs_optimizer_settings(tmp_path: Path) -> None:
    original = _fresh_maskable()
    original.learn(64)
    path = save_sb3_atomic(original, tmp_path / "m.zip")
    hostile = {"eps": float("nan"), "weight_decay": 1000.0, "betas": (0.0, 0.0), "amsgrad": True, "maximize": True,
               "foreign": 3}

    def smuggle(state: dict[str, Any]) -> None:
        for group in state["param_groups"]:
            group.update(hostile)

    bad = _with_optimizer(path, tmp_path / "bad.zip", smuggle)
    resumed = _fresh_maskable(seed=0)
    mine = [{k: v for k, v in g.items() if k != "params"} for g in resumed.policy.optimizer.param_groups]
    report = restore_into(resumed, bad)
    assert [{k: v for k, v in g.items() if k != "params"} for g in resumed.policy.optimizer.param_groups] == mine
    assert not resumed.policy.optimizer.param_groups[0]["maximize"]
    diff = report.differences
    assert math.isnan(diff["optimizer.eps"][0]) and diff["optimizer.eps"][1] == mine[0]["eps"]
    assert diff["optimizer.weight_decay"] == (1000.0, mine[0]["weight_decay"])
    assert diff["optimizer.betas"] == ((0.0, 0.0), mine[0]["betas"])
    assert diff["optimizer.amsgrad"] == (True, False) and diff["optimizer.maximize"] == (True, False)
    assert diff["optimizer.foreign"] == (3, None)
    assert "optimizer.lr" not in diff  # set from the schedule at every update
    want = original.policy.optimizer.state_dict()["state"]
    got = resumed.policy.optimizer.state_dict()["state"]
    assert all(th.equal(want[i]["exp_avg"], got[i]["exp_avg"]) for i in want)  # the state itself is restored
    resumed.learn(64, reset_num_timesteps=False)
    assert all(th.isfinite(p).all() for p in resumed.policy.parameters())
    assert restore_into(_fresh_maskable(), path).differences == {}  # an honest file: nothing to say

    def poison(state: dict[str, Any]) -> None:
        next(iter(state["state"].values()))["exp_avg"].fill_(float("nan"))

    with pytest.raises(ValueError, match=r"bad_state.zip.: policy.optimizer.pth holds a NaN, inf or negative step in "
                                         r"state\[0\]\['exp_avg'\]"):
        restore_into(_fresh_maskable(), _with_optimizer(path, tmp_path / "bad_state.zip", poison))

    def negative_step(state: dict[str, Any]) -> None:
        next(iter(state["state"].values()))["step"] = th.tensor(-5.0)

    with pytest.raises(ValueError, match=r"\['step'\]"):
        restore_into(_fresh_maskable(), _with_optimizer(path, tmp_path / "bad_step.zip", negative_step))
