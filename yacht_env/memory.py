"""Memory free for new allocations: to refuse up front a job that cannot fit, saying what it would need."""

from __future__ import annotations


def _meminfo_available() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` in bytes, or None where it is not known."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _address_space_left() -> int | None:
    """What the process's address-space limit (``ulimit -v``, ``RLIMIT_AS``) leaves for new mappings, or None
    where there is no such limit (or it cannot be read)."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY:
            return None
        with open("/proc/self/statm", encoding="ascii") as f:
            used = int(f.read().split()[0]) * resource.getpagesize()
        return max(soft - used, 0)
    except (ImportError, OSError, ValueError, IndexError):
        return None


def available_bytes() -> int | None:
    """The memory new allocations can have: the kernel's ``MemAvailable`` (without swapping), or less where the
    process's address-space limit leaves less; None where neither is known (not Linux, unreadable files)."""
    known = [b for b in (_meminfo_available(), _address_space_left()) if b is not None]
    return min(known) if known else None
