"""Every subcommand with the mistakes a user makes: one line on stderr that says what is wrong,
the documented exit code, never a traceback, and no file created or changed on the way."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from eval_suite.commands.cli import main
from mock_org.user_errors import BAD_FILE, BROKEN_PIPE, INTERNAL, INVALID_DATA, REFUSED, UNAVAILABLE, USAGE
from tests.mock_org.builder import build_org, rid
from tests.mock_org.conftest import tiny_records

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bad and good inputs the table names: {org}, {text}, {empty}, {folder}, {corrupt}, {other}, {file}."""
    root = tmp_path_factory.mktemp("inputs")
    build_org(root / "org.db", tiny_records()).close()
    (root / "text.db").write_text("these are not the records you are looking for\n")
    (root / "empty.db").write_bytes(b"")
    (root / "folder").mkdir()
    (root / "corrupt.db").write_bytes((root / "org.db").read_bytes()[:100] + b"\x00garbage" * 4000)
    connection = sqlite3.connect(root / "other.db")
    connection.execute("CREATE TABLE invoices (id INTEGER, total REAL)")
    connection.commit()
    connection.close()
    (root / "file").write_text("a user's file\n")
    return root


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        yield listener.getsockname()[1]


Q = "SELECT Id FROM Case"
# (arguments, exit code, what the one line says); {name} is a path in `files`, {new} a path that does not exist.
CASES = [
    # the command line itself
    (["bogus"], USAGE, "invalid choice: 'bogus'"),
    (["--no-such-flag"], USAGE, "unrecognized arguments"),
    (["fixtures"], USAGE, "required: COMMAND"),
    (["org"], USAGE, "required: COMMAND"),
    # parse
    (["parse"], USAGE, "required: query"),
    (["parse", "--sosl"], USAGE, "required: query"),
    # query and search: the database
    (["query", "--db", "{new}", Q], BAD_FILE, "no such file"),
    (["query", "--db", "{new}/deeper/org.db", Q], BAD_FILE, "no such file"),
    (["query", "--db", "{text}", Q], BAD_FILE, "not a SQLite database"),
    (["query", "--db", "{empty}", Q], BAD_FILE, "not a SQLite database"),
    (["query", "--db", "{folder}", Q], BAD_FILE, "folder without crmarena.db"),
    (["query", "--db", "{corrupt}", Q], BAD_FILE, "damaged"),
    (["query", "--db", "{other}", Q], BAD_FILE, "none of the CRMArena objects"),
    (["search", "--db", "{new}", "FIND {x}"], BAD_FILE, "no such file"),
    (["search", "--db", "{text}", "FIND {x}"], BAD_FILE, "not a SQLite database"),
    (["search", "--db", "{corrupt}", "FIND {x}"], BAD_FILE, "damaged"),
    # query and search: the flags
    (["query", "--today", "2023-13-45", Q], USAGE, "'2023-13-45' is not a date"),
    (["query", "--today", "yesterday", Q], USAGE, "is not a date"),
    (["query", "--today", "20230515", Q], USAGE, "is not a date"),
    (["search", "--today", "2023-02-30", "FIND {x}"], USAGE, "is not a date"),
    (["query", "--format", "xml", Q], USAGE, "invalid choice: 'xml'"),
    (["query"], USAGE, "required: text"),
    (["search", "--all", "FIND {x}"], USAGE, "unrecognized arguments: --all"),
    # query and search: what the org refuses
    (["query", "--db", "{org}", "SELECT Nope FROM Case"], REFUSED, "INVALID_FIELD: No such column 'Nope'"),
    (["query", "--db", "{org}", "SELECT Id FORM Case"], REFUSED, "MALFORMED_QUERY: unexpected token"),
    (["query", "--db", "{org}", ""], REFUSED, "MALFORMED_QUERY: SOQL statements cannot be empty"),
    (["query", "--db", "{org}", "SELECT Id FROM Nope"], REFUSED, "INVALID_TYPE"),
    (["search", "--db", "{org}", "FIND {"], REFUSED, "MALFORMED_SEARCH"),
    # serve
    (["serve", "--db", "{new}"], BAD_FILE, "no such file"),
    (["serve", "--db", "{text}"], BAD_FILE, "not a SQLite database"),
    (["serve", "--db", "{other}"], BAD_FILE, "none of the CRMArena objects"),
    (["serve", "--db", "{folder}"], BAD_FILE, "folder without crmarena.db"),
    (["serve", "--check", "--port", "9"], REFUSED, "no mock org"),
    (["serve", "--today", "2023-13-45"], USAGE, "is not a date"),
    (["serve", "--port", "70000"], USAGE, "is not a port number"),
    (["serve", "--port", "-1"], USAGE, "is not a port number"),
    (["serve", "--http-port", "http"], USAGE, "is not a port number"),
    (["serve", "--threads", "0"], USAGE, "is not a whole number above 0"),
    (["serve", "--db", "{org}", "--copy", "--port", "{busy}"], UNAVAILABLE, "is in use"),
    (["serve", "--db", "{org}", "--copy", "--port", "0", "--http-port", "{busy}"], UNAVAILABLE, "is in use"),
    (["serve", "--db", "{org}", "--copy", "--host", "203.0.113.7", "--port", "8443"], UNAVAILABLE, "cannot listen"),
    # fixtures
    (["fixtures", "build", "--out", "{new}", "--scale", "0"], USAGE, "'0' is not a number above 0"),
    (["fixtures", "build", "--out", "{new}", "--scale", "-1"], USAGE, "not a number above 0"),
    (["fixtures", "build", "--out", "{new}", "--scale", "nan"], USAGE, "not a number above 0"),
    (["fixtures", "build", "--out", "{new}", "--scale", "inf"], USAGE, "not a number above 0"),
    (["fixtures", "build", "--out", "{new}", "--seed", "x"], USAGE, "invalid int value"),
    (["fixtures", "build"], USAGE, "required: --out"),
    (["fixtures", "build", "--scale", "0.01", "--out", "{file}"], BAD_FILE, "is a file"),
    (["fixtures", "build", "--scale", "0.01", "--out", "{files}"], BAD_FILE, "holds files that are not part of a dump"),
    (["fixtures", "build", "--scale", "0.01", "--llm", "some-model", "--out", "{new}"], USAGE, "set OPENAI_BASE_URL"),
    (["fixtures", "import", "{new}", "--out", "{new}"], BAD_FILE, "no such file"),
    (["fixtures", "import", "{text}", "--out", "{new}"], BAD_FILE, "not a SQLite database"),
    (["fixtures", "import", "{other}", "--out", "{new}"], BAD_FILE, "none of the CRMArena objects"),
    (["fixtures", "import", "{corrupt}", "--out", "{new}"], BAD_FILE, "cannot be read"),
    (["fixtures", "import", "{folder}", "--out", "{new}"], BAD_FILE, "folder without crmarena.db"),
    (["fixtures", "import", "{org}", "--out", "{file}"], BAD_FILE, "is a file"),
    (["fixtures", "import", "{org}", "--out", "{new}"], INVALID_DATA, "validation violation"),
    (["fixtures", "import"], USAGE, "required: path, --out"),
    (["fixtures", "default", "--cache-dir", "{file}"], BAD_FILE, "Not a directory"),
    # tls
    (["tls"], USAGE, "required: COMMAND"),
    (["tls", "export"], USAGE, "required: DIR|-"),
    (["tls", "export", "{new}"], REFUSED, "no mock CA"),
]


def fill(argument: str, files: Path, new: Path, busy: int) -> str:
    names = {"new": str(new), "files": str(files), "busy": str(busy)}
    names |= {name: str(files / f"{name}.db") for name in ("org", "text", "empty", "corrupt", "other")}
    names |= {"folder": str(files / "folder"), "file": str(files / "file")}
    return argument.format(**names) if argument.startswith("{") else argument


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


@pytest.mark.parametrize(("arguments", "code", "says"), CASES, ids=[" ".join(case[0]) for case in CASES])
def test_a_mistake_is_one_line_and_an_exit_code(arguments, code, says, files, busy_port, tmp_path, monkeypatch, capsys):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CRMARENA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CRMARENA_TLS_DIR", str(tmp_path / "tls"))
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "CRMARENA_DEBUG"):
        monkeypatch.delenv(name, raising=False)
    new = tmp_path / "new"
    before = snapshot(files)
    assert main([fill(argument, files, new, busy_port) for argument in arguments]) == code
    out, err = capsys.readouterr()
    assert "Traceback" not in err and says in err.splitlines()[0]
    if code != REFUSED:
        assert len(err.splitlines()) == 1 or code == INVALID_DATA, err  # a validation failure lists its violations
    assert out == ""
    assert snapshot(files) == before  # nothing the user gave was changed, and nothing was added beside it
    assert not new.exists() and not any(path.name.endswith(".partial") for path in tmp_path.rglob("*"))
    if arguments[0] == "serve":
        assert not (tmp_path / "tls").exists()  # refused before any certificate was made


def crmarena(
    *arguments: str, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "eval_suite.commands.cli", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        input=stdin,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def test_the_real_command_prints_no_traceback_and_debug_shows_it(files: Path) -> None:
    plain = crmarena("query", "--db", str(files / "text.db"), "SELECT Id FROM Case")
    assert (plain.returncode, plain.stdout) == (BAD_FILE, "") and plain.stderr.count("\n") == 1
    debug = crmarena("query", "--db", str(files / "text.db"), "SELECT Id FROM Case", env={"CRMARENA_DEBUG": "1"})
    assert debug.returncode == BAD_FILE and "Traceback (most recent call last)" in debug.stderr
    assert debug.stderr.splitlines()[-1] == plain.stderr.strip()


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    records = tiny_records()
    records["Product2"] += [{"Id": rid("01t", 100 + i), "Name": f"Item {i:04d}"} for i in range(3000)]
    build_org(tmp_path / "big.db", records).close()  # its answer is far more than a pipe holds
    command = (
        f"{sys.executable} -m eval_suite.commands.cli query --db {tmp_path / 'big.db'} --all 'SELECT Id, Name FROM Product2'"
        " | head -c 10 > /dev/null; echo ${PIPESTATUS[0]}"
    )
    result = subprocess.run(
        ["bash", "-c", command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "CRMARENA_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert result.stdout.strip() == str(BROKEN_PIPE) and "Traceback" not in result.stderr
    assert "BrokenPipe" not in result.stderr and "Exception ignored" not in result.stderr


def test_a_bug_is_one_line_with_the_debug_hint(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("CRMARENA_DEBUG", raising=False)
    monkeypatch.setattr("soql_parser.to_text", lambda tree: 1 / 0)
    assert main(["parse", "SELECT Id FROM Case"]) == INTERNAL
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: ZeroDivisionError" in err and "CRMARENA_DEBUG=1" in err


def test_version(capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.startswith("crmarena 0.")


def test_an_unreachable_model_endpoint_is_unavailable_and_leaves_nothing(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    with socket.create_server(("127.0.0.1", 0)) as probe:
        closed = probe.getsockname()[1]  # nothing listens there once the block ends
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{closed}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    assert main(["fixtures", "build", "--scale", "0.01", "--llm", "m", "--out", str(tmp_path / "out")]) == UNAVAILABLE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did not answer" in err
    assert list(tmp_path.iterdir()) == []
