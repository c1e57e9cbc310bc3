"""Open a report in headless Chromium and say whether it really renders.

No DevTools client is needed: a probe script is put first in <head> (so it sees every later
error), records uncaught errors, console.error calls and resource load failures, and on
``load`` writes what it saw, plus every <img>'s naturalWidth, into the DOM as JSON, which
``chromium --headless --dump-dom`` prints. Chromium's own console log (``--enable-logging``)
is scanned too, for errors raised before the probe could run. The page is laid out in a
``WIDTH``-pixel window, and the probe measures every table against the column it sits in: a
table wider than that runs off the page (or scrolls sideways) on a laptop screen.

``screenshot`` draws the page (or one section of it) to a PNG with the same Chromium.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
WIDTH = 1280           # the window width the report must fit (a laptop screen)
INSTALL_HINT = ("install it with `scripts/install-chromium.sh` (runs `sudo apt-get install -y chromium` on "
                "Debian/Ubuntu; ./setup.sh calls it), or set CRAWLPLAN_CHROMIUM to a Chrome/Chromium binary")

PROBE = """<script id="crawlplan-probe">
(function(){
  var seen = {errors: [], console_errors: [], failed_resources: []};
  window.__crawlplanProbe = seen;
  window.addEventListener('error', function(e){
    var t = e.target;
    if (t && t !== window && (t.src || t.href)) { seen.failed_resources.push(String(t.src || t.href).slice(0, 120)); }
    else { seen.errors.push(String(e.message)); }
  }, true);
  var orig = console.error;
  console.error = function(){ seen.console_errors.push(Array.prototype.join.call(arguments, ' ')); orig.apply(console, arguments); };
  window.addEventListener('load', function(){
    var imgs = Array.prototype.map.call(document.images, function(i){
      return {alt: i.alt, complete: i.complete, naturalWidth: i.naturalWidth, naturalHeight: i.naturalHeight,
              inline: i.src.indexOf('data:') === 0};
    });
    seen.images = imgs;
    var root = document.documentElement;
    seen.viewport_width = root.clientWidth;
    seen.page_width = root.scrollWidth;
    seen.tables = document.querySelectorAll('table').length;
    seen.wide_tables = [];
    Array.prototype.forEach.call(document.querySelectorAll('table'), function(t){
      var box = t.closest('.tablewrap') ? t.closest('.tablewrap').parentElement : t.parentElement;
      var head = t.closest('.tablewrap') ? t.closest('.tablewrap').previousElementSibling : null;
      var w = Math.ceil(t.getBoundingClientRect().width), room = box.clientWidth;
      if (w > room + 1 || t.getBoundingClientRect().right > root.clientWidth + 1) {
        seen.wide_tables.push({title: head && head.tagName === 'H3' ? head.textContent : '(untitled table)',
                               width: w, room: room});
      }
    });
    seen.title = document.title;
    seen.external_refs = Array.prototype.filter.call(document.querySelectorAll('[src],[href]'), function(el){
      var v = el.getAttribute('src') || el.getAttribute('href');
      return /^(https?:)?\\/\\//.test(v);
    }).length;
    var out = document.createElement('pre');
    out.id = 'crawlplan-probe-result';
    out.textContent = JSON.stringify(seen);
    document.body.appendChild(out);
  });
})();
</script>"""

_RESULT = re.compile(r'<pre id="crawlplan-probe-result">(.*?)</pre>', re.DOTALL)
_CONSOLE = re.compile(r"CONSOLE\(\d+\)\]?\s*\"?(.*)")


def find_chromium() -> str | None:
    env = os.environ.get("CRAWLPLAN_CHROMIUM")
    if env and Path(env).is_file():
        return env
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


def _unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&")


def check_in_browser(html_path: str | Path, chromium: str | None = None, timeout_s: float = 120) -> dict:
    """Load the page in headless Chromium; return the probe's findings plus ``console`` lines."""
    chromium = chromium or find_chromium()
    if not chromium:
        raise FileNotFoundError(f"no chromium binary found: {INSTALL_HINT}")
    source = Path(html_path).read_text(encoding="utf-8")
    probed = source.replace("<head>", "<head>" + PROBE, 1) if "<head>" in source else PROBE + source
    with tempfile.TemporaryDirectory(prefix="crawlplan-browser-") as tmp:
        page = Path(tmp) / "index.html"
        page.write_text(probed, encoding="utf-8")
        cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--no-first-run", "--disable-extensions", "--enable-logging=stderr", "--v=0",
               "--hide-scrollbars", f"--window-size={WIDTH},900",
               f"--user-data-dir={Path(tmp) / 'profile'}", "--virtual-time-budget=10000",
               "--dump-dom", page.as_uri()]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s,
                              env={**os.environ, "HOME": tmp})
    match = _RESULT.search(proc.stdout)
    if not match:
        raise RuntimeError(f"chromium did not render the page (exit {proc.returncode}): {proc.stderr[-2000:]}")
    result = json.loads(_unescape(match.group(1)))
    result["console"] = [m.group(1) for line in proc.stderr.splitlines() if (m := _CONSOLE.search(line))]
    result["chromium"] = chromium
    return result


def problems(result: dict) -> list[str]:
    """Human-readable reasons the page is not clean (empty = it loads, no errors, images drawn)."""
    out = [f"script error: {e}" for e in result.get("errors", [])]
    out += [f"console.error: {e}" for e in result.get("console_errors", [])]
    out += [f"failed resource: {r}" for r in result.get("failed_resources", [])]
    out += [f"console: {c}" for c in result.get("console", []) if "error" in c.lower()]
    for img in result.get("images", []):
        if not img.get("complete") or not img.get("naturalWidth"):
            out.append(f"image not loaded: {img.get('alt')}")
    for t in result.get("wide_tables", []):
        out.append(f"table wider than the page at {WIDTH} px: {t['title']} ({t['width']} px in {t['room']} px)")
    if result.get("page_width", 0) > result.get("viewport_width", WIDTH) + 1:
        out.append(f"page is {result['page_width']} px wide in a {result['viewport_width']} px window")
    if result.get("external_refs"):
        out.append(f"{result['external_refs']} reference(s) to network resources (the report must be self-contained)")
    return out


SECTION_ONLY = "<style>header,nav,.banner,.findings{display:none} main>section:not(#%s){display:none}</style>"


def screenshot(html_path: str | Path, png: str | Path, *, height: int = 1000, section: str | None = None,
               chromium: str | None = None, colors: int = 128, timeout_s: float = 120) -> Path:
    """The page's top ``height`` pixels at ``WIDTH`` (or, with ``section``, that section alone),
    as a palette PNG small enough to keep in the docs."""
    chromium = chromium or find_chromium()
    if not chromium:
        raise FileNotFoundError(f"no chromium binary found: {INSTALL_HINT}")
    source = Path(html_path).read_text(encoding="utf-8")
    if section:
        if f'<section id="{section}">' not in source:
            raise ValueError(f"{html_path} has no section {section!r}")
        source = source.replace("</head>", SECTION_ONLY % section + "</head>", 1)
    png = Path(png)
    png.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="crawlplan-shot-") as tmp:
        page, raw = Path(tmp) / "index.html", Path(tmp) / "shot.png"
        page.write_text(source, encoding="utf-8")
        cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
               "--disable-extensions", "--hide-scrollbars", f"--user-data-dir={Path(tmp) / 'profile'}",
               f"--window-size={WIDTH},{height}", f"--screenshot={raw}", page.as_uri()]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, env={**os.environ, "HOME": tmp})
        if not raw.is_file():
            raise RuntimeError(f"chromium wrote no screenshot (exit {proc.returncode}): {proc.stderr[-2000:]}")
        from PIL import Image  # Pillow (comes with matplotlib): palette PNGs for the docs

        with Image.open(raw) as img:
            img.convert("RGB").quantize(colors=colors).save(png, optimize=True)
    return png
