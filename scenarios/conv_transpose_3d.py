"""A 3-D transposed convolution in Equinox, Flax Linen, Flax NNX and plain `lax.conv_transpose`,
with identical weights, so the outputs agree exactly when the layers are configured alike.

The trap this scenario exists for: Flax's `kernel_size=3` (an int) on a 3-D input silently builds a
1-D convolution. Set flax_kernel_size=int and let the equivalence guard catch it.
"""

from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np

from tuiperf import Bench, Choice, Int, Scenario

scenario = Scenario(
    title="ConvTranspose 3-D: Equinox vs Flax vs lax",
    question=(
        "Is Flax's 3-D transposed convolution really faster than Equinox's? The original report (seed 001; "
        "older Equinox/Flax, GPU) ran input (4,4,256,256,256), 4->4 channels, kernel 3, padding 1, Equinox "
        "vmapped over the batch: Equinox 138 ms vs Flax 31 ms. The NCDHW vs NDHWC layout was suspected "
        "(hand-transposing and calling lax.conv_transpose gave 147 ms); the real cause was Flax's "
        "`kernel_size=3`, an int, which makes a 1-D convolution over the last spatial axis. How to read "
        "it: with flax_kernel_size=tuple all four variants compute the same numbers and the times should "
        "be close; with int the equivalence guard should report different values, FLOPs and parameter "
        "counts for the Flax variants — a faster time that is not a fair comparison. flax_layout picks the "
        "layout the data is kept in, so that every variant returns the same array: channels-last is "
        "Flax's own (Equinox then transposes in and out), channels-first is Equinox's (Flax transposes). "
        "lax.conv_transpose takes either layout natively."
    ),
    params=dict(
        size=Int(16, min=1, max=256, help="side of the input cube (D = H = W)"),
        batch=Int(2, min=1, max=64, help="inputs per call (Equinox vmaps over them)"),
        c_in=Int(4, min=1, max=1024, help="input channels"),
        c_out=Int(4, min=1, max=1024, help="output channels"),
        kernel=Int(3, min=1, max=15, help="kernel side"),
        padding=Int(1, min=0, max=14, help="Equinox padding (of the equivalent forward conv); at most kernel-1"),
        stride=Int(1, min=1, max=8, help="stride"),
        flax_kernel_size=Choice(
            "tuple", choices=("tuple", "int"), help="tuple: kernel_size=(k, k, k); int: kernel_size=k, Flax's 1-D trap"
        ),
        flax_layout=Choice(
            "channels-last",
            choices=("channels-last", "channels-first"),
            help="data layout: channels-last (NDHWC, Flax-native; Equinox transposes) or "
            "channels-first (NCDHW, Equinox-native; Flax transposes in and out)",
        ),
    ),
)

TO_LAST = (0, 2, 3, 4, 1)  # NCDHW -> NDHWC
TO_FIRST = (0, 4, 1, 2, 3)  # NDHWC -> NCDHW


@scenario.check
def padding_fits_kernel(p):
    if p.padding > p.kernel - 1:
        raise ValueError(f"padding: {p.padding} must be at most kernel-1 = {p.kernel - 1}")


@scenario.setup
def build(p):
    rng = np.random.default_rng(0)
    k = p.kernel
    bound = 1 / np.sqrt(p.c_in * k**3)
    weight = jnp.asarray(rng.uniform(-bound, bound, (p.c_out, p.c_in, k, k, k)), jnp.float32)  # OIDHW
    bias = jnp.asarray(rng.uniform(-bound, bound, p.c_out), jnp.float32)
    x = jnp.asarray(rng.standard_normal((p.batch, p.c_in, p.size, p.size, p.size)), jnp.float32)  # NCDHW
    channels_last = p.flax_layout == "channels-last"
    return SimpleNamespace(
        weight=weight,
        bias=bias,
        channels_last=channels_last,
        x=jnp.transpose(x, TO_LAST) if channels_last else x,  # the data, in the chosen layout
        # Flax's explicit padding is that of the transposed conv: k-1-p on both sides (dilation 1,
        # no output padding), so the same user-facing padding agrees with Equinox only at stride 1.
        flax_padding=k - 1 - p.padding,
        flax_kernel_size=(k, k, k) if p.flax_kernel_size == "tuple" else k,
    )


def flax_kernel(ctx, shape):
    """Equinox's weight OIDHW -> DHWIO when the Flax layer asks for a 3-D kernel; otherwise (the int
    trap) a deterministic kernel of the shape it asked for, since Equinox's cannot fit."""
    kernel = jnp.transpose(ctx.weight, (2, 3, 4, 1, 0))
    if tuple(shape) == kernel.shape:
        return kernel
    bound = 1 / np.sqrt(np.prod(shape[:-1]))
    return jnp.asarray(np.random.default_rng(1).uniform(-bound, bound, shape), jnp.float32)


def in_flax_layout(ctx, layer_call):
    """Wrap a channels-last layer call for data held in the chosen layout."""
    if ctx.channels_last:
        return layer_call
    return lambda x: jnp.transpose(layer_call(jnp.transpose(x, TO_LAST)), TO_FIRST)


@scenario.variant("eqx-vmap")
def _(p, ctx):
    """`eqx.nn.ConvTranspose3d` (unbatched, channels-first) vmapped over the batch."""
    import equinox as eqx

    conv = eqx.filter_eval_shape(
        eqx.nn.ConvTranspose3d, p.c_in, p.c_out, p.kernel, stride=p.stride, padding=p.padding, key=jax.random.key(0)
    )
    conv = eqx.tree_at(lambda c: (c.weight, c.bias), conv, (ctx.weight, ctx.bias.reshape(-1, 1, 1, 1)))

    def forward(conv, x):
        if ctx.channels_last:
            return jnp.transpose(jax.vmap(conv)(jnp.transpose(x, TO_FIRST)), TO_LAST)
        return jax.vmap(conv)(x)

    return Bench(jax.jit(forward), conv, ctx.x, params=conv)


@scenario.variant("linen")
def _(p, ctx):
    """`flax.linen.ConvTranspose` through `jax.jit(model.apply)`."""
    import flax.linen as nn

    model = nn.ConvTranspose(p.c_out, kernel_size=ctx.flax_kernel_size, strides=p.stride, padding=ctx.flax_padding)
    sample = jnp.zeros((1, p.size, p.size, p.size, p.c_in))
    shapes = jax.eval_shape(model.init, jax.random.key(0), sample)["params"]
    variables = {"params": {"kernel": flax_kernel(ctx, shapes["kernel"].shape), "bias": ctx.bias}}

    def forward(variables, x):
        return in_flax_layout(ctx, lambda x: model.apply(variables, x))(x)

    return Bench(jax.jit(forward), variables, ctx.x, params=variables)


@scenario.variant("nnx")
def _(p, ctx):
    """`flax.nnx.ConvTranspose`, split once and merged inside `jax.jit` (no nnx.jit overhead)."""
    from flax import nnx

    model = nnx.ConvTranspose(
        p.c_in,
        p.c_out,
        kernel_size=ctx.flax_kernel_size,
        strides=p.stride,
        padding=ctx.flax_padding,
        rngs=nnx.Rngs(0),
        kernel_init=lambda key, shape, dtype: flax_kernel(ctx, shape),
        bias_init=lambda key, shape, dtype: ctx.bias,
    )

    def forward(model, x):
        return in_flax_layout(ctx, model)(x)

    graphdef, state = nnx.split(model)  # split once; the jitted call merges (an NNX forward pass)
    jitted = jax.jit(lambda state, x: forward(nnx.merge(graphdef, state), x))
    return Bench(jitted, state, ctx.x, params=state)


@scenario.variant("lax.conv_transpose")
def _(p, ctx):
    """`jax.lax.conv_transpose` on the data's own layout: no layer library, no transposes."""
    if ctx.channels_last:
        kernel, dims = jnp.transpose(ctx.weight, (2, 3, 4, 1, 0)), ("NDHWC", "DHWIO", "NDHWC")
        bias = ctx.bias
    else:
        kernel, dims = ctx.weight, ("NCDHW", "OIDHW", "NCDHW")
        bias = ctx.bias.reshape(-1, 1, 1, 1)
    pad = [(ctx.flax_padding, ctx.flax_padding)] * 3

    def forward(kernel, bias, x):
        return jax.lax.conv_transpose(x, kernel, (p.stride,) * 3, pad, dimension_numbers=dims) + bias

    return Bench(jax.jit(forward), kernel, bias, ctx.x, params=(kernel, bias))
