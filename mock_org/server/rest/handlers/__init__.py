"""One module per REST resource family; each handler reads the request, calls one Org method and
serialises its result (style guide §4)."""
