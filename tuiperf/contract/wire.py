"""The bytes between a parent and its measuring process: msgspec's msgpack of the protocol's messages
(:mod:`tuiperf.contract.protocol`), decoded into their classes and checked as they are built.

Every message is typed data, so nothing but data crosses: a request's parameter values are the
parameter table's scalars, a result is the result model, an event is one of the event classes. The
one payload that is not plain data, a variant's output carried for the comparison across environments
(``OutputDigest``), crosses as a NumPy ``.npy`` image in a msgpack extension, read back without pickle.
A message that cannot be encoded raises :class:`Unsendable`; bytes that do not decode into the
expected messages raise :class:`Unreadable`, naming what was wrong. (msgpack measured no slower than
pickle: ``benchmarks/wire_format.py``.)
"""

from __future__ import annotations

import io
from typing import Any

import msgspec

from tuiperf.common.errors import InternalError
from tuiperf.contract.protocol import Answer, Asks, R, Request

ARRAY = 1  # the extension code of a NumPy array


class Unsendable(TypeError):
    """A message holds an object that is not data the protocol carries."""


class Unreadable(InternalError):
    """Bytes from the other process that are not a message of the protocol."""


def _to_data(value: Any) -> Any:
    import numpy as np  # only for the objects msgpack does not know: the UI never gets here

    if isinstance(value, np.ndarray):
        image = io.BytesIO()
        np.save(image, value, allow_pickle=False)
        return msgspec.msgpack.Ext(ARRAY, image.getvalue())
    if isinstance(value, np.generic):
        return value.item()
    raise Unsendable(f"a {type(value).__name__} is not data the measuring protocol carries")


def _from_extension(code: int, data: memoryview) -> Any:
    if code != ARRAY:
        raise ValueError(f"unknown extension {code}")
    import numpy as np

    return np.load(io.BytesIO(data), allow_pickle=False)


_ENCODER = msgspec.msgpack.Encoder(enc_hook=_to_data)
_REQUESTS = msgspec.msgpack.Decoder(Request, ext_hook=_from_extension)
_ANSWERS = msgspec.msgpack.Decoder(Answer, ext_hook=_from_extension)


def encode(message: Request | Asks[R] | Answer) -> bytes:
    """``message`` as bytes; :class:`Unsendable` if it holds something that is not data."""
    try:
        return _ENCODER.encode(message)
    except (TypeError, ValueError, OverflowError) as exc:
        raise Unsendable(str(exc)) from None


def request_of(data: bytes) -> Request:
    """The request the parent sent; :class:`Unreadable` if ``data`` is none."""
    try:
        request: Request = _REQUESTS.decode(data)
    except (msgspec.DecodeError, ValueError) as exc:
        raise Unreadable(f"a request this measuring process cannot read ({exc})") from None
    return request


def answer_of(data: bytes) -> Answer:
    """The answer the measuring process sent; :class:`Unreadable` if ``data`` is none."""
    try:
        answer: Answer = _ANSWERS.decode(data)
    except (msgspec.DecodeError, ValueError) as exc:
        raise Unreadable(f"an answer this tuiperf cannot read from its measuring process ({exc})") from None
    return answer
