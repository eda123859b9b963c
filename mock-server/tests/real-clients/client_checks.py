"""What the real-client scripts in this folder share: a failed check, and how a script ends.

Each script is run by path (`python mock-server/tests/real-clients/NAME.py`), so this folder is
first on `sys.path` and `from client_checks import ...` finds this file.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, NoReturn


class CheckFailed(Exception):
    """A documented expectation the mock did not meet."""


def expect(condition: Any, what: str) -> None:
    """Fails the check `what` names unless `condition` holds."""
    if not condition:
        raise CheckFailed(what)


def run(main: Callable[..., int], *args: Any, env: tuple[str, ...] = ()) -> NoReturn:
    """Ends the script with `main(*args)`'s status: 2 when a variable in `env` is unset (the
    usage line at the top of the script says what to set), 1 with the failed check named."""
    for name in env:
        if not os.environ.get(name):
            print(f"set {name} (see the usage line at the top)", file=sys.stderr)
            sys.exit(2)
    try:
        sys.exit(main(*args))
    except CheckFailed as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
