"""One SGD step of a two-layer MLP over several devices, on JAX's own sharding.

Run with as many devices as the mesh needs: ``tuiperf run sharded-step --devices 4 --set devices=4``
(on the CPU tuiperf starts the measuring process with that many host devices), and sweep the mesh
size in one process: ``tuiperf run sharded-step --devices 8 --sweep devices=1,2,4,8``. Every variant
starts from the same weights and batches; inputs are placed with their shardings before timing, so
no call reshards its arguments; the guard compares loss and weights, gathered, after three steps
against the single-device step.
"""

from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from tuiperf import Float, Int, Scenario, Step, devices, mesh

scenario = Scenario(
    title="Sharded training step: data- and tensor-parallel",
    question=(
        "What does one training step cost when its arrays are spread over N devices? Data-parallel "
        "splits the batch (gradients are all-reduced), tensor-parallel splits the hidden layer (the "
        "activations cross devices), replicated computes the same step on every device. Compare each "
        "with the one-device step; sweep `devices` to see how the fixed per-call cost grows with the "
        "mesh (more executables to launch, more buffers to wait for) and where collectives enter "
        "(Profile tab, `tuiperf trace`)."
    ),
    params=dict(
        devices=Int(0, min=0, max=256, help="devices the mesh spans (at most --devices N); 0: all of them"),
        batch=Int(64, min=1, max=1 << 20, help="rows per batch (a multiple of devices)"),
        width=Int(128, min=1, max=1 << 16, help="features in and out"),
        hidden=Int(256, min=1, max=1 << 16, help="hidden features (a multiple of devices)"),
        lr=Float(0.01, min=0.0, max=10.0, help="SGD learning rate"),
    ),
)


@scenario.check
def check(p):
    if p.devices and (p.batch % p.devices or p.hidden % p.devices):
        raise ValueError(f"batch ({p.batch}) and hidden ({p.hidden}) must be multiples of devices ({p.devices})")


def run_mesh(p):
    """A 1-D mesh over the devices this variant spans (p.devices, or all of the run's)."""
    n = len(devices(p.devices or None))
    if p.batch % n or p.hidden % n:
        raise ValueError(f"batch ({p.batch}) and hidden ({p.hidden}) must be multiples of the {n} devices")
    return mesh((n,), ("d",))


def loss_fn(params, x, y):
    h = jax.nn.relu(x @ params["w1"])
    return jnp.mean((h @ params["w2"] - y) ** 2)


def sgd_step(params, x, y, lr):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return jax.tree.map(lambda w, g: w - lr * g, params, grads), loss


@scenario.setup
def build(p):
    rng = np.random.default_rng(0)
    params = {
        "w1": jnp.asarray(rng.normal(0, 1 / np.sqrt(p.width), (p.width, p.hidden)), jnp.float32),
        "w2": jnp.asarray(rng.normal(0, 1 / np.sqrt(p.hidden), (p.hidden, p.width)), jnp.float32),
    }
    x = jnp.asarray(rng.normal(0, 1, (p.batch, p.width)), jnp.float32)
    y = jnp.asarray(rng.normal(0, 1, (p.batch, p.width)), jnp.float32)
    return SimpleNamespace(params=params, x=x, y=y)


def compare(state, loss):
    return {"loss": loss, "w1": state["w1"], "w2": state["w2"]}


def sharded_step(p, ctx, param_specs, data_spec):
    """A jax.jit step whose inputs and outputs keep the given shardings over a 1-D mesh."""
    m = run_mesh(p)
    params_sharding = {name: NamedSharding(m, spec) for name, spec in param_specs.items()}
    data_sharding = NamedSharding(m, data_spec)
    step = jax.jit(
        lambda params, x, y: sgd_step(params, x, y, p.lr),
        in_shardings=(params_sharding, data_sharding, data_sharding),
        out_shardings=(params_sharding, NamedSharding(m, P())),
    )
    params = jax.device_put(ctx.params, params_sharding)
    x, y = jax.device_put(ctx.x, data_sharding), jax.device_put(ctx.y, data_sharding)
    return Step(step, params, x, y, compare=compare)


@scenario.variant("one-device", reference=True)
def _(p, ctx):
    return Step(jax.jit(lambda params, x, y: sgd_step(params, x, y, p.lr)), ctx.params, ctx.x, ctx.y, compare=compare)


@scenario.variant("data-parallel-jax.jit")
def _(p, ctx):
    return sharded_step(p, ctx, {"w1": P(), "w2": P()}, P("d"))


@scenario.variant("tensor-parallel-jax.jit")
def _(p, ctx):
    return sharded_step(p, ctx, {"w1": P(None, "d"), "w2": P("d", None)}, P())


@scenario.variant("replicated-jax.jit")
def _(p, ctx):
    return sharded_step(p, ctx, {"w1": P(), "w2": P()}, P())


@scenario.variant("data-parallel-shard_map")
def _(p, ctx):
    m = run_mesh(p)

    def local_step(params, x, y):  # each device: its rows, then the mean of everyone's gradients
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        grads, loss = jax.lax.pmean((grads, loss), "d")
        return jax.tree.map(lambda w, g: w - p.lr * g, params, grads), loss

    step = jax.jit(
        jax.shard_map(local_step, mesh=m, in_specs=(P(), P("d"), P("d")), out_specs=(P(), P()), check_vma=False)
    )
    replicated, rows = NamedSharding(m, P()), NamedSharding(m, P("d"))
    params = jax.device_put(ctx.params, replicated)
    return Step(step, params, jax.device_put(ctx.x, rows), jax.device_put(ctx.y, rows), compare=compare)
