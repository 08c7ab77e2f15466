"""A TD model whose weights or outputs are not finite, or whose sizes are hostile: one clear line from yacht eval."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")



# ==== a TD model that outputs NaN or inf is a clear error ====================================================


def _eval_cli(agent: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from yacht_cli import main

    rc = main(["eval", "--agent", agent, "--rules", "yacht", "--episodes", "5", "--no-regret", "--no-progress"])
    return rc, capsys.readouterr().err


@pytest.fixture(scope="module", autouse=True)
def _compiled(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The TD search compiled (or loaded from numba's cache) before the tests count the lines on stderr: the one-time
    note on compiling is not an error line."""
    from yacht_agents.td_agent import ValueNet
    from yacht_cli import main

    path = tmp_path_factory.mktemp("td") / "model.pt"
    ValueNet("yacht", [8]).save(path)
    assert main(["eval", "--agent", str(path), "--rules", "yacht", "--episodes", "1", "--no-regret",
                 "--no-progress"]) == 0


def _td_file(tmp_path: Path, edit: Callable[[dict[str, Any]], None]) -> str:
    from yacht_agents.td_agent import ValueNet

    path = tmp_path / "model.pt"
    ValueNet("yacht", [8]).save(path)
    data = torch.load(path, weights_only=True)
    edit(data)
    torch.save(data, path)
    return str(path)


def test_nan_weights_are_a_clear_error_from_yacht_eval(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    def nan(data: dict[str, Any]) -> None:
        for t in data["state_dict"].values():
            t.fill_(math.nan)

    rc, err = _eval_cli(_td_file(tmp_path, nan), capsys)
    assert rc == 2 and err.count("\n") == 1
    assert err.startswith("yacht eval: error: ") and "network weights are not all finite (NaN or inf)" in err


@pytest.mark.parametrize("scale", [1e-39, math.inf, math.nan, -1.0, "100"])
def test_a_broken_value_scale_in_the_file_is_a_clear_error(scale: Any, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    rc, err = _eval_cli(_td_file(tmp_path, lambda d: d["meta"].update(value_scale=scale)), capsys)
    assert rc == 2 and err.count("\n") == 1 and "value_scale must be a number in 0.001..1e+06" in err


def test_outputs_that_overflow_to_inf_are_a_clear_error(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Finite weights whose outputs overflow float32: refused by the search's value memo, not a crash."""
    def huge(data: dict[str, Any]) -> None:
        for t in data["state_dict"].values():
            t.fill_(1e30)

    rc, err = _eval_cli(_td_file(tmp_path, huge), capsys)
    assert rc == 2 and err.count("\n") == 1 and "the TD network gives non-finite values" in err


def test_a_hostile_network_size_is_refused_before_it_is_built(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    rc, err = _eval_cli(_td_file(tmp_path, lambda d: d["meta"].update(hidden=[10**9, 10**9])), capsys)
    assert rc == 2 and err.count("\n") == 1 and "hidden must list 1..16 layer widths in 1..4096" in err


def test_a_network_larger_than_the_weights_in_the_file_is_refused_before_it_is_built(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Within the caps, 3 layers of 1,024 would still be 8 MB of weights built for a file of a few KB; 16 layers of
    4,096 (1 GB) are over the cap on any network's size."""
    rc, err = _eval_cli(_td_file(tmp_path, lambda d: d["meta"].update(hidden=[1024] * 3)), capsys)
    assert rc == 2 and err.count("\n") == 1
    assert "the network weights do not fit its metadata: it declares a network of " in err
    assert "(3 hidden layers of up to 1,024 units), the file holds 121" in err
    rc, err = _eval_cli(_td_file(tmp_path, lambda d: d["meta"].update(hidden=[4096] * 16)), capsys)
    assert rc == 2 and err.count("\n") == 1 and "more than the limit of 4,194,304 (MAX_NETWORK_NUMBERS" in err
