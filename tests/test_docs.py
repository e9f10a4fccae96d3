"""The README and the documentation site: short, their commands the ones CI runs, and every code example a
real file under docs/examples/ that runs here at tiny sizes."""

import re
from pathlib import Path

import pytest

from tuiperf.contract.options import RunSettings
from tuiperf.contract.request import RunRequest

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
EXAMPLES = DOCS / "examples"
TEST_COMMAND = (
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' -c constraints.txt && .venv/bin/python -m pytest -q"
)
SNIPPET = re.compile(r'^--8<-- "([^"]+)"$', re.M)


def readme() -> str:
    return (ROOT / "README.md").read_text()


def pages() -> dict[str, str]:
    return {str(p.relative_to(DOCS)): p.read_text() for p in sorted(DOCS.rglob("*.md"))}


def example_files() -> list[Path]:
    return sorted(EXAMPLES.rglob("*.py"))


def test_the_readme_is_read_in_five_minutes():
    assert len(readme().splitlines()) < 250


def test_the_readme_test_command_is_what_ci_runs_first_and_the_docs_build_comes_after_it():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert TEST_COMMAND in readme()
    assert TEST_COMMAND in ci
    build = next(i for i, line in enumerate(ci) if "mkdocs build --strict" in line)
    assert build > ci.index(TEST_COMMAND)


def test_the_readme_scenario_is_the_example_file_the_docs_include():
    block = re.search(r"```python\n(.*?)```", readme(), re.S)
    assert block is not None
    assert block.group(1) == (EXAMPLES / "first_scenario.py").read_text()


def test_every_python_block_in_the_docs_is_an_included_file():
    for name, text in pages().items():
        for block in re.findall(r"```python\n(.*?)```", text, re.S):
            assert SNIPPET.fullmatch(block.strip()), f"{name}: a Python example written inline, not a file"


def test_every_example_file_is_included_by_a_page_and_every_included_file_exists():
    included = {m for text in pages().values() for m in SNIPPET.findall(text)}
    assert {str(p.relative_to(ROOT)) for p in example_files()} <= included
    for path in included:
        assert (ROOT / path).is_file(), path


def example_scenarios() -> list[str]:
    return sorted(p.stem.replace("_", "-") for p in EXAMPLES.glob("*.py") if "scenario = Scenario(" in p.read_text())


@pytest.fixture(scope="module")
def examples_runner():
    from tuiperf.measuring.inprocess import InProcessRunner

    return InProcessRunner([str(EXAMPLES)])


@pytest.mark.slow
@pytest.mark.parametrize("scenario", example_scenarios())
def test_every_example_scenario_runs_and_passes_the_guard(examples_runner, scenario):
    settings = RunSettings(samples=3, budget_s=0.05, profile=False, dispatch="sync")
    doc = examples_runner.run(RunRequest(scenario=scenario, settings=settings))
    assert not doc.partial
    assert [(v.name, v.failure) for v in doc.variants if not v.ok] == []
    assert doc.equivalence.mismatches == [], doc.warnings


@pytest.mark.slow
def test_the_answers_about_variants_hold(examples_runner, tmp_path, capsys):
    """Variants with their own weights fail the guard; a name with a space, and a third positional
    argument to Scenario, are refused when the file loads; the v limit is the histogram's."""
    from tuiperf.cli.check import FAILS, check_file
    from tuiperf.measuring.loading import describe_file
    from tuiperf.tui.commands import COMMANDS
    from tuiperf.tui.widgets.histogram import MAX_DRAWN, MAX_OVERLAID

    own_weights = tmp_path / "own_weights.py"
    text = (EXAMPLES / "eqx_jit_level.py").read_text()
    own_weights.write_text(
        text.replace(
            "    model, x = ctx\n    arrays",
            "    model = eqx.nn.MLP(p.width, p.width, p.width, depth=2, key=jax.random.key(1))\n"
            "    x = ctx[1]\n    arrays",
            1,
        )
    )
    assert check_file(own_weights, describe_file, examples_runner) == FAILS
    assert "guard: jax.jit differs from eqx.filter_jit" in capsys.readouterr().out
    questions = pages()["guide/scenario-questions.md"]
    (tmp_path / "spaces.py").write_text(
        "from tuiperf import Scenario\nscenario = Scenario('t', 'q')\n"
        "@scenario.variant('filter jit')\ndef _(p, c): ...\n"
    )
    assert "without spaces or\ncommas" in questions or "without spaces or commas" in questions
    assert "must be non-empty text without spaces or commas" in describe_file(tmp_path / "spaces.py").error
    (tmp_path / "positional.py").write_text(
        "from tuiperf import Int, Scenario\nscenario = Scenario('t', 'q', dict(n=Int(1)))\n"
    )
    assert "takes 3 positional arguments but 4 were given" in describe_file(tmp_path / "positional.py").error
    v_help = next(c.help for c in COMMANDS if c.keys == "v")
    assert f"up to {MAX_OVERLAID} overlaid" in v_help and f"at most {MAX_DRAWN}" in v_help
    explorer = pages()["guide/explorer.md"]  # where the limit is stated, once
    assert "up to three overlaid" in explorer and f"at most {MAX_DRAWN} |" in explorer and MAX_OVERLAID == 3
    assert sum(text.count(f"at most {MAX_DRAWN}") for text in pages().values()) == 1


@pytest.mark.slow
def test_every_tuiperf_command_the_docs_show_parses():
    """A stale flag in a copied command line is an error a reader meets first: every `tuiperf ...` line
    of the README's and the docs' shell blocks is accepted by the parser (synopses with [...] aside)."""
    import shlex

    from tuiperf.cli import parse_args

    texts = {"README.md": readme(), **pages()}
    checked = 0
    for name, text in texts.items():
        for block in re.findall(r"```(?:bash|sh)?\n(.*?)```", text, re.S):
            for line in block.splitlines():
                command = line.split("  #")[0].split(" # ")[0].split(" > ")[0].strip()
                if not command.startswith("tuiperf ") or "[" in command or "..." in command:
                    continue
                try:
                    parse_args(shlex.split(command)[1:])
                except SystemExit as exc:  # 0: an option that prints and exits (--print-completion)
                    if exc.code != 0:
                        pytest.fail(f"{name}: {command!r} does not parse (exit {exc.code})")
                checked += 1
    assert checked >= 30


# A path as the docs and the code write one: `measuring/run.py`, tests/test_docs.py, docs/remedies.md.
NAMED_PATH = re.compile(r"(?<![\w./-])((?:\.?[\w-]+/)*[\w-]+\.(?:py|md|tcss|sh|txt|toml|json|yaml|png|svg))(?![\w/-])")
# Paths inside other projects, and the placeholders the docs use for the user's own files.
NOT_OURS = (
    *("equinox/", "jax/", "jaxlib/", "flax/", "textual/", "textual_serve/", "plotext/", "asv/", "pyperf/"),
    *("optax/", "inox/", "pytest_benchmark/", "memray/", "my/", "folder/", "path/to/", "~/"),
)
PLACEHOLDERS = {"my_scenario.py", "my_mlp.py", "file.py", "model.py", "first_scenario.py", "NAME.py"}
BARE_KINDS = (".py", ".tcss", ".sh")  # a bare file name is checked for these, where a page names it in backticks


def repository_files() -> set[str]:
    import subprocess

    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=False).stdout
    found = set(listed.split())
    found |= {str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if ".venv" not in p.parts and ".git" not in p.parts}
    return found


def named_paths() -> list[tuple[str, str]]:
    """(where, path) for every path named in ARCHITECTURE.md, the docs, the pre-commit hooks and the package's
    own comments and docstrings."""
    sources = [ROOT / "ARCHITECTURE.md", ROOT / "README.md", ROOT / ".pre-commit-config.yaml"]
    sources += sorted(DOCS.rglob("*.md")) + sorted((ROOT / "tuiperf").rglob("*.py"))
    named = []
    for source in sources:
        text = source.read_text()
        if source.suffix == ".yaml":  # a hook's `files:` is a regular expression
            text = text.replace("\\.", ".").replace("^", " ").replace("$", " ")
        for match in NAMED_PATH.finditer(text):
            path = match.group(1)
            if path.startswith(NOT_OURS) or "/_src/" in path or path in PLACEHOLDERS:
                continue
            quoted = text[match.start() - 1 : match.start()] == "`"
            if "/" not in path and not (source.suffix == ".md" and quoted and path.endswith(BARE_KINDS)):
                continue
            line = text[: match.start()].count("\n") + 1
            named.append((f"{source.relative_to(ROOT)}:{line}", path))
    return named


def test_every_path_the_docs_and_the_code_name_exists():
    """A path (`measuring/run.py`) or a file name (`run.py`) names a file of this repository: relative to
    its top, to the package, to the page that names it, or (a bare name or a partial path) by its end."""
    files = repository_files()
    ends = {f"/{f}" for f in files}
    missing = []
    for where, path in named_paths():
        page = Path(where.rsplit(":", 1)[0]).parent
        tried = (path, f"tuiperf/{path}", str(page / path), f"docs/{path}")
        if any(p in files for p in tried) or any(e.endswith(f"/{path}") for e in ends):
            continue
        missing.append(f"{where}: {path}")
    assert not missing, "named but not in the repository:\n" + "\n".join(missing)


def test_every_readme_section_the_docs_and_the_code_cite_exists():
    headings = set(re.findall(r"^#+ (.+)$", readme(), re.M))
    cited = []
    for source in [ROOT / "ARCHITECTURE.md", *DOCS.rglob("*.md"), *(ROOT / "tuiperf").rglob("*.py")]:
        for title in re.findall(r"README(?:'s|,)? \(?\"([^\"]+)\"", source.read_text()):
            if title not in headings:
                cited.append(f"{source.relative_to(ROOT)}: {title}")
    assert not cited, "README sections cited but gone:\n" + "\n".join(cited)
