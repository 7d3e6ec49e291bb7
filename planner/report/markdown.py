"""Markdown rulings of a check or a plan, with the battlefield picture.

The picture is a link to a file written next to the report (``picture_ref``), or, when there is
none, embedded as a base64 PNG ``data:`` URI so that the Markdown stands alone.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence

from planner.legality.report import LegalityReport
from planner.report.ruling import PLACEMENT_HEADERS, Ruling, build_ruling, placement_rows, plan_lines


def md_cell(text: str) -> str:
    """Text safe inside a Markdown table cell: pipes, backslashes, angle brackets and newlines escaped."""
    return (str(text).replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
            .replace("\r", " ").replace("\n", " "))


def md_text(text: str) -> str:
    """Text safe in a Markdown paragraph (no raw HTML, no accidental emphasis or links)."""
    out = str(text).replace("\\", "\\\\").replace("<", "&lt;").replace(">", "&gt;")
    for ch in "*_`[]#":
        out = out.replace(ch, "\\" + ch)
    return out


def _table(headers: tuple[str, ...] | list[str], rows: Sequence[tuple[str, ...]]) -> list[str]:
    out = ["| " + " | ".join(md_cell(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(md_cell(c) for c in r) + " |" for r in rows]
    return out


def picture_markdown(picture_ref: str | None, png: bytes | None) -> list[str]:
    if picture_ref:
        return [f"![The battlefield]({picture_ref.replace(' ', '%20').replace(')', '%29')})", ""]
    if png:
        return [f"![The battlefield](data:image/png;base64,{base64.b64encode(png).decode('ascii')})", ""]
    return []


def ruling_markdown(r: Ruling, picture: list[str], level: int = 1) -> list[str]:
    h = "#" * level
    out = [f"{h} {md_text(r.title)}", "", f"Ruleset: `{r.ruleset}`.", "",
           f"**Verdict: {md_text(r.verdict)}**", ""]
    out += picture
    if r.violations:
        out += [f"{h}# Violations", ""] + [f"- {md_text(v)}" for v in r.violations] + [""]
    out += [f"{h}# Unit by unit", ""]
    for u in r.units:
        name = f" ({u.name})" if u.name and u.name != u.unit else ""
        out += [f"{h}## {md_text(u.unit)}{md_text(name)}", "",
                f"Player {md_text(u.player)}; set up by {md_text(u.setup)}. **{md_text(u.summary)}**", ""]
        out += _table(("rule", "verdict", "model", "measured", "requirement", "margin", "finding", "evidence"),
                      [(x.rule, x.verdict, x.model, x.measured, x.required, x.margin, x.finding, x.evidence)
                       for x in u.rows])
        out.append("")
    if r.rules:
        out += [f"{h}# Rules applied", ""]
        out += _table(("rule id", "meaning", "source"), r.rules)
        out.append("")
    if r.cover is not None:
        out += [f"{h}# Benefit of cover", ""]
        out += _table(("unit", "model", "against", "cover", "why"), r.cover)
        out.append("")
    if r.rulings:
        out += [f"{h}# Rulings applied", ""]
        out += _table(("ruling", "reading", "meaning", "sources"), r.rulings)
        out.append("")
    return out


def check_markdown(report: LegalityReport, *, picture_ref: str | None = None, png: bytes | None = None,
                   title: str | None = None) -> str:
    """The Markdown ruling of ``planner check``."""
    return "\n".join(ruling_markdown(build_ruling(report, title), picture_markdown(picture_ref, png))) + "\n"


def plan_markdown(result, *, scenario: str | None = None, picture_ref: str | None = None,
                  png: bytes | None = None) -> str:
    """The Markdown report of ``planner plan``: the solver's account, the placements, then the ruling of
    the planned deployment by the independent checker."""
    out = [f"# Deployment plan: {md_text(scenario or 'scenario')}", ""]
    out += [f"- {md_text(line)}" for line in plan_lines(result)] + [""]
    if result.placements:
        out += ["## Placements", ""] + _table(PLACEMENT_HEADERS, placement_rows(result)) + [""]
    if result.legality is not None:
        out += ruling_markdown(build_ruling(result.legality, "Ruling on the planned deployment"),
                               picture_markdown(picture_ref, png), level=2)
    else:
        out += ["No plan to rule on.", ""] + picture_markdown(picture_ref, png)
    return "\n".join(out) + "\n"
