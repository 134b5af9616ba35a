"""The `mahjong-lens` command.  Each subcommand lives in the module that owns its idea;
a module offers ``configure_parser(parser)`` and ``run(args) -> int``."""
from __future__ import annotations

import argparse
import importlib
import sqlite3
import sys

from mahjong_lens.vision import TRAIN_EXTRA

# the packages of the `[train]` extra; a command that reaches for one without it installed
# says so in one sentence
TRAIN_PACKAGES = {"torch", "torchvision", "ultralytics", "onnx"}

# name -> (module, one-line help).  Modules are imported only when their command runs,
# except for their parser configuration, so `score` never waits for torch to load.
COMMANDS = {
    "score": ("mahjong_lens.commands", "score a hand given as JSON (a file, or - for stdin)"),
    "settle": ("mahjong_lens.commands", "score a Rode Draak table of four hands and settle it"),
    "waits": ("mahjong_lens.commands", "list the tiles that complete a hand one tile short"),
    "tournament": ("mahjong_lens.tournament", "the tournament desk: rotation schedule, wall break, seat draw"),
    "synth": ("mahjong_lens.datasets.synth", "render synthetic photos of hands with YOLO labels"),
    "mix": ("mahjong_lens.datasets.real", "assemble a training mix of real and synthetic photos"),
    "pack": ("mahjong_lens.datasets.pack", "a compact copy of the training data, to train on a lent GPU machine"),
    "train": ("mahjong_lens.training.train", "train the tile recogniser"),
    "export": ("mahjong_lens.training.train", "write ONNX exports of the recogniser's weights (faster on a CPU)"),
    "eval": ("mahjong_lens.training.evaluate", "measure the tile recogniser on labelled photos"),
    "scan": ("mahjong_lens.scan_command", "read the hand(s) in photos and score them"),
    "teach": ("mahjong_lens.vision.tile_sets", "teach the recogniser your tile set from a few photos of it"),
    "serve": ("mahjong_lens.webui.app", "start the table assistant web page"),
}


def build_parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """The parser; only the chosen command's module is imported (vision pulls in torch)."""
    parser = argparse.ArgumentParser(prog="mahjong-lens", description=__doc__.split(".")[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        if name != chosen:
            continue
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:  # a part not installed or not built yet
            command.set_defaults(_missing=f"'{name}' is not available: {error}")
            continue
        configure = getattr(module, f"configure_{name}", None) or getattr(module, "configure_parser")
        configure(command)
        command.set_defaults(_run=getattr(module, f"run_{name}", None) or getattr(module, "run"))
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    chosen = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(chosen)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if getattr(args, "_missing", None):
        print(f"mahjong-lens: {args._missing}", file=sys.stderr)
        return 2
    try:
        return int(args._run(args) or 0)
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] not in TRAIN_PACKAGES:
            raise
        print(f"mahjong-lens: '{args.command}' needs PyTorch and ultralytics, which the plain install "
              f"leaves out: {TRAIN_EXTRA}", file=sys.stderr)
        return 2
    except sqlite3.Error as error:  # the database: a folder, a folder that cannot be made, locked
        print(f"mahjong-lens: the database cannot be used ({error}): give --database a file in a folder "
              "this user may write, or wait for the other program using it", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head` and closed early: not an error
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
