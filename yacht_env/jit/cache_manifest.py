"""The manifest of numba's cache of a kernels module, read and written without numba.

A manifest (``<module>.cache.json`` beside numba's cache files) records the digest of the package's sources and the
SHA-256 of every cache file numba wrote; :mod:`yacht_env.jit.numba_cache` keeps it and checks the files against it.
This module imports no numba, so that :func:`kernel_cached` can tell at once whether a kernel would load from the
cache (the single environment chooses its engine by it, and a first ``gym.make`` must not wait for numba's import).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path

from yacht_env.files import write_text_atomic

_PACKAGE = Path(__file__).resolve().parents[1]
# the solver's kernels (yacht_solver, beside yacht_env) inline the same compiled rules: its sources count too
_SOURCES = (_PACKAGE, _PACKAGE.parent / "yacht_solver")
MANIFEST_SUFFIX = ".cache.json"
_MANIFEST_VERSION = 1
_MAX_MANIFEST_BYTES = 1 << 20


def source_digest(extra: Iterable[str | None] = ()) -> str:
    """SHA-256 of every Python source of the ``yacht_env`` and ``yacht_solver`` packages (and of the files
    ``extra``): what compiled kernels can contain."""
    h = hashlib.sha256()
    for src in [*sorted(str(p) for d in _SOURCES for p in d.rglob("*.py")), *extra]:
        if src:
            h.update(src.encode())
            h.update(Path(src).read_bytes())
    return h.hexdigest()


def _read_manifest(path: Path) -> dict[str, object] | None:
    """The manifest at ``path``, or ``None`` if it is missing or not one (torn, edited, another version)."""
    try:
        with open(path, "rb") as f:
            raw = f.read(_MAX_MANIFEST_BYTES + 1)
        data = json.loads(raw.decode("utf-8")) if len(raw) <= _MAX_MANIFEST_BYTES else None
    except (OSError, ValueError, RecursionError):
        return None
    if (not isinstance(data, dict) or data.get("version") != _MANIFEST_VERSION
            or not isinstance(data.get("sources"), str) or not isinstance(data.get("files"), dict)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in data["files"].items())):
        return None
    return data


def _write_manifest(path: Path, sources: str, files: dict[str, str]) -> None:
    text = json.dumps({"version": _MANIFEST_VERSION, "sources": sources, "files": dict(sorted(files.items()))},
                      indent=1)
    write_text_atomic(path, text + "\n")


@functools.cache
def _current_digest() -> str:
    return source_digest()


def numba_cache_folder(module_file: str) -> Path:
    """The folder where numba caches the kernels of ``module_file``, found as numba's own locators find it, without
    importing numba: ``$NUMBA_CACHE_DIR/<folder name>_<SHA-1 of the folder's path>`` where that is set, else
    ``__pycache__`` beside the module. (Where that is not writable numba uses a user-wide folder, not looked up
    here: then nothing counts as cached.)"""
    folder = os.path.dirname(os.path.abspath(module_file))
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if custom:
        digest = hashlib.sha1(folder.encode(), usedforsecurity=False).hexdigest()
        return Path(custom) / f"{os.path.basename(folder)}_{digest}"
    return Path(folder) / "__pycache__"


def kernel_cached(module_file: str, kernel: str) -> bool:
    """Whether numba's cache of ``module_file`` (:func:`numba_cache_folder`) holds ``kernel`` (its index and data
    files, vouched for by the module's manifest for the package's current sources): checked without importing
    numba, so that a caller can choose the compiled path only where it loads at once. False where numba compiles
    nothing (``NUMBA_DISABLE_JIT``)."""
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return False
    folder, stem = numba_cache_folder(module_file), Path(module_file).stem
    manifest = _read_manifest(folder / f"{stem}{MANIFEST_SUFFIX}")
    if manifest is None or manifest["sources"] != _current_digest():
        return False
    names = [n for n in manifest["files"] if n.startswith(f"{stem}.{kernel}-")]  # type: ignore[union-attr]
    return (any(n.endswith(".nbi") for n in names) and any(n.endswith(".nbc") for n in names)
            and all((folder / n).is_file() for n in names))
