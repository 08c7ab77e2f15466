"""Ctrl-C ends a command within a moment, wherever it lands.

Two things held a command up after Ctrl-C. A SIGINT that lands while numba compiles can be handled inside one of
llvmlite's ctypes callbacks; Python reports an exception raised there as "Exception ignored on calling ctypes
callback function" and goes on, so the KeyboardInterrupt was lost and the work ran on to its end. And once
interrupted, a process with torch and numba loaded spent seconds in the interpreter's last garbage collection
before it exited (each worker of ``yacht bench run`` in turn, then its parent).

:func:`prompt_interrupts`, called where a process starts a command (``yacht``, ``train.py``, the worker processes of
``yacht bench run``), mends both: a KeyboardInterrupt swallowed so is raised again at once, where it can reach the
command's handler (which keeps the checkpoint and says how to go on), and a process that Ctrl-C interrupted skips
that last collection (:func:`gc.freeze` at exit: the memory goes back with the process; every file is written and
closed before, atomically). A process that ignores SIGINT (a shell's ``cmd &``) goes on ignoring it.
"""

from __future__ import annotations

import _thread
import atexit
import gc
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

__all__ = ["exit_promptly", "prompt_interrupts"]

_state = {"installed": False, "exit_promptly": False}


def exit_promptly() -> None:
    """Let this process end without the interpreter's last garbage collection (seconds with torch and numba loaded):
    for a process that Ctrl-C ends (the SIGINT handler of :func:`prompt_interrupts` calls it)."""
    if not _state["exit_promptly"]:
        _state["exit_promptly"] = True
        atexit.register(gc.freeze)  # atexit runs last-registered first: after this, the final collection skips all


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    exit_promptly()
    raise KeyboardInterrupt


RAISE_AGAIN_S = 0.02
"""How soon a swallowed KeyboardInterrupt is raised again: from another thread, once the main thread has left the
callback (raised in the hook itself, it would be swallowed there too)."""


def _raise_swallowed(hook: Callable[[Any], object]) -> Callable[[Any], None]:
    """An unraisable-exception hook: a KeyboardInterrupt that could not propagate (raised in a ctypes callback) is
    raised again in the main thread a moment later (and again, should that land in a callback too); anything else
    goes to ``hook``."""
    def handle(unraisable: Any) -> None:
        if unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt):
            again = threading.Timer(RAISE_AGAIN_S, _thread.interrupt_main, args=(signal.SIGINT,))
            again.daemon = True
            again.start()
            return
        hook(unraisable)

    return handle


def prompt_interrupts() -> None:
    """Make Ctrl-C end this process within a moment (see the module docstring); once per process, from its main
    thread (elsewhere: nothing)."""
    if _state["installed"] or threading.current_thread() is not threading.main_thread():
        return
    _state["installed"] = True
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_sigint)
    sys.unraisablehook = _raise_swallowed(sys.unraisablehook)
