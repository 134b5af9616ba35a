"""The shape of the code: imports go one way between the top folders, and rules/ stays pure."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("rules", "vision", "webui", "datasets", "training", "mahjong_lens")
# the top folders from the bottom up: a module imports only from its own folder or one below.
# The reader (vision) needs neither the data nor training at run time; the data are made with
# the reader; training takes both; the page and the command line sit on top.
LAYERS = ("rules", "vision", "datasets", "training", "webui", "mahjong_lens")


def _module_name(path: Path) -> str:
    """The installed name: the folders rules/, vision/, ... are mahjong_lens.rules, ..."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    if parts[0] != "mahjong_lens":
        parts.insert(0, "mahjong_lens")
    return ".".join(parts)


def _imports() -> dict[str, set[str]]:
    """Each project module -> the project modules it imports, at the top or inside a function."""
    modules = {_module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name and target != "mahjong_lens":
                    graph[name].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found, state, stack = [], {}, []

    def visit(node: str) -> None:
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def test_no_module_imports_itself_through_others():
    assert _cycles(_imports()) == []


def test_the_rules_import_no_vision_web_or_training_code():
    graph = _imports()
    for name, targets in graph.items():
        if name.startswith("mahjong_lens.rules"):
            assert not [t for t in targets if not t.startswith("mahjong_lens.rules")], name


def test_everything_is_imported_under_the_one_installed_name():
    """A top-level `rules` or `datasets` would be a second copy of a module (and `datasets`
    shadows a well-known package): every import goes through mahjong_lens."""
    stray = []
    for package in PACKAGES + ("tests", "benchmarks"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
                stray += [f"{path.name}: {n}" for n in names if n.split(".")[0] in PACKAGES[:5]]
    assert stray == []


def _layer(module: str) -> int:
    folder = module.split(".")[1] if module.count(".") else "mahjong_lens"
    return LAYERS.index(folder if folder in LAYERS else "mahjong_lens")


def test_imports_run_one_way_between_the_top_folders():
    upward = sorted(f"{name} -> {target}" for name, targets in _imports().items() for target in targets
                    if _layer(target) > _layer(name))
    assert upward == []


def test_nothing_below_the_command_line_imports_its_package():
    """`from mahjong_lens import X` below the command line would run up to it."""
    found = []
    for package in LAYERS[:-1]:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module == "mahjong_lens" and not node.level:
                    found.append(str(path.relative_to(ROOT)))
    assert found == []


def test_the_layer_check_sees_an_import_that_runs_up():
    assert _layer("mahjong_lens.vision.recognizer") < _layer("mahjong_lens.datasets.synth")
    assert _layer("mahjong_lens.training.train") > _layer("mahjong_lens.datasets.real")
    assert _layer("mahjong_lens.cli") == len(LAYERS) - 1


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c", "a"]]
