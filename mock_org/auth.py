"""Who may use the org: users and their secrets, the connected app, and session tokens.

Users are the org's User records. A user's password and security token default to values derived
from the username (``default_password``, ``default_security_token``), so every user of a generated
org can log in with nothing configured; the administrator's can be set from the environment
(``AuthConfig.from_env``). Secrets are kept only as salted PBKDF2 digests and compared in constant
time; session and refresh tokens are kept only as SHA-256 digests. No HTTP here: the server's login
handlers speak SOAP and OAuth on top of this module.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import string
import time
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jwt
from cryptography import x509
from cryptography.hazmat.primitives.serialization import load_pem_public_key
from sqlalchemy import func, select

from .clock import OrgClock
from .errors import InvalidNewPassword, InvalidSessionId, SalesforceError
from .ids import is_id, make_id, to18
from .lockout import Lockout, LockoutPolicy
from .shared import LocalState, SharedState
from .storage import Storage

_ITERATIONS = 20_000
_TOKEN_ALPHABET = string.ascii_letters + string.digits
SESSION_SECONDS = 7200  # a real org's default session timeout (sessionSecondsValid)
# A real org's default password policy: 10 invalid attempts lock the user out for 15 minutes (lockout.py).
LOCKOUT_ATTEMPTS = 10
LOCKOUT_SECONDS = 15 * 60
# How stale a session's last use may be in shared state: its idle timer is written back at most this often.
TOUCH_SECONDS = 1.0
INVALID_LOGIN_MESSAGE = "Invalid username, password, security token; or user locked out."
DEFAULT_CLIENT_ID = "crmarena-mock-client"
DEFAULT_CLIENT_SECRET = "crmarena-mock-secret"  # public: it alone never logs anyone in (see AuthConfig)
FALLBACK_ORG_ID = make_id("00D", 1)


class InvalidLogin(SalesforceError):
    """Wrong username, password or token: the login endpoints answer with their own fault shapes."""

    error_code = "INVALID_LOGIN"


def default_password(username: str) -> str:
    """The password every user has unless configured: the username's local part plus ``-crmarena``."""
    return username.split("@", 1)[0] + "-crmarena"


def default_security_token(username: str) -> str:
    """The security token every user has unless configured: 24 characters derived from the username."""
    return hashlib.sha256(f"crmarena security token {username.casefold()}".encode()).hexdigest()[:24].upper()


def admin_secrets(config: AuthConfig, username: str) -> tuple[str, str]:
    """The administrator's password and security token: the configured ones, else the derived defaults."""
    password = config.admin_password or default_password(username)
    token = config.security_token if config.security_token is not None else default_security_token(username)
    return password, token


def check_password_policy(password: str) -> None:
    """The default password policy of an org: at least 8 characters, letters and numbers mixed."""
    if len(password) < 8:
        raise InvalidNewPassword("Your password must be at least 8 characters long.")
    if not (any(char.isalpha() for char in password) and any(char.isdigit() for char in password)):
        raise InvalidNewPassword("Your password must have a mix of letters and numbers.")


@dataclass(frozen=True)
class Secret:
    """A salted PBKDF2-SHA256 digest of a secret; the secret itself is never kept."""

    salt: bytes
    digest: bytes

    @classmethod
    def of(cls, text: str) -> Secret:
        salt = secrets.token_bytes(16)
        return cls(salt, _derive(text, salt))

    def matches(self, text: str) -> bool:
        return hmac.compare_digest(self.digest, _derive(text, self.salt))


def _derive(text: str, salt: bytes) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", text.encode("utf-8"), salt, _ITERATIONS)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class AuthConfig:
    """The administrator's credentials and the connected app; None means the derived default.

    Without a configured ``client_secret`` the connected app takes the public default secret for the
    grants that also need a user's password (password, refresh_token), while the client_credentials
    grant, which logs in as the administrator on the secret alone, takes only this org's own secret:
    one made when the server starts (``Authenticator.app_secret``, printed in the banner)."""

    admin_username: str | None = None
    admin_password: str | None = None
    security_token: str | None = None
    client_id: str = DEFAULT_CLIENT_ID
    client_secret: str | None = None
    session_seconds: float = SESSION_SECONDS
    jwt_public_key: str | None = None  # PEM certificate or public key of the connected app
    lockout_attempts: int = LOCKOUT_ATTEMPTS  # 0: never lock anyone out
    lockout_seconds: float = LOCKOUT_SECONDS

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> AuthConfig:
        key_path = env.get("CRMARENA_JWT_CERT")
        return cls(
            admin_username=env.get("CRMARENA_ADMIN_USERNAME") or None,
            admin_password=env.get("CRMARENA_ADMIN_PASSWORD") or None,
            security_token=env.get("CRMARENA_SECURITY_TOKEN"),
            client_id=env.get("CRMARENA_CLIENT_ID") or DEFAULT_CLIENT_ID,
            client_secret=env.get("CRMARENA_CLIENT_SECRET") or None,
            jwt_public_key=Path(key_path).read_text(encoding="ascii") if key_path else None,
        )  # the session timeout and the lockout are limits (server/limits.py: flags and variables)


@dataclass(frozen=True)
class User:
    """The parts of a User record that logins, userinfo and identity report."""

    id: str
    username: str
    name: str
    first_name: str | None
    last_name: str | None
    email: str | None
    active: bool
    timezone: str
    language: str
    locale: str


@dataclass(frozen=True)
class OrgIdentity:
    id: str
    name: str

    @property
    def id15(self) -> str:
        return self.id[:15]


@dataclass
class Session:
    user: User
    last_used: float
    refresh: bool = False
    clock: OrgClock | None = None  # this session's own "today" (the mock-only clock resource), else the org's
    digest: str = ""  # the key it is kept under (the token's SHA-256)


_USER_COLUMNS = (
    "Id",
    "Username",
    "Name",
    "FirstName",
    "LastName",
    "Email",
    "IsActive",
    "TimeZoneSidKey",
    "LanguageLocaleKey",
    "LocaleSidKey",
)


class Directory:
    """Users and the org's identity, read from the org's own records (they can change). A user looked
    up by Id is kept until anything in the file changes (``Storage.version``): every authenticated
    request looks its user up, and a deactivation must still hold at the next request."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._by_id: dict[str, tuple[int, User | None]] = {}
        schema = storage.schema
        self._users = storage.table(schema["User"])
        self._profiles = storage.table(schema["Profile"]) if schema.get("Profile") else None
        self._organization = storage.table(schema["Organization"]) if schema.get("Organization") else None

    def organization(self) -> OrgIdentity:
        if self._organization is not None:
            table = self._organization
            with self.storage.read() as connection:
                row = connection.execute(select(table.c.Id, table.c.Name).limit(1)).first()
            if row is not None:
                return OrgIdentity(row.Id, row.Name or "Mock Org")
        return OrgIdentity(FALLBACK_ORG_ID, "Mock Org")

    def _select(self) -> Any:
        return select(*(self._users.c[name] for name in _USER_COLUMNS)).where(self._users.c.IsDeleted == 0)

    def by_id(self, user_id: str) -> User | None:
        """A user by its 15- or 18-character Id."""
        if not is_id(user_id):
            return None
        key = to18(user_id)
        cacheable = not self.storage.in_write()
        version = self.storage.version() if cacheable else -1
        kept = self._by_id.get(key)
        if kept is not None and kept[0] == version:
            return kept[1]
        query = self._select().where(self._users.c.Id == key)
        with self.storage.read() as connection:
            row = connection.execute(query).mappings().first()
        found = _user(row) if row else None
        if cacheable:
            if len(self._by_id) > 10_000:
                self._by_id.clear()
            self._by_id[key] = (version, found)
        return found

    def by_username(self, username: str) -> User | None:
        query = self._select().where(func.sf_fold(self._users.c.Username) == username.casefold())
        with self.storage.read() as connection:
            row = connection.execute(query).mappings().first()
        return _user(row) if row else None

    def administrator(self) -> User | None:
        """The org's administrator: the first active user with the System Administrator profile, else the first user."""
        query = self._select().where(self._users.c.IsActive == 1).order_by(self._users.c.Id)
        if self._profiles is not None:
            admins = select(self._profiles.c.Id).where(self._profiles.c.Name == "System Administrator")
            with self.storage.read() as connection:
                row = connection.execute(query.where(self._users.c.ProfileId.in_(admins))).mappings().first()
            if row:
                return _user(row)
        with self.storage.read() as connection:
            row = connection.execute(query).mappings().first()
        return _user(row) if row else None


def _user(row: Mapping[Any, Any]) -> User:  # a RowMapping: keyed by column names (or the columns)
    return User(
        id=row["Id"],
        username=row["Username"],
        name=row["Name"] or row["Username"],
        first_name=row["FirstName"],
        last_name=row["LastName"],
        email=row["Email"],
        active=bool(row["IsActive"]),
        timezone=row["TimeZoneSidKey"] or "America/Los_Angeles",
        language=row["LanguageLocaleKey"] or "en_US",
        locale=row["LocaleSidKey"] or "en_US",
    )


@dataclass
class _Credentials:
    password: Secret
    password_and_token: Secret


@dataclass
class Authenticator:
    """Checks logins and issues, checks and revokes tokens. Thread-safe; with a shared ``state``
    (shared.py) the workers of one server see each other's sessions, passwords and lockouts
    (``now`` is then the system-wide monotonic clock, the same in every process)."""

    storage: Storage
    config: AuthConfig = field(default_factory=AuthConfig)
    now: Callable[[], float] = time.monotonic
    state: SharedState = field(default_factory=LocalState)

    def __post_init__(self) -> None:
        self.directory = Directory(self.storage)
        self.org = self.directory.organization()
        self._lock = self.state.lock
        self._credentials: MutableMapping[str, _Credentials] = self.state.table("credentials")
        self._sessions: MutableMapping[str, Session] = self.state.table("sessions", cached=True)
        policy = LockoutPolicy(self.config.lockout_attempts, self.config.lockout_seconds)
        self.lockout = Lockout(self.state, policy, lambda: self.now())
        self._client_secret = Secret.of(self.config.client_secret or DEFAULT_CLIENT_SECRET)
        self.app_secret = self._app_secret()
        self._app_secret_digest = Secret.of(self.app_secret)
        self.admin = self._provision_admin()

    def _app_secret(self) -> str:
        """The secret of the client_credentials grant: the configured one, else this org's own, made
        once when the server starts (the workers of one server share it)."""
        if self.config.client_secret:
            return self.config.client_secret
        made = "".join(secrets.choice(_TOKEN_ALPHABET) for _ in range(40))
        with self._lock:
            return str(self.state.table("app").setdefault("client_credentials_secret", made))

    # ------------------------------------------------------------------- users and secrets

    def _provision_admin(self) -> User:
        record = self.directory.administrator()
        configured = self.config.admin_username
        if configured and (found := self.directory.by_username(configured)) is not None:
            record = found
        if record is None:
            record = User(
                make_id("005", 1),
                configured or "admin@mock.org",
                "Admin",
                None,
                "Admin",
                None,
                True,
                "America/Los_Angeles",
                "en_US",
                "en_US",
            )
        if configured:
            record = User(**{**record.__dict__, "username": configured})
        password, token = admin_secrets(self.config, record.username)
        # A worker starting late keeps a password another worker's client has already changed.
        credentials = _Credentials(Secret.of(password), Secret.of(password + token))
        self._credentials.setdefault(record.username.casefold(), credentials)
        return record

    def _user(self, username: str) -> User | None:
        if username.casefold() == self.admin.username.casefold():
            return self.admin
        return self.directory.by_username(username)

    def _secrets_of(self, user: User) -> _Credentials:
        key = user.username.casefold()
        with self._lock:
            known = self._credentials.get(key)
        if known is None:
            password, token = default_password(user.username), default_security_token(user.username)
            known = _Credentials(Secret.of(password), Secret.of(password + token))
            with self._lock:
                known = self._credentials.setdefault(key, known)
        return known

    def authenticate(self, username: str, password: str, address: str = "") -> User:
        """The user whose password (followed by the security token, or alone as from a trusted network) matches.

        After ``lockout_attempts`` failures in a row from the client ``address`` a user is locked out
        from there for ``lockout_seconds`` (lockout.py): even the right password fails, with the same
        message (it says "or user locked out").
        """
        user = self._user(username.strip()) if username else None
        key = Lockout.key(user.username, address) if user is not None else ""
        if user is None or not user.active or not self.lockout.begin(key):
            Secret.of(password).matches(password)  # as slow as a real check, so timing does not reveal usernames
            raise InvalidLogin(INVALID_LOGIN_MESSAGE)
        credentials = self._secrets_of(user)
        with_token = credentials.password_and_token.matches(password)
        alone = credentials.password.matches(password)
        if not (with_token or alone):
            raise InvalidLogin(INVALID_LOGIN_MESSAGE)
        self.lockout.succeeded(key)
        return user

    # ------------------------------------------------------------------- passwords

    def set_password(self, user: User, password: str) -> None:
        """A new password for ``user`` (its security token stays). Like sessions, a changed password
        lives as long as the server; a restart brings back the derived or configured one."""
        check_password_policy(password)
        token = self._security_token(user)
        with self._lock:
            self._credentials[user.username.casefold()] = _Credentials(Secret.of(password), Secret.of(password + token))

    def reset_password(self, user: User) -> str:
        """Give ``user`` a generated password and return it, as ``DELETE …/User/{id}/password`` does."""
        password = "".join(secrets.choice(_TOKEN_ALPHABET) for _ in range(10)) + secrets.choice(string.digits)
        self.set_password(user, password)
        return password

    def _security_token(self, user: User) -> str:
        if user.username.casefold() == self.admin.username.casefold():
            return admin_secrets(self.config, user.username)[1]
        return default_security_token(user.username)

    def check_client(self, client_id: str | None, client_secret: str | None) -> bool:
        """Whether the connected app's consumer key and secret are right (for the grants that also need a password)."""
        same_id = hmac.compare_digest((client_id or "").encode(), self.config.client_id.encode())
        return self._client_secret.matches(client_secret or "") and same_id

    def client_credentials(self, client_id: str | None, client_secret: str | None, address: str = "") -> User:
        """The administrator, for the connected app's consumer key and this org's own secret. A wrong
        secret counts as a failed login of the administrator from ``address``: the same lockout holds."""
        key = Lockout.key(self.admin.username, address)
        if not self.lockout.begin(key):
            Secret.of(client_secret or "").matches(client_secret or "")
            raise InvalidLogin("invalid client credentials")
        same_id = hmac.compare_digest((client_id or "").encode(), self.config.client_id.encode())
        if not (self._app_secret_digest.matches(client_secret or "") and same_id):
            raise InvalidLogin("invalid client credentials")
        self.lockout.succeeded(key)
        return self.admin

    def known_client(self, client_id: str | None) -> bool:
        return hmac.compare_digest((client_id or "").encode(), self.config.client_id.encode())

    def jwt_user(self, assertion: str) -> User:
        """The user a connected app's signed JWT (RS256, ``iss`` = consumer key, ``sub`` = username) names."""
        key = self._jwt_key()
        try:
            claims = jwt.decode(
                assertion, key, algorithms=["RS256"], options={"verify_exp": False, "verify_aud": False}
            )  # simple-salesforce sends ``exp`` as a string, which PyJWT's own check rejects
            expires = float(claims["exp"])
        except (jwt.PyJWTError, KeyError, TypeError, ValueError):
            raise InvalidLogin("invalid assertion") from None
        if not self.known_client(claims.get("iss")) or expires < time.time():
            raise InvalidLogin("invalid assertion")
        user = self._user(str(claims.get("sub") or ""))
        if user is None or not user.active:
            raise InvalidLogin("user hasn't approved this consumer")
        return user

    def _jwt_key(self) -> Any:
        pem = self.config.jwt_public_key
        if not pem:
            raise InvalidLogin("invalid assertion")
        data = pem.encode("ascii")
        if b"BEGIN CERTIFICATE" in data:
            return x509.load_pem_x509_certificate(data).public_key()
        return load_pem_public_key(data)

    # ------------------------------------------------------------------- tokens

    def issue(self, user: User, *, refresh: bool = False, clock: OrgClock | None = None) -> str:
        """A new session id (``00D…!…``, the shape the sf CLI insists on) or refresh token for ``user``."""
        body = "".join(secrets.choice(_TOKEN_ALPHABET) for _ in range(96))
        token = f"{self.org.id15}!AQ{body[:30]}.{body[30:]}" if not refresh else f"5Aep861{body[:80]}"
        with self._lock:
            self._expire()
            key = _digest(token)
            self._sessions[key] = Session(user, self.now(), refresh, clock=clock, digest=key)
        return token

    def verify(self, token: str | None) -> Session:
        """The live session of an access token; using it keeps it alive (the timeout counts idle time).

        The user is read afresh each time: deactivating (or deleting) a user ends its sessions.
        """
        key = _digest(token or "")
        session = self._sessions.get(key) if token else None
        if session is None or session.refresh or self._expired(session):
            raise InvalidSessionId("Session expired or invalid")
        previous, session.last_used = session.last_used, self.now()
        if session.last_used - previous >= TOUCH_SECONDS:
            with self._lock:  # written back (for other workers) once a second at most, unless it ended meanwhile
                if key in self._sessions:
                    self._sessions[key] = session
        current = self._current(session.user)
        if current is None:
            self.revoke(token or "")
            raise InvalidSessionId("Session expired or invalid")
        session.user = current
        return session

    def _current(self, user: User) -> User | None:
        """``user`` as its record stands now; None once it is inactive or gone. The administrator keeps
        its configured username, and one the org has no record of (an empty org) stays as it is."""
        current = self.directory.by_id(user.id)
        if current is None and user.id == self.admin.id:
            return user
        if current is None or not current.active:
            return None
        return user if user.id == self.admin.id else current

    def save(self, session: Session) -> None:
        """Keep a change to a live session (its clock) where every worker sees it."""
        with self._lock:
            if session.digest in self._sessions:
                self._sessions[session.digest] = session

    def has_session(self, token: str | None) -> bool:
        """Whether ``token`` is a live access token (no org read, no lock: the front asks this per request)."""
        session = self._sessions.get(_digest(token or "")) if token else None
        return session is not None and not session.refresh and not self._expired(session)

    def redeem(self, refresh_token: str) -> User:
        """The user of a refresh token (refresh tokens do not expire until revoked)."""
        with self._lock:
            session = self._sessions.get(_digest(refresh_token or ""))
        if session is None or not session.refresh or self._current(session.user) is None:
            raise InvalidLogin("expired access/refresh token")
        return session.user

    def revoke(self, token: str) -> bool:
        with self._lock:
            return self._sessions.pop(_digest(token or ""), None) is not None

    def _expired(self, session: Session) -> bool:
        return not session.refresh and self.now() - session.last_used > self.config.session_seconds

    def _expire(self) -> None:
        for key in [key for key, session in self._sessions.items() if self._expired(session)]:
            del self._sessions[key]
