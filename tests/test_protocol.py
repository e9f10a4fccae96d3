"""The typed protocol between a parent and its measuring or loading process: errors keep their class,
a stop keeps its reason, an answer that cannot be sent as is still arrives as text, and the bytes on the
wire are msgpack decoded into the protocol's classes (no pickle: a message that is not one is refused)."""

from __future__ import annotations

import threading
from pathlib import Path

import factories
import pytest

from tuiperf.common import errors
from tuiperf.common.errors import ParamError, TuiperfError
from tuiperf.contract import wire
from tuiperf.contract.catalog import Catalog, LoadError
from tuiperf.contract.events import PhaseChanged, Progress, RunStarted
from tuiperf.contract.options import RunSettings
from tuiperf.contract.protocol import (
    SAMPLE,
    Answer,
    Described,
    DescribeFile,
    Gate,
    Measure,
    Measured,
    MeasuredInLockstep,
    Refused,
    Request,
    Streamed,
    Waiting,
)
from tuiperf.contract.request import RunRequest
from tuiperf.processes.loader import load_isolated
from tuiperf.processes.process import Ended, IgnoredCancel, ProcessStopped, TimedOut
from tuiperf.results.outputs import Leaf, OutputDigest

SIMPLE_ERRORS = [
    errors.ScenarioError,
    errors.ParamError,
    errors.UnknownScenario,
    errors.DeviceError,
    errors.WorkerCrashed,
    errors.InternalError,
]


@pytest.mark.parametrize("cls", SIMPLE_ERRORS)
def test_an_error_raised_in_the_child_is_raised_in_the_parent_as_its_own_class(cls: type[TuiperfError]) -> None:
    sent = wire.answer_of(wire.encode(Refused.of(cls("bad value", where="size"))))
    assert isinstance(sent, Refused)
    raised = sent.exception()
    assert type(raised) is cls
    assert (raised.message, raised.where, raised.title) == ("bad value", "size", cls.title)


def test_an_error_class_the_parent_does_not_know_arrives_as_the_base_with_its_title() -> None:
    raised = Refused(error="NoSuchError", title="Odd", message="m").exception()
    assert type(raised) is TuiperfError and raised.title == "Odd"


def test_a_stop_keeps_its_reason_and_says_it_in_words() -> None:
    assert ProcessStopped(TimedOut(2.5)).reason == TimedOut(2.5)
    assert ProcessStopped(TimedOut(2.5)).how == "did not return within 2.5 s"
    assert ProcessStopped(Ended(-11)).how == "was killed by SIGSEGV"
    assert ProcessStopped(Ended(3)).how == "exited with status 3"
    cancel = ProcessStopped(IgnoredCancel(1.0))
    assert cancel.cancelled and not ProcessStopped(TimedOut(1.0)).cancelled


class StoppingChild:
    """A loader process whose every request stops it for ``reason``."""

    def __init__(self, reason: TimedOut | Ended) -> None:
        self.reason = reason
        self.asked: list[Request] = []

    def request(self, request: Request, **_: object) -> object:
        self.asked.append(request)
        raise ProcessStopped(self.reason)


def _load_one(tmp_path: Path, child: StoppingChild, timeout_s: float) -> Catalog:
    (tmp_path / "slow.py").write_text("x = 1\n")
    dropped: list[bool] = []
    catalog = load_isolated([str(tmp_path)], lambda: child, lambda: dropped.append(True), timeout_s=timeout_s)
    assert dropped and DescribeFile(str(tmp_path / "slow.py")) in child.asked
    return catalog


def test_the_loader_reports_a_timeout_as_an_import_timeout_with_its_seconds(tmp_path: Path) -> None:
    # The seconds come from the stop itself, not from matching the text of another module's message.
    catalog = _load_one(tmp_path, StoppingChild(TimedOut(7.0)), timeout_s=10.0)
    [error] = [e for e in catalog.broken if e.path.endswith("slow.py")]
    assert error.error == "did not finish importing within 7 s"


def test_the_loader_reports_a_crash_at_import(tmp_path: Path) -> None:
    catalog = _load_one(tmp_path, StoppingChild(Ended(-11)), timeout_s=10.0)
    [error] = [e for e in catalog.broken if e.path.endswith("slow.py")]
    assert error.error == "was killed by SIGSEGV at import"


class WireConn:
    """The child's end of the socket: what it sends, decoded as the parent decodes it."""

    def __init__(self) -> None:
        self.sent: list[Answer] = []

    def send_bytes(self, data: bytes) -> None:
        self.sent.append(wire.answer_of(data))


def test_a_result_with_a_note_that_is_not_data_still_arrives() -> None:
    from tuiperf.measuring.serve import safe_send

    run = factories.result({"a": [1.0, 2.0]})
    run.variants[0].warnings.append(threading.Lock())  # type: ignore[arg-type]  # any object a document can hold
    conn = WireConn()
    safe_send(conn, Measured(run))
    [answer] = conn.sent
    assert isinstance(answer, Measured) and answer.result.variants[0].warnings[-1].startswith("<unlocked _thread.lock")


def test_an_event_that_is_not_data_is_dropped_and_an_answer_that_is_not_is_an_internal_error() -> None:
    from tuiperf.contract.events import PhaseChanged
    from tuiperf.measuring.serve import safe_send

    conn = WireConn()
    safe_send(conn, Streamed(PhaseChanged("sample", message=threading.Lock())))  # type: ignore[arg-type]
    safe_send(conn, Measured(threading.Lock()))  # type: ignore[arg-type]
    [answer] = conn.sent
    assert isinstance(answer, Refused) and answer.error == "InternalError"
    assert isinstance(answer.exception(), errors.InternalError)
    assert answer.exception().message.startswith("the answer could not be sent")


@pytest.mark.slow
def test_a_param_error_in_the_measuring_process_is_a_param_error_in_the_caller(fixture_dir: str) -> None:
    from tuiperf.contract.options import RunSettings
    from tuiperf.contract.request import RunRequest
    from tuiperf.processes.runner import ProcessRunner

    runner = ProcessRunner([fixture_dir])
    try:
        with pytest.raises(ParamError, match="size: 0 is below the minimum 1"):
            runner.run(RunRequest(scenario="tiny", params={"size": 0}, settings=RunSettings(dispatch="sync")))
    finally:
        runner.close()


def test_settings_out_of_bounds_are_refused_as_they_arrive_in_either_runner(fixture_dir: str) -> None:
    """Settings are checked once, where a measuring process (or the in-process runner) receives them:
    the steps that measure trust them."""
    from tuiperf.contract.options import RunSettings
    from tuiperf.contract.request import RunRequest
    from tuiperf.measuring.inprocess import InProcessRunner
    from tuiperf.processes.runner import ProcessRunner

    request = RunRequest(scenario="tiny", settings=RunSettings(samples=0, dispatch="sync"))
    for runner in (InProcessRunner([fixture_dir]), ProcessRunner([fixture_dir])):
        events: list[object] = []
        try:
            with pytest.raises(ParamError, match="samples: 0 is below the minimum 1"):
                runner.run(request, events.append)
        finally:
            runner.close()
        assert events == []


def test_every_message_crosses_the_wire_as_its_own_class_with_typed_values() -> None:
    request = RunRequest(
        "tiny", params={"size": "8", "scale": 2.0}, sweep=("size", ["8", 16]), settings=RunSettings(samples=5)
    )
    assert wire.request_of(wire.encode(Measure(request))) == Measure(request)
    result = factories.result({"a": [1.0, 2.0, 3.0]}, params={"size": 8})
    header = RunStarted("tiny", ["a"], "cpu:0", "sync", 16, None)
    answers: list[Answer] = [
        Measured(result),
        Streamed(header),
        Streamed(Progress(0.5, 1.0, None, {"a": 1000.0}, {"a": 3})),
        Streamed(PhaseChanged("sample", "a", "sampling")),
        Waiting(Gate(0, SAMPLE, 3), done=True),
        Described(error=LoadError(path="/x/broken.py", error="SyntaxError", line=3)),
    ]
    for answer in answers:
        assert wire.answer_of(wire.encode(answer)) == answer
    assert wire.answer_of(wire.encode(answers[4])).gate.kind is SAMPLE  # type: ignore[union-attr]


def test_an_output_carried_for_the_comparison_crosses_as_an_array_without_pickle() -> None:
    import numpy as np

    digest = OutputDigest(leaves={"w": Leaf("float32", (2, 2), np.eye(2, dtype=np.float32))}, tolerance=1e-6)
    sent = wire.answer_of(wire.encode(MeasuredInLockstep(factories.result({"a": [1.0]}), {"a": digest})))
    assert isinstance(sent, MeasuredInLockstep)
    values = sent.digests["a"].leaves["w"].values
    assert values.dtype == np.float32 and values.tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_bytes_that_are_not_a_message_are_one_clear_error() -> None:
    import pickle

    with pytest.raises(wire.Unreadable, match="cannot read from its measuring process"):
        wire.answer_of(pickle.dumps(Refused.of(errors.InternalError("x"))))  # pickle is not spoken
    with pytest.raises(wire.Unreadable, match="a request this measuring process cannot read"):
        wire.request_of(wire.encode(Measured(factories.result({"a": [1.0]}))))  # an answer is no request
    with pytest.raises(wire.Unsendable, match="is not data"):
        wire.encode(Measure(RunRequest("tiny", params={"size": threading.Lock()})))  # type: ignore[dict-item]
