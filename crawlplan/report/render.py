"""HTML pieces of the report: escaped tables, figures as inline PNGs, banners and boxes.

Everything is inlined (no CDN, no fonts, no scripts) so the page opens from a file, an S3
download or an e-mail attachment exactly as it was written.
"""

from __future__ import annotations

import base64
import html
import io
import math

import matplotlib

matplotlib.use("Agg")  # headless: executors and CI have no display

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from crawlplan.report.labels import column_label  # noqa: E402


class Missing(Exception):
    """A figure or table cannot be drawn because a dataset was not produced in this run."""

    def __init__(self, dataset: str, why: str = ""):
        super().__init__(dataset)
        self.dataset = dataset
        self.why = why


def need(frames: dict, name: str, dataset: str | None = None) -> pd.DataFrame:
    """The frame ``name`` or ``Missing`` naming the dataset it comes from."""
    df = frames.get(name)
    if df is None:
        raise Missing(dataset or name)
    if len(df) == 0:
        raise Missing(dataset or name, "is empty in this run")
    return df


def esc(value) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def png_data_uri(fig, dpi: int = 110) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def save_png(fig, path, dpi: int = 90):
    """A figure as a PNG file (the CLI's figures); the figure is closed."""
    fig.savefig(path, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return path


def figure_html(fig, title: str, caption: str = "") -> str:
    uri = png_data_uri(fig)
    cap = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
    return f'<figure><img src="{uri}" alt="{esc(title)}">{cap}</figure>'


def missing_box(dataset: str, why: str = "") -> str:
    reason = why or "not produced in this run"
    return (f'<div class="missing">dataset <code>{esc(dataset)}</code> {esc(reason)}: '
            f"this part of the report is left out.</div>")


def error_box(title: str, exc: BaseException) -> str:
    return (f'<div class="error">could not draw <b>{esc(title)}</b>: '
            f"{esc(type(exc).__name__)}: {esc(str(exc)[:400])}</div>")


def banner(text: str, kind: str = "demo") -> str:
    return f'<div class="banner {esc(kind)}">{text}</div>'


def fmt(value, digits: int = 3) -> str:
    """Numbers as a reader wants them: thousands separators, a few significant decimals."""
    if value is None:
        return ""
    try:
        if pd.isna(value):
            return ""
    except (TypeError, ValueError):
        pass
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) or (hasattr(value, "dtype") and str(getattr(value, "dtype", "")).startswith("int")):
        return f"{int(value):,}"
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if abs(value) >= 1000:   # counts and estimates of pages: decimals there are noise
            return f"{value:,.0f}"
        return f"{value:.{digits}g}" if abs(value) < 1e-3 and value != 0 else f"{value:,.{digits}f}"
    return str(value)


def table_html(df: pd.DataFrame, *, max_rows: int = 60, caption: str = "", digits: int = 3) -> str:
    """An escaped HTML table with human column headings (``labels.column_label``); long tables are
    cut with a visible note (the dataset has the rest)."""
    shown = df.head(max_rows)
    head = "".join(f'<th title="{esc(c)}">{esc(column_label(c))}</th>' for c in shown.columns)
    body = []
    for row in shown.itertuples(index=False):
        cells = []
        for v in row:
            text = fmt(v.item() if hasattr(v, "item") and not isinstance(v, str) else v, digits)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                cells.append(f'<td class="num">{esc(text)}</td>')
            else:   # names like gneissweb_quality may wrap after an underscore, not mid-word
                cells.append(f"<td>{esc(text).replace('_', '_<wbr>')}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    note = ""
    if len(df) > max_rows:
        note = f'<p class="note">first {max_rows:,} of {len(df):,} rows shown; the dataset has all of them.</p>'
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return f'<div class="tablewrap"><table>{cap}<thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>{note}'


CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:0;color:#1d2430;background:#fafbfc}
header{background:#1d2430;color:#fff;padding:18px 32px}
header h1{margin:0;font-size:22px} header p{margin:4px 0 0;color:#c9d1dc;font-size:13px}
nav{padding:10px 32px;background:#eef1f5;font-size:13px;line-height:1.8}
nav a{margin-right:14px;color:#24508f;text-decoration:none}
main{padding:8px 32px 48px;max-width:1200px}
section{margin:28px 0} h2{border-bottom:2px solid #d5dbe3;padding-bottom:4px;font-size:19px}
h3{font-size:15px;margin:18px 0 6px}
figure{margin:10px 0 18px} figure img{max-width:100%;border:1px solid #e1e5ea;background:#fff}
figcaption{font-size:12.5px;color:#555;margin-top:4px;max-width:900px}
.tablewrap{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:12.5px;margin:6px 0;background:#fff;max-width:100%}
th,td{border:1px solid #dde2e8;padding:3px 7px;text-align:left;overflow-wrap:break-word}
th{background:#f1f4f7;vertical-align:bottom;font-weight:600;min-width:4.5em}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap;overflow-wrap:normal} caption{text-align:left;font-weight:600;padding:4px 0}
.missing{border:2px dashed #b8c0cc;background:#f4f6f8;color:#4a5563;padding:12px 16px;margin:10px 0;font-size:14px}
.error{border:2px solid #c0392b;background:#fdecea;color:#7b241c;padding:12px 16px;margin:10px 0;font-size:14px}
.banner{padding:16px 32px;font-size:16px;font-weight:700}
.banner.demo{background:#ffdd57;color:#3d2c00;border-bottom:4px solid #e0a800}
.banner.warn{background:#fdecea;color:#7b241c;border-bottom:3px solid #c0392b}
.banner ul{margin:6px 0 0;font-weight:400;font-size:14px}
.answer{font-size:15px;line-height:1.45;background:#eef5ec;border-left:4px solid #3c8d40;padding:8px 12px;
  max-width:1000px} .answer .caveat{display:block;margin-top:4px;font-size:13px;color:#6b4e00}
.findings .caveat{font-size:13px;color:#6b4e00;margin:4px 0}
.findings{background:#fff;border:1px solid #d5dbe3;padding:4px 18px 10px;margin:18px 0}
.findings h2{border:0;margin:8px 0 4px} .findings li{margin:6px 0;line-height:1.4;max-width:1050px}
.findings a{color:#24508f;font-weight:600;text-decoration:none}
.note{font-size:12.5px;color:#666} pre{background:#f3f5f8;padding:10px;overflow-x:auto;font-size:12px}
details{margin:8px 0} summary{cursor:pointer;font-weight:600}
.grid{display:flex;flex-wrap:wrap;gap:12px} .grid figure{flex:1 1 480px}
"""
