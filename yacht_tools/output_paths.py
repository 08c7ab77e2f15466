"""Where the command line writes the files a user names (``--json``, ``--markdown``, ``--plot``, ``--output``).

A path the user named is written as a shell's ``>`` would: a symlink is followed and its target written (atomically,
so the link stays a link); a character device or a FIFO (``/dev/null``, ``/dev/stdout``, a named pipe, a link to
``/proc/self/fd/1``) is written through, never replaced; a folder, a block device or a socket is refused.
:func:`check_output_paths` checks a command's output paths before its work starts: not empty, not a folder, the
folder exists and takes a new file, no two outputs on one path, and no output over what the command reads (an input
file, or a file of an input folder that it reads there: a record folder's ``*.json``). The project's own files
(caches, checkpoints, run folders) are written by :mod:`yacht_env.files`, always as regular files.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from yacht_env.files import atomic_path


@dataclass(frozen=True)
class Input:
    """A file or folder a command reads, ``what`` it is for messages (``"the record"``); for a folder, ``reads``:
    the names (glob patterns) of the files the command reads in it. An output may not replace an input file, nor
    be a file an input folder's reader would read."""

    path: str | Path
    what: str
    reads: tuple[str, ...] = ()


@contextlib.contextmanager
def user_atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path to write to for a path the user named; on leaving the block without an error it takes the
    place of the file ``path`` names (a link's target, atomically), or is copied into a device, a FIFO or an open
    descriptor of this process. On an error nothing is written."""
    target = _real_target(path)
    if _written_through(target):
        with _written_whole_through(target) as tmp:
            yield tmp
        return
    with atomic_path(target) as tmp:
        yield tmp


def write_user_file(path: str | Path, write: Callable[[BinaryIO], None]) -> Path:
    """Call ``write(file)`` for a path the user named (:func:`user_atomic_path`)."""
    with user_atomic_path(path) as tmp, open(tmp, "wb") as f:
        write(f)
    return Path(path)


def write_user_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to a path the user named (:func:`user_atomic_path`)."""
    return write_user_file(path, lambda f: f.write(text.encode("utf-8")))


def _real_target(path: str | Path, option: str = "") -> Path:
    """The file a write to ``path`` must change: ``~`` expanded, a symlink followed to its target (a dangling
    link to the file it names). ``ValueError`` for what must not be written (a folder, a block device, a socket)."""
    p = Path(os.path.expanduser(str(path)))
    try:
        mode = os.stat(p).st_mode
    except (FileNotFoundError, NotADirectoryError):
        mode = None
    except OSError as e:
        raise ValueError(f"cannot write {option}{str(path)!r}: {e.strerror or e}") from None
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
        what = "a folder" if stat.S_ISDIR(mode) else "a block device" if stat.S_ISBLK(mode) else "a socket" \
            if stat.S_ISSOCK(mode) else "not a regular file"
        raise ValueError(f"cannot write {option}{str(path)!r}: it is {what}; give a file name")
    if (mode is not None and not stat.S_ISREG(mode)) or _descriptor(p) is not None:
        return p  # a device, a pipe or an open file (/dev/stdout): written through at the path the user gave
    return Path(os.path.realpath(p)) if p.is_symlink() else p


def _written_through(target: Path) -> bool:
    """Whether ``target`` is a character device, a FIFO or an open file of the process (``/dev/stdout``,
    ``/proc/self/fd/N``): written in place, as a shell's ``>`` would, never replaced."""
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or _descriptor(target) is not None


def _descriptor(path: Path) -> int | None:
    """The descriptor ``N`` if ``path`` or a link on the way to its file is one of this process's open files
    (``/dev/stdout``, ``/dev/fd/N``, ``/proc/self/fd/N``), else ``None``. Renaming over what such a path resolves to
    would cut the file out from under the descriptor (``--json /dev/stdout > out.txt``)."""
    p = str(path)
    own = ("/dev/fd/", "/proc/self/fd/", f"/proc/{os.getpid()}/fd/")
    for _ in range(40):  # the kernel's own limit on links followed
        if p in ("/dev/stdout", "/dev/stderr"):
            return 1 if p == "/dev/stdout" else 2
        for prefix in own:
            if p.startswith(prefix) and p[len(prefix):].isdigit():
                return int(p[len(prefix):])
        try:
            link = os.readlink(p)
        except OSError:
            return None
        p = os.path.join(os.path.dirname(p), link)
    return None


@contextlib.contextmanager
def _written_whole_through(target: Path) -> Iterator[Path]:
    """A temporary file to write to, copied on success into ``target`` (a device, a pipe, an open descriptor), so
    that a write that fails half way sends nothing. A descriptor of this process is written through a duplicate of
    it: its offset moves on, and what the process printed before stays before."""
    fd, tmp = tempfile.mkstemp(prefix=".yacht-env-", suffix=".tmp")
    os.close(fd)
    try:
        yield Path(tmp)
        number = _descriptor(target)
        if number is not None:
            for stream in (sys.stdout, sys.stderr):
                if stream is not None and _fileno(stream) == number:
                    stream.flush()
            out = os.fdopen(os.dup(number), "wb")
        else:
            out = open(target, "wb")  # noqa: SIM115 - closed below
        with out, open(tmp, "rb") as src:
            shutil.copyfileobj(src, out)
    finally:
        os.unlink(tmp)


def _fileno(stream: object) -> int | None:
    try:
        return stream.fileno()  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return None


def check_output_path(path: str | Path | None, option: str, inputs: Sequence[Input] = ()) -> Path:
    """``path`` (``~`` expanded) if ``option`` can write there, else ``ValueError`` naming the option and why:
    checked before a command's work starts, so that a bad path never costs the games or the training. ``inputs``:
    what the command reads, which the output may not replace."""
    if path is None or not str(path).strip():
        raise ValueError(f"{option} needs a file name, got {str(path)!r}")
    target = _real_target(path, f"{option} ")
    if _written_through(target):
        return Path(os.path.expanduser(str(path)))
    for source in inputs:
        problem = _over_input(target, source)
        if problem:
            raise ValueError(f"cannot write {option} {str(path)!r}: {problem}; give another path")
    folder = target.parent
    if not folder.is_dir():
        raise ValueError(f"cannot write {option} {str(path)!r}: folder {str(folder)!r} does not exist")
    try:  # the one sure test that a new file can be made there (access() says yes to root on /proc)
        fd, probe = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise ValueError(f"cannot write {option} {str(path)!r}: folder {str(folder)!r} takes no new file "
                         f"({e.strerror or e})") from None
    return Path(os.path.expanduser(str(path)))


def _over_input(target: Path, source: Input) -> str | None:
    """Why writing ``target`` (links followed) would destroy or pollute ``source``, or None."""
    given = Path(os.path.expanduser(str(source.path)))
    try:
        mode = os.stat(given).st_mode
    except OSError:
        return None
    if stat.S_ISDIR(mode):
        if os.path.realpath(target.parent) == os.path.realpath(given) and any(
                fnmatch.fnmatchcase(target.name, pattern) for pattern in source.reads):
            return (f"it is in {source.what} {str(source.path)!r}, whose {' and '.join(source.reads)} this command "
                    "reads: it would be read as one of them next time")
        return None
    same = os.path.realpath(target) == os.path.realpath(given)
    with contextlib.suppress(OSError):
        same = same or os.path.samefile(target, given)  # a hard link
    return f"it is {source.what} {str(source.path)!r}, which this command reads: it would be overwritten" if same \
        else None


def check_output_paths(paths: dict[str, str | Path | None], inputs: Sequence[Input] = ()) -> dict[str, Path | None]:
    """:func:`check_output_path` for each ``{option: path}`` given (``None``: not asked for), and ``ValueError``
    if two options name one file (one would overwrite the other)."""
    out: dict[str, Path | None] = {}
    seen: dict[str, str] = {}
    for option, path in paths.items():
        if path is None:
            out[option] = None
            continue
        out[option] = p = check_output_path(path, option, inputs)
        key = os.path.realpath(p)
        if key in seen and not _written_through(Path(key)):
            raise ValueError(f"{seen[key]} and {option} name the same file {str(path)!r}: give each its own")
        seen[key] = option
    return out


def agent_inputs(specs: Sequence[str | None]) -> list[Input]:
    """What the agent specs of a command read from disk (a model file, a run folder's model and ``eval.json``, a
    shipped model): the inputs its outputs may not replace."""
    from yacht_agents.loader import MODEL_SUFFIXES, SHIPPED_MODELS_DIR

    out = []
    for spec in (s.strip() for s in specs if isinstance(s, str) and s.strip()):
        path = Path(os.path.expanduser(spec))
        if path.is_dir():
            out.append(Input(path, "the run folder", ("eval.json", "final_model.*", "best_model.*")))
        elif path.exists():
            out.append(Input(path, "the model file"))
        out += [Input(SHIPPED_MODELS_DIR / f"{spec}{suffix}", f"the shipped model of {spec!r}")
                for suffix in MODEL_SUFFIXES if "/" not in spec and (SHIPPED_MODELS_DIR / f"{spec}{suffix}").is_file()]
    return out
