"""Self-contained HTML rulings of a check or a plan: inline SVG picture, escaped text, no scripts.

Every piece of text from the scenario or the report goes through :func:`html.escape`; the
picture is the SVG from :mod:`planner.render` (whose text matplotlib escapes) with its XML
prologue removed so that it can sit inline.
"""

from __future__ import annotations

import re
from html import escape

from planner.legality.report import LegalityReport
from planner.report.ruling import PLACEMENT_HEADERS, Ruling, build_ruling, placement_rows, plan_lines

STYLE = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 2em auto; max-width: 1200px;
       color: #222; line-height: 1.4; padding: 0 1em; }
h1, h2, h3, h4 { line-height: 1.2; }
.verdict { font-size: 1.2em; font-weight: bold; padding: .5em .8em; border-radius: 4px; display: inline-block; }
.legal { background: #e8f5e9; color: #1b5e20; } .illegal { background: #ffebee; color: #b71c1c; }
table { border-collapse: collapse; margin: .5em 0 1.5em; font-size: .85em; }
th, td { border: 1px solid #ccc; padding: .25em .5em; text-align: left; vertical-align: top; }
th { background: #f5f5f5; } tr.broken td { background: #fff0f0; } td.num { text-align: right; white-space: nowrap; }
figure { margin: 1em 0; } figure svg { width: 100%; height: auto; }
code { background: #f5f5f5; padding: 0 .2em; }
"""

_PROLOGUE = re.compile(r"^\s*(<\?xml[^>]*\?>)?\s*(<!DOCTYPE[^>]*>)?\s*", re.S)


def inline_svg(svg: bytes | str) -> str:
    """An SVG document made fit to sit inside HTML (prologue and DOCTYPE removed)."""
    text = svg.decode("utf-8") if isinstance(svg, bytes) else svg
    return _PROLOGUE.sub("", text, count=1)


def _table(headers, rows, *, broken: list[bool] | None = None, num_cols: tuple[int, ...] = ()) -> list[str]:
    out = ["<table>", "<thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in headers) + "</tr></thead>", "<tbody>"]
    for i, r in enumerate(rows):
        cls = ' class="broken"' if broken and broken[i] else ""
        cells = "".join(f'<td class="num">{escape(str(c))}</td>' if j in num_cols else f"<td>{escape(str(c))}</td>"
                        for j, c in enumerate(r))
        out.append(f"<tr{cls}>{cells}</tr>")
    out += ["</tbody>", "</table>"]
    return out


def _figure(svg: bytes | str | None, caption: str) -> list[str]:
    if not svg:
        return []
    return ['<figure id="picture">', inline_svg(svg), f"<figcaption>{escape(caption)}</figcaption>", "</figure>"]


def ruling_html(r: Ruling, svg: bytes | str | None, level: int = 1) -> list[str]:
    h = level
    cls = "legal" if r.legal else "illegal"
    out = [f"<h{h}>{escape(r.title)}</h{h}>", f"<p>Ruleset: <code>{escape(r.ruleset)}</code></p>",
           f'<p class="verdict {cls}" id="verdict">{escape(r.verdict)}</p>']
    out += _figure(svg, "The battlefield to scale (inches); violations ringed in red, sight-line evidence drawn.")
    if r.violations:
        out += [f"<h{h + 1}>Violations</h{h + 1}>", '<ul id="violations">']
        out += [f"<li>{escape(v)}</li>" for v in r.violations]
        out.append("</ul>")
    out.append(f"<h{h + 1}>Unit by unit</h{h + 1}>")
    for u in r.units:
        name = f" ({u.name})" if u.name and u.name != u.unit else ""
        ucls = "legal" if u.legal else "illegal"
        out += [f'<section class="unit" id="unit-{escape(u.unit, quote=True)}">',
                f"<h{h + 2}>{escape(u.unit + name)}</h{h + 2}>",
                f"<p>Player {escape(u.player)}; set up by {escape(u.setup)}. "
                f'<span class="{ucls}"><strong>{escape(u.summary)}</strong></span></p>']
        out += _table(("rule", "verdict", "model", "measured", "requirement", "margin", "finding", "evidence"),
                      [(x.rule, x.verdict, x.model, x.measured, x.required, x.margin, x.finding, x.evidence)
                       for x in u.rows], broken=[not x.passed for x in u.rows], num_cols=(3, 5))
        out.append("</section>")
    if r.rules:
        out.append(f"<h{h + 1}>Rules applied</h{h + 1}>")
        out += _table(("rule id", "meaning", "source"), r.rules)
    if r.cover is not None:
        out.append(f"<h{h + 1}>Benefit of cover</h{h + 1}>")
        out += _table(("unit", "model", "against", "cover", "why"), r.cover)
    if r.rulings:
        out.append(f"<h{h + 1}>Rulings applied</h{h + 1}>")
        out += _table(("ruling", "reading", "meaning", "sources"), r.rulings)
    return out


def _page(title: str, body: list[str]) -> str:
    return "\n".join(["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
                      f"<title>{escape(title)}</title>", f"<style>{STYLE}</style>", "</head>", "<body>", *body,
                      "</body>", "</html>"]) + "\n"


def check_html(report: LegalityReport, *, svg: bytes | str | None = None, title: str | None = None) -> str:
    """The HTML ruling of ``planner check`` (one self-contained page)."""
    r = build_ruling(report, title)
    return _page(r.title, ruling_html(r, svg))


def plan_html(result, *, scenario: str | None = None, svg: bytes | str | None = None) -> str:
    """The HTML report of ``planner plan``: the solver's account, the placements, then the ruling on
    the planned deployment by the independent checker, with the picture of the plan."""
    title = f"Deployment plan: {scenario or 'scenario'}"
    body = [f"<h1>{escape(title)}</h1>", '<ul id="solver">'] + [f"<li>{escape(x)}</li>" for x in plan_lines(result)]
    body.append("</ul>")
    if result.placements:
        body += ["<h2>Placements</h2>"] + _table(PLACEMENT_HEADERS, placement_rows(result), num_cols=(3, 4, 5))
    if result.legality is not None:
        body += ruling_html(build_ruling(result.legality, "Ruling on the planned deployment"), svg, level=2)
    else:
        body.append("<p>No plan to rule on.</p>")
        body += _figure(svg, "The battlefield as given (units to place are listed under it).")
    return _page(title, body)
