#!/bin/sh
# `serve …` runs the mock org in the foreground. Any other crmarena command (eval, report, …) runs
# with the default org served in the background on 443, and the client variables that
# `crmarena serve` prints exported, so that unmodified clients log in to https://login.salesforce.com
# (run the container with --add-host login.salesforce.com:127.0.0.1).
set -eu

if [ "$#" -eq 0 ] || [ "$1" = "serve" ]; then
    exec crmarena "$@"
fi

if ! getent hosts login.salesforce.com | grep -q '^127\.0\.0\.1'; then
    echo "note: login.salesforce.com does not resolve to 127.0.0.1; add --add-host login.salesforce.com:127.0.0.1" >&2
fi

log="$(mktemp)"
crmarena serve --host 127.0.0.1 --port 443 > "$log" 2>&1 &
tries=0
until crmarena serve --check --port 443 > /dev/null 2>&1; do
    tries=$((tries + 1))
    if [ "$tries" -ge 60 ]; then
        cat "$log" >&2
        exit 1
    fi
    sleep 1
done
# shellcheck disable=SC2046
export $(sed -n 's/^export //p' "$log" | tr -d "'")
exec crmarena "$@"
