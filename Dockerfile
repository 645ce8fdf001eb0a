# The mock Salesforce org, serving the default CRMArena org on start (HTTPS on 8443, plain HTTP on 8080).
#
#   docker build -t crmarena .
#   docker run --rm --name crmarena -p 8443:8443 -p 8080:8080 crmarena      # serve (map 443:8443 for 443)
#   docker exec crmarena crmarena tls export - > crmarena-ca.pem            # the CA a host client trusts
#   docker run --rm crmarena query "SELECT COUNT() FROM Case"               # any command, org served beside it
#
# Ports, listen address, extra certificate names and the number of server processes come from
# CRMARENA_PORT, CRMARENA_HTTP_PORT, CRMARENA_HOST, CRMARENA_TLS_NAMES and CRMARENA_WORKERS. The CA and
# its key are made when the container first starts, never at build time, so no two containers share a
# CA key and none is baked into the image.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    CRMARENA_CACHE_DIR=/var/lib/crmarena \
    CRMARENA_TLS_DIR=/var/lib/crmarena/tls \
    CRMARENA_HOST=0.0.0.0 \
    CRMARENA_PORT=8443 \
    CRMARENA_HTTP_PORT=8080

WORKDIR /opt/crmarena

# Dependencies first, from pyproject.toml alone: a source change does not reinstall them.
COPY pyproject.toml ./
RUN python3 -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && python3 -m pip install --no-cache-dir -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

COPY README.md ./
COPY soql_parser ./soql_parser
COPY mock_org ./mock_org
COPY fixtures ./fixtures
COPY eval_suite ./eval_suite
COPY docker/entrypoint.sh /usr/local/bin/crmarena-entrypoint

# The project itself, the default org unpacked and prepared, and the parsers' tables cached in
# $CRMARENA_CACHE_DIR/grammars (a SOSL query loads both grammars), as the non-root user the container
# runs as (so the cache it writes is its own): a new container's first query builds nothing.
RUN python3 -m pip install --no-cache-dir --no-deps . \
    && groupadd --system --gid 10001 crmarena \
    && useradd --system --create-home --uid 10001 --gid 10001 crmarena \
    && install -d -o crmarena -g crmarena /var/lib/crmarena /var/lib/crmarena/tls \
    && chmod 0755 /usr/local/bin/crmarena-entrypoint

USER 10001:10001
RUN crmarena serve --prepare-only \
    && crmarena parse "FIND {x} RETURNING Account(Id)" > /dev/null

EXPOSE 8443 8080
HEALTHCHECK --interval=10s --timeout=10s --start-period=30s --retries=3 \
    CMD ["crmarena", "serve", "--check"]
ENTRYPOINT ["crmarena-entrypoint"]
CMD ["serve"]
