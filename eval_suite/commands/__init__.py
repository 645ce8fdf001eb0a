"""The ``crmarena`` command tree (`cli`: the entry point, where every failure becomes an exit code) and every
verb, one module each: ``query``/``search``/``org reset`` (`query`), ``serve``, ``tls``, ``fixtures …``
(`fixtures`, `fixtures_tasks`, `fixtures_audit`), ``eval``/``rescore`` (`evaluate`), ``doctor``,
``fake-llm`` (`fake_llm`), ``report``, the real-org lane's ``org metadata``/``org push``/``tasks remap``
(`lane`) and ``conformance``; `arguments` holds the argument types they share. Only argument parsing and
printing live here; the work is done by the packages they call, so a library user never needs this package
(tests/meta/test_layers.py: no library builds a parser)."""
