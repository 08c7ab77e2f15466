"""The small torch networks of the learned agents, and the one table of activation names.

The names are the configs' (``activation: relu``); :func:`activation` turns one into its torch class. torch is
imported only when a network is built, so that the names can be validated without it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yacht_env.files import open_regular

if TYPE_CHECKING:
    import torch

ACTIVATIONS: tuple[str, ...] = ("relu", "tanh", "elu", "gelu", "silu")
"""Activation names accepted everywhere (configs, model files)."""
_TORCH_NAMES = {"relu": "ReLU", "tanh": "Tanh", "elu": "ELU", "gelu": "GELU", "silu": "SiLU"}


def check_activation(name: str, key: str = "activation") -> str:
    """``name`` if it is one of :data:`ACTIVATIONS`, else ``ValueError`` naming ``key`` and the accepted names."""
    if name not in ACTIVATIONS:
        raise ValueError(f"{key}: unknown activation {name!r}; accepted: {', '.join(ACTIVATIONS)}")
    return name


def activation(name: str) -> type[torch.nn.Module]:
    """The torch module class of an activation name."""
    import torch.nn as nn

    return getattr(nn, _TORCH_NAMES[check_activation(name)])


def mlp(in_dim: int, hidden: Sequence[int], activation_fn: str, out_dim: int) -> torch.nn.Sequential:
    """An MLP: ``hidden`` layers of the activation, then a linear output of ``out_dim``."""
    import torch.nn as nn

    layers: list[nn.Module] = []
    d = int(in_dim)
    for w in hidden:
        layers += [nn.Linear(d, int(w)), activation(activation_fn)()]
        d = int(w)
    layers.append(nn.Linear(d, int(out_dim)))
    return nn.Sequential(*layers)


MAX_NETWORK_NUMBERS = 1 << 22
"""The most numbers (weights and biases) a network read from a file may hold or declare: 4,194,304, 20 times the
largest model this project ships (``ppo-yatzy``: 205,840), so that a file can make no network past 16 MB of float32."""
MAX_MODEL_BYTES = 64 << 20
"""The largest ``.pt`` file read: a network of :data:`MAX_NETWORK_NUMBERS` float32 numbers with Adam's two moments
is 48 MB (the shipped models are under 3 MB)."""
MAX_STORED_TENSORS = 10_000
"""The most tensors (and containers) one ``.pt`` file may hold; a shipped model or checkpoint holds under 100."""
_TORCH_ADVICE = ("weights_only", "Weights only load failed", "file an issue", "Check the documentation")


def one_line(e: BaseException, limit: int = 200) -> str:
    """An exception's text on one line (runs of spaces, tabs and newlines made one space), cut at ``limit``."""
    return " ".join(str(e).split())[:limit]


def torch_load_reason(e: BaseException) -> str:
    """Why ``torch.load(weights_only=True)`` refused a file, in one line: torch's own reason without its advice to
    turn ``weights_only`` off (the safety this project relies on)."""
    lines = [s.strip() for s in str(e).splitlines() if s.strip() and not any(a in s for a in _TORCH_ADVICE)]
    return (lines[0].split(". ")[0] if lines else type(e).__name__)[:200]


def load_torch_file(path: str | Path) -> Any:
    """``torch.load(path, weights_only=True)`` on CPU; ``ValueError`` with the reason in one line (an empty file, not
    torch's zip format, a refused or damaged record)."""
    import torch

    with open_regular(path, MAX_MODEL_BYTES, name="it") as f:  # not a FIFO or /dev/zero: it would hang or fill memory
        head = f.read(4)
        if not head:
            raise ValueError("the file is empty (0 bytes)")
        if head != b"PK\x03\x04":
            raise ValueError("not a file written by torch.save (it does not start as torch's zip format does)")
        f.seek(0)
        try:
            data = torch.load(f, map_location="cpu", weights_only=True)
        except Exception as e:  # noqa: BLE001 - UnpicklingError, RuntimeError, EOFError, ...: all mean "refused"
            raise ValueError(f"torch's weights-only loader refused it: {torch_load_reason(e)}") from None
    check_storage(data, "")
    return data


def _tensors(obj: Any, where: str, out: list[tuple[str, Any]], depth: int = 0) -> None:
    """The tensors in nested dicts, lists and tuples with where each sits (``state_dict['0.weight']``)."""
    import torch

    if len(out) > MAX_STORED_TENSORS or depth > 32:
        raise ValueError(f"it holds more than {MAX_STORED_TENSORS:,} tensors or nests containers deeper than 32 "
                         "levels (MAX_STORED_TENSORS); a model or checkpoint of this project holds under 100")
    if isinstance(obj, torch.Tensor):
        out.append((where, obj))
    elif isinstance(obj, Mapping):
        for k, v in obj.items():
            _tensors(v, f"{where}[{k!r}]", out, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _tensors(v, f"{where}[{i}]", out, depth + 1)


def check_storage(data: Any, what: str, name: str = "") -> None:
    """``ValueError`` naming ``what`` unless every tensor in ``data`` (nested dicts, lists, tuples) owns its storage:
    dense, contiguous, from the storage's start to its end, no storage shared by two tensors. ``torch.save`` writes
    each storage once, so a view (``torch.zeros(1).expand(12000, 12000)``: stride 0) or two tensors over one storage
    would let a file of a few KB declare a network of gigabytes; a tensor that owns its storage holds only what the
    file holds."""
    import torch

    found: list[tuple[str, Any]] = []
    _tensors(data, name, found)
    owners: dict[tuple[int, int], str] = {}
    what = f"{what}: " if what else ""
    for where, t in found:
        if t.layout != torch.strided or t.device.type != "cpu":
            continue  # check_weights refuses these where weights are read (a sparse or meta tensor has no storage)
        storage = t.untyped_storage()
        shown, held = t.numel() * t.element_size(), storage.nbytes()
        if shown and (not t.is_contiguous() or t.storage_offset() != 0 or shown != held):
            raise ValueError(f"{what}the tensor {where or 'it holds'} is a view of {held:,} stored bytes shown as "
                             f"{shown:,} (shape {tuple(t.shape)}, strides {tuple(t.stride())}); accepted: tensors "
                             "that own their storage, as torch.save writes them (a file must hold the numbers it "
                             "declares)")
        key = (storage.data_ptr(), held)
        if shown and key in owners:
            raise ValueError(f"{what}the tensors {owners[key] or 'it holds'} and {where} share one storage; "
                             "accepted: tensors that own their storage, as torch.save writes them (a file must hold "
                             "the numbers it declares)")
        owners[key] = where


MAX_LAYERS, MAX_WIDTH = 16, 4096
"""The deepest and widest network a model file or config may ask for (it is built before its weights are read): 16
hidden layers (the shipped models have 2 or 3) of 4,096 units (16 times the widest shipped layer, 256); the total is
bounded by :data:`MAX_NETWORK_NUMBERS`."""


def check_hidden(hidden: object, key: str = "hidden") -> list[int]:
    """``hidden`` as a list of layer widths if it is one (1..16 layers of 1..4096 units), else ``ValueError``."""
    if (not isinstance(hidden, (list, tuple)) or not 1 <= len(hidden) <= MAX_LAYERS
            or not all(isinstance(w, int) and not isinstance(w, bool) and 1 <= w <= MAX_WIDTH for w in hidden)):
        raise ValueError(f"{key} must list 1..{MAX_LAYERS} layer widths in 1..{MAX_WIDTH}, got {hidden!r}")
    return [int(w) for w in hidden]


def mlp_weights(in_dim: int, hidden: Sequence[int], out_dim: int) -> int:
    """How many numbers (weights and biases) :func:`mlp` of these sizes holds: what a file must carry for it."""
    widths = [int(in_dim), *map(int, hidden), int(out_dim)]
    return sum((a + 1) * b for a, b in zip(widths, widths[1:]))


def check_declared_mlp(state_dict: Any, in_dim: int, hidden: object, out_dim: int, what: str) -> list[int]:
    """The layer widths ``hidden`` of a file's metadata, checked before the network is built: within
    :data:`MAX_LAYERS` x :data:`MAX_WIDTH`, and an :func:`mlp` of exactly as many numbers as the file's
    ``state_dict`` holds (a small file must not make a huge network); ``ValueError`` naming ``what`` otherwise."""
    widths = check_hidden(hidden)
    want = mlp_weights(in_dim, widths, out_dim)
    if want > MAX_NETWORK_NUMBERS:
        raise ValueError(f"{what}: it declares a network of {want:,} numbers ({len(widths)} hidden layers of up to "
                         f"{max(widths):,} units), more than the limit of {MAX_NETWORK_NUMBERS:,} "
                         "(MAX_NETWORK_NUMBERS, 20 times the largest model this project ships)")
    check_storage(state_dict, what, "state_dict")
    have = sum(int(t.numel()) for t in state_dict.values()) if isinstance(state_dict, Mapping) else 0
    if want != have:
        raise ValueError(f"{what}: the network weights do not fit its metadata: it declares a network of {want:,} "
                         f"numbers ({len(widths)} hidden layers of up to {max(widths):,} units), the file holds "
                         f"{have:,}")
    return widths


def check_weights(tensors: Any, what: str) -> None:
    """``ValueError`` naming ``what`` and the first tensor of ``tensors`` (a name-to-tensor mapping) that is not
    a dense, real floating-point tensor on the CPU holding only finite numbers, without printing its values. An
    integer or complex tensor would be cast in silence by ``load_state_dict`` (``int64`` weights: truncated), a
    sparse or meta one breaks the checks and the network."""
    import torch

    if not isinstance(tensors, Mapping):
        raise ValueError(f"{what}: the network weights are not a state dict (names to tensors)")
    for k, t in tensors.items():
        if not isinstance(t, torch.Tensor):
            problem = f"is a {type(t).__name__}, not a tensor"
        elif t.layout != torch.strided:
            problem = f"is a {str(t.layout).removeprefix('torch.')} tensor, not a dense one"
        elif t.device.type != "cpu":
            problem = f"is on the {t.device.type!r} device, not held in the file"
        elif not t.is_floating_point():
            problem = f"holds {str(t.dtype).removeprefix('torch.')} values, not real floating-point numbers"
        elif not bool(torch.isfinite(t).all()):
            raise ValueError(f"{what}: the network weights are not all finite (NaN or inf), first in {k!r}: the "
                             "model is broken")
        else:
            continue
        raise ValueError(f"{what}: the network weight {k!r} {problem}; accepted: dense real floating-point tensors "
                         "on the CPU")


def read_model_file(path: str | Path, fmt: str, label: str, saved_by: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(data, meta)`` of a ``.pt`` model file in format ``fmt``, read by :func:`load_torch_file` (no pickled code
    runs); ``ValueError`` naming the file and the reason in one line if it does not load or its metadata is not
    ``fmt``'s. ``label`` and ``saved_by`` name the model kind and its writer in the messages."""
    src = repr(str(path))
    try:
        data = load_torch_file(path)
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot load {src} as {label}: {e}") from None
    meta = data.get("meta") if isinstance(data, dict) else None
    if not isinstance(meta, dict) or meta.get("format") != fmt:
        raise ValueError(f"{src} is not {label} saved by {saved_by} (no {fmt!r} metadata)")
    return data, meta
