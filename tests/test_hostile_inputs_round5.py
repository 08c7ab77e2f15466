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


# ---- yacht bench report: records that raised tracebacks -------------------------------------------------------------

BENCH = Path(__file__).resolve().parents[1] / "docs" / "records" / "bench-v1"
RUNS = ("yacht-td-primary-s0.json", "yacht-td-primary-s1.json", "yacht-random-agent-s0.json")


def _records(folder: Path, names: tuple[str, ...] = RUNS) -> Path:
    folder.mkdir(exist_ok=True)
    for name in names:
        (folder / name).write_bytes((BENCH / name).read_bytes())
    return folder


def _edit(path: Path, change: Any) -> None:
    record = json.loads(path.read_text())
    change(record)
    path.write_text(json.dumps(record))


def _report_error(folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The one line ``yacht bench report`` says for ``folder``; no output file is written."""
    from yacht_cli import main

    outputs = [tmp_path / "out.md", tmp_path / "out.json"]
    assert main(["bench", "report", str(folder), "--markdown", str(outputs[0]), "--json", str(outputs[1])]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and not any(p.exists() for p in outputs)
    assert len(captured.err.strip().splitlines()) == 1, captured.err
    return captured.err


def _set(path: str, value: Any) -> Any:
    keys = path.split(".")

    def change(record: dict[str, Any]) -> None:
        target = record
        for k in keys[:-1]:
            target = target[int(k)] if isinstance(target, list) else target[k]
        target[int(keys[-1]) if isinstance(target, list) else keys[-1]] = value
    return change


BAD_FIELDS = {
    "wall_s 400 digits": (_set("wall_s", 10 ** 400), "wall_s must be a finite number, got an integer of 401 digits"),
    "wall_s negative": (_set("wall_s", -1), "wall_s must be seconds in 0..1e+09"),
    "wall_s 300 digits": (_set("wall_s", 10 ** 300), "wall_s must be seconds in 0..1e+09, got 1000000000"),
    "wall_s text": (_set("wall_s", "31 s"), "wall_s must be a finite number"),
    "mean 400 digits": (_set("final.mean", -10 ** 400), "final.mean must be a finite number, got an integer of 401"),
    "against_optimal on one player": (_set("final.against_optimal", 5),
                                      "final.against_optimal belongs to a heads-up record"),
    "win_rate on one player": (_set("final.win_rate", 0.5), "final.win_rate belongs to a heads-up record"),
    "normalised contradicts": (_set("final.normalised", 0.5), "final.normalised is 0.5, its own numbers give 0.99"),
    "percent contradicts": (_set("final.percent_of_optimal", 100.0), "final.percent_of_optimal is 100.0"),
    "curve contradicts": (_set("curve.2.normalised", 1.0), "curve[3].normalised is 1.0"),
    "curve twice": (_set("curve.1.checkpoint", 1), "each curve point needs a checkpoint in 1..5, each once"),
    "curve steps": (_set("curve.0.timesteps", -5), "curve.timesteps must not be negative"),
    "references upside down": (_set("references", {"random": 200.0, "optimal": 100.0}),
                               "references.optimal (100.0) must be above references.random (200.0)"),
    "ci95": (_set("final.ci95", [1]), "final.ci95 must be two numbers"),
    "regret_per_game": (_set("final.regret_per_game", "x"), "final.regret_per_game must be a finite number"),
    "episodes as float": (_set("final.episodes", 10000.5), "the protocol evaluates 10,000 games"),
    "name with a newline": (_set("learner", "td |\n| forged | 1 |"), "learner must be a name of 1 to 200 printable"),
    "name with a tab": (_set("learner", "td\tx"), "printable characters on one line"),
}


@pytest.mark.parametrize("case", list(BAD_FIELDS))
def test_a_bad_field_is_named_in_one_line_before_anything_is_written(case: str, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    change, match = BAD_FIELDS[case]
    folder = _records(tmp_path / "records")
    _edit(folder / RUNS[0], change)
    err = _report_error(folder, tmp_path, capsys)
    assert f"{folder / RUNS[0]}: " in err and match in err, err


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_or_inf_is_named_before_the_markdown_is_written(constant: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    folder = _records(tmp_path / "records")
    path = folder / RUNS[1]
    path.write_text(path.read_text().replace('"wall_s": ', f'"wall_s": {constant}, "was": '))
    err = _report_error(folder, tmp_path, capsys)
    assert f"{path}: wall_s must be a finite number, got " in err


def test_a_learner_name_with_pipes_stays_in_its_cell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from yacht_cli import main

    folder = _records(tmp_path / "records")
    for name in RUNS[:2]:
        _edit(folder / name, _set("learner", "td | 1 | 2 |"))
    assert main(["bench", "report", str(folder)]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "td" in line and line.startswith("|")]
    assert rows and all(r.startswith("| td \\| 1 \\| 2 \\| |") for r in rows), rows
    assert sorted({r.replace("\\|", "").count("|") for r in rows}) == [7, 8]  # the aggregate's and the task's columns


def test_records_of_one_task_must_share_their_references(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _records(tmp_path / "records")

    def other_references(record: dict[str, Any]) -> None:
        record["references"]["random"] += 1.0
        f = record["final"]
        f["normalised"] = (f["mean"] - record["references"]["random"]) / (
            record["references"]["optimal"] - record["references"]["random"])
        record["curve"] = []

    _edit(folder / RUNS[1], other_references)
    err = _report_error(folder, tmp_path, capsys)
    assert "the records of yacht disagree on the references" in err


def test_the_number_and_size_of_records_are_bounded_before_any_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A million records took minutes of silence and 5 GB before 'out of memory': the count is checked as the folder
    is listed, the bytes from the files' sizes, both before the first record is read."""
    from yacht_tools import protocol as P

    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(12):
        (folder / f"r{i}.json").write_text("not even JSON")  # never read: the count refuses first
    monkeypatch.setattr(P, "MAX_RECORDS", 10)
    err = _report_error(folder, tmp_path, capsys)
    assert "more than 10 records (*.json) in" in err and "(MAX_RECORDS)" in err
    monkeypatch.setattr(P, "MAX_RECORDS", 10_000)
    monkeypatch.setattr(P, "MAX_TOTAL_BYTES", 100)
    err = _report_error(folder, tmp_path, capsys)
    assert "156 bytes, more than the limit of 100 (MAX_TOTAL_BYTES" in err
    assert P.MAX_RECORDS >= 100 * len(list(BENCH.glob("*.json"))) // 100  # the baselines fit with room


def test_the_committed_records_still_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from yacht_cli import main

    assert main(["bench", "report", str(BENCH), "--json", str(tmp_path / "r.json")]) == 0
    assert json.loads((tmp_path / "r.json").read_text())["records"] == len(list(BENCH.glob("*.json")))


def test_the_plot_draws_a_panel_per_budget(tmp_path: Path) -> None:
    """Records of two budgets drew only the first budget's curves."""
    pytest.importorskip("matplotlib")
    from yacht_tools import protocol as P
    from yacht_tools.protocol_report import curves_figure

    folder = _records(tmp_path / "records")
    for name in RUNS[:2]:
        short = folder / name.replace("primary", "short")
        short.write_text((folder / name).read_text())
        _edit(short, lambda r: r.update(budget="short", budget_steps=P.BUDGETS["short"], learner="td-short"))
    fig = curves_figure(P.read_records([folder]))
    titles = sorted(ax.get_title() for ax in fig.axes if ax.get_visible())
    assert titles == ["yacht, budget primary", "yacht, budget short"]
    one = curves_figure(P.read_records([folder / n for n in RUNS]))
    assert [ax.get_title() for ax in one.axes if ax.get_visible()] == ["yacht"]


def test_the_benchmark_page_states_the_report_s_limits() -> None:
    from yacht_tools import protocol as P

    page = " ".join((Path(__file__).resolve().parents[1] / "docs" / "benchmark.md").read_text().split())
    assert f"at most {P.MAX_RECORDS:,} records of {P.MAX_TOTAL_BYTES >> 20} MB in all" in page
