"""Markdown tables as pages of the Snakemake report.

The report shows HTML and images inline and offers other files only as downloads, so the tables that the
experiments write as Markdown (He et al. Table 1 beside ours, the annular-augmentation appendix Tables 1-9 beside
ours) get an HTML page each: the Markdown rendered by markdown-it-py (CommonMark with pipe tables), in a
self-contained page styled like the paper-vs-ours table.

Run ``python -m dogs.workflow.report_pages TABLE.md PAGE.html --title "..."`` (``rules/scan_order.smk``,
``rules/annular_ising.smk``).
"""

from __future__ import annotations

import argparse
import html
from pathlib import Path

from markdown_it import MarkdownIt

from dogs.io import atomic_path

__all__ = ["markdown_page", "main"]

_STYLE = ("body{font-family:sans-serif;font-size:13px;max-width:1400px} table{border-collapse:collapse;margin:1em 0} "
          "td,th{border:1px solid #bbb;padding:3px 6px;vertical-align:top;text-align:left} "
          "tr:nth-child(even){background:#f6f6f6} code{font-size:12px}")


def markdown_page(markdown: str, title: str) -> str:
    """A standalone HTML page of ``markdown`` (pipe tables included) under the heading ``title``."""
    body = MarkdownIt("commonmark").enable("table").render(markdown)
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{_STYLE}</style></head><body>{body}</body></html>\n")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m dogs.workflow.report_pages", description=__doc__.split("\n")[0])
    parser.add_argument("markdown", type=Path, help="the Markdown file (a table an experiment wrote)")
    parser.add_argument("page", type=Path, help="the HTML page to write")
    parser.add_argument("--title", required=True, help="the page's title")
    args = parser.parse_args(argv)
    page = markdown_page(args.markdown.read_text(encoding="utf-8"), args.title)
    with atomic_path(args.page) as tmp:
        tmp.write_text(page, encoding="utf-8")


if __name__ == "__main__":
    main()
