#!/usr/bin/env python3
"""Print the shell commands of README.md that CI runs, one a line, exactly as written.

A command is a line of a ```sh block of the README, without its trailing comment. CI runs every
one of them in order (``.ci/run``), except the commands that need what CI does not have, which
are named on stderr with the reason:

- ``kubectl ...``: a Kubernetes cluster;
- ``bash .ci/run``: it is CI itself.

Usage: ``python3 .ci/readme_commands.py README.md``. Standard library only (it runs before
anything is installed).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

FENCE = re.compile(r"^```(?P<info>\S*)\s*$")
NOT_RUN = {
    "kubectl ": "needs a Kubernetes cluster",
    "bash .ci/run": "is CI itself",
}


def shell_commands(text: str) -> list[str]:
    """The command lines of the ```sh blocks of ``text``, in order, without trailing comments."""
    commands: list[str] = []
    inside = False
    for line in text.splitlines():
        fence = FENCE.match(line)
        if fence:
            inside = not inside and fence.group("info") == "sh"
            continue
        if inside and line.strip() and not line.lstrip().startswith("#"):
            commands.append(without_comment(line).strip())
    return commands


def without_comment(line: str) -> str:
    """The line up to a ``#`` that starts a shell comment (after a blank, outside quotes)."""
    quote = ""
    for index, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index]
    return line


def not_run(command: str) -> str | None:
    """Why CI does not run ``command``, or None when it does."""
    for prefix, reason in NOT_RUN.items():
        if command.startswith(prefix):
            return reason
    return None


def main(argv: list[str]) -> int:
    (readme,) = argv
    commands = shell_commands(Path(readme).read_text(encoding="utf-8"))
    if not commands:
        print(f"{readme}: no ```sh block with a command", file=sys.stderr)
        return 1
    for command in commands:
        reason = not_run(command)
        if reason is None:
            print(command)
        else:
            print(f"not run in CI ({reason}): {command}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
