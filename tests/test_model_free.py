"""The model-free MaskablePPO policy (agents/model_free.py): shapes, masking, entropy per decision type, the safe
zip loader, a tiny train.py run, and the config keys it adds."""

from __future__ import annotations

import importlib.util
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch as th
import yaml
from conftest import env_batch

import train
from yacht_agents.loader import SHIPPED_MODELS_DIR, load_agent
from yacht_agents.model_free import KEEP_HEADS, ModelFreeNet, ModelFreePolicy
from yacht_agents.sb3_agent import load_sb3_agent
from yacht_agents.sb3_zip import inspect_sb3_zip, load_sb3_policy
from yacht_env import RULESETS
from yacht_env import dice as D
from yacht_env import observation as O
from yacht_env.actions import NUM_KEEP_ACTIONS, num_actions
from yacht_env.env import YachtEnv
from yacht_tools.evaluation import evaluate
from yacht_training.config import from_dict
from yacht_training.sb3_ppo import decision_entropy_ppo


def make_policy(rules: str, keep_head: str, vf_arch: list[int] | None = None) -> ModelFreePolicy:
    env = YachtEnv(rules)
    th.manual_seed(0)
    return ModelFreePolicy(env.observation_space, env.action_space, lambda _: 1e-3, rules=rules, keep_head=keep_head,
                           keep_hidden=16, vf_arch=vf_arch, net_arch=[32, 32])


def _perturb(policy: ModelFreePolicy) -> None:
    """Weights away from the near-uniform start, so that logits differ between actions."""
    g = th.Generator().manual_seed(1)
    with th.no_grad():
        for p in policy.parameters():
            p.add_(th.randn(p.shape, generator=g) * 0.5)


@pytest.mark.parametrize("keep_head", KEEP_HEADS)
@pytest.mark.parametrize("rules", list(RULESETS))
def test_builds_for_every_rule_set_and_masks(rules: str, keep_head: str) -> None:
    policy = make_policy(rules, keep_head, vf_arch=[8] if keep_head == "multiset" else None)
    _perturb(policy)
    obs, masks = env_batch(rules, 120)
    t = th.as_tensor(obs)
    net = policy.mlp_extractor
    assert isinstance(net, ModelFreeNet) and (net.vf_trunk is not None) == (keep_head == "multiset")
    logits, value = net(t)
    c = RULESETS[rules].num_categories
    assert logits.shape == (120, NUM_KEEP_ACTIONS + c) == (120, num_actions(rules)) and value.shape == (120, 1)
    assert th.equal(net.forward_actor(t), logits) and th.equal(net.forward_critic(t), value)
    with th.no_grad():
        probs = policy.get_distribution(t, action_masks=masks).distribution.probs.numpy()
    assert np.all(probs[~masks] == 0) and np.all(probs[masks] > 0)
    np.testing.assert_allclose(probs.sum(1), 1.0, rtol=1e-5)
    if keep_head == "multiset":  # patterns keeping the same dice get the same logit, whatever their positions
        hands = O.decode_batch(obs, rules).hand
        keep = logits[:, :NUM_KEEP_ACTIONS].detach().numpy()
        for row, h in enumerate(hands):
            for k in set(D.PATTERN_KEEP[h]):
                same = keep[row, np.asarray(D.PATTERN_KEEP[h]) == k]
                assert np.all(same == same[0])
        assert len(np.unique(keep[0])) == len(set(D.PATTERN_KEEP[hands[0]]))  # and different dice differ


def test_refuses_another_observation_size() -> None:
    from gymnasium import spaces

    env = YachtEnv("yahtzee")
    old = spaces.Box(0.0, 1.0, (O.size("yahtzee", 1),), dtype=np.float32)
    with pytest.raises(ValueError, match=r"ModelFreePolicy for rules 'yahtzee' needs observations of shape \(78,\), "
                                         r"got \(71,\)"):
        ModelFreePolicy(old, env.action_space, lambda _: 1e-3, rules="yahtzee")
    with pytest.raises(ValueError, match=r"keep_head: 'sets'; accepted: pattern, multiset"):
        ModelFreeNet("yacht", [8], th.nn.SiLU, keep_head="sets")


def test_entropy_weights_per_decision_type() -> None:
    """set_entropy_weights(k, s) multiplies evaluate_actions' entropy by k on rows with a roll left, s on the
    others; values and log-probabilities do not change."""
    policy = make_policy("yahtzee", "multiset")
    _perturb(policy)
    obs, masks = env_batch("yahtzee", 150, seed=2)
    t = th.as_tensor(obs)
    rolling = O.decode_batch(obs, "yahtzee").rolls > 0
    assert rolling.any() and (~rolling).any()
    assert np.array_equal(policy.mlp_extractor.keep_decision(t).numpy(), rolling)
    actions = th.as_tensor([int(np.flatnonzero(m)[0]) for m in masks])
    with th.no_grad():
        v0, lp0, e0 = policy.evaluate_actions(t, actions, masks)
        policy.set_entropy_weights(0.25, 3.0)
        v1, lp1, e1 = policy.evaluate_actions(t, actions, masks)
    assert th.equal(v0, v1) and th.equal(lp0, lp1)
    r = th.as_tensor(rolling)
    assert (e0[r] > 0).all() and (e0[~r] > 0).any()  # (a forced Joker row has one legal action: entropy 0)
    np.testing.assert_allclose(e1.numpy(), np.where(rolling, 0.25, 3.0) * e0.numpy(), rtol=1e-6)
    policy.set_entropy_weights(1.0, 0.0)
    with th.no_grad():
        _, _, e2 = policy.evaluate_actions(t, actions, masks)
    assert th.equal(e2[~r].abs(), th.zeros(int((~r).sum())))
    np.testing.assert_allclose(e2[r].numpy(), e0[r].numpy(), rtol=1e-6)


@pytest.mark.parametrize(("rules", "keep_head", "vf_arch"), [("yacht", "pattern", []), ("yahtzee", "multiset", [16])])
def test_saved_model_loads_through_the_safe_loader(rules: str, keep_head: str, vf_arch: list[int],
                                                   tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    env = YachtEnv(rules)
    model = MaskablePPO(ModelFreePolicy, env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs=dict(rules=rules, keep_head=keep_head, keep_hidden=16, vf_arch=vf_arch,
                                           net_arch=[32]))
    model.learn(128)
    model.save(tmp_path / "mf.zip")
    obs, masks = env_batch(rules, 200, seed=5)
    want, _ = model.predict(obs, action_masks=masks, deterministic=True)

    policy, info = load_sb3_policy(tmp_path / "mf.zip", env.observation_space, env.action_space)
    assert isinstance(policy, ModelFreePolicy) and info.policy == "ModelFreePolicy"
    assert policy.keep_head == keep_head and policy.vf_arch == vf_arch and policy.keep_hidden == 16
    for (ka, a), (kb, b) in zip(model.policy.state_dict().items(), policy.state_dict().items()):
        assert ka == kb and th.equal(a, b), ka
    agent = load_sb3_agent(tmp_path / "mf.zip", rules)
    assert agent.obs_layout == O.LAYOUT_VERSION
    np.testing.assert_array_equal(agent.act_batch(obs, masks), want)
    huge = tmp_path / "huge.zip"  # a file asking for a value trunk far beyond its weights is refused unbuilt
    with zipfile.ZipFile(tmp_path / "mf.zip") as zin, zipfile.ZipFile(huge, "w") as zout:
        for item in zin.infolist():
            blob = zin.read(item)
            if item.filename == "data":
                data = json.loads(blob)
                data["policy_kwargs"]["vf_arch"] = [1024, 1024]
                blob = json.dumps(data).encode()
            zout.writestr(item, blob)
    with pytest.raises(ValueError, match="does not describe its own network"):
        load_sb3_policy(huge, env.observation_space, env.action_space)


def test_ignored_observation_slices_do_not_reach_the_network(tmp_path: Path) -> None:
    """``ignore_observation``: changing an ignored slice changes nothing the network computes, changing a seen one
    does; the setting survives the safe zip loader."""
    from sb3_contrib import MaskablePPO

    env = YachtEnv("yahtzee")
    model = MaskablePPO(ModelFreePolicy, env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs=dict(rules="yahtzee", net_arch=[32], ignore_observation=["bonus_now", "joker"]))
    _perturb(model.policy)
    obs, masks = env_batch("yahtzee", 100, seed=2)
    lay = O.layout("yahtzee")
    net = model.policy.mlp_extractor
    t = th.as_tensor(obs)
    other = t.clone()
    other[:, lay["bonus_now"]] = 1 - other[:, lay["bonus_now"]]
    other[:, lay["joker"]] = 1 - other[:, lay["joker"]]
    for a, b in zip(net(t), net(other)):
        assert th.equal(a, b)
    seen = t.clone()
    seen[:, lay["points"]] += 0.5
    assert not th.equal(net(t)[0], net(seen)[0])
    model.save(tmp_path / "ignore.zip")
    policy, _ = load_sb3_policy(tmp_path / "ignore.zip", env.observation_space, env.action_space)
    assert isinstance(policy, ModelFreePolicy) and policy.ignore_observation == ["bonus_now", "joker"]
    assert th.equal(policy.mlp_extractor.visible, th.as_tensor(O.visible_columns("yahtzee", ["bonus_now", "joker"])))
    with pytest.raises(ValueError, match=r"observation slice 'bonus_now' is not in the layout of rules 'yacht'; "
                                         r"accepted: dice_counts, dice_onehot"):
        ModelFreeNet("yacht", [8], th.nn.SiLU, ignore_observation=["bonus_now"])


def test_decision_entropy_ppo_follows_its_schedules() -> None:
    """The weights set before each update follow (start, end) linearly over the run: after the last rollout of
    two, keep is at its end and score (constant) where it was."""
    algo = decision_entropy_ppo((0.02, 0.0), (0.01, 0.01))
    env = YachtEnv("yacht")
    model = algo(ModelFreePolicy, env, n_steps=32, batch_size=32, n_epochs=1, ent_coef=1.0, seed=0, device="cpu",
                 policy_kwargs=dict(rules="yacht", net_arch=[16]))
    seen: list[tuple[float, float]] = []
    real = model.policy.set_entropy_weights

    def record(keep: float, score: float) -> None:
        seen.append((keep, score))
        real(keep, score)

    model.policy.set_entropy_weights = record  # type: ignore[method-assign]
    model.learn(64)
    assert seen == [pytest.approx((0.01, 0.01)), pytest.approx((0.0, 0.01))]
    assert model.policy.entropy_weights == pytest.approx((0.0, 0.01))


def test_tiny_train_run_with_the_model_free_policy(tmp_path: Path) -> None:
    cfg = {
        "rules": "yahtzee", "total_timesteps": 512, "n_envs": 8, "checkpoint_freq": 512,
        "policy": {"kind": "model_free", "net_arch": [32], "keep_head": "multiset", "keep_hidden": 16,
                   "vf_arch": [16]},
        "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1, "learning_rate": "lin_0.001_0.0001",
                "ent_coef_keep": "lin_0.02_0.005", "ent_coef_score": 0.001},
        "eval": {"freq": 256, "episodes": 10, "final_episodes": 20},
    }
    path = tmp_path / "mf.yaml"
    path.write_text(yaml.safe_dump(cfg))
    assert train.main(["--config", str(path), "--run-dir", str(tmp_path / "runs"), "--no-progress"]) == 0
    (run,) = list((tmp_path / "runs").iterdir())
    assert json.loads((run / "eval.json").read_text())["episodes"] == 20
    meta = inspect_sb3_zip(run / "final_model.zip").yacht_env_meta
    assert meta is not None and meta["obs_layout"] == O.LAYOUT_VERSION and meta["rules"] == "yahtzee"
    agent = load_agent(str(run / "final_model.zip"), "yahtzee", seed=0)
    assert isinstance(agent.policy, ModelFreePolicy) and agent.policy.keep_head == "multiset"
    from yacht_tools.evaluation import evaluate

    assert evaluate(agent, "yahtzee", 5, seed=3, regret=False)["episodes"] == 5


MF = {"policy": {"kind": "model_free"}}


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"policy": {"kind": "model_free", "keep_head": "sets"}},
         r"config key 'policy.keep_head': 'sets'; accepted: pattern, multiset"),
        ({"policy": {"kind": "model_free", "keep_hidden": 0}}, r"config key 'policy.keep_hidden'"),
        ({"policy": {"kind": "model_free", "keep_hidden": "wide"}}, r"config key 'policy.keep_hidden'"),
        ({"policy": {"kind": "model_free", "vf_arch": [64, 0]}},
         r"config key 'policy.vf_arch' must be a list of 0\.\.16 values, each a positive "
         r"integer \(at most 4,096\); item 1 is 0"),
        ({"policy": {"kind": "model_free", "vf_arch": 64}}, r"config key 'policy.vf_arch'"),
        ({**MF, "ppo": {"ent_coef_keep": 0.01}},
         r"'ppo.ent_coef_keep' and 'ppo.ent_coef_score' go together: give both or neither"),
        ({**MF, "ppo": {"ent_coef_score": 0.01}}, r"go together: give both or neither"),
        ({**MF, "ppo": {"ent_coef_keep": -0.01, "ent_coef_score": 0.01}},
         r"config key 'ppo.ent_coef_keep' must stay >= 0"),
        ({**MF, "ppo": {"ent_coef_keep": 0.01, "ent_coef_score": "lin_0.01_-0.01"}},
         r"config key 'ppo.ent_coef_score' must stay >= 0"),
        ({**MF, "ppo": {"ent_coef_keep": "lin_a_b", "ent_coef_score": 0.01}},
         r"config key 'ppo.ent_coef_keep': cannot read schedule 'lin_a_b'"),
        ({**MF, "ppo": {"ent_coef_keep": "cosine", "ent_coef_score": 0.01}},
         r"config key 'ppo.ent_coef_keep': a schedule is a number, 'lin_<start>' or 'lin_<start>_<end>'"),
        ({**MF, "ppo": {"ent_coef_keep": 0.01, "ent_coef_score": "lin_inf"}},
         r"config key 'ppo.ent_coef_score': schedule 'lin_inf' must have finite ends"),
        ({"ppo": {"ent_coef_keep": 0.01, "ent_coef_score": 0.01}},
         r"config key 'ppo.ent_coef_keep' needs policy.kind model_free \(got 'mlp'\)"),
        ({"policy": {"kind": "turn_expectimax"}, "ppo": {"ent_coef_score": 0.01}},
         r"config key 'ppo.ent_coef_score' needs policy.kind model_free \(got 'turn_expectimax'\)"),
        ({"ppo": {"learning_rate": "lin_0.001_-1"}}, r"config key 'ppo.learning_rate' must start above 0 and end at 0"),
        ({"rules": "yacht", "policy": {"kind": "model_free", "ignore_observation": ["joker"]}},
         r"config key 'policy.ignore_observation': observation slice 'joker' is not in the layout of rules 'yacht'; "
         r"accepted: dice_counts"),
        ({"policy": {"kind": "mlp", "ignore_observation": ["points"]}},
         r"config key 'policy.ignore_observation' needs policy.kind model_free \(got 'mlp'\)"),
        ({**MF, "policy": {"kind": "model_free", "ignore_observation": "points"}},
         r"config key 'policy.ignore_observation': expected a list of a string"),
    ],
)
def test_model_free_config_errors_name_the_key(data: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        from_dict(data)


def test_model_free_config_accepts_its_keys() -> None:
    cfg = from_dict({"policy": {"kind": "model_free", "keep_head": "multiset", "keep_hidden": 32, "vf_arch": [64]},
                     "ppo": {"ent_coef_keep": "lin_0.02_0.005", "ent_coef_score": 0.0,
                             "learning_rate": "lin_3e-4_1e-5"}})
    assert cfg.policy.keep_head == "multiset" and cfg.policy.vf_arch == [64]
    assert cfg.ppo.ent_coef_keep == "lin_0.02_0.005" and cfg.ppo.ent_coef_score == 0.0


@pytest.mark.parametrize(("rules", "greedy_mean"), [("yacht", 152.15), ("yahtzee", 217.29), ("yatzy", 200.13)])
def test_the_shipped_model_free_agents_are_plain_and_beat_greedy(rules: str, greedy_mean: float) -> None:
    """ppo-yacht / ppo-yahtzee / ppo-yatzy: a ModelFreePolicy on observation layout 2, its card says so, and on 300
    held-out games it scores well above the greedy player's 10,000-game mean (README's agents table)."""
    agent = load_agent(f"ppo-{rules}", rules, seed=0)
    assert type(agent.policy).__name__ == "ModelFreePolicy" and agent.obs_layout == 2
    card = json.loads((SHIPPED_MODELS_DIR / f"ppo-{rules}.json").read_text(encoding="utf-8"))
    assert card["kind"].startswith("model-free") and card["final_eval"]["percent_of_optimal"] > 95
    assert [r["seed"] for r in card["runs"]] == [0, 1]
    res = evaluate(agent, rules, 300, seed=1010000000, regret=False)
    assert res["mean"] > greedy_mean + 5


def _ablate_script():  # benchmarks/ is not a package: the script is loaded by its path
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "ablate_model_free.py"
    spec = importlib.util.spec_from_file_location("ablate_model_free", path)
    assert spec is not None and spec.loader is not None
    ablate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ablate)
    return ablate


@pytest.mark.parametrize("config", ["yacht_model_free.yaml", "experiments/yacht_model_free_pattern.yaml",
                                    "yahtzee_model_free.yaml"])
def test_every_ablation_variant_is_a_config_train_accepts(config: str) -> None:
    """benchmarks/ablate_model_free.py: each variant, merged into a model-free config, passes train.py's checks and
    changes the keys it says (a mistyped key would fail here, not after an hour of other variants)."""
    ablate = _ablate_script()
    base = yaml.safe_load((Path(__file__).resolve().parent.parent / "configs" / config).read_text(encoding="utf-8"))
    for name, (_, change) in ablate.VARIANTS.items():
        merged = ablate.merge(base, change)
        if name == "no_bonus_joker" and base["rules"] == "yacht":
            with pytest.raises(ValueError, match="bonus_now"):  # Yacht's observation has no such slice
                from_dict(merged)
            continue
        cfg = from_dict(merged)
        for section, keys in change.items():
            for key, value in (keys.items() if isinstance(keys, dict) else [(None, keys)]):
                got = getattr(cfg, section) if key is None else getattr(getattr(cfg, section), key)
                assert got == value or value is None, (name, section, key, got, value)


def test_ablation_base_variants_change_every_run_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--base-variants clip_0.2`` gives back the Yacht recipe before clip 0.1 (the docs' clip-0.2 rows and second
    round) for every run, the base row included; a run's own variant applies on top of it; a variant that changes
    nothing is not run; and a result is reused only for the same base config, whatever the config file is named."""
    ablate = _ablate_script()
    ran: list[tuple[str, dict]] = []

    def fake_run(config: Path, run_dir: Path, seed: int) -> Path:
        ran.append((config.name, yaml.safe_load(config.read_text(encoding="utf-8"))))
        return config

    monkeypatch.setattr(ablate, "run_variant", fake_run)
    monkeypatch.setattr(ablate, "summary", lambda run: {"percent": 90.0, "mean": 150.0, "half_width": 0.5,
                                                        "optimal": 166.955, "regret": 0.2, "first_keep": 1.0,
                                                        "second_keep": 1.0, "score": 0.5, "learning_s": 1.0})
    config = Path(__file__).resolve().parent.parent / "configs" / "yacht_model_free.yaml"
    recipe = yaml.safe_load(config.read_text(encoding="utf-8"))
    assert recipe["ppo"]["clip_range"] == 0.1
    common = ["--timesteps", "1000", "--final-episodes", "10", "--run-dir", str(tmp_path)]
    assert ablate.main(["--config", str(config), "--base-variants", "clip_0.2", *common,
                        "--variants", "base", "clip_0.1"]) == 0
    expected = ablate.merge(recipe, {"ppo": {"clip_range": 0.2}, "total_timesteps": 1000,
                                     "eval": {"final_episodes": 10}})
    assert ran == [("yacht_model_free+clip_0.2-base.yaml", expected),
                   ("yacht_model_free+clip_0.2-clip_0.1.yaml", ablate.merge(expected, {"ppo": {"clip_range": 0.1}}))]
    from_dict(expected)
    assert "with clip_0.2" in (tmp_path / "ablations.md").read_text(encoding="utf-8")
    # the same command again: measured, nothing runs; the config as it is: its own key, and clip_0.1 is its base
    ran.clear()
    ablate.main(["--config", str(config), "--base-variants", "clip_0.2", *common, "--variants", "base", "clip_0.1"])
    assert ran == []
    ablate.main(["--config", str(config), *common, "--variants", "base", "clip_0.1"])
    assert [name for name, _ in ran] == ["yacht_model_free-base.yaml"]
    # a copy of the config under another name is the same base: nothing runs again
    ran.clear()
    copy = tmp_path / "renamed.yaml"
    copy.write_text(config.read_text(encoding="utf-8"), encoding="utf-8")
    ablate.main(["--config", str(copy), *common, "--variants", "base"])
    assert ran == []
    results = json.loads((tmp_path / "ablations.json").read_text(encoding="utf-8"))
    assert sorted(len(rows) for rows in results.values()) == [1, 2]  # clip_0.1 on the config as it is: not run
    with pytest.raises(SystemExit):
        ablate.main(["--config", str(config), "--base-variants", "base", *common])
