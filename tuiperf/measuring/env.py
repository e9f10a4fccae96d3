"""Environment metadata recorded with every result, and JAX device discovery."""

from __future__ import annotations

import datetime as _dt
import importlib.metadata
import os
import platform
import sys
from typing import TYPE_CHECKING, Any

from tuiperf.common.devices import chosen_index
from tuiperf.common.errors import DeviceError
from tuiperf.contract.protocol import ALLOCATOR_VARIABLES
from tuiperf.results.model import DeviceInfo

if TYPE_CHECKING:
    from tuiperf.results.model import Environment

_PACKAGES = ("jax", "jaxlib", "equinox", "flax", "optax", "numpy", "tuiperf")


def package_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def dispatch_mode(device: Any = None) -> str:
    """The dispatch mode that applies to calls on ``device``: JAX's CPU setting for the CPU (or when no
    device is given); always "async" for an accelerator, whatever that setting says."""
    import jax

    if device is not None and device.platform != "cpu":
        return "async"
    return "async" if jax.config.read("jax_cpu_enable_async_dispatch") else "sync"


def allocator_settings() -> dict[str, str]:
    """The device allocator settings this process was started with (see processes.environment)."""
    return {name: os.environ[name] for name in ALLOCATOR_VARIABLES if name in os.environ}


def environment(device: Any, timer_resolution_ns: float | None) -> Environment:
    import jax

    from tuiperf.results.model import Environment

    return Environment(
        python=sys.version.split()[0],
        executable=sys.executable,
        packages={name: package_version(name) for name in _PACKAGES},
        platform=platform.platform(),
        cpu=cpu_model(),
        cpu_count=os.cpu_count(),
        device_kind=device.device_kind,
        backend=jax.default_backend(),
        dispatch=dispatch_mode(device),
        xla_flags=os.environ.get("XLA_FLAGS", ""),
        jax_platforms=os.environ.get("JAX_PLATFORMS", ""),
        allocator=allocator_settings(),
        timer="time.perf_counter_ns",
        timer_resolution_ns=timer_resolution_ns,
        date=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    )


def device_id(device: Any) -> str:
    return f"{device.platform}:{device.id}"


def all_devices() -> list[Any]:
    """Every device of every backend JAX can open, accelerators first, CPU last."""
    import jax

    found: list[Any] = []
    for backend in ("gpu", "tpu", "cpu"):
        try:
            found.extend(d for d in jax.devices(backend) if d not in found)
        except RuntimeError:  # that backend is not available here
            continue
    return found


def run_devices(device: Any) -> list[Any]:
    """The devices a run on ``device`` may use: it first, then its platform's others in order."""
    return [device, *(d for d in all_devices() if d.platform == device.platform and d != device)]


def describe_device(device: Any, index: int, count: int = 1) -> DeviceInfo:
    return DeviceInfo(device_id(device), device.platform, device.device_kind, index, count)


def list_devices() -> list[DeviceInfo]:
    return [describe_device(d, i) for i, d in enumerate(all_devices())]


def pick_device(choice: str | None) -> Any:
    """Resolve ``--device``: None (the first), an index, a platform (``gpu``) or an id (``cpu:1``)."""
    devices = all_devices()
    if choice is None or choice == "":
        return devices[0]
    index = chosen_index(choice, [(device_id(d), d.platform) for d in devices])
    if index is None:
        available = ", ".join(device_id(d) for d in devices)
        raise DeviceError(f"no device {choice!r} (available: {available})")
    return devices[index]
