# The mock Salesforce org, serving the default CRMArena org on start (HTTPS on 443, plain HTTP on 8080).
#
#   docker build -t crmarena .
#   docker run --rm -p 8443:443 -p 8080:8080 crmarena                       # serve
#   docker run --rm --add-host login.salesforce.com:127.0.0.1 \
#       --add-host test.salesforce.com:127.0.0.1 crmarena eval ...          # any crmarena command, org served beside it
#
# Every step is a command the test suite runs too: pip install -e, `crmarena serve --prepare-only`,
# `crmarena serve`, `crmarena serve --check`.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    CRMARENA_CACHE_DIR=/var/lib/crmarena \
    CRMARENA_TLS_DIR=/var/lib/crmarena/tls \
    REQUESTS_CA_BUNDLE=/var/lib/crmarena/tls/bundle.pem \
    NODE_EXTRA_CA_CERTS=/var/lib/crmarena/tls/ca.pem

WORKDIR /opt/crmarena
COPY pyproject.toml README.md ./
COPY soql_parser ./soql_parser
COPY mock_org ./mock_org
COPY fixtures ./fixtures
COPY eval_suite ./eval_suite
COPY docker/entrypoint.sh /usr/local/bin/crmarena-entrypoint

# Install the project, unpack and prepare the default org, make the mock CA and trust it system-wide.
RUN pip install --no-cache-dir -e . \
    && groupadd --system --gid 10001 crmarena \
    && useradd --system --create-home --uid 10001 --gid 10001 crmarena \
    && crmarena serve --prepare-only \
    && cp "$CRMARENA_TLS_DIR/ca.pem" /usr/local/share/ca-certificates/crmarena-mock-ca.crt \
    && update-ca-certificates \
    && chown -R crmarena:crmarena /var/lib/crmarena \
    && chmod 0755 /usr/local/bin/crmarena-entrypoint

USER 10001:10001
EXPOSE 443 8080
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
    CMD ["crmarena", "serve", "--check", "--port", "443"]
ENTRYPOINT ["crmarena-entrypoint"]
CMD ["serve", "--host", "0.0.0.0", "--port", "443", "--http-port", "8080"]
