"""Turns between the measuring processes of a run over several environments (no processes: threads
stand for them)."""

from __future__ import annotations

import threading
import time

from tuiperf.contract.protocol import ANALYSE, SAMPLE, START, Gate
from tuiperf.processes.lockstep import Schedule

MAX_ROUNDS = 50  # a schedule that never stops sampling fails the test instead of hanging it


def _fake_process(schedule: Schedule, index: int, done_after: int, log: list) -> None:
    schedule.wait(index, Gate(0, START, 0))
    log.append((index, "start"))
    r = 0
    while schedule.wait(index, Gate(0, SAMPLE, r), done=r >= done_after) and r < MAX_ROUNDS:
        log.append((index, r))
        r += 1
    schedule.wait(index, Gate(0, ANALYSE, 0))
    log.append((index, "analysis"))
    schedule.finished(index)


def run_fakes(schedule: Schedule, done_after: list[int]) -> list:
    log: list = []
    threads = [threading.Thread(target=_fake_process, args=(schedule, i, n, log)) for i, n in enumerate(done_after)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert not any(thread.is_alive() for thread in threads)
    return log


def test_sampling_stops_for_all_at_once_when_every_process_is_done():
    schedule = Schedule(3)
    log = run_fakes(schedule, [1, 3, 2])

    # Every turn given was taken once: each logged step, plus each process's last round (told to stop).
    assert len(schedule.turns) == len(log) + 3

    for index in range(3):  # the slowest to be done decides: every process takes rounds 0, 1, 2
        assert [r for i, r in log if i == index and isinstance(r, int)] == [0, 1, 2]
    assert log[:3] == [(0, "start"), (1, "start"), (2, "start")]
    assert [r for _, r in log[3:12]] == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert [i for i, _ in log[3:9]] == [0, 1, 2, 1, 2, 0]


def test_a_cancel_releases_every_waiting_process():
    cancel = threading.Event()
    schedule = Schedule(2, cancel)
    released = []  # process 1 never reports: process 0 would wait for it forever
    waiter = threading.Thread(target=lambda: released.append(schedule.wait(0, Gate(0, START, 0))), daemon=True)
    waiter.start()
    cancel.set()
    waiter.join(5)
    assert released == [False]


def test_a_process_that_finishes_early_does_not_hold_the_others():
    schedule = Schedule(2)
    schedule.finished(1)  # it could not start
    log = run_fakes_single(schedule)
    assert log == [(0, "start"), (0, 0), (0, 1), (0, "analysis")]


def run_fakes_single(schedule: Schedule) -> list:
    log: list = []
    _fake_process(schedule, 0, 2, log)
    return log


def test_a_turn_given_but_not_yet_taken_is_not_given_again():
    schedule = Schedule(3)
    for index in (0, 1):
        threading.Thread(target=schedule.wait, args=(index, Gate(0, START, 0)), daemon=True).start()
    deadline = time.monotonic() + 10
    while len(schedule.turns) == 0 and time.monotonic() < deadline:
        with schedule._lock:  # both waiting: process 2 ends before its first turn, which frees the first turn
            if len(schedule._waiting) == 2:
                schedule.finished(2)
                schedule.finished(2)  # a second call (another process ending) before process 0 wakes
    assert schedule.turns == [(0, Gate(0, START, 0))]
