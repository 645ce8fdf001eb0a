"""The browser lane: the org's pages driven through Playwright over Debian's chromium, as a web agent sees
them (``observation``: the accessibility tree with element ids) and acts on them (``actions``: BrowserGym-style
action strings), one browser context per episode (``session``)."""
