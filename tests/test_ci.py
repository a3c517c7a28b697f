"""CI runs the README's commands as written: ``.ci/readme_commands.py`` reads them from README.md.

``.ci/run`` runs every command this script prints, in order, so the README and CI cannot
disagree; these tests check that it reads the commands exactly (trailing comments dropped,
nothing else changed) and names the ones CI cannot run.
"""

from __future__ import annotations

import runpy
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / ".ci" / "readme_commands.py"
README = ROOT / "README.md"

NAMESPACE = runpy.run_path(str(SCRIPT))
shell_commands: Callable[[str], list[str]] = NAMESPACE["shell_commands"]
not_run: Callable[[str], str | None] = NAMESPACE["not_run"]

TEXT = """\
# A project

```sh
pip install . && tool run             # install, then run
pip install ".[test]" && python -m pytest   # every test
```

Prose with a `pip install ".[docs]"` in it is not a command.

```python
print("neither is code of another language")
```

```sh
# a comment line
kubectl get pods -A -o json | tool explain -

bash .ci/run        # CI itself
echo 'a # inside quotes stays'
```
"""


def test_the_commands_are_the_lines_of_the_sh_blocks_without_trailing_comments() -> None:
    assert shell_commands(TEXT) == [
        "pip install . && tool run",
        'pip install ".[test]" && python -m pytest',
        "kubectl get pods -A -o json | tool explain -",
        "bash .ci/run",
        "echo 'a # inside quotes stays'",
    ]


def test_only_kubectl_and_ci_itself_are_not_run_and_each_says_why() -> None:
    reasons = {command: not_run(command) for command in shell_commands(TEXT)}
    assert reasons == {
        "pip install . && tool run": None,
        'pip install ".[test]" && python -m pytest': None,
        "kubectl get pods -A -o json | tool explain -": "needs a Kubernetes cluster",
        "bash .ci/run": "is CI itself",
        "echo 'a # inside quotes stays'": None,
    }


def test_ci_runs_the_readmes_install_test_and_docs_commands_and_names_the_others() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(README)], capture_output=True, text=True, check=True
    )
    commands = done.stdout.splitlines()
    assert commands[0] == "pip install . && minruntime explain"
    assert 'pip install ".[test]" "./sim[test]" && python -m pytest' in commands
    (docs,) = [command for command in commands if "sphinx" in command]
    assert docs == (
        'pip install ".[docs]" ./sim && python -m sphinx -W -b html docs docs/_build/html'
    )
    assert [line.split(")")[0] for line in done.stderr.splitlines()] == [
        "not run in CI (needs a Kubernetes cluster",
        "not run in CI (is CI itself",
    ]


def test_ci_runs_the_readme_commands_it_reads() -> None:
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'python3 .ci/readme_commands.py README.md >"$work/commands"' in run
    assert 'bash -euo pipefail -c "$command" </dev/null' in run
    assert "--cov-fail-under=90" in run
    assert "--cov-branch" in run
