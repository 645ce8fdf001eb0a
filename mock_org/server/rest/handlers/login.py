"""Logging in: the partner SOAP API's ``login``/``logout`` and the OAuth 2.0 token and revoke endpoints.

They answer on any path that ends in ``/services/Soap/u/{version}`` or ``/services/oauth2/token``, so
``Salesforce(…, domain="127.0.0.1:8443/login")`` works: simple-salesforce then posts to
``/login.salesforce.com/services/Soap/u/59.0`` (reference/salesforce_api.md §1.1). Each protocol
reports failures in its own shape (errors.soap_fault, errors.oauth_error).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
import xml.etree.ElementTree as ElementTree
from html import escape

from flask import Response, request

from ....auth import InvalidLogin, User
from ..errors import SOAP_XML, oauth_error, soap_fault
from ..state import base_url, state
from ..wire import json_response
from . import soap_calls

PARTNER = "urn:partner.soap.sforce.com"
MAX_SOAP_BYTES = 64 * 1024
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"


def _local(tag: str) -> tuple[str, str]:
    namespace, _, name = tag.rpartition("}")
    return namespace.lstrip("{"), name


def _partner_element(root: ElementTree.Element, name: str) -> ElementTree.Element | None:
    return next((element for element in root.iter() if _local(element.tag) == (PARTNER, name)), None)


def _text(parent: ElementTree.Element, name: str) -> str:
    child = next((element for element in parent if _local(element.tag) == (PARTNER, name)), None)
    return (child.text or "") if child is not None else ""


def soap(soap_version: str, prefix: str = "") -> Response:
    """``login`` (username, then password followed by the security token), ``logout`` (SessionHeader) or
    ``convertLead`` (SessionHeader; soap_calls.py)."""
    raw = request.get_data(cache=False)
    if len(raw) > MAX_SOAP_BYTES:
        return soap_fault("INVALID_LOGIN", "The request is too large")
    try:
        root = ElementTree.fromstring(raw)
    except ElementTree.ParseError:
        return soap_fault("UNKNOWN_EXCEPTION", "The SOAP request could not be parsed")
    login = _partner_element(root, "login")
    if login is not None:
        try:
            user = state().auth.authenticate(_text(login, "username"), _text(login, "password"), _address())
        except InvalidLogin as error:
            return soap_fault(error.error_code, error.message)
        return _login_response(user, soap_version, state().auth.issue(user))
    convert = _partner_element(root, "convertLead")
    if convert is not None:
        return soap_calls.convert_lead(root, convert, _envelope)
    if _partner_element(root, "logout") is not None:
        header = _partner_element(root, "sessionId")
        state().auth.revoke((header.text or "") if header is not None else "")
        body = '<logoutResponse xmlns="urn:partner.soap.sforce.com"/>'
        return Response(_envelope(body), status=200, content_type=SOAP_XML)
    return soap_fault("UNKNOWN_EXCEPTION", "Only login, logout and convertLead are served on this endpoint")


def _envelope(body: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" '
        'xmlns="urn:partner.soap.sforce.com" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
        f"<soapenv:Body>{body}</soapenv:Body></soapenv:Envelope>"
    )


def _login_response(user: User, soap_version: str, session_id: str) -> Response:
    """The LoginResult; ``sessionId`` and ``serverUrl`` unprefixed and without attributes (simple-salesforce
    cuts them out of ``toxml()``), and the four values jsforce's regexes need."""
    auth = state().auth
    org = auth.org
    server = f"{base_url()}/services/Soap/u/{soap_version}/{org.id15}"
    metadata = f"{base_url()}/services/Soap/m/{soap_version}/{org.id15}"
    info = {
        "accessibilityMode": "false",
        "chatterExternal": "false",
        "currencySymbol": "$",
        "orgAttachmentFileSizeLimit": "5242880",
        "orgDefaultCurrencyIsoCode": "USD",
        "orgDefaultCurrencyLocale": "en_US",
        "orgDisallowHtmlAttachments": "false",
        "orgHasPersonAccounts": "true",
        "organizationId": org.id,
        "organizationMultiCurrency": "false",
        "organizationName": org.name,
        "roleId": None,
        "sessionSecondsValid": str(int(auth.config.session_seconds)),
        "userDefaultCurrencyIsoCode": None,
        "userEmail": user.email or "",
        "userFullName": user.name,
        "userId": user.id,
        "userLanguage": user.language,
        "userLocale": user.locale,
        "userName": user.username,
        "userTimeZone": user.timezone,
        "userType": "Standard",
        "userUiSkin": "Theme3",
    }
    user_info = "".join(
        f'<{key} xsi:nil="true"/>' if value is None else f"<{key}>{escape(value)}</{key}>"
        for key, value in info.items()
    )
    result = (
        f"<metadataServerUrl>{escape(metadata)}</metadataServerUrl><passwordExpired>false</passwordExpired>"
        f"<sandbox>false</sandbox><serverUrl>{escape(server)}</serverUrl><sessionId>{session_id}</sessionId>"
        f"<userId>{user.id}</userId><userInfo>{user_info}</userInfo>"
    )
    body = f"<loginResponse><result>{result}</result></loginResponse>"
    return Response(_envelope(body), status=200, content_type=SOAP_XML)


# ----------------------------------------------------------------------------- OAuth 2.0


def _address() -> str:
    """The client's address: failed logins lock a user out from there (lockout.py)."""
    return request.remote_addr or ""


def _client() -> tuple[str | None, str | None]:
    """The consumer key and secret, from HTTP Basic auth or the form (client_credentials allows both)."""
    basic = request.authorization
    if basic is not None and basic.type == "basic":
        return basic.username, basic.password
    return request.form.get("client_id"), request.form.get("client_secret")


def token(prefix: str = "") -> Response:
    """``POST …/services/oauth2/token`` for the password, client_credentials, refresh_token and JWT grants."""
    auth = state().auth
    grant = request.form.get("grant_type", "")
    client_id, client_secret = _client()
    try:
        if grant == "password":
            if not auth.known_client(client_id):
                return oauth_error("invalid_client_id", "client identifier invalid")
            if not auth.check_client(client_id, client_secret):
                return oauth_error("invalid_client", "invalid client credentials")
            user = auth.authenticate(request.form.get("username", ""), request.form.get("password", ""), _address())
            refresh = "refresh_token" in request.form.get("scope", "").split()
            return _token_response(user, refresh=refresh)
        if grant == "client_credentials":
            try:
                return _token_response(auth.client_credentials(client_id, client_secret, _address()))
            except InvalidLogin:
                return oauth_error("invalid_client", "invalid client credentials")
        if grant == "refresh_token":
            if not auth.known_client(client_id):
                return oauth_error("invalid_client_id", "client identifier invalid")
            return _token_response(auth.redeem(request.form.get("refresh_token", "")))
        if grant == JWT_BEARER:
            return _token_response(auth.jwt_user(request.form.get("assertion", "")))
    except InvalidLogin as error:
        description = "authentication failure" if error.message.startswith("Invalid username") else error.message
        return oauth_error("invalid_grant", description)
    return oauth_error("unsupported_grant_type", "grant type not supported")


def _token_response(user: User, *, refresh: bool = False) -> Response:
    auth = state().auth
    identity = f"{base_url()}/id/{auth.org.id}/{user.id}"
    issued_at = str(int(time.time() * 1000))
    signature = hmac.new(auth.org.id.encode(), (identity + issued_at).encode(), hashlib.sha256).digest()
    body = {
        "access_token": auth.issue(user),
        "instance_url": base_url(),  # no trailing slash: simple-salesforce keeps any path it finds here
        "id": identity,
        "token_type": "Bearer",
        "issued_at": issued_at,
        "signature": base64.b64encode(signature).decode(),
    }
    if refresh:
        body["refresh_token"] = auth.issue(user, refresh=True)
    body["scope"] = "api refresh_token" if refresh else "api"
    return json_response(body)


def revoke(prefix: str = "") -> Response:
    """``…/services/oauth2/revoke?token=…``: 200 with an empty body, as jsforce's logout expects."""
    if state().auth.revoke(request.values.get("token", "")):
        return Response(status=200, content_type="text/plain")
    return oauth_error("unsupported_token_type", "this token type is not supported")
