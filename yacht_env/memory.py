"""Memory free for new allocations: to refuse up front a job that cannot fit, saying what it would need."""

from __future__ import annotations


def available_bytes() -> int | None:
    """The memory the kernel says new allocations can have without swapping (``MemAvailable`` of
    ``/proc/meminfo``), or None where it is not known (not Linux, an unreadable file)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None
