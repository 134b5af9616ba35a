"""Training data for the tile recogniser: rendered photos, the real labelled sets, the examples.

- :mod:`datasets.synth` - ``render_scene`` and the ``synth`` command.
- :mod:`datasets.real` - the ``mix`` command: real photos plus a synthetic set; photo lists.
- :mod:`datasets.pack` - the compact copy a lent GPU machine trains on.
- :mod:`datasets.examples` - the photo and recording in ``examples/``.

The class list is the reader's (:mod:`mahjong_lens.vision.classes`): the data follows it.
"""
