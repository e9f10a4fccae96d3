"""The scenario list, read off the UI thread, and what the main screen says about it. No Textual here.

The first time, the last known catalog comes at once (before the loader process has imported JAX),
then the loader's answer with the devices; each reload answers with a generation number, so that an
older reload arriving late is dropped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from tuiperf.common.errors import TuiperfError
from tuiperf.contract.catalog import Catalog
from tuiperf.contract.request import Runner
from tuiperf.results.model import DeviceInfo

if TYPE_CHECKING:
    from tuiperf.contract.environments import PythonEnv

FIRST_PAINT_WAIT_S = 2.0  # a cached list is refreshed once painted, or after this long at the latest

Devices = list[DeviceInfo]


class CatalogFeed:
    def __init__(
        self,
        runner: Runner,
        scenario_dirs: list[str],
        merge: Callable[[Catalog], Catalog],
        loaded: Callable[[Catalog, Devices | None, int], object],
        failed: Callable[[str, str], object],
        start_thread: Callable[[Callable[[], None]], object],
    ) -> None:
        """``merge`` adds the last good versions of broken files; ``loaded`` and ``failed`` carry the
        answer to the UI thread; ``start_thread`` runs a function off it."""
        self._runner, self._dirs, self._merge = runner, scenario_dirs, merge
        self._loaded, self._failed, self._start_thread = loaded, failed, start_thread
        self.requested = 0  # the newest reload's generation
        self.shown = 0  # the generation on screen
        self.have_devices = False
        self.first_list_painted = threading.Event()  # then the loader process may import JAX

    def reload(self) -> None:
        self.requested += 1
        generation = self.requested
        self._start_thread(lambda: self._load(generation))

    def is_current(self, generation: int, devices: Devices | None) -> bool:
        """On the UI thread, for each answer: False for an older reload that finished after a newer one."""
        if generation < self.shown:
            return False
        self.shown = generation
        self.have_devices = self.have_devices or devices is not None
        return True

    def _load(self, generation: int) -> None:
        runner = self._runner
        first = not self.have_devices
        try:
            if first:  # the first time, the last known list at once, before JAX starts up
                cached = runner.cached_catalog(self._dirs)
                if cached is not None:
                    self._loaded(self._merge(cached), None, generation)
                    self.first_list_painted.wait(FIRST_PAINT_WAIT_S)  # then refresh it, off the paint's CPU
            catalog = runner.catalog(self._dirs)
            devices = runner.devices() if first else None  # devices do not change while we run
        except TuiperfError as exc:
            self._failed(exc.title, str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - shown, never raised into the UI
            self._failed("Could not list scenarios", f"{type(exc).__name__}: {exc}")
            return
        # Reading sources and writing last-good copies is file I/O: here, not on the UI thread.
        self._loaded(self._merge(catalog), devices, generation)
        warm_up = getattr(runner, "warm_up", None)
        if devices is not None and warm_up is not None:
            # The spare measuring process imports JAX too: after the loader did, not beside it (two
            # imports at once took both CPUs of a 2-core machine and stalled the UI).
            warm_up()


def summary(catalog: Catalog, n_devices: int | None, failed: bool = False) -> str:
    """The header's subtitle: how many scenarios, broken files, last good versions and devices
    (``None``: not known yet, the loader process still importing JAX: never "0 devices"; ``failed``:
    the listing failed, as the error shown says)."""
    n, n_broken = len(catalog.scenarios), len(catalog.broken)
    kept = sum(1 for s in catalog.scenarios if s.last_good is not None)
    return (
        f"{n} scenario{'s' * (n != 1)}"
        + (f", {n_broken} broken" if n_broken else "")
        + (f", {kept} from a last good version" if kept else "")
        + (
            (" · devices not listed" if failed else " · listing devices…")
            if n_devices is None
            else f" · {n_devices} device{'s' * (n_devices != 1)}"
        )
    )


def not_launchable(catalog: Catalog, scenario: str) -> tuple[str, str]:
    """Why the launch's scenario cannot be selected: (title, message)."""
    broken = catalog.load_error(scenario)
    if broken is not None:
        return "Broken scenario", f"{broken} (e opens it in the editor)"
    known = ", ".join(s.id for s in catalog.scenarios)
    return "Unknown scenario", f"no scenario {scenario!r} (known: {known})"


def environments(read: Callable[[], list[PythonEnv]]) -> tuple[list[PythonEnv], str | None]:
    """In a thread: the registered Python environments (``read``: a file read), or ``current`` alone
    and why they cannot be read."""
    from tuiperf.contract.environments import current

    try:
        return read(), None
    except TuiperfError as exc:
        return [current()], str(exc)
    except Exception as exc:  # noqa: BLE001 - the picker then offers this Python alone, and says why
        return [current()], f"{type(exc).__name__}: {exc}"
