"""The Docker backend: the org served by the project's image in a container of its own, through the docker SDK.

The image (``$CRMARENA_PYTEST_IMAGE``, else ``crmarena-selfhosted:<version>``) is built from the checkout's
Dockerfile when the daemon lacks it. The container shares the host's network (as .ci/docker-smoke runs it: no
bridge is needed) and listens on 127.0.0.1 on a free port; the org is ready when its HEALTHCHECK passes; the CA
it made at first start is exported with `crmarena tls export`. Every call to the daemon has a timeout, and the
container is removed however the session ends.
"""

from __future__ import annotations

import io
import itertools
import os
import shlex
import socket
import tarfile
import tempfile
import time
import warnings
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .served_org import Credentials, OrgUnavailable, ServedOrg

if TYPE_CHECKING:
    from docker.models.containers import Container

    from docker import DockerClient

CALL_TIMEOUT = 60  # seconds for any one call to the daemon
BUILD_TIMEOUT = 1800  # seconds for building the image, the one long call
HEALTH_TIMEOUT = 180.0  # seconds for a started container to pass its health check
ROOT = Path(__file__).resolve().parents[2]  # the checkout (its Dockerfile), when installed from one
ORG_DIR = "/var/lib/crmarena/pytest-org"  # where a --crm-org-seed or --crm-org-dump database goes in the container
_names = itertools.count()


def image_tag() -> str:
    return os.environ.get("CRMARENA_PYTEST_IMAGE") or f"crmarena-selfhosted:{metadata.version('crmarena-selfhosted')}"


def docker_client() -> DockerClient:
    """A client of the daemon $DOCKER_HOST names (else the default socket), checked to answer."""
    try:
        from docker.errors import DockerException

        import docker
    except ImportError as error:
        raise OrgUnavailable(f"the Docker backend needs the docker package ({error})") from None
    try:
        client = docker.from_env(timeout=CALL_TIMEOUT)
        client.ping()
    except DockerException as error:
        raise OrgUnavailable(
            f"no Docker daemon reachable ({_first_line(error)}); start one, set DOCKER_HOST, "
            "or use --crm-org-backend inprocess"
        ) from None
    return client


def ensure_image(client: DockerClient, tag: str) -> None:
    """Build ``tag`` from the checkout's Dockerfile unless the daemon has it."""
    from docker.errors import BuildError, DockerException, ImageNotFound

    try:
        client.images.get(tag)
        return
    except ImageNotFound:
        pass
    if not (ROOT / "Dockerfile").is_file():
        raise OrgUnavailable(
            f"the image {tag} is missing and there is no Dockerfile beside this installation to "
            "build it from: build it from a checkout (docker build -t TAG .) and set "
            "CRMARENA_PYTEST_IMAGE=TAG"
        )
    try:
        client.images.build(path=str(ROOT), tag=tag, network_mode="host", rm=True, forcerm=True, timeout=BUILD_TIMEOUT)
    except BuildError as error:
        raise OrgUnavailable(f"building the image {tag} from {ROOT / 'Dockerfile'} failed: {error.msg}") from None
    except DockerException as error:
        raise OrgUnavailable(f"building the image {tag} failed: {_first_line(error)}") from None


class DockerOrg(ServedOrg):
    """The image serving a throw-away copy of its default org, or of ``source`` copied into the container;
    ``reset()`` restarts the container, whose server makes a new copy."""

    def __init__(self, source: Path | None) -> None:
        from docker.errors import DockerException

        self._client = docker_client()
        tag = image_tag()
        ensure_image(self._client, tag)
        self._scratch = tempfile.TemporaryDirectory(prefix="crmarena-pytest-")
        self._container: Container | None = None
        port = _free_port()
        command = ["serve", "--copy"]
        if source is not None:
            command += ["--db", f"{ORG_DIR}/{source.name}"]
        try:
            self._container = self._client.containers.create(
                tag,
                command,
                name=f"crmarena-pytest-{os.getpid()}-{next(_names)}",
                network_mode="host",
                environment={"CRMARENA_HOST": "127.0.0.1", "CRMARENA_PORT": str(port), "CRMARENA_HTTP_PORT": ""},
                healthcheck={
                    "test": ["CMD", "crmarena", "serve", "--check"],
                    "interval": 500_000_000,
                    "timeout": 5_000_000_000,
                    "retries": 3,
                },
                labels={"crmarena.pytest": str(os.getpid())},
            )
            if source is not None:
                self._container.put_archive("/var/lib/crmarena", _org_archive(source))
            self._container.start()
            self._wait_healthy()
            self.credentials = self._read_credentials(port)
        except DockerException as error:
            self.close()
            raise OrgUnavailable(f"the container of {tag} failed: {_first_line(error)}") from None
        except BaseException:  # a failed start or Ctrl-C leaves no container behind
            self.close()
            raise

    def _wait_healthy(self) -> None:
        assert self._container is not None
        deadline = time.monotonic() + HEALTH_TIMEOUT
        while True:
            self._container.reload()
            state: dict[str, Any] = self._container.attrs["State"]
            if state.get("Health", {}).get("Status") == "healthy":
                return
            if state["Status"] not in ("created", "running", "restarting"):
                raise OrgUnavailable(f"the org's container stopped ({state['Status']}): {self._log_tail()}")
            if time.monotonic() > deadline:
                raise OrgUnavailable(
                    f"the org's container was not healthy within {HEALTH_TIMEOUT:.0f} s: {self._log_tail()}"
                )
            time.sleep(0.25)

    def _read_credentials(self, port: int) -> Credentials:
        """The administrator's credentials from the banner `crmarena serve` prints, the CA from the container."""
        assert self._container is not None
        exported = {}
        for line in self._container.logs(stdout=True, stderr=False).decode(errors="replace").splitlines():
            if line.startswith("export CRMARENA_"):
                name, _, value = line.removeprefix("export ").partition("=")
                exported[name] = shlex.split(value)[0] if value else ""
        code, ca = self._container.exec_run(["crmarena", "tls", "export", "-"], stdout=True, stderr=False)
        if code != 0 or b"BEGIN CERTIFICATE" not in ca:
            raise OrgUnavailable(f"crmarena tls export failed in the container (exit {code})")
        ca_bundle = Path(self._scratch.name) / "ca.pem"
        ca_bundle.write_bytes(ca)
        try:
            username, password = exported["CRMARENA_USERNAME"], exported["CRMARENA_PASSWORD"]
            token = exported["CRMARENA_SECURITY_TOKEN"]
        except KeyError as missing:
            raise OrgUnavailable(f"the container's banner did not export {missing}: {self._log_tail()}") from None
        return Credentials(f"https://127.0.0.1:{port}", username, password, token, ca_bundle)

    def _log_tail(self) -> str:
        assert self._container is not None
        try:
            lines = self._container.logs(tail=5).decode(errors="replace").strip().splitlines()
        except Exception as error:  # the logs are only a hint; the failure being reported is the point
            return f"(no logs: {_first_line(error)})"
        return " | ".join(lines) or "(no output)"

    def reset(self) -> None:
        assert self._container is not None
        self._container.restart(timeout=10)
        self._wait_healthy()

    def close(self) -> None:
        if self._container is not None:
            try:
                self._container.remove(force=True)
            except Exception as error:  # the daemon went away: say what to remove by hand, keep the real error
                warnings.warn(
                    f"crmarena: could not remove the container {self._container.name}: {_first_line(error)}",
                    stacklevel=2,
                )
            self._container = None
        self._scratch.cleanup()


def _org_archive(source: Path) -> bytes:
    """A tar of the database (and the manifest beside it, which dates the org) owned by the image's user."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        folder = tarfile.TarInfo(Path(ORG_DIR).name)
        folder.type, folder.mode, folder.uid, folder.gid = tarfile.DIRTYPE, 0o755, 10001, 10001
        archive.addfile(folder)
        for path in (source, source.with_name("manifest.json")):
            if path.is_file():
                archive.add(path, f"{folder.name}/{path.name}", filter=_owned_by_image_user)
    return buffer.getvalue()


def _owned_by_image_user(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 10001
    info.uname = info.gname = "crmarena"
    info.mode = 0o644
    return info


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
