"""`--profile DIR`: a bench's children under cProfile, each writing DIR/<name>.prof.

A bench's own roles wrap their work in `profiled(…)`; the project's programs (`python -m xivmcp …`,
a sample plugin) are started through `project_command(…)`, which runs them under `run_wrapped`
without editing them. The figures of a profiled run are slower, of course.
"""

from __future__ import annotations

import cProfile
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager


def profile_option(directory: str | None) -> list[str]:
    """`--profile DIR` for a child of ours, when profiling."""
    return ["--profile", directory] if directory else []


@contextmanager
def profiled(directory: str | None, *name: str | None) -> Iterator[None]:
    """The block under cProfile, written to DIR/<name>.prof, the name's parts joined by "-" (a
    None left out); nothing at all without a directory."""
    if not directory:
        yield
        return
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        yield
    finally:
        profiler.disable()
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, "-".join(part for part in name if part is not None) + ".prof")
        profiler.dump_stats(path)
        print(f"bench: wrote {path}", file=sys.stderr, flush=True)


def run_wrapped(module: str, profile: str) -> None:
    """`python -m module` with sys.argv[1:] under cProfile, written to `profile` at exit.

    Children so started are `python -c "import bench._profile; bench._profile.run_wrapped(…)" ARGS…`;
    nothing in the project is edited. SIGTERM raises KeyboardInterrupt until the module installs its
    own handler, so a process without one (the sample plugin) still ends through `finally`.
    """
    import runpy
    import signal

    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, signal.default_int_handler)
    sys.argv = [module, *sys.argv[1:]]
    profiler = cProfile.Profile()
    try:
        profiler.enable()
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except KeyboardInterrupt:
        pass
    finally:
        profiler.disable()
        profiler.dump_stats(profile)
        print(f"bench: wrote {profile}", file=sys.stderr, flush=True)


def project_command(directory: str | None, name: str, module: str) -> tuple[str, ...]:
    """The arguments to `python` that run `-m module`: as is, or under `run_wrapped` into
    DIR/<name>.prof when profiling."""
    if not directory:
        return ("-m", module)
    profile = os.path.join(directory, f"{name}.prof")
    return ("-c", f"import {__name__}; {__name__}.run_wrapped({module!r}, {profile!r})")
