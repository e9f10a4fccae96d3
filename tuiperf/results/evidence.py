"""Evidence besides the breakdown that a verdict can name: the memory table (donated bytes, buffers a
program allocates) and the one-time stages (what a mean over N calls including the first would read).

Pure: no numpy or JAX (the UI uses it).
"""

from __future__ import annotations

from tuiperf.common.units import format_bytes, format_ns
from tuiperf.results.model import RunResult, VariantResult

MEAN_OVER = 100  # calls in the mean a reporter's loop typically takes, the first included
MEAN_SHOWN = 1.2  # a mean ratio this far from 1 (either way) is worth a note when the medians agree
COMPILED_AGAIN = "the first call compiled again"
FIRST_COMPILE_SHOWN = 2.0  # the first compile this many times the others' median is worth a caution
MEMORY_SHOWN = 64 * 1024  # bytes: smaller differences take well under a µs to touch, so name no cause
MEMORY_FIGURES = (
    ("aliased", "donated (outputs written into the arguments' buffers)"),
    ("temporaries", "temporaries"),
    ("outputs", "outputs"),
    ("arguments", "arguments"),
)


def memory_words(slow: VariantResult, fast: VariantResult) -> str | None:
    """How the two programs' memory figures differ, slow first, as XLA's memory analysis gives them;
    None when one has no figures, they are of different kinds of program, or they agree within
    :data:`MEMORY_SHOWN`."""
    a, b = slow.program.memory, fast.program.memory
    if a is None or b is None or a.of != b.of:
        return None  # a call's own program against another's jit level compares two different programs
    differing = [
        f"{label} {format_bytes(getattr(a, key))} vs {format_bytes(getattr(b, key))}"
        for key, label in MEMORY_FIGURES
        if abs(getattr(a, key) - getattr(b, key)) >= MEMORY_SHOWN
    ]
    if not differing:
        return None
    return f"the memory table ({slow.name} vs {fast.name}): " + ", ".join(differing)


AOT_AND_FIRST = "traced, lowered and compiled ahead, then called once"  # how a first-call figure was built
FIRST_ALONE = "called once, tracing and compiling inside the call"


def host_copy_words(slow: VariantResult, fast: VariantResult) -> str | None:
    """``slow`` passes more bytes of host (NumPy) arrays to its call than ``fast``, copied to the device
    on every call: the copy, with its bytes; None where either was not measured or ``slow`` copies no more."""
    a, b = slow.profile.host_bytes, fast.profile.host_bytes
    if a is None or b is None or a <= b:
        return None
    other = f"{fast.name}'s {format_bytes(b)}" if b else f"none for {fast.name}"
    return f"{slow.name} passes host (NumPy) arrays: {format_bytes(a)} copied host→device on every call ({other})"


def first_call_figure(variant: VariantResult) -> tuple[str, float] | None:
    """What a script's first call costs, in ns, and how the figure was built: the ahead-of-time stages
    plus a first call that reused their executable, or, for a wrapper with no ahead-of-time API, the
    first call alone (it traced and compiled itself). None where neither fits: a first call that
    compiled again after the ahead-of-time compile had warmed the compiler's caches (its figure is
    neither a script's first call nor the sum of its stages), or a mix of measured and missing stages."""
    stages = variant.stages
    if stages.first_call is None or any(COMPILED_AGAIN in note for note in variant.notes):
        return None
    if stages.lower is not None and stages.compile is not None:  # a wrapper may trace inside its lower
        return AOT_AND_FIRST, sum(
            ms or 0.0 for ms in (stages.trace, stages.lower, stages.compile, stages.first_call)
        ) * 1e6
    if stages.trace is None and stages.lower is None and stages.compile is None:
        return FIRST_ALONE, stages.first_call * 1e6
    return None


def same_program(a: VariantResult, b: VariantResult) -> bool:
    """Whether XLA's figures say two variants compiled the same program (FLOPs and memory alike): one
    process compiles it once, and the later variant's stages are its caches' hits (two equal
    ``eqx.filter_jit`` calls read 341 ms and 0.04 ms of compile)."""
    pa, pb = a.program, b.program
    if pa.flops is None or pb.flops is None or pa.flops != pb.flops:
        return False
    return pa.memory is None or pb.memory is None or pa.memory.total == pb.memory.total


def first_call_note(a: VariantResult, b: VariantResult, calls: int = MEAN_OVER) -> str | None:
    """When a mean over ``calls`` calls including the first would read a ratio far from the medians':
    the first call's compile dominates such a mean (a frequent cause of "several times slower").
    Only where both variants' first-call figures were built the same way (like for like), and not for
    two variants of the same program (the later one's compile was a cache hit in this process)."""
    if a.sampling.stats is None or b.sampling.stats is None:
        return None
    figure_a, figure_b = first_call_figure(a), first_call_figure(b)
    if figure_a is None or figure_b is None or figure_a[0] != figure_b[0] or same_program(a, b):
        return None
    first_a, first_b = figure_a[1], figure_b[1]
    mean_a = (first_a + (calls - 1) * a.sampling.stats.median_ns) / calls
    mean_b = (first_b + (calls - 1) * b.sampling.stats.median_ns) / calls
    ratio = mean_a / mean_b
    if 1 / MEAN_SHOWN < ratio < MEAN_SHOWN:
        return None
    slower, faster, shown, first = (a, b, ratio, first_a) if ratio > 1 else (b, a, 1 / ratio, first_b)
    return (
        f"a mean over {calls} calls including the first would read {shown:.3g}× for {slower.name} against "
        f"{faster.name} (its first call: {format_ns(first)}, tracing and compiling included; both "
        f"{figure_a[0]})"
    )


def first_compile_note(result: RunResult) -> str:
    """Under the one-time stages of a run on an accelerator, when the variant compiled first in its
    process took over :data:`FIRST_COMPILE_SHOWN` times the others' median: compile times there are not
    independent (on the first GPU check, nnx-vs-linen-cnn's first variant 1.2 s, the others 0.23–0.52 s,
    each compiling the same convolutions). Empty on the CPU, with fewer than three compiles, or no gap."""
    if result.device.platform in ("", "cpu"):
        return ""
    compiled = [(v.name, ms) for v in result.variants if v.ok and (ms := v.stages.compile)]
    if len(compiled) < 3:
        return ""
    (first, first_ms), others = compiled[0], sorted(ms for _, ms in compiled[1:])
    median_ms = others[len(others) // 2]
    if first_ms < FIRST_COMPILE_SHOWN * median_ms:
        return ""
    accelerator = {"gpu": "a GPU", "cuda": "a GPU", "rocm": "a GPU", "tpu": "a TPU"}.get(result.device.platform)
    return (
        f"{first}, compiled before the others, took {first_ms:.0f} ms against a median {median_ms:.0f} ms for "
        f"theirs: on {accelerator or 'an accelerator'} XLA autotunes each convolution and matrix-product "
        "shape once per process, so a shape the variants share is paid for by the first to compile it"
    )
