"""One SGD training step of the same MLP in plain JAX, Flax Linen, Flax NNX and Equinox.

Every variant starts from the same weights and sees the same batches (a pool of four, used in turn),
so after the same number of steps all of them hold the same parameters; the equivalence guard
checks the loss and every weight after three steps. tuiperf carries each step's state into the next
call (``Step``), so donation works and the loss really goes down while it is being timed.
"""

import itertools
from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np

from tuiperf import Bool, Choice, Float, Int, Scenario, Skip, Step, eqx_filter_jit_level

scenario = Scenario(
    title="Training step: plain JAX, Linen, NNX, Equinox",
    question=(
        "What does one optimizer step of a small MLP cost in each library, and in each way of calling "
        "NNX? The most-filed overhead report is a training step: 'my NNX / Equinox step is slower than "
        "X'. Every variant computes the same update (same weights, same batches, optax SGD); the guard "
        "compares loss and weights after three steps. How to read it: plain-jax.jit is the floor; "
        "linen-jax.jit adds TrainState's pytree; nnx-nnx.jit (graph mode, in place) adds NNX's graph "
        "traversal of model and optimizer on every call; nnx-split-merge and nnx-graph=False show how "
        "much of that goes away; eqx-filter_jit adds argument partitioning, eqx-jax.jit removes it. "
        "The Breakdown tab splits a step the same way as a forward call; turn donate off to see it "
        "for every variant."
    ),
    params=dict(
        width=Int(64, min=1, max=16384, help="hidden features (input and output too)"),
        depth=Int(3, min=1, max=32, help="Linear layers (relu between them)"),
        batch=Int(32, min=1, max=1 << 16, help="rows per batch"),
        dtype=Choice("float32", choices=("float32", "bfloat16"), help="weights and data"),
        lr=Float(0.01, min=0.0, max=10.0, help="SGD learning rate"),
        donate=Bool(True, help="donate the state to the step (reuses its buffers)"),
    ),
    tolerance=lambda p: 1e-4 if p.dtype == "float32" else 3e-2,
)

POOL = 4  # batches used in turn: every call sees fresh data, none is generated while timing


@scenario.setup
def build(p):
    rng = np.random.default_rng(0)
    dtype = jnp.dtype(p.dtype)
    sizes = [p.width] * (p.depth + 1)
    # Kernels in (in, out) layout, scaled so the activations neither vanish nor explode.
    kernels = [jnp.asarray(rng.normal(0, 1 / np.sqrt(i), (i, o)), dtype) for i, o in itertools.pairwise(sizes)]
    biases = [jnp.zeros((o,), dtype) for o in sizes[1:]]
    target = rng.normal(0, 1 / np.sqrt(p.width), (p.width, p.width))
    batches = []
    for _ in range(POOL):
        x = rng.normal(0, 1, (p.batch, p.width))
        batches.append((jnp.asarray(x, dtype), jnp.asarray(x @ target, dtype)))  # a learnable task
    return SimpleNamespace(kernels=kernels, biases=biases, batches=batches)


def canonical(loss, kernels, biases):
    """What the guard compares, whatever each library's containers look like."""
    view = {"loss": loss}
    view.update({f"kernel{i}": k for i, k in enumerate(kernels)})
    view.update({f"bias{i}": b for i, b in enumerate(biases)})
    return view


def mlp(kernels, biases, x):
    for k, b in zip(kernels[:-1], biases[:-1]):
        x = jax.nn.relu(x @ k + b)
    return x @ kernels[-1] + biases[-1]


def sgd(p):
    import optax

    return optax.sgd(p.lr)


@scenario.variant("plain-jax.jit", reference=True)
def _(p, ctx):
    """A dict of arrays and optax, under `jax.jit`: the floor."""
    import optax

    params = {"kernels": list(ctx.kernels), "biases": list(ctx.biases)}
    opt = sgd(p)

    def step(state, x, y):
        params, opt_state = state
        loss, grads = jax.value_and_grad(lambda q: jnp.mean((mlp(q["kernels"], q["biases"], x) - y) ** 2))(params)
        updates, opt_state = opt.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), loss

    return Step(
        jax.jit(step, donate_argnums=0 if p.donate else ()),
        (params, opt.init(params)),
        pool=ctx.batches,
        compare=lambda state, loss: canonical(loss, state[0]["kernels"], state[0]["biases"]),
        params=lambda state: state[0],
    )


@scenario.variant("linen-jax.jit")
def _(p, ctx):
    """Linen `apply` and a `TrainState`, under `jax.jit`."""
    import flax.linen as nn
    from flax.training.train_state import TrainState

    class MLP(nn.Module):
        depth: int
        width: int

        @nn.compact
        def __call__(self, x):
            for i in range(self.depth):
                x = nn.Dense(self.width, name=f"layer{i}", param_dtype=x.dtype, dtype=x.dtype)(x)
                x = nn.relu(x) if i < self.depth - 1 else x
            return x

    model = MLP(p.depth, p.width)
    layer_params = zip(ctx.kernels, ctx.biases)
    params = {"params": {f"layer{i}": {"kernel": k, "bias": b} for i, (k, b) in enumerate(layer_params)}}
    state = TrainState.create(apply_fn=model.apply, params=params, tx=sgd(p))

    def step(state, x, y):
        def loss_fn(params):
            return jnp.mean((state.apply_fn(params, x) - y) ** 2)

        loss, grads = jax.value_and_grad(loss_fn)(state.params)
        return state.apply_gradients(grads=grads), loss

    def layers(state):
        return [state.params["params"][f"layer{i}"] for i in range(p.depth)]

    return Step(
        jax.jit(step, donate_argnums=0 if p.donate else ()),
        state,
        pool=ctx.batches,
        compare=lambda s, loss: canonical(loss, [q["kernel"] for q in layers(s)], [q["bias"] for q in layers(s)]),
        params=lambda s: s.params,
    )


def _nnx_model(ctx, lr):
    import optax
    from flax import nnx

    class MLP(nnx.Module):
        def __init__(self, kernels, biases):
            self.layers = nnx.List(
                [
                    nnx.Linear(
                        *k.shape,
                        param_dtype=k.dtype,
                        dtype=k.dtype,
                        rngs=nnx.Rngs(0),
                        kernel_init=lambda *_, k=k: k.copy(),  # copies: a donating step consumes them
                        bias_init=lambda *_, b=b: b.copy(),
                    )
                    for k, b in zip(kernels, biases)
                ]
            )

        def __call__(self, x):
            for layer in self.layers[:-1]:
                x = jax.nn.relu(layer(x))
            return self.layers[-1](x)

    model = MLP(ctx.kernels, ctx.biases)
    return model, nnx.Optimizer(model, optax.sgd(lr), wrt=nnx.Param)


def _nnx_train_step(model, optimizer, x, y):
    from flax import nnx

    loss, grads = nnx.value_and_grad(lambda m: jnp.mean((m(x) - y) ** 2))(model)
    optimizer.update(model, grads)
    return loss


def _nnx_view(model, loss):
    return canonical(loss, [layer.kernel[...] for layer in model.layers], [layer.bias[...] for layer in model.layers])


def _nnx_in_place(jitted, ctx, lr):
    """A Step that updates model and optimizer in place, as NNX's own examples do."""
    from flax import nnx

    return Step(
        jitted,
        _nnx_model(ctx, lr),
        pool=ctx.batches,
        inplace=True,
        compare=lambda state, loss: _nnx_view(state[0], loss),
        params=lambda state: nnx.state(state[0], nnx.Param),
    )


@scenario.variant("nnx-nnx.jit")
def _(p, ctx):
    """`nnx.jit` (graph mode), model and optimizer updated in place: the NNX docs' way."""
    from flax import nnx

    return _nnx_in_place(nnx.jit(_nnx_train_step, donate_argnums=(0, 1) if p.donate else None), ctx, p.lr)


@scenario.variant("nnx-graph=False")
def _(p, ctx):
    """`nnx.jit(graph=False)`: model and optimizer treated as plain pytrees, updated in place."""
    from flax import nnx

    try:
        jitted = nnx.jit(_nnx_train_step, graph=False, donate_argnums=(0, 1) if p.donate else None)
    except TypeError:
        raise Skip("this Flax's nnx.jit has no graph= argument") from None
    return _nnx_in_place(jitted, ctx, p.lr)


@scenario.variant("nnx-split-merge")
def _(p, ctx):
    """`nnx.split` once, `jax.jit` over the state, `nnx.merge` inside: no graph traversal per call."""
    from flax import nnx

    graphdef, state = nnx.split(_nnx_model(ctx, p.lr))

    def step(state, x, y):
        model, optimizer = nnx.merge(graphdef, state)
        loss = _nnx_train_step(model, optimizer, x, y)
        return nnx.state((model, optimizer)), loss

    return Step(
        jax.jit(step, donate_argnums=0 if p.donate else ()),
        state,
        pool=ctx.batches,
        compare=lambda s, loss: _nnx_view(nnx.merge(graphdef, s)[0], loss),
        params=lambda s: nnx.state(nnx.merge(graphdef, s)[0], nnx.Param),
    )


def _eqx_model(ctx):
    import equinox as eqx

    class MLP(eqx.Module):
        kernels: list
        biases: list

        def __call__(self, x):
            return mlp(self.kernels, self.biases, x)

    return eqx, MLP(list(ctx.kernels), list(ctx.biases))


def _eqx_step(opt):
    import equinox as eqx

    def step(state, x, y):
        model, opt_state = state
        loss, grads = eqx.filter_value_and_grad(lambda m: jnp.mean((m(x) - y) ** 2))(model)
        updates, opt_state = opt.update(grads, opt_state, eqx.filter(model, eqx.is_array))
        return (eqx.apply_updates(model, updates), opt_state), loss

    return step


def _eqx_view(state, loss):
    return canonical(loss, state[0].kernels, state[0].biases)


@scenario.variant("eqx-filter_jit")
def _(p, ctx):
    """`eqx.filter_jit`: the Equinox docs' way (argument partitioning on every call)."""
    eqx, model = _eqx_model(ctx)
    opt = sgd(p)
    state = (model, opt.init(eqx.filter(model, eqx.is_array)))
    # filter_jit donates all arguments or all but the first: the state alone cannot be donated.
    step = eqx.filter_jit(_eqx_step(opt))
    jit_fn, jit_args = eqx_filter_jit_level(step, state, *ctx.batches[0])
    note = "filter_jit cannot donate the state alone (only all arguments, or all but the first)" if p.donate else ""
    return Step(
        step,
        state,
        pool=ctx.batches,
        compare=_eqx_view,
        params=lambda s: s[0],
        jit_fn=jit_fn,
        jit_args=jit_args,
        note=note,
    )


@scenario.variant("eqx-jax.jit")
def _(p, ctx):
    """Equinox model split into arrays and the rest once; `jax.jit` over the arrays."""
    eqx, model = _eqx_model(ctx)
    opt = sgd(p)
    arrays, static = eqx.partition(model, eqx.is_array)
    step = _eqx_step(opt)

    def array_step(state, x, y):
        (model, opt_state), loss = step((eqx.combine(state[0], static), state[1]), x, y)
        return (eqx.filter(model, eqx.is_array), opt_state), loss

    return Step(
        jax.jit(array_step, donate_argnums=0 if p.donate else ()),
        (arrays, opt.init(arrays)),
        pool=ctx.batches,
        compare=_eqx_view,
        params=lambda s: s[0],
    )
