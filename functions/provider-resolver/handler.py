"""The provider-resolver function (DESIGN §10): the facts of one provider page, nothing downloaded.

Routes run on Node with no yt-dlp; this Python function carries Debian's yt_dlp package as a layer
(infra/constructs/yt-dlp-layer.ts) and answers the one question a preflight, a quote or a submission
asks of a provider page. The route has classified the URL as a built-in provider page before it
invokes this (DESIGN §9): nothing else reaches it.

yt-dlp runs as a child process, not in this interpreter: a child can be stopped at the deadline
(an extraction thread cannot), so the function answers "timed out" before Lambda ends it, and no
state of one extraction outlives it in a warm environment. Its options are the container's
(yt-dlp-options.json, read by functions/adapters/sources/yt-dlp.ts too), so the generic extractor
never runs here either.

Event: {"url": "<page URL>"}. Answer, one of:
  {"info": {...}}                         the info dict's fields the service reads (yt-dlp-info.ts)
  {"error": "failed", "message": "..."}   yt-dlp's last ERROR line (the caller strips URLs from it)
  {"error": "timed_out", "seconds": n}
  {"error": "unavailable"}                no yt-dlp here
Locally the host runs this file as `python3 handler.py --timeout-seconds N URL` and reads the
answer from stdout (functions/adapters/sources/process-provider-resolver.ts).
"""

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

OPTIONS = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "yt-dlp-options.json"), encoding="utf-8"))

# Time kept back from the function's deadline to stop yt-dlp and answer.
REPLY_MARGIN_SECONDS = 2.0
MAX_STDOUT_BYTES = 32 * 1024 * 1024
MAX_MESSAGE_CHARS = 1000

# The info dict's fields functions/adapters/sources/yt-dlp-info.ts reads (YtDlpInfo): nothing else
# crosses back, least of all the formats' signed media URLs.
FORMAT_FIELDS = ("vcodec", "filesize", "filesize_approx")
INFO_FIELDS = ("_type", "title", "duration", "is_live", "live_status") + FORMAT_FIELDS


def info_args(url):
    return [*OPTIONS["common"], "--dump-single-json", "--skip-download", "-f", OPTIONS["format"] + "/b*", "-S", OPTIONS["formatSort"], "--", url]


def yt_dlp_command():
    """YT_DLP_PATH (the tests' stand-in), else the yt_dlp package this Python sees (the layer), else yt-dlp on PATH."""
    configured = os.environ.get("YT_DLP_PATH")
    if configured:
        return [configured], {}
    spec = importlib.util.find_spec("yt_dlp")
    if spec is not None and spec.origin:
        # The child finds the package where this interpreter did (/opt/python on Lambda).
        return [sys.executable, "-m", "yt_dlp"], {"PYTHONPATH": os.path.dirname(os.path.dirname(spec.origin))}
    on_path = shutil.which("yt-dlp")
    return ([on_path], {}) if on_path else (None, {})


def reduce_info(info):
    kept = {name: info[name] for name in INFO_FIELDS if name in info}
    for name in ("formats", "requested_formats"):
        if isinstance(info.get(name), list):
            kept[name] = [{field: f[field] for field in FORMAT_FIELDS if field in f} for f in info[name] if isinstance(f, dict)]
    return kept


def last_error_line(stderr):
    errors = [line for line in stderr.splitlines() if line.startswith("ERROR:")]
    return errors[-1][:MAX_MESSAGE_CHARS] if errors else ""


def resolve(url, seconds):
    command, extra_env = yt_dlp_command()
    if command is None:
        return {"error": "unavailable"}
    home = tempfile.gettempdir()
    # No credentials of this function reach a third-party program.
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "TMPDIR": home, "LANG": "C.UTF-8", **extra_env}
    if "MEDIA_SCANNER_LOCAL_HOST" in os.environ:
        # The local host's reaper ends a dead host's descendants by this mark (functions/local/host-processes.ts).
        env["MEDIA_SCANNER_LOCAL_HOST"] = os.environ["MEDIA_SCANNER_LOCAL_HOST"]
    try:
        child = subprocess.Popen([*command, *info_args(url)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=home, start_new_session=True)
    except OSError:
        return {"error": "unavailable"}
    try:
        stdout, stderr = child.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        # Its own process group: whatever yt-dlp started stops with it.
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        return {"error": "timed_out", "seconds": round(seconds)}
    if child.returncode != 0:
        return {"error": "failed", "message": last_error_line(stderr.decode("utf-8", "replace"))}
    lines = stdout[:MAX_STDOUT_BYTES].decode("utf-8", "replace").strip().splitlines()
    try:
        info = json.loads(lines[-1]) if lines else None
    except ValueError:
        info = None
    if not isinstance(info, dict):
        return {"error": "failed", "message": "ERROR: yt-dlp answered with something other than a video description"}
    return {"info": reduce_info(info)}


def handler(event, context):
    url = event.get("url") if isinstance(event, dict) else None
    if not isinstance(url, str) or not url.startswith(("https://", "http://")):
        raise ValueError("the event names no page URL")
    return resolve(url, context.get_remaining_time_in_millis() / 1000 - REPLY_MARGIN_SECONDS)


class _Deadline:
    """Lambda's context, as much of it as the handler reads, for local runs."""

    def __init__(self, seconds):
        self.seconds = seconds

    def get_remaining_time_in_millis(self):
        return int(self.seconds * 1000)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "--timeout-seconds":
        sys.exit("usage: handler.py --timeout-seconds N URL")
    print(json.dumps(handler({"url": sys.argv[3]}, _Deadline(float(sys.argv[2])))))
