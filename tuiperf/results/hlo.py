"""The compiled program's HLO text (``Compiled.as_text()``), read: each instruction's name, opcode,
shape, operands' shapes, the line of the user's code it came from, and what kind of work it is.

No JAX here: the text is a string, so the results layer (tables, diffs, the verdict) can read it too.
Two ways XLA writes where an instruction came from are read: ``metadata={op_name=… source_file=…
source_line=…}`` (older XLA), and ``metadata={op_name=… stack_frame_id=N}`` with the module's
``FileNames``/``FunctionNames``/``FileLocations``/``StackFrames`` tables at the top (jax 0.10:
``parent_frame_id`` is printed one above the frame it names, 0 meaning none, which this reader
detects: a frame that names itself as its parent).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

# "[ROOT ]%name = SHAPE opcode(operands), attributes"; a tuple shape holds spaces and parentheses.
_INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?(?P<name>[\w.\-]+)\s*=\s*(?P<rest>.*)$")
_COMPUTATION = re.compile(r"^\s*(?P<entry>ENTRY\s+)?%?(?P<name>[\w.\-]+)\s*(?:\(.*\))?.*\{\s*$")
_OPCODE = re.compile(r"^(?P<opcode>[a-z][\w\-]*)\(")
_TRIP_COUNT = re.compile(r'"known_trip_count":\{"n":"(\d+)"\}')
_CALLS = re.compile(r"\bcalls=%?(?P<name>[\w.\-]+)")
_BODY = re.compile(r"\bbody=%?(?P<name>[\w.\-]+)")
_CONDITION = re.compile(r"\bcondition=%?(?P<name>[\w.\-]+)")
_WINDOW = re.compile(r"\bwindow=\{size=(?P<size>[\dx]+)")
_DIM_LABELS = re.compile(r"\bdim_labels=(?P<labels>[\w>\-]+)")
_TARGET = re.compile(r'custom_call_target="(?P<target>[^"]*)"')
_OP_NAME = re.compile(r'\bop_name="(?P<op_name>(?:[^"\\]|\\.)*)"')
_SOURCE_FILE = re.compile(r'\bsource_file="(?P<file>(?:[^"\\]|\\.)*)"')
_SOURCE_LINE = re.compile(r"\bsource_line=(?P<line>\d+)")
_FRAME_ID = re.compile(r"\bstack_frame_id=(?P<id>\d+)")
_TABLE_ROW = re.compile(r"^(?P<id>\d+)\s+(?P<value>.*)$")
_FIELD = re.compile(r"(?P<key>\w+)=(?P<value>\d+)")

# Kinds of work, in the words the tables use.
MATMUL = "matrix product"
CONVOLUTION = "convolution"
ELEMENTWISE = "elementwise"
REDUCTION = "reduction"
TRANSPOSE = "transpose/copy"
COLLECTIVE = "collective"
LOOP = "while loop"
CUSTOM_CALL = "custom call"
HOST_CALLBACK = "host callback"
TRANSFER = "host↔device copy"
CONDITIONAL = "conditional"
OTHER = "other"

_COLLECTIVES = (
    "all-reduce",
    "all-gather",
    "reduce-scatter",
    "all-to-all",
    "collective-permute",
    "collective-broadcast",
)
_TRANSFERS = ("send", "recv", "send-done", "recv-done", "infeed", "outfeed", "copy-start", "copy-done")
_MOVES = (
    "transpose",
    "copy",
    "bitcast",
    "reshape",
    "slice",
    "dynamic-slice",
    "dynamic-update-slice",
    "concatenate",
    "pad",
    "broadcast",
    "gather",
    "scatter",
    "reverse",
    "iota",
    "constant",
    "parameter",
    "tuple",
    "get-tuple-element",
    "bitcast-convert",
)
_PLUMBING = ("parameter", "constant", "tuple", "get-tuple-element", "bitcast")  # never a unit of work


@dataclass(frozen=True)
class Instruction:
    """One HLO instruction as written: its computation, name, opcode and shapes, where it came from."""

    name: str
    opcode: str
    shape: str  # its output shape without layouts: "f32[64,512]", "(s32[], f32[8])"
    computation: str
    operands: tuple[str, ...] = ()  # the operands' names
    op_name: str = ""  # JAX's name for it: "jit(f)/while/body/sin"
    frames: tuple[tuple[str, int], ...] = ()  # (file, line), innermost first
    called: tuple[str, ...] = ()  # computations it calls: a fusion's, a loop's body and condition
    trip_count: int | None = None  # a while loop's known trip count
    window: str = ""  # a convolution's window: "3x3x3"
    dim_labels: str = ""  # a convolution's dimension labels: "b012f_012io->b012f"
    target: str = ""  # a custom call's target


@dataclass(frozen=True)
class Program:
    """One HLO module: its name and instructions by computation."""

    module: str
    computations: dict[str, tuple[Instruction, ...]] = field(default_factory=dict)
    entry: str = ""

    def instruction(self, name: str) -> Instruction | None:
        for instructions in self.computations.values():
            for found in instructions:
                if found.name == name:
                    return found
        return None

    def shapes(self, computation: str) -> dict[str, str]:
        return {i.name: i.shape for i in self.computations.get(computation, ())}

    def operand_shapes(self, instruction: Instruction) -> tuple[str, ...]:
        known = self.shapes(instruction.computation)
        return tuple(known.get(name, "?") for name in instruction.operands)

    def root(self, computation: str) -> Instruction | None:
        instructions = self.computations.get(computation, ())
        return instructions[-1] if instructions else None


def _without_layouts(shape: str) -> str:
    return re.sub(r"\{[^{}]*\}", "", shape).strip()


def _split_shape(rest: str) -> tuple[str, str]:
    """``SHAPE opcode(...)...`` → (shape, the rest from the opcode on)."""
    if rest.startswith("("):  # a tuple shape: up to its closing parenthesis
        depth = 0
        for at, char in enumerate(rest):
            depth += (char == "(") - (char == ")")
            if depth == 0:
                return rest[: at + 1], rest[at + 1 :].strip()
        return rest, ""
    shape, _, after = rest.partition(" ")
    return shape, after.strip()


def _operands(after: str) -> tuple[str, tuple[str, ...]]:
    """``opcode(%a, %b), attrs`` → (opcode, (a, b)) (operands with an inline shape are read too)."""
    found = _OPCODE.match(after)
    if not found:
        return after.split("(", 1)[0].strip(), ()
    depth, start = 0, found.end() - 1
    for at in range(start, len(after)):
        depth += (after[at] == "(") - (after[at] == ")")
        if depth == 0:
            inner = after[start + 1 : at]
            break
    else:
        inner = after[start + 1 :]
    names = tuple(m for m in re.findall(r"%([\w.\-]+)", inner))
    return found["opcode"], names


def _tables(text: str) -> dict[str, dict[int, str]]:
    """The module's ``FileNames``, ``FunctionNames``, ``FileLocations`` and ``StackFrames`` tables."""
    tables: dict[str, dict[int, str]] = {}
    current: dict[int, str] | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped in ("FileNames", "FunctionNames", "FileLocations", "StackFrames"):
            current = tables.setdefault(stripped, {})
            continue
        row = _TABLE_ROW.match(stripped)
        if current is not None and row:
            current[int(row["id"])] = row["value"]
        else:
            current = None
    return tables


class _Frames:
    """``stack_frame_id`` → (file, line) frames, innermost first."""

    def __init__(self, text: str) -> None:
        tables = _tables(text)
        self.files = {k: v.strip().strip('"') for k, v in tables.get("FileNames", {}).items()}
        self.locations = {
            k: dict((m["key"], int(m["value"])) for m in _FIELD.finditer(v))
            for k, v in tables.get("FileLocations", {}).items()
        }
        self.frames = {
            k: dict((m["key"], int(m["value"])) for m in _FIELD.finditer(v))
            for k, v in tables.get("StackFrames", {}).items()
        }
        parents = {k: f.get("parent_frame_id", 0) for k, f in self.frames.items()}
        # Printed one above the frame it names where a frame names itself (jax 0.10's XLA).
        self.offset = 1 if any(parent == k for k, parent in parents.items()) else 0

    def chain(self, frame_id: int) -> tuple[tuple[str, int], ...]:
        chain: list[tuple[str, int]] = []
        seen: set[int] = set()
        while frame_id in self.frames and frame_id not in seen:
            seen.add(frame_id)
            frame = self.frames[frame_id]
            location = self.locations.get(frame.get("file_location_id", 0), {})
            file = self.files.get(location.get("file_name_id", 0))
            if file is not None:
                chain.append((file, location.get("line", 0)))
            frame_id = frame.get("parent_frame_id", 0) - self.offset
        return tuple(chain)


def parse(text: str) -> Program:
    """Every computation's instructions in ``text`` (an HLO module as ``Compiled.as_text()`` writes it)."""
    header = re.search(r"^HloModule\s+([\w.\-]+)", text, re.MULTILINE)
    frames = _Frames(text)
    computations: dict[str, list[Instruction]] = {}
    current, entry = "", ""
    for line in text.splitlines():
        if line.rstrip() == "}":
            current = ""
            continue
        if not current:
            opened = _COMPUTATION.match(line)
            if opened and "=" not in line.split("{", 1)[0].split("(", 1)[0]:
                current = opened["name"]
                computations.setdefault(current, [])
                if opened["entry"]:
                    entry = current
            continue
        found = _INSTRUCTION.match(line)
        if not found:
            continue
        shape, after = _split_shape(found["rest"])
        opcode, operands = _operands(after)
        computations[current].append(_instruction(found["name"], opcode, shape, current, operands, after, frames))
    return Program(header[1] if header else "", {k: tuple(v) for k, v in computations.items()}, entry)


def _instruction(
    name: str, opcode: str, shape: str, computation: str, operands: tuple[str, ...], after: str, frames: _Frames
) -> Instruction:
    op_name = _OP_NAME.search(after)
    chain: tuple[tuple[str, int], ...] = ()
    if (frame := _FRAME_ID.search(after)) is not None:
        chain = frames.chain(int(frame["id"]))
    elif (file := _SOURCE_FILE.search(after)) is not None and (line := _SOURCE_LINE.search(after)) is not None:
        chain = ((file["file"], int(line["line"])),)
    called = tuple(m["name"] for pattern in (_CALLS, _BODY, _CONDITION) if (m := pattern.search(after)))
    trips = _TRIP_COUNT.search(after)
    window, labels, target = _WINDOW.search(after), _DIM_LABELS.search(after), _TARGET.search(after)
    return Instruction(
        name=name,
        opcode=opcode,
        shape=_without_layouts(shape),
        computation=computation,
        operands=operands,
        op_name=op_name["op_name"] if op_name else "",
        frames=chain,
        called=called,
        trip_count=int(trips[1]) if trips else None,
        window=window["size"] if window else "",
        dim_labels=labels["labels"] if labels else "",
        target=target["target"] if target else "",
    )


def _is_library(file: str) -> bool:
    return any(part in file for part in ("site-packages", "dist-packages", "/lib/python", "<frozen"))


def user_frame(frames: Iterable[tuple[str, int]], user_file: str = "") -> tuple[str, int] | None:
    """The frame in the user's code: the innermost in ``user_file`` where given and present, else the
    innermost outside installed packages, else the innermost."""
    frames = tuple(frames)
    if user_file:
        mine = [f for f in frames if f[0] == user_file or f[0].endswith("/" + user_file.rsplit("/", 1)[-1])]
        exact = [f for f in frames if f[0] == user_file]
        if exact or mine:
            return (exact or mine)[0]
    outside = [f for f in frames if not _is_library(f[0])]
    return outside[0] if outside else (frames[0] if frames else None)


def where(frame: tuple[str, int] | None) -> str:
    """``file.py:42`` (the file's name, not its folders)."""
    return "" if frame is None else f"{frame[0].rsplit('/', 1)[-1]}:{frame[1]}"


def library_frame(frames: Iterable[tuple[str, int]]) -> str:
    """The innermost frame inside an installed package, shortened to ``flax/linen/linear.py:123``."""
    for file, line in frames:
        if any(marker in file for marker in ("site-packages/", "dist-packages/")):
            for marker in ("site-packages/", "dist-packages/"):
                if marker in file:
                    file = file.split(marker, 1)[1]
                    break
            return f"{file}:{line}"
    return ""


def kind_of(program: Program, instruction: Instruction) -> str:
    """What kind of work ``instruction`` does (a fusion: what its fused computation holds)."""
    opcode = instruction.opcode
    if opcode == "fusion" and instruction.called:
        fused = program.computations.get(instruction.called[0], ())
        return _kind_of_set([i.opcode for i in fused], fused[-1].opcode if fused else "")
    if opcode == "while":
        return LOOP
    if opcode == "conditional":
        return CONDITIONAL
    if opcode == "custom-call":
        return HOST_CALLBACK if "callback" in instruction.target.lower() else CUSTOM_CALL
    return _kind_of_set([opcode], opcode)


def _kind_of_set(opcodes: list[str], root: str) -> str:
    present = set(opcodes)
    if "convolution" in present:
        return CONVOLUTION
    if "dot" in present:
        return MATMUL
    if present & {c for c in _COLLECTIVES} or any(o.startswith(_COLLECTIVES) for o in present):
        return COLLECTIVE
    if present & set(_TRANSFERS):
        return TRANSFER
    if "custom-call" in present:
        return CUSTOM_CALL
    if root in ("reduce", "reduce-window") or "reduce" in present or "reduce-window" in present:
        return REDUCTION
    if "while" in present:
        return LOOP
    if present and present <= set(_MOVES):
        return TRANSPOSE
    return ELEMENTWISE


def focus(program: Program, instruction: Instruction) -> Instruction:
    """The instruction that says what a fusion does: its convolution or dot, else its root."""
    if instruction.opcode != "fusion" or not instruction.called:
        return instruction
    fused = program.computations.get(instruction.called[0], ())
    for opcode in ("convolution", "dot"):
        for inner in fused:
            if inner.opcode == opcode:
                return inner
    return fused[-1] if fused else instruction


def shapes(program: Program, instruction: Instruction) -> str:
    """``f32[64,336] × f32[512,336] → f32[64,512]``: what the instruction (a fusion's convolution or
    dot, else the fusion's own operands) reads and writes."""
    inner = focus(program, instruction)
    product = inner.opcode in ("dot", "convolution")
    operands = program.operand_shapes(inner if product else instruction)
    operands = tuple(s for s in operands if s != "?")
    joiner = " × " if product else ", "
    reads = joiner.join(operands)
    return f"{reads} → {instruction.shape}" if reads else instruction.shape


def detail(program: Program, instruction: Instruction) -> str:
    """What the shapes do not say: a convolution's dimensions and window, a loop's steps."""
    inner = focus(program, instruction)
    if inner.opcode == "convolution" and inner.window:
        spatial = len(inner.window.split("x"))
        return f"{spatial}-D, window {inner.window}"
    if instruction.opcode == "while":
        return f"{instruction.trip_count} steps" if instruction.trip_count is not None else "steps unknown"
    if instruction.opcode == "custom-call" and instruction.target:
        return instruction.target
    return ""


def is_work(instruction: Instruction) -> bool:
    """An instruction that can show up as work in a trace (not a parameter, constant or tuple)."""
    return instruction.opcode not in _PLUMBING


def events_per_call(program: Program) -> int:
    """About how many instructions one call runs (a loop's body once per known step): the size of
    its trace."""

    def count(computation: str, depth: int) -> int:
        if depth > 20:
            return 0
        total = 0
        for instruction in program.computations.get(computation, ()):
            if not is_work(instruction):
                continue
            total += 1
            if instruction.opcode == "while" and instruction.called:
                steps = instruction.trip_count if instruction.trip_count is not None else 1
                total += steps * sum(count(c, depth + 1) for c in instruction.called)
            elif instruction.opcode in ("conditional", "call"):
                total += max((count(c, depth + 1) for c in instruction.called), default=0)
        return total

    return max(1, count(program.entry, 0))


_DTYPE_BYTES = {"pred": 1, "s8": 1, "u8": 1, "f8e4m3fn": 1, "f8e5m2": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2}
_DTYPE_BYTES |= {"s32": 4, "u32": 4, "f32": 4, "s64": 8, "u64": 8, "f64": 8, "c64": 8, "c128": 16}
_ARRAY_SHAPE = re.compile(r"^(?P<dtype>[a-z0-9]+)\[(?P<dims>[0-9,]*)\]$")


def shape_bytes(shape: str) -> int | None:
    """Bytes of one array shape as HLO writes it (``f32[336,512]``); None for a tuple or an unknown type."""
    match = _ARRAY_SHAPE.match(shape.strip())
    if match is None or match["dtype"] not in _DTYPE_BYTES:
        return None
    size = 1
    for dim in filter(None, match["dims"].split(",")):
        size *= int(dim)
    return size * _DTYPE_BYTES[match["dtype"]]


def constant_bytes(program: Program) -> int:
    """Bytes of the arrays written into the program as constants (a closure's captured weights are)."""
    return sum(
        shape_bytes(i.shape) or 0
        for instructions in program.computations.values()
        for i in instructions
        if i.opcode == "constant"
    )


def instruction_count(text: str) -> int:
    """The instructions of an HLO module's text, every computation's (a fusion's, a loop body's) included."""
    return sum(len(instructions) for instructions in parse(text).computations.values())
