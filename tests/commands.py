"""The command line as a user runs it, for the tests that start it in a new process."""
from __future__ import annotations

import subprocess
import sys
import tempfile


def run_cli(*args: str, stdin: str = "", module: str = "mahjong_lens", timeout: int = 120,
            cwd: str | None = None) -> subprocess.CompletedProcess:
    """``python -m mahjong_lens ARGS`` started outside the source tree, so that it imports the
    installed package (a plain install's or an editable one's), never the folder
    ``mahjong_lens/`` of the source alone, which holds none of rules/, vision/, webui/."""
    return subprocess.run([sys.executable, "-m", module, *args], input=stdin, capture_output=True,
                          text=True, timeout=timeout, cwd=cwd or tempfile.gettempdir())
