"""Python environments (issue 28): probing an interpreter, `tuiperf env add | create | list | remove`,
and every bad input a clear one-line error. No downloads: the second environment with JAX is a venv
made without pip that sees this environment's packages through a .pth file; `env create`'s pip is
pointed at no index, or at a wheel made here."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from rich.cells import cell_len

from tuiperf.cli import main
from tuiperf.common.errors import PythonEnvError, TuiperfError
from tuiperf.processes import env_build, env_registry, python_envs
from tuiperf.processes.python_envs import MEASURING_PACKAGES, PROBED, PythonEnv


@pytest.fixture(autouse=True)
def homes(tmp_path, monkeypatch):
    """The user's data and cache folders, here (the registry and the import-path link)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "data" / "tuiperf"


def make_venv(folder: Path, sees: list[str]) -> Path:
    """A venv (no pip) whose site-packages adds the folders ``sees`` through a .pth file."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = folder / "lib" / version / "site-packages"
    (site / "sees.pth").write_text("".join(f"{path}\n" for path in sees))
    return folder / "bin" / "python"


CURRENT_SITE = [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]


@pytest.fixture(scope="module")
def second_python(tmp_path_factory):
    """Another interpreter with this environment's JAX, Flax, ... (a venv's bin/python: a link)."""
    return make_venv(tmp_path_factory.mktemp("second") / "venv", CURRENT_SITE)


@pytest.fixture(scope="module")
def python_without_jax(tmp_path_factory):
    return make_venv(tmp_path_factory.mktemp("bare") / "venv", [])


def stored(homes: Path) -> list[dict[str, object]]:
    path = homes / "environments.json"
    return json.loads(path.read_text()) if path.exists() else []


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.startswith("tuiperf: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


# --- probing -------------------------------------------------------------------------------------------


def test_probe_reports_the_other_interpreter_and_its_versions(second_python):
    found = python_envs.probe(str(second_python))
    assert found.ok and found.status == "ok" and found.measuring_import is None
    assert found.executable == str(second_python)  # its own sys.executable, the venv's link
    assert found.version == platform.python_version()
    assert found.versions == {name: metadata.version(name) for name in PROBED}


def test_probe_imports_no_jax(tmp_path):
    """A jax that cannot be imported: the probe still answers (it reads versions from metadata)."""
    poisoned = tmp_path / "poisoned"
    (poisoned / "jax").mkdir(parents=True)
    (poisoned / "jax" / "__init__.py").write_text("raise SystemExit('the probe imported jax')\n")
    python = make_venv(tmp_path / "venv", [str(poisoned), *CURRENT_SITE])
    found = python_envs.probe(str(python))
    assert found.ok, found.status
    assert found.versions["jax"] == metadata.version("jax")


def test_an_interpreter_without_jax_says_so(python_without_jax):
    found = python_envs.probe(str(python_without_jax))
    assert not found.ok and found.status == "no jax: install jax to measure here"
    assert all(found.versions[name] is None for name in PROBED)


@pytest.mark.parametrize(
    ("version", "versions", "measuring_import", "status"),
    [
        ((3, 10, 13), {}, None, "Python 3.10 is older than tuiperf needs (3.11)"),
        ((3, 11, 2), {"jax": "0.7.2"}, None, "no jaxlib: install jaxlib (jax needs it) to measure here"),
        (
            (3, 12, 1),
            {"jax": "0.7.2", "jaxlib": "0.7.2", "platformdirs": "4.0"},
            None,
            "missing msgspec, numpy: tuiperf's measuring side needs them (pip install msgspec numpy)",
        ),
        (
            (3, 12, 1),
            dict.fromkeys(PROBED, "1"),
            "ImportError: numpy too old",
            "tuiperf's measuring side does not import here: ImportError: numpy too old",
        ),
        ((3, 13, 0), dict.fromkeys(PROBED, "1"), None, "ok"),
    ],
)
def test_the_status_names_the_first_thing_missing(version, versions, measuring_import, status):
    assert python_envs.probe_status(version, versions, measuring_import) == status


def executable(path: Path, text: str, mode: int = 0o755) -> Path:
    path.write_text(text)
    path.chmod(mode)
    return path


BAD_PYTHONS = {
    "missing": (lambda tmp: tmp / "nope" / "python", "does not exist"),
    "folder": (lambda tmp: tmp, "is a folder, not a Python"),
    "text file": (lambda tmp: executable(tmp / "notes.txt", "hello\n", 0o644), "is not executable"),
    "executable text": (lambda tmp: executable(tmp / "script", "hello\n"), "cannot be run, not a Python"),
    "shell script": (lambda tmp: executable(tmp / "python", "#!/bin/sh\necho hi\n"), "is not a Python"),
    "sh": (lambda tmp: Path(shutil.which("sh") or "/bin/sh"), "is not a Python: it ran the probe as a shell script"),
    "true": (
        lambda tmp: Path(shutil.which("true") or "/bin/true"),
        "is not a Python: it did not run the probe (exit status 0, no output)",
    ),
    "dangling link": (
        lambda tmp: (tmp / "python").symlink_to(tmp / "removed") or tmp / "python",
        "which does not exist (a virtual environment whose Python was removed?)",
    ),
}


@pytest.mark.parametrize("case", BAD_PYTHONS)
def test_a_path_that_is_not_a_python_is_a_clear_error_and_registers_nothing(case, tmp_path, homes, capsys):
    make, message = BAD_PYTHONS[case]
    target = tmp_path / "target"
    target.mkdir()
    path = make(target)
    with pytest.raises(PythonEnvError) as caught:
        python_envs.probe(str(path))
    assert message in str(caught.value) and str(caught.value).startswith(str(path))
    assert main(["env", "add", "other", str(path)]) == 2
    assert message in one_line_error(capsys)
    assert stored(homes) == []


def test_a_folder_that_is_a_venv_points_at_its_python(second_python):
    with pytest.raises(PythonEnvError, match=f"did you mean {second_python}"):
        python_envs.probe(str(second_python.parent.parent))


def test_a_python_that_hangs_is_given_up_on(tmp_path):
    hanging = executable(tmp_path / "python", "#!/bin/sh\nsleep 600\n")  # sh waits on its child: both are ended
    with pytest.raises(PythonEnvError, match=r"did not answer within 0.5 s"):
        python_envs.probe(str(hanging), timeout_s=0.5)


@pytest.mark.parametrize("how", ["PYTHONPATH", "working folder"])
def test_this_environments_path_does_not_reach_the_probe(how, second_python, tmp_path, monkeypatch):
    shadow = tmp_path / "shadow" / "msgspec"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise SystemExit('a msgspec from the wrong place')\n")
    if how == "PYTHONPATH":
        monkeypatch.setenv("PYTHONPATH", str(shadow.parent))
    else:
        monkeypatch.chdir(shadow.parent)  # `python -c` puts its working folder first on sys.path
    assert python_envs.probe(str(second_python)).ok


# --- add, list, remove ------------------------------------------------------------------------------


@pytest.mark.slow
def test_add_list_remove(second_python, homes, capsys, monkeypatch):
    assert main(["env", "add", "other", str(second_python)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("added other\nother  Python ") and f"jax {metadata.version('jax')}" in out
    [entry] = stored(homes)
    assert entry["name"] == "other" and entry["python"] == str(second_python)  # the venv's link, not resolved
    assert second_python.is_symlink() and python_envs.lookup("other").python == str(second_python)

    monkeypatch.setenv("COLUMNS", "80")
    assert main(["env", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert all(cell_len(line) <= 80 and line == line.rstrip() for line in lines)  # a long path is wrapped
    assert main(["env", "list", "--width", "300"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"current  Python {platform.python_version()}  {sys.executable}")
    assert lines[3].startswith(f"other  Python {platform.python_version()}")
    versions = "  ".join(f"{name} {metadata.version(name)}" for name in python_envs.LIBRARIES)
    assert lines[1] == lines[4] == f"  {versions}"
    assert lines[2] == lines[5] == "  ok"

    assert main(["env", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [e["name"] for e in listed] == ["current", "other"] and all(e["ok"] for e in listed)
    assert listed[1]["probe"]["versions"]["flax"] == metadata.version("flax")

    assert main(["env", "remove", "other"]) == 0
    assert capsys.readouterr().out == "removed other\n"
    assert stored(homes) == [] and second_python.exists()  # only unregistered: not built by tuiperf


def test_an_environment_without_jax_is_refused(python_without_jax, homes, capsys):
    assert main(["env", "add", "bare", str(python_without_jax)]) == 2
    assert "cannot measure there: no jax: install jax to measure here" in one_line_error(capsys)
    assert stored(homes) == []


@pytest.mark.parametrize("name", ["", "current", "a/b", "..", ".hidden", "-x", "a b", "x" * 41, "é", "a\x1b[31m"])
def test_a_bad_name_is_refused_before_anything_runs(name, second_python, homes, capsys):
    with pytest.raises(PythonEnvError, match=r"is not a usable name|is the Python tuiperf runs on"):
        python_envs.add(name, "/nonexistent/python")
    assert main(["env", "add", "--", name, str(second_python)]) == 2
    assert "\x1b" not in one_line_error(capsys)
    assert stored(homes) == []


def test_a_taken_name_is_refused_before_the_python_is_looked_at(second_python, homes, capsys):
    python_envs.save([PythonEnv(name="old", python=str(second_python))])
    assert main(["env", "add", "old", "/nonexistent/python"]) == 2
    assert "an environment 'old' exists already" in one_line_error(capsys)
    assert main(["env", "create", "old", "jax"]) == 2
    assert "an environment 'old' exists already" in one_line_error(capsys)
    assert not (homes / "envs" / "old").exists()


def test_unknown_and_current_cannot_be_removed(homes, capsys):
    assert main(["env", "remove", "nope"]) == 2
    assert "no environment 'nope' (known: current;" in one_line_error(capsys)
    assert main(["env", "remove", "current"]) == 2
    assert "cannot be removed" in one_line_error(capsys)


@pytest.mark.slow
def test_a_broken_environment_is_listed_with_why_and_the_others_still_are(tmp_path, homes, capsys, monkeypatch):
    gone = make_venv(tmp_path / "gone", CURRENT_SITE)
    python_envs.add("gone", str(gone))
    shutil.rmtree(tmp_path / "gone")
    hostile = PythonEnv(name="evil\x1b]52;c;aGk=\x07", python="/nonexistent/\x1b[2J")
    python_envs.save([*python_envs.registered(), hostile])
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["env", "list"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    lines = out.splitlines()
    assert all(cell_len(line) <= 80 and line == line.rstrip() for line in lines)
    assert lines[2] == "  ok"  # current
    assert lines[-1] == "3 environments, 2 cannot measure"
    text = "".join(out.split())  # a path wider than the line is folded: nothing is cut
    assert "evil␛]52;c;aGk=␇/nonexistent/␛[2Jbroken:doesnotexist" in text
    assert f"gone{gone}broken:doesnotexist" in text


# --- storage --------------------------------------------------------------------------------------------


def test_a_corrupt_list_is_a_clear_error_and_is_left_as_it_is(second_python, homes, capsys):
    homes.mkdir(parents=True)
    registry = homes / "environments.json"
    registry.write_bytes(b'[{"name": "kept", "python": "/x"}, oops')
    for argv in (["env", "add", "other", str(second_python)], ["env", "list"], ["env", "remove", "kept"]):
        assert main(argv) == 2
        assert "the environment list is not valid JSON" in one_line_error(capsys)
    assert registry.read_bytes() == b'[{"name": "kept", "python": "/x"}, oops'
    registry.write_text('[{"name": 3}]')
    with pytest.raises(PythonEnvError, match="the environment list is not valid: Expected `str`, got `int`"):
        python_envs.lookup("x")


def test_an_unwritable_data_folder_is_one_line(tmp_path, second_python, monkeypatch, capsys):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker))
    assert main(["env", "add", "other", str(second_python)]) == 2
    assert "the data folder cannot be made" in one_line_error(capsys)


@pytest.mark.slow
def test_a_failed_write_keeps_what_was_stored(second_python, homes, monkeypatch, capsys):
    python_envs.add("first", str(second_python))
    before = (homes / "environments.json").read_bytes()

    def full(*args, **kwargs):
        raise TuiperfError("cannot write: No space left on device", where="environments.json")

    monkeypatch.setattr(env_registry, "write_atomic", full)
    assert main(["env", "add", "second", str(second_python)]) == 2
    assert "the environment list cannot be written: cannot write: No space left" in one_line_error(capsys)
    assert (homes / "environments.json").read_bytes() == before


# --- create and the measuring side's requirements -------------------------------------------------------


def test_the_measuring_requirements_are_pyprojects_and_hold_nothing_of_the_ui():
    pyproject = (Path(__file__).parent.parent / "pyproject.toml").read_text()
    for requirement in python_envs.MEASURING_REQUIREMENTS:
        assert f'"{requirement}"' in pyproject
    assert not {"textual", "rich", "plotext", "textual-plotext", "watchfiles"} & set(MEASURING_PACKAGES)


MEASURING_SIDE_IMPORTS = """
import sys
at_start = set(sys.modules)  # what the interpreter's own start-up imported (site, .pth hooks)
import importlib, json, pkgutil
import tuiperf.measuring as measuring
def imported():
    tops = {name.split(".")[0] for name in set(sys.modules) - at_start}
    return {name: getattr(sys.modules.get(name), "__file__", None) for name in sorted(tops)}
for module in pkgutil.iter_modules(measuring.__path__):
    importlib.import_module("tuiperf.measuring." + module.name)
own = imported()
for module in ("jax", "jax.numpy", "equinox", "flax.linen", "flax.nnx", "optax"):  # serve's start-up imports
    importlib.import_module(module)
print(json.dumps([own, imported()]))
"""
STDLIB = (sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"])


def third_party(imported: dict[str, str | None]) -> set[str]:
    """The top-level modules imported from files outside the standard library (not built-in ones)."""
    return {
        name
        for name, file in imported.items()
        if file is not None and not os.path.realpath(file).startswith(tuple(map(os.path.realpath, STDLIB)))
    }


def requirement_closure(names: set[str]) -> set[str]:
    """The distributions ``names`` need, transitively (extras left out), as normalised names."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = normalised(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo.extend(python_envs.requirement_name(r) for r in requires if "extra ==" not in r)
    return seen


def normalised(distribution: str) -> str:
    return re.sub(r"[-_.]+", "-", distribution).lower()


@pytest.mark.envs
def test_the_measuring_side_imports_only_its_declared_requirements_and_the_measured_libraries():
    out = subprocess.run(
        [sys.executable, "-c", MEASURING_SIDE_IMPORTS], capture_output=True, text=True, check=True
    ).stdout
    own, with_frameworks = json.loads(out)
    # typing_extensions: msgspec uses it when it is there (it is not one of msgspec's requirements)
    assert third_party(own) <= {"tuiperf", "typing_extensions", *MEASURING_PACKAGES}, own
    allowed = requirement_closure({*MEASURING_PACKAGES, *python_envs.LIBRARIES})
    distributions = metadata.packages_distributions()
    foreign = {
        name
        for name in third_party(with_frameworks) - {"tuiperf", "typing_extensions"}
        if not any(normalised(d) in allowed for d in distributions.get(name, []))
    }
    assert foreign == set(), foreign
    assert not {"textual", "plotext", "textual_plotext", "watchfiles"} & set(with_frameworks)


def offline_pip(monkeypatch, tmp_path):
    """pip with no index, no links and no configuration: it fails at once, without the network."""
    config = tmp_path / "pip.conf"
    config.write_text("[global]\nno-index = true\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(config))
    for variable in ("PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"):
        monkeypatch.delenv(variable, raising=False)


@pytest.mark.envs
def test_a_pip_failure_names_the_requirement_and_leaves_nothing(homes, tmp_path, monkeypatch, capsys):
    offline_pip(monkeypatch, tmp_path)
    assert main(["env", "create", "broken", "jax==0.0.0"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.splitlines()
    assert err[0] == f"building a virtual environment in {homes / 'envs' / 'broken'}"
    assert err[-1].startswith("tuiperf: pip could not install the requirements: ")
    assert "jax==0.0.0" in err[-1] and err[-1].endswith("nothing was kept")
    assert not (homes / "envs" / "broken").exists() and stored(homes) == []


@pytest.mark.envs
def test_ctrl_c_during_create_leaves_nothing(homes, monkeypatch):
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")  # refused: pip retries until stopped
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    seen: list[str] = []

    def interrupt(line: str) -> None:
        seen.append(line)
        if not line.startswith(("building", "installing")):  # pip has started
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        python_envs.create("stopped", ["jax"], interrupt)
    assert len(seen) == 3 and not (homes / "envs" / "stopped").exists() and stored(homes) == []


@pytest.mark.parametrize(
    ("requirements", "message"),
    [([], "no requirements given"), (["--index-url=http://x"], "is not a requirement"), (["  "], "not a requirement")],
)
def test_create_refuses_bad_requirements_before_any_work(requirements, message, homes):
    with pytest.raises(PythonEnvError, match=message):
        python_envs.create("new", requirements)
    assert not (homes / "envs" / "new").exists()


def test_a_folder_left_by_a_killed_create_is_not_taken_over(homes):
    (homes / "envs" / "left").mkdir(parents=True)
    with pytest.raises(PythonEnvError, match=r"exists already \(an `env create` under way, or one that was killed"):
        python_envs.create("left", ["jax"])
    assert (homes / "envs" / "left").is_dir()


def pth_wheel(folder: Path, sees: list[str]) -> Path:
    """A wheel whose only content is a .pth file adding ``sees`` to the environment it is installed in."""
    files = {
        "seeing.pth": "".join(f"{path}\n" for path in sees),
        "seeing-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: seeing\nVersion: 1.0\n",
        "seeing-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }

    def digest(text: str) -> str:
        raw = hashlib.sha256(text.encode()).digest()
        return "sha256=" + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    record = "".join(f"{name},{digest(text)},{len(text.encode())}\n" for name, text in files.items())
    wheel = folder / "seeing-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
        archive.writestr("seeing-1.0.dist-info/RECORD", record + "seeing-1.0.dist-info/RECORD,,\n")
    return wheel


@pytest.mark.envs
def test_create_builds_registers_and_remove_deletes_it(homes, tmp_path, monkeypatch, capsys):
    """The whole of `env create` without a download: the 'requirement' is a local wheel that lets the new
    environment see this one's packages (the measuring requirements are then already there)."""
    offline_pip(monkeypatch, tmp_path)
    monkeypatch.setattr(env_build, "MEASURING_REQUIREMENTS", ())
    wheel = pth_wheel(tmp_path, CURRENT_SITE)
    assert main(["env", "create", "built", str(wheel)]) == 0
    out = capsys.readouterr().out.splitlines()
    folder = homes / "envs" / "built"
    assert out[0].startswith("created built in ") and out[1].startswith(f"built  Python {platform.python_version()}")
    assert "  ok" in out and any(line.startswith("  built by `tuiperf env create` ") for line in out)
    [entry] = stored(homes)
    assert entry["python"] == str(folder / "bin" / "python") and entry["managed"] is True
    assert entry["requirements"] == [str(wheel)]
    assert main(["env", "remove", "built"]) == 0
    assert capsys.readouterr().out == f"removed built: deleted {folder}\n"
    assert not folder.exists() and stored(homes) == []


@pytest.mark.envs
def test_a_built_environment_that_cannot_measure_is_not_kept(homes, tmp_path, monkeypatch, capsys):
    offline_pip(monkeypatch, tmp_path)
    monkeypatch.setattr(env_build, "MEASURING_REQUIREMENTS", ())
    assert main(["env", "create", "nojax", str(pth_wheel(tmp_path, []))]) == 2
    err = capsys.readouterr().err.splitlines()
    why = "no jax: install jax to measure here"
    assert err[-1] == f"tuiperf: the new environment cannot measure: {why}; nothing was kept"
    assert not (homes / "envs" / "nojax").exists() and stored(homes) == []


@pytest.mark.parametrize("case", ["python elsewhere", "name ..", "folder a link"])
def test_remove_deletes_only_a_folder_tuiperf_built(case, homes, tmp_path, capsys):
    """A hand-edited list cannot make `env remove` delete anything but envs/NAME, a real folder."""
    elsewhere = make_venv(tmp_path / "elsewhere", CURRENT_SITE)
    name, python = "tampered", elsewhere
    if case == "name ..":
        name, python = "..", homes / "bin" / "python"  # envs/.. is the data folder itself
    elif case == "folder a link":
        (homes / "envs").mkdir(parents=True)
        (homes / "envs" / name).symlink_to(tmp_path / "elsewhere")
        python = homes / "envs" / name / "bin" / "python"
    python_envs.save([PythonEnv(name=name, python=str(python), managed=True)])
    assert main(["env", "remove", name]) == 0
    assert "nothing deleted" in capsys.readouterr().out
    assert elsewhere.exists() and homes.is_dir() and stored(homes) == []


def test_env_list_json_escapes_c1_controls_from_what_an_environment_answers(tmp_path, homes, capsys):
    # C1 controls (U+009B is CSI to many terminals), DEL and a bidi override, raw in UTF-8 JSON before
    hostile = PythonEnv(name="evil\x9b2J\x85\x7f", python="/nonexistent/\u202e\x9d")
    python_envs.save([*python_envs.registered(), hostile])
    assert main(["env", "list", "--json"]) == 0
    out = capsys.readouterr().out
    assert not [c for c in out if 0x7F <= ord(c) <= 0x9F or c == "\u202e"]
    listed = json.loads(out)
    assert listed[-1]["name"] == "evil\x9b2J\x85\x7f" and listed[-1]["python"] == "/nonexistent/\u202e\x9d"


def test_add_says_an_interpreter_is_registered_already_under_another_name(tmp_path, monkeypatch, capsys):
    """`env add` took the same interpreter under a third name silently."""
    folder = tmp_path / "venv" / "bin"
    folder.mkdir(parents=True)
    python = folder / "python"
    python.write_text("#!/bin/sh\n")
    python.chmod(0o755)
    (folder / "python3").symlink_to("python")  # the same environment under its other name
    elsewhere = tmp_path / "other" / "bin"
    elsewhere.mkdir(parents=True)
    (elsewhere / "python").symlink_to(python)  # a link from another folder: another environment (a venv's)

    def fine(path: str, timeout_s: float = 60) -> python_envs.Probe:
        return python_envs.Probe(python=path, executable=path, version="3.11.7", versions={}, status="ok", ok=True)

    monkeypatch.setattr(env_registry, "probe", fine)
    assert main(["env", "add", "a", str(python)]) == 0
    assert "note:" not in capsys.readouterr().out
    assert main(["env", "add", "b", str(folder / "python3")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("added b") and "note: the same interpreter as a (one environment under 2 names)" in out
    assert main(["env", "add", "c", str(elsewhere / "python")]) == 0
    assert "note:" not in capsys.readouterr().out
    assert [e.name for e in python_envs.registered()] == ["current", "a", "b", "c"]  # noted, not refused
