"""Hostile inputs, round five: small files that declare large networks, settings a checkpoint smuggles in, writes to
what is not a plain file, records that raise tracebacks."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
import torch

import yacht_agents
import yacht_agents.turn_policy  # noqa: F401 - registers the policy class of the shipped expectimax models
from yacht_agents.nets import MAX_NETWORK_NUMBERS, check_storage, load_torch_file
from yacht_agents.sb3_zip import load_sb3_policy
from yacht_agents.td_agent import ValueNet
from yacht_env.env import YachtEnv

MODELS = Path(yacht_agents.__file__).resolve().parent / "models"


def _largest_shipped_network() -> int:
    """The most numbers any shipped model holds (the limits are derived from it)."""
    sizes = [sum(t.numel() for t in torch.load(p, weights_only=True)["state_dict"].values())
             for p in MODELS.glob("*.pt")]
    for p in MODELS.glob("*.zip"):
        with zipfile.ZipFile(p) as z:
            sd = torch.load(io.BytesIO(z.read("policy.pth")), weights_only=True)
        sizes.append(sum(t.numel() for t in sd.values()))
    return max(sizes)


def test_the_network_limit_is_a_wide_margin_over_the_largest_shipped_model() -> None:
    largest = _largest_shipped_network()
    assert 16 * largest <= MAX_NETWORK_NUMBERS <= 32 * largest


# ---- stride-0 and shared tensors ----------------------------------------------------------------------------------


def _views(sd: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Each tensor as a stride-0 view of one stored number, of the same shape."""
    return {k: torch.zeros(1).expand(t.shape) if t.dim() else t.clone() for k, t in sd.items()}


def test_check_storage_accepts_what_torch_save_writes_and_refuses_views() -> None:
    good = {"w": torch.ones(3, 4), "b": torch.ones(4), "step": torch.tensor(3.0), "empty": torch.zeros(0)}
    check_storage(good, "ok")
    for bad, message in (({"w": torch.zeros(1).expand(3, 4)}, r"view of 4 stored bytes shown as 48"),
                         ({"w": torch.ones(4, 3).t()}, "view of 48 stored bytes"),  # transposed: not contiguous
                         ({"w": torch.ones(10)[2:]}, "view of 40 stored bytes shown as 32"),  # an offset slice
                         ({"nested": [{"x": torch.zeros(1).expand(5)}]}, r"\['nested'\]\[0\]\['x'\]")):
        with pytest.raises(ValueError, match=message):
            check_storage(bad, "f")
    w = torch.ones(4)
    with pytest.raises(ValueError, match="share one storage"):
        check_storage({"a": w, "b": w}, "f")


def _saved(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    torch.save(data, path)
    return path


def test_a_td_file_of_stride_0_weights_is_refused(tmp_path: Path) -> None:
    data = torch.load(MODELS / "td-yacht.pt", weights_only=True)
    same = _saved(tmp_path, "views.pt", {**data, "state_dict": _views(data["state_dict"])})
    assert same.stat().st_size < 20_000
    with pytest.raises(ValueError, match=r"td.*view of 4 stored bytes.*own their storage"):
        ValueNet.load(same, "yacht")
    # the file: hidden [4096] x 16 of stride-0 weights (252M numbers, 1 GB built) from 10 KB
    widths = [data["meta"]["feature_dim"], *[4096] * 16, 1]
    sd = {}
    for i, (a, b) in enumerate(zip(widths, widths[1:])):
        sd[f"{2 * i}.weight"], sd[f"{2 * i}.bias"] = torch.zeros(1).expand(b, a), torch.zeros(1).expand(b)
    big = _saved(tmp_path, "big.pt", {**data, "meta": {**data["meta"], "hidden": [4096] * 16}, "state_dict": sd})
    assert big.stat().st_size < 20_000
    with pytest.raises(ValueError, match=r"the tensor \[.state_dict.\]\[.0.weight.\] is a view of 4 stored bytes"):
        ValueNet.load(big, "yacht")
    # the same declaration over the real weights: refused for its size before anything is built
    declared = _saved(tmp_path, "declared.pt", {**data, "meta": {**data["meta"], "hidden": [4096] * 16}})
    with pytest.raises(ValueError, match=r"251,781,121 numbers .* limit of 4,194,304 \(MAX_NETWORK_NUMBERS"):
        ValueNet.load(declared, "yacht")
    # just under the limit in numbers, still views: refused for the views
    widths = [data["meta"]["feature_dim"], 1024, 1024, 1]
    sd = {}
    for i, (a, b) in enumerate(zip(widths, widths[1:])):
        sd[f"{2 * i}.weight"], sd[f"{2 * i}.bias"] = torch.zeros(1).expand(b, a), torch.zeros(1).expand(b)
    under = _saved(tmp_path, "under.pt", {**data, "meta": {**data["meta"], "hidden": [1024, 1024]}, "state_dict": sd})
    with pytest.raises(ValueError, match="stored bytes shown as"):
        ValueNet.load(under, "yacht")
    # the weights shared between two layers: refused
    sd = dict(data["state_dict"])
    sd["2.bias"] = sd["0.bias"]
    shared = _saved(tmp_path, "shared.pt", {**data, "state_dict": sd})
    with pytest.raises(ValueError, match="share one storage"):
        ValueNet.load(shared, "yacht")
    assert ValueNet.load(MODELS / "td-yacht.pt", "yacht").hidden == data["meta"]["hidden"]  # the real one still loads


def test_any_torch_file_with_a_view_is_refused_when_read(tmp_path: Path) -> None:
    """Checkpoints are read by the same function: the optimizer state may not be a view either."""
    ck = _saved(tmp_path, "ck.pt", {"optimizer": {"state": {0: {"exp_avg": torch.zeros(1).expand(1000, 1000)}}}})
    with pytest.raises(ValueError, match=r"\['exp_avg'\] is a view"):
        load_torch_file(ck)


def _rewrite(src: Path, dst: Path, policy: dict[str, torch.Tensor] | None = None,
             net_arch: list[int] | None = None) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            blob = zin.read(info)
            if info.filename == "policy.pth" and policy is not None:
                buf = io.BytesIO()
                torch.save(policy, buf)
                blob = buf.getvalue()
            if info.filename == "data" and net_arch is not None:
                d = json.loads(blob)
                d["policy_kwargs"]["net_arch"] = net_arch
                blob = json.dumps(d).encode()
            zout.writestr(info.filename, blob)
    return dst


def test_an_sb3_zip_of_stride_0_weights_or_a_huge_net_arch_is_refused(tmp_path: Path) -> None:
    src = MODELS / "ppo-expectimax-yacht.zip"
    env = YachtEnv("yacht")
    spaces = env.observation_space, env.action_space
    with zipfile.ZipFile(src) as z:
        sd = torch.load(io.BytesIO(z.read("policy.pth")), weights_only=True)
    views = _rewrite(src, tmp_path / "views.zip", policy=_views(sd))
    with pytest.raises(ValueError, match=r"views.zip.*\['policy'\]\[.*view of 4 stored bytes"):
        load_sb3_policy(views, *spaces)
    # the net_arch [12000, 12000]: past the width limit, named
    wide = _rewrite(src, tmp_path / "wide.zip", net_arch=[12000, 12000])
    with pytest.raises(ValueError, match=r"at most 16 layer widths \(ints in 1..4096: MAX_LAYERS, MAX_WIDTH\)"):
        load_sb3_policy(wide, *spaces)
    deep = _rewrite(src, tmp_path / "deep.zip", net_arch=[4096] * 17)
    with pytest.raises(ValueError, match="at most 16 layer widths"):
        load_sb3_policy(deep, *spaces)
    big = _rewrite(src, tmp_path / "big.zip", net_arch=[4096] * 16)  # within the widths, past the total
    with pytest.raises(ValueError, match=r"the limit is 4,194,304 \(MAX_NETWORK_NUMBERS"):
        load_sb3_policy(big, *spaces)
    shared = dict(sd)
    first = next(k for k, t in sd.items() if t.dim() == 1)
    second = next(k for k, t in sd.items() if t.dim() == 1 and k != first and t.shape == sd[first].shape)
    shared[second] = shared[first]
    with pytest.raises(ValueError, match="share one storage"):
        load_sb3_policy(_rewrite(src, tmp_path / "shared.zip", policy=shared), *spaces)
    policy, _ = load_sb3_policy(src, *spaces)  # the shipped model still loads
    assert sum(p.numel() for p in policy.parameters()) == sum(t.numel() for t in sd.values())
