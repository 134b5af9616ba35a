"""Shared test settings: a test client of the app that reads no photo, and a skipped browser
suite said at the end of the run, loudly."""
from __future__ import annotations

import pytest


class NoRecognizer:
    def detect(self, image):
        raise AssertionError("these tests read no photo")


@pytest.fixture()
def client(tmp_path):
    """The app's test client over a fresh database; a test file may define its own."""
    from mahjong_lens.webui import create_app
    app = create_app({"DATABASE": str(tmp_path / "checks.db"), "RECOGNIZER": NoRecognizer()})
    yield app.test_client()
    app.extensions["mahjong_lens"].close()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    skipped = [report for report in terminalreporter.stats.get("skipped", [])
               if "test_browser" in str(getattr(report, "nodeid", "")) or "test_browser" in str(report.longrepr)]
    if skipped:
        reason = skipped[0].longrepr[-1] if isinstance(skipped[0].longrepr, tuple) else skipped[0].longrepr
        terminalreporter.write_sep("!", "THE BROWSER TESTS DID NOT RUN", red=True, bold=True)
        terminalreporter.write_line(f"{reason}", red=True)
        terminalreporter.write_line("The page is untested in a browser. Install Debian's chromium "
                                    "(`apt-get install chromium`, see the README's set-up), as CI does.", red=True)
