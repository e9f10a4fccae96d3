"""Every run, remembered: an SQLite database of result documents with columns to list and filter by.

Where: ``--history PATH``, else ``$TUIPERF_HISTORY``, else ``history.sqlite`` in the platform's
per-user data folder; ``--no-history`` (or ``TUIPERF_HISTORY=off``) stores nothing.

Why these choices:

- WAL mode and a busy timeout: two tuiperf processes (the app and a CLI run) write at once and both
  succeed; a reader never blocks a writer. One run is one transaction, so a process killed during a
  write leaves the database as it was before that run (SQLite's journal guarantees it).
- The schema's version is ``PRAGMA user_version``; :data:`MIGRATIONS` brings an older database up
  to date in one transaction. A database from a newer tuiperf, or a file that is not a tuiperf
  history, is reported and never written to or replaced.
- The document is stored whole (msgspec JSON, the same bytes ``--json`` writes), so a stored run
  shows exactly as it was measured; the indexed columns only serve listing and filtering.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import re
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tuiperf.common.errors import TuiperfError
from tuiperf.common.files import user_path
from tuiperf.common.units import format_ns
from tuiperf.results.model import RunResult, Sweep
from tuiperf.results.resultfile import decode, encode

ENV_VAR = "TUIPERF_HISTORY"
OFF_VALUES = ("off", "none", "no", "0")
BUSY_TIMEOUT_MS = 10_000
READ_TIMEOUT_S = 2.0  # a reader waits this long only on a non-WAL file some other program locked
BUSY = "busy: another program holds a lock on the history; try again when it is done"
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?")


def _busy(exc: sqlite3.OperationalError) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


APPLICATION_ID = 0x74706672  # "tpfr": marks the file as a tuiperf history

MIGRATIONS: tuple[str, ...] = (
    # 1: runs with the columns the history lists and filters by, and the whole document.
    """
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        scenario TEXT NOT NULL,
        started_at TEXT NOT NULL,
        device TEXT NOT NULL,
        dispatch TEXT NOT NULL,
        params TEXT NOT NULL,
        jax_version TEXT NOT NULL,
        status TEXT NOT NULL,
        source_sha256 TEXT NOT NULL,
        document BLOB NOT NULL
    );
    CREATE INDEX runs_by_scenario ON runs (scenario, started_at);
    CREATE INDEX runs_by_date ON runs (started_at);
    """,
    # 2: per-variant medians, so a listing shows them without decoding every document.
    """
    CREATE TABLE medians (
        run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        variant TEXT NOT NULL,
        median_ns REAL,
        PRIMARY KEY (run_id, variant)
    );
    """,
    # 3: a sweep's parameter and each point's medians (a sweep has no variants of its own: listed
    # without these, it read as one point).
    """
    ALTER TABLE runs ADD COLUMN sweep TEXT NOT NULL DEFAULT '';
    CREATE TABLE point_medians (
        run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        point INTEGER NOT NULL,
        value TEXT NOT NULL,
        variant TEXT NOT NULL,
        median_ns REAL,
        PRIMARY KEY (run_id, point, variant)
    );
    """,
    # 4: compile time (``--measure compile``): each variant's total compile (trace + lower + compile,
    # repeated) median and 95 % interval, in ms; ``point`` -1 for a single run, else the sweep point's
    # index. Runs stored before are filled in from their documents (:func:`_fill_compile`).
    """
    CREATE TABLE compile_medians (
        run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        point INTEGER NOT NULL,
        variant TEXT NOT NULL,
        median_ms REAL NOT NULL,
        low_ms REAL NOT NULL,
        high_ms REAL NOT NULL,
        PRIMARY KEY (run_id, point, variant)
    );
    """,
)
OLDEST_READABLE = 2  # a read-only listing of a version-2 history shows its sweeps without their points
SCHEMA_VERSION = len(MIGRATIONS)


class HistoryError(TuiperfError):
    title = "History unavailable"


@dataclass(frozen=True)
class CompileFigure:
    """A variant's compile time in one run (``--measure compile``): trace + lower + compile, repeated with
    JAX's caches cleared; the repeats' median and its 95 % interval, in milliseconds."""

    median_ms: float
    low_ms: float
    high_ms: float

    def text(self) -> str:
        """``28.8 ms [28.1 ms–29.5 ms]``."""
        return f"{format_ns(self.median_ms * 1e6)} [{format_ns(self.low_ms * 1e6)}–{format_ns(self.high_ms * 1e6)}]"


COMPILE_WORDS = "compile time: trace + lower + compile, median of repeats [95 % CI]"


@dataclass(frozen=True)
class StoredRun:
    """One row of the history listing (the document itself is read with :meth:`History.get`)."""

    id: int
    scenario: str
    started_at: str
    device: str
    dispatch: str
    params: str
    jax_version: str
    status: str
    medians: dict[str, float | None]
    sweep: str = ""  # the swept parameter ("" for a single run); a grid's two as "n_args × size"
    # A sweep's points in order: (value, {variant: median}) (a grid's value: its cell, "n_args=4, size=64");
    # a single run's are in ``medians``.
    points: list[tuple[str, dict[str, float | None]]] = field(default_factory=list)
    # ``--measure compile``: each variant's compile time (a single run), and at each point (a sweep, in the
    # order of ``points``); empty for a run that measured calls only.
    compile_ms: dict[str, CompileFigure] = field(default_factory=dict)
    compile_points: list[dict[str, CompileFigure]] = field(default_factory=list)

    @property
    def measured_compile(self) -> bool:
        return bool(self.compile_ms) or any(self.compile_points)

    def compile_texts(self, between: str) -> list[str]:
        """The listings' compile times: a single run's ``a 28.8 ms [28.1 ms–29.5 ms]`` per variant; a sweep's
        ``n=4: a 28.8 ms<between>b 31.0 ms`` per point (medians; "—" where none was repeated)."""
        if self.sweep:
            lines = []
            for (value, _), got in zip(self.points, self.compile_points, strict=False):
                said = between.join(f"{name} {format_ns(figure.median_ms * 1e6)}" for name, figure in got.items())
                lines.append(f"{self.point_label(value)}: {said or '—'}")
            return lines
        return [f"{name} {figure.text()}" for name, figure in self.compile_ms.items()]

    @property
    def is_grid(self) -> bool:
        return GRID_JOIN in self.sweep

    def point_label(self, value: str) -> str:
        """``n_args=4``, or a grid cell's ``n_args=4, size=64`` (stored as such)."""
        return value if self.is_grid else f"{self.sweep}={value}"

    def median_texts(self, between: str) -> list[str]:
        """The listings' medians: a single run's ``a 1.00 µs`` per variant; a sweep's ``n_args=4: a 1.00 µs``
        ``<between>b 2.00 µs`` per point ("—" where none was measured). Not made inert: the caller's job."""

        def measured(medians: dict[str, float | None]) -> list[str]:
            return [f"{name} {format_ns(median)}" for name, median in medians.items() if median is not None]

        if self.sweep:
            return [f"{self.point_label(value)}: {between.join(measured(m)) or '—'}" for value, m in self.points]
        return measured(self.medians)

    @property
    def shape(self) -> str:
        """``sweep over n_args (3 points)``, ``grid over n_args × size (6 cells)``; "" for a single run."""
        if not self.sweep:
            return ""
        n = len(self.points)
        if self.is_grid:
            return f"grid over {self.sweep} ({n} cell{'s' * (n != 1)})"
        return f"sweep over {self.sweep} ({n} point{'s' * (n != 1)})"

    @property
    def label(self) -> str:
        """How the run reads in a list: its parameters, a sweep's values named as such."""
        if not self.sweep:
            return self.params
        if self.is_grid:
            return f"{self.shape} {self.params}".strip()
        values = ",".join(value for value, _ in self.points)
        return f"sweep over {self.sweep} ({len(self.points)} points: {values}) {self.params}".strip()


GRID_JOIN = " × "  # between a grid's two parameters in the ``sweep`` column (names are identifiers)


def swept_text(result: RunResult) -> str:
    """The ``sweep`` column: the swept parameter, a grid's two joined by :data:`GRID_JOIN`."""
    return GRID_JOIN.join(result.sweep.parameters) if result.sweep is not None else ""


def point_values(result: RunResult) -> list[str]:
    """The ``value`` column of each point: the swept value, a grid cell's label."""
    sweep = result.sweep
    if sweep is None:
        return []
    if sweep.grid:
        return [sweep.label(i) for i in range(len(sweep.values))]
    return [str(v) for v in sweep.values]


def compile_rows(result: RunResult) -> list[tuple[int, str, float, float, float]]:
    """The ``compile_medians`` rows of ``result``: (point, variant, median, low, high), point -1 for a single
    run; only the variants whose compile was repeated (``--measure compile``)."""
    runs = list(enumerate(result.points)) if result.sweep is not None else [(-1, result)]
    return [
        (index, v.name, total.median_ms, *total.ci95_ms)
        for index, run in runs
        for v in run.variants
        if v.ok and (total := v.stages.total) is not None
    ]


def default_path() -> Path | None:
    """Where the history lives by default; None when it is turned off."""
    chosen = os.environ.get(ENV_VAR, "").strip()
    if chosen.lower() in OFF_VALUES:
        return None
    if chosen:
        return user_path(chosen)
    from tuiperf.common.files import user_data_dir

    return user_data_dir() / "history.sqlite"


def status_of(result: RunResult) -> str:
    if result.crash is not None or result.error:
        return "crashed" if result.crash is not None else "failed"
    return "partial" if result.partial else "complete"


def params_text(result: RunResult) -> str:
    """The run's parameters; for a sweep, those it held fixed (the swept one is in its own column)."""
    swept = result.sweep.parameters if result.sweep is not None else []
    return " ".join(f"{k}={v}" for k, v in result.params.items() if k not in swept)


def parse_date(text: str, option: str) -> str:
    """An ISO date or date-time (``2026-11-01``, ``2026-11-01T12:00``, with or without a UTC offset;
    no offset: UTC) as the stored ``started_at`` text it compares with; anything else is an error
    (``now``, ``yesterday`` or ``2026/11/20`` compared as text would select every run)."""
    import datetime as dt

    try:
        when = dt.datetime.fromisoformat(text.strip()) if _ISO_DATE.fullmatch(text.strip()) else None
    except ValueError:
        when = None
    if when is None:
        raise HistoryError(f"{option} wants a date like 2026-11-01 or 2026-11-01T12:00 (UTC), got {text!r}")
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when.astimezone(dt.UTC).isoformat(timespec="seconds")


class History:
    """An open history database. Use as a context manager, or call :meth:`close`.

    ``readonly=True`` (listing, showing, comparing, exporting) opens it with SQLite's ``mode=ro``
    (``immutable=1`` where even that needs a write, on a read-only mount): no lock is taken, nothing
    is written, a writer is not waited for; a history that does not exist yet reads as empty.
    """

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._version = SCHEMA_VERSION  # a read-only one may be older (see OLDEST_READABLE)
        try:
            if readonly:
                self._db = self._open_readonly()
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            existed = self.path.exists() and self.path.stat().st_size > 0
            self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
            self._db.execute("PRAGMA foreign_keys = ON")
            self._check(existed)
            if not self._current():
                self._db.execute("PRAGMA journal_mode = WAL")
                self._migrate()
        except sqlite3.OperationalError as exc:
            if _busy(exc):
                raise HistoryError(BUSY, where=str(path)) from None
            raise HistoryError(f"cannot open the history ({exc}); it was left untouched", where=str(path)) from None
        except sqlite3.DatabaseError as exc:
            raise HistoryError(
                f"not a readable tuiperf history ({exc}); it was left untouched", where=str(path)
            ) from None
        except OSError as exc:
            raise HistoryError(f"cannot open the history: {exc.strerror or exc}", where=str(path)) from None

    def _open_readonly(self) -> sqlite3.Connection:
        from urllib.parse import quote

        if not self.path.exists():
            return _empty_history()
        uri = "file:" + quote(str(self.path.resolve()))
        for options in ("?mode=ro", "?mode=ro&immutable=1"):
            db = sqlite3.connect(uri + options, uri=True, timeout=READ_TIMEOUT_S, isolation_level=None)
            try:
                if _being_made(db):  # another tuiperf is creating it this moment (or it is an empty file)
                    db.close()
                    return _empty_history()
                self._check_readonly(db)
                return db
            except sqlite3.OperationalError as exc:
                db.close()
                if _busy(exc) or options.endswith("immutable=1"):
                    raise
                # a WAL history on a read-only mount: mode=ro needs its -shm file; immutable does not
        raise AssertionError("unreachable")

    def _check_readonly(self, db: sqlite3.Connection) -> None:
        (app_id,) = db.execute("PRAGMA application_id").fetchone()
        (version,) = db.execute("PRAGMA user_version").fetchone()
        if app_id != APPLICATION_ID:
            raise HistoryError("this file is not a tuiperf history; it was left untouched", where=str(self.path))
        self._version = version
        if not OLDEST_READABLE <= version <= SCHEMA_VERSION:
            newer = version > SCHEMA_VERSION
            raise HistoryError(
                f"made by {'a newer' if newer else 'an older'} tuiperf (schema {version}, this one reads "
                f"{SCHEMA_VERSION}): {'upgrade tuiperf' if newer else 'store a run in it once to upgrade it'}",
                where=str(self.path),
            )

    def _current(self) -> bool:
        """Whether the file is already an up-to-date tuiperf history (then opening it writes nothing)."""
        (app_id,) = self._db.execute("PRAGMA application_id").fetchone()
        (version,) = self._db.execute("PRAGMA user_version").fetchone()
        (mode,) = self._db.execute("PRAGMA journal_mode").fetchone()
        return bool(app_id == APPLICATION_ID and version == SCHEMA_VERSION and str(mode).lower() == "wal")

    def _check(self, existed: bool) -> None:
        """Refuse a file that is not ours or is newer than this tuiperf, before writing anything."""
        (app_id,) = self._db.execute("PRAGMA application_id").fetchone()
        (version,) = self._db.execute("PRAGMA user_version").fetchone()
        if existed and app_id != APPLICATION_ID and not _being_made(self._db):  # (made by another writer now)
            raise HistoryError("this file is not a tuiperf history; it was left untouched", where=str(self.path))
        if version > SCHEMA_VERSION:
            raise HistoryError(
                f"made by a newer tuiperf (schema {version}, this one reads up to {SCHEMA_VERSION}); "
                "it was left untouched: upgrade tuiperf or pass --history OTHER_FILE",
                where=str(self.path),
            )

    def _migrate(self) -> None:
        with self._transaction() as db:
            (version,) = db.execute("PRAGMA user_version").fetchone()
            for step in MIGRATIONS[version:]:
                for statement in step.split(";"):
                    if statement.strip():
                        db.execute(statement)
            if version < 4:
                _fill_compile(db)
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        if self.readonly:
            raise HistoryError("opened for reading only", where=str(self.path))
        try:
            self._db.execute("BEGIN IMMEDIATE")  # take the write lock now: concurrent writers wait, then go
        except sqlite3.OperationalError as exc:
            raise HistoryError(BUSY if _busy(exc) else f"cannot write: {exc}", where=str(self.path)) from None
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def add(self, result: RunResult) -> int:
        """Store ``result``; returns its run id."""
        env = result.env
        jax_version = (env.packages.get("jax") or "") if env is not None else ""
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO runs (scenario, started_at, device, dispatch, params, jax_version, status,"
                " source_sha256, document, sweep) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    result.scenario.id,
                    result.started_at,
                    result.device.id,
                    result.options.dispatch,
                    params_text(result),
                    jax_version,
                    status_of(result),
                    result.scenario.source_sha256 or "",
                    encode(result),
                    swept_text(result),
                ),
            )
            run_id = int(cursor.lastrowid or 0)
            db.executemany(
                "INSERT INTO medians (run_id, variant, median_ns) VALUES (?, ?, ?)",
                [(run_id, v.name, v.sampling.stats.median_ns if v.sampling.stats else None) for v in result.variants],
            )
            if result.sweep is not None:
                db.executemany(
                    "INSERT INTO point_medians (run_id, point, value, variant, median_ns) VALUES (?, ?, ?, ?, ?)",
                    [
                        (run_id, index, value, name, medians[index] if index < len(medians) else None)
                        for index, value in enumerate(point_values(result))
                        for name, medians in result.sweep.medians_ns.items()
                    ],
                )
            _insert_compile(db, run_id, result)
        return run_id

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        """A damaged page found while reading (SQLite checks pages as it reads them) is one error line."""
        try:
            yield
        except sqlite3.OperationalError as exc:
            if _busy(exc):
                raise HistoryError(BUSY, where=str(self.path)) from None
            why = f"cannot read the history ({exc})"
        except sqlite3.DatabaseError as exc:
            why = f"the history is damaged ({exc})"
        else:
            return
        raise HistoryError(f"{why}; it was left untouched", where=str(self.path))

    def get(self, run_id: int) -> RunResult:
        if not 0 <= run_id < 2**63:  # SQLite's integers: a larger id raised OverflowError
            raise HistoryError(f"no run {run_id} in the history", where=str(self.path))
        with self._reading():
            row = self._db.execute("SELECT document FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise HistoryError(f"no run {run_id} in the history", where=str(self.path))
        return decode(row[0], where=f"{self.path} run {run_id}")

    def _where(
        self, scenario: str | None, since: str | None, matching: str | None = None, measure: str | None = None
    ) -> tuple[str, builtins.list[Any]]:
        where: builtins.list[str] = []
        values: builtins.list[Any] = []
        if measure == "compile":  # the runs that measured compile time (an older history: by their documents)
            if self._version >= 4:
                where.append("id IN (SELECT run_id FROM compile_medians)")
            else:
                where.append("instr(document, ?) > 0")
                values.append(_REPEATED)
        if scenario:
            where.append("scenario = ?")
            values.append(scenario)
        if matching:  # instr, not LIKE: the text's own % and _ are plain characters
            where.append("instr(lower(scenario), lower(?)) > 0")
            values.append(matching)
        if since is not None:
            where.append("started_at >= ?")
            values.append(parse_date(since, "--since"))
        return (" WHERE " + " AND ".join(where) if where else ""), values

    def count(self, scenario: str | None = None, since: str | None = None, measure: str | None = None) -> int:
        """How many runs :meth:`list` would give without a limit."""
        where, values = self._where(scenario, since, measure=measure)
        with self._reading():
            (total,) = self._db.execute("SELECT count(*) FROM runs" + where, values).fetchone()
        return int(total)

    def list(
        self,
        scenario: str | None = None,
        since: str | None = None,
        limit: int | None = None,
        matching: str | None = None,
        measure: str | None = None,
    ) -> list[StoredRun]:
        """Newest first; ``since`` is an ISO date (``2026-11-01``) or date-time; ``matching``: the runs
        whose scenario id holds that text, in any case (the app's filter, narrowing as it is typed);
        ``measure`` "compile": only the runs that measured compile time (``--measure compile``)."""
        where, values = self._where(scenario, since, matching, measure)
        sweep = "sweep" if self._version >= 3 else "''"
        sql = f"SELECT id, scenario, started_at, device, dispatch, params, jax_version, status, {sweep} FROM runs"
        sql += where + " ORDER BY started_at DESC, id DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        with self._reading():
            rows = self._db.execute(sql, values).fetchall()
            medians: dict[int, dict[str, float | None]] = {row[0]: {} for row in rows}
            if rows:
                marks = ",".join("?" * len(rows))
                for run_id, variant, median in self._db.execute(
                    # in the run's order (as stored), as its compile times and a sweep's points are listed:
                    # without ORDER BY, SQLite walked the (run_id, variant) key, alphabetically
                    f"SELECT run_id, variant, median_ns FROM medians WHERE run_id IN ({marks}) ORDER BY run_id, rowid",
                    [r[0] for r in rows],
                ):
                    medians[run_id][variant] = median
            points = self._points([row[0] for row in rows if row[8]])
            compiled = self._compile([row[0] for row in rows])
        return [
            StoredRun(
                id=row[0],
                scenario=row[1],
                started_at=row[2],
                device=row[3],
                dispatch=row[4],
                params=row[5],
                jax_version=row[6],
                status=row[7],
                medians=medians[row[0]],
                sweep=row[8],
                points=points.get(row[0], []),
                **_compile_fields(compiled.get(row[0], {}), len(points.get(row[0], [])) if row[8] else None),
            )
            for row in rows
        ]

    def _compile(self, ids: builtins.list[int]) -> dict[int, dict[int, dict[str, CompileFigure]]]:
        """Each run's compile times by point (-1: a single run) and variant; from its document where the
        history, read only, is older than the table that holds them."""
        found: dict[int, dict[int, dict[str, CompileFigure]]] = {}
        if not ids:
            return found
        if self._version >= 4:
            marks = ",".join("?" * len(ids))
            rows: Iterable[tuple[int, int, str, float, float, float]] = self._db.execute(
                "SELECT run_id, point, variant, median_ms, low_ms, high_ms FROM compile_medians"
                f" WHERE run_id IN ({marks}) ORDER BY run_id, point, rowid",
                ids,
            ).fetchall()
        else:
            rows = [(run_id, *row) for run_id, result in _with_compile(self._db, ids) for row in compile_rows(result)]
        for run_id, point, variant, median, low, high in rows:
            found.setdefault(run_id, {}).setdefault(point, {})[variant] = CompileFigure(median, low, high)
        return found

    def _points(self, ids: builtins.list[int]) -> dict[int, builtins.list[tuple[str, dict[str, float | None]]]]:
        """Each sweep's points in order: (value, {variant: median})."""
        found: dict[int, dict[int, tuple[str, dict[str, float | None]]]] = {}
        if ids:
            marks = ",".join("?" * len(ids))
            for run_id, point, value, variant, median in self._db.execute(
                "SELECT run_id, point, value, variant, median_ns FROM point_medians"
                f" WHERE run_id IN ({marks}) ORDER BY run_id, point, rowid",
                ids,
            ):
                found.setdefault(run_id, {}).setdefault(point, (value, {}))[1][variant] = median
        return {run_id: [by_point[i] for i in sorted(by_point)] for run_id, by_point in found.items()}

    def prunable(self, *, before: str | None = None, keep: int | None = None) -> builtins.list[int]:
        """The ids of the runs started before ``before`` (a strict ISO date, see :func:`parse_date`)
        and/or of all but the newest ``keep``: what a prune would delete."""
        ids: set[int] = set()
        if before is not None:
            cutoff = parse_date(before, "--prune-before")
            ids |= {row[0] for row in self._db.execute("SELECT id FROM runs WHERE started_at < ?", (cutoff,))}
        if keep is not None:
            if keep < 0:
                raise HistoryError(f"--keep wants a number of runs of 0 or more, got {keep}")
            ids |= {
                row[0]
                for row in self._db.execute(
                    "SELECT id FROM runs WHERE id NOT IN"
                    " (SELECT id FROM runs ORDER BY started_at DESC, id DESC LIMIT ?)",
                    (keep,),
                )
            }
        return sorted(ids)

    def delete(self, ids: Iterable[int]) -> int:
        """Delete these runs in one transaction; how many went."""
        with self._transaction() as db:
            return sum(db.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount for run_id in ids)

    def prune(self, *, before: str | None = None, keep: int | None = None) -> int:
        """Delete runs started before ``before`` and/or all but the newest ``keep``; how many went."""
        return self.delete(self.prunable(before=before, keep=keep))

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def record(result: RunResult, path: Path | None) -> int | None:
    """Store ``result`` in the history at ``path`` (None: history off); the run id, or None."""
    if path is None:
        return None
    with History(path) as history:
        return history.add(result)


def _environments(run: StoredRun) -> list[str]:
    """The Python environments of a run over several (its variants are named ``variant @ env``)."""
    return list(dict.fromkeys(name.rpartition(" @ ")[2] for name in run.medians if " @ " in name))


def _setting(run: StoredRun) -> tuple[str, ...]:
    """What must match for two runs' medians to share a line: parameters, sweep, device, dispatch and
    environments (a median moves with any of them)."""
    return (run.params, run.sweep, run.device, run.dispatch, *_environments(run))


def comparable(runs: list[StoredRun], like: StoredRun) -> list[StoredRun]:
    """The runs of ``like``'s scenario measured the way it was (see :func:`_setting`)."""
    return [run for run in runs if run.scenario == like.scenario and _setting(run) == _setting(like)]


def trend(runs: list[StoredRun], like: StoredRun | None = None) -> Sweep:
    """The same variants across stored runs of one scenario, oldest first, as a sweep to plot
    (each point labelled with its run id and jax version: where a JAX upgrade moved a median; a run
    over several environments by their number, its lines being one per environment). With ``like``,
    only the runs measured as it was: the same parameters, device, dispatch and environments. The runs
    measured with ``--measure compile`` give their compile times too, as the sweep's ``compile_ms``: a
    series apart from the medians per call (a compile run's medians per call are per-call times)."""
    ordered = sorted(comparable(runs, like) if like is not None else runs, key=lambda run: (run.started_at, run.id))
    names: list[str] = []
    for run in ordered:
        names += [name for name in run.medians if name not in names]

    def label(run: StoredRun) -> str:
        several = _environments(run)
        return f"#{run.id} {len(several)} environments" if several else f"#{run.id} jax {run.jax_version or '?'}"

    compiled = [name for name in names if any(name in run.compile_ms for run in ordered)]
    return Sweep(
        parameter="stored run",
        values=[label(run) for run in ordered],
        medians_ns={name: [run.medians.get(name) for run in ordered] for name in names},
        slopes={name: None for name in names},
        # a series of its own (m plots it): a compile time is never a point of a per-call line
        compile_ms={name: [_compile_median(run, name) for run in ordered] for name in compiled},
    )


def _compile_median(run: StoredRun, name: str) -> float | None:
    figure = run.compile_ms.get(name)
    return figure.median_ms if figure is not None else None


def _compile_fields(by_point: dict[int, dict[str, CompileFigure]], points: int | None) -> dict[str, Any]:
    """A stored run's ``compile_ms`` (a single run: ``points`` None) or ``compile_points``."""
    if points is None:
        return {"compile_ms": by_point.get(-1, {})}
    return {"compile_points": [by_point.get(i, {}) for i in range(points)] if by_point else []}


def _insert_compile(db: sqlite3.Connection, run_id: int, result: RunResult) -> None:
    db.executemany(
        "INSERT INTO compile_medians (run_id, point, variant, median_ms, low_ms, high_ms) VALUES (?, ?, ?, ?, ?, ?)",
        [(run_id, *row) for row in compile_rows(result)],
    )


# What a document with a repeated compile holds (``"repeated":{}`` is a variant without one): the runs a
# history older than ``compile_medians`` has to read compile figures from.
_REPEATED = b'"repeated":{"'


def _with_compile(db: sqlite3.Connection, ids: builtins.list[int] | None = None) -> Iterator[tuple[int, RunResult]]:
    """The runs (of ``ids``; None: all) whose documents hold a repeated compile, decoded."""
    sql = "SELECT id, document FROM runs WHERE instr(document, ?) > 0"
    values: builtins.list[Any] = [_REPEATED]
    if ids is not None:
        sql += f" AND id IN ({','.join('?' * len(ids))})"
        values += ids
    for run_id, document in db.execute(sql, values).fetchall():
        try:
            yield run_id, decode(document, where=f"run {run_id}")
        except TuiperfError:
            continue  # (a document this tuiperf cannot read shows its other columns still)


def _fill_compile(db: sqlite3.Connection) -> None:
    """Migration 4's data: the compile times of the runs stored before it (decoding only their documents)."""
    for run_id, result in builtins.list(_with_compile(db)):
        _insert_compile(db, run_id, result)


def _empty_history() -> sqlite3.Connection:
    """An empty history in memory: what a reader sees of a history that does not exist yet."""
    empty = sqlite3.connect(":memory:", isolation_level=None)
    for step in MIGRATIONS:
        empty.executescript(step)
    return empty


def _being_made(db: sqlite3.Connection) -> bool:
    """No tables and no tuiperf marks: a file another tuiperf has just created and not yet given its
    schema (a reader polling it then said "not a tuiperf history"), or an empty file."""
    (app_id,) = db.execute("PRAGMA application_id").fetchone()
    (version,) = db.execute("PRAGMA user_version").fetchone()
    (tables,) = db.execute("SELECT count(*) FROM sqlite_master").fetchone()
    return bool(app_id == 0 and version == 0 and tables == 0)
