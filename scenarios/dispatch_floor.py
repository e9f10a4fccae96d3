"""The floor of JAX dispatch: what does calling a jitted function that does nothing cost?

Every other scenario is read against this one: per-call times close to these numbers are
dominated by dispatch, not by your model.
"""

from types import SimpleNamespace

import jax
import jax.numpy as jnp

from tuiperf import Bench, Int, Scenario

scenario = Scenario(
    title="Dispatch floor: a jitted no-op",
    question=(
        "What does one call of a jitted function cost when it computes nothing? `jax.jit` pays "
        "for argument handling and a cache lookup before launching the executable; calling the "
        "ahead-of-time compiled executable skips the lookup. More array arguments mean more "
        "per-argument work. Per-call times of other scenarios near this floor are dispatch-bound."
    ),
    params=dict(
        n_args=Int(1, min=1, max=1024, help="number of array arguments passed on each call"),
        size=Int(1, min=1, max=1 << 24, help="elements in each argument"),
    ),
)


def noop(*arrays):
    return arrays[0]


@scenario.setup
def make_inputs(p):
    return SimpleNamespace(arrays=[jnp.zeros(p.size, jnp.float32) + i for i in range(p.n_args)])


@scenario.variant("jax.jit")
def jitted(p, ctx):
    """Call through `jax.jit`: C++ fast path, argument checks and the cache lookup included."""
    return Bench(jax.jit(noop, keep_unused=True), *ctx.arrays)


@scenario.variant("aot-compiled")
def compiled(p, ctx):
    """Call the `jax.jit(...).trace(...).lower().compile()` executable directly."""
    executable = jax.jit(noop, keep_unused=True).trace(*ctx.arrays).lower().compile()
    return Bench(executable, *ctx.arrays)
