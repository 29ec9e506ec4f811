#!/usr/bin/env python3
"""Browser test of vrender's HTML: headless Chromium opens each page kind from file://, must log no console errors,
and its screenshot must not be blank (pixel variance); the bench page in forced dark mode must be darker than in light.
Exits 77 (skipped) when Chromium is missing.

Usage: browser_check.py VRENDER DATA_DIR [CHROMIUM]
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

PAGES = ["bench.bench.json", "compare.compare.json", "plan.plan.json", "trace.trace.json", "graphs.tracediff.json",
         "graph.dot"]


def decode_png(data):
    """Returns (width, height, rows of RGB(A) bytes) for 8-bit RGB/RGBA non-interlaced PNGs (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and interlace == 0, f"unsupported PNG {depth} {color} {interlace}"
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):  # PNG filters (RFC 2083 section 6)
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def luminance_stats(png_path):
    w, h, bpp, rows = decode_png(open(png_path, "rb").read())
    vals = []
    for y in range(0, h, 3):
        row = rows[y]
        for x in range(0, w, 3):
            r, g, b = row[x * bpp], row[x * bpp + 1], row[x * bpp + 2]
            vals.append(0.299 * r + 0.587 * g + 0.114 * b)
    mean = sum(vals) / len(vals)
    var = sum((v - mean) ** 2 for v in vals) / len(vals)
    return w, h, mean, var


def screenshot(chromium, html, png, dark=False):
    profile = tempfile.mkdtemp(prefix="vrender-chromium-")
    try:
        cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile, "--enable-logging=stderr",
               "--v=0", "--hide-scrollbars", "--window-size=1200,900", "--screenshot=" + png]
        if dark:
            cmd.append("--force-dark-mode")
        p = subprocess.run(cmd + ["file://" + os.path.abspath(html)], capture_output=True, timeout=180)
        return p.returncode, p.stderr.decode("utf-8", "replace")
    finally:
        shutil.rmtree(profile, ignore_errors=True)


# Appended to a copy of a page: the widest number of figures that share a row (same offsetTop), as the title.
COLUMNS_SCRIPT = """<script>var best=0;document.querySelectorAll('.figs').forEach(function(g){var rows={};
g.querySelectorAll('figure').forEach(function(f){rows[f.offsetTop]=(rows[f.offsetTop]||0)+1;});
for(var k in rows)best=Math.max(best,rows[k]);});document.title='columns:'+best;</script>"""


def columns_at(chromium, html, width):
    """How many figures of one .figs row sit side by side when the page is `width` px wide (issue 45, item 24)."""
    probe = html + ".columns.html"
    with open(html, encoding="utf-8") as f, open(probe, "w", encoding="utf-8") as out:
        out.write(f.read().replace("</body>", COLUMNS_SCRIPT + "</body>"))
    profile = tempfile.mkdtemp(prefix="vrender-chromium-")
    try:
        cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + profile,
               "--hide-scrollbars", f"--window-size={width},900", "--dump-dom", "file://" + os.path.abspath(probe)]
        dom = subprocess.run(cmd, capture_output=True, timeout=180).stdout.decode("utf-8", "replace")
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    start = dom.find("<title>columns:")
    return int(dom[start + 15:dom.find("<", start + 15)]) if start >= 0 else -1


def main():
    vrender, data = sys.argv[1], sys.argv[2]
    chromium = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else (shutil.which("chromium") or shutil.which("chromium-browser"))
    if not chromium or not os.path.exists(chromium):
        print("chromium not found: skipped")
        return 77
    out = tempfile.mkdtemp(prefix="vrender-browser-")
    problems = []
    for page in PAGES:
        html = os.path.join(out, page + ".html")
        r = subprocess.run([vrender, os.path.join(data, page), "-o", html], capture_output=True, timeout=120)
        if r.returncode == 69 and page.endswith(".dot"):
            print(f"{page}: this vrender has no Graphviz (exit 69): skipped")
            continue
        if r.returncode != 0:
            problems.append(f"{page}: vrender exit {r.returncode}: {r.stderr.decode()[:300]}")
            continue
        png = os.path.join(out, page + ".png")
        code, log = screenshot(chromium, html, png)
        errors = [l for l in log.splitlines() if "Uncaught" in l or ":CONSOLE(" in l or "Refused to" in l]
        if code != 0:
            problems.append(f"{page}: chromium exit {code}: {log[-500:]}")
        if errors:
            problems.append(f"{page}: console errors: {errors[:3]}")
        if not os.path.exists(png):
            problems.append(f"{page}: no screenshot")
            continue
        w, h, mean, var = luminance_stats(png)
        print(f"{page}: screenshot {w}x{h}, mean luminance {mean:.0f}, variance {var:.0f}")
        if var < 100:
            problems.append(f"{page}: screenshot looks blank (variance {var:.1f})")
        if page.startswith("bench"):
            cols = columns_at(chromium, html, 1400)
            print(f"bench at 1400 px: {cols} charts side by side")
            if cols < 2:
                problems.append(f"bench page at 1400 px stacks its charts in one column ({cols})")
            dark_png = os.path.join(out, "bench.dark.png")
            screenshot(chromium, html, dark_png, dark=True)
            _, _, dark_mean, dark_var = luminance_stats(dark_png)
            print(f"bench dark: mean luminance {dark_mean:.0f}, variance {dark_var:.0f}")
            if not dark_mean < mean - 60 or dark_var < 100:
                problems.append(f"dark scheme not applied (light mean {mean:.0f}, dark mean {dark_mean:.0f})")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        shutil.rmtree(out, ignore_errors=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
