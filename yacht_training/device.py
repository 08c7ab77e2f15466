"""The device a run asks for, checked against what torch sees here before a run folder is made."""

from __future__ import annotations


def check_device(device: str) -> None:
    """``ValueError`` unless torch can use ``device`` here (checked before a run folder is made, not at the first
    step of training). torch is imported only for ``cuda`` and ``mps``."""
    if device.startswith("cuda"):
        import torch

        index = int(device.partition(":")[2] or 0)
        if index >= torch.cuda.device_count():
            found = torch.cuda.device_count()
            raise ValueError(f"device {device!r}: torch sees {found} CUDA device{'s' if found != 1 else ''} here; "
                             "use cpu (or auto)" + (f", or cuda:0..cuda:{found - 1}" if found else ""))
    elif device == "mps":
        import torch

        if not torch.backends.mps.is_available():
            raise ValueError("device 'mps': torch sees no Apple GPU here; use cpu (or auto)")
