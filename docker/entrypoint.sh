#!/bin/sh
# `serve …` (the default) runs the mock org in the foreground. Any other crmarena command (eval,
# query, …) runs with the default org served beside it on 127.0.0.1:$CRMARENA_PORT and the client
# variables that `crmarena serve` prints exported — unless CRMARENA_MOCK_URL or
# CRMARENA_TARGET=salesforce names another org, in which case the command runs alone.
set -eu

if [ "$#" -eq 0 ] || [ "$1" = "serve" ]; then
    exec crmarena "$@"
fi

if [ -n "${CRMARENA_MOCK_URL:-}" ] || [ "${CRMARENA_TARGET:-mock}" = "salesforce" ] \
    || [ "$1" = "tls" ] || [ "$1" = "parse" ] || [ "$1" = "--help" ] || [ "$1" = "--version" ]; then
    exec crmarena "$@"
fi

log="$(mktemp)"
CRMARENA_HOST=127.0.0.1 CRMARENA_HTTP_PORT='' crmarena serve > "$log" 2>&1 &
server=$!
tries=0
until grep -q '^Ctrl-C' "$log"; do
    if ! kill -0 "$server" 2> /dev/null; then
        echo "the mock org beside this command did not start:" >&2
        cat "$log" >&2
        exit 1
    fi
    tries=$((tries + 1))
    if [ "$tries" -ge 600 ]; then
        echo "the mock org beside this command did not start within 60 s:" >&2
        cat "$log" >&2
        exit 1
    fi
    sleep 0.1
done
# shellcheck disable=SC2046
export $(sed -n 's/^export //p' "$log" | tr -d "'")
exec crmarena "$@"
