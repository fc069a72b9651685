"""`broker.run_main`: a process's async main on the bus's event loop, a bus error as one line."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import pytest

import broker


async def _returns(value: int | None) -> int | None:
    await anyio.lowlevel.checkpoint()
    return value


async def _raises(exc: BaseException) -> None:
    raise exc


async def _raises_in_a_task_group(*excs: BaseException) -> None:
    async with anyio.create_task_group() as tg:
        for exc in excs:
            tg.start_soon(_raises, exc)


def test_the_exit_status_is_what_main_returns_and_none_is_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert broker.run_main(_returns, 3) == 3
    assert broker.run_main(_returns, None) == 0
    assert capsys.readouterr().err == ""


def test_a_bus_error_is_one_line_and_status_two(capsys: pytest.CaptureFixture[str]) -> None:
    error = broker.IpcDisconnectedError("No broker answered at tcp://127.0.0.1:1 within 5 s.")
    assert broker.run_main(_raises, error) == 2
    assert capsys.readouterr().err == "No broker answered at tcp://127.0.0.1:1 within 5 s.\n"
    assert broker.run_main(_raises, error, name="xivmcp game") == 2
    assert capsys.readouterr().err == "xivmcp game: No broker answered at tcp://127.0.0.1:1 within 5 s.\n"


def test_a_bus_error_inside_task_groups_is_the_same_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    refused = broker.IpcRefusedError("The InternalName 'Game' is already connected.")
    assert broker.run_main(_raises_in_a_task_group, refused, name="Game") == 2
    assert capsys.readouterr().err == "Game: The InternalName 'Game' is already connected.\n"


def test_verbose_prints_the_traceback_before_the_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert broker.run_main(_raises, broker.IpcRefusedError("Taken."), verbose=True) == 2
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):") and err.endswith("IpcRefusedError: Taken.\nTaken.\n")


def test_ctrl_c_ends_with_the_status_the_caller_chose() -> None:
    assert broker.run_main(_raises, KeyboardInterrupt()) == 130
    assert broker.run_main(_raises, KeyboardInterrupt(), interrupted=0) == 0


def test_any_other_error_propagates_as_it_came(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="a bug"):
        broker.run_main(_raises, ValueError("a bug"))
    with pytest.raises(BaseExceptionGroup) as caught:
        broker.run_main(_raises_in_a_task_group, ValueError("a bug"), broker.IpcError("and the bus"))
    assert caught.value.subgroup(ValueError) is not None
    assert capsys.readouterr().err == ""
