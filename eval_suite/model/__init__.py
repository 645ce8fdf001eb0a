"""The model side of a run: the OpenAI-compatible client with its retries and prices (`llm`), the response
cache that makes a run replayable (`cache`), the capability probe that picks the tool protocol (`probe`),
and the scripted endpoint that ``crmarena fake-llm`` serves and the tests talk to (`fake_llm`). Kept
together because each of them speaks the chat-completions protocol and nothing else of the harness does."""
