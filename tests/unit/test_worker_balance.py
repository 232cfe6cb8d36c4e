"""The connection board and the balanced listener of ``service/worker.py``, on real sockets: a
worker holding more connections than another live worker declines a waiting connection for a
moment, then takes it; closed connections and workers that have gone no longer count."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest

from service.worker import PATIENCE, BalancedListener, ConnectionBoard, Connections


def gone_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    sock.setblocking(False)
    yield sock
    sock.close()


def connect(listener: socket.socket) -> socket.socket:
    client = socket.create_connection(listener.getsockname())
    time.sleep(0.01)  # the connection waits in the listener's queue
    return client


def beside_another_worker(
    listener: socket.socket,
) -> tuple[ConnectionBoard, int, Connections, BalancedListener]:
    """This worker, listening, and another live worker (slot returned) holding no connection."""
    board = ConnectionBoard(slots=4)
    other = board.claim(os.getppid())
    connections = Connections(board, os.getpid())
    return board, other, connections, BalancedListener(listener, connections)


def test_slots_are_claimed_released_and_reused_only_by_their_owner() -> None:
    board = ConnectionBoard(slots=3)
    mine, other = board.claim(os.getpid()), board.claim(os.getppid())
    assert mine != other
    board.post(other, os.getppid(), 2)
    board.post(other, os.getpid(), 9)  # not this worker's slot: ignored
    assert board.fewest_elsewhere(mine) == 2
    board.release(other, os.getpid())  # not the owner: the slot stays
    assert board.fewest_elsewhere(mine) == 2
    board.release(other, os.getppid())
    assert board.fewest_elsewhere(mine) is None


def test_a_slot_of_a_worker_that_has_gone_is_reused_and_a_full_board_says_so() -> None:
    board = ConnectionBoard(slots=2)
    board.claim(os.getpid())
    dead = board.claim(gone_pid())
    # another live process (not the parent: a run started in the background has init, pid 1, as
    # its parent once the shell that started it exits, and 1 is the pid claimed below)
    with subprocess.Popen(["sleep", "30"]) as other:
        try:
            assert board.claim(other.pid) == dead
            with pytest.raises(RuntimeError, match="more than 2 workers"):
                board.claim(1)
        finally:
            other.kill()


def test_a_worker_that_has_gone_is_not_waited_for() -> None:
    board = ConnectionBoard(slots=4)
    mine = board.claim(os.getpid())
    slot = board.claim(gone_pid())
    board.counts[slot] = 0
    board.post(mine, os.getpid(), 5)
    assert board.fewest_elsewhere(mine) is None


def test_a_busier_worker_declines_for_a_moment_then_accepts(listener: socket.socket) -> None:
    board, other, connections, balanced = beside_another_worker(listener)
    clients = [connect(listener)]
    first, _ = balanced.accept()  # one each would be even: taken at once
    assert connections.count() == 1
    clients.append(connect(listener))
    started = time.monotonic()
    with pytest.raises(BlockingIOError):
        balanced.accept()  # the other worker has fewer: left to it
    time.sleep(max(0.0, started + 1.5 * PATIENCE - time.monotonic()))
    second, _ = balanced.accept()  # no one took it: taken after all
    assert connections.count() == 2
    board.post(other, os.getppid(), 2)
    clients.append(connect(listener))
    third, _ = balanced.accept()  # as many as the other: taken at once
    for conn in [first, second, third, *clients]:
        conn.close()


def test_closed_connections_no_longer_count(listener: socket.socket) -> None:
    board, _, connections, balanced = beside_another_worker(listener)
    client = connect(listener)
    conn, _ = balanced.accept()
    conn.close()
    client.close()
    assert connections.count() == 0
    assert board.counts[connections.slot] == 0
    again = connect(listener)
    taken, _ = balanced.accept()  # even again (0 and 0): no decline
    taken.close()
    again.close()


def test_a_worker_leaving_frees_its_slot_so_no_one_waits_for_it() -> None:
    board = ConnectionBoard(slots=4)
    leaving = Connections(board, os.getppid())
    staying = board.claim(os.getpid())
    assert board.fewest_elsewhere(staying) == 0
    leaving.leave()
    assert board.fewest_elsewhere(staying) is None


def test_being_asked_when_no_connection_waits_does_not_use_up_the_patience(
    listener: socket.socket,
) -> None:
    """asyncio asks again after each accept; with nothing waiting that is no decline, so a
    connection arriving later is still left to the less loaded worker first."""
    _, _, _, balanced = beside_another_worker(listener)
    client = connect(listener)
    first, _ = balanced.accept()
    with pytest.raises(BlockingIOError):
        balanced.accept()  # nothing waits
    time.sleep(1.5 * PATIENCE)
    late = connect(listener)
    with pytest.raises(BlockingIOError):
        balanced.accept()  # the late connection is first left to the other worker
    for sock in (first, client, late):
        sock.close()
