# Shared by scripts/test and scripts/serve: make sure Debian packages are installed.
#
# ensure_packages PKG...  installs what is missing with apt-get when running as root (or via
# sudo when available without a password); otherwise prints the command to run and fails.

# missing_packages PKG...  prints the ones not installed, space-separated.
missing_packages() {
    local missing=()
    local package
    for package in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$package")
        fi
    done
    echo "${missing[*]}"
}

# can_install_packages PKG...  succeeds if nothing is missing or this user may install (root,
# password-less sudo); otherwise prints the command to run and fails. For callers that
# install later, in the background, and want to fail now rather than after a build.
can_install_packages() {
    local missing
    missing="$(missing_packages "$@")"
    if [ -z "$missing" ] || [ "$(id -u)" -eq 0 ] || { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; }; then
        return 0
    fi
    echo "pushmock: please run: sudo apt-get install -y $missing" >&2
    return 1
}

ensure_packages() {
    local missing=()
    read -r -a missing <<<"$(missing_packages "$@")"
    if [ "${#missing[@]}" -eq 0 ]; then
        return 0
    fi
    echo "pushmock: installing missing Debian packages: ${missing[*]}" >&2
    local runner=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
            runner=(sudo)
        else
            echo "pushmock: please run: sudo apt-get install -y ${missing[*]}" >&2
            return 1
        fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    # The package lists may be missing on a fresh machine (or a slim image): update first.
    "${runner[@]}" apt-get update -qq
    "${runner[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# What building PushMock needs (libnghttp2 is linked through pkg-config).
BUILD_PACKAGES=(libnghttp2-dev pkg-config zlib1g-dev)
# What the tests and benchmarks drive as independent HTTP/2 clients and references.
TEST_PACKAGES=(curl nghttp2-client nghttp2-server openssl python3-google-auth python3-requests python3-venv)
# The web inbox's browser tests (docs/inbox.md) drive a real headless Chromium through its
# WebDriver; Debian packages both, so no browser build is downloaded at test time.
BROWSER_TEST_PACKAGES=(chromium chromium-driver)

# Python clients that Debian does not package, installed from PyPI into a virtual environment
# the tests find at .build/python-venv (override: PUSHMOCK_EXPO_PYTHON for the interpreter).
# selenium drives the inbox's browser tests (with Debian's chromedriver, never Selenium Manager);
# 4.51.0 because 4.52.0 needs a certifi newer than PyPI serves here. h2 writes raw HTTP/2 frames
# for the abuse tests (scripts/abuse/). prometheus_client's text parser checks `GET /metrics`
# independently of swift-prometheus. jsonschema is the independent oracle the payload-contract
# validator is compared with. openapi-spec-validator reads docs/openapi.yaml as the tools users
# load it into do (PyYAML, the OpenAPI 3.1 schema); schemathesis sends the requests the
# document allows and forbids to a running gateway and checks the answers against it.
# firebase-admin 7.x subscribes through FCM's topic-subscription API (IID's successor).
PYTHON_VENV_PACKAGES=("exponent_server_sdk==2.2.0" "selenium==4.51.0" "h2==4.1.0" "prometheus_client==0.26.0" "jsonschema==4.26.0"
    "openapi-spec-validator==0.9.0" "schemathesis==4.32.5" "firebase-admin==7.7.0")

ensure_python_venv() {
    local venv="${PUSHMOCK_PYTHON_VENV:-.build/python-venv}"
    if [ -x "$venv/bin/python3" ] && "$venv/bin/python3" -c "import exponent_server_sdk, selenium, h2, prometheus_client, jsonschema, openapi_spec_validator, schemathesis, firebase_admin" 2>/dev/null; then
        return 0
    fi
    echo "pushmock: installing ${PYTHON_VENV_PACKAGES[*]} into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "${PYTHON_VENV_PACKAGES[@]}"
}
