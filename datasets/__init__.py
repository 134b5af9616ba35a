"""Training data for the tile recogniser: synthetic photos and the real labelled sets.

- :mod:`datasets.classes` - the class list (42 canonical names, red fives, ``back``).
- :mod:`datasets.synth` - ``render_scene`` and the ``synth`` command.
- :mod:`datasets.real` - the ``mix`` command: real photos plus a synthetic set.
"""

from .classes import CLASS_NAMES, NUM_CLASSES, class_index, class_name

__all__ = ["CLASS_NAMES", "NUM_CLASSES", "class_index", "class_name"]
