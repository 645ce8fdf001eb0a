"""The ``crmarena`` command tree (`cli`: the entry point, where every failure becomes an exit code) and the
harness's verbs: ``eval``/``rescore`` (`evaluate`), ``doctor``, ``report`` and the real-org lane's
``org metadata``/``org push``/``tasks remap`` (`lane`). Only argument parsing and printing live here; the
work is done by the packages they call, so a library user never needs this package."""
