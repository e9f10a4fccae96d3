"""A GPU's libraries start with the first program that uses them (cuBLAS for a matrix product, cuDNN
for a convolution, their autotuners): on the first GPU check that was over a second, and it landed in
the compile time of whichever variant compiled first. A measuring process pays it once per device,
before any variant is compiled, so no variant's one-time stages carry it."""

from __future__ import annotations

from typing import Any

from tuiperf.measuring.env import device_id

_started: set[str] = set()


def needs_library_start(device: Any) -> bool:
    """True once per accelerator in this process; never for the CPU (its libraries start with JAX)."""
    return device.platform != "cpu" and device_id(device) not in _started


def start_libraries(device: Any) -> None:
    """Compile and run a matrix product and a convolution on ``device``."""
    import jax
    import jax.numpy as jnp

    _started.add(device_id(device))
    matrix = jax.device_put(jnp.ones((256, 256), jnp.float32), device)
    image = jax.device_put(jnp.ones((1, 4, 8, 8, 8), jnp.float32), device)
    kernel = jax.device_put(jnp.ones((4, 4, 3, 3, 3), jnp.float32), device)

    @jax.jit
    def program(matrix: Any, image: Any, kernel: Any) -> Any:
        return matrix @ matrix, jax.lax.conv_general_dilated(image, kernel, (1, 1, 1), "SAME")

    jax.block_until_ready(program(matrix, image, kernel))


def start_device_libraries(device: Any) -> None:
    """Start ``device``'s libraries if this process has not; a failure here is left to the variants
    (each reports its own)."""
    if needs_library_start(device):
        try:
            start_libraries(device)
        except Exception:  # noqa: BLE001 - a variant that needs the library fails with its own error
            pass
